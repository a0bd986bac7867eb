from __future__ import annotations

from drf_spectacular.utils import OpenApiParameter, extend_schema, inline_serializer
from rest_framework import serializers, status
from rest_framework.response import Response

from consent import purpose as purpose_of_use
from core import audit
from core.api import ScopedAPIView
from core.errors import NotFound, ValidationFailed, cursor_checked
from core.identity import commit_with_next_statement
from core.serializers import (
    DateTimeIn,
    JSONObjectIn,
    ModelOutSerializer,
    NoBody,
    StrictSerializer,
    UUIDIn,
    integer_parameter,
    next_cursor_field,
    page_parameters,
    require_readable,
)
from core.vocabulary import PURPOSES, REASON_CODE_PATTERN
from memory import deletion, review, selectors, services
from memory.api_reads import LIST_LIMIT, list_after, list_data, list_rows, types_after_read, types_sent_with_read
from memory.models import LifecycleEvent, Memory, MemoryState, Source
from memory.rendering import memory_item, memory_out
from memory.types import NAME as TYPE_NAME
from memory.types import type_get


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


class ProposalOut(MemoryOut):
    """A proposal waiting for review, and whether it is stale: made before its attribute's current value became
    current (a value written, confirmed or made current again since), so confirming it is 409 ``proposal_stale``;
    it is rejected, and a new proposal is made against the current value."""

    stale = serializers.BooleanField(read_only=True, help_text="Confirming it is 409 proposal_stale")
    overtaken_by = serializers.UUIDField(allow_null=True, read_only=True,
                                         help_text="The current value that became current after it was proposed")

    class Meta(MemoryOut.Meta):
        fields = [*MemoryOut.Meta.fields, "stale", "overtaken_by"]


def proposals_out(*, identity, patient_id, proposals: list[Memory]) -> list[dict]:
    """Proposals as :class:`ProposalOut` shows them (whether each is stale, in two statements for the page)."""
    stale = selectors.memory_proposals_stale(identity=identity, patient_id=patient_id, proposals=proposals)
    return [{**memory_out(p), "stale": p.memory_id in stale,
             "overtaken_by": str(stale[p.memory_id].memory_id) if p.memory_id in stale else None}
            for p in proposals]


