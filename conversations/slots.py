"""The slot state of a conversation: a pure fold over its turns.

``apply_turn`` merges one turn into the state; the session keeps the result, and the deterministic summariser
replays the same fold over older turns, so the two never disagree. Every slot value remembers the turn it came
from (``sources``), which is what the summary cites.

Merge rules: the latest statement of a slot wins; excluded days and periods accumulate until a later positive
mention lifts them; a value for a time kind settles any open question about that kind; a change of constraints
makes earlier offers (tool results) stale; a cancellation followed by a wish for a day, part of the day or time is
a move (reschedule). Nothing is defaulted.
"""

from __future__ import annotations

import copy
import re
from datetime import datetime

from conversations.parsing import DAYS, EARLIEST, LATEST, PERIOD_HOURS, PERIODS, Clarification

OFFER_TOOL = "scheduling.search_slots"
MAX_PENDING = 5

EMPTY_STATE: dict = {
    "intent": None,
    "specialty": None,
    "visit_type": None,
    "preferred_days": [],
    "excluded_days": [],
    "preferred_period": None,
    "excluded_periods": [],
    # a day and a part of the day said together: {"day", "period"}, never widened into the day or the period
    "preferred_day_periods": [],
    "excluded_day_periods": [],
    "earliest_time": None,
    "latest_time": None,
    "pending_clarifications": [],
    "last_offer": None,
    "selected_slot_id": None,
    "sources": {},
}


def source_id(seq: int) -> str:
    return f"turn:{seq}"


def empty_state() -> dict:
    return copy.deepcopy(EMPTY_STATE)


def _ordered(values, order) -> list[str]:
    return sorted(set(values), key=order.index)


def apply_turn(state: dict, *, seq: int, role: str, parsed: dict | None = None, tool_name: str | None = None,
               tool_result: dict | None = None) -> dict:
    """The state after one more turn (a new dict; ``state`` is not changed)."""
    # A shallow copy is enough: values are replaced, never changed in place, except ``sources`` (copied).
    new = dict(state) if state else empty_state()
    for key, value in EMPTY_STATE.items():
        if key not in new:
            new[key] = copy.deepcopy(value)
    new["sources"] = dict(new["sources"])
    src = source_id(seq)
    if role == "tool":
        if tool_name == OFFER_TOOL and isinstance(tool_result, dict) and isinstance(tool_result.get("offers"), list):
            # what the conversation refers back to, not the whole result (the tool turn keeps that): every context
            # carries the latest offers, and extra fields on ten offers left no room at the default budget
            new["last_offer"] = {"source_id": src, "slots": [{k: o[k] for k in OFFER_FIELDS if k in o}
                                                             for o in tool_result["offers"]]}
            new["selected_slot_id"] = None
            new["sources"]["last_offer"] = src
        return new
    if role != "user" or not parsed:
        return new

    offered = new["last_offer"]["slots"] if new["last_offer"] and not new["pending_clarifications"] else []
    if named := _offer_named(offered, parsed):
        # "the Tuesday one", "Thursday afternoon", "the morning one" with offers on the table: a choice among them,
        # not a new constraint that would make them stale and search again
        new["selected_slot_id"] = named
        new["sources"]["selected_slot_id"] = src
        return new
    merge = _Merge(new, src)
    _merge_task(merge, parsed)
    _merge_any(merge, parsed)
    _merge_days(merge, parsed)
    _merge_periods(merge, parsed)
    _merge_day_periods(merge, parsed)
    _merge_times(merge, parsed)
    if merge.changed:
        new["last_offer"] = None  # offers made under other constraints are stale
        new["selected_slot_id"] = None
    elif new["last_offer"] and (chosen := _resolve_reference(new["last_offer"]["slots"], parsed.get("reference"))):
        new["selected_slot_id"] = chosen
        new["sources"]["selected_slot_id"] = src
    return new


