"""Applies consent/sql/access_rule.sql, the current definition of the access rule, so the file and the live database agree
(tests/test_structure.py checks it). Reversing keeps the definitions: earlier migrations own their creation."""

from pathlib import Path

from django.db import migrations

SQL = (Path(__file__).resolve().parent.parent / "sql" / "access_rule.sql").read_text()


class Migration(migrations.Migration):
    dependencies = [("consent", "0002_enable_rls")]
    operations = [migrations.RunSQL(SQL, migrations.RunSQL.noop)]
