from __future__ import annotations

from datetime import datetime

from drf_spectacular.utils import OpenApiParameter, extend_schema, extend_schema_field, inline_serializer
from rest_framework import serializers, status
from rest_framework.response import Response

from consent import purpose as purpose_of_use
from core import audit
from core.api import ScopedAPIView
from core.errors import NotFound, ValidationFailed
from core.identity import commit_with_next_statement
from core.serializers import (
    DateTimeIn,
    JSONObjectIn,
    ModelOutSerializer,
    NoBody,
    QueryInteger,
    StrictSerializer,
    UUIDIn,
    require_readable,
    require_visible,
)
from core.vocabulary import PURPOSES, REASON_CODE_PATTERN
from memory import deletion, retrieval, review, selectors, services, sessions
from memory.api_reads import list_data, list_rows, types_after_read, types_sent_with_read
from memory.models import LifecycleEvent, Memory, MemoryClass, MemoryState, Source
from memory.rendering import memory_item, memory_out
from memory.types import NAME as TYPE_NAME


class MemoryOut(ModelOutSerializer):
    """A remembered fact: its value and text, where it came from, what it is kept for, until when, and its state."""

    # The fields declare the schema; the rendering is memory.rendering's, the one every face uses.

    fact = serializers.DictField(allow_null=True, read_only=True)
    text = serializers.CharField(allow_null=True, read_only=True)
    guardrails = serializers.DictField(read_only=True)
    consent_record_id = serializers.UUIDField(allow_null=True)
    superseded_by = serializers.UUIDField(source="superseded_by_id", allow_null=True)
    confidence = serializers.FloatField()

    class Meta:
        model = Memory
        fields = ["memory_id", "patient_id", "memory_class", "memory_type", "type_version", "attribute", "fact",
                  "text",
                  "state", "source", "source_ref", "confidence", "policy_revision", "consent_purpose",
                  "consent_record_id", "valid_from", "valid_until", "expires_at", "review_by", "superseded_by",
                  "guardrails", "created_by", "agent_client_id", "created_at"]

    def to_representation(self, instance: Memory) -> dict:
        return memory_out(instance)


MEMORY_STORED = inline_serializer("MemoryStored", {
    "memory_id": serializers.UUIDField(),
    "status": serializers.CharField(help_text="stored, proposed (an agent's write), or already_proposed (200: the "
                                              "agent's identical proposal still waiting; nothing new written)"),
    "memory": MemoryOut()})


class MemoryIn(StrictSerializer):
    memory_type = serializers.CharField(max_length=60, help_text="A type from GET /v1/memory-types")
    fact = JSONObjectIn(help_text="Typed fact; `kind` names the attribute, e.g. "
                                           '{"kind": "earliest_time", "time": "10:00"}')
    consent_purpose = serializers.ChoiceField(choices=PURPOSES)
    consent_record_id = UUIDIn(required=False, allow_null=True, help_text="Required except for care context")
    valid_until = DateTimeIn(required=False, allow_null=True)
    review_by = DateTimeIn(required=False, allow_null=True,
                                          help_text="Types with review (care context)")
    source = serializers.ChoiceField(choices=[Source.STAFF_ENTERED, Source.EHR_IMPORT], required=False,
                                     help_text="Types that staff or an EHR import write")
    source_ref = serializers.CharField(required=False, max_length=255, validators=[require_readable],
                                       help_text="Types that staff or an EHR import write")


class ProposalIn(StrictSerializer):
    memory_type = serializers.CharField(max_length=60, help_text="A type from GET /v1/memory-types")
    fact = JSONObjectIn()
    consent_purpose = serializers.ChoiceField(choices=PURPOSES)
    consent_record_id = UUIDIn()
    source_ref = serializers.CharField(max_length=255, validators=[require_readable],
                                       help_text="The conversation turn it was extracted from")
    confidence = serializers.FloatField(min_value=0, max_value=1, required=False, default=0.8)
    valid_until = DateTimeIn(required=False, allow_null=True)


class CorrectionIn(StrictSerializer):
    fact = JSONObjectIn()
    valid_until = DateTimeIn(required=False, allow_null=True)
    review_by = DateTimeIn(required=False, allow_null=True)


class QuarantineIn(StrictSerializer):
    reason_code = serializers.RegexField(REASON_CODE_PATTERN, help_text="e.g. disputed_by_patient")


