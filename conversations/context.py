"""Model context within a token budget.

The context is one JSON object (serialised by :func:`summaries.dumps`, and counted on exactly that text with the
real ``cl100k_base`` tokenizer): the purpose, the structured slots, the patient's standing (long-term) scheduling
preferences, the next action and open questions, care-team flags (codes only), a structured summary of the older
turns (in the form ``summaries.SUMMARY_SCHEMA`` fixes) and the newest turns that fit. Every turn is either in
``messages`` or covered by the summary; none is silently dropped. The patient identifier is never part of it:
there is no field for it, and any occurrence in turn text or tool results is replaced by ``[patient]``, and so is
any of the patient's other identifiers (an MRN).
"""

from __future__ import annotations

import copy
import logging
import re
import uuid
from collections.abc import Callable, Sequence
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
                    "excluded_periods", "preferred_day_periods", "excluded_day_periods", "earliest_time",
                    "latest_time", "selected_slot_id", "last_offer")


def patient_markers(patient_id: uuid.UUID) -> tuple[str, str]:
    return str(patient_id), patient_id.hex


# What may stand between two hex digits of a patient's id as someone writes it: hyphens anywhere, spaces, colons,
# zero-width characters ("4ea9 057c ...", "4ea9\u200b057c..."): at most a few, never a letter or digit; a run of
# white space (a line break and the next line's indentation) counts as one. Possessive, so a long run is never
# backtracked into.
_ID_SEPARATOR = r"(?:[^0-9A-Za-z\s]|\s++){0,3}"


# The shortest run of digits in an identifier ("100001" of "MRN-100001") that is the patient's on its own: shorter
# runs would take times and dates ("10:30", "2031") with them.
_MIN_DIGIT_RUN = 6
_DIGIT = "0-9\uff10-\uff19"


def _character(ch: str) -> str:
    """One letter or digit as written in ASCII or full width ("１" is "1")."""
    if ch.isascii() and ch.isalnum():
        return f"[{re.escape(ch)}{chr(ord(ch) + 0xFEE0)}]"
    return re.escape(ch)


# What may stand between two digits of an identifier's number that the identifier writes side by side: white space
# or an invisible character ("774 412", "774\u200b412"), and only in a number long enough to be the patient's. A
# colon, point, comma, slash or hyphen there writes a time, a date or another number: "10:30" is not the MRN 1030,
# nor "2031-05-06" the MRN 203105.
_DIGIT_SEPARATOR = r"(?:[\u00ad\u200b-\u200d\u2060\ufeff]|\s++){0,3}"
# An identifier is one only as a whole token: no letter or digit (of any script) just before or after it ("A1030"
# and "21030" do not hold the MRN 1030)
_TOKEN_START, _TOKEN_END = r"(?<![^\W_])", r"(?![^\W_])"
# A record label glued to a short number ("MRN1030", "ID1030") names the number as an identifier: that number is
# the patient's even without a separator, unlike "A1030", a slot or room
_RECORD_LABELS = ("mrn", "mr", "emr", "ehr", "id", "pid", "pt", "nhs", "chi", "urn", "hn")
_AFTER_RECORD_LABEL = "(?:" + "|".join(f"(?<=(?<![^\\W_]){label})" for label in _RECORD_LABELS) + ")"


def _spaced(characters: str) -> str:
    return _ID_SEPARATOR.join(_character(ch) for ch in characters)


def _id_pattern(patient_id: uuid.UUID) -> str:
    return _spaced(patient_id.hex)


def _written_apart(value: str) -> str:
    """The pattern of an identifier's letters and digits in order, with a separator (``_ID_SEPARATOR``) where the
    identifier has one or where a letter meets a digit, between two letters, and between two of its digits only
    as ``_DIGIT_SEPARATOR`` says."""
    in_long_number = {i for run in re.finditer(r"\d+", value) if len(run[0]) >= _MIN_DIGIT_RUN
                      for i in range(run.start(), run.end())}
    parts: list[str] = []
    previous, apart = "", False
    for i, ch in enumerate(value):
        if not ch.isalnum():
            apart = True
            continue
        if previous:
            if apart or not (previous.isdigit() and ch.isdigit()):
                parts.append(_ID_SEPARATOR)
            elif i in in_long_number:
                parts.append(_DIGIT_SEPARATOR)
        parts.append(_character(ch))
        previous, apart = ch, False
    return "".join(parts)


