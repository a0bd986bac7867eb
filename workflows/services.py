"""Workflow writes: creation, checkpoints, operation requests (the transactional outbox) and the recording of an
operation's outcome. Each change is versioned, recorded in the transition history and audited.

Lock order, everywhere: the workflow row first, then its operations. What asks for a new operation locks the patient's
consents for the workflow's purpose before the workflow (FOR SHARE, as a withdrawal locks its consent, FOR UPDATE,
before the workflows it withdraws operations of), so the two serialise: an operation is never asked for under a
consent whose withdrawal misses it. Checkpoints, requests, retries and the worker's
recording all take the workflow lock, so they serialise per workflow and never deadlock with each other.
"""

from __future__ import annotations

import hashlib
import json
import random
import uuid
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from django.conf import settings
from django.db import IntegrityError, connection, transaction
from django.db.models import Subquery
from django.utils import timezone
from psycopg.types.json import Jsonb

from consent.access import may_access
from consent.purpose import require_purpose
from consent.selectors import consent_in_force, consent_lapse, consents_hold
from core import audit
from core.errors import (
    ApiError,
    ConcurrentUpdate,
    Conflict,
    Forbidden,
    IdempotencyKeyReused,
    IllegalTransition,
    NoConsentOrAccess,
    ValidationFailed,
    VersionConflict,
)
from core.idempotency import canonical_json
from core.identity import Identity, commit_with_next_statement
from core.services import organization_ensure
from events.services import event_emit
from memory.erasure import erasure_hold
from workflows import selectors
from workflows.adapters import CONFIRMED, NOT_FOUND, REFUSED, UNKNOWN, Outcome
from workflows.definitions import (
    CANCELLED,
    NEEDS_RECONCILIATION,
    OPERATION_KINDS,
    WORKFLOW_TYPES,
    OperationKind,
    checkpoint_steps,
)
from workflows.models import ACTIVE_OPERATION_STATUSES, Operation, OperationStatus, Workflow, WorkflowTransition

MAX_STATE_KEYS = 200
S = OperationStatus


class OperationInProgress(Conflict):
    code = "operation_in_progress"
    title = "An earlier operation of this kind has not settled; wait for it (see next_safe_action)"


class OperationNotAllowed(Conflict):
    code = "operation_not_allowed"
    title = "That operation cannot be requested at the workflow's current step"


class OperationNotRetryable(Conflict):
    code = "operation_not_retryable"
    title = "Only an operation whose retries ran out with an unknown outcome can be retried"


class OperationNotResolvable(Conflict):
    code = "operation_not_resolvable"
    title = "Only an operation whose outcome is unknown can be resolved (and one resolved is resolved once)"


@dataclass(frozen=True)
class OperationRequest:
    kind: str
    payload: dict


def payload_hash(payload: dict) -> str:
    """sha256 of the canonical JSON (sorted keys, no whitespace, UTF-8): the same data always hashes the same."""
    return hashlib.sha256(canonical_json(payload)).hexdigest()


def new_idempotency_key(operation_id: uuid.UUID) -> str:
    """Generated here, never by the client: opaque, unique across organisations, free of patient data."""
    return f"anamnesis-{operation_id}"


def retry_delay(attempts: int) -> float:
    """Exponential backoff with jitter: half the capped exponential delay, plus up to the other half at random,
    so workers that failed together do not retry together."""
    delay = min(settings.WORKFLOW_RETRY_MAX_SECONDS, settings.WORKFLOW_RETRY_BASE_SECONDS * 2 ** max(attempts - 1, 0))
    return delay / 2 + random.uniform(0, delay / 2)  # noqa: S311 (jitter, not a secret)


# --- workflows ----------------------------------------------------------------------------------------------
def _lock_workflow(*, identity: Identity, workflow_id: uuid.UUID) -> Workflow:
    """The workflow row, locked until the transaction ends, with ``has_operations`` set (see the model)."""
    return selectors.workflow_get(identity=identity, workflow_id=workflow_id, for_update=True)


