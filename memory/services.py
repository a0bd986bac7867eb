"""Writes of long-term memory. Every state change goes through here and memory.lifecycle."""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from datetime import datetime, timedelta
from functools import cache
from typing import Any

from django.conf import settings
from django.db import DEFAULT_DB_ALIAS, IntegrityError, connection
from django.db.models import F, Value
from django.db.models.functions import Least
from django.utils import timezone

from consent.access import may_access
from consent.models import ConsentRecord
from core import audit, rows
from core.errors import (
    ConcurrentUpdate,
    Conflict,
    Forbidden,
    NoConsentOrAccess,
    ValidationFailed,
)
from core.identity import Identity, pipelined, sent_with_next
from core.services import organization_ensure
from events.services import event_emit
from memory import representations
from memory.crypto import encrypt_fact, new_salt
from memory.erasure import erasure_hold, erasure_lock_key
from memory.lifecycle import lifecycle_row, memory_transition
from memory.models import LifecycleEvent, Memory, MemoryClass, MemoryState, Representation, Source
from memory.retrieval.vectors import memory_vector_copy, memory_vector_later
from memory.selectors import compiled_once, memory_current_since, memory_proposal_waiting, memory_proposals_stale
from memory.types import FactInvalid, TypeSpec, fact_validate, revision_lock_key, type_get

S = MemoryState


def _spec(memory_type: str, version: int | None = None) -> TypeSpec:
    spec = type_get(memory_type, version)
    if spec is None:
        raise ValidationFailed.of("memory_type", "unknown memory type; see GET /v1/memory-types")
    return spec


def _fact_checked(spec: TypeSpec, fact: Any) -> tuple[str, dict]:
    """The fact's attribute and its normalised form, or 422 naming each field its type refuses."""
    try:
        return fact_validate(spec, fact)
    except FactInvalid as exc:
        raise ValidationFailed.from_detail(exc.detail) from None


def _check_fields_used(spec: TypeSpec, *, review_by, source, source_ref) -> None:
    """Fields the type has no use for are refused rather than silently dropped."""
    unused = {"review_by": review_by} if not spec.review else {}
    if "ehr_import" not in spec.writers:
        unused |= {"source": source, "source_ref": source_ref}
    for name, value in unused.items():
        if value:
            raise ValidationFailed.of(name, f"not used by {spec.name}")


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


def _proposal_lapse(now: datetime, retention: datetime) -> datetime:
    """Until when a proposal waits for review: ``MEMORY_PROPOSAL_LAPSE_DAYS``, within its retention. Past it, it
    reads as expired and the sweep erases its value (``proposal_lapsed``); confirming it gives it the retention
    it was written with (:func:`_retention_deadline` from its creation)."""
    return min(retention, now + timedelta(days=settings.MEMORY_PROPOSAL_LAPSE_DAYS))


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


def _compile_write_checks(*, org_id, patient_id, now, purpose, consent_record_id, erasure_key,
                          lock_key) -> tuple[str, list]:
    consent_sql, consent_params = _compile_active_consent(org_id=org_id, patient_id=patient_id, now=now,
                                                          purpose=purpose, consent_record_id=consent_record_id)
    # ``access`` is worked out once (OFFSET 0 keeps PostgreSQL from folding it into each use); nothing is locked
    # for a caller without access. The locks in a review's order: consent, the patient's erasure lock (shared, as
    # ``memory.erasure.erasure_hold`` takes it: an erase-all under way is waited for, never missed), attribute.
    return (f"SELECT access.may, CASE WHEN access.may THEN ({consent_sql}) END, "
            "CASE WHEN access.may THEN pg_advisory_xact_lock_shared(hashtextextended(%s, 0))::text END, "
            "CASE WHEN access.may THEN pg_advisory_xact_lock(hashtextextended(%s, 0))::text END "
            "FROM (SELECT COALESCE(app_may_access(app_org_id(), %s, %s), false) AS may OFFSET 0) AS access",
            [*consent_params, erasure_key, lock_key, patient_id, purpose])


_WRITE_CHECKS_SQL: dict = {}


