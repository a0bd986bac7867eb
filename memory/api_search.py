"""Search and context packs over REST: ``/memories/search``, ``/context`` and ``/releases`` (what was released to
whom), with their serializers. The memories' own endpoints are in :mod:`memory.api`."""

from __future__ import annotations

import unicodedata

from drf_spectacular.utils import OpenApiParameter, extend_schema, extend_schema_field, inline_serializer
from rest_framework import serializers
from rest_framework.response import Response

from consent import purpose as purpose_of_use
from core import audit
from core.errors import ValidationFailed, cursor_checked
from core.serializers import (
    QueryInteger,
    StrictSerializer,
    UUIDIn,
    integer_parameter,
    next_cursor_field,
    page_parameters,
    require_visible,
)
from core.vocabulary import PURPOSES
from memory import retrieval, selectors, sessions
from memory.api import MemoryOut, MemoryView, known_types_required
from memory.models import MemoryClass
from memory.rendering import memory_item
from memory.types import NAME as TYPE_NAME

# One memory type's name, or several separated by commas (each given once per query string: repeats are refused)
TYPE_NAMES = "^" + TYPE_NAME.pattern.strip("^$") + "(?:," + TYPE_NAME.pattern.strip("^$") + ")*$"


def _enum(name: str, values: list[str]) -> type[serializers.CharField]:
    """A string field documented by a pattern over its values (several fields here are named ``confidence`` with
    different value sets; as enums they would collide in drf-spectacular's enum naming)."""
    schema = {"type": "string", "pattern": "^(?:" + "|".join(values) + ")$", "description": " or ".join(values)}
    return extend_schema_field(schema)(type(name, (serializers.CharField,), {}))


SAFETY_FILTERED_HELP = ("The safety rule applied, but this search's filters (memory_class, memory_type or a purpose "
                        "care context is not kept for) left out the allergies and long-term medicines it would have "
                        "included: their absence is not a negative answer. Said whether or not any are on record; "
                        "search again without the filters (or with memory_type care_context) to check them")

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


class PatientMemorySearchView(MemoryView):
    """Deterministic filters first (organisation, patient, purpose, class, state, validity, consent), then exact
    ranking by cosine similarity blended with full-text rank."""

    required_scopes = {"GET": ["memory:read"]}
    audit_actions = {"GET": "memory.search"}
    query_parameters = {"GET": frozenset({"q", "limit", "min_score", "consent_purpose", "purpose", "memory_class",
                                          "memory_type"})}

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
                    OpenApiParameter("memory_class", str, required=False, enum=MemoryClass.values),
                    OpenApiParameter("memory_type", {"type": "string", "pattern": TYPE_NAMES, "maxLength": 500},
                                     required=False,
                                     description="Only memories of this type (GET /v1/memory-types), or of these "
                                                 "types separated by commas, are searched, before ranking; the "
                                                 "safety rule's allergies and medicines come only when their type "
                                                 "(care_context) is named (safety_facts_filtered_out says when "
                                                 "they were left out). A type the organisation does not have: "
                                                 "422 unknown_memory_type")],
        responses={200: inline_serializer("SearchResult", {
            "items": SearchHitOut(many=True), "min_score": serializers.FloatField(),
            "confidence": AnswerConfidence(
                help_text="high: some hit reached the threshold; low: only best guesses (or safety inclusions) "
                          "are returned; none: nothing on record that the caller may see"),
            "safety_rule_applied": serializers.BooleanField(),
            "safety_facts_filtered_out": serializers.BooleanField(help_text=SAFETY_FILTERED_HELP),
            "left_out_over_limit": serializers.IntegerField(
                help_text="Hits that reached their threshold but were left out by limit: the items are then not "
                          "the whole answer; ask again with a higher limit")})},
    )
    def get(self, request, patient_id):
        params = SearchParams(data=request.query_params)
        params.is_valid(raise_exception=True)
        p = params.validated_data
        purpose = purpose_of_use.read_purpose(self.identity, purpose=p.get("purpose"),
                                              consent_purpose=p.get("consent_purpose"))
        types = p.get("memory_type", ())
        known_types_required(types)
        with purpose_of_use.refused_as_such(patient_id=patient_id, purpose=purpose):
            result = retrieval.memory_search(identity=self.identity, patient_id=patient_id, question=p["q"],
                                             limit=p.get("limit"), min_score=p.get("min_score"),
                                             purpose=purpose, memory_class=p.get("memory_class"),
                                             memory_types=types)
        return Response(search_body(result))


