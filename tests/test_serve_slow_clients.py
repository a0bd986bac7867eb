"""Slow and idle clients cannot exhaust the service: ``manage.py serve``'s workers read a request whole before a thread
serves it (core.gunicorn_worker), so connections that send part of a request and wait hold no thread, and a
request that does not arrive in time is answered 408 and closed."""

from __future__ import annotations

import http.client
import json
import socket
import time

import pytest

from bench.slow_clients import held_connections, timed_get
from core.gunicorn_worker import request_state
from tests.conftest import memory_body
from tests.fakes.service import LiveService

READ_TIMEOUT = 3  # WEB_REQUEST_READ_TIMEOUT_SECONDS for the service under test


def _response(sock: socket.socket) -> tuple[int, bytes]:
    """One whole response from a kept-alive connection."""
    response = http.client.HTTPResponse(sock)
    response.begin()
    return response.status, response.read()


def test_a_request_is_complete_only_with_its_whole_body():
    head = b"POST /v1/x HTTP/1.1\r\nHost: h\r\nContent-Length: 5\r\n\r\n"
    assert request_state(b"GET / HTTP/1.1\r\nHost: h\r\n", max_body=100) == "partial"
    assert request_state(b"GET / HTTP/1.1\r\nHost: h\r\n\r\n", max_body=100) == "complete"
    assert request_state(b"\r\n\r\n", max_body=100) == "partial"  # empty lines before a request are not one
    assert request_state(head + b"abc", max_body=100) == "partial"
    assert request_state(head + b"abcde", max_body=100) == "complete"
    assert request_state(head, max_body=4) == "body_too_large"
    assert request_state(b"GET / HTTP/1.1\r\nX: " + b"a" * 70000, max_body=100) == "head_too_large"
    chunked = b"POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n"
    assert request_state(chunked + b"3\r\nabc\r\n", max_body=100) == "partial"
    assert request_state(chunked + b"3\r\nabc\r\n0\r\n\r\n", max_body=100) == "complete"
    assert request_state(chunked + b"3\r\nabc\r\n0\r\nX-T: 1\r\n\r\n", max_body=100) == "complete"
    assert request_state(chunked + (b"1;" + b"x" * 1000 + b"\r\na\r\n") * 200, max_body=1000) == "body_too_large"
    # what the parser refuses by itself is handed over at once (it answers 400 without waiting for more)
    assert request_state(b"POST / HTTP/1.1\r\nContent-Length: x\r\n\r\n", max_body=100) == "complete"
    # bytes no request line starts with (a TLS handshake sent to the plain port) too: they were held until the
    # read timeout and answered 408
    for start in (b"\x16\x03\x01\x02\x00\x01\x00", b"\r\n\x00GET", b"get / HTTP/1.1", b"#"):
        assert request_state(start, max_body=100) == "malformed", start
    assert request_state(b"\r\nGE", max_body=100) == request_state(b"M-SEARCH", max_body=100) == "partial"


def test_a_body_of_many_small_chunks_arriving_a_few_at_a_time_is_read_through_once():
    """The worker's main loop judges a connection's buffer after every read. A chunked body was read from its start
    each time, so one sent as one-byte chunks, a few at a time, cost time growing with the square of its length,
    on the loop that reads and accepts every connection of the worker (16 such clients made /health/live take
    0.9 s, up to 3.2 s, against 7 ms). With the request's progress kept, each read costs what it brought."""
    head = b"POST /v1/x HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n"
    data, progress = bytearray(head), {}
    started = time.monotonic()
    for _ in range(10000):
        data += b"1\r\na\r\n"
        assert request_state(bytes(data), max_body=65536, progress=progress) == "partial"
    data += b"0\r\n\r\n"
    assert request_state(bytes(data), max_body=65536, progress=progress) == "complete"
    assert time.monotonic() - started < 5
    # the same answers as a fresh read of the whole buffer, including past the limit
    assert request_state(bytes(data), max_body=65536) == "complete"
    over, progress = bytearray(head), {}
    for _ in range(3):
        over += b"8000\r\n" + b"a" * 0x8000 + b"\r\n"
        state = request_state(bytes(over), max_body=65536, progress=progress)
    assert state == "complete" == request_state(bytes(over), max_body=65536)  # over the limit: the parser refuses