class ReleaseIn(StrictSerializer):
    reason_code = serializers.RegexField(REASON_CODE_PATTERN, required=False, help_text="quarantine_released if none")


class RepresentationReceipt(serializers.Serializer):
    memory_id = serializers.UUIDField()
    target = serializers.CharField()
    external_id = serializers.CharField()
    state = serializers.CharField()
    deleted_at = serializers.DateTimeField()
    verified_at = serializers.DateTimeField()


class DeletionReceipt(serializers.Serializer):
    deletion_id = serializers.UUIDField()
    patient_id = serializers.UUIDField()
    scope = serializers.ChoiceField(choices=["memory", "patient"])
    reason_code = serializers.CharField()
    requested_by = serializers.CharField()
    requested_at = serializers.DateTimeField()
    completed_at = serializers.DateTimeField()
    memory_ids = serializers.ListField(child=serializers.UUIDField())
    representations = RepresentationReceipt(many=True)
    retained = serializers.ListField(child=serializers.DictField())
    other_copies = serializers.ListField(
        child=serializers.DictField(), required=False,
        help_text="Other copies reached: erase-all's conversations, workflow state and payloads; one memory's "
                  "deletion, the conversation tool results that held it")
    stored_responses_removed = serializers.IntegerField(
        help_text="Stored responses of safe retries (Idempotency-Key) about this patient, of every caller, removed: "
                  "a replay cannot give the deleted values back; those keys act as new ones")


class LifecycleEventOut(ModelOutSerializer):
    class Meta:
        model = LifecycleEvent
        fields = ["event_id", "memory_id", "event_type", "from_state", "to_state", "actor_sub", "reason_code",
                  "policy_revision", "source_ref", "value_digest", "occurred_at"]


class MemoryListParams(serializers.Serializer):
    """Query parameters of the list: closed sets only (an empty value means "any")."""

    memory_type = serializers.RegexField(TYPE_NAME.pattern, max_length=50, required=False, allow_blank=True)
    consent_purpose = serializers.ChoiceField(choices=PURPOSES, required=False, allow_blank=True)
    purpose = serializers.ChoiceField(choices=PURPOSES, required=False)


class _MemoryView(ScopedAPIView):
    abstract = True
    resource_type = "memory"

    def replay_still_holds(self, data) -> bool:
        """A stored answer showing memories is given again only while each still reads as it did: a value whose
        consent or validity ran out, or that staff set aside, is not served by a retry either."""
        return selectors.memory_answer_still_holds(identity=self.identity, data=data)


class PatientMemoriesView(_MemoryView):
    """Long-term memories of one patient (compatible with the seed's reference service)."""

    idempotent_create = True
    required_scopes = {"GET": ["memory:read"], "POST": ["memory:write"], "DELETE": ["memory:write"]}
    audit_actions = {"GET": "memory.list", "POST": "memory.create", "DELETE": "memory.erase_all"}
    query_parameters = {"GET": frozenset({"memory_type", "consent_purpose", "purpose"})}
    blank_query_parameters = {"GET": frozenset({"memory_type", "consent_purpose"})}  # empty means "any"

    @extend_schema(
        operation_id="memories_list",
        # an empty value means "any" (as the serializer reads it), so the published sets include it
        parameters=[OpenApiParameter("memory_type", str, required=False,
                                     pattern="^$|" + TYPE_NAME.pattern),
                    OpenApiParameter("consent_purpose", str, required=False,
                                     enum=[p for p, _ in PURPOSES] + [""],
                                     description="The older name of purpose (both, differing: 422)"),
                    purpose_of_use.purpose_parameter()],
        responses={200: inline_serializer("MemoryList", {"items": MemoryOut(many=True)})},
    )
    def get(self, request, patient_id):
        p: dict = {}
        if request.query_params:  # checked before anything reaches the audit row
            params = MemoryListParams(data=request.query_params)
            params.is_valid(raise_exception=True)
            p = params.validated_data
        read = list_rows(self.identity, patient_id, purpose=p.get("purpose"),
                          consent_purpose=p.get("consent_purpose"), memory_type=p.get("memory_type") or None)
        return Response(list_data(read))

    # The list without parameters, answered without DRF's machinery when the token is known (core.api)
    @staticmethod
    def quick_get_rows(identity, patient_id):
        return list_rows(identity, patient_id, types_with_read=False), identity

    @staticmethod
    def quick_get_data(read):
        (rows, specs), identity = read
        return list_data((rows, types_after_read(identity, rows, specs)))

    @extend_schema(
        operation_id="memories_create",
        request=MemoryIn,
        responses={code: MEMORY_STORED for code in (201, 200)},
    )
    def post(self, request, patient_id):
        body = MemoryIn(data=request.data)
        body.is_valid(raise_exception=True)
        memory, created = services.memory_write(identity=self.identity, patient_id=patient_id,
                                                **body.validated_data)
        # An agent's write is kept as a proposal until the patient or staff confirm it; the same again while it
        # waits is answered with it ("already_proposed", 200), as an identical proposal is.
        stored = "stored" if memory.state != MemoryState.PROPOSED else "proposed" if created else "already_proposed"
        return Response({"memory_id": str(memory.memory_id), "status": stored, "memory": memory_out(memory)},
                        status=status.HTTP_201_CREATED if created else status.HTTP_200_OK)

    @extend_schema(operation_id="memories_erase_all", request=None, responses={200: DeletionReceipt})
    def delete(self, request, patient_id):
        NoBody.check(request)  # {"memory_ids": [...]} would otherwise erase everything, not the memories it names
        return Response(deletion.memory_erase_patient(identity=self.identity, patient_id=patient_id))


