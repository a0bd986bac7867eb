"""What an MCP client developer relies on beyond each tool's schemas, checked in-process through the SDK's own
client (``mcp.Client`` connected to the server object): every tool's annotations say what calling it does."""

from __future__ import annotations

import anyio
from mcp import Client

from agents_mcp.server import build_server


def _tools_and_errors(token: str, calls: list[tuple[str, dict]]) -> tuple[dict, list]:
    async def go():
        async with Client(build_server(token_source=lambda: token)) as client:
            tools = {t.name: t for t in (await client.list_tools()).tools}
            answers = []
            for name, arguments in calls:
                answers.append(await client.call_tool(name, arguments))
            return tools, answers
    return anyio.run(go)


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
