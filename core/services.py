from __future__ import annotations

from django.db import connection

from core.identity import Identity


def organization_ensure(*, identity: Identity) -> None:
    """Register the caller's organisation on first use (RLS lets a caller insert only their own)."""
    with connection.cursor() as cursor:
        cursor.execute("INSERT INTO organization (id, name, created_at) VALUES (%s, '', now()) "
                       "ON CONFLICT (id) DO NOTHING", [identity.org_id])