class MemoryDetailView(_MemoryView):
    required_scopes = {"GET": ["memory:read"], "DELETE": ["memory:write"]}
    audit_actions = {"GET": "memory.read", "DELETE": "memory.delete"}

    query_parameters = {"GET": frozenset({"purpose"})}

    @extend_schema(operation_id="memories_read", responses={200: MemoryOut},
                   parameters=[purpose_of_use.purpose_parameter()])
    def get(self, request, patient_id, memory_id):
        purpose = purpose_of_use.query_purpose(self.identity, request.query_params)
        if purpose is None:  # unnamed: the audit row takes the purpose the memory is kept for
            with types_sent_with_read(self.identity):
                commit_with_next_statement()  # the read, with its audit row, is the request's one statement
                row = selectors.memory_read_row(
                    identity=self.identity, patient_id=patient_id, memory_id=memory_id,
                    audit=audit.insert_statement(action="memory.read", resource_type="memory",
                                                 resource_id=memory_id, patient_id=patient_id,
                                                 purpose_from=f"{selectors.READ_ROW_CTE}.consent_purpose"))
        else:  # commits at the end: a memory kept for another purpose is answered 404, its audit row rolled back
            with purpose_of_use.refused_as_such(patient_id=patient_id, purpose=purpose):
                row = selectors.memory_read_row(
                    identity=self.identity, patient_id=patient_id, memory_id=memory_id,
                    audit=audit.insert_statement(action="memory.read", resource_type="memory",
                                                 resource_id=memory_id, patient_id=patient_id, purpose=purpose,
                                                 require_purpose=True))
            if row[_CONSENT_PURPOSE] != purpose:  # kept for another purpose: not this read's to see
                raise NotFound().about(patient_id=patient_id, purpose=purpose)
        return Response(memory_item(row))

    @extend_schema(operation_id="memories_delete", request=None, responses={200: DeletionReceipt})
    def delete(self, request, patient_id, memory_id):
        NoBody.check(request)
        return Response(deletion.memory_delete(identity=self.identity, patient_id=patient_id, memory_id=memory_id))


_CONSENT_PURPOSE = selectors.ITEM_COLUMNS.index("consent_purpose")


class MemoryHistoryView(_MemoryView):
    required_scopes = {"GET": ["memory:read"]}
    audit_actions = {"GET": "memory.history"}
    query_parameters = {"GET": frozenset({"purpose"})}

    @extend_schema(operation_id="memories_history", responses={200: inline_serializer("MemoryHistory", {
        "versions": MemoryOut(many=True), "events": LifecycleEventOut(many=True)})},
        parameters=[purpose_of_use.purpose_parameter(
            "A memory kept for another purpose is not found; only the versions kept for it are shown.")])
    def get(self, request, patient_id, memory_id):
        purpose = purpose_of_use.checked_query_purpose(self.identity, request.query_params, patient_id=patient_id)
        versions, events = selectors.memory_history(identity=self.identity, patient_id=patient_id,
                                                    memory_id=memory_id)
        if purpose is not None:  # minimum necessary: what is kept for the purpose the read is for
            [asked] = [v for v in versions if v.memory_id == memory_id]
            if asked.consent_purpose != purpose:
                raise NotFound().about(patient_id=patient_id, purpose=purpose)
            versions = [v for v in versions if v.consent_purpose == purpose]
            shown = {v.memory_id for v in versions}
            events = [e for e in events if e.memory_id in shown]
        audit.record(action="memory.history", resource_type="memory", resource_id=memory_id, patient_id=patient_id,
                     purpose=purpose or versions[0].consent_purpose)
        return Response({"versions": MemoryOut(versions, many=True).data,
                         "events": LifecycleEventOut(events, many=True).data})