@pytest.mark.slow
def test_held_half_requests_leave_health_and_the_api_answering_and_a_trickled_body_is_cut_off(
        committed_db, world, jwks_server):
    cid = world.consent(world.patient_a)
    token = world.patient(world.patient_a).token
    path = f"/v1/patients/{world.patient_a}/memories"
    service = LiveService(jwks_server.url, workers=2, threads=4,
                          extra_env={"WEB_REQUEST_READ_TIMEOUT_SECONDS": str(READ_TIMEOUT)})
    host, port = "127.0.0.1", service.port
    try:
        with held_connections(host, port, 128):
            live_seconds, live_status = timed_get(host, port, "/health/live", timeout=10)
            api_seconds, api_status = timed_get(host, port, path, token=token, timeout=10)
            print(f"\n128 held: /health/live {live_status} in {live_seconds:.3f}s, API {api_status} in "
                  f"{api_seconds:.3f}s")
            assert live_status == 200 and live_seconds < 2
            assert api_status == 200 and api_seconds < 2

        # a body that trickles (one byte a second, never all of it in time) is answered 408 and its connection
        # closed; meanwhile, and afterwards, the service answers
        body = json.dumps({"memory_type": "scheduling_preference", "consent_record_id": cid}).encode()
        sock = socket.create_connection((host, port), timeout=READ_TIMEOUT + 5)
        sock.sendall(f"POST {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer {token}\r\n"
                     f"Content-Type: application/json\r\nContent-Length: {len(body)}\r\n\r\n".encode())
        started, answer = time.monotonic(), b""
        try:
            for byte in body:
                sock.sendall(bytes([byte]))
                time.sleep(1)
                if time.monotonic() - started > READ_TIMEOUT + 3:
                    break
        except OSError:  # closed by the service
            pass
        try:
            while chunk := sock.recv(65536):
                answer += chunk
        except OSError:
            pass
        sock.close()
        cut_after = time.monotonic() - started
        assert answer.startswith(b"HTTP/1.1 408"), answer[:200]
        assert b'"code": "request_timeout"' in answer and b"Connection: close" in answer
        assert cut_after < READ_TIMEOUT + 4
        assert timed_get(host, port, "/health/live", timeout=5)[1] == 200
        assert timed_get(host, port, path, token=token, timeout=5)[1] == 200

        # a request whose head and body come in pieces, in time, is served as usual
        sock = socket.create_connection((host, port), timeout=10)
        head = (f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer {token}\r\n"
                f"Connection: close\r\n\r\n").encode()
        for piece in (head[:10], head[10:50], head[50:]):
            sock.sendall(piece)
            time.sleep(0.3)
        answer = b""
        while chunk := sock.recv(65536):
            answer += chunk
        sock.close()
        assert answer.startswith(b"HTTP/1.1 200"), answer[:200]

        # a client that waits for "100 Continue" before its body gets it from the worker's main loop, and then
        # its answer; the next request on the same kept-alive connection, sent in halves, is served too
        memory = json.dumps(memory_body(cid)).encode()
        sock = socket.create_connection((host, port), timeout=10)
        sock.sendall(f"POST {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer {token}\r\n"
                     f"Content-Type: application/json\r\nExpect: 100-continue\r\n"
                     f"Content-Length: {len(memory)}\r\n\r\n".encode())
        assert sock.recv(65536).startswith(b"HTTP/1.1 100 Continue\r\n\r\n")
        sock.sendall(memory)
        assert not sock.recv(16, socket.MSG_PEEK).startswith(b"HTTP/1.1 100")  # answered once, not again
        status, answer = _response(sock)
        assert status == 201, answer[:300]
        sock.sendall(head.replace(b"Connection: close\r\n", b"")[:30])
        time.sleep(0.5)
        sock.sendall(head.replace(b"Connection: close\r\n", b"")[30:])
        assert _response(sock)[0] == 200
        sock.close()

        # what is refused anyway is refused at once, without waiting for the rest: a body announced over the
        # limit (413), a head that does not end (431)
        for request, status, code in (
                (f"POST {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 10000000\r\n\r\n{{".encode(),
                 413, b"payload_too_large"),
                (b"GET /health/live HTTP/1.1\r\nX-Long: " + b"a" * 70000, 431, b"headers_too_large"),
                (b"\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03", 400, b"bad_request")):  # TLS to the plain port
            sock = socket.create_connection((host, port), timeout=5)
            sock.sendall(request)
            answer = b""
            while chunk := sock.recv(65536):
                answer += chunk
            sock.close()
            assert answer.startswith(f"HTTP/1.1 {status}".encode()) and code in answer, answer[:300]
    finally:
        service.close()


