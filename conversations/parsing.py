"""The one parser of patients' messages: scheduling slots, time preferences with their direction, clarifying
questions, references to offered slots and clinical remarks.

It serves the short-term slots of a conversation (``conversations.slots``) and the long-term preference
proposals made from a turn (:func:`memory_facts`), so both read a message the same way. It is a narrow rule-based
parser for scheduling talk, not clinical NLP: what it cannot read with confidence it leaves out or turns into a
clarifying question, never a guess.

Rules that matter (each has tests):

* **Direction is kept.** "before 3 pm" is a latest time, "after 14:30" an earliest one; a negation in the same
  clause flips a plain relation ("don't book me before 10" is an earliest time, "I can't come after 4pm" a latest
  one); "not before", "no later than" and the like are read as one relation and never flipped again.
* **24-hour and am/pm forms agree.** "15:00", "3 pm", "3pm", "3 p.m." and "3:00 PM" are all 15:00.
* **Ambiguous times are asked about.** A bare hour from 1 to 7 without minutes or am/pm ("after 3"), or an
  unpadded 1:00-7:59 without am/pm ("after 3:30"), reads one way on a 24-hour clock (03:00, before any clinic
  opens) and another in speech (15:00). Those yield a clarifying question with both candidates and no value.
  Bare 8-12 read as the morning/noon hour (their 24-hour reading), and 0 or 13-23 as 24-hour times.
* **Negation excludes.** "I can't do mornings" excludes mornings; it is not a preference for them. Negation is
  scoped to its clause, and phrases such as "don't mind" or "isn't there" do not negate.
* **Nothing is defaulted.** Intent and specialty come from the message or stay empty.
"""

from __future__ import annotations

import re
from dataclasses import asdict, dataclass, field

DAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
PERIODS = ("morning", "afternoon", "evening")
# The clock hours of each period (slot start times), used to match offers against period constraints.
PERIOD_HOURS = {"morning": range(0, 12), "afternoon": range(12, 17), "evening": range(17, 24)}
INTENTS = ("book", "reschedule", "cancel")
EARLIEST = "earliest_time"
LATEST = "latest_time"
# Bare hours whose 24-hour reading (01:00-07:00) and spoken reading (1-7 pm) disagree: asked, never guessed.
AMBIGUOUS_BARE_HOURS = range(1, 8)

SPECIALTIES: dict[str, str] = {
    "cardiology": r"cardiolog\w*|cardiac|heart (?:clinic|doctor|specialist)",
    "dermatology": r"dermatolog\w*|skin (?:clinic|doctor|specialist)",
    "endocrinology": r"endocrinolog\w*|diabetes (?:clinic|review)",
    "gastroenterology": r"gastroenterolog\w*",
    "general_practice": r"\bgp\b|general practi\w*|family doctor",
    "gynaecology": r"gyn(?:a)?ecolog\w*",
    "nephrology": r"nephrolog\w*|kidney (?:clinic|doctor|specialist)",
    "neurology": r"neurolog\w*",
    "oncology": r"oncolog\w*",
    "ophthalmology": r"ophthalmolog\w*|eye (?:clinic|doctor|specialist)",
    "orthopaedics": r"orthop(?:a)?edic\w*",
    "paediatrics": r"pa?ediatric\w*",
    "psychiatry": r"psychiatr\w*",
    "pulmonology": r"pulmonolog\w*|respiratory (?:clinic|medicine)",
    "rheumatology": r"rheumatolog\w*",
    "urology": r"urolog\w*",
}
_SPECIALTY = re.compile("|".join(f"(?P<{name}>{pattern})" for name, pattern in SPECIALTIES.items()))

