"""Fake outside systems (an insurer, a scheduling system): real HTTP servers speaking JSON, for tests, the benchmark
and local development. Never for real patient data.

They honour ``Idempotency-Key`` like a careful real system: the first request under a key creates one record bound
to the hash of its body; the same key with the same body answers that record again; the same key with another body
is refused (422). ``GET <collection>/by-idempotency-key/<key>`` looks a key up (404 when unknown).

Controls (in-process, or over HTTP at ``/_fake/control`` when run as a process):

* ``accept_then_time_out(times, hang)``: record the request, then answer only after ``hang`` seconds (past the
  client's timeout): the seed's dangerous case, a request accepted whose response is lost;
* ``fail(times, status)``: answer 500 (or ``status``) without recording anything;
* ``accept_then_fail(times)``: record, then answer 500;
* ``accept_then_garble(times)``: record, then answer 201 whose body cannot be decoded (``Content-Encoding: gzip``
  on a body that is not): an answer that arrived but cannot be read;
* ``accept_then_dribble(times)``: record, then send the answer a byte every 0.1 s (each byte well within the
  client's read timeout, the whole answer far beyond it);
* ``accept_then_flood(times)``: record, then answer 201 with a 256 MiB body of spaces (an answer no one should
  read to its end);
* ``refuse(times, status)``: answer 422 (or ``status``) without recording: a definitive refusal;
* ``down()`` / ``up()``: close the listening socket (connection refused) and open it again on the same port;
* ``normal()``: back to plain behaviour.

Counters: requests per (method, route), submissions and lookups per key, records created.

    python -m tests.fakes.outside --system insurer --port 8090      # prints "listening http://127.0.0.1:8090"
"""

from __future__ import annotations

import argparse
import hashlib
import json
import socket
import threading
import time
import uuid
from collections import Counter
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlparse

from tests.fakes.scheduling import SEED_SLOTS, slots_matching

HOST = "127.0.0.1"


@dataclass(frozen=True)
class FakeSpec:
    collection: str
    id_field: str
    id_prefix: str
    created_status: str


SPECS = {
    "insurer": FakeSpec("/v1/prior-authorizations", "authorization_id", "PA", "pending_review"),
    "scheduling": FakeSpec("/v1/appointments", "appointment_id", "APT", "booked"),
}


def body_hash(body: object) -> str:
    return hashlib.sha256(json.dumps(body, sort_keys=True, separators=(",", ":")).encode()).hexdigest()


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True