def _hold_consent(*, identity: Identity, workflow_id: uuid.UUID) -> None:
    """Before the workflow's lock, when a new operation may be asked for: the consents it is asked under, locked
    (:func:`consent.selectors.consents_hold`). A staff request committing while the patient withdrew that consent
    used to slip past both the withdrawal (which did not see it yet) and the worker's check at the send (it was
    asked for after the withdrawal's moment). The patient in person is never refused, so holds nothing. Then the
    patient's erasure lock, shared (:func:`memory.erasure.erasure_hold`): a request committing while the patient's
    erase-all ran, after it had withdrawn the operations it saw, used to queue one that it missed."""
    scope = Workflow.objects.filter(pk=workflow_id, organization_id=identity.org_id).values_list(
        "patient_id", "purpose").first()
    if scope is not None and not identity.is_patient_themself(scope[0]):
        consents_hold(identity=identity, patient_id=scope[0], purpose=scope[1])
    if scope is not None:
        erasure_hold(identity, scope[0], shared=True)


def _record_transition(*, identity: Identity, workflow: Workflow, from_step: str | None,
                       operation: Operation | None = None) -> None:
    WorkflowTransition.objects.create(
        workflow=workflow, organization_id=workflow.organization_id, patient_id=workflow.patient_id,
        purpose=workflow.purpose, from_step=from_step, to_step=workflow.current_step, version=workflow.version,
        actor_sub=identity.actor_sub, agent_client_id=identity.agent_client_id, operation=operation)


# The new version, its history row and its audit row in one statement (every caller holds the row lock).
_ADVANCE_SQL = (
    "WITH next AS (UPDATE agent_workflow SET current_step = %s, state = %s, version = version + 1, updated_at = %s "
    "WHERE workflow_id = %s AND organization_id = %s RETURNING version), "
    "history AS (INSERT INTO agent_workflow_transition (workflow_id, organization_id, patient_id, purpose, "
    "from_step, to_step, version, actor_sub, agent_client_id, occurred_at, operation_id) "
    "SELECT %s, %s, %s, %s, %s, %s, next.version, %s, %s, %s, %s FROM next), "
    "audit_row AS ({audit}) SELECT version FROM next")


def _advance(*, identity: Identity, workflow: Workflow, to_step: str, state_patch: dict | None = None,
             operation: Operation | None = None, bounded: bool = True, last_statement: bool = False) -> Workflow:
    """Write one new version of a locked workflow (to_step may equal the current step), with its history row.
    ``bounded=False`` is for an outside system's id, which is recorded even into a full state. ``last_statement``:
    nothing follows in the transaction, so the new version's statement may carry the COMMIT."""
    merged = {**workflow.state, **(state_patch or {})}
    if bounded and len(merged) > MAX_STATE_KEYS:
        raise ValidationFailed(errors=[{"field": "state_patch", "message": "the workflow state is full",
                                        "code": "state_too_large"}])
    from_step, now = workflow.current_step, timezone.now()
    audit_sql, audit_params = audit.insert_statement(
        action="workflow.checkpoint", resource_type="workflow", resource_id=workflow.workflow_id,
        patient_id=workflow.patient_id, purpose=workflow.purpose)
    if to_step == NEEDS_RECONCILIATION and from_step != to_step:
        # before the advance: its statement may carry the COMMIT (commit_with_next_statement)
        event_emit("workflow.needs_reconciliation", workflow_id=workflow.workflow_id, patient_id=workflow.patient_id,
                   workflow_type=workflow.workflow_type, purpose=workflow.purpose,
                   operation_id=operation.operation_id if operation is not None else None)
    if last_statement:
        commit_with_next_statement()  # after the event's statement, which must commit with the version
    with connection.cursor() as cursor:
        params: list[Any] = [
            to_step, Jsonb(merged), now, workflow.workflow_id, workflow.organization_id,
            workflow.workflow_id, workflow.organization_id, workflow.patient_id, workflow.purpose, from_step,
            to_step, identity.actor_sub, identity.agent_client_id, now,
            operation.operation_id if operation is not None else None, *audit_params]
        cursor.execute(_ADVANCE_SQL.format(audit=audit_sql), params)
        (version,) = cursor.fetchone()
    workflow.current_step, workflow.state, workflow.version, workflow.updated_at = to_step, merged, version, now
    return workflow


