"""Writes of long-term memory. Every state change goes through here and memory.lifecycle."""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from datetime import datetime, timedelta

from django.conf import settings
from django.db import DEFAULT_DB_ALIAS, IntegrityError, connection, transaction
from django.utils import timezone

from consent.access import may_access, may_access_any
from consent.models import ConsentRecord
from core import audit, maintenance, rows
from core.errors import (
    ConcurrentUpdate,
    Conflict,
    Forbidden,
    IllegalTransition,
    NoConsentOrAccess,
    NotFound,
    ValidationFailed,
)
from core.idempotency import idempotency_withdraw
from core.identity import Identity, identity_context
from core.services import organization_ensure
from core.vocabulary import PURPOSES
from memory import erasure, representations
from memory.crypto import encrypt_fact, keyring, new_salt
from memory.lifecycle import lifecycle_event, lifecycle_row, memory_transition, memory_value
from memory.models import Deletion, LifecycleEvent, Memory, MemoryClass, MemoryState, Representation, Source
from memory.retrieval import memory_vector_copy, memory_vector_later
from memory.selectors import compiled_once
from memory.types import FactInvalid, TypeSpec, fact_text, fact_validate, revision_lock_key, type_get

S = MemoryState


def _spec(memory_type: str, version: int | None = None) -> TypeSpec:
    spec = type_get(memory_type, version)
    if spec is None:
        raise _invalid("memory_type", "unknown memory type; see GET /v1/memory-types")
    return spec


def _patient_may_edit(memory: Memory) -> bool:
    """Patients correct and delete what they may write themselves (their preferences and account facts), never
    what the care team recorded."""
    spec = type_get(memory.memory_type, memory.type_version)
    return spec is not None and "patient" in spec.writers


def _invalid(field: str, message: str, code: str = "invalid") -> ValidationFailed:
    return ValidationFailed(errors=[{"field": field, "message": message, "code": code}])


def _attribute_lock_key(org_id, patient_id, memory_type: str, attribute: str, purpose: str) -> str:
    return f"memory:{org_id}:{patient_id}:{memory_type}:{attribute}:{purpose}"


def _attribute_lock(org_id, patient_id, memory_type: str, attribute: str, purpose: str) -> None:
    """Serialise writers of one attribute: each supersedes the previous instead of colliding with it."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_advisory_xact_lock(hashtextextended(%s, 0))",
                       [_attribute_lock_key(org_id, patient_id, memory_type, attribute, purpose)])


def _consent_uuid(consent_record_id) -> uuid.UUID | None:
    """The consent id a write names, as a UUID; None if it names none or is not one (refused as an inactive
    consent is)."""
    if consent_record_id is None or isinstance(consent_record_id, uuid.UUID):
        return consent_record_id
    try:
        return uuid.UUID(str(consent_record_id))
    except ValueError:
        return None


def _retention_deadline(spec: TypeSpec, now: datetime, valid_until: datetime | None) -> datetime:
    deadline = now + timedelta(days=spec.kept_days)
    # valid_until was checked to lie within the retention when the request came (a moment before ``now``)
    return max(deadline, valid_until) if valid_until else deadline


def _hold_consent(org_id, consent_record_id) -> None:
    """Share-lock the consent a write is made under, before any memory row, until the transaction ends.

    A withdrawal locks the consent (FOR UPDATE), then the memories under it. A write that checked the consent
    without a lock could commit a memory after the withdrawal's scan (active under a withdrawn consent), and one
    that locked a memory row first deadlocked with it. Held first, in share mode, writes under one consent still
    run side by side; a withdrawal waits for them and then sees their memories, and a write that waited for a
    withdrawal reads the consent as it now is."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT 1 FROM patient_consent WHERE consent_record_id = %s AND organization_id = %s "
                       "FOR SHARE", [consent_record_id, org_id])


def _compile_active_consent(*, org_id, patient_id, now, purpose, consent_record_id) -> tuple[str, list]:
    qs = ConsentRecord.objects.active(now).filter(
        consent_record_id=consent_record_id, patient_id=patient_id, purpose=purpose,
        organization_id=org_id).values_list("consent_record_id", flat=True)
    sql, params = qs.query.get_compiler(using=DEFAULT_DB_ALIAS).as_sql()
    return f"{sql} FOR SHARE", list(params)


_ACTIVE_CONSENT_SQL: dict = {}


