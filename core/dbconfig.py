"""Where the database lives, and the roles the service uses there.

Two login roles share one database:

* the *owner* role runs migrations and owns every table (it is never used to serve requests);
* the *runtime* role serves requests. It is not superuser, not BYPASSRLS and owns nothing, so every
  patient-scoped query goes through row-level security. It gets its privileges through the NOLOGIN group
  role ``anamnesis_runtime``, which the migrations grant to by name.

When ``DATABASE_URL`` is unset (development, tests, CI) an embedded PostgreSQL 16 with pgvector is started
from the ``pgserver`` package in a project-local data folder, and the roles are created there. This module
imports nothing from Django so settings can use it.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlparse

from psycopg.conninfo import conninfo_to_dict, make_conninfo

BASE_DIR = Path(__file__).resolve().parent.parent

RUNTIME_GROUP_ROLE = "anamnesis_runtime"
EMBEDDED_OWNER_ROLE = "anamnesis_owner"
EMBEDDED_RUNTIME_ROLE = "anamnesis_app"


@dataclass(frozen=True)
class DbParams:
    name: str
    user: str
    password: str
    host: str  # several, comma-separated, for a replicated cluster (libpq tries them in order)
    port: str  # one per host, or one for all
    # Other libpq keywords from the URL's query, e.g. target_session_attrs=read-write (connect only to the
    # primary, whichever host that is now) or sslmode; they apply to every connection, pooled or not.
    extra: tuple[tuple[str, str], ...] = ()

    def django(self, *, pool: bool) -> dict:
        # An unreachable server fails a request within DB_CONNECT_TIMEOUT_SECONDS (503 service_unavailable),
        # never after libpq's default wait; the pool waits a little less for a connection, so that the whole
        # request, not just the wait, stays within it.
        connect_timeout = int(os.environ.get("DB_CONNECT_TIMEOUT_SECONDS", "2"))
        options: dict = {"connect_timeout": connect_timeout, **statement_options(), **dict(self.extra)}
        if pool:
            options["pool"] = {"min_size": 1, "max_size": int(os.environ.get("DB_POOL_MAX_SIZE", "10")),
                               "timeout": max(0.5, connect_timeout - 0.5)}
        return {
            "ENGINE": "core.postgresql",  # Django's, failing fast while the server is unreachable
            "NAME": self.name,
            "USER": self.user,
            "PASSWORD": self.password,
            "HOST": self.host,
            "PORT": self.port,
            "CONN_MAX_AGE": 0,
            "OPTIONS": options,
        }

    def conninfo(self, *, dbname: str | None = None) -> str:
        """A libpq keyword string for psycopg.connect()."""
        parts = {"dbname": dbname or self.name, "user": self.user, "host": self.host}
        if self.port:
            parts["port"] = self.port
        if self.password:
            parts["password"] = self.password
        parts.update(self.extra)
        return make_conninfo("", **parts)  # quoted and escaped as libpq expects (a password may hold a quote)


def statement_options(env: Mapping[str, str] | None = None) -> dict:
    """Server-side parameter binding, and prepared statements for what a connection runs repeatedly.

    Every query that touches patient data is planned against the row-level-security policies, and planning them
    costs more than running the query (3 ms against 1 ms for the memory list). psycopg prepares a statement the
    ``DB_PREPARE_THRESHOLD``-th time a connection runs it (default 5), and PostgreSQL then reuses its plan; the
    policies read the identity from ``current_setting`` at run time, so a reused plan is still the caller's.
    Behind a pooler that cannot keep prepared statements across transactions (PgBouncer before 1.21 in
    transaction mode), set ``DB_PREPARE_THRESHOLD=off``: parameters are still bound by the server, nothing is
    prepared.
    """
    source: Mapping[str, str] = os.environ if env is None else env
    raw = source.get("DB_PREPARE_THRESHOLD", "5").strip().lower()
    threshold = None if raw in ("", "off", "none") else int(raw)
    return {"server_side_binding": True, "prepare_threshold": threshold}


def parse_url(url: str) -> DbParams:
    """A ``postgresql://`` URL as libpq reads it (psycopg's parser is libpq's): several hosts are allowed,
    ``postgresql://h1:5432,h2:5432/db?target_session_attrs=read-write``, and so is ``?host=/socket/dir``."""
    if urlparse(url).scheme not in ("postgres", "postgresql"):
        raise ValueError("database URLs must use the postgresql:// scheme")
    params = conninfo_to_dict(url)
    known = {key: str(params.pop(key, "") or "") for key in ("dbname", "user", "password", "host", "port")}
    return DbParams(
        name=known["dbname"] or "postgres",
        user=known["user"],
        password=known["password"],
        host=known["host"],
        port=known["port"],
        extra=tuple(sorted((key, str(value)) for key, value in params.items())),
    )


