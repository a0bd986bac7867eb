from __future__ import annotations

import uuid

from django.contrib.postgres.fields import ArrayField
from django.db import models
from django.utils import timezone


class Organization(models.Model):
    """A tenant, registered by an operator (``manage.py register_organization``) or a registry administrator
    (``POST /v1/organizations``) with the issuers whose tokens it trusts. A token is admitted only when its
    ``org_id`` is registered and trusts its ``iss`` (``app_admit``). RLS shows a caller only their own."""

    id = models.UUIDField(primary_key=True)
    name = models.CharField(max_length=200, blank=True, default="")
    created_at = models.DateTimeField(auto_now_add=True)
    trusted_issuers = ArrayField(models.CharField(max_length=255), default=list, blank=True)
    # May list and register organisations (with the organization:admin scope). Set by the operator only.
    administrator = models.BooleanField(default=False)

    class Meta:
        db_table = "organization"

    def __str__(self) -> str:
        return self.name or str(self.id)


class AuditEvent(models.Model):
    """Append-only: a trigger refuses UPDATE, DELETE and TRUNCATE, even from the table owner.

    Holds who did what to which patient's data, for which purpose, with what outcome: never fact values,
    prompts or tokens. Every column but ``actor_sub`` holds a coded value, enforced by CHECK constraints written
    in SQL (core migration 0007, audit coded values).

    Range-partitioned by month of ``occurred_at`` (core migration 0016; ``core.audit_partitions`` keeps months
    ahead and applies the retention policy). The table's primary key is ``(id, organization_id, occurred_at)``;
    ``id`` stays the model's primary key, since rows are only inserted and read, never updated by key.
    """

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    occurred_at = models.DateTimeField(default=timezone.now)
    organization_id = models.UUIDField()
    patient_id = models.UUIDField(null=True, blank=True)
    actor_sub = models.CharField(max_length=255)
    actor_kind = models.CharField(max_length=20)
    # An agent's client id, and the patient it acted for, when an agent made the request.
    agent_client_id = models.CharField(max_length=255, null=True, blank=True)
    on_behalf_of = models.UUIDField(null=True, blank=True)
    action = models.CharField(max_length=80)
    resource_type = models.CharField(max_length=80)
    resource_id = models.CharField(max_length=80, null=True, blank=True)
    purpose = models.CharField(max_length=80, null=True, blank=True)
    outcome = models.CharField(max_length=20)
    reason = models.CharField(max_length=80, null=True, blank=True)
    correlation_id = models.CharField(max_length=128)

    class Meta:
        db_table = "audit_event"
        indexes = [
            # ending with id: each month's index gives a page's whole order (core migration 0016)
            models.Index(fields=["organization_id", "patient_id", "occurred_at", "id"],
                         name="audit_org_patient_time"),
            models.Index(fields=["organization_id", "occurred_at", "id"], name="audit_org_time"),
        ]
        constraints = [
            models.CheckConstraint(
                condition=models.Q(outcome__in=["success", "denied", "conflict", "error"]),
                name="audit_outcome_valid",
            ),
        ]


class PortalIdentity(models.Model):
    """The one link between a Django user and a person at the identity provider: (issuer, subject).

    Portal users are found by this pair only, never by e-mail address or name, which providers let people change
    and which two providers may both assert. Not patient data: the patient id and role come from each login's
    claims and live in the session, not here.
    """

    user = models.OneToOneField("auth.User", on_delete=models.CASCADE, related_name="portal_identity")
    issuer = models.CharField(max_length=255)
    subject = models.CharField(max_length=255)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        db_table = "portal_identity"
        constraints = [
            models.UniqueConstraint(fields=["issuer", "subject"], name="portal_identity_issuer_subject"),
        ]

    def __str__(self) -> str:
        return f"{self.issuer} {self.subject}"


class SweepRun(models.Model):
    """One run of a maintenance sweep (memories, sessions, workflows) and what it processed, for /metrics.
    Counts only: no patient, no value."""

    id = models.BigAutoField(primary_key=True)
    sweep = models.CharField(max_length=40)
    finished_at = models.DateTimeField()
    duration_seconds = models.FloatField()
    counts = models.JSONField(default=dict)

    class Meta:
        db_table = "core_sweep_run"
        indexes = [models.Index(fields=["sweep", "-finished_at"], name="sweep_run_latest")]
