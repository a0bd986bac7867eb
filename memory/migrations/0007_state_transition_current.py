"""Applies memory/sql/state_transition.sql, the current definition of the memory state transition table, so the file and the live database agree
(tests/test_structure.py checks it). Reversing keeps the definitions: earlier migrations own their creation."""

from pathlib import Path

from django.db import migrations

SQL = (Path(__file__).resolve().parent.parent / "sql" / "state_transition.sql").read_text()


class Migration(migrations.Migration):
    dependencies = [("memory", "0006_retrieval_rls")]
    operations = [migrations.RunSQL(SQL, migrations.RunSQL.noop)]
