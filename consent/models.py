from __future__ import annotations

import uuid

from django.db import models
from django.db.models import Q
from django.utils import timezone

from core.vocabulary import PURPOSES


class ConsentQuerySet(models.QuerySet):
    def active(self, now=None):
        now = now or timezone.now()
        return self.filter(status=ConsentRecord.Status.GRANTED, revoked_at__isnull=True).filter(
            Q(expires_at__isnull=True) | Q(expires_at__gt=now))


class ConsentRecord(models.Model):
    class Status(models.TextChoices):
        GRANTED = "granted"
        REVOKED = "revoked"
        EXPIRED = "expired"

    consent_record_id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    organization = models.ForeignKey("core.Organization", on_delete=models.PROTECT, db_column="organization_id")
    patient_id = models.UUIDField()
    purpose = models.CharField(max_length=80, choices=PURPOSES)
    status = models.CharField(max_length=16, choices=Status.choices)
    granted_at = models.DateTimeField()
    revoked_at = models.DateTimeField(null=True, blank=True)
    expires_at = models.DateTimeField(null=True, blank=True)
    evidence_ref = models.CharField(max_length=255)
    policy_revision = models.CharField(max_length=80)
    recorded_by = models.CharField(max_length=255)
    revoked_by = models.CharField(max_length=255, null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    objects = ConsentQuerySet.as_manager()

    class Meta:
        db_table = "patient_consent"
        indexes = [models.Index(fields=["organization", "patient_id", "purpose"], name="consent_org_patient_purpose")]
        constraints = [
            models.CheckConstraint(condition=Q(status__in=["granted", "revoked", "expired"]),
                                   name="consent_status_valid"),
            models.CheckConstraint(condition=Q(status="revoked", revoked_at__isnull=False)
                                   | ~Q(status="revoked"), name="consent_revoked_has_time"),
            models.CheckConstraint(condition=Q(expires_at__isnull=True) | Q(expires_at__gt=models.F("granted_at")),
                                   name="consent_expiry_after_grant"),
            models.UniqueConstraint(fields=["organization", "patient_id", "purpose"],
                                    condition=Q(status="granted"), name="consent_one_granted_per_purpose"),
        ]

    def in_force(self, now) -> bool:
        """Whether this record is in force at ``now``: the rule of :meth:`ConsentQuerySet.active`, for one row."""
        return self.status == self.Status.GRANTED and self.revoked_at is None and (
            self.expires_at is None or self.expires_at > now)


class GrantQuerySet(models.QuerySet):
    def active(self, now=None):
        now = now or timezone.now()
        return self.filter(revoked_at__isnull=True).filter(Q(expires_at__isnull=True) | Q(expires_at__gt=now))


class AccessGrant(models.Model):
    """A staff subject's access to one patient for one purpose, until it expires or is revoked."""

    REASON_MAX_LENGTH = 500  # the grant's reason and then its revocation's

    grant_id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    organization = models.ForeignKey("core.Organization", on_delete=models.PROTECT, db_column="organization_id")
    patient_id = models.UUIDField()
    actor_sub = models.CharField(max_length=255)
    purpose = models.CharField(max_length=80, choices=PURPOSES)
    expires_at = models.DateTimeField(null=True, blank=True)
    revoked_at = models.DateTimeField(null=True, blank=True)
    granted_by = models.CharField(max_length=255)
    reason = models.CharField(max_length=REASON_MAX_LENGTH, blank=True, default="")
    revoked_by = models.CharField(max_length=255, null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    objects = GrantQuerySet.as_manager()

    class Meta:
        db_table = "patient_access_grants"
        indexes = [models.Index(fields=["organization", "patient_id", "actor_sub", "purpose"],
                                name="grant_lookup")]
        constraints = [
            models.UniqueConstraint(fields=["organization", "patient_id", "actor_sub", "purpose"],
                                    condition=Q(revoked_at__isnull=True), name="grant_one_open_per_purpose"),
        ]
