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

No thread is given to a connection before its whole request has arrived (:class:`BalancedThreadWorker`'s
``enqueue_req``): the worker's main loop reads request heads and bodies from non-blocking sockets into a buffer, and
only a complete request goes to the thread pool, where gunicorn's parser reads it from that buffer. A request not
complete within ``WEB_REQUEST_READ_TIMEOUT_SECONDS`` (default 10) is answered ``408 request_timeout`` and its
connection closed; a connection that sends nothing in that time is closed. gthread itself gives a thread to a
connection as soon as its first byte arrives and then reads the rest on the thread: measured on 2 workers of 4
threads, 8 connections holding half a request header made ``/health/live`` time out (no answer in 20 s); with
this worker it answered in a few milliseconds with 128 of them held (tests/test_serve_slow_clients.py).

Why buffer here rather than put an asynchronous server in front: uvicorn (``serve --asgi``) parks a slow head as a
coroutine, but had no timeout for a request head on a new connection (core.uvicorn_serve now sets one) and
a2wsgi gives the request a thread as soon as its head is in, so a body that trickled held a thread for as long as
the client liked (measured: 32 authenticated requests whose bodies trickle, and uvicorn's ``/health/live``
gave no answer in 20 s; this worker answered in 6 ms; core.asgi_deadlines now reads the body first there too).
A reverse proxy would be one more process to ship, start and stop in order. Buffering in the worker keeps
everything ``serve`` relies on (graceful stop, the balanced accept, gunicorn's own refusals) and costs a request
one pass through the main loop, which gthread made anyway.
"""

from __future__ import annotations

import errno
import json
import logging
import select
import selectors
import socket
import time
from functools import partial

from gunicorn import util
from gunicorn.http import wsgi
from gunicorn.workers.gthread import ThreadWorker

from core.asgi_deadlines import REQUEST_READ_TIMEOUT_SECONDS, RESPONSE_WRITE_TIMEOUT_SECONDS
from core.asgi_deadlines import WRITE_SLICE as _WRITE_SLICE

log = logging.getLogger("anamnesis.access")

ACCEPT_DEFER_SECONDS = 0.005
# REQUEST_READ_TIMEOUT_SECONDS: how long a request may take to arrive, head and body, counted from its first byte
# (or from the connection's opening): a client slower than this is answered 408 and disconnected.
# RESPONSE_WRITE_TIMEOUT_SECONDS: how long a thread waits for a client to take the next part of its answer (up to
# _WRITE_SLICE bytes) before the connection is closed: a client that stops reading would otherwise hold the thread
# for as long as it likes. Read where uvicorn's deadlines (serve --asgi) read them.
# A request head that has not ended by this size is refused (431) by the main loop: the application refuses
# headers over 16 KiB anyway (core.middleware.MAX_HEADER_BYTES).
MAX_BUFFERED_HEAD_BYTES = 64 * 1024
_READ_SIZE = 65536
_CONTINUE = b"HTTP/1.1 100 Continue\r\n\r\n"
# How long a thread that has answered on a kept-alive connection waits for that client's next request itself, and
# how many it serves in a row, before it hands the connection back to the worker's poller.
NEXT_REQUEST_WAIT_SECONDS = 0.002
NEXT_REQUEST_RUN = 1000


# What a method (a token, RFC 9110 9.1) may start with, as gunicorn's parser reads it: no lower-case letter or "#"
_METHOD_FIRST_BYTES = frozenset(b"ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789!$%&'*+-.^_`|~")


def _head_fields(head: bytes) -> list[tuple[bytes, bytes]]:
    fields = []
    for line in head.split(b"\r\n")[1:]:
        name, _, value = line.partition(b":")
        fields.append((name.strip().lower(), value.strip()))
    return fields


def _chunked_body_end(data: bytes, pos: int, max_body: int, progress: dict | None = None) -> int | None:
    """Where a chunked body starting at ``pos`` ends (its trailers included), ``-1`` when it is over ``max_body`` or
    malformed (the parser or the application refuses it without reading on), ``None`` while more is to come.

    ``progress`` (kept by the caller for one request while its bytes arrive) remembers the last whole chunk read, so
    that each call reads only what came after it: read from the start every time, a body sent as thousands of
    one-byte chunks, a few at a time, cost the worker's main loop (every connection's reads and accepts) time
    growing with the square of its length."""
    total = 0
    start = pos
    if progress is not None and progress.get("start") == start:
        pos, total = progress["pos"], progress["total"]
    while True:
        line_end = data.find(b"\r\n", pos)
        if line_end < 0:
            return -1 if len(data) - pos > 1024 else None
        try:
            size = int(data[pos:line_end].split(b";", 1)[0].strip(), 16)
        except ValueError:
            return -1
        if size < 0:
            return -1
        if size == 0:
            end = data.find(b"\r\n\r\n", line_end)
            return None if end < 0 else end + 4
        total += size
        if total > max_body:
            return -1
        pos = line_end + 2 + size + 2
        if pos > len(data):
            return None
        if progress is not None:
            progress.update(start=start, pos=pos, total=total)


def request_state(data: bytes, *, max_body: int, progress: dict | None = None) -> str:
    """What a connection's buffered bytes hold: ``"partial"`` (wait for more), ``"complete"`` (a whole request,
    body included, or one the parser refuses from what it has: a malformed head, a bad length) or
    ``"head_too_large"`` / ``"body_too_large"`` / ``"malformed"`` (refused here, not worth waiting for).
    ``progress``: an empty dict for each request, passed with each call while its bytes arrive
    (:func:`_chunked_body_end`)."""
    start = len(data) - len(data.lstrip(b"\r\n"))  # empty lines before a request line are skipped (RFC 9112 2.2)
    if data[start:start + 1] and data[start] not in _METHOD_FIRST_BYTES:
        # no request line starts so (a TLS handshake sent to the plain port, a scanner's bytes): refused at once,
        # where waiting for a head that never ends held the connection until the read timeout (gunicorn's parser
        # would wait for the line's end on a thread)
        return "malformed"
    end = data.find(b"\r\n\r\n", start)
    if end < 0:
        return "head_too_large" if len(data) > MAX_BUFFERED_HEAD_BYTES else "partial"
    body_start = end + 4
    length = None
    chunked = False
    for name, value in _head_fields(data[start:end]):
        if name == b"content-length":
            if length is not None:
                # gunicorn refuses a repeated Content-Length (400, RFC 9112 6.3): waiting for the larger of two
                # held the connection until the read timeout and answered 408, where the same value twice was 400
                return "complete"
            try:
                length = int(value)
            except ValueError:
                return "complete"  # gunicorn answers 400
        elif name == b"transfer-encoding":
            chunked = b"chunked" in value.lower()
    if chunked:
        body_end = _chunked_body_end(data, body_start, max_body, progress)
        if body_end == -1:
            return "complete"
        if body_end is None and len(data) - body_start > 2 * max_body + 65536:  # mostly chunk framing
            return "body_too_large"
        return "partial" if body_end is None else "complete"
    if length is None or length < 0:
        return "complete"
    if length > max_body:
        return "body_too_large"
    return "complete" if len(data) - body_start >= length else "partial"


def _expects_continue(data: bytes) -> bool:
    end = data.find(b"\r\n\r\n")
    return end >= 0 and (b"expect", b"100-continue") in [(n, v.lower()) for n, v in _head_fields(data[:end])]


def _without_expect(data: bytes) -> bytes:
    """The buffered request without its ``Expect`` field: the main loop has answered it (100 Continue) so that the
    client sends its body; gunicorn would answer it again."""
    end = data.find(b"\r\n\r\n")
    lines = data[:end].split(b"\r\n")
    kept = [lines[0]] + [line for line in lines[1:] if line.partition(b":")[0].strip().lower() != b"expect"]
    return b"\r\n".join(kept) + data[end:]


class BalancedThreadWorker(ThreadWorker):
    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self._defer_accept_until = 0.0
        self._buffering: set = set()  # connections whose request is still arriving (the main loop reads them)
        self._max_body: int | None = None

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
        self._hand_over(conn)
        result = super().handle(conn)
        served = 1
        while (result is True and self.alive and served < NEXT_REQUEST_RUN and not conn.is_http2
               and self.nr_conns <= self.cfg.threads and self._next_request_arrived(conn)):
            result = super().handle(conn)
            served += 1
        return result

    def handle_request(self, req, conn):
        """Serve one request, its answer written with ``RESPONSE_WRITE_TIMEOUT_SECONDS`` for each part of it the
        client takes (:func:`write_in_slices`). The thread's socket was blocking with no timeout: a client that
        asked for a large answer (or pipelined many) and stopped reading held the thread for good, and a few of
        them every thread of the worker. Such a connection is closed, and the thread goes on to the next."""
        conn.sock.settimeout(RESPONSE_WRITE_TIMEOUT_SECONDS)
        try:
            return super().handle_request(req, conn)
        except TimeoutError:
            log.warning("closed a connection whose client took nothing of its answer for %s s",
                        RESPONSE_WRITE_TIMEOUT_SECONDS)
            return False
        finally:
            # blocking again, without a timeout: with one, Python waits for data before a MSG_DONTWAIT peek
            # (_next_request_arrived)
            try:
                conn.sock.settimeout(None)
            except OSError:
                pass

    def _next_request_arrived(self, conn) -> bool:
        """Whether the client's next request is here in full (waiting briefly for its first bytes): only then is
        it served on this thread; a part of one goes back to the main loop, which waits for the rest."""
        held = conn.parser.unreader.buf.getvalue()  # read ahead with the last body
        if not held:
            try:
                readable = conn.sock in select.select([conn.sock], [], [], NEXT_REQUEST_WAIT_SECONDS)[0]
            except (OSError, ValueError):
                return False
            if not readable:
                return False
        try:
            peeked = conn.sock.recv(_READ_SIZE, socket.MSG_PEEK | socket.MSG_DONTWAIT)
        except (BlockingIOError, InterruptedError):
            peeked = b""
        except OSError:
            return False
        return request_state(held + peeked, max_body=self._body_limit()) == "complete"

    # --- requests are read by the main loop, and only a whole one is given a thread -----------------------------
    def _body_limit(self) -> int:
        if self._max_body is None:
            from django.conf import settings  # the application is loaded by the time requests arrive
            from django.core.exceptions import ImproperlyConfigured

            try:
                self._max_body = int(settings.MAX_REQUEST_BYTES)
            except (ImproperlyConfigured, AttributeError):  # another WSGI application (the tests' own)
                self._max_body = 64 * 1024
        return self._max_body

    def enqueue_req(self, conn) -> None:
        # TLS and an HTTP/2 preface are read by the thread, unbuffered (TLS ends in front of the service)
        if getattr(conn, "request_ready", False) or self.cfg.is_ssl or getattr(
                self.cfg, "http2_cleartext", None) in ("prior-knowledge", "both"):
            super().enqueue_req(conn)
            return
        conn.buffered = bytearray()
        conn.chunked_progress = {}
        conn.continued = False
        if conn.parser is not None:  # what the last request's body read brought of the next one
            conn.buffered += conn.parser.unreader.take_buffered()
        conn.read_deadline = time.monotonic() + REQUEST_READ_TIMEOUT_SECONDS
        if conn.buffered and self._buffered_enough(conn):
            return
        conn.sock.setblocking(False)
        self._buffering.add(conn)
        self.poller.register(conn.sock, selectors.EVENT_READ, partial(self._on_request_bytes, conn))

    def _on_request_bytes(self, conn, _sock) -> None:
        try:
            data = conn.sock.recv(_READ_SIZE)
        except (BlockingIOError, InterruptedError):
            return
        except OSError:
            data = b""
        if not data:  # the client went away
            self._stop_buffering(conn)
            self._drop(conn)
            return
        conn.buffered += data
        self._buffered_enough(conn)

    def _buffered_enough(self, conn) -> bool:
        """Act on the buffered bytes: hand a whole request to the thread pool, refuse one not worth waiting for,
        or (still partial) answer ``Expect: 100-continue`` so that its body comes. True when the connection has
        left the main loop's hands."""
        state = request_state(bytes(conn.buffered), max_body=self._body_limit(), progress=conn.chunked_progress)
        if state == "partial":
            if not conn.continued and _expects_continue(bytes(conn.buffered)):
                conn.continued = True
                conn.buffered = bytearray(_without_expect(bytes(conn.buffered)))
                try:
                    conn.sock.send(_CONTINUE)
                except OSError:
                    pass
            return False
        self._stop_buffering(conn)  # before the socket goes to a thread, or is closed
        if state == "complete":
            conn.request_ready = True
            super().enqueue_req(conn)
            return True
        self._refuse(conn, {"head_too_large": 431, "body_too_large": 413, "malformed": 400}[state])
        return True

    def _hand_over(self, conn) -> None:
        """On the thread: what the main loop read goes in front of the parser's reads."""
        if not getattr(conn, "request_ready", False):
            return
        conn.request_ready = False
        buffered, conn.buffered = bytes(conn.buffered), bytearray()
        conn.init()  # the parser, once per connection; the socket blocking again
        conn.sock.setblocking(True)
        conn.parser.unreader.unread(buffered)

    def _stop_buffering(self, conn) -> None:
        self._buffering.discard(conn)
        try:
            self.poller.unregister(conn.sock)
        except (KeyError, ValueError, OSError):
            pass

    def _drop(self, conn) -> None:
        self.nr_conns -= 1
        conn.close()

    def _refuse(self, conn, status: int) -> None:
        """Answer from the main loop and close: nothing is read of the rest, and no thread is used."""
        reasons = {400: "Bad Request", 408: "Request Timeout", 413: "Payload Too Large",
                   431: "Request Header Fields Too Large"}
        try:
            conn.sock.setblocking(False)
            head = bytes(conn.buffered)
            if status == 413 and _from_a_browser_page(head):  # a form too large: the person gets a page
                write_page(conn.sock, status, reasons[status], request_id=_request_id_in(head))
            else:
                write_problem(conn.sock, status, reasons[status], "", request_id=_request_id_in(head))
            conn.sock.shutdown(socket.SHUT_WR)
            while conn.sock.recv(_READ_SIZE):  # what has arrived, so that closing does not reset the answer
                pass
        except OSError as exc:
            if exc.errno not in (errno.EAGAIN, errno.EWOULDBLOCK, errno.EPIPE, errno.ECONNRESET, errno.ENOTCONN):
                self.log.debug("refusing a request: %s", exc)
        self._drop(conn)

    def murder_pending(self) -> None:
        """gthread's sweep of connections waiting for data, and of requests that did not arrive in time: 408 for
        a part of a request, a plain close for a connection that sent nothing (or for any, once the worker
        stops)."""
        super().murder_pending()
        now = time.monotonic()
        for conn in [c for c in self._buffering if c.read_deadline <= now or not (self.alive or c.buffered)]:
            self._stop_buffering(conn)
            if conn.buffered and self.alive:
                self._refuse(conn, 408)
            else:
                self._drop(conn)


