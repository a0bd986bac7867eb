"""Times of day in a patient's message: clock readings, the relation that gives each its direction, and the
clarifying questions asked instead of guessing (ambiguous hours, negated ranges, unreadable times)."""

from __future__ import annotations

import re
from dataclasses import dataclass

from conversations.parsing.text import NOT_NEGATION, clause_of, clause_spans, mask, negated_before, normalise

EARLIEST = "earliest_time"
LATEST = "latest_time"
# Bare hours whose 24-hour reading (01:00-07:00) and spoken reading (1-7 pm) disagree: asked, never guessed.
AMBIGUOUS_BARE_HOURS = range(1, 8)

_CLOCK = (
    # "10 30" is not 10:00 followed by something else: an hour without minutes is not followed by another number
    r"(?:(?<![\w:./])(?P<{p}h>\d{{1,2}})(?:[:.](?P<{p}m>\d{{2}})|(?!\s+\d))(?:\s*o'?clock)?"
    r"(?:\s*(?P<{p}ampm>a\.?\s?m\b\.?|p\.?\s?m\b\.?|in the (?:morning|afternoon|evening)\b|at night\b"
    r"|tonight\b))?(?:\s*o'?clock)?"
    r"(?![\w:/]|\.\d)(?!\s*(?:min|mins|minute|minutes|hr|hrs|hour|hours|day|days|week|weeks|wk|wks|month|months|"
    r"year|years|percent|mg|ml|kg|times|people|of|past|tablets?|pills?|doses?|units?|puffs?|drinks?)\b)"
    r"|(?P<{p}word>\bnoon\b|\bmidday\b|\bmidnight\b))"
)
_RELATIONS = {
    # read as one relation, already carrying their negation: never flipped
    "no later than": (LATEST, True), "not later than": (LATEST, True), "not after": (LATEST, True),
    "no earlier than": (EARLIEST, True), "not earlier than": (EARLIEST, True), "not before": (EARLIEST, True),
    "earliest": (EARLIEST, True), "latest": (LATEST, True),  # "earliest 10am", "latest 4pm"
    # plain relations: a negation earlier in the clause flips them
    "earlier than": (LATEST, False), "before": (LATEST, False), "by": (LATEST, False), "until": (LATEST, False),
    "till": (LATEST, False), "til": (LATEST, False), "up to": (LATEST, False),
    "later than": (EARLIEST, False), "after": (EARLIEST, False), "from": (EARLIEST, False),
    "starting at": (EARLIEST, False), "starting from": (EARLIEST, False),
}
# What follows a time phrase and says those times are excluded: "before 9 is too early", "after 4pm doesn't
# work", "anything before 10am is out". Read on the masked text, so "is not a problem" is no negation; "not too
# late", "won't be a problem" and "doesn't matter" are none either.
_NEGATED_AFTER = re.compile(
    r"\s*(?:(?:is|are|'s|'re|would be|will be|seems?|sounds?)\s+(?:(?:really|just|far|way|much|a bit|a little)\s+)?"
    r"(?:too (?:early|late|soon)|no good|not (?!too\b|an? (?:problem|issue)\b)|out\b|impossible|bad\b|difficult|"
    r"tricky|awkward|inconvenient|a no\b|a no-go\b)"
    r"|(?:isn't|aren't|won't|wouldn't|doesn't|don't|does not|do not|will not|would not|can't|cannot)\b"
    r"(?! (?:be )?(?:too\b|an? (?:problem|issue)\b|matter\b|bother\b)))")
_ARRIVING = re.compile(r"\b(?:be there|be here|get there|get here|get in|arrive|make it|come in)\s+$")
_ALTERNATIVE_GAP = re.compile(r"\s*,?\s*(?:or|nor)\s+")
_REL_WORDS = "|".join(sorted((re.escape(r) for r in _RELATIONS), key=len, reverse=True))
_FILLER = r"(?:(?:any ?time|anything|something)\s+)?"
_APPROX = r"(?:(?:about|around|roughly|approximately|say)\s+)?(?:at\s+)?"
_RANGE = re.compile(r"\b(?:between|from)\s+" + _APPROX + _CLOCK.format(p="a") + r"\s*(?:and|to|until|till|-)\s*"
                    + _APPROX + _CLOCK.format(p="b"))
