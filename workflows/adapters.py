"""Adapters over HTTP for the outside systems (an insurer, a scheduling system).

Each call answers with an :class:`Outcome` that says only what the answer *proves*:

* ``confirmed``: the system holds the request under our key (a 2xx to a submission, or a lookup that found it);
* ``refused``: the system answered that it will not accept it (a 4xx other than 408/409/429): definitive;
* ``not_found``: a lookup found no request under the key (a 404);
* ``not_sent``: nothing left this process (connection refused or timed out while connecting, no free connection);
* ``unknown``: the request may have arrived (a read or write timeout, a dropped connection, a 5xx, 408, 409, 429,
  or an answer we cannot read). A timeout proves nothing, so nor does this.

Only error codes leave an adapter (``timeout``, ``http_503``...), never payload values or response bodies.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import httpx
from django.conf import settings

from workflows.definitions import INSURER, SCHEDULING

CONFIRMED = "confirmed"
REFUSED = "refused"
NOT_FOUND = "not_found"
NOT_SENT = "not_sent"
UNKNOWN = "unknown"

_SAFE_ID = re.compile(r"^[A-Za-z0-9._:\-]{1,100}$")
_SAFE_STATUS = re.compile(r"^[a-z_]{1,40}$")


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
        return self._call("GET", f"{self.spec.collection}/by-idempotency-key/{key}", lookup=True)

    def _call(self, method: str, path: str, *, lookup: bool = False, **kwargs) -> Outcome:
        try:
            response = self.client.request(method, path, **kwargs)
        except (httpx.ConnectError, httpx.ConnectTimeout, httpx.PoolTimeout) as exc:
            return Outcome(NOT_SENT, _code(exc))  # no connection, so no request: provably not delivered
        except httpx.TimeoutException:
            return Outcome(UNKNOWN, "timeout")  # sent (or partly sent), no answer: proves nothing
        except httpx.TransportError as exc:
            return Outcome(UNKNOWN, _code(exc))
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

    def _result(self, response: httpx.Response) -> dict | None:
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
    return {system: OutsideSystem.from_settings(system) for system in SPECS}
