"""A question as search understands it: everything derived from its text, read once per search and handed down,
so ranking, selection and context packs never read the raw text again."""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass

from memory.lexicon import lexicon

# "Is there a drug he must never be given?", "can she tolerate codeine?": what the patient must not be given is
# asked the way an allergy is
_ALLERGY_WORDS = re.compile(r"\b(?:allerg\w*|intoleran\w*|react\w*|sensitiv\w*|anaphyla\w*|hypersensitiv\w*|"
                            r"tolerat\w*|never\s+(?:be\s+)?(?:given|have|receive)\b|"
                            r"must\s*(?:n['\u2019]t|not)\s+(?:be\s+given|have|receive)\b)", re.IGNORECASE)
_TAKING_WORDS = re.compile(r"\b(?:is|are|he's|she's|they're|currently|still|been)\s+(?:\w+\s+){0,2}on\b"
                           r"|\b(?:taking|take|takes|took|prescribed|using|uses|therapy|treated|treatment|"
                           r"regular|long-term|maintenance|anticoagulated|dose|doses|dosing|level|levels|monitoring)\b",
                           re.IGNORECASE)

# "Is she on lithium?", "Does he take Lanoxin?": whether the patient takes the thing named, and nothing else. A
# medicine that merely interacts with it does not answer; the same words with a reason to ask ("is she on anything
# that interacts with...", "...before the extraction?", "is it safe to start...") keep interactions in play.
_WHETHER_TAKEN = re.compile(
    r"^\W*(?:is|are|has|have)\s+(?:he|she|they|the patient|patient|[a-z]+)\s+"
    r"(?:still\s+|currently\s+|already\s+|ever\s+been\s+|been\s+)?(?:on|taking|prescribed|using)\b"
    r"|^\W*(?:does|do)\s+(?:he|she|they|the patient|[a-z]+)\s+(?:still\s+|currently\s+|ever\s+)?(?:take|use)\b",
    re.IGNORECASE)
_REASON_WORDS = re.compile(
    r"\b(?:interact\w*|clash\w*|safe\w*|affect\w*|anything|something|with|alongside|giv\w+|give|start\w*|add|"
    r"adding|prescrib\w*|contraindicat\w*|before|after|during|ok|okay|problem\w*|issue\w*|worr\w*|concern\w*|"
    r"risk\w*|need\w*|hold|stop\w*|paus\w*|surgery|operation|procedure|scan|extraction)\b",
    re.IGNORECASE)

# "What was her last HbA1c?", "any recent TSH result": a test's result, which no memory holds. A monitoring test
# names the medicine it monitors ("when is his INR due?" concerns warfarin), but not when a result is asked for.
_RESULT_WORDS = re.compile(r"\b(?:results?|readings?|values?|latest|last|most recent|recent|came back|normal|abnormal|"
                           r"raised|high|low)\b", re.IGNORECASE)
# "hba1c?", "what's his INR": a test named with nothing else around it asks for its value as surely as "last" does
# (not "when is his INR due?", which asks about the medicine's monitoring)
_BARE_WORDS = frozenset({"what", "what's", "whats", "is", "was", "his", "her", "their", "the", "a", "pt", "patient",
                         "patient's", "current", "currently", "now"})
_WORDS = re.compile(r"[a-z0-9][a-z0-9'\u2019-]*")

# "When was his last seizure?", "what date is the op?", "...- what time is best?": the question asks for a time, at
# the start of the question or of one of its clauses (not "where should he wait when he arrives?", nor "her son is
# asking what time she's in - can I tell him?", which asks whether to tell)
_CLAUSE = r"(?:^|[.,;:!?(\u2013\u2014-]\s*|\b(?:and|or|but|so)\s+)(?:(?:on|at|for|by|from|until|till)\s+)?"
_TIME_ASKED = re.compile(
    _CLAUSE + r"(?:"
    r"when(?:['\u2019]s)?\s+(?:is|was|are|were|do|does|did|will|would|should|can|could|has|have|had|must|might|"
    r"shall|next|last)\b|"
    r"when['\u2019]s\b|(?:what|which)\s+(?:dates?|years?|months?)\b|how\s+(?:long\s+ago|soon)\b)",
    re.IGNORECASE)
# Which day, and what time of day, are two details: "which days can't she come?" is not answered by "not before
# 10:00", nor "what time can she come in?" by "cannot attend on Mondays" (a plain "when" takes either).
_DAY_ASKED = re.compile(_CLAUSE + r"(?:what|which)\s+(?:days?|weekdays?|day\s+of\s+the\s+week)\b", re.IGNORECASE)
_CLOCK_ASKED = re.compile(_CLAUSE + r"(?:(?:what|which)\s+(?:times?|hours?)\b|how\s+(?:early|late)\b)", re.IGNORECASE)
# what holds a time: a date, a clock time, a month or weekday, a part of the day, an interval or a frequency
_MONTHS = ("january|february|march|april|june|july|august|september|october|november|december|"
           "jan|feb|apr|jun|jul|aug|sept?|oct|nov|dec")
