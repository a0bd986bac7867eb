"""Conversation sessions over the agent API: thin views on ScopedAPIView (scopes, identity context, audit of
refusals), one service or selector each.

Scopes: short-term context is memory, so the existing scopes apply: ``memory:write`` to start, append, end and
propose; ``memory:read`` to read a session and its model context; both to search offers (it reads long-term
preferences and records a tool turn).
"""

from __future__ import annotations

from django.conf import settings
from drf_spectacular.utils import OpenApiParameter, extend_schema, extend_schema_field, inline_serializer
from rest_framework import serializers, status
from rest_framework.response import Response

from consent import purpose as purpose_of_use
from conversations import selectors, services
from conversations.context import public_slots
from conversations.models import ConversationSession, SessionStatus, TurnRole
from conversations.parsing import DAYS, INTENTS, PERIODS, SPECIALTIES
from conversations.slots import clarifying_questions, next_action
from core import audit
from core.api import ScopedAPIView
from core.errors import cursor_checked
from core.serializers import (
    JSONObjectIn,
    ModelOutSerializer,
    NoBody,
    RealUUIDIn,
    StrictSerializer,
    integer_parameter,
    next_cursor_field,
    page_parameters,
)
from core.vocabulary import PURPOSES
from memory import selectors as memory_selectors
from memory.api import MemoryOut

TIME = r"^([01]\d|2[0-3]):[0-5]\d$"
SOURCE = r"^turn:[1-9][0-9]*$"


# --- output shapes -------------------------------------------------------------------------------------------------

def _inline_enum(values, name: str) -> type[serializers.CharField]:
    """A string field documented by a pattern over its values. The same day and period lists appear under several
    field names; as enums, each name would need an ENUM_NAME_OVERRIDES entry in the project settings."""
    pattern = "^(?:" + "|".join(values) + ")$"
    return extend_schema_field({"type": "string", "pattern": pattern})(type(name, (serializers.CharField,), {}))


DayField = _inline_enum(DAYS, "DayField")
PeriodField = _inline_enum(PERIODS, "PeriodField")
PreferenceKindField = _inline_enum(["earliest_time", "latest_time", "excluded_days", "excluded_periods"],
                                   "PreferenceKindField")


class SessionOut(ModelOutSerializer):
    idle_timeout_seconds = serializers.SerializerMethodField()

    class Meta:
        model = ConversationSession
        fields = ["session_id", "patient_id", "purpose", "status", "turn_count", "created_at", "last_activity_at",
                  "expires_at", "absolute_expires_at", "idle_timeout_seconds", "ended_at"]

    def get_idle_timeout_seconds(self, obj) -> int:
        return int(obj.idle_timeout.total_seconds())


class OfferOut(serializers.Serializer):
    slot_id = serializers.CharField()
    start = serializers.CharField(help_text="Clinic-local wall-clock time, YYYY-MM-DDTHH:MM")
    day = DayField()
    time = serializers.RegexField(TIME)


class LastOfferOut(serializers.Serializer):
    source_id = serializers.RegexField(SOURCE)
    slots = OfferOut(many=True)


_PAIRS_HELP = ("A day and a part of the day said together ('not Monday morning', 'Tuesday morning or Thursday "
               "afternoon'): one constraint on both, not on every such day or every such part of the day")


class DayPeriodOut(serializers.Serializer):
    day = DayField()
    period = PeriodField()


class SlotsOut(serializers.Serializer):
    intent = serializers.ChoiceField(choices=INTENTS, allow_null=True)
    specialty = serializers.ChoiceField(choices=sorted(SPECIALTIES), allow_null=True)
    visit_type = serializers.ChoiceField(choices=["followup", "new"], allow_null=True)
    preferred_days = serializers.ListField(child=DayField())
    excluded_days = serializers.ListField(child=DayField())
    preferred_period = PeriodField(allow_null=True)
    excluded_periods = serializers.ListField(child=PeriodField())
    preferred_day_periods = DayPeriodOut(many=True, help_text=_PAIRS_HELP)
    excluded_day_periods = DayPeriodOut(many=True, help_text=_PAIRS_HELP)
    earliest_time = serializers.RegexField(TIME, allow_null=True)
    latest_time = serializers.RegexField(TIME, allow_null=True)
    selected_slot_id = serializers.CharField(allow_null=True)
    last_offer = LastOfferOut(allow_null=True, help_text="The latest offers (a tool result; cleared at the end)")


class QuestionOut(serializers.Serializer):
    question = serializers.CharField()
    source_id = serializers.RegexField(SOURCE)


