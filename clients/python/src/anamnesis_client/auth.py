"""Token providers: where the bearer token comes from. Pass any object with ``get_token()`` (sync clients) and
``aget_token()`` (async clients), and ``invalidate()`` (called once after a 401 so a fresh token is tried)."""

from __future__ import annotations

import math
import threading
import time
import urllib.parse
from typing import Protocol, runtime_checkable

import anyio
import httpx

from anamnesis_client.errors import IdentityProviderUnavailable, InvalidToken, TransportError
from anamnesis_client.transport import parse_retry_after


@runtime_checkable
class TokenProvider(Protocol):
    def get_token(self) -> str: ...

    async def aget_token(self) -> str: ...

    def invalidate(self) -> None: ...


class StaticToken:
    """A token obtained elsewhere (e.g. handed to the agent by its launcher)."""

    def __init__(self, token: str) -> None:
        if not token:
            raise ValueError("an empty token")
        self._token = token

    def get_token(self) -> str:
        return self._token

    async def aget_token(self) -> str:
        return self._token

    def invalidate(self) -> None:
        """A static token cannot be renewed; the 401 is raised to the caller."""


class ClientCredentials:
    """OAuth 2.0 client credentials (RFC 6749 §4.4): a token from ``token_url`` for this client, cached until
    ``refresh_margin`` seconds before it expires. ``resource`` (RFC 8707) and ``audience`` are sent when given."""

    def __init__(self, token_url: str, client_id: str, client_secret: str, *, scope: str | None = None,
                 audience: str | None = None, resource: str | None = None, refresh_margin: float = 30.0,
                 timeout: float = 10.0) -> None:
        self.token_url = token_url
        self.client_id = client_id
        self._secret = client_secret
        self.scope, self.audience, self.resource = scope, audience, resource
        self.refresh_margin = refresh_margin
        self.timeout = timeout
        self._token: str | None = None
        self._expires_at = 0.0
        self._lock = threading.Lock()
        # anyio's: the running library's (asyncio or trio), and bound to no event loop, so one provider serves each
        # loop an agent framework runs its calls in (asyncio.Lock was bound to the first where two calls met)
        self._alock: anyio.Lock | None = None
        self.fetches = 0

    def _basic(self) -> tuple[str, str]:
        """The client's id and secret as HTTP Basic sends them: each form-urlencoded first (RFC 6749 §2.3.1), so a
        colon in the id or a percent sign in the secret reach the authorization server as they are."""
        return urllib.parse.quote(self.client_id, safe=""), urllib.parse.quote(self._secret, safe="")

    def _form(self) -> dict[str, str]:
        form = {"grant_type": "client_credentials"}
        for name in ("scope", "audience", "resource"):
            if getattr(self, name):
                form[name] = getattr(self, name)
        return form

    def _accept(self, response: httpx.Response) -> str:
        if response.status_code == 429 or response.status_code >= 500:
            # the authorization server is busy or down, which says nothing of the credentials: retryable
            raise IdentityProviderUnavailable(f"the token endpoint answered {response.status_code}",
                                              status=response.status_code,
                                              retry_after=parse_retry_after(response.headers.get("Retry-After")))
        if response.status_code != 200:
            raise InvalidToken(f"the token endpoint answered {response.status_code}", status=401)
        try:
            data = response.json()
        except ValueError:  # not JSON (a proxy's page): no token, as the TypeScript client reads it
            data = {}
        data = data if isinstance(data, dict) else {}
        token, kind = data.get("access_token"), data.get("token_type", "bearer")
        if not isinstance(token, str) or not token or not isinstance(kind, str) or kind.lower() != "bearer":
            raise InvalidToken("the token endpoint gave no bearer token", status=401)
        try:
            lifetime = float(data.get("expires_in", 300))
        except (TypeError, ValueError):  # null or not a number: the default lifetime
            lifetime = 300.0
        lifetime = lifetime if math.isfinite(lifetime) else 300.0
        self._token = token
        self._expires_at = time.monotonic() + lifetime - self.refresh_margin
        self.fetches += 1
        return token

    def _post(self) -> httpx.Response:
        """The token request, its whole answer within ``timeout``: httpx's bounds each read, so an answer trickling
        in a few bytes at a time held every call waiting for a token for as long as it went on."""
        deadline = time.monotonic() + self.timeout
        with httpx.stream("POST", self.token_url, data=self._form(), auth=self._basic(), timeout=self.timeout) as r:
            raw = bytearray()
            for chunk in r.iter_raw():
                raw += chunk
                if time.monotonic() > deadline:
                    raise httpx.ReadTimeout("the token endpoint's answer did not arrive whole in time")
        return httpx.Response(r.status_code, headers=r.headers, content=bytes(raw))

    def _fresh(self) -> str | None:
        return self._token if self._token and time.monotonic() < self._expires_at else None

    def get_token(self) -> str:
        with self._lock:
            if token := self._fresh():
                return token
            try:
                response = self._post()
            except httpx.HTTPError as exc:
                raise TransportError(f"token endpoint unreachable: {type(exc).__name__}") from None
            return self._accept(response)

    async def aget_token(self) -> str:
        if self._alock is None:
            self._alock = anyio.Lock()
        async with self._alock:
            if token := self._fresh():
                return token
            try:
                # the whole answer within ``timeout``, as in get_token
                with anyio.fail_after(self.timeout):
                    async with httpx.AsyncClient(timeout=self.timeout) as client:
                        response = await client.post(self.token_url, data=self._form(), auth=self._basic())
            except (httpx.HTTPError, TimeoutError) as exc:
                raise TransportError(f"token endpoint unreachable: {type(exc).__name__}") from None
            return self._accept(response)

    def invalidate(self) -> None:
        self._token = None
        self._expires_at = 0.0