class _Merge:
    """One user turn being merged into ``new`` (the state's copy): every value put cites the turn, and ``changed``
    records whether any constraint changed, which makes earlier offers stale."""

    def __init__(self, new: dict, src: str) -> None:
        self.new, self.src, self.changed = new, src, False

    def put(self, key: str, value) -> None:
        if self.new[key] != value:
            self.new[key] = value
            self.changed = True
        self.new["sources"][key] = self.src


def _merge_task(merge: _Merge, parsed: dict) -> None:
    if parsed.get("intent"):
        # Booking the new time is part of a reschedule, not a new task.
        if not (parsed["intent"] == "book" and merge.new["intent"] == "reschedule"):
            merge.put("intent", parsed["intent"])
    elif merge.new["intent"] == "cancel" and any(parsed.get(k) for k in (
            "preferred_days", "preferred_periods", "preferred_day_periods", "times")):
        merge.put("intent", "reschedule")  # "cancel my appointment", then "can we do Friday instead?": moved
    if parsed.get("specialty"):
        merge.put("specialty", parsed["specialty"])
    if parsed.get("visit_type"):
        merge.put("visit_type", parsed["visit_type"])


def _merge_any(merge: _Merge, parsed: dict) -> None:
    """"Any time is fine" lifts the preferred part of the day and the earliest and latest times said before (and
    what was asked about them), keeping the days of preferred day-and-period pairs; "any day works" lifts the
    preferred days, keeping the part of the day of such pairs when they share one. Exclusions stay: only naming
    them again lifts them."""
    new = merge.new
    pairs = [p for p in new["preferred_day_periods"] if isinstance(p, dict)]
    if parsed.get("any_time"):
        for key in ("preferred_period", EARLIEST, LATEST):
            if new[key] is not None:
                merge.put(key, None)
                new["sources"].pop(key, None)
        if pairs:
            merge.put("preferred_days", _ordered([p["day"] for p in pairs], DAYS))
            merge.put("preferred_day_periods", [])
        asked = [p for p in new["pending_clarifications"] if p.get("code") != "relative_day"]
        if asked:
            new["pending_clarifications"] = [p for p in new["pending_clarifications"] if p not in asked]
            merge.changed = True
    if parsed.get("any_day"):
        if new["preferred_days"]:
            merge.put("preferred_days", [])
            new["sources"].pop("preferred_days", None)
        if pairs:
            periods = {p["period"] for p in pairs}
            if len(periods) == 1:
                merge.put("preferred_period", periods.pop())
            merge.put("preferred_day_periods", [])
        if any(p.get("code") == "relative_day" for p in new["pending_clarifications"]):
            new["pending_clarifications"] = [p for p in new["pending_clarifications"]
                                             if p.get("code") != "relative_day"]
            merge.changed = True


def _merge_days(merge: _Merge, parsed: dict) -> None:
    new = merge.new
    excluded_days = set(new["excluded_days"]) - set(parsed.get("preferred_days", ())) | set(
        parsed.get("excluded_days", ()))
    if parsed.get("preferred_days"):
        wanted = [*parsed["preferred_days"], *(new["preferred_days"] if parsed.get("also") else ())]
        merge.put("preferred_days", [d for d in _ordered(wanted, DAYS) if d not in excluded_days])
    elif set(new["preferred_days"]) & excluded_days:
        merge.put("preferred_days", [d for d in new["preferred_days"] if d not in excluded_days])
    if parsed.get("excluded_days") or set(new["excluded_days"]) != excluded_days:
        merge.put("excluded_days", _ordered(excluded_days, DAYS))


def _answering(new: dict, parsed: dict) -> bool:
    """Whether the turn answers "3:00 am or 3:00 pm?": "the afternoon one" then says which 3 o'clock, not which part
    of the day to book."""
    return bool(parsed.get("meridiem")) and any(
        p.get("code") == "ambiguous_time" and p.get("candidates") for p in new["pending_clarifications"])


