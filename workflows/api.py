from __future__ import annotations

from drf_spectacular.utils import extend_schema, extend_schema_field
from rest_framework import serializers, status
from rest_framework.response import Response

from core import audit
from core.api import ScopedAPIView
from memory.facts import StrictSerializer
from workflows import selectors, services
from workflows.definitions import WORKFLOW_TYPES
from workflows.models import Workflow

MAX_PATCH_VALUE_LENGTH = 1000


class WorkflowOut(serializers.ModelSerializer):
    allowed_next_steps = serializers.SerializerMethodField()
    terminal = serializers.SerializerMethodField()

    class Meta:
        model = Workflow
        fields = ["workflow_id", "patient_id", "workflow_type", "purpose", "current_step", "state", "version",
                  "allowed_next_steps", "terminal", "created_by", "created_at", "updated_at"]

    def get_allowed_next_steps(self, obj) -> list[str]:
        return WORKFLOW_TYPES[obj.workflow_type].next_steps(obj.current_step)

    def get_terminal(self, obj) -> bool:
        return obj.current_step in WORKFLOW_TYPES[obj.workflow_type].terminal_steps


@extend_schema_field({"oneOf": [{"type": "string", "maxLength": 1000}, {"type": "number"},
                                 {"type": "boolean"}], "nullable": True})
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


class StatePatch(serializers.DictField):
    child = ScalarValue(allow_null=True)

    def to_internal_value(self, data):
        value = super().to_internal_value(data)
        if len(value) > 20:
            raise serializers.ValidationError("at most 20 values")
        if any(len(k) > 64 or not k for k in value):
            raise serializers.ValidationError("keys are 1 to 64 characters")
        return value


class WorkflowCreateIn(StrictSerializer):
    workflow_type = serializers.ChoiceField(choices=sorted(WORKFLOW_TYPES))
    patient_id = serializers.UUIDField()
    state = StatePatch(required=False, default=dict)


class CheckpointIn(StrictSerializer):
    expected_version = serializers.IntegerField(min_value=1)
    next_step = serializers.CharField(max_length=80)
    state_patch = StatePatch(required=False, default=dict)


class WorkflowsView(ScopedAPIView):
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
        return Response(WorkflowOut(workflow).data, status=status.HTTP_201_CREATED)


class WorkflowDetailView(ScopedAPIView):
    required_scopes = {"GET": ["workflow:read"]}
    audit_actions = {"GET": "workflow.read"}
    resource_type = "workflow"

    @extend_schema(operation_id="workflows_read", responses={200: WorkflowOut})
    def get(self, request, workflow_id):
        workflow = selectors.workflow_get(identity=self.identity, workflow_id=workflow_id)
        audit.record(action="workflow.read", resource_type="workflow", resource_id=workflow.workflow_id,
                     patient_id=workflow.patient_id, purpose=workflow.purpose)
        return Response(WorkflowOut(workflow).data)


class WorkflowCheckpointView(ScopedAPIView):
    required_scopes = {"POST": ["workflow:write"]}
    audit_actions = {"POST": "workflow.checkpoint"}
    resource_type = "workflow"

    @extend_schema(operation_id="workflows_checkpoint", request=CheckpointIn, responses={200: WorkflowOut})
    def post(self, request, workflow_id):
        body = CheckpointIn(data=request.data)
        body.is_valid(raise_exception=True)
        workflow = services.workflow_checkpoint(identity=self.identity, workflow_id=workflow_id,
                                                **body.validated_data)
        return Response(WorkflowOut(workflow).data)
