"""What every API request passes before its handler runs, in the statement that sets its identity (no extra
round trip, no second transaction). A refusal is raised by PostgreSQL in that statement (``app_gate``), so the
transaction is aborted before any statement pipelined after it runs:

* **admission**: the token's ``org_id`` must be a registered organisation that trusts the token's issuer
  (``app_admit``), else 403 ``unknown_organization``. Read from the database on every request, never cached, so
  registering or removing an issuer takes effect on every node at once;
* **rate limits**: per token subject and per organisation, counted in fixed windows in ``api_rate_counter``
  (shared by every worker process and node); over the limit, 429 ``rate_limited`` with ``Retry-After``.

A refused or failed request rolls back with its transaction, hit included; a refusal by its handler (403, 404, 409,
and a malformed request's 400, 413 or 422) is counted again in a transaction of its own (``core.api``), the 403-409s
with their audit row, so that neither guessing ids nor a stream of invalid bodies escapes the limits.
"""

from __future__ import annotations

import functools
import hashlib
import hmac
import ipaddress
import logging
import math
import random
import time

import psycopg
from django.conf import settings
from django.db import DatabaseError, connection

from core.errors import RateLimited, UnknownOrganization
from core.identity import Identity

_HIT = ("INSERT INTO api_rate_counter AS c (bucket, window_number, backend, hits) VALUES {values} "
        "ON CONFLICT (bucket, window_number, backend) DO UPDATE SET hits = c.hits + 1")
_SUM = "(SELECT COALESCE(sum(hits), 0) FROM api_rate_counter WHERE bucket = %s AND window_number = %s)"
_SWEEP = "DELETE FROM api_rate_counter WHERE window_number < %s"
# Raised by app_gate (core migration 0014, cheap checks and the gate) in the statement that sets the
# identity: the transaction aborts there, before anything sent after it in the same pipeline can run or commit.
UNKNOWN_ORGANIZATION_SQLSTATE = "AN403"
RATE_LIMITED_SQLSTATE = "AN429"

log = logging.getLogger("anamnesis.gate")


@functools.lru_cache(maxsize=4096)
def _bucket(kind: str, *parts: str) -> str:
    """A keyed hash: the table never holds an organisation id or a subject. The same caller's bucket is the same
    on every request, so it is worked out once per process (a pure function of the secret key and the parts)."""
    return hmac.new(settings.SECRET_KEY.encode(), "|".join((kind, *parts)).encode(), hashlib.sha256).hexdigest()[:40]


