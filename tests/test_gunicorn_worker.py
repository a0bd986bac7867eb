"""The gunicorn worker (core.gunicorn_worker) spreads keep-alive clients that connect at once over the workers, so
that no worker queues requests for its threads while another idles. A real gunicorn, started as the project's
default configuration starts it (./gunicorn.conf.py), in front of a small WSGI application that names its process."""

from __future__ import annotations

import http.client
import subprocess
import sys
import threading
import time
from collections import Counter

import pytest

from tests.fakes.service import BASE_DIR, free_port

WORKERS, THREADS = 2, 2


def _pid_of_answer(conn: http.client.HTTPConnection) -> str:
    conn.request("GET", "/")
    response = conn.getresponse()
    assert response.status == 200
    return response.read().decode()


@pytest.mark.slow
def test_keep_alive_clients_that_connect_at_once_are_spread_over_the_workers():
    port = free_port()
    server = subprocess.Popen(
        [sys.executable, "-m", "gunicorn", "tests.fakes.pid_app:application", "--bind", f"127.0.0.1:{port}",
         "--workers", str(WORKERS), "--threads", str(THREADS), "--log-level", "warning"],
        cwd=BASE_DIR, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        deadline = time.monotonic() + 30
        seen: set[str] = set()
        while len(seen) < WORKERS:  # every worker has booted and serves
            assert time.monotonic() < deadline, "gunicorn did not start its workers"
            try:
                probe = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
                seen.add(_pid_of_answer(probe))
                probe.close()
            except OSError:
                time.sleep(0.2)
        for _ in range(5):
            conns = [http.client.HTTPConnection("127.0.0.1", port, timeout=10) for _ in range(WORKERS * THREADS)]
            for c in conns:
                c.connect()
            # one request on each at the same time, so that every thread of every worker is busy
            threads = [threading.Thread(target=_pid_of_answer, args=(c,)) for c in conns]
            for t in threads:
                t.start()
            for t in threads:
                t.join()
            # a second request on each kept-alive connection goes to the worker that accepted it
            again = [_pid_of_answer(c) for c in conns]
            for c in conns:
                c.close()
            assert sorted(Counter(again).values()) == [THREADS] * WORKERS, Counter(again)
            time.sleep(0.3)  # the workers see the closed connections before the next round
    finally:
        server.terminate()
        server.wait(timeout=30)
