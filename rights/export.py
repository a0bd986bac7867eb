"""Everything held about one patient, read in chunks for a streamed export.

Each section is a generator of plain dicts read with server-side cursors (``iterator(chunk_size=...)``), so an
export of any size holds one chunk in memory. Every read runs under the caller's identity: row-level security
decides what a caller sees (the patient: everything of theirs; staff: what their grants cover; the access history
also needs ``audit:read`` for staff, as everywhere else). The caller of these generators must keep one identity
context open for the whole iteration (see :func:`rights.streaming.stream_in_identity`).
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator

from django.db.models import OuterRef, Subquery
from django.utils import timezone

from consent.models import AccessGrant, ConsentRecord
from consent.selectors import consents_as_now
from conversations.models import ConversationSession, ConversationTurn, SessionStatus, TurnRole
from core.identity import Identity
from core.models import AuditEvent
from directory.selectors import patient_get
from memory.models import Deletion, LifecycleEvent, Memory, MemoryState, Release, ReleaseMember
from memory.rendering import memory_out
from workflows.models import Operation, Workflow, WorkflowTransition

CHUNK = 500
FORMAT = "anamnesis-export/1"


def _iso(value):
    return value.isoformat() if value is not None else None


def directory_entry(identity: Identity, patient_id: uuid.UUID) -> Iterator[dict]:
    """The patient's entry in the organisation's directory (name, date of birth, identifiers such as an MRN), if
    there is one the caller may see: zero or one row."""
    entry = patient_get(identity=identity, patient_id=patient_id)
    if entry is not None:
        yield entry


def memories(identity: Identity, patient_id: uuid.UUID) -> Iterator[Memory]:
    """Every memory that still holds a value (any state but ``deleted``); tombstones are covered by the
    deletion receipts and the lifecycle history. As every read shows them (``Memory.as_of_now``): past its
    ``expires_at`` (retention over, or its consent withdrawn) a memory is listed as expired without its value,
    which the sweep is about to erase."""
    now = timezone.now()
    rows = (Memory.objects.for_patient(identity.org_id, patient_id).exclude(state=MemoryState.DELETED)
            .order_by("created_at", "memory_id").iterator(chunk_size=CHUNK))
    return (m.as_of_now(now) for m in rows)


def memory_dict(m: Memory) -> dict:
    """The memory as the API shows it (:func:`memory.rendering.memory_out`)."""
    return memory_out(m)


def lifecycle_events(identity: Identity, patient_id: uuid.UUID) -> Iterator[LifecycleEvent]:
    """The memories' lifecycle events, each with the agent its memory was proposed by (``proposer_agent``: the
    event holds only the subject the agent's token named, the person it acted for)."""
    proposer = Memory.objects.filter(memory_id=OuterRef("memory_id")).values("agent_client_id")[:1]
    return (LifecycleEvent.objects.filter(organization_id=identity.org_id, patient_id=patient_id)
            .annotate(proposer_agent=Subquery(proposer))
            .order_by("occurred_at", "event_id").iterator(chunk_size=CHUNK))


def lifecycle_event_dict(e: LifecycleEvent) -> dict:
    # Only the proposal is the agent's act (an agent confirms, corrects or deletes nothing): the events after it
    # are the people's named by actor_sub.
    agent = getattr(e, "proposer_agent", None) if e.event_type == LifecycleEvent.Type.PROPOSED else None
    return {"event_id": str(e.event_id), "memory_id": str(e.memory_id), "event_type": e.event_type,
            "from_state": e.from_state, "to_state": e.to_state, "actor_sub": e.actor_sub, "agent_client_id": agent,
            "reason_code": e.reason_code, "policy_revision": e.policy_revision, "source_ref": e.source_ref,
            "purpose": e.purpose, "occurred_at": _iso(e.occurred_at)}


def consents(identity: Identity, patient_id: uuid.UUID) -> Iterator[ConsentRecord]:
    """Every consent with the status it has now, as the consent list shows it (:func:`consents_as_now`): one past
    its expiry is ``expired`` (its row says so only once a new consent for the purpose is recorded), never
    ``granted``, nor an active FHIR Consent."""
    rows = (ConsentRecord.objects.filter(organization_id=identity.org_id, patient_id=patient_id)
            .order_by("granted_at", "consent_record_id").iterator(chunk_size=CHUNK))
    return (consents_as_now([c])[0] for c in rows)