_DATE = r"\b\d{4}-\d{2}(?:-\d{2})?\b|\b\d{1,2}(?:st|nd|rd|th)?\s+may\b|\bmay\s+\d|" rf"\b(?:{_MONTHS})\b"
_WEEKDAY = (r"\b(?:mon|tues|wednes|thurs|fri|satur|sun|week)days?\b|\bweekends?\b|"
            r"\b(?:mon|tue|tues|wed|thu|thur|thurs|fri|sat|sun)\b")
_PART_OF_DAY = (r"\b(?:mornings?|afternoons?|evenings?|nights?|nightly|noon|midday|lunchtime|overnight|bedtime|am|pm|"
                r"o['\u2019]clock)\b")
_CLOCK = r"\d{1,2}[:.]\d{2}\b|\b\d{1,2}\s*(?:am|pm)\b"
_TIME_HELD = re.compile(
    rf"{_CLOCK}|{_DATE}|\b(?:19|20)\d{{2}}\b|{_WEEKDAY}|{_PART_OF_DAY}|"
    r"\b(?:minutes?|mins?|hours?|hrs?|days?|weeks?|months?|years?|fortnights?|fortnightly|"
    r"daily|weekly|monthly|yearly|annual(?:ly)?|hourly|quarterly)\b|\b(?:due|every|interval|since|until|till|"
    r"dated?|dates|times?|schedule[ds]?|today|tomorrow|tonight|yesterday)\b", re.IGNORECASE)
_DAY_HELD = re.compile(rf"{_WEEKDAY}|{_DATE}|\b(?:daily|every\s+day|today|tomorrow|tonight|yesterday)\b",
                       re.IGNORECASE)
_CLOCK_HELD = re.compile(rf"{_CLOCK}|{_PART_OF_DAY}|\b(?:hours?|hrs?|minutes?|mins?|hourly|early|late|breakfast|"
                         r"lunch|dinner|supper|meals?|twice|bd|tds|qds|nocte|mane)\b",
                         re.IGNORECASE)
# "Which days can she not come?", "what can't he eat?", "when is she unavailable?": what the patient cannot do or
# have. A fact that says only what the patient can do or likes ("free on Tuesdays", "enjoys curries") does not
# answer it; one that says what is out does ("cannot attend on Mondays", "not before 10:00", "gluten-free"), and so
# does an allergy or long-term medicine (what must not be given). The staff's own "can't we...?" asks nothing of
# the kind.
# A modal "can't", "won't", "doesn't eat" asks what is out only inside the question's own clause ("which days can she
# not come?", "anything he can't have?"), not where it tells the situation ("she can't drive after the eye clinic -
# does she get help home?", "he's vomiting and can't keep his tablets down - what should happen?").
_ASKING_CLAUSE = (r"(?:^|[.,;:!?(\u2013\u2014-]\s*|\b(?:and|or|but|so)\s+)(?:[a-z'\u2019]+\s+){0,2}?"
                  r"(?:what|which|when|where|who|any|anything|anyone|is\s+there|are\s+there|whats|what['\u2019]s)\b"
                  r"[^.,;:!?\u2013\u2014]*?")
_NEGATIVE_ASKED = re.compile(
    _ASKING_CLAUSE + r"(?:"
    r"\b(?:can(?:not\b|['\u2019]t\b|t\b)|(?:wo|sha|could|would|should|must|might)n['\u2019]?t\b)(?!\s+(?:we|i|you)\b)|"
    r"\b(?:can|could|will|would|should|must|may|might)\s+(?!(?:we|i|you)\b)(?:[a-z]+\s+){0,2}?(?:not|never)\b|"
    r"\b(?:(?:does|do|did)n['\u2019]?t|(?:does|do|did)\s+(?!(?:we|i|you)\b)(?:[a-z]+\s+){0,2}?not)\s+(?:[a-z]+\s+)?"
    r"(?:eat|drink|have|take|tolerate|like|want|attend|come|make|manage|use|wear|accept)\b|"
    r"\b(?:unable|not\s+able|not\s+(?:possible|ok|okay|good)|no\s+good|bad\s+(?:days?|times?))\b)|"
    r"\b(?:unavailable|avoid\w*|exclude[sd]?|restrictions?|off[- ]limits|out\s+of\s+the\s+question|rule[sd]?\s+out|"
    r"not\s+(?:available|free|suitable|allowed|permitted))\b", re.IGNORECASE)
