"""Normalised text, clauses and the scope of negation: how every part of the parser reads a message.

A negation reaches to the end of its clause and no further, and phrases such as "don't mind" that contain a
negator word but do not negate are masked out before anything looks for one.
"""

from __future__ import annotations

import bisect
import functools
import re
import threading

_APOSTROPHES = str.maketrans({"\u2019": "'", "\u2018": "'", "`": "'",
                              # a tick or a cross as typed after a day ("Tue \u2713 Wed \u2717"): yes and no
                              **dict.fromkeys("\u2713\u2714\u2705\U0001F44D", " yes "),
                              **dict.fromkeys("\u2717\u2718\u274c\u274e\U0001F44E\U0001F6AB\u26d4", " no ")})

# A new clause's subject: "and" or "but" before one starts a clause.
_SUBJECT = r"\s+(?:i|i'm|i've|i'd|i'll|we|my|it|it's|that|this|they|he|she|you|please)\b"
_CLAUSE_START = r"(?=" + _SUBJECT + r")"
# "anything but mornings", "any time but mornings", "every day but Monday": one negation, not a boundary (unless a
# new clause follows: "any day but I need the afternoon").
_ANY_BUT = r"(?:anything|everything|any ?time|any day|every ?day|all days|whenever) but\b(?!" + _SUBJECT + r")"

# Clause boundaries: negation never reaches across them.
_BOUNDARY = re.compile(
    r"[;!?\n]|\.(?=\s|$)|,"
    r"|\bbut\b" + _CLAUSE_START + r"|(?<!anything )(?<!everything )(?<!any time )(?<!anytime )(?<!any day )"
    r"(?<!every day )(?<!everyday )(?<!all days )(?<!whenever )\bbut\b"
    r"|\b(?:however|whereas|although|though|because|since|so|then|unless|"
    r"otherwise)\b"
    r"|\band\b" + _CLAUSE_START)

_NEGATOR = re.compile(
    r"\b" + _ANY_BUT + r"|\b(?:can't|cant|cannot|can not|couldn't|could not|won't|will not|wouldn't|would not|"
    r"unable to|not|no|never|neither|don't|dont|do not|doesn't|does not|isn't|aren't|nothing|none|except|excluding|"
    r"avoid|other than|apart from|without|busy|unavailable|tied up|at work|away|on holiday|on vacation)\b"
    # the usual negations of other languages, so a time quoted in one is never taken as a choice ("nicht um 16 Uhr")
    r"|\b(?:nicht|kein|keine|keinen|nein|pas|nie|não|nao)\b"
    # "I work until 5pm" is busy until 5pm (an earliest time), but "I work best in the mornings" is no negation
    r"|\b(?:i|we)(?: work|'m working| am working|'re working| are working)\b(?! (?:best|better|well)\b)"
    r"|\b(?:i|we)(?: have|'ve got| have got) work\b")
_DAY_NAME = (r"(?:monday|tuesday|wednesday|thursday|friday|saturday|sunday|tues|tue|thurs|thur|thu|weds|wed|mon|fri"
             r"|sat|sun)")
_DAY_WORD = _DAY_NAME + "s?"
# "no Tuesday is fine" typed without its comma: a "no" that opens the message or a sentence, before one day or
# part of the day said to be fine, answers the question asked ("no, Tuesday is fine"); it refuses nothing
FINE_INSTEAD = (r",?\s+(?:the\s+|on\s+)?(?:" + _DAY_NAME + r"(?:\s+(?:morning|afternoon|evening))?"
                r"|morning|afternoon|evening)\b\s+(?:(?:is|'s|would be|will be|sounds|seems|looks)\s+)?"
                r"(?:fine|good|ok|okay|better|best|great|perfect|works?|suits?|would work)\b")