def consent_dict(c: ConsentRecord) -> dict:
    return {"consent_record_id": str(c.consent_record_id), "purpose": c.purpose, "status": c.status,
            "granted_at": _iso(c.granted_at), "revoked_at": _iso(c.revoked_at), "expires_at": _iso(c.expires_at),
            "evidence_ref": c.evidence_ref, "policy_revision": c.policy_revision, "recorded_by": c.recorded_by,
            "revoked_by": c.revoked_by}


def _grants(identity: Identity, patient_id: uuid.UUID) -> Iterator[dict]:
    for g in (AccessGrant.objects.filter(organization_id=identity.org_id, patient_id=patient_id)
              .order_by("created_at", "grant_id").iterator(chunk_size=CHUNK)):
        yield {"grant_id": str(g.grant_id), "actor_sub": g.actor_sub, "purpose": g.purpose,
               "expires_at": _iso(g.expires_at), "revoked_at": _iso(g.revoked_at), "granted_by": g.granted_by,
               "reason": g.reason, "revoked_by": g.revoked_by, "created_at": _iso(g.created_at)}


def _releases(identity: Identity, patient_id: uuid.UUID) -> Iterator[dict]:
    for r in (Release.objects.filter(organization_id=identity.org_id, patient_id=patient_id)
              .order_by("created_at", "release_id").iterator(chunk_size=CHUNK)):
        # the agent it went to, when an agent asked (actor_sub is then the person it acted for)
        yield {"release_id": str(r.release_id), "actor_sub": r.actor_sub, "agent_client_id": r.agent_client_id,
               "purpose": r.purpose, "session_id": str(r.session_id) if r.session_id else None,
               "created_at": _iso(r.created_at)}


def _release_members(identity: Identity, patient_id: uuid.UUID) -> Iterator[dict]:
    for m in (ReleaseMember.objects.filter(organization_id=identity.org_id, patient_id=patient_id)
              .order_by("id").iterator(chunk_size=CHUNK)):
        yield {"release_id": str(m.release_id), "memory_id": str(m.memory_id), "score": round(m.score, 4),
               "included_at": _iso(m.included_at), "withdrawn_at": _iso(m.withdrawn_at)}


def _deletions(identity: Identity, patient_id: uuid.UUID) -> Iterator[dict]:
    for d in (Deletion.objects.filter(organization_id=identity.org_id, patient_id=patient_id,
                                      completed_at__isnull=False)
              .order_by("requested_at", "deletion_id").iterator(chunk_size=CHUNK)):
        yield d.receipt


# A session still marked active but past its expiry is shown as the sweep is about to leave it, as an ended one
# is: expired, without slots, and its tool results cleared (every session endpoint already answers 410).
EXPIRED = "expired"


def _sessions(identity: Identity, patient_id: uuid.UUID) -> Iterator[dict]:
    now = timezone.now()
    for s in (ConversationSession.objects.for_patient(identity.org_id, patient_id)
              .order_by("created_at", "session_id").iterator(chunk_size=CHUNK)):
        expired = s.status == SessionStatus.ACTIVE and s.expires_at <= now
        yield {"session_id": str(s.session_id), "purpose": s.purpose, "status": EXPIRED if expired else s.status,
               "created_by": s.created_by, "agent_client_id": s.agent_client_id, "created_at": _iso(s.created_at),
               "last_activity_at": _iso(s.last_activity_at), "expires_at": _iso(s.expires_at),
               "ended_at": _iso(s.ended_at), "retain_until": _iso(s.retain_until), "turn_count": s.turn_count,
               "slots": {} if expired else s.slots, "care_team_flags": s.care_team_flags}


def _turns(identity: Identity, patient_id: uuid.UUID) -> Iterator[dict]:
    expired = set(ConversationSession.objects.for_patient(identity.org_id, patient_id).filter(
        status=SessionStatus.ACTIVE, expires_at__lte=timezone.now()).values_list("session_id", flat=True))
    for t in (ConversationTurn.objects.filter(organization_id=identity.org_id, patient_id=patient_id)
              .order_by("session_id", "seq").iterator(chunk_size=CHUNK)):
        cleared = t.session_id in expired and t.role == TurnRole.TOOL
        yield {"session_id": str(t.session_id), "seq": t.seq, "role": t.role, "content": "" if cleared else t.content,
               "tool_name": t.tool_name, "tool_result": None if cleared else t.tool_result,
               "created_by": t.created_by, "agent_client_id": t.agent_client_id, "created_at": _iso(t.created_at)}


