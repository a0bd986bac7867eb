from __future__ import annotations

import re
from datetime import UTC

from drf_spectacular.utils import (
    OpenApiParameter,
    OpenApiResponse,
    PolymorphicProxySerializer,
    extend_schema,
    extend_schema_field,
    inline_serializer,
)
from rest_framework import serializers, status
from rest_framework.response import Response

from core import audit
from core import serializers as core_serializers
from core.access import require_staff
from core.api import ScopedAPIView
from core.errors import ValidationFailed, cursor_checked
from core.identity import Identity
from core.schema import NULL_ONLY
from core.serializers import ModelOutSerializer, NoBody, RealUUIDIn, StrictSerializer, integer_parameter
from workflows import reconciliation, selectors, services
from workflows.definitions import OPERATION_KINDS, WORKFLOW_TYPES
from workflows.models import Operation, Workflow

MAX_PATCH_VALUE_LENGTH = 1000
_PATCH_KEYS, _PATCH_KEY_LENGTH = 20, 64  # a state patch's bounds (StatePatch, plain_checkpoint)
IDEMPOTENCY_KEY = re.compile(r"^[A-Za-z0-9._:\-]{1,100}$")
_ID = r"^[A-Za-z0-9._:\-]{1,64}$"


# --- operation payloads: typed per kind, codes and references only (no free text) ----------------------------
class PriorAuthorizationPayload(StrictSerializer):
    """The payload of kind submit_prior_authorization (refuses fields it does not declare)."""

    referral_id = serializers.RegexField(_ID)
    diagnosis_code = serializers.RegexField(r"^[A-TV-Z][0-9][0-9A-Z](\.[0-9A-Z]{1,4})?$",
                                            error_messages={"invalid": "an ICD-10 code, e.g. E11.9"})
    medication_code = serializers.RegexField(r"^[A-Za-z0-9.\-]{1,32}$")
    member_ref = serializers.RegexField(_ID, help_text="the patient's reference at the insurer")


class AppointmentBookingPayload(StrictSerializer):
    """The payload of kind book_appointment (refuses fields it does not declare)."""

    slot_id = serializers.RegexField(_ID, help_text="a slot offered by the scheduling system")
    appointment_type = serializers.RegexField(r"^[a-z_]{1,40}$")


PAYLOADS: dict[str, type[StrictSerializer]] = {
    "submit_prior_authorization": PriorAuthorizationPayload,
    "book_appointment": AppointmentBookingPayload,
}
if set(PAYLOADS) != set(OPERATION_KINDS):
    raise RuntimeError("every operation kind needs a payload serializer")


@extend_schema_field(PolymorphicProxySerializer(
    component_name="OperationPayload", serializers=list(PAYLOADS.values()), resource_type_field_name=None))
class PayloadField(serializers.DictField):
    """Validated against the payload serializer of the request's ``kind`` (see OperationRequestIn.validate)."""


class OperationRequestIn(StrictSerializer):
    kind = serializers.ChoiceField(choices=sorted(OPERATION_KINDS))
    payload = PayloadField()

    def validate(self, attrs):
        body = PAYLOADS[attrs["kind"]](data=attrs["payload"])
        if not body.is_valid():
            raise serializers.ValidationError({"payload": body.errors})
        return {"kind": attrs["kind"], "payload": dict(body.validated_data)}


class OperationCreateIn(OperationRequestIn):
    expected_version = serializers.IntegerField(min_value=1)

    def validate(self, attrs):
        return {**super().validate(attrs), "expected_version": attrs["expected_version"]}


REQUESTED_BY_KIND = ("who asked for it: patient (in person), agent (an AI agent, for the patient or staff), "
                     "staff, or service; null for operations requested before it was recorded")


# --- outputs -----------------------------------------------------------------------------------------------
class OperationOut(ModelOutSerializer):
    class Meta:
        model = Operation
        fields = ["operation_id", "workflow_id", "kind", "system", "status", "idempotency_key", "payload_hash",
                  "attempts", "attempt_limit", "next_attempt_at", "last_error_code", "result", "requested_by_kind",
                  "created_at", "updated_at", "completed_at"]
        extra_kwargs = {"requested_by_kind": {"help_text": REQUESTED_BY_KIND}}


