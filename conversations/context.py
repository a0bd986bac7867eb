"""Model context within a token budget.

The context is one JSON object (serialised by :func:`summaries.dumps`, and counted on exactly that text with the
real ``cl100k_base`` tokenizer): the purpose, the structured slots, the patient's standing (long-term) scheduling
preferences, the next action and open questions, care-team flags (codes only), a structured summary of the older
turns (seed 003 form) and the newest turns that fit. Every turn is either in ``messages`` or covered by the summary;
none is silently dropped. The patient identifier is never part of it: there is no field for it, and any occurrence
in turn text or tool results is replaced by ``[patient]``, and so is any of the patient's other identifiers (an MRN).
"""

from __future__ import annotations

import copy
import logging
import re
import uuid
from collections.abc import Sequence
from dataclasses import dataclass

from conversations import summaries
from conversations.errors import BudgetTooSmall
from conversations.slots import EMPTY_STATE, clarifying_questions, next_action, source_id
from conversations.summaries import TurnView, dumps
from conversations.tokens import TOKENIZER_NAME, count_tokens

log = logging.getLogger("anamnesis.conversations")

CARE_TEAM_NOTE = ("Clinical remarks in this conversation were routed to the care team. Do not treat them as "
                  "verified clinical facts, do not store them, and do not give clinical advice.")
REDACTED = "[patient]"
PUBLIC_SLOT_KEYS = ("intent", "specialty", "visit_type", "preferred_days", "excluded_days", "preferred_period",
                    "excluded_periods", "earliest_time", "latest_time", "selected_slot_id", "last_offer")


def patient_markers(patient_id: uuid.UUID) -> tuple[str, str]:
    return str(patient_id), patient_id.hex


def redactor(*patient_ids: uuid.UUID, also: Sequence[str] = ()):
    """A function replacing every occurrence of these patients' ids (in any case, with or without hyphens) and of
    the values ``also`` (their other identifiers: core.patient_identifiers) in a JSON value's strings and keys by
    ``[patient]``."""
    markers = [*also, *(m for patient_id in patient_ids for m in patient_markers(patient_id))]
    pattern = re.compile("|".join(re.escape(m) for m in markers), re.IGNORECASE) if markers else None

    def redact(value):
        if isinstance(value, str):
            return pattern.sub(REDACTED, value) if pattern is not None else value
        if isinstance(value, list):
            return [redact(v) for v in value]
        if isinstance(value, dict):
            return {redact(k): redact(v) for k, v in value.items()}
        return value

    return redact


def render_message(turn: TurnView, redact) -> dict:
    message = {"source_id": source_id(turn.seq), "role": turn.role, "content": redact(turn.content)}
    if turn.tool_name:
        message["tool_name"] = turn.tool_name
        if turn.tool_result is not None:
            message["tool_result"] = redact(turn.tool_result)
    return message


def message_tokens(message: dict) -> int:
    """Tokens of one rendered message, stored with the turn; +1 for its separator in the list."""
    return count_tokens(dumps(message)) + 1


def public_slots(state: dict) -> dict:
    """The slots an agent sees, every key present with its schema's type: an ended session's cleared state reads
    as empty lists and nulls, never a missing key or a ``null`` list."""
    return {key: copy.deepcopy(state[key]) if state.get(key) is not None else copy.deepcopy(EMPTY_STATE[key])
            for key in PUBLIC_SLOT_KEYS}


@dataclass
class BuiltContext:
    context: dict
    used_tokens: int
    max_tokens: int
    turns_total: int
    turns_included: int
    turns_summarised: int
    summariser: str | None
    summary_cache: dict | None  # an LLM summary worth keeping (the caller stores it)

    @property
    def truncated(self) -> bool:
        return self.turns_summarised > 0

    def budget(self) -> dict:
        return {"max_tokens": self.max_tokens, "used_tokens": self.used_tokens, "tokenizer": TOKENIZER_NAME,
                "turns_total": self.turns_total, "turns_included": self.turns_included,
                "turns_summarised": self.turns_summarised, "truncated": self.truncated,
                "summariser": self.summariser}


