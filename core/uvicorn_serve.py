"""``manage.py serve --asgi``: uvicorn's worker processes on ``config.asgi``, supervised, with the bounds gunicorn's
worker (core.gunicorn_worker) gives a connection.

    python -m core.uvicorn_serve --host 127.0.0.1 --port 8000 --workers 2

* **Supervised whatever the number of workers.** ``uvicorn --workers 1`` serves in its own process with no
  supervisor: a worker killed (out of memory, kill -9) left no service, and ``serve`` then ended. Here uvicorn's
  supervisor (``Multiprocess``) always runs, and starts a worker that died again in its place, as gunicorn's
  arbiter does; a worker that cannot start (the application fails to load: core.E001, no database) ends the
  server with uvicorn's start-up failure status, so ``serve`` ends with an error instead of starting it again and
  again.
* **A request head in time.** uvicorn has no timeout for a request head: a new connection that sent nothing, or a
  head that never ends (one header byte a second), was held for as long as the client liked (a coroutine and a file
  descriptor each, without end). A head not in within ``WEB_REQUEST_READ_TIMEOUT_SECONDS`` of the connection's
  opening (or of its first byte, on a kept-alive connection) is answered ``408 request_timeout`` and the connection
  closed; a connection that sent nothing is closed. The body has the same deadline from the head
  (core.asgi_deadlines).
* **A request head of at most 64 KiB** (``MAX_BUFFERED_HEAD_BYTES``, as gunicorn's worker): httptools keeps a
  header's value whole however long, so one connection sending a header without end made its worker hold tens of
  megabytes more every few seconds; beyond it, ``431 headers_too_large`` and the connection closed. What the parser
  refuses is ``400 bad_request`` as a problem document, not uvicorn's plain text.
* **A half-closed client gets its answer.** One that sends its request and then shuts its side of the connection
  for writing was served with the answer dropped (uvicorn closed on the end of input); it is answered, then closed.
* **A bounded number of connections.** ``WEB_WORKER_CONNECTIONS`` (1,000, gunicorn's ``worker_connections``) per
  worker: a connection beyond it is answered ``503 service_unavailable`` with ``Retry-After`` and closed.
"""

from __future__ import annotations

import argparse
import logging
import os
import sys

from uvicorn.config import STARTUP_FAILURE
from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

from core.asgi_deadlines import REQUEST_READ_TIMEOUT_SECONDS
from core.gunicorn_worker import MAX_BUFFERED_HEAD_BYTES, problem_answer

log = logging.getLogger("anamnesis.access")

# The connections one worker holds at most (gunicorn's worker_connections reads the same variable)
WORKER_CONNECTIONS = int(os.environ.get("WEB_WORKER_CONNECTIONS", "1000"))


