from importlib import import_module

from django.urls import URLResolver, include, path
from django.urls.resolvers import RoutePattern

from core import health
from core.api_views import DocsView, SchemaView
from core.observability import metrics_view
from portal.views.export import patient_export


class _FirstSegmentRoute(RoutePattern):
    """``v1/`` for one app's API, matched only when the segment after it is one its routes begin with: Django tries
    an include's patterns one by one, so a checkpoint (``v1/workflows/...``) was matched against every pattern of
    the four apps listed before its own (about 50) on every request. Reversing and the OpenAPI schema see the plain
    ``v1/`` route."""

    def __init__(self, route: str, first_segments: frozenset[str]) -> None:
        super().__init__(route, is_endpoint=False)
        self.first_segments = first_segments

    def match(self, path):
        matched = super().match(path)
        if matched is None or matched[0].partition("/")[0] not in self.first_segments:
            return None
        return matched


def _api(module_name: str) -> URLResolver:
    """``path("v1/", include(module_name))``, tried only for the first segments of the module's routes."""
    first = frozenset(str(pattern.pattern).partition("/")[0] for pattern in import_module(module_name).urlpatterns)
    if any(not segment or segment.startswith("<") for segment in first):  # a route that begins with a parameter
        return path("v1/", include(module_name))
    return URLResolver(_FirstSegmentRoute("v1/", first), module_name)


urlpatterns = [
    path("health/live", health.live, name="health-live"),
    path("health/ready", health.ready, name="health-ready"),
    path("metrics", metrics_view, name="metrics"),
    path("v1/schema", SchemaView.as_view(), name="schema"),
    # the page's script is a file of its own (?script), so the page keeps the portal's CSP (no inline script)
    path("v1/docs", DocsView.as_view(url_name="schema"), name="docs"),
    _api("memory.urls"),
    _api("conversations.urls"),
    _api("consent.urls"),
    _api("directory.urls"),
    _api("workflows.urls"),
    _api("core.urls"),
    _api("events.urls"),
    _api("rights.urls"),
    path("me/export/", patient_export, name="patient-export"),
    # Portal (server-rendered pages behind OpenID Connect login)
    path("", include("portal.urls")),
]

handler400 = "portal.context.bad_request"  # a page for browsers, a problem document for the API
handler404 = "portal.context.not_found"  # a page for browsers, a problem document for the API
handler500 = "portal.context.server_error"  # a page for browsers, a problem document for the API