# A range said without "between" or "from" ("2pm-4pm", "10am to 2pm", "10:30-11:00"): read only when one end has
# its part of the day or both have minutes, so "5-10 minutes", "2-3 weeks" and "12-15" stay numbers
_BARE_RANGE = re.compile(_APPROX + _CLOCK.format(p="a") + r"\s*(?:-|\u2013|\u2014|to|until|till)\s*" + _APPROX
                         + _CLOCK.format(p="b"))
_PREFIX = re.compile(r"\b(?P<rel>" + _REL_WORDS + r")\s+" + _FILLER + _APPROX + _CLOCK.format(p=""))
_SUFFIX = re.compile(_CLOCK.format(p="") + r"\s+(?P<suffix>at the latest|or earlier|at the earliest|or later|"
                                           r"onwards?|or after)\b")
_SUFFIX_KIND = {"at the latest": LATEST, "or earlier": LATEST, "at the earliest": EARLIEST, "or later": EARLIEST,
                "onward": EARLIEST, "onwards": EARLIEST, "or after": EARLIEST}
ANY_CLOCK = re.compile(_CLOCK.format(p=""))
CLOCK_WITH_PERIOD = re.compile(r"(?<![\w:./])\d{1,2}(?:[:.]\d{2})?(?:\s*o'?clock)?\s*(?:in the (?:morning|afternoon|"
                                r"evening)|at night|tonight)\b")
# An answer to "3:00 am or 3:00 pm?": one meridiem word, and nothing else but filler ("PM, sorry", "the
# afternoon one", "I meant in the evening", "definitely p.m.", "not the morning").
_MERIDIEM_WORD = re.compile(r"\b(?:(?P<am>a\.\s?m\b\.?|am|morning|early|earlier|first|former)"
                            r"|(?P<pm>p\.\s?m\b\.?|pm|afternoon|evening|night|nighttime|"
                            r"late|later|second|latter))(?![\w.])")
_FILLER_WORDS = frozenset(
    "sorry oh ah um uh er erm hmm i i'm meant mean means it it's its was is in the yes yeah yep no nope of course "
    "please thanks thank you ok okay so that one definitely obviously clearly sure oops my bad apologies haha lol "
    "said say wrote typed should have been be a bit time sense like mean't actually well just at o'clock clock "
    "answer choice option choose pick go with would rather prefer for".split())
_NEGATED_MERIDIEM = re.compile(r"\b(?:not|no|never)\b")


# Times of day said in words that name no clock time ("lunchtime", "first thing", "late afternoon", "after lunch"):
# read as a time they would be a guess, and left out they would be lost (an exclusion too: "I can't do lunchtime")
VAGUE_TIME = re.compile(
    r"\b(?:first thing|lunch ?times?|(?:before|after|over|during|around|at|about) lunch|end of the day"
    r"|(?:late|early|mid)[- ]?(?:morning|afternoon|evening)s?|(?:late|early) in the (?:morning|afternoon|evening)"
    r"|(?:not|nothing|no|none) (?:too |very |really |that |so )?(?:early|late)"
    # times named by the day's other commitments: "not during school hours", "after work", "before the school run"
    r"|(?:after|before|during|outside|around|in) (?:the )?(?:school|work|the school run|my shift)"
    r"(?: hours)?|school (?:hours|run|pick ?-?up|drop ?-?off)|(?:working|office|business) hours)\b")
# "I finish at 5, so anything after that": a time said only by pointing back at a clock named earlier in the message
THAT_TIME = re.compile(r"\b(?:after|before|from|until|till|by) (?:that|then)\b")


@dataclass(frozen=True)
class TimePreference:
    kind: str  # earliest_time or latest_time
    time: str  # 24-hour HH:MM


