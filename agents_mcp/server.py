"""The MCP server: the official SDK's low-level ``Server`` over Streamable HTTP (stateless, JSON responses) and
stdio, an OAuth 2.1 protected resource (RFC 9728 metadata, ``401`` with ``WWW-Authenticate: Bearer
resource_metadata=...``).

Stateless Streamable HTTP: every POST carries its own bearer token and is answered on its own, so any worker of
any process can serve it (no session affinity, nothing kept between requests). Tool calls run the REST
operation in a worker thread (Django's ORM is synchronous).
"""

from __future__ import annotations

import json
import logging
import uuid
from contextvars import ContextVar
from urllib.parse import urlsplit

import anyio
import mcp_types as types
from django.conf import settings
from mcp.server import Server
from mcp.server.auth.middleware.auth_context import auth_context_var, get_access_token
from mcp.server.auth.middleware.bearer_auth import AuthenticatedUser
from mcp.server.auth.provider import AccessToken
from mcp.server.auth.routes import build_resource_metadata_url
from mcp.server.streamable_http_manager import StreamableHTTPASGIApp, StreamableHTTPSessionManager
from mcp.server.transport_security import TransportSecuritySettings
from mcp.shared.exceptions import MCPError
from pydantic import AnyHttpUrl
from rest_framework.exceptions import UnsupportedMediaType
from starlette.applications import Starlette
from starlette.authentication import AuthCredentials
from starlette.datastructures import Headers
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from agents_mcp.admission import admission_refused, failed_authentication_counted
from agents_mcp.calls import ScopeChallenge, error_problem, run_tool, unknown_tool
from agents_mcp.cors import BrowserOrigins
from agents_mcp.messages import (
    ParamsNamed,
    batch_messages,
    batch_refusal,
    insufficient_scope_answer,
    jsonrpc_refusal,
    rate_limited_answer,
    request_id_invalid,
    tool_calls_only,
)
from agents_mcp.tools import TOOLS, TOOLS_BY_NAME, input_schema, output_schema
from core.asgi_deadlines import replaying as _replaying
from core.authentication import bearer_token, identity_from_token, trusted_issuers
from core.errors import (
    ApiError,
    MissingToken,
    RateLimited,
    UnknownOrganization,
    problem_body,
)
from core.gate import client_address
from core.logging import request_id_var
from core.middleware import normalise_request_id
from core.parsers import check_body_coding
from core.permissions import SCOPES

log = logging.getLogger("anamnesis.mcp")

# The paths the MCP app answers (the rest of the service is Django's): the endpoint and the OAuth
# protected-resource metadata (RFC 9728).
MCP_PATH_PREFIXES = ("/mcp", "/.well-known/oauth-protected-resource")


def is_mcp_path(path: str) -> bool:
    return any(path == p or path.startswith(p + "/") for p in MCP_PATH_PREFIXES)


# Every scope a tool may need; published in the protected-resource metadata.
SCOPES_SUPPORTED = ["memory:read", "memory:write", "consent:read", "workflow:read", "workflow:write"]

# The scope challenges of the tool calls of the one message a POST carries (a batch's messages keep their own
# answers: none is kept there), filled by the tool handler, answered by BearerGuard.
_scope_challenges: ContextVar[list[ScopeChallenge] | None] = ContextVar("mcp_scope_challenges", default=None)


