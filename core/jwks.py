"""The identity provider's key set (JWKS), fetched over HTTP and cached: :class:`KeySetCache`.

Token validation (:mod:`core.authentication`) asks it for the keys of a token's key id; how long a set is kept,
refreshed and served through the provider's outage is decided here."""

from __future__ import annotations

import json
import logging
import threading
import time
from dataclasses import dataclass

import httpx
import jwt
from django.conf import settings

from core.http_deadline import DeadlineTransport

log = logging.getLogger("anamnesis.auth")


class KeySetUnavailable(Exception):
    pass


class UnknownKey(Exception):
    pass


@dataclass
class _CachedSet:
    # the keys of each key id: usually one, but RFC 7517 4.5 lets keys of different types share an id
    keys: dict[str, tuple[jwt.PyJWK, ...]]
    fetched_at: float
    published: dict[str, jwt.PyJWK]  # each key by how it was published (canonical JSON): an unchanged key is kept


class KeySetCache:
    """A thread-safe JWKS cache with a bounded refetch rate, that keeps serving through an identity provider's outage.

    * The set is fresh for ``ttl`` seconds. Then the first caller refreshes it while every other caller goes on with
      the set it has: one fetch at a time, and nobody waits for it except a caller that has no usable set at all.
    * A refresh that fails keeps the set it would have replaced, for up to ``stale_for`` seconds past its ``ttl``,
      retried at most once per ``min_refetch``: tokens signed by keys the provider published a moment ago are not
      turned into 503s because its JWKS endpoint is down for a few minutes (and a down endpoint is not asked on
      every request, each waiting for its timeout). Past that, or with no set at all, the outage is the caller's
      503 (``KeySetUnavailable``); a failure is answered as such, without asking again, for a second.
    * A token naming a key id the set lacks makes one refetch, at most once per ``min_refetch`` (random key ids
      cannot turn us into a fetch amplifier). Callers wait for a fetch under way only while the provider answered
      the last one: once it failed, they are answered at once (:meth:`_await_fetch`).
    * A refreshed set keeps the very key objects of the keys the provider still publishes unchanged, so tokens
      verified with them stay remembered (:class:`VerifiedTokens` holds a token only while its key object is in
      the set); a key withdrawn or changed ends them at the refresh.
    """

    FAILURE_ANSWERED_FOR = 1.0

    def __init__(self, url: str, *, ttl: float, min_refetch: float, timeout: float, stale_for: float = 0.0):
        self.url = url
        self.config = (url, ttl, min_refetch, timeout, stale_for)
        self.ttl = ttl
        self.min_refetch = min_refetch
        self.timeout = timeout
        self.stale_for = stale_for
        self._fetching = threading.Lock()  # one fetch at a time; readers never take it while a set is usable
        self._cached: _CachedSet | None = None
        self._last_attempt = float("-inf")
        self._failed_at = float("-inf")
        self._failing = False  # the last fetch failed: one under way now is not waited for

    @staticmethod
    def configured(url: str, *, timeout: float) -> tuple:
        """The settings a cache of ``url`` takes now, as its ``config`` holds them (a changed setting makes a new
        cache)."""
        return (url, settings.OIDC_JWKS_CACHE_SECONDS, settings.OIDC_JWKS_MIN_REFETCH_SECONDS, timeout,
                settings.OIDC_JWKS_STALE_SECONDS)

    @classmethod
    def from_config(cls, config: tuple) -> KeySetCache:
        url, ttl, min_refetch, timeout, stale_for = config
        return cls(url, ttl=ttl, min_refetch=min_refetch, timeout=timeout, stale_for=stale_for)

    def clear(self) -> None:
        with self._fetching:
            self._cached = None
            self._last_attempt = self._failed_at = float("-inf")
            self._failing = False

    def get(self, kid: str | None, alg: str | None = None) -> jwt.PyJWK:
        """The key of id ``kid`` for a token signed with ``alg`` (see :meth:`candidates`)."""
        return self.candidates(kid, alg)[0]

    def candidates(self, kid: str | None, alg: str | None = None) -> tuple[jwt.PyJWK, ...]:
        """The keys published under ``kid``, those of algorithm ``alg`` first (a key id alone named one of them,
        the last published, and the others' tokens were refused); refetched once for an id the set lacks."""
        keys = _lookup(self._current(), kid, alg)
        if not keys:
            keys = _lookup(self._refetched_for_unknown_key(), kid, alg)
        if not keys:
            raise UnknownKey()
        return keys

    def _current(self) -> _CachedSet:
        cached = self._cached
        now = time.monotonic()
        if cached is not None and now - cached.fetched_at <= self.ttl:
            return cached
        if cached is not None and now - cached.fetched_at <= self.ttl + self.stale_for:
            # due for a refresh but still usable: refresh it, unless that failed a moment ago or is under way
            if now - self._failed_at < self.min_refetch or not self._fetching.acquire(blocking=False):
                return cached
            try:
                return self._refresh()
            except KeySetUnavailable:
                log.warning("serving the JWKS fetched %d s ago until its provider answers", now - cached.fetched_at)
                return cached
            finally:
                self._fetching.release()
        if not self._await_fetch():
            raise KeySetUnavailable()  # the provider failed when last asked and is being asked again
        try:  # nothing usable: wait for a fetch under way, or make one
            cached = self._cached
            now = time.monotonic()
            if cached is not None and now - cached.fetched_at <= self.ttl:
                return cached  # another caller fetched it while this one waited
            if now - self._failed_at < self.FAILURE_ANSWERED_FOR:
                raise KeySetUnavailable()
            return self._refresh()
        finally:
            self._fetching.release()

    def _refetched_for_unknown_key(self) -> _CachedSet:
        cached = self._cached
        if not self._await_fetch():
            if cached is None:
                raise KeySetUnavailable()
            return cached  # the provider failed when last asked and is being asked again: its answer is not awaited
        try:
            cached = self._cached
            if cached is not None and time.monotonic() - self._last_attempt < self.min_refetch:
                return cached  # fetched a moment ago (perhaps by another caller for this very key)
            return self._refresh()
        finally:
            self._fetching.release()

    def _await_fetch(self) -> bool:
        """Take the fetch lock, waiting for a fetch under way, unless the provider failed when last asked: then
        only if no fetch is under way (False otherwise). A provider that does not answer holds each fetch until its
        deadline (twice OIDC_JWKS_TIMEOUT_SECONDS); anyone could send tokens naming random key ids to queue every
        worker thread behind it, and the answer they waited for was the failure they would have had at once."""
        if self._failing:
            return self._fetching.acquire(blocking=False)
        self._fetching.acquire()
        return True

    def _refresh(self) -> _CachedSet:
        """Fetch the set (the caller holds ``_fetching``) and keep it, or raise KeySetUnavailable."""
        self._last_attempt = time.monotonic()
        try:
            # the whole fetch within its connect and read timeouts, however slowly the provider answers: callers
            # with no usable set (or a new key id) wait for it
            with httpx.Client(transport=DeadlineTransport(deadline=2 * self.timeout), timeout=self.timeout,
                              follow_redirects=False) as client, client.stream("GET", self.url) as response:
                response.raise_for_status()
                data = json.loads(_bounded_body(response))
            if not isinstance(data, dict) or not isinstance(data.get("keys"), list):
                raise KeySetMalformed()  # no key set at all, unlike a set of keys we cannot use
        except (httpx.HTTPError, ValueError) as exc:
            self._failed_at = time.monotonic()
            self._failing = True
            log.warning("JWKS fetch failed: %s", type(exc).__name__)
            raise KeySetUnavailable() from None
        previous = self._cached
        keys: dict[str, tuple[jwt.PyJWK, ...]] = {}
        published: dict[str, jwt.PyJWK] = {}
        for raw in data["keys"]:
            if not isinstance(raw, dict) or raw.get("use", "sig") != "sig":
                continue
            kid = str(raw.get("kid", ""))
            as_published = json.dumps(raw, sort_keys=True)
            key = previous.published.get(as_published) if previous is not None else None
            if key is None:
                try:
                    key = jwt.PyJWK(raw)
                except (jwt.PyJWTError, NotImplementedError, KeyError, ValueError, TypeError, AttributeError):
                    # a key type or algorithm we do not support, or a key PyJWT cannot read (a field missing or of
                    # another type: it raises the built-in errors for those, and NotImplementedError for "alg":
                    # "none")
                    continue
            if as_published not in published:
                keys[kid] = (*keys.get(kid, ()), key)
                published[as_published] = key
        self._cached = _CachedSet(keys=keys, fetched_at=time.monotonic(), published=published)
        self._failing = False
        return self._cached


# A key set is a few kilobytes (a handful of keys, with certificate chains a few tens): more is no key set, and an
# answer read whole would let a provider that sends without end fill the worker's memory until its deadline (about
# 300 MB a second here).
MAX_KEY_SET_BYTES = 256 * 1024


class KeySetTooLarge(ValueError):
    pass


class KeySetMalformed(ValueError):
    pass


def _bounded_body(response: httpx.Response) -> bytes:
    body = bytearray()
    for chunk in response.iter_bytes():
        body += chunk
        if len(body) > MAX_KEY_SET_BYTES:
            raise KeySetTooLarge()
    return bytes(body)


def _lookup(cached: _CachedSet, kid: str | None, alg: str | None) -> tuple[jwt.PyJWK, ...]:
    if kid is None:
        # Only unambiguous when the provider publishes a single signing key.
        keys = tuple(cached.published.values())
        return keys if len(keys) == 1 else ()
    keys = cached.keys.get(kid, ())
    return tuple(sorted(keys, key=lambda key: key.algorithm_name != alg))  # stable: the set's order otherwise