class FlagOut(serializers.Serializer):
    category = serializers.CharField(help_text="e.g. medication_anticoagulant, urgent_symptom: a code, never text")
    urgent = serializers.BooleanField()
    source_id = serializers.RegexField(SOURCE)


class SessionStateOut(serializers.Serializer):
    session = SessionOut()
    slots = SlotsOut()
    next_action = serializers.CharField()
    clarifying_questions = QuestionOut(many=True)
    care_team_flags = FlagOut(many=True)


def _state(session: ConversationSession) -> dict:
    live = session.status == SessionStatus.ACTIVE
    flags = [{k: f[k] for k in ("category", "urgent", "source_id")} for f in session.care_team_flags]
    return {"session": SessionOut(session).data, "slots": public_slots(session.slots),
            "next_action": next_action(session.slots, session.care_team_flags) if live else "none",
            "clarifying_questions": clarifying_questions(session.slots), "care_team_flags": flags}


class TurnOut(serializers.Serializer):
    seq = serializers.IntegerField()
    source_id = serializers.RegexField(SOURCE)
    role = serializers.ChoiceField(choices=TurnRole.values)
    tool_name = serializers.CharField(allow_null=True)
    token_count = serializers.IntegerField()
    created_at = serializers.DateTimeField()


class TurnAppendedOut(SessionStateOut):
    turn = TurnOut()
    new_care_team_flags = FlagOut(many=True)


class FactOut(serializers.Serializer):
    fact = serializers.CharField()
    source_id = serializers.RegexField(SOURCE)
    confidence = serializers.FloatField(min_value=0, max_value=1)


class DecisionOut(serializers.Serializer):
    decision = serializers.CharField()
    source_id = serializers.RegexField(SOURCE)


class SideEffectOut(serializers.Serializer):
    effect = serializers.CharField()
    status = serializers.CharField()
    source_id = serializers.RegexField(SOURCE)


class SummaryOut(serializers.Serializer):
    """The structured summary of the older turns (summaries.SUMMARY_SCHEMA)."""
    confirmed_facts = FactOut(many=True)
    open_questions = QuestionOut(many=True)
    decisions = DecisionOut(many=True)
    side_effects = SideEffectOut(many=True)
    source_ids = serializers.ListField(child=serializers.RegexField(SOURCE))
    next_action = serializers.CharField()


class MessageOut(serializers.Serializer):
    source_id = serializers.RegexField(SOURCE)
    role = serializers.ChoiceField(choices=TurnRole.values)
    content = serializers.CharField(allow_blank=True)
    tool_name = serializers.CharField(required=False)
    tool_result = serializers.DictField(required=False)


class StandingPreferenceOut(serializers.Serializer):
    kind = PreferenceKindField()
    time = serializers.RegexField(TIME, required=False)
    days = serializers.ListField(child=DayField(), required=False)
    periods = serializers.ListField(child=PeriodField(), required=False)


class ModelContextOut(serializers.Serializer):
    """What the model sees. It never holds the patient identifier."""
    purpose = serializers.ChoiceField(choices=PURPOSES)
    slots = SlotsOut()
    standing_preferences = StandingPreferenceOut(many=True, help_text="Current long-term scheduling preferences")
    next_action = serializers.CharField()
    clarifying_questions = QuestionOut(many=True)
    care_team_flags = FlagOut(many=True)
    care_team_note = serializers.CharField(allow_null=True)
    summary = SummaryOut(allow_null=True, help_text="Older turns that did not fit, summarised")
    summarised_through = serializers.RegexField(SOURCE, allow_null=True)
    messages = MessageOut(many=True, help_text="The newest turns that fit, oldest first")


class BudgetOut(serializers.Serializer):
    max_tokens = serializers.IntegerField()
    used_tokens = serializers.IntegerField(help_text="Tokens of the JSON-serialised context (compact separators)")
    tokenizer = serializers.CharField()
    turns_total = serializers.IntegerField()
    turns_included = serializers.IntegerField()
    turns_summarised = serializers.IntegerField()
    truncated = serializers.BooleanField()
    summariser = serializers.CharField(allow_null=True)


class ContextOut(serializers.Serializer):
    session_id = serializers.UUIDField()
    expires_at = serializers.DateTimeField()
    context = ModelContextOut()
    budget = BudgetOut()


