"""The MCP server driven by the SDK's own client over real HTTP: tool list, every tool, refusals as tool errors
carrying the REST API's problem codes, another patient's data refused exactly as over REST, audit rows written,
and the OAuth protected-resource handshake (RFC 9728)."""

from __future__ import annotations

import gzip
import http.client
import json
import sys
import urllib.parse
import uuid

import anyio
import httpx
import httpx2
import pytest
from jsonschema import Draft202012Validator
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.exceptions import MCPError

from agents_mcp.tools import TOOLS, TOOLS_BY_NAME, input_schema
from tests.conftest import admin_connect, memory_body
from tests.fakes.scheduling import FakeScheduling
from tests.support import ISSUER, PATIENT_SCOPES

pytestmark = pytest.mark.django_db(transaction=True)

SEED_TURN_1 = ("I need to reschedule my cardiology follow-up. I can't do mornings, and I'm currently taking blood "
               "thinners.")


@pytest.fixture
def scheduling(settings):
    fake = FakeScheduling()
    settings.SCHEDULING_BASE_URL = fake.url
    yield fake
    fake.down()


def call(live, token: str, name: str, arguments: dict | None = None):
    async def go():
        async with httpx2.AsyncClient(headers={"Authorization": f"Bearer {token}"}, timeout=60) as http, \
                Client(streamable_http_client(live.mcp_url, http_client=http)) as client:
            return await client.call_tool(name, arguments or {})
    return anyio.run(go)


def calls(live, token: str, named: list[tuple[str, dict]]) -> list:
    """Several tool calls in one client session (one handshake)."""
    async def go():
        async with httpx2.AsyncClient(headers={"Authorization": f"Bearer {token}"}, timeout=60) as http, \
                Client(streamable_http_client(live.mcp_url, http_client=http)) as client:
            return [await client.call_tool(name, arguments) for name, arguments in named]
    return anyio.run(go)


def list_tools(live, token: str):
    async def go():
        async with httpx2.AsyncClient(headers={"Authorization": f"Bearer {token}"}, timeout=60) as http, \
                Client(streamable_http_client(live.mcp_url, http_client=http)) as client:
            return (await client.list_tools()).tools
    return anyio.run(go)


def patient_token(world, patient_id=None, scope: str = PATIENT_SCOPES) -> str:
    patient_id = patient_id or world.patient_a
    return world.token(sub=f"patient-{patient_id}", patient_id=patient_id, scope=scope)


def ok(result) -> dict:
    assert not result.is_error, result.structured_content
    return result.structured_content


def refused(result, code: str) -> dict:
    assert result.is_error, result.structured_content
    assert result.structured_content["code"] == code, result.structured_content
    return result.structured_content


def audit_rows(patient_id) -> list[tuple]:
    with admin_connect() as conn:
        return conn.execute("SELECT action, outcome, reason FROM audit_event WHERE patient_id = %s ORDER BY "
                            "occurred_at", [patient_id]).fetchall()


def test_tool_list_names_every_tool_with_its_schema(world, live):
    tools = {t.name: t for t in list_tools(live, patient_token(world))}
    assert set(tools) == {t.name for t in TOOLS}
    assert tools["propose_memory"].input_schema == input_schema("propose_memory")
    # the patient comes from the token's launch context; only a token naming none must pass it
    assert "patient_id" not in tools["search_memories"].input_schema["required"]
    assert "launch context" in tools["search_memories"].input_schema["properties"]["patient_id"]["description"]
    assert tools["read_workflow"].annotations.read_only_hint is True
    # what an agent's host asks a person to approve by: ending a session clears it; three tools reach outside systems
    hints = {name: (t.annotations.destructive_hint, t.annotations.idempotent_hint, t.annotations.open_world_hint)
             for name, t in tools.items() if not t.annotations.read_only_hint}
    assert hints["end_session"] == (True, True, False)
    assert hints["request_operation"] == (False, True, True)
    assert hints["search_offers"] == (False, False, True)
    assert {name for name, (destructive, _, _) in hints.items() if destructive} == {"end_session"}
    assert {name for name, (_, _, outside) in hints.items() if outside} == {"request_operation", "search_offers",
                                                                            "checkpoint_workflow"}


def _ref(schema: dict, components: dict) -> dict:
    while "$ref" in schema:
        schema = components[schema["$ref"].rsplit("/", 1)[-1]]
    return schema


def test_mcp_tool_schemas_stay_in_step_with_the_served_openapi_document(world, live):
    """Every tool's arguments are exactly its REST operation's parameters and body fields, with the same required
    ones and the same types, enums and patterns, as the OpenAPI document at /v1/schema says."""
    document = httpx.get(f"{live.url}/v1/schema", params={"format": "json"}).json()
    components = document["components"]["schemas"]
    operations = {op["operationId"]: op for ops in document["paths"].values() for op in ops.values()}
    tools = {t.name: t for t in list_tools(live, patient_token(world))}
    for name, tool in tools.items():
        spec = TOOLS_BY_NAME[name]
        op = operations[spec.operation_id]
        expected: dict[str, dict] = {}
        required = set(spec.also_required)
        for p in op.get("parameters", []):
            arg = "idempotency_key" if p["name"] == "Idempotency-Key" else p["name"]
            expected[arg] = _ref(p["schema"], components)
            if p.get("required"):
                required.add(arg)
        if "requestBody" in op:
            body = _ref(op["requestBody"]["content"]["application/json"]["schema"], components)
            for field, schema in body["properties"].items():
                expected[field] = _ref(schema, components)
            required |= set(body.get("required", []))
        got = tool.input_schema
        assert set(got["properties"]) == set(expected), name
        assert set(got["required"]) == required - {"patient_id"}, name  # the launch context supplies it
        assert got["additionalProperties"] is False
        for field, schema in expected.items():
            mine = got["properties"][field]
            for key in ("enum", "pattern", "format", "minimum", "maximum", "maxLength", "minLength"):
                if key in schema:
                    value = mine.get(key)
                    if key == "enum" and (schema.get("nullable") or field not in got["required"]):
                        value = [v for v in value if v is not None]
                    assert value == schema[key], (name, field, key)
            if "type" in schema:
                types_ = mine["type"] if isinstance(mine.get("type"), list) else [mine.get("type")]
                assert schema["type"] in types_, (name, field)
                # an optional argument takes null for its absence (models in strict function-calling mode send it)
                optional = field not in got["required"]
                assert ("null" in types_) == (bool(schema.get("nullable")) or optional), (name, field)


def test_unauthenticated_requests_point_to_the_protected_resource_metadata(live):
    r = httpx.post(live.mcp_url, json={"jsonrpc": "2.0", "id": 1, "method": "tools/list"},
                   headers={"Accept": "application/json, text/event-stream"})
    assert r.status_code == 401
    header = r.headers["WWW-Authenticate"]
    assert header.startswith("Bearer ") and "error=" not in header  # no credentials: no error code (RFC 6750)
    assert f'resource_metadata="{live.url}/.well-known/oauth-protected-resource/mcp"' in header
    for path in ("/.well-known/oauth-protected-resource/mcp", "/.well-known/oauth-protected-resource"):
        meta = httpx.get(live.url + path).json()
        assert meta["resource"] == live.mcp_url
        assert meta["authorization_servers"] == [ISSUER]
        assert {"memory:read", "memory:write", "workflow:read", "workflow:write"} <= set(meta["scopes_supported"])
    assert r.headers["content-type"] == "application/problem+json" and r.json()["code"] == "invalid_token"
    bad = httpx.post(live.mcp_url, json={}, headers={"Authorization": "Bearer not-a-jwt"})
    assert bad.status_code == 401 and "resource_metadata=" in bad.headers["WWW-Authenticate"]
    assert 'error="invalid_token"' in bad.headers["WWW-Authenticate"]


def test_the_protected_resource_metadata_names_every_trusted_issuer(settings):
    """With the providers named in OIDC_TRUSTED_ISSUERS (OIDC_ISSUER left at its development default), the
    metadata sent MCP clients to http://127.0.0.1:8001 for their tokens; it names the issuers the service trusts."""
    from starlette.testclient import TestClient

    from agents_mcp.server import build_app

    settings.OIDC_ISSUER = "http://127.0.0.1:8001"
    settings.OIDC_TRUSTED_ISSUERS = [
        {"issuer": "https://idp.a.example", "jwks_url": "https://idp.a.example/jwks", "audience": "anamnesis-api"},
        {"issuer": "https://idp.b.example", "jwks_url": "https://idp.b.example/jwks", "audience": "anamnesis-api"}]
    with TestClient(build_app(), base_url="http://127.0.0.1:8000") as client:
        for path in ("/.well-known/oauth-protected-resource/mcp", "/.well-known/oauth-protected-resource"):
            meta = client.get(path).json()
            assert meta["authorization_servers"] == ["https://idp.a.example", "https://idp.b.example"]


def test_the_authorization_header_is_read_alike_by_the_rest_api_and_mcp(world, live):
    """One reading of ``Authorization`` for both doors: a tab or several spaces after the scheme, any case of
    ``Bearer``, are served by both; another scheme, two tokens, no token are 401 invalid_token by both (a tab was
    served over REST and refused by /mcp)."""
    token = patient_token(world)
    listing = {"jsonrpc": "2.0", "id": 1, "method": "tools/list"}
    rest_path = f"{live.url}/v1/patients/{world.patient_a}/memories"
    for value, served in ((f"Bearer\t{token}", True), (f"Bearer   {token}", True), (f"bearer {token}", True),
                          (f"Basic {token}", False), (f"Bearer {token} {token}", False), ("Bearer", False)):
        rest = httpx.get(rest_path, headers={"Authorization": value}, timeout=30)
        mcp = httpx.post(live.mcp_url, json=listing, timeout=30, headers={
            "Authorization": value, "Accept": "application/json, text/event-stream"})
        assert (rest.status_code, mcp.status_code) == ((200, 200) if served else (401, 401)), (value[:12], rest.text)
        if not served:
            assert rest.json()["code"] == mcp.json()["code"] == "invalid_token"


