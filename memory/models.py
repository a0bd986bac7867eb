from __future__ import annotations

import uuid

from django.db import models
from django.db.models import F, Q
from django.utils import timezone
from pgvector.django import VectorField

from core.vocabulary import PURPOSES


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
        ).consent_in_force(now)

    def consent_in_force(self, now):
        """Backed by a consent in force at ``now`` (or by none: care context)."""
        return self.filter(
            Q(consent_record__isnull=True)
            | Q(consent_record__status="granted", consent_record__revoked_at__isnull=True)
            & (Q(consent_record__expires_at__isnull=True) | Q(consent_record__expires_at__gt=now))
        )

    def pending_proposals(self, now):
        """Proposals still waiting for review at ``now``: inside their validity and retention, their consent in
        force (:meth:`Memory.effective_state` says ``proposed``)."""
        return self.filter(state=MemoryState.PROPOSED, expires_at__gt=now).filter(
            Q(valid_until__isnull=True) | Q(valid_until__gt=now)).consent_in_force(now)


LIVE_STATES = frozenset({MemoryState.ACTIVE, MemoryState.PROPOSED, MemoryState.QUARANTINED})


def state_now(state: str, *, past_deadline: bool, consent_lapsed: bool) -> str:
    """The rule of :meth:`Memory.effective_state`, given its two facts (``memory.selectors.memory_read_row``
    has the database work them out): a live memory past its validity or retention, or whose consent lapsed,
    reads as expired."""
    if state in LIVE_STATES and (past_deadline or consent_lapsed):
        return MemoryState.EXPIRED
    return state


class Memory(models.Model):
    memory_id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    organization = models.ForeignKey("core.Organization", on_delete=models.PROTECT, db_column="organization_id")
    patient_id = models.UUIDField()
    memory_class = models.CharField(max_length=20, choices=MemoryClass.choices)
    memory_type = models.CharField(max_length=60)
    # The version of the type the fact was written with (memory.types): a revision never rewrites old memories.
    type_version = models.PositiveIntegerField(default=1, db_default=1)
    attribute = models.CharField(max_length=60)
    # The typed fact. NULL once deleted (tombstone) or when the value is stored encrypted.
    fact = models.JSONField(null=True, blank=True)
    fact_ciphertext = models.BinaryField(null=True, blank=True)
    fact_key_id = models.CharField(max_length=40, null=True, blank=True)
    # Random per-record key for the value digests in lifecycle events; erased with the value, after which the
    # digests can no longer be tested against guesses.
    digest_salt = models.BinaryField(null=True, blank=True)
    state = models.CharField(max_length=20, choices=MemoryState.choices)
    source = models.CharField(max_length=20, choices=Source.choices)
    source_ref = models.CharField(max_length=255, blank=True, default="")
    confidence = models.DecimalField(max_digits=4, decimal_places=3, default=1)
    policy_revision = models.CharField(max_length=80)
    consent_purpose = models.CharField(max_length=80, choices=PURPOSES)
    # The database's key is (consent_record_id, organization_id) (memory migration 0012):
    # Django keeps the relation, the database keeps the constraint (core/distribution.py).
    consent_record = models.ForeignKey("consent.ConsentRecord", on_delete=models.PROTECT, null=True, blank=True,
                                       db_column="consent_record_id", related_name="memories", db_constraint=False)
    valid_from = models.DateTimeField()
    valid_until = models.DateTimeField(null=True, blank=True)
    expires_at = models.DateTimeField()
    review_by = models.DateTimeField(null=True, blank=True)
    # The database's key (superseded_by, organization_id) is DEFERRABLE INITIALLY DEFERRED, as Django's own foreign
    # keys are on PostgreSQL, which the supersede-then-insert order needs.
    superseded_by = models.ForeignKey("self", on_delete=models.PROTECT, null=True, blank=True,
                                      db_column="superseded_by", related_name="supersedes", db_constraint=False)
    created_by = models.CharField(max_length=255)
    # The agent's client id when an agent wrote it (then the memory was proposed, agent_extracted).
    agent_client_id = models.CharField(max_length=255, null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)
    deleted_at = models.DateTimeField(null=True, blank=True)

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

    def effective_state(self, now=None, *, consent: bool = True) -> str:
        """The state this memory has now, whether or not the sweep has recorded it: ``expired`` once its validity
        or retention ended or its consent is no longer active. The same deadlines as
        :meth:`MemoryQuerySet.current`, so a read by id agrees with lists, search and context packs."""
        if self.state not in LIVE_STATES:
            return self.state
        now = now or timezone.now()
        past_deadline = self.expires_at <= now or (self.valid_until is not None and self.valid_until <= now)
        record = self.consent_record if consent and self.consent_record_id is not None else None
        consent_lapsed = record is not None and not record.in_force(now)
        return state_now(self.state, past_deadline=past_deadline, consent_lapsed=consent_lapsed)

    def as_of_now(self, now=None) -> Memory:
        """For reads: present the effective state, and withhold the value once retention has passed (the sweep
        is about to erase it). The instance is for display only: services lock and re-read before any change."""
        now = now or timezone.now()
        self.state = self.effective_state(now)
        if self.state != MemoryState.DELETED and self.expires_at <= now:
            self.fact = None
            self.fact_ciphertext = None
        return self