def _active_consent(identity: Identity, patient_id, purpose: str, consent_record_id) -> uuid.UUID:
    """The consent a new memory is written under: active (``ConsentRecord.objects.active()``), this patient's, for
    this purpose, and share-locked until the transaction ends, as :func:`_hold_consent` locks it, in one statement
    (the query is compiled once). A write that meets a withdrawal's lock waits for it, and PostgreSQL checks the
    conditions again on the row it then locks: a withdrawn consent is not found. NoConsentOrAccess otherwise."""
    consent_record_id = _consent_uuid(consent_record_id)
    if consent_record_id is None:
        raise NoConsentOrAccess()
    sql, params = compiled_once(_ACTIVE_CONSENT_SQL, _compile_active_consent, org_id=identity.org_id,
                                patient_id=patient_id, now=timezone.now(), purpose=purpose,
                                consent_record_id=consent_record_id)
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        row = cursor.fetchone()
    if row is None:
        raise NoConsentOrAccess()
    return row[0]


def _compile_write_checks(*, org_id, patient_id, now, purpose, consent_record_id, lock_key) -> tuple[str, list]:
    consent_sql, consent_params = _compile_active_consent(org_id=org_id, patient_id=patient_id, now=now,
                                                          purpose=purpose, consent_record_id=consent_record_id)
    # ``access`` is worked out once (OFFSET 0 keeps PostgreSQL from folding it into each use); nothing is locked
    # for a caller without access.
    return (f"SELECT access.may, CASE WHEN access.may THEN ({consent_sql}) END, "
            "CASE WHEN access.may THEN pg_advisory_xact_lock(hashtextextended(%s, 0))::text END "
            "FROM (SELECT COALESCE(app_may_access(app_org_id(), %s, %s), false) AS may OFFSET 0) AS access",
            [*consent_params, lock_key, patient_id, purpose])


_WRITE_CHECKS_SQL: dict = {}


def _write_checks(identity: Identity, patient_id, memory_type: str, attribute: str, purpose: str,
                  consent_record_id) -> tuple[bool, uuid.UUID | None]:
    """A new value's checks in one statement: whether the caller may access the patient for the purpose (the rule
    RLS applies); the consent it names if that is active, this patient's and for this purpose, share-locked as
    :func:`_active_consent` locks it (None if not, or if none is named); and, with access, the attribute's lock
    (:func:`_attribute_lock`), so that the current value read next is the latest."""
    consent_id = _consent_uuid(consent_record_id)
    # a consent id is always bound (a nil UUID when none is named, which no consent has)
    sql, params = compiled_once(_WRITE_CHECKS_SQL, _compile_write_checks, org_id=identity.org_id,
                                patient_id=patient_id, now=timezone.now(), purpose=purpose,
                                consent_record_id=consent_id or uuid.UUID(int=0),
                                lock_key=_attribute_lock_key(identity.org_id, patient_id, memory_type, attribute,
                                                             purpose))
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        may, consent, _ = cursor.fetchone()
    return bool(may), (consent if consent_id is not None else None)


@dataclass(frozen=True)
class NewFact:
    memory_type: str
    attribute: str
    fact: dict
    consent_purpose: str
    valid_until: datetime | None = None
    review_by: datetime | None = None
    confidence: float = 1.0


def _check_new_fact(spec: TypeSpec, new: NewFact) -> None:
    now = timezone.now()
    if new.valid_until is not None and new.valid_until <= now:
        raise _invalid("valid_until", "must be in the future", "not_future")
    if new.valid_until is not None and new.valid_until > now + timedelta(days=spec.kept_days):
        # A memory is never kept past its type's retention, so it cannot be valid past it either.
        raise _invalid("valid_until", f"at most {spec.kept_days} days ahead: {new.memory_type} is kept no longer",
                       "beyond_retention")
    if new.consent_purpose not in spec.purposes:
        raise _invalid("consent_purpose", f"{new.memory_type} may be kept for: {', '.join(spec.purposes)}",
                       "invalid_purpose")
    if spec.review:
        if new.review_by is None:
            raise _invalid("review_by", f"{new.memory_type} needs a review-by date", "required")
        if new.review_by <= now:
            raise _invalid("review_by", "must be in the future", "not_future")
    elif new.review_by is not None:
        raise _invalid("review_by", f"{new.memory_type} has no review date", "not_applicable")