def test_transport_refusals_are_problem_documents_naming_their_request_id(world, live):
    """The SDK's own refusals (DNS-rebinding protection, a message that is no JSON-RPC) read as the rest of the
    API: a problem document with a stable code, the body's request_id that of the X-Request-ID header, and no
    validation library's dump."""
    headers = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json",
               "Authorization": f"Bearer {patient_token(world)}"}
    listing = {"jsonrpc": "2.0", "id": 1, "method": "tools/list"}
    for extra, status, code in [({"Origin": "http://evil.example"}, 403, "origin_not_allowed"),
                                ({"Host": "evil.example"}, 421, "host_not_allowed")]:
        r = httpx.post(live.mcp_url, json=listing, headers={**headers, **extra}, timeout=30)
        assert r.status_code == status and r.headers["content-type"] == "application/problem+json", r.text
        assert r.json()["code"] == code and r.json()["request_id"] == r.headers["x-request-id"]
    for method in ("GET", "PUT", "PATCH"):
        r = httpx.request(method, live.mcp_url, headers=headers, timeout=30)
        assert r.status_code == 405 and r.headers["allow"] == "POST", (method, r.text)
        assert r.json()["code"] == "method_not_allowed" and r.json()["request_id"] == r.headers["x-request-id"]
    for raw in ("[]", '{"jsonrpc": "2.0"}'):
        r = httpx.post(live.mcp_url, content=raw, headers=headers, timeout=30)
        error = r.json()["error"]
        assert r.status_code == 400 and error["code"] == -32600, r.text
        assert "pydantic" not in r.text and "\n" not in error["message"]
    assert list_tools(live, patient_token(world))  # and the next call is served as usual


def test_a_request_that_accepts_no_json_is_406_as_a_json_rpc_error_like_the_transports_other_refusals(world, live):
    """Streamable HTTP: a POST's answer is JSON (this server never streams), so a client accepting neither it nor
    any type is 406; the body is a JSON-RPC error without an id (the message is not read yet), as the transport's
    400s are, with the request id and no-store every answer carries. Accepting JSON in any form is served."""
    headers = {"Content-Type": "application/json", "Authorization": f"Bearer {patient_token(world)}"}
    listing = {"jsonrpc": "2.0", "id": 1, "method": "tools/list"}
    # q=0 is "not acceptable" (RFC 9110 12.4.2): the transport read the ranges and never their quality
    for accept in ("text/html", "text/event-stream", "image/png, text/plain", "application/json;q=0",
                   "application/json;q=0, text/event-stream", "*/*;q=0", "application/json;q=0, */*"):
        r = httpx.post(live.mcp_url, json=listing, headers={**headers, "Accept": accept}, timeout=30)
        assert r.status_code == 406 and r.headers["content-type"] == "application/json", (accept, r.text)
        body = r.json()
        assert body["jsonrpc"] == "2.0" and body["id"] is None and body["error"]["code"] == -32600, body
        assert "application/json" in body["error"]["message"]
        assert r.headers["x-request-id"] and r.headers["cache-control"] == "no-store"
    for accept in ("application/json", "*/*", "application/*", "application/json, text/event-stream",
                   "text/event-stream;q=0, application/json", "*/*;q=0, application/json;q=0.2"):
        r = httpx.post(live.mcp_url, json=listing, headers={**headers, "Accept": accept}, timeout=30)
        assert r.status_code == 200 and r.json()["result"]["tools"], accept


def test_a_post_without_an_accept_header_is_served_as_accepting_any_type(world, live):
    """A POST with no Accept header at all (a plain HTTP client, curl's --header 'Accept:') was 406 'Client must
    accept application/json': a request without Accept accepts any media type (RFC 9110 12.5.1), as the REST API
    reads it. It is answered in JSON; an Accept that names no JSON is still 406."""
    body = json.dumps({"jsonrpc": "2.0", "id": 7, "method": "tools/list"})
    conn = http.client.HTTPConnection("127.0.0.1", live.port, timeout=30)
    try:
        conn.putrequest("POST", "/mcp", skip_accept_encoding=True)  # http.client sends no Accept of its own
        for name, value in (("Content-Type", "application/json"), ("Authorization", f"Bearer {patient_token(world)}"),
                            ("Content-Length", str(len(body)))):
            conn.putheader(name, value)
        conn.endheaders(body.encode())
        r = conn.getresponse()
        answer = r.read()
    finally:
        conn.close()
    assert r.status == 200 and r.getheader("content-type") == "application/json", (r.status, answer[:300])
    message = json.loads(answer)
    assert message["id"] == 7 and message["result"]["tools"], message


def test_a_trailing_slash_is_404_never_a_redirect_to_the_host_the_request_named(world, live):
    """POST /mcp/ was a 307 to /mcp on whatever Host the request named (Host: evil.example went to
    http://evil.example/mcp), answered before the transport's host check and with no body. It is 404 not_found,
    as a trailing slash is over REST."""
    headers = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json",
               "Authorization": f"Bearer {patient_token(world)}"}
    ping = {"jsonrpc": "2.0", "id": 1, "method": "ping"}
    for extra in ({}, {"Host": "evil.example"}):
        for method in ("POST", "GET"):
            r = httpx.request(method, live.mcp_url + "/", json=ping if method == "POST" else None,
                              headers={**headers, **extra}, timeout=30, follow_redirects=False)
            assert r.status_code == 404 and "location" not in r.headers, (extra, method, r.headers)
            assert r.headers["content-type"] == "application/problem+json" and r.json()["code"] == "not_found"
            assert "without its trailing slash" in r.json()["message"], r.json()
    assert "trailing slash" not in httpx.post(live.mcp_url + "/x", json=ping, headers=headers, timeout=30).text
    metadata = live.url + "/.well-known/oauth-protected-resource" + urllib.parse.urlsplit(live.mcp_url).path
    assert httpx.get(metadata, timeout=30).status_code == 200
    r = httpx.get(metadata + "/", timeout=30)
    assert r.status_code == 404 and "without its trailing slash" in r.json()["message"], r.text
    assert httpx.post(live.mcp_url, json=ping, headers=headers, timeout=30).json()["result"] == {}


def test_a_browser_client_from_an_allowed_origin_passes_its_preflight_and_reads_the_answers(world, live):
    """A browser MCP client (the MCP Inspector) asks first with an OPTIONS preflight, which was 405 without any
    Access-Control-* header, so it could not connect from an origin MCP_ALLOWED_ORIGINS lets in. Such an origin's
    preflight is 204 with what the transport sends, and its answers (a 401's challenge too) name it and expose the
    headers a client reads; another origin gets nothing of it."""
    preflight = {"Access-Control-Request-Method": "POST",
                 "Access-Control-Request-Headers": "authorization,content-type,mcp-protocol-version,mcp-session-id"}
    r = httpx.options(live.mcp_url, headers={"Origin": "http://localhost:6274", **preflight}, timeout=30)
    assert r.status_code == 204, r.text
    assert r.headers["access-control-allow-origin"] == "http://localhost:6274"
    assert "POST" in r.headers["access-control-allow-methods"]
    allowed = {h.strip().lower() for h in r.headers["access-control-allow-headers"].split(",")}
    assert {"authorization", "content-type", "mcp-protocol-version", "mcp-session-id"} <= allowed
    assert "access-control-allow-credentials" not in r.headers
    listing = {"jsonrpc": "2.0", "id": 1, "method": "tools/list"}
    headers = {"Origin": "http://localhost:6274", "Accept": "application/json, text/event-stream",
               "Content-Type": "application/json", "MCP-Protocol-Version": "2025-06-18"}
    for token, status in ((patient_token(world), 200), (None, 401)):
        auth = {"Authorization": f"Bearer {token}"} if token else {}
        r = httpx.post(live.mcp_url, json=listing, headers={**headers, **auth}, timeout=30)
        assert r.status_code == status, r.text
        assert r.headers["access-control-allow-origin"] == "http://localhost:6274"
        exposed = {h.strip().lower() for h in r.headers["access-control-expose-headers"].split(",")}
        assert {"mcp-session-id", "www-authenticate"} <= exposed
    metadata = f"{live.url}/.well-known/oauth-protected-resource/mcp"
    r = httpx.options(metadata, headers={"Origin": "http://localhost:6274", "Access-Control-Request-Method": "GET",
                                         "Access-Control-Request-Headers": "mcp-protocol-version"}, timeout=30)
    assert r.status_code == 204 and r.headers["access-control-allow-origin"] == "http://localhost:6274", r.text
    assert "mcp-protocol-version" in r.headers["access-control-allow-headers"].lower()
    for origin in ("http://evil.example", "http://localhost.evil.example:6274"):
        r = httpx.options(live.mcp_url, headers={"Origin": origin, **preflight}, timeout=30)
        assert r.status_code == 405 and not [h for h in r.headers if h.startswith("access-control-")], r.headers


