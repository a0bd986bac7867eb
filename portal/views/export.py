"""The portal's "download a copy of my data" button: the same streamed export as the API, for the signed-in patient."""

from __future__ import annotations

from django.http import StreamingHttpResponse
from django.views.decorators.http import require_http_methods

from portal.context import error_page, portal_view
from rights.api import export_filename, patient_export_stream

FORMATS = {"json": "application/json", "fhir": "application/fhir+json"}


# GET only: OPTIONS, HEAD and TRACE, which the CSRF check lets by, ran the export (OPTIONS answered it whole)
@require_http_methods(["GET"])
@portal_view(scopes=("export:read",), roles=("patient",))
def patient_export(request):
    formats = request.GET.getlist("format") or ["json"]
    fmt = formats[0]
    if len(formats) > 1 or fmt not in FORMATS:  # a link we did not give: say what is offered ("not found" was not)
        return error_page(request, 400, title="This download is not offered",
                          message="A copy of your data comes as JSON or as HL7 FHIR. Go back to your preferences "
                                  "and use one of the two download links there.")
    identity = request.portal_identity
    body = patient_export_stream(identity=identity, patient_id=identity.patient_self_id, fmt=fmt)
    response = StreamingHttpResponse(body, content_type=f"{FORMATS[fmt]}; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="{export_filename("my-data", fmt)}"'
    return response
