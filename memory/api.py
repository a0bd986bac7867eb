from __future__ import annotations

from drf_spectacular.utils import OpenApiParameter, extend_schema, inline_serializer
from rest_framework import serializers, status
from rest_framework.response import Response

from consent.models import PURPOSES
from core import audit
from core.api import ScopedAPIView
from memory import selectors, services
from memory.facts import MEMORY_TYPES, StrictSerializer, validate_fact
from memory.models import Memory


class MemoryOut(serializers.ModelSerializer):
    class Meta:
        model = Memory
        fields = ["memory_id", "patient_id", "memory_class", "memory_type", "attribute", "fact", "state", "source",
                  "source_ref", "confidence", "policy_revision", "consent_purpose", "consent_record_id",
                  "valid_from", "valid_until", "expires_at", "created_by", "created_at"]

    consent_record_id = serializers.UUIDField(allow_null=True)
    confidence = serializers.FloatField()


class MemoryIn(StrictSerializer):
    memory_type = serializers.ChoiceField(choices=sorted(MEMORY_TYPES))
    fact = serializers.JSONField(help_text="Typed fact; `kind` names the attribute, e.g. "
                                           '{"kind": "earliest_time", "time": "10:00"}')
    consent_purpose = serializers.ChoiceField(choices=PURPOSES)
    consent_record_id = serializers.UUIDField()
    valid_until = serializers.DateTimeField(required=False, allow_null=True)

    def validate(self, attrs):
        attribute, fact = validate_fact(attrs["memory_type"], attrs["fact"])
        attrs["attribute"], attrs["fact"] = attribute, fact
        return attrs


class PatientMemoriesView(ScopedAPIView):
    """Long-term memories of one patient (compatible with the seed's reference service)."""

    required_scopes = {"GET": ["memory:read"], "POST": ["memory:write"]}
    audit_actions = {"GET": "memory.list", "POST": "memory.create"}
    resource_type = "memory"

    @extend_schema(
        operation_id="memories_list",
        parameters=[OpenApiParameter("memory_type", str, required=False),
                    OpenApiParameter("consent_purpose", str, required=False)],
        responses={200: inline_serializer("MemoryList", {"items": MemoryOut(many=True)})},
    )
    def get(self, request, patient_id):
        items = list(selectors.memory_list_current(
            identity=self.identity, patient_id=patient_id,
            memory_type=request.query_params.get("memory_type") or None,
            consent_purpose=request.query_params.get("consent_purpose") or None))
        audit.record(action="memory.list", resource_type="memory", patient_id=patient_id,
                     purpose=request.query_params.get("consent_purpose") or None)
        return Response({"items": MemoryOut(items, many=True).data})

    @extend_schema(
        operation_id="memories_create",
        request=MemoryIn,
        responses={201: inline_serializer("MemoryStored", {
            "memory_id": serializers.UUIDField(), "status": serializers.CharField(), "memory": MemoryOut()})},
    )
    def post(self, request, patient_id):
        body = MemoryIn(data=request.data)
        body.is_valid(raise_exception=True)
        memory = services.memory_record(identity=self.identity, patient_id=patient_id, **body.validated_data)
        return Response({"memory_id": str(memory.memory_id), "status": "stored", "memory": MemoryOut(memory).data},
                        status=status.HTTP_201_CREATED)
