"""Applies workflows/sql/operation_guard.sql, the current definition of the outbox guard (it now lets a settled
operation's payload be redacted, and nothing else), so the file and the live database agree (tests/test_structure.py
checks it). Reversing keeps the definition: 0004_operation_invariants owns its creation."""

from pathlib import Path

from django.db import migrations

SQL = (Path(__file__).resolve().parent.parent / "sql" / "operation_guard.sql").read_text()


class Migration(migrations.Migration):
    dependencies = [("workflows", "0007_reconciliation_org_scope_i11")]
    operations = [migrations.RunSQL(SQL, migrations.RunSQL.noop)]
