"""The event delivery worker: claim due deliveries, POST them signed, record what the endpoint answered.

One delivery, one attempt::

    claim (commit; attempts + 1, leased) -> resolve and check the host -> POST (no transaction open) -> record (commit)

Each POST runs on a thread of its own (``EVENT_DELIVERY_CONCURRENCY``) with a short timeout, and the worker claims
more as soon as a thread is free, so a slow or dead endpoint holds one thread for at most the timeout, never more
than a quarter of them at once however many of its deliveries are due, and never the workflow outbox (another
table, another worker loop). A worker killed mid-call loses nothing: the
lease ends and the delivery is claimed again, with the same ``webhook-id``; receivers deduplicate on it.

A non-2xx answer, a timeout or a refused connection is retried with exponential backoff and jitter up to
``EVENT_DELIVERY_MAX_ATTEMPTS``, then the delivery is ``failed``. Only the status code and an error code are kept,
never a response body. Redirects are not followed.

SSRF: an endpoint is https only, without credentials, and its host name is resolved before every attempt; if any
address it resolves to is not a public one (loopback, private, link-local, shared, multicast, reserved), the delivery
fails as ``destination_not_allowed`` unless the host is listed in ``EVENT_DELIVERY_ALLOWED_PRIVATE_HOSTS``. The
connection goes to addresses so checked, resolved and checked when it is made (:func:`connect_addresses`), never to
what a later look-up of the name answers: a name whose answer changes between look-ups (DNS rebinding) cannot take
the POST inside. TLS still verifies the certificate against the name.

Logs name deliveries by id, event type and codes only.
"""

from __future__ import annotations

import ipaddress
import json
import logging
import os
import random
import socket
import ssl
import threading
import time
import uuid
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from dataclasses import dataclass, field
from datetime import datetime
from functools import lru_cache

import httpcore
import httpx
from django.conf import settings
from django.db import DatabaseError, connection, transaction
from opentelemetry.trace import SpanKind

from core import tracing
from core.http_deadline import DeadlineTransport
from core.identity import current_identity
from events import signing
from events.services import allowed_private_hosts, public_address, url_problem

log = logging.getLogger("anamnesis.events")

_WORKER_SETTING = "SELECT set_config('app.event_worker', %s, true)"

# SKIP LOCKED: concurrent workers take different rows and never wait for each other. A row still in_flight here
# has an expired lease (its worker died or stalled): it is sent again, with the same webhook-id. One subscription
# gets at most per_subscription deliveries in flight (those under a lease counted), so that an endpoint that
# hangs, with a backlog, holds that many threads and not all of them: the others' deliveries go on.
_CLAIM_SQL = """
WITH in_flight AS (
  SELECT subscription_id, count(*) AS held FROM event_delivery
   WHERE status = 'in_flight' AND next_attempt_at > now() AND claimed_until > now()
   GROUP BY subscription_id),
candidates AS (
  SELECT d.delivery_id, d.next_attempt_at,
         coalesce(f.held, 0) + row_number() OVER (PARTITION BY d.subscription_id ORDER BY d.next_attempt_at) AS place
    FROM event_delivery d LEFT JOIN in_flight f USING (subscription_id)
   WHERE d.status IN ('pending', 'in_flight') AND d.next_attempt_at <= now()),
due AS (
  SELECT delivery_id FROM event_delivery
   WHERE delivery_id IN (SELECT delivery_id FROM candidates WHERE place <= %(per_subscription)s
                          ORDER BY next_attempt_at LIMIT %(limit)s)
     AND status IN ('pending', 'in_flight') AND next_attempt_at <= now()
   ORDER BY next_attempt_at
   FOR UPDATE SKIP LOCKED),
claimed AS (
  UPDATE event_delivery d
     SET status = 'in_flight', attempts = d.attempts + 1, claimed_until = now() + make_interval(secs => %(lease)s),
         next_attempt_at = now() + make_interval(secs => %(lease)s), last_attempt_at = now(), updated_at = now()
    FROM due
   WHERE d.delivery_id = due.delivery_id
  RETURNING d.delivery_id, d.event_id, d.subscription_id, d.organization_id, d.attempts, d.claimed_until)
SELECT c.delivery_id, c.event_id, c.subscription_id, c.organization_id, c.attempts, c.claimed_until,
       e.event_type, e.data, e.occurred_at, s.url, s.enabled, s.secret_ciphertext, s.secret_key_id,
       e.event_type = ANY (s.event_types) AS wanted
  FROM claimed c
  JOIN event_outbox e ON e.event_id = c.event_id
  JOIN event_subscription s ON s.subscription_id = c.subscription_id
"""

