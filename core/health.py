"""Liveness and readiness. Plain Django views: no token needed, no patient data touched."""

from __future__ import annotations

import functools
import logging

from django.conf import settings
from django.db import connections
from django.http import JsonResponse
from django.urls import Resolver404, resolve
from psycopg_pool import PoolTimeout

from core.browser import is_bearer_path
from core.errors import PROBLEM_CONTENT_TYPE, json_problem, method_not_allowed, problem_body

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
    """Ready while PostgreSQL can be reached and takes writes; ``"database": "busy"`` (still 200) when every pooled
    connection is in use by other requests. A load balancer that took a busy node out of rotation would load the
    others the more, and take them out in turn: saturation is for metrics and autoscaling, not for readiness. The
    probe does not wait its turn for a connection behind the requests (it was 503 database_unavailable after the
    pool's timeout, PostgreSQL well).

    A database that takes no writes (a standby left unpromoted after a failover, ``default_transaction_read_only``
    set during an incident) is not ready: every request writes (a read its audit row), so this node could answer
    nothing but 503; it is ``503 database_read_only`` with ``Retry-After``, so that a load balancer sends the traffic
    to a node whose database takes it (it answered 200 ready)."""
    database = connections["default"]
    saturated = getattr(database, "pool_saturated", None)
    if saturated is not None and saturated():
        return JsonResponse({"status": "ready", "database": "busy"})
    try:
        with database.cursor() as cursor:
            cursor.execute("SELECT current_setting('transaction_read_only')")
            (read_only,) = cursor.fetchone()
    except Exception as exc:
        if isinstance(exc.__cause__, PoolTimeout) and saturated is not None and saturated():
            return JsonResponse({"status": "ready", "database": "busy"})  # filled up while this one waited
        # While the database's circuit is open (core.postgresql) this answers at once, without trying to connect.
        log.warning("readiness: database unreachable (%s)", type(exc).__name__)
        return _not_ready("database_unavailable", "The database cannot be reached")
    if read_only == "on":
        log.warning("readiness: the database takes no writes")
        return _not_ready("database_read_only", "The database takes no writes")
    return JsonResponse({"status": "ready"})


def _not_ready(code: str, title: str):
    response = json_problem(503, code, title)
    response["Retry-After"] = str(settings.API_UNAVAILABLE_RETRY_AFTER_SECONDS)
    return response


def not_found(request, exception=None):
    """404 for a path nothing serves. A path with a trailing slash whose slashless form is served says so (a client
    that added the slash was told nothing): never a redirect, which a POST would not follow with its body."""
    path = request.path_info
    if path.endswith("/") and len(path) > 1 and is_bearer_path(path[:-1]) and _served(path[:-1]):
        return JsonResponse(problem_body(
            status_code=404, code="not_found", title="Not found",
            message="This path is served without its trailing slash: send the request to the path without it"),
            status=404, content_type=PROBLEM_CONTENT_TYPE)
    return json_problem(404, "not_found", "Not found")


def _served(path: str) -> bool:
    try:
        resolve(path)
    except Resolver404:
        return False
    return True


def server_error(request):
    return json_problem(500, "internal_error", "Internal error; the request id identifies it in the logs")