_NO_THEN_FINE = r"(?:^|(?<=[.!?;]\s))(?:no|nope|nah)\b(?=" + FINE_INSTEAD + ")"
# Phrases that contain a negator word but do not negate what follows.
NOT_NEGATION = re.compile(
    r"\b(?:don't|dont|do not|doesn't|does not|wouldn't|would not|never) mind\b|\bno problem\b|\bnot a problem\b"
    r"|\bnot only\b|\bno matter\b|\bnot sure\b|\bno idea\b|\bcan't you\b|\bcouldn't you\b|\bisn't there\b"
    r"|\baren't there\b|\bdon't you\b|\bdo you not\b|\bis there nothing\b|\bhaven't you\b|\bno worries\b"
    # an alternative ("Monday, if not Tuesday"), the clinic's constraint ("if you can't do Tuesday"), eagerness
    r"|\bif not\b|\bif (?:you|they|the clinic|the doctor) (?:can't|cannot|can not|don't|do not|doesn't|haven't)\b"
    r"|\b(?:can't|cannot|can not) wait\b|" + _NO_THEN_FINE)


# Clock times said in words, as the digits every other reader takes: "quarter to 11" is 10:45 (never 11:00),
# "ten past three" 3:10, "half past 2" and "half 2" (as said in Britain) 2:30
_HOUR_WORDS = {w: n for n, w in enumerate(
    "one two three four five six seven eight nine ten eleven twelve".split(), start=1)}
_SPOKEN_HOUR = r"(?P<h>\d{1,2}|" + "|".join(_HOUR_WORDS) + r")(?:\b|(?=[ap]\.?m\b))"
_SPOKEN_MINUTES = {"quarter": 15, "half": 30, "five": 5, "ten": 10, "twenty": 20, "twenty five": 25,
                   "twenty-five": 25}
_SPOKEN_TIME = re.compile(
    r"(?<![:.])\b(?:a )?(?P<m>quarter|half|twenty[- ]five|twenty|ten|five|\d{1,2})(?P<unit> minutes?| mins?)?"
    r" (?P<dir>past|to) "
    + _SPOKEN_HOUR
    + r"|\bhalf " + _SPOKEN_HOUR.replace("<h>", "<hh>")
    + r"(?! (?:an?|hours?|hrs?|days?|weeks?|months?|years?|minutes?|mins?|of|the)\b)")


_MINUTES_TO = (5, 10, 15, 20, 25)
_RANGE_BEFORE = re.compile(r"\b(?:from|between)\s+$")
_MOMENT_BEFORE = re.compile(r"(?:\b(?:at|after|before|by|until|till|about|around|than)|@)\s*$")


def _spoken_time(m: re.Match) -> str:
    if m.group("hh"):
        raw, minutes, back = m.group("hh"), 30, False
    else:
        raw, back = m.group("h"), m.group("dir") == "to"
        said = m.group("m")
        if back and said.isdigit() and not m.group("unit") and raw.isdigit() and (
                int(said) < int(raw) or int(said) not in _MINUTES_TO
                or _RANGE_BEFORE.search(m.string, max(0, m.start() - 9), m.start())
                # "I'm free 10 to 3" is a window as texted; "at 10 to 3" the moment
                or said == "10" and 1 <= int(raw) <= 7
                and not _MOMENT_BEFORE.search(m.string, max(0, m.start() - 12), m.start())):
            # "from 10 to 12", "10 to 12", and across noon "from 10 to 3", "12 to 2pm", "11 to 1": a range (11:50
            # is said "ten to twelve", and minutes to the hour in fives: "20 to 4" is 3:40)
            return m.group(0)
        minutes = int(said) if said.isdigit() else _SPOKEN_MINUTES[said]
        if said == "half" and back or not 1 <= minutes <= 59:
            return m.group(0)
    hour = int(raw) if raw.isdigit() else _HOUR_WORDS[raw]
    if not 1 <= hour <= 23 or hour > 12 and back:
        return m.group(0)
    if back:
        hour, minutes = (hour - 1) or 12, 60 - minutes
    return f"{hour}:{minutes:02d}"


