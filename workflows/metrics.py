"""Outbox depth and age for /metrics, read at scrape time through the aggregate view ``workflow_outbox_stats``."""

from __future__ import annotations

from django.db import connection, transaction

from core.observability import gauge
from workflows.definitions import SYSTEMS
from workflows.models import ACTIVE_OPERATION_STATUSES


def outbox_metrics():
    with transaction.atomic(), connection.cursor() as cursor:
        cursor.execute("SELECT set_config('app.metrics', 'outbox', true)")
        cursor.execute("SELECT system, status, depth, oldest_age_seconds FROM workflow_outbox_stats")
        rows = {(system, status): (depth, age) for system, status, depth, age in cursor.fetchall()}
        cursor.execute("SELECT set_config('app.metrics', '', true)")
    keys = [(system, str(status)) for system in SYSTEMS for status in ACTIVE_OPERATION_STATUSES]
    yield gauge("anamnesis_outbox_depth", "Unsettled operations per outside system and status",
                ["system", "status"], [(s, st, rows.get((s, st), (0, 0))[0]) for s, st in keys])
    yield gauge("anamnesis_outbox_oldest_age_seconds", "Age of the oldest unsettled operation",
                ["system", "status"], [(s, st, rows.get((s, st), (0, 0))[1]) for s, st in keys])
