"""What an MCP client developer reads of each tool before calling it: valid JSON Schemas (Draft 2020-12) for its
arguments and for the structured content it returns, and a description of every argument. Driven in-process
through the SDK's own client (``mcp.Client`` connected to the server object), which validates every result it
receives against the tool's published output schema."""

from __future__ import annotations

import anyio
import pytest
from jsonschema import Draft202012Validator, FormatChecker
from mcp import Client

from agents_mcp.server import build_server
from agents_mcp.tools import TOOLS, success_schema
from tests.conftest import memory_body
from tests.support import PATIENT_SCOPES

SEED_TURN = "I need to reschedule my cardiology follow-up. I can't do mornings, and Thursdays suit me best."


def _listed(token: str = "unused") -> dict:
    async def go():
        async with Client(build_server(token_source=lambda: token)) as client:
            return {t.name: t for t in (await client.list_tools()).tools}
    return anyio.run(go)


def test_every_tool_publishes_valid_argument_and_output_schemas_and_describes_each_argument():
    """Each tool's inputSchema and outputSchema are JSON Schemas by the Draft 2020-12 meta-schema, objects at
    the root (MCP up to 2025-11-25), and every argument says what it is. No tool had an outputSchema, although
    each returns structured content, and 25 arguments (ids, the question, the fact, the version a checkpoint
    expects...) had no description for a model to go by."""
    tools = _listed()
    assert set(tools) == {t.name for t in TOOLS}
    undescribed = []
    for name, tool in tools.items():
        for schema in (tool.input_schema, tool.output_schema):
            assert schema is not None, name
            Draft202012Validator.check_schema(schema)
            assert schema["type"] == "object", name
        undescribed += [f"{name}.{arg}" for arg, prop in tool.input_schema["properties"].items()
                        if not str(prop.get("description", "")).strip()]
    assert undescribed == []
    # the patient is shown as [patient] in every answer (never their id): the schema says so, not format uuid
    session = success_schema("start_session")["properties"]["session"]["properties"]["patient_id"]
    assert "[patient]" in session["const"] and "format" not in session


@pytest.mark.django_db(transaction=True)
def test_every_tools_structured_content_validates_against_its_output_schema(world, committed_db):
    """An agent acting for a patient calls the tools; what each returns validates against the tool's outputSchema
    (formats asserted), as the SDK's client checks too."""
    cid = world.consent(world.patient_a)
    token = world.token(sub="scheduling-agent", patient_id=world.patient_a, scope=PATIENT_SCOPES,
                        act={"sub": "scheduling-agent"})

    async def go():
        async with Client(build_server(token_source=lambda: token)) as client:
            schemas = {t.name: t.output_schema for t in (await client.list_tools()).tools}
            answers = []

            async def tool(name: str, arguments: dict) -> dict:
                result = await client.call_tool(name, arguments)
                assert not result.is_error, (name, result.structured_content)
                answers.append((name, result.structured_content))
                return result.structured_content

            session = (await tool("start_session", {"purpose": "appointment_scheduling"}))["session"]["session_id"]
            turn = await tool("add_turn", {"session_id": session, "role": "user", "content": SEED_TURN})
            await tool("get_session_context", {"session_id": session, "max_tokens": 500})
            await tool("propose_preferences_from_turn", {"session_id": session, "seq": turn["turn"]["seq"]})
            await tool("propose_memory", {**memory_body(cid), "source_ref": "turn:1"})
            await tool("list_proposals", {})
            await tool("list_memories", {})
            await tool("list_consents", {})
            await tool("list_memory_types", {})
            workflow = await tool("create_workflow", {"workflow_type": "appointment_booking"})
            for step in ("propose_slots", "confirm_booking"):
                workflow = await tool("checkpoint_workflow", {"workflow_id": workflow["workflow_id"],
                                                              "expected_version": workflow["version"],
                                                              "next_step": step})
            await tool("request_operation", {"workflow_id": workflow["workflow_id"],
                                             "expected_version": workflow["version"], "kind": "book_appointment",
                                             "payload": {"slot_id": "A1", "appointment_type": "cardiology_followup"},
                                             "idempotency_key": "book-1"})
            await tool("list_operations", {"workflow_id": workflow["workflow_id"]})
            await tool("read_workflow", {"workflow_id": workflow["workflow_id"]})
            await tool("end_session", {"session_id": session, "outcome": "completed"})
            return schemas, answers

    schemas, answers = anyio.run(go)
    # the scheduling system's and the embedding model's tools are left to tests/test_mcp_server.py (whose client, the
    # SDK's, checks each result against its output schema): here they would cost seconds
    assert {name for name, _ in answers} == {t.name for t in TOOLS} - {"search_offers", "search_memories",
                                                                        "get_context_pack"}
    for name, answer in answers:
        errors = list(Draft202012Validator(schemas[name], format_checker=FormatChecker()).iter_errors(answer))
        assert errors == [], (name, [e.message for e in errors])


