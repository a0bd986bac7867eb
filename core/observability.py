"""Metrics and request log lines for operators. Neither ever holds a patient identifier or a value.

* Requests are labelled by their *route template* (``v1/patients/<uuid:patient_id>/memories``), method and status,
  never by the path: the path holds patient ids.
* ``GET /metrics`` (Prometheus text format) needs ``Authorization: Bearer <METRICS_TOKEN>``, compared in constant
  time; without a configured token it refuses everyone.
* Under gunicorn, set ``PROMETHEUS_MULTIPROC_DIR`` (an empty directory, shared by the workers, emptied at start):
  counters and histograms of every worker are then summed at scrape time (prometheus-client multiprocess mode).
* Values that live in the database (outbox depth and age, the last run of each sweep, the service's connections)
  are read at scrape time, so they are right whichever process is scraped and whichever process did the work; a
  request does no metrics work beyond its counter and histogram.
* Other apps add scrape-time values with :func:`register_collector` (core imports no domain app).
* ``LOG_FORMAT=json`` makes every log line one JSON object; the access line carries request id, route template,
  method, status and duration; with traces on (core.tracing), every line written inside a span has its trace id.
"""

from __future__ import annotations

import hmac
import json
import logging
import os
import time
from collections.abc import Callable, Iterable
from contextlib import AbstractContextManager, nullcontext

from django.conf import settings
from django.db import connection
from django.http import HttpResponse
from prometheus_client import CONTENT_TYPE_LATEST, CollectorRegistry, Counter, Histogram, generate_latest
from prometheus_client import values as prometheus_values
from prometheus_client.core import GaugeMetricFamily, Metric
from prometheus_client.registry import REGISTRY

from core.middleware import request_id_var
from core.tracing import current_trace_id

access_log = logging.getLogger("anamnesis.access")
log = logging.getLogger("anamnesis.metrics")


class _ReservedMetricsFile(prometheus_values.MmapedDict):
    """prometheus-client's file of one process's values in ``PROMETHEUS_MULTIPROC_DIR``, with its disk space
    reserved before it is used. The library extends the file without writing it and writes its values through a
    memory map: on a full disk the first write to a page killed the process (SIGBUS), so with the metrics'
    filesystem full every web worker died at its first request and again after each restart. Reserved first
    (``posix_fallocate``), a full disk is an ``OSError`` when a file is made or grows, which the callers survive
    (:class:`MetricsMiddleware`, :func:`timed`): the request is answered and only its metrics are lost."""

    def __init__(self, filename, read_mode=False):
        if not read_mode:
            with open(filename, "a+b") as f:
                size = os.fstat(f.fileno()).st_size
                try:
                    os.posix_fallocate(f.fileno(), 0, size or _METRICS_FILE_SIZE)
                except OSError:
                    if not size:
                        os.unlink(filename)  # an empty file would break /metrics, which reads them all
                    raise
        super().__init__(filename, read_mode)

    def _init_value(self, key):
        encoded = key.encode("utf-8")
        needed = self._used + 4 + len(encoded) + (8 - (len(encoded) + 4) % 8) + 16  # as the library lays it out
        capacity = self._capacity
        while needed > capacity:
            capacity *= 2
        if capacity > self._capacity:
            os.posix_fallocate(self._f.fileno(), 0, capacity)
        super()._init_value(key)


_METRICS_FILE_SIZE = 1 << 16  # prometheus-client's first size of a file
prometheus_values.MmapedDict = _ReservedMetricsFile  # type: ignore[misc]  # what its multiprocess values are made with
_metrics_lost = False


def _metrics_unwritable(exc: OSError) -> None:
    global _metrics_lost
    if not _metrics_lost:
        _metrics_lost = True
        log.error("metrics could not be written (%s, errno %s); requests are served without them",
                  type(exc).__name__, exc.errno)


def timed(histogram: Histogram, *labels: str) -> AbstractContextManager:
    """``histogram.labels(*labels).time()``, or nothing when its value cannot be stored (a full disk)."""
    try:
        return histogram.labels(*labels).time()
    except OSError as exc:
        _metrics_unwritable(exc)
        return nullcontext()


