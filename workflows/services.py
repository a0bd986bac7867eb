"""Workflow writes: creation and checkpoints, each versioned, recorded in the transition history and audited."""

from __future__ import annotations

import uuid

from django.db.models import F
from django.utils import timezone

from core import audit
from core.access import may_access
from core.errors import IllegalTransition, NoConsentOrAccess, NotFound, ValidationFailed, VersionConflict
from core.identity import Identity
from core.services import organization_ensure
from workflows.definitions import WORKFLOW_TYPES
from workflows.models import Workflow, WorkflowTransition

MAX_STATE_KEYS = 200


def _record_transition(*, identity: Identity, workflow: Workflow, from_step: str | None) -> None:
    WorkflowTransition.objects.create(
        workflow=workflow, organization_id=workflow.organization_id, patient_id=workflow.patient_id,
        purpose=workflow.purpose, from_step=from_step, to_step=workflow.current_step, version=workflow.version,
        actor_sub=identity.actor_sub)


def workflow_create(*, identity: Identity, workflow_type: str, patient_id: uuid.UUID,
                    state: dict | None = None) -> Workflow:
    spec = WORKFLOW_TYPES.get(workflow_type)
    if spec is None:
        raise ValidationFailed(errors=[{"field": "workflow_type", "message": f"one of {sorted(WORKFLOW_TYPES)}",
                                        "code": "invalid_choice"}])
    if not may_access(patient_id=patient_id, purpose=spec.purpose):
        raise NoConsentOrAccess()
    organization_ensure(identity=identity)
    workflow = Workflow.objects.create(
        organization_id=identity.org_id, patient_id=patient_id, workflow_type=workflow_type, purpose=spec.purpose,
        current_step=spec.initial_step, state=state or {}, version=1, created_by=identity.actor_sub)
    _record_transition(identity=identity, workflow=workflow, from_step=None)
    audit.record(action="workflow.create", resource_type="workflow", resource_id=workflow.workflow_id,
                 patient_id=patient_id, purpose=spec.purpose)
    return workflow


def workflow_checkpoint(*, identity: Identity, workflow_id: uuid.UUID, expected_version: int, next_step: str,
                        state_patch: dict) -> Workflow:
    """Move a workflow one legal step, merging a bounded state patch.

    The row is locked, so concurrent writers serialise: the first with the current version wins, the others
    get ``version_conflict``. The transition table, not the client, decides which steps are legal.
    """
    workflow = (Workflow.objects.select_for_update()
                .filter(workflow_id=workflow_id, organization_id=identity.org_id).first())
    if workflow is None:
        raise NotFound()
    if workflow.version != expected_version:
        raise VersionConflict(f"current version is {workflow.version}").about(
            patient_id=workflow.patient_id, purpose=workflow.purpose)
    spec = WORKFLOW_TYPES[workflow.workflow_type]
    if not spec.allows(workflow.current_step, next_step):
        raise IllegalTransition(f"{workflow.current_step} -> {next_step} is not allowed; "
                                f"allowed: {', '.join(spec.next_steps(workflow.current_step)) or 'none'}").about(
            patient_id=workflow.patient_id, purpose=workflow.purpose)
    merged = {**workflow.state, **state_patch}
    if len(merged) > MAX_STATE_KEYS:
        raise ValidationFailed(errors=[{"field": "state_patch", "message": "the workflow state is full",
                                        "code": "state_too_large"}])
    from_step = workflow.current_step
    Workflow.objects.filter(pk=workflow.pk).update(current_step=next_step, state=merged,
                                                   version=F("version") + 1, updated_at=timezone.now())
    workflow.refresh_from_db()
    _record_transition(identity=identity, workflow=workflow, from_step=from_step)
    audit.record(action="workflow.checkpoint", resource_type="workflow", resource_id=workflow.workflow_id,
                 patient_id=workflow.patient_id, purpose=workflow.purpose)
    return workflow
