"""The HTTP exchange under the clients: the ``Retry-After`` header as a number of seconds, and the sync client's
deadline over each attempt (every socket operation gets only what is left of it)."""

from __future__ import annotations

import contextvars
import email.utils
import re
import time
from typing import Any

import httpcore

_SECONDS = re.compile(r"[0-9]+(\.[0-9]+)?")


def parse_retry_after(value: str | None) -> float | None:
    """Seconds (``1.5`` too, as proxies send), or an HTTP date (RFC 9110 §10.2.3)."""
    if not value:
        return None
    value = value.strip()
    if _SECONDS.fullmatch(value):
        return float(value)
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max(0.0, when.timestamp() - time.time())


# The end of the sync client's attempt under way in this thread (monotonic seconds), or None outside one.
ATTEMPT_DEADLINE: contextvars.ContextVar[float | None] = contextvars.ContextVar("attempt_deadline", default=None)


def within_deadline(timeout: float | None) -> float | None:
    """A socket operation's timeout, cut to what is left of the attempt: httpx gives each connect and each read the
    whole timeout, so a connect, or an answer's head, that took most of it left a read the whole of it again."""
    deadline = ATTEMPT_DEADLINE.get()
    if deadline is None:
        return timeout
    left = deadline - time.monotonic()
    if left <= 0:
        raise httpcore.ReadTimeout("the answer did not arrive whole in time")
    return left if timeout is None else min(timeout, left)


class DeadlineStream(httpcore.NetworkStream):
    def __init__(self, stream: httpcore.NetworkStream) -> None:
        self._stream = stream

    def read(self, max_bytes: int, timeout: float | None = None) -> bytes:
        return self._stream.read(max_bytes, within_deadline(timeout))

    def write(self, buffer: bytes, timeout: float | None = None) -> None:
        self._stream.write(buffer, within_deadline(timeout))

    def close(self) -> None:
        self._stream.close()

    def start_tls(self, ssl_context, server_hostname=None, timeout=None) -> httpcore.NetworkStream:
        return DeadlineStream(self._stream.start_tls(ssl_context, server_hostname, within_deadline(timeout)))

    def get_extra_info(self, info: str) -> Any:
        return self._stream.get_extra_info(info)


class DeadlineBackend(httpcore.NetworkBackend):
    """httpcore's sockets, each operation within what is left of the attempt (``within_deadline``)."""

    def __init__(self, backend: httpcore.NetworkBackend) -> None:
        self._backend = backend

    def connect_tcp(self, host, port, timeout=None, local_address=None, socket_options=None):
        return DeadlineStream(self._backend.connect_tcp(host, port, within_deadline(timeout), local_address,
                                                         socket_options))

    def connect_unix_socket(self, path, timeout=None, socket_options=None):
        return DeadlineStream(self._backend.connect_unix_socket(path, within_deadline(timeout), socket_options))

    def sleep(self, seconds: float) -> None:
        self._backend.sleep(seconds)