class BoundedHttpToolsProtocol(HttpToolsProtocol):
    """uvicorn's httptools protocol, with a deadline for each request head and a cap on a worker's connections."""

    _head_timer = None
    _head_begun = False
    _client_done = False  # the client half-closed the connection (it sends nothing more, and reads the answer)
    _head_bytes = 0  # what has arrived of the request head being read (from its second read on)

    def data_received(self, data: bytes) -> None:
        begun = self._head_begun
        super().data_received(data)
        if self.transport.is_closing():
            return
        if not self._head_begun and (self.cycle is None or self.cycle.response_complete):
            # bytes that began no request (empty lines between requests) cancelled uvicorn's keep-alive timeout and
            # started no head: a kept-alive connection sent "\r\n" was held without end
            self._arm_head_timer()
        if begun and self._head_begun:
            # the whole read went to a head not yet ended (the read that began it is not counted: it may hold the
            # end of the previous request too)
            self._head_bytes += len(data)
            if self._head_bytes > MAX_BUFFERED_HEAD_BYTES:
                self._answer_and_close(431, "Request Header Fields Too Large")

    def send_400_response(self, msg: str) -> None:
        """What the parser refuses (a malformed request) is the problem document gunicorn's worker answers, not
        uvicorn's plain text."""
        self._answer_and_close(400, "Bad Request")

    def connection_made(self, transport) -> None:
        super().connection_made(transport)
        if len(self.connections) > WORKER_CONNECTIONS:
            self._answer_and_close(503, "Service Unavailable")
            return
        self._arm_head_timer()

    def on_message_begin(self) -> None:
        super().on_message_begin()
        self._head_begun = True
        self._head_bytes = 0
        self._arm_head_timer()

    def on_headers_complete(self) -> None:
        self._cancel_head_timer()
        self._head_begun = False
        super().on_headers_complete()

    def connection_lost(self, exc) -> None:
        self._cancel_head_timer()
        super().connection_lost(exc)

    # asyncio's Protocol.eof_received: True keeps the transport open (uvicorn annotates it None)
    def eof_received(self) -> bool | None:  # type: ignore[override]
        """A client that sends its request and then half-closes the connection (shutdown(SHUT_WR), ``nc -N``) waits
        for the answer: uvicorn closed the connection at the end of the request, so the request was served (a write
        made) and its answer lost. The connection stays open until the answers to what was sent are written;
        a request not whole by then is not waited for."""
        self._client_done = True
        if self.cycle is not None and not self.cycle.response_complete:
            return True
        return None

    def on_response_complete(self) -> None:
        last = not self.pipeline
        super().on_response_complete()
        if self._client_done and last and not self.transport.is_closing():
            self.transport.close()

    def _arm_head_timer(self) -> None:
        if self._head_timer is None:
            self._head_timer = self.loop.call_later(REQUEST_READ_TIMEOUT_SECONDS, self._head_late)

    def _cancel_head_timer(self) -> None:
        if self._head_timer is not None:
            self._head_timer.cancel()
            self._head_timer = None

    def _head_late(self) -> None:
        self._head_timer = None
        if self.transport.is_closing():
            return
        if self.cycle is not None and not self.cycle.response_complete:
            self._arm_head_timer()  # a pipelined head behind an answer still being written: its turn comes after
            return
        if self._head_begun:
            self._answer_and_close(408, "Request Timeout")
        else:
            self.transport.close()  # nothing sent: closed quietly, as gunicorn's worker closes it

    def _answer_and_close(self, status: int, reason: str) -> None:
        sent = dict(self.headers or []).get(b"x-request-id") if self._head_begun else None
        self.transport.write(problem_answer(status, reason, request_id=sent.decode("latin1") if sent else None,
                                            retry_after=1 if status == 503 else None))
        self.transport.close()


def load_application():
    """The application, for uvicorn's ``factory``: any failure to load it exits with uvicorn's start-up failure
    status, which its supervisor takes for a server that cannot start (and stops) rather than a worker that died
    (and is started again)."""
    from core.supervision import stopped_with_parent

    # a worker whose supervisor was killed (SIGKILL) stops too, as gunicorn's workers do, instead of serving on alone
    stopped_with_parent(os.getppid())()
    try:
        from config.asgi import application
    except Exception:
        logging.getLogger("anamnesis").exception("the application could not be loaded")
        sys.exit(STARTUP_FAILURE)
    return application


def uvicorn_config(*, host: str, port: int, workers: int):
    import uvicorn

    # httptools and uvloop named, not left to "auto": without them uvicorn would quietly fall back to h11 and asyncio
    return uvicorn.Config(
        "core.uvicorn_serve:load_application", factory=True, host=host, port=port, workers=workers,
        http="core.uvicorn_serve:BoundedHttpToolsProtocol", loop="uvloop", timeout_graceful_shutdown=10,
        server_header=False, access_log=False,
        # uvicorn believed X-Forwarded-For from 127.0.0.1 and ::1 by default: the client's address is TRUSTED_PROXIES'
        # to decide, under gunicorn and uvicorn alike (core.gate.client_address)
        proxy_headers=False)


def main(argv: list[str] | None = None) -> None:
    from uvicorn.supervisors import Multiprocess

    parser = argparse.ArgumentParser(description="uvicorn's supervised workers on config.asgi")
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=8000)
    parser.add_argument("--workers", type=int, default=1)
    args = parser.parse_args(argv)
    config = uvicorn_config(host=args.host, port=args.port, workers=args.workers)
    supervisor = Multiprocess(config, sockets=[config.bind_socket()])
    supervisor.run()
    if any(process.exitcode == STARTUP_FAILURE for process in supervisor.processes):
        sys.exit(STARTUP_FAILURE)


if __name__ == "__main__":
    main()
