"""The OpenAPI schema generates without warnings, validates, and every operation in it has a test."""

from __future__ import annotations

import pathlib
import re

import pytest
import yaml
from django.core.management import call_command
from openapi_spec_validator import validate

pytestmark = pytest.mark.django_db


def _schema(tmp_path) -> dict:
    out = tmp_path / "schema.yaml"
    call_command("spectacular", "--validate", "--fail-on-warn", "--file", str(out))
    return yaml.safe_load(out.read_text())


def test_schema_generates_without_warnings_and_validates(tmp_path):
    schema = _schema(tmp_path)
    validate(schema)
    assert schema["components"]["securitySchemes"]["bearerAuth"]["scheme"] == "bearer"


def test_schema_and_docs_are_served(client):
    r = client.get("/v1/schema", HTTP_ACCEPT="application/vnd.oai.openapi+json")
    assert r.status_code == 200 and r.json()["openapi"].startswith("3.")
    r = client.get("/v1/docs")
    assert r.status_code == 200 and b"swagger" in r.content.lower()


@pytest.mark.parametrize("accept", [None, "application/vnd.oai.openapi", "application/vnd.oai.openapi+json"])
def test_an_error_from_the_schema_view_is_a_json_problem_whatever_it_renders_otherwise(client, accept):
    """The schema is YAML by default; its errors are problem documents in JSON all the same (a YAML body under
    ``application/problem+json`` is no problem document), with the ``Allow`` a 405 owes."""
    headers = {"HTTP_ACCEPT": accept} if accept else {}
    for method in (client.put, client.post, client.delete):
        r = method("/v1/schema", **headers)
        assert r.status_code == 405 and r["Content-Type"] == "application/problem+json", r.content
        assert r.json()["code"] == "method_not_allowed" and r.json()["status"] == 405
        assert "GET" in r["Allow"]


def test_every_operation_declares_scopes_and_has_a_test(tmp_path):
    schema = _schema(tmp_path)
    test_sources = "\n".join(p.read_text() for p in pathlib.Path(__file__).parent.glob("test_*.py"))
    missing = []
    for path, operations in schema["paths"].items():
        for method, operation in operations.items():
            assert operation.get("x-required-scopes"), f"{method} {path} declares no scopes"
            # the path as tests write it: f-strings or literal ids in place of {param}
            literal = re.sub(r"\{[^}]+\}", "", path).rstrip("/").split("/")[-1]
            if literal not in test_sources:
                missing.append(f"{method.upper()} {path}")
    assert missing == []


def test_the_query_parameters_a_view_takes_are_those_its_operation_declares(tmp_path):
    """A view refuses query parameters it does not declare (422 unknown_parameter): the published document and
    the views must name the same ones, or agents built from the document would be refused."""
    from django.urls import resolve

    schema = _schema(tmp_path)
    samples = {"name": "scheduling_preference", "version": "1", "seq": "1"}
    for path, operations in schema["paths"].items():
        concrete = re.sub(r"\{([^}]+)\}", lambda m: samples.get(m.group(1), "00000000-0000-4000-8000-000000000001"),
                          path)
        view = resolve(concrete).func.view_class
        for method, operation in operations.items():
            published = {p["name"] for p in operation.get("parameters", []) if p["in"] == "query"}
            taken = set(view.query_parameters.get(method.upper(), frozenset()))
            assert published == taken, f"{method.upper()} {path}: document {sorted(published)}, view {sorted(taken)}"