def test_an_unsupported_protocol_version_is_a_400_naming_the_versions_spoken(world, live):
    """A MCP-Protocol-Version the server does not speak was refused with a message about a "_meta envelope" (the
    SDK sends unknown versions down its 2026 path); it says which versions are supported, as the transport asks."""
    headers = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json",
               "Authorization": f"Bearer {patient_token(world)}"}
    listing = {"jsonrpc": "2.0", "id": 7, "method": "tools/list"}
    for version in ("1999-01-01", "2025-06-19", "latest"):
        r = httpx.post(live.mcp_url, json=listing, headers={**headers, "MCP-Protocol-Version": version}, timeout=30)
        assert r.status_code == 400, r.text
        error = r.json()["error"]
        assert r.json()["id"] == 7 and error["data"]["requested"] == version
        assert "2025-06-18" in error["message"] and "2025-06-18" in error["data"]["supported"]
        assert "_meta" not in error["message"]
    r = httpx.post(live.mcp_url, json=listing, headers={**headers, "MCP-Protocol-Version": "2025-06-18"}, timeout=30)
    assert r.status_code == 200 and r.json()["result"]["tools"]


def test_a_batch_is_answered_message_by_message_as_mcp_2025_03_26_lets_a_client_post_it(world, live):
    """The server negotiates MCP 2025-03-26, whose transport lets a client post a JSON-RPC batch; the SDK refused
    every batch 400 'not a JSON-RPC 2.0 request'. Each message is answered as if posted alone, the requests'
    answers in one array; a batch of notifications only is 202."""
    headers = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json",
               "Authorization": f"Bearer {patient_token(world)}", "MCP-Protocol-Version": "2025-03-26"}
    batch = [{"jsonrpc": "2.0", "id": 1, "method": "ping"},
             {"jsonrpc": "2.0", "method": "notifications/initialized"},
             {"jsonrpc": "2.0", "id": "two", "method": "tools/call",
              "params": {"name": "list_memories", "arguments": {}}},
             {"jsonrpc": "2.0", "id": 3, "method": "tools/call",
              "params": {"name": "read_workflow", "arguments": {"workflow_id": "not-an-id"}}},
             {"jsonrpc": "2.0", "id": {"an": "object"}, "method": "ping"}]
    r = httpx.post(live.mcp_url, json=batch, headers=headers, timeout=60)
    assert r.status_code == 200 and r.headers["content-type"] == "application/json", r.text
    ping, listed, refused, invalid = r.json()
    assert ping == {"jsonrpc": "2.0", "id": 1, "result": {}}
    assert listed["id"] == "two" and listed["result"]["structuredContent"] == {"items": [], "next_cursor": None}
    assert refused["id"] == 3 and refused["result"]["isError"]
    assert refused["result"]["structuredContent"]["errors"][0]["field"] == "workflow_id"
    assert invalid["id"] is None and invalid["error"]["code"] == -32600
    notified = httpx.post(live.mcp_url, json=batch[1:2], headers=headers, timeout=60)
    assert notified.status_code == 202 and not notified.content
    too_many = httpx.post(live.mcp_url, json=batch[:1] * 21, headers=headers, timeout=60)
    assert too_many.status_code == 400 and too_many.json()["error"]["code"] == -32600
    assert "at most 20" in too_many.json()["error"]["message"]


@pytest.mark.parametrize("version", ["2025-06-18", "2025-11-25"])
def test_a_batch_under_a_version_that_ended_batches_is_refused_whole_as_an_invalid_request(world, live, version):
    """MCP 2025-06-18 took JSON-RPC batches out (a POST carries one message); they were answered under every
    version. A batch sent with such a version is refused whole (400, -32600 saying why); without the header
    (2025-03-26 assumed, as the transport says) a batch is still answered."""
    headers = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json",
               "Authorization": f"Bearer {patient_token(world)}"}
    batch = [{"jsonrpc": "2.0", "id": 1, "method": "ping"},
             {"jsonrpc": "2.0", "id": 2, "method": "tools/call",
              "params": {"name": "list_memories", "arguments": {}}}]
    r = httpx.post(live.mcp_url, json=batch, headers={**headers, "MCP-Protocol-Version": version}, timeout=60)
    assert r.status_code == 400, r.text
    assert r.json()["id"] is None and r.json()["error"]["code"] == -32600
    assert version in r.json()["error"]["message"] and "2025-03-26" in r.json()["error"]["message"]
    r = httpx.post(live.mcp_url, json=batch, headers=headers, timeout=60)
    assert r.status_code == 200 and [a["id"] for a in r.json()] == [1, 2]


def test_what_starlette_answers_under_the_mcp_paths_is_a_problem_document_with_its_request_id(live):
    """A path under /mcp the app does not serve, or a method the metadata does not take, was Starlette's plain
    text ("Not Found") without X-Request-ID; the metadata itself had none either."""
    for method, path, status, code in [
            ("GET", "/mcp/anything", 404, "not_found"),
            ("POST", "/mcp/tools", 404, "not_found"),
            ("POST", "/.well-known/oauth-protected-resource/mcp", 405, "method_not_allowed"),
            ("DELETE", "/.well-known/oauth-protected-resource", 405, "method_not_allowed")]:
        r = httpx.request(method, live.url + path, timeout=30)
        assert r.status_code == status and r.headers["content-type"] == "application/problem+json", (path, r.text)
        assert r.json()["code"] == code and r.json()["request_id"] == r.headers["x-request-id"], r.text
        assert r.headers["x-content-type-options"] == "nosniff"
        if status == 405:
            assert "GET" in r.headers["allow"]
    metadata = httpx.get(live.url + "/.well-known/oauth-protected-resource/mcp", timeout=30)
    assert metadata.status_code == 200 and metadata.headers["x-request-id"]
    assert metadata.headers["cache-control"] == "max-age=3600"


@pytest.mark.parametrize("content_type, extra", [
    ("text/plain", {}),
    ("application/x-www-form-urlencoded", {}),
    ("application/json; charset=iso-8859-1", {}),
    ("application/json", {"Content-Encoding": "gzip"}),
])
def test_a_body_the_rest_api_would_not_read_is_415_unsupported_media_type_like_over_rest(world, live, content_type,
                                                                                      extra):
    """Not JSON, a charset other than UTF-8 or a content coding: 415 ``unsupported_media_type`` as over REST (the
    SDK answered 400 bad_request, read a Latin-1 body as UTF-8, and took a gzip body for malformed JSON)."""
    token = patient_token(world)
    listing = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "tools/list"}).encode()
    headers = {"Accept": "application/json, text/event-stream", "Content-Type": content_type,
               "Authorization": f"Bearer {token}", **extra}
    r = httpx.post(live.mcp_url, content=gzip.compress(listing) if extra else listing, headers=headers, timeout=30)
    assert r.status_code == 415, r.text
    assert r.headers["content-type"] == "application/problem+json"
    assert r.json()["code"] == "unsupported_media_type" and r.json()["request_id"] == r.headers["x-request-id"]
    rest = httpx.post(f"{live.url}/v1/workflows", content=listing, headers=headers, timeout=30)
    assert rest.status_code == 415 and rest.json()["code"] == "unsupported_media_type"
    assert list_tools(live, token)  # and the next call is served as usual


@pytest.mark.parametrize("chunked", [False, True])
@pytest.mark.parametrize("authenticated", [False, True])
def test_a_body_over_the_limit_is_a_413_problem_like_over_rest(world, live, settings, chunked, authenticated):
    size = settings.MAX_REQUEST_BYTES + 1
    message = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {"pad": "x" * size}})
    content = iter([message.encode()[i:i + 8192] for i in range(0, len(message), 8192)]) if chunked else message
    headers = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}
    if authenticated:
        headers["Authorization"] = f"Bearer {patient_token(world)}"
    r = httpx.post(live.mcp_url, content=content, headers=headers, timeout=30)
    assert r.status_code == 413, r.text[:300]
    assert r.headers["content-type"] == "application/problem+json" and r.json()["code"] == "payload_too_large"
    # and a call under the limit still works on the same service
    assert list_tools(live, patient_token(world))