class MemoryType(models.Model):
    """An organisation's own memory type, one row per version (a revision adds a row; rows never change).
    Built-in types are not rows: they ship as data in ``memory/catalogue`` (see :mod:`memory.types`)."""

    type_id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    organization = models.ForeignKey("core.Organization", on_delete=models.PROTECT, db_column="organization_id")
    name = models.CharField(max_length=50)
    version = models.PositiveIntegerField()
    memory_class = models.CharField(max_length=20, choices=MemoryClass.choices)
    # The checked definition (schema, supersession, writers, encryption, validity, purposes, label, text).
    definition = models.JSONField()
    created_by = models.CharField(max_length=255)
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        db_table = "memory_type"
        constraints = [
            models.UniqueConstraint(fields=["organization", "name", "version"], name="memory_type_version_unique"),
            models.CheckConstraint(condition=Q(version__gte=1), name="memory_type_version_positive"),
            models.CheckConstraint(condition=Q(memory_class__in=MemoryClass.values), name="memory_type_class_valid"),
        ]


class MemoryTypeServes(models.Model):
    """An organisation's own wording of what a memory type answers (its ``serves`` phrases), for any type it may
    use, built-in included. The phrases steer retrieval, not what a fact means, so rewording them is no new version
    of the type: one row per organisation and type name, replaced in place; ``phrases`` NULL goes back to the
    type's own."""

    serves_id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    organization = models.ForeignKey("core.Organization", on_delete=models.PROTECT, db_column="organization_id")
    name = models.CharField(max_length=50)
    # The phrases as memory.types.serves_problems accepted them (trimmed); NULL: the type's own.
    phrases = models.JSONField(null=True)
    updated_by = models.CharField(max_length=255)
    updated_at = models.DateTimeField(default=timezone.now)

    class Meta:
        db_table = "memory_type_serves"
        constraints = [
            models.UniqueConstraint(fields=["organization", "name"], name="memory_type_serves_unique"),
        ]


class LifecycleEvent(models.Model):
    """Append-only history of a memory's lifecycle: who, what, why, under which policy; a keyed digest of the
    value, never the value."""

    class Type(models.TextChoices):
        PROPOSED = "proposed"
        CONFIRMED = "confirmed"
        REJECTED = "rejected"
        CORRECTED = "corrected"
        SUPERSEDED = "superseded"
        EXPIRED = "expired"
        QUARANTINED = "quarantined"
        # the value a quarantined one had superseded is current again; staff released a quarantined value
        REINSTATED = "reinstated"
        RELEASED = "released"
        CONSENT_REVOKED = "consent_revoked"
        DELETION_REQUESTED = "deletion_requested"
        DELETED = "deleted"

    event_id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    memory = models.ForeignKey(Memory, on_delete=models.PROTECT, db_column="memory_id", related_name="events",
                               db_constraint=False)
    organization_id = models.UUIDField()
    patient_id = models.UUIDField()
    purpose = models.CharField(max_length=80)
    event_type = models.CharField(max_length=30, choices=Type.choices)
    from_state = models.CharField(max_length=20, null=True)
    to_state = models.CharField(max_length=20)
    actor_sub = models.CharField(max_length=255)
    reason_code = models.CharField(max_length=60)
    policy_revision = models.CharField(max_length=80)
    source_ref = models.CharField(max_length=255, blank=True, default="")
    value_digest = models.CharField(max_length=64, null=True)
    occurred_at = models.DateTimeField(default=timezone.now)

    class Meta:
        db_table = "memory_lifecycle_event"
        indexes = [models.Index(fields=["memory", "occurred_at"], name="lifecycle_memory_time"),
                   models.Index(fields=["organization_id", "patient_id"], name="lifecycle_org_patient")]
        constraints = [models.CheckConstraint(condition=Q(event_type__in=[
            "proposed", "confirmed", "rejected", "corrected", "superseded", "expired", "quarantined", "reinstated",
            "released", "consent_revoked", "deletion_requested", "deleted"]), name="lifecycle_event_type_valid")]