_INTENT = re.compile(
    r"(?P<reschedule>\bre-?schedul\w*|\bre-?book\w*|\bpostpon\w*|\bpush (?:it|my appointment) back"
    r"|\bbring (?:it|my appointment) forward"
    r"|\bmove (?:it|(?:my|the) (?:\w+[- ])?(?:appointment|booking|visit|follow-?up|consultation|check-?up))"
    r"|\bchange (?:my|the) (?:appointment|booking|visit|time|date))"
    r"|(?P<cancel>\bcancel\w*|\bcall off)"
    r"|(?P<book>\bbook\w*|\bschedul\w*|\bnew appointment"
    r"|\b(?:make|get|need|want|like|arrange) (?:an?|a new|another)(?: [a-z-]+){0,2} "
    r"(?:appointment|visit|consultation|follow-?up|check-?up)"
    r"|\bappointment with|\bsee (?:a|the|my) (?:doctor|specialist|\w+ologist))")
_VISIT = re.compile(r"(?P<followup>\bfollow[- ]?ups?\b|\bcheck[- ]?ups?\b|\breview\b)"
                    r"|(?P<new>\bnew patient\b|\bfirst (?:appointment|visit)\b"
                    r"|\binitial (?:appointment|consultation)\b)")

_APOSTROPHES = str.maketrans({"\u2019": "'", "\u2018": "'", "`": "'"})

# Clause boundaries: negation never reaches across them. "anything but" is a negation, not a boundary.
_BOUNDARY = re.compile(
    r"[;!?\n]|\.(?=\s|$)|,"
    r"|(?<!anything )(?<!everything )\bbut\b|\b(?:however|whereas|although|though|because|since|so|then|unless|"
    r"otherwise)\b"
    r"|\band\b(?=\s+(?:i|i'm|i've|i'd|i'll|we|my|it|it's|that|this|they|he|she|you|please)\b)")

_NEGATOR = re.compile(
    r"\b(?:can't|cant|cannot|can not|couldn't|could not|won't|will not|wouldn't|would not|unable to|not|no|never|"
    r"don't|dont|do not|doesn't|does not|isn't|aren't|nothing|none|except|excluding|avoid|anything but|"
    r"everything but|other than|apart from|without|busy|unavailable|tied up|at work)\b")
# Phrases that contain a negator word but do not negate what follows.
_NOT_NEGATION = re.compile(
    r"\b(?:don't|dont|do not|doesn't|does not|wouldn't|would not|never) mind\b|\bno problem\b|\bnot a problem\b"
    r"|\bnot only\b|\bno matter\b|\bnot sure\b|\bno idea\b|\bcan't you\b|\bcouldn't you\b|\bisn't there\b"
    r"|\baren't there\b|\bdon't you\b|\bdo you not\b|\bis there nothing\b|\bhaven't you\b|\bno worries\b")
# A negative predicate after a day or period: "mornings don't work", "Monday is out", "Mondays are impossible".
_NEG_AFTER = re.compile(
    r"^(?:\s*(?:and|or|&|,)\s*[a-z]+)*(?:\s+(?:really|just|generally|usually|always))?"
    r"(?:(?:'s|'re|\s+is|\s+are)\s+(?:out|impossible|bad|difficult|tricky|no good|not\b|never\b)"
    r"|\s+(?:isn't|aren't|won't|wouldn't|don't|doesn't|do not|does not|will not|would not|never)\b)")
_DAY = re.compile(r"\b(?P<day>monday|tuesday|wednesday|thursday|friday|saturday|sunday|tues|thurs|weds)s?\b"
                  r"|\b(?P<group>weekends?|weekdays?)\b")
_DAY_ALIASES = {"tues": "tuesday", "thurs": "thursday", "weds": "wednesday"}
_PERIOD = re.compile(r"\b(?P<period>morning|afternoon|evening)s?\b|\b(?P<tonight>tonight)\b")
# Mentions of a day or period that are not about the appointment.
_NOT_A_PREFERENCE = re.compile(
    r"\bgood (?:morning|afternoon|evening)\b|\b(?:this|yesterday|last) (?:morning|afternoon|evening)\b"
    r"|\blast (?:monday|tuesday|wednesday|thursday|friday|saturday|sunday)\b|\byesterday\b"
    r"|\b(?:morning|afternoon|evening) (?:medication|meds|medicine|routine|shift|walk|run|coffee|pills?|tablets?|"
    r"dose|injection|traffic|rush|school|class|classes|job|work)\b")