@dataclass(frozen=True)
class Clarification:
    code: str  # ambiguous_time, invalid_time, negated_range, conflicting_times, relative_day, vague_time,
    # unreadable_time, day_period_scope or date_or_time
    kind: str | None
    candidates: tuple[str, ...] = ()  # HH:MM readings; for date_or_time the numbers as written ("12-14")

    @property
    def question(self) -> str:
        which = {EARLIEST: "the earliest time", LATEST: "the latest time"}.get(self.kind or "", "the time")
        if self.code == "ambiguous_time" and len(self.candidates) == 2:
            return f"Do you mean {spoken(self.candidates[0])} or {spoken(self.candidates[1])} as {which}?"
        if self.code == "negated_range":
            return "Which times would suit you instead, for example 'after 2 pm' or 'before 11:00'?"
        if self.code == "unreadable_time":
            return "I could not read the time; could you say it like '4:30 pm' or '16:30'?"
        if self.code == "vague_time":
            return "What time would suit you, for example 'after 2 pm' or 'before 11:00'?"
        if self.code == "day_period_scope":
            return ("Is the time of day you named for each of those days, or only the last one? For example "
                    "'Tuesday any time, or Wednesday morning' or 'Tuesday or Wednesday, mornings only'.")
        if self.code == "date_or_time":
            said = f"'{self.candidates[0]}'" if self.candidates else "that"
            return (f"Is {said} a date or a time? Offers are matched by the day of the week and the time: say a "
                    "day such as 'Thursday', or a time such as '12:00 to 14:00'.")
        if self.code == "relative_day":
            return ("Which day of the week would suit you, for example 'Thursday' or 'not Monday'? Offers are "
                    "matched by weekday, not by a date, 'tomorrow' or 'next week'.")
        if self.code == "conflicting_times" and len(self.candidates) == 2:
            return (f"Both cannot hold for one appointment: do you mean after {spoken(self.candidates[0])}, or "
                    f"before {spoken(self.candidates[1])}?")
        return f"I could not read {which}; could you say it like '3 pm' or '15:00'?"


def spoken(hhmm: str) -> str:
    """'15:00' -> '3:00 pm' (for questions to a person)."""
    h, m = (int(x) for x in hhmm.split(":"))
    return f"{h % 12 or 12}:{m:02d} {'am' if h < 12 else 'pm'}"


@dataclass(frozen=True)
class _Clock:
    value: str | None  # HH:MM when unambiguous
    candidates: tuple[str, ...] = ()  # when ambiguous
    invalid: bool = False
    hour: int | None = None  # the number said, for references
    meridiem: str | None = None


def read_clock(m: re.Match, p: str = "", inherit_meridiem: str | None = None) -> _Clock:
    word = m.group(f"{p}word")
    if word:
        return _Clock("00:00" if word == "midnight" else "12:00", hour=12)
    raw_h, raw_m, raw_ampm = m.group(f"{p}h"), m.group(f"{p}m"), m.group(f"{p}ampm")
    h, minute = int(raw_h), int(raw_m or 0)
    ampm = _meridiem_of(raw_ampm) if raw_ampm else inherit_meridiem
    if minute > 59:
        return _Clock(None, invalid=True, hour=h)
    if ampm:
        if not 1 <= h <= 12:
            return _Clock(None, invalid=True, hour=h)
        return _Clock(f"{h % 12 + (12 if ampm == 'pm' else 0):02d}:{minute:02d}", hour=h, meridiem=ampm)
    if h > 23:
        return _Clock(None, invalid=True, hour=h)
    zero_padded = len(raw_h) == 2 and raw_h.startswith("0")  # "03:30" is a 24-hour time, "3:30" is not
    if h in AMBIGUOUS_BARE_HOURS and not zero_padded:
        return _Clock(None, candidates=(f"{h:02d}:{minute:02d}", f"{h + 12:02d}:{minute:02d}"), hour=h)
    return _Clock(f"{h:02d}:{minute:02d}", hour=h)


def _meridiem_of(word: str) -> str:
    """'a.m.', 'am', 'in the morning' -> 'am'; 'pm', 'in the afternoon', 'at night' -> 'pm'."""
    return "am" if word.startswith("a") and not word.startswith("at") or word.endswith("morning") else "pm"


# A part of the day just before a time says its half of the day: "evenings after 6" is 18:00, "afternoons between 2
# and 4" 14:00-16:00, "mornings before 7" 07:00 (a bare hour is asked about only when nothing says which)
_PERIOD_BEFORE = re.compile(r"\b(?P<period>morning|afternoon|evening)s?\s+(?:(?:only|just|any ?time)\s+)?$")


