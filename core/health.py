"""Liveness and readiness. Plain Django views: no token needed, no patient data touched."""

from __future__ import annotations

import functools
import logging

from django.conf import settings
from django.db import connections
from django.http import JsonResponse

from core.errors import json_problem, method_not_allowed

log = logging.getLogger("anamnesis.health")
GET_AND_HEAD = ("GET", "HEAD")


def get_or_head(view):
    """GET, and HEAD answered as GET (load balancers probe with HEAD; the body is dropped where responses leave
    the application, core.wsgi.HeadWithoutBody); any other method 405 problem+json with ``Allow``."""

    @functools.wraps(view)
    def checked(request, *args, **kwargs):
        if request.method not in GET_AND_HEAD:
            return method_not_allowed(GET_AND_HEAD)
        return view(request, *args, **kwargs)

    return checked


@get_or_head
def live(request):
    return JsonResponse({"status": "live"})


@get_or_head
def ready(request):
    try:
        with connections["default"].cursor() as cursor:
            cursor.execute("SELECT 1")
            cursor.fetchone()
    except Exception as exc:
        # While the database's circuit is open (core.postgresql) this answers at once, without trying to connect.
        log.warning("readiness: database unreachable (%s)", type(exc).__name__)
        response = json_problem(503, "database_unavailable", "The database cannot be reached")
        response["Retry-After"] = str(settings.API_UNAVAILABLE_RETRY_AFTER_SECONDS)
        return response
    return JsonResponse({"status": "ready"})


def not_found(request, exception=None):
    return json_problem(404, "not_found", "Not found")


def server_error(request):
    return json_problem(500, "internal_error", "Internal error; the request id identifies it in the logs")
