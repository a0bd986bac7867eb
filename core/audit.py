"""Appending audit events. Runs inside the caller's identity context, so the row commits with the work."""

from __future__ import annotations

import uuid

from django.utils import timezone

from core.identity import current_identity
from core.logging import request_id_var
from core.models import AuditEvent


def record(*, action: str, resource_type: str, resource_id: str | uuid.UUID | None = None,
           patient_id: uuid.UUID | str | None = None, purpose: str | None = None, outcome: str = "success",
           reason: str | None = None) -> None:
    """Append one audit event for the identity whose context is open. Never pass values, prompts or tokens."""
    identity = current_identity()
    if identity is None:
        raise RuntimeError("audit.record needs an open identity context")
    AuditEvent.objects.create(
        organization_id=identity.org_id,
        patient_id=patient_id,
        actor_sub=identity.actor_sub,
        actor_kind=identity.actor_kind,
        action=action,
        resource_type=resource_type,
        resource_id=str(resource_id) if resource_id is not None else None,
        purpose=purpose,
        outcome=outcome,
        reason=reason,
        correlation_id=request_id_var.get() if request_id_var.get() != "-" else str(uuid.uuid4()),
    )


_INSERT_SQL = (
    "INSERT INTO audit_event (id, occurred_at, organization_id, patient_id, actor_sub, actor_kind, action, "
    "resource_type, resource_id, purpose, outcome, reason, correlation_id) "
    "VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s)"
)


def insert_statement(*, action: str, resource_type: str, resource_id: str | uuid.UUID | None = None,
                     patient_id: uuid.UUID | str | None = None, purpose: str | None = None,
                     outcome: str = "success", reason: str | None = None) -> tuple[str, list]:
    """The same event as :func:`record`, as an INSERT statement and its parameters, for a hot read that sends
    its audit row in the statement that reads (a data-modifying CTE, which PostgreSQL runs whether or not the
    query reads it). It commits or rolls back with the read, exactly like ``record``."""
    identity = current_identity()
    if identity is None:
        raise RuntimeError("audit.insert_statement needs an open identity context")
    rid = request_id_var.get()
    return _INSERT_SQL, [
        uuid.uuid4(), timezone.now(), identity.org_id, patient_id, identity.actor_sub, identity.actor_kind, action,
        resource_type, str(resource_id) if resource_id is not None else None, purpose, outcome, reason,
        rid if rid != "-" else str(uuid.uuid4()),
    ]
