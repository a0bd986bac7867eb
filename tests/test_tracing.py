"""OpenTelemetry traces, exported by the real SDK and OTLP/HTTP exporter to a real collector (an HTTP server in the
test that decodes ``ExportTraceServiceRequest``): the request, its database statements, its embedding call and its
call to an outside system are one trace, continuing a caller's ``traceparent`` and passing it on; an outbox delivery
is a trace of its own whose call carries it; no span says anything about a patient; off by default, nothing is set
up."""

from __future__ import annotations

import gzip
import http.client
import json
import logging
import os
import subprocess
import sys
import threading
import uuid
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
from django.core.exceptions import MiddlewareNotUsed
from django.db import connection, transaction
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import (
    ExportTraceServiceRequest,
    ExportTraceServiceResponse,
)
from opentelemetry.proto.trace.v1.trace_pb2 import Span as SpanProto

from conversations.scheduling import search_slots
from core import tracing
from core.observability import JsonFormatter
from core.wsgi import RoutedWSGIApplication
from tests.fakes.scheduling import FakeScheduling
from tests.support import Api
from tests.test_conversations_api import SEED_TURN_1, SEED_TURN_2, say, session_path, start

ROOT = Path(__file__).resolve().parents[1]
CALLER_TRACE = "4bf92f3577b34da6a3ce929d0e0e4736"
CALLER_SPAN = "00f067aa0ba902b7"


def _value(any_value):
    kind = any_value.WhichOneof("value")
    if kind == "array_value":
        return [_value(v) for v in any_value.array_value.values]
    return getattr(any_value, kind) if kind else None


