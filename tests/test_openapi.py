"""The OpenAPI schema generates without warnings, validates, and every operation in it has a test."""

from __future__ import annotations

import pathlib
import re
import time

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


def test_the_docs_page_keeps_the_content_security_policy_with_no_inline_script(client):
    """The interactive docs were the one HTML page without a Content-Security-Policy (exempted for Swagger UI's
    inline set-up script): an injection there ran as the site, and any site could frame it where X-Frame-Options
    is not read. The set-up script is now a file of the page's own (``?script``), so the page carries the portal's
    policy: scripts from the site only, no framing."""
    r = client.get("/v1/docs")
    policy = r["Content-Security-Policy"]
    assert "script-src 'self';" in policy and "frame-ancestors 'none'" in policy and "unsafe" not in policy
    scripts = re.findall(rb"<script([^>]*)>", r.content)
    assert scripts and all(b"src=" in attributes for attributes in scripts)
    script = client.get("/v1/docs?script=")
    assert script.status_code == 200 and script["Content-Type"].startswith("application/javascript")
    assert b"SwaggerUIBundle" in script.content


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


# Query values the API refuses (422 naming the parameter) that a client reading the document could not know to
# avoid unless the document states the same bound: (path, other parameters, parameter, refused values).
_BOUNDED_QUERY_PARAMETERS = [
    ("/v1/patients/{patient_id}/memories/search", {"q": "time"}, "limit", [0, 21]),
    ("/v1/patients/{patient_id}/memories/search", {"q": "time"}, "min_score", [-0.5, 1.5]),
    ("/v1/patients/{patient_id}/memories/search", {"q": "time"}, "memory_class", ["feelings"]),
    ("/v1/patients/{patient_id}/memories/search", {}, "q", ["x" * 501]),
    ("/v1/audit-events", {}, "limit", [0, 501]),
    ("/v1/audit-events", {}, "patient_id", ["not-a-uuid"]),
    ("/v1/grants", {}, "patient_id", ["not-a-uuid"]),
    ("/v1/workflows/reconciliation", {}, "limit", [0, 501]),
    ("/v1/sessions/{session_id}/context", {}, "max_tokens", [255, 128_001]),
]


def test_the_bounds_the_api_enforces_on_query_parameters_are_in_the_document(tmp_path, world):
    """Every query value below is refused by the API (422 naming the parameter); the published document refuses
    it too, so generated clients and the MCP tools' input schemas (derived from the document) know the bounds
    instead of learning them from refusals (the search's limit 1-20 was published as any integer)."""
    from jsonschema import Draft202012Validator

    from agents_mcp.calls import argument_errors
    from agents_mcp.tools import _resolve

    schema = _schema(tmp_path)
    patient = world.patient_a
    api = world.staff("auditor-1", scope="memory:read audit:read grant:write workflow:reconcile")
    ids = {"patient_id": str(patient), "session_id": "00000000-0000-4000-8000-000000000001"}
    for path, others, name, values in _BOUNDED_QUERY_PARAMETERS:
        (published,) = [p for p in schema["paths"][path]["get"]["parameters"] if p["name"] == name]
        validator = Draft202012Validator(
            _resolve(published["schema"], {}), format_checker=Draft202012Validator.FORMAT_CHECKER
        )
        for value in values:
            r = api.get(path.format(**ids), {**others, name: value})
            assert r.status_code == 422, (path, name, value, r.content)
            assert name in [e["field"] for e in r.json()["errors"]], (path, name, value, r.json())
            assert not validator.is_valid(value), f"GET {path}: the document allows {name}={value!r}"
    assert argument_errors("search_memories", {"q": "time", "limit": 21}), "the MCP tool's schema allows limit 21"


