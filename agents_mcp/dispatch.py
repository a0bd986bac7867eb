"""Executing a tool call: the REST operation itself, run in-process through Django's full request handler.

The call becomes an ordinary HTTP request (method, path, query, JSON body, the caller's own bearer token, the
``Idempotency-Key`` and ``X-Request-ID`` headers) handed to :class:`django.core.handlers.wsgi.WSGIHandler`, so
middleware, authentication, scopes, the identity context, validation, audit of reads and refusals, and the
problem-details shape are exactly the REST API's: there is no second copy of any rule. Nothing crosses a network.
"""

from __future__ import annotations

import io
import json
import sys
from dataclasses import dataclass
from urllib.parse import quote, urlencode

from django.core.handlers.wsgi import WSGIHandler

from agents_mcp.tools import Operation

_handler: WSGIHandler | None = None


def handler() -> WSGIHandler:
    global _handler
    if _handler is None:
        _handler = WSGIHandler()
    return _handler


@dataclass(frozen=True)
class Outcome:
    status: int
    body: dict
    headers: dict[str, str]

    @property
    def ok(self) -> bool:
        return self.status < 400


class ArgumentError(ValueError):
    """Arguments that cannot even form the request (a problem body is built by the caller)."""

    def __init__(self, errors: list[dict]):
        super().__init__("invalid arguments")
        self.errors = errors


def build_request(op: Operation, arguments: dict) -> tuple[str, str, bytes, dict[str, str]]:
    known = set(op.path_params) | set(op.query_params) | set(op.headers) | set(op.body_params)
    unknown = sorted(set(arguments) - known)
    errors = [{"field": name, "message": "Unknown field.", "code": "unknown_field"} for name in unknown]
    path = op.path
    for name in op.path_params:
        value = _whole_number_as_int(arguments.get(name))
        if value is None or isinstance(value, bool) or not isinstance(value, str | int):
            errors.append({"field": name, "message": "This field is required.", "code": "required"})
            continue
        path = path.replace("{" + name + "}", quote(str(value), safe=""))
    if errors:
        raise ArgumentError(errors)
    query = urlencode([(name, _query_value(arguments[name])) for name in op.query_params
                       if arguments.get(name) is not None])
    headers = {header: str(arguments[name]) for name, header in op.headers.items() if arguments.get(name) is not None}
    body = b""
    if op.body_params or op.method in ("POST", "PUT", "PATCH"):
        body = json.dumps({k: arguments[k] for k in op.body_params if k in arguments}).encode()
    return path, query, body, headers


def _query_value(value) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(_whole_number_as_int(value))


def _whole_number_as_int(value):
    """JSON Schema's ``integer`` is any number with a zero fraction: ``2.0`` is the integer the schema accepted, and
    a path or query string carries it as ``2``, never ``2.0`` (which the operation would take for no integer)."""
    return int(value) if isinstance(value, float) and value.is_integer() else value


def call(op: Operation, arguments: dict, *, token: str, host: str, request_id: str | None = None,
         remote_addr: str = "127.0.0.1") -> Outcome:
    """Run the REST operation as the caller and return its status and JSON body. Blocking: call from a thread."""
    path, query, body, headers = build_request(op, arguments)
    server_name, _, port = host.partition(":")
    environ = {
        "REQUEST_METHOD": op.method, "SCRIPT_NAME": "", "PATH_INFO": path, "QUERY_STRING": query,
        "SERVER_NAME": server_name or "localhost", "SERVER_PORT": port or "80", "SERVER_PROTOCOL": "HTTP/1.1",
        "REMOTE_ADDR": remote_addr, "HTTP_HOST": host, "HTTP_AUTHORIZATION": f"Bearer {token}",
        "HTTP_ACCEPT": "application/json", "CONTENT_TYPE": "application/json", "CONTENT_LENGTH": str(len(body)),
        "wsgi.input": io.BytesIO(body), "wsgi.errors": sys.stderr, "wsgi.version": (1, 0),
        "wsgi.url_scheme": "http", "wsgi.multithread": True, "wsgi.multiprocess": True, "wsgi.run_once": False,
    }
    if request_id:
        environ["HTTP_X_REQUEST_ID"] = request_id
    for name, value in headers.items():
        environ["HTTP_" + name.upper().replace("-", "_")] = value
    started: dict = {}

    def start_response(status, response_headers, exc_info=None):
        started["status"] = int(status.split(" ", 1)[0])
        started["headers"] = {k.lower(): v for k, v in response_headers}

    response = handler()(environ, start_response)
    try:
        raw = b"".join(response)
    finally:
        if hasattr(response, "close"):
            response.close()
    try:
        parsed = json.loads(raw) if raw else {}
    except ValueError:
        parsed = {}
    if not isinstance(parsed, dict):
        parsed = {"items": parsed}
    return Outcome(status=started["status"], body=parsed, headers=started["headers"])
