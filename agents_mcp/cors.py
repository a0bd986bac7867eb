"""CORS for ``/mcp``: what a browser MCP client (the MCP Inspector, an agent in a web page) needs to reach it from
an origin ``MCP_ALLOWED_ORIGINS`` lets in, and nothing for any other origin.

A browser asks first (an ``OPTIONS`` preflight: the calls send ``Authorization`` and the transport's headers) and
then reads an answer only if it names the page's origin. So a preflight from an allowed origin is answered ``204``
with the methods and request headers the Streamable HTTP transport uses, and every answer to such an origin names it
and exposes the headers a client reads (``Mcp-Session-Id``, ``WWW-Authenticate`` for the OAuth handshake, ...).
A preflight from another origin goes on to the endpoint, which answers ``405`` without any of them. Bearer tokens,
never cookies: no ``Access-Control-Allow-Credentials``.
"""

from __future__ import annotations

import re

from django.conf import settings
from starlette.datastructures import Headers

MCP_PATH = "/mcp"
# The protected-resource metadata (RFC 9728), which the TypeScript SDK asks for with an MCP-Protocol-Version header:
# a preflight too (it answers every origin with "*" itself, without one)
METADATA_PATH = "/.well-known/oauth-protected-resource"
ALLOW_METHODS = "GET, POST, DELETE"
ALLOW_HEADERS = ("Authorization, Content-Type, Accept, Mcp-Session-Id, MCP-Protocol-Version, Mcp-Method, Mcp-Name, "
                 "Last-Event-ID, X-Request-ID")
EXPOSE_HEADERS = "Mcp-Session-Id, MCP-Protocol-Version, WWW-Authenticate, X-Request-ID, Retry-After"
MAX_AGE_SECONDS = "600"


def origin_allowed(origin: str) -> bool:
    """Whether ``MCP_ALLOWED_ORIGINS`` names the origin: exactly, or as ``scheme://host:*`` with any port. An empty
    list lets no browser in (it switches the transport's Origin check off; CORS is not switched on by that)."""
    for allowed in settings.MCP_ALLOWED_ORIGINS:
        if origin == allowed:
            return True
        if allowed.endswith(":*") and re.fullmatch(re.escape(allowed[:-2]) + r":[0-9]{1,5}", origin):
            return True
    return False


class BrowserOrigins:
    def __init__(self, app) -> None:
        self.app = app

    async def __call__(self, scope, receive, send) -> None:
        origin = Headers(scope=scope).get("origin") if scope["type"] == "http" else None
        path = scope.get("path", "")
        if not origin or not (path == MCP_PATH or path.startswith(METADATA_PATH)) or not origin_allowed(origin):
            await self.app(scope, receive, send)
            return
        named = [(b"access-control-allow-origin", origin.encode("latin-1")), (b"vary", b"Origin")]
        if scope["method"] == "OPTIONS" and Headers(scope=scope).get("access-control-request-method"):
            await send({"type": "http.response.start", "status": 204, "headers": [
                *named, (b"access-control-allow-methods", ALLOW_METHODS.encode()),
                (b"access-control-allow-headers", ALLOW_HEADERS.encode()),
                (b"access-control-max-age", MAX_AGE_SECONDS.encode())]})
            await send({"type": "http.response.body", "body": b""})
            return

        async def sending(message):
            if message["type"] == "http.response.start":
                kept = [(k, v) for k, v in message.get("headers", [])
                        if k.lower() != b"access-control-allow-origin"]
                message = {**message, "headers": [
                    *kept, *named, (b"access-control-expose-headers", EXPOSE_HEADERS.encode())]}
            await send(message)

        await self.app(scope, receive, sending)
