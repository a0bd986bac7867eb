"""The audit trail's monthly partitions: created ahead of time, and dropped whole by the retention policy.

``audit_event`` is range-partitioned by ``occurred_at``, one partition per calendar month in UTC (core migration
0016, audit partitioned by month). Both jobs run as the owner role, which owns the partitions; the runtime role
can neither create nor drop them. A DEFAULT partition catches any row whose month has no partition yet, so a
late job never makes an insert fail; ``audit_partitions_ensure`` keeps ``AUDIT_PARTITIONS_AHEAD`` months ready
so rows do not land there.

Retention (``AUDIT_RETENTION_MONTHS``; unset keeps everything) drops a month's partition once the whole month
ended more than that many months ago: every dropped row is older than the policy, and no row is deleted one by
one (the table stays append-only: its triggers refuse UPDATE, DELETE and TRUNCATE). Each drop is audited in the
same transaction, one ``audit.retention`` row in each organisation whose rows the month held, so an
organisation's auditor sees when and by which policy its history was shortened.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from datetime import UTC, date, datetime

from django.conf import settings
from django.db import connections, transaction
from django.utils import timezone

RETENTION_ACTOR = "service:audit-retention"
RETENTION_TASK = "audit_retention"  # app.maintenance value the owner-only census policy answers to

PARTITIONS_SQL = """
SELECT c.relname
  FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
 WHERE i.inhparent = 'audit_event'::regclass AND c.relname ~ '^audit_event_y[0-9]{4}m[0-9]{2}$'
 ORDER BY c.relname
"""
CENSUS_SQL = """
SELECT organization_id, count(*) FROM audit_event
 WHERE occurred_at >= %s AND occurred_at < %s GROUP BY organization_id ORDER BY organization_id
"""
IDENTITY_SQL = "SELECT set_config('app.org_id', %s, true), set_config('app.actor_sub', %s, true)"
RETENTION_ROW_SQL = """
INSERT INTO audit_event (id, occurred_at, organization_id, actor_sub, actor_kind, action, resource_type,
                         resource_id, outcome, reason, correlation_id)
VALUES (%s, %s, %s, %s, 'service', 'audit.retention', 'audit_event', %s, 'success', 'retention_policy', %s)
"""


@dataclass(frozen=True)
class DroppedMonth:
    partition: str
    month: date
    rows: int
    organizations: int


def month_start(moment: datetime, months_back: int = 0) -> datetime:
    """The first instant (UTC) of the month ``months_back`` months before ``moment``'s month."""
    moment = moment.astimezone(UTC)
    index = moment.year * 12 + moment.month - 1 - months_back
    return datetime(index // 12, index % 12 + 1, 1, tzinfo=UTC)


def retention_months() -> int | None:
    """The policy in whole months; None keeps every month."""
    months = settings.AUDIT_RETENTION_MONTHS
    return months or None


def audit_partitions_ensure(*, months_ahead: int | None = None, now: datetime | None = None,
                            using: str = "owner") -> list[str]:
    """Create the monthly partitions from this month to ``months_ahead`` months ahead that do not exist yet;
    returns their names. Idempotent; a month whose rows already sit in the default partition is left there."""
    ahead = settings.AUDIT_PARTITIONS_AHEAD if months_ahead is None else months_ahead
    if ahead < 0:
        raise ValueError("months_ahead must be 0 or more")
    now = now or timezone.now()
    with transaction.atomic(using=using), connections[using].cursor() as cursor:
        cursor.execute("SELECT audit_event_add_partitions(%s, %s)", [month_start(now), month_start(now, -ahead)])
        return [name for (name,) in cursor.fetchall()]


def _partition_months(cursor) -> list[tuple[str, datetime, datetime]]:
    cursor.execute(PARTITIONS_SQL)
    months = []
    for (name,) in cursor.fetchall():
        lower = datetime(int(name[13:17]), int(name[18:20]), 1, tzinfo=UTC)
        months.append((name, lower, month_start(lower, -1)))
    return months


def audit_retention_apply(*, months: int | None = None, now: datetime | None = None, dry_run: bool = False,
                          using: str = "owner") -> list[DroppedMonth]:
    """Drop every monthly partition whose month ended more than ``months`` (default: the policy) months before
    ``now``'s month began, each in its own transaction with its ``audit.retention`` rows. Nothing when the policy
    keeps everything. ``dry_run`` reports what would go and changes nothing."""
    months = retention_months() if months is None else months
    if months is None:
        return []
    if months < 1:
        raise ValueError("a retention policy keeps at least one month")
    cutoff = month_start(now or timezone.now(), months)
    connection = connections[using]
    with connection.cursor() as cursor:
        due = [(name, lower, upper) for name, lower, upper in _partition_months(cursor) if upper <= cutoff]
    dropped = []
    for name, lower, upper in due:
        with transaction.atomic(using=using), connection.cursor() as cursor:
            cursor.execute("SELECT set_config('app.maintenance', %s, true)", [RETENTION_TASK])
            cursor.execute(CENSUS_SQL, [lower, upper])
            census = cursor.fetchall()
            cursor.execute("SELECT set_config('app.maintenance', '', true)")
            dropped.append(DroppedMonth(partition=name, month=lower.date(), rows=sum(n for _, n in census),
                                        organizations=len(census)))
            if dry_run:
                continue
            when = timezone.now()
            for org_id, _count in census:
                cursor.execute(IDENTITY_SQL, [str(org_id), RETENTION_ACTOR])
                cursor.execute(RETENTION_ROW_SQL, [uuid.uuid4(), when, org_id, RETENTION_ACTOR, name,
                                                   str(uuid.uuid4())])
            cursor.execute("SELECT set_config('app.org_id', '', true), set_config('app.actor_sub', '', true)")
            cursor.execute(f'DROP TABLE "{name}"')  # noqa: S608 (a name matched by PARTITIONS_SQL's pattern)
    return dropped
