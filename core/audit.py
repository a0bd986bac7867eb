"""Appending audit events. Runs inside the caller's identity context, so the row commits with the work."""

from __future__ import annotations

import uuid

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
