"""Days and periods of the day in a patient's message: which are wanted, which are excluded, and which of two
alternatives comes first."""

from __future__ import annotations

import re

from conversations.parsing.text import clause_of, mask, negated_before
from conversations.parsing.times import CLOCK_WITH_PERIOD, hours_of_a_window

DAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
PERIODS = ("morning", "afternoon", "evening")
# The clock hours of each period (slot start times), used to match offers against period constraints.
PERIOD_HOURS = {"morning": range(0, 12), "afternoon": range(12, 17), "evening": range(17, 24)}

# Words of degree or habit said before a refusal ("mornings are really bad", "Monday is usually impossible")
DEGREE = (r"(?:(?:really|just|generally|usually|always|normally|often|quite|very|pretty|so|a bit|kind of|kinda|"
          r"totally|completely|definitely|absolutely|honestly|basically|probably|also|still)\s+){0,2}")
# A negative predicate after a day or period: "mornings don't work", "Monday is out", "Mondays are impossible",
# "mornings are too early", "Mondays are a no", "Tuesday afternoon is out" (as "can't do Tuesday afternoon").
_NEG_AFTER = re.compile(
    r"(?:\s*(?:,\s*)?(?:\band\b|\bor\b|\bnor\b|&|/|,)\s*[a-z]+\b)*(?:\s+(?:morning|afternoon|evening|night)s?)?"
    r"(?:\s+(?:really|just|generally|usually|always))?"
    r"(?:(?:'s|'re|\s+is|\s+are)\s+" + DEGREE + r"(?:out|impossible|bad|difficult|tricky|awkward|hard|"
    r"inconvenient|no good|not\b|never\b|too (?:early|late|soon)\b|a no\b|a no-go\b|a problem\b|an issue\b"
    r"|a pain\b|a nightmare\b)"
    r"|\s+(?:isn't|aren't|won't|wouldn't|don't|doesn't|do not|does not|will not|would not|never)\b"
    # said without a verb, as in a text: "mornings no good", "Monday not possible", and answered with a bare no
    # ("wednesdays no", "monday - nope", "mornings no thanks"; never "monday no problem", masked, or "no mornings")
    r"|\s+(?:no good|not good|not possible|not ideal|not great|not an option|no chance|impossible)\b"
    r"|\s*(?:[-:\u2013]\s*)?\b(?:no|nope|nah|no way)(?:\s+(?:thanks|thank you|sorry))?(?=\s*(?:$|\band\b|\bbut\b)))")
# full names, then the usual short forms ("Mon or Wed", "not Fri"); "sat" and "sun" are words of their own
_SHORT_DAYS = r"tues|tue|thurs|thur|thu|weds|wed|mon|fri"
_ONE_DAY = r"monday|tuesday|wednesday|thursday|friday|saturday|sunday|" + _SHORT_DAYS
# "Monday to Friday" is every day from one to the other, not the two named
_DAY = re.compile(r"\b(?P<first>" + _ONE_DAY + r")s?\s*(?P<to>to|through|thru|till|until|-|\u2013)\s*(?P<last>"
                  + _ONE_DAY + r")s?\b"
                  r"|\b(?P<day>" + _ONE_DAY + r")s?\b|\b(?P<group>weekends?|weekdays?)\b")
# A list after a term is a few words long: read to the end of the clause, each term of a long list read the rest of
# it again (quadratic; "monday or " 800 times took seconds)
_AFTER_WINDOW = 160


def _negated_after(masked: str, start: int, clause_end: int) -> bool:
    return _NEG_AFTER.match(masked, start, min(clause_end, start + _AFTER_WINDOW)) is not None


_DAY_ALIASES = {"tues": "tuesday", "tue": "tuesday", "thurs": "thursday", "thur": "thursday", "thu": "thursday",
                "weds": "wednesday", "wed": "wednesday", "mon": "monday", "fri": "friday"}
