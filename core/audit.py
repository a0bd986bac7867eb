"""Appending audit events. Runs inside the caller's identity context, so the row commits with the work.

Every column but the actor's subject holds a server-chosen code: actions, resource types, reasons and outcomes
match a safe pattern, purposes come from the closed set, ids are UUIDs or short codes. Callers validate what a
request gives them before it can reach here; :func:`record` checks again and the database's check constraints
(migration ``core.0006``) refuse anything else, so no caller can plant free text in the append-only trail.
"""

from __future__ import annotations

import re
import uuid

from core.identity import current_identity
from core.logging import request_id_var
from core.models import AuditEvent
from core.vocabulary import PURPOSES

PURPOSE_CODES = frozenset(p for p, _ in PURPOSES)
ACTOR_KINDS = frozenset({"patient", "staff", "service", "agent"})
OUTCOMES = frozenset({"success", "denied", "conflict", "error"})
# Mirrored by the CHECK constraints in core/migrations/0006_audit_coded_values_i11.py.
CODE = re.compile(r"^[A-Za-z][A-Za-z0-9_.]{0,79}\Z")
RESOURCE_ID = re.compile(r"^[A-Za-z0-9_.:-]{1,80}\Z")
CLIENT_ID = re.compile(r"^[\x21-\x7e]{1,255}\Z")


def _check(name: str, value, pattern: re.Pattern | None = None, allowed: frozenset | None = None) -> None:
    if value is None:
        return
    if not isinstance(value, str) or (pattern is not None and not pattern.match(value)) or (
            allowed is not None and value not in allowed):
        # A programming error, never the caller's: request input is validated before it can reach here.
        raise ValueError(f"audit {name} is not a server-validated code")


def record(*, action: str, resource_type: str, resource_id: str | uuid.UUID | None = None,
           patient_id: uuid.UUID | str | None = None, purpose: str | None = None, outcome: str = "success",
           reason: str | None = None) -> None:
    """Append one audit event for the identity whose context is open. Never pass values, prompts or tokens.

    An agent acting for a patient is recorded as such: ``agent_client_id`` names the agent and
    ``on_behalf_of`` the patient it acted for, next to the token's subject.
    """
    identity = current_identity()
    if identity is None:
        raise RuntimeError("audit.record needs an open identity context")
    resource_id = str(resource_id) if resource_id is not None else None
    _check("action", action, CODE)
    _check("resource_type", resource_type, CODE)
    _check("resource_id", resource_id, RESOURCE_ID)
    _check("purpose", purpose, allowed=PURPOSE_CODES)
    _check("outcome", outcome, allowed=OUTCOMES)
    _check("reason", reason, CODE)
    _check("actor_kind", identity.actor_kind, allowed=ACTOR_KINDS)
    AuditEvent.objects.create(
        organization_id=identity.org_id,
        patient_id=patient_id,
        actor_sub=identity.actor_sub,
        actor_kind=identity.actor_kind,
        agent_client_id=identity.agent_client_id,
        on_behalf_of=identity.patient_self_id if identity.agent_client_id else None,
        action=action,
        resource_type=resource_type,
        resource_id=resource_id,
        purpose=purpose,
        outcome=outcome,
        reason=reason,
        correlation_id=request_id_var.get() if request_id_var.get() != "-" else str(uuid.uuid4()),
    )