# gunicorn answers some requests itself, before the application sees them: a request line or a header field over
# its limits (core.gunicorn_conf sets them above the application's own: MAX_QUERY_STRING_CHARS, 16 KiB of headers),
# a malformed request. It writes those answers as an HTML page; the API's clients get the API's problem document
# instead, with the application's codes for the same refusals. The page's message (which may quote the request, and
# with it a patient id) is not sent.
_SERVER_PROBLEMS = {
    400: ("bad_request", "The request is malformed"),
    503: ("service_unavailable", "The service is busy: try again shortly"),
    403: ("forbidden", "The request is forbidden"),
    408: ("request_timeout", "The request did not arrive in time"),
    413: ("payload_too_large", "The request body is too large"),
    414: ("query_too_long", "The request's path and query string are too long"),
    417: ("expectation_failed", "The request's expectation cannot be met"),
    431: ("headers_too_large", "The request headers are too large"),
    500: ("internal_error", "Internal error"),
    501: ("not_implemented", "The request's transfer coding is not supported"),
}


def _request_id_in(data: bytes) -> str | None:
    """The ``X-Request-ID`` of a buffered request head (ended or not), as the client sent it, if it did."""
    end = data.find(b"\r\n\r\n")
    for name, value in _head_fields(data if end < 0 else data[:end]):
        if name == b"x-request-id":
            return value.decode("latin1")
    return None