def _workflows(identity: Identity, patient_id: uuid.UUID) -> Iterator[dict]:
    for w in (Workflow.objects.filter(organization_id=identity.org_id, patient_id=patient_id)
              .order_by("created_at", "workflow_id").iterator(chunk_size=CHUNK)):
        yield {"workflow_id": str(w.workflow_id), "workflow_type": w.workflow_type, "purpose": w.purpose,
               "current_step": w.current_step, "state": w.state, "version": w.version, "created_by": w.created_by,
               "agent_client_id": w.agent_client_id, "created_at": _iso(w.created_at), "updated_at": _iso(w.updated_at)}


def _workflow_transitions(identity: Identity, patient_id: uuid.UUID) -> Iterator[dict]:
    for t in (WorkflowTransition.objects.filter(organization_id=identity.org_id, patient_id=patient_id)
              .order_by("workflow_id", "version").iterator(chunk_size=CHUNK)):
        yield {"workflow_id": str(t.workflow_id), "version": t.version, "from_step": t.from_step,
               "to_step": t.to_step, "actor_sub": t.actor_sub, "agent_client_id": t.agent_client_id,
               "occurred_at": _iso(t.occurred_at),
               "operation_id": str(t.operation_id) if t.operation_id else None}


def _operations(identity: Identity, patient_id: uuid.UUID) -> Iterator[dict]:
    for o in (Operation.objects.filter(organization_id=identity.org_id, patient_id=patient_id)
              .order_by("created_at", "operation_id").iterator(chunk_size=CHUNK)):
        yield {"operation_id": str(o.operation_id), "workflow_id": str(o.workflow_id), "kind": o.kind,
               "system": o.system, "idempotency_key": o.idempotency_key, "payload": o.payload,
               "payload_hash": o.payload_hash, "status": o.status, "attempts": o.attempts, "result": o.result,
               "last_error_code": o.last_error_code, "requested_by": o.requested_by,
               "requested_by_kind": o.requested_by_kind, "created_at": _iso(o.created_at),
               "completed_at": _iso(o.completed_at)}


def access_events(identity: Identity, patient_id: uuid.UUID) -> Iterator[AuditEvent]:
    return (AuditEvent.objects.filter(organization_id=identity.org_id, patient_id=patient_id)
            .order_by("occurred_at", "id").iterator(chunk_size=CHUNK))


def access_event_dict(a: AuditEvent) -> dict:
    return {"id": str(a.id), "occurred_at": _iso(a.occurred_at), "actor_sub": a.actor_sub,
            "actor_kind": a.actor_kind, "action": a.action, "resource_type": a.resource_type,
            "resource_id": a.resource_id, "purpose": a.purpose, "outcome": a.outcome, "reason": a.reason,
            "agent_client_id": a.agent_client_id,
            "on_behalf_of": str(a.on_behalf_of) if a.on_behalf_of else None, "correlation_id": a.correlation_id}


def _mapped(rows, fn) -> Iterator[dict]:
    return (fn(row) for row in rows)


def export_sections(identity: Identity, patient_id: uuid.UUID) -> list[tuple[str, Iterator[dict]]]:
    """The JSON export's sections in order: (name, rows). Generators: nothing is read until iterated."""
    def lazy(fn, mapper=None):
        def rows():
            source = fn(identity, patient_id)
            yield from (_mapped(source, mapper) if mapper else source)
        return rows()

    return [
        ("directory", lazy(directory_entry)),
        ("memories", lazy(memories, memory_dict)),
        ("lifecycle_events", lazy(lifecycle_events, lifecycle_event_dict)),
        ("consents", lazy(consents, consent_dict)),
        ("grants", lazy(_grants)),
        ("releases", lazy(_releases)),
        ("release_members", lazy(_release_members)),
        ("deletion_receipts", lazy(_deletions)),
        ("conversation_sessions", lazy(_sessions)),
        ("conversation_turns", lazy(_turns)),
        ("workflows", lazy(_workflows)),
        ("workflow_transitions", lazy(_workflow_transitions)),
        ("workflow_operations", lazy(_operations)),
        ("access_history", lazy(access_events, access_event_dict)),
    ]
