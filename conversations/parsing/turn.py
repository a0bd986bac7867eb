"""The whole message in one pass (:func:`parse_turn`): intent, specialty, visit type, days, periods and times,
references to offered slots and clinical remarks; and the long-term preference proposals a turn states
(:func:`memory_facts`)."""

from __future__ import annotations

import re
from dataclasses import asdict, dataclass, field

from conversations.parsing.terms import (
    DAYS,
    DEGREE,
    NO_LONGER,
    PERIODS,
    booked_days,
    calendar_dates,
    day_period_terms,
    day_terms,
    names_a_day,
    period_terms,
    relative_days,
)
from conversations.parsing.text import (
    FINE_INSTEAD,
    NOT_NEGATION,
    clause_of,
    clause_spans,
    mask,
    negated_before,
    normalise,
)
from conversations.parsing.times import (
    ANY_CLOCK,
    THAT_TIME,
    VAGUE_TIME,
    Clarification,
    TimePreference,
    meridiem_answer,
    read_clock,
    time_phrases,
    times_from,
    unread_times,
)

INTENTS = ("book", "reschedule", "cancel")

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
    r"|(?P<cancel>\bcancel\w*|\bcall off"
    # an appointment that can no longer be made ("I can't make Thursday any more": its day is read out first)
    r"|" + NO_LONGER + r"\s+(?:any ?more|after all)\b|\b(?:can|could) no longer (?:make|do|attend|come|go)\b)"
    r"|(?P<book>\bbook\w*|\bschedul\w*|\bnew appointment"
    r"|\b(?:make|get|need|want|like|arrange) (?:an?|a new|another)(?: [a-z-]+){0,2} "
    r"(?:appointment|visit|consultation|follow-?up|check-?up)"
    r"|\bappointment with|\bsee (?:a|the|my) (?:doctor|specialist|\w+ologist))")
_VISIT = re.compile(r"(?P<followup>\bfollow[- ]?ups?\b|\bcheck[- ]?ups?\b|\breview\b)"
                    r"|(?P<new>\bnew patient\b|\bfirst (?:appointment|visit)\b"
                    r"|\binitial (?:appointment|consultation)\b)")

_SLOT_ID = re.compile(r"\b[a-z]{1,3}-?\d{1,4}\b")
_NTH = r"first|1st|second|2nd|third|3rd|fourth|4th|fifth|5th|last"
# a choice among the offers: "the second one", "2nd please" (the ordinal alone), "option 3" (never 3 o'clock)
_ORDINAL = re.compile(r"\bthe (?P<o>" + _NTH + r")\b(?: one| slot| option)?"
                      r"|^(?:(?:yes|yeah|ok|okay)[,.!]* )?(?P<alone>" + _NTH + r")(?: one| slot| option)?"
                      r"(?=[,.!]* *(?:please|thanks|thank you)?[.!]*$)"
                      r"|\b(?:option|number|choice) (?P<n>[1-9])\b(?![:.]\d)(?! ?(?:[ap]\.?m|o'?clock)\b)")