def summary_reserve(max_tokens: int) -> int:
    """Room kept for the summary when older turns must be summarised."""
    return min(max(160, max_tokens // 4), 1500)


def build_context(*, purpose: str, patient_id: uuid.UUID, slots: dict, care_team_flags: Sequence[dict],
                  standing: Sequence[dict], turns: Sequence[TurnView], max_tokens: int,
                  summary_cache: dict | None = None, identifiers: Sequence[str] = ()) -> BuiltContext:
    """``identifiers``: the patient's other identifiers (an MRN), redacted like the id."""
    redact = redactor(patient_id, also=identifiers)
    flags = [{"category": f["category"], "urgent": f["urgent"], "source_id": f["source_id"]} for f in care_team_flags]
    base = {
        "purpose": purpose,
        "slots": redact(public_slots(slots)),
        "standing_preferences": [{k: v for k, v in s.items() if k != "memory_id"} for s in standing],
        "next_action": next_action(slots, list(care_team_flags)),
        "clarifying_questions": clarifying_questions(slots),
        "care_team_flags": flags,
        "care_team_note": CARE_TEAM_NOTE if flags else None,
        "summary": None,
        "summarised_through": None,
        "messages": [],
    }
    base_tokens = count_tokens(dumps(base))
    if base_tokens > max_tokens:
        raise BudgetTooSmall(errors=[{"field": "max_tokens", "message": f"needs at least {base_tokens}",
                                      "code": "too_small"}])
    n = len(turns)
    costs = [t.token_count or message_tokens(render_message(t, redact)) for t in turns]
    reserve = 0 if base_tokens + sum(costs) <= max_tokens else summary_reserve(max_tokens)
    available, k = max_tokens - base_tokens - reserve, 0
    while k < n and costs[n - 1 - k] <= available:
        available -= costs[n - 1 - k]
        k += 1

    forbidden = (*patient_markers(patient_id), *identifiers)
    state = {"llm_tried": False, "slack": 4}

    def attempt(k: int) -> tuple[dict | None, int, str | None, dict | None]:
        """The context with the newest ``k`` turns and a summary of the rest, or None when it does not fit."""
        older, recent = turns[:n - k], turns[n - k:]
        context = {**base, "messages": [render_message(t, redact) for t in recent]}
        name = cache = None
        if older:
            through = older[-1].seq
            room = max_tokens - count_tokens(dumps(context)) - state["slack"]
            if summary_cache and summary_cache.get("through_seq") == through:
                summary, name = summary_cache["summary"], summaries.LLM
            elif not state["llm_tried"]:
                summary, name = summaries.summarise(
                    older, render=lambda t: render_message(t, redact), forbidden=forbidden,
                    care_team_flags=care_team_flags, max_tokens=room)
                # never a second API call for one context: a changed cut is summarised deterministically
                state["llm_tried"] = name != summaries.DETERMINISTIC
                cache = {"through_seq": through, "summary": summary} if name == summaries.LLM else None
            else:
                summary = summaries.summarise_deterministic(older, care_team_flags=care_team_flags)
                name = summaries.DETERMINISTIC
            # the deterministic summary quotes tool results (offered slot ids) as they came: redacted like turns
            summary = redact(summary)
            fitted = summaries.trim(summary, room) if room > 0 else None
            if fitted is None:
                return None, max_tokens + 1, name, cache
            context["summary"], context["summarised_through"] = fitted, source_id(through)
        used = count_tokens(dumps(context))
        return (context if used <= max_tokens else None), used, name, cache

    context, used, name, cache_out = None, max_tokens + 1, None, None
    for _ in range(n + 8):
        context, used, name, cache = attempt(k)
        cache_out = cache_out or cache
        if context is not None:
            break
        if k == 0:  # separators tokenise a little differently from the parts: tighten the summary's room
            state["slack"] += max(used - max_tokens, 0) + 2
            if state["slack"] > max_tokens:
                break
        else:
            k -= 1
    if context is None:
        raise BudgetTooSmall(errors=[{"field": "max_tokens", "message": "too small for the slots and a summary",
                                      "code": "too_small"}])
    # The reserve may have been more than the summary needed: give what is left to more turns.
    for _ in range(3):
        if name != summaries.DETERMINISTIC or k == n:
            break
        spare, more = max_tokens - used - 2, k
        while more < n and costs[n - 1 - more] <= spare:
            spare -= costs[n - 1 - more]
            more += 1
        if more == k:
            break
        bigger, bigger_used, name2, _ = attempt(more)
        if bigger is None:
            break
        context, used, k, name = bigger, bigger_used, more, name2
    summariser_name = name
    result = BuiltContext(context=context, used_tokens=used, max_tokens=max_tokens, turns_total=n,
                          turns_included=k, turns_summarised=n - k, summariser=summariser_name,
                          summary_cache=cache_out)
    log.info("conversation context: budget=%d used=%d turns=%d included=%d summarised=%d summariser=%s",
             max_tokens, used, n, k, n - k, summariser_name or "none")
    return result
