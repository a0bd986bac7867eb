"""Personal values in workflows, and when they go: erase-all and the retention sweep.

A workflow's ``state`` and an operation's ``payload`` hold what an agent or the outside system needed (preferred
dates, member numbers, codes). Once a workflow is finished, or an operation settled, nothing needs those values
any more, but an insurer reconciliation still needs to match what was sent and what came back. So redaction keeps:

* the workflow id, type, step, version and its append-only transition history;
* each operation's idempotency key, the sha256 of its canonical payload, status, attempts and result (the
  outside system's own ids, e.g. ``authorization_id``), and the outside-system ids merged into the state;

and replaces everything else with ``{"_redacted": true}``. Workflows still in progress, and operations whose
outcome is not settled, keep their values (a resubmission must send exactly the same payload under the same key);
the erase-all receipt lists them as retained, with that reason.

Lock order as everywhere in workflows: the workflow row, then its operations.
"""

from __future__ import annotations

import logging
import uuid
from datetime import timedelta

from django.conf import settings
from django.db.models import F
from django.utils import timezone

from core import audit, maintenance
from core.identity import Identity, identity_context
from memory.erasure import ErasureSection
from workflows.definitions import WORKFLOW_TYPES, operation_kinds_for
from workflows.models import ACTIVE_OPERATION_STATUSES, SETTLED_OPERATION_STATUSES, Operation, Workflow
from workflows.services import _record_transition, _withdraw_lapsed
from workflows.withdrawal import operations_withdraw

log = logging.getLogger("anamnesis.workflows")

REDACTED = {"_redacted": True}
SWEEP_ACTOR = "workflow-sweep"
RECONCILIATION_NOTE = (
    "kept for insurer and scheduling reconciliation: workflow ids, steps and transition history; each operation's "
    "idempotency key, payload sha256, status and result; outside-system ids in the workflow state")


def _kept_state(workflow: Workflow) -> dict:
    fields = {kind.result_field for kind in operation_kinds_for(workflow.workflow_type)}
    return {**{k: v for k, v in workflow.state.items() if k in fields}, **REDACTED}


def _is_finished(workflow: Workflow) -> bool:
    spec = WORKFLOW_TYPES.get(workflow.workflow_type)
    return spec is not None and spec.is_terminal(workflow.current_step)


def _redact_workflow(*, identity: Identity, workflow: Workflow, reason: str) -> bool:
    """Replace a finished workflow's state by its outside-system ids (a new version with its history row)."""
    if workflow.state.get("_redacted") is True:
        return False
    now = timezone.now()
    kept = _kept_state(workflow)
    Workflow.objects.filter(pk=workflow.pk).update(state=kept, version=F("version") + 1, updated_at=now)
    workflow.state, workflow.version, workflow.updated_at = kept, workflow.version + 1, now
    _record_transition(identity=identity, workflow=workflow, from_step=workflow.current_step)
    audit.record(action="workflow.redact", resource_type="workflow", resource_id=workflow.workflow_id,
                 patient_id=workflow.patient_id, purpose=workflow.purpose, reason=reason)
    return True


def _redact_operation(*, operation: Operation, reason: str) -> bool:
    if operation.payload == REDACTED or operation.status not in SETTLED_OPERATION_STATUSES:
        return False
    Operation.objects.filter(pk=operation.pk).update(payload=REDACTED)
    operation.payload = REDACTED
    audit.record(action="workflow.operation.redact", resource_type="workflow_operation",
                 resource_id=operation.operation_id, patient_id=operation.patient_id, purpose=operation.purpose,
                 reason=reason)
    return True


def workflow_erase_patient(*, identity: Identity, patient_id: uuid.UUID) -> ErasureSection:
    """Erase-all's reach into workflows (registered in :mod:`memory.erasure`): personal values leave every
    finished workflow and settled operation the caller may access; the rest is listed as retained, with why."""
    section = ErasureSection(kind="workflows", note=RECONCILIATION_NOTE)
    workflows = list(Workflow.objects.select_for_update()
                     .filter(organization_id=identity.org_id, patient_id=patient_id).order_by("workflow_id"))
    # Nothing of theirs leaves any more: unsent operations are cancelled (and so redacted below), those that may
    # have arrived are only asked after (they used to stay queued, and were sent after the erasure).
    operations_withdraw(identity=identity, reason="patient_erasure", operations=Operation.objects.filter(
        organization_id=identity.org_id, patient_id=patient_id))
    for workflow in workflows:
        operations = list(Operation.objects.select_for_update().filter(workflow=workflow).order_by("created_at"))
        for op in operations:
            if op.status in ACTIVE_OPERATION_STATUSES:
                section.retained.append({"operation_id": str(op.operation_id), "workflow_id": str(workflow.pk),
                                         "status": op.status, "reason": "operation_outcome_pending"})
            elif _redact_operation(operation=op, reason="patient_erasure"):
                section.erased.append({"operation_id": str(op.operation_id), "workflow_id": str(workflow.pk),
                                       "copy": "operation_payload", "payload_hash": op.payload_hash})
        if _is_finished(workflow):
            if _redact_workflow(identity=identity, workflow=workflow, reason="patient_erasure"):
                section.erased.append({"workflow_id": str(workflow.pk), "copy": "workflow_state",
                                       "kept_keys": sorted(k for k in workflow.state if k != "_redacted")})
        elif workflow.state:
            section.retained.append({"workflow_id": str(workflow.pk), "step": workflow.current_step,
                                     "reason": "workflow_in_progress"})
    return section


