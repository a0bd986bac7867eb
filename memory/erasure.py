"""Copies of a patient's information held outside long-term memory, reached by erase-all and by deleting one memory.

Erase-all (``memory.deletion.memory_erase_patient``) must also reach short-term conversations and workflow state,
but ``memory`` may not import the apps that hold them. Those apps register an eraser here when they load
(``AppConfig.ready``); erase-all calls every eraser inside its own transaction, under the caller's identity, so
row-level security decides what each eraser can reach and a failure anywhere rolls the whole erasure back.

An eraser returns one receipt section: the kind of copy, what was erased (ids only), and what was kept and why.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable
from dataclasses import dataclass, field

from django.db import connection

from core.identity import Identity


def erasure_lock_key(org_id, patient_id) -> str:
    """The key of :func:`erasure_hold`'s lock, for a statement that takes it among other checks."""
    return f"memory-erasure:{org_id}:{patient_id}"


def erasure_hold(identity: Identity, patient_id: uuid.UUID, *, shared: bool = False) -> None:
    """The patient's erasure lock, until the transaction ends. Deleting, erasing all and withdrawing a consent take
    it alone (``memory.deletion._hold_erasures``); what writes a copy an erasure reaches takes it shared, before the
    rows an erasure locks after it (a workflow's), so it either commits before the erasure starts, which then
    reaches what it wrote, or waits until the erasure committed, never between."""
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT pg_advisory_xact_lock{'_shared' if shared else ''}(hashtextextended(%s, 0))",
                       [erasure_lock_key(identity.org_id, patient_id)])


@dataclass
class ErasureSection:
    """One kind of copy in an erase-all receipt: ids of what was erased, and what was kept with the reason."""

    kind: str
    erased: list[dict] = field(default_factory=list)
    retained: list[dict] = field(default_factory=list)
    note: str = ""

    def as_dict(self) -> dict:
        return {"kind": self.kind, "erased": self.erased, "retained": self.retained, "note": self.note}


Eraser = Callable[..., ErasureSection]
_ERASERS: dict[str, Eraser] = {}


def register(kind: str, eraser: Eraser) -> None:
    """Register ``eraser(identity=..., patient_id=...) -> ErasureSection`` for one kind of copy (idempotent)."""
    _ERASERS[kind] = eraser


def registered_kinds() -> list[str]:
    return sorted(_ERASERS)


def erase_elsewhere(*, identity: Identity, patient_id: uuid.UUID) -> list[dict]:
    """Run every registered eraser, in a stable order, in the caller's transaction."""
    return [_ERASERS[kind](identity=identity, patient_id=patient_id).as_dict() for kind in sorted(_ERASERS)]


# Deleting one memory reaches its copies elsewhere too: an app registers a forgetter that is given what identifies
# the memory's value (its id, its text, its distinctive values) and removes the copies that hold any of them.
_FORGETTERS: dict[str, Eraser] = {}


def register_forgetter(kind: str, forgetter: Eraser) -> None:
    """Register ``forgetter(identity=..., patient_id=..., needles=[...]) -> ErasureSection`` (idempotent)."""
    _FORGETTERS[kind] = forgetter


def forget_copies(*, identity: Identity, patient_id: uuid.UUID, needles: list[str]) -> list[dict]:
    """Run every registered forgetter, in a stable order, in the deletion's transaction."""
    return [_FORGETTERS[kind](identity=identity, patient_id=patient_id, needles=needles).as_dict()
            for kind in sorted(_FORGETTERS)]