_CLOCK = (
    r"(?:(?<![\w:./])(?P<{p}h>\d{{1,2}})(?:[:.](?P<{p}m>\d{{2}}))?(?:\s*o'?clock)?"
    r"(?:\s*(?P<{p}ampm>a\.?\s?m\b\.?|p\.?\s?m\b\.?|in the (?:morning|afternoon|evening)\b|at night\b"
    r"|tonight\b))?(?:\s*o'?clock)?"
    r"(?![\w:/]|\.\d)(?!\s*(?:min|mins|minute|minutes|hr|hrs|hour|hours|day|days|week|weeks|month|months|year|years|"
    r"percent|mg|ml|kg|times|people|of)\b)"
    r"|(?P<{p}word>\bnoon\b|\bmidday\b|\bmidnight\b))"
)
_RELATIONS = {
    # read as one relation, already carrying their negation: never flipped
    "no later than": (LATEST, True), "not later than": (LATEST, True), "not after": (LATEST, True),
    "no earlier than": (EARLIEST, True), "not earlier than": (EARLIEST, True), "not before": (EARLIEST, True),
    # plain relations: a negation earlier in the clause flips them
    "earlier than": (LATEST, False), "before": (LATEST, False), "by": (LATEST, False), "until": (LATEST, False),
    "till": (LATEST, False), "til": (LATEST, False), "up to": (LATEST, False),
    "later than": (EARLIEST, False), "after": (EARLIEST, False), "from": (EARLIEST, False),
    "starting at": (EARLIEST, False), "starting from": (EARLIEST, False),
}
_REL_WORDS = "|".join(sorted((re.escape(r) for r in _RELATIONS), key=len, reverse=True))
_FILLER = r"(?:(?:any ?time|anything|something)\s+)?"
_APPROX = r"(?:(?:about|around|roughly|approximately|say)\s+)?(?:at\s+)?"
_RANGE = re.compile(r"\b(?:between|from)\s+" + _APPROX + _CLOCK.format(p="a") + r"\s*(?:and|to|until|till|-)\s*"
                    + _APPROX + _CLOCK.format(p="b"))
_PREFIX = re.compile(r"\b(?P<rel>" + _REL_WORDS + r")\s+" + _FILLER + _APPROX + _CLOCK.format(p=""))
_SUFFIX = re.compile(_CLOCK.format(p="") + r"\s+(?P<suffix>at the latest|or earlier|at the earliest|or later|"
                                           r"onwards?|or after)\b")
_SUFFIX_KIND = {"at the latest": LATEST, "or earlier": LATEST, "at the earliest": EARLIEST, "or later": EARLIEST,
                "onward": EARLIEST, "onwards": EARLIEST, "or after": EARLIEST}