def _merge_periods(merge: _Merge, parsed: dict) -> None:
    new = merge.new
    answering = _answering(new, parsed)
    preferred_periods = [] if answering else list(parsed.get("preferred_periods", ()))
    said_excluded = () if answering else parsed.get("excluded_periods", ())
    excluded_periods = set(new["excluded_periods"]) - set(preferred_periods) | set(said_excluded)
    if preferred_periods:
        merge.put("preferred_period", preferred_periods[-1] if preferred_periods[-1] not in excluded_periods else None)
    elif new["preferred_period"] in excluded_periods:
        merge.put("preferred_period", None)
    if said_excluded or set(new["excluded_periods"]) != excluded_periods:
        merge.put("excluded_periods", _ordered(excluded_periods, PERIODS))


def _pair_list(pairs) -> list[dict]:
    ordered = sorted(set(pairs), key=lambda dp: (DAYS.index(dp[0]), PERIODS.index(dp[1])))
    return [{"day": d, "period": p} for d, p in ordered]


def _pair_set(values) -> set[tuple[str, str]]:
    return {(v["day"], v["period"]) for v in values or () if isinstance(v, dict)}


def _merge_day_periods(merge: _Merge, parsed: dict) -> None:
    """Pairs of a day and a part of the day. Excluded pairs accumulate until the same pair is preferred; a preferred
    pair replaces the preferred days and period (it names both) and lifts an exclusion of its whole day or period
    only for itself ("not Mondays", then "Monday afternoon is fine": Monday mornings and evenings stay excluded);
    a later preferred day or period narrows the preferred pairs to it, or replaces them when none is on it."""
    new = merge.new
    said_preferred = _pair_set(parsed.get("preferred_day_periods"))
    excluded = _pair_set(new["excluded_day_periods"]) - said_preferred | _pair_set(
        parsed.get("excluded_day_periods"))
    if said_preferred:
        for day, period in said_preferred:
            if day in new["excluded_days"]:
                excluded |= {(day, p) for p in PERIODS if (day, p) not in said_preferred}
                merge.put("excluded_days", [d for d in new["excluded_days"] if d != day])
            if period in new["excluded_periods"]:
                excluded |= {(d, period) for d in DAYS if (d, period) not in said_preferred}
                merge.put("excluded_periods", [p for p in new["excluded_periods"] if p != period])
        if parsed.get("also"):  # "or Thursday afternoon too": besides what was wanted before
            said_preferred |= _pair_set(new["preferred_day_periods"]) | {
                (d, p) for d in new["preferred_days"] for p in ([new["preferred_period"]] if new["preferred_period"]
                                                                else PERIODS)}
        preferred = said_preferred - excluded
        if new["preferred_days"]:
            merge.put("preferred_days", [])
        if new["preferred_period"] is not None:
            merge.put("preferred_period", None)
    else:
        preferred = _pair_set(new["preferred_day_periods"]) - excluded
        if preferred and parsed.get("also") and parsed.get("preferred_days"):
            # "Thursday afternoon", then "Friday too": Friday at any time besides
            preferred |= {(d, p) for d in parsed["preferred_days"] for p in PERIODS} - excluded
            merge.put("preferred_days", [])
        elif parsed.get("preferred_days"):
            preferred = {(d, p) for d, p in preferred if d in new["preferred_days"]}
        if parsed.get("preferred_periods") and not _answering(new, parsed) and new["preferred_period"]:
            preferred = {(d, p) for d, p in preferred if p == new["preferred_period"]}
        preferred = {(d, p) for d, p in preferred if d not in new["excluded_days"]
                     and p not in new["excluded_periods"]}
    if said_preferred or _pair_set(new["preferred_day_periods"]) != preferred:
        merge.put("preferred_day_periods", _pair_list(preferred))
    if parsed.get("excluded_day_periods") or _pair_set(new["excluded_day_periods"]) != excluded:
        merge.put("excluded_day_periods", _pair_list(excluded))


