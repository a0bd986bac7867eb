from __future__ import annotations

import uuid

from django.db import models
from django.db.models import Q
from django.db.models.functions import Length
from django.db.models.lookups import Exact

from core.vocabulary import PURPOSES


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
    # The AI agent that created it, when an agent did (its token's subject, created_by, is the person it acted for)
    agent_client_id = models.CharField(max_length=255, null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    # Known only on a row read by ``selectors.workflow_get``: whether it has any operation
    # the caller can see. None means "not known" (ask the database).
    has_operations: bool | None = None

    class Meta:
        db_table = "agent_workflow"
        indexes = [models.Index(fields=["organization", "patient_id"], name="workflow_org_patient"),
                   models.Index(fields=["organization", "current_step"], name="workflow_org_step")]
        constraints = [models.CheckConstraint(condition=Q(version__gte=1), name="workflow_version_positive")]


class WorkflowTransition(models.Model):
    """Append-only history of checkpoints: one row per version."""

    id = models.BigAutoField(primary_key=True)
    workflow = models.ForeignKey(Workflow, on_delete=models.PROTECT, db_column="workflow_id",
                                 related_name="transitions", db_constraint=False)
    organization_id = models.UUIDField()
    patient_id = models.UUIDField()
    purpose = models.CharField(max_length=80)
    from_step = models.CharField(max_length=80, null=True)
    to_step = models.CharField(max_length=80)
    version = models.BigIntegerField()
    actor_sub = models.CharField(max_length=255)
    # The AI agent that moved it, when an agent did (its token's subject, actor_sub, is the person it acted for)
    agent_client_id = models.CharField(max_length=255, null=True, blank=True)
    occurred_at = models.DateTimeField(auto_now_add=True)
    # The operation that caused this version: requested with it, or settled by it (set by the worker).
    operation = models.ForeignKey("Operation", on_delete=models.PROTECT, db_column="operation_id", null=True,
                                  blank=True, related_name="+", db_constraint=False)

    class Meta:
        db_table = "agent_workflow_transition"
        constraints = [models.UniqueConstraint(fields=["workflow", "version", "organization_id"],
                                               name="workflow_transition_version")]


class OperationStatus(models.TextChoices):
    PENDING = "pending", "Pending: not yet sent, or known not to have arrived"
    IN_FLIGHT = "in_flight", "Claimed by a worker (until its lease ends)"
    SUCCEEDED = "succeeded", "The outside system confirmed it"
    FAILED = "failed", "The outside system refused it, or it never reached it within the retry budget"
    OUTCOME_UNKNOWN = "outcome_unknown", "It may have arrived: the next attempt asks before resubmitting"
    CANCELLED = "cancelled", "Withdrawn before it could have reached the outside system"


ACTIVE_OPERATION_STATUSES = (OperationStatus.PENDING, OperationStatus.IN_FLIGHT, OperationStatus.OUTCOME_UNKNOWN)
SETTLED_OPERATION_STATUSES = (OperationStatus.SUCCEEDED, OperationStatus.FAILED, OperationStatus.CANCELLED)


class Operation(models.Model):
    """The transactional outbox: one non-read action against an outside system.

    Inserted in the same transaction as the workflow checkpoint that asks for it; dispatched later by
    ``manage.py run_worker``. ``idempotency_key`` is generated here, sent with every attempt and bound to
    ``payload_hash`` for ever (a trigger refuses changes to either). ``outcome_uncertain`` is true whenever the
    outside system may hold an outcome this row does not know yet; only a confirmed result or a definitive refusal
    clears it, and a check constraint keeps it consistent with ``status``.
    """

    operation_id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    organization_id = models.UUIDField()
    patient_id = models.UUIDField()
    purpose = models.CharField(max_length=80)
    # The database's key onto the workflow is operation_workflow_scope_fk (organisation, patient and purpose too).
    workflow = models.ForeignKey(Workflow, on_delete=models.PROTECT, db_column="workflow_id",
                                 related_name="operations", db_constraint=False)
    kind = models.CharField(max_length=60)
    system = models.CharField(max_length=40)
    # Unique within the organisation (operation_idempotency_key); it is made from the operation's UUID.
    idempotency_key = models.CharField(max_length=100)
    request_key = models.CharField(max_length=100, null=True, blank=True)
    payload = models.JSONField()
    payload_hash = models.CharField(max_length=64)
    status = models.CharField(max_length=20, choices=OperationStatus.choices, default=OperationStatus.PENDING)
    outcome_uncertain = models.BooleanField(default=False)
    attempts = models.IntegerField(default=0)
    attempt_limit = models.IntegerField()
    next_attempt_at = models.DateTimeField(null=True, blank=True)
    last_error_code = models.CharField(max_length=60, null=True, blank=True)
    result = models.JSONField(null=True, blank=True)
    claimed_by = models.CharField(max_length=120, null=True, blank=True)
    claimed_until = models.DateTimeField(null=True, blank=True)
    requested_by = models.CharField(max_length=255)
    # What kind of caller asked for it (core.identity's actor kinds: patient, staff, agent, service); NULL on
    # operations requested before it was recorded.
    requested_by_kind = models.CharField(max_length=12, null=True, blank=True)
    # Set when what the operation was for is withdrawn while it may already have arrived (the patient withdrew the
    # consent for its purpose, or it ran out, or the patient erased everything): from then on the worker only asks
    # the outside system whether it arrived, and never sends it.
    withdrawn_reason = models.CharField(max_length=40, null=True, blank=True)
    requested_at_version = models.BigIntegerField()
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)
    completed_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        db_table = "workflow_operation"
        indexes = [
            models.Index(fields=["organization_id", "workflow"], name="operation_org_workflow"),
            # The worker's claim: only rows that can still be due are in it.
            models.Index(fields=["next_attempt_at", "system"], name="operation_due",
                         condition=Q(status__in=["pending", "in_flight", "outcome_unknown"])),
        ]
        constraints = [
            # The same request twice creates one operation (a failed or cancelled one may be asked for again).
            models.UniqueConstraint(fields=["workflow", "kind", "payload_hash", "organization_id"],
                                    name="operation_one_per_payload", condition=~Q(status__in=["failed", "cancelled"])),
            # Changed data cannot be sent while an earlier request's outcome is unsettled.
            models.UniqueConstraint(fields=["workflow", "kind", "organization_id"],
                                    name="operation_one_active_per_kind",
                                    condition=Q(status__in=["pending", "in_flight", "outcome_unknown"])),
            models.UniqueConstraint(fields=["workflow", "request_key", "organization_id"],
                                    name="operation_request_key", condition=Q(request_key__isnull=False)),
            models.UniqueConstraint(fields=["idempotency_key", "organization_id"], name="operation_idempotency_key"),
            models.CheckConstraint(condition=Q(status__in=[s.value for s in OperationStatus]),
                                   name="operation_status_valid"),
            models.CheckConstraint(condition=Q(withdrawn_reason__isnull=True)
                                   | Q(withdrawn_reason__in=["consent_revoked", "consent_expired",
                                                                      "patient_erasure"]),
                                   name="operation_withdrawn_reason_valid"),
            models.CheckConstraint(condition=Q(requested_by_kind__isnull=True)
                                   | Q(requested_by_kind__in=["patient", "staff", "agent", "service"]),
                                   name="operation_requested_by_kind_valid"),
            # sha256 hex: an unbounded pattern and the length (PostgreSQL's regex engine expands ``{64}`` into
            # 64 states, about 8 us per row against 1 us)
            models.CheckConstraint(condition=Q(payload_hash__regex=r"^[0-9a-f]+$") & Exact(Length("payload_hash"), 64),
                                   name="operation_payload_hash_sha256"),
            models.CheckConstraint(condition=Q(attempts__gte=0) & Q(attempt_limit__gte=1),
                                   name="operation_attempts_valid"),
            # outcome_unknown is uncertain by definition; pending and the settled states never are.
            models.CheckConstraint(
                condition=Q(status="in_flight") | Q(status="outcome_unknown", outcome_uncertain=True)
                | (~Q(status__in=["in_flight", "outcome_unknown"]) & Q(outcome_uncertain=False)),
                name="operation_uncertainty_matches_status"),
            models.CheckConstraint(
                condition=~Q(status="in_flight") | (Q(claimed_by__isnull=False) & Q(claimed_until__isnull=False)),
                name="operation_in_flight_has_lease"),
            models.CheckConstraint(condition=~Q(status="succeeded") | Q(result__isnull=False),
                                   name="operation_success_has_result"),
            models.CheckConstraint(
                condition=Q(status__in=["succeeded", "failed", "cancelled"], completed_at__isnull=False)
                | (~Q(status__in=["succeeded", "failed", "cancelled"]) & Q(completed_at__isnull=True)),
                name="operation_completed_when_settled"),
        ]

    @property
    def is_active(self) -> bool:
        return self.status in ACTIVE_OPERATION_STATUSES


class CircuitState(models.TextChoices):
    CLOSED = "closed", "Closed: calls flow"
    OPEN = "open", "Open: no calls until open_until"
    HALF_OPEN = "half_open", "Half open: one probe call until open_until"


class Circuit(models.Model):
    """One circuit breaker per outside system, shared by every worker (not patient data).

    Persisted rather than kept per worker process: with several workers, each would otherwise need its own run of
    failures before it stops calling a system that is down, and each would send its own probe when the cool-down
    ends. Here the first worker to see the threshold opens it for all, and exactly one worker wins the probe.
    """

    system = models.CharField(max_length=40, primary_key=True)
    state = models.CharField(max_length=12, choices=CircuitState.choices, default=CircuitState.CLOSED)
    consecutive_failures = models.IntegerField(default=0)
    opened_at = models.DateTimeField(null=True, blank=True)
    open_until = models.DateTimeField(null=True, blank=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        db_table = "workflow_circuit"
        constraints = [
            models.CheckConstraint(condition=Q(state__in=["closed", "open", "half_open"]),
                                   name="circuit_state_valid"),
            models.CheckConstraint(condition=Q(state="closed") | Q(open_until__isnull=False),
                                   name="circuit_open_has_deadline"),
        ]
