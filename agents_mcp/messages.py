"""JSON-RPC messages as the MCP door reads them before the SDK does: a batch's messages, a request's id, and the
refusals of a message the SDK would misread."""

from __future__ import annotations

import json

from mcp import types
from mcp.shared.exceptions import MCPError
from mcp_types.version import SUPPORTED_PROTOCOL_VERSIONS
from pydantic import ValidationError
from starlette.datastructures import Headers
from starlette.responses import JSONResponse

from core.errors import RateLimited
from core.negotiation import refuses
from core.parsers import has_repeated_keys

# A batch's messages are answered one after another on one request's thread: a bound on how long it holds it.
MAX_BATCH_MESSAGES = 20
# MCP 2025-06-18 took JSON-RPC batches out of the protocol (a POST carries one message); earlier versions allow them.
BATCHES_LAST_VERSION = "2025-03-26"


def jsonrpc_refusal(scope, body: bytes | None) -> JSONResponse | None:
    """The JSON-RPC error for a message the SDK would misread, or ``None``: a protocol version it does not speak
    (the SDK sends one it does not know down the 2026 path, whose refusal talks of a "_meta envelope" to a client
    that never heard of one; the transport's rule is a 400 saying what is spoken), a key twice in one object (as
    the REST API's parser: which counts is not guessed, the SDK keeps the last), an id neither string nor
    integer."""
    accept = Headers(scope=scope).get("accept")
    if scope.get("method") == "POST" and accept is not None and refuses(accept, "application/json"):
        # as the transport's own 406 (it reads Accept's ranges, never their q): application/json;q=0 was served
        return JSONResponse({"jsonrpc": "2.0", "id": None, "error": {
            "code": types.INVALID_REQUEST, "message": "Not Acceptable: Client must accept application/json"}},
            status_code=406)
    if (version := Headers(scope=scope).get("mcp-protocol-version")) is not None and (
            version not in SUPPORTED_PROTOCOL_VERSIONS):
        supported = list(SUPPORTED_PROTOCOL_VERSIONS)
        return JSONResponse({"jsonrpc": "2.0", "id": message_id(body), "error": {
            "code": types.UNSUPPORTED_PROTOCOL_VERSION, "data": {"supported": supported, "requested": version[:64]},
            "message": f"Unsupported protocol version (MCP-Protocol-Version): supported versions are "
                       f"{', '.join(supported)}"}}, status_code=400)
    if body is not None and has_repeated_keys(body):
        return JSONResponse({"jsonrpc": "2.0", "id": None, "error": {
            "code": types.PARSE_ERROR, "message": "Parse error: a key appears twice in one object"}}, status_code=400)
    if body is not None and request_id_invalid(body):
        return JSONResponse({"jsonrpc": "2.0", "id": None, "error": {
            "code": types.INVALID_REQUEST, "message": "Invalid request: the id must be a string or an integer"}},
            status_code=400)
    return None


def batch_messages(raw: bytes) -> list | None:
    """The messages of a JSON-RPC batch (a non-empty array), or None for anything else."""
    try:
        message = json.loads(raw)
    except (ValueError, RecursionError):
        return None
    return message if isinstance(message, list) and message else None


def batch_refusal(scope, batch: list) -> JSONResponse | None:
    """The JSON-RPC error for a batch the negotiated version does not allow, or ``None``: after 2025-03-26 (the
    ``MCP-Protocol-Version`` header names the version; without it a server assumes 2025-03-26), or holding more
    than :data:`MAX_BATCH_MESSAGES` messages."""
    version = Headers(scope=scope).get("mcp-protocol-version")
    if version is not None and version > BATCHES_LAST_VERSION:  # the versions are dates: their text sorts as they do
        message = (f"Invalid request: MCP {version} takes one JSON-RPC message per POST; batches ended with "
                   f"{BATCHES_LAST_VERSION}")
    elif len(batch) > MAX_BATCH_MESSAGES:
        message = f"Invalid request: a batch holds at most {MAX_BATCH_MESSAGES} messages"
    else:
        return None
    return JSONResponse({"jsonrpc": "2.0", "id": None, "error": {"code": types.INVALID_REQUEST, "message": message}},
                        status_code=400)


def message_id(raw: bytes | None) -> str | int | None:
    """The id of the one request posted, when it has a usable one (a refusal of the whole POST answers it)."""
    try:
        message = json.loads(raw) if raw else None
    except (ValueError, RecursionError):
        return None
    ident = message.get("id") if isinstance(message, dict) else None
    return ident if isinstance(ident, str | int) and not isinstance(ident, bool) else None


def request_id_invalid(raw: bytes) -> bool:
    """A request (a message naming a method) whose ``id`` is there but neither a string nor an integer (MCP: never
    null, nor 7.0; no object, list or boolean). The SDK would take it for a notification: ``202``, and
    the call never runs, with nothing to tell the caller so. Malformed JSON is the SDK's to answer."""
    try:
        message = json.loads(raw)
    except (ValueError, RecursionError):
        return False
    if not isinstance(message, dict) or "method" not in message or "id" not in message:
        return False
    return isinstance(message["id"], bool) or not isinstance(message["id"], str | int)