# an hour word said with its half of the day or "o'clock" ("four pm", "three o'clock") is that hour
_HOUR_WORD = re.compile(r"\b(" + "|".join(_HOUR_WORDS) + r")(?= ?(?:[ap]\.?m\b|o'?clock\b))")
# and after a relation ("after ten", "between two and four", "not before ten thirty"): the digits, read (or asked am
# or pm) as digits are; never "at one point"
_WORD_AFTER_RELATION = re.compile(r"\b((?:after|before|until|till|by|from|than|between \d{1,2}(?::\d\d)? (?:and|to|-)"
                                  r"|between) )(" + "|".join(_HOUR_WORDS) + r")\b")
_WORD_MINUTES = re.compile(r"\b(\d{1,2}) (thirty|fifteen|forty[- ]five)\b")


# How messages are typed on a phone: contractions without their apostrophe ("mornings dont work" negates as "don't"
# does), texting shorthand ("r", "b4", "tmrw") and the usual misspellings of "tomorrow", as the words every reader
# knows
_TYPED = {
    **{bare: bare[:-1] + "'" + bare[-1] for bare in (
        "dont", "doesnt", "didnt", "wont", "isnt", "arent", "wasnt", "werent", "wouldnt", "couldnt", "shouldnt",
        "havent", "hasnt", "cant")},
    "aint": "isn't",
    # and as they are misspelt: "i cnt do monday", "monday dosnt work" read as wishes for Monday
    **{typed: "can't" for typed in ("cnt", "carnt", "cannt", "caint")}, "canot": "cannot", "cnnot": "cannot",
    "dnt": "don't", "dosnt": "doesn't", "dosent": "doesn't", "doesent": "doesn't", "dsnt": "doesn't",
    "arnt": "aren't", "cudnt": "couldn't", "cldnt": "couldn't", "wudnt": "wouldn't", "wldnt": "wouldn't",
    "im": "i'm", "ive": "i've", "r": "are", "u": "you", "ur": "your", "b4": "before", "pls": "please",
    "plz": "please", "thx": "thanks", "tho": "though", "cuz": "because", "coz": "because", "cos": "because",
    "nite": "night", "arvo": "afternoon", "morn": "morning", "mornin": "morning", "evenin": "evening",
    # the relations of a time, misspelt: "aftr 3pm" and "befor 10am" named the 15:00 and 10:00 offers as choices
    **{typed: "after" for typed in ("aftr", "afer", "afta", "aftter", "afterr")},
    **{typed: "before" for typed in ("befor", "bfore", "befre", "beofre", "bfr")},
    "untill": "until", "erlier": "earlier", "earlyer": "earlier", "ealier": "earlier", "l8r": "later",
    "arnd": "around", "abt": "about",
    "nxt": "next", "2day": "today", "tmrw": "tomorrow", "tmr": "tomorrow", "tmrow": "tomorrow",
    "tomoz": "tomorrow", "2moro": "tomorrow", "2morrow": "tomorrow", "2mrw": "tomorrow", "tomorow": "tomorrow",
    "tommorow": "tomorrow", "tommorrow": "tomorrow", "tomorroww": "tomorrow", "tomorrw": "tomorrow",
    "tomrrow": "tomorrow", "tmorrow": "tomorrow",
}
# a whole word, never part of a slot id ("r-12") or a time
_TYPED_WORD = re.compile(r"(?<![\w'-])(" + "|".join(sorted(_TYPED, key=len, reverse=True)) + r")(?![\w'-])")


# A time written as four digits ("0930", "1430 hrs", "from 0900 to 1100"): read as HH:MM when nothing else could
# be meant (a leading zero, "hrs", a relation or another four-digit time beside it), never inside a date
# ("14/12/2026", "2026-12-14") or a year ("in 2027")
_TIME_WORD = r"(?:at|after|before|by|until|till|til|from|between|and|to|around|about|earliest|latest|than|-|\u2013)"
_FOUR_DIGITS = re.compile(
    r"(?<![\w:./#])(?<!\b\d-)(?<!\b\d\d-)(?:(?P<zero>0\d[0-5]\d)|(?P<t>(?:1\d|2[0-3])[0-5]\d))(?P<hrs>\s*(?:hrs?|hours)\b)?"
    r"(?![\w:./#]|-\d{1,2}\b)")


