from __future__ import annotations

import uuid

from django.http import HttpResponse
from drf_spectacular.utils import OpenApiParameter, extend_schema, inline_serializer
from drf_spectacular.views import SpectacularAPIView, SpectacularSwaggerSplitView
from rest_framework import serializers
from rest_framework.response import Response

from core import audit
from core.access import require_person_deciding_access
from core.api import ScopedAPIView, check_query_params
from core.errors import ValidationFailed, cursor_checked
from core.models import AuditEvent, Organization
from core.serializers import (
    ModelOutSerializer,
    RealUUIDIn,
    StrictSerializer,
    integer_parameter,
    next_cursor_field,
    page_parameters,
    require_name,
)
from core.services import organization_register


class AuditEventOut(ModelOutSerializer):
    class Meta:
        model = AuditEvent
        fields = ["id", "occurred_at", "patient_id", "actor_sub", "actor_kind", "agent_client_id", "on_behalf_of",
                  "action", "resource_type", "resource_id", "purpose", "outcome", "reason", "correlation_id"]


class AuditEventListView(ScopedAPIView):
    """Access history, newest first. A patient sees their own; an auditor (audit:read) sees the organisation's.
    Older pages: pass the answer's ``next_cursor`` as ``cursor`` (null when there is nothing older)."""

    required_scopes = {"GET": ["audit:read"]}
    audit_actions = {"GET": "audit.list"}
    resource_type = "audit_event"
    query_parameters = {"GET": frozenset({"patient_id", "limit", "cursor"})}

    @extend_schema(
        operation_id="audit_events_list",
        parameters=[OpenApiParameter("patient_id", {"type": "string", "format": "uuid"}, required=False),
                    *page_parameters(default=100, older="the events before it")],
        responses={200: inline_serializer("AuditEventList", {
            "view": serializers.ChoiceField(choices=["own", "organization"]),
            "items": AuditEventOut(many=True),
            "next_cursor": next_cursor_field()})},
    )
    def get(self, request):
        qs = AuditEvent.objects.filter(organization_id=self.identity.org_id)
        if self.identity.patient_self_id is not None:  # RLS shows them no other rows; naming them uses their index
            qs = qs.filter(patient_id=self.identity.patient_self_id)
        patient_id = request.query_params.get("patient_id")
        errors = []
        if patient_id:
            try:
                patient_id = uuid.UUID(patient_id)
                qs = qs.filter(patient_id=patient_id)
            except ValueError:
                errors.append({"field": "patient_id", "message": "must be a UUID", "code": "invalid"})
        try:
            limit = integer_parameter(request.query_params, "limit", default=100, low=1, high=500)
        except ValidationFailed as refused:
            errors += refused.errors
        if errors:
            raise ValidationFailed(errors=errors)
        with cursor_checked():
            page = audit.history_page(qs, cursor=request.query_params.get("cursor"), limit=limit)
        audit.record(action="audit.list", resource_type="audit_event",
                     patient_id=patient_id or self.identity.patient_self_id)
        # A patient (or an agent acting for one) reads their own history; audit:read without a patient context
        # is the organisation's auditor view.
        view = "own" if self.identity.patient_self_id else "organization"
        return Response({"view": view, "items": AuditEventOut(page.items, many=True).data,
                         "next_cursor": page.next_cursor})


class OrganizationOut(ModelOutSerializer):
    class Meta:
        model = Organization
        fields = ["id", "name", "trusted_issuers", "administrator", "created_at"]


class OrganizationIn(StrictSerializer):
    id = RealUUIDIn(required=False, help_text="generated when absent")
    name = serializers.CharField(max_length=200, allow_blank=True, default="", validators=[require_name])
    trusted_issuers = serializers.ListField(child=serializers.CharField(max_length=255), min_length=1,
                                            max_length=20)