class NextSafeActionOut(serializers.Serializer):
    action = serializers.ChoiceField(choices=selectors.NEXT_ACTIONS)
    message = serializers.CharField()
    operation_id = serializers.UUIDField(allow_null=True)
    operation_kind = serializers.CharField(allow_null=True)
    not_before = serializers.DateTimeField(allow_null=True)
    allowed_next_steps = serializers.ListField(child=serializers.CharField())


class WorkflowOut(ModelOutSerializer):
    """A workflow with what an agent resuming it needs: step, version, unsettled operations, next safe action.
    Serialise with ``context={"resume": selectors.Resume}``."""

    allowed_next_steps = serializers.SerializerMethodField()
    terminal = serializers.SerializerMethodField()
    pending_operations = serializers.SerializerMethodField()
    next_safe_action = serializers.SerializerMethodField()

    class Meta:
        model = Workflow
        fields = ["workflow_id", "patient_id", "workflow_type", "purpose", "current_step", "state", "version",
                  "allowed_next_steps", "terminal", "pending_operations", "next_safe_action", "created_by",
                  "created_at", "updated_at"]

    def get_allowed_next_steps(self, obj) -> list[str]:
        return self.context["resume"].allowed_next_steps

    def get_terminal(self, obj) -> bool:
        return WORKFLOW_TYPES[obj.workflow_type].is_terminal(obj.current_step)

    @extend_schema_field(OperationOut(many=True))
    def get_pending_operations(self, obj):
        return OperationOut(self.context["resume"].pending_operations, many=True).data

    @extend_schema_field(NextSafeActionOut)
    def get_next_safe_action(self, obj):
        return NextSafeActionOut(self.context["resume"].next_safe_action).data


def _iso(value) -> str | None:
    """What DRF's DateTimeField renders with ``TIME_ZONE = "UTC"``: ISO 8601, UTC as ``Z``."""
    return None if value is None else value.astimezone(UTC).isoformat().replace("+00:00", "Z")


def workflow_body(workflow: Workflow, resume: selectors.Resume) -> dict:
    """Exactly what ``WorkflowOut`` renders (``tests/test_workflows_fast_path.py`` compares them), built without
    serializer fields: a checkpoint is the hottest write of a workflow, and building a ModelSerializer's fields
    cost more than its SQL. Pending operations, when there are any, still go through ``OperationOut``."""
    spec = WORKFLOW_TYPES[workflow.workflow_type]
    action = resume.next_safe_action
    return {
        "workflow_id": str(workflow.workflow_id), "patient_id": str(workflow.patient_id),
        "workflow_type": workflow.workflow_type, "purpose": workflow.purpose, "current_step": workflow.current_step,
        "state": workflow.state, "version": workflow.version, "allowed_next_steps": resume.allowed_next_steps,
        "terminal": spec.is_terminal(workflow.current_step),
        "pending_operations": OperationOut(resume.pending_operations, many=True).data if resume.pending_operations
        else [],
        "next_safe_action": {
            "action": action.action, "message": action.message,
            "operation_id": str(action.operation_id) if action.operation_id is not None else None,
            "operation_kind": action.operation_kind, "not_before": _iso(action.not_before),
            "allowed_next_steps": list(action.allowed_next_steps)},
        "created_by": workflow.created_by, "created_at": _iso(workflow.created_at),
        "updated_at": _iso(workflow.updated_at),
    }


def _workflow_body(identity, workflow: Workflow) -> dict:
    return workflow_body(workflow, selectors.workflow_resume(identity=identity, workflow=workflow))


# --- inputs for workflows ----------------------------------------------------------------------------------
# OpenAPI 3.0 reads `nullable` only beside a `type`: null, which a patch takes, is a branch of its own.
SCALAR_VALUE = {"oneOf": [{"type": "string", "maxLength": 1000}, {"type": "number"}, {"type": "boolean"},
                          NULL_ONLY]}