class Collector:
    """An OTLP/HTTP trace receiver: ``POST /v1/traces`` with a protobuf ``ExportTraceServiceRequest``."""

    def __init__(self) -> None:
        self.spans: list[dict] = []
        self.resources: list[dict] = []
        self.bodies: list[bytes] = []  # every decoded export, byte for byte
        self.lock = threading.Lock()
        outer = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):  # noqa: N802
                raw = self.rfile.read(int(self.headers.get("Content-Length") or 0))
                if self.headers.get("Content-Encoding") == "gzip":
                    raw = gzip.decompress(raw)
                if self.path != "/v1/traces" or self.headers.get("Content-Type") != "application/x-protobuf":
                    self.send_response(404)
                    self.end_headers()
                    return
                outer.receive(ExportTraceServiceRequest.FromString(raw), raw)
                answer = ExportTraceServiceResponse().SerializeToString()
                self.send_response(200)
                self.send_header("Content-Type", "application/x-protobuf")
                self.send_header("Content-Length", str(len(answer)))
                self.end_headers()
                self.wfile.write(answer)

            def log_message(self, *args):
                pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}"
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()

    def receive(self, request: ExportTraceServiceRequest, raw: bytes) -> None:
        with self.lock:
            self.bodies.append(raw)
            for resource_spans in request.resource_spans:
                self.resources.append({a.key: _value(a.value) for a in resource_spans.resource.attributes})
                for scope_spans in resource_spans.scope_spans:
                    for s in scope_spans.spans:
                        self.spans.append({
                            "name": s.name, "kind": SpanProto.SpanKind.Name(s.kind),
                            "trace_id": s.trace_id.hex(), "span_id": s.span_id.hex(),
                            "parent": s.parent_span_id.hex() or None, "status": s.status.code,
                            "status_message": s.status.message, "events": [e.name for e in s.events],
                            "attributes": {a.key: _value(a.value) for a in s.attributes}})

    def stop(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()

    # --- reading the trace ---
    def by_id(self) -> dict[str, dict]:
        return {s["span_id"]: s for s in self.spans}

    def under(self, root: dict) -> list[dict]:
        """Every span whose chain of parents reaches ``root``."""
        spans, found = self.by_id(), []
        for s in self.spans:
            parent = s["parent"]
            while parent is not None and parent != root["span_id"] and parent in spans:
                parent = spans[parent]["parent"]
            if parent == root["span_id"]:
                found.append(s)
        return found

    def server(self, route_part: str) -> list[dict]:
        return [s for s in self.spans if s["kind"] == "SPAN_KIND_SERVER" and route_part in s["name"]]


@pytest.fixture
def collector():
    server = Collector()
    yield server
    server.stop()


@pytest.fixture
def traced(collector):
    """Traces on in this process, exported by the real exporter to the collector; off again afterwards."""
    assert tracing.configure(endpoint=f"{collector.url}/v1/traces", service_name="anamnesis-test")
    yield collector
    tracing.shutdown()


@pytest.fixture
def scheduling(settings):
    fake = FakeScheduling()
    settings.SCHEDULING_BASE_URL = fake.url
    yield fake
    fake.down()


def _care(world, nurse: Api, fact: dict) -> str:
    r = nurse.post(f"/v1/patients/{world.patient_a}/memories",
                   {"memory_type": "care_context", "consent_purpose": "care_coordination", "fact": fact,
                    "review_by": "2031-01-01T00:00:00Z", "source": "ehr_import", "source_ref": "ehr:1"})
    assert r.status_code == 201, r.content
    return r.json()["memory_id"]


def _context(header: str | None) -> tuple[str, str]:
    """Trace and span id of a W3C header, which says the trace is sampled (the SDK also sets Level 2's random
    flag, 0x02, on the traces it starts)."""
    assert header is not None
    version, trace_id, span_id, flags = header.split("-")
    assert version == "00" and int(flags, 16) & 1, header
    return trace_id, span_id


def _traceresponse(response) -> tuple[str, str]:
    return _context(response["traceresponse"])


@pytest.mark.django_db
def test_a_request_its_statements_its_embedding_and_its_outside_call_are_one_trace_without_patient_data(
        world, traced, scheduling):
    collector = traced
    world.grant(world.patient_a, "clinician", "care_coordination")
    nurse = world.staff("clinician")
    facts = {"kind": "allergy", "substance": "amoxicillin", "reaction": "urticaria"}
    memory_id = _care(world, nurse, facts)
    question = f"is there an allergy to amoxicillin {uuid.uuid4().hex[:6]}?"  # not in the vector cache

    # a caller's trace is continued
    caller = f"00-{CALLER_TRACE}-{CALLER_SPAN}-01"
    r = nurse.get(f"/v1/patients/{world.patient_a}/memories/search", {"q": question},
                  headers={"traceparent": caller})
    assert r.status_code == 200, r.content
    assert r.json()["items"][0]["memory"]["memory_id"] == memory_id
    search_trace, search_span = _traceresponse(r)
    assert search_trace == CALLER_TRACE

    # a request without one starts a trace, and the outside system receives its context
    patient = world.patient(world.patient_a)
    sid = start(patient, world.patient_a)["session"]["session_id"]
    say(patient, sid, SEED_TURN_1)
    say(patient, sid, SEED_TURN_2)
    r = patient.post(session_path(sid, "/offers"))
    assert r.status_code == 200, r.content
    offers_trace, offers_span = _traceresponse(r)
    assert offers_trace != CALLER_TRACE
    assert tracing.flush()

    # the request's span: the caller's parent, named and labelled by the route template
    [search] = [s for s in collector.server("/memories/search") if s["span_id"] == search_span]
    assert search["trace_id"] == CALLER_TRACE and search["parent"] == CALLER_SPAN
    assert search["name"] == "GET v1/patients/<uuid:patient_id>/memories/search"
    assert search["attributes"]["http.route"] == "v1/patients/<uuid:patient_id>/memories/search"
    assert search["attributes"]["http.response.status_code"] == 200
    assert search["attributes"]["http.request.method"] == "GET"
    inside = collector.under(search)
    assert all(s["trace_id"] == CALLER_TRACE for s in inside)

    # its database statements: verb and table, under the request
    statements = [s for s in inside if s["attributes"].get("db.system.name") == "postgresql"]
    assert statements and all(s["kind"] == "SPAN_KIND_CLIENT" for s in statements)
    assert {"memory_embedding", "audit_event"} <= {s["attributes"].get("db.collection.name") for s in statements}, \
        sorted({s["name"] for s in statements})
    assert all(s["attributes"]["db.operation.name"] in tracing._VERBS | {"OTHER"} for s in statements)

    # its embedding call: the model and how many texts
    embeddings = [s for s in inside if s["attributes"].get("gen_ai.operation.name") == "embeddings"]
    assert 1 in [s["attributes"]["anamnesis.embedding.texts"] for s in embeddings], "the question"
    assert {s["attributes"]["gen_ai.request.model"] for s in embeddings} == {"all-MiniLM-L6-v2"}

    # the offers request called the scheduling system in its own trace, and passed that trace on
    [offers] = [s for s in collector.server("/offers") if s["span_id"] == offers_span]
    assert offers["parent"] is None
    [call] = [s for s in collector.under(offers) if s["kind"] == "SPAN_KIND_CLIENT" and "scheduling" in s["name"]]
    assert call["name"] == "GET scheduling"
    assert call["attributes"] == {"http.request.method": "GET", "peer.service": "scheduling",
                                  "url.template": "/v1/slots", "http.response.status_code": 200}
    [received] = scheduling.traceparents
    assert _context(received) == (offers_trace, call["span_id"])

    # not one attribute, name, event or resource value anywhere in what was exported says anything about the
    # patient: their id, the memory's id, the fact's values, the question, what they said, the tokens
    needles = [str(world.patient_a), str(world.patient_a).replace("-", ""), memory_id, sid,
               "amoxicillin", "urticaria", question, "mornings", "Thursday", nurse.token, patient.token]
    exported = b"".join(collector.bodies)
    for needle in needles:
        assert needle.encode() not in exported, needle
    for s in collector.spans:
        assert not s["events"] and not s["status_message"]
        text = repr((s["name"], s["attributes"]))
        assert not [n for n in needles if n in text], s
    assert collector.resources[0]["service.name"] == "anamnesis-test"


@pytest.mark.django_db
def test_an_invalid_traceparent_starts_a_new_trace(world, traced):
    nurse = world.staff("clinician")
    r = nurse.get("/v1/grants", headers={"traceparent": f"00-{'0' * 32}-{CALLER_SPAN}-01"})
    trace_id, span_id = _traceresponse(r)
    assert trace_id != "0" * 32
    r = nurse.get("/v1/grants", headers={"traceparent": str(world.patient_a)})
    other_trace, _ = _traceresponse(r)
    assert other_trace not in (trace_id, "0" * 32)
    assert tracing.flush()
    [first] = [s for s in traced.spans if s["span_id"] == span_id]
    assert first["parent"] is None


@pytest.mark.django_db
def test_json_log_lines_written_during_a_request_name_its_trace(world, traced):
    lines: list[dict] = []

    class Keep(logging.Handler):
        def emit(self, record):
            lines.append(json.loads(JsonFormatter().format(record)))

    keep, access = Keep(), logging.getLogger("anamnesis.access")
    access.addHandler(keep)
    try:
        r = world.staff("clinician").get("/v1/grants")
    finally:
        access.removeHandler(keep)
    trace_id, _ = _traceresponse(r)
    [line] = lines
    assert line["trace_id"] == trace_id and line["route"] == "v1/grants"
    assert "trace_id" not in json.loads(JsonFormatter().format(logging.makeLogRecord({"msg": "outside a span"})))


def test_a_failing_statement_is_marked_with_its_sqlstate_not_its_message_and_one_alone_is_not_traced(db, traced):
    with tracing.span("outside any request"):
        with pytest.raises(Exception), transaction.atomic():  # noqa: B017 (psycopg's error, as Django raises it)
            with connection.cursor() as cursor:
                cursor.execute("SELECT 'secret-value-17'::uuid")
    with connection.cursor() as cursor:
        cursor.execute("SELECT 1 FROM memory_type LIMIT 1")  # outside any span: not a trace of its own
    assert tracing.flush()
    assert not [s for s in traced.spans if s["name"] == "SELECT memory_type"]
    [failed] = [s for s in traced.spans if s["attributes"].get("db.response.status_code")]
    assert failed["attributes"]["db.response.status_code"] == "22P02"
    assert failed["attributes"]["error.type"] == "DataError"
    assert failed["name"] == "SELECT" and failed["status"] == 2  # STATUS_CODE_ERROR
    assert b"secret-value-17" not in b"".join(traced.bodies)


def test_an_outbox_delivery_is_a_trace_whose_call_carries_its_context(committed_db, world, traced, settings):
    from tests.fakes.outside import FakeOutsideSystem
    from tests.test_workflow_worker import PAYLOAD, reset_circuits, submit_workflow, worker

    # the worker's timeouts of tests/test_workflow_worker.py (its lease must cover them)
    settings.WORKFLOW_HTTP_CONNECT_TIMEOUT_SECONDS = settings.WORKFLOW_HTTP_READ_TIMEOUT_SECONDS = 0.3
    reset_circuits()
    insurer = FakeOutsideSystem("insurer")
    try:
        workflow_id, operation = submit_workflow(world)
        stats = worker(insurer).run(until_idle=True, max_seconds=10)
        assert stats.succeeded == 1
        [received] = insurer.traceparents
    finally:
        insurer.stop()
    assert tracing.flush()
    [delivery] = [s for s in traced.spans if s["name"] == "outbox deliver submit_prior_authorization"]
    assert delivery["parent"] is None and delivery["kind"] == "SPAN_KIND_PRODUCER"
    assert delivery["attributes"] == {"anamnesis.operation.kind": "submit_prior_authorization",
                                      "peer.service": "insurer", "anamnesis.outcome.kind": "confirmed",
                                      "anamnesis.outcome.code": "confirmed"}
    inside = traced.under(delivery)
    [call] = [s for s in inside if s["name"] == "POST insurer"]
    assert call["attributes"]["url.template"] == "/v1/prior-authorizations"
    assert _context(received) == (delivery["trace_id"], call["span_id"])
    assert any(s["attributes"].get("db.system.name") == "postgresql" for s in inside)
    exported = b"".join(traced.bodies)
    for needle in [str(world.patient_a), workflow_id, operation["operation_id"], *PAYLOAD.values()]:
        assert needle.encode() not in exported, needle


@pytest.mark.django_db
def test_off_by_default_nothing_is_set_up(world, settings, scheduling):
    assert settings.OTEL_TRACES_ENDPOINT == ""
    assert tracing.configure() is False and not tracing.enabled()
    assert tracing.outgoing_headers() == {} and tracing.current_trace_id() is None
    connection.ensure_connection()
    assert tracing._database_span not in connection.execute_wrappers
    with tracing.span("anything") as span:
        assert not span.is_recording()
    r = world.staff("clinician").get("/v1/grants", headers={"traceparent": f"00-{CALLER_TRACE}-{CALLER_SPAN}-01"})
    assert "traceresponse" not in r
    from core.middleware import RequestIdMiddleware
    from core.tracing import TracingMiddleware

    with pytest.raises(MiddlewareNotUsed):
        TracingMiddleware(lambda request: None)
    routed = RoutedWSGIApplication()
    for handler in (routed.pages, routed.bearer):
        handler.load_middleware()
        # each layer is wrapped by Django's convert_exception_to_response, which keeps it as __wrapped__
        layer, seen = handler._middleware_chain, []
        while layer is not None:
            inner = layer.__wrapped__
            seen.append(type(inner))
            layer = getattr(inner, "get_response", None)
        assert RequestIdMiddleware in seen and TracingMiddleware not in seen
    search_slots(specialty="cardiology", visit_type=None)
    assert scheduling.traceparents == [None], "nothing sent to an outside system"


def test_each_gunicorn_worker_exports_its_spans_and_its_last_ones_when_it_stops(committed_db, jwks_server, collector):
    """``manage.py serve`` (gunicorn, two workers, not preloaded): the SDK is set up in the worker after the fork, a
    caller's trace is continued, and a worker stopped right after answering still exports its spans (worker_exit),
    long before the batch processor's delay (a minute here) would have."""
    from tests.fakes.service import LiveService

    service = LiveService(jwks_server.url, workers=2,
                          extra_env={"ANAMNESIS_TEST_OTLP_ENDPOINT": f"{collector.url}/v1/traces",
                                     "OTEL_SERVICE_NAME": "anamnesis-served", "OTEL_BSP_SCHEDULE_DELAY": "60000"})
    try:
        answers = []
        for i in range(4):
            conn = http.client.HTTPConnection("127.0.0.1", service.port, timeout=10)
            conn.request("GET", "/health/ready", headers={"traceparent": f"00-{CALLER_TRACE[:-1]}{i}-{CALLER_SPAN}-01"})
            response = conn.getresponse()
            response.read()
            answers.append((response.status, response.getheader("traceresponse")))
            conn.close()
    finally:
        service.close()
    assert [status for status, _ in answers] == [200] * 4
    served = {s["trace_id"]: s for s in collector.server("health/ready")}
    for i, (_, header) in enumerate(answers):
        trace_id, span_id = _context(header)
        assert trace_id == f"{CALLER_TRACE[:-1]}{i}"
        assert served[trace_id]["span_id"] == span_id and served[trace_id]["parent"] == CALLER_SPAN
    assert {r["service.name"] for r in collector.resources} == {"anamnesis-served"}


def _settings_in_a_process(**env: str) -> subprocess.CompletedProcess:
    clean = {k: v for k, v in os.environ.items() if not k.startswith("OTEL_")}
    code = "import django; django.setup(); from django.conf import settings; print(settings.OTEL_TRACES_ENDPOINT)"
    return subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120,
                          env={**clean, "DJANGO_SETTINGS_MODULE": "config.settings", **env})


