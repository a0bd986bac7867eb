"""Who people are, so that staff never have to recognise a patient by a bare UUID.

Patients: a display name, a date of birth and the organisation's identifiers (an MRN with its system). These are
patient data: under row-level security (the patient themself; staff holding any active grant for the patient;
organisation administrators), and every read through the API is audited.
Staff: the subjects (people and agents) that administrators grant access to, with a display name; the name is read
inside the organisation by everyone it admits (pages name who recorded a patient's records by it).
"""

from __future__ import annotations

from django.db import models
from django.db.models import F, Q
from django.db.models.functions import Lower
from django.utils import timezone


class PatientProfile(models.Model):
    id = models.BigAutoField(primary_key=True)
    organization = models.ForeignKey("core.Organization", on_delete=models.PROTECT, db_column="organization_id")
    patient_id = models.UUIDField()
    display_name = models.CharField(max_length=200)
    birth_date = models.DateField(null=True, blank=True)
    created_by = models.CharField(max_length=255)
    created_at = models.DateTimeField(default=timezone.now)
    updated_at = models.DateTimeField(default=timezone.now)

    class Meta:
        db_table = "patient_directory"
        constraints = [
            models.UniqueConstraint(fields=["organization", "patient_id"], name="patient_directory_one_per_patient"),
            models.CheckConstraint(condition=~Q(display_name=""), name="patient_directory_name_present"),
        ]
        indexes = [models.Index(Lower("display_name"), "organization", name="patient_directory_name")]


class PatientIdentifier(models.Model):
    """An identifier the organisation knows the patient by: (system, value), unique within the organisation in any
    letter case. Kept as registered; compared without case (``MRN-0001`` read out or typed as ``mrn-0001`` is the
    same record number, and an OID or URL system names the same system in either case), so one value never names
    two patients, and a lookup finds it however it is typed."""

    id = models.BigAutoField(primary_key=True)
    organization = models.ForeignKey("core.Organization", on_delete=models.PROTECT, db_column="organization_id")
    patient_id = models.UUIDField()
    system = models.CharField(max_length=200)
    value = models.CharField(max_length=100)
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        db_table = "patient_identifier"
        constraints = [
            models.UniqueConstraint(F("organization"), Lower("system"), Lower("value"),
                                    name="patient_identifier_unique_any_case"),
        ]
        indexes = [models.Index(fields=["organization", "patient_id"], name="patient_identifier_patient")]


class StaffMember(models.Model):
    """A staff subject (a person or an agent) by name, for the administrators' search boxes."""

    class Kind(models.TextChoices):
        PERSON = "person"
        AGENT = "agent"

    id = models.BigAutoField(primary_key=True)
    organization = models.ForeignKey("core.Organization", on_delete=models.PROTECT, db_column="organization_id")
    actor_sub = models.CharField(max_length=255)
    display_name = models.CharField(max_length=200)
    kind = models.CharField(max_length=10, choices=Kind.choices, default=Kind.PERSON)
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        db_table = "staff_directory"
        constraints = [
            models.UniqueConstraint(fields=["organization", "actor_sub"], name="staff_directory_one_per_subject"),
            models.CheckConstraint(condition=Q(kind__in=["person", "agent"]), name="staff_directory_kind_valid"),
        ]
