"""System checks. ``core.E001``: the runtime role must not be able to bypass row-level security."""

from __future__ import annotations

from django.core.checks import Error, Tags, register
from django.core.exceptions import ImproperlyConfigured
from django.db import connections

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


def assert_runtime_role_is_safe() -> None:
    problems = runtime_role_problems()
    connections["default"].close()
    if problems:
        raise ImproperlyConfigured("refusing to serve: the runtime role could bypass RLS: " + "; ".join(problems))
