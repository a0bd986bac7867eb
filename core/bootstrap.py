"""Create the roles and the database the service needs. Needs a superuser (or CREATEROLE+CREATEDB) connection.

Idempotent: safe to run before every start. Used by ``manage.py db_bootstrap`` and by the test suite.
"""

from __future__ import annotations

import psycopg
from psycopg import sql

from core.dbconfig import RUNTIME_GROUP_ROLE, DatabaseTopology


def _role_exists(cur, name: str) -> bool:
    return cur.execute("SELECT 1 FROM pg_roles WHERE rolname = %s", (name,)).fetchone() is not None


def ensure_roles(topology: DatabaseTopology) -> None:
    assert topology.admin is not None
    with psycopg.connect(topology.admin.conninfo(dbname="postgres"), autocommit=True) as conn, conn.cursor() as cur:
        if not _role_exists(cur, RUNTIME_GROUP_ROLE):
            cur.execute(sql.SQL("CREATE ROLE {} NOLOGIN NOSUPERUSER NOBYPASSRLS NOINHERIT").format(
                sql.Identifier(RUNTIME_GROUP_ROLE)))
        for params, extra in ((topology.owner, ""), (topology.runtime, "")):
            if not _role_exists(cur, params.user):
                cur.execute(sql.SQL("CREATE ROLE {} LOGIN NOSUPERUSER NOBYPASSRLS NOCREATEROLE NOCREATEDB" + extra)
                            .format(sql.Identifier(params.user)))
                if params.password:
                    cur.execute(sql.SQL("ALTER ROLE {} PASSWORD {}").format(
                        sql.Identifier(params.user), sql.Literal(params.password)))
        cur.execute(sql.SQL("GRANT {} TO {}").format(
            sql.Identifier(RUNTIME_GROUP_ROLE), sql.Identifier(topology.runtime.user)))


def create_database(topology: DatabaseTopology, *, drop_first: bool = False) -> bool:
    """Create the database owned by the owner role; returns True when it was created."""
    assert topology.admin is not None
    name = topology.owner.name
    with psycopg.connect(topology.admin.conninfo(dbname="postgres"), autocommit=True) as conn, conn.cursor() as cur:
        if drop_first:
            cur.execute(sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(name)))
        if cur.execute("SELECT 1 FROM pg_database WHERE datname = %s", (name,)).fetchone():
            created = False
        else:
            cur.execute(sql.SQL("CREATE DATABASE {} OWNER {} ENCODING 'UTF8' TEMPLATE template0").format(
                sql.Identifier(name), sql.Identifier(topology.owner.user)))
            created = True
    with psycopg.connect(topology.admin.conninfo(dbname=name), autocommit=True) as conn, conn.cursor() as cur:
        # Extensions need a superuser here; everything else is created by the owner in migrations.
        cur.execute("CREATE EXTENSION IF NOT EXISTS vector")
        owner = sql.Identifier(topology.owner.user)
        group = sql.Identifier(RUNTIME_GROUP_ROLE)
        cur.execute(sql.SQL("ALTER SCHEMA public OWNER TO {}").format(owner))
        cur.execute("REVOKE ALL ON SCHEMA public FROM PUBLIC")
        cur.execute(sql.SQL("GRANT USAGE ON SCHEMA public TO {}").format(group))
        cur.execute(sql.SQL("REVOKE CREATE ON DATABASE {} FROM PUBLIC").format(sql.Identifier(name)))
        cur.execute(sql.SQL("REVOKE TEMPORARY ON DATABASE {} FROM PUBLIC").format(sql.Identifier(name)))
        cur.execute(sql.SQL("GRANT CONNECT ON DATABASE {} TO {}").format(sql.Identifier(name), group))
        # Django's own tables (auth, sessions, contenttypes) get plain DML for the runtime role; the project's
        # migrations narrow this per table (append-only tables lose UPDATE and DELETE).
        cur.execute(sql.SQL(
            "ALTER DEFAULT PRIVILEGES FOR ROLE {} IN SCHEMA public "
            "GRANT SELECT, INSERT, UPDATE, DELETE ON TABLES TO {}").format(owner, group))
        cur.execute(sql.SQL(
            "ALTER DEFAULT PRIVILEGES FOR ROLE {} IN SCHEMA public GRANT USAGE, SELECT ON SEQUENCES TO {}"
        ).format(owner, group))
        cur.execute(sql.SQL(
            "ALTER DEFAULT PRIVILEGES FOR ROLE {} IN SCHEMA public GRANT EXECUTE ON FUNCTIONS TO {}"
        ).format(owner, group))
    return created


# Roles and grants are the cluster's, shared by every database: two bootstraps at once (the test suite's workers,
# each with its own database, or two services starting together) take turns, or one's CREATE ROLE or GRANT fails on
# the other's ("duplicate key", "tuple concurrently updated").
_BOOTSTRAP_LOCK = 0x616E616D  # "anam"


def bootstrap(topology: DatabaseTopology, *, drop_first: bool = False) -> None:
    assert topology.admin is not None
    with psycopg.connect(topology.admin.conninfo(dbname="postgres"), autocommit=True) as lock:
        lock.execute("SELECT pg_advisory_lock(%s)", (_BOOTSTRAP_LOCK,))
        ensure_roles(topology)
        create_database(topology, drop_first=drop_first)
