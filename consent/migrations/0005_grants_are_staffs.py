"""Applies consent/sql/access_rule.sql again: grants open a patient to staff identities only. An identity acting as a
patient reaches that patient alone, even when its subject holds grants (a grant given by mistake to a patient's
subject opened other patients' memories to that patient's token)."""

from pathlib import Path

from django.db import migrations

SQL = (Path(__file__).resolve().parent.parent / "sql" / "access_rule.sql").read_text()


class Migration(migrations.Migration):
    dependencies = [("consent", "0004_citus_keys_i12")]
    operations = [migrations.RunSQL(SQL, migrations.RunSQL.noop)]
