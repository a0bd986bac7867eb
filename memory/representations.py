"""Where copies of a memory's value live, and how each kind of copy is removed and verified.

Every copy is recorded as a ``Representation`` row when it is made; deletion marks each ``deletion_pending``,
removes the copy with its target's handler, verifies that it is gone, and stamps the times for the receipt.
Other modules register handlers for the copies they make (embeddings, context-pack releases).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from django.utils import timezone

from memory.models import Memory, Representation


@dataclass(frozen=True)
class Handler:
    remove: Callable[[Representation], None]
    verify: Callable[[Representation], bool]


HANDLERS: dict[str, Handler] = {}


def register(target: str, handler: Handler) -> None:
    HANDLERS[target] = handler


def _postgres_remove(rep: Representation) -> None:
    """The row itself is erased by the state transition to ``deleted``; nothing else to remove."""


def _postgres_verify(rep: Representation) -> bool:
    return Memory.objects.filter(pk=rep.memory_id, state="deleted", fact__isnull=True,
                                 fact_ciphertext__isnull=True, digest_salt__isnull=True).exists()


register(Representation.Target.POSTGRES, Handler(remove=_postgres_remove, verify=_postgres_verify))


def copy_row(*, memory: Memory, target: str, external_id: str) -> Representation:
    """The record of a copy of a memory, not yet written (a new memory's copies go in the statement that inserts
    it: ``core.rows``)."""
    return Representation(memory_id=memory.memory_id, target=target, external_id=external_id,
                          organization_id=memory.organization_id, patient_id=memory.patient_id,
                          purpose=memory.consent_purpose)


def representation_add(*, memory: Memory, target: str, external_id: str) -> Representation:
    """Record a copy of the memory (idempotent)."""
    fields = {"organization_id": memory.organization_id, "patient_id": memory.patient_id,
              "purpose": memory.consent_purpose}
    rep, _ = Representation.objects.get_or_create(
        memory_id=memory.memory_id, target=target, external_id=external_id, defaults=fields)
    return rep


def representations_mark_pending(memory: Memory) -> list[Representation]:
    reps = list(Representation.objects.filter(memory_id=memory.memory_id).exclude(state="verified")
                .order_by("id"))
    Representation.objects.filter(pk__in=[r.pk for r in reps]).update(state=Representation.State.DELETION_PENDING)
    return reps


def representations_remove(reps: list[Representation]) -> None:
    now = timezone.now()
    for rep in reps:
        HANDLERS[rep.target].remove(rep)
        rep.deleted_at = now
    Representation.objects.filter(pk__in=[r.pk for r in reps]).update(state=Representation.State.DELETED,
                                                                      deleted_at=now)


def representations_verify(memory: Memory) -> list[dict]:
    """Verify every copy is gone; returns the receipt lines. Raises if any copy survived (the transaction then
    rolls back, so a deletion is never reported done when it is not)."""
    lines = []
    for rep in Representation.objects.filter(memory_id=memory.memory_id).order_by("id"):
        if rep.state != Representation.State.VERIFIED:
            if not HANDLERS[rep.target].verify(rep):
                raise RuntimeError(f"deletion of a {rep.target} copy could not be verified")
            rep.verified_at = timezone.now()
            rep.state = Representation.State.VERIFIED
            rep.save(update_fields=["state", "verified_at"])
        lines.append({"memory_id": str(rep.memory_id), "target": rep.target, "external_id": rep.external_id,
                      "state": rep.state, "deleted_at": rep.deleted_at.isoformat() if rep.deleted_at else None,
                      "verified_at": rep.verified_at.isoformat()})
    return lines
