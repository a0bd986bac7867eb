"""Summaries of older turns in the structured form the product's specification fixes: ``confirmed_facts`` (each
with ``source_id`` and ``confidence``), ``open_questions``, ``decisions``, ``side_effects``, ``source_ids`` and
``next_action``.

* :func:`summarise_deterministic` (the default, used in tests) replays the slot fold over the older turns and
  states what they established, citing the turn each value came from. It never restates a clinical remark: those
  are routed to the care team, not summarised.
* :func:`summarise_llm` asks an OpenAI-compatible API (``/v1/responses`` or ``/v1/chat/completions``, always with
  ``store: false``) and accepts the answer only if it validates against the schema, cites only the turns it was
  given, stays within its token allowance, carries no patient identifier and restates no clinical remark.
  Anything else is rejected and the caller falls back to the deterministic summary.

Logs carry counts and reason codes, never turn text or summary content.
"""

from __future__ import annotations

import json
import logging
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import httpx
import jsonschema
from django.conf import settings

from conversations.parsing import EARLIEST, LATEST, parse_turn
from conversations.slots import OFFER_TOOL, apply_turn, empty_state, next_action, source_id
from conversations.tokens import count_tokens

log = logging.getLogger("anamnesis.conversations")

# The specification's summary schema, verbatim: the contract every summary satisfies.
SUMMARY_SCHEMA: dict = {
    "type": "object",
    "required": ["confirmed_facts", "open_questions", "decisions", "side_effects", "source_ids", "next_action"],
    "properties": {
        "confirmed_facts": {"type": "array", "items": {"type": "object",
                                                       "required": ["fact", "source_id", "confidence"]}},
        "open_questions": {"type": "array"},
        "decisions": {"type": "array"},
        "side_effects": {"type": "array"},
        "source_ids": {"type": "array"},
        "next_action": {"type": "string"},
    },
}
_SOURCE = {"type": "string", "pattern": r"^turn:[1-9][0-9]*$"}
_TEXT = {"type": "string", "minLength": 1, "maxLength": 300}
# What this service produces and accepts: the specification's schema with every item's shape pinned down.
STRICT_SUMMARY_SCHEMA: dict = {
    "type": "object",
    "additionalProperties": False,
    "required": SUMMARY_SCHEMA["required"],
    "properties": {
        "confirmed_facts": {"type": "array", "maxItems": 30, "items": {
            "type": "object", "additionalProperties": False, "required": ["fact", "source_id", "confidence"],
            "properties": {"fact": _TEXT, "source_id": _SOURCE,
                           "confidence": {"type": "number", "minimum": 0, "maximum": 1}}}},
        "open_questions": {"type": "array", "maxItems": 10, "items": {
            "type": "object", "additionalProperties": False, "required": ["question", "source_id"],
            "properties": {"question": _TEXT, "source_id": _SOURCE}}},
        "decisions": {"type": "array", "maxItems": 20, "items": {
            "type": "object", "additionalProperties": False, "required": ["decision", "source_id"],
            "properties": {"decision": _TEXT, "source_id": _SOURCE}}},
        "side_effects": {"type": "array", "maxItems": 20, "items": {
            "type": "object", "additionalProperties": False, "required": ["effect", "status", "source_id"],
            "properties": {"effect": _TEXT, "status": {"type": "string", "maxLength": 40}, "source_id": _SOURCE}}},
        "source_ids": {"type": "array", "maxItems": 200, "uniqueItems": True, "items": _SOURCE},
        "next_action": {"type": "string", "minLength": 1, "maxLength": 80},
    },
}
_STRICT_VALIDATOR = jsonschema.Draft202012Validator(STRICT_SUMMARY_SCHEMA)
_SEED_VALIDATOR = jsonschema.Draft202012Validator(SUMMARY_SCHEMA)
_WRITE_TOOL = re.compile(r"(?:^|[._])(?:book|cancel|reschedule|create|submit|send|update|delete|confirm)", re.I)
_SAFE_STATUS = re.compile(r"^[a-z_]{1,40}$")
LIST_KEYS = ("confirmed_facts", "open_questions", "decisions", "side_effects")