# The claim's lease end is its fence: a worker whose lease ended (and whose delivery was claimed again) records
# nothing.
_RECORD_SQL = """
UPDATE event_delivery
   SET status = %(status)s, next_attempt_at = %(next)s, claimed_until = NULL, last_status_code = %(http)s,
       last_error_code = %(error)s, delivered_at = CASE WHEN %(delivered)s THEN now() END,
       updated_at = now()
 WHERE delivery_id = %(id)s AND status = 'in_flight' AND claimed_until = %(fence)s
"""


@dataclass(frozen=True)
class Claim:
    delivery_id: uuid.UUID
    event_id: uuid.UUID
    subscription_id: uuid.UUID
    organization_id: uuid.UUID
    attempts: int
    claimed_until: datetime
    event_type: str
    data: dict
    occurred_at: datetime
    url: str
    enabled: bool
    secret_ciphertext: bytes
    secret_key_id: str
    wanted: bool = True  # the subscription still wants the event's type (it may have been changed since)

    def body(self) -> bytes:
        """The Standard Webhooks payload: type, timestamp (of the change) and data (ids, types, purposes)."""
        when = self.occurred_at.isoformat().replace("+00:00", "Z")
        return json.dumps({"type": self.event_type, "timestamp": when, "data": self.data},
                          separators=(",", ":"), sort_keys=True).encode()


@dataclass(frozen=True)
class Result:
    delivered: bool
    status_code: int | None = None
    error: str | None = None
    retry: bool = True


def _worker_transaction():
    if current_identity() is not None:
        raise RuntimeError("the delivery worker's statements never run inside an identity context")
    return transaction.atomic(durable=True)


def deliveries_claim(*, worker: str, limit: int, lease_seconds: float, per_subscription: int) -> list[Claim]:
    """Claim up to ``limit`` due deliveries of every organisation, at most ``per_subscription`` in flight for one
    subscription; commits before returning."""
    with _worker_transaction(), connection.cursor() as cursor:
        cursor.execute(_WORKER_SETTING, [worker])
        cursor.execute(_CLAIM_SQL, {"limit": limit, "lease": lease_seconds, "per_subscription": per_subscription})
        claims = [_claim(row) for row in cursor.fetchall()]
        cursor.execute(_WORKER_SETTING, [""])
    return claims


def _claim(row: tuple) -> Claim:
    (delivery_id, event_id, subscription_id, organization_id, attempts, claimed_until, event_type, data, occurred_at,
     url, enabled, ciphertext, key_id, wanted) = row
    # Django reads jsonb as text (its JSONField parses it): parse it here the same way
    return Claim(delivery_id=delivery_id, event_id=event_id, subscription_id=subscription_id,
                 organization_id=organization_id, attempts=attempts, claimed_until=claimed_until,
                 event_type=event_type, data=json.loads(data) if isinstance(data, str) else data,
                 occurred_at=occurred_at, url=url, enabled=enabled, secret_ciphertext=bytes(ciphertext),
                 secret_key_id=key_id, wanted=wanted)


def retry_delay(attempts: int) -> float:
    """Exponential backoff with jitter: half the capped exponential delay, plus up to the other half at random."""
    delay = min(settings.EVENT_DELIVERY_RETRY_MAX_SECONDS,
                settings.EVENT_DELIVERY_RETRY_BASE_SECONDS * 2 ** max(attempts - 1, 0))
    return delay / 2 + random.uniform(0, delay / 2)  # noqa: S311 (jitter, not a secret)


def delivery_record(*, worker: str, claim: Claim, result: Result) -> str | None:
    """Record one attempt's result; returns the delivery's new status, or None when the claim was lost."""
    if result.delivered:
        status, next_at = "delivered", claim.claimed_until
    elif result.retry and claim.attempts < settings.EVENT_DELIVERY_MAX_ATTEMPTS:
        status = "pending"
        next_at = None  # set below from the database's clock
    else:
        status, next_at = "failed", claim.claimed_until
    with _worker_transaction(), connection.cursor() as cursor:
        cursor.execute(_WORKER_SETTING, [worker])
        if next_at is None:
            cursor.execute("SELECT now() + make_interval(secs => %s)", [retry_delay(claim.attempts)])
            next_at = cursor.fetchone()[0]
        cursor.execute(_RECORD_SQL, {"status": status, "delivered": status == "delivered", "next": next_at,
                                     "http": result.status_code, "error": result.error, "id": claim.delivery_id,
                                     "fence": claim.claimed_until})
        recorded = cursor.rowcount == 1
        cursor.execute(_WORKER_SETTING, [""])
    return status if recorded else None


# --- one attempt (no database) ------------------------------------------------------------------------------------
def destination_allowed(host: str) -> bool | None:
    """Every address ``host`` resolves to is public, or the host is explicitly allowed; None when the name does not
    resolve (nothing is sent then: a look-up that fails here may not fail for the POST's own)."""
    if host in allowed_private_hosts():
        return True
    addresses = _addresses(host)
    if addresses is None:
        return None
    return bool(addresses) and all(public_address(address) for address in addresses)


