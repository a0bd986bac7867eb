"""The MCP tools: each one *is* a REST operation of the agent API, named by its OpenAPI operation id.

A tool's input schema is derived from that operation in the OpenAPI document (path, query and header parameters
plus the request body, flattened into one object), so the two cannot drift apart; a tool call is executed by
that very operation (see :mod:`agents_mcp.dispatch`), so bearer validation, scopes, the RLS identity, audit rows
and problem codes are the REST API's own.

One difference, for the model's sake (the patient identifier never enters model context): a tool's
``patient_id`` is optional. An agent acting for one patient has it in its token's launch context (the
``patient_id`` claim) and the server fills it in; only a token that names no patient (staff) must pass it. The
tool results never show it (see :mod:`agents_mcp.server`).
"""

from __future__ import annotations

import copy
import functools
import re
from dataclasses import dataclass
from typing import Any

# What every answer shows for a patient's id (agents_mcp.redaction), and so what a tool's output schema says of it
from conversations.context import REDACTED

# Header parameters become snake_case arguments.
_HEADER_ARGUMENTS = {"Idempotency-Key": "idempotency_key"}

# The argument the token's launch context supplies (see the module's docstring).
PATIENT_ARGUMENT = "patient_id"
PATIENT_DESCRIPTION = ("The patient. Leave it out when your token names the patient you act for (its patient_id "
                       "claim, the launch context): the server uses that one. Required with a token that names no "
                       "patient (staff).")

# What an argument means, for the arguments whose REST parameter or body field the OpenAPI document leaves
# undescribed (path ids, plain body fields): a model has only the schema to go by.
_DESCRIBED_WHEN_SILENT = {
    "session_id": "The conversation session: the session_id start_session answered.",
    "workflow_id": "The workflow: the workflow_id create_workflow answered.",
    "expected_version": "The workflow's version as you last read it (read_workflow, or your last call's answer). "
                        "A change made since is refused (version_conflict): read the workflow again and decide again.",
    "next_step": "The step to move to: one of the workflow's allowed_next_steps.",
    "seq": "The number (seq) of the user turn to propose from, as add_turn answered it.",
    "memory_class": "Only memories of this class; any class when left out.",
    "memory_type": "Only memories of this type (a name list_memory_types gives); any type when left out or empty.",
    "question": "The question or task the context is for, in words (1-1000 characters).",
    "limit": "At most this many memories in the answer (1-20).",
    "fact": "The fact, as its memory type's JSON Schema (list_memory_types) says: its kind names the attribute, "
            'e.g. {"kind": "earliest_time", "time": "10:00"}. Fields the schema does not declare are refused.',
    "consent_record_id": "The patient's consent the memory is kept under: the consent_record_id list_consents "
                         "shows for consent_purpose.",
    "confidence": "How sure you are of what you extracted, from 0 to 1 (0.8 when left out).",
    "valid_until": "When the fact stops holding (ISO 8601 date and time, UTC); the type's default validity when "
                   "left out.",
    "tool_name": "The tool whose result a tool turn carries (role tool only).",
    "payload": "What the operation needs, as the schema for its kind says (book_appointment: slot_id and "
               "appointment_type; submit_prior_authorization: referral_id, diagnosis_code, medication_code, "
               "member_ref). Fields it does not declare are refused.",
}


@dataclass(frozen=True)
class ToolSpec:
    name: str
    operation_id: str
    description: str
    read_only: bool
    # Arguments the tool requires although the REST operation has them optional (agents must retry safely).
    also_required: tuple[str, ...] = ()
    # What such an argument means in the tool, in place of the REST parameter's description (which says what
    # leaving it out does, and the tool does not let it be left out): (argument, description) pairs.
    described: tuple[tuple[str, str], ...] = ()
    # MCP's tool annotations beside read_only: it takes away what was there; calling it again with the same
    # arguments changes nothing more (a read always: see idempotent_hint); it reaches an outside system (the
    # scheduling system, the insurer), itself or through an operation it queues.
    destructive: bool = False
    idempotent: bool = False
    open_world: bool = False

    @property
    def idempotent_hint(self) -> bool:
        """A read changes nothing, so calling it again changes nothing more (its audit row, and a context pack's
        release, record the disclosure: they are no change the caller asked for)."""
        return self.read_only or self.idempotent