@extend_schema_field(SCALAR_VALUE)
class ScalarValue(serializers.Field):
    def to_internal_value(self, data):
        if data is None or isinstance(data, bool | int | float):
            return data
        if isinstance(data, str):
            if len(data) > MAX_PATCH_VALUE_LENGTH:
                raise serializers.ValidationError(f"at most {MAX_PATCH_VALUE_LENGTH} characters")
            return data
        raise serializers.ValidationError("must be a string, number, boolean or null")

    def to_representation(self, value):
        return value


@extend_schema_field({"type": "object", "maxProperties": 20, "additionalProperties": SCALAR_VALUE,
                      "description": "At most 20 values (a string, number, boolean or null), under keys of 1 to 64 "
                                     "characters"})
class StatePatch(serializers.DictField):
    child = ScalarValue(allow_null=True)

    def to_internal_value(self, data):
        value = super().to_internal_value(data)
        if len(value) > _PATCH_KEYS:
            raise serializers.ValidationError("at most 20 values")
        if any(len(k) > _PATCH_KEY_LENGTH or not k for k in value):
            raise serializers.ValidationError("keys are 1 to 64 characters")
        return value


class WorkflowCreateIn(StrictSerializer):
    workflow_type = serializers.ChoiceField(choices=sorted(WORKFLOW_TYPES))
    patient_id = RealUUIDIn()
    state = StatePatch(required=False, default=dict)


class CheckpointIn(StrictSerializer):
    expected_version = serializers.IntegerField(min_value=1)
    next_step = serializers.CharField(max_length=80)
    state_patch = StatePatch(required=False, default=dict)
    request_operation = OperationRequestIn(
        required=False, help_text="An operation to queue in the same transaction as this step (the outbox): "
        "allowed when the new step is one at which its kind may be requested.")


_STEP_NAME = re.compile(r"[a-z][a-z0-9_]{0,79}")


def plain_checkpoint(data) -> dict | None:
    """``CheckpointIn``'s validated data for the usual body (a version, a step name, a patch of plain values, no
    operation), read without DRF: the serializer's fields, deep-copied from its declarations on every request, and
    their checks were about 170 us of a checkpoint's 2 ms of worker CPU. None for anything else (an operation, or
    what the serializer would refuse, trim or convert), which ``CheckpointIn`` answers (tests/test_workflows_fast_path
    holds the two to the same reading)."""
    if not isinstance(data, dict) or not data.keys() <= {"expected_version", "next_step", "state_patch"}:
        return None
    version, step, patch = data.get("expected_version"), data.get("next_step"), data.get("state_patch", {})
    if type(version) is not int or version < 1 or type(step) is not str or not _STEP_NAME.fullmatch(step):
        return None
    if type(patch) is not dict or len(patch) > _PATCH_KEYS:
        return None
    for key, value in patch.items():
        if type(key) is not str or not 1 <= len(key) <= _PATCH_KEY_LENGTH:
            return None
        if not (value is None or type(value) in (bool, int, float)
                or (type(value) is str and len(value) <= MAX_PATCH_VALUE_LENGTH)):
            return None
    return {"expected_version": version, "next_step": step, "state_patch": dict(patch)}


# --- views -------------------------------------------------------------------------------------------------
class _WorkflowAnswers:
    # For a view whose stored answers (Idempotency-Key) show a workflow: given again only while the caller may still
    # read it (an agent: under the patient's consent for its purpose, which may have run out since). A comment, not
    # a docstring: the views' descriptions in the OpenAPI document would inherit it.

    kwargs: dict
    identity: Identity

    def replay_still_holds(self, data) -> bool:
        workflow_id = self.kwargs.get("workflow_id") or (data.get("workflow_id") if isinstance(data, dict) else None)
        return selectors.workflow_answer_still_holds(identity=self.identity, workflow_id=workflow_id)


