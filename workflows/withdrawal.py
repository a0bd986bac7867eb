"""Operations asked for under a consent that lapsed since: a withdrawal withdraws them in its own transaction
(:func:`workflows.services.operations_withdraw`), but a consent that runs out has no such moment, so the worker asks
here, right before it would send one. Lock order as in :mod:`workflows.services`: the workflow first."""

from __future__ import annotations

import uuid

from django.db.models import Subquery
from django.utils import timezone

from consent.selectors import consent_lapse
from core.identity import Identity
from workflows.models import Operation, OperationStatus, Workflow
from workflows.services import _audit_operation

S = OperationStatus


def operation_withdraw_if_consent_lapsed(*, identity: Identity, operation_id: uuid.UUID, claimed_by: str) -> bool:
    """Right before an attempt: an operation asked for under a consent that was withdrawn or ran out since (its
    ``valid_until``/``expires_at`` passed: nothing marks that moment, so it is asked here, at the send) is not sent.
    One that provably never left is cancelled, the lapse (``consent_expired``, ``consent_revoked``) as its code,
    audited, and True is returned: there is nothing to attempt. One that may have arrived is withdrawn as a
    withdrawal withdraws it (``withdrawn_reason``): the attempt only asks the outside system about it. Runs in the
    operation's service identity, on our claim only."""
    op = Operation.objects.filter(pk=operation_id, status=S.IN_FLIGHT, claimed_by=claimed_by,
                                  withdrawn_reason__isnull=True).only("patient_id", "purpose", "created_at").first()
    if op is None or consent_lapse(identity=identity, patient_id=op.patient_id, purpose=op.purpose,
                                   since=op.created_at) is None:
        return False
    # lapsed: lock as every outbox write does (the workflow first), and read the claim again under the lock
    Workflow.objects.select_for_update().filter(
        pk=Subquery(Operation.objects.filter(pk=operation_id).values("workflow_id")[:1])).first()
    op = Operation.objects.select_for_update().filter(pk=operation_id, status=S.IN_FLIGHT, claimed_by=claimed_by,
                                                      withdrawn_reason__isnull=True).first()
    lapsed = op and consent_lapse(identity=identity, patient_id=op.patient_id, purpose=op.purpose,
                                  since=op.created_at)
    if op is None or not lapsed:
        return False
    now = timezone.now()
    if not op.outcome_uncertain:  # claimed by us and never sent under an earlier claim: it provably never left
        Operation.objects.filter(pk=op.pk).update(
            status=S.CANCELLED, next_attempt_at=None, completed_at=now, last_error_code=lapsed, claimed_by=None,
            claimed_until=None, updated_at=now)
        _audit_operation(op, action="workflow.operation.cancel", outcome="success", reason=lapsed)
        return True
    Operation.objects.filter(pk=op.pk).update(withdrawn_reason=lapsed, updated_at=now)
    _audit_operation(op, action="workflow.operation.withdraw", outcome="success", reason=lapsed)
    return False