TOOLS: tuple[ToolSpec, ...] = (
    ToolSpec("search_memories", "memories_search",
             "Search a patient's current, consented long-term memories by meaning (deterministic filters first, "
             "then exact ranking). Returns memories with scores. Name why you read in purpose (the patient sees "
             "it).", True),
    ToolSpec("get_context_pack", "memories_context_pack",
             "A context pack for a question: the few memories relevant to it, with guardrail notes and a text "
             "ready for a prompt (never the patient identifier). Recorded as a release for its purpose.", True),
    ToolSpec("list_memories", "memories_list",
             "The patient's current, valid, consented long-term memories. Name why you read in purpose (the "
             "patient sees it): you get the memories kept for that purpose. A page at a time: while next_cursor "
             "is not null, call again with it as cursor for the rest.", True),
    ToolSpec("list_proposals", "memories_proposals_list",
             "Proposals waiting for the patient's or staff's confirmation, oldest first. One marked stale (with "
             "overtaken_by, the current value since) was made before its attribute's current value became current: "
             "it cannot be confirmed; propose against the current value instead. A page at a time: while "
             "next_cursor is not null, call again with it as cursor for the rest.", True),
    ToolSpec("propose_memory", "memories_propose",
             "Propose a typed long-term memory extracted from a conversation. It stays 'proposed' (never used) "
             "until the patient or staff confirm it; agents never write active facts. Proposing it again while "
             "it waits answers the same proposal (already_proposed).", False, idempotent=True),
    ToolSpec("list_consents", "consents_list",
             "The patient's consents, newest first, each with its purpose of use and status: propose_memory names "
             "the consent_record_id of the one granted for its consent_purpose. A page at a time: while "
             "next_cursor is not null, call again with it as cursor for the older ones.", True),
    ToolSpec("list_memory_types", "memory_types_list",
             "The memory types the caller's organisation may use: class, purposes, who may write them, the kinds "
             "of fact each accepts and the JSON Schema of its facts.", True),
    ToolSpec("start_session", "sessions_create",
             "Open a short-term conversation session for one patient and one purpose.", False),
    ToolSpec("add_turn", "sessions_turns_append",
             "Append a user, assistant or tool turn. Slots (intent, specialty, days, periods, times) are parsed "
             "from every user turn; clinical remarks are flagged for the care team, never stored as memory.",
             False),
    ToolSpec("get_session_context", "sessions_context",
             "The model context within a token budget: slots, standing preferences, newest turns and a "
             "structured summary of older ones. Never holds the patient identifier. Read for the session's "
             "purpose.", True),
    ToolSpec("search_offers", "sessions_offers_search",
             "Ask the scheduling system for slots matching the conversation's slots and the patient's standing "
             "preferences; the offers are recorded as a tool turn.", False, open_world=True),
    ToolSpec("propose_preferences_from_turn", "sessions_turns_propose",
             "Propose the durable scheduling preferences a user turn stated as long-term memories (proposed, "
             "awaiting the patient's confirmation). Each is proposed once: asked again, the turn's proposals still "
             "waiting are skipped (already_proposed).", False, idempotent=True),
    ToolSpec("end_session", "sessions_end",
             "End the session as completed or abandoned: slots, summary and tool results are cleared.", False,
             destructive=True, idempotent=True),
    ToolSpec("create_workflow", "workflows_create",
             "Start a durable workflow (e.g. appointment_booking) for a patient.", False),
    ToolSpec("read_workflow", "workflows_read",
             "A workflow's step, version, allowed next steps, unsettled operations and next safe action: what an "
             "agent resuming after a crash reads first.", True),
    ToolSpec("checkpoint_workflow", "workflows_checkpoint",
             "Move a workflow to an allowed next step with the version you read (optimistic concurrency), a "
             "small state patch and optionally an operation queued in the same transaction. The same checkpoint "
             "again is refused by the version it expects (version_conflict): it never moves the workflow twice.",
             False, idempotent=True, open_world=True),
    ToolSpec("request_operation", "workflow_operations_request",
             "Queue a non-read action against an outside system (e.g. book_appointment) at the workflow's "
             "current step. The idempotency key makes a retry return the same operation.", False,
             also_required=("idempotency_key",), idempotent=True, open_world=True,
             described=(("idempotency_key",
                         "Required: your key for this request (1-100 of A-Z a-z 0-9 . _ : -), new for each new "
                         "operation. Called again with the same key and arguments (a retry after a timeout or a "
                         "crash), it returns the same operation and nothing is queued twice; the same key with "
                         "other arguments is refused (idempotency_key_reused)."),)),
    ToolSpec("list_operations", "workflow_operations_list",
             "The workflow's operations and their status, newest first. A page at a time: while next_cursor is "
             "not null, call again with it as cursor for the older ones.", True),
)
TOOLS_BY_NAME = {t.name: t for t in TOOLS}