class MemoryCorrectView(_MemoryView):
    idempotent_create = True
    required_scopes = {"POST": ["memory:write"]}
    audit_actions = {"POST": "memory.correct"}

    @extend_schema(operation_id="memories_correct", request=CorrectionIn, responses={201: MemoryOut})
    def post(self, request, patient_id, memory_id):
        body = CorrectionIn(data=request.data)
        body.is_valid(raise_exception=True)
        d = body.validated_data
        memory = review.memory_correct(identity=self.identity, patient_id=patient_id, memory_id=memory_id,
                                       fact=d["fact"], valid_until=d.get("valid_until", review.Keep.VALIDITY),
                                       review_by=d.get("review_by"))
        return Response(memory_out(memory), status=status.HTTP_201_CREATED)


class MemoryQuarantineView(_MemoryView):
    required_scopes = {"POST": ["memory:write"]}
    audit_actions = {"POST": "memory.quarantine"}

    @extend_schema(operation_id="memories_quarantine", request=QuarantineIn, responses={200: MemoryOut})
    def post(self, request, patient_id, memory_id):
        body = QuarantineIn(data=request.data)
        body.is_valid(raise_exception=True)
        memory = review.memory_quarantine(identity=self.identity, patient_id=patient_id, memory_id=memory_id,
                                          reason_code=body.validated_data["reason_code"])
        return Response(memory_out(memory))


class MemoryReleaseView(_MemoryView):
    """Staff release a quarantined memory: current again, superseding the value made current while it was aside."""
    required_scopes, audit_actions = {"POST": ["memory:write"]}, {"POST": "memory.quarantine_release"}

    @extend_schema(operation_id="memories_release", request=ReleaseIn, responses={200: MemoryOut})
    def post(self, request, patient_id, memory_id):
        (body := ReleaseIn(data=request.data)).is_valid(raise_exception=True)
        return Response(memory_out(review.memory_release(identity=self.identity, patient_id=patient_id,
                                                         memory_id=memory_id, **body.validated_data)))


class MemoryProposalsView(_MemoryView):
    idempotent_create = True
    required_scopes = {"GET": ["memory:read"], "POST": ["memory:write"]}
    audit_actions = {"GET": "memory.proposals", "POST": "memory.propose"}

    query_parameters = {"GET": frozenset({"purpose"})}

    @extend_schema(operation_id="memories_proposals_list",
                   responses={200: inline_serializer("ProposalList", {"items": MemoryOut(many=True)})},
                   parameters=[purpose_of_use.purpose_parameter("Only proposals kept for it are read.")])
    def get(self, request, patient_id):
        purpose = purpose_of_use.checked_query_purpose(self.identity, request.query_params, patient_id=patient_id)
        items = [m for m in selectors.memory_list_proposed(identity=self.identity, patient_id=patient_id)
                 if purpose is None or m.consent_purpose == purpose]
        audit.record(action="memory.proposals", resource_type="memory", patient_id=patient_id, purpose=purpose,
                     outcome_by_access=True)
        return Response({"items": MemoryOut(items, many=True).data})

    @extend_schema(operation_id="memories_propose", request=ProposalIn, responses={201: MemoryOut, 200: MemoryOut})
    def post(self, request, patient_id):
        body = ProposalIn(data=request.data)
        body.is_valid(raise_exception=True)
        memory, created = services.memory_propose(identity=self.identity, patient_id=patient_id,
                                                  **body.validated_data)
        # the caller's identical proposal still waiting for review: that one, nothing new (as a consent given again)
        return Response(memory_out(memory), status=status.HTTP_201_CREATED if created else status.HTTP_200_OK)