def _four_digits(m: re.Match, said: str) -> str:
    raw = m.group("zero") or m.group("t")
    if m.group("t") and not (m.group("hrs") or re.search(_TIME_WORD + r"\s*$", said[max(0, m.start() - 12):m.start()])
                             or re.match(r"\s*(?:-|\u2013|to\s+\d{4})", said[m.end():])):
        return m.group(0)
    return f"{raw[:2]}:{raw[2:]}"


# Days written short: "M-F", "m-th", "tu/th", "m/w/f" (letters, only in a range or list of them: "m/f" is
# another thing), and "sat"/"sun" beside another day ("sat or sun", "fri-sun") or after "on", "this", "next",
# "not" (a word of its own otherwise: "I sat in the sun")
_LETTER_DAYS = {"m": "mon", "t": "tue", "tu": "tue", "w": "wed", "th": "thu", "f": "fri", "sa": "sat", "su": "sun"}
_LETTER = r"(?:m|tu|th|t|w|f|sa|su)"
_LETTER_RANGE = re.compile(r"\b" + _LETTER + r"\s?-\s?" + _LETTER + r"\b(?!-)"
                           r"|\b" + _LETTER + r"(?:/" + _LETTER + r"){2,}\b(?!/)"
                           r"|\b(?:tu|th|t)/(?:tu|th)\b(?!/)")
_JOINED_DAYS = re.compile(r"\b" + _DAY_WORD + r"(?:\s*(?:or|and|&|/|-|–|,|to|thru|through)\s*" + _DAY_WORD
                          + r")+\b|\b(?:on|this|next|not|every|only|or) (?:sat|sun)s?\b")
_SAT_SUN = re.compile(r"\b(sat|sun)(s?)\b")


def _days_written_short(said: str) -> str:
    said = _LETTER_RANGE.sub(lambda m: re.sub(_LETTER, lambda d: _LETTER_DAYS[d.group(0)], m.group(0)), said)
    return _JOINED_DAYS.sub(lambda m: _SAT_SUN.sub(lambda d: d.group(1) + "urday" * (d.group(1) == "sat")
                                                   + "day" * (d.group(1) == "sun") + d.group(2), m.group(0)), said)


# A day's name misspelt by one letter ("wednsday", "thrusday", "tuesdy", "frday"), or two in a long one ("wensday",
# "satuday"), is that day: left as it was, "tuesdy afternoon" was every afternoon. Only a word ending as a day does
# ("...day", "...dy", "...dya") and close to exactly one day; real words near a day's name are kept
_DAY_NAMES = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
_LIKE_A_DAY = re.compile(r"\b[mtwfs][a-z]{1,9}(?:day|dy|dya|dai|das)(s?)\b")
_NEAR_DAY_WORDS = frozenset(("today", "midday", "someday", "sundae", "sundry", "mayday", "birthday", "holiday",
                             "holidays", "weekday", "weekdays", "workday", "everyday", "payday", "heyday", "monody",
                             "tuesdays", "thursdays", "saturdays", "sundays", "mondays", "fridays", "wednesdays",
                             "studay", "sturdy", "tidy", "tardy", "seaday"))
# the parts of the day likewise ("mornign", "afternnon", "eveings"; "mourning" and "moaning" are words)
_PERIOD_NAMES = ("morning", "afternoon", "evening")
_LIKE_A_PERIOD = re.compile(r"\b(?:m[a-z]{5,7}|a[a-z]{7,9}|e[a-z]{5,7})\b")
_NEAR_PERIOD_WORDS = frozenset(("mourning", "moaning", "mornings", "afternoons", "evenings", "morning", "afternoon",
                                "evening", "meaning", "mooring", "earning", "opening"))


def _edits(a: str, b: str, limit: int) -> int:
    """The optimal string alignment distance (a swap of neighbours is one edit), or ``limit + 1`` when above it."""
    if abs(len(a) - len(b)) > limit:
        return limit + 1
    before: list[int] = []
    row = list(range(len(b) + 1))
    for i in range(1, len(a) + 1):
        current = [i] + [0] * len(b)
        for j in range(1, len(b) + 1):
            current[j] = min(row[j] + 1, current[j - 1] + 1, row[j - 1] + (a[i - 1] != b[j - 1]))
            if i > 1 and j > 1 and a[i - 1] == b[j - 2] and a[i - 2] == b[j - 1]:
                current[j] = min(current[j], before[j - 2] + 1)
        before, row = row, current
        if min(row) > limit:
            return limit + 1
    return row[-1]


