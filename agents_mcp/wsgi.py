"""``/mcp`` under WSGI: the SDK's Starlette app (:func:`agents_mcp.server.build_app`) served to gunicorn's threads
through a2wsgi's ``ASGIMiddleware``, so that ``manage.py serve`` runs one server (gunicorn on ``config.wsgi``) for
the REST API, the portal and MCP.

The tools' schemas (from the OpenAPI document) are built when :class:`McpWsgi` is made, once per process before
the first request. The app and its event loop are started at the first MCP request, in the process that serves it
(after gunicorn's fork): a thread of its own runs the loop, and the app's lifespan (the session manager's task
group) runs on it for the life of the process; it is never told to shut down (stateless: no session, nothing
to close). Each request's WSGI thread waits for its answer; the tool's REST operation itself runs in one of the
SDK's worker threads, as under uvicorn. If the app cannot start, its loop is stopped and the request fails (500);
the next MCP request tries again.
"""

from __future__ import annotations

import asyncio
import io
import threading

from a2wsgi import ASGIMiddleware
from django.conf import settings

from agents_mcp.server import build_app, is_mcp_path
from agents_mcp.tools import operations
from core.middleware import read_at_most

STARTUP_TIMEOUT_SECONDS = 30.0


async def _lifespan(app, started: asyncio.Future) -> None:
    """Run ``app``'s lifespan (ASGI lifespan protocol) until the process ends; ``started`` says how startup went."""
    messages: asyncio.Queue[dict] = asyncio.Queue()
    messages.put_nowait({"type": "lifespan.startup"})

    async def send(message: dict) -> None:
        if started.done():
            return
        if message["type"] == "lifespan.startup.complete":
            started.set_result(None)
        elif message["type"] == "lifespan.startup.failed":
            started.set_exception(RuntimeError(f"MCP app startup failed: {message.get('message', '')}"))

    try:
        await app({"type": "lifespan", "asgi": {"version": "3.0", "spec_version": "2.0"}, "state": {}},
                  messages.get, send)
    except BaseException as exc:
        if not started.done():
            started.set_exception(exc)
        raise


class McpWsgi:
    """The MCP app as a WSGI application (see the module's docstring)."""

    def __init__(self) -> None:
        operations()  # the tools' schemas, built once before the first request
        self._served: ASGIMiddleware | None = None
        self._lifespan: asyncio.Task | None = None  # held: the loop keeps only a weak reference to its tasks
        self._lock = threading.Lock()

    def _start(self) -> ASGIMiddleware:
        app = build_app()
        loop = asyncio.new_event_loop()
        threading.Thread(target=loop.run_forever, name="mcp-event-loop", daemon=True).start()

        async def start() -> None:
            started = loop.create_future()
            self._lifespan = loop.create_task(_lifespan(app, started))
            await started

        try:
            asyncio.run_coroutine_threadsafe(start(), loop).result(timeout=STARTUP_TIMEOUT_SECONDS)
        except BaseException:
            loop.call_soon_threadsafe(loop.stop)  # no thread left behind by a failed start
            raise
        return ASGIMiddleware(app, loop=loop)

    def __call__(self, environ, start_response):
        if "chunked" in environ.get("HTTP_TRANSFER_ENCODING", "").lower() and not environ.get("CONTENT_LENGTH"):
            # a2wsgi hands the app CONTENT_LENGTH bytes of the body, so a chunked one (de-chunked by the server)
            # would reach it empty: read it here, at most one byte over the limit the app refuses (413).
            body = read_at_most(environ["wsgi.input"], settings.MAX_REQUEST_BYTES)
            environ = {**environ, "wsgi.input": io.BytesIO(body), "CONTENT_LENGTH": str(len(body))}
            environ.pop("HTTP_TRANSFER_ENCODING")
        served = self._served
        if served is None:
            with self._lock:
                if self._served is None:
                    self._served = self._start()
                served = self._served
        return served(environ, start_response)


class WithMcp:
    """MCP's paths to :class:`McpWsgi`, every other path to ``application`` (the Django application)."""

    def __init__(self, application, mcp: McpWsgi) -> None:
        self.application = application
        self.mcp = mcp

    def __call__(self, environ, start_response):
        if is_mcp_path(environ.get("PATH_INFO", "")):
            return self.mcp(environ, start_response)
        return self.application(environ, start_response)