REQUESTS = Counter("anamnesis_http_requests_total", "HTTP requests by route template, method and status",
                   ["route", "method", "status"])
LATENCY = Histogram("anamnesis_http_request_duration_seconds", "Time to produce the response (streamed bodies "
                    "excluded)", ["route", "method", "status"],
                    buckets=(0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0))
EMBEDDING_LATENCY = Histogram("anamnesis_embedding_duration_seconds", "Time to embed one batch of texts",
                              ["provider"], buckets=(0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0))

UNMATCHED = "unmatched"
Collector = Callable[[], Iterable[Metric]]
_COLLECTORS: dict[str, Collector] = {}


def register_collector(name: str, collector: Collector) -> None:
    """Add scrape-time metric families (read from the database when /metrics is scraped)."""
    _COLLECTORS[name] = collector


def _route(request) -> str:
    match = getattr(request, "resolver_match", None)
    return match.route if match is not None and match.route else UNMATCHED


def _pool_metrics():
    """The database connections at scrape time, never on a request's path (reading a pool's statistics takes the
    lock every request of the process takes): every connection of the service's runtime role to its database, of
    every worker and node, by whether it is in use (from ``pg_stat_activity``, which shows a role its own
    sessions); and the requests waiting for a connection in the process that answers the scrape."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT count(*), count(*) FILTER (WHERE state = 'idle') FROM pg_stat_activity "
                       "WHERE usename = current_user AND datname = current_database() AND backend_type = 'client "
                       "backend' AND pid <> pg_backend_pid()")
        size, available = cursor.fetchone()
    yield gauge("anamnesis_db_pool_connections", "Connections of the service to its database, by state, at scrape "
                "time (every process and node)", ["state"], [("size", size), ("available", available)])
    pool = getattr(connection, "pool", None)
    if pool is not None:
        yield gauge("anamnesis_db_pool_requests_waiting", "Requests waiting for a database connection in the process "
                    "that answered the scrape", [], [(pool.get_stats().get("requests_waiting", 0),)])


register_collector("pool", _pool_metrics)


_CHILDREN: dict[tuple, tuple] = {}


def _children(route: str, method: str, status: int) -> tuple:
    """The request counter's and the latency histogram's series for these labels. Looked up once per label set
    (``labels()`` takes the metric's lock and builds the key on every call); the set is bounded by the routes,
    methods and statuses the service has."""
    key = (route, method, status)
    children = _CHILDREN.get(key)
    if children is None:
        children = _CHILDREN.setdefault(key, (REQUESTS.labels(route, method, str(status)),
                                              LATENCY.labels(route, method, str(status))))
    return children


class MetricsMiddleware:
    """Counts and times every request by route template; writes one access log line per request."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        started = time.perf_counter()
        response = self.get_response(request)
        elapsed = time.perf_counter() - started
        route, method, status = _route(request), request.method, response.status_code
        try:
            counter, histogram = _children(route, method, status)
            counter.inc()
            histogram.observe(elapsed)
        except OSError as exc:  # the metrics' disk is full: the response stands
            _metrics_unwritable(exc)
        # The route template, never the path: paths hold patient ids. (The check first: the line's fields are
        # not worth building when LOG_LEVEL or LOG_ACCESS leaves it out.)
        if access_log.isEnabledFor(logging.INFO):
            access_log.info("%s %s %s %.1fms", method, route, response.status_code, elapsed * 1000,
                            extra={"route": route, "method": method, "status": response.status_code,
                                   "duration_ms": round(elapsed * 1000, 2)})
        return response


class _DatabaseCollector:
    def collect(self):
        for name, collector in sorted(_COLLECTORS.items()):
            try:
                yield from collector()
            except Exception as exc:
                log.warning("metrics collector %s failed: %s", name, type(exc).__name__)


def _registry() -> CollectorRegistry:
    directory = os.environ.get("PROMETHEUS_MULTIPROC_DIR")
    if directory:
        from prometheus_client import multiprocess

        registry = CollectorRegistry()
        multiprocess.MultiProcessCollector(registry, path=directory)
        return registry
    return REGISTRY


def metrics_view(request):
    """Prometheus exposition, behind a bearer credential (``METRICS_TOKEN``) compared in constant time; a wrong one
    spends its client address's allowance of failed authentications (``core.gate``), as a bad API token does."""
    from core.errors import json_problem, method_not_allowed
    from core.gate import failed_authentication_refused, request_client_address
    from core.health import GET_AND_HEAD

    expected = settings.METRICS_TOKEN
    supplied = request.headers.get("Authorization", "")
    if not expected or not hmac.compare_digest(supplied.encode(), f"Bearer {expected}".encode()):
        # counted as the API's failed authentications are, so the credential cannot be guessed without end
        limited = failed_authentication_refused(request_client_address(request.META))
        if limited is not None:
            response = json_problem(429, limited.code, limited.title)
            response["Retry-After"] = limited.headers["Retry-After"]
            return response
        response = json_problem(401, "invalid_token", "The metrics credential is missing or wrong")
        response["WWW-Authenticate"] = "Bearer"
        return response
    if request.method not in GET_AND_HEAD:
        return method_not_allowed(GET_AND_HEAD)
    database = CollectorRegistry()
    database.register(_DatabaseCollector())
    body = generate_latest(_registry()) + generate_latest(database)
    return HttpResponse(body, content_type=CONTENT_TYPE_LATEST)


def gauge(name: str, documentation: str, labels: list[str], rows: Iterable[tuple]) -> GaugeMetricFamily:
    """A scrape-time gauge family from (label values..., value) rows."""
    family = GaugeMetricFamily(name, documentation, labels=labels)
    for *values, value in rows:
        family.add_metric([str(v) for v in values], float(value))
    return family


# --- JSON log lines ---------------------------------------------------------------------------------------------
_EXTRA = ("route", "method", "status", "duration_ms")


class JsonFormatter(logging.Formatter):
    """One JSON object per line: time, level, logger, request id, message (and the access fields when present).
    Exceptions are reduced to their type: their messages and tracebacks can quote values."""

    converter = time.gmtime  # type: ignore[assignment]  # logging.Formatter's documented way to log in UTC

    def format(self, record: logging.LogRecord) -> str:
        line = {"ts": self.formatTime(record, "%Y-%m-%dT%H:%M:%S") + f".{int(record.msecs):03d}Z",
                "level": record.levelname, "logger": record.name,
                "request_id": getattr(record, "request_id", None) or request_id_var.get(),
                "message": record.getMessage()}
        trace_id = current_trace_id()
        if trace_id is not None:
            line["trace_id"] = trace_id
        for key in _EXTRA:
            if hasattr(record, key):
                line[key] = getattr(record, key)
        if record.exc_info:
            line["exc_type"] = record.exc_info[0].__name__ if record.exc_info[0] else None
        return json.dumps(line, ensure_ascii=False)


# --- sweeps -----------------------------------------------------------------------------------------------------
def sweep_record(*, sweep: str, started: float, counts: dict[str, int]) -> None:
    """Remember one sweep run (name, when, how long, how many of each outcome) for /metrics. Not patient data."""
    from django.utils import timezone

    from core.models import SweepRun

    SweepRun.objects.create(sweep=sweep, finished_at=timezone.now(), duration_seconds=time.monotonic() - started,
                            counts=counts)


def _sweep_metrics():
    with connection.cursor() as cursor:
        cursor.execute("SELECT DISTINCT ON (sweep) sweep, EXTRACT(EPOCH FROM finished_at), duration_seconds, counts "
                       "FROM core_sweep_run ORDER BY sweep, finished_at DESC")
        rows = cursor.fetchall()
    yield gauge("anamnesis_sweep_last_run_timestamp_seconds", "When each sweep last finished", ["sweep"],
                [(sweep, finished) for sweep, finished, _, _ in rows])
    yield gauge("anamnesis_sweep_last_duration_seconds", "How long each sweep's last run took", ["sweep"],
                [(sweep, duration) for sweep, _, duration, _ in rows])
    yield gauge("anamnesis_sweep_last_processed", "What each sweep's last run processed, by outcome",
                ["sweep", "outcome"],
                [(sweep, outcome, n) for sweep, _, _, counts in rows
                 for outcome, n in sorted((json.loads(counts) if isinstance(counts, str) else counts).items())])


register_collector("sweeps", _sweep_metrics)