def test_the_tool_list_is_one_page_and_a_cursor_it_never_gave_is_invalid_params(world, live):
    """MCP pagination: the list carries no nextCursor; a cursor sent anyway is a JSON-RPC -32602 (it was ignored
    and the first page answered again, so a client paging on would loop)."""
    headers = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json",
               "Authorization": f"Bearer {patient_token(world)}"}
    first = httpx.post(live.mcp_url, json={"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {}},
                       headers=headers, timeout=30).json()["result"]
    assert first["tools"] and first.get("nextCursor") is None
    r = httpx.post(live.mcp_url, json={"jsonrpc": "2.0", "id": 2, "method": "tools/list",
                                       "params": {"cursor": "page-2"}}, headers=headers, timeout=30)
    assert r.json()["error"]["code"] == -32602 and "result" not in r.json(), r.text


@pytest.mark.parametrize("method", ["GET", "DELETE"])
def test_there_is_no_event_stream_or_session_to_open_or_end(world, live, method):
    """Stateless with JSON responses: GET (an event stream) and DELETE (ending a session) are 405, answered at
    once instead of holding an idle stream open."""
    r = httpx.request(method, live.mcp_url, headers={"Accept": "text/event-stream, application/json",
                                                     "Authorization": f"Bearer {patient_token(world)}"}, timeout=10)
    assert r.status_code == 405 and r.headers["allow"] == "POST"
    assert r.json()["code"] == "method_not_allowed"


def test_an_identity_provider_outage_is_503_not_401(world, live, identity_provider):
    token = patient_token(world)
    identity_provider.available = False
    from core.authentication import key_set_cache

    key_set_cache().clear()
    r = httpx.post(live.mcp_url, json={"jsonrpc": "2.0", "id": 1, "method": "tools/list"},
                   headers={"Authorization": f"Bearer {token}", "Accept": "application/json, text/event-stream"})
    assert r.status_code == 503 and r.json()["code"] == "identity_provider_unavailable"
    assert int(r.headers["Retry-After"]) >= 1


@pytest.mark.parametrize("method", ["initialize", "tools/list", "ping"])
def test_a_token_of_an_unregistered_organisation_is_refused_at_the_door_as_over_rest(world, live, method):
    """A token of an organisation the registry does not hold (or one not trusting its issuer) is 403
    ``unknown_organization`` over REST before anything runs; ``/mcp`` let it in: initialize, tools/list and ping were
    answered (only each tool call, going through REST, was refused inside a tool result), so an agent of a removed
    organisation still connected and was told the tools. The door admits as the REST gate does."""
    message = {"jsonrpc": "2.0", "id": 1, "method": method}
    if method == "initialize":
        message["params"] = {"protocolVersion": "2025-06-18", "capabilities": {},
                             "clientInfo": {"name": "t", "version": "1"}}
    headers = {"Accept": "application/json, text/event-stream", "MCP-Protocol-Version": "2025-06-18"}
    stranger = world.token(sub="patient-x", patient_id=world.patient_a, org_id=uuid.uuid4(), scope=PATIENT_SCOPES)
    r = httpx.post(live.mcp_url, json=message, headers={**headers, "Authorization": f"Bearer {stranger}"})
    assert r.status_code == 403, r.content
    assert r.headers["content-type"] == "application/problem+json" and r.json()["code"] == "unknown_organization"
    r = httpx.post(live.mcp_url, json=message, headers={**headers, "Authorization": f"Bearer {patient_token(world)}"})
    assert r.status_code == 200 and "result" in r.json(), r.content


def test_failed_authentications_at_the_door_are_429_past_the_addresss_allowance_as_over_rest(world, live, settings):
    """No token, a bad one, or one of an unregistered organisation were refused at ``/mcp`` without being counted:
    a client could send them without end. They spend the client address's allowance of failed authentications,
    as over REST; past it the answer is HTTP 429 with ``Retry-After`` and a JSON-RPC error (``rate_limited``),
    while a valid token from the same address is served."""
    from tests.conftest import admin_connect

    with admin_connect() as conn:  # committed counts of an earlier run in this window
        conn.execute("DELETE FROM api_rate_counter")
    settings.API_RATE_LIMIT_WINDOW_SECONDS = 3600
    settings.API_AUTH_FAILURES_PER_ADDRESS = 2
    message = {"jsonrpc": "2.0", "id": 7, "method": "tools/list"}
    headers = {"Accept": "application/json, text/event-stream"}
    stranger = world.token(sub="patient-x", patient_id=world.patient_a, org_id=uuid.uuid4(), scope=PATIENT_SCOPES)
    answers = [httpx.post(live.mcp_url, json=message, headers={**headers, **auth})
               for auth in ({}, {"Authorization": "Bearer not-a-jwt"}, {"Authorization": f"Bearer {stranger}"})]
    assert [a.status_code for a in answers] == [401, 401, 429], [a.content for a in answers]
    limited = answers[2].json()
    assert limited["id"] == 7 and limited["error"]["data"]["code"] == "rate_limited", limited
    assert int(answers[2].headers["Retry-After"]) >= 1
    r = httpx.post(live.mcp_url, json=message, headers={**headers, "Authorization": f"Bearer {patient_token(world)}"})
    assert r.status_code == 200 and "result" in r.json(), r.content
    # X-Forwarded-For is believed only from a proxy TRUSTED_PROXIES names (none by default), as over REST
    forwarded = {**headers, "X-Forwarded-For": "203.0.113.9"}
    assert httpx.post(live.mcp_url, json=message, headers=forwarded).status_code == 429
    settings.TRUSTED_PROXIES = ["127.0.0.1"]
    assert httpx.post(live.mcp_url, json=message, headers=forwarded).status_code == 401


def test_list_proposals_says_which_proposals_are_stale(world, live):
    """Over MCP as over REST: a proposal made before the attribute's current value became current is marked stale,
    with the value that overtook it (confirming it would be 409 proposal_stale)."""
    cid = world.consent(world.patient_a)
    token = patient_token(world)
    pid = str(world.patient_a)
    old = ok(call(live, token, "propose_memory", {"patient_id": pid, **memory_body(cid, "latest_time", "15:00"),
                                                  "source_ref": "turn:1"}))["memory_id"]
    stated = world.patient(world.patient_a).post(f"/v1/patients/{pid}/memories",
                                                 memory_body(cid, "latest_time", "17:00")).json()["memory_id"]
    fresh = ok(call(live, token, "propose_memory", {"patient_id": pid, **memory_body(cid, "latest_time", "16:00"),
                                                    "source_ref": "turn:2"}))["memory_id"]
    items = ok(call(live, token, "list_proposals", {"patient_id": pid}))["items"]
    assert [(i["memory_id"], i["stale"], i["overtaken_by"]) for i in items] == [
        (old, True, stated), (fresh, False, None)]


def test_memory_tools_propose_list_search_and_context(world, live):
    cid = world.consent(world.patient_a)
    token = patient_token(world)
    pid = str(world.patient_a)
    body = memory_body(cid, "earliest_time", "10:00")
    proposed = ok(call(live, token, "propose_memory", {"patient_id": pid, **body, "source_ref": "turn:1"}))
    assert proposed["state"] == "proposed"
    assert ok(call(live, token, "list_memories", {"patient_id": pid}))["items"] == [], "a proposal is not current"
    confirmed = world.patient(world.patient_a).post(
        f"/v1/patients/{pid}/memories/{proposed['memory_id']}/confirm")
    assert confirmed.status_code == 200, confirmed.content
    items = ok(call(live, token, "list_memories", {"patient_id": pid}))["items"]
    assert [m["fact"] for m in items] == [{"kind": "earliest_time", "time": "10:00"}]
    hits = ok(call(live, token, "search_memories", {"patient_id": pid, "q": "what time can I be booked?"}))
    assert [h["memory"]["memory_id"] for h in hits["items"]] == [proposed["memory_id"]]
    pack = ok(call(live, token, "get_context_pack", {"patient_id": pid, "question": "when can I come in?",
                                                     "purpose": "appointment_scheduling"}))
    assert pack["facts"][0]["memory_id"] == proposed["memory_id"] and pid not in pack["text"]
    types_ = ok(call(live, token, "list_memory_types"))["items"]
    assert {"scheduling_preference", "communication_preference", "care_context"} <= {t["name"] for t in types_}
    actions = [row[0] for row in audit_rows(world.patient_a)]
    assert {"memory.propose", "memory.list", "memory.search", "memory.context_pack"} <= set(actions)


def test_an_agent_finds_the_consent_its_proposal_names_through_a_tool(world, live):
    """propose_memory requires the consent_record_id of the patient's consent for its purpose, and no tool gave
    it: an agent over MCP alone could not propose a memory for a patient with none on record yet."""
    world.consent(world.patient_a)
    agent = world.token(sub="scheduling-agent", patient_id=world.patient_a,
                        scope="memory:read memory:write consent:read")
    consents = ok(call(live, agent, "list_consents"))["items"]
    [consent] = [c for c in consents if c["purpose"] == "appointment_scheduling" and c["status"] == "granted"]
    assert consent["patient_id"] == "[patient]" and str(world.patient_a) not in json.dumps(consents)
    proposal = ok(call(live, agent, "propose_memory", {
        "memory_type": "scheduling_preference", "fact": {"kind": "earliest_time", "time": "10:00"},
        "consent_purpose": "appointment_scheduling", "consent_record_id": consent["consent_record_id"],
        "source_ref": "turn:1"}))
    assert proposal["state"] == "proposed"
    assert TOOLS_BY_NAME["list_consents"].read_only


def test_an_unknown_field_has_one_code_over_rest_and_over_mcp(world, live):
    """A field the operation does not take was errors[].code "invalid" over REST ("unknown field") but
    "unknown_field" over MCP and in a memory type's definition: one mistake, one code, wherever it is made."""
    consent_id = world.consent(world.patient_a)
    token = patient_token(world)
    headers = {"Authorization": f"Bearer {token}"}
    body = {"patient_id": str(world.patient_a), "purpose": "appointment_scheduling", "colour": "red"}
    rest = httpx.post(f"{live.url}/v1/sessions", json=body, headers=headers, timeout=30)
    assert rest.status_code == 422 and rest.json()["errors"] == [
        {"field": "colour", "message": "unknown field", "code": "unknown_field"}]
    tool = refused(call(live, token, "start_session", {"purpose": "appointment_scheduling", "colour": "red"}),
                   "validation_error")
    assert [(e["field"], e["code"]) for e in tool["errors"]] == [("colour", "unknown_field")]
    fact = httpx.post(f"{live.url}/v1/patients/{world.patient_a}/memories", headers=headers, timeout=30, json={
        "memory_type": "scheduling_preference", "fact": {"kind": "earliest_time", "time": "10:00", "colour": "red"},
        "consent_purpose": "appointment_scheduling", "consent_record_id": consent_id})
    assert fact.status_code == 422
    assert {"field": "fact.colour", "message": "unknown field", "code": "unknown_field"} in fact.json()["errors"]


def _tool_call(name: str, arguments: dict, message_id: int = 1) -> dict:
    return {"jsonrpc": "2.0", "id": message_id, "method": "tools/call",
            "params": {"name": name, "arguments": arguments}}


def test_a_tool_the_tokens_scopes_do_not_reach_is_http_403_with_the_scope_challenge(world, live):
    """MCP 2025-11-25, authorization, "Runtime Insufficient Scope Errors": a request whose token lacks a scope the
    operation needs is answered HTTP 403 with ``WWW-Authenticate: Bearer error="insufficient_scope", scope=...,
    resource_metadata=...``, so a client can step up (ask its provider for those scopes) and retry. It was a 200
    carrying an isError tool result, which no client's step-up reads. The challenge names the scopes the tool
    needs with those the token holds (a new token asked for with them loses nothing); the refusal is the REST
    operation's, audited in the patient's history as over REST, and nothing is written; the body is a JSON-RPC
    error (the SDK's client reads it) whose data is that problem. In a JSON-RPC batch (MCP 2025-03-26) each
    message keeps its own answer: there it is a tool error, as before. The scopes are checked before the
    arguments (an empty or wrong call of a tool the token does not reach was a 422 tool error)."""
    headers = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json",
               "Authorization": f"Bearer {patient_token(world, scope='memory:read audit:read')}",
               "MCP-Protocol-Version": "2025-11-25"}
    body = {**memory_body(str(uuid.uuid4())), "source_ref": "turn:1"}
    r = httpx.post(live.mcp_url, json=_tool_call("propose_memory", body), headers=headers, timeout=60)
    assert r.status_code == 403 and r.json()["id"] == 1, r.text
    assert r.json()["error"]["code"] == -32003 and r.json()["error"]["data"]["code"] == "insufficient_scope"
    assert r.headers["WWW-Authenticate"] == (
        'Bearer error="insufficient_scope", scope="audit:read memory:read memory:write", '
        f'resource_metadata="{live.url}/.well-known/oauth-protected-resource/mcp", '
        'error_description="the token lacks a scope this tool needs"')
    assert audit_rows(world.patient_a) == [("memory.propose", "denied", "insufficient_scope")]
    with admin_connect() as conn:
        assert conn.execute("SELECT count(*) FROM patient_memory").fetchone()[0] == 0
    batch = httpx.post(live.mcp_url, json=[_tool_call("propose_memory", body), _tool_call("list_memories", {}, 2)],
                       headers={**headers, "MCP-Protocol-Version": "2025-03-26"}, timeout=60)
    assert batch.status_code == 200, batch.text
    proposed, listed = batch.json()
    assert proposed["result"]["isError"] and proposed["result"]["structuredContent"]["code"] == "insufficient_scope"
    assert not listed["result"]["isError"]
    # refused for its scopes first, whatever its arguments (none, or no workflow to name), as REST refuses first
    for name, arguments, wanted in (("propose_memory", {}, "audit:read memory:read memory:write"),
                                    ("read_workflow", {"colour": "red"}, "audit:read memory:read workflow:read")):
        r = httpx.post(live.mcp_url, json=_tool_call(name, arguments), headers=headers, timeout=60)
        assert r.status_code == 403 and r.json()["error"]["data"]["code"] == "insufficient_scope", r.text
        assert f'scope="{wanted}"' in r.headers["WWW-Authenticate"]
    with pytest.raises(BaseExceptionGroup) as caught:  # the SDK's client raises the JSON-RPC error
        call(live, patient_token(world, scope="workflow:read"), "list_memory_types")
    assert caught.group_contains(MCPError, match="Insufficient scope: the token needs: memory:read", depth=None)


