"""An httpx transport that bounds a whole exchange with an outside system, not only each network operation.

httpx's timeouts apply to each connect, write and read: a server that sends its answer a byte at a time, each byte
within the read timeout, holds the caller for as long as it likes (measured: a webhook receiver that dribbled its
response head held a delivery for 60 s under a 5 s timeout, so a handful of them stopped every delivery, and a
scheduling system doing the same would hold web threads during a slot search). :class:`DeadlineTransport` gives each
request a deadline when it is sent; every connect, write and read after it waits at most for what is left, and one
that would start after the deadline fails as that phase's timeout (``httpx.ConnectTimeout``, ``WriteTimeout``,
``ReadTimeout``), which the callers already handle. The body of a streamed response counts too, until the next
request on the same thread sets a new deadline.
"""

from __future__ import annotations

import contextvars
import time
import typing

import httpcore
import httpx

_deadline: contextvars.ContextVar[float | None] = contextvars.ContextVar("outside_http_deadline", default=None)


def _left(timeout: float | None, expired: type[Exception]) -> float | None:
    deadline = _deadline.get()
    if deadline is None:
        return timeout
    left = deadline - time.monotonic()
    if left <= 0:
        raise expired("the exchange's deadline has passed")
    return left if timeout is None else min(timeout, left)


class _Stream(httpcore.NetworkStream):
    def __init__(self, stream: httpcore.NetworkStream) -> None:
        self._stream = stream

    def read(self, max_bytes: int, timeout: float | None = None) -> bytes:
        return self._stream.read(max_bytes, _left(timeout, httpcore.ReadTimeout))

    def write(self, buffer: bytes, timeout: float | None = None) -> None:
        self._stream.write(buffer, _left(timeout, httpcore.WriteTimeout))

    def close(self) -> None:
        self._stream.close()

    def start_tls(
        self, ssl_context, server_hostname: str | None = None, timeout: float | None = None
    ) -> httpcore.NetworkStream:
        return _Stream(self._stream.start_tls(ssl_context, server_hostname, _left(timeout, httpcore.ConnectTimeout)))

    def get_extra_info(self, info: str) -> typing.Any:
        return self._stream.get_extra_info(info)


class _Backend(httpcore.NetworkBackend):
    def __init__(self, backend: httpcore.NetworkBackend,
                 address_for: typing.Callable[[str], list[str]] | None = None) -> None:
        self._backend = backend
        self._address_for = address_for

    def connect_tcp(
        self,
        host: str,
        port: int,
        timeout: float | None = None,
        local_address: str | None = None,
        socket_options: typing.Iterable | None = None,
    ) -> httpcore.NetworkStream:
        if self._address_for is None:
            return _Stream(
                self._backend.connect_tcp(
                    host, port, _left(timeout, httpcore.ConnectTimeout), local_address, socket_options
                )
            )
        # the very addresses that were checked, never a second look-up's: each in turn, as a connection by name
        # tries each address the name has (an IPv6 one first may have no route here)
        addresses = self._address_for(host)
        for i, address in enumerate(addresses):
            try:
                return _Stream(self._backend.connect_tcp(
                    address, port, _left(timeout, httpcore.ConnectTimeout), local_address, socket_options))
            except (httpcore.ConnectError, httpcore.ConnectTimeout):
                if i == len(addresses) - 1:
                    raise
        raise httpcore.ConnectError("no address to connect to")

    def connect_unix_socket(
        self, path: str, timeout: float | None = None, socket_options: typing.Iterable | None = None
    ) -> httpcore.NetworkStream:
        return _Stream(self._backend.connect_unix_socket(path, _left(timeout, httpcore.ConnectTimeout), socket_options))

    def sleep(self, seconds: float) -> None:
        self._backend.sleep(seconds)


class DeadlineTransport(httpx.HTTPTransport):
    """``httpx.HTTPTransport`` (same arguments) whose requests each end within ``deadline`` seconds of being sent.

    ``address_for``, when given, turns the host name of each new connection into the addresses it connects to, tried
    in turn (or raises): a caller that must check where it connects resolves and checks in it, and the connection
    goes to those addresses only, while TLS still verifies the name."""

    def __init__(self, *, deadline: float, address_for: typing.Callable[[str], list[str]] | None = None,
                 **kwargs) -> None:
        super().__init__(**kwargs)
        self.deadline = deadline
        # httpcore takes a network backend only when its pool is made, which httpx does not expose
        self._pool._network_backend = _Backend(self._pool._network_backend, address_for)

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        _deadline.set(time.monotonic() + self.deadline)
        return super().handle_request(request)
