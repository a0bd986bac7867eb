"""An example agent: the specified booking conversation, end to end, over MCP (the official SDK's client).

It opens a conversation session, sends the patient's turns, reads the slots and standing preferences from the
session context, has the service ask the scheduling system for offers, checkpoints an appointment-booking
workflow, requests the booking operation with an idempotency key, and proposes the standing preference the patient
stated ("don't book me before 10 a.m."), which stays *proposed* until the patient confirms it in the portal.

Scripted by default (no language model). With ``OPENAI_BASE_URL`` set (and ``OPENAI_MODEL``, optionally
``OPENAI_API_KEY``), an OpenAI-compatible model chooses the tool calls for the same turns instead.

    ANAMNESIS_TOKEN=$(.venv/bin/python manage.py demo_agent_token) .venv/bin/python examples/booking_agent.py

The agent acts for the patient its token names (the ``patient_id`` claim, the launch context): it passes no patient
id to any tool and never sees one (the results read ``[patient]``), so the id never reaches a model's context.

Options: ``--url`` (default http://127.0.0.1:8000/mcp), ``--patient-id`` (only for a token that names no patient,
e.g. a staff member's). Prints a JSON summary of what it did on stdout; a refusal (a tool's, or of the token
itself: expired, revoked), a service it cannot reach or a model that fails goes to stderr as JSON, with exit code 1.
"""

from __future__ import annotations

import argparse
import asyncio
import base64
import json
import os
import sys
from typing import Any

import httpx2
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.exceptions import MCPError

PURPOSE = "appointment_scheduling"
# The patient's side of the specification's booking conversation (a cardiology reschedule), in order.
PATIENT_TURNS = (
    "I need to reschedule my cardiology follow-up. I can't do mornings, and I'm currently taking blood thinners.",
    "What about Thursday?",
    "Yes, Thursday at 14:00 works. And please don't book me before 10:00 in future, I need time for my morning "
    "medication and transport.",
)


class ToolRefused(Exception):
    def __init__(self, tool: str, problem: dict):
        super().__init__(f"{tool}: {problem.get('code')} ({problem.get('message')})")
        self.tool = tool
        self.problem = problem


class ModelFailed(Exception):
    """The chat model could not be reached or gave no message (not the service's doing)."""

    def __init__(self, url: str, exc: Exception):
        super().__init__(f"{type(exc).__name__}: {exc}")
        self.url = url


class Tools:
    """Calls MCP tools and returns their structured result; a refusal raises with the problem document."""

    def __init__(self, client: Client) -> None:
        self.client = client
        self.calls: list[str] = []

    async def __call__(self, name: str, /, **arguments: Any) -> dict:  # a tool argument may be called "name"
        self.calls.append(name)
        try:
            result = await self.client.call_tool(name, arguments)
        except MCPError as exc:
            # A token whose scopes do not reach the tool is refused over HTTP (403, the scopes to ask for in
            # WWW-Authenticate), not with a tool result: the JSON-RPC error's data is the problem document.
            if isinstance(exc.data, dict) and "code" in exc.data:
                raise ToolRefused(name, exc.data) from None
            # A tool the server does not have (a model's invention) is the JSON-RPC error -32602 whose data names
            # the code unknown_tool: a refusal of this call, which a model is told of, never the end of the run.
            if _unknown_tool(exc.data):
                raise ToolRefused(name, {"code": "unknown_tool", "message": f"no tool is named {name!r}: "
                                         "choose one of the tools you were given"}) from None
            raise
        body = result.structured_content
        if body is None and result.content:
            body = json.loads(result.content[0].text)
        if result.is_error:
            raise ToolRefused(name, body or {})
        return body


def _unknown_tool(data: Any) -> bool:
    errors = data.get("errors") if isinstance(data, dict) else None
    return isinstance(errors, list) and any(isinstance(e, dict) and e.get("code") == "unknown_tool" for e in errors)


def token_claims(token: str) -> dict | None:
    """The token's claims, read (not verified: the service verifies) to know whose conversation this is; None for a
    token that is no JWT we can read (an opaque token, or a mistyped one), which only the service can judge."""
    try:
        payload = token.split(".")[1]
        claims = json.loads(base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4)))
    except (IndexError, ValueError):
        return None
    return claims if isinstance(claims, dict) else None