DETERMINISTIC = "deterministic"
LLM = "llm"
LLM_REJECTED = "deterministic_fallback"


@dataclass(frozen=True)
class TurnView:
    """What summaries and the context builder need of a turn."""

    seq: int
    role: str
    content: str
    tool_name: str | None = None
    tool_result: dict | None = None
    parsed: dict | None = None
    token_count: int = 0


def replay(turns: Sequence[TurnView]) -> dict:
    """The slot state after ``turns`` (the same fold the session keeps up to date turn by turn)."""
    state = empty_state()
    for t in turns:
        state = apply_turn(state, seq=t.seq, role=t.role, parsed=t.parsed, tool_name=t.tool_name,
                           tool_result=t.tool_result)
    return state


def _fact_text(key: str, value) -> str:
    return {
        "intent": lambda v: f"The patient wants to {v} an appointment",
        "specialty": lambda v: f"The appointment is with {v.replace('_', ' ')}",
        "visit_type": lambda v: "It is a follow-up visit" if v == "followup" else "It is a new-patient visit",
        "preferred_days": lambda v: "Preferred day: " + " or ".join(d.title() for d in v),
        "excluded_days": lambda v: "Cannot attend on " + ", ".join(d.title() for d in v),
        "preferred_period": lambda v: f"Prefers the {v}",
        "excluded_periods": lambda v: "Cannot attend in the " + " or ".join(v),
        "preferred_day_periods": lambda v: "Prefers " + _day_periods(v, "or"),
        "excluded_day_periods": lambda v: "Cannot attend on " + _day_periods(v, "nor"),
        EARLIEST: lambda v: f"Not before {v}",
        LATEST: lambda v: f"No later than {v}",
    }[key](value)


def _day_periods(pairs: list[dict], joiner: str) -> str:
    """'Tuesday mornings or Thursday afternoons' (days grouped by part of the day, so 21 pairs stay one short line)."""
    by_period: dict[str, list[str]] = {}
    for pair in pairs:
        by_period.setdefault(pair["period"], []).append(pair["day"].title())
    return f" {joiner} ".join(f"{', '.join(days)} {period}s" for period, days in by_period.items())


_FACT_KEYS = ("intent", "specialty", "visit_type", "preferred_days", "excluded_days", "preferred_period",
              "excluded_periods", "preferred_day_periods", "excluded_day_periods", EARLIEST, LATEST)


def summarise_deterministic(turns: Sequence[TurnView], *, care_team_flags: Sequence[dict] = ()) -> dict:
    """What the older turns established, each item citing its turn. Stated facts get confidence 0.9 (a rule-based
    reading of the patient's words), never 1.0."""
    state = replay(turns)
    sources = state["sources"]
    facts = [{"fact": _fact_text(key, state[key]), "source_id": sources[key], "confidence": 0.9}
             for key in _FACT_KEYS if state.get(key) and key in sources]
    questions = [{"question": p["question"], "source_id": p["source_id"]} for p in state["pending_clarifications"]]
    decisions: list[dict] = []
    side_effects: list[dict] = []
    for t in turns:
        if t.role != "tool" or not t.tool_name:
            continue
        if t.tool_name == OFFER_TOOL and isinstance(t.tool_result, dict):
            ids = [str(o.get("slot_id")) for o in t.tool_result.get("offers", [])][:10]
            text = ("Offered slots " + ", ".join(ids)) if ids else "No slot matched the constraints"
            decisions.append({"decision": text, "source_id": source_id(t.seq)})
        elif _WRITE_TOOL.search(t.tool_name):
            status = t.tool_result.get("status") if isinstance(t.tool_result, dict) else None
            # the whole name (64 characters at most): a cut could leave half of a patient id the redaction misses
            side_effects.append({"effect": f"Called {t.tool_name}",
                                 "status": status if isinstance(status, str) and _SAFE_STATUS.fullmatch(status) else "",
                                 "source_id": source_id(t.seq)})
    if state.get("selected_slot_id") and "selected_slot_id" in sources:
        decisions.append({"decision": f"The patient chose slot {state['selected_slot_id']}",
                          "source_id": sources["selected_slot_id"]})
    summary = {"confirmed_facts": facts, "open_questions": questions, "decisions": decisions,
               "side_effects": side_effects, "source_ids": [],
               "next_action": next_action(state, list(care_team_flags))}
    return _with_source_ids(summary)