def search_body(result: retrieval.SearchResult) -> dict:
    """The body of a search answer (``SearchResult``)."""
    # what the limit cut is said, as a context pack says it: with limit 1, "what time can she come in?" answered
    # "no later than 16:00" alone, confident, and the agent took half the answer for all of it
    return {"min_score": result.min_score, "confidence": result.confidence,
            "safety_rule_applied": result.safety_rule_applied,
            "safety_facts_filtered_out": result.safety_facts_filtered_out,
            "left_out_over_limit": result.over_limit, "items": [
        {"memory": memory_item(h.memory.row, h.value, h.text), "score": round(h.score, 4), "cosine": round(h.cosine, 4),
         "text_rank": round(h.text_rank, 4), "concept": round(h.concept, 4), "intent": round(h.intent, 4),
         "confidence": h.confidence,
         "included_by": h.included_by} for h in result.hits]}


def require_question(value: str) -> None:
    """A validator: the question shows something (:func:`require_visible`), and more than combining marks: an
    accent or enclosing circle with no letter to sit on asks nothing, as zero-width characters do (search answered
    it with best guesses, and a context pack was released for it). Blank, as they are."""
    require_visible(value)
    if all(ch.isspace() or unicodedata.category(ch)[0] in "MZ" or unicodedata.category(ch) in ("Cc", "Cf")
           for ch in value):
        raise serializers.ValidationError("This field may not be blank.", code="blank")


class SearchParams(serializers.Serializer):
    q = serializers.CharField(min_length=1, max_length=500, validators=[require_question])
    limit = QueryInteger(min_value=1, max_value=20, required=False)
    min_score = serializers.FloatField(min_value=0, max_value=1, required=False)
    consent_purpose = serializers.ChoiceField(choices=PURPOSES, required=False)
    purpose = serializers.ChoiceField(choices=PURPOSES, required=False)
    memory_class = serializers.ChoiceField(choices=MemoryClass.values, required=False)
    memory_type = serializers.RegexField(TYPE_NAMES, max_length=500, required=False,
                                         error_messages={"invalid": "a memory type's name, or several separated by "
                                                                    "commas"})

    def validate_memory_type(self, value: str) -> tuple[str, ...]:
        return tuple(dict.fromkeys(value.split(",")))

    def validate_min_score(self, value: float) -> float:
        return value + 0.0  # "-0" is 0, and is echoed so


class ContextIn(StrictSerializer):
    question = serializers.CharField(min_length=1, max_length=1000, validators=[require_question])
    # Why the caller asks: the token's one purpose_of_use claim when left out (the operation's description says so;
    # help_text here would wrap the enum in an allOf that the MCP tool and TypeScript schemas need not carry).
    purpose = serializers.ChoiceField(choices=PURPOSES, required=False)
    limit = serializers.IntegerField(min_value=1, max_value=20, required=False)
    session_id = UUIDIn(required=False, allow_null=True)


class ContextFactOut(serializers.Serializer):
    memory_id = serializers.UUIDField()
    text = serializers.CharField()
    memory_class = serializers.CharField()
    memory_type = serializers.CharField()
    consent_purpose = serializers.CharField(help_text="The purpose of use it is kept for (care context kept for "
                                                      "another purpose than the pack's comes in for safety)")
    source = serializers.CharField()
    source_ref = serializers.CharField()
    agent_client_id = serializers.CharField(allow_null=True, help_text="the agent that proposed it, if one did")
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
    safety_facts_filtered_out = serializers.BooleanField(
        help_text="The safety rule applied, but allergies and long-term medicines (care context) could not be "
                  "included: the caller may not read them for any purpose they are kept for. Said whether or not "
                  "any are on record; check them in the clinical record before acting")
    left_out_low_confidence = serializers.IntegerField(help_text="Best guesses under the threshold left out")
    left_out_over_limit = serializers.IntegerField(
        help_text="Facts that reached the threshold but were left out by the limit (limit, default 5): the facts "
                  "are then not the whole answer; ask again with a higher limit")
    text = serializers.CharField(help_text="Ready to insert into a prompt; never contains the patient identifier")