# Questions about times in general, answered by any time stated later
_ANY_TIME_ANSWERS = ("negated_range", "conflicting_times", "vague_time", "unreadable_time", "date_or_time")


def _merge_times(merge: _Merge, parsed: dict) -> None:
    """Stated times, answers to open questions, and the new questions this turn raises."""
    new = merge.new
    pending = list(new["pending_clarifications"])
    for t in parsed.get("times", ()):
        merge.put(t["kind"], t["time"])
        other = LATEST if t["kind"] == EARLIEST else EARLIEST
        earliest, latest = new[EARLIEST], new[LATEST]
        if earliest and latest and earliest > latest:
            # "after 10", then "before 8": no time is both; the later statement corrects the earlier one
            merge.put(other, None)
            new["sources"].pop(other, None)
        # a time answers the question about its kind, and "which times would suit you instead?" (no kind) too
        pending = [p for p in pending if p.get("kind") != t["kind"] and p.get("code") not in _ANY_TIME_ANSWERS]
    if any(parsed.get(k) for k in ("preferred_days", "excluded_days", "preferred_day_periods",
                                   "excluded_day_periods")):
        # "which day of the week?", "for each of those days?" and "a date or a time?" answered
        pending = [p for p in pending if p.get("code") not in ("relative_day", "day_period_scope", "date_or_time")]
    pending, resolved = _resolve_pending(pending, parsed)
    for kind, value in resolved:
        merge.put(kind, value)
    for c in parsed.get("clarifications", ()):
        if c["code"] in _ANY_TIME_ANSWERS and parsed.get("times"):
            continue  # "I work 9am-5pm, so after 5pm": answered in the same message
        if c["code"] == "vague_time" and _answering(new, parsed):
            continue  # "the later one, in the afternoon" answers "3:00 am or 3:00 pm?"
        clarification = Clarification(c["code"], c.get("kind"), tuple(c.get("candidates", ())))
        # one open question per kind: a restated time replaces the earlier question about it
        pending = [p for p in pending if (p.get("kind"), p.get("code")) != (clarification.kind, clarification.code)]
        pending.append({"code": clarification.code, "kind": clarification.kind,
                        "candidates": list(clarification.candidates), "question": clarification.question,
                        "source_id": merge.src})
        merge.changed = True
    if pending != new["pending_clarifications"]:
        new["pending_clarifications"] = pending[-MAX_PENDING:]


def _resolve_pending(pending: list[dict], parsed: dict) -> tuple[list[dict], list[tuple[str, str]]]:
    """Answers to an open question: "pm", "PM, sorry", "the afternoon one", "I meant 3 in the afternoon", "the
    second", or a time that names one of the candidates ("15:00")."""
    ambiguous = [p for p in pending if p.get("code") == "ambiguous_time" and p.get("candidates")]
    if not ambiguous:
        return pending, []
    target = ambiguous[0]
    value = None
    ordinal = (parsed.get("reference") or {}).get("ordinal")
    if parsed.get("meridiem"):
        value = target["candidates"][0 if parsed["meridiem"] == "am" else 1]
    elif ordinal in (1, 2, -1) and len(target["candidates"]) == 2:
        value = target["candidates"][0 if ordinal == 1 else 1]
    else:
        for t in parsed.get("reference", {}).get("times", ()):
            if t in target["candidates"]:
                value = t
                break
    if value is None:
        return pending, []
    return [p for p in pending if p is not target], [(target["kind"], value)]


_OFFER_TIME = re.compile(r"([01]\d|2[0-3]):[0-5]\d")
OFFER_FIELDS = ("slot_id", "start", "day", "time")
MAX_SLOT_ID_CHARS = 128  # a FHIR Slot's id is at most 64
MAX_START_CHARS = 64  # an ISO 8601 date and time with its offset


