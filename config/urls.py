from django.urls import include, path

from core import health
from core.api_views import DocsView, SchemaView
from core.observability import metrics_view
from portal.views.export import patient_export

urlpatterns = [
    path("health/live", health.live, name="health-live"),
    path("health/ready", health.ready, name="health-ready"),
    path("metrics", metrics_view, name="metrics"),
    path("v1/schema", SchemaView.as_view(), name="schema"),
    # the page's script is a file of its own (?script), so the page keeps the portal's CSP (no inline script)
    path("v1/docs", DocsView.as_view(url_name="schema"), name="docs"),
    path("v1/", include("memory.urls")),
    path("v1/", include("conversations.urls")),
    path("v1/", include("consent.urls")),
    path("v1/", include("directory.urls")),
    path("v1/", include("workflows.urls")),
    path("v1/", include("core.urls")),
    path("v1/", include("events.urls")),
    path("v1/", include("rights.urls")),
    path("me/export/", patient_export, name="patient-export"),
    # Portal (server-rendered pages behind OpenID Connect login)
    path("", include("portal.urls")),
]

handler400 = "portal.context.bad_request"  # a page for browsers, a problem document for the API
handler404 = "portal.context.not_found"  # a page for browsers, a problem document for the API
handler500 = "portal.context.server_error"  # a page for browsers, a problem document for the API