class MemoryConfirmView(_MemoryView):
    required_scopes = {"POST": ["memory:write"]}
    audit_actions = {"POST": "memory.confirm"}

    @extend_schema(operation_id="memories_confirm", request=None, responses={200: MemoryOut})
    def post(self, request, patient_id, memory_id):
        NoBody.check(request)
        memory = review.memory_confirm(identity=self.identity, patient_id=patient_id, memory_id=memory_id)
        return Response(memory_out(memory))


class MemoryRejectView(_MemoryView):
    required_scopes = {"POST": ["memory:write"]}
    audit_actions = {"POST": "memory.reject"}

    @extend_schema(operation_id="memories_reject", request=None, responses={200: DeletionReceipt})
    def post(self, request, patient_id, memory_id):
        NoBody.check(request)
        return Response(review.memory_reject(identity=self.identity, patient_id=patient_id, memory_id=memory_id))


class DeletionsView(_MemoryView):
    required_scopes = {"GET": ["memory:read"]}
    audit_actions = {"GET": "memory.deletions"}
    resource_type = "memory_deletion"

    query_parameters = {"GET": frozenset({"purpose"})}

    @extend_schema(operation_id="memories_deletions_list",
                   responses={200: inline_serializer("DeletionList", {"items": DeletionReceipt(many=True)})},
                   parameters=[purpose_of_use.purpose_parameter(
                       "Receipts hold no values and no purposes: every receipt is read, for this purpose.")])
    def get(self, request, patient_id):
        purpose = purpose_of_use.checked_query_purpose(self.identity, request.query_params, patient_id=patient_id)
        receipts = selectors.deletion_receipts(identity=self.identity, patient_id=patient_id)
        audit.record(action="memory.deletions", resource_type="memory_deletion", patient_id=patient_id,
                     purpose=purpose, outcome_by_access=True)
        return Response({"items": receipts})


def _enum(name: str, values: list[str]) -> type[serializers.CharField]:
    """A string field documented by a pattern over its values (several fields here are named ``confidence`` with
    different value sets; as enums they would collide in drf-spectacular's enum naming)."""
    schema = {"type": "string", "pattern": "^(?:" + "|".join(values) + ")$", "description": " or ".join(values)}
    return extend_schema_field(schema)(type(name, (serializers.CharField,), {}))


HitConfidence = _enum("HitConfidence", ["high", "low"])
AnswerConfidence = _enum("AnswerConfidence", ["high", "low", "none"])
IncludedBy = _enum("IncludedBy", ["relevance", "safety_rule"])


class SearchHitOut(serializers.Serializer):
    memory = MemoryOut()
    score = serializers.FloatField(help_text="The probability that this memory answers the question (the learned "
                                             "scoring head), 0-1")
    cosine = serializers.FloatField()
    text_rank = serializers.FloatField()
    concept = serializers.FloatField(help_text="How directly the question's medicines, foods, materials or "
                                               "procedures concern this memory (clinical lexicon), 0-1")
    intent = serializers.FloatField(help_text="How closely the question matches what this memory's type says it "
                                              "serves (its phrases), cosine")
    confidence = HitConfidence(help_text="high: reached the threshold fitted for its type; low: a best guess, or an "
                                         "alternative to the confident answer")
    included_by = IncludedBy(
        help_text="safety_rule: an allergy or long-term medicine included because the question names something "
                  "the patient could be given or exposed to, whatever its score")


