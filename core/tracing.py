"""OpenTelemetry traces: one request followed across the API, the database, the embedding provider and the outside
systems. Off unless an OTLP endpoint is configured (``OTEL_EXPORTER_OTLP_ENDPOINT``; see docs/tracing.md).

* Off, nothing is set up: the SDK is not imported, :class:`TracingMiddleware` removes itself from the chain
  (``MiddlewareNotUsed``), no database wrapper is installed, :func:`span` hands back one shared no-op context and
  :func:`outgoing_headers` an empty dict.
* On, each process sets up its own SDK (``CoreConfig.ready``: gunicorn workers are not preloaded, so this happens
  after the fork; the SDK's batch processor also restarts its thread in a forked child) and exports in batches over
  OTLP/HTTP from a background thread.
* Spans: the request (``SERVER``, continuing a caller's W3C ``traceparent``), its database statements (``CLIENT``),
  every embedding call, every call to an outside system (``CLIENT``, which sends ``traceparent`` on), every outbox
  delivery. The response carries ``traceresponse`` (W3C Trace Context Level 2) so an operator can find the trace.
* Attributes name *kinds* of things, never the things: the route template (never the path: paths hold patient and
  memory ids), the method from a fixed list, status codes, the statement's verb and its table when it is one of our
  models' tables (never its text), the provider, model and number of texts (never the texts), the outside system
  and its route template (never the idempotency key or the payload), error types (never exception messages, which
  can quote values). A string holding a UUID is dropped from any attribute as a last guard.
"""

from __future__ import annotations

import contextlib
import re
from collections.abc import Iterator, Mapping
from functools import lru_cache
from typing import Any

from django.conf import settings
from django.core.exceptions import MiddlewareNotUsed
from opentelemetry import trace
from opentelemetry.propagators.textmap import Getter
from opentelemetry.trace import INVALID_SPAN, Span, SpanKind, Status, StatusCode
from opentelemetry.trace.propagation.tracecontext import TraceContextTextMapPropagator

INSTRUMENTATION = "anamnesis"
METHODS = frozenset({"GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS", "TRACE", "CONNECT"})
_UUID = re.compile(r"[0-9A-Fa-f]{8}-?[0-9A-Fa-f]{4}-?[0-9A-Fa-f]{4}-?[0-9A-Fa-f]{4}-?[0-9A-Fa-f]{12}")
# Only the W3C context travels: ``baggage`` is the caller's free text and is neither read nor passed on.
_PROPAGATOR = TraceContextTextMapPropagator()
_OFF = contextlib.nullcontext(INVALID_SPAN)

_tracer: trace.Tracer | None = None  # None: tracing is off in this process
_provider: Any = None  # the SDK's TracerProvider while on


def enabled() -> bool:
    return _tracer is not None


def configure(*, endpoint: str | None = None, service_name: str | None = None) -> bool:
    """Set up the SDK in this process if the settings (or ``endpoint``) ask for it; True if tracing is now on.
    Called once per process by ``CoreConfig.ready``; a second call while on changes nothing."""
    global _tracer, _provider
    if _tracer is not None:
        return True
    endpoint = endpoint if endpoint is not None else settings.OTEL_TRACES_ENDPOINT
    if not endpoint:
        return False
    from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
    from opentelemetry.sdk.resources import Resource
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import BatchSpanProcessor

    # The provider is this module's own, not the process-wide global (which can be set only once): a library that
    # traces through the global API stays untraced, so nothing it would put in attributes leaves the process.
    provider = TracerProvider(resource=Resource.create({"service.name": service_name or settings.OTEL_SERVICE_NAME}))
    provider.add_span_processor(BatchSpanProcessor(OTLPSpanExporter(endpoint=endpoint)))
    _provider, _tracer = provider, provider.get_tracer(INSTRUMENTATION)
    _install_database_spans()
    return True


