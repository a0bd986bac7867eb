from __future__ import annotations

from drf_spectacular.utils import OpenApiParameter, extend_schema, inline_serializer
from rest_framework import serializers, status
from rest_framework.response import Response

from consent import selectors, services
from consent.models import AccessGrant, ConsentRecord
from core.api import ScopedAPIView
from core.errors import cursor_checked
from core.serializers import (
    DateTimeIn,
    ModelOutSerializer,
    NoBody,
    RealUUIDIn,
    StrictSerializer,
    integer_parameter,
    next_cursor_field,
    page_parameters,
    require_subject,
)
from core.vocabulary import PURPOSES


class ConsentOut(ModelOutSerializer):
    class Meta:
        model = ConsentRecord
        fields = ["consent_record_id", "patient_id", "purpose", "status", "granted_at", "revoked_at", "expires_at",
                  "evidence_ref", "policy_revision", "recorded_by", "revoked_by"]


class ConsentIn(StrictSerializer):
    purpose = serializers.ChoiceField(choices=PURPOSES)
    evidence_ref = serializers.CharField(max_length=255, required=False, allow_blank=False)
    expires_at = DateTimeIn(required=False, allow_null=True)


class PatientConsentsView(ScopedAPIView):
    idempotent_create = True
    required_scopes = {"GET": ["consent:read"], "POST": ["consent:write"]}
    audit_actions = {"GET": "consent.list", "POST": "consent.grant"}
    resource_type = "consent"
    query_parameters = {"GET": frozenset({"limit", "cursor"})}

    @extend_schema(operation_id="consents_list",
                   parameters=page_parameters(default=100, older="older consents"),
                   responses={200: inline_serializer("ConsentList", {"items": ConsentOut(many=True),
                                                                     "next_cursor": next_cursor_field()})})
    def get(self, request, patient_id):
        # Newest first, a page at a time: every consent given and withdrawn, however many, was one answer
        limit = integer_parameter(request.query_params, "limit", default=100, low=1, high=500)
        with cursor_checked():
            items, next_cursor = selectors.consent_page_audited(identity=self.identity, patient_id=patient_id,
                                                                limit=limit, cursor=request.query_params.get("cursor"))
        return Response({"items": ConsentOut(items, many=True).data, "next_cursor": next_cursor})

    @extend_schema(operation_id="consents_create", request=ConsentIn, responses={201: ConsentOut, 200: ConsentOut})
    def post(self, request, patient_id):
        body = ConsentIn(data=request.data)
        body.is_valid(raise_exception=True)
        data = body.validated_data
        evidence = data.get("evidence_ref")
        if not evidence:
            if not self.identity.is_patient_themself(patient_id):  # staff and agents name their evidence
                raise serializers.ValidationError({"evidence_ref": ["staff and agents give the evidence"]})
            evidence = f"patient-self:{self.identity.actor_sub}"
        record, created = services.consent_record(
            identity=self.identity, patient_id=patient_id, purpose=data["purpose"], evidence_ref=evidence,
            expires_at=data.get("expires_at"))
        return Response(ConsentOut(record).data, status=status.HTTP_201_CREATED if created else status.HTTP_200_OK)


class ConsentRevokeView(ScopedAPIView):
    required_scopes = {"POST": ["consent:write"]}
    audit_actions = {"POST": "consent.revoke"}
    resource_type = "consent"

    @extend_schema(operation_id="consents_revoke", request=None, responses={200: ConsentOut})
    def post(self, request, patient_id, consent_id):
        NoBody.check(request)
        record = services.consent_revoke(identity=self.identity, patient_id=patient_id, consent_id=consent_id)
        return Response(ConsentOut(record).data)


class GrantOut(ModelOutSerializer):
    class Meta:
        model = AccessGrant
        fields = ["grant_id", "patient_id", "actor_sub", "purpose", "expires_at", "revoked_at", "granted_by",
                  "revoked_by", "reason", "created_at"]


class GrantIn(StrictSerializer):
    patient_id = RealUUIDIn()
    actor_sub = serializers.CharField(max_length=255, validators=[require_subject])
    purpose = serializers.ChoiceField(choices=PURPOSES)
    expires_at = DateTimeIn(required=False, allow_null=True, default=None, help_text="none: until revoked")
    reason = serializers.CharField(max_length=400, required=False, allow_blank=True, default="")


class GrantRevokeIn(StrictSerializer):
    reason = serializers.CharField(max_length=200, required=False, allow_blank=True, default="")


class GrantsView(ScopedAPIView):
    idempotent_create = True
    required_scopes = {"GET": ["grant:write"], "POST": ["grant:write"]}
    audit_actions = {"POST": "grant.create"}
    resource_type = "access_grant"
    query_parameters = {"GET": frozenset({"patient_id", "limit", "cursor"})}

    def idempotency_resource_id(self, data):
        # revoking the grant withdraws its creation's stored answer, which shows it open (services.grant_revoke)
        return data.get("grant_id")

    @extend_schema(operation_id="grants_list",
                   parameters=[OpenApiParameter("patient_id", {"type": "string", "format": "uuid"}, required=False,
                                                description="one patient's"),
                               *page_parameters(default=500, older="older grants")],
                   responses={200: inline_serializer("GrantList", {
                       "items": GrantOut(many=True),
                       "next_cursor": next_cursor_field()})})
    def get(self, request):
        # Newest first, a page at a time: an organisation's list stopped at its newest 500 grants, saying nothing
        # of the others (an administrator reviewing who may reach which patient missed the older ones).
        limit = integer_parameter(request.query_params, "limit", default=500, low=1, high=500)
        with cursor_checked():
            items, next_cursor = selectors.grant_list_audited(
                identity=self.identity, patient_id=request.query_params.get("patient_id") or None,
                cursor=request.query_params.get("cursor"), limit=limit)
        return Response({"items": GrantOut(items, many=True).data, "next_cursor": next_cursor})

    @extend_schema(operation_id="grants_create", request=GrantIn, responses={201: GrantOut, 200: GrantOut})
    def post(self, request):
        body = GrantIn(data=request.data)
        body.is_valid(raise_exception=True)
        grant, created = services.grant_create(identity=self.identity, **body.validated_data)
        return Response(GrantOut(grant).data, status=status.HTTP_201_CREATED if created else status.HTTP_200_OK)


class GrantRevokeView(ScopedAPIView):
    required_scopes = {"POST": ["grant:write"]}
    audit_actions = {"POST": "grant.revoke"}
    resource_type = "access_grant"

    @extend_schema(operation_id="grants_revoke", request=GrantRevokeIn, responses={200: GrantOut})
    def post(self, request, grant_id):
        body = GrantRevokeIn(data=request.data or {})
        body.is_valid(raise_exception=True)
        grant = services.grant_revoke(identity=self.identity, grant_id=grant_id, reason=body.validated_data["reason"])
        return Response(GrantOut(grant).data)
