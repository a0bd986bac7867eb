"""The rules that live twice, once readable in a file and once live in the database, must agree."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest
from django.conf import settings
from django.db import connection

from memory.lifecycle import TRANSITIONS
from memory.models import MemoryState

FUNCTION = re.compile(r"CREATE OR REPLACE FUNCTION (\w+)\(.*?\bAS \$\$(.*?)\$\$;", re.S)
RULE_FILES = ["consent/sql/access_rule.sql", "consent/sql/purpose_rule.sql", "memory/sql/state_transition.sql",
              "directory/sql/visibility_rule.sql", "workflows/sql/operation_guard.sql"]


def functions_in(path: str) -> dict[str, str]:
    text = (Path(settings.BASE_DIR) / path).read_text()
    found = {name: body.strip() for name, body in FUNCTION.findall(text)}
    assert found, f"{path} defines no function"
    return found


def live_source(name: str) -> str:
    with connection.cursor() as cur:
        cur.execute("SELECT prosrc FROM pg_proc WHERE proname = %s AND pronamespace = 'public'::regnamespace",
                    [name])
        rows = cur.fetchall()
    assert len(rows) == 1, f"{name}: {len(rows)} live definitions"
    return rows[0][0].strip()


@pytest.mark.django_db
@pytest.mark.parametrize("path", RULE_FILES)
def test_the_live_database_runs_the_definitions_in_the_rule_files(path):
    """Edit a rule file without a migration that applies it, and this fails."""
    for name, body in functions_in(path).items():
        assert live_source(name) == body, f"{name} in the database differs from {path}"


@pytest.mark.django_db
def test_the_database_transition_table_is_the_python_one():
    """memory.lifecycle.TRANSITIONS and the trigger's table allow exactly the same moves."""
    states = [s.value for s in MemoryState]
    with connection.cursor() as cur:
        cur.execute("SELECT a, b, memory_state_transition_allowed(a, b) FROM unnest(%s::text[]) a, "
                    "unnest(%s::text[]) b", [states, states])
        live = {(a, b) for a, b, allowed in cur.fetchall() if allowed}
    python = {(a, b) for a, targets in TRANSITIONS.items() for b in targets}
    assert live == python


# --- layering ---------------------------------------------------------------------------------------------------
# Arrows point down only: core knows no domain; the domain apps build on consent; the faces (rights, portal, demo,
# the MCP server agents_mcp) build on the domain and nothing imports them but the portal, which offers rights'
# export as a button. A function-local import counts like any other.
LAYERS = {
    "core": set(),
    "events": {"core"},
    "consent": {"core", "events"},
    "directory": {"core"},
    # directory: the evaluations and the quality population register the patients they grant a clinician access to
    "memory": {"core", "consent", "directory", "events"},
    "workflows": {"core", "consent", "memory", "events"},
    "conversations": {"core", "consent", "memory", "workflows"},
    "portal": {"core", "consent", "directory", "memory", "conversations", "workflows", "rights"},
    "demo": {"core", "consent", "directory", "memory", "conversations", "workflows"},
    "rights": {"core", "consent", "directory", "memory", "conversations", "workflows"},
    "agents_mcp": {"core", "consent", "directory", "memory", "conversations", "workflows"},
}


def app_imports(app: str) -> dict[str, list[str]]:
    found: dict[str, list[str]] = {}
    root = Path(settings.BASE_DIR)
    for path in (root / app).rglob("*.py"):
        rel = path.relative_to(root)
        if "migrations" in rel.parts:
            continue
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            names = []
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                names = [node.module]
            for name in names:
                top = name.split(".")[0]
                if top != app and top in LAYERS:
                    found.setdefault(top, []).append(f"{rel}:{node.lineno}")
    return found


@pytest.mark.parametrize("app", sorted(LAYERS))
def test_apps_import_only_the_layers_below_them(app):
    imports = app_imports(app)
    assert {other: where for other, where in imports.items() if other not in LAYERS[app]} == {}


# --- the portal reads through selectors -------------------------------------------------------------------------
# A page shows what the selectors and services give it, and they record the reads and writes they make: a query or
# an audit row written in a view is one the API's face of the same read may not make alike. Two named exceptions,
# neither of them a read of patient data: the login backend finds and creates the browser's user accounts
# (mozilla-django-oidc's hooks), and portal_view audits the refusals it turns into error pages after the rollback,
# as ScopedAPIView does for the API.
PORTAL_QUERIES_ALLOWED = {("portal/oidc.py", "filter_users_by_claims"), ("portal/oidc.py", "create_user")}
PORTAL_AUDIT_ALLOWED = {("portal/context.py", "_audit_refusal")}
AUDIT_WRITES = {"record", "record_all", "insert_statement", "insert_all_statement"}
MANAGERS = {"objects", "_default_manager", "_base_manager"}


class _PortalUses(ast.NodeVisitor):
    """(file, innermost function) of every model manager used and every audit write, in one module."""

    def __init__(self, rel: str) -> None:
        self.rel, self.where = rel, ["<module>"]
        self.queries: set[tuple[str, str]] = set()
        self.audits: set[tuple[str, str]] = set()

    def visit_FunctionDef(self, node: ast.FunctionDef | ast.AsyncFunctionDef) -> None:  # noqa: N802
        self.where.append(node.name)
        self.generic_visit(node)
        self.where.pop()

    visit_AsyncFunctionDef = visit_FunctionDef  # noqa: N815

    def visit_Attribute(self, node: ast.Attribute) -> None:  # noqa: N802
        if node.attr in MANAGERS:
            self.queries.add((self.rel, self.where[-1]))
        elif node.attr in AUDIT_WRITES and isinstance(node.value, ast.Name) and node.value.id == "audit":
            self.audits.add((self.rel, self.where[-1]))
        self.generic_visit(node)

    def visit_ImportFrom(self, node: ast.ImportFrom) -> None:  # noqa: N802
        if node.module == "core.audit" and any(a.name in AUDIT_WRITES for a in node.names):
            self.audits.add((self.rel, self.where[-1]))


def portal_uses() -> _PortalUses:
    root = Path(settings.BASE_DIR)
    found = _PortalUses("")
    for path in sorted((root / "portal").rglob("*.py")):
        module = _PortalUses(str(path.relative_to(root)))
        module.visit(ast.parse(path.read_text(), str(path)))
        found.queries |= module.queries
        found.audits |= module.audits
    return found


def test_portal_pages_read_through_selectors_that_audit_their_reads():
    """No portal module runs a model manager's query or writes an audit row, but for the named exceptions."""
    found = portal_uses()
    assert found.queries <= PORTAL_QUERIES_ALLOWED
    assert found.audits <= PORTAL_AUDIT_ALLOWED
    assert found.audits, "the walk finds audit writes (portal_view's refusals)"