def flush(timeout_millis: int = 10_000) -> bool:
    """Export what has ended so far (tests; a process about to exit)."""
    return _provider.force_flush(timeout_millis) if _provider is not None else True


def shutdown() -> None:
    """Export what is left and switch tracing off in this process (gunicorn's ``worker_exit``; tests)."""
    global _tracer, _provider
    if _provider is None:
        return
    _uninstall_database_spans()
    provider, _provider, _tracer = _provider, None, None
    provider.shutdown()


# --- spans ------------------------------------------------------------------------------------------------------
def _clean(attributes: Mapping[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in attributes.items()
            if v is not None and not (isinstance(v, str) and _UUID.search(v))}


def failed(span: Span, error_type: str) -> None:
    """Mark a span failed with a type (an exception's class name, an outcome code), never a message."""
    if not _UUID.search(error_type):
        span.set_attribute("error.type", error_type)
    span.set_status(Status(StatusCode.ERROR))


@contextlib.contextmanager
def _started(name: str, kind: SpanKind, attributes: Mapping[str, Any], context=None) -> Iterator[Span]:
    assert _tracer is not None
    # the SDK's own exception handling would record the exception's message and traceback as span events
    with _tracer.start_as_current_span(name, context=context, kind=kind, attributes=_clean(attributes),
                                       record_exception=False, set_status_on_exception=False) as current:
        try:
            yield current
        except BaseException as exc:
            failed(current, type(exc).__name__)
            raise


def span(name: str, *, kind: SpanKind = SpanKind.INTERNAL,
         attributes: Mapping[str, Any] | None = None) -> contextlib.AbstractContextManager[Span]:
    """A child of the current span; off, one shared no-op context whose span ignores everything."""
    if _tracer is None:
        return _OFF
    return _started(name, kind, attributes or {})


def annotate(attributes: Mapping[str, Any]) -> None:
    """Add attributes to the current span (nothing when off or outside a span)."""
    if _tracer is not None:
        trace.get_current_span().set_attributes(_clean(attributes))


def outgoing_headers() -> dict[str, str]:
    """The W3C trace context headers (``traceparent``, and ``tracestate`` when there is one) for an outgoing HTTP
    request made inside the current span; empty when tracing is off. Every call to an outside system adds them."""
    if _tracer is None:
        return {}
    carrier: dict[str, str] = {}
    _PROPAGATOR.inject(carrier)
    return carrier


def current_trace_id() -> str | None:
    """The current trace's id (32 hex digits) for log lines; None when off or outside a span."""
    if _tracer is None:
        return None
    context = trace.get_current_span().get_span_context()
    return f"{context.trace_id:032x}" if context.is_valid else None


# --- requests ---------------------------------------------------------------------------------------------------
class _MetaGetter(Getter[Mapping[str, Any]]):
    """Reads W3C headers from a WSGI environ (``traceparent`` is ``HTTP_TRACEPARENT``)."""

    def get(self, carrier: Mapping[str, Any], key: str) -> list[str] | None:
        value = carrier.get("HTTP_" + key.upper().replace("-", "_"))
        return [value] if isinstance(value, str) else None

    def keys(self, carrier: Mapping[str, Any]) -> list[str]:
        return []


_META = _MetaGetter()


def _route(request) -> str:
    match = getattr(request, "resolver_match", None)
    return match.route if match is not None and match.route else "unmatched"


class TracingMiddleware:
    """One ``SERVER`` span per request, continuing the caller's ``traceparent`` when it is valid (an invalid one
    starts a new trace). Named and labelled by the route template, never the path. Not in the chain when off."""

    def __init__(self, get_response):
        if _tracer is None:
            raise MiddlewareNotUsed
        self.get_response = get_response

    def __call__(self, request):
        method = request.method if request.method in METHODS else "_OTHER"
        parent = _PROPAGATOR.extract(request.META, getter=_META)
        with _started(method, SpanKind.SERVER, {"http.request.method": method, "url.scheme": request.scheme},
                      context=parent) as current:
            response = self.get_response(request)
            route = _route(request)
            current.update_name(f"{method} {route}")
            current.set_attributes({"http.route": route, "http.response.status_code": response.status_code})
            if response.status_code >= 500:
                failed(current, str(response.status_code))
            context = current.get_span_context()
            if context.is_valid:
                response["traceresponse"] = f"00-{context.trace_id:032x}-{context.span_id:016x}-" \
                                            f"{int(context.trace_flags):02x}"
        return response


# --- database statements ----------------------------------------------------------------------------------------
_VERBS = frozenset({"SELECT", "INSERT", "UPDATE", "DELETE", "WITH", "MERGE", "COPY", "LOCK", "SET", "SHOW", "CALL",
                    "DO", "CREATE", "ALTER", "DROP", "TRUNCATE", "EXPLAIN", "ANALYZE", "VACUUM", "SAVEPOINT",
                    "RELEASE", "ROLLBACK", "BEGIN", "COMMIT", "NOTIFY", "LISTEN", "GRANT", "REVOKE", "COMMENT"})
_TABLE = re.compile(r"\b(?:FROM|INTO|UPDATE|JOIN)\s+\"?([A-Za-z_][A-Za-z0-9_]*)\"?", re.IGNORECASE)


@lru_cache(maxsize=1)
def _model_tables() -> frozenset[str]:
    from django.apps import apps

    return frozenset(model._meta.db_table for model in apps.get_models(include_auto_created=True))


@lru_cache(maxsize=2048)
def statement_summary(sql: str) -> tuple[str, str | None]:
    """A statement's verb (from a fixed list, else ``OTHER``) and its first table, kept only when it is one of our
    models' tables: nothing of the statement's text that could be a value."""
    words = sql.lstrip(" \t\r\n(").split(None, 1)
    verb = words[0].upper() if words else ""
    table = next((m.group(1) for m in _TABLE.finditer(sql) if m.group(1) in _model_tables()), None)
    return (verb if verb in _VERBS else "OTHER"), table


def _database_span(execute, sql, params, many, context):
    # Statements are traced inside a request, a delivery or another span only: alone, each would be a trace of its
    # own (the outbox worker's polling, a sweep's every statement) that nobody follows. Also, tracing may have been
    # switched off since this connection was wrapped.
    if _tracer is None or not trace.get_current_span().is_recording():
        return execute(sql, params, many, context)
    verb, table = statement_summary(sql)
    with _started(f"{verb} {table}" if table else verb, SpanKind.CLIENT,
                  {"db.system.name": "postgresql", "db.operation.name": verb, "db.collection.name": table}) as current:
        try:
            return execute(sql, params, many, context)
        except Exception as exc:
            # a database error's message may quote the row's values: its SQLSTATE (or its type) only
            state = getattr(exc, "sqlstate", None) or getattr(exc.__cause__, "sqlstate", None)
            if state:
                current.set_attribute("db.response.status_code", str(state))
            raise


def _wrap(connection, **_: Any) -> None:
    if _database_span not in connection.execute_wrappers:
        connection.execute_wrappers.append(_database_span)


def _install_database_spans() -> None:
    """Every statement of every connection: those opened from now on (``connection_created``; a wrapper list lives
    as long as its connection object, across reconnects and pool checkouts) and this thread's open ones."""
    from django.db import connections
    from django.db.backends.signals import connection_created

    connection_created.connect(_wrap, dispatch_uid="core.tracing")
    for connection in connections.all(initialized_only=True):
        _wrap(connection)


def _uninstall_database_spans() -> None:
    from django.db import connections
    from django.db.backends.signals import connection_created

    connection_created.disconnect(dispatch_uid="core.tracing")
    for connection in connections.all(initialized_only=True):
        while _database_span in connection.execute_wrappers:
            connection.execute_wrappers.remove(_database_span)