def test_another_patients_data_is_refused_exactly_as_over_rest(world, live):
    cid_b = world.consent(world.patient_b)
    b = world.patient(world.patient_b)
    assert b.post(f"/v1/patients/{world.patient_b}/memories", memory_body(cid_b)).status_code == 201
    workflow_b = b.post("/v1/workflows", {"workflow_type": "appointment_booking",
                                          "patient_id": str(world.patient_b)}).json()["workflow_id"]
    token = patient_token(world, world.patient_a)
    rest = world.patient(world.patient_a)
    pid_b = str(world.patient_b)

    over_mcp = ok(call(live, token, "list_memories", {"patient_id": pid_b}))
    over_rest = rest.get(f"/v1/patients/{pid_b}/memories")
    assert over_rest.status_code == 200, "RLS: nothing visible"
    assert over_mcp == over_rest.json() == {"items": [], "next_cursor": None}, "RLS: nothing visible"

    cases = [
        ("read_workflow", {"workflow_id": workflow_b}, lambda: rest.get(f"/v1/workflows/{workflow_b}")),
        ("get_context_pack", {"patient_id": pid_b, "question": "when?", "purpose": "appointment_scheduling"},
         lambda: rest.post(f"/v1/patients/{pid_b}/context", {"question": "when?",
                                                             "purpose": "appointment_scheduling"})),
        ("start_session", {"patient_id": pid_b, "purpose": "appointment_scheduling"},
         lambda: rest.post("/v1/sessions", {"patient_id": pid_b, "purpose": "appointment_scheduling"})),
    ]
    for tool, arguments, over_rest in cases:
        result = call(live, token, tool, arguments)
        response = over_rest()
        assert response.status_code in (403, 404), (tool, response.content)
        problem = refused(result, response.json()["code"])
        assert problem["status"] == response.status_code, tool
    # the refused read is audited once for the tool call and once for the REST call, in the same way
    with admin_connect() as conn:
        rows = conn.execute("SELECT action, outcome, reason FROM audit_event WHERE resource_id = %s "
                            "AND action = 'workflow.read'", [workflow_b]).fetchall()
    assert rows == [("workflow.read", "denied", "not_found")] * 2


def test_null_for_an_optional_argument_is_its_absence_as_strict_function_calling_sends_it(world, live):
    """OpenAI's strict mode makes a model send every argument, null for those it leaves out: each optional
    argument's schema says it takes null (so a strict client validates the call) and the call runs as if it were
    absent (the launch context's patient, the default limit); a required argument's null stays a refusal."""
    tools = {t.name: t.input_schema for t in list_tools(live, patient_token(world))}
    for name, schema in tools.items():
        for field, prop in schema["properties"].items():
            if field not in schema["required"]:
                assert Draft202012Validator(prop).is_valid(None), (name, field)
            elif field not in ("valid_until", "tool_name", "tool_result"):
                assert not Draft202012Validator(prop).is_valid(None), (name, field)
    cid = world.consent(world.patient_a)
    token = patient_token(world)
    body = memory_body(cid, "earliest_time", "10:00")
    proposed = ok(call(live, token, "propose_memory", {
        **body, "source_ref": "turn:1", "patient_id": None, "idempotency_key": None, "confidence": None,
        "valid_until": None}))
    assert proposed["state"] == "proposed" and proposed["confidence"] == 0.8
    world.patient(world.patient_a).post(f"/v1/patients/{world.patient_a}/memories/{proposed['memory_id']}/confirm")
    hits = ok(call(live, token, "search_memories", {
        "q": "what time can I be booked?", "patient_id": None, "limit": None, "min_score": None, "memory_class": None,
        "consent_purpose": None, "purpose": None}))
    assert [h["memory"]["memory_id"] for h in hits["items"]] == [proposed["memory_id"]]
    listed = ok(call(live, token, "list_memories", {"patient_id": None, "memory_type": None, "purpose": None,
                                                    "consent_purpose": None}))
    assert [m["memory_id"] for m in listed["items"]] == [proposed["memory_id"]]
    r = refused(call(live, token, "search_memories", {"q": None, "limit": None}), "validation_error")
    assert [(e["field"], e["code"]) for e in r["errors"]] == [("q", "invalid")]


def test_a_question_in_chinese_or_emoji_within_qs_500_characters_is_searched_over_rest_and_mcp(world, live):
    """q takes 500 characters; the query string's limit (MAX_QUERY_STRING_CHARS) counted them percent-encoded, so
    500 emoji (6,000 characters encoded) or 500 Chinese ones (4,500) were refused 414 query_too_long. It counts
    characters: both are searched, and a query string over the limit in characters is still 414."""
    token = patient_token(world)
    url = f"{live.url}/v1/patients/{world.patient_a}/memories/search"
    for q in ("\U0001F600" * 500, "\u4f60\u597d\u5417" * 166 + "\u4f60\u597d"):
        r = httpx.get(url, params={"q": q}, headers={"Authorization": f"Bearer {token}"}, timeout=60)
        assert r.status_code == 200, r.text
        assert ok(call(live, token, "search_memories", {"q": q}))["items"] == []
    r = httpx.get(url, params={"q": "when?", "pad": "x" * 4100}, headers={"Authorization": f"Bearer {token}"},
                  timeout=60)
    assert r.status_code == 414 and r.json()["code"] == "query_too_long"


def test_bad_arguments_are_validation_errors_not_crashes(world, live):
    token = patient_token(world)
    r = call(live, token, "add_turn", {"session_id": "not-a-uuid", "role": "user", "content": "hi"})
    assert r.is_error
    r = call(live, token, "request_operation", {"workflow_id": str(uuid.uuid4()), "kind": "book_appointment",
                                                "payload": {"slot_id": "A1", "appointment_type": "x"},
                                                "expected_version": 1})
    assert r.is_error and r.structured_content["code"] == "validation_error"