def write_problem(sock, status_int: int, reason: str, mesg: str, request_id: str | None = None) -> None:
    """``gunicorn.util.write_error``'s signature and framing (the connection closes), with a problem document.

    It carries a request id, in its body and its ``X-Request-ID`` header, like every answer of the application
    (core.middleware.RequestIdMiddleware, which these requests never reach): the client's when it sent a sane one
    and the head could be read (``request_id``), else a new one; the refusal is logged under it."""
    util.write_nonblock(sock, problem_answer(status_int, reason, request_id=request_id))


def problem_answer(status_int: int, reason: str, *, request_id: str | None = None,
                   retry_after: int | None = None) -> bytes:
    """A whole answer (head and problem document, ``Connection: close``) for a refusal made before the application
    sees the request; also uvicorn's (core.uvicorn_serve)."""
    from core.errors import PROBLEM_CONTENT_TYPE, problem_body
    from core.logging import request_id_var
    from core.middleware import normalise_request_id

    code, title = _SERVER_PROBLEMS.get(status_int, ("bad_request", reason))
    rid = normalise_request_id(request_id)
    token = request_id_var.set(rid)
    try:
        body = json.dumps(problem_body(status_code=status_int, code=code, title=title)).encode()
        log.info("refused before the application: %s %s", status_int, code)
    finally:
        request_id_var.reset(token)
    head = (f"HTTP/1.1 {status_int} {reason}\r\nConnection: close\r\nContent-Type: {PROBLEM_CONTENT_TYPE}\r\n"
            f"Content-Length: {len(body)}\r\nX-Request-ID: {rid}\r\nCache-Control: no-store\r\n"
            + (f"Retry-After: {retry_after}\r\n" if retry_after is not None else "") + "\r\n")
    return head.encode("latin1") + body