def test_the_headers_answers_carry_are_in_the_document(tmp_path, world):
    """Every 429 and 503 says when to come back (``Retry-After``), and a keyed operation's success may be the
    stored answer to an earlier request (``Idempotent-Replayed: true``): the document declares both, so clients
    generated from it can read them."""
    schema = _schema(tmp_path)
    for path, operations in schema["paths"].items():
        for method, operation in operations.items():
            responses = operation["responses"]
            for status in ("429", "503"):
                assert responses[status].get("headers", {}).get("Retry-After", {}).get("required"), \
                    f"{method.upper()} {path} {status}"
            if any(p["in"] == "header" and p["name"] == "Idempotency-Key" for p in operation.get("parameters", [])):
                for status, response in responses.items():
                    if status.startswith("2"):
                        assert "Idempotent-Replayed" in response.get("headers", {}), f"{method.upper()} {path}"
    api = world.patient(world.patient_a)
    body = {"workflow_type": "appointment_booking", "patient_id": str(world.patient_a), "state": {}}
    first = api.post("/v1/workflows", body, headers={"Idempotency-Key": "wf-1"})
    again = api.post("/v1/workflows", body, headers={"Idempotency-Key": "wf-1"})
    assert first.status_code == again.status_code == 201 and again["Idempotent-Replayed"] == "true"
    declared = schema["paths"]["/v1/workflows"]["post"]["responses"]["201"]["headers"]["Idempotent-Replayed"]
    assert again["Idempotent-Replayed"] in declared["schema"]["enum"]


def test_fields_that_must_be_json_objects_are_published_as_objects(tmp_path, world):
    """A fact (record, propose, correct) and a tool turn's result must be JSON objects: the API refuses a string
    or a list (422 naming the field), and the document says ``type: object`` (it published any JSON value), so
    the MCP tools' input schemas refuse them before the call too."""
    from agents_mcp.calls import argument_errors

    schema = _schema(tmp_path)
    components = schema["components"]["schemas"]
    for component, field in [("MemoryInRequest", "fact"), ("ProposalInRequest", "fact"),
                             ("CorrectionInRequest", "fact"), ("TurnInRequest", "tool_result")]:
        assert components[component]["properties"][field]["type"] == "object", (component, field)
    cid = world.consent(world.patient_a)
    api = world.patient(world.patient_a)
    for fact in ("earliest 10:00", ["earliest_time", "10:00"]):
        r = api.post(f"/v1/patients/{world.patient_a}/memories/proposals",
                     {"memory_type": "scheduling_preference", "fact": fact, "consent_purpose": "appointment_scheduling",
                      "consent_record_id": cid, "source_ref": "turn:1"})
        assert r.status_code == 422 and [e["field"] for e in r.json()["errors"]] == ["fact"], r.content
        assert argument_errors("propose_memory", {"memory_type": "scheduling_preference", "fact": fact,
                                                  "consent_purpose": "appointment_scheduling",
                                                  "consent_record_id": cid, "source_ref": "turn:1"})


def test_a_query_value_given_empty_is_refused_and_the_document_says_so(tmp_path, world):
    """Query values are given non-empty (422 ``blank`` otherwise), except the memory list's filters, where empty
    means "any": every other free-text query parameter is published with ``minLength: 1`` (it was any string), so
    clients and the MCP tools do not send what is refused."""
    schema = _schema(tmp_path)
    api = world.staff("auditor-1", scope="memory:read audit:read grant:write patient:read workflow:reconcile "
                                           "workflow:read organization:admin webhook:admin consent:read")
    ids = {"patient_id": str(world.patient_a), "session_id": "00000000-0000-4000-8000-000000000001",
           "memory_id": "00000000-0000-4000-8000-000000000002", "workflow_id": "00000000-0000-4000-8000-000000000003",
           "subscription_id": "00000000-0000-4000-8000-000000000004"}
    checked = []
    for path, operations in schema["paths"].items():
        for method, operation in operations.items():
            for param in operation.get("parameters", []):
                published = param.get("schema", {})
                if param["in"] != "query" or published.get("type") != "string" or "enum" in published:
                    continue
                if path == "/v1/patients/{patient_id}/memories" and param["name"] != "cursor":
                    assert published.get("minLength") is None, "empty means any: published as allowed"
                    continue
                others = {"q": "time"} if path.endswith("/search") and param["name"] != "q" else {}
                r = api.get(path.format(**ids), {**others, param["name"]: ""})
                assert r.status_code == 422, (path, param["name"], r.content)
                assert {"field": param["name"], "code": "blank"} in [
                    {"field": e["field"], "code": e["code"]} for e in r.json()["errors"]], (path, r.json())
                assert published.get("minLength", 0) >= 1, f"{method.upper()} {path}: {param['name']} may be empty"
                checked.append(f"{path} {param['name']}")
    assert len(checked) >= 6, checked