class TypeRevised(ConcurrentUpdate):
    title = "The memory type was revised while this was written; send it again"


def _hold_type(identity: Identity, spec: TypeSpec, new: NewFact) -> None:
    """Hold an organisation type (shared: writes do not wait for each other) until this write commits, so no
    revision comes between the fact's check and its insert (a revision holds it exclusively and checks every
    current memory). A revision that came first and refuses the fact makes this a retry: the next try is
    checked against it."""
    if spec.builtin:
        return  # built-in types change only with a release
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_advisory_xact_lock_shared(hashtextextended(%s, 0))",
                       [revision_lock_key(identity.org_id, spec.name)])
    latest = type_get(spec.name, org_id=identity.org_id)
    if latest is None or latest.version == spec.version:
        return
    try:
        fact_validate(latest, new.fact)
    except FactInvalid:
        raise TypeRevised() from None
    if new.consent_purpose not in latest.purposes:
        raise TypeRevised()


def _compile_current_of_attribute(*, org_id, patient_id, now, memory_type, attribute, purpose) -> tuple[str, list]:
    qs = Memory.objects.select_for_update().filter(
        organization_id=org_id, patient_id=patient_id, memory_type=memory_type, attribute=attribute,
        consent_purpose=purpose, state__in=[S.ACTIVE, S.QUARANTINED], superseded_by__isnull=True)
    sql, params = qs.query.get_compiler(using=DEFAULT_DB_ALIAS).as_sql()
    return sql, list(params)


_CURRENT_OF_ATTRIBUTE_SQL: dict = {}


def _supersede_current(*, identity: Identity, new_id: uuid.UUID, org_id, patient_id, memory_type: str,
                       attribute: str, purpose: str, event_type: str = LifecycleEvent.Type.SUPERSEDED) -> int:
    now = timezone.now()
    # the current records of the attribute, locked (FOR UPDATE); the query is compiled once
    sql, params = compiled_once(_CURRENT_OF_ATTRIBUTE_SQL, _compile_current_of_attribute, org_id=org_id,
                                patient_id=patient_id, now=None, memory_type=memory_type, attribute=attribute,
                                purpose=purpose)
    count = 0
    for old in Memory.objects.raw(sql, params):
        keep_until = min(old.expires_at, now + timedelta(days=settings.MEMORY_SUPERSEDED_RETENTION_DAYS))
        memory_transition(identity=identity, memory=old, to_state=S.SUPERSEDED,
                          event_type=event_type,
                          reason_code="superseded_by_newer_value", superseded_by_id=new_id, expires_at=keep_until)
        count += 1
    return count


def _insert(*, identity: Identity, patient_id: uuid.UUID, spec: TypeSpec, new: NewFact, state: str,
            source: str, source_ref: str, consent_record_id: uuid.UUID | None, memory_id: uuid.UUID,
            audit_actions: list[str]) -> Memory:
    """Insert the new record with everything that goes with it (its copies: the row, and the record of its vector,
    which is made and written once this transaction commits (:func:`memory.retrieval.memory_vector_later`); its
    first lifecycle event; the write's audit rows, one per action in ``audit_actions``, about the new record) in one
    statement (``core.rows``). The caller holds the type (:func:`_hold_type`) before its first write, so a
    revision that refuses the fact stops it before anything is written."""
    assert source != Source.PATIENT_STATED or identity.is_patient_themself(patient_id), "only the patient states"
    now = timezone.now()
    salt = new_salt()
    valid_until = new.valid_until
    if valid_until is None and spec.default_validity_days:
        valid_until = now + timedelta(days=spec.default_validity_days)
    memory = Memory(
        memory_id=memory_id, organization_id=identity.org_id, patient_id=patient_id,
        memory_class=spec.memory_class, memory_type=new.memory_type, type_version=spec.version,
        attribute=new.attribute,
        state=state, source=source, source_ref=source_ref[:255], confidence=new.confidence,
        policy_revision=settings.MEMORY_POLICY_REVISION, consent_purpose=new.consent_purpose,
        consent_record_id=consent_record_id, valid_from=now, valid_until=valid_until, review_by=new.review_by,
        expires_at=_retention_deadline(spec, now, valid_until), created_by=identity.actor_sub,
        agent_client_id=identity.agent_client_id, digest_salt=salt)
    if spec.encrypted:
        memory.fact_ciphertext, memory.fact_key_id = encrypt_fact(new.fact, memory_id=memory_id,
                                                                  patient_id=patient_id)
    else:
        memory.fact = new.fact
    first = LifecycleEvent.Type.PROPOSED if state == S.PROPOSED else LifecycleEvent.Type.CONFIRMED
    event = lifecycle_row(identity=identity, memory=memory, event_type=first, from_state=None, to_state=state,
                          reason_code=f"{source}", source_ref=source_ref)
    parts = [("memory_row", rows.insert(memory)),
             ("row_copy", rows.insert(representations.copy_row(memory=memory, target=Representation.Target.POSTGRES,
                                                               external_id=str(memory_id)))),
             ("vector_copy", rows.insert(memory_vector_copy(memory))),
             ("first_event", rows.insert(event)),
             ("audit_rows", audit.insert_all_statement([
                 {"action": action, "resource_type": "memory", "resource_id": memory_id, "patient_id": patient_id,
                  "purpose": new.consent_purpose} for action in audit_actions]))]
    sql, params = rows.statement(parts)
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
    memory._state.adding, memory._state.db = False, DEFAULT_DB_ALIAS  # as save() leaves it
    memory_vector_later(memory, new.fact)
    return memory


