"""Operations asked for under a consent that lapsed since: a withdrawal withdraws them in its own transaction
(:func:`operations_withdraw`), but a consent that runs out has no such moment, so the worker asks
here, right before it would send one. Lock order as in :mod:`workflows.services`: the workflow first."""

from __future__ import annotations

import uuid

from django.db.models import Subquery
from django.utils import timezone

from consent.selectors import consent_lapse
from core.identity import Identity
from workflows.models import ACTIVE_OPERATION_STATUSES, Operation, OperationStatus, Workflow
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


def operations_withdraw_for_consent(*, identity: Identity, patient_id: uuid.UUID, purpose: str) -> int:
    """The patient withdrew the consent for ``purpose``: none of their operations for it is sent from now on. Runs in
    the revocation's transaction; returns how many were withdrawn (see ``operations_withdraw``)."""
    return operations_withdraw(identity=identity, reason="consent_revoked", operations=Operation.objects.filter(
        organization_id=identity.org_id, patient_id=patient_id, purpose=purpose))


def operations_withdraw(*, identity: Identity, reason: str, operations) -> int:
    """Nothing of ``operations`` is sent any more (``reason``: consent_revoked, patient_erasure). Those that provably
    never reached the outside system are cancelled (``last_error_code`` the reason, audited). Those that may have
    arrived (in flight, or with an unknown outcome) cannot be called back: they are marked ``withdrawn_reason``, so
    the worker only asks the outside system whether they arrived, adopts what did and fails what did not (the
    reason as its code), never sending them (it used to resubmit one the look-up did not find, after the
    withdrawal). Returns how many were cancelled or marked."""
    active = operations.filter(organization_id=identity.org_id, status__in=ACTIVE_OPERATION_STATUSES)
    # the workflows first, as everywhere (the module's lock order)
    workflows = list(Workflow.objects.select_for_update().filter(
        organization_id=identity.org_id, workflow_id__in=Subquery(active.values("workflow_id")))
        .order_by("workflow_id"))
    if not workflows:
        return 0
    now = timezone.now()
    withdrawn = 0
    for op in active.select_for_update().filter(workflow__in=workflows).order_by("created_at"):
        # a worker's claim committed meanwhile makes it in_flight: then it may have been sent, and is only asked
        if op.status == S.PENDING and not op.outcome_uncertain:
            if Operation.objects.filter(pk=op.pk, status=S.PENDING, outcome_uncertain=False).update(
                    status=S.CANCELLED, next_attempt_at=None, completed_at=now, last_error_code=reason,
                    updated_at=now):
                _audit_operation(op, action="workflow.operation.cancel", outcome="success", reason=reason)
                withdrawn += 1
        elif op.withdrawn_reason is None:
            Operation.objects.filter(pk=op.pk).update(withdrawn_reason=reason, updated_at=now)
            op.withdrawn_reason = reason
            _audit_operation(op, action="workflow.operation.withdraw", outcome="success", reason=reason)
            withdrawn += 1
    return withdrawn
