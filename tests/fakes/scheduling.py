"""A fake scheduling system's slot search: a real HTTP server on 127.0.0.1, for tests, the benchmark and local
development. Never for real patient data.

``GET /v1/slots?specialty=cardiology[&visit_type=followup]`` answers ``{"slots": [{"slot_id", "start",
"specialty", "visit_type"}]}`` with clinic-local wall-clock start times. The default slots are the seed's (A1
Thursday 14:00, A2 Thursday 09:00, A3 Monday 15:30 for the cardiology follow-up) plus two dermatology slots.

Controls: ``mode`` = ``normal`` | ``error`` (503) | ``garbage`` (200 with an unreadable body) | ``slow`` (answers
after ``hang_seconds``); ``down()`` closes the socket (connection refused). ``requests`` records every query
string received (tests check that no patient identifier ever leaves the service).

    python -m tests.fakes.scheduling --port 8091      # prints "listening http://127.0.0.1:8091"
"""

from __future__ import annotations

import argparse
import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlparse

HOST = "127.0.0.1"

# 2031-01-09 is a Thursday and 2031-01-06 a Monday.
SEED_SLOTS = [
    {"slot_id": "A1", "start": "2031-01-09T14:00", "specialty": "cardiology", "visit_type": "followup"},
    {"slot_id": "A2", "start": "2031-01-09T09:00", "specialty": "cardiology", "visit_type": "followup"},
    {"slot_id": "A3", "start": "2031-01-06T15:30", "specialty": "cardiology", "visit_type": "followup"},
    {"slot_id": "D1", "start": "2031-01-09T11:00", "specialty": "dermatology", "visit_type": "followup"},
    {"slot_id": "D2", "start": "2031-01-07T16:00", "specialty": "dermatology", "visit_type": "new"},
]


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True


def slots_matching(slots: list[dict], query: dict[str, list[str]]) -> list[dict]:
    """The slot search's answer: the slots of the asked specialty (and visit type, when asked)."""
    specialty = query.get("specialty", [""])[0]
    visit_type = query.get("visit_type", [None])[0]
    return [s for s in slots if s["specialty"] == specialty and (visit_type is None or s["visit_type"] == visit_type)]


class FakeScheduling:
    def __init__(self, slots: list[dict] | None = None, *, port: int = 0) -> None:
        self.slots = [dict(s) for s in (slots if slots is not None else SEED_SLOTS)]
        self.requests: list[dict[str, list[str]]] = []
        self.traceparents: list[str | None] = []  # the W3C trace context of each request (tests/test_tracing.py)
        self.mode = "normal"
        self.hang_seconds = 3.0
        self.lock = threading.Lock()
        self._port = port
        self.httpd: _Server | None = None
        self.up()

    @property
    def url(self) -> str:
        return f"http://{HOST}:{self._port}"

    def up(self) -> None:
        outer = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self):  # noqa: N802
                parsed = urlparse(self.path)
                query = parse_qs(parsed.query)
                with outer.lock:
                    outer.requests.append(query)
                    outer.traceparents.append(self.headers.get("traceparent"))
                    mode = outer.mode
                if parsed.path != "/v1/slots":
                    return self._send(404, {"error": "not_found"})
                if mode == "error":
                    return self._send(503, {"error": "maintenance"})
                if mode == "slow":
                    time.sleep(outer.hang_seconds)
                if mode == "garbage":
                    return self._send(200, b"<html>oops</html>")
                return self._send(200, {"slots": slots_matching(outer.slots, query)})

            def _send(self, status: int, body) -> None:
                data = body if isinstance(body, bytes) else json.dumps(body).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                try:
                    self.wfile.write(data)
                except OSError:
                    pass  # the client gave up (a timeout test)

            def log_message(self, *args):
                pass

        self.httpd = _Server((HOST, self._port), Handler)
        self._port = self.httpd.server_address[1]
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()

    def down(self) -> None:
        if self.httpd is not None:
            self.httpd.shutdown()
            self.httpd.server_close()
            self.httpd = None

    stop = down


def main() -> None:  # pragma: no cover - manual use
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--port", type=int, default=8091)
    args = parser.parse_args()
    fake = FakeScheduling(port=args.port)
    print(f"listening {fake.url}", flush=True)
    try:
        while True:
            time.sleep(3600)
    except KeyboardInterrupt:
        fake.down()


if __name__ == "__main__":
    main()