@pytest.mark.parametrize("name, arguments, field, code", [
    ("list_memories", {"patient_id": 123}, "patient_id", "invalid"),
    ("search_memories", {"patient_id": "PATIENT", "q": ["morning", "evening"]}, "q", "invalid"),
    ("search_memories", {"patient_id": "PATIENT", "q": {"a": 1}}, "q", "invalid"),
    ("search_memories", {"patient_id": "PATIENT", "q": "morning", "limit": "5"}, "limit", "invalid"),
    ("list_memories", {"patient_id": "PATIENT", "consent_purpose": "marketing"}, "consent_purpose", "invalid_choice"),
    ("list_memories", {"patient_id": "PATIENT", "patient": "x"}, "patient", "unknown_field"),
    ("request_operation", {"workflow_id": "00000000-0000-4000-8000-000000000001", "kind": "book_appointment",
                           "payload": {"slot_id": "A1", "appointment_type": "x"}, "expected_version": 1,
                           "idempotency_key": "morning key!"}, "idempotency_key", "invalid"),
    ("read_workflow", {"workflow_id": "morning-1"}, "workflow_id", "invalid"),
    ("list_memories", {"patient_id": "morning"}, "patient_id", "invalid"),
    ("get_session_context", {"session_id": "00000000-0000-4000-8000-00000000000g"}, "session_id", "invalid"),
])
def test_arguments_are_checked_against_the_tools_schema_before_anything_runs(world, live, name, arguments, field,
                                                                            code):
    """A wrong type is a validation error naming the argument (not a 404 for a number taken as an id, nor a list
    turned into its text and searched); the value itself is never echoed."""
    arguments = {k: (str(world.patient_a) if v == "PATIENT" else v) for k, v in arguments.items()}
    r = call(live, patient_token(world), name, arguments)
    assert r.is_error
    problem = r.structured_content
    assert problem["code"] == "validation_error"
    assert {"field": field, "code": code} in [{"field": e["field"], "code": e["code"]} for e in problem["errors"]]
    assert "morning" not in json.dumps(problem) and "evening" not in json.dumps(problem)


def _shows_patient(result, patient_id: uuid.UUID) -> bool:
    """Whether a tool result shows the patient's id in any form, in its text or its structured content."""
    shown = json.dumps(result.structured_content) + "".join(c.text for c in result.content)
    return any(marker in shown.lower() for marker in (str(patient_id), patient_id.hex))


def test_an_agent_acting_for_one_patient_never_has_their_id_in_its_context(world, live, scheduling):
    """The patient identifier never enters model context. The agent's token names the patient (its
    launch context), so no tool needs the id, and no result shows it: not the session, memories, workflows, a
    tool result that quoted it, nor a refusal."""
    cid = world.consent(world.patient_a)
    pid = world.patient_a
    token = world.token(sub="scheduling-agent", patient_id=pid, scope=PATIENT_SCOPES,
                        act={"sub": "scheduling-agent"})
    results = []

    def tool(name, arguments):
        result = call(live, token, name, arguments)
        results.append((name, result))
        return result

    started = ok(tool("start_session", {"purpose": "appointment_scheduling"}))
    assert started["session"]["patient_id"] == "[patient]"
    sid = started["session"]["session_id"]
    ok(tool("add_turn", {"session_id": sid, "role": "user", "content": SEED_TURN_1}))
    ok(tool("add_turn", {"session_id": sid, "role": "tool", "tool_name": "ehr_lookup", "content": "found",
                         "tool_result": {"patient": str(pid).upper(), "ref": f"urn:uuid:{pid}"}}))
    ok(tool("search_offers", {"session_id": sid}))
    ok(tool("get_session_context", {"session_id": sid}))
    proposed = ok(tool("propose_memory", {**memory_body(cid), "source_ref": "turn:1"}))
    assert proposed["patient_id"] == "[patient]" and proposed["state"] == "proposed"
    assert world.patient(pid).post(f"/v1/patients/{pid}/memories/{proposed['memory_id']}/confirm").status_code \
        == 200
    listed = ok(tool("list_memories", {}))
    assert [m["memory_id"] for m in listed["items"]] == [proposed["memory_id"]], "the token's patient was used"
    ok(tool("search_memories", {"q": "what time can I be booked?"}))
    ok(tool("get_context_pack", {"question": "when can I come in?", "purpose": "appointment_scheduling"}))
    workflow = ok(tool("create_workflow", {"workflow_type": "appointment_booking"}))
    ok(tool("read_workflow", {"workflow_id": workflow["workflow_id"]}))
    refused(tool("create_workflow", {"workflow_type": "no_such_workflow"}), "validation_error")
    assert tool("get_context_pack", {"patient_id": str(world.patient_b), "question": "when?",
                                     "purpose": "appointment_scheduling"}).is_error
    ok(tool("end_session", {"session_id": sid, "outcome": "completed"}))
    leaking = [name for name, result in results if _shows_patient(result, pid)]
    assert leaking == [], leaking
    # the calls were the patient's, as the audit trail shows
    assert {"memory.list", "memory.search", "memory.context_pack"} <= {row[0] for row in audit_rows(pid)}


def test_a_token_that_names_no_patient_must_pass_one_and_does_not_see_it_back(world, live):
    """Staff act for many patients, so their tools need the id; the answer still shows ``[patient]``."""
    world.consent(world.patient_a)
    # registered before the grant (which would register her unnamed), with the MRN redacted below
    admin = world.staff("org-admin", scope="patient:write patient:read grant:write")
    assert admin.post("/v1/patients", {"patient_id": str(world.patient_a), "display_name": "Ada Quill",
                                       "identifiers": [{"system": "urn:oid:2.16.840.1.113883.19.5",
                                                        "value": "MRN-661177"}]}).status_code == 201
    world.grant(world.patient_a, "nurse-7", "appointment_scheduling")
    token = world.token(sub="nurse-7")
    problem = refused(call(live, token, "list_memories", {}), "validation_error")
    assert [(e["field"], e["code"]) for e in problem["errors"]] == [("patient_id", "required")]
    started = call(live, token, "start_session", {"patient_id": str(world.patient_a),
                                                  "purpose": "appointment_scheduling"})
    assert ok(started)["session"]["patient_id"] == "[patient]" and not _shows_patient(started, world.patient_a)
    refused(call(live, token, "start_session", {"purpose": "appointment_scheduling"}), "validation_error")
    # a workflow read by its id alone: the patient it names is redacted in its state too, with their MRN
    agent = world.token(sub="scheduling-agent", patient_id=world.patient_a, scope=PATIENT_SCOPES,
                        act={"sub": "scheduling-agent"})
    workflow = ok(call(live, agent, "create_workflow", {"workflow_type": "appointment_booking"}))
    ok(call(live, agent, "checkpoint_workflow", {
        "workflow_id": workflow["workflow_id"], "expected_version": workflow["version"], "next_step": "propose_slots",
        "state_patch": {"patient_ref": str(world.patient_a).upper(), "record": "MRN-661177"}}))
    read = call(live, token, "read_workflow", {"workflow_id": workflow["workflow_id"]})
    assert ok(read)["state"] == {"patient_ref": "[patient]", "record": "[patient]"}, read.structured_content
    assert not _shows_patient(read, world.patient_a)


def test_session_and_workflow_tools(world, live, scheduling):
    world.consent(world.patient_a)
    token = patient_token(world)
    pid = str(world.patient_a)
    sid = ok(call(live, token, "start_session", {"patient_id": pid, "purpose": "appointment_scheduling"}))[
        "session"]["session_id"]
    ok(call(live, token, "add_turn", {"session_id": sid, "role": "user", "content": SEED_TURN_1}))
    turn = ok(call(live, token, "add_turn", {"session_id": sid, "role": "user", "content": "What about Thursday?"}))
    assert turn["slots"]["preferred_days"] == ["thursday"]
    offers = ok(call(live, token, "search_offers", {"session_id": sid}))
    assert [o["slot_id"] for o in offers["offers"]] == ["A1"]
    ctx = ok(call(live, token, "get_session_context", {"session_id": sid, "max_tokens": 1000}))
    assert ctx["context"]["slots"]["excluded_periods"] == ["morning"] and pid not in json.dumps(ctx["context"])

    wf = ok(call(live, token, "create_workflow", {"workflow_type": "appointment_booking", "patient_id": pid}))
    wid = wf["workflow_id"]
    wf = ok(call(live, token, "checkpoint_workflow", {"workflow_id": wid, "expected_version": wf["version"],
                                                      "next_step": "propose_slots"}))
    wf = ok(call(live, token, "checkpoint_workflow", {"workflow_id": wid, "expected_version": wf["version"],
                                                      "next_step": "confirm_booking",
                                                      "state_patch": {"slot_id": "A1"}}))
    stale = call(live, token, "checkpoint_workflow", {"workflow_id": wid, "expected_version": 1,
                                                      "next_step": "booked"})
    refused(stale, "version_conflict")
    args = {"workflow_id": wid, "expected_version": wf["version"], "kind": "book_appointment",
            "payload": {"slot_id": "A1", "appointment_type": "cardiology_followup"}, "idempotency_key": "book-1"}
    first = ok(call(live, token, "request_operation", args))
    again = ok(call(live, token, "request_operation", args))
    assert first["operation_id"] == again["operation_id"] and first["status"] == "pending"
    other = call(live, token, "request_operation", {**args, "payload": {"slot_id": "A3",
                                                                          "appointment_type": "cardiology_followup"}})
    refused(other, "idempotency_key_reused")
    read = ok(call(live, token, "read_workflow", {"workflow_id": wid}))
    assert read["current_step"] == "confirm_booking" and read["pending_operations"][0]["operation_id"] == \
        first["operation_id"]
    assert [o["operation_id"] for o in ok(call(live, token, "list_operations", {"workflow_id": wid}))["items"]] \
        == [first["operation_id"]]
    ended = ok(call(live, token, "end_session", {"session_id": sid, "outcome": "completed"}))
    assert ended["session"]["status"] == "completed"
    refused(call(live, token, "add_turn", {"session_id": sid, "role": "user", "content": "hello?"}),
            "session_ended")


