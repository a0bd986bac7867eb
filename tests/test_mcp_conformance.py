"""What an MCP client developer relies on beyond each tool's schemas, checked in-process through the SDK's own
client (``mcp.Client`` connected to the server object): an unknown tool is a protocol error as the 2025-11-25
specification lists it, and every tool's annotations say what calling it does."""

from __future__ import annotations

import anyio
import httpx
import pytest
from mcp import Client
from mcp.shared.exceptions import MCPError

from agents_mcp.server import SCOPES_SUPPORTED, build_app, build_server
from tests.support import PATIENT_SCOPES


def _tools_and_errors(token: str, calls: list[tuple[str, dict]]) -> tuple[dict, list]:
    async def go():
        async with Client(build_server(token_source=lambda: token)) as client:
            tools = {t.name: t for t in (await client.list_tools()).tools}
            answers = []
            for name, arguments in calls:
                try:
                    answers.append(await client.call_tool(name, arguments))
                except MCPError as exc:
                    answers.append(exc)
            return tools, answers
    return anyio.run(go)


@pytest.mark.django_db(transaction=True)
def test_an_unknown_tool_is_a_json_rpc_invalid_params_error_and_still_counted(world, committed_db, settings):
    """MCP 2025-11-25 (server/tools, error handling) lists an unknown tool among the protocol errors: a JSON-RPC
    error -32602 naming the tool, never a tool result (which a host hands to the model as if the tool had run). It
    was an ``isError`` result with the problem ``422 unknown_tool``. The call is still counted against the
    caller's rate limits, as a refused REST request is: past them the answer is the rate limit's (-32029)."""
    settings.API_RATE_LIMIT_WINDOW_SECONDS = 3600
    settings.API_RATE_LIMIT_PER_SUBJECT = 2
    token = world.token(sub="scheduling-agent", patient_id=world.patient_a, scope=PATIENT_SCOPES,
                        act={"sub": "scheduling-agent"})
    _, answers = _tools_and_errors(token, [("no_such_tool", {}), ("No Such Tool" * 40, {"x": 1}),
                                           ("no_such_tool", {})])
    first, long_name, limited = answers
    assert isinstance(first, MCPError), first
    assert first.code == -32602 and first.message == "Unknown tool: no_such_tool"
    assert first.data == {"errors": [{"field": "name", "code": "unknown_tool",
                                      "message": "No tool of this name: tools/list names the tools."}]}
    assert isinstance(long_name, MCPError) and long_name.code == -32602
    assert len(long_name.message) < 160  # the name as sent is not echoed at any length
    assert isinstance(limited, MCPError), limited
    assert limited.code == -32029 and limited.data["code"] == "rate_limited" and limited.data["retry_after"] >= 1


# Every tool's MCP annotations (readOnlyHint, destructiveHint, idempotentHint, openWorldHint), by what it does.
ANNOTATIONS = {
    # reads: change nothing, so calling one again changes nothing more (their audit rows, and the context pack's
    # release, record a disclosure: they are the record of a read, not a change the caller made)
    "search_memories": (True, False, True, False),
    "get_context_pack": (True, False, True, False),
    "list_memories": (True, False, True, False),
    "list_proposals": (True, False, True, False),
    "list_consents": (True, False, True, False),
    "list_memory_types": (True, False, True, False),
    "get_session_context": (True, False, True, False),
    "read_workflow": (True, False, True, False),
    "list_operations": (True, False, True, False),
    # writes that add: a proposal still waiting is answered again, a turn's preferences are proposed once
    "propose_memory": (False, False, True, False),
    "propose_preferences_from_turn": (False, False, True, False),
    # each call starts or adds one more
    "start_session": (False, False, False, False),
    "add_turn": (False, False, False, False),
    "create_workflow": (False, False, False, False),
    # the scheduling system is asked, and the offers are recorded as one more tool turn each time
    "search_offers": (False, False, False, True),
    # the expected version refuses a repeat; its request_operation is queued for an outside system
    "checkpoint_workflow": (False, False, True, True),
    # the idempotency key returns the same operation; the operation is sent to an outside system
    "request_operation": (False, False, True, True),
    # clears the session's slots, summary and tool results; ending it again changes nothing more
    "end_session": (False, True, True, False),
}


