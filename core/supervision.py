"""Child processes of a foreground command (``serve``, ``run_demo``): started in order, stopped in reverse order.

Each child is stopped and waited for (up to ``stop_timeout``, then killed) before the one started before it is
stopped: ``serve``'s web workers write the vectors of the memories they have just stored as they stop, and need
the embedding server started before them until they are done. SIGTERM is handled like Ctrl-C, so a supervisor
stopped by its process manager leaves no child behind; and each child is sent SIGTERM by the kernel when the
supervisor dies without stopping them (killed with SIGKILL, out of memory): they went on, still holding the port,
so the service started again could not bind it.
"""

from __future__ import annotations

import ctypes
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager

import httpx
from django.core.management.base import CommandError


def _interrupt(signum, frame):
    raise KeyboardInterrupt()


_PR_SET_PDEATHSIG = 1
_LIBC: ctypes.CDLL | None
try:  # loaded here, not in the forked child (which may not take the loader's lock another thread held)
    _LIBC = ctypes.CDLL(None, use_errno=True)
except OSError:
    _LIBC = None


def stopped_with_parent(parent: int | None = None):
    """A ``preexec_fn``: the child is sent SIGTERM when the process that started it dies (Linux's parent-death
    signal; elsewhere nothing). A parent gone before the signal was set is answered at once. ``parent``: when a
    process arranges it for itself, its parent's id as it knows it."""
    parent = os.getpid() if parent is None else parent

    def arrange() -> None:
        try:
            _LIBC.prctl(_PR_SET_PDEATHSIG, signal.SIGTERM)  # type: ignore[union-attr]
        except AttributeError:  # no libc, or no prctl (not Linux)
            return
        if os.getppid() != parent:
            os.kill(os.getpid(), signal.SIGTERM)

    return arrange


class Children:
    """The children started so far, in start order; ``watched`` ones end the command when they exit, ``restarted``
    ones are started again in their place (after a pause that grows while they keep exiting soon after starting)."""

    # A restarted child's pause: doubled, up to the most, each time it exits within STEADY_SECONDS of its start.
    RESTART_PAUSE_SECONDS = 1.0
    RESTART_PAUSE_MAX_SECONDS = 30.0
    STEADY_SECONDS = 60.0

    def __init__(self) -> None:
        self.started: list[subprocess.Popen] = []
        self.watched: list[subprocess.Popen] = []
        self._restart: dict[subprocess.Popen, dict] = {}  # a restarted child: its argv, env, start, pause, when due

    def start(self, argv: Sequence[str], *, env: Mapping[str, str] | None = None,
              watch: bool = True, restart: bool = False) -> subprocess.Popen:
        child = subprocess.Popen(list(argv), env=env,  # noqa: S603 (argv built by the calling command)
                                 preexec_fn=stopped_with_parent())  # noqa: PLW1509 (before any thread starts)
        self.started.append(child)
        if restart:
            self._restart[child] = {"argv": list(argv), "env": env, "started_at": time.monotonic(),
                                        "pause": self.RESTART_PAUSE_SECONDS, "due": None}
        elif watch:
            self.watched.append(child)
        return child

    def _restart_exited(self) -> None:
        now = time.monotonic()
        for index, child in enumerate(self.started):
            plan = self._restart.get(child)
            if plan is None or child.poll() is None:
                continue
            if plan["due"] is None:
                ran = now - plan["started_at"]
                if ran >= self.STEADY_SECONDS:
                    plan["pause"] = self.RESTART_PAUSE_SECONDS
                plan["due"] = now + plan["pause"]
                sys.stderr.write(f"{' '.join(plan['argv'][1:])} exited with status {child.returncode}; "
                                 f"starting it again in {plan['pause']:.0f} s\n")
                plan["pause"] = min(plan["pause"] * 2, self.RESTART_PAUSE_MAX_SECONDS)
            if now < plan["due"]:
                continue
            again = subprocess.Popen(plan["argv"], env=plan["env"],  # noqa: S603 (the same argv as before)
                                     preexec_fn=stopped_with_parent())  # noqa: PLW1509
            self.started[index] = again  # its place in the stop order is the one it had
            del self._restart[child]
            self._restart[again] = {**plan, "started_at": now, "due": None}

    def wait(self, interval: float = 0.5) -> subprocess.Popen:
        """The first watched child to exit (blocks until one does); restarted children exiting meanwhile are
        started again."""
        while True:
            time.sleep(interval)
            exited = next((child for child in self.watched if child.poll() is not None), None)
            if exited is not None:
                return exited
            self._restart_exited()

    def stop(self, timeout: float) -> None:
        for child in reversed(self.started):
            if child.poll() is None:
                child.terminate()
            try:
                child.wait(timeout=timeout)
            except subprocess.TimeoutExpired:
                child.kill()
                child.wait()


@contextmanager
def supervised(*, stop_timeout: float = 15.0) -> Iterator[Children]:
    """Children started in the block are stopped when it ends, however it ends; Ctrl-C and SIGTERM end the block
    quietly, any other exception still propagates (after the children are stopped)."""
    children = Children()
    previous = signal.signal(signal.SIGTERM, _interrupt)
    try:
        yield children
    except KeyboardInterrupt:
        pass
    finally:
        children.stop(stop_timeout)
        signal.signal(signal.SIGTERM, previous)


def wait_until_ready(url: str, process: subprocess.Popen, *, name: str, timeout: float,
                     interval: float) -> None:
    """Returns once ``url`` answers 200; CommandError when ``process`` exits first or ``timeout`` passes."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise CommandError(f"the {name} exited during start-up")
        try:
            if httpx.get(url, timeout=1.0).status_code == 200:
                return
        except httpx.HTTPError:
            pass
        time.sleep(interval)
    raise CommandError(f"the {name} did not start in time")
