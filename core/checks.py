"""System checks. ``core.E001``: the runtime role must not be able to bypass row-level security."""

from __future__ import annotations

import logging

from django.core.checks import Error, Tags, register
from django.core.exceptions import ImproperlyConfigured
from django.db import OperationalError, connections
from django.db.backends.signals import connection_created

log = logging.getLogger("anamnesis.checks")
DEFERRED_CHECK = "core.checks.runtime_role_on_connect"

RUNTIME_ROLE_PROBLEMS_SQL = """
WITH me AS (SELECT oid, rolname, rolsuper, rolbypassrls FROM pg_roles WHERE rolname = current_user),
     reachable AS (SELECT r.oid, r.rolname, r.rolsuper, r.rolbypassrls FROM pg_roles r
                   WHERE pg_has_role(current_user, r.oid, 'MEMBER'))
SELECT 'superuser or BYPASSRLS: ' || rolname FROM reachable WHERE rolsuper OR rolbypassrls
UNION ALL
SELECT 'owns table ' || c.relname FROM pg_class c JOIN reachable r ON c.relowner = r.oid
  JOIN pg_namespace n ON n.oid = c.relnamespace
 WHERE c.relkind IN ('r', 'p', 'v', 'm') AND n.nspname NOT IN ('pg_catalog', 'information_schema')
UNION ALL
SELECT 'owns schema ' || n.nspname FROM pg_namespace n JOIN reachable r ON n.nspowner = r.oid
 WHERE n.nspname NOT LIKE 'pg\\_%' AND n.nspname <> 'information_schema'
"""


def runtime_role_problems(using: str = "default") -> list[str]:
    with connections[using].cursor() as cursor:
        cursor.execute(RUNTIME_ROLE_PROBLEMS_SQL)
        return [row[0] for row in cursor.fetchall()]


@register(Tags.database)
def check_runtime_role(app_configs=None, databases=None, **kwargs):
    if not databases or "default" not in databases:
        return []
    try:
        problems = runtime_role_problems()
    except Exception as exc:  # the check cannot run: say so rather than pass silently
        return [Error(f"cannot inspect the runtime role: {type(exc).__name__}", id="core.E002")]
    return [Error(f"the runtime database role could bypass row-level security ({p})",
                  hint="Connect as a role that is not superuser, not BYPASSRLS and owns nothing.",
                  id="core.E001") for p in problems]


def _refusal(problems: list[str]) -> ImproperlyConfigured:
    return ImproperlyConfigured("refusing to serve: the runtime role could bypass RLS: " + "; ".join(problems))


def assert_runtime_role_is_safe() -> None:
    """Refuse to start when the runtime role could bypass row-level security. When the database cannot be reached
    at start (an outage, while a worker is replaced), the process starts anyway and the check runs on the first
    connection that succeeds, refusing every query until it passes: an outage must not stop the service (a worker
    that cannot boot halts gunicorn), and nothing is served from the database before the check."""
    try:
        problems = runtime_role_problems()
    except OperationalError:
        log.warning("runtime role check deferred to the first connection: the database is unreachable")
        connection_created.connect(_check_on_connect, dispatch_uid=DEFERRED_CHECK)
        return
    finally:
        connections["default"].close()
    if problems:
        raise _refusal(problems)


def _check_on_connect(sender, connection, **kwargs) -> None:
    """The deferred check, on a new connection of the default database: once it passes it is not run again."""
    if connection.alias != "default":
        return
    with connection.cursor() as cursor:
        cursor.execute(RUNTIME_ROLE_PROBLEMS_SQL)
        problems = [row[0] for row in cursor.fetchall()]
    if problems:
        log.critical("refusing to serve: the runtime role could bypass row-level security")
        connection.close()  # never left open for the request's next query
        raise _refusal(problems)
    connection_created.disconnect(dispatch_uid=DEFERRED_CHECK)