def _write_checks_statement(identity: Identity, patient_id, memory_type: str, attribute: str, purpose: str,
                            consent_record_id) -> tuple[str, list]:
    """A new value's checks in one statement: whether the caller may access the patient for the purpose (the rule
    RLS applies); the consent it names if that is active, this patient's and for this purpose, share-locked as
    :func:`_active_consent` locks it (None if not, or if none is named); and, with access, the patient's erasure
    lock shared and the attribute's lock (:func:`_attribute_lock`), so that the current value read next is the
    latest. :func:`_write_checks_answer` reads its answer."""
    # a consent id is always bound (a nil UUID when none is named, which no consent has)
    return compiled_once(_WRITE_CHECKS_SQL, _compile_write_checks, org_id=identity.org_id,
                         patient_id=patient_id, now=timezone.now(), purpose=purpose,
                         consent_record_id=_consent_uuid(consent_record_id) or uuid.UUID(int=0),
                         erasure_key=erasure_lock_key(identity.org_id, patient_id),
                         lock_key=_attribute_lock_key(identity.org_id, patient_id, memory_type, attribute, purpose))


def _write_checks_answer(cursor, consent_record_id) -> tuple[bool, uuid.UUID | None]:
    may, consent, _, _ = cursor.fetchone()
    return bool(may), (consent if _consent_uuid(consent_record_id) is not None else None)


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
        raise ValidationFailed.of("valid_until", "must be in the future", "not_future")
    if new.valid_until is not None and new.valid_until > now + timedelta(days=spec.kept_days):
        # A memory is never kept past its type's retention, so it cannot be valid past it either.
        raise ValidationFailed.of("valid_until",
                                  f"at most {spec.kept_days} days ahead: {new.memory_type} is kept no longer",
                                  "beyond_retention")
    if new.consent_purpose not in spec.purposes:
        raise ValidationFailed.of("consent_purpose", f"{new.memory_type} may be kept for: {', '.join(spec.purposes)}",
                                  "invalid_purpose")
    if spec.review:
        if new.review_by is None:
            raise ValidationFailed.of("review_by", f"{new.memory_type} needs a review-by date", "required")
        if new.review_by <= now:
            raise ValidationFailed.of("review_by", "must be in the future", "not_future")
    elif new.review_by is not None:
        raise ValidationFailed.of("review_by", f"{new.memory_type} has no review date", "not_applicable")


class TypeRevised(ConcurrentUpdate):
    title = "The memory type was revised while this was written; send it again"


def _hold_type(identity: Identity, spec: TypeSpec, new: NewFact) -> None:
    """Hold an organisation type (shared: writes do not wait for each other) until this write commits, so no
    revision comes between the fact's check and its insert (a revision holds it exclusively and checks every
    current memory). A revision that came first and refuses the fact makes this a retry: the next try is
    checked against it."""
    statement = _type_lock_statement(identity, spec)
    if statement is None:
        return
    with connection.cursor() as cursor:
        cursor.execute(*statement)
    _type_still_fits(identity, spec, new)


def _type_lock_statement(identity: Identity, spec: TypeSpec) -> tuple[str, list] | None:
    """:func:`_hold_type`'s lock (None for a built-in type: those change only with a release)."""
    if spec.builtin:
        return None
    return "SELECT pg_advisory_xact_lock_shared(hashtextextended(%s, 0))", [revision_lock_key(identity.org_id,
                                                                                              spec.name)]


def _type_still_fits(identity: Identity, spec: TypeSpec, new: NewFact) -> None:
    """Once the type is held: a revision that came first and refuses the fact makes this write a retry."""
    if spec.builtin:
        return
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
        consent_purpose=purpose, state__in=[S.ACTIVE, S.QUARANTINED, S.EXPIRED], superseded_by__isnull=True,
    ).order_by("created_at", "memory_id")  # locked oldest first, as erasing all of a patient's memories locks them
    sql, params = qs.query.get_compiler(using=DEFAULT_DB_ALIAS).as_sql()
    return sql, list(params)


_CURRENT_OF_ATTRIBUTE_SQL: dict = {}


def _supersede_current(*, identity: Identity, new_id: uuid.UUID, org_id, patient_id, memory_type: str,
                       attribute: str, purpose: str, event_type: str = LifecycleEvent.Type.SUPERSEDED) -> int:
    # the current records of the attribute, locked (FOR UPDATE); the query is compiled once
    current = list(Memory.objects.raw(*_current_of_attribute_statement(
        org_id=org_id, patient_id=patient_id, memory_type=memory_type, attribute=attribute, purpose=purpose)))
    return _supersede(identity=identity, current=current, new_id=new_id, event_type=event_type)