def _due(cutoff_ops, cutoff_workflows, batch: int) -> list[tuple]:
    return maintenance.discover(
        "workflow_sweep",
        "SELECT 'operation', operation_id, organization_id, patient_id, purpose FROM workflow_operation "
        "WHERE completed_at <= %s AND payload <> '{\"_redacted\": true}'::jsonb "
        "UNION ALL "
        "SELECT 'workflow', workflow_id, organization_id, patient_id, purpose FROM agent_workflow "
        "WHERE current_step IN ('completed', 'cancelled') AND NOT (state ? '_redacted') AND updated_at <= %s "
        "LIMIT %s", [cutoff_ops, cutoff_workflows, batch])


def _lapsed_due(after: uuid.UUID | None, batch: int) -> list[tuple]:
    """Workflows holding an operation still waiting (pending, or parked with an unknown outcome) that was asked for
    before a consent for its patient and purpose was withdrawn or ran out: a superset, each is checked again."""
    return maintenance.discover(
        "workflow_sweep",
        "SELECT DISTINCT o.workflow_id, o.organization_id, o.patient_id, o.purpose FROM workflow_operation o "
        "WHERE o.status IN ('pending', 'outcome_unknown') AND o.withdrawn_reason IS NULL "
        "AND (%s::uuid IS NULL OR o.workflow_id > %s::uuid) AND EXISTS ("
        "  SELECT 1 FROM patient_consent c WHERE c.organization_id = o.organization_id "
        "  AND c.patient_id = o.patient_id AND c.purpose = o.purpose "
        "  AND ((c.status = 'revoked' AND c.revoked_at > o.created_at) "
        "       OR (c.expires_at <= %s AND c.expires_at > o.created_at))) "
        "ORDER BY o.workflow_id LIMIT %s", [after, after, timezone.now(), batch])


def operations_settle_lapsed(*, batch: int = 500) -> int:
    """Operations asked for under a consent that was withdrawn or ran out since are settled as the send would
    settle them (:func:`workflows.services._withdraw_lapsed`, under the workflow's lock): one that provably never
    left is cancelled with the lapse as its code, one that may have arrived is withdrawn (only asked after). Nothing
    marks the moment a consent runs out, so without this one parked with an unknown outcome, or waiting for a
    closed circuit, kept reading as queued in the row and in the reconciliation queue. Returns how many."""
    settled, after = 0, None
    while due := _lapsed_due(after, batch):
        for workflow_id, org_id, patient_id, purpose in due:
            identity = Identity.service(org_id=org_id, name=SWEEP_ACTOR, patient_id=patient_id, purpose=purpose)
            with identity_context(identity):
                workflow = Workflow.objects.select_for_update(skip_locked=True).filter(pk=workflow_id).first()
                if workflow is not None:
                    workflow.has_operations = True
                    settled += _withdraw_lapsed(identity=identity, workflow=workflow)
        after = due[-1][0]
    return settled


def workflow_sweep(*, batch: int = 500, max_batches: int = 100) -> dict[str, int]:
    """Settle operations whose consent lapsed (:func:`operations_settle_lapsed`), then redact settled operations'
    payloads after ``WORKFLOW_OPERATION_PAYLOAD_RETENTION_DAYS`` and finished workflows' state after
    ``WORKFLOW_FINISHED_STATE_RETENTION_DAYS``. Idempotent and safe to run from cron or several processes at once:
    each row is locked (skipping rows another sweep holds) and re-checked under a service identity scoped to its
    patient and purpose."""
    counts = {"operations_lapsed": operations_settle_lapsed(batch=batch), "operation_payloads": 0,
              "workflow_states": 0}
    for _ in range(max_batches):
        now = timezone.now()
        due = _due(now - timedelta(days=settings.WORKFLOW_OPERATION_PAYLOAD_RETENTION_DAYS),
                   now - timedelta(days=settings.WORKFLOW_FINISHED_STATE_RETENTION_DAYS), batch)
        progressed = False
        for kind, row_id, org_id, patient_id, purpose in due:
            identity = Identity.service(org_id=org_id, name=SWEEP_ACTOR, patient_id=patient_id, purpose=purpose)
            with identity_context(identity):
                if kind == "operation":
                    op = Operation.objects.select_for_update(skip_locked=True).filter(pk=row_id).first()
                    if op is not None and _redact_operation(operation=op, reason="retention_elapsed"):
                        counts["operation_payloads"] += 1
                        progressed = True
                else:
                    wf = Workflow.objects.select_for_update(skip_locked=True).filter(pk=row_id).first()
                    if wf is not None and _is_finished(wf) and _redact_workflow(
                            identity=identity, workflow=wf, reason="retention_elapsed"):
                        counts["workflow_states"] += 1
                        progressed = True
        if not progressed:
            break
    log.info("workflow sweep: operations_lapsed=%d operation_payloads=%d workflow_states=%d",
             counts["operations_lapsed"], counts["operation_payloads"], counts["workflow_states"])
    return counts
