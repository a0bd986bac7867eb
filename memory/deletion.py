"""Deleting long-term memory: one memory with every earlier version of it, all of a patient's, what a withdrawn
consent held, and what passed its retention (the sweep); and re-encrypting values under a new key.

A deletion erases the value from every copy the representation registry knows (:mod:`memory.representations`),
reaches the copies other apps hold through :mod:`memory.erasure`, withdraws stored responses of safe retries, and
returns a receipt that says what was erased, what was kept and why.
"""

from __future__ import annotations

import uuid
from datetime import timedelta

from django.conf import settings
from django.utils import timezone

from consent.access import may_access, may_access_any
from consent.models import ConsentRecord
from core import audit, maintenance
from core.errors import Forbidden, NotFound
from core.idempotency import idempotency_withdraw
from core.identity import Identity, identity_context
from core.services import organization_ensure
from core.vocabulary import PURPOSES
from events.services import events_emit
from memory import erasure, representations
from memory.crypto import encrypt_fact, keyring
from memory.lifecycle import lifecycle_event, memory_lock, memory_transition, memory_value
from memory.models import Deletion, LifecycleEvent, Memory, MemoryState
from memory.types import closed_vocabulary, fact_text, type_get

S = MemoryState


def patient_may_edit(memory: Memory) -> bool:
    """Patients correct and delete what they may write themselves (their preferences and account facts), never
    what the care team recorded. What an agent proposes the patient confirms, so it is theirs to delete too: an
    organisation's type written by staff and agents only was kept, after the patient confirmed it, through their
    deletion and their erasure of everything ("retained")."""
    spec = type_get(memory.memory_type, memory.type_version)
    return spec is not None and bool({"patient", "agent_proposal"} & spec.writers)


def _version_chain(memory: Memory) -> list[Memory]:
    """The memory and every earlier version it superseded (they hold older copies of the value)."""
    chain, frontier, seen = [memory], [memory.memory_id], {memory.memory_id}
    while frontier:
        older = list(Memory.objects.select_for_update().filter(superseded_by_id__in=frontier)
                     .exclude(state=S.DELETED))
        frontier = [m.memory_id for m in older if m.memory_id not in seen]
        seen.update(frontier)
        chain.extend(m for m in older if m.memory_id in frontier)
    return chain


def _erase(*, identity: Identity, memory: Memory, reason_code: str) -> list[dict]:
    reps = representations.representations_mark_pending(memory)
    lifecycle_event(identity=identity, memory=memory, event_type=LifecycleEvent.Type.DELETION_REQUESTED,
                    from_state=memory.state, to_state=memory.state, reason_code=reason_code, with_digest=False)
    memory_transition(identity=identity, memory=memory, to_state=S.DELETED, event_type=LifecycleEvent.Type.DELETED,
                      reason_code=reason_code)
    representations.representations_remove(reps)
    return representations.representations_verify(memory)


def erase_with_receipt(*, identity: Identity, patient_id: uuid.UUID, memories: list[Memory], scope: str,
                       reason_code: str, retained: list[dict] | None = None,
                       other_copies: list[dict] | None = None, copies_of: list[str] | None = None) -> dict:
    """Erase ``memories`` (locked by the caller) from every copy, audit each, and keep and return the receipt."""
    organization_ensure(identity=identity)
    deletion = Deletion.objects.create(organization_id=identity.org_id, patient_id=patient_id, scope=scope,
                                       requested_by=identity.actor_sub, reason_code=reason_code)
    lines: list[dict] = []
    erased: list[str] = []
    for memory in memories:
        lines.extend(_erase(identity=identity, memory=memory, reason_code=reason_code))
        erased.append(str(memory.memory_id))
        audit.record(action="memory.delete", resource_type="memory", resource_id=memory.memory_id,
                     patient_id=patient_id, purpose=memory.consent_purpose, reason=reason_code)
    # Stored responses for safe retries may hold these values (a created memory, a context pack, a turn): every
    # caller's responses about this patient are withdrawn, so a replay can neither give them back nor, as a new
    # request, create the memory again.
    stored_responses = idempotency_withdraw(identity=identity, patient_id=patient_id)
    if copies_of:
        other_copies = erasure.forget_copies(identity=identity, patient_id=patient_id, needles=copies_of)
    completed = timezone.now()
    receipt = {"deletion_id": str(deletion.deletion_id), "patient_id": str(patient_id), "scope": scope,
               "reason_code": reason_code, "requested_by": identity.actor_sub,
               "requested_at": deletion.requested_at.isoformat(), "completed_at": completed.isoformat(),
               "memory_ids": erased, "representations": lines, "retained": retained or [],
               "stored_responses_removed": stored_responses}
    if other_copies is not None:
        receipt["other_copies"] = other_copies
    Deletion.objects.filter(pk=deletion.pk).update(completed_at=completed, receipt=receipt)
    if scope == "patient":  # the request itself, beside a row per memory: it also erased the other copies
        audit.record(action="memory.erase_all", resource_type="deletion", resource_id=deletion.deletion_id,
                     patient_id=patient_id, reason=reason_code)
    events_emit([*(("memory.deleted", {"memory_id": m.memory_id, "patient_id": patient_id,
                                       "memory_type": m.memory_type, "purpose": m.consent_purpose,
                                       "deletion_id": deletion.deletion_id}) for m in memories),
                 *([("patient.erased", {"patient_id": patient_id, "deletion_id": deletion.deletion_id})]
                   if scope == "patient" else [])])
    return receipt