def _conflict_about(exc: Conflict, workflow: Workflow) -> ApiError:
    return exc.about(patient_id=workflow.patient_id, purpose=workflow.purpose)


def _stale(workflow: Workflow) -> ApiError:
    """409 ``version_conflict``, with the version the client should read again as ``current_version``."""
    exc = VersionConflict(f"current version is {workflow.version}")
    exc.extensions = {"current_version": workflow.version}
    return _conflict_about(exc, workflow)


def _refused_move(exc: Conflict, workflow: Workflow, allowed: list[str] | None = None) -> ApiError:
    """409 ``illegal_transition`` or ``operation_not_allowed``, naming the step the workflow is at as
    ``current_step`` and, for a move, the steps a checkpoint may take from it as ``allowed_next_steps``: an agent
    reads them, not the message's prose."""
    exc.extensions = {"current_step": workflow.current_step}
    if allowed is not None:
        exc.extensions["allowed_next_steps"] = allowed
    return _conflict_about(exc, workflow)


def workflow_create(*, identity: Identity, workflow_type: str, patient_id: uuid.UUID,
                    state: dict | None = None) -> Workflow:
    spec = WORKFLOW_TYPES.get(workflow_type)
    if spec is None:
        raise ValidationFailed(errors=[{"field": "workflow_type", "message": f"one of {sorted(WORKFLOW_TYPES)}",
                                        "code": "invalid_choice"}])
    if not may_access(patient_id=patient_id, purpose=spec.purpose):
        raise NoConsentOrAccess()
    if identity.is_agent:  # only under the patient's consent for the purpose, as its every later step
        require_purpose(identity, patient_id=patient_id, purpose=spec.purpose)
    # an erase-all of the patient's running meanwhile, past the workflows it saw, named this one nowhere
    erasure_hold(identity, patient_id, shared=True)
    organization_ensure(identity=identity)
    workflow = Workflow.objects.create(
        organization_id=identity.org_id, patient_id=patient_id, workflow_type=workflow_type, purpose=spec.purpose,
        current_step=spec.initial_step, state=state or {}, version=1, created_by=identity.actor_sub,
        agent_client_id=identity.agent_client_id)
    _record_transition(identity=identity, workflow=workflow, from_step=None)
    audit.record(action="workflow.create", resource_type="workflow", resource_id=workflow.workflow_id,
                 patient_id=patient_id, purpose=spec.purpose)
    return workflow


def workflow_checkpoint(*, identity: Identity, workflow_id: uuid.UUID, expected_version: int, next_step: str,
                        state_patch: dict, request_operation: OperationRequest | None = None) -> Workflow:
    """Move a workflow one legal step, merging a bounded state patch, and optionally ask for an operation in the
    same transaction (the transactional outbox): either both are stored or neither.

    The row is locked, so concurrent writers serialise: the first with the current version wins, the others get
    ``version_conflict``. The transition table, not the client, decides which steps are legal. While an operation
    is unsettled, the operation owns the next move (only ``cancelled`` is still accepted), so a client can never
    advance past an outcome nobody knows yet.
    """
    if request_operation is not None:
        _hold_consent(identity=identity, workflow_id=workflow_id)
    workflow = _lock_workflow(identity=identity, workflow_id=workflow_id)
    if workflow.version != expected_version:
        raise _stale(workflow)
    spec = WORKFLOW_TYPES[workflow.workflow_type]
    if not spec.allows(workflow.current_step, next_step):
        allowed = _checkpoint_steps(workflow)
        raise _refused_move(IllegalTransition(
            f"{workflow.current_step} -> {next_step} is not allowed; allowed: {', '.join(allowed) or 'none'}"),
            workflow, allowed)
    _withdraw_lapsed(identity=identity, workflow=workflow)
    active = [] if not workflow.has_operations else list(
        Operation.objects.select_for_update().filter(workflow=workflow, status__in=ACTIVE_OPERATION_STATUSES)
        .order_by("created_at"))
    if active and next_step != CANCELLED:
        raise _conflict_about(OperationInProgress(f"operation {active[0].operation_id} is {active[0].status}"),
                              workflow)
    if workflow.has_operations or request_operation is not None:
        _refuse_what_operations_decide(workflow, next_step=next_step, state_patch=state_patch,
                                       requested=request_operation.kind if request_operation else None)
    kind = _operation_kind_for(workflow, request_operation.kind, at_step=next_step) if request_operation else None
    operation = None
    if kind is not None and request_operation is not None:
        state_patch = _clearing_an_id_no_operation_recorded(workflow, kind, state_patch)
        operation = _insert_operation(identity=identity, workflow=workflow, kind=kind,
                                      payload=request_operation.payload, request_key=None,
                                      at_version=workflow.version + 1)
    # the new version is then the checkpoint's last statement (and its answer's)
    last = operation is None and next_step != CANCELLED and workflow.has_operations is False
    workflow = _advance(identity=identity, workflow=workflow, to_step=next_step, state_patch=state_patch,
                        operation=operation, last_statement=last)
    if next_step == CANCELLED:
        _cancel_unsent(identity=identity, workflow=workflow, operations=active)
    return workflow


