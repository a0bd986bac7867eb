"""The directory over HTTP. Agents with access resolve an identifier (``?identifier=system|value``); staff
search by name, identifier or date of birth (``?q=``); administrators register patients and staff subjects.
Each patient returned is audited as a read of that patient's data."""

from __future__ import annotations

from datetime import date

from django.utils import timezone
from drf_spectacular.utils import OpenApiParameter, extend_schema, inline_serializer
from rest_framework import serializers, status
from rest_framework.response import Response

from core import audit
from core.api import ScopedAPIView
from core.errors import NotFound, ValidationFailed, cursor_checked
from core.serializers import (
    RealUUIDIn,
    StrictSerializer,
    next_cursor_field,
    require_name,
    require_subject,
    require_visible,
)
from directory import selectors, services
from directory.models import StaffMember

NAME_HELP = ("The name staff know the patient by: one line of visible text (no control, invisible formatting or "
             "direction characters; 422 unstorable_character names the code point); trimmed of spaces at both ends")
STAFF_NAME_HELP = "The name administrators find the subject by; the same characters as a patient's name"


RESERVED_SYSTEM_PREFIX = "urn:anamnesis:"  # the service's own ids (patients, memories, consents) in FHIR


class IdentifierSerializer(StrictSerializer):
    system = serializers.RegexField(r"^[A-Za-z0-9:/._#-]{1,200}$", help_text="e.g. urn:oid:... or https://...")
    value = serializers.RegexField(r"^[A-Za-z0-9._/-]{1,100}$", help_text="e.g. an MRN")

    def validate_system(self, value: str) -> str:
        if value.lower().startswith(RESERVED_SYSTEM_PREFIX):
            # another patient's id under it would export as this patient's own
            raise serializers.ValidationError(f"{RESERVED_SYSTEM_PREFIX}... names the service's own records")
        return value


class PatientOut(serializers.Serializer):
    patient_id = serializers.UUIDField()
    display_name = serializers.CharField()
    birth_date = serializers.DateField(allow_null=True)
    identifiers = IdentifierSerializer(many=True)


class PatientIn(StrictSerializer):
    patient_id = RealUUIDIn(required=False, help_text="An existing patient id; new when absent")
    # checked as sent (DRF's trimming would drop a trailing control character unseen); the service trims spaces
    display_name = serializers.CharField(max_length=200, trim_whitespace=False, help_text=NAME_HELP,
                                         validators=[require_visible, require_name])
    birth_date = serializers.DateField(required=False, allow_null=True)
    identifiers = IdentifierSerializer(many=True, required=False, max_length=10)

    def validate_birth_date(self, value):
        if value is not None and not date(1880, 1, 1) <= value <= timezone.localdate():
            raise serializers.ValidationError("a date of birth between 1880-01-01 and today")
        return value

    def validate_identifiers(self, value):
        pairs = [(i["system"].lower(), i["value"].lower()) for i in value]  # one identifier in any case
        if len(set(pairs)) != len(pairs):
            raise serializers.ValidationError("the same identifier is given twice")
        return value


class StaffOut(serializers.Serializer):
    actor_sub = serializers.CharField()
    display_name = serializers.CharField()
    kind = serializers.CharField(help_text="person or agent")


class StaffIn(StrictSerializer):
    # no token ever names a malformed subject (401): registered, it would only show in the search box
    actor_sub = serializers.CharField(max_length=255, validators=[require_subject])
    display_name = serializers.CharField(max_length=200, trim_whitespace=False, help_text=STAFF_NAME_HELP,
                                         validators=[require_visible, require_name])
    kind = serializers.CharField(required=False, help_text="person (default) or agent")

    def validate_kind(self, value):
        if value not in StaffMember.Kind.values:
            raise serializers.ValidationError(f"one of {', '.join(StaffMember.Kind.values)}")
        return value


class DirectoryQuery(serializers.Serializer):
    identifier = serializers.RegexField(r"^[^|]{1,200}\|[^|]{1,100}$", required=False,
                                        error_messages={"invalid": "use system|value"})
    q = serializers.CharField(min_length=2, max_length=100, required=False)

    def validate_identifier(self, value: str) -> str:
        system, _, code = value.partition("|")
        return f"{system.strip()}|{code.strip()}"  # as registration trims them

    def validate(self, attrs):
        if bool(attrs.get("identifier")) == bool(attrs.get("q")):
            raise serializers.ValidationError({"identifier": ["give either identifier=system|value or q"]})
        return attrs


class StaffQuery(serializers.Serializer):
    q = serializers.CharField(max_length=100)  # left out: required; only spaces: blank


def _truncated_field(what: str) -> serializers.BooleanField:
    return serializers.BooleanField(help_text=(
        f"true when more {what} match than the {selectors.SEARCH_LIMIT} listed (the first by name): pass next_cursor "
        "as cursor (with the same q) for the next ones, or narrow q (more of the name, a date of birth as "
        "YYYY-MM-DD, an identifier value)"))


