"""Liveness and readiness. Plain Django views: no token needed, no patient data touched."""

from __future__ import annotations

import functools
import logging

from django.conf import settings
from django.db import connections
from django.http import JsonResponse
from psycopg_pool import PoolTimeout

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
    """Ready while PostgreSQL can be reached; ``"database": "busy"`` (still 200) when every pooled connection is in
    use by other requests. A load balancer that took a busy node out of rotation would load the others the more,
    and take them out in turn: saturation is for metrics and autoscaling, not for readiness. The probe does not
    wait its turn for a connection behind the requests (it was 503 database_unavailable after the pool's timeout,
    PostgreSQL well)."""
    database = connections["default"]
    saturated = getattr(database, "pool_saturated", None)
    if saturated is not None and saturated():
        return JsonResponse({"status": "ready", "database": "busy"})
    try:
        with database.cursor() as cursor:
            cursor.execute("SELECT 1")
            cursor.fetchone()
    except Exception as exc:
        if isinstance(exc.__cause__, PoolTimeout) and saturated is not None and saturated():
            return JsonResponse({"status": "ready", "database": "busy"})  # filled up while this one waited
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