def offers_well_formed(tool_result: dict) -> bool:
    """Whether a result recorded under the slot search's name holds offers the conversation can refer back to
    ("the second one", "the 2 o'clock one") and summarise: a list of objects, each with a ``slot_id`` (text of at
    most 128 characters) and, when given, a ``day``, an ``HH:MM`` ``time`` and a ``start`` (at most 64), as
    :func:`slot_from_start` makes them."""
    offers = tool_result.get("offers")
    return isinstance(offers, list) and all(
        isinstance(o, dict) and isinstance(o.get("slot_id"), str) and 0 < len(o["slot_id"]) <= MAX_SLOT_ID_CHARS
        and ("day" not in o or o["day"] in DAYS)
        and ("time" not in o or isinstance(o["time"], str) and _OFFER_TIME.fullmatch(o["time"]) is not None)
        and ("start" not in o or isinstance(o["start"], str) and len(o["start"]) <= MAX_START_CHARS)
        for o in offers)


def _resolve_reference(offers: list[dict], reference: dict | None) -> str | None:
    """The one offered slot a message points at, or None. Matches only what was offered; never guesses."""
    if not reference or not offers:
        return None
    ids = {str(o.get("slot_id", "")).lower().replace("-", ""): o["slot_id"] for o in offers}
    named = [ids[s] for s in reference.get("slot_ids", ()) if s in ids]
    if len(named) == 1:
        return named[0]
    ordinal = reference.get("ordinal")
    if ordinal is not None and (ordinal == -1 or 1 <= ordinal <= len(offers)):
        return offers[ordinal - 1 if ordinal > 0 else -1]["slot_id"]
    said = set(reference.get("times", ())) or set(reference.get("either_times", ()))
    by_time = [o["slot_id"] for o in offers if o.get("time") in said]
    if len(by_time) == 1:
        return by_time[0]
    hours = set(reference.get("hours", ()))
    if hours:
        by_hour = [o["slot_id"] for o in offers
                   if int(o.get("time", "99:99")[:2]) in hours | {h + 12 for h in hours if h < 12}]
        if len(by_hour) == 1:
            return by_hour[0]
    if reference.get("acceptance") and len(offers) == 1:
        return offers[0]["slot_id"]
    return None


def _offer_named(offers: list[dict], parsed: dict) -> str | None:
    """The one offered slot that the days and parts of the day a message wants (and any hour or time it names)
    describe, when the message says nothing else that changes the booking; otherwise None."""
    days, periods = parsed.get("preferred_days") or (), parsed.get("preferred_periods") or ()
    pairs = _pair_set(parsed.get("preferred_day_periods"))
    if not (days or periods or pairs) or any(parsed.get(k) for k in (
            "excluded_days", "excluded_periods", "excluded_day_periods", "times", "clarifications", "specialty",
            "visit_type", "any_time", "any_day", "also")) or parsed.get("intent") not in (None, "book"):
        return None
    reference = parsed.get("reference") or {}
    said = set(reference.get("times", ())) or set(reference.get("either_times", ()))
    hours = set(reference.get("hours", ()))
    matching = []
    for o in offers:
        day, time = o.get("day"), o.get("time")
        if day not in DAYS or not isinstance(time, str) or not _OFFER_TIME.fullmatch(time):
            continue
        period = next(p for p in PERIODS if int(time[:2]) in PERIOD_HOURS[p])
        if (days and day not in days or periods and period not in periods or pairs and (day, period) not in pairs
                or said and time not in said
                or hours and not said and int(time[:2]) not in hours | {h + 12 for h in hours if h < 12}):
            continue
        matching.append(o["slot_id"])
    return matching[0] if len(matching) == 1 else None