# "the 4pm instead of the 2pm": the one named after it is turned down
_TURNED_DOWN = re.compile(r"\b(?:instead of|rather than)\s+(?:the\s+)?$")
# The numbers of a list typed as one ("1. Monday 2. Tuesday", "1) Monday morning 2) Tuesday"): markers numbered
# from 1 in order, each before a word; they are neither hours nor a choice of offer
_LIST_MARKER = re.compile(r"(?:^|(?<=[\s:;,]))(?P<n>[1-9])[.)](?=\s*[a-z])")
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
        r"|\bsuicid\w*|\bkill myself\b|\boverdos\w*"
        # the usual ways of saying the same without those words: the chest, breathing, the signs of a stroke, harm to
        # oneself, too many tablets, a bleed or a seizure
        r"|\bchest (?:hurts|is hurting|(?:feels |is |going )?tight\w*|pressure)\b|\btight chest\b"
        r"|\bheart attack\b|\b(?:struggling|fighting) (?:to|for) (?:breathe|breath)\b|\bcan't catch my breath\b"
        r"|\bchoking\b|\bface (?:has |is )?(?:dropped|drooping|droops?|fallen)\b|\bslurr\w*"
        r"|\b(?:numb|weak)\w* (?:on|down) one side\b|\bcan't (?:lift|move|feel) (?:my )?(?:arm|leg|face)\b"
        r"|\bend (?:my life|it all)\b|\btake my (?:own )?life\b|\b(?:hurt|harm|cut)(?:ing)? myself\b"
        r"|\bself[- ]harm\w*|\b(?:want|wanting) to die\b|\bbetter off dead\b"
        r"|\bdon't want to (?:live|be alive|be here any ?more)\b"
        r"|\b(?:took|taken|swallowed) (?:too many|a lot of|loads of|all (?:my|of my|the)) (?:\w+ )?"
        r"(?:pills|tablets|meds)\b"
        r"|\b(?:won't|will not|can't) stop (?:the )?bleeding\b|\b(?:coughing|vomiting|throwing) up blood\b"
        r"|\b(?:coughing|vomiting) blood\b|\bworst (?:\w+ )?headache\b|\bheadache\w* (?:\w+ ){0,2}(?:worst|sudden)\b"
        r"|\bsudden (?:\w+ )?headache\b|\bthunderclap\b|\bseizures?\b|\bconvuls\w*"
        r"|\bcollapsed\b|\bunconscious\b|\bunresponsive\b|\bthroat (?:is )?(?:swelling|closing|tight)\b")),
    ("medication_anticoagulant", False, re.compile(
        r"\bblood[- ]thinn\w*|\banticoagula\w*|\bwarfarin\b|\bcoumadin\b|\bapixaban\b|\beliquis\b|\brivaroxaban\b"
        r"|\bxarelto\b|\bdabigatran\b|\bpradaxa\b|\bedoxaban\b|\bheparin\b|\benoxaparin\b|\bclopidogrel\b"
        r"|\bplavix\b")),
    ("allergy", False, re.compile(r"\ballerg\w*|\banaphyla\w*")),
    ("pregnancy", False, re.compile(r"\bpregnan\w*")),
    ("medication", False, re.compile(
        r"\b(?:taking|take|started|stopped|prescribed|using|on)\s+(?:\w+\s+){0,3}?"
        r"(?:medication|medicine|meds|pills?|tablets?|insulin|antibiotics?|steroids?|chemo\w*|\w+(?:pril|olol|statin|"
        r"sartan|cillin|mycin|azole|formin|prazole|dipine|oxetine))\b"
        r"|\b(?:run|running|ran) out of (?:my )?(?:medication|medicine|meds|pills|tablets|insulin|inhalers?)\b")),
    ("symptom", False, re.compile(
        r"\b(?:in pain|pain in (?:my|the) \w+|(?:back|stomach|joint|leg|arm|abdominal|knee|neck) pain|painful|"
        r"bleeding|bruis\w*|dizz\w*|nause\w*|vomit\w*|fever|rash|swelling|swollen|palpitations?|"
        r"headaches?|migraines?|infection|(?:had|have had) a fall|fell (?:over|down)"
        r"|i fell(?! asleep| for| behind| in love))\b")),
)


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
    either_times: tuple[str, ...] = ()  # both readings of "2:30" (02:30, 14:30): an offer at one of them is meant
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
    # of those, the ones refused for good ("I can't do Mondays", "I'm never free on a Tuesday"), which alone are
    # proposed as standing preferences; "I can't make Tuesday" is about this booking
    standing_excluded_days: tuple[str, ...] = ()
    standing_excluded_periods: tuple[str, ...] = ()
    # the kinds of time said with a day or a date in their clause ("I can't do Monday after 3pm", "tomorrow after
    # 2"): about that day, so never proposed as a standing time for every day
    day_bound_times: tuple[str, ...] = ()
    # a day and a part of the day said together ("not Monday morning"): {"day", "period"}, one constraint on both
    preferred_day_periods: tuple[dict, ...] = ()
    excluded_day_periods: tuple[dict, ...] = ()
    times: tuple[TimePreference, ...] = ()
    clarifications: tuple[Clarification, ...] = ()
    meridiem: str | None = None  # a bare "pm" / "in the afternoon" answer to a clarifying question
    # "any time is fine", "any day works": what was said before about the time of day, or the day, no longer holds
    any_time: bool = False
    any_day: bool = False
    # "Friday works too", "or Friday?": the days wanted are added to those wanted before, not put in their place
    also: bool = False
    reference: Reference = field(default_factory=Reference)
    remarks: tuple[Remark, ...] = ()

    def as_dict(self) -> dict:
        """JSON-ready (stored with the turn, so slots can be replayed without parsing again)."""
        return asdict(self)


def _unique(values) -> tuple:
    return tuple(dict.fromkeys(values))


