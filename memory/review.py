"""The review of long-term memory by people: the patient or staff confirm or reject a proposal, correct a value,
and staff quarantine a doubtful one. Built on the writes in :mod:`memory.services`; an agent never reviews."""

from __future__ import annotations

import enum
import uuid
from datetime import datetime, timedelta
from typing import Any

from django.db import connection, transaction
from django.utils import timezone

from consent.models import ConsentRecord
from core import audit
from core.errors import Conflict, Forbidden, IllegalTransition, NoConsentOrAccess, ValidationFailed
from core.identity import Identity
from events.services import event_emit
from memory.deletion import _hold_erasures, erase_with_receipt
from memory.lifecycle import lifecycle_event, memory_lock, memory_transition, memory_value
from memory.models import LifecycleEvent, Memory, MemoryState, Source
from memory.selectors import memory_current_since, memory_get
from memory.services import (
    NewFact,
    _attribute_lock,
    _check_new_fact,
    _current_of_attribute_statement,
    _fact_checked,
    _hold_consent,
    _hold_type,
    _insert,
    _retention_deadline,
    _spec,
    _supersede,
    _supersede_current,
    _type_lock_statement,
)
from memory.types import FactInvalid, earlier_attribute, fact_validate, type_get
from memory.types.spec import TypeSpec

S = MemoryState


class Keep(enum.Enum):
    """A correction that names no new validity keeps the corrected record's (as it keeps its review date)."""

    VALIDITY = "validity"


def _locked_under_consent(identity: Identity, patient_id: uuid.UUID, memory_id: uuid.UUID, *,
                          attribute_of: Memory | None = None) -> Memory:
    """:func:`memory.lifecycle.memory_lock`, with the memory's consent share-locked first (see
    :func:`_hold_consent`), then the patient's erasure lock (:func:`memory.deletion._hold_erasures`: a review locks
    several of the patient's rows too, a proposal then the current value, or a value then the one it superseded,
    and a deletion or erase-all that held one of them while this held the other deadlocked with it: 503) and, for
    ``attribute_of`` (the memory as read before), its attribute's lock next: a write of the attribute takes its locks
    in that order (consent, erasure, attribute, then the current record), and one that held the attribute's lock
    while this held the record deadlocked with it."""
    consent_record_id = (Memory.objects.filter(memory_id=memory_id, patient_id=patient_id,
                                               organization_id=identity.org_id)
                         .values_list("consent_record_id", flat=True).first())
    if consent_record_id is not None:
        _hold_consent(identity.org_id, consent_record_id)
    _hold_erasures(identity, patient_id)
    if attribute_of is not None:
        _attribute_lock(identity.org_id, patient_id, attribute_of.memory_type, attribute_of.attribute,
                        attribute_of.consent_purpose)
    return memory_lock(identity=identity, patient_id=patient_id, memory_id=memory_id)


def _consent_still_active(memory: Memory) -> None:
    if memory.consent_record_id is not None and not ConsentRecord.objects.active().filter(
            pk=memory.consent_record_id).exists():
        raise NoConsentOrAccess()


def memory_confirm(*, identity: Identity, patient_id: uuid.UUID, memory_id: uuid.UUID) -> Memory:
    """The patient or staff confirm a proposal: it becomes the current value of its attribute, valid from now. An
    agent cannot confirm (its own or another agent's proposal): that would let it speak as the patient after all."""
    if identity.is_agent:
        raise Forbidden("an agent's proposals are confirmed by the patient or staff", code="agent_cannot_confirm")
    memory = _locked_under_consent(identity, patient_id, memory_id)
    now = timezone.now()
    if memory.effective_state(now, consent=False) != S.PROPOSED:  # a proposal past its validity is no longer one
        lapsed = memory.state == S.PROPOSED and memory.expires_at <= now
        raise Conflict("this proposal lapsed unreviewed; it is proposed again to be confirmed" if lapsed
                       else "only proposed memories can be confirmed", code="not_proposed")
    _consent_still_active(memory)
    with transaction.atomic():
        _attribute_lock(memory.organization_id, patient_id, memory.memory_type, memory.attribute,
                        memory.consent_purpose)
        current = list(Memory.objects.raw(*_current_of_attribute_statement(
            org_id=memory.organization_id, patient_id=patient_id, memory_type=memory.memory_type,
            attribute=memory.attribute, purpose=memory.consent_purpose)))
        _refuse_stale_proposal(memory, current, now)
        _supersede(identity=identity, current=current, new_id=memory.memory_id)
        # valid from its confirmation (used by nobody before): not from when it was proposed, which could be before
        # the value it now supersedes was recorded, and the current value would read as older than the one it replaced
        # kept for its type's retention from when it was written, no longer until its review lapses (a proposal's)
        spec = type_get(memory.memory_type, memory.type_version, org_id=memory.organization_id)
        memory_transition(identity=identity, memory=memory, to_state=S.ACTIVE, valid_from=now,
                          expires_at=_retention_deadline(spec, memory.created_at, memory.valid_until) if spec else None,
                          event_type=LifecycleEvent.Type.CONFIRMED,
                          reason_code=("patient_confirmed" if identity.is_patient_themself(patient_id)
                                       else "staff_confirmed"))
    event_emit("memory.confirmed", memory_id=memory.memory_id, patient_id=patient_id,
               memory_type=memory.memory_type, purpose=memory.consent_purpose)
    audit.record(action="memory.confirm", resource_type="memory", resource_id=memory.memory_id,
                 patient_id=patient_id, purpose=memory.consent_purpose)
    return memory


