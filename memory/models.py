from __future__ import annotations

import uuid

from django.db import models
from django.db.models import F, Q
from django.utils import timezone

from consent.models import PURPOSES


class MemoryClass(models.TextChoices):
    WORKING = "working"
    PREFERENCE = "preference"
    ACCOUNT_FACT = "account_fact"
    CARE_CONTEXT = "care_context"


class MemoryState(models.TextChoices):
    PROPOSED = "proposed"
    ACTIVE = "active"
    SUPERSEDED = "superseded"
    EXPIRED = "expired"
    QUARANTINED = "quarantined"
    DELETED = "deleted"


class Source(models.TextChoices):
    PATIENT_STATED = "patient_stated"
    STAFF_ENTERED = "staff_entered"
    AGENT_EXTRACTED = "agent_extracted"
    EHR_IMPORT = "ehr_import"


class MemoryQuerySet(models.QuerySet):
    def for_patient(self, org_id, patient_id):
        return self.filter(organization_id=org_id, patient_id=patient_id)

    def current(self, now=None):
        """Active, not superseded, inside its validity window and retention, backed by a live consent.

        Evaluated at query time: a record past its deadline is never served, whether or not a sweep has run.
        """
        now = now or timezone.now()
        return self.filter(
            state=MemoryState.ACTIVE,
            superseded_by__isnull=True,
            valid_from__lte=now,
            expires_at__gt=now,
        ).filter(
            Q(valid_until__isnull=True) | Q(valid_until__gt=now)
        ).filter(
            Q(consent_record__isnull=True)
            | Q(consent_record__status="granted", consent_record__revoked_at__isnull=True)
            & (Q(consent_record__expires_at__isnull=True) | Q(consent_record__expires_at__gt=now))
        )


class Memory(models.Model):
    memory_id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    organization = models.ForeignKey("core.Organization", on_delete=models.PROTECT, db_column="organization_id")
    patient_id = models.UUIDField()
    memory_class = models.CharField(max_length=20, choices=MemoryClass.choices)
    memory_type = models.CharField(max_length=60)
    attribute = models.CharField(max_length=60)
    # The typed fact. NULL once deleted (tombstone) or when the value is stored encrypted.
    fact = models.JSONField(null=True, blank=True)
    fact_ciphertext = models.BinaryField(null=True, blank=True)
    fact_key_id = models.CharField(max_length=40, null=True, blank=True)
    state = models.CharField(max_length=20, choices=MemoryState.choices)
    source = models.CharField(max_length=20, choices=Source.choices)
    source_ref = models.CharField(max_length=255, blank=True, default="")
    confidence = models.DecimalField(max_digits=4, decimal_places=3, default=1)
    policy_revision = models.CharField(max_length=80)
    consent_purpose = models.CharField(max_length=80, choices=PURPOSES)
    consent_record = models.ForeignKey("consent.ConsentRecord", on_delete=models.PROTECT, null=True, blank=True,
                                       db_column="consent_record_id", related_name="memories")
    valid_from = models.DateTimeField()
    valid_until = models.DateTimeField(null=True, blank=True)
    expires_at = models.DateTimeField()
    review_by = models.DateTimeField(null=True, blank=True)
    # Django creates foreign keys DEFERRABLE INITIALLY DEFERRED on PostgreSQL, which the supersede-then-insert
    # order needs.
    superseded_by = models.ForeignKey("self", on_delete=models.PROTECT, null=True, blank=True,
                                      db_column="superseded_by", related_name="supersedes")
    created_by = models.CharField(max_length=255)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    objects = MemoryQuerySet.as_manager()

    class Meta:
        db_table = "patient_memory"
        indexes = [
            models.Index(fields=["organization", "patient_id", "memory_type", "attribute"],
                         name="memory_patient_lookup"),
            models.Index(fields=["expires_at"], condition=Q(state="active"), name="memory_active_expiry"),
        ]
        constraints = [
            models.UniqueConstraint(
                fields=["organization", "patient_id", "memory_type", "attribute", "consent_purpose"],
                condition=Q(superseded_by__isnull=True, state="active"),
                name="patient_memory_one_current",
            ),
            models.CheckConstraint(condition=Q(valid_until__isnull=True) | Q(valid_until__gt=F("valid_from")),
                                   name="memory_valid_window"),
            models.CheckConstraint(condition=Q(confidence__gte=0, confidence__lte=1), name="memory_confidence_range"),
            models.CheckConstraint(condition=Q(memory_class__in=MemoryClass.values), name="memory_class_valid"),
            models.CheckConstraint(condition=Q(state__in=MemoryState.values), name="memory_state_valid"),
            models.CheckConstraint(condition=Q(source__in=Source.values), name="memory_source_valid"),
            # A live record carries exactly one form of its value; a deleted one carries none.
            models.CheckConstraint(
                condition=(Q(state="deleted", fact__isnull=True, fact_ciphertext__isnull=True)
                           | (~Q(state="deleted") & (Q(fact__isnull=False, fact_ciphertext__isnull=True)
                                                      | Q(fact__isnull=True, fact_ciphertext__isnull=False)))),
                name="memory_value_matches_state",
            ),
            models.CheckConstraint(condition=Q(memory_class="care_context") | Q(consent_record__isnull=False),
                                   name="memory_consent_required"),
            models.CheckConstraint(condition=Q(state="superseded", superseded_by__isnull=False)
                                   | ~Q(state="superseded"), name="memory_superseded_has_successor"),
        ]