def test_the_stdio_entry_point_acts_as_the_token_in_its_environment(world, committed_db, jwks_server, settings):
    from mcp.client.stdio import StdioServerParameters

    from tests.fakes.processes import BASE_DIR

    cid = world.consent(world.patient_a)
    assert world.patient(world.patient_a).post(f"/v1/patients/{world.patient_a}/memories",
                                               memory_body(cid)).status_code == 201
    env = {"ANAMNESIS_DB_NAME": settings.DB_TOPOLOGY.runtime.name, "DJANGO_SETTINGS_MODULE": "config.settings_test",
           "OIDC_JWKS_URL": jwks_server.url, "OIDC_ISSUER": ISSUER, "OIDC_AUDIENCE": settings.OIDC_AUDIENCE,
           "LOG_LEVEL": "WARNING", "ANAMNESIS_TOKEN": patient_token(world)}
    params = StdioServerParameters(command=sys.executable, args=["manage.py", "mcp_stdio"], env=env,
                                   cwd=str(BASE_DIR))

    async def go():
        async with Client(params) as client:
            listed = await client.call_tool("list_memories", {"patient_id": str(world.patient_a)})
            other = await client.call_tool("read_workflow", {"workflow_id": str(uuid.uuid4())})
            return listed, other
    listed, other = anyio.run(go)
    assert [m["fact"]["time"] for m in ok(listed)["items"]] == ["10:00"]
    refused(other, "not_found")


@pytest.mark.slow
def test_manage_py_serve_answers_the_api_and_mcp_from_one_process_tree(world, committed_db, jwks_server, settings):
    """The deployment path: `manage.py serve` (gunicorn on config.wsgi, /mcp through agents_mcp.wsgi) serves Django
    and /mcp on one port."""
    import os
    import signal
    import subprocess
    import tempfile
    import time

    from tests.fakes.processes import BASE_DIR
    from tests.live import free_port

    world.consent(world.patient_a)
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    env = {**os.environ, "ANAMNESIS_DB_NAME": settings.DB_TOPOLOGY.runtime.name,
           "DJANGO_SETTINGS_MODULE": "config.settings_test", "OIDC_JWKS_URL": jwks_server.url, "OIDC_ISSUER": ISSUER,
           "OIDC_AUDIENCE": settings.OIDC_AUDIENCE, "MCP_RESOURCE_URL": f"{url}/mcp", "LOG_LEVEL": "WARNING",
           # no embedding model in the workers (loading it twice takes a minute on a busy machine)
           "EMBEDDING_PROVIDER": "openai", "EMBEDDING_BASE_URL": "http://127.0.0.1:9"}
    log = tempfile.TemporaryFile()
    proc = subprocess.Popen([sys.executable, "manage.py", "serve", "--bind", f"127.0.0.1:{port}", "--workers", "2",
                             "--threads", "2"], cwd=BASE_DIR, env=env, stdout=log, stderr=log,
                            start_new_session=True)
    try:
        deadline = time.monotonic() + 180
        while True:
            try:
                if httpx.get(f"{url}/health/live", timeout=1).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            if proc.poll() is not None or time.monotonic() > deadline:
                log.seek(0)
                raise AssertionError(f"serve did not start: {log.read()[-3000:]!r}")
            time.sleep(0.2)
        assert httpx.get(f"{url}/v1/schema", params={"format": "json"}).status_code == 200
        r = httpx.post(f"{url}/mcp", json={})
        assert r.status_code == 401 and f'resource_metadata="{url}/.well-known/oauth-protected-resource/mcp"' in \
            r.headers["WWW-Authenticate"]

        class Served:
            mcp_url = f"{url}/mcp"

        assert ok(call(Served, patient_token(world), "list_memories", {"patient_id": str(world.patient_a)})) == {
            "items": [], "next_cursor": None}
    finally:
        os.killpg(proc.pid, signal.SIGTERM)
        proc.wait(timeout=30)


def test_a_key_twice_in_one_object_is_a_parse_error_as_over_rest(world, live):
    """The SDK would keep the last of two equal keys (here: which patient a tool acts on); refused instead."""
    cid = world.consent(world.patient_a)
    message = ('{"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": {"name": "list_memories", '
               f'"arguments": {{"patient_id": "{world.patient_b}", "patient_id": "{world.patient_a}"}}}}}}')
    headers = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json",
               "Authorization": f"Bearer {patient_token(world)}"}
    r = httpx.post(live.mcp_url, content=message, headers=headers, timeout=30)
    assert r.status_code == 400 and r.json()["error"]["code"] == -32700, r.text[:300]
    assert "twice" in r.json()["error"]["message"]
    assert cid and list_tools(live, patient_token(world))  # the service answers the next call as usual


@pytest.mark.parametrize("bad_id", [{"a": 1}, [1], True, None, 1.5, 7.0])
def test_a_request_whose_id_is_no_string_or_integer_is_an_invalid_request_not_silently_dropped(world, live, bad_id):
    """The SDK takes a tools/call with such an id for a notification: 202, and the tool never runs. The caller is
    told instead (-32600), and nothing was done."""
    sid = ok(call(live, patient_token(world), "start_session", {"purpose": "appointment_scheduling"}))["session"][
        "session_id"]
    message = {"jsonrpc": "2.0", "id": bad_id, "method": "tools/call",
               "params": {"name": "add_turn", "arguments": {"session_id": sid, "role": "user", "content": "hello"}}}
    headers = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json",
               "Authorization": f"Bearer {patient_token(world)}"}
    r = httpx.post(live.mcp_url, json=message, headers=headers, timeout=30)
    assert r.status_code == 400 and r.json()["error"]["code"] == -32600, r.text[:300]
    context = ok(call(live, patient_token(world), "get_session_context", {"session_id": sid}))
    assert context["budget"]["turns_total"] == 0
    for good_id in ("req-1", 7):  # what the protocol allows is served as before
        r = httpx.post(live.mcp_url, json={**message, "id": good_id}, headers=headers, timeout=30)
        assert r.status_code == 200 and r.json()["id"] == good_id and not r.json()["result"]["isError"], r.text[:300]


def test_a_whole_number_written_with_a_fraction_is_the_integer_the_schema_accepted(world, live):
    """JSON Schema's integer includes 2.0: a tool whose schema accepted it runs with 2, in its path as in its
    query, instead of answering that the argument is missing or no integer."""
    world.consent(world.patient_a)
    token = patient_token(world)
    sid = ok(call(live, token, "start_session", {"purpose": "appointment_scheduling"}))["session"]["session_id"]
    ok(call(live, token, "add_turn", {"session_id": sid, "role": "user", "content": SEED_TURN_1}))
    proposals = ok(call(live, token, "propose_preferences_from_turn", {"session_id": sid, "seq": 1.0}))
    assert [m["fact"]["kind"] for m in proposals["proposed"]] == ["excluded_periods"], proposals
    context = ok(call(live, token, "get_session_context", {"session_id": sid, "max_tokens": 500.0}))
    assert context["budget"]["max_tokens"] == 500
    refused(call(live, token, "get_session_context", {"session_id": sid, "max_tokens": 500.5}), "validation_error")


def test_tool_answers_carry_no_store_and_the_request_id_of_their_audit_rows(world, live):
    """As over REST: a tool result holds personal data (never cached), and its X-Request-ID is the correlation id
    its audit rows carry; a refusal's problem names it too."""
    world.consent(world.patient_a)
    headers = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json",
               "Authorization": f"Bearer {patient_token(world)}", "X-Request-ID": "mcp-call-42"}
    message = {"jsonrpc": "2.0", "id": 1, "method": "tools/call",
               "params": {"name": "list_memories", "arguments": {"patient_id": str(world.patient_a)}}}
    r = httpx.post(live.mcp_url, json=message, headers=headers, timeout=60)
    assert r.status_code == 200, r.text[:300]
    assert r.headers["cache-control"] == "no-store" and r.headers["x-content-type-options"] == "nosniff"
    assert r.headers["x-request-id"] == "mcp-call-42"
    with admin_connect() as conn:
        rows = conn.execute("SELECT action FROM audit_event WHERE correlation_id = %s", ["mcp-call-42"]).fetchall()
    assert ("memory.list",) in rows
    bad = {**message, "params": {"name": "list_memories", "arguments": {"patient_id": 123}}}
    problem = httpx.post(live.mcp_url, json=bad, headers={**headers, "X-Request-ID": "mcp-call-43"},
                         timeout=60).json()["result"]["structuredContent"]
    assert problem["request_id"] == "mcp-call-43"
    assert [e["field"] for e in problem["errors"]] == ["patient_id"]


def test_a_refusal_that_says_when_to_retry_gives_the_seconds_in_the_tool_result(world, live, settings):
    """A 429 (or 503) says when to come back in its Retry-After header, and the rate limit's title tells the caller
    to read it: a tool result has no headers, so the problem carries the seconds as ``retry_after``."""
    settings.API_RATE_LIMIT_WINDOW_SECONDS = 3600
    settings.API_RATE_LIMIT_PER_SUBJECT = 4  # the handshake (initialize, its notification) counts too
    token = patient_token(world)
    first, second, third = calls(live, token, [("list_memories", {})] * 3)
    assert ok(first) == ok(second) == {"items": [], "next_cursor": None}
    problem = refused(third, "rate_limited")
    assert isinstance(problem["retry_after"], int) and 1 <= problem["retry_after"] <= 3600, problem
    assert "Retry-After" in problem["title"] and problem["status"] == 429
    settings.API_RATE_LIMIT_PER_SUBJECT = 0
    assert "retry_after" not in refused(call(live, token, "read_workflow", {"workflow_id": str(uuid.uuid4())}),
                                        "not_found")