MEMORY_STORED = inline_serializer("MemoryStored", {
    "memory_id": serializers.UUIDField(),
    "status": serializers.ChoiceField(choices=["stored", "proposed", "already_proposed"],
                                      help_text="stored, proposed (an agent's write), or already_proposed (200: the "
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


def known_types_required(names) -> None:
    """422 ``unknown_memory_type`` on ``memory_type``, one error a name, for each type the caller's organisation does
    not have (built-in or its own): a filter by it would answer "nothing on record". The list and search alike."""
    if unknown := [name for name in names if type_get(name) is None]:
        raise ValidationFailed(errors=[{"field": "memory_type", "code": "unknown_memory_type",
                                        "message": f"unknown memory type {name}; see GET /v1/memory-types"}
                                       for name in unknown])


class MemoryView(ScopedAPIView):
    abstract = True
    resource_type = "memory"

    def replay_still_holds(self, data) -> bool:
        """A stored answer showing memories is given again only while each still reads as it did: a value whose
        consent or validity ran out, or that staff set aside, is not served by a retry either."""
        return selectors.memory_answer_still_holds(identity=self.identity, data=data)


class PatientMemoriesView(MemoryView):
    """Long-term memories of one patient (compatible with the seed's reference service)."""

    idempotent_create = True
    required_scopes = {"GET": ["memory:read"], "POST": ["memory:write"], "DELETE": ["memory:write"]}
    audit_actions = {"GET": "memory.list", "POST": "memory.create", "DELETE": "memory.erase_all"}
    query_parameters = {"GET": frozenset({"memory_type", "consent_purpose", "purpose", "limit", "cursor"})}
    blank_query_parameters = {"GET": frozenset({"memory_type", "consent_purpose"})}  # empty means "any"

    @extend_schema(
        operation_id="memories_list",
        # an empty value means "any" (as the serializer reads it), so the published sets include it
        parameters=[OpenApiParameter("memory_type", str, required=False,
                                     pattern="^$|" + TYPE_NAME.pattern,
                                     description="Only memories of this type (GET /v1/memory-types); empty: any. "
                                                 "A type the organisation does not have: 422 unknown_memory_type"),
                    OpenApiParameter("consent_purpose", str, required=False,
                                     enum=[p for p, _ in PURPOSES] + [""],
                                     description="The older name of purpose (both, differing: 422)"),
                    purpose_of_use.purpose_parameter(),
                    *page_parameters(default=LIST_LIMIT, older="the memories after those")],
        responses={200: inline_serializer("MemoryList", {"items": MemoryOut(many=True),
                                                         "next_cursor": next_cursor_field()})},
    )
    def get(self, request, patient_id):
        # A page at a time, in the key's order (type, attribute, purpose): a patient with thousands of memories
        # was answered all of them in one body
        p: dict = {}
        limit, after = LIST_LIMIT, None
        if request.query_params:  # checked before anything reaches the audit row
            params = MemoryListParams(data=request.query_params)
            params.is_valid(raise_exception=True)
            p = params.validated_data
            if p.get("memory_type"):
                known_types_required([p["memory_type"]])
            limit = integer_parameter(request.query_params, "limit", default=LIST_LIMIT, low=1, high=500)
            with cursor_checked():
                after = list_after(request.query_params.get("cursor"))
        read = list_rows(self.identity, patient_id, purpose=p.get("purpose"),
                         consent_purpose=p.get("consent_purpose"), memory_type=p.get("memory_type") or None,
                         limit=limit, after=after)
        return Response(list_data(read))

    # The list without parameters, answered without DRF's machinery when the token is known (core.api)
    @staticmethod
    def quick_get_rows(block, patient_id):
        return list_rows(block.identity, patient_id, types_with_read=False, run=block.rows), block.identity

    @staticmethod
    def quick_get_data(read):
        (rows, specs, next_cursor), identity = read
        return list_data((rows, types_after_read(identity, rows, specs), next_cursor))

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


class MemoryDetailView(MemoryView):
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


class MemoryHistoryView(MemoryView):
    required_scopes = {"GET": ["memory:read"]}
    audit_actions = {"GET": "memory.history"}
    query_parameters = {"GET": frozenset({"purpose", "limit", "cursor"})}

    @extend_schema(operation_id="memories_history", responses={200: inline_serializer("MemoryHistory", {
        "versions": MemoryOut(many=True), "events": LifecycleEventOut(many=True),
        "next_cursor": next_cursor_field()})},
        parameters=[purpose_of_use.purpose_parameter(
            "A memory kept for another purpose is not found; only the versions kept for it are shown."),
            *page_parameters(default=LIST_LIMIT, older="the older versions after those")])
    def get(self, request, patient_id, memory_id):
        # A page of versions at a time, newest first, each with its events: a value changed thousands of times
        # was answered every version in one body
        purpose = purpose_of_use.checked_query_purpose(self.identity, request.query_params, patient_id=patient_id)
        limit = integer_parameter(request.query_params, "limit", default=LIST_LIMIT, low=1, high=500)
        with cursor_checked():
            page = selectors.memory_history(identity=self.identity, patient_id=patient_id, memory_id=memory_id,
                                            limit=limit, purpose=purpose, cursor=request.query_params.get("cursor"))
        audit.record(action="memory.history", resource_type="memory", resource_id=memory_id, patient_id=patient_id,
                     purpose=purpose or page.memory.consent_purpose)
        return Response({"versions": MemoryOut(page.versions, many=True).data,
                         "events": LifecycleEventOut(page.events, many=True).data, "next_cursor": page.next_cursor})


class MemoryCorrectView(MemoryView):
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


class MemoryQuarantineView(MemoryView):
    required_scopes = {"POST": ["memory:write"]}
    audit_actions = {"POST": "memory.quarantine"}

    @extend_schema(operation_id="memories_quarantine", request=QuarantineIn, responses={200: MemoryOut})
    def post(self, request, patient_id, memory_id):
        body = QuarantineIn(data=request.data)
        body.is_valid(raise_exception=True)
        memory = review.memory_quarantine(identity=self.identity, patient_id=patient_id, memory_id=memory_id,
                                          reason_code=body.validated_data["reason_code"])
        return Response(memory_out(memory))


class MemoryReleaseView(MemoryView):
    """Staff release a quarantined memory: current again, superseding the value made current while it was aside."""

    required_scopes = {"POST": ["memory:write"]}
    audit_actions = {"POST": "memory.quarantine_release"}

    @extend_schema(operation_id="memories_release", request=ReleaseIn, responses={200: MemoryOut})
    def post(self, request, patient_id, memory_id):
        body = ReleaseIn(data=request.data)
        body.is_valid(raise_exception=True)
        memory = review.memory_release(identity=self.identity, patient_id=patient_id, memory_id=memory_id,
                                       **body.validated_data)
        return Response(memory_out(memory))


class MemoryProposalsView(MemoryView):
    idempotent_create = True
    required_scopes = {"GET": ["memory:read"], "POST": ["memory:write"]}
    audit_actions = {"GET": "memory.proposals", "POST": "memory.propose"}

    query_parameters = {"GET": frozenset({"purpose", "limit", "cursor"})}

    @extend_schema(operation_id="memories_proposals_list",
                   responses={200: inline_serializer("ProposalList", {"items": ProposalOut(many=True),
                                                                      "next_cursor": next_cursor_field()})},
                   parameters=[purpose_of_use.purpose_parameter("Only proposals kept for it are read."),
                               *page_parameters(default=100, older="the proposals made after those")])
    def get(self, request, patient_id):
        # Oldest first (the order they wait for review in), a page at a time: every proposal was one answer before
        purpose = purpose_of_use.checked_query_purpose(self.identity, request.query_params, patient_id=patient_id)
        limit = integer_parameter(request.query_params, "limit", default=100, low=1, high=500)
        with cursor_checked():
            items, next_cursor = selectors.memory_proposal_page(identity=self.identity, patient_id=patient_id,
                                                                limit=limit, purpose=purpose,
                                                                cursor=request.query_params.get("cursor"))
        audit.record(action="memory.proposals", resource_type="memory", patient_id=patient_id, purpose=purpose,
                     outcome_by_access=True)
        return Response({"items": proposals_out(identity=self.identity, patient_id=patient_id, proposals=items),
                         "next_cursor": next_cursor})

    @extend_schema(operation_id="memories_propose", request=ProposalIn, responses={201: MemoryOut, 200: MemoryOut})
    def post(self, request, patient_id):
        body = ProposalIn(data=request.data)
        body.is_valid(raise_exception=True)
        memory, created = services.memory_propose(identity=self.identity, patient_id=patient_id,
                                                  **body.validated_data)
        # the caller's identical proposal still waiting for review: that one, nothing new (as a consent given again)
        return Response(memory_out(memory), status=status.HTTP_201_CREATED if created else status.HTTP_200_OK)


class MemoryConfirmView(MemoryView):
    required_scopes = {"POST": ["memory:write"]}
    audit_actions = {"POST": "memory.confirm"}

    @extend_schema(operation_id="memories_confirm", request=None, responses={200: MemoryOut})
    def post(self, request, patient_id, memory_id):
        NoBody.check(request)
        memory = review.memory_confirm(identity=self.identity, patient_id=patient_id, memory_id=memory_id)
        return Response(memory_out(memory))


class MemoryRejectView(MemoryView):
    required_scopes = {"POST": ["memory:write"]}
    audit_actions = {"POST": "memory.reject"}

    @extend_schema(operation_id="memories_reject", request=None, responses={200: DeletionReceipt})
    def post(self, request, patient_id, memory_id):
        NoBody.check(request)
        return Response(review.memory_reject(identity=self.identity, patient_id=patient_id, memory_id=memory_id))


class DeletionsView(MemoryView):
    required_scopes = {"GET": ["memory:read"]}
    audit_actions = {"GET": "memory.deletions"}
    resource_type = "memory_deletion"

    query_parameters = {"GET": frozenset({"purpose", "limit", "cursor"})}

    @extend_schema(operation_id="memories_deletions_list",
                   responses={200: inline_serializer("DeletionList", {"items": DeletionReceipt(many=True),
                                                                      "next_cursor": next_cursor_field()})},
                   parameters=[purpose_of_use.purpose_parameter(
                       "Receipts hold no values and no purposes: every receipt is read, for this purpose."),
                       *page_parameters(default=100, older="older receipts")])
    def get(self, request, patient_id):
        # Newest first, a page at a time: a patient's every receipt was one answer
        purpose = purpose_of_use.checked_query_purpose(self.identity, request.query_params, patient_id=patient_id)
        limit = integer_parameter(request.query_params, "limit", default=100, low=1, high=500)
        with cursor_checked():
            receipts, next_cursor = selectors.deletion_receipt_page(identity=self.identity, patient_id=patient_id,
                                                                    limit=limit,
                                                                    cursor=request.query_params.get("cursor"))
        audit.record(action="memory.deletions", resource_type="memory_deletion", patient_id=patient_id,
                     purpose=purpose, outcome_by_access=True)
        return Response({"items": receipts, "next_cursor": next_cursor})