class RequestGate:
    """``rate_limited=False``: admission only."""

    def __init__(self, identity: Identity, *, rate_limited: bool = True) -> None:
        self.identity = identity
        window = settings.API_RATE_LIMIT_WINDOW_SECONDS
        now = time.time()
        self.window_number = int(now // window)
        self.retry_after = math.ceil((self.window_number + 1) * window - now)
        self.limits: list[tuple[str, int]] = []
        if rate_limited and settings.API_RATE_LIMIT_PER_SUBJECT > 0:
            # an agent acting for a patient carries the patient's subject: it spends its own allowance, so a
            # looping agent never locks the patient (or another agent) out
            self.limits.append((_bucket("sub", str(identity.org_id), identity.issuer, identity.actor_sub,
                                        identity.agent_client_id or ""),
                                settings.API_RATE_LIMIT_PER_SUBJECT))
        if rate_limited and settings.API_RATE_LIMIT_PER_ORGANIZATION > 0:
            self.limits.append((_bucket("org", str(identity.org_id)), settings.API_RATE_LIMIT_PER_ORGANIZATION))

    def sql(self) -> tuple[str, list, str, list, str, list]:
        prefix, prefix_params, ctes = "", [], []
        if self.limits:
            ctes.append("hit AS (" + _HIT.format(values=", ".join(["(%s, %s, pg_backend_pid(), 1)"] * len(
                self.limits))) + ")")
            for bucket, _ in self.limits:
                prefix_params += [bucket, self.window_number]
            # Old windows are swept by a small share of requests (cheap: an indexed range of a small table).
            if random.random() < settings.API_RATE_LIMIT_SWEEP_SHARE:  # noqa: S311 (not security)
                ctes.append("swept AS (" + _SWEEP + ")")
                prefix_params.append(self.window_number - 1)
            prefix = "WITH " + ", ".join(ctes)
        # The hits counted so far in this window (this request's own is not among them: the CTE's insert is not
        # visible to the statement's sub-selects) must stay below each limit.
        within = " AND ".join(f"{_SUM} < %s" for _ in self.limits) or "true"
        columns = f", app_gate(%s::uuid, %s, {within})"
        column_params: list = [str(self.identity.org_id), self.identity.issuer]
        for bucket, limit in self.limits:
            column_params += [bucket, self.window_number, limit]
        return prefix, prefix_params, columns, column_params, "", []

    def refusal(self, sqlstate: str | None) -> Exception | None:
        """The answer for the gate's refusal in SQL (``app_gate``), or None for any other error."""
        if sqlstate == UNKNOWN_ORGANIZATION_SQLSTATE:
            return UnknownOrganization()
        if sqlstate == RATE_LIMITED_SQLSTATE:
            return RateLimited(self.retry_after)
        return None


def admitted(org_id: str, issuer: str) -> bool:
    """Whether ``org_id`` is registered and trusts ``issuer`` (``app_admit``; asked outside any identity)."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT app_admit(%s::uuid, %s)", [org_id, issuer])
        return bool(cursor.fetchone()[0])


def address_group(address: str) -> str:
    """The client address as limits count it: an IPv4 address as itself (an IPv4-mapped IPv6 address too), an
    IPv6 address by its /64, the least a site or a single host is given, so a client rotating through the addresses
    of its own /64 spends one allowance. Anything else (no address, a Unix socket) as it is."""
    try:
        parsed = ipaddress.ip_address(address.split("%")[0])
    except ValueError:
        return address
    if isinstance(parsed, ipaddress.IPv6Address):
        if parsed.ipv4_mapped is not None:
            return str(parsed.ipv4_mapped)
        return str(ipaddress.IPv6Network((parsed, 64), strict=False))
    return str(parsed)


@functools.lru_cache(maxsize=8)
def _proxy_networks(proxies: tuple[str, ...]) -> tuple[ipaddress.IPv4Network | ipaddress.IPv6Network, ...]:
    return tuple(ipaddress.ip_network(p, strict=False) for p in proxies)


def _hop(text: str) -> ipaddress.IPv4Address | ipaddress.IPv6Address | None:
    """One address of X-Forwarded-For (as some proxies write it: with a port, an IPv6 one in brackets), or None."""
    text = text.strip()
    if text.startswith("[") and "]" in text:
        text = text[1:text.index("]")]
    elif text.count(":") == 1:
        text = text.split(":")[0]
    try:
        parsed = ipaddress.ip_address(text)
    except ValueError:
        return None
    mapped = parsed.ipv4_mapped if isinstance(parsed, ipaddress.IPv6Address) else None
    return mapped or parsed


def client_address(peer: str | None, forwarded_for: str | None) -> str:
    """The client's address, as every limit counted per address takes it: the connection's peer (REMOTE_ADDR), or,
    when that peer is one of ``TRUSTED_PROXIES``, the address X-Forwarded-For names through trusted hops only.
    Each proxy appends the address it saw, so the header is read from its right end: the first address that is
    not a trusted proxy is the client; what lies left of it the client wrote itself and is never believed. An
    entry that is no address ends the reading at the last hop believed. No proxy is trusted by default: the
    header is then never read, so a client cannot name itself another address."""
    address = (peer or "").strip()
    networks = _proxy_networks(tuple(settings.TRUSTED_PROXIES))
    hop = _hop(address)
    if not networks or not forwarded_for or hop is None or not any(hop in net for net in networks):
        return address
    for entry in reversed(forwarded_for.split(",")):
        hop = _hop(entry)
        if hop is None:
            return address
        address = str(hop)
        if not any(hop in net for net in networks):
            return address
    return address


def request_client_address(meta) -> str:
    """:func:`client_address` of a WSGI request (Django's ``request.META``)."""
    return client_address(meta.get("REMOTE_ADDR"), meta.get("HTTP_X_FORWARDED_FOR"))


def hits_counted(buckets: list[tuple[str, ...]], *, window_seconds: int) -> tuple[list[int], int]:
    """One hit on each bucket in the current fixed window of ``window_seconds``, counted in ``api_rate_counter`` as
    the API's limits are (so shared by every worker and node), in one statement; returns each bucket's hits in the
    window so far, this one included, and the seconds until the window ends. For limits the API's gate does not
    keep (the portal's sign-in callbacks)."""
    now = time.time()
    window = int(now // window_seconds)
    window_end = (window + 1) * window_seconds
    # Rows are swept by the API's window numbers (older than its last window): a longer window is filed under the
    # API window its end falls in, so no sweep takes it before it ends; its own number is in the bucket's hash.
    window_number = window_end // settings.API_RATE_LIMIT_WINDOW_SECONDS
    keys = [_bucket("window", str(window_seconds), str(window), *parts) for parts in buckets]
    values = ", ".join(["(%s, %s, pg_backend_pid(), 1)"] * len(keys))
    sums = ", ".join([_SUM + " + 1"] * len(keys))
    params: list = []
    for key in keys:
        params += [key, window_number]
    ctes, sweep_params = f"hit AS ({_HIT.format(values=values)})", []
    # old windows swept by a share of these too, as by the API's requests (a portal-only service makes none)
    if random.random() < settings.API_RATE_LIMIT_SWEEP_SHARE:  # noqa: S311 (not security)
        ctes += f", swept AS ({_SWEEP})"
        sweep_params.append(int(now // settings.API_RATE_LIMIT_WINDOW_SECONDS) - 1)
    with connection.cursor() as cursor:
        # the data-modifying CTEs run though nothing reads them; the hit is not visible to the sums (hence + 1)
        cursor.execute(f"WITH {ctes} SELECT {sums}", params + sweep_params + params)
        counts = [int(count) for count in cursor.fetchone()]
    return counts, max(1, math.ceil(window_end - now))


# Addresses past their allowance of failed authentications, each with the end of its window: their failures are
# answered 429 at once by this process, without a counting statement, until then (at most _OVER_MAX remembered).
_OVER: dict[str, float] = {}
_OVER_MAX = 10_000


def failed_authentication_refused(address: str) -> RateLimited | None:
    """Count a failed authentication (a 401: no token, a bad or expired one; or a token of an organisation not
    registered for its issuer, 403) against the client's address (:func:`address_group`), in the shared counters:
    ``API_AUTH_FAILURES_PER_ADDRESS`` a window of ``API_RATE_LIMIT_WINDOW_SECONDS``. Past it, the 429 to answer
    instead (returned); None to answer the failure as it is. Only failures are counted and refused: a valid token
    sent from the same address (a hospital behind one NAT address) is served as ever, and spends its own limits.
    With the database unreachable the failure is answered as it is."""
    limit = settings.API_AUTH_FAILURES_PER_ADDRESS
    if limit <= 0:
        return None
    group = address_group(address or "unknown")
    now = time.time()
    until = _OVER.get(group)
    if until is not None and now < until:
        return RateLimited(math.ceil(until - now), "too many failed authentications from this address")
    try:
        (count,), retry_after = hits_counted([("auth-failure", "address", group)],
                                             window_seconds=settings.API_RATE_LIMIT_WINDOW_SECONDS)
    except (DatabaseError, psycopg.Error) as exc:
        log.warning("failed authentication not counted: %s", type(exc).__name__)
        return None
    if count <= limit:
        return None
    if len(_OVER) >= _OVER_MAX:
        for key in [key for key, ends in _OVER.items() if ends <= now] or list(_OVER)[:_OVER_MAX // 2]:
            del _OVER[key]
    _OVER[group] = now + retry_after
    return RateLimited(retry_after, "too many failed authentications from this address")