def next_action(state: dict, care_team_flags: list[dict] | None = None) -> str:
    """What the agent should do next, from the slots alone (deterministic)."""
    if any(f.get("urgent") for f in care_team_flags or ()):
        return "escalate_to_care_team"
    if state.get("pending_clarifications"):
        return "ask_clarifying_question"
    if not state.get("intent"):
        return "clarify_intent"
    if not state.get("specialty"):
        return "clarify_appointment"
    if state["intent"] == "cancel":
        return "confirm_cancellation"
    if state.get("selected_slot_id"):
        return "confirm_selection"
    if state.get("last_offer") is not None:
        return "select_slot" if state["last_offer"]["slots"] else "offer_alternatives"
    return "search_slots"


def clarifying_questions(state: dict) -> list[dict]:
    return [{"question": p["question"], "source_id": p["source_id"]} for p in state.get("pending_clarifications", ())]


# --- offers ----------------------------------------------------------------------------------------------------

def offer_constraints(state: dict, standing: list[dict]) -> dict:
    """What an offer must satisfy: this conversation's slots, and the patient's long-term scheduling preferences
    (``standing``: typed facts with ``memory_id``). A time stated in this conversation overrides the long-term
    value of the same kind; excluded days and periods from both apply."""
    c = {"preferred_days": list(state.get("preferred_days", ())), "preferred_period": state.get("preferred_period"),
         "excluded_days": set(state.get("excluded_days", ())),
         "excluded_periods": set(state.get("excluded_periods", ())),
         "preferred_day_periods": list(state.get("preferred_day_periods") or ()),
         "excluded_day_periods": list(state.get("excluded_day_periods") or ()),
         EARLIEST: state.get(EARLIEST), LATEST: state.get(LATEST), "sources": {}}
    sources = state.get("sources", {})
    for key in ("preferred_days", "preferred_period", "excluded_days", "excluded_periods", "preferred_day_periods",
                "excluded_day_periods", EARLIEST, LATEST):
        if state.get(key) and key in sources:
            c["sources"][key] = [sources[key]]
    for fact in standing:
        kind, ref = fact.get("kind"), f"memory:{fact.get('memory_id')}"
        if kind in (EARLIEST, LATEST) and not c[kind]:
            c[kind] = fact["time"]
            c["sources"][kind] = [ref]
        elif kind == "excluded_days":
            c["excluded_days"] |= set(fact["days"])
            c["sources"].setdefault("excluded_days", []).append(ref)
        elif kind == "excluded_periods":
            c["excluded_periods"] |= set(fact["periods"])
            c["sources"].setdefault("excluded_periods", []).append(ref)
    c["excluded_days"] = _ordered(c["excluded_days"], DAYS)
    c["excluded_periods"] = _ordered(c["excluded_periods"], PERIODS)
    return c


def slot_matches(slot: dict, c: dict) -> bool:
    """Slot times are the clinic's wall-clock HH:MM; an earliest time is inclusive, a latest time too."""
    day, time = slot["day"], slot["time"]
    hour = int(time[:2])
    if c["preferred_days"] and day not in c["preferred_days"]:
        return False
    if day in c["excluded_days"]:
        return False
    if c["preferred_period"] and hour not in PERIOD_HOURS[c["preferred_period"]]:
        return False
    if any(hour in PERIOD_HOURS[p] for p in c["excluded_periods"]):
        return False
    period = next(p for p in PERIODS if hour in PERIOD_HOURS[p])
    if (day, period) in _pair_set(c.get("excluded_day_periods")):
        return False
    if c.get("preferred_day_periods") and (day, period) not in _pair_set(c["preferred_day_periods"]):
        return False
    if c[EARLIEST] and time < c[EARLIEST]:
        return False
    return not (c[LATEST] and time > c[LATEST])


def slot_from_start(slot_id: str, start: datetime) -> dict:
    return {"slot_id": slot_id, "start": start.strftime("%Y-%m-%dT%H:%M"), "day": DAYS[start.weekday()],
            "time": start.strftime("%H:%M")}