def _refuse_what_operations_decide(workflow: Workflow, *, next_step: str, state_patch: dict,
                                   requested: str | None) -> None:
    """Once a workflow has sent an operation of a kind (or asks for one in this checkpoint), that kind's outcome is
    the outside system's to report: a checkpoint cannot move into the steps its outcome leads to (``on_success``,
    ``on_unknown``), nor write the outside system's id (``result_field``) that its success records. A workflow that
    never used the outbox keeps the plain transition table (a client that talks to the outside system itself
    checkpoints what it learnt)."""
    used = _kinds_used(workflow)
    allowed = checkpoint_steps(workflow.workflow_type, workflow.current_step, used)
    if next_step not in allowed and WORKFLOW_TYPES[workflow.workflow_type].allows(workflow.current_step, next_step):
        raise _refused_move(IllegalTransition(
            f"{next_step} follows from the outcome of an operation, which the service records; "
            f"allowed: {', '.join(allowed) or 'none'}"), workflow, allowed)
    for name in sorted(used | ({requested} if requested in OPERATION_KINDS else set())):
        kind = OPERATION_KINDS[name]
        if kind.result_field in state_patch:
            clearing = state_patch[kind.result_field] is None and not _succeeded(workflow, kind.name)
            if not clearing:  # a value the client wrote before it used the outbox may still be cleared
                raise ValidationFailed(errors=[{
                    "field": f"state_patch.{kind.result_field}", "code": "server_owned",
                    "message": f"recorded from the outcome of {kind.name}, never by a checkpoint"}])


def _kinds_used(workflow: Workflow) -> set[str]:
    return set(Operation.objects.filter(workflow=workflow).values_list("kind", flat=True).distinct()
               ) if workflow.has_operations else set()


def _checkpoint_steps(workflow: Workflow) -> list[str]:
    """What a checkpoint may move to now: what the workflow's read answers as ``allowed_next_steps``."""
    return checkpoint_steps(workflow.workflow_type, workflow.current_step, _kinds_used(workflow))


def _succeeded(workflow: Workflow, kind: str) -> bool:
    return workflow.has_operations is not False and Operation.objects.filter(
        workflow=workflow, kind=kind, status=S.SUCCEEDED).exists()


def _clearing_an_id_no_operation_recorded(workflow: Workflow, kind: OperationKind, state_patch: dict) -> dict:
    """The state patch of a version that asks for an operation: an id its success records, written by the client
    before it used the outbox, is cleared in the same version. From now on the outside system's answer writes it
    (or nothing does, if it refuses): a stale id would otherwise stand whatever the outcome, and a checkpoint may
    no longer change it."""
    state = {**(workflow.state or {}), **state_patch}
    if state.get(kind.result_field) is not None and not _succeeded(workflow, kind.name):
        return {**state_patch, kind.result_field: None}
    return state_patch