class WorkflowsView(_WorkflowAnswers, ScopedAPIView):
    idempotent_create = True
    required_scopes = {"POST": ["workflow:write"]}
    audit_actions = {"POST": "workflow.create"}
    resource_type = "workflow"

    def audit_patient_id(self):
        return self.request.data.get("patient_id") if isinstance(self.request.data, dict) else None

    @extend_schema(operation_id="workflows_create", request=WorkflowCreateIn, responses={201: WorkflowOut})
    def post(self, request):
        body = WorkflowCreateIn(data=request.data)
        body.is_valid(raise_exception=True)
        workflow = services.workflow_create(identity=self.identity, **body.validated_data)
        return Response(_workflow_body(self.identity, workflow), status=status.HTTP_201_CREATED)


class WorkflowDetailView(ScopedAPIView):
    required_scopes = {"GET": ["workflow:read"]}
    audit_actions = {"GET": "workflow.read"}
    resource_type = "workflow"

    @extend_schema(operation_id="workflows_read", responses={200: WorkflowOut},
                   description="The workflow's step and version, its unsettled operations and the next safe "
                   "action: what an agent coming back after a crash reads first.")
    def get(self, request, workflow_id):
        workflow = selectors.workflow_get(identity=self.identity, workflow_id=workflow_id)
        audit.record(action="workflow.read", resource_type="workflow", resource_id=workflow.workflow_id,
                     patient_id=workflow.patient_id, purpose=workflow.purpose)
        return Response(_workflow_body(self.identity, workflow))


class WorkflowCheckpointView(_WorkflowAnswers, ScopedAPIView):
    idempotent_create = True
    required_scopes = {"POST": ["workflow:write"]}
    audit_actions = {"POST": "workflow.checkpoint"}
    resource_type = "workflow"

    @extend_schema(operation_id="workflows_checkpoint", request=CheckpointIn, responses={200: WorkflowOut})
    def post(self, request, workflow_id):
        data = plain_checkpoint(request.data)
        if data is None:
            body = CheckpointIn(data=request.data)
            body.is_valid(raise_exception=True)
            data = dict(body.validated_data)
        wanted = data.pop("request_operation", None)
        workflow = services.workflow_checkpoint(
            identity=self.identity, workflow_id=workflow_id, **data,
            request_operation=services.OperationRequest(**wanted) if wanted else None)
        return Response(_workflow_body(self.identity, workflow))


IDEMPOTENCY_HEADER = OpenApiParameter(
    "Idempotency-Key", str, OpenApiParameter.HEADER, required=False, pattern=IDEMPOTENCY_KEY.pattern,
    description="Your key for this request (1-100 of A-Z a-z 0-9 . _ : -). Sent again with the same body, the "
    "same operation is returned (200); with a different body, 409 idempotency_key_reused. Without it, the same "
    "kind and payload still return the existing operation.")