def memory_record(*, identity: Identity, patient_id: uuid.UUID, memory_type: str, attribute: str, fact: dict,
                  consent_purpose: str, consent_record_id: uuid.UUID | None = None,
                  valid_until: datetime | None = None, review_by: datetime | None = None,
                  source: str | None = None, source_ref: str = "", type_version: int | None = None) -> Memory:
    """Record a typed fact as active, superseding the current record of the same attribute (and only it).

    The type decides who may write (``writers``), whether a review date is needed, whether the value is
    encrypted, and its default validity and retention. Everything but care context needs an active consent of the
    patient for the purpose; provenance is ``patient_stated`` when the patient writes about themself,
    ``staff_entered`` or ``ehr_import`` (with its reference) otherwise.

    An agent's token never speaks as the patient: what an agent records is a proposal (``proposed``,
    ``agent_extracted``, with its client id) until the patient or staff confirm it.
    """
    spec = _spec(memory_type, type_version)
    if identity.is_agent:
        if "agent_proposal" not in spec.writers:
            raise Forbidden(f"{memory_type} is recorded by staff or imported from the EHR", code="staff_only")
        if consent_record_id is None:
            raise _invalid("consent_record_id", "required", "required")
        return memory_propose(identity=identity, patient_id=patient_id, memory_type=memory_type,
                              attribute=attribute, fact=fact, consent_purpose=consent_purpose,
                              consent_record_id=consent_record_id, valid_until=valid_until,
                              source_ref=source_ref or f"agent:{identity.agent_client_id}", confidence=1.0,
                              type_version=type_version)
    new = NewFact(memory_type=memory_type, attribute=attribute, fact=fact, consent_purpose=consent_purpose,
                  valid_until=valid_until, review_by=review_by)
    _check_new_fact(spec, new)
    # access, the consent named (share-locked) and the attribute's lock, in one statement
    may, named_consent = _write_checks(identity, patient_id, memory_type, attribute, consent_purpose,
                                       consent_record_id)
    if not may:
        raise NoConsentOrAccess()
    consent: uuid.UUID | None = None
    if identity.patient_self_id is not None:
        if "patient" not in spec.writers:
            raise Forbidden(f"{memory_type} is recorded by staff or imported from the EHR", code="staff_only")
        if source is not None or source_ref:
            raise _invalid("source", "patients state their own facts", "not_applicable")
        source = Source.PATIENT_STATED
    else:
        source = source or (Source.STAFF_ENTERED if "staff" in spec.writers else Source.EHR_IMPORT)
        writer = {str(Source.STAFF_ENTERED): "staff", str(Source.EHR_IMPORT): "ehr_import"}.get(str(source))
        if writer not in spec.writers:
            allowed = [src for src, w in (("staff_entered", "staff"), ("ehr_import", "ehr_import"))
                       if w in spec.writers]
            if not allowed:
                raise Forbidden(f"{memory_type} is only proposed by agents or stated by the patient",
                                code="staff_only")
            raise _invalid("source", f"{memory_type} comes from {' or '.join(allowed)}")
        if source == Source.EHR_IMPORT and not source_ref:
            raise _invalid("source_ref", "an EHR import names its source record", "required")
    if consent_record_id is None and spec.memory_class != MemoryClass.CARE_CONTEXT:
        raise _invalid("consent_record_id", "required", "required")
    if consent_record_id is not None:
        if named_consent is None:
            raise NoConsentOrAccess()
        consent = named_consent
    if consent is None:  # an active consent of the organisation means its row exists (a foreign key)
        organization_ensure(identity=identity)
    memory_id = uuid.uuid4()
    _hold_type(identity, spec, new)
    try:
        # no savepoint of its own (two round trips): a failure spoils the enclosing block, which rolls it back
        with transaction.atomic(savepoint=False):
            superseded = _supersede_current(identity=identity, new_id=memory_id, org_id=identity.org_id,
                                            patient_id=patient_id, memory_type=memory_type, attribute=attribute,
                                            purpose=consent_purpose)
            return _insert(identity=identity, patient_id=patient_id, spec=spec, new=new, state=S.ACTIVE,
                           source=source, source_ref=source_ref or f"api:{identity.actor_sub}",
                           consent_record_id=consent, memory_id=memory_id,
                           audit_actions=["memory.create"] + (["memory.supersede"] if superseded else []))
    except IntegrityError:
        raise ConcurrentUpdate() from None