def _cancel_unsent(*, identity: Identity, workflow: Workflow, operations: list[Operation]) -> None:
    """Withdraw operations that provably never reached the outside system. Those that may have (in flight, or with
    an unknown outcome) stay: the worker settles them, and their result is kept on the operation."""
    now = timezone.now()
    for op in operations:
        if op.status == S.PENDING and not op.outcome_uncertain:
            Operation.objects.filter(pk=op.pk, status=S.PENDING).update(
                status=S.CANCELLED, next_attempt_at=None, completed_at=now, last_error_code="workflow_cancelled",
                updated_at=now)
            _audit_operation(op, action="workflow.operation.cancel", outcome="success", reason="workflow_cancelled")


# --- operations (the outbox) --------------------------------------------------------------------------------
def _operation_kind_for(workflow: Workflow, kind_name: str, *, at_step: str) -> OperationKind:
    kind = OPERATION_KINDS.get(kind_name)
    if kind is None or kind.workflow_type != workflow.workflow_type:
        allowed = sorted(k for k, v in OPERATION_KINDS.items() if v.workflow_type == workflow.workflow_type)
        raise ValidationFailed(errors=[{"field": "kind", "message": f"one of {allowed}", "code": "invalid_choice"}])
    if at_step not in kind.requested_at:
        raise _refused_move(OperationNotAllowed(
            f"{kind.name} may be requested at: {', '.join(sorted(kind.requested_at))}, not at {at_step}"), workflow)
    return kind


def _withdraw_lapsed(*, identity: Identity, workflow: Workflow) -> int:
    """Under the workflow's lock, before a request or a checkpoint looks at what is unsettled: what was asked for
    under a consent that was withdrawn or ran out since is withdrawn now, as the worker withdraws it at the send
    (:mod:`workflows.withdrawal`) and as the reads already show it (``selectors.operations_as_now``). Waiting for
    the worker, it used to stand in for the next request: the same request again was answered with it (200, never
    to be sent), another refused ``operation_in_progress``. One being sent (``in_flight``) is the worker's."""
    if not workflow.has_operations:
        return 0
    waiting = list(Operation.objects.select_for_update().filter(
        workflow=workflow, status__in=[S.PENDING, S.OUTCOME_UNKNOWN], withdrawn_reason__isnull=True)
        .order_by("created_at"))
    now = timezone.now()
    lapsed = selectors.operations_lapsed(identity=identity, workflow=workflow, operations=waiting)
    for op, lapse in lapsed:
        if op.status == S.PENDING and not op.outcome_uncertain:
            Operation.objects.filter(pk=op.pk).update(status=S.CANCELLED, next_attempt_at=None, completed_at=now,
                                                      last_error_code=lapse, updated_at=now)
            _audit_operation(op, action="workflow.operation.cancel", outcome="success", reason=lapse)
        else:
            Operation.objects.filter(pk=op.pk).update(withdrawn_reason=lapse, updated_at=now)
            _audit_operation(op, action="workflow.operation.withdraw", outcome="success", reason=lapse)
    return len(lapsed)


def _refuse_without_consent(identity: Identity, workflow: Workflow) -> None:
    """Nothing new is sent for a patient who withdrew the consent for the workflow's purpose, or whose consent for it
    ran out (403 ``consent_revoked`` / ``consent_expired``): a withdrawal withdraws the queued operations, and staff
    holding a grant could queue the next one the moment after. Nor for one who never gave it (403
    ``no_active_consent_or_access``). The patient in person decides for themself."""
    if identity.is_patient_themself(workflow.patient_id):
        return
    lapsed = consent_lapse(identity=identity, patient_id=workflow.patient_id, purpose=workflow.purpose)
    if lapsed is not None:
        what = "withdrew the consent" if lapsed == "consent_revoked" else "let the consent run out"
        raise Forbidden(f"the patient {what} for {workflow.purpose}: nothing new is sent for it until a consent "
                        "is in force again", code=lapsed).about(patient_id=workflow.patient_id,
                                                                purpose=workflow.purpose)
    # Never given (not withdrawn, not run out): staff holding a grant used to queue it all the same
    if not consent_in_force(identity=identity, patient_id=workflow.patient_id, purpose=workflow.purpose):
        raise NoConsentOrAccess(f"the patient has given no consent for {workflow.purpose}: nothing is sent for it "
                                "until one is in force").about(patient_id=workflow.patient_id,
                                                               purpose=workflow.purpose)