class WorkflowOperationsView(ScopedAPIView):
    required_scopes = {"GET": ["workflow:read"], "POST": ["workflow:write"]}
    audit_actions = {"GET": "workflow.operation.list", "POST": "workflow.operation.request"}
    resource_type = "workflow_operation"

    query_parameters = {"GET": frozenset({"limit", "cursor"})}

    @extend_schema(operation_id="workflow_operations_list",
                   parameters=core_serializers.page_parameters(default=100, older="older operations"),
                   responses={200: inline_serializer("WorkflowOperationList", {
                       "items": OperationOut(many=True),
                       "next_cursor": core_serializers.next_cursor_field()})})
    def get(self, request, workflow_id):
        # Newest first, a page at a time: the list stopped at the newest 100, saying nothing of older operations
        # (an agent resuming a workflow missed those still unsettled).
        limit = integer_parameter(request.query_params, "limit", default=100, low=1, high=500)
        workflow = selectors.workflow_get(identity=self.identity, workflow_id=workflow_id)
        with cursor_checked():
            items, next_cursor = audit.keyset_page(
                selectors.operation_list(identity=self.identity, workflow=workflow),
                cursor=request.query_params.get("cursor"), limit=limit, time_field="created_at",
                id_field="operation_id")
        audit.record(action="workflow.operation.list", resource_type="workflow", resource_id=workflow.workflow_id,
                     patient_id=workflow.patient_id, purpose=workflow.purpose)
        items = selectors.operations_as_now(identity=self.identity, workflow=workflow, operations=list(items))
        return Response({"items": OperationOut(items, many=True).data, "next_cursor": next_cursor})

    @extend_schema(operation_id="workflow_operations_request", request=OperationCreateIn,
                   parameters=[IDEMPOTENCY_HEADER],
                   responses={201: OperationOut, 200: OpenApiResponse(OperationOut, description="the same request "
                                                                      "again: the operation it created")},
                   description="Queue a non-read action against an outside system at the workflow's current step "
                   "(the transactional outbox). It is sent by the worker with its own idempotency key, bound to "
                   "the payload's hash.")
    def post(self, request, workflow_id):
        key = request.headers.get("Idempotency-Key")
        if key is not None and not IDEMPOTENCY_KEY.fullmatch(key):
            raise ValidationFailed(errors=[{"field": "Idempotency-Key", "message": "1-100 of A-Z a-z 0-9 . _ : -",
                                            "code": "invalid"}])
        body = OperationCreateIn(data=request.data)
        body.is_valid(raise_exception=True)
        operation, created = services.operation_request(identity=self.identity, workflow_id=workflow_id,
                                                        request_key=key, **body.validated_data)
        headers = {} if created else {"Idempotent-Replayed": "true"}
        return Response(OperationOut(operation).data, headers=headers,
                        status=status.HTTP_201_CREATED if created else status.HTTP_200_OK)


class WorkflowOperationRetryView(ScopedAPIView):
    required_scopes = {"POST": ["workflow:write"]}
    audit_actions = {"POST": "workflow.operation.retry"}
    resource_type = "workflow_operation"

    def audit_resource_id(self):
        return str(self.kwargs["operation_id"])

    @extend_schema(operation_id="workflow_operations_retry", request=None, responses={200: OperationOut},
                   description="Give an operation whose retries ran out with an unknown outcome a new budget. It "
                   "keeps its key: the worker asks the outside system first and resubmits only if the key is "
                   "unknown there.")
    def post(self, request, workflow_id, operation_id):
        NoBody.check(request)
        operation = reconciliation.operation_retry(identity=self.identity, workflow_id=workflow_id,
                                                   operation_id=operation_id)
        return Response(OperationOut(operation).data)


class OperationResolveIn(StrictSerializer):
    expected_version = serializers.IntegerField(min_value=1, help_text="the workflow's version you read")
    outcome = serializers.ChoiceField(choices=sorted(reconciliation.RESOLUTIONS), help_text=(
        "what the outside system holds: sent (it has the request; give its id as external_id) or not_sent"))
    external_id = serializers.RegexField(_ID, required=False, help_text=(
        "sent only: the outside system's id for it (the authorization_id or appointment_id)"))

    def validate(self, attrs):
        if attrs["outcome"] == "sent" and "external_id" not in attrs:
            raise serializers.ValidationError({"external_id": "required when the outcome is sent"}, code="required")
        if attrs["outcome"] != "sent" and "external_id" in attrs:
            raise serializers.ValidationError({"external_id": "only when the outcome is sent"}, code="not_allowed")
        return attrs


class WorkflowOperationResolveView(ScopedAPIView):
    required_scopes = {"POST": ["workflow:write", "workflow:reconcile"]}
    audit_actions = {"POST": "workflow.operation.resolve"}
    resource_type = "workflow_operation"

    def audit_resource_id(self):
        return str(self.kwargs["operation_id"])

    @extend_schema(operation_id="workflow_operations_resolve", request=OperationResolveIn,
                   responses={200: OperationOut},
                   description="Staff, from the reconciliation queue: record what the outside system answered when "
                   "asked about an operation whose outcome is unknown. sent (with its external_id) settles it as "
                   "succeeded and moves the workflow on; not_sent settles it as failed (staff_confirmed_not_sent), "
                   "so it may be asked for again with a new key. The worker never attempts it again. The same "
                   "resolution again answers the operation (Idempotent-Replayed: true); another one of a settled "
                   "operation is 409 operation_not_resolvable.")
    def post(self, request, workflow_id, operation_id):
        body = OperationResolveIn(data=request.data)
        body.is_valid(raise_exception=True)
        operation, changed = reconciliation.operation_resolve(identity=self.identity, workflow_id=workflow_id,
                                                              operation_id=operation_id, **body.validated_data)
        return Response(OperationOut(operation).data, headers={} if changed else {"Idempotent-Replayed": "true"})


