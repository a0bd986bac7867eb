"""Patient export (JSON and HL7 FHIR R4, streamed) and FHIR import of care context."""

from __future__ import annotations

import json
import uuid
from collections.abc import Iterator

from django.core.serializers.json import DjangoJSONEncoder
from django.http import StreamingHttpResponse
from django.utils import timezone
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema, inline_serializer
from rest_framework import serializers, status
from rest_framework.renderers import BaseRenderer, JSONRenderer
from rest_framework.response import Response

from consent import purpose as purpose_of_use
from consent.access import may_access
from core import audit
from core.api import ScopedAPIView
from core.errors import Forbidden, NoConsentOrAccess
from core.identity import Identity
from core.serializers import DateTimeIn, StrictSerializer
from core.vocabulary import PURPOSES
from memory.api import MemoryOut
from rights import export, fhir, importing
from rights.streaming import stream_in_identity


class FhirJSONRenderer(BaseRenderer):
    media_type = "application/fhir+json"
    format = "fhir"
    charset = "utf-8"

    def render(self, data, accepted_media_type=None, renderer_context=None):
        return json.dumps(data, cls=DjangoJSONEncoder).encode()


def _dumps(value) -> str:
    return json.dumps(value, cls=DjangoJSONEncoder, separators=(",", ":"), ensure_ascii=False)


def _require_access(identity: Identity, patient_id: uuid.UUID) -> None:
    """The patient themself, or staff with access for at least one purpose; the same answer otherwise, whether
    or not the patient exists. Never an agent: acting for the patient, it would get the whole record (care
    context kept for a purpose the patient gave it no consent for, other purposes' memories and conversations,
    who has access), when each of its reads is held to its purpose and the patient's consent."""
    if identity.is_agent:
        raise Forbidden("the patient or staff export a record; an agent reads for a purpose",
                        code="agent_cannot_export")
    if identity.is_patient(patient_id):
        return
    if not any(may_access(patient_id=patient_id, purpose=p) for p, _ in PURPOSES):
        raise NoConsentOrAccess()


def json_export(identity: Identity, patient_id: uuid.UUID) -> Iterator[str]:
    head = {"format": export.FORMAT, "exported_at": timezone.now().isoformat(), "exported_by": identity.actor_sub,
            "patient": {"patient_id": str(patient_id), "organization_id": str(identity.org_id)}}
    yield _dumps(head)[:-1]
    for name, rows in export.export_sections(identity, patient_id):
        yield f',"{name}":['
        first = True
        for row in rows:
            yield ("" if first else ",") + _dumps(row)
            first = False
        yield "]"
    yield "}"


def export_filename(stem: str, fmt: str) -> str:
    """``my-data.json``, ``my-data.fhir.json``: the format once, and always a .json a computer opens."""
    return f"{stem}.json" if fmt == "json" else f"{stem}.{fmt}.json"


def fhir_export(identity: Identity, patient_id: uuid.UUID) -> Iterator[str]:
    now = timezone.now().isoformat()
    envelope = {"resourceType": "Bundle", "id": str(uuid.uuid4()), "meta": {"lastUpdated": now},
                "type": "collection", "timestamp": now}
    fhir.validated_bundle(envelope)
    yield _dumps(envelope)[:-1] + ',"entry":['
    first = True

    def entry(resource: dict) -> str:
        nonlocal first
        text = ("" if first else ",") + _dumps({"fullUrl": f"urn:uuid:{resource['id']}",
                                                "resource": fhir.validated(resource)})
        first = False
        return text

    yield entry(fhir.patient(patient_id, next(export.directory_entry(identity, patient_id), None)))
    for c in export.consents(identity, patient_id):
        yield entry(fhir.consent(export.consent_dict(c), patient_id))
    resource_types: dict[str, str] = {}
    for m in export.memories(identity, patient_id):
        item = export.memory_dict(m)
        resource = fhir.memory_resource(item, patient_id)
        if resource is None:
            continue
        resource_types[item["memory_id"]] = resource["resourceType"]
        yield entry(resource)
        yield entry(fhir.memory_provenance(item, resource["resourceType"]))
    for e in export.lifecycle_events(identity, patient_id):
        item = export.lifecycle_event_dict(e)
        yield entry(fhir.event_provenance(item, resource_types.get(item["memory_id"])))
    for a in export.access_events(identity, patient_id):
        yield entry(fhir.audit_event(export.access_event_dict(a), patient_id))
    yield "]}"