@pytest.mark.parametrize("method", ["initialize", "tools/list", "ping", "notifications/initialized", "batch"])
def test_requests_that_call_no_tool_count_against_the_callers_rate_limits(world, live, settings, method):
    """A handshake, a tool list, a ping or a notification was never counted (only a tool call, going through REST,
    was): a token opened sessions without end. Each POST is counted against the caller's limits as a REST request
    is (the same counters: REST requests spend the same allowance), and past them it is answered as MCP refuses
    a request: HTTP 429 with Retry-After, a JSON-RPC error whose data is the REST problem with retry_after."""
    settings.API_RATE_LIMIT_WINDOW_SECONDS = 3600
    settings.API_RATE_LIMIT_PER_SUBJECT = 3
    message: dict = {"jsonrpc": "2.0", "id": 7, "method": method}
    if method == "initialize":
        message["params"] = {"protocolVersion": "2025-06-18", "capabilities": {},
                             "clientInfo": {"name": "t", "version": "1"}}
    elif method.startswith("notifications/"):
        del message["id"]
    posted = [{"jsonrpc": "2.0", "id": 1, "method": "ping"}, {"jsonrpc": "2.0", "id": 2, "method": "tools/list"}] if (
        method == "batch") else message
    headers = {"Accept": "application/json, text/event-stream",  # batches ended with 2025-03-26
               "MCP-Protocol-Version": "2025-03-26" if method == "batch" else "2025-06-18",
               "Authorization": f"Bearer {patient_token(world)}"}
    assert httpx.get(f"{live.url}/v1/patients/{world.patient_a}/memories",
                     headers={"Authorization": headers["Authorization"]}).status_code == 200  # the same allowance
    for _ in range(2):
        assert httpx.post(live.mcp_url, json=posted, headers=headers).status_code in (200, 202)
    r = httpx.post(live.mcp_url, json=posted, headers=headers)
    assert r.status_code == 429, r.content
    assert 1 <= int(r.headers["Retry-After"]) <= 3600
    error = r.json()["error"]
    assert r.json()["id"] == (None if method == "batch" or "id" not in message else 7)
    assert error["code"] == -32029 and "retry after" in error["message"]
    assert error["data"]["code"] == "rate_limited" and error["data"]["retry_after"] == int(r.headers["Retry-After"])
    r = httpx.get(f"{live.url}/v1/patients/{world.patient_a}/memories",
                  headers={"Authorization": headers["Authorization"]})
    assert r.status_code == 429 and r.json()["code"] == "rate_limited"
    settings.API_RATE_LIMIT_PER_SUBJECT = 0
    assert httpx.post(live.mcp_url, json=posted, headers=headers).status_code in (200, 202)


def test_a_tool_call_refused_before_its_operation_runs_counts_against_the_rate_limits(world, live, settings):
    """An unknown tool (a JSON-RPC -32602) or arguments its schema refuses never reach the REST operation, whose
    gate counts a call: they are counted as a refused REST request is, and past the limits the answer is the rate
    limit's."""
    settings.API_RATE_LIMIT_WINDOW_SECONDS = 3600
    settings.API_RATE_LIMIT_PER_SUBJECT = 3
    headers = {"Accept": "application/json, text/event-stream", "MCP-Protocol-Version": "2025-06-18",
               "Authorization": f"Bearer {patient_token(world)}"}
    answers = []
    for n, (name, arguments) in enumerate([("no_such_tool", {}), ("list_memories", {"limit": "ten"}),
                                           ("no_such_tool", {}), ("list_memories", {})]):
        r = httpx.post(live.mcp_url, headers=headers, json={"jsonrpc": "2.0", "id": n, "method": "tools/call",
                                                            "params": {"name": name, "arguments": arguments}})
        assert r.status_code == 200, r.content
        message = r.json()
        answers.append(message["error"]["code"] if "error" in message else message["result"]["structuredContent"][
            "code"])
    assert answers == [-32602, "validation_error", -32602, "rate_limited"]
    r = httpx.post(live.mcp_url, headers=headers, json={"jsonrpc": "2.0", "id": 9, "method": "tools/call",
                                                        "params": {"name": "no_such_tool", "arguments": {}}})
    assert r.json()["id"] == 9 and r.json()["error"]["code"] == -32029
    assert r.json()["error"]["data"]["code"] == "rate_limited" and r.json()["error"]["data"]["retry_after"] >= 1


def test_every_read_tool_takes_the_purpose_of_use():
    """The purpose of a read reaches the tools from the OpenAPI document: a closed set, described."""
    for name in ("list_memories", "search_memories", "get_context_pack", "get_session_context"):
        prop = input_schema(name)["properties"]["purpose"]
        assert set(prop["enum"]) >= {"appointment_scheduling", "communication"}, name
        assert name == "get_context_pack" or "purpose_of_use claim" in prop["description"], name


def test_a_value_out_of_its_range_has_the_rest_apis_code_over_mcp_too(world, live):
    """The tool's own argument check answered every value of the right type that broke a rule with errors[].code
    "invalid", where the REST operation says which rule: q too long (max_length) or empty (blank), a limit over
    its maximum (max_value), a purpose not in its closed set (invalid_choice). Such values go to the operation,
    so the same mistake has the same code over REST and MCP."""
    token = patient_token(world)
    api = world.patient(world.patient_a)
    search = f"/v1/patients/{world.patient_a}/memories/search"
    some_id = "00000000-0000-4000-8000-000000000001"
    cases = [
        ("search_memories", {"q": "x" * 501}, lambda: api.get(search, {"q": "x" * 501})),
        ("search_memories", {"q": ""}, lambda: api.get(search, {"q": ""})),
        ("search_memories", {"q": "when?", "limit": 21}, lambda: api.get(search, {"q": "when?", "limit": 21})),
        ("search_memories", {"q": "when?", "memory_class": "nope"},
         lambda: api.get(search, {"q": "when?", "memory_class": "nope"})),
        ("start_session", {"purpose": "marketing"},
         lambda: api.post("/v1/sessions", {"patient_id": str(world.patient_a), "purpose": "marketing"})),
        ("get_context_pack", {"question": "", "purpose": "appointment_scheduling"},
         lambda: api.post(f"/v1/patients/{world.patient_a}/context",
                          {"question": "", "purpose": "appointment_scheduling"})),
        ("checkpoint_workflow", {"workflow_id": some_id, "expected_version": 0, "next_step": "propose_slots"},
         lambda: api.post(f"/v1/workflows/{some_id}/checkpoint",
                          {"expected_version": 0, "next_step": "propose_slots"})),
        ("get_session_context", {"session_id": some_id, "max_tokens": 100},
         lambda: api.get(f"/v1/sessions/{some_id}/context", {"max_tokens": 100})),
    ]
    for name, arguments, rest in cases:
        r = rest()
        assert r.status_code == 422, (name, r.content)
        expected = [(e["field"], e["code"]) for e in r.json()["errors"]]
        problem = refused(call(live, token, name, arguments), "validation_error")
        assert [(e["field"], e["code"]) for e in problem["errors"]] == expected, (name, arguments)


def test_request_operations_idempotency_key_is_described_as_required():
    """The tool requires ``idempotency_key`` (an agent must retry safely), so its description says so; it used to be
    the REST header's, which says what leaving it out does."""
    schema = input_schema("request_operation")
    assert "idempotency_key" in schema["required"]
    described = schema["properties"]["idempotency_key"]["description"]
    assert described.startswith("Required") and "without it" not in described.lower()
    assert "null" not in str(schema["properties"]["idempotency_key"].get("type"))


@pytest.mark.parametrize("message, field, code", [
    ({"method": "initialize", "params": {"capabilities": {}, "clientInfo": {"name": "a", "version": "1"}}},
     "protocolVersion", "required"),
    ({"method": "tools/call", "params": {"name": "memory_search", "arguments": ["is she allergic?"]}},
     "arguments", "invalid"),
    ({"method": "tools/call", "params": {"arguments": {}}}, "name", "required"),
    ({"method": "tools/list", "params": {"cursor": 5}}, "cursor", "invalid"),
])
def test_params_the_sdk_refuses_are_named_as_a_tools_argument_errors_are(world, live, message, field, code):
    """``initialize`` without ``protocolVersion`` or ``arguments`` sent as a list were -32602 "Invalid request
    parameters" with empty ``data``: the error names the parameter, in its message and in ``data.errors`` (field,
    message, code), as a tool's own argument errors do."""
    headers = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json",
               "Authorization": f"Bearer {patient_token(world)}"}
    r = httpx.post(live.mcp_url, json={"jsonrpc": "2.0", "id": 7, **message}, headers=headers, timeout=30)
    error = r.json()["error"]
    assert error["code"] == -32602 and r.json()["id"] == 7 and "result" not in r.json(), r.text
    assert error["data"]["errors"][0]["field"] == field and error["data"]["errors"][0]["code"] == code, error
    assert field in error["message"] and "pydantic" not in r.text, error
    assert list_tools(live, patient_token(world))


def test_every_tool_that_answers_a_page_says_how_to_read_the_rest():
    """list_operations answered its newest 100 operations with a next_cursor the tool's description never
    mentioned, so a model took the page for the whole list: every tool whose operation takes a cursor tells the
    model to call again with next_cursor as cursor."""
    paged = [t.name for t in TOOLS if "cursor" in input_schema(t.name)["properties"]]
    assert {"list_memories", "list_proposals", "list_operations"} <= set(paged)
    for name in paged:
        assert "next_cursor" in TOOLS_BY_NAME[name].description and "cursor" in TOOLS_BY_NAME[name].description, name
