"""The gunicorn worker (core.gunicorn_worker) spreads keep-alive clients that connect at once over the workers, so
that no worker queues requests for its threads while another idles. A real gunicorn, started as the project's
default configuration starts it (./gunicorn.conf.py), in front of a small WSGI application that names its process."""

from __future__ import annotations

import http.client
import json
import os
import socket
import subprocess
import sys
import threading
import time
from collections import Counter

import pytest

from tests.fakes.service import BASE_DIR, free_port

WORKERS, THREADS = 2, 2


def _pid_of_answer(conn: http.client.HTTPConnection) -> str:
    conn.request("GET", "/")
    response = conn.getresponse()
    assert response.status == 200
    return response.read().decode()


class _Server:
    """gunicorn as the project's default configuration starts it (./gunicorn.conf.py), serving tests.fakes.pid_app;
    ready once every worker has booted and answered."""

    def __init__(self, workers: int, threads: int, env: dict | None = None) -> None:
        self.port = free_port()
        self.process = subprocess.Popen(
            [sys.executable, "-m", "gunicorn", "tests.fakes.pid_app:application", "--bind",
             f"127.0.0.1:{self.port}", "--workers", str(workers), "--threads", str(threads), "--log-level",
             "warning"], cwd=BASE_DIR, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env)
        deadline = time.monotonic() + 30
        seen: set[str] = set()
        while len(seen) < workers:
            assert time.monotonic() < deadline, "gunicorn did not start its workers"
            try:
                probe = http.client.HTTPConnection("127.0.0.1", self.port, timeout=5)
                seen.add(_served_by(probe).split(":")[0])
                probe.close()
            except OSError:
                time.sleep(0.2)

    def connect(self) -> http.client.HTTPConnection:
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=10)
        conn.connect()
        return conn

    def stop(self) -> None:
        self.process.terminate()
        self.process.wait(timeout=30)


def _served_by(conn: http.client.HTTPConnection) -> str:
    conn.request("GET", "/?fast")
    response = conn.getresponse()
    assert response.status == 200
    return response.read().decode()


@pytest.mark.slow
@pytest.mark.serial  # which worker accepts first is a matter of scheduling: not beside another worker's load
def test_keep_alive_clients_that_connect_at_once_are_spread_over_the_workers():
    server = _Server(workers=WORKERS, threads=THREADS)
    try:
        for _ in range(5):
            conns = [server.connect() for _ in range(WORKERS * THREADS)]
            # one request on each at the same time, so that every thread of every worker is busy
            threads = [threading.Thread(target=_pid_of_answer, args=(c,)) for c in conns]
            for t in threads:
                t.start()
            for t in threads:
                t.join()
            # a second request on each kept-alive connection goes to the worker that accepted it
            again = [_pid_of_answer(c) for c in conns]
            for c in conns:
                c.close()
            assert sorted(Counter(again).values()) == [THREADS] * WORKERS, Counter(again)
            time.sleep(0.3)  # the workers see the closed connections before the next round
    finally:
        server.stop()


@pytest.mark.slow
@pytest.mark.serial  # which worker accepts first is a matter of scheduling: not beside another worker's load
def test_a_client_that_asks_again_at_once_keeps_its_thread():
    """A kept-alive client whose next request follows its answer at once is served by the thread that answered
    it, without going back through the worker's poller and thread pool: two clients taking turns are served by
    two threads, each by its own (through the pool, one idle thread would take every request of both)."""
    server = _Server(workers=1, threads=4)
    try:
        a, b = server.connect(), server.connect()
        rounds = []
        # A pause of the machine longer than the thread's wait hands a connection back now and then; on a loaded
        # machine a whole round may be unlucky, so up to three rounds are taken and the best must hold.
        for _ in range(3):
            seen: dict[str, Counter] = {"a": Counter(), "b": Counter()}
            for _ in range(100):
                seen["a"][_served_by(a)] += 1
                seen["b"][_served_by(b)] += 1
            (thread_a, count_a), = seen["a"].most_common(1)
            (thread_b, count_b), = seen["b"].most_common(1)
            rounds.append(seen)
            if thread_a != thread_b and count_a >= 80 and count_b >= 80:
                break
        assert thread_a != thread_b, rounds
        assert count_a >= 80 and count_b >= 80, rounds
    finally:
        server.stop()