def _intent(text: str, masked: str, clauses) -> str | None:
    found: set[str | None] = set()
    for m in _INTENT.finditer(text):
        c_start, _ = clause_of(clauses, m.start())
        window_start = max(c_start, m.start() - 20)
        if negated_before(masked, window_start, m.start()):
            continue  # "don't book me before 10" is a time preference, "I don't want to cancel" no cancellation
        found.add(m.lastgroup)
    if "reschedule" in found or {"cancel", "book"} <= found:
        return "reschedule"
    if "cancel" in found:
        return "cancel"
    return "book" if "book" in found else None


# Another time asked for beside a cancellation ("I won't make Tuesday after all, can we do Friday instead?", "cancel
# it, can I have another day?"): the appointment is moved, not only cancelled
_ANOTHER_TIME = re.compile(r"\binstead\b|\b(?:another|a different|a new|a later|an earlier|some other|other)"
                           r" (?:day|date|time|slot|appointment|week)s?\b")


def _specialty(text: str, masked: str, clauses) -> str | None:
    chosen = None
    for m in _SPECIALTY.finditer(text):
        c_start, _ = clause_of(clauses, m.start())
        if negated_before(masked, max(c_start, m.start() - 12), m.start()):
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


# What keeps "ok" or "sure" from accepting the one slot offered: a question or an alternative asked for ("ok, what
# else do you have?", "sure, but not that one", "sounds good but can I do 3pm instead?", "ok I'll think about it").
_HESITATION = re.compile(r"\?|\b(?:but|instead|else|another|other|different|later|earlier|think|maybe|perhaps|"
                         r"wait|hold on|not sure)\b")
# What makes a mention of an offered slot a rejection of it: "not the 4 o'clock one", "I can't make 16:00" (a
# negation before it in its clause), "the first one won't work", "10am is too early" (a negative predicate after
# it), and clock words that make the number part of another time ("quarter to 4", "half past 3").
_REJECTED_AFTER = re.compile(
    r"^(?:\s+(?:one|slot|option|appointment|o'clock))?(?:\s+(?:really|just|definitely|probably))?"
    r"(?:(?:'s|\s+is|\s+would be|\s+will be|\s+seems)\s+" + DEGREE + r"(?:too (?:early|late|soon)|no good|not\b|"
    r"out\b|bad\b|impossible|difficult|tricky|awkward|hard\b|inconvenient|a problem\b)"
    r"|\s+(?:isn't|won't|wouldn't|doesn't|does not|will not|would not|can't|cannot|is not|'s not|"
    r"too (?:early|late|soon))\b)")
_PART_OF_ANOTHER_TIME = re.compile(
    r"\b(?:(?:half|quarter|five|ten|twenty|twenty-five|\d{1,2}(?: minutes)?)\s+(?:past|to)|half)\s+$")


# "Actually, any time is fine", "I can come whenever", "any day works": lifts what was said before, but not "any time
# but mornings", "any time after 2", "any day except Monday" (a constraint), nor "not any time"
_ANY = r"(?!\s*(?:but|except|other than|apart from|after|before|from|between|until|till|in the|on|next|this)\b)"
_ANY_TIME = re.compile(r"\b(?:any ?time(?: of (?:the )?day)?|whenever|any hour)\b" + _ANY)
_ANY_DAY = re.compile(r"\b(?:any ?day(?: of the week)?|whichever day|any weekday or weekend)\b" + _ANY)


# "too", "as well", and "either" without an "or" after it; "either Monday or Tuesday" is a choice between them, which
# replaces the days wanted before
_ALSO = re.compile(r"\b(?:as well|also)\b|\beither\b(?![^.;!?]{0,40}?\bor\b)"
                   r"|\btoo\b(?!\s+(?:early|late|soon|far|much|bad|busy|long))"
                   r"|^\W*(?:or|and|plus)\b")


def _any(pattern: re.Pattern, text: str, masked: str, clauses) -> bool:
    for m in pattern.finditer(text):
        c_start, _ = clause_of(clauses, m.start())
        if not negated_before(masked, c_start, m.start()):
            return True
    return False


# A choice echoed as a question and refused at once: "3am? no way, pm", "Monday? no, Tuesday". What it names is
# neither chosen nor an answer, and its "no" negates nothing after it ("Monday? no mornings though" keeps its "no")
_REFUSED_ECHO = re.compile(
    r"(?:^|(?<=[.!?;,]))[^.!?;,]*\?\s*(?:(?:oh|god|hell|good god|ha|haha)[\s,]+)?"
    r"(?:no way|no chance|nope|nah|no|definitely not|absolutely not|of course not|not at all|certainly not"
    r"|not really|not great|not ideal|not good|no good|not for me|not possible)\b"
    r"(?=\s*(?:[,.!;]|$|(?:sorry|thanks|thank you)\b)|" + FINE_INSTEAD + r")[.!,]*")