def _insert_operation(*, identity: Identity, workflow: Workflow, kind: OperationKind, payload: dict,
                      request_key: str | None, at_version: int) -> Operation:
    _refuse_without_consent(identity, workflow)
    operation_id = uuid.uuid4()
    try:
        with transaction.atomic():
            operation = Operation.objects.create(
                operation_id=operation_id, organization_id=workflow.organization_id, patient_id=workflow.patient_id,
                purpose=workflow.purpose, workflow=workflow, kind=kind.name, system=kind.system,
                idempotency_key=new_idempotency_key(operation_id), request_key=request_key, payload=payload,
                payload_hash=payload_hash(payload), status=S.PENDING, attempts=0,
                attempt_limit=settings.WORKFLOW_OPERATION_MAX_ATTEMPTS, next_attempt_at=timezone.now(),
                requested_by=identity.actor_sub, requested_by_kind=identity.actor_kind,
                requested_at_version=at_version)
        workflow.has_operations = True
    except IntegrityError:
        # The unique constraints (one per payload, one unsettled per kind) caught what the checks above could not
        # see; they bypass RLS, so the answer says no more than "conflict".
        raise _conflict_about(ConcurrentUpdate(), workflow) from None
    _audit_operation(operation, action="workflow.operation.request", outcome="success")
    return operation


def operation_request(*, identity: Identity, workflow_id: uuid.UUID, expected_version: int, kind: str,
                      payload: dict, request_key: str | None = None) -> tuple[Operation, bool]:
    """Ask for an operation at the workflow's current step; returns (operation, created).

    Idempotent: the same request again (same kind and payload, or the same ``request_key``) returns the operation
    it created, whatever the workflow's version is by now, so a duplicate never creates a second one. A
    ``request_key`` used before with other data is refused (``idempotency_key_reused``); changed data while an
    earlier operation of the kind is unsettled is refused (``operation_in_progress``). A new operation gets a new
    key. Creating one writes a new workflow version (same step) whose history row names it.
    """
    _hold_consent(identity=identity, workflow_id=workflow_id)
    workflow = _lock_workflow(identity=identity, workflow_id=workflow_id)
    _withdraw_lapsed(identity=identity, workflow=workflow)
    digest = payload_hash(payload)
    same = Operation.objects.filter(workflow=workflow)
    if request_key is not None:
        earlier = same.filter(request_key=request_key).first()
        if earlier is not None:
            if earlier.kind == kind and earlier.payload_hash == digest:
                return _replayed(earlier)
            raise _conflict_about(IdempotencyKeyReused(), workflow)
    earlier = same.filter(kind=kind, payload_hash=digest).exclude(status__in=[S.FAILED, S.CANCELLED]).first()
    if earlier is not None:
        return _replayed(earlier)
    if workflow.version != expected_version:
        raise _stale(workflow)
    unsettled = same.filter(kind=kind, status__in=ACTIVE_OPERATION_STATUSES).first()
    if unsettled is not None:
        raise _conflict_about(OperationInProgress(f"operation {unsettled.operation_id} is {unsettled.status}"),
                              workflow)
    spec = _operation_kind_for(workflow, kind, at_step=workflow.current_step)
    operation = _insert_operation(identity=identity, workflow=workflow, kind=spec, payload=payload,
                                  request_key=request_key, at_version=workflow.version + 1)
    _advance(identity=identity, workflow=workflow, to_step=workflow.current_step, operation=operation,
             state_patch=_clearing_an_id_no_operation_recorded(workflow, spec, {}))
    return operation, True


def _replayed(operation: Operation) -> tuple[Operation, bool]:
    _audit_operation(operation, action="workflow.operation.request", outcome="success", reason="replayed")
    return operation, False


def _audit_operation(op: Operation, *, action: str, outcome: str, reason: str | None = None) -> None:
    audit.record(action=action, resource_type="workflow_operation", resource_id=op.operation_id,
                 patient_id=op.patient_id, purpose=op.purpose, outcome=outcome, reason=reason)


