"""What a pipeline puts on the wire: its Sync is the last message, with nothing after it.

psycopg left a pipeline with a Sync and then, in a write of its own, a Flush. Behind PgBouncer in transaction mode a
Flush that arrives after the Sync's answer has released the server connection links a server to the idle client
and parks it there (``core/postgresql/pipeline.py``; the end-to-end case is in ``tests/test_scale_out.py``)."""

from __future__ import annotations

import tempfile

import psycopg
import pytest
from django.db import connection

pytestmark = pytest.mark.django_db


def frontend_messages(run) -> list[str]:
    """The messages the client sent while ``run(raw_connection)`` ran, as libpq's trace names them."""
    with connection.cursor() as cursor:  # the test's transaction is open (its BEGIN is not the pipeline's)
        cursor.execute("SELECT 0")
    raw = connection.connection
    with tempfile.TemporaryFile(mode="w+") as trace:
        raw.pgconn.trace(trace.fileno())
        raw.pgconn.set_trace_flags(psycopg.pq.Trace.SUPPRESS_TIMESTAMPS | psycopg.pq.Trace.REGRESS_MODE)
        try:
            run(raw)
        finally:
            raw.pgconn.untrace()
        trace.seek(0)
        lines = trace.read().splitlines()
    return [line.split("\t")[2].split(" ")[0] for line in lines if line.startswith("F\t")]


def test_a_pipeline_whose_answers_are_still_on_their_way_ends_with_its_sync():
    """The statement is still running when the pipeline is left (its answers have not arrived): the client sends
    the Sync and nothing after it (it sent a Flush after it, which PgBouncer took for a new request)."""

    def slow_pipeline(raw):
        with raw.pipeline():
            raw.execute("SELECT pg_sleep(0.05)")

    sent = frontend_messages(slow_pipeline)
    assert "Execute" in sent
    assert sent[-1] == "Sync", sent
    assert "Flush" not in sent[sent.index("Execute"):], sent


def test_the_product_s_pipelines_send_one_sync_each_and_read_every_answer():
    """Two statements in one pipeline, the way the service sends an identity with its read: one Sync for both,
    both answers read (the Sync alone makes the server send them)."""
    results = []

    def two_statements(raw):
        with raw.pipeline():
            first = raw.execute("SELECT 1, pg_sleep(0.02)")
            second = raw.execute("SELECT 2")
        results.extend([first.fetchone()[0], second.fetchone()[0]])

    sent = frontend_messages(two_statements)
    assert results == [1, 2]
    assert sent.count("Sync") == 1 and sent[-1] == "Sync", " ".join(sent)