def _current_of_attribute_statement(*, org_id, patient_id, memory_type: str, attribute: str,
                                    purpose: str) -> tuple[str, list]:
    return compiled_once(_CURRENT_OF_ATTRIBUTE_SQL, _compile_current_of_attribute, org_id=org_id,
                         patient_id=patient_id, now=None, memory_type=memory_type, attribute=attribute,
                         purpose=purpose)


@cache
def _memory_loader() -> tuple[list[str], list[str], list]:
    """The ORM's columns of a memory row: attribute names, column names and its compiler's converters."""
    compiler = Memory.objects.all().query.get_compiler(using=DEFAULT_DB_ALIAS)
    compiler.setup_query()
    columns = [col for col, _, _ in compiler.select]
    return ([c.target.attname for c in columns], [c.target.column for c in columns],
            list(compiler.get_converters(columns).items()))


def _memories(cursor) -> list[Memory]:
    """The rows of a query of whole memory rows (the ORM's own columns, in its order), loaded as the ORM loads them
    (its compiler's converters, ``Model.from_db``)."""
    attnames, column_names, converters = _memory_loader()
    if [c.name for c in cursor.description] != column_names:
        raise RuntimeError("not a query of whole memory rows")
    memories = []
    for row in cursor.fetchall():
        values = list(row)
        for position, (functions, expression) in converters:
            for convert in functions:
                values[position] = convert(values[position], expression, connection)
        memories.append(Memory.from_db(DEFAULT_DB_ALIAS, attnames, values))
    return memories


def _supersede(*, identity: Identity, current: list[Memory], new_id: uuid.UUID,
               event_type: str = LifecycleEvent.Type.SUPERSEDED, locked: bool = False) -> int:
    """Move the attribute's current records (read FOR UPDATE by this transaction) to superseded. ``locked``: their
    moves may be sent without waiting for their counts (:func:`memory.lifecycle.memory_transition`).

    Its earlier values that expired and were replaced by nothing yet (in ``current`` too) are linked to the new
    value: they are in its history, and deleting it (or its attribute) erases them with it, not at retention.
    Every earlier value, superseded or expired, is kept ``MEMORY_SUPERSEDED_RETENTION_DAYS`` from now at most (an
    expired one replaced used to keep its type's whole retention, years past the superseded one beside it)."""
    now = timezone.now()
    moved = 0
    kept_until = now + timedelta(days=settings.MEMORY_SUPERSEDED_RETENTION_DAYS)
    expired = [old.memory_id for old in current if old.state == S.EXPIRED]
    if expired:
        Memory.objects.filter(memory_id__in=expired, state=S.EXPIRED, superseded_by__isnull=True).update(
            superseded_by_id=new_id, expires_at=Least(F("expires_at"), Value(kept_until)), updated_at=now)
    for old in current:
        if old.state == S.EXPIRED:
            continue
        keep_until = min(old.expires_at, kept_until)
        if old.valid_until is not None and old.valid_until <= now:
            # its validity ended before the newer value came: it expired (reads said so already), as the sweep
            # would record it; an earlier value of the one that came, as above
            memory_transition(identity=identity, memory=old, to_state=S.EXPIRED, superseded_by_id=new_id,
                              event_type=LifecycleEvent.Type.EXPIRED, reason_code="validity_ended",
                              expires_at=keep_until, locked=locked)
            continue
        memory_transition(identity=identity, memory=old, to_state=S.SUPERSEDED,
                          event_type=event_type, reason_code="superseded_by_newer_value", superseded_by_id=new_id,
                          expires_at=keep_until, locked=locked)
        moved += 1
    return moved