class BearerGuard:
    """The door of ``/mcp``: the REST API's own token validation (core.authentication.identity_from_token).

    An invalid token: ``401`` with ``WWW-Authenticate: Bearer error="invalid_token", resource_metadata="..."``
    (MCP authorization, RFC 9728 §5.1); none at all, the same without the error code (RFC 6750 §3.1); an
    unreachable key set: ``503 identity_provider_unavailable``, as over REST. Bodies are the REST API's problem
    documents. A valid token becomes the SDK's authenticated user, so tool handlers read it with
    ``get_access_token()``."""

    def __init__(self, app, metadata_url: str) -> None:
        self.app = app
        self.metadata_url = metadata_url

    async def __call__(self, scope, receive, send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        body = None
        if scope.get("method") != "POST":
            # Stateless, JSON responses: no server-initiated stream to listen to (GET would hold an idle event
            # stream open) and no session to end (DELETE); the transport allows 405 for both. Nothing else is
            # served either (PUT, PATCH...): the same answer.
            await _problem(scope, receive, send, problem_body(status_code=405, code="method_not_allowed",
                                                              title="Method not allowed"), {"Allow": "POST"})
            return
        if scope.get("method") == "POST":
            # As for the REST API: a body over MAX_REQUEST_BYTES is a 413 problem before anything else reads it
            # (whether or not it is authenticated, with or without Content-Length).
            body = await _body_within(scope, receive, settings.MAX_REQUEST_BYTES)
            if body is None:
                await _problem(scope, receive, send, problem_body(status_code=413, code="payload_too_large",
                                                                  title="The request body is too large"),
                               {"Connection": "close"})
                return
            receive = _replaying(body, receive)
            if Headers(scope=scope).get("accept") is None:
                # No Accept at all is any type (RFC 9110 12.5.1), as the REST API reads it; the transport, which
                # wants the ranges a client is told to send, answered 406 to a plain HTTP client that sent none
                scope = {**scope, "headers": [*scope.get("headers", []), (b"accept", b"*/*")]}
        try:
            token = bearer_token(Headers(scope=scope).get("authorization", "").encode("latin-1"))
            if token is None:
                raise MissingToken("send a Bearer access token")
            identity = await anyio.to_thread.run_sync(identity_from_token, token)
        except ApiError as exc:
            log.info("mcp bearer token refused: %s", exc.code)
            await self._refuse(scope, receive, send, exc, body)
            return
        counted = _unsupported_body(scope) is not None or not tool_calls_only(scope, body)
        if (refused := await anyio.to_thread.run_sync(admission_refused, identity, counted)) is not None:
            log.info("mcp bearer token refused: %s", refused.code)
            if isinstance(refused, RateLimited):
                await rate_limited_answer(body, refused, error_problem(refused))(scope, receive, send)
                return
            await self._refuse(scope, receive, send, refused, body)
            return
        if (refused := _unsupported_body(scope)) is not None:
            await _problem(scope, receive, send, problem_body(status_code=415, code="unsupported_media_type",
                                                              title="Send application/json", message=refused), {})
            return
        if (refusal := jsonrpc_refusal(scope, body)) is not None:
            await refusal(scope, receive, send)
            return
        access = AccessToken(token=token, client_id=identity.actor_sub, scopes=sorted(identity.scopes),
                             subject=identity.actor_sub, claims={"iss": identity.issuer})
        user = AuthenticatedUser(access)
        context = auth_context_var.set(user)
        try:
            scope = {**scope, "user": user, "auth": AuthCredentials(access.scopes)}
            batch = batch_messages(body) if body is not None else None
            if batch is not None and (refusal := batch_refusal(scope, batch)) is not None:
                await refusal(scope, receive, send)
            elif batch is not None:
                await self._batch(scope, receive, send, batch)
            else:
                await self._one(scope, receive, send, body, identity.scopes)
        finally:
            auth_context_var.reset(context)

    async def _one(self, scope, receive, send, body: bytes | None, held: frozenset[str]) -> None:
        """One message, answered by the app; but a tool call its token's scopes do not reach is HTTP 403 with the
        challenge (MCP 2025-11-25, authorization, runtime insufficient scope errors), not a tool result: a client
        steps up from that (asks its provider for the scopes named) and retries. The scopes named are the tool's
        with those the token holds, so a token asked for with them loses nothing."""
        challenges: list[ScopeChallenge] = []
        reset = _scope_challenges.set(challenges)
        answered = False

        async def sending(message) -> None:
            nonlocal answered
            if message["type"] == "http.response.start" and challenges:
                answered = True
                wanted = " ".join(sorted(challenges[0].needed | (held & SCOPES.keys())))
                await insufficient_scope_answer(body, challenges[0].body, (
                    f'Bearer error="insufficient_scope", scope="{wanted}", resource_metadata="{self.metadata_url}", '
                    'error_description="the token lacks a scope this tool needs"'))(scope, receive, send)
            if not answered:
                await send(message)

        try:
            await self.app(scope, receive, sending)
        finally:
            _scope_challenges.reset(reset)

    async def _batch(self, scope, receive, send, messages: list) -> None:
        """A JSON-RPC batch, which MCP 2025-03-26 (a version this server negotiates) lets a client post: each
        message is answered by the app as if posted alone, in order; the answers to its requests come back in one
        array, or ``202`` when it held only notifications and responses. The SDK refused every batch (400)."""
        await receive()  # the batch's own body, read already: what the app reads next is the client's
        answers = []
        for message in messages:
            raw = json.dumps(message).encode()
            if not isinstance(message, dict) or request_id_invalid(raw):
                answers.append({"jsonrpc": "2.0", "id": None, "error": {
                    "code": types.INVALID_REQUEST, "message": _NOT_A_MESSAGE}})
                continue
            headers = [(k, v) for k, v in scope["headers"] if k.lower() != b"content-length"]
            one = {**scope, "headers": [*headers, (b"content-length", str(len(raw)).encode())]}
            if (answer := await _answer_of(self.app, one, _replaying(raw, receive), message.get("id"))) is not None:
                answers.append(answer)
        if answers:
            await JSONResponse(answers)(scope, receive, send)
        else:
            await Response(status_code=202)(scope, receive, send)

    async def _refuse(self, scope, receive, send, exc: ApiError, body: bytes | None) -> None:
        if exc.status_code == 401 or isinstance(exc, UnknownOrganization):  # counted per address, as over REST
            forwarded_for = ",".join(Headers(scope=scope).getlist("x-forwarded-for")) or None
            address = client_address((scope.get("client") or ("",))[0], forwarded_for)
            if (limited := await anyio.to_thread.run_sync(failed_authentication_counted, address)) is not None:
                await rate_limited_answer(body, limited, error_problem(limited))(scope, receive, send)
                return
        headers = dict(getattr(exc, "headers", None) or {})  # a 503's Retry-After, as over REST
        # the scopes to ask for (MCP 2025-11-25, scope selection: a client takes the challenge's before the
        # metadata's scopes_supported)
        wanted = f'scope="{" ".join(SCOPES_SUPPORTED)}"'
        if isinstance(exc, MissingToken):  # no credentials: no error code (RFC 6750 section 3.1)
            headers["WWW-Authenticate"] = f'Bearer resource_metadata="{self.metadata_url}", {wanted}'
        elif exc.status_code == 401:
            headers["WWW-Authenticate"] = (f'Bearer error="invalid_token", error_description="{exc.code}", '
                                           f'resource_metadata="{self.metadata_url}", {wanted}')
        await _problem(scope, receive, send, error_problem(exc), headers)


class Answered:
    """Every answer of the MCP app as the API answers (see :func:`_with_response_headers`): the endpoint's, the
    metadata's, and what Starlette answers itself under their paths (a 404 for ``/mcp/anything``, a 405 for a POST
    to the metadata), which were plain text without a request id."""

    def __init__(self, app) -> None:
        self.app = app

    async def __call__(self, scope, receive, send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        scope, send, rid = _with_response_headers(scope, send)
        reset = request_id_var.set(rid)  # problem bodies carry the id the X-Request-ID header says
        try:
            await self.app(scope, receive, send)
        finally:
            request_id_var.reset(reset)


# The SDK's transport (and Starlette's routing) refuses some requests in plain text: they become problem documents,
# as everything else.
_TRANSPORT_CODES = {400: "bad_request", 403: "origin_not_allowed", 404: "not_found", 405: "method_not_allowed",
                    406: "not_acceptable", 413: "payload_too_large", 415: "unsupported_media_type",
                    421: "host_not_allowed"}


def _with_response_headers(scope, send):
    """As the REST API answers: an ``X-Request-ID`` (the caller's when sane, the one the tools' audit rows carry),
    ``Cache-Control: no-store`` (tool results hold personal data) and ``nosniff``, on every response. A refusal
    the SDK's transport answers in plain text becomes a problem document; a JSON-RPC error whose message is a
    validation library's dump gets one line instead (it named the library's types and linked its site)."""
    rid = normalise_request_id(Headers(scope=scope).get("x-request-id"))
    headers = [(k, v) for k, v in scope.get("headers", []) if k.lower() != b"x-request-id"]
    scope = {**scope, "headers": [*headers, (b"x-request-id", rid.encode())]}
    extra = [(b"x-request-id", rid.encode()), (b"cache-control", b"no-store"), (b"x-content-type-options", b"nosniff")]
    held: dict = {}

    async def start(message):
        names = {k.lower() for k, _ in message.get("headers", [])}
        await send({**message, "headers": [*message.get("headers", []),
                                           *[(k, v) for k, v in extra if k not in names]]})

    async def sending(message):
        if message["type"] == "http.response.start" and message["status"] >= 400:
            held.update(start=message, body=b"")  # rewritten once the whole body is known
            return
        if message["type"] == "http.response.body" and held:
            held["body"] += message.get("body", b"")
            if message.get("more_body", False):
                return
            status, body, content_type = _readable_refusal(held["start"], held["body"], rid, _slash_hint(scope))
            kept = [(k, v) for k, v in held["start"].get("headers", [])
                    if k.lower() not in (b"content-length", b"content-type")]
            await start({**held["start"], "status": status, "headers": [
                *kept, (b"content-type", content_type), (b"content-length", str(len(body)).encode())]})
            await send({"type": "http.response.body", "body": body, "more_body": False})
            held.clear()
            return
        if message["type"] == "http.response.start":
            await start(message)
            return
        await send(message)

    return scope, sending, rid


_NOT_A_MESSAGE = "Invalid request: not a JSON-RPC 2.0 request, notification or response"


# What a 404 says when the path has a trailing slash the endpoint has not (as over REST: core.health.not_found)
_SLASH_HINT = "This path is served without its trailing slash: send the request to the path without it"


def _slash_hint(scope) -> str | None:
    path = scope.get("path", "")
    if not path.endswith("/"):
        return None
    served = ("/mcp", "/.well-known/oauth-protected-resource",
              "/.well-known/oauth-protected-resource" + urlsplit(resource_url()).path.rstrip("/"))
    return _SLASH_HINT if path[:-1] in served else None


def _readable_refusal(start: dict, body: bytes, rid: str, hint: str | None = None) -> tuple[int, bytes, bytes]:
    status = start["status"]
    content_type = dict((k.lower(), v) for k, v in start.get("headers", [])).get(b"content-type", b"")
    if b"json" in content_type:
        try:
            message = json.loads(body)
        except ValueError:
            return status, body, content_type
        error = message.get("error") if isinstance(message, dict) else None
        if isinstance(error, dict) and str(error.get("message", "")).startswith("Validation error:"):
            # JSON that is no JSON-RPC message is an invalid request (-32600), not invalid parameters
            error["code"] = types.INVALID_REQUEST
            error["message"] = _NOT_A_MESSAGE
            return status, json.dumps(message).encode(), content_type
        return status, body, content_type
    code = _TRANSPORT_CODES.get(status, "bad_request")
    text = body.decode("utf-8", "replace").strip()[:200] or code.replace("_", " ").capitalize()
    problem = {**problem_body(status_code=status, code=code, title=text,
                              message=hint if status == 404 and hint else None), "request_id": rid}
    return status, json.dumps(problem).encode(), b"application/problem+json"


async def _problem(scope, receive, send, body: dict, headers: dict[str, str]) -> None:
    response = JSONResponse(body, status_code=body["status"], headers=headers, media_type="application/problem+json")
    await response(scope, receive, send)


async def _body_within(scope, receive, limit: int) -> bytes | None:
    """The whole request body, or None as soon as it is known to be over ``limit`` bytes."""
    declared = Headers(scope=scope).get("content-length")
    if declared is not None and declared.isdigit() and int(declared) > limit:
        return None
    chunks, size = [], 0
    while True:
        message = await receive()
        if message["type"] != "http.request":
            break  # the client went away; the app will see the disconnect
        chunks.append(message.get("body", b""))
        size += len(chunks[-1])
        if size > limit:
            return None
        if not message.get("more_body", False):
            break
    return b"".join(chunks)


def _unsupported_body(scope) -> str | None:
    """Why the body is not one the REST API would read (415 ``unsupported_media_type`` there too): not
    ``application/json``, or a charset other than UTF-8 or a content coding (the SDK took a Latin-1 body as UTF-8,
    answered a gzip one as a parse error and any other media type as 400 bad_request)."""
    headers = Headers(scope=scope)
    content_type = headers.get("content-type", "")
    if content_type.split(";")[0].strip().lower() != "application/json":
        return "Send application/json"
    try:
        check_body_coding(content_type, headers.get("content-encoding"))
    except UnsupportedMediaType as exc:
        return getattr(exc, "problem_message", "Send application/json")
    return None


async def _answer_of(app, scope, receive, message_id) -> dict | None:
    """The app's JSON-RPC answer to one message of a batch (None for a notification or a response: 202)."""
    started: dict = {}
    chunks: list[bytes] = []

    async def capture(message) -> None:
        if message["type"] == "http.response.start":
            started.update(message)
        elif message["type"] == "http.response.body":
            chunks.append(message.get("body", b""))

    await app(scope, receive, capture)
    body = b"".join(chunks)
    if started.get("status", 500) >= 400:
        _, body, _ = _readable_refusal(started, body, request_id_var.get())
    try:
        answer = json.loads(body) if body else None
    except ValueError:
        answer = None
    if isinstance(answer, dict) and answer.get("jsonrpc") == "2.0":
        return answer
    if started.get("status") == 202 and not body:
        return None
    return {"jsonrpc": "2.0", "id": message_id, "error": {"code": types.INTERNAL_ERROR,
                                                          "message": "Internal error: the message was not answered"}}


def _problem_result(body: dict) -> types.CallToolResult:
    return types.CallToolResult(content=[types.TextContent(type="text", text=json.dumps(body))],
                                structured_content=body, is_error=True)


def _ok_result(body: dict) -> types.CallToolResult:
    return types.CallToolResult(content=[types.TextContent(type="text", text=json.dumps(body, default=str))],
                                structured_content=body)


def _request_meta(ctx) -> tuple[str, str | None]:
    request = getattr(ctx, "request", None)
    headers = getattr(request, "headers", None) or {}
    host = headers.get("host") or settings.MCP_INTERNAL_HOST
    return host, headers.get("x-request-id")


def build_server(token_source=None) -> Server:
    """``token_source``: where the bearer token comes from (stdio: the environment); HTTP: the request's own."""

    async def list_tools(ctx, params) -> types.ListToolsResult:
        if params is not None and params.cursor is not None:
            # one page, no nextCursor: any cursor is one this server never gave (MCP pagination: -32602)
            raise MCPError(types.INVALID_PARAMS, "Invalid params: unknown cursor (the tool list is one page)")
        tools = [types.Tool(name=t.name, description=t.description, input_schema=input_schema(t.name),
                            output_schema=output_schema(t.name),
                            annotations=types.ToolAnnotations(
                                read_only_hint=t.read_only, destructive_hint=t.destructive,
                                idempotent_hint=t.idempotent_hint, open_world_hint=t.open_world))
                 for t in TOOLS]
        return types.ListToolsResult(tools=tools)

    async def call_tool(ctx, params: types.CallToolRequestParams) -> types.CallToolResult:
        access = get_access_token()
        token = access.token if access is not None else (token_source() if token_source else None)
        if not token:
            return _problem_result(problem_body(status_code=401, code="invalid_token", title="No access token"))
        if params.name not in TOOLS_BY_NAME:
            raise await anyio.to_thread.run_sync(unknown_tool, params.name, token)
        host, request_id = _request_meta(ctx)
        request_id = request_id or str(uuid.uuid4())
        try:
            ok, body = await anyio.to_thread.run_sync(
                lambda: run_tool(params.name, dict(params.arguments or {}), token=token, host=host,
                                 request_id=request_id))
        except ScopeChallenge as challenge:  # HTTP 403 for a POST of this one call (BearerGuard), else a tool error
            if (pending := _scope_challenges.get()) is not None:
                pending.append(challenge)
            return _problem_result(challenge.body)
        return _ok_result(body) if ok else _problem_result(body)

    server = Server("anamnesis", version="1.0.0",
                    instructions="Governed patient memory. Agents propose memories; patients or staff confirm them. "
                                 "Acting for one patient (your token names them), leave patient_id out: results "
                                 "show the patient as [patient], never their identifier. Refusals are tool errors "
                                 "whose structured content is an RFC 9457 problem with a stable `code`.",
                    on_list_tools=list_tools, on_call_tool=call_tool)
    server.middleware.append(ParamsNamed())
    return server


def resource_url() -> str:
    return settings.MCP_RESOURCE_URL


async def protected_resource_metadata(request) -> JSONResponse:
    """RFC 9728 metadata. Written out rather than through the SDK's model, which would append a slash to the
    issuer (issuer identifiers are compared as exact strings)."""
    # every issuer the service takes tokens from (OIDC_TRUSTED_ISSUERS): OIDC_ISSUER alone is its development
    # default (127.0.0.1:8001) in a deployment that names its providers there
    return JSONResponse({"resource": resource_url(), "authorization_servers": list(trusted_issuers()),
                         "scopes_supported": SCOPES_SUPPORTED, "bearer_methods_supported": ["header"],
                         "resource_name": "Anamnesis MCP server"},
                        headers={"Access-Control-Allow-Origin": "*", "Cache-Control": "max-age=3600"})


def build_app() -> Answered:
    """The Starlette app serving ``/mcp`` and the protected-resource metadata (at the RFC 9728 path for the
    ``/mcp`` resource and at the bare ``/.well-known/oauth-protected-resource``), answering as the API does."""
    server = build_server()
    security = TransportSecuritySettings(
        enable_dns_rebinding_protection=bool(settings.MCP_ALLOWED_HOSTS),
        allowed_hosts=list(settings.MCP_ALLOWED_HOSTS), allowed_origins=list(settings.MCP_ALLOWED_ORIGINS))
    manager = StreamableHTTPSessionManager(app=server, json_response=True, stateless=True,
                                           security_settings=security)
    url = resource_url()
    metadata_url = str(build_resource_metadata_url(AnyHttpUrl(url)))
    metadata_path = "/" + metadata_url.split("/", 3)[3]
    routes = [
        Route("/mcp", endpoint=BearerGuard(StreamableHTTPASGIApp(manager), metadata_url)),
        Route(metadata_path, endpoint=protected_resource_metadata, methods=["GET"]),
        Route("/.well-known/oauth-protected-resource", endpoint=protected_resource_metadata, methods=["GET"]),
    ]
    app = Starlette(routes=routes, lifespan=lambda app: manager.run())
    # Starlette answers '/mcp/' with a redirect to '/mcp' on the Host the request named, before the transport's
    # host check: 'Host: evil.example' was sent to http://evil.example/mcp. The REST API's trailing slash is 404;
    # so is this one
    app.router.redirect_slashes = False
    return Answered(BrowserOrigins(app))