def memory_propose(*, identity: Identity, patient_id: uuid.UUID, memory_type: str, attribute: str, fact: dict,
                   consent_purpose: str, consent_record_id: uuid.UUID, source_ref: str, confidence: float = 0.8,
                   valid_until: datetime | None = None, type_version: int | None = None) -> Memory:
    """An agent's extraction from a conversation: stored as ``proposed`` and used by nobody until the patient
    or staff confirm it. ``source_ref`` points at the conversation turn it came from. Only types whose writers
    include ``agent_proposal`` can be proposed (never care context)."""
    spec = _spec(memory_type, type_version)
    if "agent_proposal" not in spec.writers:
        raise Forbidden(f"{memory_type} is never proposed from a conversation", code="staff_only")
    new = NewFact(memory_type=memory_type, attribute=attribute, fact=fact, consent_purpose=consent_purpose,
                  valid_until=valid_until, confidence=confidence)
    _check_new_fact(spec, new)
    if not source_ref:
        raise _invalid("source_ref", "a proposal points at the turn it came from", "required")
    if not may_access(patient_id=patient_id, purpose=consent_purpose):
        raise NoConsentOrAccess()
    consent = _active_consent(identity, patient_id, consent_purpose, consent_record_id)
    _hold_type(identity, spec, new)
    return _insert(identity=identity, patient_id=patient_id, spec=spec, new=new, state=S.PROPOSED,
                   source=Source.AGENT_EXTRACTED, source_ref=source_ref, consent_record_id=consent,
                   memory_id=uuid.uuid4(), audit_actions=["memory.propose"])


def _locked(identity: Identity, patient_id: uuid.UUID, memory_id: uuid.UUID) -> Memory:
    memory = (Memory.objects.select_for_update()
              .filter(memory_id=memory_id, patient_id=patient_id, organization_id=identity.org_id)
              .exclude(state=S.DELETED).first())
    if memory is None:
        raise NotFound()
    return memory


def _locked_under_consent(identity: Identity, patient_id: uuid.UUID, memory_id: uuid.UUID) -> Memory:
    """:func:`_locked`, with the memory's consent share-locked first (see :func:`_hold_consent`)."""
    consent_record_id = (Memory.objects.filter(memory_id=memory_id, patient_id=patient_id,
                                               organization_id=identity.org_id)
                         .values_list("consent_record_id", flat=True).first())
    if consent_record_id is not None:
        _hold_consent(identity.org_id, consent_record_id)
    return _locked(identity, patient_id, memory_id)


def _consent_still_active(memory: Memory) -> None:
    if memory.consent_record_id is not None and not ConsentRecord.objects.active().filter(
            pk=memory.consent_record_id).exists():
        raise NoConsentOrAccess()