_SEARCH_CURSOR = OpenApiParameter("cursor", str, required=False,
                                  description=f"the next_cursor of the previous answer (with the same q): the next "
                                              f"{selectors.SEARCH_LIMIT} by name")


def _search_cursor(params) -> str | None:
    """The cursor of a search's next page, which goes with q only (an identifier names one patient)."""
    cursor = params.get("cursor")
    if cursor is not None and params.get("identifier"):
        raise ValidationFailed.of("cursor", "goes with q, not with identifier")
    return cursor


def _audit_reads(items: list[dict], action: str) -> None:
    for item in items:
        audit.record(action=action, resource_type="patient", resource_id=item["patient_id"],
                     patient_id=item["patient_id"])


class PatientsView(ScopedAPIView):
    idempotent_create = True
    required_scopes = {"GET": ["patient:read"], "POST": ["patient:write"]}
    audit_actions = {"GET": "patient.search", "POST": "patient.register"}
    resource_type = "patient"
    query_parameters = {"GET": frozenset({"identifier", "q", "cursor"})}

    @extend_schema(
        operation_id="patients_search",
        parameters=[OpenApiParameter("identifier", str, required=False, description="system|value, e.g. an MRN"),
                    OpenApiParameter("q", str, required=False, description="name, identifier value or YYYY-MM-DD"),
                    _SEARCH_CURSOR],
        responses={200: inline_serializer("PatientList", {"items": PatientOut(many=True),
                                                           "truncated": _truncated_field("patients"),
                                                           "next_cursor": next_cursor_field()})})
    def get(self, request):
        query = DirectoryQuery(data=request.query_params)
        query.is_valid(raise_exception=True)
        cursor = _search_cursor(request.query_params)
        next_cursor = None
        if query.validated_data.get("identifier"):
            system, value = query.validated_data["identifier"].split("|", 1)
            items = selectors.patient_by_identifier(identity=self.identity, system=system, value=value)
            _audit_reads(items, "patient.resolve")
        else:
            with cursor_checked():
                items, next_cursor = selectors.patient_search_page(identity=self.identity,
                                                                   q=query.validated_data["q"], cursor=cursor)
        return Response({"items": items, "truncated": next_cursor is not None, "next_cursor": next_cursor})

    @extend_schema(operation_id="patients_register", request=PatientIn, responses={201: PatientOut})
    def post(self, request):
        body = PatientIn(data=request.data)
        body.is_valid(raise_exception=True)
        d = body.validated_data
        profile = services.patient_register(
            identity=self.identity, display_name=d["display_name"], birth_date=d.get("birth_date"),
            patient_id=d.get("patient_id"),
            identifiers=[services.Identifier(**i) for i in d.get("identifiers", [])])
        return Response(selectors.patient_get(identity=self.identity, patient_id=profile.patient_id),
                        status=status.HTTP_201_CREATED)


class PatientDetailView(ScopedAPIView):
    required_scopes = {"GET": ["patient:read"]}
    audit_actions = {"GET": "patient.read"}
    resource_type = "patient"

    @extend_schema(operation_id="patients_read", responses={200: PatientOut})
    def get(self, request, patient_id):
        item = selectors.patient_get(identity=self.identity, patient_id=patient_id)
        if item is None:
            raise NotFound()
        _audit_reads([item], "patient.read")
        return Response(item)


class StaffView(ScopedAPIView):
    """Administrators find staff subjects (people and agents) by name to grant them access."""
    idempotent_create = True

    required_scopes = {"GET": ["grant:write"], "POST": ["grant:write"]}
    audit_actions = {"POST": "staff.register"}
    resource_type = "staff"
    query_parameters = {"GET": frozenset({"q", "cursor"})}

    @extend_schema(operation_id="staff_search",
                   parameters=[OpenApiParameter("q", str, required=True, description="name or subject"),
                               _SEARCH_CURSOR],
                   responses={200: inline_serializer("StaffList", {"items": StaffOut(many=True),
                                                                   "truncated": _truncated_field("subjects"),
                                                                   "next_cursor": next_cursor_field()})})
    def get(self, request):
        query = StaffQuery(data=request.query_params)
        query.is_valid(raise_exception=True)
        with cursor_checked():
            items, next_cursor = selectors.staff_search_page(identity=self.identity, q=query.validated_data["q"],
                                                             cursor=request.query_params.get("cursor"))
        return Response({"items": items, "truncated": next_cursor is not None, "next_cursor": next_cursor})

    @extend_schema(operation_id="staff_register", request=StaffIn, responses={201: StaffOut})
    def post(self, request):
        body = StaffIn(data=request.data)
        body.is_valid(raise_exception=True)
        member = services.staff_register(identity=self.identity, **body.validated_data)
        return Response({"actor_sub": member.actor_sub, "display_name": member.display_name, "kind": member.kind},
                        status=status.HTTP_201_CREATED)