class FakeOutsideSystem:
    def __init__(self, system: str = "insurer", *, port: int = 0) -> None:
        self.system = system
        self.spec = SPECS[system]
        self.lock = threading.Lock()
        self.records: dict[str, dict] = {}
        self.requests: Counter[tuple[str, str]] = Counter()
        self.traceparents: list[str | None] = []
        self.submissions: Counter[str] = Counter()
        self.lookups: Counter[str] = Counter()
        self.mode = "normal"
        self.mode_times: int | None = None
        self.hang_seconds = 5.0
        self.fail_status = 500
        self.fail_lookups = False
        self.in_hang = threading.Event()  # set while a request is being held (for tests that kill mid-call)
        self._release = threading.Event()
        self._port = port
        self.httpd: _Server | None = None
        self.thread: threading.Thread | None = None
        self.up()

    # --- lifecycle ---------------------------------------------------------------------------------------
    @property
    def port(self) -> int:
        return self._port

    @property
    def url(self) -> str:
        return f"http://{HOST}:{self._port}"

    def up(self) -> None:
        if self.httpd is not None:
            return
        self.httpd = _Server((HOST, self._port), self._handler())
        self._port = self.httpd.server_address[1]
        self.thread = threading.Thread(target=self.httpd.serve_forever, kwargs={"poll_interval": 0.05},
                                       daemon=True)
        self.thread.start()

    def down(self) -> None:
        """Stop listening: new connections are refused until up()."""
        if self.httpd is None:
            return
        self.httpd.shutdown()
        self.httpd.server_close()
        self.httpd = None

    def stop(self) -> None:
        self._release.set()
        self.down()

    # --- controls ----------------------------------------------------------------------------------------
    def _set(self, mode: str, times: int | None) -> None:
        with self.lock:
            self.mode, self.mode_times = mode, times

    def normal(self) -> None:
        self._set("normal", None)

    def accept_then_time_out(self, times: int | None = 1, hang: float = 5.0) -> None:
        self.hang_seconds = hang
        self._set("accept_then_timeout", times)

    def accept_then_fail(self, times: int | None = 1) -> None:
        self._set("accept_then_fail", times)

    def accept_then_garble(self, times: int | None = 1) -> None:
        self._set("accept_then_garble", times)

    def accept_then_dribble(self, times: int | None = 1) -> None:
        self._set("accept_then_dribble", times)

    def accept_then_flood(self, times: int | None = 1) -> None:
        self._set("accept_then_flood", times)

    def refuse(self, times: int | None = 1, status: int = 422) -> None:
        self.fail_status = status
        self._set("refuse", times)

    def fail(self, times: int | None = None, status: int = 500, lookups: bool = False) -> None:
        self.fail_status = status
        self.fail_lookups = lookups
        self._set("fail", times)

    def reset(self) -> None:
        with self.lock:
            self.records.clear()
            self.requests.clear()
            self.submissions.clear()
            self.lookups.clear()
            self.mode, self.mode_times = "normal", None
            self.fail_lookups = False
        self.in_hang.clear()

    def _take_mode(self) -> str:
        """The mode for this request; counts down a mode limited to some times."""
        with self.lock:
            mode = self.mode
            if mode != "normal" and self.mode_times is not None:
                self.mode_times -= 1
                if self.mode_times <= 0:
                    self.mode, self.mode_times = "normal", None
            return mode

    # --- facts for assertions ----------------------------------------------------------------------------
    @property
    def created(self) -> int:
        with self.lock:
            return len(self.records)

    def record_for(self, key: str) -> dict | None:
        with self.lock:
            return dict(self.records[key]) if key in self.records else None

    def stats(self) -> dict:
        with self.lock:
            return {"created": len(self.records), "requests": {f"{m} {r}": n for (m, r), n in self.requests.items()},
                    "submissions_total": sum(self.submissions.values()),
                    "max_submissions_per_key": max(self.submissions.values(), default=0),
                    "lookups_total": sum(self.lookups.values()), "mode": self.mode}

    # --- HTTP --------------------------------------------------------------------------------------------
    def _handler(self):
        fake = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def setup(self):
                super().setup()
                # Headers and body go out in separate writes: without this, Nagle's algorithm and the client's
                # delayed ACK add about 40 ms to every answer on a keep-alive connection.
                self.request.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

            def log_message(self, *args):
                pass

            def parse_request(self):
                parsed = super().parse_request()
                if parsed:  # the W3C trace context each request carried (tests/test_tracing.py)
                    with fake.lock:
                        fake.traceparents.append(self.headers.get("traceparent"))
                return parsed

            def _send(self, status: int, body: dict | None = None, headers: dict | None = None) -> None:
                data = json.dumps(body or {}).encode()
                try:
                    self.send_response(status)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(data)))
                    for k, v in (headers or {}).items():
                        self.send_header(k, v)
                    self.end_headers()
                    self.wfile.write(data)
                except (BrokenPipeError, ConnectionResetError):
                    pass  # the client gave up (it timed out): exactly the case being simulated

            def _body(self) -> object:
                length = int(self.headers.get("Content-Length") or 0)
                raw = self.rfile.read(length) if length else b""
                return json.loads(raw) if raw else None

            def do_GET(self):  # noqa: N802
                prefix = fake.spec.collection + "/by-idempotency-key/"
                if self.path == "/_fake/stats":
                    return self._send(200, fake.stats())
                if fake.spec is SPECS["scheduling"] and urlparse(self.path).path == "/v1/slots":
                    # the slot search too, so one fake serves both offers and bookings in development
                    return self._send(200, {"slots": slots_matching(SEED_SLOTS, parse_qs(urlparse(self.path).query))})
                if not self.path.startswith(prefix):
                    return self._send(404, {"code": "no_such_route"})
                key = self.path[len(prefix):]
                with fake.lock:
                    fake.requests[("GET", "lookup")] += 1
                    fake.lookups[key] += 1
                    failing = fake.mode == "fail" and fake.fail_lookups
                if failing:
                    fake._take_mode()
                    return self._send(fake.fail_status, {"code": "internal_error"})
                record = fake.record_for(key)
                if record is None:
                    return self._send(404, {"code": "unknown_idempotency_key"})
                return self._send(200, {k: v for k, v in record.items() if k != "payload_hash"})

            def do_POST(self):  # noqa: N802
                try:
                    body = self._body()
                except ValueError:
                    return self._send(400, {"code": "malformed_json"})
                if self.path == "/_fake/control":
                    return self._send(200, fake._control(body or {}))
                if self.path != fake.spec.collection:
                    return self._send(404, {"code": "no_such_route"})
                key = self.headers.get("Idempotency-Key")
                with fake.lock:
                    fake.requests[("POST", "submit")] += 1
                    if key:
                        fake.submissions[key] += 1
                if not key:
                    return self._send(400, {"code": "idempotency_key_required"})
                if not isinstance(body, dict):
                    return self._send(422, {"code": "invalid_body"})
                mode = fake._take_mode()
                if mode == "fail":
                    return self._send(fake.fail_status, {"code": "internal_error"})
                if mode == "refuse":
                    return self._send(fake.fail_status, {"code": "rejected"})
                digest = body_hash(body)
                with fake.lock:
                    record = fake.records.get(key)
                    replay = record is not None
                    if record is None:
                        record = {fake.spec.id_field: f"{fake.spec.id_prefix}-{uuid.uuid4().hex[:12]}",
                                  "status": fake.spec.created_status, "idempotency_key": key,
                                  "payload_hash": digest}
                        fake.records[key] = record
                    record = dict(record)
                if record["payload_hash"] != digest:
                    return self._send(422, {"code": "idempotency_key_reused"})
                if mode == "accept_then_timeout":
                    fake.in_hang.set()
                    fake._release.wait(fake.hang_seconds)
                elif mode == "accept_then_fail":
                    return self._send(500, {"code": "internal_error"})
                elif mode == "accept_then_garble":
                    return self._send(201, {"code": "not gzip"}, {"Content-Encoding": "gzip"})
                elif mode == "accept_then_flood":
                    size, chunk = 256 * 1024 * 1024, b" " * 65536
                    try:
                        self.wfile.write((f"HTTP/1.1 201 Created\r\nContent-Type: application/json\r\n"
                                          f"Content-Length: {size}\r\n\r\n").encode())
                        for _ in range(size // len(chunk)):
                            self.wfile.write(chunk)
                    except (BrokenPipeError, ConnectionResetError):
                        pass
                    self.close_connection = True
                    return None
                elif mode == "accept_then_dribble":
                    data = json.dumps({k: v for k, v in record.items() if k != "payload_hash"}).encode()
                    answer = (f"HTTP/1.1 201 Created\r\nContent-Type: application/json\r\n"
                              f"Content-Length: {len(data)}\r\n\r\n").encode() + data
                    try:
                        for i in range(len(answer)):
                            self.wfile.write(answer[i:i + 1])
                            self.wfile.flush()
                            time.sleep(0.1)
                    except (BrokenPipeError, ConnectionResetError):
                        pass
                    self.close_connection = True
                    return None
                answer = {k: v for k, v in record.items() if k != "payload_hash"}
                return self._send(200 if replay else 201, answer,
                                  {"Idempotent-Replayed": "true"} if replay else None)

        return Handler

    def _control(self, body: dict) -> dict:
        mode = body.get("mode", "normal")
        times = body.get("times")
        if mode == "reset":
            self.reset()
        elif mode == "accept_then_timeout":
            self.accept_then_time_out(times, float(body.get("hang_seconds", 5.0)))
        elif mode == "accept_then_fail":
            self.accept_then_fail(times)
        elif mode == "fail":
            self.fail(times, int(body.get("status", 500)), bool(body.get("lookups", False)))
        elif mode == "refuse":
            self.refuse(times, int(body.get("status", 422)))
        else:
            self.normal()
        return self.stats()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tests.fakes.outside", description=__doc__.split("\n")[0])
    parser.add_argument("--system", choices=sorted(SPECS), default="insurer")
    parser.add_argument("--port", type=int, default=0, help="0 picks a free port (printed)")
    args = parser.parse_args(argv)
    fake = FakeOutsideSystem(args.system, port=args.port)
    print(f"listening {fake.url}", flush=True)
    try:
        while True:
            time.sleep(3600)
    except KeyboardInterrupt:
        fake.stop()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