class ConstraintsOut(serializers.Serializer):
    preferred_days = serializers.ListField(child=DayField())
    preferred_period = PeriodField(allow_null=True)
    excluded_days = serializers.ListField(child=DayField())
    excluded_periods = serializers.ListField(child=PeriodField())
    preferred_day_periods = DayPeriodOut(many=True, help_text=_PAIRS_HELP)
    excluded_day_periods = DayPeriodOut(many=True, help_text=_PAIRS_HELP)
    earliest_time = serializers.RegexField(TIME, allow_null=True)
    latest_time = serializers.RegexField(TIME, allow_null=True)
    sources = serializers.DictField(child=serializers.ListField(child=serializers.CharField()),
                                    help_text="Where each constraint came from: turn:N or memory:<id>")


class OffersOut(serializers.Serializer):
    offers = OfferOut(many=True)
    considered = serializers.IntegerField(help_text="Slots the scheduling system returned")
    constraints = ConstraintsOut()
    next_action = serializers.CharField()
    turn = TurnOut(help_text="The tool turn that records these offers")


class SkippedOut(serializers.Serializer):
    kind = serializers.CharField()
    reason = serializers.ChoiceField(
        choices=["needs_clarification", "already_current", "already_proposed", "not_kept_long_term"],
        help_text="not_kept_long_term: a day and a part of the day said together ('not Monday morning') apply to "
                  "this conversation only; kept long-term they would be widened to every Monday or every morning")


class ProposalsOut(serializers.Serializer):
    proposed = MemoryOut(many=True)
    skipped = SkippedOut(many=True)


# --- input shapes --------------------------------------------------------------------------------------------------

class SessionStartIn(StrictSerializer):
    patient_id = RealUUIDIn()
    purpose = serializers.ChoiceField(choices=PURPOSES)


class TurnIn(StrictSerializer):
    role = serializers.ChoiceField(choices=TurnRole.values)
    content = serializers.CharField(allow_blank=True, trim_whitespace=False,
                                    help_text="At most CONVERSATION_MAX_CONTENT_CHARS (default 8000) characters")
    tool_name = serializers.RegexField(r"^[A-Za-z0-9_.:\-]{1,64}$", required=False, allow_null=True)
    tool_result = JSONObjectIn(required=False, allow_null=True,
                                        help_text="Tool turns only; an object of at most "
                                                  "CONVERSATION_MAX_TOOL_RESULT_BYTES (default 16 KiB) as JSON")


class EndIn(StrictSerializer):
    outcome = serializers.ChoiceField(choices=[SessionStatus.COMPLETED, SessionStatus.ABANDONED])


def _turn(turn) -> dict:
    return {"seq": turn.seq, "source_id": f"turn:{turn.seq}", "role": turn.role, "tool_name": turn.tool_name,
            "token_count": turn.token_count, "created_at": serializers.DateTimeField().to_representation(
                turn.created_at)}


# --- views ---------------------------------------------------------------------------------------------------------

class _SessionView(ScopedAPIView):
    abstract = True
    resource_type = "conversation_session"

    def replay_still_holds(self, data) -> bool:
        """A stored answer showing a conversation is given again only while the conversation is live: a retry
        after it ended or expired gets 409 ``idempotent_response_withdrawn``, never the slots and offers that
        ending cleared, nor an "active" state."""
        session_id = self.kwargs.get("session_id") or (data.get("session") or {}).get("session_id")
        return session_id is not None and selectors.session_is_live(identity=self.identity, session_id=session_id)

    def idempotency_patient_id(self, data):
        # an answer about a session (offers, proposals) need not name its patient: the session does
        if "session_id" in self.kwargs:
            return selectors.session_patient_id(identity=self.identity, session_id=self.kwargs["session_id"])
        return super().idempotency_patient_id(data)


class SessionsView(_SessionView):
    """Start a conversation for one patient and one purpose."""

    idempotent_create = True
    required_scopes = {"POST": ["memory:write"]}
    audit_actions = {"POST": "conversation.start"}

    def audit_patient_id(self):
        return self.request.data.get("patient_id") if isinstance(self.request.data, dict) else None

    @extend_schema(operation_id="sessions_create", request=SessionStartIn, responses={201: SessionStateOut})
    def post(self, request):
        body = SessionStartIn(data=request.data)
        body.is_valid(raise_exception=True)
        session = services.session_start(identity=self.identity, **body.validated_data)
        return Response(_state(session), status=status.HTTP_201_CREATED)


