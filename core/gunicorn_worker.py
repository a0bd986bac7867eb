"""A gunicorn ``gthread`` worker that leaves new connections to a worker with a free thread.

Every gthread worker of a server waits on the same listening socket and keeps each connection it accepts for as long
as the client keeps it alive. Eight keep-alive clients that connect at once (a pooling proxy, a load generator) are
therefore spread by the luck of ``accept()``: measured on two workers of four threads, 7/1, 4/4, 6/2 and 4/4 in four
runs, serving 440, 449, 549 and 624 requests/s, because the worker holding seven queued requests for its four threads
while the other idled.

This worker accepts as usual while it holds fewer connections than it has threads. Holding as many or more, it
waits ``ACCEPT_DEFER_SECONDS`` after each accept before it takes another one, so that a worker with a free thread
(woken by the same readiness) takes it first. Nothing is capped: when every worker is busy, each still accepts, one
connection per pause.

Importing this module (gunicorn does, to load the worker class) also changes two things gunicorn writes itself:
what it refuses before the application sees a request is answered as the API's problem document, not an HTML page
(:func:`write_problem`), and no answer carries a ``Server`` header.
"""

from __future__ import annotations

import json
import select
import time

from gunicorn import util
from gunicorn.http import wsgi
from gunicorn.workers.gthread import ThreadWorker

ACCEPT_DEFER_SECONDS = 0.005
# How long a thread that has answered on a kept-alive connection waits for that client's next request itself, and
# how many it serves in a row, before it hands the connection back to the worker's poller.
NEXT_REQUEST_WAIT_SECONDS = 0.002
NEXT_REQUEST_RUN = 1000


class BalancedThreadWorker(ThreadWorker):
    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self._defer_accept_until = 0.0

    def _saturated(self) -> bool:
        return self.nr_conns >= self.cfg.threads

    def accept(self, listener) -> None:
        super().accept(listener)
        if self._saturated():
            self._defer_accept_until = time.monotonic() + ACCEPT_DEFER_SECONDS
            self.set_accept_enabled(False)

    def set_accept_enabled(self, enabled: bool) -> None:
        if enabled and self._saturated() and time.monotonic() < self._defer_accept_until:
            enabled = False
        super().set_accept_enabled(enabled)

    def wait_for_and_dispatch_events(self, timeout: float) -> None:
        if not self._accepting:  # wake up when the pause ends, not at the next second
            remaining = self._defer_accept_until - time.monotonic()
            if remaining > 0:
                timeout = min(timeout, remaining)
        super().wait_for_and_dispatch_events(timeout)

    def handle(self, conn):
        """Serve the connection's request; then, while every connection of this worker can have a thread of its
        own, wait briefly for the same client's next request and serve it on this thread too.

        gthread hands a kept-alive connection back to the main thread after every response: a callback through its
        queue and pipe, the socket registered with the poller and unregistered when readable, and the connection
        submitted to the thread pool again (two thread switches, four system calls or more). A client that sends its
        next request at once (a pooling proxy, an agent's HTTP client) is served here without them. Nothing waits
        for a thread because of it: with more connections than threads, or once the client pauses, the connection
        goes back to the poller as before."""
        result = super().handle(conn)
        served = 1
        while (result is True and self.alive and served < NEXT_REQUEST_RUN and not conn.is_http2
               and self.nr_conns <= self.cfg.threads and self._next_request_arrives(conn)):
            result = super().handle(conn)
            served += 1
        return result

    @staticmethod
    def _next_request_arrives(conn) -> bool:
        if conn.parser.unreader.buf.getvalue():  # read ahead with the last body: the next request is here
            return True
        try:
            readable, _, _ = select.select([conn.sock], [], [], NEXT_REQUEST_WAIT_SECONDS)
        except (OSError, ValueError):
            return False
        return bool(readable)


# gunicorn answers some requests itself, before the application sees them: a request line or a header field over
# its limits (core.gunicorn_conf sets them above the application's own: MAX_QUERY_STRING_CHARS, 16 KiB of headers),
# a malformed request. It writes those answers as an HTML page; the API's clients get the API's problem document
# instead, with the application's codes for the same refusals. The page's message (which may quote the request, and
# with it a patient id) is not sent.
_SERVER_PROBLEMS = {
    400: ("bad_request", "The request is malformed"),
    403: ("forbidden", "The request is forbidden"),
    414: ("query_too_long", "The request's path and query string are too long"),
    417: ("expectation_failed", "The request's expectation cannot be met"),
    431: ("headers_too_large", "The request headers are too large"),
    500: ("internal_error", "Internal error"),
    501: ("not_implemented", "The request's transfer coding is not supported"),
}


def write_problem(sock, status_int: int, reason: str, mesg: str) -> None:
    """``gunicorn.util.write_error``'s signature and framing (the connection closes), with a problem document."""
    from core.errors import PROBLEM_CONTENT_TYPE, problem_body

    code, title = _SERVER_PROBLEMS.get(status_int, ("bad_request", reason))
    body = json.dumps(problem_body(status_code=status_int, code=code, title=title)).encode()
    head = (f"HTTP/1.1 {status_int} {reason}\r\nConnection: close\r\nContent-Type: {PROBLEM_CONTENT_TYPE}\r\n"
            f"Content-Length: {len(body)}\r\n\r\n")
    util.write_nonblock(sock, head.encode("latin1") + body)


util.write_error = write_problem  # what gunicorn.workers.base's handle_error calls


# No ``Server`` header: what answers is nobody's business (manage.py serve --asgi runs uvicorn with
# --no-server-header).
_default_headers = wsgi.Response.default_headers


def _default_headers_without_server(self) -> list[str]:
    return [line for line in _default_headers(self) if not line.startswith("Server:")]


wsgi.Response.default_headers = _default_headers_without_server