def _insert(*, identity: Identity, patient_id: uuid.UUID, spec: TypeSpec, new: NewFact, state: str,
            source: str, source_ref: str, consent_record_id: uuid.UUID | None, memory_id: uuid.UUID,
            audit_actions: list[str]) -> Memory:
    """Insert the new record with everything that goes with it (its copies: the row, and the record of its vector,
    which is made and written once this transaction commits (:func:`memory_vector_later`); its
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
        expires_at=_proposal_lapse(now, _retention_deadline(spec, now, valid_until)) if state == S.PROPOSED
        else _retention_deadline(spec, now, valid_until), created_by=identity.actor_sub,
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


def _writer_source(identity: Identity, spec: TypeSpec, *, source: str | None, source_ref: str) -> str:
    """The provenance of an active record: the patient's statement, or staff's or an EHR import's as the type allows."""
    if identity.patient_self_id is not None:
        if "patient" not in spec.writers:
            raise Forbidden(f"{spec.name} is recorded by staff or imported from the EHR", code="staff_only")
        if source is not None or source_ref:
            raise ValidationFailed.of("source", "patients state their own facts", "not_applicable")
        return Source.PATIENT_STATED
    source = source or (Source.STAFF_ENTERED if "staff" in spec.writers else Source.EHR_IMPORT)
    writer = {str(Source.STAFF_ENTERED): "staff", str(Source.EHR_IMPORT): "ehr_import"}.get(str(source))
    if writer not in spec.writers:
        allowed = [src for src, w in (("staff_entered", "staff"), ("ehr_import", "ehr_import")) if w in spec.writers]
        if allowed:
            raise ValidationFailed.of("source", f"{spec.name} comes from {' or '.join(allowed)}")
        raise Forbidden(f"{spec.name} is only proposed by agents or stated by the patient", code="staff_only")
    if source == Source.EHR_IMPORT and not source_ref:
        raise ValidationFailed.of("source_ref", "an EHR import names its source record", "required")
    return source


def memory_record(*, identity: Identity, patient_id: uuid.UUID, memory_type: str, fact: Any,
                  consent_purpose: str, consent_record_id: uuid.UUID | None = None,
                  valid_until: datetime | None = None, review_by: datetime | None = None,
                  source: str | None = None, source_ref: str = "") -> Memory:
    """:func:`memory_write`'s memory."""
    return memory_write(identity=identity, patient_id=patient_id, memory_type=memory_type, fact=fact,
                        consent_purpose=consent_purpose, consent_record_id=consent_record_id,
                        valid_until=valid_until, review_by=review_by, source=source, source_ref=source_ref)[0]


def memory_write(*, identity: Identity, patient_id: uuid.UUID, memory_type: str, fact: Any,
                 consent_purpose: str, consent_record_id: uuid.UUID | None = None,
                 valid_until: datetime | None = None, review_by: datetime | None = None,
                 source: str | None = None, source_ref: str = "") -> tuple[Memory, bool]:
    """Record a typed fact as active, superseding the current record of the same attribute (and only it); and
    whether anything was written (False: an agent's write answered by its identical proposal still pending, see
    :func:`memory_propose`).

    The type decides the fact's shape and its attribute, who may write (``writers``), whether a review date is
    needed, whether the value is encrypted, and its default validity and retention. Everything but care context
    needs an active consent of the patient for the purpose; provenance is ``patient_stated`` when the patient
    writes about themself, ``staff_entered`` or ``ehr_import`` (with its reference) otherwise.

    An agent's token never speaks as the patient: what an agent records is a proposal (``proposed``,
    ``agent_extracted``, with its client id) until the patient or staff confirm it.
    """
    spec = _spec(memory_type)
    attribute, fact = _fact_checked(spec, fact)
    _check_fields_used(spec, review_by=review_by, source=source, source_ref=source_ref)
    if consent_record_id is None and spec.memory_class != MemoryClass.CARE_CONTEXT:
        raise ValidationFailed.of("consent_record_id", "This field is required.", "required")
    if identity.is_agent:
        if "agent_proposal" not in spec.writers:
            raise Forbidden(f"{memory_type} is recorded by staff or imported from the EHR", code="staff_only")
        assert consent_record_id is not None  # agents never write care context
        return _propose(identity=identity, patient_id=patient_id, spec=spec, attribute=attribute, fact=fact,
                        consent_purpose=consent_purpose, consent_record_id=consent_record_id,
                        valid_until=valid_until, source_ref=source_ref or f"agent:{identity.agent_client_id}",
                        confidence=1.0, source=Source.AGENT_EXTRACTED)
    new = NewFact(memory_type=memory_type, attribute=attribute, fact=fact, consent_purpose=consent_purpose,
                  valid_until=valid_until, review_by=review_by)
    _check_new_fact(spec, new)
    # One round trip: access, the consent named (share-locked) and the attribute's lock, in one statement; then an
    # organisation's type held (_hold_type); then the attribute's current records, locked. Without access that
    # read sees no row (RLS) and locks nothing; a refusal below rolls back whatever was locked.
    with connection.cursor() as checks, connection.cursor() as held, connection.cursor() as current_rows:
        with pipelined():
            checks.execute(*_write_checks_statement(identity, patient_id, memory_type, attribute, consent_purpose,
                                                    consent_record_id))
            type_lock = _type_lock_statement(identity, spec)
            if type_lock is not None:
                held.execute(*type_lock)
            current_rows.execute(*_current_of_attribute_statement(
                org_id=identity.org_id, patient_id=patient_id, memory_type=memory_type, attribute=attribute,
                purpose=consent_purpose))
        may, named_consent = _write_checks_answer(checks, consent_record_id)
        current = _memories(current_rows)
    if not may:
        raise NoConsentOrAccess()
    consent: uuid.UUID | None = None
    source = _writer_source(identity, spec, source=source, source_ref=source_ref)
    if consent_record_id is not None:
        if named_consent is None:
            raise NoConsentOrAccess()
        consent = named_consent
    _type_still_fits(identity, spec, new)
    memory_id = uuid.uuid4()
    # The writes are sent without waiting: in an API request they travel with the response stored for retries, or
    # with the COMMIT (one round trip); a conflict with a concurrent write surfaces there as the same answer.
    with sent_with_next(translate=_concurrent_update):
        if consent is None:  # an active consent of the organisation means its row exists (a foreign key)
            organization_ensure(identity=identity)
        superseded = _supersede(identity=identity, current=current, new_id=memory_id, locked=True)
        return _insert(identity=identity, patient_id=patient_id, spec=spec, new=new, state=S.ACTIVE,
                       source=source, source_ref=source_ref or f"api:{identity.actor_sub}",
                       consent_record_id=consent, memory_id=memory_id,
                       audit_actions=["memory.create"] + (["memory.supersede"] if superseded else [])), True