# --- the worker's side: recording what an attempt proved -------------------------------------------------------
@dataclass(frozen=True)
class Recorded:
    operation_id: uuid.UUID
    status: str
    workflow_step: str
    workflow_version: int


def operation_record_outcome(*, identity: Identity, operation_id: uuid.UUID, claimed_by: str, outcome: Outcome,
                             now: datetime | None = None) -> Recorded | None:
    """Record one attempt's outcome, and move the workflow as the operation kind declares. Runs in the service
    identity of the operation's patient and purpose. Returns None when this claim is no longer ours (the lease
    ended and another worker took the operation over): the attempt then changes nothing here, and the other
    worker's lookup finds whatever this one achieved.

    * confirmed: succeeded; the workflow moves to ``on_success`` with the outside id in its state.
    * refused: failed (definitive); a workflow waiting in ``on_unknown`` goes back to ``on_failure``.
    * unknown: outcome_unknown; the workflow moves to ``on_unknown``; the next attempt looks the key up first.
    * not_sent, or a failed lookup: nothing new is known; retried with backoff.
    When the attempts run out, an operation that may have arrived is parked (never forgotten: still
    outcome_unknown, listed for staff, retried by operation_retry), and one that provably never arrived fails.
    """
    now = now or timezone.now()
    workflow = (Workflow.objects.select_for_update()
                .filter(pk=Subquery(Operation.objects.filter(pk=operation_id).values("workflow_id")[:1])).first())
    op = Operation.objects.select_for_update().filter(pk=operation_id).first() if workflow is not None else None
    if workflow is None or op is None or op.status != S.IN_FLIGHT or op.claimed_by != claimed_by:
        return None
    kind = OPERATION_KINDS[op.kind]
    spec = WORKFLOW_TYPES[workflow.workflow_type]
    fields: dict = {"claimed_by": None, "claimed_until": None, "updated_at": now}
    reason: str | None
    target: str | None
    if outcome.kind == CONFIRMED:
        fields.update(status=S.SUCCEEDED, outcome_uncertain=False, result=outcome.result, completed_at=now,
                      next_attempt_at=None, last_error_code=None)
        assert outcome.result is not None, "a confirmed outcome carries its result"
        audit_outcome, reason, target = "success", outcome.code, kind.on_success
        patch = {kind.result_field: outcome.result[kind.result_field]}
    elif outcome.kind == NOT_FOUND:  # only for a withdrawn operation (its workflow cancelled, its consent
        # withdrawn, its patient erased): it provably never arrived (failed, as any operation that provably never
        # arrived), and it is not sent now
        code = op.withdrawn_reason or "workflow_cancelled"
        fields.update(status=S.FAILED, outcome_uncertain=False, completed_at=now, next_attempt_at=None,
                      last_error_code=code)
        audit_outcome, reason, patch, target = "success", code, None, None
    elif outcome.kind == REFUSED:
        fields.update(status=S.FAILED, outcome_uncertain=False, completed_at=now, next_attempt_at=None,
                      last_error_code=outcome.code)
        audit_outcome, reason, patch = "error", outcome.code, None
        target = kind.on_failure if workflow.current_step == kind.on_unknown else None
    else:  # nothing settled: unknown, not sent, or the lookup failed
        uncertain = op.outcome_uncertain or outcome.kind == UNKNOWN
        exhausted = op.attempts >= op.attempt_limit
        retry_at = None if exhausted else now + timedelta(seconds=retry_delay(op.attempts))
        audit_outcome, reason, patch, target = "error", outcome.code, None, None
        fields.update(last_error_code=outcome.code, outcome_uncertain=uncertain, next_attempt_at=retry_at)
        if uncertain:  # parked when exhausted: next_attempt_at NULL, still outcome_unknown, listed for staff
            fields.update(status=S.OUTCOME_UNKNOWN)
            target = kind.on_unknown if workflow.current_step in kind.requested_at else None
            reason = "retries_exhausted_outcome_unknown" if exhausted else reason
            if exhausted and spec.is_terminal(workflow.current_step):
                # a cancelled workflow joins the staff's queue here, not by a move into needs_reconciliation:
                # announced all the same, so subscribers hear of every workflow a person must settle
                event_emit("workflow.needs_reconciliation", workflow_id=workflow.workflow_id,
                           patient_id=workflow.patient_id, workflow_type=workflow.workflow_type,
                           purpose=workflow.purpose, operation_id=op.operation_id)
        elif exhausted:
            fields.update(status=S.FAILED, completed_at=now, last_error_code="outside_system_unavailable")
            reason = "outside_system_unavailable"
        else:
            fields.update(status=S.PENDING)

    Operation.objects.filter(pk=op.pk).update(**fields)
    for name, value in fields.items():
        setattr(op, name, value)
    _audit_operation(op, action="workflow.operation.attempt", outcome=audit_outcome, reason=reason)
    if target is not None and target != workflow.current_step and spec.allows(workflow.current_step, target):
        workflow = _advance(identity=identity, workflow=workflow, to_step=target, state_patch=patch, operation=op,
                            bounded=False)
    elif patch and not spec.is_terminal(workflow.current_step) and workflow.current_step == kind.on_success:
        workflow = _advance(identity=identity, workflow=workflow, to_step=workflow.current_step, state_patch=patch,
                            operation=op, bounded=False)
    return Recorded(operation_id=op.operation_id, status=op.status, workflow_step=workflow.current_step,
                    workflow_version=workflow.version)