def _identifier_patterns(value: str) -> list[str]:
    """An identifier however it is written, as a whole token: with other separators or none between its letters and
    digits ("MRN 100001", "MRN100001", "MRN: 100001", a non-breaking hyphen, full-width digits), and its number
    alone ("my number is 100001") when that is long enough to be the patient's."""
    characters = "".join(ch for ch in value if ch.isalnum())
    if not characters.isascii():
        return [re.escape(value)]
    patterns = [_TOKEN_START + _written_apart(value) + _TOKEN_END] if characters else []
    for run in re.findall(r"\d+", value):
        if len(run) >= _MIN_DIGIT_RUN and run != characters:
            patterns.append(f"(?<![{_DIGIT}])" + _DIGIT_SEPARATOR.join(_character(ch) for ch in run)
                            + f"(?![{_DIGIT}])")
        elif run == characters:  # an identifier that is a number: also glued to a record label ("MRN1030")
            patterns.append(_AFTER_RECORD_LABEL + "".join(_character(ch) for ch in run) + _TOKEN_END)
    return patterns


def _written(number: int | float) -> tuple[str, ...]:
    """A JSON number as text, and a whole float also as the integer it is (774411.0 is 774411)."""
    if isinstance(number, float) and number.is_integer():
        return str(number), str(int(number))
    return (str(number),)


def redactor(*patient_ids: uuid.UUID, also: Sequence[str] = ()):
    """A function replacing every occurrence of these patients' ids (in any case, with or without hyphens or with
    other separators between the digits) and of the values ``also`` (their other identifiers:
    core.patient_identifiers, written in the same ways) in a JSON value's strings and keys by ``[patient]``."""
    alternatives = [*(p for m in also if m for p in _identifier_patterns(m)), *(_id_pattern(p) for p in patient_ids)]
    pattern = re.compile("|".join(alternatives), re.IGNORECASE) if alternatives else None

    def redact(value):
        if isinstance(value, str):
            return pattern.sub(REDACTED, value) if pattern is not None else value
        if isinstance(value, int | float) and not isinstance(value, bool):
            # an MRN's number given as a JSON number ({"mrn": 774411}, 774411.0) is the identifier all the same
            # as a whole: 21030 and 1030.5 are other numbers than the MRN 1030
            return REDACTED if pattern is not None and any(pattern.fullmatch(w) for w in _written(value)) else value
        if isinstance(value, list):
            return [redact(v) for v in value]
        if isinstance(value, dict):
            return {redact(k): redact(v) for k, v in value.items()}
        return value

    return redact


def render_message(turn: TurnView, redact) -> dict:
    message = {"source_id": source_id(turn.seq), "role": turn.role, "content": redact(turn.content)}
    if turn.tool_name:
        message["tool_name"] = redact(turn.tool_name)  # a name is text the agent chose, like the content
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
    base = _base_context(purpose=purpose, slots=slots, care_team_flags=care_team_flags, standing=standing,
                         redact=redact)
    base_tokens = count_tokens(dumps(base))
    if base_tokens > max_tokens:
        raise BudgetTooSmall(errors=[{"field": "max_tokens", "message": f"needs at least {base_tokens}",
                                      "code": "too_small"}])
    n = len(turns)
    costs = [t.token_count or message_tokens(render_message(t, redact)) for t in turns]
    reserve = 0 if base_tokens + sum(costs) <= max_tokens else summary_reserve(max_tokens)
    packer = _Packer(base=base, turns=turns, redact=redact, max_tokens=max_tokens, summary_cache=summary_cache,
                     care_team_flags=care_team_flags, forbidden=(*patient_markers(patient_id), *identifiers))
    fitted, cache_out = packer.fit(_newest_that_fit(costs, max_tokens - base_tokens - reserve))
    fitted = packer.widen(fitted, costs)
    assert fitted.context is not None, "fit() and widen() return only a context that fits"
    k, used, summariser_name = fitted.included, fitted.used, fitted.summariser
    result = BuiltContext(context=fitted.context, used_tokens=used, max_tokens=max_tokens, turns_total=n,
                          turns_included=k, turns_summarised=n - k, summariser=summariser_name,
                          summary_cache=cache_out)
    log.info("conversation context: budget=%d used=%d turns=%d included=%d summarised=%d summariser=%s",
             max_tokens, used, n, k, n - k, summariser_name or "none")
    return result


