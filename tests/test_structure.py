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
RULE_FILES = ["consent/sql/access_rule.sql", "memory/sql/state_transition.sql", "directory/sql/visibility_rule.sql",
              "workflows/sql/operation_guard.sql"]


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
# Arrows point down only: core knows no domain; the domain apps build on consent; the faces (portal, demo, the MCP
# server agents_mcp) build on the domain and nothing imports them. A function-local import counts like any other.
LAYERS = {
    "core": set(),
    "consent": {"core"},
    "directory": {"core"},
    "memory": {"core", "consent"},
    "workflows": {"core", "consent", "memory"},
    "conversations": {"core", "consent", "memory", "workflows"},
    "portal": {"core", "consent", "directory", "memory", "conversations", "workflows"},
    "demo": {"core", "consent", "directory", "memory", "conversations", "workflows"},
    # rights builds on the domain and on the portal (its download button); nothing imports it
    "rights": {"core", "consent", "directory", "memory", "conversations", "workflows", "portal"},
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
