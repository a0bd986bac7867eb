"""How a reading's cost grows with its input, in CPU time: for tests that guard against quadratic or exponential
work (backtracking regular expressions, rescans) without a wall-clock bound that other processes' load can break.

A wall-clock bound (2 s for a whole 8,000-character turn) failed on a loaded machine while the parser was as fast as
ever; a CPU-time ratio does not depend on what else runs. Reading twice the text may take about twice the CPU time
(linear); quadratic work takes four times, exponential far more, and the guard stops a reading that runs away.
"""

from __future__ import annotations

import signal
import time
from collections.abc import Callable

# what a linear reading may cost for twice the input, with room for noise (quadratic is 4)
LINEAR_RATIO = 3.0
# CPU seconds below which a reading is too quick for a ratio to mean anything (timer resolution, a cache miss)
NOISE_FLOOR = 0.02


def cpu_seconds(read: Callable[[str], object], text: str, *, guard: float) -> float:
    """The CPU seconds this thread spent in ``read(text)``; an AssertionError (a failure, not a hang) once the
    process has spent ``guard`` CPU seconds on it."""

    def runaway(*_):
        raise AssertionError(f"reading {len(text)} characters took over {guard} s of CPU")

    previous = signal.signal(signal.SIGPROF, runaway)
    signal.setitimer(signal.ITIMER_PROF, guard)
    try:
        started = time.thread_time()
        read(text)
        return time.thread_time() - started
    finally:
        signal.setitimer(signal.ITIMER_PROF, 0)
        signal.signal(signal.SIGPROF, previous)


def assert_linear(read: Callable[[str], object], unit: str, *, chars: int, guard: float = 20.0) -> None:
    """``read`` of ``unit`` repeated to ``chars`` characters costs at most LINEAR_RATIO times its cost at half
    that length (measured again once before failing, so one slow moment is not a failure)."""
    half, whole = (unit * chars)[:chars // 2], (unit * chars)[:chars]
    for _ in range(2):
        small = cpu_seconds(read, half, guard=guard)
        large = cpu_seconds(read, whole, guard=guard)
        if large <= LINEAR_RATIO * max(small, NOISE_FLOOR):
            return
    raise AssertionError(f"{unit!r}: {chars // 2} characters took {small:.3f} s of CPU, {chars} took {large:.3f} s "
                         f"(over {LINEAR_RATIO:g} times: not linear)")