_PERIOD = re.compile(r"\b(?P<period>morning|afternoon|evening)s?\b|\b(?P<tonight>tonight)\b")
# Mentions of a day or period that are not about the appointment.
_NOT_A_PREFERENCE = re.compile(
    r"\bgood (?:morning|afternoon|evening)\b|\b(?:this|yesterday|last) (?:morning|afternoon|evening)\b"
    r"|\blast (?:monday|tuesday|wednesday|thursday|friday|saturday|sunday)\b|\byesterday\b"
    r"|\b(?:morning|afternoon|evening) (?:medication|meds|medicine|routine|shift|walk|run|coffee|pills?|tablets?|"
    r"dose|injection|traffic|rush|school|class|classes|job|work)\b"
    # doubt is neither a wish nor a refusal: "not sure about Monday"
    r"|\b(?:not sure|unsure|don't know|no idea) (?:about|if|whether|on|of) (?:the |a |an )?[a-z]+\b")


_TIME_NEXT = re.compile(r"\s*(?:(?:only|just|any ?time)\s+)?")

# A refusal said for good, not for this one booking: in the plural ("I can't do Mondays", "no mornings"), with
# "every", "any", "on a" or "in the" ("I'm never free on a Tuesday", "not in the morning"), or with a word of habit in
# its clause ("I can never do Monday", "Monday is usually impossible"). "I can't make Tuesday", "not Monday" and
# "Friday is out" are about this booking: the slots exclude them, no standing preference is proposed
_STANDING_BEFORE = re.compile(r"\b(?:every|any|each|all|on an?|in the)\s+$")
_HABITUAL = re.compile(r"\b(?:never|always|usually|normally|generally|typically|ever|regularly|in general|as a rule"
                       r"|(?:each|every|most) weeks?|any ?more|no longer)\b")


def _standing(text: str, m: re.Match, clause: tuple[int, int]) -> bool:
    said = m.group(0)
    return (said.endswith("s") and not said.endswith(("tues", "thurs", "weds"))
            or _STANDING_BEFORE.search(text, max(clause[0], m.start() - 12), m.start()) is not None
            or _HABITUAL.search(text, *clause) is not None)


def _terms(text: str, masked: str, clauses, time_spans, pattern: re.Pattern, expand, *, bounded_by_time=False):
    """(positive, negative, standing) values of day or period terms, in order of mention, each judged in its own
    clause; ``standing``: the negative ones refused for good (:func:`_standing`). ``bounded_by_time``: a term
    refused with the time that bounds it ("no mornings before 10") refuses that time, not the whole term (the time
    phrase says it: from 10 on)."""
    positive: list[str] = []
    negative: list[str] = []
    standing: list[str] = []
    not_pref = mask(text, _NOT_A_PREFERENCE)
    for m in pattern.finditer(not_pref):
        values = expand(m)
        c_start, c_end = clause_of(clauses, m.start())
        scope_start = max([c_start] + [e for s, e in time_spans if c_start <= s and e <= m.start()])
        negated = negated_before(masked, scope_start, m.start()) or bool(_negated_after(masked, m.end(), c_end))
        bound = next((e for s, e in time_spans if s >= m.end() and _TIME_NEXT.fullmatch(text, m.end(), s)),
                     None) if bounded_by_time else None
        if bound is not None and (negated or _negated_after(masked, bound, c_end)):
            continue
        for value in values:
            (negative if negated else positive).append(value)
        if negated and _standing(not_pref, m, (c_start, c_end)):
            standing.extend(values)
    return positive, negative, standing


_PREFERRING = re.compile(r"\b(?:prefer\w*|rather|like)\b")


def _expand_day(m: re.Match) -> list[str]:
    if m.group("first") and m.group("to") == "to" and _PREFERRING.search(m.string, max(0, m.start() - 40), m.start()):
        return [_DAY_ALIASES.get(m.group(g), m.group(g)) for g in ("first", "last")]  # "I prefer Monday to Friday"
    if m.group("first"):
        first, last = (DAYS.index(_DAY_ALIASES.get(m.group(g), m.group(g))) for g in ("first", "last"))
        return [DAYS[(first + i) % 7] for i in range((last - first) % 7 + 1)]
    if m.group("group"):
        return ["saturday", "sunday"] if m.group("group").startswith("weekend") else list(DAYS[:5])
    day = m.group("day")
    return [_DAY_ALIASES.get(day, day)]


