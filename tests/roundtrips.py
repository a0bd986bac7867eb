"""Counting round trips to PostgreSQL: how often a request waits for the server to answer.

Every exchange of psycopg with the server is a generator that :func:`psycopg.waiting.wait` drives: it sends what it
has, then waits for the socket to be readable for the answer. A run of one such generator that had to wait for
the server's answer at least once is one round trip; a run that only wrote (psycopg sending a pipeline's queued
statements before its sync) is not. A pipeline (several statements, then one sync) is therefore one round trip,
and so is every statement sent on its own. Round trips are deterministic (unlike timings), so tests assert them
exactly."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass

import psycopg.waiting
from psycopg.waiting import Ready


@dataclass
class RoundTrips:
    count: int = 0


def _counted(gen, trips: RoundTrips):
    answered = False
    try:
        wait = next(gen)
        while True:
            ready = yield wait
            if ready is not None and int(ready) & int(Ready.R):
                answered = True
            wait = gen.send(ready)
    except StopIteration as stop:
        return stop.value
    finally:
        if answered:
            trips.count += 1


@contextmanager
def round_trips() -> Iterator[RoundTrips]:
    """Count the round trips of every psycopg connection of this process while the block runs."""
    trips = RoundTrips()
    original = psycopg.waiting.wait

    def wait(gen, *args, **kwargs):
        return original(_counted(gen, trips), *args, **kwargs)

    psycopg.waiting.wait = wait  # type: ignore[assignment]
    try:
        yield trips
    finally:
        psycopg.waiting.wait = original  # type: ignore[assignment]