def _addresses(host: str) -> list[ipaddress.IPv4Address | ipaddress.IPv6Address] | None:
    try:
        infos = socket.getaddrinfo(host, 443, type=socket.SOCK_STREAM)
    except OSError:
        return None
    return [ipaddress.ip_address(str(info[4][0]).split("%")[0]) for info in infos]


class DestinationNotAllowed(Exception):
    """The endpoint's name resolved, when the connection was made, to an address that is not public."""


def connect_addresses(host: str) -> list[str]:
    """The addresses a delivery's connection to ``host`` is made to, in turn: the name resolved here, every address
    it gives public. httpx would resolve the name again itself, and a name answering a public address to the check
    and 127.0.0.1 to that second look-up (DNS rebinding) took the POST inside. A host listed in
    ``EVENT_DELIVERY_ALLOWED_PRIVATE_HOSTS`` is connected to by its name, as before."""
    if host in allowed_private_hosts():
        return [host]
    addresses = _addresses(host)
    if addresses is None:
        raise httpcore.ConnectError("the endpoint's name does not resolve")  # retried, as a refused connection is
    if not addresses or not all(public_address(address) for address in addresses):
        raise DestinationNotAllowed()
    return list(dict.fromkeys(str(address) for address in addresses))  # once each (one per socket type asked)


@lru_cache(maxsize=4)
def _ssl_context(ca_bundle: str) -> ssl.SSLContext:
    """The system's trust store, or ``EVENT_DELIVERY_CA_BUNDLE`` when set (a private CA, the tests' receiver)."""
    return ssl.create_default_context(cafile=ca_bundle or None)


def http_client() -> httpx.Client:
    timeout = settings.EVENT_DELIVERY_TIMEOUT_SECONDS
    # the whole POST within the timeout, not each read: an endpoint dribbling its answer holds a thread no longer
    transport = DeadlineTransport(deadline=timeout, verify=_ssl_context(settings.EVENT_DELIVERY_CA_BUNDLE),
                                  trust_env=False, address_for=connect_addresses,
                                  limits=httpx.Limits(max_connections=settings.EVENT_DELIVERY_CONCURRENCY * 2))
    return httpx.Client(transport=transport, follow_redirects=False, trust_env=False, timeout=httpx.Timeout(timeout))


def attempt(client: httpx.Client, claim: Claim) -> Result:
    """POST the event once; the answer's body is never read. One trace per attempt (a producer span naming the
    event's type, never its ids or the endpoint), whose context the POST carries (``traceparent``)."""
    with tracing.span(f"webhook deliver {claim.event_type}", kind=SpanKind.PRODUCER,
                      attributes={"anamnesis.event.type": claim.event_type,
                                  "anamnesis.delivery.attempt": claim.attempts}) as span:
        result = _attempt(client, claim)
        if result.status_code is not None:
            span.set_attribute("http.response.status_code", result.status_code)
        if not result.delivered:
            tracing.failed(span, result.error or "error")
        return result


def _attempt(client: httpx.Client, claim: Claim) -> Result:
    if not claim.enabled:
        return Result(False, error="subscription_disabled", retry=False)
    if not claim.wanted:  # the administrator took the type off the subscription after the event was queued
        return Result(False, error="event_type_unsubscribed", retry=False)
    problem = url_problem(claim.url)  # one stored before a check it now fails can never be posted to
    if problem is not None:
        return Result(False, error="destination_not_allowed" if problem[0] == "destination_not_allowed"
                      else "invalid_url", retry=False)
    # The name httpx connects to, as it encodes it (IDNA 2008: "straße" is xn--strae-oqa), never as Python's codec
    # would (IDNA 2003: "strasse", another name, which may point somewhere else entirely).
    host = httpx.URL(claim.url).raw_host.decode("ascii")
    allowed = destination_allowed(host)
    if allowed is None:  # unresolvable: retried, as a refused connection is
        return Result(False, error="connect_error")
    if not allowed:
        return Result(False, error="destination_not_allowed", retry=False)
    try:
        secret = signing.decrypt_secret(claim.secret_ciphertext, key_id=claim.secret_key_id,
                                        subscription_id=claim.subscription_id,
                                        organization_id=claim.organization_id)
    except Exception:  # noqa: BLE001 (a missing key or a damaged ciphertext: nothing to sign with)
        return Result(False, error="secret_unreadable", retry=False)
    body = claim.body()
    headers = {**signing.headers(secret, msg_id=str(claim.event_id), timestamp=int(time.time()), body=body),
               **tracing.outgoing_headers()}
    try:
        with client.stream("POST", claim.url, content=body, headers=headers) as response:
            code = response.status_code
    except DestinationNotAllowed:
        return Result(False, error="destination_not_allowed", retry=False)
    except httpx.TimeoutException:
        return Result(False, error="timeout")
    except httpx.ConnectError:
        return Result(False, error="connect_error")
    except httpx.HTTPError:
        return Result(False, error="transport_error")
    if 200 <= code < 300:
        return Result(True, status_code=code)
    return Result(False, status_code=code, error="redirect_not_followed" if 300 <= code < 400 else "http_status")