def _check_session_of(identity, patient_id, purpose, session_id) -> None:
    """The release names a live conversation of this patient, held for the pack's purpose, that the caller may see
    (an agent: one it holds). One answer for "no such session", "another patient's", "ended", "expired", "another
    purpose's" and "another agent's"."""
    if not sessions.is_session_for(identity=identity, patient_id=patient_id, purpose=purpose, session_id=session_id):
        raise ValidationFailed(errors=[{"field": "session_id", "code": "invalid",
                                        "message": "not a live conversation session of this patient for this purpose"}])


class PatientContextView(MemoryView):
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
            _check_session_of(self.identity, patient_id, purpose, d["session_id"])
        pack = retrieval.context_pack(identity=self.identity, patient_id=patient_id, question=d["question"],
                                      purpose=purpose, limit=d.get("limit"), session_id=d.get("session_id"))
        return Response(context_pack_body(pack))


def context_pack_body(pack: retrieval.ContextPack) -> dict:
    """The body of a context pack (``ContextPackOut``)."""
    return {
        "release_id": str(pack.release_id),
        "purpose": pack.purpose,
        "facts": [{"memory_id": str(h.memory.memory_id), "text": h.text, "memory_class": h.memory.memory_class,
                   "memory_type": h.memory.memory_type, "consent_purpose": h.memory.consent_purpose,
                   "source": h.memory.source, "source_ref": h.memory.source_ref,
                   "agent_client_id": h.memory.agent_client_id, "created_by": h.memory.created_by,
                   # as every other answer writes a moment: UTC, with a Z
                   "valid_from": selectors.utc_iso(h.memory.valid_from),
                   "valid_until": selectors.utc_iso(h.memory.valid_until) if h.memory.valid_until else None,
                   "score": round(h.score, 4), "guardrails": guardrails,
                   "confidence": h.confidence, "included_by": h.included_by}
                  for h, guardrails in zip(pack.hits, pack.guardrails, strict=True)],
        "guardrail_notes": list(pack.guardrail_notes),
        "confidence": pack.confidence,
        "safety_rule_applied": pack.safety_rule_applied,
        "safety_facts_filtered_out": pack.safety_facts_filtered_out,
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


class PatientReleasesView(MemoryView):
    """What was disclosed: which memories went to which agent, for which purpose, when."""

    required_scopes = {"GET": ["memory:read"]}
    audit_actions = {"GET": "memory.releases"}
    resource_type = "memory_release"

    query_parameters = {"GET": frozenset({"purpose", "limit", "cursor"})}

    @extend_schema(operation_id="memories_releases_list",
                   responses={200: inline_serializer("ReleaseList", {
                       "items": ReleaseOut(many=True),
                       "next_cursor": next_cursor_field()})},
                   parameters=[purpose_of_use.purpose_parameter("Only context packs released for it are read."),
                               *page_parameters(default=200, older="older releases")])
    def get(self, request, patient_id):
        # Newest first, a page at a time: an agent that asked for many packs has more than one page (the list
        # stopped at its newest 200, saying nothing of the others).
        purpose = purpose_of_use.checked_query_purpose(self.identity, request.query_params, patient_id=patient_id)
        limit = integer_parameter(request.query_params, "limit", default=200, low=1, high=500)
        with cursor_checked():
            items, next_cursor = selectors.release_page(identity=self.identity, patient_id=patient_id, limit=limit,
                                                        purpose=purpose, cursor=request.query_params.get("cursor"))
        audit.record(action="memory.releases", resource_type="memory_release", patient_id=patient_id,
                     purpose=purpose, outcome_by_access=True)
        return Response({"items": items, "next_cursor": next_cursor})
