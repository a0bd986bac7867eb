"""Applies workflows/sql/operation_guard.sql again: an operation's requested_by_kind never changes, and its
withdrawal (withdrawn_reason) once made is never undone, as its key and payload never change. Reversing keeps the
definition, as 0008_operation_guard_current does (the file is the current definition)."""

from pathlib import Path

from django.db import migrations

SQL = (Path(__file__).resolve().parent.parent / "sql" / "operation_guard.sql").read_text()


class Migration(migrations.Migration):
    dependencies = [("workflows", "0015_operation_requested_by_kind")]
    operations = [migrations.RunSQL(SQL, migrations.RunSQL.noop)]