@dataclass(frozen=True)
class Dispatch:
    """What one attempt needs: read in the operation's service identity, right before the call."""

    operation_id: uuid.UUID
    kind: str
    system: str
    idempotency_key: str
    payload: dict
    attempts: int
    outcome_uncertain: bool
    withdrawn: bool = False  # its workflow cancelled, or withdrawn: settle what may have arrived, never submit


# One round trip: the attempt is counted and the lease renewed only while the claim is still this worker's.
_START_ATTEMPT_SQL = """
UPDATE workflow_operation
   SET attempts = attempts + 1, claimed_until = now() + make_interval(secs => %(lease)s),
       next_attempt_at = now() + make_interval(secs => %(lease)s), updated_at = now()
 WHERE operation_id = %(id)s AND status = 'in_flight' AND claimed_by = %(claimed_by)s
RETURNING kind, system, idempotency_key, payload, attempts, outcome_uncertain, withdrawn_reason,
          (SELECT w.current_step FROM agent_workflow w WHERE w.workflow_id = workflow_operation.workflow_id
              AND w.organization_id = workflow_operation.organization_id)
"""


def operation_start_attempt(*, operation_id: uuid.UUID, claimed_by: str, lease_seconds: float) -> Dispatch | None:
    """Count an attempt and renew the lease, if the claim is still ours (None otherwise: another worker took the
    operation over after our lease ended, and it is theirs now). Attempts are counted here, right before the call,
    so a claim given back unused (circuit open, shutdown) costs no attempt."""
    with connection.cursor() as cursor:
        cursor.execute(_START_ATTEMPT_SQL, {"lease": lease_seconds, "id": operation_id, "claimed_by": claimed_by})
        row = cursor.fetchone()
    if row is None:
        return None
    kind, system, key, payload, attempts, uncertain, withdrawn_reason, workflow_step = row
    return Dispatch(operation_id=operation_id, kind=kind, system=system, idempotency_key=key,
                    payload=json.loads(payload) if isinstance(payload, str) else payload, attempts=attempts,
                    outcome_uncertain=uncertain,
                    withdrawn=workflow_step == CANCELLED or withdrawn_reason is not None)


def operation_release_claim(*, operation_id: uuid.UUID, claimed_by: str, not_before: datetime) -> bool:
    """Give an unused claim back (no attempt was made under it): due again from ``not_before``."""
    op = Operation.objects.filter(pk=operation_id, status=S.IN_FLIGHT, claimed_by=claimed_by).first()
    if op is None:
        return False
    Operation.objects.filter(pk=operation_id, status=S.IN_FLIGHT, claimed_by=claimed_by).update(
        status=S.OUTCOME_UNKNOWN if op.outcome_uncertain else S.PENDING, claimed_by=None, claimed_until=None,
        next_attempt_at=not_before, updated_at=timezone.now())
    return True