def _live_answers_while_two_readers_stop(service, request: bytes, readers: list, *, within: float) -> None:
    """Two connections send ``request`` and never read their answers (a small receive buffer; kept in
    ``readers`` for the caller to close): ``/health/live`` still answers within ``within`` seconds, and the service
    logged that it cut such a client off."""
    for _ in range(2):
        sock = socket.socket()
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
        sock.connect(("127.0.0.1", service.port))
        sock.sendall(request)
        readers.append(sock)
    time.sleep(1)
    seconds, status = timed_get("127.0.0.1", service.port, "/health/live", timeout=within + 10)
    assert status == 200 and seconds < within, (status, seconds)
    assert "took nothing of its answer" in service.logs(), service.logs()[-4000:]


@pytest.mark.slow
def test_clients_that_stop_reading_their_answers_hold_no_thread_for_longer_than_the_write_timeout(jwks_server):
    """Two clients (one worker of two threads) pipeline requests for the OpenAPI document and never read the
    answers: once the socket buffers are full, each thread blocked in its write for as long as the client stayed,
    and ``/health/live`` got no answer. Each write now gives up after WEB_RESPONSE_WRITE_TIMEOUT_SECONDS and the
    connection is closed; the threads serve others."""
    service = LiveService(jwks_server.url, workers=1, threads=2,
                          extra_env={"WEB_RESPONSE_WRITE_TIMEOUT_SECONDS": "2"})
    host, port = "127.0.0.1", service.port
    readers = []
    try:
        assert timed_get(host, port, "/v1/schema")[1] == 200  # made once, then served as made
        request = b"GET /v1/schema HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"
        # tens of megabytes of answers, far beyond what the buffers hold
        _live_answers_while_two_readers_stop(service, request * 100, readers, within=8)
    finally:
        for sock in readers:
            sock.close()
        service.close()


def _asgi_service(jwks_server, **env: str) -> LiveService:
    """``serve --asgi`` with one worker of two threads and a short read timeout."""
    return LiveService(jwks_server.url, workers=1, threads=2, asgi=True,
                       extra_env={"WEB_REQUEST_READ_TIMEOUT_SECONDS": str(READ_TIMEOUT), **env})


@pytest.mark.slow
def test_under_asgi_a_trickling_body_or_a_stalled_download_holds_no_thread_beyond_the_deadlines(
        committed_db, world, jwks_server):
    """``serve --asgi`` (uvicorn, a2wsgi's threads): a request got its thread as soon as its head was in, and Django
    read the body on it, so two bodies that never finished held both threads of a worker for as long as their
    clients liked; and a streamed answer (a patient's export) whose client stopped reading held its thread once
    a2wsgi's queue was full, for good. ``/health/live`` gave no answer. The body is now read before a thread sees the
    request (408 after WEB_REQUEST_READ_TIMEOUT_SECONDS), and each part of an answer is given
    WEB_RESPONSE_WRITE_TIMEOUT_SECONDS, after which the connection is closed and the thread goes on, as under
    gunicorn."""
    from tests.conftest import admin_connect
    from tests.test_rights_export import EXPORT_SCOPES, SEED_ACCESS_HISTORY

    pid = world.patient_a
    cid = world.consent(pid)
    token = world.token(sub=f"patient-{pid}", patient_id=pid, scope=EXPORT_SCOPES)
    with admin_connect() as admin:  # an export of several megabytes, streamed in 64 KiB pieces
        admin.execute(SEED_ACCESS_HISTORY, {"org": world.org, "patient": pid, "count": 20000})
    service = _asgi_service(jwks_server, WEB_RESPONSE_WRITE_TIMEOUT_SECONDS="2")
    host, port = "127.0.0.1", service.port
    held = []
    try:
        body = json.dumps(memory_body(cid)).encode()
        for _ in range(2):
            sock = socket.create_connection((host, port), timeout=READ_TIMEOUT + 10)
            sock.sendall(f"POST /v1/patients/{pid}/memories HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer "
                         f"{token}\r\nContent-Type: application/json\r\nContent-Length: {len(body)}\r\n\r\n".encode()
                         + body[:10])
            held.append(sock)
        time.sleep(0.5)
        seconds, status = timed_get(host, port, "/health/live", timeout=10)
        assert status == 200 and seconds < 2, (status, seconds)
        for sock in held:
            status, answer = _response(sock)
            assert status == 408 and json.loads(answer)["code"] == "request_timeout", answer[:300]
            sock.close()
        held.clear()

        export = f"GET /v1/patients/{pid}/export HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer {token}\r\n\r\n"
        _live_answers_while_two_readers_stop(service, export.encode(), held, within=20)
    finally:
        for sock in held:
            sock.close()
        service.close()