def test_the_schema_is_made_once_per_format_and_is_the_same_for_every_caller(client):
    """Generating and rendering the document costs a worker about a quarter of a second of CPU, and anyone may ask
    for it: 40 clients asking at once kept /health/live from answering for 8 s. It is made once per process and
    format; a ``lang`` or ``version`` in the query (drf-spectacular's, not ours) makes no other document."""
    from drf_spectacular.generators import SchemaGenerator

    json_type = "application/vnd.oai.openapi+json"
    first = client.get("/v1/schema", HTTP_ACCEPT=json_type)
    as_yaml = client.get("/v1/schema")
    assert first.status_code == as_yaml.status_code == 200
    assert first["Content-Type"].startswith(json_type)
    assert as_yaml["Content-Type"].startswith("application/vnd.oai.openapi")
    assert as_yaml.content.startswith(b"openapi: 3.") and as_yaml["Content-Disposition"].endswith('.yaml"')
    generated = []
    original = SchemaGenerator.get_schema

    def counted(self, *args, **kwargs):
        generated.append(1)
        return original(self, *args, **kwargs)

    SchemaGenerator.get_schema = counted
    try:
        began = time.perf_counter()
        answers = [client.get("/v1/schema", HTTP_ACCEPT=json_type),
                   client.get("/v1/schema?lang=de&version=<x>", HTTP_ACCEPT=json_type),
                   client.get("/v1/schema?version=9"),
                   client.get("/v1/schema", HTTP_ACCEPT=json_type + "; x=1"),
                   client.get("/v1/schema?format=json")]
        seconds = time.perf_counter() - began
    finally:
        SchemaGenerator.get_schema = original
    assert generated == []
    assert [a.content for a in answers] == [first.content, first.content, as_yaml.content, first.content, first.content]
    assert answers[3]["Content-Type"] == first["Content-Type"]
    assert answers[1].json()["info"]["version"] == first.json()["info"]["version"]
    assert seconds < 0.2, seconds


def test_every_field_a_models_answer_always_carries_is_required_in_the_document(tmp_path, world):
    """A workflow's version and state, a memory's valid_until and review_by, an operation's status and attempts,
    a consent's expires_at: fields with a model default were published as optional although every answer carries
    them (null or not), so the generated TypeScript types made `workflow.version` `number | undefined` and a
    checkpoint needed `workflow.version!`. Each such answer now lists every field it carries as required, and a
    live answer has them all."""
    schema = _schema(tmp_path)
    components = schema["components"]["schemas"]
    for name in ("WorkflowOut", "OperationOut", "MemoryOut", "ConsentOut", "GrantOut", "SessionOut",
                 "AuditEventOut", "LifecycleEventOut", "OrganizationOut"):
        component = components[name]
        assert sorted(component["required"]) == sorted(component["properties"]), name
    assert {"state", "version"} <= set(components["WorkflowOut"]["required"])
    api = world.patient(world.patient_a)
    workflow = api.post("/v1/workflows", {"workflow_type": "appointment_booking",
                                          "patient_id": str(world.patient_a)}).json()
    assert set(components["WorkflowOut"]["required"]) == set(workflow)
    consent = api.post(f"/v1/patients/{world.patient_a}/consents", {"purpose": "communication"}).json()
    assert set(components["ConsentOut"]["required"]) == set(consent)


def test_every_answer_with_a_body_says_what_the_body_is(tmp_path, world):
    """The export's 200 and the FHIR import's 201 and 200 were published with no content at all, so a client
    generated from the document had no type for them and a validator could not check them: the export is JSON or
    a FHIR Bundle (application/fhir+json), the import answers the memory it stored (`FhirImported`)."""
    schema = _schema(tmp_path)
    for path, operations in schema["paths"].items():
        for method, operation in operations.items():
            for status, response in operation["responses"].items():
                if status.startswith("2") and status != "204":
                    assert response.get("content"), f"{method.upper()} {path} {status}"
    export = schema["paths"]["/v1/patients/{patient_id}/export"]["get"]["responses"]["200"]["content"]
    assert set(export) == {"application/json", "application/fhir+json"}
    imported = schema["paths"]["/v1/patients/{patient_id}/fhir-import"]["post"]["responses"]
    assert {imported[s]["content"]["application/json"]["schema"]["$ref"] for s in ("200", "201")} == {
        "#/components/schemas/FhirImported"}
    assert schema["components"]["schemas"]["FhirImported"]["properties"]["memory"]["$ref"].endswith("/MemoryOut")
    api = world.patient(world.patient_a, scope="export:read")
    for fmt, media_type in (("json", "application/json"), ("fhir", "application/fhir+json")):
        r = api.get(f"/v1/patients/{world.patient_a}/export", {"format": fmt})
        assert r.status_code == 200 and r["Content-Type"].split(";")[0] in export and \
            r["Content-Type"].startswith(media_type)