def _check_read_purpose(view: ScopedAPIView, request, session) -> None:
    """A conversation is held for one purpose, and is read for that one: a read naming another (``purpose``, or the
    token's one ``purpose_of_use`` claim) is 403 ``purpose_not_permitted``, and so is one naming it that the caller
    may not read for (an agent once the patient's consent for it is withdrawn: the purpose rule of every read).
    Only a caller who sees the session gets this far, so the answer reveals nothing the caller could not read.
    An agent's read that names no purpose is for the conversation's own: the rule applies to it all the same."""
    purpose = purpose_of_use.query_purpose(view.identity, request.query_params)
    if purpose is None:
        if view.identity.is_agent:
            purpose_of_use.require_purpose(view.identity, patient_id=session.patient_id, purpose=session.purpose)
        return
    if purpose != session.purpose:
        raise purpose_of_use.PurposeNotPermitted(
            "this conversation is held for another purpose").about(patient_id=session.patient_id, purpose=purpose)
    purpose_of_use.require_purpose(view.identity, patient_id=session.patient_id, purpose=purpose)


_PURPOSE_PARAMETER = purpose_of_use.purpose_parameter("A conversation is read for the purpose it is held for.")


class SessionDetailView(_SessionView):
    """A session's state: slots, next action, open questions, care-team flags (no turn text)."""
    required_scopes = {"GET": ["memory:read"]}
    audit_actions = {"GET": "conversation.read"}
    query_parameters = {"GET": frozenset({"purpose"})}

    @extend_schema(operation_id="sessions_read", responses={200: SessionStateOut}, parameters=[_PURPOSE_PARAMETER])
    def get(self, request, session_id):
        session = selectors.session_get(identity=self.identity, session_id=session_id)
        _check_read_purpose(self, request, session)
        if session.status == SessionStatus.ACTIVE:
            selectors.check_live(session)
        audit.record(action="conversation.read", resource_type="conversation_session", resource_id=session_id,
                     patient_id=session.patient_id, purpose=session.purpose)
        return Response(_state(session))


class SessionTurnsView(_SessionView):
    idempotent_create = True
    required_scopes = {"POST": ["memory:write"]}
    audit_actions = {"POST": "conversation.turn"}

    @extend_schema(operation_id="sessions_turns_append", request=TurnIn, responses={201: TurnAppendedOut},
                   description="Append a user, assistant or tool turn. Slots are updated from every user turn; "
                               "clinical remarks are flagged for the care team, never stored as memory.")
    def post(self, request, session_id):
        body = TurnIn(data=request.data)
        body.is_valid(raise_exception=True)
        data = body.validated_data
        appended = services.turn_append(identity=self.identity, session_id=session_id, role=data["role"],
                                        content=data["content"], tool_name=data.get("tool_name"),
                                        tool_result=data.get("tool_result"))
        flags = [{k: f[k] for k in ("category", "urgent", "source_id")} for f in appended.new_flags]
        return Response({**_state(appended.session), "turn": _turn(appended.turn), "new_care_team_flags": flags},
                        status=status.HTTP_201_CREATED)


class SessionContextView(_SessionView):
    required_scopes = {"GET": ["memory:read"]}
    audit_actions = {"GET": "conversation.context"}
    query_parameters = {"GET": frozenset({"max_tokens", "purpose"})}

    @extend_schema(
        operation_id="sessions_context",
        parameters=[OpenApiParameter("max_tokens", {"type": "integer",
                                                    "minimum": settings.CONVERSATION_CONTEXT_MIN_TOKENS,
                                                    "maximum": settings.CONVERSATION_CONTEXT_MAX_TOKENS},
                                     required=False,
                                     description="Token budget of the context (cl100k_base); default "
                                                 "CONVERSATION_CONTEXT_DEFAULT_TOKENS (2000)"),
                    _PURPOSE_PARAMETER],
        responses={200: ContextOut},
        description="The model context within a token budget: slots, standing preferences, the newest turns that "
                    "fit and a structured summary of the older ones. Never holds the patient identifier.")
    def get(self, request, session_id):
        max_tokens = integer_parameter(request.query_params, "max_tokens", blank=True,
                                       default=settings.CONVERSATION_CONTEXT_DEFAULT_TOKENS,
                                       low=settings.CONVERSATION_CONTEXT_MIN_TOKENS,
                                       high=settings.CONVERSATION_CONTEXT_MAX_TOKENS)
        # another purpose is refused before any turn is read or sent to the summariser
        session, built = selectors.session_context(identity=self.identity, session_id=session_id,
                                                   max_tokens=max_tokens,
                                                   check=lambda s: _check_read_purpose(self, request, s))
        if built.summary_cache is not None:
            services.session_summary_store(identity=self.identity, session_id=session_id, cache=built.summary_cache)
        return Response({"session_id": session.session_id, "expires_at": session.expires_at,
                         "context": built.context, "budget": built.budget()})