def _period_meridiem(text: str, start: int, clause_start: int) -> str | None:
    m = _PERIOD_BEFORE.search(text, max(clause_start, start - 40), start)
    return None if m is None else "am" if m.group("period") == "morning" else "pm"


def _flip(kind: str) -> str:
    return EARLIEST if kind == LATEST else LATEST


def time_phrases(text: str, masked: str, clauses: list[tuple[int, int]]):
    """(span, kind, _Clock) for every time phrase, in text order, and the spans taken. Ranges are read first;
    prefixed and suffixed phrases skip spans already taken. ``kind`` is None for a negated range."""
    taken: list[tuple[int, int]] = []

    def free(a: int, b: int) -> bool:
        return all(b <= s or a >= e for s, e in taken)

    found: list[tuple[tuple[int, int], str | None, _Clock | None]] = []
    ranges = [*_RANGE.finditer(text), *(m for m in _BARE_RANGE.finditer(text) if _said_as_times(m))]
    for m in ranges:
        if not free(m.start(), m.end()):
            continue
        c_start, c_end = clause_of(clauses, m.start())
        said_half = _period_meridiem(text, m.start(), c_start)
        second = read_clock(m, "b", inherit_meridiem=said_half)
        first = read_clock(m, "a", inherit_meridiem=said_half)
        if first.value is None and first.candidates and first.meridiem is None and second.meridiem:
            inherited = read_clock(m, "a", inherit_meridiem=second.meridiem)
            if inherited.value and second.value and inherited.value <= second.value:
                first = inherited
        if negated_before(masked, c_start, m.start()) or _NEGATED_AFTER.match(masked, m.end(), c_end):
            # "not between 12 and 2", "2pm-4pm doesn't work": ask instead
            found.append(((m.start(), m.end()), None, None))
        else:
            found.append(((m.start(), m.start() + 1), EARLIEST, first))
            found.append(((m.start() + 1, m.end()), LATEST, second))
        taken.append((m.start(), m.end()))
    last_end_by_clause: dict[int, int] = {}
    last_negated_by_clause: dict[int, bool] = {}
    for m in _PREFIX.finditer(text):
        if not free(m.start(), m.end()):
            continue
        kind, atomic = _RELATIONS[m.group("rel")]
        c_start, c_end = clause_of(clauses, m.start())
        if m.group("rel") == "by" and _ARRIVING.search(text, max(c_start, m.start() - 30), m.start()):
            # "I can be there by 10" is from 10 on, and "I can't get there by 9" too: never a latest time
            kind, atomic = EARLIEST, True
        scope_start = max(c_start, last_end_by_clause.get(c_start, c_start))
        # "I can't do before 10 or after 4": the negation reaches the alternative joined by "or"
        inherited = (scope_start > c_start and last_negated_by_clause.get(c_start, False)
                     and _ALTERNATIVE_GAP.fullmatch(masked, scope_start, m.start()) is not None)
        negated = atomic or inherited or negated_before(masked, scope_start, m.start())
        if not atomic and _NEGATED_AFTER.match(masked, m.end(), c_end):
            negated = not negated  # "before 9 is too early", "after 4pm doesn't work"
        if not atomic and negated:
            kind = _flip(kind)
        last_end_by_clause[c_start] = m.end()
        last_negated_by_clause[c_start] = negated
        found.append(((m.start(), m.end()), kind, read_clock(m, inherit_meridiem=_period_meridiem(
            text, m.start(), c_start))))
        taken.append((m.start(), m.end()))
    for m in _SUFFIX.finditer(text):
        if not free(m.start(), m.end()):
            continue
        found.append(((m.start(), m.end()), _SUFFIX_KIND[m.group("suffix")], read_clock(m)))
        taken.append((m.start(), m.end()))
    return sorted(found, key=lambda item: item[0]), taken


def _said_as_times(m: re.Match) -> bool:
    """A bare range's ends are clock times: one has its part of the day or its minutes, or both are hours of the day
    in order ("10-12", "10 to 12": a window; "5-10 minutes" and "12-15 people" are numbers of something), or a
    morning hour to an afternoon one ("10-3", "9 to 1")."""
    if m.group("aampm") or m.group("bampm") or m.group("aword") or m.group("bword") or m.group("am") or m.group("bm"):
        return True
    return hours_of_a_window(int(m.group("ah")), int(m.group("bh")))