def _day_spelt(m: re.Match) -> str:
    return _day_spelt_as(m.group(0), m.group(1))


@functools.lru_cache(maxsize=1024)
def _period_spelt(word: str) -> str:
    plural = "s" if word.endswith("s") else ""
    stem = word[:-1] if plural else word
    if word in _NEAR_PERIOD_WORDS:
        return word
    near = [name for name in _PERIOD_NAMES if _edits(stem, name, 1) <= 1]
    return near[0] + plural if len(near) == 1 else word


@functools.lru_cache(maxsize=1024)
def _day_spelt_as(word: str, plural: str) -> str:
    stem = word[:-1] if plural else word
    if word in _NEAR_DAY_WORDS or stem in _DAY_NAMES:
        return word
    limits = {day: 2 if len(day) >= 8 and len(stem) >= 7 else 1 for day in _DAY_NAMES}
    edits = {day: _edits(stem, day, limit) for day, limit in limits.items()}
    near = sorted((n, day) for day, n in edits.items() if n <= limits[day])
    if not near or len(near) > 1 and near[0][0] == near[1][0]:
        return word  # "thuesday": Tuesday or Thursday, never a guess
    return near[0][1] + plural


# "no earlier then 10am" (then for than after a comparison), "@ 3pm", "3p" and "10a", and the 24-hour "15h" and
# "9h30" written as the times every other reader takes
_TIME_TYPED = (
    (re.compile(r"\b(earlier|later|sooner) then\b"), r"\1 than"),
    (re.compile(r"(?<![\w@])@ ?(?=\d)"), "at "),
    (re.compile(r"\b((?:1[0-2]|0?[1-9])(?::[0-5]\d)?)([ap])\b(?![.'])"), r"\1\2m"),
    # "2h" is as often two hours: an hour alone only past noon
    (re.compile(r"\b([01]?\d|2[0-3])h([0-5]\d)\b"), r"\1:\2"),
    (re.compile(r"\b(1[3-9]|2[0-3])h\b"), r"\1:00"),
)


def normalise(text: str) -> str:
    said = re.sub(r"\s+", " ", text.translate(_APOSTROPHES).casefold()).strip()
    for pattern, written in _TIME_TYPED:
        said = pattern.sub(written, said)
    said = _days_written_short(_LIKE_A_DAY.sub(_day_spelt, _TYPED_WORD.sub(lambda m: _TYPED[m.group(1)], said)))
    said = _LIKE_A_PERIOD.sub(lambda m: _period_spelt(m.group(0)), said)
    said = _HOUR_WORD.sub(lambda m: str(_HOUR_WORDS[m.group(1)]), said)
    said = _WORD_AFTER_RELATION.sub(lambda m: m.group(1) + str(_HOUR_WORDS[m.group(2)]), said)
    said = _WORD_AFTER_RELATION.sub(lambda m: m.group(1) + str(_HOUR_WORDS[m.group(2)]), said)  # "between" ends
    said = _WORD_MINUTES.sub(lambda m: f"{m.group(1)}:{ {'thirty': 30, 'fifteen': 15}.get(m.group(2), 45)}", said)
    said = _FOUR_DIGITS.sub(lambda m: _four_digits(m, said), said)
    return _SPOKEN_TIME.sub(_spoken_time, said)


def mask(text: str, pattern: re.Pattern) -> str:
    return pattern.sub(lambda m: " " * (m.end() - m.start()), text)