def memory_confirm(*, identity: Identity, patient_id: uuid.UUID, memory_id: uuid.UUID) -> Memory:
    """The patient or staff confirm a proposal: it becomes the current value of its attribute. An agent cannot
    confirm (its own or another agent's proposal): that would let it speak as the patient after all."""
    if identity.is_agent:
        raise Forbidden("an agent's proposals are confirmed by the patient or staff", code="agent_cannot_confirm")
    memory = _locked_under_consent(identity, patient_id, memory_id)
    if memory.effective_state(consent=False) != S.PROPOSED:  # a proposal past its validity is no longer one
        raise Conflict("only proposed memories can be confirmed", code="not_proposed")
    _consent_still_active(memory)
    with transaction.atomic():
        _attribute_lock(memory.organization_id, patient_id, memory.memory_type, memory.attribute,
                        memory.consent_purpose)
        _supersede_current(identity=identity, new_id=memory.memory_id, org_id=memory.organization_id,
                           patient_id=patient_id, memory_type=memory.memory_type, attribute=memory.attribute,
                           purpose=memory.consent_purpose)
        memory_transition(identity=identity, memory=memory, to_state=S.ACTIVE,
                          event_type=LifecycleEvent.Type.CONFIRMED,
                          reason_code=("patient_confirmed" if identity.is_patient_themself(patient_id)
                                       else "staff_confirmed"))
    audit.record(action="memory.confirm", resource_type="memory", resource_id=memory.memory_id,
                 patient_id=patient_id, purpose=memory.consent_purpose)
    return memory


def memory_reject(*, identity: Identity, patient_id: uuid.UUID, memory_id: uuid.UUID) -> dict:
    """Reject a proposal: its value is erased everywhere, as for a deletion. The patient's or staff's review, as
    confirming is: never an agent's."""
    if identity.is_agent:
        raise Forbidden("an agent's proposals are reviewed by the patient or staff", code="agent_cannot_confirm")
    memory = _locked(identity, patient_id, memory_id)
    if memory.state != S.PROPOSED:
        raise Conflict("only proposed memories can be rejected", code="not_proposed")
    lifecycle_event(identity=identity, memory=memory, event_type=LifecycleEvent.Type.REJECTED,
                    from_state=memory.state, to_state=memory.state, reason_code="proposal_rejected")
    return _deletion(identity=identity, patient_id=patient_id, memories=[memory], scope="memory",
                     reason_code="proposal_rejected")


def memory_correct(*, identity: Identity, patient_id: uuid.UUID, memory_id: uuid.UUID, fact: dict,
                   attribute: str, valid_until: datetime | None = None,
                   review_by: datetime | None = None) -> Memory:
    """Correct a value: a new record supersedes the old one and links to it; history keeps both. Agents propose
    new values instead: a correction would make the agent's value current without the patient's confirmation."""
    if identity.is_agent:
        raise Forbidden("an agent proposes a new value; the patient or staff correct", code="agent_cannot_confirm")
    old = _locked_under_consent(identity, patient_id, memory_id)
    state = old.effective_state(consent=False)  # consent is checked below, with its own answer
    if state not in (S.ACTIVE, S.QUARANTINED):
        raise Conflict(f"{'an' if state[0] in 'aeiou' else 'a'} {state} memory cannot be corrected",
                       code="not_correctable")
    if attribute != old.attribute:
        raise _invalid("fact.kind", "a correction keeps the attribute; record a new fact instead")
    spec = _spec(old.memory_type)
    if identity.is_patient(patient_id) and "patient" not in spec.writers:
        raise Forbidden("clinical facts are corrected by the care team", code="staff_only")
    _consent_still_active(old)
    new = NewFact(memory_type=old.memory_type, attribute=old.attribute, fact=fact,
                  consent_purpose=old.consent_purpose, valid_until=valid_until,
                  review_by=review_by or old.review_by)
    _check_new_fact(spec, new)
    source = Source.PATIENT_STATED if identity.is_patient_themself(patient_id) else Source.STAFF_ENTERED
    memory_id_new = uuid.uuid4()
    _hold_type(identity, spec, new)
    with transaction.atomic(savepoint=False):  # a failure spoils the enclosing block, which rolls it back
        _attribute_lock(old.organization_id, patient_id, old.memory_type, old.attribute, old.consent_purpose)
        _supersede_current(identity=identity, new_id=memory_id_new, org_id=old.organization_id,
                           patient_id=patient_id, memory_type=old.memory_type, attribute=old.attribute,
                           purpose=old.consent_purpose, event_type=LifecycleEvent.Type.CORRECTED)
        return _insert(identity=identity, patient_id=patient_id, spec=spec, new=new, state=S.ACTIVE,
                       source=source, source_ref=f"correction-of:{old.memory_id}",
                       consent_record_id=old.consent_record_id, memory_id=memory_id_new,
                       audit_actions=["memory.correct"])


