"""The portal's "download a copy of my data" button: the same streamed export as the API, for the signed-in patient."""

from __future__ import annotations

from django.http import Http404, StreamingHttpResponse

from core import audit
from portal.context import portal_view
from rights.api import export_filename, fhir_export, json_export
from rights.streaming import stream_in_identity

FORMATS = {"json": "application/json", "fhir": "application/fhir+json"}


@portal_view(scopes=("export:read",), roles=("patient",))
def patient_export(request):
    fmt = request.GET.get("format", "json")
    if fmt not in FORMATS:
        raise Http404
    identity = request.portal_identity
    patient_id = identity.patient_self_id
    audit.record(action="patient.export", resource_type="patient", resource_id=patient_id, patient_id=patient_id,
                 reason=fmt)
    produce = (lambda: fhir_export(identity, patient_id)) if fmt == "fhir" else (
        lambda: json_export(identity, patient_id))
    response = StreamingHttpResponse(stream_in_identity(identity, produce), content_type=f"{FORMATS[fmt]}; "
                                                                                          "charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="{export_filename("my-data", fmt)}"'
    return response
