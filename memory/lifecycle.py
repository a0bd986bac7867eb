"""The memory state machine. The only code that changes a memory's state; the database trigger
``memory_state_transition`` enforces the same table, so a bug elsewhere cannot move a state either."""

from __future__ import annotations

import uuid
from typing import cast

from django.conf import settings
from django.db import DEFAULT_DB_ALIAS, connection
from django.db.models.sql import UpdateQuery
from django.utils import timezone

from core import rows
from core.errors import ConcurrentUpdate, IllegalTransition, NotFound
from core.identity import Identity
from memory.crypto import decrypt_fact, value_digest
from memory.models import LifecycleEvent, Memory, MemoryState

S = MemoryState
TRANSITIONS: dict[str, frozenset[str]] = {
    S.PROPOSED: frozenset({S.ACTIVE, S.DELETED, S.EXPIRED}),
    S.ACTIVE: frozenset({S.SUPERSEDED, S.EXPIRED, S.QUARANTINED, S.DELETED}),
    # quarantined -> active: staff release it; superseded -> active: the value that replaced it was quarantined
    S.QUARANTINED: frozenset({S.ACTIVE, S.SUPERSEDED, S.EXPIRED, S.DELETED}),
    S.SUPERSEDED: frozenset({S.ACTIVE, S.DELETED}),
    S.EXPIRED: frozenset({S.DELETED}),
    S.DELETED: frozenset(),
}


def memory_lock(*, identity: Identity, patient_id: uuid.UUID, memory_id: uuid.UUID) -> Memory:
    """The caller's memory, locked for update, in any state but deleted; NotFound for missing and for not-yours
    alike."""
    memory = (Memory.objects.select_for_update()
              .filter(memory_id=memory_id, patient_id=patient_id, organization_id=identity.org_id)
              .exclude(state=S.DELETED).first())
    if memory is None:
        raise NotFound()
    return memory


def memory_value(memory: Memory) -> dict | None:
    """The plaintext fact (decrypting sensitive values), or None for a tombstone."""
    if memory.fact is not None:
        return memory.fact
    if memory.fact_ciphertext is not None:
        return decrypt_fact(memory.fact_ciphertext, key_id=memory.fact_key_id or "", memory_id=memory.memory_id,
                            patient_id=memory.patient_id)
    return None


def lifecycle_row(*, identity: Identity, memory: Memory, event_type: str, from_state: str | None, to_state: str,
                  reason_code: str, source_ref: str = "", with_digest: bool = True) -> LifecycleEvent:
    """The event, not yet written (a write that sends it in its own statement: ``core.rows``)."""
    return LifecycleEvent(
        memory_id=memory.memory_id, organization_id=memory.organization_id, patient_id=memory.patient_id,
        purpose=memory.consent_purpose, event_type=event_type, from_state=from_state, to_state=to_state,
        actor_sub=identity.actor_sub, reason_code=reason_code, policy_revision=settings.MEMORY_POLICY_REVISION,
        source_ref=source_ref[:255],
        value_digest=value_digest(memory_value(memory), memory.digest_salt) if with_digest else None)


def lifecycle_event(*, identity: Identity, memory: Memory, event_type: str, from_state: str | None,
                    to_state: str, reason_code: str, source_ref: str = "", with_digest: bool = True) -> None:
    lifecycle_row(identity=identity, memory=memory, event_type=event_type, from_state=from_state, to_state=to_state,
                  reason_code=reason_code, source_ref=source_ref, with_digest=with_digest).save(force_insert=True)


def memory_transition(*, identity: Identity, memory: Memory, to_state: str, event_type: str, reason_code: str,
                      superseded_by_id=None, expires_at=None, valid_from=None, source_ref: str = "",
                      locked: bool = False) -> Memory:
    """Move ``memory`` to ``to_state`` along the transition table and append the lifecycle event.

    Guarded by the state the caller read: if someone else moved the memory meanwhile, nothing is written and
    the caller gets ``concurrent_update_retry``. Moving to ``deleted`` erases the value, its ciphertext and its
    digest key in the same statement, leaving a tombstone (ids, times, lifecycle events); its event carries no
    digest. The move and its event are one statement: the event is written only if the move was made.

    ``locked``: the caller read ``memory`` FOR UPDATE in this transaction, so nobody can have moved it since and the
    guard cannot miss; its count is then not read, and the statement may be sent without waiting for its answer
    (:func:`core.identity.sent_with_next`).
    """
    from_state = memory.state
    if to_state not in TRANSITIONS[from_state]:
        raise IllegalTransition(f"a {from_state} memory cannot become {to_state}").about(
            patient_id=memory.patient_id, purpose=memory.consent_purpose)
    now = timezone.now()
    updates: dict = {"state": to_state, "updated_at": now}
    if superseded_by_id is not None:
        updates["superseded_by_id"] = superseded_by_id
    elif to_state == S.ACTIVE:  # a current value is superseded by nothing (one made current again, too)
        updates["superseded_by_id"] = None
    if expires_at is not None:
        updates["expires_at"] = expires_at
    if valid_from is not None:
        updates["valid_from"] = valid_from
    event = lifecycle_row(identity=identity, memory=memory, event_type=event_type, from_state=from_state,
                          to_state=to_state, reason_code=reason_code, source_ref=source_ref,
                          with_digest=to_state != S.DELETED)
    if to_state == S.DELETED:
        updates.update(fact=None, fact_ciphertext=None, fact_key_id=None, digest_salt=None, deleted_at=now,
                       attribute=memory.attribute.split(":", 1)[0])
    query = cast(UpdateQuery, Memory.objects.filter(pk=memory.pk, state=from_state).query.chain(UpdateQuery))
    query.add_update_values(updates)
    move_sql, move_params = query.get_compiler(using=DEFAULT_DB_ALIAS).as_sql()
    sql, params = rows.statement([("moved", (f"{move_sql} RETURNING 1", list(move_params))),
                                  ("event", rows.insert(event, source="moved"))])
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        written = cursor.rowcount
    if written != 1 and not locked:
        raise ConcurrentUpdate()
    for field, value in updates.items():
        setattr(memory, field, value)
    return memory
