"""Adapters over HTTP for the outside systems (an insurer, a scheduling system): the one client of each.

Each call answers with an :class:`Outcome` that says only what the answer *proves*:

* ``confirmed``: the system holds the request under our key (a 2xx to a submission, or a lookup that found it);
* ``refused``: the system answered that it will not accept it (a 4xx other than 408/409/429): definitive;
* ``not_found``: a lookup found no request under the key (a 404);
* ``not_sent``: nothing left this process (connection refused or timed out while connecting, no free connection);
* ``unknown``: the request may have arrived (a read or write timeout, a dropped connection, a 5xx, 408, 409, 429,
  or an answer we cannot read). A timeout proves nothing, so nor does this.

A read of the scheduling system's slots (:meth:`SchedulingSystem.slots`) is ``confirmed`` when the system answered
200 with a readable list; any other outcome means the slots could not be read.

Only error codes leave an adapter (``timeout``, ``http_503``...), never payload values or response bodies.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from datetime import datetime

import httpx
from django.conf import settings
from opentelemetry.trace import SpanKind

from core import tracing
from core.http_deadline import DeadlineTransport
from workflows.definitions import INSURER, SCHEDULING

CONFIRMED = "confirmed"
REFUSED = "refused"
NOT_FOUND = "not_found"
NOT_SENT = "not_sent"
UNKNOWN = "unknown"

_SAFE_ID = re.compile(r"^[A-Za-z0-9._:\-]{1,100}$")
_SAFE_STATUS = re.compile(r"^[a-z_]{1,40}$")
_SAFE_SLOT_ID = re.compile(r"^[A-Za-z0-9._:\-]{1,64}$")
SLOTS_PATH = "/v1/slots"
MAX_SLOTS = 500
# More than any answer we read (an id and a status, or a page of slots): a system that streams on (or a compressed
# bomb) is cut off here instead of filling the worker's memory (it held 2 GB after 5 s of one such answer).
MAX_ANSWER_BYTES = 1024 * 1024


@dataclass(frozen=True)
class Outcome:
    kind: str
    code: str
    result: dict | None = None

    @property
    def system_responded(self) -> bool:
        """The system is up and speaking our protocol (for the circuit breaker)."""
        return self.kind in (CONFIRMED, REFUSED, NOT_FOUND)


@dataclass(frozen=True)
class Answer:
    """What was read of an outside system's answer: its status and its body, decoded, at most MAX_ANSWER_BYTES."""

    status_code: int
    content: bytes

    def json(self):
        return json.loads(self.content)


@dataclass(frozen=True)
class SystemSpec:
    system: str
    collection: str  # e.g. /v1/prior-authorizations
    result_field: str


SPECS = {
    INSURER: SystemSpec(INSURER, "/v1/prior-authorizations", "authorization_id"),
    SCHEDULING: SystemSpec(SCHEDULING, "/v1/appointments", "appointment_id"),
}


class OutsideSystem:
    """One outside system over HTTP: submit with an Idempotency-Key, or look the key up. Never raises for the
    system's behaviour; every failure becomes an Outcome."""

    def __init__(self, spec: SystemSpec, *, base_url: str, connect_timeout: float, read_timeout: float,
                 transport: httpx.BaseTransport | None = None) -> None:
        self.spec = spec
        self.system = spec.system
        timeout = httpx.Timeout(connect=connect_timeout, read=read_timeout, write=read_timeout,
                                pool=connect_timeout)
        if transport is None:
            # each request within its connect, write and read timeouts together (as the outbox's lease assumes),
            # however slowly the system answers
            transport = DeadlineTransport(deadline=connect_timeout + 2 * read_timeout)
        self.client = httpx.Client(base_url=base_url, timeout=timeout, transport=transport,
                                   follow_redirects=False, headers={"Accept": "application/json"})

    @classmethod
    def from_settings(cls, system: str) -> OutsideSystem:
        return cls(SPECS[system], base_url=getattr(settings, f"{system.upper()}_BASE_URL").rstrip("/"),
                   connect_timeout=settings.WORKFLOW_HTTP_CONNECT_TIMEOUT_SECONDS,
                   read_timeout=settings.WORKFLOW_HTTP_READ_TIMEOUT_SECONDS)

    def close(self) -> None:
        self.client.close()

    def submit(self, *, key: str, payload: dict) -> Outcome:
        return self._call("POST", self.spec.collection, json=payload, headers={"Idempotency-Key": key})

    def lookup(self, *, key: str) -> Outcome:
        return self._call("GET", f"{self.spec.collection}/by-idempotency-key/{key}", lookup=True,
                          template=f"{self.spec.collection}/by-idempotency-key/{{key}}")

    def _request(self, method: str, path: str, *, template: str | None = None, **kwargs) -> Answer | Outcome:
        """The system's answer, or the outcome of a request that got none. Traced as a client span that names the
        system and the route (``template`` when the path holds a key), and sends the trace context on."""
        with tracing.span(f"{method} {self.system}", kind=SpanKind.CLIENT,
                          attributes={"http.request.method": method, "peer.service": self.system,
                                      "url.template": template or path}) as span:
            kwargs["headers"] = {**kwargs.get("headers", {}), **tracing.outgoing_headers()}
            try:
                with self.client.stream(method, path, **kwargs) as response:
                    content = _read_at_most(response, MAX_ANSWER_BYTES)
            except (httpx.ConnectError, httpx.ConnectTimeout, httpx.PoolTimeout) as exc:
                outcome = Outcome(NOT_SENT, _code(exc))  # no connection, so no request: provably not delivered
            except httpx.TimeoutException:
                outcome = Outcome(UNKNOWN, "timeout")  # sent (or partly sent), no answer: proves nothing
            except httpx.TransportError as exc:
                outcome = Outcome(UNKNOWN, _code(exc))
            except httpx.HTTPError:  # an answer that cannot be decoded (its Content-Encoding): it was sent
                outcome = Outcome(UNKNOWN, "unreadable_answer")
            else:
                span.set_attribute("http.response.status_code", response.status_code)
                if content is None:
                    outcome = Outcome(UNKNOWN, "answer_too_large")  # it answered, so the request arrived
                else:
                    if response.status_code >= 400:
                        tracing.failed(span, str(response.status_code))
                    return Answer(response.status_code, content)
            tracing.failed(span, outcome.code)
            return outcome

    def _call(self, method: str, path: str, *, lookup: bool = False, template: str | None = None,
              **kwargs) -> Outcome:
        response = self._request(method, path, template=template, **kwargs)
        if isinstance(response, Outcome):
            return response
        status = response.status_code
        if lookup and status == 404:
            return Outcome(NOT_FOUND, "not_found")
        if 200 <= status < 300:
            result = self._result(response)
            if result is None:
                return Outcome(UNKNOWN, "unreadable_answer")
            return Outcome(CONFIRMED, "adopted" if lookup else "confirmed", result)
        if 400 <= status < 500 and status not in (408, 409, 429):
            return Outcome(REFUSED, f"refused_http_{status}")
        return Outcome(UNKNOWN, f"http_{status}")

    def _result(self, response: Answer) -> dict | None:
        """The outside system's id and status, validated; nothing else of its answer is kept."""
        try:
            body = response.json()
        except ValueError:
            return None
        if not isinstance(body, dict):
            return None
        external_id = body.get(self.spec.result_field)
        if not isinstance(external_id, str) or not _SAFE_ID.fullmatch(external_id):
            return None
        status = body.get("status")
        result = {self.spec.result_field: external_id}
        if isinstance(status, str) and _SAFE_STATUS.fullmatch(status):
            result["status"] = status
        return result