# A list of days and parts of the day ("Monday, Tuesday or Wednesday", "mornings, afternoons or Fridays", "Mon, Tue,
# Wed") is one phrase: its commas end no clause, so a negation before it ("not Monday, Tuesday or Wednesday") or a
# refusal after it ("Monday, Tuesday, Wednesday are out") covers every item. It is a list when it ends in "or",
# "and" or "nor", or has three items or more; two items with only a comma between them are two statements ("not
# Monday, Tuesday"), and so is a list followed by what is fine ("not Monday, Tuesday or Wednesday is fine")
_LIST_TERM = (r"(?:on\s+)?(?:\b" + _DAY_WORD + r"(?:\s+(?:in the\s+)?(?:morning|afternoon|evening)s?)?"
              r"|\b(?:morning|afternoon|evening)s?|\bweekends?|\bweekdays?)\b")
_LIST_JOIN = r"\s*(?:,\s*(?:(?:or|and|nor)\s+)?|(?:or|and|nor)\s+|[&/]\s*)"
_TERM_LIST = re.compile(r"\b" + _LIST_TERM + r"(?:" + _LIST_JOIN + _LIST_TERM + r")+")
_ONE_TERM = re.compile(_LIST_TERM)
_FINE_AFTER = re.compile(
    r"\s*(?:(?:is|are|'s|'re|would be|will be|should be|could be|seems?|sounds?)\s+)?(?:(?:all|both|really|just|"
    r"perfectly|totally)\s+)?(?:fine|ok|okay|good|great|perfect|better|best|ideal|free|available|possible|doable|"
    r"alright|all right)\b|\s*(?:works?|suits?|(?:would|could|should|will|might) (?:work|suit|do)|instead|then)\b")


def _list_commas(text: str) -> set[int]:
    """Where the commas inside lists of days and parts of the day are (no clause ends at them)."""
    inside: set[int] = set()
    for m in _TERM_LIST.finditer(text):
        if "," not in m.group(0) or _FINE_AFTER.match(text, m.end()):
            continue
        items = list(_ONE_TERM.finditer(text, m.start(), m.end()))
        last_join = text[items[-2].end():items[-1].start()]
        if len(items) >= 3 or re.search(r"\b(?:or|and|nor)\b|[&/]", last_join):
            inside.update(m.start() + i for i, c in enumerate(m.group(0)) if c == ",")
    return inside


def clause_spans(text: str) -> list[tuple[int, int]]:
    spans, start = [], 0
    in_lists = _list_commas(text) if "," in text else set()
    for m in _BOUNDARY.finditer(text):
        if m.start() in in_lists:
            continue
        if m.start() > start:
            spans.append((start, m.start()))
        start = m.end()
    if start < len(text):
        spans.append((start, len(text)))
    return spans


def clause_of(spans: list[tuple[int, int]], pos: int) -> tuple[int, int]:
    # spans are in order and apart (clause_spans): a bisection, as every mention in a message asks for its clause
    i = bisect.bisect_right(spans, pos, key=lambda span: span[0]) - 1
    if i >= 0 and pos < spans[i][1]:
        return spans[i]
    return pos, pos


# A negator is a few words long, and what it looks at after itself (a new clause's subject, "best") a few more, so
# whether one ends before ``end`` is decided by the last _NEAR characters alone, or by a match ending well before
# them. Searching the whole clause again for each mention in it made a message of 8,000 characters naming
# thousands of times take seconds of CPU (quadratic); this is the same answer in time linear in the message.
_NEAR = 64
_first_negator_end = threading.local()


def negated_before(masked: str, start: int, end: int) -> bool:
    if end - start <= 2 * _NEAR:
        return bool(_NEGATOR.search(masked, start, end))
    if _NEGATOR.search(masked, end - 2 * _NEAR, end):
        return True
    first_end = _earliest_negator_end(masked, start)
    return first_end is not None and first_end <= end - _NEAR


def _earliest_negator_end(masked: str, start: int) -> int | None:
    """Where the first negator found reading ``masked`` from ``start`` ends, remembered for the message being read
    (one per thread: the next message replaces it)."""
    cache = getattr(_first_negator_end, "cache", None)
    if cache is None or cache[0] is not masked:
        cache = _first_negator_end.cache = (masked, {})
    ends = cache[1]
    if start not in ends:
        ends[start] = next((m.end() for m in _NEGATOR.finditer(masked, start)), None)  # the leftmost ends first
    return ends[start]