def test_a_workflow_state_patch_is_published_as_the_api_takes_it(tmp_path, world):
    """A state patch takes null for a value and at most 20 values, but the document said neither: `nullable` sat
    beside a `oneOf` without a `type`, which OpenAPI 3.0 ignores, so a validator refused {"k": null}, and 21
    values were valid by the document but 422 at the API (and passed the checkpoint_workflow tool's own check)."""
    from openapi_schema_validator import OAS30Validator

    from agents_mcp.calls import argument_errors

    schema = _schema(tmp_path)
    components = schema["components"]["schemas"]
    api = world.patient(world.patient_a)
    workflow = api.post("/v1/workflows", {"workflow_type": "appointment_booking",
                                          "patient_id": str(world.patient_a)}).json()
    many = {f"k{i}": i for i in range(21)}
    for component, field in (("CheckpointInRequest", "state_patch"), ("WorkflowCreateInRequest", "state")):
        validator = OAS30Validator({**components[component]["properties"][field], "components": components})
        assert validator.is_valid({"note": None, "n": 1, "ok": True, "s": "x"}), component
        assert not validator.is_valid(many), component
    body = {"expected_version": 1, "next_step": "propose_slots"}
    r = api.post(f"/v1/workflows/{workflow['workflow_id']}/checkpoint", {**body, "state_patch": many})
    assert r.status_code == 422 and r.json()["errors"][0]["field"] == "state_patch"
    assert argument_errors("checkpoint_workflow", {**body, "workflow_id": workflow["workflow_id"],
                                                   "state_patch": many})
    assert not argument_errors("checkpoint_workflow", {**body, "workflow_id": workflow["workflow_id"],
                                                       "state_patch": {"note": None}})
    r = api.post(f"/v1/workflows/{workflow['workflow_id']}/checkpoint", {**body, "state_patch": {"note": None}})
    assert r.status_code == 200, r.content


def test_each_operation_payload_says_which_kind_it_goes_with(tmp_path):
    """An operation's kind and payload are two fields and the payload is one of two shapes; neither shape said
    which kind it belongs to ("Refuses fields it does not declare." was all), so an agent reading the
    request_operation tool guessed and learned from a 422 naming the fields its guess had wrong."""
    from agents_mcp.tools import input_schema

    components = _schema(tmp_path)["components"]["schemas"]
    for component, kind in (("PriorAuthorizationPayloadRequest", "submit_prior_authorization"),
                            ("AppointmentBookingPayloadRequest", "book_appointment")):
        assert kind in components[component]["description"], component
    branches = input_schema("request_operation")["properties"]["payload"]["oneOf"]
    assert sorted(kind for branch in branches for kind in ("submit_prior_authorization", "book_appointment")
                  if kind in branch["description"]) == ["book_appointment", "submit_prior_authorization"]


def test_a_memory_writes_status_is_published_as_its_closed_set(tmp_path, world):
    """A memory write answers status stored, proposed or already_proposed, but the document published any
    string, so a generated client could not tell an agent's proposal from a stored fact by type."""
    from tests.conftest import memory_body
    from tests.support import PATIENT_SCOPES, Api

    status = _schema(tmp_path)["components"]["schemas"]["MemoryStored"]["properties"]["status"]
    (ref,) = [s["$ref"] for s in status["allOf"]]
    published = _schema(tmp_path)["components"]["schemas"][ref.rsplit("/", 1)[-1]]["enum"]
    assert sorted(published) == ["already_proposed", "proposed", "stored"]
    cid = world.consent(world.patient_a)
    url = f"/v1/patients/{world.patient_a}/memories"
    agent = Api(world.token(sub="scheduling-agent", patient_id=world.patient_a, scope=PATIENT_SCOPES,
                            act={"sub": "scheduling-agent"}))
    seen = [agent.post(url, memory_body(cid, "latest_time", "16:00")).json()["status"],
            agent.post(url, memory_body(cid, "latest_time", "16:00")).json()["status"],
            world.patient(world.patient_a).post(url, memory_body(cid)).json()["status"]]
    assert seen == ["proposed", "already_proposed", "stored"]


