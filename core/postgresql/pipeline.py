"""psycopg's pipeline, ending in its Sync alone: behind PgBouncer in transaction mode nothing follows the Sync.

psycopg leaves a pipeline by sending a Sync and then, if any answer has not arrived yet (the usual case), a Flush
in a write of its own, to make the server send what it holds. The Sync already does that, so the Flush is
redundant, and behind a pooler it is harmful. PgBouncer in transaction mode (1.18, Debian's, and the versions
before it that track no Sync) gives the server connection back to its pool when the Sync's ReadyForQuery says the
transaction is over. A Flush that reaches it after that (the client's thread lost the CPU between the two writes)
is a new request, so PgBouncer links a server to the client for it, forwards it, and waits for a ReadyForQuery
that never comes. The server connection stays parked on that idle client until the client's next request, while
the others queue for it. With two server connections and a loaded machine, requests waited 30 s and more
(``tests/test_scale_out.py``, PgBouncer's statistics: 17 transactions a second, 4 s average wait).

:class:`Pipeline` leaves the pipeline the way psycopg's own ``Pipeline.sync()`` does, without the Flush: the
Sync makes the server send every answer, which are then read. :func:`install` makes every psycopg connection of
the process build this pipeline, pooled or not (``Connection.pipeline()`` looks the class up in its module). It
overrides a private psycopg method, so the version range in ``pyproject.toml`` is what it was checked against,
and ``tests/test_pgbouncer_pipeline.py`` fails if the wire changes: it traces the messages a pipeline sends.
"""

from __future__ import annotations

import psycopg
import psycopg.connection
from psycopg.generators import send


class Pipeline(psycopg.Pipeline):
    def _exit_gen(self):
        try:
            self._enqueue_sync()
            yield from self._communicate_gen()
        finally:
            yield from send(self.pgconn)  # whatever of the Sync is still in libpq's buffer (a large pipeline)
            yield from self._fetch_gen(flush=False)  # the Sync makes the server send every answer


def install() -> None:
    """Make every psycopg connection of this process use :class:`Pipeline` (idempotent)."""
    psycopg.connection.Pipeline = Pipeline  # type: ignore[misc]
