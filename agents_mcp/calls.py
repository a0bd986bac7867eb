"""Running one tool call: the arguments checked against the tool's input schema, the REST operation run as the
caller (agents_mcp.dispatch), and the answer without the patient's identifiers (agents_mcp.redaction); a call
refused before its operation runs (arguments its schema refuses, an unknown tool) counted as the operation's own
refusal would be."""

from __future__ import annotations

import functools
import logging
import re
import uuid

import mcp_types as types
from django.db import connection
from django.urls import Resolver404, resolve
from jsonschema import Draft202012Validator, FormatChecker
from mcp.shared.exceptions import MCPError

from agents_mcp import dispatch
from agents_mcp.messages import rate_limited_error
from agents_mcp.redaction import identifiers_of, patient_ids_in, without_patient_ids
from agents_mcp.tools import PATIENT_ARGUMENT, TOOLS_BY_NAME, input_schema, operations
from core.authentication import identity_from_token
from core.errors import ApiError, InsufficientScope, RateLimited, ValidationFailed, problem_body
from core.gate import RequestGate
from core.identity import identity_context
from core.logging import request_id_var
from core.permissions import required_scopes_for
from core.serializers import schema_error_message
from core.vocabulary import uuid_or_none

log = logging.getLogger("anamnesis.mcp")


class ScopeChallenge(Exception):
    """A tool call the token's scopes do not reach: its REST operation refused it ``403 insufficient_scope`` (and
    audited and counted the refusal). Over HTTP it is answered as MCP's authorization asks, a 403 whose challenge
    names the scopes to ask for (:class:`agents_mcp.server.BearerGuard`), not as a tool result."""

    def __init__(self, needed: frozenset[str], body: dict) -> None:
        super().__init__("insufficient_scope")
        self.needed = needed
        self.body = body


_CHALLENGED_SCOPE = re.compile(r'scope="([^"]*)"')


def error_problem(exc: ApiError) -> dict:
    return problem_body(status_code=exc.status_code, code=exc.code, title=exc.title, message=exc.message,
                        errors=exc.errors)


_argument_validators: dict[str, Draft202012Validator] = {}
# Ids are checked as the schema's ``format: uuid`` says (a malformed one named, not a 404 from the operation's path);
# date-times are left to the operation, which takes more ISO 8601 forms than RFC 3339.
_FORMATS = FormatChecker(formats=("uuid",))
# A value of the right type that is out of its range, too long, blank or not one of a closed set is left to the
# operation, which refuses it with the REST API's own code (max_length, blank, max_value, invalid_choice, ...):
# checked here, the same mistake was errors[].code "invalid" over MCP only.
_LEFT_TO_THE_OPERATION = frozenset({"enum", "maxLength", "minLength", "maximum", "minimum", "exclusiveMaximum",
                                    "exclusiveMinimum"})


def argument_errors(name: str, arguments: dict, *, leaving: frozenset[str] = frozenset()) -> list[dict]:
    """The arguments checked against the tool's published input schema (the REST operation checks them again),
    but for the rules (JSON Schema keywords) in ``leaving``."""
    validator = _argument_validators.get(name)
    if validator is None:
        validator = _argument_validators[name] = Draft202012Validator(input_schema(name), format_checker=_FORMATS)
    errors = []
    for error in validator.iter_errors(arguments):
        at = ".".join(str(part) for part in error.absolute_path)
        if error.validator in leaving:
            continue
        if error.validator == "required":
            errors += [{"field": f"{at}.{field}" if at else field, "message": "This field is required.",
                        "code": "required"} for field in error.validator_value if field not in error.instance]
        elif error.validator == "additionalProperties" and isinstance(error.instance, dict):
            known = set(error.schema.get("properties", {}))
            errors += [{"field": f"{at}.{field}" if at else field, "message": "Unknown field.",
                        "code": "unknown_field"} for field in sorted(set(error.instance) - known)]
        else:
            errors.append({"field": at or None, "message": schema_error_message(error), "code": "invalid"})
    unique = {(e["field"], e["code"], e["message"]): e for e in errors}  # one per field and rule, in order
    return list(unique.values())


def run_tool(name: str, arguments: dict, *, token: str, host: str, request_id: str | None) -> tuple[bool, dict]:
    """Run one tool as the caller; blocking. Returns (ok, body) where a refusal's body is a problem document
    carrying the request id (as the REST operation's would); a token whose scopes do not reach the tool raises
    :class:`ScopeChallenge`.

    The body goes into the model's context, so it never shows a patient identifier: every
    ``patient_id`` reads ``[patient]``, and the patients the call is about (the launch context's, the
    ``patient_id`` argument, any ``patient_id`` in the answer) are replaced wherever else they occur (ids inside
    texts, states and tool results, an upper-case or unhyphenated copy), with the identifiers the directory knows
    them by (an MRN)."""
    reset = request_id_var.set(request_id or str(uuid.uuid4()))
    patients: list[uuid.UUID] = []
    try:
        ok, body = _run_tool(name, arguments, token=token, host=host, request_id=request_id_var.get(),
                             patients=patients)
        patients += [p for p in patient_ids_in(body) if p not in patients]
        identifiers = identifiers_of(token, patients)
    finally:
        request_id_var.reset(reset)
    return ok, without_patient_ids(body, patients, identifiers)