def test_options_on_the_schema_and_the_docs_is_405_never_a_500_or_the_views_notes(client):
    """OPTIONS /v1/docs was 500 internal_error (DRF's metadata answer sent to the page's HTML renderer, which has
    no template for it), and OPTIONS /v1/schema answered anyone the view's docstring as YAML. Both take GET and
    HEAD only: OPTIONS is 405 with Allow, a problem document, as POST is."""
    for path in ("/v1/docs", "/v1/schema"):
        r = client.options(path)
        assert r.status_code == 405 and r["Content-Type"] == "application/problem+json", (path, r.content[:200])
        assert r.json()["code"] == "method_not_allowed" and r["Allow"] == "GET, HEAD", path
        assert client.head(path).status_code == 200


def test_the_schema_in_a_format_the_caller_refuses_with_q_0_is_not_served(client):
    """``q=0`` is "not acceptable" (RFC 9110 12.4.2): the schema's YAML refused so is answered in JSON, and nothing
    acceptable left is 406 ``not_acceptable`` (both were answered YAML)."""
    json_type = "application/vnd.oai.openapi+json"
    r = client.get("/v1/schema", HTTP_ACCEPT=f"application/vnd.oai.openapi;q=0, {json_type};q=0.5")
    assert r.status_code == 200 and r["Content-Type"].startswith(json_type), r["Content-Type"]
    for accept in ("*/*;q=0", f"application/vnd.oai.openapi;q=0, {json_type};q=0, application/json;q=0"):
        r = client.get("/v1/schema", HTTP_ACCEPT=accept)
        assert r.status_code == 406 and r["Content-Type"] == "application/problem+json", (accept, r.content)
        assert r.json()["code"] == "not_acceptable"


@pytest.mark.parametrize("query, field, code", [
    ("foo=1", "foo", "unknown_parameter"), ("format=json&format=json", "format", "repeated_parameter"),
    ("format=", "format", "blank"), ("format=xml", "format", "invalid_choice"), ("q=%FF", "q", "invalid_encoding"),
])
def test_the_schema_refuses_a_query_parameter_it_does_not_take_as_every_operation_does(client, query, field, code):
    """``/v1/schema?foo=1`` was answered 200 where every operation refuses a parameter it does not take: 422
    ``validation_error`` naming it, as for any operation (``format``, ``lang`` and ``version`` are taken)."""
    r = client.get(f"/v1/schema?{query}")
    assert r.status_code == 422 and r["Content-Type"] == "application/problem+json", (query, r.status_code, r.content)
    assert r.json()["code"] == "validation_error"
    assert [(e["field"], e["code"]) for e in r.json()["errors"]] == [(field, code)], r.json()
    assert client.head(f"/v1/schema?{query}").status_code == 422
    for fine in ("format=json", "lang=en", "version=1", "format=yaml"):
        assert client.get(f"/v1/schema?{fine}").status_code == 200, fine


@pytest.mark.parametrize("query, field, code", [
    ("foo=1", "foo", "unknown_parameter"), ("script=&script=", "script", "repeated_parameter"),
    ("lang=", "lang", "blank"), ("q=%FF", "q", "invalid_encoding"),
])
def test_the_docs_refuse_a_query_parameter_they_do_not_take_as_the_schema_does(client, query, field, code):
    """``/v1/docs?foo=1`` was answered 200 (its set-up script's address carrying ``foo``) where ``/v1/schema?foo=1``
    is 422: the docs take ``script`` (empty, the set-up script) and ``lang``, each once, and refuse the rest as the
    schema does, 422 ``validation_error`` naming the parameter."""
    r = client.get(f"/v1/docs?{query}")
    assert r.status_code == 422, (query, r.status_code, r.content[:300])
    assert r["Content-Type"] == "application/problem+json" and r.json()["code"] == "validation_error"
    assert [(e["field"], e["code"]) for e in r.json()["errors"]] == [(field, code)], r.json()
    assert client.head(f"/v1/docs?{query}").status_code == 422
    for fine in ("", "script=", "lang=en", "format=html"):
        assert client.get(f"/v1/docs?{fine}").status_code == 200, fine