def _list_markers(text: str) -> list[tuple[int, int]]:
    """The spans of a numbered list's markers: two or more, numbered 1, 2, ... in order (one alone may be an hour)."""
    markers = list(_LIST_MARKER.finditer(text))
    numbers = [int(m.group("n")) for m in markers]
    if len(markers) < 2 or numbers != list(range(1, len(markers) + 1)):
        return []
    return [m.span() for m in markers]


def _reference(text: str, masked: str, clauses, time_spans) -> Reference:
    def rejected(m: re.Match) -> bool:
        c_start, c_end = clause_of(clauses, m.start())
        return (negated_before(masked, c_start, m.start()) or bool(_REJECTED_AFTER.match(masked[m.end():c_end]))
                or _TURNED_DOWN.search(text, max(c_start, m.start() - 20), m.start()) is not None)

    outside = text
    chosen = [om for om in _ORDINAL.finditer(text) if not rejected(om)]
    for s, e in [*time_spans, *(om.span("n") for om in chosen if om.group("n")), *_list_markers(text)]:
        outside = outside[:s] + " " * (e - s) + outside[e:]
    times: list[str] = []
    hours: list[int] = []
    either: list[str] = []
    for m in ANY_CLOCK.finditer(outside):
        # the words before it only (such a phrase is a few words long; from the start of the message, each
        # mention re-read everything before it)
        if rejected(m) or _PART_OF_ANOTHER_TIME.search(outside, max(0, m.start() - 128), m.start()):
            continue
        clock = read_clock(m)
        if clock.value:
            times.append(clock.value)
        either.extend(clock.candidates)
        if clock.hour is not None and not m.group("word") and (clock.meridiem is None and m.group("m") is None):
            hours.append(clock.hour)
    ordinal = next((int(om.group("n")) if om.group("n") else _ORDINALS[om.group("o") or om.group("alone")]
                    for om in chosen), None)
    return Reference(slot_ids=_unique(m.group(0).replace("-", "") for m in _SLOT_ID.finditer(text)
                                      if not rejected(m)),
                     ordinal=ordinal, times=_unique(times), hours=_unique(hours), either_times=_unique(either),
                     acceptance=bool(_ACCEPTANCE.search(masked)) and not negated_before(masked, 0, len(masked))
                     and not _HESITATION.search(masked))


def _said_with_a_day(norm: str, clauses, pos: int, relative_spans) -> bool:
    c_start, c_end = clause_of(clauses, pos)
    return names_a_day(norm, c_start, c_end) or any(c_start <= s < c_end for s, _e in relative_spans)


def _pairs(pairs) -> tuple[dict, ...]:
    ordered = sorted(set(pairs), key=lambda dp: (DAYS.index(dp[0]), PERIODS.index(dp[1])))
    return tuple({"day": d, "period": p} for d, p in ordered)


