"""Applies consent/sql/purpose_rule.sql: ``app_require_purpose``, the purpose-of-use check a read carries in its
audit row (refuses with SQLSTATE AP403)."""

from pathlib import Path

from django.db import migrations

SQL = (Path(__file__).resolve().parent.parent / "sql" / "purpose_rule.sql").read_text()
REVERSE_SQL = "DROP FUNCTION IF EXISTS app_require_purpose(uuid, uuid, text, boolean)"


class Migration(migrations.Migration):
    dependencies = [("consent", "0005_grants_are_staffs")]
    operations = [migrations.RunSQL(SQL, REVERSE_SQL)]