def test_every_tools_annotations_say_what_calling_it_does():
    """Hosts decide by the annotations whether to ask a person first and whether to retry after a timeout: a read
    is idempotent (the read tools said idempotentHint false), and checkpoint_workflow, which may queue an operation
    for the scheduling system or the insurer in the same transaction, reaches an outside system as
    request_operation does (it said openWorldHint false). Every hint is given, none left to the defaults
    (destructiveHint and openWorldHint default to true)."""
    tools, _ = _tools_and_errors("unused", [])
    got = {name: (t.annotations.read_only_hint, t.annotations.destructive_hint, t.annotations.idempotent_hint,
                  t.annotations.open_world_hint) for name, t in tools.items()}
    assert got == ANNOTATIONS


@pytest.mark.django_db(transaction=True)
def test_a_short_mrn_is_redacted_only_where_it_stands_as_a_whole_token(world, committed_db):
    """A patient known by the MRN "1030" (four digits, as some registries number them): a tool answer showing the
    time 10:30 (the conversation's earliest_time slot, which must read HH:MM; or written 10 30), the date
    2031-05-06, the number 21030 or the slot id A1030 keeps them. They were "[patient]": the MRN's digits were
    matched with a colon between them or inside a longer number. The MRN itself, alone or after its system's name,
    and the number 1030 are still redacted."""
    admin = world.staff("org-admin", scope="patient:write patient:read grant:write")
    assert admin.post("/v1/patients", {"patient_id": str(world.patient_a), "display_name": "Ada Quill",
                                       "identifiers": [{"system": "urn:oid:2.16.840.1.113883.19.5",
                                                        "value": "1030"}]}).status_code == 201
    world.consent(world.patient_a)
    token = world.token(sub="scheduling-agent", patient_id=world.patient_a, scope=PATIENT_SCOPES,
                        act={"sub": "scheduling-agent"})

    async def go():
        async with Client(build_server(token_source=lambda: token)) as client:
            session = (await client.call_tool("start_session", {"purpose": "appointment_scheduling"})
                       ).structured_content["session"]["session_id"]
            said = await client.call_tool("add_turn", {"session_id": session, "role": "user",
                                                       "content": "Any day works, but only after 10:30 please."})
            workflow = (await client.call_tool("create_workflow", {"workflow_type": "appointment_booking"})
                        ).structured_content
            moved = await client.call_tool("checkpoint_workflow", {
                "workflow_id": workflow["workflow_id"], "expected_version": workflow["version"],
                "next_step": "propose_slots",
                "state_patch": {"at": "10:30", "day": "2031-05-06", "count": 21030, "slot": "A1030",
                                "mrn": "1030", "record": "MRN: 1030", "number": 1030, "spaced": "10 30"}})
            return said, moved

    said, moved = anyio.run(go)
    assert not said.is_error, said.structured_content
    assert said.structured_content["slots"]["earliest_time"] == "10:30"
    assert not moved.is_error, moved.structured_content
    assert moved.structured_content["state"] == {
        "at": "10:30", "day": "2031-05-06", "count": 21030, "slot": "A1030", "mrn": "[patient]",
        "record": "MRN: [patient]", "number": "[patient]", "spaced": "10 30"}


@pytest.mark.django_db(transaction=True)
def test_a_401_names_the_scopes_a_client_should_ask_for(committed_db, settings):
    """MCP 2025-11-25 (authorization, scope selection): a server SHOULD put the scopes needed for the resource in
    the 401's ``WWW-Authenticate`` challenge (RFC 6750 section 3), and a client asks for those, falling back to the
    metadata's ``scopes_supported`` only when the challenge names none. The challenge named none: a client reading
    another resource's metadata, or none, asked for too much or too little. Both challenges (no token, a bad
    one) now name the tools' scopes, the same as the metadata's."""
    async def go():
        transport = httpx.ASGITransport(app=build_app())
        async with httpx.AsyncClient(transport=transport) as http:
            listing = {"jsonrpc": "2.0", "id": 1, "method": "tools/list"}
            return [await http.post(settings.MCP_RESOURCE_URL, json=listing, headers=headers)
                    for headers in ({}, {"Authorization": "Bearer not-a-jwt"})]

    for r in anyio.run(go):
        assert r.status_code == 401, r.content
        assert f'scope="{" ".join(SCOPES_SUPPORTED)}"' in r.headers["WWW-Authenticate"], r.headers
    assert set(SCOPES_SUPPORTED) == {"memory:read", "memory:write", "consent:read", "workflow:read", "workflow:write"}
