"""The access rule, asked from Python. The database's ``app_may_access`` (consent/sql/access_rule.sql) is the rule;
this asks it inside the caller's identity context, so the application can answer clearly *before* a write that RLS
would refuse."""

from __future__ import annotations

import uuid

from django.db import connection


def may_access(*, patient_id: uuid.UUID, purpose: str) -> bool:
    """True when the open identity may act on this patient's data for this purpose (same rule as RLS)."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT COALESCE(app_may_access(app_org_id(), %s, %s), false)", [patient_id, purpose])
        return bool(cursor.fetchone()[0])


def may_access_any(*, patient_id: uuid.UUID, purposes: list[str]) -> bool:
    """True when the open identity may act on this patient's data for at least one of ``purposes`` (one query)."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT COALESCE(bool_or(app_may_access(app_org_id(), %s, p)), false) "
                       "FROM unnest(%s::text[]) AS p", [patient_id, list(purposes)])
        return bool(cursor.fetchone()[0])