class OrganizationListView(ScopedAPIView):
    """The organisation registry, for its administrators: ``organization:admin`` in a token of an organisation the
    operator flagged as administrator (``manage.py register_organization --administrator``). Anyone else sees
    only their own organisation, by RLS, even with the scope."""

    # A patient's token or an AI agent's is refused (403) whatever its scopes: which providers an organisation
    # trusts decides who may speak for its people, an access decision (core.access).

    required_scopes = {"GET": ["organization:admin"], "POST": ["organization:admin"]}
    audit_actions = {"GET": "organization.list", "POST": "organization.register"}
    resource_type = "organization"
    idempotent_create = True
    query_parameters = {"GET": frozenset({"limit", "cursor"})}

    @extend_schema(
        operation_id="organizations_list",
        parameters=page_parameters(default=100, older="the organisations before it"),
        responses={200: inline_serializer("OrganizationList", {
            "items": OrganizationOut(many=True), "next_cursor": next_cursor_field()})})
    def get(self, request):
        # newest first, a page at a time (it read the first 1,000 by age and dropped the rest without a word, so a
        # registry past 1,000 never listed its newest organisations)
        require_person_deciding_access(self.identity)
        limit = integer_parameter(request.query_params, "limit", default=100, low=1, high=500)
        with cursor_checked():
            items, next_cursor = audit.keyset_page(Organization.objects.all(), limit=limit, time_field="created_at",
                                                   id_field="id", cursor=request.query_params.get("cursor"))
        audit.record(action="organization.list", resource_type="organization")
        return Response({"items": OrganizationOut(items, many=True).data, "next_cursor": next_cursor})

    @extend_schema(operation_id="organizations_register", request=OrganizationIn,
                   responses={201: OrganizationOut})
    def post(self, request):
        require_person_deciding_access(self.identity)
        data = OrganizationIn(data=request.data)
        data.is_valid(raise_exception=True)
        org = organization_register(organization_id=data.validated_data.get("id") or uuid.uuid4(),
                                    name=data.validated_data["name"],
                                    trusted_issuers=data.validated_data["trusted_issuers"])
        audit.record(action="organization.register", resource_type="organization", resource_id=org.id)
        return Response(OrganizationOut(org).data, status=201)


class SchemaView(SpectacularAPIView):
    """``/v1/schema``: the OpenAPI document, made once per process in each format it is asked in (YAML by default,
    JSON), then served as made. It was generated and rendered for every request, with no token needed: about a
    quarter of a second of a worker's CPU each, so 40 clients asking at once kept ``/health/live`` from answering
    for 8 s. The document is the same for every caller: its ``lang`` and ``version`` query parameters, which
    drf-spectacular reads, are not ours (the API is not translated and has one version) and are ignored, so that
    no caller can make the document again by asking with another value."""

    _documents: dict[type, tuple[bytes, str, str]] = {}
    http_method_names = ["get", "head"]  # OPTIONS answered the view's docstring, to anyone: 405 as POST is

    def initial(self, request, *args, **kwargs):
        # Query parameters as every operation takes them (``/v1/schema?foo=1`` was 200): drf-spectacular's, format
        # naming one of the renderers (another was 404), nothing else, each once, 422 naming the parameter
        check_query_params(request, frozenset({"lang", "version"}))
        named = request.query_params.get("format")
        formats = sorted({r.format for r in self.get_renderers()})
        if named is not None and named not in formats:
            raise ValidationFailed(errors=[{"field": "format", "message": f"one of {', '.join(formats)}",
                                            "code": "invalid_choice"}])
        super().initial(request, *args, **kwargs)

    @extend_schema(exclude=True)
    def get(self, request, *args, **kwargs):
        # by the renderer, not the media type asked for: an Accept with parameters of the caller's choosing is
        # answered with the renderer's own, from the same few documents
        renderer = request.accepted_renderer
        document = self._documents.get(type(renderer))
        if document is None:
            response = self._get_schema_response(request)
            response.accepted_renderer = renderer
            response.accepted_media_type = renderer.media_type
            response.renderer_context = self.get_renderer_context()
            response.render()
            document = (response.content, response["Content-Type"], response["Content-Disposition"])
            self._documents[type(renderer)] = document
        content, content_type, disposition = document
        answer = HttpResponse(content, content_type=content_type)
        answer["Content-Disposition"] = disposition
        return answer

    def _get_version_parameter(self, request):
        return None


class DocsView(SpectacularSwaggerSplitView):
    """``/v1/docs``: Swagger UI on the schema. GET and HEAD only: DRF's OPTIONS answer went to the page's HTML
    renderer, which has no template for it (500 internal_error); it is 405 with ``Allow`` as POST is."""

    http_method_names = ["get", "head"]

    def initial(self, request, *args, **kwargs):
        # Query parameters as the schema (and every operation) takes them: ``/v1/docs?foo=1`` was 200 (and the
        # page's set-up script's address carried it) where ``/v1/schema?foo=1`` is 422. ``script`` (empty: the
        # set-up script) and ``lang`` are drf-spectacular's; nothing else, each once, 422 naming the parameter
        check_query_params(request, frozenset({"script", "lang"}), blank_allowed=frozenset({"script"}))
        super().initial(request, *args, **kwargs)