class PatientMemorySearchView(_MemoryView):
    """Deterministic filters first (organisation, patient, purpose, class, state, validity, consent), then exact
    ranking by cosine similarity blended with full-text rank."""

    required_scopes = {"GET": ["memory:read"]}
    audit_actions = {"GET": "memory.search"}
    query_parameters = {"GET": frozenset({"q", "limit", "min_score", "consent_purpose", "purpose", "memory_class"})}

    @extend_schema(
        operation_id="memories_search",
        # the bounds SearchParams enforces, stated so that clients and the MCP tool's input schema know them
        parameters=[OpenApiParameter("q", {"type": "string", "minLength": 1, "maxLength": 500}, required=True,
                                     description="The agent's question (1-500 chars)"),
                    OpenApiParameter("limit", {"type": "integer", "minimum": 1, "maximum": 20}, required=False,
                                     description="1-20"),
                    OpenApiParameter("min_score", {"type": "number", "format": "double", "minimum": 0, "maximum": 1},
                                     required=False,
                                     description="0-1, a probability; by default each type's fitted threshold"),
                    OpenApiParameter("consent_purpose", str, required=False, enum=[p for p, _ in PURPOSES],
                                     description="The older name of purpose (both, differing: 422)"),
                    purpose_of_use.purpose_parameter(),
                    OpenApiParameter("memory_class", str, required=False, enum=MemoryClass.values)],
        responses={200: inline_serializer("SearchResult", {
            "items": SearchHitOut(many=True), "min_score": serializers.FloatField(),
            "confidence": AnswerConfidence(
                help_text="high: some hit reached the threshold; low: only best guesses (or safety inclusions) "
                          "are returned; none: nothing on record that the caller may see"),
            "safety_rule_applied": serializers.BooleanField()})},
    )
    def get(self, request, patient_id):
        params = SearchParams(data=request.query_params)
        params.is_valid(raise_exception=True)
        p = params.validated_data
        purpose = purpose_of_use.read_purpose(self.identity, purpose=p.get("purpose"),
                                              consent_purpose=p.get("consent_purpose"))
        with purpose_of_use.refused_as_such(patient_id=patient_id, purpose=purpose):
            result = retrieval.memory_search(identity=self.identity, patient_id=patient_id, question=p["q"],
                                             limit=p.get("limit"), min_score=p.get("min_score"),
                                             purpose=purpose, memory_class=p.get("memory_class"))
        return Response(search_body(result))


def search_body(result: retrieval.SearchResult) -> dict:
    """The body of a search answer (``SearchResult``)."""
    return {"min_score": result.min_score, "confidence": result.confidence,
            "safety_rule_applied": result.safety_rule_applied, "items": [
        {"memory": memory_item(h.memory.row, h.value, h.text), "score": round(h.score, 4), "cosine": round(h.cosine, 4),
         "text_rank": round(h.text_rank, 4), "concept": round(h.concept, 4), "intent": round(h.intent, 4),
         "confidence": h.confidence,
         "included_by": h.included_by} for h in result.hits]}


class SearchParams(serializers.Serializer):
    q = serializers.CharField(min_length=1, max_length=500, validators=[require_visible])
    limit = QueryInteger(min_value=1, max_value=20, required=False)
    min_score = serializers.FloatField(min_value=0, max_value=1, required=False)
    consent_purpose = serializers.ChoiceField(choices=PURPOSES, required=False)
    purpose = serializers.ChoiceField(choices=PURPOSES, required=False)
    memory_class = serializers.ChoiceField(choices=MemoryClass.values, required=False)

    def validate_min_score(self, value: float) -> float:
        return value + 0.0  # "-0" is 0, and is echoed so


class ContextIn(StrictSerializer):
    question = serializers.CharField(min_length=1, max_length=1000, validators=[require_visible])
    # Why the caller asks: the token's one purpose_of_use claim when left out (the operation's description says so;
    # help_text here would wrap the enum in an allOf that the MCP tool and TypeScript schemas need not carry).
    purpose = serializers.ChoiceField(choices=PURPOSES, required=False)
    limit = serializers.IntegerField(min_value=1, max_value=20, required=False)
    session_id = UUIDIn(required=False, allow_null=True)


class ContextFactOut(serializers.Serializer):
    memory_id = serializers.UUIDField()
    text = serializers.CharField()
    memory_class = serializers.CharField()
    source = serializers.CharField()
    created_by = serializers.CharField()
    valid_from = serializers.DateTimeField()
    valid_until = serializers.DateTimeField(allow_null=True)
    score = serializers.FloatField()
    guardrails = serializers.DictField()
    confidence = HitConfidence()
    included_by = IncludedBy()


class ContextPackOut(serializers.Serializer):
    release_id = serializers.UUIDField()
    purpose = serializers.CharField()
    facts = ContextFactOut(many=True)
    guardrail_notes = serializers.ListField(child=serializers.CharField())
    confidence = AnswerConfidence(help_text="As for search, over what was found before best guesses were left out")
    safety_rule_applied = serializers.BooleanField()
    left_out_low_confidence = serializers.IntegerField(help_text="Best guesses under the threshold left out")
    left_out_over_limit = serializers.IntegerField(
        help_text="Facts that reached the threshold but were left out by the limit (limit, default 5): the facts "
                  "are then not the whole answer; ask again with a higher limit")
    text = serializers.CharField(help_text="Ready to insert into a prompt; never contains the patient identifier")