_ANY_CLOCK = re.compile(_CLOCK.format(p=""))
_CLOCK_WITH_PERIOD = re.compile(r"(?<![\w:./])\d{1,2}(?:[:.]\d{2})?(?:\s*o'?clock)?\s*(?:in the (?:morning|afternoon|"
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

_SLOT_ID = re.compile(r"\b[a-z]{1,3}-?\d{1,4}\b")
_ORDINAL = re.compile(r"\bthe (?P<o>first|1st|second|2nd|third|3rd|fourth|4th|fifth|5th|last)\b(?: one| slot| option)?")
_ORDINALS = {"first": 1, "1st": 1, "second": 2, "2nd": 2, "third": 3, "3rd": 3, "fourth": 4, "4th": 4, "fifth": 5,
             "5th": 5, "last": -1}
_ACCEPTANCE = re.compile(r"\b(?:yes|yeah|yep|sure|ok|okay|sounds good|perfect|great|that works|that one|"
                         r"that'll do|book it|take it|i'll take|go ahead)\b")

# Clinical remarks: routed to the care team per policy, never kept as memory. Most specific first.
REMARK_POLICY = "care-team-routing-v1"
_REMARKS: tuple[tuple[str, bool, re.Pattern], ...] = (
    ("urgent_symptom", True, re.compile(
        r"\bchest pains?\b|\bcan't breathe\b|\bcannot breathe\b|\bshort(?:ness)? of breath\b|\bdifficulty breathing\b"
        r"|\bfaint(?:ed|ing)\b|\bpassed out\b|\bbleeding (?:heavily|a lot)\b|\bheavy bleeding\b|\bstroke\b"
        r"|\bsuicid\w*|\bkill myself\b|\boverdos\w*")),
    ("medication_anticoagulant", False, re.compile(
        r"\bblood[- ]thinn\w*|\banticoagula\w*|\bwarfarin\b|\bcoumadin\b|\bapixaban\b|\beliquis\b|\brivaroxaban\b"
        r"|\bxarelto\b|\bdabigatran\b|\bpradaxa\b|\bedoxaban\b|\bheparin\b|\benoxaparin\b|\bclopidogrel\b"
        r"|\bplavix\b")),
    ("allergy", False, re.compile(r"\ballerg\w*|\banaphyla\w*")),
    ("pregnancy", False, re.compile(r"\bpregnan\w*")),
    ("medication", False, re.compile(
        r"\b(?:taking|take|started|stopped|prescribed|using|on)\s+(?:\w+\s+){0,3}?"
        r"(?:medication|medicine|meds|pills?|tablets?|insulin|antibiotics?|steroids?|chemo\w*|\w+(?:pril|olol|statin|"
        r"sartan|cillin|mycin|azole|formin|prazole|dipine|oxetine))\b")),
    ("symptom", False, re.compile(
        r"\b(?:in pain|pain in (?:my|the) \w+|(?:back|stomach|joint|leg|arm|abdominal|knee|neck) pain|painful|"
        r"bleeding|bruis\w*|dizz\w*|nause\w*|vomit\w*|fever|rash|swelling|swollen|palpitations?|"
        r"headaches?|migraines?|infection)\b")),
)


@dataclass(frozen=True)
class TimePreference:
    kind: str  # earliest_time or latest_time
    time: str  # 24-hour HH:MM


@dataclass(frozen=True)
class Clarification:
    code: str  # ambiguous_time, invalid_time or negated_range
    kind: str | None
    candidates: tuple[str, ...] = ()

    @property
    def question(self) -> str:
        which = {EARLIEST: "the earliest time", LATEST: "the latest time"}.get(self.kind or "", "the time")
        if self.code == "ambiguous_time" and len(self.candidates) == 2:
            return f"Do you mean {spoken(self.candidates[0])} or {spoken(self.candidates[1])} as {which}?"
        if self.code == "negated_range":
            return "Which times would suit you instead, for example 'after 2 pm' or 'before 11:00'?"
        return f"I could not read {which}; could you say it like '3 pm' or '15:00'?"


@dataclass(frozen=True)
class Remark:
    category: str
    urgent: bool


@dataclass(frozen=True)
class Reference:
    """What a message may be pointing at among slots already offered (resolved against them, never guessed)."""

    slot_ids: tuple[str, ...] = ()
    ordinal: int | None = None
    times: tuple[str, ...] = ()  # explicit 24-hour times mentioned without a relation
    hours: tuple[int, ...] = ()  # bare hours mentioned without a relation ("the 2 o'clock one")
    acceptance: bool = False


@dataclass(frozen=True)
class TurnParse:
    intent: str | None = None
    specialty: str | None = None
    visit_type: str | None = None
    preferred_days: tuple[str, ...] = ()
    excluded_days: tuple[str, ...] = ()
    preferred_periods: tuple[str, ...] = ()
    excluded_periods: tuple[str, ...] = ()
    times: tuple[TimePreference, ...] = ()
    clarifications: tuple[Clarification, ...] = ()
    meridiem: str | None = None  # a bare "pm" / "in the afternoon" answer to a clarifying question
    reference: Reference = field(default_factory=Reference)
    remarks: tuple[Remark, ...] = ()

    def as_dict(self) -> dict:
        """JSON-ready (stored with the turn, so slots can be replayed without parsing again)."""
        return asdict(self)


def spoken(hhmm: str) -> str:
    """'15:00' -> '3:00 pm' (for questions to a person)."""
    h, m = (int(x) for x in hhmm.split(":"))
    return f"{h % 12 or 12}:{m:02d} {'am' if h < 12 else 'pm'}"


def normalise(text: str) -> str:
    return re.sub(r"\s+", " ", text.translate(_APOSTROPHES).casefold()).strip()


def _mask(text: str, pattern: re.Pattern) -> str:
    return pattern.sub(lambda m: " " * (m.end() - m.start()), text)


def _clauses(text: str) -> list[tuple[int, int]]:
    spans, start = [], 0
    for m in _BOUNDARY.finditer(text):
        if m.start() > start:
            spans.append((start, m.start()))
        start = m.end()
    if start < len(text):
        spans.append((start, len(text)))
    return spans


def _clause_of(spans: list[tuple[int, int]], pos: int) -> tuple[int, int]:
    for start, end in spans:
        if start <= pos < end:
            return start, end
    return pos, pos


# --- times ----------------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class _Clock:
    value: str | None  # HH:MM when unambiguous
    candidates: tuple[str, ...] = ()  # when ambiguous
    invalid: bool = False
    hour: int | None = None  # the number said, for references
    meridiem: str | None = None


def _clock(m: re.Match, p: str = "", inherit_meridiem: str | None = None) -> _Clock:
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


def _flip(kind: str) -> str:
    return EARLIEST if kind == LATEST else LATEST


def _negated_before(masked: str, start: int, end: int) -> bool:
    return bool(_NEGATOR.search(masked, start, end))


def _time_phrases(text: str, masked: str, clauses: list[tuple[int, int]]):
    """(span, kind, _Clock) for every time phrase, in text order, and the spans taken. Ranges are read first;
    prefixed and suffixed phrases skip spans already taken. ``kind`` is None for a negated range."""
    taken: list[tuple[int, int]] = []

    def free(a: int, b: int) -> bool:
        return all(b <= s or a >= e for s, e in taken)

    found: list[tuple[tuple[int, int], str | None, _Clock | None]] = []
    for m in _RANGE.finditer(text):
        second = _clock(m, "b")
        first = _clock(m, "a")
        if first.value is None and first.candidates and first.meridiem is None and second.meridiem:
            inherited = _clock(m, "a", inherit_meridiem=second.meridiem)
            if inherited.value and second.value and inherited.value <= second.value:
                first = inherited
        c_start, _ = _clause_of(clauses, m.start())
        if _negated_before(masked, c_start, m.start()):
            found.append(((m.start(), m.end()), None, None))  # "not between 12 and 2": ask instead
        else:
            found.append(((m.start(), m.start() + 1), EARLIEST, first))
            found.append(((m.start() + 1, m.end()), LATEST, second))
        taken.append((m.start(), m.end()))
    last_end_by_clause: dict[int, int] = {}
    for m in _PREFIX.finditer(text):
        if not free(m.start(), m.end()):
            continue
        kind, atomic = _RELATIONS[m.group("rel")]
        c_start, _ = _clause_of(clauses, m.start())
        scope_start = max(c_start, last_end_by_clause.get(c_start, c_start))
        if not atomic and _negated_before(masked, scope_start, m.start()):
            kind = _flip(kind)
        last_end_by_clause[c_start] = m.end()
        found.append(((m.start(), m.end()), kind, _clock(m)))
        taken.append((m.start(), m.end()))
    for m in _SUFFIX.finditer(text):
        if not free(m.start(), m.end()):
            continue
        found.append(((m.start(), m.end()), _SUFFIX_KIND[m.group("suffix")], _clock(m)))
        taken.append((m.start(), m.end()))
    return sorted(found, key=lambda item: item[0]), taken


def parse_time_preferences(text: str) -> tuple[list[TimePreference], list[Clarification]]:
    """Time preferences with their direction, and clarifying questions for what cannot be read safely."""
    norm = normalise(text)
    masked = _mask(norm, _NOT_NEGATION)
    phrases, _ = _time_phrases(norm, masked, _clauses(norm))
    return _times_from(phrases)


def _times_from(phrases) -> tuple[list[TimePreference], list[Clarification]]:
    times: list[TimePreference] = []
    questions: list[Clarification] = []
    for _span, kind, clock in phrases:
        if kind is None or clock is None:
            questions.append(Clarification("negated_range", None))
        elif clock.value is not None:
            times.append(TimePreference(kind, clock.value))
        elif clock.candidates:
            questions.append(Clarification("ambiguous_time", kind, clock.candidates))
        else:
            questions.append(Clarification("invalid_time", kind))
    return times, questions


# --- the whole message ------------------------------------------------------------------------------------------

def _terms(text: str, masked: str, clauses, time_spans, pattern: re.Pattern, expand):
    """(positive, negative) values of day or period terms, in order of mention, each judged in its own clause."""
    positive: list[str] = []
    negative: list[str] = []
    not_pref = _mask(text, _NOT_A_PREFERENCE)
    for m in pattern.finditer(not_pref):
        values = expand(m)
        c_start, c_end = _clause_of(clauses, m.start())
        scope_start = max([c_start] + [e for s, e in time_spans if c_start <= s and e <= m.start()])
        negated = _negated_before(masked, scope_start, m.start()) or bool(_NEG_AFTER.match(masked[m.end():c_end]))
        for value in values:
            (negative if negated else positive).append(value)
    return positive, negative


def _expand_day(m: re.Match) -> list[str]:
    if m.group("group"):
        return ["saturday", "sunday"] if m.group("group").startswith("weekend") else list(DAYS[:5])
    day = m.group("day")
    return [_DAY_ALIASES.get(day, day)]


def _expand_period(m: re.Match) -> list[str]:
    return ["evening"] if m.group("tonight") else [m.group("period")]


def _unique(values) -> tuple:
    return tuple(dict.fromkeys(values))


def _intent(text: str, masked: str, clauses) -> str | None:
    found: set[str] = set()
    for m in _INTENT.finditer(text):
        c_start, _ = _clause_of(clauses, m.start())
        window_start = max(c_start, m.start() - 20)
        if _negated_before(masked, window_start, m.start()):
            continue  # "don't book me before 10" is a time preference, "I don't want to cancel" no cancellation
        found.add(m.lastgroup)
    if "reschedule" in found or {"cancel", "book"} <= found:
        return "reschedule"
    if "cancel" in found:
        return "cancel"
    return "book" if "book" in found else None


def _specialty(text: str, masked: str, clauses) -> str | None:
    chosen = None
    for m in _SPECIALTY.finditer(text):
        c_start, _ = _clause_of(clauses, m.start())
        if _negated_before(masked, max(c_start, m.start() - 12), m.start()):
            continue  # "dermatology, not cardiology"
        chosen = m.lastgroup
    return chosen


def _remarks(text: str) -> tuple[Remark, ...]:
    found: list[Remark] = []
    for category, urgent, pattern in _REMARKS:
        if pattern.search(text):
            found.append(Remark(category, urgent))
    categories = {r.category for r in found}
    if "medication_anticoagulant" in categories:  # the specific category covers the generic one
        found = [r for r in found if r.category != "medication"]
    if "urgent_symptom" in categories:
        found = [r for r in found if r.category != "symptom"]
    return tuple(found)


def _reference(text: str, masked: str, time_spans) -> Reference:
    outside = text
    for s, e in time_spans:
        outside = outside[:s] + " " * (e - s) + outside[e:]
    times: list[str] = []
    hours: list[int] = []
    for m in _ANY_CLOCK.finditer(outside):
        clock = _clock(m)
        if clock.value:
            times.append(clock.value)
        if clock.hour is not None and not m.group("word") and (clock.meridiem is None and m.group("m") is None):
            hours.append(clock.hour)
    ordinal = None
    if om := _ORDINAL.search(text):
        ordinal = _ORDINALS[om.group("o")]
    return Reference(slot_ids=_unique(m.group(0).replace("-", "") for m in _SLOT_ID.finditer(text)),
                     ordinal=ordinal, times=_unique(times), hours=_unique(hours),
                     acceptance=bool(_ACCEPTANCE.search(masked)))


def parse_turn(text: str) -> TurnParse:
    """Everything a patient's message says about the booking, in one pass. Never raises on any text."""
    norm = normalise(text)
    masked = _mask(norm, _NOT_NEGATION)
    clauses = _clauses(norm)
    phrases, time_spans = _time_phrases(norm, masked, clauses)
    times, questions = _times_from(phrases)
    pos_days, neg_days = _terms(norm, masked, clauses, time_spans, _DAY, _expand_day)
    # "3 in the afternoon" names a time; its "afternoon" is not a preference for the afternoon
    no_meridiem_times = _mask(norm, _CLOCK_WITH_PERIOD)
    pos_periods, neg_periods = _terms(no_meridiem_times, masked, clauses, time_spans, _PERIOD, _expand_period)
    meridiem = _meridiem_answer(norm)
    pos_periods, neg_periods = _prefer_first(norm, pos_periods, neg_periods, _PERIOD_WORD, _expand_period_word)
    pos_days, neg_days = _prefer_first(norm, pos_days, neg_days, _DAY_WORD, _expand_day_word)
    return TurnParse(
        intent=_intent(norm, masked, clauses),
        specialty=_specialty(norm, masked, clauses),
        visit_type=(v.lastgroup if (v := _VISIT.search(norm)) else None),
        preferred_days=_unique(d for d in pos_days if d not in neg_days),
        excluded_days=_unique(neg_days),
        preferred_periods=_unique(p for p in pos_periods if p not in neg_periods),
        excluded_periods=_unique(neg_periods),
        times=tuple(times),
        clarifications=tuple(questions),
        meridiem=meridiem,
        reference=_reference(norm, masked, time_spans),
        remarks=_remarks(norm),
    )


def _meridiem_answer(norm: str) -> str | None:
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


# --- preferences between alternatives ----------------------------------------------------------------------------

_PERIOD_WORD = r"(?:morning|afternoon|evening)s?|tonight|lunch ?time|after lunch"
_DAY_WORD = (r"(?:monday|tuesday|wednesday|thursday|friday|saturday|sunday|tues|thurs|weds)s?|weekends?"
             r"|weekdays?")
_GAP = r"[^.;!?]{0,40}?"
_SHORT = r"(?:\s+(?:the|a|an|in the|on|on a|on the|at|for|doing|coming in|coming|going|in)){0,3}\s+"
# (pattern, which group is preferred). {t} is the term pattern. Each names two alternatives and says which one
# comes first, so the one named last does not win by position.
_ALTERNATIVES = (
    (r"\b(?:prefer|preferring|preferably|like|want|fancy|choose|pick|take|do)\b" + _GAP + r"\b(?P<a>{t})\b" + _GAP
     + r"\b(?:to|over|rather than|more than|instead of|than|in preference to|ahead of|sooner than|not)\b"
     + r"(?:" + _SHORT + r"|\s+)(?P<b>{t})\b", "a"),
    (r"\b(?P<a>{t})\b" + _GAP + r"\b(?:better|easier|best|more convenient|preferable|nicer|handier|simpler|"
     r"good|suits? me more|work(?:s)? more)\b" + r"(?:\s+for me)?\s+(?:than|to)(?:" + _SHORT + r"|\s+)(?P<b>{t})\b",
     "a"),
    (r"\b(?P<a>{t})\b" + _GAP + r"\b(?:worse|harder|more difficult|less convenient|trickier|not as good|"
     r"less good|more awkward|more of a problem)\b(?:\s+for me)?\s+(?:than|as)(?:" + _SHORT + r"|\s+)(?P<b>{t})\b",
     "b"),
    (r"\brather\b" + _GAP + r"\b(?P<a>{t})\b" + _GAP + r"\bthan\b(?:" + _SHORT + r"|\s+)(?P<b>{t})\b", "a"),
    (r"\b(?P<a>{t})\b(?:\s+(?:is|are|would be|'s|'re))?\s+(?:over|rather than|instead of|in preference to|ahead of|"
     r"before|sooner than|then)(?:" + _SHORT + r"|\s+)(?P<b>{t})\b", "a"),
    (r"\b(?:ideally|preferably|if possible|first choice|best)\b" + _GAP + r"\b(?P<a>{t})\b" + _GAP
     + r"\b(?P<b>{t})\b", "a"),
    (r"\b(?P<a>{t})\b" + _GAP + r"\b(?:if (?:possible|you can|i can|there's one|available)|ideally|preferably|"
     r"first|by preference|for preference|my first choice|first choice)\b" + _GAP + r"\b(?P<b>{t})\b", "a"),
    (r"\b(?P<a>{t})\b" + _GAP + r"\b(?:or failing that|failing that|otherwise|if not|as a backup|at a push|"
     r"at a pinch|second choice|would also do|would do|as a last resort)\b" + _GAP + r"\b(?P<b>{t})\b", "a"),
    (r"\b(?P<b>{t})\b" + _GAP + r"\b(?:only if|if you have to|if i have to|if there's nothing|at a push|at a pinch|"
     r"as a last resort|as a backup|second choice)\b" + _GAP + r"\b(?P<a>{t})\b" + r"(?=" + _GAP
     + r"\b(?:first|preferably|ideally|is better|are better|if possible)\b)", "a"),
)
_ALTERNATIVE_PATTERNS = {
    key: tuple((re.compile(p.replace("{t}", t)), which) for p, which in _ALTERNATIVES)
    for key, t in (("period", _PERIOD_WORD), ("day", _DAY_WORD))}


def _expand_period_word(word: str) -> list[str]:
    if word.startswith("tonight"):
        return ["evening"]
    if "lunch" in word:
        return ["afternoon"]
    return [word.rstrip("s")]


def _expand_day_word(word: str) -> list[str]:
    if word.startswith("weekend"):
        return ["saturday", "sunday"]
    if word.startswith("weekday"):
        return list(DAYS[:5])
    word = word.rstrip("s") if word not in ("tues", "thurs", "weds") else word
    return [_DAY_ALIASES.get(word, word)]


def _prefer_first(norm: str, positive: list[str], negative: list[str], term: str, expand):
    """Preferences between alternatives ("mornings to afternoons", "rather X than Y", "X over Y", "X is better
    than Y", "Y is worse than X", "ideally X, otherwise Y"): the preferred one stays preferred and the other is
    no longer a preference (it is not excluded: it is the second choice). Nothing changes without such a
    construction."""
    key = "period" if term == _PERIOD_WORD else "day"
    masked = _mask(norm, _NOT_A_PREFERENCE)
    better: list[str] = []
    worse: list[str] = []
    for pattern, which in _ALTERNATIVE_PATTERNS[key]:
        for m in pattern.finditer(masked):
            a, b = expand(m.group("a")), expand(m.group("b"))
            first, second = (a, b) if which == "a" else (b, a)
            if set(first) & set(second):
                continue
            better.extend(first)
            worse.extend(second)
    if not better:
        return positive, negative
    preferred = [v for v in better if v not in negative]
    positive = preferred + [v for v in positive if v not in worse and v not in preferred]
    return positive, negative


# --- long-term preference proposals ---------------------------------------------------------------------------

def memory_facts(parsed: TurnParse | dict) -> list[dict]:
    """The typed ``scheduling_preference`` facts (memory.types) a turn states: earliest/latest times, excluded
    days and excluded periods. Preferred days and periods are about this booking, so they are not proposed; nor is
    anything that needed a clarifying question."""
    data = parsed.as_dict() if isinstance(parsed, TurnParse) else parsed
    facts: dict[str, dict] = {}
    for t in data.get("times", []):
        facts[t["kind"]] = {"kind": t["kind"], "time": t["time"]}  # the last statement of a kind wins
    if data.get("excluded_days"):
        facts["excluded_days"] = {"kind": "excluded_days",
                                  "days": sorted(set(data["excluded_days"]), key=DAYS.index)}
    if data.get("excluded_periods"):
        facts["excluded_periods"] = {"kind": "excluded_periods",
                                     "periods": sorted(set(data["excluded_periods"]), key=PERIODS.index)}
    return list(facts.values())