def _hold_erasures(identity: Identity, patient_id: uuid.UUID) -> None:
    """Deleting one memory (it, then the versions before it), erasing all of a patient's (by age) and withdrawing
    a consent (its memories by id) each lock the patient's memory rows in their own order: two at once could each
    hold a row the other waits for, a deadlock that failed one of them (503). They wait for each other here, before
    their first row."""
    erasure.erasure_hold(identity, patient_id)


def _refuse_agent_deletion(identity: Identity) -> None:
    """Deleting is the patient's decision (or staff's, for them): an agent acting for the patient never takes it
    on their behalf, as it never confirms or corrects; its receipt would credit the patient with the request."""
    if identity.is_agent:
        raise Forbidden("the patient or staff delete; an agent cannot", code="agent_cannot_delete")


def memory_delete(*, identity: Identity, patient_id: uuid.UUID, memory_id: uuid.UUID,
                  reason_code: str = "subject_request") -> dict:
    """Delete one memory and every earlier version of it, everywhere; returns the deletion receipt."""
    _refuse_agent_deletion(identity)
    _hold_erasures(identity, patient_id)
    memory = memory_lock(identity=identity, patient_id=patient_id, memory_id=memory_id)
    if identity.is_patient(patient_id) and not patient_may_edit(memory):
        raise Forbidden("clinical facts are removed by the care team", code="staff_only")
    chain = _version_chain(memory)
    chain += _waiting_copies(chain)
    needles = [needle for m in chain for needle in _distinctive(m)]  # read before the values are erased
    return erase_with_receipt(identity=identity, patient_id=patient_id, memories=chain, scope="memory",
                     reason_code=reason_code, copies_of=needles)


def _waiting_copies(chain: list[Memory]) -> list[Memory]:
    """Proposals still waiting for the patient that hold one of the deleted versions' values (an agent proposed
    what is now deleted): a copy too, which a confirmation would bring back as a new memory."""
    first = chain[0]
    values = [memory_value(m) for m in chain]
    waiting = (Memory.objects.select_for_update()
               .filter(patient_id=first.patient_id, memory_type=first.memory_type, attribute=first.attribute,
                       state=S.PROPOSED)
               .exclude(memory_id__in=[m.memory_id for m in chain]).order_by("memory_id"))
    return [m for m in waiting if memory_value(m) in values]


def _distinctive(memory: Memory) -> list[str]:
    """What identifies a memory's value where a copy of it may be held (a tool result an agent put into a
    conversation): its id, its text, its own free words (:func:`_free_words`: a name of one word too), and those of
    its values that are distinctive (text with a space or a digit, six characters or more: a name, a phone number,
    a substance), never a word of a closed vocabulary such as a day, nor a time."""
    value = memory_value(memory)
    needles = [str(memory.memory_id)]
    if value:
        needles.append(fact_text(memory.memory_type, value, memory.type_version))
        needles.extend(_free_words(memory, value))
        stack: list = [value]
        while stack:
            item = stack.pop()
            if isinstance(item, dict):
                stack.extend(item.values())
            elif isinstance(item, list):
                stack.extend(item)
            elif isinstance(item, str) and len(item) >= 6 and any(c == " " or c.isdigit() for c in item):
                needles.append(item)
    return needles


