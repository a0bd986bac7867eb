"""Clients of the live service over real HTTP, for the tests that break its database under load (outage,
failover): one call, and a write load that records every answer and every acknowledged write."""

from __future__ import annotations

import json
import threading
import time
import urllib.error
import urllib.request
import uuid

from tests.conftest import memory_body


def _headers(message) -> dict[str, str]:
    """Header names are case-insensitive (uvicorn sends them in lower case): one spelling for the assertions."""
    return {name.lower(): value for name, value in message.items()}


def call(url, method, path, token, body=None, timeout=30):
    """(status, headers with lower-case names, JSON body) of one request."""
    data = json.dumps(body).encode() if body is not None else None
    request = urllib.request.Request(url + path, data=data, method=method, headers={
        "Authorization": f"Bearer {token}", "Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(request, timeout=timeout) as response:
            return response.status, _headers(response.headers), json.loads(response.read() or b"{}")
    except urllib.error.HTTPError as exc:
        return exc.code, _headers(exc.headers), json.loads(exc.read() or b"{}")


class MemoryWriteLoad:
    """One client per patient writing memories (two attributes in turn) until stopped. ``outcomes`` holds
    (started, seconds, status, headers, body) for every request, status 0 when the service itself did not answer;
    ``acknowledged`` the ids of the memories the service answered 201 for, per patient, in order."""

    def __init__(self, url: str, tokens: dict[uuid.UUID, str], consents: dict[uuid.UUID, str], *,
                 timeout: float = 15) -> None:
        self.url, self.tokens, self.consents, self.timeout = url, tokens, consents, timeout
        self.acknowledged: dict[uuid.UUID, list[str]] = {p: [] for p in tokens}
        self.outcomes: list[tuple[float, float, int, dict, dict]] = []
        self._stop = threading.Event()
        self._threads = [threading.Thread(target=self._client, args=(p,)) for p in tokens]

    def _client(self, p: uuid.UUID) -> None:
        n = 0
        while not self._stop.is_set():
            n += 1
            kind = "earliest_time" if n % 2 else "latest_time"
            started = time.monotonic()
            try:
                status, headers, body = call(self.url, "POST", f"/v1/patients/{p}/memories", self.tokens[p],
                                             memory_body(self.consents[p], kind, f"{8 + n % 10:02d}:{n % 60:02d}"),
                                             timeout=self.timeout)
            except OSError as exc:  # the service itself must stay up: a refused connection is a failure
                status, headers, body = 0, {}, {"error": type(exc).__name__}
            self.outcomes.append((started, time.monotonic() - started, status, headers, body))
            if status == 201:
                self.acknowledged[p].append(body["memory_id"])
            time.sleep(0.02)

    def start(self) -> None:
        for t in self._threads:
            t.start()

    def stop(self) -> None:
        self._stop.set()
        for t in self._threads:
            t.join(timeout=60)