class Representation(models.Model):
    """Every place a memory's value lives, so that deletion can reach and verify each one."""

    class Target(models.TextChoices):
        POSTGRES = "postgres"
        VECTOR = "vector"
        CACHE = "cache"
        PROVIDER_CONVERSATION = "provider_conversation"

    class State(models.TextChoices):
        ACTIVE = "active"
        DELETION_PENDING = "deletion_pending"
        DELETED = "deleted"
        VERIFIED = "verified"

    id = models.BigAutoField(primary_key=True)
    memory = models.ForeignKey(Memory, on_delete=models.PROTECT, db_column="memory_id",
                               related_name="representations", db_constraint=False)
    organization_id = models.UUIDField()
    patient_id = models.UUIDField()
    purpose = models.CharField(max_length=80)
    target = models.CharField(max_length=30, choices=Target.choices)
    external_id = models.CharField(max_length=255)
    state = models.CharField(max_length=20, choices=State.choices, default=State.ACTIVE)
    created_at = models.DateTimeField(default=timezone.now)
    deleted_at = models.DateTimeField(null=True, blank=True)
    verified_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        db_table = "memory_representation"
        constraints = [
            models.UniqueConstraint(fields=["memory", "target", "external_id", "organization_id"],
                                    name="representation_unique"),
            models.CheckConstraint(condition=Q(target__in=["postgres", "vector", "cache", "provider_conversation"]),
                                   name="representation_target_valid"),
            models.CheckConstraint(condition=Q(state__in=["active", "deletion_pending", "deleted", "verified"]),
                                   name="representation_state_valid"),
            models.CheckConstraint(
                condition=~Q(state="verified") | Q(verified_at__isnull=False, deleted_at__isnull=False),
                name="representation_verified_has_times"),
        ]


class Deletion(models.Model):
    """A deletion request and, once done, its receipt."""

    deletion_id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    organization_id = models.UUIDField()
    patient_id = models.UUIDField()
    scope = models.CharField(max_length=10)  # "memory" or "patient"
    requested_by = models.CharField(max_length=255)
    reason_code = models.CharField(max_length=60)
    requested_at = models.DateTimeField(default=timezone.now)
    completed_at = models.DateTimeField(null=True, blank=True)
    receipt = models.JSONField(default=dict)

    class Meta:
        db_table = "memory_deletion"
        indexes = [models.Index(fields=["organization_id", "patient_id"], name="deletion_org_patient")]
        constraints = [models.CheckConstraint(condition=Q(scope__in=["memory", "patient"]),
                                              name="deletion_scope_valid")]


class MemoryEmbedding(models.Model):
    """A vector representation of a memory's value (a copy of its meaning: deleted with it)."""

    id = models.BigAutoField(primary_key=True)
    memory = models.ForeignKey(Memory, on_delete=models.PROTECT, db_column="memory_id", related_name="embeddings",
                               db_constraint=False)
    organization_id = models.UUIDField()
    patient_id = models.UUIDField()
    purpose = models.CharField(max_length=80)
    model = models.CharField(max_length=120)
    embedding = VectorField()
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        db_table = "memory_embedding"
        indexes = [models.Index(fields=["organization_id", "patient_id"], name="embedding_org_patient")]
        constraints = [models.UniqueConstraint(fields=["memory", "model", "organization_id"],
                                               name="embedding_one_per_model")]


class Release(models.Model):
    """A context pack handed to an agent (and so to its model provider): which memories, to whom, why, when."""

    release_id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    organization_id = models.UUIDField()
    patient_id = models.UUIDField()
    purpose = models.CharField(max_length=80)
    actor_sub = models.CharField(max_length=255)
    # The agent it was handed to, when an agent asked (actor_sub is then the person it acted for).
    agent_client_id = models.CharField(max_length=255, null=True, blank=True)
    session_id = models.UUIDField(null=True, blank=True)
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        db_table = "memory_release"
        indexes = [models.Index(fields=["organization_id", "patient_id", "created_at"], name="release_patient_time")]


class ReleaseMember(models.Model):
    id = models.BigAutoField(primary_key=True)
    release = models.ForeignKey(Release, on_delete=models.PROTECT, db_column="release_id", related_name="members",
                                db_constraint=False)
    memory = models.ForeignKey(Memory, on_delete=models.PROTECT, db_column="memory_id", related_name="releases",
                               db_constraint=False)
    organization_id = models.UUIDField()
    patient_id = models.UUIDField()
    purpose = models.CharField(max_length=80)
    score = models.FloatField()
    included_at = models.DateTimeField(default=timezone.now)
    # Set when the memory is deleted: the agent holding this release is told to drop it.
    withdrawn_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        db_table = "memory_release_member"
        constraints = [models.UniqueConstraint(fields=["release", "memory", "organization_id"],
                                               name="release_member_unique")]