def _check_session_of(identity, patient_id, session_id) -> None:
    """The release names a conversation of this patient that the caller may see (one answer for "no such session"
    and "another patient's")."""
    if not sessions.is_session_of(identity=identity, patient_id=patient_id, session_id=session_id):
        raise ValidationFailed(errors=[{"field": "session_id", "code": "invalid",
                                        "message": "not a conversation session of this patient"}])


class PatientContextView(_MemoryView):
    idempotent_create = True
    required_scopes = {"POST": ["memory:read"]}
    audit_actions = {"POST": "memory.context_pack"}
    resource_type = "memory_release"

    @extend_schema(operation_id="memories_context_pack", request=ContextIn, responses={200: ContextPackOut},
                   description="A context pack for a question, recorded as a release for its purpose of use. "
                               "purpose: " + purpose_of_use.DESCRIPTION + " Required when the token names none.")
    def post(self, request, patient_id):
        body = ContextIn(data=request.data)
        body.is_valid(raise_exception=True)
        d = body.validated_data
        purpose = purpose_of_use.read_purpose(self.identity, purpose=d.get("purpose"))
        if purpose is None:  # a release is always for one purpose
            raise ValidationFailed.of("purpose", "name the purpose of use (or carry one purpose_of_use claim)",
                                      "required")
        purpose_of_use.require_purpose(self.identity, patient_id=patient_id, purpose=purpose)
        if d.get("session_id") is not None:
            _check_session_of(self.identity, patient_id, d["session_id"])
        pack = retrieval.context_pack(identity=self.identity, patient_id=patient_id, question=d["question"],
                                      purpose=purpose, limit=d.get("limit"), session_id=d.get("session_id"))
        return Response(context_pack_body(pack))


def context_pack_body(pack: retrieval.ContextPack) -> dict:
    """The body of a context pack (``ContextPackOut``)."""
    return {
        "release_id": str(pack.release_id),
        "purpose": pack.purpose,
        "facts": [{"memory_id": str(h.memory.memory_id), "text": h.text, "memory_class": h.memory.memory_class,
                   "source": h.memory.source, "created_by": h.memory.created_by,
                   "valid_from": datetime.fromisoformat(h.memory.valid_from).isoformat(),
                   "valid_until": (datetime.fromisoformat(h.memory.valid_until).isoformat()
                                   if h.memory.valid_until else None),
                   "score": round(h.score, 4), "guardrails": guardrails,
                   "confidence": h.confidence, "included_by": h.included_by}
                  for h, guardrails in zip(pack.hits, pack.guardrails, strict=True)],
        "guardrail_notes": list(pack.guardrail_notes),
        "confidence": pack.confidence,
        "safety_rule_applied": pack.safety_rule_applied,
        "left_out_low_confidence": pack.left_out_low_confidence,
        "left_out_over_limit": pack.left_out_over_limit,
        "text": pack.text,
    }


class ReleaseOut(serializers.Serializer):
    release_id = serializers.UUIDField()
    actor_sub = serializers.CharField()
    agent_client_id = serializers.CharField(allow_null=True, help_text="the agent it went to, acting for actor_sub")
    purpose = serializers.CharField()
    created_at = serializers.DateTimeField()
    members = serializers.ListField(child=serializers.DictField())


class PatientReleasesView(_MemoryView):
    """What was disclosed: which memories went to which agent, for which purpose, when."""

    required_scopes = {"GET": ["memory:read"]}
    audit_actions = {"GET": "memory.releases"}
    resource_type = "memory_release"

    query_parameters = {"GET": frozenset({"purpose"})}

    @extend_schema(operation_id="memories_releases_list",
                   responses={200: inline_serializer("ReleaseList", {"items": ReleaseOut(many=True)})},
                   parameters=[purpose_of_use.purpose_parameter("Only context packs released for it are read.")])
    def get(self, request, patient_id):
        purpose = purpose_of_use.checked_query_purpose(self.identity, request.query_params, patient_id=patient_id)
        items = [r for r in selectors.release_list(identity=self.identity, patient_id=patient_id)
                 if purpose is None or r["purpose"] == purpose]
        audit.record(action="memory.releases", resource_type="memory_release", patient_id=patient_id,
                     purpose=purpose, outcome_by_access=True)
        return Response({"items": items})
