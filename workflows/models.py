from __future__ import annotations

import uuid

from django.db import models
from django.db.models import Q

from consent.models import PURPOSES


class Workflow(models.Model):
    workflow_id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    organization = models.ForeignKey("core.Organization", on_delete=models.PROTECT, db_column="organization_id")
    patient_id = models.UUIDField()
    workflow_type = models.CharField(max_length=60)
    purpose = models.CharField(max_length=80, choices=PURPOSES)
    current_step = models.CharField(max_length=80)
    state = models.JSONField(default=dict)
    version = models.BigIntegerField(default=1)
    created_by = models.CharField(max_length=255)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        db_table = "agent_workflow"
        indexes = [models.Index(fields=["organization", "patient_id"], name="workflow_org_patient"),
                   models.Index(fields=["organization", "current_step"], name="workflow_org_step")]
        constraints = [models.CheckConstraint(condition=Q(version__gte=1), name="workflow_version_positive")]


class WorkflowTransition(models.Model):
    """Append-only history of checkpoints: one row per version."""

    id = models.BigAutoField(primary_key=True)
    workflow = models.ForeignKey(Workflow, on_delete=models.PROTECT, db_column="workflow_id",
                                 related_name="transitions")
    organization_id = models.UUIDField()
    patient_id = models.UUIDField()
    purpose = models.CharField(max_length=80)
    from_step = models.CharField(max_length=80, null=True)
    to_step = models.CharField(max_length=80)
    version = models.BigIntegerField()
    actor_sub = models.CharField(max_length=255)
    occurred_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        db_table = "agent_workflow_transition"
        constraints = [models.UniqueConstraint(fields=["workflow", "version"], name="workflow_transition_version")]
