"""The portal's "download a copy of my data" button: the same streamed export as the API, for the signed-in patient."""

from __future__ import annotations

from django.http import Http404, StreamingHttpResponse

from portal.context import portal_view
from rights.api import export_filename, patient_export_stream

FORMATS = {"json": "application/json", "fhir": "application/fhir+json"}


@portal_view(scopes=("export:read",), roles=("patient",))
def patient_export(request):
    fmt = request.GET.get("format", "json")
    if fmt not in FORMATS:
        raise Http404
    identity = request.portal_identity
    body = patient_export_stream(identity=identity, patient_id=identity.patient_self_id, fmt=fmt)
    response = StreamingHttpResponse(body, content_type=f"{FORMATS[fmt]}; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="{export_filename("my-data", fmt)}"'
    return response