def _concurrent_update(exc: Exception) -> Exception | None:
    """A write's unique index refused it: another write of the same value came first (409, retry)."""
    return ConcurrentUpdate() if isinstance(exc, IntegrityError) else None


def memory_propose(*, identity: Identity, patient_id: uuid.UUID, memory_type: str, fact: Any,
                   consent_purpose: str, consent_record_id: uuid.UUID, source_ref: str, confidence: float = 0.8,
                   valid_until: datetime | None = None, extracted: bool = False) -> tuple[Memory, bool]:
    """A fact stored as ``proposed`` and used by nobody until the patient or staff confirm it, and whether it was
    written. ``source_ref`` points at where it came from (a conversation turn). Only types whose writers include
    ``agent_proposal`` can be proposed (never care context).

    The same proposer proposing the same value (type, attribute, fact, purpose) again while their proposal of it
    waits under the same consent is answered with that proposal (``created`` False; nothing is written, its
    ``source_ref`` and confidence stay); a different ``valid_until`` asked for is 409 ``proposal_pending``. Read
    under the attribute's lock (:func:`_attribute_lock`), so two identical proposals at once make one.

    Its provenance is who proposed it (:func:`_proposal_source`): an agent's is ``agent_extracted``; the patient's
    own is ``patient_stated`` and staff's ``staff_entered``, each only for a type they may write. ``extracted``:
    the service read the fact out of a conversation turn (``conversations``), whoever asked it to: that reading is
    ``agent_extracted``."""
    spec = _spec(memory_type)
    attribute, fact = _fact_checked(spec, fact)
    return _propose(identity=identity, patient_id=patient_id, spec=spec, attribute=attribute, fact=fact,
                    consent_purpose=consent_purpose, consent_record_id=consent_record_id, source_ref=source_ref,
                    confidence=confidence, valid_until=valid_until,
                    source=Source.AGENT_EXTRACTED if extracted else _proposal_source(identity, spec, patient_id))


def _proposal_source(identity: Identity, spec: TypeSpec, patient_id: uuid.UUID) -> str:
    """The provenance of a proposal by its proposer: an agent extracts; the patient in person states (a type
    they may write); anyone else is staff (a type staff write). As :func:`_writer_source` decides for a record."""
    if identity.is_agent:
        return Source.AGENT_EXTRACTED
    if identity.patient_self_id is not None:
        if not identity.is_patient_themself(patient_id):  # another patient's: as the access check answers
            raise NoConsentOrAccess()
        if "patient" not in spec.writers:
            raise Forbidden(f"{spec.name} is recorded by staff or imported from the EHR", code="staff_only")
        return Source.PATIENT_STATED
    if "staff" not in spec.writers:
        raise Forbidden(f"{spec.name} is only proposed by agents or stated by the patient", code="staff_only")
    return Source.STAFF_ENTERED