def _free_words(memory: Memory, value: dict) -> list[str]:
    """The fact's own free text that holds a letter (a name, a substance: what a lookup hands an agent alone),
    whatever its script, of three characters or more (two outside ASCII, as many names in Chinese are); never a
    choice of its type's closed vocabulary (a day, a channel, pronouns), nor a time or a date (no letter)."""
    spec = type_get(memory.memory_type, memory.type_version)
    branch = spec.branch_for(value) if spec is not None else None
    properties = (branch or {}).get("properties", {})
    words = [text.strip() for name, text in value.items()
             if isinstance(text, str) and not closed_vocabulary(properties.get(name, {}))]
    return [w for w in words if any(c.isalpha() for c in w) and (len(w) >= 3 or (len(w) == 2 and not w.isascii()))]


def memory_erase_patient(*, identity: Identity, patient_id: uuid.UUID,
                         reason_code: str = "subject_request") -> dict:
    """Erase all of a patient's memories that the caller may act on, each the same way as one deletion.
    A patient's own request leaves staff-recorded care context in place and says so in the receipt.

    Access is decided before anything is written: a caller who is neither the patient (or an agent acting for
    them) nor staff holding an active grant for some purpose of this patient gets ``not_found``, as for a patient
    that does not exist, and no receipt.

    Copies held by other apps (conversations, workflow state and payloads) are erased in the same transaction by
    the erasers registered in :mod:`memory.erasure`; each is a section of ``other_copies`` in the receipt."""
    _refuse_agent_deletion(identity)
    if not identity.is_patient(patient_id) and not may_access_any(patient_id=patient_id,
                                                                  purposes=[p for p, _ in PURPOSES]):
        raise NotFound().about(patient_id=patient_id)
    _hold_erasures(identity, patient_id)
    memories = list(Memory.objects.select_for_update()
                    .filter(organization_id=identity.org_id, patient_id=patient_id).exclude(state=S.DELETED)
                    .order_by("created_at"))
    retained = []
    if identity.is_patient(patient_id):
        editable = {m.memory_id for m in memories if patient_may_edit(m)}
        kept = [m for m in memories if m.memory_id not in editable]
        memories = [m for m in memories if m.memory_id in editable]
        retained = [{"memory_id": str(m.memory_id), "memory_class": m.memory_class,
                     "reason": "clinical_record_kept_by_care_team"} for m in kept]
    else:
        # Staff reach the purposes they hold grants for; the receipt must not read as if everything went.
        unreached = [p for p, _ in PURPOSES if not may_access(patient_id=patient_id, purpose=p)]
        if unreached:
            retained.append({"reason": "outside_callers_access", "purposes": unreached,
                             "note": "what is kept for these purposes was not reached: the caller holds no grant "
                                     "for them (the patient's own request reaches everything)"})
    other_copies = erasure.erase_elsewhere(identity=identity, patient_id=patient_id)
    return erase_with_receipt(identity=identity, patient_id=patient_id, memories=memories, scope="patient",
                     reason_code=reason_code, retained=retained, other_copies=other_copies)


def memory_apply_consent_revocation(*, identity: Identity, consent: ConsentRecord) -> int:
    """Memories kept under a revoked consent stop being served in this transaction and are erased after the
    configured grace period by the sweep."""
    _hold_erasures(identity, consent.patient_id)
    grace_until = timezone.now() + timedelta(days=settings.MEMORY_REVOKED_CONSENT_GRACE_DAYS)
    count = 0
    for memory in Memory.objects.select_for_update().filter(
            consent_record=consent, state__in=[S.ACTIVE, S.PROPOSED, S.QUARANTINED]).order_by("memory_id"):
        memory_transition(identity=identity, memory=memory, to_state=S.EXPIRED,
                          event_type=LifecycleEvent.Type.CONSENT_REVOKED, reason_code="consent_revoked",
                          expires_at=min(memory.expires_at, grace_until))
        count += 1
    # Earlier values (superseded) and expired ones were kept under the consent too: the sweep erases them with the
    # rest, and reads withhold their values from now on.
    Memory.objects.filter(consent_record=consent, state__in=[S.SUPERSEDED, S.EXPIRED],
                          expires_at__gt=grace_until).update(expires_at=grace_until, updated_at=timezone.now())
    return count