class SessionOffersView(_SessionView):
    idempotent_create = True
    required_scopes = {"POST": ["memory:read", "memory:write"]}
    audit_actions = {"POST": "conversation.offers"}

    @extend_schema(operation_id="sessions_offers_search", request=None, responses={200: OffersOut},
                   description="Search the scheduling system with the conversation's slots and the patient's "
                               "long-term scheduling preferences; the result is recorded as a tool turn.")
    def post(self, request, session_id):
        NoBody.check(request)
        result = services.offers_search(identity=self.identity, session_id=session_id)
        constraints = {k: result.constraints[k] for k in (
            "preferred_days", "preferred_period", "excluded_days", "excluded_periods", "preferred_day_periods",
            "excluded_day_periods", "earliest_time", "latest_time", "sources")}
        session = result.appended.session
        return Response({"offers": result.offers, "considered": result.considered, "constraints": constraints,
                         "next_action": next_action(session.slots, session.care_team_flags),
                         "turn": _turn(result.appended.turn)})


class SessionEndView(_SessionView):
    required_scopes = {"POST": ["memory:write"]}
    audit_actions = {"POST": "conversation.end"}

    @extend_schema(operation_id="sessions_end", request=EndIn, responses={200: SessionStateOut},
                   description="End as completed or abandoned: slots, summary and tool results are cleared now; the "
                               "sweep removes the turns later. Ending again with the same outcome is a no-op.")
    def post(self, request, session_id):
        body = EndIn(data=request.data)
        body.is_valid(raise_exception=True)
        session = services.session_end(identity=self.identity, session_id=session_id,
                                       outcome=body.validated_data["outcome"])
        return Response(_state(session))


class TurnProposeView(_SessionView):
    idempotent_create = True
    required_scopes = {"POST": ["memory:write"]}
    audit_actions = {"POST": "conversation.propose"}

    def replay_still_holds(self, data) -> bool:
        """The answer shows the proposed memories, which outlive the conversation: given again while each still
        reads as it did (as the memory API's answers), not once the patient confirmed it or it expired."""
        return memory_selectors.memory_answer_still_holds(identity=self.identity, data=data)

    @extend_schema(operation_id="sessions_turns_propose", request=None, responses={201: ProposalsOut},
                   description="Propose the durable scheduling preferences stated in this user turn as long-term "
                               "memories (state proposed; needs the patient's active consent; source_ref points "
                               "at the turn). Nothing is used until the patient or staff confirm it.")
    def post(self, request, session_id, seq):
        NoBody.check(request)
        result = services.preferences_propose(identity=self.identity, session_id=session_id, seq=seq)
        return Response({"proposed": MemoryOut(result.proposed, many=True).data, "skipped": result.skipped},
                        status=status.HTTP_201_CREATED)


class CareTeamFlagOut(serializers.Serializer):
    session_id = serializers.UUIDField()
    purpose = serializers.CharField()
    session_status = serializers.CharField()
    category = serializers.CharField(help_text="e.g. medication_anticoagulant, urgent_symptom: a code, never text")
    urgent = serializers.BooleanField()
    source_id = serializers.RegexField(SOURCE)
    flagged_at = serializers.DateTimeField(allow_null=True)


class PatientCareTeamFlagsView(ScopedAPIView):
    """Clinical remarks routed to the care team from the patient's conversations (codes, never what was said),
    for whoever may see those conversations: urgent first. Nothing the caller may not see: an empty list. A page at
    a time: pass the answer's ``next_cursor`` as ``cursor`` (null on the last page)."""

    resource_type = "conversation_session"
    required_scopes = {"GET": ["memory:read"]}
    audit_actions = {"GET": "conversation.flags"}
    query_parameters = {"GET": frozenset({"purpose", "limit", "cursor"})}

    @extend_schema(operation_id="care_team_flags_list",
                   parameters=[purpose_of_use.purpose_parameter("Only conversations held for it are read."),
                               *page_parameters(default=100, older="the flagged sessions after those (a page "
                                                                   "holds every flag of up to limit sessions)")],
                   responses={200: inline_serializer("CareTeamFlags", {"items": CareTeamFlagOut(many=True),
                                                                       "next_cursor": next_cursor_field()})})
    def get(self, request, patient_id):
        purpose = purpose_of_use.checked_query_purpose(self.identity, request.query_params, patient_id=patient_id)
        limit = integer_parameter(request.query_params, "limit", default=100, low=1, high=500)
        with cursor_checked():
            items, next_cursor = selectors.care_team_flags(identity=self.identity, patient_id=patient_id,
                                                           limit=limit, purpose=purpose,
                                                           cursor=request.query_params.get("cursor"))
        return Response({"items": items, "next_cursor": next_cursor})