def _refuse_stale_proposal(proposal: Memory, current: list[Memory], now: datetime) -> None:
    """409 ``proposal_stale`` when the attribute's current value became current after the proposal was made: the
    proposal answered a value that has since been replaced (the patient said something newer, another proposal was
    confirmed, a value was made current again), and confirming it would silently overwrite what is current now.
    The problem names that value (``current_memory_id``)."""
    newer = memory_current_since(proposal.created_at, current, now)
    if newer is not None:
        exc = Conflict("the value this proposal would replace became current after it was proposed; reject it (a "
                       "new proposal is made against the current value)", code="proposal_stale")
        exc.extensions = {"current_memory_id": str(newer.memory_id)}
        raise exc.about(patient_id=proposal.patient_id, purpose=proposal.consent_purpose)


def memory_reject(*, identity: Identity, patient_id: uuid.UUID, memory_id: uuid.UUID) -> dict:
    """Reject a proposal: its value is erased everywhere, as for a deletion. The patient's or staff's review, as
    confirming is: never an agent's."""
    if identity.is_agent:
        raise Forbidden("an agent's proposals are reviewed by the patient or staff", code="agent_cannot_confirm")
    _hold_erasures(identity, patient_id)  # an erasure, as a deletion is: they wait for each other
    memory = memory_lock(identity=identity, patient_id=patient_id, memory_id=memory_id)
    if memory.state != S.PROPOSED:
        raise Conflict("only proposed memories can be rejected", code="not_proposed")
    lifecycle_event(identity=identity, memory=memory, event_type=LifecycleEvent.Type.REJECTED,
                    from_state=memory.state, to_state=memory.state, reason_code="proposal_rejected")
    return erase_with_receipt(identity=identity, patient_id=patient_id, memories=[memory], scope="memory",
                     reason_code="proposal_rejected")


def _attribute_field_changed(spec: TypeSpec, was: dict | None, fact: dict) -> str:
    """The field of the attribute a correction changed, to name it (``fact.kind`` was named for every type, also
    for one without kinds whose correction changed a carer's name or an allergy's substance)."""
    for name in spec.attribute_fields(spec.branch_for(fact) or {}):
        if (was or {}).get(name) != fact.get(name):
            return f"fact.{name}"
    return "fact"


def _kept_validity(spec: TypeSpec, valid_until: datetime | None) -> datetime | None:
    """The corrected record's validity, for a correction that names none: as it was, but never past the retention
    of the type's latest version (a revision may have shortened it). Kept as it was, it refused the correction
    (``beyond_retention`` on a valid_until the caller never sent), and a patient could not correct the value."""
    if valid_until is None:
        return None
    return min(valid_until, timezone.now() + timedelta(days=spec.kept_days))