def _with_source_ids(summary: dict) -> dict:
    cited = {item["source_id"] for key in LIST_KEYS for item in summary[key]}
    summary["source_ids"] = sorted(cited, key=lambda s: int(s.split(":")[1]))
    return summary


def dumps(value) -> str:
    """The one serialisation of model context (and what its tokens are counted on)."""
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def summary_tokens(summary: dict | None) -> int:
    return count_tokens(dumps(summary)) if summary is not None else 0


def trim(summary: dict, max_tokens: int) -> dict | None:
    """Drop the oldest items (longest list first) until the summary fits; None if even an empty one does not."""
    trimmed = {**summary, **{k: list(summary[k]) for k in LIST_KEYS}}
    while summary_tokens(trimmed) > max_tokens:
        longest = max(LIST_KEYS, key=lambda k: len(trimmed[k]))
        if not trimmed[longest]:
            return None
        trimmed[longest].pop(0)
        trimmed = _with_source_ids(trimmed)
    return trimmed


# --- validation -------------------------------------------------------------------------------------------------

def summary_problems(summary, *, allowed_source_ids: set[str], forbidden: Sequence[str] = (),
                     max_tokens: int | None = None) -> list[str]:
    """Reason codes why a summary is unacceptable (empty when it is fine). Never the content itself."""
    if not isinstance(summary, dict):
        return ["not_an_object"]
    problems: list[str] = []
    if any(True for _ in _SEED_VALIDATOR.iter_errors(summary)):
        problems.append("seed_schema")
    if any(True for _ in _STRICT_VALIDATOR.iter_errors(summary)):
        problems.append("strict_schema")
    if problems:
        return problems
    cited = {item["source_id"] for key in LIST_KEYS for item in summary[key]} | set(summary["source_ids"])
    if not cited <= allowed_source_ids:
        problems.append("unknown_source_id")
    text = dumps(summary).casefold()
    if any(f and f.casefold() in text for f in forbidden):
        problems.append("identifier_in_summary")
    if parse_turn(" . ".join(_strings(summary))).remarks:
        problems.append("clinical_remark_in_summary")
    if max_tokens is not None and summary_tokens(summary) > max_tokens:
        problems.append("too_long")
    return problems


def _strings(summary: dict) -> list[str]:
    out = [summary["next_action"]]
    for key in LIST_KEYS:
        for item in summary[key]:
            out.extend(v for v in item.values() if isinstance(v, str))
    return out


# --- LLM -----------------------------------------------------------------------------------------------------------

INSTRUCTIONS = (
    "You summarise the older turns of a patient's appointment-scheduling conversation for an assistant that will "
    "continue it. Use only the supplied turns. Reply with one JSON object matching the given schema: "
    "confirmed_facts (what the patient stated about the booking, each with the source_id of the turn and a "
    "confidence from 0 to 1), open_questions, decisions, side_effects (calls that changed something outside), "
    "source_ids (every source_id you cite) and next_action (a short snake_case action). Cite source ids exactly as "
    "given (turn:N). Do not include clinical remarks (medications, symptoms, allergies, pregnancy): they are "
    "handled by the care team. Do not include names, identifiers or contact details."
)