@pytest.mark.slow
def test_more_busy_clients_than_threads_are_all_served():
    """With more kept-alive clients than threads, no thread keeps a client for itself: three clients asking
    without pause of a worker with two threads are each answered, about as often as the others."""
    server = _Server(workers=1, threads=2)
    try:
        conns = [server.connect() for _ in range(3)]
        answered = Counter()
        stop = time.monotonic() + 3

        def ask(i: int) -> None:
            while time.monotonic() < stop:
                _served_by(conns[i])
                answered[i] += 1

        threads = [threading.Thread(target=ask, args=(i,)) for i in range(3)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        total = sum(answered.values())
        assert total > 0 and all(answered[i] >= total / 6 for i in range(3)), answered
    finally:
        server.stop()


def _ask(server: _Server, path: str, headers: dict | None = None) -> tuple[int, str | None, bytes]:
    conn = server.connect()
    try:
        conn.request("GET", path, headers=headers or {})
        response = conn.getresponse()
        assert response.getheader("Server") is None  # what answers is nobody's business
        return response.status, response.getheader("Content-Type"), response.read()
    finally:
        conn.close()


@pytest.mark.slow
def test_what_gunicorn_refuses_itself_is_a_problem_document_and_what_the_application_limits_reaches_it():
    """The application refuses a query string over 4,096 characters (414 query_too_long) and headers over 16 KiB
    (431 headers_too_large) with its problem documents, so gunicorn's limits (./gunicorn.conf.py) sit above those.
    What gunicorn refuses beyond them, or as malformed, is the same problem document instead of its HTML page, and
    never quotes the request (a path holds a patient id). No answer names the server (no ``Server`` header)."""
    server = _Server(workers=1, threads=2)
    try:
        # within gunicorn's limits: the application sees the request (and judges it by its own limits)
        assert _ask(server, "/?q=" + "a" * 6000)[0] == 200
        assert _ask(server, "/", {"X-Big": "b" * 12_000})[0] == 200
        assert _ask(server, "/", {f"X-Field-{i}": "1" for i in range(150)})[0] == 200
        refused = (("/?q=" + "a" * 9000, None, 414, "query_too_long"),
                   ("/", {"X-Big": "b" * 20_000}, 431, "headers_too_large"),
                   ("/", {f"X-Field-{i}": "1" for i in range(250)}, 431, "headers_too_large"))
        for path, headers, status, code in refused:
            got, content_type, body = _ask(server, path, headers)
            assert (got, content_type) == (status, "application/problem+json"), body[:200]
            problem = json.loads(body)
            assert (problem["status"], problem["code"]) == (status, code)
        patient = "1b4e28ba-2fa1-11d2-883f-0016d3cca427"
        with socket.create_connection(("127.0.0.1", server.port), timeout=10) as raw:
            raw.sendall(f"GET /v1/patients/{patient}/memories HTTP/9.9\r\nHost: x\r\n\r\n".encode())
            answer = b""
            while chunk := raw.recv(65536):
                answer += chunk
        head, _, body = answer.partition(b"\r\n\r\n")
        assert head.startswith(b"HTTP/1.1 400 ") and b"Content-Type: application/problem+json" in head, answer[:300]
        assert json.loads(body)["code"] == "bad_request" and patient.encode() not in answer
    finally:
        server.stop()


def _raw_answer(port: int, request: bytes) -> tuple[bytes, dict]:
    with socket.create_connection(("127.0.0.1", port), timeout=10) as raw:
        raw.sendall(request)
        answer = b""
        while chunk := raw.recv(65536):
            answer += chunk
    head, _, body = answer.partition(b"\r\n\r\n")
    fields = dict(line.decode("latin1").split(": ", 1) for line in head.split(b"\r\n")[1:])
    return head.split(b"\r\n")[0], {"headers": fields, "problem": json.loads(body)}


@pytest.mark.slow
def test_what_the_server_refuses_itself_carries_a_request_id_like_every_answer():
    """413, 414 and 431 written by gunicorn or the worker's main loop (before the application, and its request-id
    middleware, sees the request) carry a real request id in the body and in ``X-Request-ID``, not "-": the
    client's own when it sent a sane one and its head could be read, else a new one."""
    server = _Server(workers=1, threads=2)
    try:
        requests = (
            (b"GET /?q=" + b"a" * 9000 + b" HTTP/1.1\r\nHost: x\r\n\r\n", 414, None),
            (b"GET / HTTP/1.1\r\nHost: x\r\nX-Big: " + b"b" * 20_000 + b"\r\n\r\n", 431, None),
            (b"POST / HTTP/1.1\r\nHost: x\r\nX-Request-ID: client-id-1\r\nContent-Length: 10000000\r\n\r\n{",
             413, "client-id-1"),
            (b"GET / HTTP/1.1\r\nX-Request-ID: client-id-2\r\nX-Long: " + b"a" * 70_000, 431, "client-id-2"),
            (b"POST / HTTP/1.1\r\nX-Request-ID: bad id!\r\nContent-Length: 10000000\r\n\r\n", 413, None),
        )
        seen = set()
        for request, status, client_id in requests:
            line, answer = _raw_answer(server.port, request)
            assert line.startswith(f"HTTP/1.1 {status} ".encode()), line
            rid = answer["headers"]["X-Request-ID"]
            assert answer["problem"]["request_id"] == rid and rid != "-", answer
            assert rid == client_id if client_id else len(rid) == 36, rid
            seen.add(rid)
        assert len(seen) == len(requests)  # one per request
    finally:
        server.stop()


@pytest.mark.slow
def test_a_browsers_form_too_large_to_take_is_refused_with_a_page_not_a_json_document():
    """A portal form over the body limit is refused by the worker before the application: a browser asking for a
    page gets the product's page saying what to do (it was the API's JSON problem document on screen), with no
    caching and no framing; API paths and other clients keep the problem document."""
    server = _Server(workers=1, threads=1)
    try:
        big = b"Content-Length: 10000000\r\n\r\ntime=1"
        page_request = (b"POST /me/preferences/1b4e28ba-2fa1-11d2-883f-0016d3cca427/correct/ HTTP/1.1\r\nHost: x\r\n"
                        b"Accept: text/html,application/xhtml+xml\r\nX-Request-ID: form-1\r\n" + big)
        with socket.create_connection(("127.0.0.1", server.port), timeout=10) as raw:
            raw.sendall(page_request)
            answer = b""
            while chunk := raw.recv(65536):
                answer += chunk
        head, _, body = answer.partition(b"\r\n\r\n")
        assert head.startswith(b"HTTP/1.1 413 ") and b"Content-Type: text/html; charset=utf-8" in head, head
        assert b"X-Request-ID: form-1" in head and b"Cache-Control: no-store" in head
        assert b"X-Frame-Options: DENY" in head and b"frame-ancestors 'none'" in head
        text = body.decode()
        assert "<title>This is too long to send · Anamnesis</title>" in text and "nothing was saved" in text
        assert 'lang="en-GB"' in text and "portal.css" in text and "1b4e28ba" not in text
        for request in (b"POST /me/preferences/ HTTP/1.1\r\nHost: x\r\nAccept: application/json\r\n" + big,
                        b"POST /v1/patients/x/memories HTTP/1.1\r\nHost: x\r\nAccept: text/html\r\n" + big):
            line, answer = _raw_answer(server.port, request)
            assert line.startswith(b"HTTP/1.1 413 ") and answer["problem"]["code"] == "payload_too_large", line
    finally:
        server.stop()


@pytest.mark.slow
def test_no_control_socket_is_opened(tmp_path):
    """gunicorn 27 would open one in the user's runtime directory or home, the same path for every service of the
    user on the machine; nothing here uses it."""
    env = {k: v for k, v in os.environ.items() if k != "XDG_RUNTIME_DIR"} | {"HOME": str(tmp_path)}
    server = _Server(workers=1, threads=1, env=env)
    try:
        assert _ask(server, "/?fast")[0] == 200
        assert not list(tmp_path.rglob("*.ctl")), list(tmp_path.rglob("*"))
    finally:
        server.stop()


def test_two_content_lengths_are_400_at_once_never_a_wait_for_the_larger():
    """A request with two Content-Length headers is malformed (RFC 9112 6.3; a way to smuggle requests past a
    proxy that reads the other one). With the same value twice gunicorn answered 400 at once, but with two values
    the worker waited for the larger body and answered 408 after the read timeout (10 s), holding the connection."""
    server = _Server(workers=1, threads=2)
    try:
        for lengths in ((b"2", b"3"), (b"3", b"2"), (b"2", b"2")):
            started = time.monotonic()
            status, answer = _raw_answer(server.port, b"POST / HTTP/1.1\r\nHost: x\r\nContent-Type: application/json"
                                         b"\r\nContent-Length: " + lengths[0] + b"\r\nContent-Length: " + lengths[1]
                                         + b"\r\n\r\n{}")
            assert status.startswith(b"HTTP/1.1 400 ") and answer["problem"]["code"] == "bad_request", lengths
            assert time.monotonic() - started < 3, lengths
    finally:
        server.stop()
