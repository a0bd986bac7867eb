"""``manage.py serve`` leaves nothing behind when it stops (its web server stops before the embedding server its
workers still use), and a web server that cannot start ends it with an error instead of a service that looks up but
serves nothing."""

from __future__ import annotations

import http.client
import json
import os
import signal
import socket
import subprocess
import sys
import time

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
def test_serve_refuses_to_start_when_another_process_holds_the_embedding_servers_port(tmp_path):
    """Another process on the embedding server's port (here one answering 200 to everything, as another service's
    embedding server does): serve's readiness check took its answer for its own server's and started the web
    server, whose workers would send every text to embed (patients' facts, their questions) to that process, while
    its own embedding server failed to bind and was started again and again. serve now ends with an error naming
    the port, before starting anything, and the other process is sent nothing."""
    from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
    from threading import Thread

    asked = []

    class Anything(BaseHTTPRequestHandler):
        def log_message(self, *args):
            pass

        def do_GET(self):  # noqa: N802
            asked.append(self.path)
            self.send_response(200)
            self.send_header("Content-Length", "2")
            self.end_headers()
            self.wfile.write(b"{}")

        do_POST = do_GET  # noqa: N815

    other = ThreadingHTTPServer(("127.0.0.1", 0), Anything)
    Thread(target=other.serve_forever, daemon=True).start()
    env = {k: v for k, v in os.environ.items() if not k.startswith(("EMBEDDING_", "PROMETHEUS_"))}
    env.update({"DJANGO_SETTINGS_MODULE": "config.settings_test", "TMPDIR": str(tmp_path),
                "EMBEDDING_PROVIDER": "local"})
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        web_port = s.getsockname()[1]
    proc = subprocess.Popen([sys.executable, "manage.py", "serve", "--bind", f"127.0.0.1:{web_port}", "--workers",
                             "1", "--threads", "1", "--embedding-port", str(other.server_address[1])],
                            cwd=BASE_DIR, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            start_new_session=True)
    try:
        _, stderr = proc.communicate(timeout=60)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGTERM)
        proc.communicate(timeout=30)
        raise AssertionError("serve started beside another process on its embedding server's port") from None
    finally:
        other.shutdown()
    assert proc.returncode != 0
    assert f"port {other.server_address[1]} is in use" in stderr, stderr[-2000:]
    assert asked == []


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


def _child_running(parent_pid: int, command_part: str) -> int | None:
    """The pid of a live child of ``parent_pid`` whose command line holds ``command_part``."""
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as stat:
                fields = stat.read().rsplit(")", 1)[1].split()
            with open(f"/proc/{entry}/cmdline", "rb") as cmdline:
                command = cmdline.read().replace(b"\0", b" ").decode(errors="replace")
        except OSError:
            continue
        if int(fields[1]) == parent_pid and fields[0] != "Z" and command_part in command:
            return int(entry)
    return None


@pytest.mark.slow
@pytest.mark.serial  # the API's embedding timeout (0.5 s) under another worker's load
def test_a_killed_embedding_server_is_started_again_while_the_api_goes_on_answering(committed_db, world, jwks_server):
    """The embedding server dying (kill -9, out of memory) used to stop ``serve`` altogether, web server and all:
    every request refused until someone started the service again. Now the API goes on (writes are stored, searches
    answer 503 embedding_provider_unavailable while the model is away) and the embedding server is started again, so
    searches by meaning come back by themselves."""
    from tests.conftest import memory_body
    from tests.fakes.service import free_port

    embedding_port = free_port()
    again = None
    service = LiveService(
        jwks_server.url,
        workers=1,
        extra_env={"EMBEDDING_PROVIDER": "local", "EMBEDDING_SERVER_PORT": str(embedding_port)},
    )
    try:
        token = world.patient(world.patient_a).token
        cid = world.consent(world.patient_a)

        def call(method: str, path: str, body: dict | None = None) -> tuple[int, dict]:
            conn = http.client.HTTPConnection("127.0.0.1", service.port, timeout=30)
            conn.request(
                method,
                path,
                body=None if body is None else json.dumps(body),
                headers={"Authorization": f"Bearer {token}", "Content-Type": "application/json"},
            )
            response = conn.getresponse()
            answer = json.loads(response.read() or b"{}")
            conn.close()
            return response.status, answer

        search = f"/v1/patients/{world.patient_a}/memories/search?q=earliest+appointment+time"
        assert call("GET", search)[0] == 200
        embedder = _child_running(service.proc.pid, "run_embedding_server")
        assert embedder is not None
        os.kill(embedder, signal.SIGKILL)
        time.sleep(1.5)

        assert service.proc.poll() is None, service.logs()[-2000:]
        assert call("GET", "/health/live")[0] == 200
        status, created = call("POST", f"/v1/patients/{world.patient_a}/memories", memory_body(cid))
        assert status == 201, created
        status, answer = call("GET", search)
        assert status == 200 or (status == 503 and answer["code"] == "embedding_provider_unavailable"), answer

        deadline = time.monotonic() + 120
        while call("GET", search)[0] != 200:
            assert time.monotonic() < deadline, service.logs()[-3000:]
            assert service.proc.poll() is None, service.logs()[-2000:]
            time.sleep(1)
        again = _child_running(service.proc.pid, "run_embedding_server")
        assert again is not None and again != embedder
    finally:
        service.close()
    assert not os.path.exists(f"/proc/{again}")  # the one started again is stopped with the service


@pytest.mark.slow
@pytest.mark.parametrize("asgi", [False, True])
def test_serve_killed_with_sigkill_leaves_no_web_server_holding_the_port(jwks_server, asgi):
    """serve killed without a chance to stop its children (SIGKILL, the out-of-memory killer) left gunicorn (or
    uvicorn's supervisor and its workers) serving on alone, holding the port: the service started again could not
    bind it. The kernel now sends each child SIGTERM when serve dies; under uvicorn a worker whose supervisor died
    stops too, as gunicorn's workers do."""
    import psutil

    service = LiveService(jwks_server.url, workers=1, threads=2, asgi=asgi)
    children = psutil.Process(service.proc.pid).children(recursive=True)
    try:
        assert children
        service.proc.kill()
        service.proc.wait(timeout=10)
        alive = psutil.wait_procs(children, timeout=20)[1]
        assert not alive, [" ".join(p.cmdline())[:80] for p in alive]
        with socket.socket() as again:
            again.bind(("127.0.0.1", service.port))  # the port is free for the service started again
    finally:
        service.close()
        for child in children:  # what is left, if anything
            if child.is_running():
                child.kill()


def test_serve_asgi_leaves_the_client_address_to_trusted_proxies():
    """uvicorn believes X-Forwarded-For from 127.0.0.1 and ::1 unless told otherwise, so under ``serve --asgi``
    any local process (or a client behind a local proxy that passes the header on) could name itself another
    address, and spend no allowance of its own, while gunicorn believed no header. ``TRUSTED_PROXIES`` alone decides
    (core.gate.client_address), under either server."""
    from core.uvicorn_serve import uvicorn_config

    assert uvicorn_config(host="127.0.0.1", port=0, workers=1).proxy_headers is False