_NEGATIVE_HELD = re.compile(
    r"\b(?:not|no|never|cannot|can['\u2019]t|unable|unavailable|avoid\w*|exclude[sd]?|except|without|only|"
    r"allerg\w*|intoleran\w*|restrict\w*|limit\w*|strict\w*|"
    r"vegetarian|vegan|halal|kosher|diabetic|low[- ](?:salt|sugar|fat|fibre|fiber)|"
    r"soft\s+food|pur[e\u00e9]e[sd]?|fasting|abstain\w*|refus\w*|declin\w*|dislik\w*|deaf\w*|blind\w*|impair\w*|"
    r"loss|difficult\w*)\b|\w-free\b", re.IGNORECASE)
# "How old was the donor?", "what age is her son?": an age, which a date of an event does not give
_AGE_ASKED = re.compile(r"\bhow\s+old\b|\bwhat\s+age\b|\bage\s+of\b", re.IGNORECASE)
_AGE_HELD = re.compile(r"\baged?\b|\b\d+\s*(?:-\s*)?(?:years?|yrs?|months?|weeks?)(?:\s*-?\s*old)?\b|\by/?o\b|\bborn\b|"
                       r"\bbirth|\bdob\b", re.IGNORECASE)
# "What's his eGFR?", "her last weight?", "viral load now": the value of a measurement, which a memory holds only
# where it names the measurement beside a figure ("baseline_hb 98", "178 kg"); each name, and what in a memory's
# fields or sentence names it
_MEASURES = {
    "weight": r"weight|weigh(?:s|ed)?|kg|kilos?", "height": r"height|tall|cm", "bmi": r"bmi|body mass index",
    "egfr": r"e?gfr|kidney function|renal function|creatinine", "creatinine": r"creatinine",
    "potassium": r"potassium|k\+", "sodium": r"sodium|na\+", "phosphate": r"phosphate", "calcium": r"calcium",
    "magnesium": r"magnesium", "ferritin": r"ferritin|iron stores", "haemoglobin": r"haemoglobin|hemoglobin|hb",
    "hbs": r"hbs(?:\s*%|\s*percentage)?|sickle haemoglobin", "platelets": r"platelets?|plt",
    "white cells": r"white (?:cell|count)s?|wcc|neutrophils?", "crp": r"crp|c-reactive protein", "esr": r"esr",
    "viral load": r"viral load", "cd4": r"cd4(?: count)?", "ige": r"ige", "trough": r"trough(?: level)?",
    "visual acuity": r"visual acuity|acuity", "blood pressure": r"blood pressure|bp",
    "heart rate": r"heart rate|pulse", "saturations": r"sats|saturations?|spo2|oxygen saturation",
    "temperature": r"temperature|temp", "peak flow": r"peak flow|pefr", "fev1": r"fev1", "prolactin": r"prolactin",
    "psa": r"psa", "vitamin d": r"vitamin d|vit d", "b12": r"b12", "folate": r"folate",
    "cholesterol": r"cholesterol|ldl|hdl|lipids?", "albumin": r"albumin", "bilirubin": r"bilirubin",
    "liver function": r"lfts?|liver function|alt|ast", "troponin": r"troponin", "bnp": r"bnp|nt-probnp",
    "lactate": r"lactate", "urate": r"urate|uric acid", "glucose": r"glucose|blood sugar|bm",
    "amylase": r"amylase", "ketones": r"ketones?",
}
_MEASURE_NAMES = {name: re.compile(rf"(?<![a-z0-9])(?:{names})(?![a-z0-9])", re.IGNORECASE)
                  for name, names in _MEASURES.items()}
# asking for the value: "what's", "what is/was", "how high", "latest", "last", "current", "now", or the measurement
# named with nothing else around it ("egfr?")
_VALUE_ASKED = re.compile(r"\b(?:what['\u2019]?s|whats|what\s+(?:is|was|are|were)|how\s+(?:high|low|much)|latest|last|"
                          r"most recent|recent|current|now|today|reading|result)\b", re.IGNORECASE)
_FIGURE = re.compile(r"\d")
# "what's the potassium binder she takes?", "what's her calcium supplement?", "what's his potassium limit?": a
# medicine, or a rule about the measurement, not its value
_NOT_A_VALUE = re.compile(r"\b(?:on|taking|takes|take|prescribed|supplements?|tablets?|binders?|doses?|dosing|"
                          r"replacement|infusions?|injections?|medicines?|medications?|limits?|targets?|restrict\w*|"
                          r"range|goal|allowance|maximum|max|minimum|min|diet\w*)\b", re.IGNORECASE)
