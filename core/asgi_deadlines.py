"""Slow clients under ``manage.py serve --asgi`` (uvicorn, config.asgi) hold no thread for longer than they may under
gunicorn (core.gunicorn_worker), with the same settings.

a2wsgi gives a request one of the worker's ``WEB_THREADS`` threads as soon as its head is in; Django then reads the
body on that thread, and writes the answer from it, each part waiting until uvicorn has handed the previous one to
the client. A body that trickles in held its thread for as long as the client liked, and so did a client that
stopped reading a large answer (measured: two of either on a worker of two threads, and ``/health/live`` gave no
answer). :class:`ClientDeadlines`, in front of the Django application:

* reads the whole body (up to ``MAX_REQUEST_BYTES`` and one byte more: beyond that the application refuses it, 413)
  in the event loop, before the application and a thread see the request; a body not in within
  ``WEB_REQUEST_READ_TIMEOUT_SECONDS`` of the head is answered ``408 request_timeout`` and the connection closed;
* gives each part of the answer (up to 64 KiB) ``WEB_RESPONSE_WRITE_TIMEOUT_SECONDS`` to be taken by the client;
  past it the rest of the answer is dropped, so the thread finishes at once, and uvicorn closes the connection
  (logging that the answer was not completed).

The request head has the same deadline, counted from the connection's opening, and a worker's connections are
capped, in uvicorn's protocol (core.uvicorn_serve).
"""

from __future__ import annotations

import asyncio
import json
import logging
import os

log = logging.getLogger("anamnesis.access")

# How long a request may take to arrive (under uvicorn: its body, counted from its head), and how long the client
# may take to accept each part (up to WRITE_SLICE bytes) of its answer; gunicorn's worker reads the same variables.
REQUEST_READ_TIMEOUT_SECONDS = float(os.environ.get("WEB_REQUEST_READ_TIMEOUT_SECONDS", "10"))
RESPONSE_WRITE_TIMEOUT_SECONDS = float(os.environ.get("WEB_RESPONSE_WRITE_TIMEOUT_SECONDS", "10"))
WRITE_SLICE = 64 * 1024


class ClientDeadlines:
    """ASGI middleware: the body read whole in time, and every part of the answer taken in time (module doc)."""

    def __init__(self, app, *, max_body: int) -> None:
        self.app = app
        self.max_body = max_body

    async def __call__(self, scope, receive, send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        try:
            async with asyncio.timeout(REQUEST_READ_TIMEOUT_SECONDS):
                body = await self._body(receive)
        except TimeoutError:
            await _request_timeout(scope, send)
            return
        if body is None:  # the client went away
            return
        await self.app(scope, replaying(body, receive), _WritesInTime(send))

    async def _body(self, receive) -> bytes | None:
        chunks, size = [], 0
        while True:
            message = await receive()
            if message["type"] != "http.request":
                return None
            chunks.append(message.get("body", b""))
            size += len(chunks[-1])
            if size > self.max_body or not message.get("more_body", False):
                return b"".join(chunks)


def replaying(body: bytes, receive):
    """A ``receive`` that hands the app the body already read, then whatever the client sends next."""
    pending = True

    async def replay():
        nonlocal pending
        if pending:
            pending = False
            return {"type": "http.request", "body": body, "more_body": False}
        return await receive()

    return replay


class _WritesInTime:
    """A ``send`` that gives each part of the answer (at most WRITE_SLICE bytes) RESPONSE_WRITE_TIMEOUT_SECONDS, and
    once one is not taken in time drops the rest."""

    def __init__(self, send) -> None:
        self.send = send
        self.abandoned = False

    async def __call__(self, message) -> None:
        if self.abandoned:
            return
        body = message.get("body", b"") if message["type"] == "http.response.body" else b""
        parts = [message]
        if len(body) > WRITE_SLICE:
            more = message.get("more_body", False)
            parts = [{"type": "http.response.body", "body": body[start:start + WRITE_SLICE],
                      "more_body": more or start + WRITE_SLICE < len(body)}
                     for start in range(0, len(body), WRITE_SLICE)]
        try:
            for part in parts:
                async with asyncio.timeout(RESPONSE_WRITE_TIMEOUT_SECONDS):
                    await self.send(part)
        except TimeoutError:
            self.abandoned = True
            log.warning("closed a connection whose client took nothing of its answer for %s s",
                        RESPONSE_WRITE_TIMEOUT_SECONDS)


async def _request_timeout(scope, send) -> None:
    """408 request_timeout as core.gunicorn_worker answers it (its request id the client's, when sane), closing."""
    from core.errors import PROBLEM_CONTENT_TYPE, problem_body
    from core.logging import request_id_var
    from core.middleware import normalise_request_id

    sent = dict(scope.get("headers", [])).get(b"x-request-id")
    rid = normalise_request_id(sent.decode("latin1") if sent else None)
    token = request_id_var.set(rid)
    try:
        body = json.dumps(problem_body(status_code=408, code="request_timeout",
                                       title="The request did not arrive in time")).encode()
        log.info("refused before the application: 408 request_timeout")
    finally:
        request_id_var.reset(token)
    send = _WritesInTime(send)
    await send({"type": "http.response.start", "status": 408, "headers": [
        (b"content-type", PROBLEM_CONTENT_TYPE.encode()), (b"content-length", str(len(body)).encode()),
        (b"x-request-id", rid.encode()), (b"cache-control", b"no-store"), (b"connection", b"close")]})
    await send({"type": "http.response.body", "body": body, "more_body": False})
