"""``manage.py serve`` leaves nothing behind when it stops (its web server stops before the embedding server its
workers still use), and a web server that cannot start ends it with an error instead of a service that looks up but
serves nothing."""

from __future__ import annotations

import http.client
import json
import os
import socket
import subprocess
import sys

import pytest

from tests.fakes.service import BASE_DIR, LiveService


@pytest.mark.slow
def test_the_metrics_directory_serve_made_goes_when_it_stops(jwks_server, tmp_path):
    service = LiveService(jwks_server.url, workers=1, extra_env={"TMPDIR": str(tmp_path)})
    try:
        made = list(tmp_path.glob("anamnesis-metrics-*"))
        assert len(made) == 1 and made[0].is_dir()  # the workers' metrics live there while it runs
    finally:
        service.close()
    assert not list(tmp_path.glob("anamnesis-metrics-*"))


@pytest.mark.slow
def test_serve_ends_with_an_error_when_its_web_server_cannot_start(tmp_path):
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        env = {k: v for k, v in os.environ.items() if not k.startswith(("EMBEDDING_", "PROMETHEUS_"))}
        env.update({"DJANGO_SETTINGS_MODULE": "config.settings_test", "TMPDIR": str(tmp_path),
                    "EMBEDDING_PROVIDER": "openai", "EMBEDDING_BASE_URL": "http://127.0.0.1:9"})
        done = subprocess.run([sys.executable, "manage.py", "serve", "--bind", f"127.0.0.1:{port}",
                               "--workers", "1", "--threads", "1"], cwd=BASE_DIR, env=env, capture_output=True,
                              text=True, timeout=120)
    assert done.returncode != 0
    assert "the web server exited with status" in done.stderr, done.stderr[-2000:]
    assert not list(tmp_path.glob("anamnesis-metrics-*"))


@pytest.mark.slow
def test_a_memory_stored_just_before_serve_stops_gets_its_vector(committed_db, world, jwks_server):
    """A vector is written after its memory's write commits, in the worker, by the machine's embedding server
    (``serve``'s other child): ``serve`` stops the web server, whose workers write what they hold as they stop,
    and only then the embedding server. The stop is sent as soon as the write has answered, while the worker's
    vector writer is still gathering."""
    from tests.conftest import admin_connect, memory_body

    service = LiveService(jwks_server.url, workers=1, extra_env={"EMBEDDING_PROVIDER": "local"})
    try:
        cid = world.consent(world.patient_a)
        conn = http.client.HTTPConnection("127.0.0.1", service.port, timeout=30)
        conn.request("POST", f"/v1/patients/{world.patient_a}/memories", body=json.dumps(memory_body(cid)),
                     headers={"Authorization": f"Bearer {world.patient(world.patient_a).token}",
                              "Content-Type": "application/json"})
        response = conn.getresponse()
        created = json.loads(response.read())
        service.stop()
    finally:
        service.close()
    assert response.status == 201, created
    with admin_connect() as db:
        stored = db.execute("SELECT count(*) FROM memory_embedding WHERE memory_id = %s",
                            [created["memory_id"]]).fetchone()[0]
    assert stored == 1