def parse_turn(text: str) -> TurnParse:
    """Everything a patient's message says about the booking, in one pass. Never raises on any text."""
    said = normalise(text)
    norm, dated_by_calendar, date_or_time = calendar_dates(booked_days(mask(said, _REFUSED_ECHO)))
    masked = mask(norm, NOT_NEGATION)
    clauses = clause_spans(norm)
    phrases, time_spans = time_phrases(norm, masked, clauses)
    times, questions = times_from(phrases)
    if unread_times(norm, time_spans):
        questions.append(Clarification("unreadable_time", None))
    if not times and (VAGUE_TIME.search(norm) or any(  # "after lunch, so after 1pm" says its time
            ANY_CLOCK.search(norm, 0, m.start()) for m in THAT_TIME.finditer(norm))):
        questions.append(Clarification("vague_time", None))
    relative_spans, relative = relative_days(norm, masked, clauses)
    if relative or dated_by_calendar:
        questions.append(Clarification("relative_day", None))
    questions.extend(Clarification("date_or_time", None, (numbers,)) for numbers in date_or_time)
    dated = norm
    for s, e in relative_spans:
        dated = dated[:s] + " " * (e - s) + dated[e:]
    day_bound = _unique(kind for (start, _end), kind, _clock in phrases
                        if kind and _said_with_a_day(norm, clauses, start, relative_spans))
    pos_pairs, neg_pairs, pair_spans, unclear_pairs = day_period_terms(dated, masked, clauses, time_spans)
    if unclear_pairs:
        questions.append(Clarification("day_period_scope", None))
    apart = dated
    for s, e in pair_spans:
        apart = apart[:s] + " " * (e - s) + apart[e:]
    pos_days, neg_days, standing_days = day_terms(apart, masked, clauses, time_spans)
    pos_periods, neg_periods, standing_periods = period_terms(apart, masked, clauses, time_spans)
    pos_days = [d for d in pos_days if d not in neg_days]
    pos_periods = [p for p in pos_periods if p not in neg_periods]
    if pos_pairs:
        # "Tuesday morning or any time Thursday": one preference, so the day alone is every part of that day (and
        # a part of the day alone every day with it); kept apart, Tuesday afternoon would be offered
        pos_pairs += [(d, p) for d in pos_days for p in PERIODS] + [(d, p) for p in pos_periods for d in DAYS]
        pos_days, pos_periods = [], []
    pos_pairs = [(d, p) for d, p in pos_pairs if (d, p) not in neg_pairs and d not in neg_days
                 and p not in neg_periods]
    intent = _intent(norm, masked, clauses)
    if intent == "cancel" and (pos_days or pos_periods or pos_pairs or _any(_ANOTHER_TIME, norm, masked, clauses)):
        intent = "reschedule"
    return TurnParse(
        intent=intent,
        specialty=_specialty(norm, masked, clauses),
        visit_type=(v.lastgroup if (v := _VISIT.search(norm)) else None),
        preferred_days=_unique(pos_days),
        excluded_days=_unique(neg_days),
        preferred_periods=_unique(pos_periods),
        excluded_periods=_unique(neg_periods),
        standing_excluded_days=_unique(d for d in neg_days if d in standing_days),
        standing_excluded_periods=_unique(p for p in neg_periods if p in standing_periods),
        preferred_day_periods=_pairs(pos_pairs),
        excluded_day_periods=_pairs(neg_pairs),
        times=tuple(times),
        day_bound_times=day_bound,
        clarifications=tuple(questions),
        meridiem=meridiem_answer(norm),
        any_time=not (times or questions or pos_periods or neg_periods or pos_pairs or neg_pairs)
        and _any(_ANY_TIME, norm, masked, clauses),
        also=bool((pos_days or pos_pairs) and _ALSO.search(norm)),
        any_day=not (pos_days or neg_days or pos_pairs or neg_pairs) and _any(_ANY_DAY, norm, masked, clauses),
        reference=_reference(norm, masked, clauses, time_spans),
        remarks=_remarks(said),  # a clinical remark counts wherever it is said
    )


# --- long-term preference proposals ---------------------------------------------------------------------------

def memory_facts(parsed: TurnParse | dict) -> list[dict]:
    """The typed ``scheduling_preference`` facts (memory.types) a turn states: earliest/latest times, and the days
    and periods refused for good. Preferred days and periods are about this booking, so they are not proposed, nor
    is a day or period refused for this booking only ("I can't make Tuesday"), nor anything that needed a
    clarifying question, nor a day and a part of the day said together ("not Monday morning"): the type has no
    kind for the pair, and it must never be widened into every Monday or every morning. A turn read before the
    parser told the two refusals apart proposes no day or period (never a guess)."""
    data = parsed.as_dict() if isinstance(parsed, TurnParse) else parsed
    facts: dict[str, dict] = {}
    for t in data.get("times", []):
        if t["kind"] not in (data.get("day_bound_times") or ()):
            facts[t["kind"]] = {"kind": t["kind"], "time": t["time"]}  # the last statement of a kind wins
    if days := set(data.get("standing_excluded_days") or ()) & set(data.get("excluded_days") or ()):
        facts["excluded_days"] = {"kind": "excluded_days", "days": sorted(days, key=DAYS.index)}
    if periods := set(data.get("standing_excluded_periods") or ()) & set(data.get("excluded_periods") or ()):
        facts["excluded_periods"] = {"kind": "excluded_periods", "periods": sorted(periods, key=PERIODS.index)}
    return list(facts.values())


def this_booking_only(parsed: dict) -> list[str]:
    """The kinds a turn stated for this booking only, not for good: days and periods refused once
    (excluded_days, excluded_periods), and times said with a day (earliest_time, latest_time)."""
    times = {t["kind"] for t in parsed.get("times") or ()}
    return [*(kind for kind in ("excluded_days", "excluded_periods")
              if set(parsed.get(kind) or ()) - set(parsed.get(f"standing_{kind}") or ())),
            *(kind for kind in parsed.get("day_bound_times") or () if kind in times)]
