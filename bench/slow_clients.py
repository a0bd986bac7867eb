"""Slow and idle clients against a running service: N connections that send part of a request and wait, and how long
``/health/live`` (and, given a token, one API read) takes to answer meanwhile.

    .venv/bin/python -m bench.slow_clients --url http://127.0.0.1:8000 --held 8 128 [--token T --path /v1/...]

Each held connection sends one of: nothing, half a request line, a request line and half a header, or a whole head
announcing a body that never comes; they are held while the probes run, then closed.
"""

from __future__ import annotations

import argparse
import http.client
import socket
import time
from contextlib import contextmanager
from urllib.parse import urlparse

PARTS = (
    b"",
    b"GET /health/li",
    b"GET /health/live HTTP/1.1\r\nHost: slow\r\nX-Slow: ",
    b"POST /v1/patients HTTP/1.1\r\nHost: slow\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{",
)


@contextmanager
def held_connections(host: str, port: int, count: int):
    """``count`` connections, each having sent part of a request; closed when the block ends."""
    held: list[socket.socket] = []
    try:
        for i in range(count):
            sock = socket.create_connection((host, port), timeout=5)
            part = PARTS[i % len(PARTS)]
            if part:
                sock.sendall(part)
            held.append(sock)
        time.sleep(0.3)  # every part has reached the server
        yield held
    finally:
        for sock in held:
            sock.close()


def timed_get(host: str, port: int, path: str, *, token: str | None = None,
              timeout: float = 20.0) -> tuple[float, int]:
    """Seconds to a full answer on a new connection, and its status (0: no answer within ``timeout``)."""
    started = time.monotonic()
    conn = http.client.HTTPConnection(host, port, timeout=timeout)
    try:
        conn.request("GET", path, headers={"Authorization": f"Bearer {token}"} if token else {})
        response = conn.getresponse()
        response.read()
        status = response.status
    except OSError:
        status = 0
    finally:
        conn.close()
    return time.monotonic() - started, status


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--url", default="http://127.0.0.1:8000")
    parser.add_argument("--held", type=int, nargs="+", default=[8, 128])
    parser.add_argument("--token")
    parser.add_argument("--path", help="an API path to read with --token")
    parser.add_argument("--timeout", type=float, default=20.0)
    args = parser.parse_args()
    url = urlparse(args.url)
    host, port = url.hostname or "127.0.0.1", url.port or 80
    for count in args.held:
        with held_connections(host, port, count):
            seconds, status = timed_get(host, port, "/health/live", timeout=args.timeout)
            line = f"{count:4d} held: /health/live {status} in {seconds:.3f}s"
            if args.token and args.path:
                seconds, status = timed_get(host, port, args.path, token=args.token, timeout=args.timeout)
                line += f"; {args.path} {status} in {seconds:.3f}s"
        print(line, flush=True)


if __name__ == "__main__":
    main()
