"""Metrics and log lines for operators: /metrics is protected, reflects traffic by route template, outbox and
sweeps; request log lines are JSON with request id, route, status and duration; neither holds patient data."""

from __future__ import annotations

import json
import logging
import os
import re

import pytest
from django.core.management import call_command
from django.test import Client

from core.observability import JsonFormatter
from tests.conftest import memory_body, settle_vector_writes
from tests.support import without_timestamps

pytestmark = pytest.mark.django_db

TOKEN = "metrics-test-credential-7f3a"
ROUTE = "v1/patients/<uuid:patient_id>/memories"


@pytest.fixture
def metrics_token(settings):
    settings.METRICS_TOKEN = TOKEN
    return TOKEN


def scrape(token: str | None = TOKEN):
    headers = {"HTTP_AUTHORIZATION": f"Bearer {token}"} if token else {}
    return Client().get("/metrics", **headers)


def sample(body: str, name: str, **labels) -> float:
    """The value of one sample, 0 when absent."""
    for line in body.splitlines():
        if not line.startswith(name + "{") and line.split(" ")[0] != name:
            continue
        found = dict(re.findall(r'(\w+)="([^"]*)"', line.split("}")[0])) if "{" in line else {}
        if all(found.get(k) == v for k, v in labels.items()):
            return float(line.rsplit(" ", 1)[1])
    return 0.0


def test_metrics_are_refused_without_the_credential(metrics_token):
    for token in (None, "wrong", TOKEN + "x", ""):
        r = scrape(token)
        assert r.status_code == 401 and r.json()["code"] == "invalid_token"
        assert b"anamnesis_http" not in r.content
    assert scrape().status_code == 200


def test_wrong_metrics_credentials_spend_the_addresss_allowance_of_failed_authentications(metrics_token, settings):
    """/metrics answered every wrong credential 401 without counting it: a client could guess METRICS_TOKEN without
    end, while a bad API token from the same address met API_AUTH_FAILURES_PER_ADDRESS. Its failures are counted
    in the same allowance; past it they are 429 with Retry-After, and the right credential is served as ever."""
    settings.API_RATE_LIMIT_WINDOW_SECONDS = 3600
    settings.API_AUTH_FAILURES_PER_ADDRESS = 2
    guess = Client(REMOTE_ADDR="192.0.2.77")
    statuses = [guess.get("/metrics", HTTP_AUTHORIZATION=f"Bearer guess-{n}").status_code for n in range(3)]
    assert statuses == [401, 401, 429]
    r = guess.get("/metrics", HTTP_AUTHORIZATION="Bearer guess-3")
    assert r.status_code == 429 and r.json()["code"] == "rate_limited" and int(r["Retry-After"]) >= 1
    assert Client(REMOTE_ADDR="192.0.2.77").get("/metrics", HTTP_AUTHORIZATION=f"Bearer {TOKEN}").status_code == 200


def test_metrics_refuse_everyone_when_no_credential_is_configured(settings):
    settings.METRICS_TOKEN = ""
    assert scrape("").status_code == 401 and scrape("anything").status_code == 401


