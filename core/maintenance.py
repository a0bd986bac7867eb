"""Cross-organisation discovery for maintenance jobs (sweeps, key rotation, re-indexing).

Row-level security hides every patient row from a connection without identity. A maintenance job first
*discovers* the rows it must process through a narrow, SELECT-only policy that is active only while
``app.maintenance`` names that job (each policy shows only the rows due for that job), then processes each row
under ``Identity.service(...)``, scoped to that row's organisation, patient and purpose, so every write goes
through the ordinary access rule and is audited as the service.
"""

from __future__ import annotations

from django.db import connection, transaction


def discover(task: str, sql: str, params: list | None = None, *, settings: dict[str, str] | None = None
             ) -> list[tuple]:
    """Run one discovery query with ``app.maintenance = task`` (and any extra settings) set for its
    transaction only."""
    extra = settings or {}
    with transaction.atomic(), connection.cursor() as cursor:
        cursor.execute("SELECT set_config('app.maintenance', %s, true)", [task])
        for name, value in extra.items():
            cursor.execute("SELECT set_config(%s, %s, true)", [name, value])
        cursor.execute(sql, params or [])
        rows = cursor.fetchall()
        cursor.execute("SELECT set_config('app.maintenance', '', true)")
        for name in extra:
            cursor.execute("SELECT set_config(%s, '', true)", [name])
    return rows
