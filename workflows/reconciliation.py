"""What staff do with the reconciliation queue's items (operations whose outcome is unknown), after checking with
the outside system: give one a new budget of attempts (``operation_retry``), or record what they learnt
(``operation_resolve``). Staff only; each locks the workflow first, as every write of the outbox does
(:mod:`workflows.services`)."""

from __future__ import annotations

import uuid

from django.conf import settings
from django.utils import timezone

from core.errors import Forbidden, NotFound
from core.identity import Identity
from workflows.definitions import OPERATION_KINDS, WORKFLOW_TYPES
from workflows.models import Operation, OperationStatus, Workflow
from workflows.services import (
    OperationNotResolvable,
    OperationNotRetryable,
    _advance,
    _audit_operation,
    _conflict_about,
    _lock_workflow,
    _stale,
)

S = OperationStatus


def _operation_for_staff(*, identity: Identity, workflow_id: uuid.UUID, operation_id: uuid.UUID,
                         refusal: str) -> tuple[Workflow, Operation]:
    """The workflow and its operation, locked, for staff only (404 for one the caller cannot see)."""
    workflow = _lock_workflow(identity=identity, workflow_id=workflow_id)
    operation = Operation.objects.select_for_update().filter(pk=operation_id, workflow=workflow).first()
    if operation is None:
        raise NotFound()
    if identity.patient_self_id is not None or identity.is_agent:
        raise Forbidden(refusal, code="staff_only")
    return workflow, operation


def operation_retry(*, identity: Identity, workflow_id: uuid.UUID, operation_id: uuid.UUID) -> Operation:
    """Give an operation whose retries ran out with an unknown outcome a new budget. Its key and payload stay: the
    next attempt asks the outside system first, and resubmits with the same key only if the key is unknown there.
    (An operation that provably never arrived is ``failed`` instead, and is asked for again as a new one.)"""
    # Its next safe action is a person checking with the outside system (staff_reconciliation); a new budget on
    # anyone else's word would only repeat what already could not be settled. Refused whatever the operation's
    # status: retrying is never theirs, now or once it is parked.
    workflow, operation = _operation_for_staff(identity=identity, workflow_id=workflow_id, operation_id=operation_id,
                                               refusal="a parked operation is retried by staff, after checking "
                                               "with the outside system")
    if not (operation.status == S.OUTCOME_UNKNOWN and operation.next_attempt_at is None):
        raise _conflict_about(OperationNotRetryable(f"the operation is {operation.status}"), workflow)
    now = timezone.now()
    Operation.objects.filter(pk=operation.pk).update(
        attempt_limit=operation.attempts + settings.WORKFLOW_OPERATION_MAX_ATTEMPTS, next_attempt_at=now,
        updated_at=now)
    operation.refresh_from_db()
    _audit_operation(operation, action="workflow.operation.retry", outcome="success")
    return operation


# what staff learnt from the outside system, and the operation's last_error_code (or None) once it is recorded
RESOLUTIONS = {"sent": "staff_confirmed_sent", "not_sent": "staff_confirmed_not_sent"}


def operation_resolve(*, identity: Identity, workflow_id: uuid.UUID, operation_id: uuid.UUID, expected_version: int,
                      outcome: str, external_id: str | None = None) -> tuple[Operation, bool]:
    """Staff record what they learnt from the outside system about an operation whose outcome is unknown (the
    reconciliation queue's item): ``sent`` with the outside system's id (the operation succeeded, and the workflow
    moves as a confirmed result moves it), or ``not_sent`` (it failed: a workflow waiting in ``on_unknown`` goes
    back to the step that may ask again, with a new key). The worker never attempts it again. Checked against the
    workflow's version; the same resolution again answers the operation as it is (returns (operation, False));
    another one of a settled operation is ``operation_not_resolvable``. Audited ``workflow.operation.resolve``."""
    workflow, op = _operation_for_staff(identity=identity, workflow_id=workflow_id, operation_id=operation_id,
                                        refusal="an unknown outcome is resolved by staff, after checking with the "
                                        "outside system")
    kind = OPERATION_KINDS[op.kind]
    sent = outcome == "sent"
    if sent and op.status == S.SUCCEEDED and (op.result or {}).get(kind.result_field) == external_id:
        return op, False
    if not sent and op.status == S.FAILED and op.last_error_code == RESOLUTIONS["not_sent"]:
        return op, False
    if op.status != S.OUTCOME_UNKNOWN:
        raise _conflict_about(OperationNotResolvable(f"the operation is {op.status}"), workflow)
    if workflow.version != expected_version:
        raise _stale(workflow)
    now = timezone.now()
    fields: dict = {"outcome_uncertain": False, "completed_at": now, "next_attempt_at": None, "updated_at": now,
                    "claimed_by": None, "claimed_until": None}
    spec = WORKFLOW_TYPES[workflow.workflow_type]
    target: str | None
    if sent:
        fields.update(status=S.SUCCEEDED, result={kind.result_field: external_id}, last_error_code=None)
        target, patch = kind.on_success, {kind.result_field: external_id}
    else:
        fields.update(status=S.FAILED, last_error_code=RESOLUTIONS["not_sent"])
        target = kind.on_failure if workflow.current_step == kind.on_unknown else None
        patch = None
    Operation.objects.filter(pk=op.pk).update(**fields)
    for name, value in fields.items():
        setattr(op, name, value)
    _audit_operation(op, action="workflow.operation.resolve", outcome="success", reason=RESOLUTIONS[outcome])
    if target is not None and target != workflow.current_step and spec.allows(workflow.current_step, target):
        _advance(identity=identity, workflow=workflow, to_step=target, state_patch=patch, operation=op,
                 bounded=False)
    elif patch and not spec.is_terminal(workflow.current_step) and workflow.current_step == kind.on_success:
        _advance(identity=identity, workflow=workflow, to_step=workflow.current_step, state_patch=patch,
                 operation=op, bounded=False)
    return op, True
