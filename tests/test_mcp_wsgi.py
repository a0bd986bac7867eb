"""/mcp under WSGI (agents_mcp.wsgi), as ``manage.py serve`` runs it on gunicorn: MCP's paths go to the SDK's app,
everything else to Django; the app's event loop and lifespan start once per process, however many threads ask
first. (``tests/test_mcp_server.py`` calls the tools through ``manage.py serve`` itself.)"""

from __future__ import annotations

import io
import json
import sys
import threading
from concurrent.futures import ThreadPoolExecutor

import pytest

from agents_mcp.wsgi import McpWsgi, WithMcp


def _environ(method: str, path: str, body: bytes = b"") -> dict:
    return {"REQUEST_METHOD": method, "PATH_INFO": path, "QUERY_STRING": "", "SERVER_NAME": "127.0.0.1",
            "SERVER_PORT": "8000", "HTTP_HOST": "127.0.0.1:8000", "wsgi.input": io.BytesIO(body),
            "wsgi.url_scheme": "http", "wsgi.errors": sys.stderr, "SERVER_PROTOCOL": "HTTP/1.1",
            "REMOTE_ADDR": "127.0.0.1", "CONTENT_LENGTH": str(len(body)), "CONTENT_TYPE": "application/json",
            "HTTP_ACCEPT": "application/json, text/event-stream"}


def _call(app, method: str, path: str, body: bytes = b"") -> tuple[int, dict, bytes]:
    started = {}

    def start_response(status, headers, exc_info=None):
        started["status"], started["headers"] = int(status.split()[0]), {k.lower(): v for k, v in headers}

    response = app(_environ(method, path, body), start_response)
    try:
        content = b"".join(response)
    finally:
        if hasattr(response, "close"):
            response.close()
    return started["status"], started["headers"], content


def test_mcp_paths_go_to_the_mcp_app_and_every_other_path_to_django():
    seen: list[tuple[str, str]] = []

    def recorder(name):
        def app(environ, start_response):
            seen.append((name, environ["PATH_INFO"]))
            start_response("204 No Content", [])
            return [b""]
        return app

    app = WithMcp(recorder("django"), recorder("mcp"))  # type: ignore[arg-type]
    paths = ["/mcp", "/mcp/", "/.well-known/oauth-protected-resource", "/.well-known/oauth-protected-resource/mcp",
             "/mcpx", "/v1/patients", "/", "/.well-known/oauth-protected-resourcex", "/health/live"]
    for path in paths:
        _call(app, "GET", path)
    assert seen == [("mcp", "/mcp"), ("mcp", "/mcp/"), ("mcp", "/.well-known/oauth-protected-resource"),
                    ("mcp", "/.well-known/oauth-protected-resource/mcp"), ("django", "/mcpx"),
                    ("django", "/v1/patients"), ("django", "/"), ("django", "/.well-known/oauth-protected-resourcex"),
                    ("django", "/health/live")]


def test_the_first_requests_start_one_event_loop_and_the_app_answers_on_it(settings):
    settings.API_AUTH_FAILURES_PER_ADDRESS = 0  # the 401s below are not counted: this test has no database
    before = [t for t in threading.enumerate() if t.name == "mcp-event-loop"]
    mcp = McpWsgi()
    refusal = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "tools/list"}).encode()

    def first(k: int) -> tuple[int, dict, bytes]:
        if k % 2:
            return _call(mcp, "GET", "/.well-known/oauth-protected-resource/mcp")
        return _call(mcp, "POST", "/mcp", refusal)

    with ThreadPoolExecutor(max_workers=6) as pool:
        answers = list(pool.map(first, range(12)))
    loops = [t for t in threading.enumerate() if t.name == "mcp-event-loop" and t not in before]
    assert len(loops) == 1 and loops[0].is_alive()
    for k, (status, headers, body) in enumerate(answers):
        if k % 2:  # the RFC 9728 metadata of the /mcp resource
            assert status == 200 and json.loads(body)["resource"].endswith("/mcp"), body[:300]
        else:  # no token: the REST API's problem, with where to find the metadata
            assert status == 401, body[:300]
            assert 'resource_metadata="' in headers["www-authenticate"]
            assert json.loads(body)["code"] == "invalid_token"
    # a later request is served on the same loop
    assert _call(mcp, "GET", "/mcp")[0] == 405
    assert [t for t in threading.enumerate() if t.name == "mcp-event-loop" and t not in before] == loops


def test_an_app_that_cannot_start_fails_the_request_leaves_no_loop_behind_and_the_next_request_tries_again(
        monkeypatch):
    import agents_mcp.wsgi as mcp_wsgi

    async def failing(scope, receive, send):
        assert scope["type"] == "lifespan"
        await receive()
        await send({"type": "lifespan.startup.failed", "message": "no"})

    before = set(threading.enumerate())
    mcp = McpWsgi()
    monkeypatch.setattr(mcp_wsgi, "build_app", lambda: failing)
    with pytest.raises(RuntimeError, match="startup failed"):
        _call(mcp, "GET", "/.well-known/oauth-protected-resource/mcp")
    for loop_thread in [t for t in threading.enumerate() if t.name == "mcp-event-loop" and t not in before]:
        loop_thread.join(timeout=5)
        assert not loop_thread.is_alive()
    monkeypatch.undo()
    assert _call(mcp, "GET", "/.well-known/oauth-protected-resource/mcp")[0] == 200


def _chunked(path: str, body: bytes) -> dict:
    """What a WSGI server hands over for a chunked body: de-chunked in wsgi.input, no CONTENT_LENGTH."""
    environ = _environ("POST", path, body)
    del environ["CONTENT_LENGTH"]
    environ["HTTP_TRANSFER_ENCODING"] = "chunked"
    return environ


def test_a_chunked_body_reaches_the_mcp_app_whole(monkeypatch, settings):
    """a2wsgi hands an ASGI app CONTENT_LENGTH bytes of the body; without one, a chunked body would arrive empty."""
    import agents_mcp.wsgi as mcp_wsgi

    async def echo(scope, receive, send):
        if scope["type"] == "lifespan":
            await receive()
            await send({"type": "lifespan.startup.complete"})
            await receive()  # never: the lifespan runs for the life of the process
            return
        body, more = b"", True
        while more:
            message = await receive()
            body, more = body + message.get("body", b""), message.get("more_body", False)
        await send({"type": "http.response.start", "status": 200, "headers": []})
        await send({"type": "http.response.body", "body": body})

    monkeypatch.setattr(mcp_wsgi, "build_app", lambda: echo)
    mcp = McpWsgi()
    pad = "x" * (settings.MAX_REQUEST_BYTES - 100)  # just within the limit
    message = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "tools/list", "pad": pad}).encode()
    started = {}
    answer = b"".join(mcp(_chunked("/mcp", message), lambda status, headers, exc_info=None: started.update(
        status=status)))
    assert started["status"].startswith("200") and answer == message


def test_a_chunked_body_over_the_limit_is_refused_by_the_mcp_app_as_over_rest(settings):
    """Read at most one byte over MAX_REQUEST_BYTES, so the MCP app's own check answers (413), as the REST API's
    BodySizeLimitMiddleware does for a chunked body."""
    settings.MAX_REQUEST_BYTES = 64 * 1024
    started = {}

    def start_response(status, headers, exc_info=None):
        started["status"] = int(status.split()[0])

    oversized = b"x" * (settings.MAX_REQUEST_BYTES + 10)
    body = b"".join(McpWsgi()(_chunked("/mcp", oversized), start_response))
    assert started["status"] == 413 and json.loads(body)["code"] == "payload_too_large"