class ReconciliationItemOut(serializers.Serializer):
    workflow_id = serializers.UUIDField()
    patient_id = serializers.UUIDField()
    workflow_type = serializers.CharField()
    purpose = serializers.CharField()
    current_step = serializers.CharField()
    version = serializers.IntegerField()
    updated_at = serializers.DateTimeField()
    operation_id = serializers.UUIDField(allow_null=True)
    operation_kind = serializers.CharField(allow_null=True)
    system = serializers.CharField(allow_null=True)
    operation_status = serializers.CharField(allow_null=True)
    attempts = serializers.IntegerField(allow_null=True)
    next_attempt_at = serializers.DateTimeField(allow_null=True)
    last_error_code = serializers.CharField(allow_null=True)
    requested_by_kind = serializers.CharField(allow_null=True, help_text=REQUESTED_BY_KIND)
    parked = serializers.BooleanField(help_text="retries ran out with an unknown outcome: a person must act")
    can_act = serializers.BooleanField(help_text=(
        "whether the caller may act on it (retry, resolve, checkpoint): a grant for its patient and purpose, and "
        "workflow:write; the organisation's view also lists items the caller may only see"))
    cannot_act_reason = serializers.ChoiceField(
        choices=[selectors.NO_GRANT, selectors.NO_WRITE_SCOPE], allow_null=True,
        help_text="why not, when can_act is false: no grant for the patient and purpose, or no workflow:write")


class WorkflowReconciliationView(ScopedAPIView):
    """Staff: workflows stuck in needs_reconciliation, and cancelled ones whose operation is parked with an unknown
    outcome (no state, no payloads), of the patients and purposes the caller holds grants for; with
    ``workflow:reconcile:org`` the whole organisation's, labelled ``"view": "organization"``."""

    required_scopes = {"GET": ["workflow:reconcile"]}
    audit_actions = {"GET": "workflow.reconciliation.list"}
    query_parameters = {"GET": frozenset({"limit", "cursor"})}
    resource_type = "workflow"

    @extend_schema(operation_id="workflows_reconciliation_queue",
                   parameters=[OpenApiParameter("limit", {"type": "integer", "minimum": 1, "maximum": 500},
                                                required=False, description="1-500, default 100"),
                               OpenApiParameter("cursor", {"type": "string", "minLength": 1, "maxLength": 200},
                                                required=False, description="the next_cursor of the previous "
                                                "page: the items after it")],
                   responses={200: inline_serializer("ReconciliationQueue", {
                       "view": serializers.ChoiceField(
                           choices=[selectors.VIEW_GRANTED, selectors.VIEW_ORGANIZATION],
                           help_text="granted_patients, or organization with the workflow:reconcile:org scope"),
                       "items": ReconciliationItemOut(many=True),
                       "next_cursor": core_serializers.next_cursor_field()})})
    def get(self, request):
        require_staff(self.identity)
        limit = integer_parameter(request.query_params, "limit", default=100, low=1, high=500)
        with cursor_checked():
            items = selectors.reconciliation_queue(identity=self.identity, limit=limit + 1,
                                                   cursor=request.query_params.get("cursor"))
        audit.record(action="workflow.reconciliation.list", resource_type="workflow")
        more = len(items) > limit
        return Response({"view": selectors.reconciliation_view(self.identity),
                         "items": ReconciliationItemOut(items[:limit], many=True).data,
                         "next_cursor": selectors.reconciliation_cursor(items[limit - 1]) if more else None})
