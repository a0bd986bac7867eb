"""Applies consent/sql/access_rule.sql again: ``app_has_grant`` becomes PL/pgSQL, with the same query, so the
session keeps its plan. As an SQL function PostgreSQL cannot inline (its body holds a sub-select), it was planned
again in every statement that asked it for staff (each policy of ``patient_memory`` and ``patient_consent``, the
audit row decided by access): about 100 us of the database's CPU each time. The rule is unchanged."""

from pathlib import Path

from django.db import migrations

SQL = (Path(__file__).resolve().parent.parent / "sql" / "access_rule.sql").read_text()

# Undone, the function stays PL/pgSQL: it decides exactly as the SQL one did (the same query), so there is nothing
# to put back (as consent 0005, which applies this file too).
REVERSE = migrations.RunSQL.noop


class Migration(migrations.Migration):
    dependencies = [("consent", "0006_purpose_rule")]
    operations = [migrations.RunSQL(SQL, REVERSE)]