def _llm_request(turns: Sequence[dict]) -> tuple[str, dict]:
    model = settings.CONVERSATION_LLM_MODEL
    base = settings.CONVERSATION_LLM_BASE_URL.rstrip("/")
    base = base[:-3] if base.endswith("/v1") else base
    user = dumps({"turns": list(turns)})
    if settings.CONVERSATION_LLM_API == "chat_completions":
        return f"{base}/v1/chat/completions", {
            "model": model, "store": False, "temperature": 0,
            "messages": [{"role": "system", "content": INSTRUCTIONS}, {"role": "user", "content": user}],
            "response_format": {"type": "json_schema", "json_schema": {
                "name": "conversation_summary", "schema": STRICT_SUMMARY_SCHEMA, "strict": False}}}
    return f"{base}/v1/responses", {
        "model": model, "store": False,
        "input": [{"role": "developer", "content": INSTRUCTIONS}, {"role": "user", "content": user}],
        "text": {"format": {"type": "json_schema", "name": "conversation_summary", "schema": STRICT_SUMMARY_SCHEMA,
                            "strict": False}}}


def _llm_text(data) -> str | None:
    if not isinstance(data, dict):
        return None
    if isinstance(data.get("choices"), list) and data["choices"]:
        message = data["choices"][0].get("message") if isinstance(data["choices"][0], dict) else None
        content = message.get("content") if isinstance(message, dict) else None
        return content if isinstance(content, str) else None
    if isinstance(data.get("output_text"), str):
        return data["output_text"]
    for item in data.get("output") or []:
        if isinstance(item, dict) and item.get("type") == "message":
            for part in item.get("content") or []:
                if isinstance(part, dict) and part.get("type") == "output_text" and isinstance(part.get("text"), str):
                    return part["text"]
    return None


def summarise_llm(turns: Sequence[dict], *, allowed_source_ids: set[str], forbidden: Sequence[str] = (),
                  max_tokens: int | None = None, transport: httpx.BaseTransport | None = None) -> dict | None:
    """The API's summary of ``turns`` (already rendered, redacted messages), or None when it cannot be had or is
    rejected. Never raises for the API's behaviour."""
    url, body = _llm_request(turns)
    headers = {"Content-Type": "application/json"}
    if key := settings.CONVERSATION_LLM_API_KEY:
        headers["Authorization"] = f"Bearer {key}"
    timeout = settings.CONVERSATION_LLM_TIMEOUT_SECONDS
    try:
        with httpx.Client(timeout=httpx.Timeout(timeout, connect=min(timeout, 3.0)), transport=transport,
                          follow_redirects=False) as client:
            response = client.post(url, json=body, headers=headers)
    except httpx.HTTPError as exc:
        log.warning("llm summary unavailable: %s", type(exc).__name__)
        return None
    if response.status_code != 200:
        log.warning("llm summary refused: http_%d", response.status_code)
        return None
    try:
        text = _llm_text(response.json())
        summary = json.loads(text) if text is not None else None
    except ValueError:
        summary = None
    problems = summary_problems(summary, allowed_source_ids=allowed_source_ids, forbidden=forbidden,
                                max_tokens=max_tokens) if summary is not None else ["unreadable_answer"]
    if problems:
        log.warning("llm summary rejected: %s", ",".join(problems))
        return None
    return summary


def summarise(turns: Sequence[TurnView], *, render: Callable[[TurnView], dict], forbidden: Sequence[str] = (),
              care_team_flags: Sequence[dict] = (), max_tokens: int | None = None) -> tuple[dict, str]:
    """The configured summariser's summary of ``turns`` and its name; the deterministic one when the LLM's answer
    is missing or rejected."""
    llm_configured = settings.CONVERSATION_LLM_BASE_URL and settings.CONVERSATION_LLM_MODEL
    if settings.CONVERSATION_SUMMARISER == LLM and llm_configured:
        allowed = {source_id(t.seq) for t in turns}
        summary = summarise_llm([render(t) for t in turns], allowed_source_ids=allowed, forbidden=forbidden,
                                max_tokens=max_tokens)
        if summary is not None:
            return summary, LLM
        return summarise_deterministic(turns, care_team_flags=care_team_flags), LLM_REJECTED
    return summarise_deterministic(turns, care_team_flags=care_team_flags), DETERMINISTIC