def _base_context(*, purpose: str, slots: dict, care_team_flags: Sequence[dict], standing: Sequence[dict],
                  redact) -> dict:
    """Everything but the turns and their summary: always in the context, whatever the budget."""
    flags = [{"category": f["category"], "urgent": f["urgent"], "source_id": f["source_id"]} for f in care_team_flags]
    return {
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


def _newest_that_fit(costs: Sequence[int], room: int, already: int = 0) -> int:
    """How many of the newest turns fit in ``room`` tokens beyond the ``already`` newest ones (counted in too)."""
    n, k = len(costs), already
    while k < n and costs[n - 1 - k] <= room:
        room -= costs[n - 1 - k]
        k += 1
    return k


@dataclass
class _Attempt:
    context: dict | None  # None when it does not fit
    used: int
    summariser: str | None
    cache: dict | None
    included: int


@dataclass
class _Packer:
    """Tries contexts with the newest ``k`` turns and a summary of the rest. One packer per context: it remembers
    that the LLM summariser was tried (never a second API call for one context) and the slack the summary's room
    has been tightened by."""

    base: dict
    turns: Sequence[TurnView]
    redact: Callable
    max_tokens: int
    summary_cache: dict | None
    care_team_flags: Sequence[dict]
    forbidden: tuple[str, ...]
    llm_tried: bool = False
    slack: int = 4

    def attempt(self, k: int) -> _Attempt:
        """The context with the newest ``k`` turns and a summary of the rest (``context`` None when it does not
        fit)."""
        n, max_tokens, redact = len(self.turns), self.max_tokens, self.redact
        older, recent = self.turns[:n - k], self.turns[n - k:]
        context = {**self.base, "messages": [render_message(t, redact) for t in recent]}
        name = cache = None
        if older:
            through = older[-1].seq
            room = max_tokens - count_tokens(dumps(context)) - self.slack
            summary, name, cache = self._summary(older, through, room)
            # the deterministic summary quotes tool results (offered slot ids) as they came: redacted like turns
            summary = redact(summary)
            fitted = summaries.trim(summary, room) if room > 0 else None
            if fitted is None:
                return _Attempt(None, max_tokens + 1, name, cache, k)
            context["summary"], context["summarised_through"] = fitted, source_id(through)
        used = count_tokens(dumps(context))
        return _Attempt(context if used <= max_tokens else None, used, name, cache, k)

    def _summary(self, older: Sequence[TurnView], through: int, room: int) -> tuple[dict, str, dict | None]:
        if self.summary_cache and self.summary_cache.get("through_seq") == through:
            return self.summary_cache["summary"], summaries.LLM, None
        if not self.llm_tried:
            summary, name = summaries.summarise(
                older, render=lambda t: render_message(t, self.redact), forbidden=self.forbidden,
                care_team_flags=self.care_team_flags, max_tokens=room)
            # never a second API call for one context: a changed cut is summarised deterministically
            self.llm_tried = name != summaries.DETERMINISTIC
            return summary, name, ({"through_seq": through, "summary": summary} if name == summaries.LLM else None)
        summary = summaries.summarise_deterministic(older, care_team_flags=self.care_team_flags)
        return summary, summaries.DETERMINISTIC, None

    def fit(self, k: int) -> tuple[_Attempt, dict | None]:
        """The first context that fits, dropping turns into the summary from ``k`` down, and an LLM summary worth
        keeping from any attempt. Raises BudgetTooSmall when not even the slots and a summary fit."""
        fitted: _Attempt | None = None
        cache_out = None
        for _ in range(len(self.turns) + 8):
            fitted = self.attempt(k)
            cache_out = cache_out or fitted.cache
            if fitted.context is not None:
                return fitted, cache_out
            if k == 0:  # separators tokenise a little differently from the parts: tighten the summary's room
                self.slack += max(fitted.used - self.max_tokens, 0) + 2
                if self.slack > self.max_tokens:
                    break
            else:
                k -= 1
        raise BudgetTooSmall(errors=[{"field": "max_tokens", "message": "too small for the slots and a summary",
                                      "code": "too_small"}])

    def widen(self, fitted: _Attempt, costs: Sequence[int]) -> _Attempt:
        """The reserve may have been more than the summary needed: give what is left to more turns."""
        for _ in range(3):
            if fitted.summariser != summaries.DETERMINISTIC or fitted.included == len(self.turns):
                break
            more = _newest_that_fit(costs, self.max_tokens - fitted.used - 2, fitted.included)
            if more == fitted.included:
                break
            bigger = self.attempt(more)
            if bigger.context is None:
                break
            fitted = bigger
        return fitted