class ParamsNamed:
    """Server middleware: a request's params that the SDK's own check refuses (``initialize`` without
    ``protocolVersion``, a ``tools/call`` whose ``arguments`` is a list or which names no tool) were -32602 with
    empty ``data``, leaving the client to guess what was wrong. The error names each parameter, in ``data.errors``
    shaped as a tool's argument errors are (``field``, ``message``, ``code``), and in its message."""

    async def __call__(self, ctx, call_next):
        try:
            return await call_next(ctx)
        except ValidationError as exc:
            errors = params_errors(exc)
            if not errors:
                raise  # not the request's params (the SDK answers it as before)
            named = ", ".join(f"{e['field']} ({e['code']})" for e in errors)
            raise MCPError(types.INVALID_PARAMS, f"Invalid request parameters: {named}",
                           data={"errors": errors}) from None


# worded as a tool's argument errors are (core.serializers.schema_error_message), never pydantic's own text
_PARAM_CODES = {"missing": ("required", "This field is required."),
                "extra_forbidden": ("unknown_field", "Unknown field."),
                "dict_type": ("invalid", "must be an object"), "model_type": ("invalid", "must be an object"),
                "string_type": ("invalid", "must be a string"), "list_type": ("invalid", "must be an array"),
                "int_type": ("invalid", "must be an integer"), "int_parsing": ("invalid", "must be an integer"),
                "bool_type": ("invalid", "must be a boolean")}


def params_errors(exc: ValidationError) -> list[dict]:
    """The refused params of a request, or an empty list when anything refused is not among them."""
    errors = []
    for error in exc.errors(include_url=False, include_input=False):
        loc = error.get("loc", ())
        if not loc or loc[0] != "params":
            return []
        code, message = _PARAM_CODES.get(error.get("type"), ("invalid", "not valid here"))
        errors.append({"field": ".".join(str(part) for part in loc[1:]) or "params", "message": message,
                       "code": code})
    return list({(e["field"], e["code"]): e for e in errors}.values())[:20]


def tool_calls_only(scope, body: bytes | None) -> bool:
    """Whether every message posted is a tools/call request the SDK will hand to the server's ``call_tool`` (a
    request the door or the SDK refuses before that is no tool call: it is counted at the door, as is one whose
    body the door does not take)."""
    if body is None or jsonrpc_refusal(scope, body) is not None:
        return False
    try:
        posted = json.loads(body)
    except (ValueError, RecursionError):
        return False
    messages = posted if isinstance(posted, list) else [posted]
    return 0 < len(messages) <= MAX_BATCH_MESSAGES and all(_a_tool_call(message) for message in messages)


def _a_tool_call(message) -> bool:
    if not isinstance(message, dict) or message.get("jsonrpc") != "2.0" or message.get("method") != "tools/call":
        return False
    ident, params = message.get("id"), message.get("params")
    return (isinstance(ident, str | int) and not isinstance(ident, bool) and isinstance(params, dict)
            and set(params) <= {"name", "arguments", "_meta"} and isinstance(params.get("name"), str)
            and isinstance(params.get("arguments", {}), dict) and isinstance(params.get("_meta", {}), dict))


# JSON-RPC leaves -32000 to -32099 to the server: MCP names no code for a rate limit
RATE_LIMITED_JSONRPC_CODE = -32029


def rate_limited_error(problem: dict, seconds: int) -> MCPError:
    """The JSON-RPC error of a request over the caller's rate limits: ``data`` is the REST API's problem with the
    seconds as ``retry_after`` (as a tool result's)."""
    return MCPError(RATE_LIMITED_JSONRPC_CODE, f"Rate limited: too many requests; retry after {seconds} seconds",
                    data={**problem, "retry_after": seconds})


def rate_limited_answer(body: bytes | None, exc: RateLimited, problem: dict) -> JSONResponse:
    """A request over the caller's rate limits, answered as MCP answers a request it refuses: a JSON-RPC error
    (with the request's id when it has one), HTTP 429 with ``Retry-After``."""
    error = rate_limited_error(problem, int(exc.headers["Retry-After"])).error
    return JSONResponse({"jsonrpc": "2.0", "id": message_id(body), "error": error.model_dump(exclude_none=True)},
                        status_code=429, headers=exc.headers)


# A token whose scopes do not reach a tool: the server's range too, after its HTTP status as a rate limit's is
INSUFFICIENT_SCOPE_JSONRPC_CODE = -32003


def insufficient_scope_answer(body: bytes | None, problem: dict, challenge: str) -> JSONResponse:
    """A tool call the token's scopes do not reach, answered as MCP's authorization asks: HTTP 403 with the
    ``WWW-Authenticate`` challenge naming the scopes to ask for, and (as every refusal of a request here) a
    JSON-RPC error with the request's id, whose ``data`` is the REST API's problem."""
    error = {"code": INSUFFICIENT_SCOPE_JSONRPC_CODE, "data": problem,
             "message": f"Insufficient scope: the token {problem.get('message', 'lacks a scope')}; ask for the "
                        f"scopes WWW-Authenticate names and call again"}
    return JSONResponse({"jsonrpc": "2.0", "id": message_id(body), "error": error}, status_code=403,
                        headers={"WWW-Authenticate": challenge})
