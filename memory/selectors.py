from __future__ import annotations

import uuid

from django.db.models import QuerySet
from django.utils import timezone

from core.errors import NotFound
from core.identity import Identity
from memory.models import Deletion, LifecycleEvent, Memory, MemoryState, Release, ReleaseMember


def memory_list_current(*, identity: Identity, patient_id: uuid.UUID, memory_type: str | None = None,
                        consent_purpose: str | None = None) -> QuerySet[Memory]:
    """Current memories of one patient that the caller may see (RLS), in a stable order.

    The organisation and patient filters repeat what RLS enforces so that plans use the patient index.
    """
    qs = Memory.objects.current().for_patient(identity.org_id, patient_id)
    if memory_type:
        qs = qs.filter(memory_type=memory_type)
    if consent_purpose:
        qs = qs.filter(consent_purpose=consent_purpose)
    return qs.order_by("memory_type", "attribute", "consent_purpose")


def memory_list_proposed(*, identity: Identity, patient_id: uuid.UUID) -> list[Memory]:
    """Proposals still waiting for confirmation: one whose validity, retention or consent ended is no longer
    one (the sweep will record it as expired)."""
    now = timezone.now()
    proposals = (Memory.objects.for_patient(identity.org_id, patient_id).filter(state=MemoryState.PROPOSED)
                 .select_related("consent_record").order_by("created_at"))
    return [m for m in proposals if m.effective_state(now) == MemoryState.PROPOSED]


def memory_get(*, identity: Identity, patient_id: uuid.UUID, memory_id: uuid.UUID) -> Memory:
    """One memory in the state it has now (see :meth:`Memory.effective_state`): past its validity or consent
    it reads as expired, past retention as a tombstone without value, never as active. NotFound otherwise."""
    memory = (Memory.objects.for_patient(identity.org_id, patient_id).filter(memory_id=memory_id)
              .select_related("consent_record").first())
    if memory is None:
        raise NotFound()
    return memory.as_of_now()


def memory_history(*, identity: Identity, patient_id: uuid.UUID,
                   memory_id: uuid.UUID) -> tuple[list[Memory], list[LifecycleEvent]]:
    """Every version of the memory's attribute chain (newest first) and their lifecycle events."""
    memory = memory_get(identity=identity, patient_id=patient_id, memory_id=memory_id)
    base = Memory.objects.for_patient(identity.org_id, patient_id).select_related("consent_record")
    versions = [memory]
    cursor = memory
    while cursor.superseded_by_id is not None:  # newer versions
        cursor = base.filter(memory_id=cursor.superseded_by_id).first()
        if cursor is None:
            break
        versions.insert(0, cursor)
    frontier = [memory.memory_id]
    while frontier:  # older versions
        older = list(base.filter(superseded_by_id__in=frontier))
        versions.extend(older)
        frontier = [m.memory_id for m in older]
    now = timezone.now()
    versions = [v.as_of_now(now) for v in versions]
    events = list(LifecycleEvent.objects.filter(memory_id__in=[v.memory_id for v in versions])
                  .order_by("occurred_at"))
    return versions, events


def deletion_receipts(*, identity: Identity, patient_id: uuid.UUID) -> list[dict]:
    return [d.receipt for d in Deletion.objects.filter(organization_id=identity.org_id, patient_id=patient_id,
                                                       completed_at__isnull=False).order_by("-requested_at")]


def release_list(*, identity: Identity, patient_id: uuid.UUID, limit: int = 200) -> list[dict]:
    """Context packs released for this patient, newest first, with the memories in each (ids and whether the
    memory has since been withdrawn by a deletion). No texts: packs are never stored."""
    releases = list(Release.objects.filter(organization_id=identity.org_id, patient_id=patient_id)
                    .order_by("-created_at")[:limit])
    members: dict = {}
    for m in ReleaseMember.objects.filter(release_id__in=[r.release_id for r in releases]).order_by("id"):
        members.setdefault(m.release_id, []).append(
            {"memory_id": str(m.memory_id), "score": round(m.score, 4),
             "withdrawn_at": m.withdrawn_at.isoformat() if m.withdrawn_at else None})
    return [{"release_id": str(r.release_id), "actor_sub": r.actor_sub, "purpose": r.purpose,
             "created_at": r.created_at.isoformat(), "members": members.get(r.release_id, [])} for r in releases]
