"""Short-term conversation context: sessions for one patient and one purpose, and their turns.

Both tables carry ``organization_id``, ``patient_id`` and ``purpose`` so row-level security applies the common
access rule directly (migration ``0003_conversation_rls``). Invariants held by the database as well as by the
services (migration ``0002_conversation_invariants``):

* ``expires_at`` is computed by a trigger: the earlier of ``last_activity_at + idle_timeout`` (sliding) and
  ``absolute_expires_at``; a session never moves to another patient, organisation or purpose;
* a session leaves ``active`` once, for ``completed`` or ``abandoned``, and an ended session holds no slots and no
  cached summary, and is frozen;
* a turn belongs to a session of the same organisation, patient and purpose (composite foreign key), is inserted
  only into an active, unexpired session, and is never rewritten: the one update allowed clears a tool result.
"""

from __future__ import annotations

import uuid

from django.db import models
from django.db.models import F, Q
from django.utils import timezone

from core.vocabulary import PURPOSES


class SessionStatus(models.TextChoices):
    ACTIVE = "active"
    COMPLETED = "completed"
    ABANDONED = "abandoned"


ENDED_STATUSES = (SessionStatus.COMPLETED, SessionStatus.ABANDONED)


class TurnRole(models.TextChoices):
    USER = "user"
    ASSISTANT = "assistant"
    TOOL = "tool"


class ConversationSessionQuerySet(models.QuerySet):
    def for_patient(self, org_id, patient_id):
        return self.filter(organization_id=org_id, patient_id=patient_id)

    def live(self, now=None):
        """Active and inside both deadlines, evaluated at query time: an expired session is never served,
        whether or not the sweep has removed it yet."""
        return self.filter(status=SessionStatus.ACTIVE, expires_at__gt=now or timezone.now())


class ConversationSession(models.Model):
    session_id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    organization = models.ForeignKey("core.Organization", on_delete=models.PROTECT, db_column="organization_id")
    patient_id = models.UUIDField()
    purpose = models.CharField(max_length=80, choices=PURPOSES)
    status = models.CharField(max_length=20, choices=SessionStatus.choices, default=SessionStatus.ACTIVE)
    created_by = models.CharField(max_length=255)
    # The AI agent that started it, when an agent did (its token's subject, created_by, is the person it acted for)
    agent_client_id = models.CharField(max_length=255, null=True, blank=True)
    created_at = models.DateTimeField(default=timezone.now)
    last_activity_at = models.DateTimeField()
    idle_timeout = models.DurationField()
    absolute_expires_at = models.DateTimeField()
    # Set by trigger from the three columns above; the services never compute it on their own.
    expires_at = models.DateTimeField()
    ended_at = models.DateTimeField(null=True, blank=True)
    # When an ended session (and its turns) may be removed by the sweep.
    retain_until = models.DateTimeField(null=True, blank=True)
    turn_count = models.IntegerField(default=0)
    slots = models.JSONField(default=dict)
    # Care-team routing flags: category codes and turn references only, never text.
    care_team_flags = models.JSONField(default=list)
    # An LLM summary of the turns up to a sequence number (never for ended sessions).
    summary_cache = models.JSONField(null=True, blank=True)

    objects = ConversationSessionQuerySet.as_manager()

    class Meta:
        db_table = "conversation_session"
        indexes = [
            models.Index(fields=["organization", "patient_id", "status"], name="conversation_session_patient"),
            models.Index(fields=["expires_at"], condition=Q(status="active"), name="conversation_session_expiry"),
            models.Index(fields=["retain_until"], condition=~Q(status="active"),
                         name="conversation_session_retention"),
        ]
        constraints = [
            models.CheckConstraint(condition=Q(status__in=SessionStatus.values), name="conversation_status_valid"),
            models.CheckConstraint(
                condition=Q(status="active", ended_at__isnull=True, retain_until__isnull=True)
                | Q(status__in=ENDED_STATUSES, ended_at__isnull=False, retain_until__isnull=False),
                name="conversation_ended_has_times"),
            # Cleanup is an invariant: an ended session keeps no slots and no summary of its turns.
            models.CheckConstraint(condition=Q(status="active") | Q(slots={}, summary_cache__isnull=True),
                                   name="conversation_ended_is_cleared"),
            models.CheckConstraint(condition=Q(expires_at__lte=F("absolute_expires_at")),
                                   name="conversation_expiry_within_limit"),
            models.CheckConstraint(condition=Q(absolute_expires_at__gt=F("created_at")),
                                   name="conversation_limit_after_start"),
            models.CheckConstraint(condition=Q(turn_count__gte=0), name="conversation_turn_count_valid"),
        ]


class ConversationTurn(models.Model):
    turn_id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    # The database's key onto the session is conversation_turn_same_scope (organisation, patient, purpose too).
    session = models.ForeignKey(ConversationSession, on_delete=models.PROTECT, db_column="session_id",
                                related_name="turns", db_constraint=False)
    organization_id = models.UUIDField()
    patient_id = models.UUIDField()
    purpose = models.CharField(max_length=80)
    seq = models.IntegerField()
    role = models.CharField(max_length=10, choices=TurnRole.choices)
    content = models.TextField()
    tool_name = models.CharField(max_length=64, null=True, blank=True)
    tool_result = models.JSONField(null=True, blank=True)
    # The parser's reading of a user turn (conversations.parsing.TurnParse.as_dict), so slots and
    # summaries replay without parsing again and proposals read the turn exactly as the slots did.
    parsed = models.JSONField(null=True, blank=True)
    token_count = models.IntegerField()
    created_by = models.CharField(max_length=255)
    # The AI agent that wrote it, when an agent did (its token's subject, created_by, is the person it acted for)
    agent_client_id = models.CharField(max_length=255, null=True, blank=True)
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        db_table = "conversation_turn"
        constraints = [
            models.UniqueConstraint(fields=["session", "seq", "organization_id"], name="conversation_turn_seq_unique"),
            models.CheckConstraint(condition=Q(seq__gte=1), name="conversation_turn_seq_positive"),
            models.CheckConstraint(condition=Q(role__in=TurnRole.values), name="conversation_turn_role_valid"),
            models.CheckConstraint(condition=Q(role="tool", tool_name__isnull=False)
                                   | (~Q(role="tool") & Q(tool_name__isnull=True, tool_result__isnull=True)),
                                   name="conversation_turn_tool_fields"),
            models.CheckConstraint(condition=Q(role="user") | Q(parsed__isnull=True),
                                   name="conversation_turn_parsed_user_only"),
            models.CheckConstraint(condition=Q(token_count__gte=0), name="conversation_turn_tokens_valid"),
        ]