util.write_error = write_problem  # what gunicorn.workers.base's handle_error calls


def write_in_slices(sock, data, chunked=False) -> None:
    """``gunicorn.util.write``, sending at most ``_WRITE_SLICE`` bytes a call: the socket's timeout bounds each
    ``sendall`` whole, so that a slow client still reading gets a large answer while one that stopped is cut off
    (:meth:`BalancedThreadWorker.handle_request`)."""
    if isinstance(data, str):
        data = data.encode("utf-8")
    if chunked:
        data = b"%X\r\n%s\r\n" % (len(data), data)
    view = memoryview(data)
    for start in range(0, len(view), _WRITE_SLICE):
        sock.sendall(view[start:start + _WRITE_SLICE])


util.write = write_in_slices  # what gunicorn.http.wsgi.Response writes the head and body with

# The paths that take a bearer token (settings.BEARER_PATH_PREFIXES), when the worker serves without the settings
_BEARER_PATH_PREFIXES = ("/v1/", "/mcp", "/health/", "/metrics")


def _from_a_browser_page(head: bytes) -> bool:
    """Whether a refused request whose head was read is a browser's, for a page (it accepts HTML, and its path is
    not one of the API's): a form of the portal, whose person should not be shown a JSON document."""
    end = head.find(b"\r\n\r\n")
    head = head if end < 0 else head[:end]
    target = head.split(b"\r\n", 1)[0].split(b" ")
    path = target[1].decode("latin1") if len(target) == 3 else ""
    accept = b",".join(value for name, value in _head_fields(head) if name == b"accept")
    try:
        from django.conf import settings

        prefixes = tuple(settings.BEARER_PATH_PREFIXES)
    except Exception:  # the worker serves an application without Django's settings
        prefixes = _BEARER_PATH_PREFIXES
    return path.startswith("/") and not path.startswith(prefixes) and b"text/html" in accept


