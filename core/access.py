"""Access decisions. The database's ``app_may_access`` is the rule; these helpers ask it, inside the caller's
identity context, so that the application can answer clearly *before* a write that RLS would refuse."""

from __future__ import annotations

import uuid

from django.db import connection

from core.errors import Forbidden
from core.identity import Identity


def may_access(*, patient_id: uuid.UUID, purpose: str) -> bool:
    """True when the open identity may act on this patient's data for this purpose (same rule as RLS)."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT COALESCE(app_may_access(app_org_id(), %s, %s), false)", [patient_id, purpose])
        return bool(cursor.fetchone()[0])



def require_staff(identity: Identity) -> None:
    """Organisation-level actions (grants) are never taken by a patient token."""
    if identity.patient_self_id is not None:
        raise Forbidden("this action is for organisation staff")