# --- the loop ------------------------------------------------------------------------------------------------------
@dataclass
class Stats:
    claimed: int = 0
    delivered: int = 0
    retry_later: int = 0
    failed: int = 0
    lost_claims: int = 0
    errors: int = 0
    codes: dict[str, int] = field(default_factory=dict)

    def as_dict(self) -> dict:
        return {"claimed": self.claimed, "delivered": self.delivered, "retry_later": self.retry_later,
                "failed": self.failed, "lost_claims": self.lost_claims, "errors": self.errors,
                "codes": dict(sorted(self.codes.items()))}


class DeliveryWorker:
    """Keeps up to ``concurrency`` deliveries in flight, claiming more as each one ends."""

    def __init__(self, *, name: str | None = None, concurrency: int | None = None, lease_seconds: float | None = None,
                 poll_seconds: float | None = None, stop: threading.Event | None = None) -> None:
        self.name = name or f"{socket.gethostname()[:60]}:{os.getpid()}:events"
        self.concurrency = concurrency or settings.EVENT_DELIVERY_CONCURRENCY
        # one endpoint's share of the threads: a hung one (with a backlog) holds no more
        self.per_subscription = max(1, self.concurrency // 4)
        self.lease_seconds = lease_seconds or settings.EVENT_DELIVERY_LEASE_SECONDS
        if self.lease_seconds < 3 * settings.EVENT_DELIVERY_TIMEOUT_SECONDS:
            raise ValueError("EVENT_DELIVERY_LEASE_SECONDS must be at least three times the delivery timeout")
        self.poll_seconds = poll_seconds if poll_seconds is not None else settings.EVENT_DELIVERY_POLL_SECONDS
        self.stop = stop or threading.Event()
        self.stats = Stats()

    def run(self, *, until_idle: bool = False, max_seconds: float | None = None) -> Stats:
        deadline = time.monotonic() + max_seconds if max_seconds is not None else None
        inflight: dict[Future, Claim] = {}
        with http_client() as client, ThreadPoolExecutor(self.concurrency,
                                                         thread_name_prefix="event-delivery") as pool:
            while True:
                out_of_time = deadline is not None and time.monotonic() >= deadline
                claims: list[Claim] = []
                if not (self.stop.is_set() or out_of_time) and len(inflight) < self.concurrency:
                    claims = self._claim(self.concurrency - len(inflight))
                    for claim in claims:
                        inflight[pool.submit(attempt, client, claim)] = claim
                if not inflight:
                    if self.stop.is_set() or out_of_time or until_idle:
                        break
                    self.stop.wait(self.poll_seconds)
                    continue
                done, _ = wait(list(inflight), timeout=self.poll_seconds, return_when=FIRST_COMPLETED)
                for future in done:
                    claim = inflight.pop(future)
                    try:
                        result = future.result()
                    except Exception as exc:  # noqa: BLE001 (a bug in one attempt must not stop the others)
                        log.error("delivery %s: attempt failed (%s)", claim.delivery_id, type(exc).__name__)
                        result = Result(False, error="internal_error")
                    self._record(claim, result)
        return self.stats

    def _claim(self, limit: int) -> list[Claim]:
        try:
            claims = deliveries_claim(worker=self.name, limit=limit, lease_seconds=self.lease_seconds,
                                      per_subscription=self.per_subscription)
        except DatabaseError as exc:
            self.stats.errors += 1
            log.warning("could not claim deliveries (%s)", type(exc).__name__)
            return []
        self.stats.claimed += len(claims)
        return claims

    def _record(self, claim: Claim, result: Result) -> None:
        key = "delivered" if result.delivered else (result.error or "error")
        self.stats.codes[key] = self.stats.codes.get(key, 0) + 1
        try:
            status = delivery_record(worker=self.name, claim=claim, result=result)
        except DatabaseError as exc:
            self.stats.errors += 1
            log.warning("could not record delivery %s (%s); its lease will end", claim.delivery_id,
                        type(exc).__name__)
            return
        if status is None:
            self.stats.lost_claims += 1
            return
        self.stats.delivered += status == "delivered"
        self.stats.retry_later += status == "pending"
        self.stats.failed += status == "failed"
        log.log(logging.DEBUG if status == "delivered" else logging.INFO,
                "delivery %s event=%s type=%s attempt=%d status=%s http=%s error=%s", claim.delivery_id,
                claim.event_id, claim.event_type, claim.attempts, status, result.status_code, result.error)