def memory_quarantine(*, identity: Identity, patient_id: uuid.UUID, memory_id: uuid.UUID,
                      reason_code: str) -> Memory:
    """Staff take a doubtful fact out of every read at once, with a reason."""
    if identity.patient_self_id is not None:
        raise Forbidden("quarantine is a staff action; patients correct or delete", code="staff_only")
    if identity.is_agent:  # it would take a fact (an allergy too) out of every read on an agent's word
        raise Forbidden("an agent reports a doubtful fact to staff, who quarantine it", code="agent_cannot_confirm")
    memory = _locked(identity, patient_id, memory_id)
    if memory.state == S.ACTIVE and memory.effective_state(consent=False) == S.EXPIRED:
        # past its validity or retention it is out of every read already, and reads as expired (as correct says)
        raise IllegalTransition("an expired memory cannot become quarantined").about(
            patient_id=patient_id, purpose=memory.consent_purpose)
    memory_transition(identity=identity, memory=memory, to_state=S.QUARANTINED,
                      event_type=LifecycleEvent.Type.QUARANTINED, reason_code=reason_code)
    audit.record(action="memory.quarantine", resource_type="memory", resource_id=memory.memory_id,
                 patient_id=patient_id, purpose=memory.consent_purpose, reason=reason_code)
    return memory


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


def _deletion(*, identity: Identity, patient_id: uuid.UUID, memories: list[Memory], scope: str,
              reason_code: str, retained: list[dict] | None = None,
              other_copies: list[dict] | None = None, copies_of: list[str] | None = None) -> dict:
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
    return receipt


def _refuse_agent_deletion(identity: Identity) -> None:
    """Deleting is the patient's decision (or staff's, for them): an agent acting for the patient never takes it
    on their behalf, as it never confirms or corrects; its receipt would credit the patient with the request."""
    if identity.is_agent:
        raise Forbidden("the patient or staff delete; an agent cannot", code="agent_cannot_delete")


def memory_delete(*, identity: Identity, patient_id: uuid.UUID, memory_id: uuid.UUID,
                  reason_code: str = "subject_request") -> dict:
    """Delete one memory and every earlier version of it, everywhere; returns the deletion receipt."""
    _refuse_agent_deletion(identity)
    memory = _locked(identity, patient_id, memory_id)
    if identity.is_patient(patient_id) and not _patient_may_edit(memory):
        raise Forbidden("clinical facts are removed by the care team", code="staff_only")
    chain = _version_chain(memory)
    needles = [needle for m in chain for needle in _distinctive(m)]  # read before the values are erased
    return _deletion(identity=identity, patient_id=patient_id, memories=chain, scope="memory",
                     reason_code=reason_code, copies_of=needles)


def _distinctive(memory: Memory) -> list[str]:
    """What identifies a memory's value where a copy of it may be held (a tool result an agent put into a
    conversation): its id, its text, and those of its values that are distinctive (text with a space or a digit,
    six characters or more: a name, a phone number, a substance), never a bare word such as a day or a time."""
    value = memory_value(memory)
    needles = [str(memory.memory_id)]
    if value:
        needles.append(fact_text(memory.memory_type, value))
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
    memories = list(Memory.objects.select_for_update()
                    .filter(organization_id=identity.org_id, patient_id=patient_id).exclude(state=S.DELETED)
                    .order_by("created_at"))
    retained = []
    if identity.is_patient(patient_id):
        editable = {m.memory_id for m in memories if _patient_may_edit(m)}
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
    return _deletion(identity=identity, patient_id=patient_id, memories=memories, scope="patient",
                     reason_code=reason_code, retained=retained, other_copies=other_copies)


def memory_apply_consent_revocation(*, identity: Identity, consent: ConsentRecord) -> int:
    """Memories kept under a revoked consent stop being served in this transaction and are erased after the
    configured grace period by the sweep."""
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
                if memory.expires_at <= now:
                    _deletion(identity=identity, patient_id=patient_id, memories=[memory], scope="memory",
                              reason_code="retention_elapsed")
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