def test_metrics_reflect_a_burst_by_route_template_and_status(world, metrics_token):
    api = world.patient(world.patient_a)
    cid = world.consent(world.patient_a)
    api.post(f"/v1/patients/{world.patient_a}/memories", memory_body(cid, time="06:55"))
    before = scrape().content.decode()
    for _ in range(7):
        assert api.get(f"/v1/patients/{world.patient_a}/memories").status_code == 200
    for _ in range(3):
        assert world.patient(world.patient_b).get(f"/v1/patients/{world.patient_a}/memories/{cid}").status_code \
            == 404
    # a search embeds its question in this process, through whichever provider the tests before left it with
    assert api.get(f"/v1/patients/{world.patient_a}/memories/search?q=mornings").status_code == 200
    settle_vector_writes()  # the memory's vector is written just after its write, on a thread of its own
    after = scrape().content.decode()
    labels = {"route": ROUTE, "method": "GET", "status": "200"}
    assert sample(after, "anamnesis_http_requests_total", **labels) - sample(
        before, "anamnesis_http_requests_total", **labels) == 7
    assert sample(after, "anamnesis_http_request_duration_seconds_count", **labels) - sample(
        before, "anamnesis_http_request_duration_seconds_count", **labels) == 7
    refused = {"route": "v1/patients/<uuid:patient_id>/memories/<uuid:memory_id>", "method": "GET", "status": "404"}
    assert sample(after, "anamnesis_http_requests_total", **refused) - sample(
        before, "anamnesis_http_requests_total", **refused) == 3
    def embedded(body: str) -> float:  # embedding calls, whatever the provider's label
        return sum(float(line.rsplit(" ", 1)[1]) for line in body.splitlines()
                   if line.startswith("anamnesis_embedding_duration_seconds_count{"))

    assert embedded(after) > embedded(before)
    # no patient identifier, value or token in the exposition
    for secret in (str(world.patient_a), str(world.patient_b), cid, "06:55", api.token):
        assert secret not in after


def test_outbox_depth_and_sweep_results_are_read_from_the_database(world, metrics_token):
    api = world.patient(world.patient_a)
    wf = api.post("/v1/workflows", {"workflow_type": "prior_authorization", "patient_id": str(world.patient_a)})
    wid = wf.json()["workflow_id"]
    r = api.post(f"/v1/workflows/{wid}/checkpoint", {
        "expected_version": 1, "next_step": "submit_prior_authorization", "state_patch": {},
        "request_operation": {"kind": "submit_prior_authorization", "payload": {
            "referral_id": "REF-9", "diagnosis_code": "E11.9", "medication_code": "860975", "member_ref": "M-9"}}})
    assert r.status_code == 200, r.content
    call_command("sweep_workflows")
    call_command("sweep_memories")
    body = scrape().content.decode()
    assert sample(body, "anamnesis_outbox_depth", system="insurer", status="pending") >= 1
    assert sample(body, "anamnesis_outbox_oldest_age_seconds", system="insurer", status="pending") >= 0
    assert sample(body, "anamnesis_sweep_last_run_timestamp_seconds", sweep="workflows") > 0
    assert 'anamnesis_sweep_last_processed{outcome="deleted",sweep="memories"}' in body
    assert str(world.patient_a) not in body and wid not in body and "M-9" not in body


def test_request_log_lines_are_json_with_route_status_duration_and_no_patient_data(world, caplog):
    caplog.set_level(logging.INFO, logger="anamnesis.access")
    api = world.patient(world.patient_a)
    cid = world.consent(world.patient_a)
    r = api.post(f"/v1/patients/{world.patient_a}/memories", memory_body(cid, time="05:35"),
                 headers={"X-Request-ID": "req-observability-1"})
    assert r.status_code == 201
    lines = [JsonFormatter().format(record) for record in caplog.records]
    access = [json.loads(line) for line in lines if json.loads(line)["logger"] == "anamnesis.access"]
    mine = [line for line in access if line["request_id"] == "req-observability-1"]
    assert len(mine) == 1
    assert mine[0]["route"] == ROUTE and mine[0]["status"] == 201 and mine[0]["method"] == "POST"
    assert mine[0]["duration_ms"] > 0
    everything = without_timestamps("\n".join(lines))
    for secret in (str(world.patient_a), cid, "05:35", api.token):
        assert secret not in everything


def test_pool_use_is_read_at_scrape_time_never_on_a_request(world, metrics_token, monkeypatch):
    """A request does no metrics work beyond its counter and histogram: the pool's statistics (which take the lock
    every request takes) are read only when /metrics is scraped; the service's connections come from the database."""
    from psycopg_pool import ConnectionPool

    reads = []
    original = ConnectionPool.get_stats
    monkeypatch.setattr(ConnectionPool, "get_stats", lambda self: reads.append(1) or original(self))
    api = world.patient(world.patient_a)
    for _ in range(3):
        assert api.get(f"/v1/patients/{world.patient_a}/memories").status_code == 200
    assert reads == []
    body = scrape().content.decode()
    assert "anamnesis_db_pool_connections{" in body and 'state="size"' in body
    assert sample(body, "anamnesis_db_pool_connections", state="size") >= sample(
        body, "anamnesis_db_pool_connections", state="available") >= 0
    assert "anamnesis_db_pool_requests_waiting" in body and len(reads) == 1