@pytest.mark.django_db(transaction=True)
def test_a_refusals_structured_content_validates_against_the_tools_output_schema(world, committed_db):
    """A refusal is a tool error whose structured content is the problem document. The output schemas described
    only the success bodies, so a client that checks every structured content against the tool's outputSchema (the
    official TypeScript SDK does, error results too, once it has listed the tools) threw "Structured content does
    not match the tool's output schema" and its agent never saw the refusal, its code or its fields. Each
    outputSchema now also admits the problem document."""
    token = world.token(sub="scheduling-agent", patient_id=world.patient_a, scope=PATIENT_SCOPES,
                        act={"sub": "scheduling-agent"})
    nowhere = "00000000-0000-4000-8000-00000000beef"

    async def go():
        async with Client(build_server(token_source=lambda: token)) as client:
            schemas = {t.name: t.output_schema for t in (await client.list_tools()).tools}
            calls = [("read_workflow", {"workflow_id": nowhere}), ("list_memories", {"limit": 0}),
                     ("checkpoint_workflow", {"workflow_id": nowhere, "expected_version": 1, "next_step": "x"}),
                     ("start_session", {"purpose": "appointment_scheduling"})]
            return schemas, [(name, await client.call_tool(name, arguments)) for name, arguments in calls]

    schemas, refused = anyio.run(go)
    for name, result in refused:
        assert result.is_error and result.structured_content["code"], (name, result.structured_content)
        errors = list(Draft202012Validator(schemas[name]).iter_errors(result.structured_content))
        assert errors == [], (name, [e.message for e in errors])


@pytest.mark.django_db(transaction=True)
def test_the_tools_marked_idempotent_change_nothing_more_when_called_again(world, committed_db):
    """idempotentHint (a host may retry such a call after a timeout without asking) is true for every tool whose
    second identical call changes nothing: a proposal still waiting is answered again (already_proposed), a
    checkpoint's expected version refuses the repeat, a turn's preferences are proposed once. propose_memory,
    propose_preferences_from_turn and checkpoint_workflow said they were not."""
    cid = world.consent(world.patient_a)
    token = world.token(sub="scheduling-agent", patient_id=world.patient_a, scope=PATIENT_SCOPES,
                        act={"sub": "scheduling-agent"})

    async def go():
        async with Client(build_server(token_source=lambda: token)) as client:
            hints = {t.name: t.annotations.idempotent_hint for t in (await client.list_tools()).tools}

            async def twice(name: str, arguments: dict):
                return [(await client.call_tool(name, arguments)) for _ in range(2)]

            proposed = await twice("propose_memory", {**memory_body(cid), "source_ref": "turn:1"})
            listed = (await client.call_tool("list_proposals", {})).structured_content["items"]
            session = (await client.call_tool("start_session", {"purpose": "appointment_scheduling"})
                       ).structured_content["session"]["session_id"]
            await client.call_tool("add_turn", {"session_id": session, "role": "user", "content": SEED_TURN})
            from_turn = await twice("propose_preferences_from_turn", {"session_id": session, "seq": 1})
            workflow = (await client.call_tool("create_workflow", {"workflow_type": "appointment_booking"})
                        ).structured_content
            moved = await twice("checkpoint_workflow", {"workflow_id": workflow["workflow_id"],
                                                        "expected_version": workflow["version"],
                                                        "next_step": "propose_slots"})
            read = (await client.call_tool("read_workflow", {"workflow_id": workflow["workflow_id"]})
                    ).structured_content
            return hints, proposed, listed, from_turn, moved, read

    hints, proposed, listed, from_turn, moved, read = anyio.run(go)
    assert {name for name, hint in hints.items() if hint} >= {
        "propose_memory", "propose_preferences_from_turn", "checkpoint_workflow", "request_operation", "end_session"}
    first, again = (r.structured_content for r in proposed)
    assert not proposed[1].is_error and again["memory_id"] == first["memory_id"]
    assert [p["memory_id"] for p in listed].count(first["memory_id"]) == 1
    assert from_turn[0].structured_content["proposed"] and from_turn[1].structured_content["proposed"] == []
    assert moved[1].is_error and moved[1].structured_content["code"] == "version_conflict"
    assert read["version"] == moved[0].structured_content["version"] and read["current_step"] == "propose_slots"