def hours_of_a_window(first: int, last: int) -> bool:
    """Two bare hours that make a window: in order ("10-12"), or a morning hour to an afternoon one ("10-3")."""
    return first < last <= 23 or 8 <= first <= 12 and 1 <= last <= 7


# A relation followed by a time this parser cannot read ("after half past four", "not before half 9", "before four
# pm", "after 10ish"): left out it would be lost, so it is asked about (durations such as "after 30 minutes" are no
# times)
_NUMBER_WORD = r"(?:one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve)"
_UNREAD = re.compile(r"\b(?:" + _REL_WORDS + r")\s+" + _FILLER + _APPROX
                     + r"(?:half|quarter|(?:" + _NUMBER_WORD + r"|noon|midday)(?:ish)?\b|\d)"
                     + r"(?![\d\s]*(?:" + _NUMBER_WORD + r"\s+)?"
                     r"(?:min|mins|minutes?|hrs?|hours?|days?|weeks?|months?|years?)\b)")


def unread_times(text: str, taken: list[tuple[int, int]]) -> bool:
    """Whether a relation names a time that no time phrase read (``taken``: the spans read)."""
    return any(all(m.end() <= s or m.start() >= e for s, e in taken) for m in _UNREAD.finditer(text))


def parse_time_preferences(text: str) -> tuple[list[TimePreference], list[Clarification]]:
    """Time preferences with their direction, and clarifying questions for what cannot be read safely."""
    norm = normalise(text)
    masked = mask(norm, NOT_NEGATION)
    phrases, _ = time_phrases(norm, masked, clause_spans(norm))
    return times_from(phrases)


def times_from(phrases) -> tuple[list[TimePreference], list[Clarification]]:
    times: list[TimePreference] = []
    questions: list[Clarification] = []
    # "not before 10 or after 3", "no earlier than 9:30 and no later than 4": a latest time whose morning reading
    # is not after the earliest said with it can only be the afternoon's (else no time is left): not asked
    said_earliest = [c.value for _s, kind, c in phrases if kind == EARLIEST and c is not None and c.value]
    for _span, kind, clock in phrases:
        if kind is None or clock is None:
            questions.append(Clarification("negated_range", None))
        elif clock.value is not None:
            times.append(TimePreference(kind, clock.value))
        elif (kind == LATEST and len(clock.candidates) == 2 and said_earliest
              and clock.candidates[0] <= max(said_earliest) < clock.candidates[1]):
            times.append(TimePreference(kind, clock.candidates[1]))
        elif clock.candidates:
            questions.append(Clarification("ambiguous_time", kind, clock.candidates))
        else:
            questions.append(Clarification("invalid_time", kind))
    earliest = [t.time for t in times if t.kind == EARLIEST]
    latest = [t.time for t in times if t.kind == LATEST]
    if earliest and latest and max(earliest) > min(latest):
        # "after 10 or before 8": no time is both, and slots cannot hold "either": ask, keep neither
        return [], [*questions, Clarification("conflicting_times", None, (max(earliest), min(latest)))]
    return times, questions


def meridiem_answer(norm: str) -> str | None:
    """'am' or 'pm' when the whole message is an answer to an am/pm question, else None. Numbers ("3", "3:00")
    may be repeated; a negation flips the answer ("not the morning one")."""
    words = _MERIDIEM_WORD.findall(norm)
    found = {"am" if am else "pm" for am, pm in words}
    if len(found) != 1:
        return None
    rest = _MERIDIEM_WORD.sub(" ", norm)
    rest = re.sub(r"\b\d{1,2}(?:[:.]\d{2})?\b", " ", rest)
    negated = bool(_NEGATED_MERIDIEM.search(rest))
    rest = _NEGATED_MERIDIEM.sub(" ", rest)
    tokens = [t for t in re.split(r"[^a-z']+", rest) if t]
    if any(t not in _FILLER_WORDS for t in tokens):
        return None
    answer = found.pop()
    return ("pm" if answer == "am" else "am") if negated else answer