class SchedulingSystem(OutsideSystem):
    """The scheduling system: appointments submitted and looked up like any outside system's requests, and the
    slots it offers, read."""

    @classmethod
    def for_slot_search(cls, *, transport: httpx.BaseTransport | None = None) -> SchedulingSystem:
        """With the timeouts of a patient waiting for offers (SCHEDULING_*), not the outbox worker's."""
        return cls(SPECS[SCHEDULING], base_url=settings.SCHEDULING_BASE_URL.rstrip("/"),
                   connect_timeout=settings.SCHEDULING_CONNECT_TIMEOUT_SECONDS,
                   read_timeout=settings.SCHEDULING_READ_TIMEOUT_SECONDS, transport=transport)

    def slots(self, *, specialty: str, visit_type: str | None) -> Outcome:
        """The slots for this specialty (and visit type, when known). Confirmed, its result ``{"slots": [{"slot_id",
        "start"}], "returned": n, "skipped": n}``: ``start`` a naive (clinic-local) datetime; only the first
        MAX_SLOTS are read, and one without a safe id or a readable start is skipped. Only the specialty and visit
        type are sent."""
        params = {"specialty": specialty}
        if visit_type:
            params["visit_type"] = visit_type
        response = self._request("GET", SLOTS_PATH, params=params)
        if isinstance(response, Outcome):
            return response
        if response.status_code != 200:
            return Outcome(UNKNOWN, f"http_{response.status_code}")
        try:
            body = response.json()
        except ValueError:
            return Outcome(UNKNOWN, "unreadable_answer")
        items = body.get("slots") if isinstance(body, dict) else None
        if not isinstance(items, list):
            return Outcome(UNKNOWN, "unreadable_answer")
        read = [_slot(item) for item in items[:MAX_SLOTS]]
        slots = [slot for slot in read if slot is not None]
        return Outcome(CONFIRMED, "confirmed",
                       {"slots": slots, "returned": len(items), "skipped": len(read) - len(slots)})


def _slot(item) -> dict | None:
    if not isinstance(item, dict):
        return None
    slot_id, start = item.get("slot_id"), item.get("start")
    if not isinstance(slot_id, str) or not _SAFE_SLOT_ID.fullmatch(slot_id) or not isinstance(start, str):
        return None
    try:
        when = datetime.fromisoformat(start)
    except ValueError:
        return None
    return {"slot_id": slot_id, "start": when.replace(tzinfo=None)}


def _read_at_most(response: httpx.Response, limit: int) -> bytes | None:
    """The answer's body (decoded), or None once it passes ``limit`` bytes (nothing more is read)."""
    body = bytearray()
    for chunk in response.iter_bytes():
        body += chunk
        if len(body) > limit:
            return None
    return bytes(body)


def _code(exc: Exception) -> str:
    return {
        httpx.ConnectError: "connect_failed",
        httpx.ConnectTimeout: "connect_timeout",
        httpx.PoolTimeout: "pool_timeout",
        httpx.RemoteProtocolError: "connection_dropped",
        httpx.ReadError: "read_error",
        httpx.WriteError: "write_error",
    }.get(type(exc), "transport_error")


def adapters_from_settings() -> dict[str, OutsideSystem]:
    return {system: (SchedulingSystem if system == SCHEDULING else OutsideSystem).from_settings(system)
            for system in SPECS}