def embedded_data_dir() -> Path:
    return Path(os.environ.get("EMBEDDED_PGDATA", BASE_DIR / ".pgdata"))


_server = None


def embedded_admin() -> DbParams:
    """Start (or attach to) the embedded server and return its superuser connection parameters.

    pgserver reference-counts the processes that use one data folder and stops the server cleanly
    when the last of them exits.
    """
    global _server
    if _server is None:
        import atexit
        import warnings

        warnings.filterwarnings("ignore", module="platformdirs")
        import pgserver

        data_dir = embedded_data_dir()
        _forget_exited_users(data_dir)
        _server = pgserver.get_server(data_dir, cleanup_mode="stop")
        atexit.register(_forget_exited_users, data_dir)  # runs before pgserver's own handler (registered first)
    return parse_url(_server.get_uri("postgres"))


def _forget_exited_users(data_dir: Path) -> None:
    """Drop the processes that have exited from pgserver's list of the data folder's users.

    pgserver adds each process that attaches to ``.handle_pids.json`` and stops the server in the exit handler of
    the last one. A process that ends without running exit handlers (killed, or a child leaving by ``os._exit``)
    stays on the list, and then no process is ever the last: the server outlived ``make run`` stopped by SIGTERM.
    Taken under pgserver's own lock, the one it counts under.
    """
    import psutil
    from pgserver.postgres_server import PostgresServer
    from pgserver.utils import DiskList

    def running(pid: int) -> bool:
        if not psutil.pid_exists(pid):  # a process, not a thread that now has the number (psutil tells them apart)
            return False
        try:
            return psutil.Process(pid).status() != psutil.STATUS_ZOMBIE
        except psutil.Error:
            return False

    users = DiskList(data_dir / ".handle_pids.json")
    with PostgresServer._lock:
        pids = users.get()
        alive = [pid for pid in pids if running(pid)]
        if alive != pids:
            users.put(alive)


@dataclass(frozen=True)
class DatabaseTopology:
    runtime: DbParams
    owner: DbParams
    admin: DbParams | None  # only known for the embedded server or when DATABASE_ADMIN_URL is set
    embedded: bool


def resolve(env: dict[str, str] | None = None) -> DatabaseTopology:
    env = dict(os.environ if env is None else env)
    db_name = env.get("ANAMNESIS_DB_NAME", "anamnesis")
    if env.get("DATABASE_URL"):
        runtime = parse_url(env["DATABASE_URL"])
        owner_url = env.get("DATABASE_OWNER_URL")
        if not owner_url:
            raise ValueError("DATABASE_OWNER_URL must be set together with DATABASE_URL")
        owner = parse_url(owner_url)
        admin = parse_url(env["DATABASE_ADMIN_URL"]) if env.get("DATABASE_ADMIN_URL") else None
        return DatabaseTopology(runtime=runtime, owner=owner, admin=admin, embedded=False)
    admin = embedded_admin()
    runtime = DbParams(db_name, EMBEDDED_RUNTIME_ROLE, "", admin.host, admin.port)
    owner = DbParams(db_name, EMBEDDED_OWNER_ROLE, "", admin.host, admin.port)
    return DatabaseTopology(runtime=runtime, owner=owner, admin=admin, embedded=True)