def memory_correct(*, identity: Identity, patient_id: uuid.UUID, memory_id: uuid.UUID, fact: Any,
                   valid_until: datetime | None | Keep = Keep.VALIDITY,
                   review_by: datetime | None = None) -> Memory:
    """Correct a value: a new record supersedes the old one and links to it; history keeps both. The new value is
    checked against the type's latest version and keeps the attribute, and the old record's validity unless
    ``valid_until`` names another (``None``: the type's default, as for a new fact). Agents propose new values
    instead: a correction would make the agent's value current without the patient's confirmation."""
    if identity.is_agent:  # first, as for confirm and reject: its fact's mistakes are not the answer
        raise Forbidden("an agent proposes a new value; the patient or staff correct", code="agent_cannot_confirm")
    as_read = memory_get(identity=identity, patient_id=patient_id, memory_id=memory_id)
    attribute, fact = _fact_checked(_spec(as_read.memory_type), fact)
    old = _locked_under_consent(identity, patient_id, memory_id, attribute_of=as_read)
    state = old.effective_state(consent=False)  # consent is checked below, with its own answer
    if state not in (S.ACTIVE, S.QUARANTINED):
        raise Conflict(f"{'an' if state[0] in 'aeiou' else 'a'} {state} memory cannot be corrected",
                       code="not_correctable")
    spec = _spec(old.memory_type)
    # a record written before letters of every script counted carries its attribute as then worked out
    if attribute != old.attribute and earlier_attribute(spec, fact) != old.attribute:
        raise ValidationFailed.of(_attribute_field_changed(spec, memory_value(old), fact),
                                  "a correction keeps the attribute; record a new fact instead")
    if identity.is_patient(patient_id) and "patient" not in spec.writers:
        raise Forbidden("clinical facts are corrected by the care team", code="staff_only")
    _consent_still_active(old)
    if valid_until is Keep.VALIDITY:
        valid_until = _kept_validity(spec, old.valid_until)
    if review_by is None and spec.review:  # kept only while the type has review dates (a revision may drop them)
        review_by = old.review_by
    new = NewFact(memory_type=old.memory_type, attribute=old.attribute, fact=fact,
                  consent_purpose=old.consent_purpose, valid_until=valid_until, review_by=review_by)
    _check_new_fact(spec, new)
    source = Source.PATIENT_STATED if identity.is_patient_themself(patient_id) else Source.STAFF_ENTERED
    memory_id_new = uuid.uuid4()
    _hold_type(identity, spec, new)
    with transaction.atomic(savepoint=False):  # a failure spoils the enclosing block, which rolls it back
        _supersede_current(identity=identity, new_id=memory_id_new, org_id=old.organization_id,
                           patient_id=patient_id, memory_type=old.memory_type, attribute=old.attribute,
                           purpose=old.consent_purpose, event_type=LifecycleEvent.Type.CORRECTED)
        return _insert(identity=identity, patient_id=patient_id, spec=spec, new=new, state=S.ACTIVE,
                       source=source, source_ref=f"correction-of:{old.memory_id}",
                       consent_record_id=old.consent_record_id, memory_id=memory_id_new,
                       audit_actions=["memory.correct"])


def memory_quarantine(*, identity: Identity, patient_id: uuid.UUID, memory_id: uuid.UUID,
                      reason_code: str) -> Memory:
    """Staff take a doubtful fact out of every read at once, with a reason. The value it had superseded becomes
    current again (:func:`_reinstate_superseded`), so the attribute is not left without one while it is set aside."""
    _check_reviewer_is_staff(identity)
    as_read = memory_get(identity=identity, patient_id=patient_id, memory_id=memory_id)
    memory = _locked_under_consent(identity, patient_id, memory_id, attribute_of=as_read)
    if memory.state == S.ACTIVE and memory.effective_state(consent=False) == S.EXPIRED:
        # past its validity or retention it is out of every read already, and reads as expired (as correct says)
        raise IllegalTransition("an expired memory cannot become quarantined").about(
            patient_id=patient_id, purpose=memory.consent_purpose)
    memory_transition(identity=identity, memory=memory, to_state=S.QUARANTINED,
                      event_type=LifecycleEvent.Type.QUARANTINED, reason_code=reason_code)
    _reinstate_superseded(identity=identity, memory=memory)
    audit.record(action="memory.quarantine", resource_type="memory", resource_id=memory.memory_id,
                 patient_id=patient_id, purpose=memory.consent_purpose, reason=reason_code)
    return memory