def _propose(*, identity: Identity, patient_id: uuid.UUID, spec: TypeSpec, attribute: str, fact: dict,
             consent_purpose: str, consent_record_id: uuid.UUID, source_ref: str, confidence: float,
             valid_until: datetime | None, source: str) -> tuple[Memory, bool]:
    if "agent_proposal" not in spec.writers:
        raise Forbidden(f"{spec.name} is never proposed from a conversation", code="staff_only")
    new = NewFact(memory_type=spec.name, attribute=attribute, fact=fact, consent_purpose=consent_purpose,
                  valid_until=valid_until, confidence=confidence)
    _check_new_fact(spec, new)
    if not source_ref:
        raise ValidationFailed.of("source_ref", "a proposal points at the turn it came from", "required")
    if not may_access(patient_id=patient_id, purpose=consent_purpose):
        raise NoConsentOrAccess()
    consent = _active_consent(identity, patient_id, consent_purpose, consent_record_id)
    # in memory_record's order (consent, erasure, attribute, type), so that neither waits for the other's second lock
    erasure_hold(identity, patient_id, shared=True)
    _attribute_lock(identity.org_id, patient_id, spec.name, attribute, consent_purpose)
    _hold_type(identity, spec, new)
    pending = memory_proposal_waiting(identity=identity, patient_id=patient_id, new=new, source=source,
                                consent_record_id=consent)
    if pending is not None and memory_current_since(pending.created_at, list(Memory.objects.raw(
            *_current_of_attribute_statement(org_id=identity.org_id, patient_id=patient_id,
                                             memory_type=spec.name, attribute=attribute,
                                             purpose=consent_purpose))), timezone.now()) is not None:
        pending = None  # made against a value since replaced, it cannot be confirmed: this one is a new proposal
    if pending is not None:
        if new.valid_until is not None and new.valid_until != pending.valid_until:
            raise Conflict(f"the same value is already proposed ({pending.memory_id}) with another validity; it is "
                           "confirmed or rejected first", code="proposal_pending").about(
                patient_id=patient_id, purpose=consent_purpose)
        return pending, False
    _refuse_over_pending_limit(identity, patient_id, consent_purpose)
    memory = _insert(identity=identity, patient_id=patient_id, spec=spec, new=new, state=S.PROPOSED,
                     source=source, source_ref=source_ref, consent_record_id=consent,
                     memory_id=uuid.uuid4(), audit_actions=["memory.propose"])
    event_emit("memory.proposed", memory_id=memory.memory_id, patient_id=patient_id, memory_type=spec.name,
               purpose=consent_purpose)
    return memory, True


MAX_PENDING_PROPOSALS_PER_PROPOSER = 50


def _refuse_over_pending_limit(identity: Identity, patient_id: uuid.UUID, purpose: str) -> None:
    """409 ``too_many_proposals`` once this proposer (an agent, or a person) has
    :data:`MAX_PENDING_PROPOSALS_PER_PROPOSER` proposals waiting for review for this patient: the patient and staff
    review them first (confirm or reject), or they lapse. Counted under the proposer's lock for the patient (taken
    after every other lock of a proposal), so proposals at once of different attributes do not pass it together."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_advisory_xact_lock(hashtextextended(%s, 0))",
                       [f"proposer:{identity.org_id}:{patient_id}:{identity.actor_sub}:{identity.agent_client_id}"])
    now = timezone.now()
    mine = (Memory.objects.for_patient(identity.org_id, patient_id).pending_proposals(now)
            .filter(created_by=identity.actor_sub, agent_client_id=identity.agent_client_id))
    waiting = mine.count()
    if waiting >= MAX_PENDING_PROPOSALS_PER_PROPOSER:
        # one made before its attribute's current value became current can only be rejected: it waits for nobody
        # and holds no place (else an agent whose proposals the patient overtook would be refused for good)
        waiting -= len(memory_proposals_stale(identity=identity, patient_id=patient_id, proposals=list(mine),
                                              now=now))
    if waiting >= MAX_PENDING_PROPOSALS_PER_PROPOSER:
        raise Conflict(f"{waiting} proposals of yours for this patient are waiting for review; more are taken once "
                       "some are confirmed or rejected", code="too_many_proposals").about(
            patient_id=patient_id, purpose=purpose)