@dataclass(frozen=True)
class Operation:
    """How one tool's arguments map onto its REST request."""

    method: str
    path: str
    path_params: tuple[str, ...]
    query_params: tuple[str, ...]
    headers: dict[str, str]          # argument name -> header name
    body_params: tuple[str, ...]
    input_schema: dict[str, Any]
    # The structured content a call answers with: the operation's success body, as the tool shows it, or a problem
    output_schema: dict[str, Any]
    # Optional arguments whose null is taken for their absence (see _operation)
    null_means_absent: frozenset[str] = frozenset()

    @property
    def takes_patient(self) -> bool:
        return PATIENT_ARGUMENT in self.input_schema["properties"]


def openapi_document() -> dict:
    from drf_spectacular.generators import SchemaGenerator

    return SchemaGenerator().get_schema(request=None, public=True)


def _resolve(schema: Any, components: dict, seen: tuple[str, ...] = ()) -> Any:
    """Inline ``$ref``s and turn OpenAPI 3.0's ``nullable`` into JSON Schema (a ``null`` alternative)."""
    if isinstance(schema, list):
        return [_resolve(s, components, seen) for s in schema]
    if not isinstance(schema, dict):
        return schema
    if "$ref" in schema:
        name = schema["$ref"].rsplit("/", 1)[-1]
        if name in seen:
            raise ValueError(f"recursive schema {name} cannot be a tool input")
        return _resolve(components[name], components, (*seen, name))
    out = {k: _resolve(v, components, seen) for k, v in schema.items() if k not in ("nullable", "readOnly")}
    return _or_null(out) if schema.get("nullable") else out


def _accepts_null(schema: dict) -> bool:
    types_ = schema.get("type")
    return types_ == "null" or (isinstance(types_, list) and "null" in types_) or any(
        isinstance(s, dict) and _accepts_null(s) for s in schema.get("anyOf", []))


def _or_null(schema: dict) -> dict:
    """The schema with ``null`` as one more value it takes."""
    if isinstance(schema.get("type"), str):
        out = {**schema, "type": [schema["type"], "null"]}
        if "enum" in out and None not in out["enum"]:
            out["enum"] = [*out["enum"], None]
        return out
    return {"anyOf": [schema, {"type": "null"}]}