def memory_release(*, identity: Identity, patient_id: uuid.UUID, memory_id: uuid.UUID,
                   reason_code: str = "quarantine_released") -> Memory:
    """Staff release a quarantined value after review: it is the attribute's current value again, superseding
    the value made current while it was set aside (as a write of it would). One past its validity or retention, or
    whose consent is no longer in force, stays out of reads (409 ``illegal_transition``, 403)."""
    _check_reviewer_is_staff(identity)
    as_read = memory_get(identity=identity, patient_id=patient_id, memory_id=memory_id)
    memory = _locked_under_consent(identity, patient_id, memory_id, attribute_of=as_read)
    if memory.state != S.QUARANTINED:
        raise Conflict(f"only quarantined memories are released; this one is {memory.state}",
                       code="not_quarantined").about(patient_id=patient_id, purpose=memory.consent_purpose)
    if memory.effective_state(consent=False) == S.EXPIRED:
        raise IllegalTransition("an expired memory cannot become active").about(
            patient_id=patient_id, purpose=memory.consent_purpose)
    _consent_still_active(memory)
    current = [m for m in Memory.objects.raw(*_current_of_attribute_statement(
        org_id=memory.organization_id, patient_id=patient_id, memory_type=memory.memory_type,
        attribute=memory.attribute, purpose=memory.consent_purpose)) if m.state == S.ACTIVE]
    _supersede(identity=identity, current=current, new_id=memory.memory_id)
    memory_transition(identity=identity, memory=memory, to_state=S.ACTIVE, event_type=LifecycleEvent.Type.RELEASED,
                      reason_code=reason_code)
    audit.record(action="memory.quarantine_release", resource_type="memory", resource_id=memory.memory_id,
                 patient_id=patient_id, purpose=memory.consent_purpose, reason=reason_code)
    return memory


def _check_reviewer_is_staff(identity: Identity) -> None:
    if identity.patient_self_id is not None:
        raise Forbidden("quarantine is a staff action; patients correct or delete", code="staff_only")
    if identity.is_agent:  # it would take a fact (an allergy too) out of every read on an agent's word
        raise Forbidden("an agent reports a doubtful fact to staff, who quarantine it", code="agent_cannot_confirm")


def _reinstate_superseded(*, identity: Identity, memory: Memory) -> Memory | None:
    """The value ``memory`` (just quarantined) had superseded while it was current is current again, unless it is
    past its validity or retention (a superseded value is kept for a shorter time), its consent is no longer in
    force, it had been quarantined itself when it was superseded, or the type's latest version refuses it (a
    revision checks current values only: a superseded one it refuses passed it). The caller holds the attribute's
    lock."""
    now = timezone.now()
    latest = _latest_type_held(identity, memory)
    older = (Memory.objects.select_for_update()
             .filter(organization_id=memory.organization_id, patient_id=memory.patient_id,
                     superseded_by_id=memory.memory_id, state=S.SUPERSEDED).order_by("-created_at"))
    for candidate in older:
        spec = type_get(candidate.memory_type, candidate.type_version, org_id=candidate.organization_id)
        if spec is None or candidate.expires_at <= now or (candidate.valid_until is not None
                                                           and candidate.valid_until <= now):
            continue
        # its retention as written (counted from its creation; a confirmed proposal is valid from later)
        kept_until = _retention_deadline(spec, candidate.created_at, candidate.valid_until)
        superseded_from = (LifecycleEvent.objects.filter(memory_id=candidate.memory_id, to_state=S.SUPERSEDED)
                           .order_by("-occurred_at").values_list("from_state", flat=True).first())
        if kept_until <= now or superseded_from != S.ACTIVE or not _fits(latest, candidate):
            continue
        if candidate.consent_record_id is not None and not ConsentRecord.objects.active(now).filter(
                pk=candidate.consent_record_id).exists():
            continue
        return memory_transition(identity=identity, memory=candidate, to_state=S.ACTIVE,
                                 event_type=LifecycleEvent.Type.REINSTATED, reason_code="newer_value_quarantined",
                                 source_ref=f"quarantine-of:{memory.memory_id}", expires_at=kept_until, locked=True)
    return None


def _latest_type_held(identity: Identity, memory: Memory) -> TypeSpec | None:
    """The latest version of ``memory``'s type, held (shared) until the transaction ends as a write holds it, so
    that no revision comes between the check of a value made current again and its move."""
    latest = type_get(memory.memory_type, org_id=memory.organization_id)
    statement = _type_lock_statement(identity, latest) if latest is not None else None
    if statement is None:
        return latest
    with connection.cursor() as cursor:
        cursor.execute(*statement)
    return type_get(memory.memory_type, org_id=memory.organization_id)


def _fits(spec: TypeSpec | None, memory: Memory) -> bool:
    """Whether a stored value satisfies ``spec`` (its fact and the purpose it is kept for), as a revision checks the
    current ones."""
    if spec is None or memory.consent_purpose not in spec.purposes:
        return False
    try:
        fact_validate(spec, memory_value(memory), readable=False)
    except FactInvalid:
        return False
    return True
