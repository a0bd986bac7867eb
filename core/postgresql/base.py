"""Django's PostgreSQL backend, failing fast while the server cannot be reached (``ENGINE: "core.postgresql"``).

A connection that cannot be made opens a circuit (:class:`core.circuit.Circuit`) for the database alias: until a
trial connection succeeds, every new connection is refused at once with ``OperationalError``, which the API answers
``503 service_unavailable`` with ``Retry-After`` (core.api) and readiness ``503 database_unavailable``
(core.health). Without it each request waited for its own connection (the pool's timeout, about 1.5 s) and, 50
clients behind 8 threads, queued for several seconds. ``DB_CIRCUIT_RETRY_SECONDS`` after the failure (default 1)
one request tries again; the first that connects closes the circuit, so the service recovers without a restart.
Only connecting counts: a query that fails on a connection already made (a server restarted under a pooled
connection) says nothing about whether the next connection can be made; a pooled connection that the server has
closed is dropped when it is taken from the pool, without a round trip, so a restart costs no request. Nor does a
wait for a pooled connection that timed out while the pool made its connections without fail: a burst that merely
queues behind the pool's ``DB_POOL_MAX_SIZE`` connections is not an outage, and a circuit opened by it answered
every request 503 for its open period although PostgreSQL served the others.
"""

from __future__ import annotations

import select
import threading

import psycopg
from django.conf import settings
from django.db.backends.postgresql.base import DatabaseWrapper as PostgreSQLDatabaseWrapper
from psycopg_pool import PoolTimeout

from core.circuit import Circuit
from core.postgresql import pipeline

pipeline.install()  # behind PgBouncer in transaction mode, nothing may follow a pipeline's Sync (see the module)

_circuits: dict[str, Circuit] = {}
_circuits_lock = threading.Lock()


def circuit_for(alias: str) -> Circuit:
    """The process's circuit for a database alias (one per alias, shared by its threads)."""
    with _circuits_lock:
        if alias not in _circuits:
            _circuits[alias] = Circuit(retry_after=settings.DB_CIRCUIT_RETRY_SECONDS)
        return _circuits[alias]


def _closed_by_server(connection: psycopg.Connection) -> bool:
    """Whether the server has closed this idle connection, found without a round trip: an idle connection has
    nothing to read unless the server has said goodbye (why, then the end of the stream) or sent a notice. Reading
    what is there (a select() that returns at once, and libpq's read) tells them apart."""
    pgconn = connection.pgconn
    for _ in range(4):  # a goodbye, then the end of the stream, may take two reads
        if pgconn.status != psycopg.pq.ConnStatus.OK:
            return True
        try:
            readable, _, _ = select.select([pgconn.socket], [], [], 0)
            if not readable:
                return False
            pgconn.consume_input()
        except (OSError, ValueError, psycopg.Error):
            return True
    return pgconn.status != psycopg.pq.ConnStatus.OK


class DatabaseWrapper(PostgreSQLDatabaseWrapper):
    def get_new_connection(self, conn_params):
        circuit = circuit_for(self.alias)
        if not circuit.allow():
            raise psycopg.OperationalError("the database could not be reached a moment ago; not retried yet")
        try:
            connection = super().get_new_connection(conn_params)
            if self.pool:  # type: ignore[attr-defined]  # the PostgreSQL backend's pool (Django 5.1+)
                connection = self._pooled_alive(connection, conn_params)
        except PoolTimeout:
            if not circuit.is_open and not self._pool_failed_to_connect():
                raise  # the request waited in vain behind the others; the next ones go through as before
            circuit.failed()  # (a trial that got no connection failed, whatever kept it waiting)
            self._discard_pool()
            raise
        except BaseException:
            circuit.failed()
            self._discard_pool()
            raise
        circuit.succeeded()
        return connection

    def _pooled_alive(self, connection, conn_params):
        """A connection from the pool that the server has not closed: one it closed (a restart, an administrator
        ending it) is dropped, and the pool makes another in its place. Without this, after PostgreSQL restarted
        each request that got one of the pool's old connections answered 503, the server being back."""
        pool = self.pool  # type: ignore[attr-defined]
        for _ in range(pool.max_size):
            if not _closed_by_server(connection):
                return connection
            connection.close()
            pool.putconn(connection)  # discarded, and replaced by a new one
            connection = super().get_new_connection(conn_params)
        return connection

    def _configure_connection(self, connection):
        # The pool calls this after each connection it makes: what it has failed to make so far is no longer news.
        pool = getattr(connection, "_pool", None)
        if pool is not None:
            pool.errors_when_last_connected = pool.get_stats().get("connections_errors", 0)
        return super()._configure_connection(connection)  # type: ignore[misc]  # Django 5.1+

    def pool_saturated(self) -> bool:
        """Whether every connection the pool may hold is in use (a request would wait for one) while the server is
        taken to be up: the circuit is closed and the pool has not failed to connect since it last connected. A
        queue, not an outage (readiness says so at once, without waiting its turn: core.health)."""
        if not self.settings_dict["OPTIONS"].get("pool") or circuit_for(self.alias).is_open:
            return False
        pool = self.pool  # type: ignore[attr-defined]
        stats = pool.get_stats()
        in_use = stats.get("pool_available", 0) == 0 and stats.get("pool_size", 0) >= pool.max_size
        return (in_use or stats.get("requests_waiting", 0) > 0) and not self._pool_failed_to_connect()

    def _pool_failed_to_connect(self) -> bool:
        """Whether the pool has failed to make a connection since it last made one. A wait for a connection that
        timed out otherwise was a wait behind the other requests (every connection the pool may hold in use), or
        for a connection still being made: neither says the server is gone, while a refused or timed-out attempt
        does (then the pool also retries with growing pauses, which the circuit's fresh pool cuts short)."""
        pool = self.pool  # type: ignore[attr-defined]
        if pool is None:
            return True
        return pool.get_stats().get("connections_errors", 0) > getattr(pool, "errors_when_last_connected", 0)

    def _discard_pool(self) -> None:
        """The next connection comes from a fresh pool, which connects at once: psycopg_pool retries a failed
        connection with exponential backoff (1 s, doubling), and would go on failing the circuit's trials for as
        long again after the server is back. Only the circuit's trial uses the new pool, so this happens about
        once a second at most."""
        if not self.settings_dict["OPTIONS"].get("pool"):
            return
        try:
            self.close_pool()  # type: ignore[attr-defined]  # the PostgreSQL backend's pool (Django 5.1+)
        except Exception:  # noqa: S110 - another thread closed it first
            pass