def _read_all(sock: socket.socket) -> bytes:
    answer = b""
    try:
        while chunk := sock.recv(65536):
            answer += chunk
    except OSError:
        pass
    return answer


def _answer_to(host: str, port: int, data: bytes) -> bytes:
    """All the service answers ``data`` sent on a new connection, until it closes it."""
    with socket.create_connection((host, port), timeout=10) as sock:
        sock.sendall(data)
        return _read_all(sock)


def _asgi_workers(service) -> list:
    """The uvicorn worker processes of ``serve --asgi`` (spawned by its supervisor; not the resource tracker)."""
    import psutil

    return [p for p in psutil.Process(service.proc.pid).children(recursive=True)
            if "spawn_main" in " ".join(p.cmdline())]


@pytest.mark.slow
def test_under_asgi_a_head_takes_no_longer_than_the_read_timeout_connections_are_capped_and_a_dead_worker_replaced(
        jwks_server):
    """``serve --asgi`` (uvicorn) had no timeout for a request head: a connection that sent nothing, or a head sent
    a byte a second, was held for as long as the client liked, and nothing capped how many. A head not in within
    WEB_REQUEST_READ_TIMEOUT_SECONDS is 408 request_timeout and closed (a connection that sent nothing is closed),
    a connection beyond WEB_WORKER_CONNECTIONS is 503 and closed. And with one worker uvicorn served in its own
    process with no supervisor: a worker killed with SIGKILL left no service (serve ended); it is started again."""
    service = _asgi_service(jwks_server, WEB_WORKER_CONNECTIONS="20")
    host, port, held = "127.0.0.1", service.port, []
    try:
        # a head trickling in, a byte a second, and a connection that sends nothing
        trickle = socket.create_connection((host, port), timeout=READ_TIMEOUT + 8)
        idle = socket.create_connection((host, port), timeout=READ_TIMEOUT + 8)
        started = time.monotonic()
        trickle.sendall(b"GET /health/live HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Request-ID: slow-head-1\r\nX-Slow: ")
        try:
            for _ in range(20):
                trickle.sendall(b"a")
                time.sleep(1)
                if time.monotonic() - started > READ_TIMEOUT + 3:
                    break
        except OSError:  # closed by the service
            pass
        answer = _read_all(trickle)
        trickle.close()
        assert answer.startswith(b"HTTP/1.1 408"), answer[:300]
        assert b'"code": "request_timeout"' in answer and b"slow-head-1" in answer
        assert time.monotonic() - started < READ_TIMEOUT + 4
        assert _read_all(idle) == b"" and time.monotonic() - started < READ_TIMEOUT + 4
        idle.close()

        # connections beyond the cap are refused at once, 503 with Retry-After; those within it are not
        for _ in range(20):
            held.append(socket.create_connection((host, port), timeout=5))
        time.sleep(0.3)
        extra = socket.create_connection((host, port), timeout=5)
        answer = _read_all(extra)
        extra.close()
        assert answer.startswith(b"HTTP/1.1 503") and b"Retry-After: 1" in answer, answer[:300]
        assert b'"code": "service_unavailable"' in answer
        time.sleep(READ_TIMEOUT + 1)  # the held ones sent nothing: closed
        assert all(_read_all(sock) == b"" for sock in held)
        assert timed_get(host, port, "/health/live", timeout=5)[1] == 200

        # a request whose head comes in pieces, in time, is served as usual
        sock = socket.create_connection((host, port), timeout=10)
        request = b"GET /health/live HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n"
        for piece in (request[:10], request[10:30], request[30:]):
            sock.sendall(piece)
            time.sleep(0.5)
        assert _read_all(sock).startswith(b"HTTP/1.1 200")
        sock.close()

        # a header without end is refused once the head passes 64 KiB (httptools kept it whole, however long: tens
        # of megabytes held by the worker within the read timeout), and what the parser refuses is a problem
        # document as under gunicorn, not uvicorn's plain text
        sock = socket.create_connection((host, port), timeout=10)
        sock.sendall(b"GET /health/live HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Long: ")
        try:
            for _ in range(64):
                sock.sendall(b"a" * 8192)
                time.sleep(0.01)
        except OSError:  # closed by the service
            pass
        answer = _read_all(sock)
        sock.close()
        assert answer.startswith(b"HTTP/1.1 431") and b'"code": "headers_too_large"' in answer, answer[:300]
        answer = _answer_to(host, port, b"\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03" + b"\0" * 40)
        assert answer.startswith(b"HTTP/1.1 400") and b'"code": "bad_request"' in answer, answer[:300]

        # a kept-alive connection sent an empty line after its answer (which cancelled uvicorn's keep-alive
        # timeout and began no request) is closed all the same
        sock = socket.create_connection((host, port), timeout=READ_TIMEOUT + 8)
        sock.sendall(b"GET /health/live HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
        assert _response(sock)[0] == 200
        sock.sendall(b"\r\n")
        started = time.monotonic()
        # (arriving before uvicorn has marked the answer complete, it is the keep-alive timeout, 5 s, that closes)
        assert _read_all(sock) == b"" and time.monotonic() - started < max(READ_TIMEOUT, 5) + 2
        sock.close()

        # an MCP request whose body trickles in is cut off as the API's are (it was held without end)
        sock = socket.create_connection((host, port), timeout=READ_TIMEOUT + 8)
        sock.sendall(b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                     b"Accept: application/json\r\nContent-Length: 60\r\n\r\n{")
        started = time.monotonic()
        answer = _read_all(sock)
        sock.close()
        assert answer.startswith(b"HTTP/1.1 408") and b'"code": "request_timeout"' in answer, answer[:300]
        assert time.monotonic() - started < READ_TIMEOUT + 2

        # a client that half-closes once its requests are sent gets every answer (uvicorn served them and dropped
        # the answers), then the connection is closed
        for count in (1, 2):
            sock = socket.create_connection((host, port), timeout=10)
            sock.sendall(b"GET /health/live HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n" * count)
            sock.shutdown(socket.SHUT_WR)
            started = time.monotonic()
            assert _read_all(sock).count(b"HTTP/1.1 200") == count and time.monotonic() - started < 2
            sock.close()

        # the one worker killed: another takes its place, and the service answers again
        workers = _asgi_workers(service)
        assert len(workers) == 1, workers
        workers[0].kill()
        deadline = time.monotonic() + 60
        while timed_get(host, port, "/health/live", timeout=2)[1] != 200:
            assert service.proc.poll() is None, service.logs()[-3000:]
            assert time.monotonic() < deadline, service.logs()[-3000:]
            time.sleep(0.3)
        assert [p.pid for p in _asgi_workers(service)] != [workers[0].pid]
    finally:
        for sock in held:
            sock.close()
        service.close()


@pytest.mark.slow
def test_idle_connections_beyond_a_gunicorn_workers_cap_wait_and_are_served_once_the_idle_ones_are_closed(
        jwks_server):
    """A flood of idle connections to gunicorn's worker holds no thread (the main loop holds them, the test above)
    and at most WEB_WORKER_CONNECTIONS of them a worker: beyond that the worker accepts nothing more until some
    close, and the idle ones are closed after WEB_REQUEST_READ_TIMEOUT_SECONDS, so the next client waits that long
    at most and is served."""
    service = LiveService(jwks_server.url, workers=1, threads=2,
                          extra_env={"WEB_REQUEST_READ_TIMEOUT_SECONDS": str(READ_TIMEOUT),
                                     "WEB_WORKER_CONNECTIONS": "10"})
    idle = []
    try:
        for _ in range(10):
            idle.append(socket.create_connection(("127.0.0.1", service.port), timeout=READ_TIMEOUT + 5))
        time.sleep(0.3)
        seconds, status = timed_get("127.0.0.1", service.port, "/health/live", timeout=READ_TIMEOUT + 5)
        assert status == 200 and 1.5 < seconds < READ_TIMEOUT + 2, (status, seconds)
        assert all(_read_all(sock) == b"" for sock in idle)  # closed, never answered
    finally:
        for sock in idle:
            sock.close()
        service.close()