async def scripted(tools: Tools, patient: dict) -> dict:
    """``patient``: ``{}`` when the token names the patient, else ``{"patient_id": ...}``."""
    started = await tools("start_session", **patient, purpose=PURPOSE)
    session_id = started["session"]["session_id"]
    summary: dict[str, Any] = {"session_id": session_id}

    # Turns 1 and 2: the request with its constraint, then the follow-up reference ("Thursday").
    for text in PATIENT_TURNS[:2]:
        turn = await tools("add_turn", session_id=session_id, role="user", content=text)
    summary["care_team_flags"] = [f["category"] for f in turn["care_team_flags"]]

    context = (await tools("get_session_context", session_id=session_id, max_tokens=2000, purpose=PURPOSE))["context"]
    summary["slots"] = {k: context["slots"][k] for k in ("specialty", "visit_type", "preferred_days",
                                                         "excluded_periods")}
    summary["standing_preferences"] = context["standing_preferences"]

    offers = await tools("search_offers", session_id=session_id)
    summary["offers"] = [o["slot_id"] for o in offers["offers"]]
    if not offers["offers"]:
        await tools("add_turn", session_id=session_id, role="assistant",
                    content="I could not find a slot that fits; shall I look at other days?")
        await tools("end_session", session_id=session_id, outcome="abandoned")
        return {**summary, "outcome": "no_offer"}
    slot = offers["offers"][0]
    await tools("add_turn", session_id=session_id, role="assistant",
                content=f"{slot['day'].title()} at {slot['time']} is free. Shall I book it?")

    workflow = await tools("create_workflow", workflow_type="appointment_booking", **patient)
    workflow = await tools("checkpoint_workflow", workflow_id=workflow["workflow_id"],
                           expected_version=workflow["version"], next_step="propose_slots",
                           state_patch={"specialty": context["slots"]["specialty"], "offers": len(offers["offers"])})

    # Turn 3: the patient accepts, and states a durable preference.
    accepted = await tools("add_turn", session_id=session_id, role="user", content=PATIENT_TURNS[2])
    workflow = await tools("checkpoint_workflow", workflow_id=workflow["workflow_id"],
                           expected_version=workflow["version"], next_step="confirm_booking",
                           state_patch={"slot_id": slot["slot_id"]})
    appointment_type = f"{context['slots']['specialty']}_{context['slots']['visit_type'] or 'followup'}"
    # One key per workflow and slot: a retry after a lost answer returns the same operation, never a second booking.
    operation = await tools("request_operation", workflow_id=workflow["workflow_id"],
                            expected_version=workflow["version"], kind="book_appointment",
                            payload={"slot_id": slot["slot_id"], "appointment_type": appointment_type},
                            idempotency_key=f"book-{workflow['workflow_id']}-{slot['slot_id']}")
    proposals = await tools("propose_preferences_from_turn", session_id=session_id, seq=accepted["turn"]["seq"])
    await tools("add_turn", session_id=session_id, role="assistant",
                content="Your booking request is in. I noted 'not before 10:00' for you to confirm in the portal.")
    ended = await tools("end_session", session_id=session_id, outcome="completed")
    return {**summary, "outcome": "booking_requested", "workflow_id": workflow["workflow_id"],
            "workflow_step": workflow["current_step"], "operation_id": operation["operation_id"],
            "operation_status": operation["status"], "idempotency_key": operation["idempotency_key"],
            "proposed_memory_ids": [m["memory_id"] for m in proposals["proposed"]],
            "proposed_facts": [m["fact"] for m in proposals["proposed"]],
            "session_status": ended["session"]["status"]}


async def model_driven(tools: Tools, patient: dict) -> dict:
    """Let an OpenAI-compatible chat model choose the tool calls for the same patient turns (at most 12 calls per
    turn). The tool list and schemas come from the MCP server."""
    base = os.environ["OPENAI_BASE_URL"].rstrip("/")
    model = os.environ.get("OPENAI_MODEL", "gpt-4o-mini")
    listed = (await tools.client.list_tools()).tools
    functions = [{"type": "function", "function": {"name": t.name, "description": t.description or "",
                                                   "parameters": t.input_schema}} for t in listed]
    messages: list[dict] = [{"role": "system", "content": (
        f"You book appointments for {_whom(patient)} (purpose {PURPOSE}) using the tools. Start a session, "
        "record every patient message with add_turn, search offers, create and checkpoint an appointment_booking "
        "workflow, request book_appointment with an idempotency key, propose stated preferences from the turn "
        "that stated them, and end the session. Never invent slot ids.")}]
    headers = {"Authorization": f"Bearer {os.environ['OPENAI_API_KEY']}"} if os.environ.get("OPENAI_API_KEY") else {}
    async with httpx2.AsyncClient(timeout=60, headers=headers) as http:
        for text in PATIENT_TURNS:
            messages.append({"role": "user", "content": text})
            for _ in range(12):
                try:
                    r = await http.post(f"{base}/chat/completions", json={"model": model, "messages": messages,
                                                                          "tools": functions})
                    r.raise_for_status()
                    message = r.json()["choices"][0]["message"]
                    calls = _tool_calls(message)
                except (httpx2.HTTPError, ValueError, LookupError, TypeError) as exc:
                    raise ModelFailed(base, exc) from None
                messages.append(message)
                if not calls:
                    break
                for call_id, name, raw in calls:
                    arguments = _arguments(raw)
                    try:
                        out = INVALID_ARGUMENTS if arguments is None else await tools(name, **arguments)
                    except ToolRefused as exc:
                        out = exc.problem
                    messages.append({"role": "tool", "tool_call_id": call_id, "content": json.dumps(out)})
    return {"outcome": "model_driven", "tool_calls": tools.calls}