# the kinds of detail a question may ask for, beside a topic: the words that ask, what in a text holds the detail
NEGATIVE = "negative"
DETAILS = {"time": (_TIME_ASKED, _TIME_HELD), "day": (_DAY_ASKED, _DAY_HELD), "clock": (_CLOCK_ASKED, _CLOCK_HELD),
           NEGATIVE: (_NEGATIVE_ASKED, _NEGATIVE_HELD), "age": (_AGE_ASKED, _AGE_HELD)}


def result_words(text: str) -> bool:
    """Whether ``text`` speaks of a result (a reading, a value, the latest one)."""
    return bool(_RESULT_WORDS.search(text))


def measures_asked(question: str) -> frozenset[str]:
    """The measurements whose value ``question`` asks for, when it asks for no reason ("...before the scan?")."""
    named = frozenset(name for name, pattern in _MEASURE_NAMES.items() if pattern.search(question))
    if not named or _REASON_WORDS.search(question) or _NOT_A_VALUE.search(question):
        return frozenset()
    bare = [w for w in _WORDS.findall(question.casefold()) if w.replace("\u2019", "'") not in _BARE_WORDS]
    alone = all(any(p.fullmatch(w) for p in _MEASURE_NAMES.values()) for w in bare)
    return named if alone or _VALUE_ASKED.search(question) else frozenset()


def measure_held(measure: str, text: str) -> bool:
    """Whether ``text`` (a memory's sentence, or one field's name and value) names ``measure`` beside a figure."""
    return bool(_MEASURE_NAMES[measure].search(text)) and bool(_FIGURE.search(text))


def detail_held(detail: str, text: str) -> bool:
    """Whether ``text`` holds that kind of :data:`DETAILS` (a time: a date, a clock time, a day, a part of the
    day, an interval or a frequency; a day: a weekday or a date; a clock time: an hour or a part of the day; a
    negative: what is out, not possible or not to be given; an age)."""
    return bool(DETAILS[detail][1].search(text))


@functools.lru_cache(maxsize=2)
def _test_words(test_terms: frozenset[str]) -> frozenset[str]:
    return frozenset(word for term in test_terms for word in term.split())


def _test_alone(question: str, test_terms: frozenset[str]) -> bool:
    words = _WORDS.findall(question.casefold())
    known = _test_words(test_terms)
    return bool(words) and all(w.replace("\u2019", "'") in _BARE_WORDS or w in known for w in words)


@dataclass(frozen=True)
class Question:
    """What the lexicon and the question's own words say about it."""
    text: str
    expanded: str  # the question plus the class names of what it names: what is embedded and text-ranked
    asked: dict[str, float]  # concepts named, monitoring tests included
    substances: dict[str, float]  # concepts named, without monitoring tests
    about_allergy: bool
    about_taking: bool  # "is she on blood thinners?": about a medicine taken, not an allergy to it
    whether_taken: bool  # "is she on lithium?": whether the patient takes what it names, not what interacts with it
    result_asked: bool  # it names a monitoring test and asks for a result: the test names no medicine here
    result_only: bool  # asks for the result and gives no reason ("...after the glucose check?" is about the check)
    # the kinds of detail it asks for (:data:`DETAILS`): "when was his last seizure?" a time, "which days can't
    # she come?" a day and a negative, "what time?" a clock time, "how old was the donor?" an age
    details: frozenset[str] = frozenset()
    # the measurements whose value it asks for: "what's his eGFR?", "last weight?"
    measures: frozenset[str] = frozenset()

    @property
    def concerns(self) -> dict[str, float]:
        """The concepts that say which memories it concerns: what it names, monitoring tests included unless it
        asks for a test's result."""
        return self.substances if self.result_asked else self.asked

    @property
    def safety_rule(self) -> bool:
        """The question names something a patient could be given or exposed to (lexicon: medicines and their
        classes, vaccines, contrast agents, foods, materials, procedures, and the products they hide in), so every
        allergy and long-term medicine the caller may see must be part of the answer."""
        return bool(self.asked)


def understand(question: str) -> Question:
    """The question read once: its lexicon concepts, the expanded text and the words that say what it is about."""
    lex = lexicon()
    asked, substances = lex.mentions_both(question)
    result_asked = len(asked) > len(substances) and (
        result_words(question) or _test_alone(question, lex.test_terms))
    return Question(text=question, expanded=lex.expand(question, mentioned=asked), asked=asked,
                    substances=substances, about_allergy=bool(_ALLERGY_WORDS.search(question)),
                    about_taking=bool(_TAKING_WORDS.search(question)),
                    whether_taken=bool(_WHETHER_TAKEN.search(question)) and not _REASON_WORDS.search(question),
                    result_asked=result_asked,
                    result_only=result_asked and not _REASON_WORDS.search(question),
                    details=frozenset(kind for kind, (asked, _held) in DETAILS.items() if asked.search(question)),
                    measures=measures_asked(question))