_FULL_DISK_CHILD = """
import django, os
django.setup()
from django.test import Client
client = Client()
statuses = [client.get(path).status_code for path in ("/health/live", "/health/live", "/v1/no-such-route")]
print("statuses", statuses, sorted(os.listdir(os.environ["PROMETHEUS_MULTIPROC_DIR"])))
"""


def test_a_full_metrics_disk_costs_the_metrics_not_the_process(tmp_path):
    """prometheus-client writes a process's metrics through a memory map of a file it extends without writing: with
    the metrics' filesystem full, the first request killed the web worker (SIGBUS), and so did the first request of
    every worker gunicorn started in its place. The files' space is now reserved first, so a full disk is an error
    the request survives: it is answered, its metrics are lost, one log line says so. Run in a child process with a
    full 64 KiB tmpfs as PROMETHEUS_MULTIPROC_DIR (a user and mount namespace of its own: no privileges needed)."""
    import subprocess
    import sys

    from tests.fakes.service import BASE_DIR

    spool = tmp_path / "metrics"
    spool.mkdir()
    script = (f"mount -t tmpfs -o size=64k tmpfs {spool} && head -c 65536 /dev/zero > {spool}/filler 2>/dev/null; "
              f"exec {sys.executable} -c '{_FULL_DISK_CHILD}'")
    env = {**os.environ, "PROMETHEUS_MULTIPROC_DIR": str(spool), "DJANGO_SETTINGS_MODULE": "config.settings_test",
           # no database is reached by these requests; nothing starts the embedded one
           "DATABASE_URL": "postgresql://nobody@127.0.0.1:9/none",
           "DATABASE_OWNER_URL": "postgresql://nobody@127.0.0.1:9/none", "LOG_LEVEL": "INFO"}
    child = subprocess.run(["unshare", "--user", "--map-root-user", "--mount", "sh", "-c", script], cwd=BASE_DIR,
                           env=env, capture_output=True, text=True, timeout=120)
    assert child.returncode == 0, (child.returncode, child.stderr[-2000:])
    assert "statuses [200, 200, 404] ['filler']" in child.stdout, child.stdout
    assert child.stderr.count("metrics could not be written (OSError, errno 28)") == 1, child.stderr[-2000:]


@pytest.mark.parametrize(("environment", "written"), [
    ({}, True),
    ({"LOG_LEVEL": "warning"}, False),
    ({"LOG_LEVEL": "WARNING", "LOG_ACCESS": "true"}, True),
    ({"LOG_ACCESS": "false"}, False),
    ({"LOG_LEVEL": "DEBUG"}, True),
])
def test_the_access_line_follows_the_log_level_unless_log_access_says_otherwise(environment, written):
    """An operator who sets LOG_LEVEL=WARNING asked for warnings and worse: the access line (INFO) used to be
    written regardless, one line per request. LOG_ACCESS, when set, still decides either way. Settings are read at
    start-up, so each case is a fresh interpreter."""
    import subprocess
    import sys

    from tests.fakes.service import BASE_DIR

    env = {k: v for k, v in os.environ.items() if k not in ("LOG_LEVEL", "LOG_ACCESS")}
    env.update(environment, DJANGO_SETTINGS_MODULE="config.settings")
    script = ("import logging, django; django.setup(); "
              "print(logging.getLogger('anamnesis.access').isEnabledFor(logging.INFO))")
    child = subprocess.run([sys.executable, "-c", script], cwd=BASE_DIR, env=env, capture_output=True, text=True,
                           timeout=120)
    assert child.returncode == 0, child.stderr[-2000:]
    assert child.stdout.strip() == str(written)