def test_the_standard_variables_choose_the_endpoint_and_a_wrong_one_stops_the_start():
    assert _settings_in_a_process().stdout.strip() == ""
    assert _settings_in_a_process(OTEL_EXPORTER_OTLP_ENDPOINT="http://collector:4318/").stdout.strip() == \
        "http://collector:4318/v1/traces"
    assert _settings_in_a_process(OTEL_EXPORTER_OTLP_TRACES_ENDPOINT="https://c.example/t",
                                  OTEL_EXPORTER_OTLP_ENDPOINT="http://x:4318").stdout.strip() == "https://c.example/t"
    assert _settings_in_a_process(OTEL_EXPORTER_OTLP_ENDPOINT="http://collector:4318",
                                  OTEL_TRACES_EXPORTER="none").stdout.strip() == ""
    assert _settings_in_a_process(OTEL_EXPORTER_OTLP_ENDPOINT="http://collector:4318",
                                  OTEL_SDK_DISABLED="true").stdout.strip() == ""
    for wrong in ({"OTEL_TRACES_EXPORTER": "jaeger"}, {"OTEL_EXPORTER_OTLP_PROTOCOL": "grpc"},
                  {"OTEL_EXPORTER_OTLP_ENDPOINT": "collector:4318"}):
        done = _settings_in_a_process(**wrong)
        assert done.returncode != 0 and "ImproperlyConfigured" in done.stderr, wrong