def patient_export_stream(*, identity: Identity, patient_id: uuid.UUID, fmt: str,
                          purpose: str | None = None) -> Iterator[bytes]:
    """The patient's export in ``fmt`` (``json`` or ``fhir``) as a response body, audited as ``patient.export``
    (with the purpose of use it names) now, before the first byte (the body is produced later, in a transaction of
    its own: ``rights.streaming``). The caller has checked that ``identity`` may export this patient, and may read
    them for ``purpose``."""
    audit.record(action="patient.export", resource_type="patient", resource_id=patient_id, patient_id=patient_id,
                 purpose=purpose, reason=fmt)
    produce = (lambda: fhir_export(identity, patient_id)) if fmt == "fhir" else (
        lambda: json_export(identity, patient_id))
    return stream_in_identity(identity, produce)


EXPORTED = ("The export: JSON sections (format=json, the default), or an HL7 FHIR R4 collection Bundle "
            "(format=fhir, or Accept: application/fhir+json)")


class PatientExportView(ScopedAPIView):
    """A copy of everything held about the patient (right of access, portability), streamed.

    ``?format=json`` (default): every record, in sections. ``?format=fhir`` (or ``Accept: application/fhir+json``):
    an HL7 FHIR R4 ``collection`` Bundle (docs/fhir.md). The export is audited before the first byte is sent.
    """

    required_scopes = {"GET": ["export:read"]}
    audit_actions = {"GET": "patient.export"}
    resource_type = "patient_export"
    query_parameters = {"GET": frozenset({"format", "purpose"})}
    renderer_classes = [JSONRenderer, FhirJSONRenderer]

    @extend_schema(operation_id="patient_export",
                   parameters=[OpenApiParameter("format", str, enum=["json", "fhir"], required=False),
                               purpose_of_use.purpose_parameter(
                                   "The export holds what the caller may see; the purpose is recorded.")],
                   responses={
                       (200, "application/json"): OpenApiResponse(OpenApiTypes.OBJECT, description=EXPORTED),
                       (200, "application/fhir+json"): OpenApiResponse(OpenApiTypes.OBJECT, description=EXPORTED)})
    def get(self, request, patient_id):
        purpose = purpose_of_use.checked_query_purpose(self.identity, request.query_params, patient_id=patient_id)
        _require_access(self.identity, patient_id)
        fmt = request.accepted_renderer.format
        response = StreamingHttpResponse(patient_export_stream(identity=self.identity, patient_id=patient_id,
                                                               fmt=fmt, purpose=purpose),
                                         content_type=f"{request.accepted_renderer.media_type}; charset=utf-8")
        response["Content-Disposition"] = f'attachment; filename="{export_filename(f"patient-{patient_id}", fmt)}"'
        response["Cache-Control"] = "no-store"
        return response


class FhirImportIn(StrictSerializer):
    resource = serializers.DictField(help_text="A FHIR R4 AllergyIntolerance or MedicationStatement")
    review_by = DateTimeIn(help_text="When the care team reviews the imported fact")


FHIR_IMPORTED = inline_serializer("FhirImported", {
    "memory_id": serializers.UUIDField(),
    "status": serializers.ChoiceField(choices=["stored", "already_imported"]),
    "memory": MemoryOut()})


class PatientFhirImportView(ScopedAPIView):
    """Staff import care context from the EHR: one FHIR ``AllergyIntolerance`` or ``MedicationStatement``.

    Stored as ``ehr_import`` with ``source_ref`` ``<type>/<id>/_history/<versionId>``; the same resource version
    imported twice is one memory (the second answer is 200 with the first memory)."""
    idempotent_create = True

    required_scopes = {"POST": ["memory:write"]}
    audit_actions = {"POST": "memory.fhir_import"}
    resource_type = "memory"

    @extend_schema(operation_id="patient_fhir_import", request=FhirImportIn,
                   responses={201: OpenApiResponse(FHIR_IMPORTED, description="Imported"),
                              200: OpenApiResponse(FHIR_IMPORTED,
                                                   description="Already imported (same resource version)")})
    def post(self, request, patient_id):
        # Access first: an outsider learns nothing from how the body would have been judged.
        if not may_access(patient_id=patient_id, purpose=importing.CARE_PURPOSE):
            raise NoConsentOrAccess().about(patient_id=patient_id, purpose=importing.CARE_PURPOSE)
        body = FhirImportIn(data=request.data)
        body.is_valid(raise_exception=True)
        memory, created = importing.care_context_import(
            identity=self.identity, patient_id=patient_id, resource=body.validated_data["resource"],
            review_by=body.validated_data["review_by"])
        item = export.memory_dict(memory)
        return Response({"memory_id": item["memory_id"], "status": "stored" if created else "already_imported",
                         "memory": item}, status=status.HTTP_201_CREATED if created else status.HTTP_200_OK)