def _run_tool(name: str, arguments: dict, *, token: str, host: str, request_id: str,
              patients: list[uuid.UUID]) -> tuple[bool, dict]:
    spec = TOOLS_BY_NAME[name]
    try:
        identity = identity_from_token(token)
    except ApiError as exc:
        return False, error_problem(exc)
    # A token that does not reach the tool is refused for that, whatever its arguments, as REST refuses before it
    # reads a body: its arguments are not checked here, and the operation refuses it (audited) when they name it
    needed = tool_scopes(name)
    short_of = needed if not needed <= identity.scopes else frozenset()
    invalid = [] if short_of else argument_errors(name, arguments, leaving=_LEFT_TO_THE_OPERATION)
    if invalid:
        return _refused_before_the_operation(token, ValidationFailed(errors=invalid))
    missing = [] if short_of else [a for a in spec.also_required if arguments.get(a) in (None, "")]
    if missing:
        return _refused_before_the_operation(token, ValidationFailed(errors=[
            {"field": a, "message": "This field is required.", "code": "required"} for a in missing]))
    op = operations()[name]
    arguments = {k: v for k, v in arguments.items() if v is not None or k not in op.null_means_absent}
    launch_patient = identity.patient_self_id
    patients += [p for p in (launch_patient, uuid_or_none(arguments.get(PATIENT_ARGUMENT))) if p is not None]
    if op.takes_patient and arguments.get(PATIENT_ARGUMENT) is None:
        if launch_patient is None:
            return _refused_before_the_operation(token, ValidationFailed(errors=[{
                "field": PATIENT_ARGUMENT, "code": "required",
                "message": "This field is required: the token names no patient it acts for."}]), short_of=short_of)
        arguments = {**arguments, PATIENT_ARGUMENT: str(launch_patient)}
    try:
        outcome = dispatch.call(op, arguments, token=token, host=host, request_id=request_id)
    except dispatch.ArgumentError as exc:
        return _refused_before_the_operation(token, ValidationFailed(errors=exc.errors), short_of=short_of)
    if outcome.status == 403 and outcome.body.get("code") == "insufficient_scope":
        challenged = _CHALLENGED_SCOPE.search(outcome.headers.get("www-authenticate", ""))
        raise ScopeChallenge(frozenset(challenged.group(1).split()) if challenged else frozenset(), outcome.body)
    if not outcome.ok and "code" not in outcome.body:
        return False, problem_body(status_code=outcome.status, code="internal_error", title="Internal error")
    if not outcome.ok and (seconds := _retry_after(outcome.headers)) is not None:
        # A 429 or 503 says when to come back in its Retry-After header (a rate limit's title tells the caller to
        # read it), which a tool result does not carry: the problem gives the seconds as an extension member.
        return False, {**outcome.body, "retry_after": seconds}
    return outcome.ok, outcome.body


def _refused_before_the_operation(token: str, exc: ApiError, *,
                                  short_of: frozenset[str] = frozenset()) -> tuple[bool, dict]:
    """A tool call refused before its REST operation ran (an unknown tool, arguments its schema refuses), counted
    against the caller's limits as the operation's own refusal would be (a stream of them was never counted);
    past the limits the answer is the rate limit's, as over REST. ``short_of``: the scopes the token lacks for the
    tool, when it lacks any: then the refusal is theirs (:class:`ScopeChallenge`), not ``exc``."""
    try:
        identity = identity_from_token(token)
        with identity_context(identity, gate=RequestGate(identity)):
            pass  # the identity statement, and the gate in it, runs when the block ends
    except RateLimited as limited:
        return False, {**error_problem(limited), "retry_after": int(limited.headers["Retry-After"])}
    except Exception as count_exc:  # the refusal stands even if it cannot be counted (an unknown organisation too)
        log.info("mcp: a refused tool call not counted (%s)", type(count_exc).__name__)
    finally:
        connection.close()  # as the door's admission: no worker thread keeps a connection
    if short_of:
        raise ScopeChallenge(short_of, error_problem(InsufficientScope(short_of)))
    return False, error_problem(exc)


@functools.cache
def tool_scopes(name: str) -> frozenset[str]:
    """The scopes the tool's REST operation needs (its view's own declaration); none known when its path does not
    resolve (the operation then refuses as ever)."""
    op = operations()[name]
    path = re.sub(r"\{([a-z_]+)\}", lambda m: "1" if m.group(1) == "seq" else str(uuid.UUID(int=1)), op.path)
    try:
        view = resolve(path).func.cls  # type: ignore[attr-defined]  # DRF's as_view keeps the class
    except (Resolver404, AttributeError):
        return frozenset()
    return required_scopes_for(view, op.method)


# What the -32602 of an unknown tool says of its name (echoed as sent up to this many characters)
_NAME_SHOWN = 64


def unknown_tool(name: str, token: str) -> MCPError:
    """A call of a tool this server does not have: a protocol error, JSON-RPC -32602 (MCP 2025-11-25, server/tools:
    "Unknown tools" are protocol errors; what a tool refuses, its arguments too, is a tool execution error). Counted
    against the caller's limits as a refused REST request is; past them, the rate limit's error (-32029). Blocking:
    call from a thread."""
    _, body = _refused_before_the_operation(token, ValidationFailed(code="unknown_tool"))
    if body["code"] == "rate_limited":
        return rate_limited_error(body, body["retry_after"])
    shown = name if len(name) <= _NAME_SHOWN else name[:_NAME_SHOWN] + "..."
    return MCPError(types.INVALID_PARAMS, f"Unknown tool: {shown}", data={"errors": [{
        "field": "name", "code": "unknown_tool", "message": "No tool of this name: tools/list names the tools."}]})


def _retry_after(headers: dict[str, str]) -> int | None:
    value = headers.get("retry-after", "").strip()
    return int(value) if value.isascii() and value.isdigit() else None