def write_page(sock, status_int: int, reason: str, request_id: str | None = None) -> None:
    """:func:`write_problem` for a person at a browser: the product's static page for the refusal
    (:data:`core.pages.REFUSAL_PAGES`), never cached, framed by nobody."""
    from html import escape

    from core.logging import request_id_var
    from core.middleware import normalise_request_id
    from core.pages import REFUSAL_PAGES, static_page

    title, message = REFUSAL_PAGES[status_int]
    rid = normalise_request_id(request_id)
    token = request_id_var.set(rid)
    try:
        body = static_page(title, escape(message), "/static/portal/portal.css").encode()
        log.info("refused before the application: %s (a page)", status_int)
    finally:
        request_id_var.reset(token)
    head = (f"HTTP/1.1 {status_int} {reason}\r\nConnection: close\r\nContent-Type: text/html; charset=utf-8\r\n"
            f"Content-Length: {len(body)}\r\nX-Request-ID: {rid}\r\nCache-Control: no-store\r\n"
            f"Content-Security-Policy: default-src 'self'; frame-ancestors 'none'\r\nX-Frame-Options: DENY\r\n"
            f"X-Content-Type-Options: nosniff\r\n\r\n")
    util.write_nonblock(sock, head.encode("latin1") + body)


# No ``Server`` header: what answers is nobody's business (manage.py serve --asgi runs uvicorn with
# --no-server-header).
_default_headers = wsgi.Response.default_headers


def _default_headers_without_server(self) -> list[str]:
    return [line for line in _default_headers(self) if not line.startswith("Server:")]


wsgi.Response.default_headers = _default_headers_without_server