def _operation(document: dict, spec: ToolSpec) -> Operation:
    components = document.get("components", {}).get("schemas", {})
    for path, ops in document["paths"].items():
        for method, op in ops.items():
            if op.get("operationId") != spec.operation_id:
                continue
            properties: dict[str, Any] = {}
            required: list[str] = []
            path_params, query_params, headers = [], [], {}
            for p in op.get("parameters", []):
                arg = _HEADER_ARGUMENTS.get(p["name"], p["name"]) if p["in"] == "header" else p["name"]
                if not re.fullmatch(r"[a-z_][a-z0-9_]*", arg):
                    raise ValueError(f"{spec.operation_id}: parameter {p['name']} has no argument name")
                prop = _resolve(p.get("schema", {"type": "string"}), components)
                if p.get("description"):
                    prop = {**prop, "description": p["description"]}
                properties[arg] = prop
                if p.get("required") or p["in"] == "path":
                    required.append(arg)
                {"path": path_params, "query": query_params}.get(p["in"], []).append(arg)
                if p["in"] == "header":
                    headers[arg] = p["name"]
            body_params: list[str] = []
            content = op.get("requestBody", {}).get("content", {})
            if "application/json" in content:
                body = _resolve(content["application/json"]["schema"], components)
                for name, prop in body.get("properties", {}).items():
                    if name in properties:
                        raise ValueError(f"{spec.operation_id}: body field {name} collides with a parameter")
                    properties[name] = prop
                    body_params.append(name)
                if op["requestBody"].get("required", False) or body.get("required"):
                    required += list(body.get("required", []))
            required += [a for a in spec.also_required if a not in required]
            for name, description in spec.described:
                properties[name] = {**properties[name], "description": description}
            for name, prop in properties.items():
                if not str(prop.get("description", "")).strip() and name in _DESCRIBED_WHEN_SILENT:
                    properties[name] = {**prop, "description": _DESCRIBED_WHEN_SILENT[name]}
            if PATIENT_ARGUMENT in properties:
                properties[PATIENT_ARGUMENT] = {**properties[PATIENT_ARGUMENT], "description": PATIENT_DESCRIPTION}
                required = [a for a in required if a != PATIENT_ARGUMENT]
            # Models in strict function-calling mode (OpenAI's) send every argument, null for one they leave out:
            # an optional argument takes null as its absence, and says so (a strict client validates against it).
            # A required one never does; one the operation takes null for keeps its meaning.
            absent = frozenset(name for name, prop in properties.items()
                               if name not in required and not _accepts_null(prop))
            for name in absent:
                prop = properties[name]
                lifted = {k: prop[k] for k in ("description", "default") if k in prop and "type" not in prop}
                rest = {k: v for k, v in prop.items() if k not in lifted}
                properties[name] = {**_or_null(rest), **lifted}
            schema = {"type": "object", "properties": properties, "required": sorted(set(required)),
                      "additionalProperties": False}
            return Operation(method=method.upper(), path=path, path_params=tuple(path_params),
                             query_params=tuple(query_params), headers=headers, body_params=tuple(body_params),
                             input_schema=schema, output_schema=_output_schema(op, components),
                             null_means_absent=absent)
    raise LookupError(f"no OpenAPI operation {spec.operation_id}")


def _output_schema(op: dict, components: dict) -> dict[str, Any]:
    """The structured content of a call: the operation's success bodies, every ``patient_id`` in them as the tool
    shows it, or the problem document a refusal (``isError``) carries. A client may check every structured content
    against the schema, error results too (the official TypeScript SDK does, once it has listed the tools): one
    that described the success bodies alone turned each refusal into that client's own validation error."""
    bodies: list[dict] = []
    for status, response in sorted(op.get("responses", {}).items()):
        content = response.get("content", {})
        if str(status).startswith("2") and "application/json" in content:
            body = _shown(_resolve(content["application/json"]["schema"], components))
            if body not in bodies:
                bodies.append(body)
    if not bodies:
        raise ValueError(f"{op.get('operationId')}: no JSON success body to be a tool's output")
    return {"type": "object", "anyOf": [*bodies, _resolve(components["Problem"], components)]}


def success_schema(name: str) -> dict[str, Any]:
    """The structured content of the tool's successful calls: its output schema without the problem document."""
    bodies = output_schema(name)["anyOf"][:-1]
    return bodies[0] if len(bodies) == 1 else {"type": "object", "anyOf": bodies}


def _shown(schema: Any) -> Any:
    """The schema with every ``patient_id`` property as answers show it: ``[patient]``, or null where it may be."""
    if isinstance(schema, list):
        return [_shown(s) for s in schema]
    if not isinstance(schema, dict):
        return schema
    out = {k: _shown(v) for k, v in schema.items()}
    if isinstance(out.get("properties"), dict) and PATIENT_ARGUMENT in out["properties"]:
        was = out["properties"][PATIENT_ARGUMENT]
        shown: dict[str, Any] = {"type": "string", "const": REDACTED}
        if _accepts_null(was):
            shown = {"anyOf": [shown, {"type": "null"}]}
        out["properties"] = {**out["properties"], PATIENT_ARGUMENT: {
            **shown, "description": "The patient, never shown by their identifier."}}
    return out


@functools.cache
def operations() -> dict[str, Operation]:
    """Every tool's REST operation, from the OpenAPI document generated once per process."""
    document = openapi_document()
    return {spec.name: _operation(document, spec) for spec in TOOLS}


def input_schema(name: str) -> dict[str, Any]:
    return copy.deepcopy(operations()[name].input_schema)


def output_schema(name: str) -> dict[str, Any]:
    return copy.deepcopy(operations()[name].output_schema)