# What the model is told when its tool call's arguments are no JSON object, so that it can send the call again.
INVALID_ARGUMENTS = {"code": "invalid_arguments", "message": "the tool call's arguments are not a JSON object"}


def _tool_calls(message: Any) -> list[tuple[Any, str, Any]]:
    """The tool calls a model's message asks for, as (id, tool name, arguments). A message or a call of another
    shape is the model's failure (TypeError), never taken for the MCP service's."""
    calls = message.get("tool_calls") if isinstance(message, dict) else None
    if not isinstance(message, dict) or not isinstance(calls or [], list) or not all(
            isinstance(c, dict) and isinstance(c.get("function"), dict) and isinstance(c["function"].get("name"), str)
            for c in calls or []):
        raise TypeError("the model's message is not a chat completion message with tool calls")
    return [(c.get("id"), c["function"]["name"], c["function"].get("arguments")) for c in calls or []]


def _arguments(text) -> dict | None:
    if isinstance(text, dict):  # some OpenAI-compatible servers send the object itself
        return text
    try:
        arguments = json.loads(text or "{}")
    except (TypeError, ValueError):
        return None
    return arguments if isinstance(arguments, dict) else None


def _whom(patient: dict) -> str:
    if patient:  # a staff token: the model has to pass the id it is given
        return f"patient {patient['patient_id']}"
    return "the patient your access acts for (leave patient_id out of every tool call)"


async def run(url: str, token: str, patient: dict) -> dict:
    refusals: list[dict] = []

    async def keep_refusal(response: httpx2.Response) -> None:
        # The SDK reports an HTTP refusal (an expired or revoked token: 401) as "Server returned an error
        # response"; the service's problem document says which, so it is kept to be reported.
        if response.status_code >= 400 and response.request.method == "POST":
            await response.aread()
            try:
                body = response.json()
            except ValueError:
                body = None
            if isinstance(body, dict) and "jsonrpc" in body:
                return  # a JSON-RPC error answers one call, which Tools reports (an unknown tool, a scope)
            refusals.append(body if isinstance(body, dict) else {"status": response.status_code})

    try:
        async with httpx2.AsyncClient(headers={"Authorization": f"Bearer {token}"}, timeout=30,
                                      event_hooks={"response": [keep_refusal]}) as http, \
                Client(streamable_http_client(url, http_client=http)) as client:
            tools = Tools(client)
            # A refusal is returned, not raised, so it does not leave the client's task group as an exception
            # group.
            try:
                if os.environ.get("OPENAI_BASE_URL"):
                    return await model_driven(tools, patient)
                return await scripted(tools, patient)
            except ToolRefused as exc:
                return {"outcome": "refused", "tool": exc.tool, "problem": exc.problem}
            except ModelFailed as exc:
                return {"outcome": "model_failed", "url": exc.url, "error": str(exc)}
    except Exception as exc:  # noqa: BLE001 - the transport's failures arrive as exception groups
        if refusals:  # the server answered, and refused the request itself (no tool ran)
            return {"outcome": "refused", "tool": None, "problem": refusals[-1]}
        return {"outcome": "unreachable", "url": url, "error": _first_cause(exc)}


def _first_cause(exc: BaseException) -> str:
    """The innermost error of an exception group, named as the transport did ("ConnectError: ...")."""
    while isinstance(exc, BaseExceptionGroup) and exc.exceptions:
        exc = exc.exceptions[0]
    return f"{type(exc).__name__}: {exc}"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--url", default=os.environ.get("ANAMNESIS_MCP_URL", "http://127.0.0.1:8000/mcp"))
    parser.add_argument("--patient-id", default=None)
    args = parser.parse_args(argv)
    token = os.environ.get("ANAMNESIS_TOKEN", "").strip()
    if not token:
        print("set ANAMNESIS_TOKEN to an access token (make run: manage.py demo_agent_token)", file=sys.stderr)
        return 2
    claims = token_claims(token)
    if not args.patient_id and claims is not None and not claims.get("patient_id"):
        print("the token names no patient: pass --patient-id", file=sys.stderr)
        return 2
    patient = {"patient_id": args.patient_id} if args.patient_id else {}
    summary = asyncio.run(run(args.url, token, patient))
    if summary["outcome"] in ("refused", "unreachable", "model_failed"):
        print(json.dumps(summary), file=sys.stderr)
        return 1
    print(json.dumps(summary, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