SWEEP_ACTOR = "memory-sweep"


def _due(batch: int) -> list[tuple]:
    """Discover due memories across organisations through the narrow maintenance policy (SELECT only)."""
    return maintenance.discover(
        "memory_sweep",
        "SELECT memory_id, organization_id, patient_id, consent_purpose FROM patient_memory "
        "WHERE state <> 'deleted' AND (expires_at <= statement_timestamp() OR "
        "(state IN ('active', 'proposed', 'quarantined') AND valid_until <= statement_timestamp())) "
        "ORDER BY expires_at LIMIT %s", [batch])


def memory_sweep(*, batch: int = 500, max_batches: int = 100) -> dict[str, int]:
    """Expire what passed its validity and erase what passed its retention. Idempotent; safe to run from cron
    or several workers at once (each memory is locked and re-checked under a service identity scoped to its
    patient and purpose). Reads never depend on it: they filter by the same deadlines at query time."""
    counts = {"expired": 0, "deleted": 0}
    for _ in range(max_batches):
        due = _due(batch)
        if not due:
            break
        progressed = False
        for memory_id, org_id, patient_id, purpose in due:
            identity = Identity.service(org_id=org_id, name=SWEEP_ACTOR, patient_id=patient_id, purpose=purpose)
            with identity_context(identity):
                memory = Memory.objects.select_for_update(skip_locked=True).filter(pk=memory_id).exclude(
                    state=S.DELETED).first()
                if memory is None:
                    continue
                now = timezone.now()
                # a proposal whose validity ended unreviewed can never be confirmed: it lapsed, as one nobody
                # reviewed in time. Marked expired, it was taken for an earlier value of its attribute: linked to
                # the next value, in its history as if it had been on record
                lapsed = memory.state == S.PROPOSED and memory.valid_until is not None and memory.valid_until <= now
                if memory.expires_at <= now or lapsed:
                    erase_with_receipt(identity=identity, patient_id=patient_id, memories=[memory], scope="memory",
                              reason_code="proposal_lapsed" if memory.state == S.PROPOSED else "retention_elapsed")
                    counts["deleted"] += 1
                    progressed = True
                elif memory.valid_until and memory.valid_until <= now and memory.state in (
                        S.ACTIVE, S.PROPOSED, S.QUARANTINED):
                    memory_transition(identity=identity, memory=memory, to_state=S.EXPIRED,
                                      event_type=LifecycleEvent.Type.EXPIRED, reason_code="validity_ended")
                    counts["expired"] += 1
                    progressed = True
        if not progressed:
            break
    return counts


def memory_rotate_keys(*, batch: int = 500) -> int:
    """Re-encrypt every sensitive value that is not under the active key. Idempotent; each row is re-encrypted
    under a service identity scoped to its patient and purpose."""
    active, _ = keyring()
    rotated = 0
    while True:
        due = maintenance.discover(
            "key_rotation",
            "SELECT memory_id, organization_id, patient_id, consent_purpose FROM patient_memory "
            "WHERE fact_ciphertext IS NOT NULL AND fact_key_id IS DISTINCT FROM %s LIMIT %s", [active, batch],
            settings={"app.active_key_id": active})
        if not due:
            return rotated
        for memory_id, org_id, patient_id, purpose in due:
            identity = Identity.service(org_id=org_id, name="key-rotation", patient_id=patient_id, purpose=purpose)
            with identity_context(identity):
                memory = Memory.objects.select_for_update().filter(pk=memory_id,
                                                                   fact_ciphertext__isnull=False).first()
                if memory is None or memory.fact_key_id == active:
                    continue
                value = memory_value(memory)
                assert value is not None, "a ciphertext decrypts to a value"
                ciphertext, kid = encrypt_fact(value, memory_id=memory.memory_id,
                                               patient_id=memory.patient_id)
                Memory.objects.filter(pk=memory.pk).update(fact_ciphertext=ciphertext, fact_key_id=kid)
                rotated += 1
