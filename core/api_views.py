from __future__ import annotations

import uuid

from drf_spectacular.utils import OpenApiParameter, extend_schema, inline_serializer
from rest_framework import serializers
from rest_framework.response import Response

from core import audit
from core.api import ScopedAPIView
from core.errors import ValidationFailed
from core.models import AuditEvent


class AuditEventOut(serializers.ModelSerializer):
    class Meta:
        model = AuditEvent
        fields = ["id", "occurred_at", "patient_id", "actor_sub", "actor_kind", "agent_client_id", "on_behalf_of",
                  "action", "resource_type", "resource_id", "purpose", "outcome", "reason", "correlation_id"]


class AuditEventListView(ScopedAPIView):
    """Access history. A patient sees their own; an auditor (audit:read) sees the organisation's."""

    required_scopes = {"GET": ["audit:read"]}
    audit_actions = {"GET": "audit.list"}
    resource_type = "audit_event"

    @extend_schema(
        operation_id="audit_events_list",
        parameters=[OpenApiParameter("patient_id", str, required=False),
                    OpenApiParameter("limit", int, required=False, description="1-500, default 100")],
        responses={200: inline_serializer("AuditEventList", {
            "view": serializers.ChoiceField(choices=["own", "organization"]),
            "items": AuditEventOut(many=True)})},
    )
    def get(self, request):
        qs = AuditEvent.objects.filter(organization_id=self.identity.org_id)
        patient_id = request.query_params.get("patient_id")
        errors = []
        if patient_id:
            try:
                patient_id = uuid.UUID(patient_id)
                qs = qs.filter(patient_id=patient_id)
            except ValueError:
                errors.append({"field": "patient_id", "message": "must be a UUID", "code": "invalid"})
        try:
            limit = int(request.query_params.get("limit", 100))
            if not 1 <= limit <= 500:
                raise ValueError
        except ValueError:
            errors.append({"field": "limit", "message": "an integer from 1 to 500", "code": "invalid"})
        if errors:
            raise ValidationFailed(errors=errors)
        items = list(qs.order_by("-occurred_at")[:limit])
        audit.record(action="audit.list", resource_type="audit_event",
                     patient_id=patient_id or self.identity.patient_self_id)
        # A patient (or an agent acting for one) reads their own history; audit:read without a patient context
        # is the organisation's auditor view.
        view = "own" if self.identity.patient_self_id else "organization"
        return Response({"view": view, "items": AuditEventOut(items, many=True).data})