def _expand_period(m: re.Match) -> list[str]:
    return ["evening"] if m.group("tonight") else [m.group("period")]


# --- preferences between alternatives ----------------------------------------------------------------------------

_PERIOD_WORD = r"(?:morning|afternoon|evening)s?|tonight|lunch ?time|after lunch"
_DAY_WORD = (r"(?:monday|tuesday|wednesday|thursday|friday|saturday|sunday|" + _SHORT_DAYS + r")s?|weekends?"
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
    word = word if word in DAYS else _DAY_ALIASES.get(word, word)
    return [_DAY_ALIASES.get(word, word)]


def _prefer_first(norm: str, positive: list[str], negative: list[str], term: str, expand):
    """Preferences between alternatives ("mornings to afternoons", "rather X than Y", "X over Y", "X is better
    than Y", "Y is worse than X", "ideally X, otherwise Y"): the preferred one stays preferred and the other is
    no longer a preference (it is not excluded: it is the second choice). Nothing changes without such a
    construction."""
    key = "period" if term == _PERIOD_WORD else "day"
    masked = mask(norm, _NOT_A_PREFERENCE)
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


# --- a day and a part of the day said together -------------------------------------------------------------------

# "Monday morning", "Tuesday afternoons", "weekday mornings", "Friday in the afternoon": one constraint on both, never
# "every Monday" and "every morning" apart
# "Tuesday and Thursday mornings", "Tuesday or Thursday morning": the days listed before it share the part of the day
# (read back from the day before the part of the day, one listed day at a time: a list matched ahead of it was tried
# again from every day of a long list, and "monday or " 800 times took seconds to read)
_LISTED_BEFORE = re.compile(r"\b(" + _ONE_DAY + r")s?\b\s*(?:,\s*)?(?:\band\b|\bor\b|&|/|,)\s*$")
# "Tuesday afternoon or evening" is both parts of Tuesday (never every evening), and "Thursday pm", "Mon am" name
# the half of the day (pm: the afternoon and the evening)
_DAY_PERIOD = re.compile(r"(?:" + _DAY.pattern
                         + r")\s+(?:in the\s+)?(?:(?P<period>morning|afternoon|evening)s?\b"
                         r"|(?P<half>a\.m\.?|p\.m\.?|am|pm)(?![\w.]))"
                         r"(?P<more>(?:\s*(?:,|and|or|&|/)\s*(?:in the\s+)?(?:morning|afternoon|evening)s?\b)*)")
_HALVES = {"a": ("morning",), "p": ("afternoon", "evening")}


def _listed_before(text: str, start: int, since: int) -> tuple[list[str], int]:
    """The days listed just before ``start`` (not before ``since``), and where the list starts."""
    listed: list[str] = []
    while (m := _LISTED_BEFORE.search(text, max(since, start - 32), start)) is not None:
        listed.insert(0, _DAY_ALIASES.get(m.group(1), m.group(1)))
        start = m.start()
    return listed, start


# "any time Tuesday or Wednesday morning": any time may be all of Tuesday (the morning Wednesday's only) or the
# mornings of both; either reading would be a guess
_ANY_TIME_BEFORE = re.compile(r"\b(?:any ?time|whenever|all day|any time of (?:the )?day)(?: on)?\s*$")


def day_period_terms(norm: str, masked: str, clauses, time_spans):
    """(positive, negative, spans, unclear): the (day, period) pairs said together, in order of mention, each
    judged in its own clause as a day or a period is, and the spans they take (no longer read as a day and a
    period apart); ``unclear`` when a list of days after "any time" ends in a part of the day, which is then
    asked about and read as nothing."""
    positive: list[tuple[str, str]] = []
    negative: list[tuple[str, str]] = []
    spans: list[tuple[int, int]] = []
    unclear = False
    not_pref = mask(norm, _NOT_A_PREFERENCE)
    for m in _DAY_PERIOD.finditer(not_pref):
        # within its clause: a comma ends one unless it is inside a list (text.clause_spans), so "Monday, Tuesday
        # afternoon" is all Monday and "Monday, Tuesday or Wednesday afternoon" three afternoons
        listed, start = _listed_before(not_pref, m.start(), max(clause_of(clauses, m.start())[0],
                                                                  spans[-1][1] if spans else 0))
        if listed and _ANY_TIME_BEFORE.search(not_pref, max(0, start - 32), start):
            unclear = True
            spans.append((start, m.end()))
            continue
        c_start, c_end = clause_of(clauses, start)
        scope_start = max([c_start] + [e for s, e in time_spans if c_start <= s and e <= start])
        negated = negated_before(masked, scope_start, start) or bool(_negated_after(masked, m.end(), c_end))
        periods = (*(_HALVES[m.group("half")[0]] if m.group("half") else (m.group("period"),)),
                   *(more.group("period") for more in _PERIOD.finditer(m.group("more") or "")))
        for day in [*listed, *_expand_day(m)]:
            for period in dict.fromkeys(periods):
                (negative if negated else positive).append((day, period))
        spans.append((start, m.end()))
    return positive, negative, spans, unclear


# --- days said relative to today ------------------------------------------------------------------------------

# Slots hold weekdays, not dates: "tomorrow" or "next week" cannot be matched to an offer, and a day refused with its
# week ("not this Monday") is one date, never every Monday
# (a week typed "wk"; "the week after next", "a fortnight", "the end of the month" and "early next month" too)
_WK = r"(?:week|wk)"
_RELATIVE = re.compile(
    r"\b(?:(?:the )?day after tomorrow|tomorrow|today"
    r"|(?:this|next|the following|the coming) (?:" + _WK + r"|weekend|month)s?"
    r"|in (?:a|one|two|three|four|a couple of|\d{1,2}) (?:days?|" + _WK + r"s?|fortnights?|months?)(?: time)?"
    r"|(?:a|one|two|three|\d{1,2}) (?:" + _WK + r"s?|fortnights?|months?) (?:from )?(?:today|now|time)"
    r"|(?:in )?a fortnight|(?:the )?(?:" + _WK + r"|weekend|month) after next|(?:" + _ONE_DAY + r")s? after next"
    r"|(?:the )?(?:end|start|beginning|middle) of (?:the|this|next) (?:" + _WK + r"|month)"
    r"|(?:early|late|mid|later|earlier)[- ]?(?:this|next) (?:" + _WK + r"|month)"
    # "Friday week", "a week on Friday": the Friday after next, a date (never this week's Friday)
    r"|(?:" + _ONE_DAY + r")s? week(?! ?(?:day|end))|a week (?:on |from |this |next )?(?:" + _ONE_DAY + r")s?)"
    r"(?:\s+(?:morning|afternoon|evening|night)s?)?\b")
_WEEK_DAY = re.compile(r"\b(?:this coming|this|next|the following|the coming|coming)\s+(?:" + _ONE_DAY + r")s?\b"
                       r"(?:\s+(?:in the\s+)?(?:morning|afternoon|evening)s?\b)?"
                       r"|\b(?:" + _ONE_DAY + r")s?\s+(?:next|this) week\b")


# A calendar date ("the 14th", "14 December", "14/12", "in March") cannot be matched to a weekday either, and its
# numbers are no clock times ("on 14 December" is not 14:00) and no choice among offers ("on the 3rd" is a date; "the
# 3rd one" and "I'll take the 3rd" stay a choice)
_D = r"(?:3[01]|[12][0-9]|0?[1-9])"
_NTH = r"(?:st|nd|rd|th)"
_MONTH = (r"(?:january|february|march|april|may|june|july|august|september|october|november|december"
          r"|jan|feb|mar|apr|jun|jul|aug|sept|sep|oct|nov|dec)\.?(?![a-z])")
_NOT_A_CHOICE = r"(?!\s+(?:one|slot|option|appointment|choice|offer|time|floor)\b)"
_AFTER_A_DATE_WORD = "|".join(f"(?<=\\b{word} )" for word in (
    "on", "after", "before", "by", "from", "until", "till", "til", "for", "except", "but", "not", "around", "only"))
_CALENDAR_DATE = re.compile(
    r"\b" + _D + _NTH + r"?(?:\s+of)?\s+" + _MONTH  # 14 December, the 3rd of May
    + r"|\b" + _MONTH + r"\s+(?:the\s+)?" + _D + _NTH + r"?\b"  # December 14th
    + r"|\b(?:january|february|march|april|june|july|august|september|october|november|december)\b"  # "may" is a verb
    + r"|(?:" + _AFTER_A_DATE_WORD + r")(?:the\s+)?" + _D + _NTH + r"\b" + _NOT_A_CHOICE  # on the 3rd, after 20th
    + r"|\bthe\s+(?:3[01]|[12][0-9]|[6-9])" + _NTH + r"\b" + _NOT_A_CHOICE  # the 14th (offers are fewer)
    # 14/12, 14/12/2026, and 12/14 as the month first (a slash never writes a time)
    + r"|\b(?!24/7\b)(?:" + _D + r"/(?:1[0-2]|0?[1-9])|(?:1[0-2]|0?[1-9])/" + _D + r")(?:/(?:[0-9]{4}|[0-9]{2}))?\b"
    + r"|\b" + _D + r"\.(?:1[0-2]|0?[1-9])\.(?:[0-9]{4}|[0-9]{2})\b"  # 14.12.2026
    + r"|\b[0-9]{4}-[0-9]{2}-[0-9]{2}\b"
    + r"|\b" + _D + r"-(?:1[0-2]|0?[1-9])-(?:[0-9]{4}|[0-9]{2})\b")  # 14-12-2026


# The appointment the patient already has, named by its day ("move my Tuesday appointment to Thursday", "cancel
# Tuesday's appointment", "I have an appointment on Wednesday already"): where it is, never when they can come.
# Only the day (and its time) is blanked; "move my appointment" still says what they want. "The Tuesday one" and
# "an appointment on Friday, please" are choices and wishes, not an appointment held
# one appointment's day (and time), or a short list of them ending in and/or: "my Tuesday and Wednesday appointments"
# (at most eight: every day of a longer comma list began a search to its end, quadratic in the message)
_ONE_WHEN = (r"(?:this |next |on |on the )?(?:" + _ONE_DAY + r")(?:'?s)?(?: (?:morning|afternoon|evening))?"
             r"(?: (?:at )?\d{1,2}(?:[:.]\d{2})? ?(?:[ap]\.?m\.?)?)?")
_WHEN_SAID = (r"(?P<when>" + _ONE_WHEN + r"(?:(?:, " + _ONE_WHEN + r"){0,6},? (?:and|or|&) " + _ONE_WHEN + r")?)")
_HELD_WORDS = r"appointment|appt|booking|visit|clinic"
_HELD = r"(?:" + _HELD_WORDS + r")s?"
NO_LONGER = (r"\b(?:can't|cannot|can not|couldn't|could not|won't|will not|won't be able to|will not be able to"
             r"|(?:am|i'm) not (?:able|going) to|unable to|not gonna) (?:make|do|attend|come(?: in)?|go)"
             r"(?: (?:it|to it))?(?: on)?")
_BOOKED = (
    re.compile(r"\b(?:my|our|his|her|their|the (?:current|existing|booked|original)) (?:current |existing |usual |"
               r"booked |original )?" + _WHEN_SAID + r" " + _HELD + r"\b"),
    re.compile(r"\b" + _WHEN_SAID.replace("(?:'?s)?", "'s") + r" " + _HELD + r"\b"),
    re.compile(r"\b(?:(?:my|our|his|her|their) " + _HELD + r"|(?:have|had|got|booked|already have) (?:an?|my) "
               + _HELD + r") (?:on|for) " + _WHEN_SAID),
    # what is cancelled is held: "cancel Tuesday", "cancel my Thursday 10am", "cancel the one on Friday"
    re.compile(r"\b(?:cancel\w*|call off)(?: (?:my|our|the|that|this))?(?: (?:one|" + _HELD_WORDS + r"))?"
               r"(?: (?:on|for))? " + _WHEN_SAID + r"\b"),
    # so is a day that can no longer be made: "I can't make Thursday any more", "I can no longer do Tuesday"
    re.compile(NO_LONGER + r" " + _WHEN_SAID + r"(?= (?:any ?more|after all)\b)"),
    re.compile(r"\b(?:can|could) no longer " + NO_LONGER[NO_LONGER.index("(?:make"):] + r" " + _WHEN_SAID),
)


def names_a_day(text: str, start: int, end: int) -> bool:
    """Whether a day of the week (or a range or group of days) is named between ``start`` and ``end``."""
    return _DAY.search(text, start, end) is not None


def booked_days(norm: str) -> str:
    """``norm`` without the day (and time) of the appointment the patient already has ("move my appointment to
    Thursday" is left of "move my Tuesday appointment to Thursday"), read before anything else so no position
    shifts under a later reader."""
    for pattern in _BOOKED:
        norm = pattern.sub(lambda m: m.group(0)[:m.start("when") - m.start()].rstrip() + " "
                           + m.group(0)[m.end("when") - m.start():].lstrip(), norm)
    return norm


# Two numbers that may be a date or times ("on 12-14": the 14th of December, or 12:00 to 14:00; "on 14.12": the 14th
# of December, or 14:12), said where a date is said (after on, the, for, by, until, except), are asked about
# (date_or_time); readable only as a date ("on 12-25") they are one. Elsewhere ("12-14", "on Tuesday 12-14",
# "between 12-14", "12:00-14:00", "the 10-12 slot") they stay times, as a bare range of hours is
_DATE_WORD_BEFORE = "|".join(f"(?<=\\b{word} )" for word in (
    "on", "the", "for", "by", "until", "till", "til", "except"))
_TWO_NUMBERS = re.compile(
    r"(?:" + _DATE_WORD_BEFORE + r")(?P<a>\d{1,2})(?P<sep>[-.])(?P<b>\d{1,2})(?![\w:/]|[-.]\d)"
    r"(?!\s*(?:[ap]\.?m\b|o'?clock\b|hrs?\b|hours?\b|mins?\b|minutes?\b))" + _NOT_A_CHOICE)


def _two_numbers(m: re.Match) -> str | None:
    """"date", "both" (a date, or a time) or None (no date) for two numbers said where a date is said."""
    a, b = int(m.group("a")), int(m.group("b"))
    if m.group("sep") == ".":  # day and month ("14.12"), or hours and minutes ("14.12", "10.30")
        date, time = 1 <= a <= 31 and 1 <= b <= 12, a <= 23 and len(m.group("b")) == 2
    else:  # either order ("14-12", "12-14"), or a window of hours in order ("10-12")
        date, time = 1 <= a <= 31 and 1 <= b <= 12 or 1 <= a <= 12 and 1 <= b <= 31, hours_of_a_window(a, b)
    return ("both" if time else "date") if date else None


def calendar_dates(norm: str) -> tuple[str, bool, list[str]]:
    """``norm`` with its calendar dates blanked out (so nothing reads their numbers as times, choices or
    weekdays), whether there were any (a question, never a guess: offers are matched by weekday), and the numbers
    that may be a date or times, as written (blanked too, and asked about)."""
    read: list[tuple[str, str]] = []

    def blank(m: re.Match) -> str:
        kind = _two_numbers(m)
        if kind is None:
            return m.group(0)
        read.append((kind, m.group(0)))
        return " " * len(m.group(0))

    numbers_read = _TWO_NUMBERS.sub(blank, norm)
    blanked = mask(numbers_read, _CALENDAR_DATE)
    return (blanked, blanked != numbers_read or any(kind == "date" for kind, _ in read),
            [said for kind, said in read if kind == "both"])


# A day as a point in time ("away until Friday", "any day after Tuesday", "not before Wednesday", "from Monday"):
# the days before or after it in which week is a date range, never that weekday wanted or refused ("after Tuesday"
# preferred Tuesday). "Monday to Friday" and "from Monday to Wednesday" stay the days they name
_DAY_AS_A_POINT = re.compile(
    r"\b(?:until|till|til|up to|before|after|from|since)\s+(?:this |next |the )?(?:" + _ONE_DAY + r")(?:'?s)?\b"
    r"(?!\s*(?:to|through|thru|till|until|-|\u2013|and|or)\s*(?:" + _ONE_DAY + r"))")

# "this afternoon please" asks for today, a date (as "today in the afternoon" and "tomorrow afternoon" are); said
# of the past ("I took my pills this morning", "she called this afternoon") it is no request and names nothing
_THIS_PART_OF_DAY = re.compile(r"\bthis (?:morning|afternoon|evening)\b")
_SAID_OF_THE_PAST = re.compile(
    r"\b(?:was|were|had|did|didn't|took|rang|spoke|saw|went|came|got|left|ate|felt|woke|slept|forgot|fell|began"
    r"|i've|we've|she's|he's|has|have been|\w{3,}ed)\b")
_SINCE = re.compile(r"\b(?:since|as of)\s+$")  # "pain since this morning" (a new clause)


def relative_days(norm: str, masked: str, clauses) -> tuple[list[tuple[int, int]], bool]:
    """(spans, ask): what names a date rather than a weekday ("tomorrow", "next week", "in two weeks") and a day
    refused with its week ("not this Monday"), so neither is read as a weekday or a part of the day; ``ask`` when
    there is any (a question, never a guess). A day wanted with its week ("next Monday") stays that weekday."""
    spans = [(m.start(), m.end()) for pattern in (_RELATIVE, _DAY_AS_A_POINT) for m in pattern.finditer(norm)]
    for m in _WEEK_DAY.finditer(norm):
        c_start, c_end = clause_of(clauses, m.start())
        if negated_before(masked, c_start, m.start()) or _negated_after(masked, m.end(), c_end):
            spans.append((m.start(), m.end()))
    for m in _THIS_PART_OF_DAY.finditer(norm):
        c_start, _c_end = clause_of(clauses, m.start())
        if not (_SAID_OF_THE_PAST.search(norm, c_start, m.start()) or _SINCE.search(norm, 0, m.start())):
            spans.append((m.start(), m.end()))
    return spans, bool(spans)


def day_terms(norm: str, masked: str, clauses, time_spans) -> tuple[list[str], list[str], list[str]]:
    """(positive, negative, standing) days in order of mention, the first of two alternatives put first;
    ``standing``: the negative ones refused for good."""
    # "I can't do Monday after 3pm": the time phrase carries the refusal, not all of Monday
    positive, negative, standing = _terms(norm, masked, clauses, time_spans, _DAY, _expand_day,
                                          bounded_by_time=True)
    return (*_prefer_first(norm, positive, negative, _DAY_WORD, _expand_day_word), standing)


def period_terms(norm: str, masked: str, clauses, time_spans) -> tuple[list[str], list[str], list[str]]:
    """(positive, negative, standing) periods in order of mention, the first of two alternatives put first;
    ``standing``: the negative ones refused for good."""
    # "3 in the afternoon" names a time; its "afternoon" is not a preference for the afternoon
    no_meridiem_times = mask(norm, CLOCK_WITH_PERIOD)
    positive, negative, standing = _terms(no_meridiem_times, masked, clauses, time_spans, _PERIOD, _expand_period,
                                          bounded_by_time=True)
    return (*_prefer_first(norm, positive, negative, _PERIOD_WORD, _expand_period_word), standing)
