"""The one parser of patients' messages (conversations.parsing) and the slot fold built on it.

Property-based tests (Hypothesis) pin down the time-preference parser: direction never flips, 24-hour and am/pm
forms agree, ambiguous input never yields a value, and any text parses without error into valid typed facts.
"""

from __future__ import annotations

import re

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conversations.parsing import (
    DAYS,
    EARLIEST,
    LATEST,
    PERIODS,
    memory_facts,
    parse_time_preferences,
    parse_turn,
)
from conversations.slots import OFFER_TOOL, apply_turn, empty_state, next_action, offer_constraints, slot_matches
from memory.types import builtin_latest, validate_fact
from tests.cpu_time import assert_linear

SEED_TURN_1 = ("I need to reschedule my cardiology follow-up. I can't do mornings, and I'm currently taking blood "
               "thinners.")
SEED_TURN_2 = "What about Thursday?"
PROPERTY = settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
SCHEDULING = builtin_latest()["scheduling_preference"]


def scheduling_field(kind: str, name: str) -> dict:
    """One field of the scheduling_preference type's schema, in the shape for ``kind``."""
    return SCHEDULING.branch_for({"kind": kind})["properties"][name]


def times(text: str) -> list[tuple[str, str]]:
    found, _ = parse_time_preferences(text)
    return [(t.kind, t.time) for t in found]


# --- the seed's conversation and its earlier defects ---------------------------------------------------------

def test_seed_first_turn_is_parsed_completely():
    """Parsed on the first turn too: intent, specialty from the message, mornings excluded (not preferred), and
    the clinical remark recognised as such."""
    p = parse_turn(SEED_TURN_1)
    assert p.intent == "reschedule"
    assert p.specialty == "cardiology" and p.visit_type == "followup"
    assert p.excluded_periods == ("morning",) and p.preferred_periods == ()
    assert [r.category for r in p.remarks] == ["medication_anticoagulant"]
    assert p.times == () and p.clarifications == ()


def test_seed_follow_up_names_a_day_and_nothing_else():
    p = parse_turn(SEED_TURN_2)
    assert p.preferred_days == ("thursday",)
    assert p.intent is None and p.specialty is None and p.excluded_periods == ()


@pytest.mark.parametrize("text, specialty", [
    ("I need to reschedule my dermatology visit", "dermatology"),
    ("Can I book an appointment with neurology?", "neurology"),
    ("my endocrinologist wants to see me", "endocrinology"),
    ("not cardiology, dermatology", "dermatology"),
    ("I need to reschedule my appointment", None),
    ("What about Thursday?", None),
])
def test_specialty_comes_from_the_message_never_a_default(text, specialty):
    assert parse_turn(text).specialty == specialty


@pytest.mark.parametrize("text, intent", [
    ("I need to reschedule my cardiology follow-up", "reschedule"),
    ("please cancel my dermatology appointment", "cancel"),
    ("I'd like to book a neurology appointment", "book"),
    ("cancel it and book me a new one", "reschedule"),
    ("I don't want to cancel, just move my appointment", "reschedule"),
    ("Please don't book me before 10 a.m.", None),
    ("What about Thursday?", None),
    # asking for an appointment, with a word or two about it between
    ("I need a dermatology appointment, mornings only please", "book"),
    ("I'd like an urgent cardiology consultation", "book"),
    ("I don't need a dermatology appointment any more", None),
    # a follow-up or check-up asked for is a visit to book
    ("I need a cardiology follow-up, Thursday, not mornings.", "book"),
    ("I'd like a check-up next week", "book"),
    ("I don't need a follow-up", None),
])
def test_intent(text, intent):
    assert parse_turn(text).intent == intent


@pytest.mark.parametrize("text, preferred, excluded", [
    ("I can't do mornings", (), ("morning",)),
    ("no mornings or evenings please", (), ("morning", "evening")),
    ("mornings don't work for me", (), ("morning",)),
    ("anything but mornings", (), ("morning",)),
    # "any time but" is "anything but": a negation, never a preference for what it excludes
    ("any time but mornings", (), ("morning",)),
    ("Anytime but mornings please", (), ("morning",)),
    ("whenever but mornings", (), ("morning",)),
    ("I can come any day but I need the afternoon", ("afternoon",), ()),
    ("I'd prefer the afternoon", ("afternoon",), ()),
    ("I don't mind mornings", ("morning",), ()),
    ("Good morning, I need a slot in the afternoon", ("afternoon",), ()),
    ("I need time for my morning medication", (), ()),
    ("I work mornings", (), ("morning",)),
    ("mornings are too early for me", (), ("morning",)),
    ("evenings are too late", (), ("evening",)),
    ("I work best in the mornings", ("morning",), ()),
])
def test_periods_keep_their_negation(text, preferred, excluded):
    p = parse_turn(text)
    assert p.preferred_periods == preferred and p.excluded_periods == excluded


@pytest.mark.parametrize("text, preferred, excluded", [
    ("What about Thursday?", ("thursday",), ()),
    ("Mondays and Fridays don't work for me", (), ("monday", "friday")),
    ("I can't do Mondays but Thursday works", ("thursday",), ("monday",)),
    ("Can't you do Thursday?", ("thursday",), ()),
    ("weekends are out", (), ("saturday", "sunday")),
    ("not before 10 on thursday", ("thursday",), ()),
    ("I called last Monday", (), ()),
    ("any day but Monday", (), ("monday",)),
    # a range of days is every day in it, not its two ends
    ("Monday to Friday", ("monday", "tuesday", "wednesday", "thursday", "friday"), ()),
    ("I'm free Monday-Wednesday", ("monday", "tuesday", "wednesday"), ()),
    ("not Thursday through Saturday", (), ("thursday", "friday", "saturday")),
    ("Friday to Monday", ("friday", "saturday", "sunday", "monday"), ()),
    ("I prefer Monday to Friday", ("monday",), ()),  # a comparison, not a range
    ("Mondays are a no", (), ("monday",)),
    ("every day but Friday", (), ("friday",)),
    ("all days but Friday", (), ("friday",)),
    ("I can come whenever but I prefer Friday", ("friday",), ()),
    ("I'm away on Friday", (), ("friday",)),
    ("I'm on holiday Monday to Wednesday", (), ("monday", "tuesday", "wednesday")),
    ("Any time but Mondays, after 2pm", (), ("monday",)),
    # the usual short forms
    ("Mon or Wed", ("monday", "wednesday"), ()),
    ("mon/wed/fri", ("monday", "wednesday", "friday"), ()),
    ("I can't make it on Fri", (), ("friday",)),
    ("not Thu", (), ("thursday",)),
    ("Monday, Tuesday afternoon is out", ("monday",), ()),
])
def test_days_keep_their_negation(text, preferred, excluded):
    p = parse_turn(text)
    assert p.preferred_days == preferred and p.excluded_days == excluded


@pytest.mark.parametrize("text, preferred, excluded", [
    # a day and a part of the day said together are one constraint, never every such day and every such period
    ("not Monday morning", [], [("monday", "morning")]),
    ("Tuesday afternoon is out", [], [("tuesday", "afternoon")]),  # never preferred
    ("Tuesday afternoons don't work", [], [("tuesday", "afternoon")]),
    ("Tuesday afternoon is great", [("tuesday", "afternoon")], []),
    ("I can't do Friday in the afternoon", [], [("friday", "afternoon")]),
    ("I can do Tuesday morning or Thursday afternoon", [("tuesday", "morning"), ("thursday", "afternoon")], []),
    ("Tuesday morning or any time Thursday",
     [("tuesday", "morning"), ("thursday", "morning"), ("thursday", "afternoon"), ("thursday", "evening")], []),
    ("I can't do Mondays but Tuesday morning works", [("tuesday", "morning")], []),
    ("weekday mornings only", [(d, "morning") for d in DAYS[:5]], []),
    # the days listed before it share its part of the day
    ("I'm free Tuesday and Thursday mornings", [("tuesday", "morning"), ("thursday", "morning")], []),
    ("Tuesday or Thursday morning", [("tuesday", "morning"), ("thursday", "morning")], []),
    ("Mon and Tue afternoons don't work", [], [("monday", "afternoon"), ("tuesday", "afternoon")]),
    # the parts of the day listed after it share its day
    ("Tuesday afternoon or evening", [("tuesday", "afternoon"), ("tuesday", "evening")], []),
    ("anything but Thursday afternoon or evening", [], [("thursday", "afternoon"), ("thursday", "evening")]),
    # am and pm after a day are its halves (pm: the afternoon and the evening)
    ("anything but Thursday pm", [], [("thursday", "afternoon"), ("thursday", "evening")]),
    ("Thurs am", [("thursday", "morning")], []),
    ("Tue p.m. or Wed a.m.", [("tuesday", "afternoon"), ("tuesday", "evening"), ("wednesday", "morning")], []),
])
def test_a_day_and_a_period_said_together_are_one_constraint(text, preferred, excluded):
    p = parse_turn(text)
    assert [(dp["day"], dp["period"]) for dp in p.preferred_day_periods] == preferred
    assert [(dp["day"], dp["period"]) for dp in p.excluded_day_periods] == excluded
    assert p.excluded_periods == p.preferred_periods == ()  # neither widened into every such part of the day
    assert p.preferred_days == ()
    assert p.excluded_days == (("monday",) if "Mondays" in text else ())


@pytest.mark.parametrize("text, slot, offered", [
    ("not Monday morning", ("monday", "09:00"), False),
    ("not Monday morning", ("monday", "15:30"), True),
    ("not Monday morning", ("thursday", "09:00"), True),
    ("I can do Tuesday morning or Thursday afternoon", ("tuesday", "09:30"), True),
    ("I can do Tuesday morning or Thursday afternoon", ("thursday", "14:00"), True),
    ("I can do Tuesday morning or Thursday afternoon", ("tuesday", "14:30"), False),
    ("I can do Tuesday morning or Thursday afternoon", ("thursday", "09:00"), False),
    # and "not Mondays" or "no mornings" keep their meaning
    ("not Mondays", ("monday", "15:30"), False),
    ("no mornings", ("thursday", "09:00"), False),
])
def test_offers_keep_a_day_and_period_together(text, slot, offered):
    state = apply_turn(empty_state(), seq=1, role="user", parsed=parse_turn(text).as_dict())
    day, time = slot
    assert slot_matches({"day": day, "time": time}, offer_constraints(state, [])) is offered


def test_a_preferred_pair_lifts_an_exclusion_of_its_day_only_for_itself():
    """"not Mondays" then "Monday afternoon is fine": Monday afternoons only, Monday mornings stay excluded."""
    state = fold("not Mondays", "actually Monday afternoon is fine")
    c = offer_constraints(state, [])
    assert state["excluded_days"] == [] and state["preferred_day_periods"] == [{"day": "monday",
                                                                                "period": "afternoon"}]
    assert slot_matches({"day": "monday", "time": "15:30"}, c)
    assert not slot_matches({"day": "monday", "time": "09:00"}, c)
    assert not slot_matches({"day": "thursday", "time": "15:00"}, c)


def test_a_later_day_narrows_or_replaces_the_preferred_pairs():
    narrowed = fold("I can do Tuesday morning or Thursday afternoon", "Thursday then")
    assert narrowed["preferred_day_periods"] == [{"day": "thursday", "period": "afternoon"}]
    replaced = fold("I can do Tuesday morning or Thursday afternoon", "Friday actually")
    assert replaced["preferred_day_periods"] == [] and replaced["preferred_days"] == ["friday"]


def test_a_day_and_period_pair_is_never_proposed_as_a_whole_day_or_period():
    assert memory_facts(parse_turn("not Monday morning")) == []
    assert memory_facts(parse_turn("I can't do Fridays, and not Tuesday morning")) == [
        {"kind": "excluded_days", "days": ["friday"]}]


@pytest.mark.parametrize("text, expected", [
    ("I prefer appointments before 3 pm", [(LATEST, "15:00")]),
    ("don't book me before 10", [(EARLIEST, "10:00")]),
    ("Please don't book me before 10 a.m. because I need time for morning medication", [(EARLIEST, "10:00")]),
    ("after 14:30", [(EARLIEST, "14:30")]),
    ("not after 4pm", [(LATEST, "16:00")]),
    ("I can't come after 4pm", [(LATEST, "16:00")]),
    ("no later than 16:00", [(LATEST, "16:00")]),
    ("no earlier than 9:30am", [(EARLIEST, "09:30")]),
    ("nothing before 10", [(EARLIEST, "10:00")]),
    ("any time but before 10", [(EARLIEST, "10:00")]),
    # a negative predicate after the time excludes the times it names
    ("before 9 is too early", [(EARLIEST, "09:00")]),
    ("anything after 5pm is too late", [(LATEST, "17:00")]),
    ("after 4pm doesn't work for me", [(LATEST, "16:00")]),
    ("before 10 won't work", [(EARLIEST, "10:00")]),
    ("Anything before 10am is out", [(EARLIEST, "10:00")]),
    ("after 4pm is impossible", [(LATEST, "16:00")]),
    ("after 4pm is not a problem", [(EARLIEST, "16:00")]),
    ("after 4pm won't be a problem", [(EARLIEST, "16:00")]),
    ("after 2pm is fine", [(EARLIEST, "14:00")]),
    # arriving by a time is being there from it on
    ("I can be there by 10am", [(EARLIEST, "10:00")]),
    ("I could arrive by 11am", [(EARLIEST, "11:00")]),
    ("I can't get there by 9am", [(EARLIEST, "09:00")]),
    ("I need to be done by 3pm", [(LATEST, "15:00")]),
    # a negation reaches the alternative joined by "or"
    ("I can't do before 10 or after 4pm", [(EARLIEST, "10:00"), (LATEST, "16:00")]),
    ("not before 10 or after 4pm", [(EARLIEST, "10:00"), (LATEST, "16:00")]),
    # working until a time is being busy until it
    ("I work until 5pm", [(EARLIEST, "17:00")]),
    ("I'm working till 4pm on Fridays", [(EARLIEST, "16:00")]),
    ("I've got work until 2pm", [(EARLIEST, "14:00")]),
    ("I'm away until 3pm", [(EARLIEST, "15:00")]),
    ("I'm busy until 2pm", [(EARLIEST, "14:00")]),
    ("between 2 and 4pm", [(EARLIEST, "14:00"), (LATEST, "16:00")]),
    ("between 2 and 4pm is fine", [(EARLIEST, "14:00"), (LATEST, "16:00")]),
    # a range said without "between": only when its ends are clearly clock times
    ("2pm-4pm", [(EARLIEST, "14:00"), (LATEST, "16:00")]),
    ("10am to 2pm suits me", [(EARLIEST, "10:00"), (LATEST, "14:00")]),
    ("any time 2-4pm please", [(EARLIEST, "14:00"), (LATEST, "16:00")]),
    ("I can do 9:30am till noon", [(EARLIEST, "09:30"), (LATEST, "12:00")]),
    ("the 10:30\u201311:00 slot", [(EARLIEST, "10:30"), (LATEST, "11:00")]),
    ("I'll be 5-10 minutes late", []),
    ("in 2-3 weeks", []),
    ("12-15 people", []),
    ("10am onwards", [(EARLIEST, "10:00")]),
    ("4pm at the latest", [(LATEST, "16:00")]),
    ("noon at the latest", [(LATEST, "12:00")]),
    ("after 03:30", [(EARLIEST, "03:30")]),
    ("after 30 minutes", []),
    ("I'm not sure, maybe after 2pm", [(EARLIEST, "14:00")]),
    # "earliest"/"latest" before a time, as "at the earliest"/"at the latest" after it
    ("earliest 10am please", [(EARLIEST, "10:00")]),
    ("latest 4pm", [(LATEST, "16:00")]),
    ("I can't do anything late, latest 4pm", [(LATEST, "16:00")]),
])
def test_time_preferences_keep_their_direction(text, expected):
    assert times(text) == expected


@pytest.mark.parametrize("text, code, candidates", [
    ("after 3", "ambiguous_time", ("03:00", "15:00")),
    ("before 5 o'clock", "ambiguous_time", ("05:00", "17:00")),
    ("after 3:30", "ambiguous_time", ("03:30", "15:30")),
    ("after 13 pm", "invalid_time", ()),
    ("before 25:00", "invalid_time", ()),
    ("not between 12 and 2pm", "negated_range", ()),
    # the window it names is excluded: never booked into, and the direction is not guessed
    ("between 2 and 4pm doesn't work for me", "negated_range", ()),
    ("2pm-4pm is impossible", "negated_range", ()),
    ("I work 9am-5pm", "negated_range", ()),
    # no time is both: the slots cannot hold "either", so neither is stored
    ("after 10 or before 8", "conflicting_times", ("10:00", "08:00")),
    ("after 4pm, and before 11am", "conflicting_times", ("16:00", "11:00")),
])
def test_what_cannot_be_read_safely_becomes_a_question(text, code, candidates):
    found, questions = parse_time_preferences(text)
    assert found == []
    assert [(q.code, q.candidates) for q in questions] == [(code, candidates)]
    assert questions[0].question.endswith("?")


@pytest.mark.parametrize("text, expected", [
    ("before 10 30", []),  # 10:30 said with a space: never the earlier 10:00
    ("not after 10 30 please", []),
    ("after 2 30 pm", []),
    ("before 3pm 2 weeks from now", [(LATEST, "15:00")]),
    ("after 10:30 2 days a week", [(EARLIEST, "10:30")]),
    ("before 20 past 4", []),  # never 20:00: 4:20, asked (am or pm?)
    ("after 10 past 9", [(EARLIEST, "09:10")]),  # never 10:00
])
def test_an_hour_followed_by_another_number_is_not_read_as_the_whole_hour(text, expected):
    assert times(text) == expected


@pytest.mark.parametrize("text, expected", [
    # clock times said in words are the times they say
    ("quarter to 11 at the latest", [(LATEST, "10:45")]),  # never 11:00
    ("not before half nine", [(EARLIEST, "09:30")]),
    ("after quarter to eight in the morning", [(EARLIEST, "07:45")]),
    ("before twenty to one", [(LATEST, "12:40")]),
    ("after ten past 9", [(EARLIEST, "09:10")]),
    ("half an hour is fine", []),
    ("before four pm", [(LATEST, "16:00")]),
    ("not before eleven o'clock", [(EARLIEST, "11:00")]),
])
def test_a_clock_time_said_in_words(text, expected):
    assert times(text) == expected


def test_a_spoken_hour_without_its_half_of_the_day_is_asked_about():
    found, questions = parse_time_preferences("after half past two")
    assert found == [] and [(q.code, q.candidates) for q in questions] == [("ambiguous_time", ("02:30", "14:30"))]
    assert parse_turn("half 9").reference.times == ("09:30",)
    assert times("after quarter past 2pm") == [(EARLIEST, "14:15")]


@pytest.mark.parametrize("text, expected", [
    # a latest time whose morning reading is not after the earliest said with it can only be the afternoon's
    ("I can't come before 10 or after 3", [(EARLIEST, "10:00"), (LATEST, "15:00")]),
    ("no earlier than 9:30 and no later than 4", [(EARLIEST, "09:30"), (LATEST, "16:00")]),
])
def test_a_latest_hour_after_an_earliest_one_is_the_afternoons(text, expected):
    assert times(text) == expected
    assert parse_time_preferences("after 2 and before 5")[0] == []  # nothing said decides either: asked


def test_ambiguous_question_offers_both_readings():
    _, [q] = parse_time_preferences("after 3")
    assert q.kind == EARLIEST
    assert q.question == "Do you mean 3:00 am or 3:00 pm as the earliest time?"


def test_parser_lists_match_the_memory_fact_types():
    days = scheduling_field("excluded_days", "days")["items"]["enum"]
    periods = scheduling_field("excluded_periods", "periods")["items"]["enum"]
    assert list(DAYS) == days and list(PERIODS) == periods


# --- properties of the time parser -------------------------------------------------------------------------------

@st.composite
def unambiguous_time(draw) -> tuple[str, str]:
    """(spoken form, expected HH:MM) in one of the unambiguous notations."""
    hour = draw(st.integers(0, 23))
    minute = draw(st.integers(0, 59))
    form = draw(st.sampled_from(["24h", "ampm", "ampm_hour", "bare_hour"]))
    h12 = hour % 12 or 12
    suffix = draw(st.sampled_from(["am", "pm", "a.m.", "p.m.", "AM", "PM", "P.M."]))
    is_pm = suffix.lower().startswith("p")
    if form == "24h":
        return f"{hour:02d}:{minute:02d}", f"{hour:02d}:{minute:02d}"
    if form == "ampm":
        value = h12 % 12 + (12 if is_pm else 0)
        space = draw(st.sampled_from(["", " "]))
        return f"{h12}:{minute:02d}{space}{suffix}", f"{value:02d}:{minute:02d}"
    if form == "ampm_hour":
        value = h12 % 12 + (12 if is_pm else 0)
        space = draw(st.sampled_from(["", " "]))
        return f"{h12}{space}{suffix}", f"{value:02d}:00"
    bare = draw(st.sampled_from([0, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23]))
    return str(bare), f"{bare:02d}:00"


# (template, kind): {t} is the time. Plain relations, relations read as one, and flips by negation.
TEMPLATES = [
    ("before {t}", LATEST), ("by {t}", LATEST), ("until {t}", LATEST), ("earlier than {t}", LATEST),
    ("no later than {t}", LATEST), ("not later than {t}", LATEST), ("not after {t}", LATEST),
    ("{t} at the latest", LATEST), ("I can't come after {t}", LATEST), ("nothing after {t}", LATEST),
    ("I'd prefer appointments before {t}", LATEST), ("please don't book anything after {t}", LATEST),
    ("after {t}", EARLIEST), ("from {t}", EARLIEST), ("later than {t}", EARLIEST), ("not before {t}", EARLIEST),
    ("no earlier than {t}", EARLIEST), ("not earlier than {t}", EARLIEST), ("{t} at the earliest", EARLIEST),
    ("{t} or later", EARLIEST), ("don't book me before {t}", EARLIEST), ("I can't do anything before {t}", EARLIEST),
    ("never before {t}", EARLIEST), ("I'm busy until {t}", EARLIEST),
]
NEUTRAL = ["", "Hello. ", "For the cardiology follow-up: ", "Thanks! ", "Sure, ", "One more thing. "]
NEUTRAL_END = ["", " please", ", thanks", ". See you then.", " if possible"]


@PROPERTY
@given(template=st.sampled_from(TEMPLATES), when=unambiguous_time(), before=st.sampled_from(NEUTRAL),
       after=st.sampled_from(NEUTRAL_END))
def test_property_direction_never_flips(template, when, before, after):
    """Each template has one direction; the time notation and neutral text around it never change it."""
    pattern, kind = template
    spoken_time, value = when
    assert times(before + pattern.format(t=spoken_time) + after) == [(kind, value)]


@PROPERTY
@given(hour=st.integers(0, 23), minute=st.integers(0, 59), relation=st.sampled_from(["before", "after", "not before",
                                                                                       "no later than"]))
def test_property_24_hour_and_am_pm_forms_agree(hour, minute, relation):
    h12, suffix = hour % 12 or 12, ("am" if hour < 12 else "pm")
    forms = [f"{hour:02d}:{minute:02d}", f"{h12}:{minute:02d} {suffix}", f"{h12}:{minute:02d}{suffix.upper()}",
             f"{h12}:{minute:02d} {suffix[0]}.m."]
    if minute == 0:
        forms += [f"{h12}{suffix}", f"{h12} {suffix}", f"{h12} {suffix[0]}.m."]
    results = {tuple(times(f"{relation} {form}")) for form in forms}
    assert len(results) == 1, results
    [(_, value)] = results.pop()
    assert value == f"{hour:02d}:{minute:02d}"


@PROPERTY
@given(hour=st.integers(1, 7), minute=st.one_of(st.none(), st.integers(0, 59)), template=st.sampled_from(TEMPLATES),
       before=st.sampled_from(NEUTRAL), after=st.sampled_from(NEUTRAL_END),
       clock=st.sampled_from(["", " o'clock"]))
def test_property_ambiguous_input_never_yields_a_value(hour, minute, template, before, after, clock):
    """A bare 1-7 (no am/pm, unpadded) is asked about, in any phrasing: no value, one question with both readings."""
    spoken_time = (f"{hour}" if minute is None else f"{hour}:{minute:02d}") + (clock if minute is None else "")
    found, questions = parse_time_preferences(before + template[0].format(t=spoken_time) + after)
    assert found == []
    m = minute or 0
    assert [(q.code, q.kind, q.candidates) for q in questions] == [
        ("ambiguous_time", template[1], (f"{hour:02d}:{m:02d}", f"{hour + 12:02d}:{m:02d}"))]


@PROPERTY
@given(hour=st.integers(13, 99), relation=st.sampled_from(["before", "after", "not before"]),
       suffix=st.sampled_from(["am", "pm"]))
def test_property_impossible_times_never_yield_a_value(hour, relation, suffix):
    found, questions = parse_time_preferences(f"{relation} {hour} {suffix}")
    assert found == []


@PROPERTY
@given(text=st.text(max_size=300))
def test_property_any_text_parses_into_valid_facts(text):
    """Never raises; every time is a valid HH:MM; every proposed fact validates as a typed memory fact."""
    p = parse_turn(text)
    for t in p.times:
        assert re.fullmatch(scheduling_field(t.kind, "time")["pattern"], t.time)
    for fact in memory_facts(p):
        validate_fact("scheduling_preference", fact)


@PROPERTY
@given(period=st.sampled_from(PERIODS), negation=st.sampled_from(["I can't do", "no", "I cannot make", "not",
                                                                  "I'm unable to do", "please avoid"]))
def test_property_negated_periods_are_excluded_never_preferred(period, negation):
    p = parse_turn(f"{negation} {period}s")
    assert p.excluded_periods == (period,) and p.preferred_periods == ()


# --- proposals ------------------------------------------------------------------------------------------------

def test_memory_facts_are_the_durable_kinds_only():
    p = parse_turn("Please don't book me before 10 a.m., I can't do Mondays or evenings. Thursday would be good.")
    assert memory_facts(p) == [{"kind": "earliest_time", "time": "10:00"},
                               {"kind": "excluded_days", "days": ["monday"]},
                               {"kind": "excluded_periods", "periods": ["evening"]}]
    assert memory_facts(parse_turn(SEED_TURN_1)) == [{"kind": "excluded_periods", "periods": ["morning"]}]
    assert memory_facts(parse_turn("after 3")) == []


# --- clinical remarks -----------------------------------------------------------------------------------------

@pytest.mark.parametrize("text, categories", [
    ("I'm currently taking blood thinners", ["medication_anticoagulant"]),
    ("I'm on warfarin", ["medication_anticoagulant"]),
    ("I have chest pain since this morning", ["urgent_symptom"]),
    ("I'm allergic to penicillin", ["allergy"]),
    ("I started taking metformin", ["medication"]),
    ("I can't do mornings", []),
    ("it's a pain to come in the morning", []),
    # the urgent signs said in everyday words: harm to oneself, too many tablets, the chest, a stroke, a headache
    ("I want to end my life", ["urgent_symptom"]),
    ("I feel like hurting myself", ["urgent_symptom"]),
    ("I took too many pills last night", ["urgent_symptom"]),
    ("my chest hurts when I walk", ["urgent_symptom"]),
    ("my face has dropped on one side and my speech is slurred", ["urgent_symptom"]),
    ("sudden headache, the worst ever", ["urgent_symptom"]),
    ("my son had a seizure this morning", ["urgent_symptom"]),
    ("I had a fall yesterday", ["symptom"]),
    ("I fell asleep on the bus", []),
    ("I've run out of my insulin", ["medication"]),
    ("I'd like the chest clinic please", []),
])
def test_clinical_remarks_are_recognised(text, categories):
    assert [r.category for r in parse_turn(text).remarks] == categories


# --- the slot fold -------------------------------------------------------------------------------------------

def fold(*turns) -> dict:
    state = empty_state()
    for seq, turn in enumerate(turns, start=1):
        if isinstance(turn, str):
            state = apply_turn(state, seq=seq, role="user", parsed=parse_turn(turn).as_dict())
        else:
            state = apply_turn(state, seq=seq, **turn)
    return state


def test_slots_from_the_seed_conversation():
    state = fold(SEED_TURN_1, SEED_TURN_2)
    assert state["intent"] == "reschedule" and state["specialty"] == "cardiology"
    assert state["excluded_periods"] == ["morning"] and state["preferred_days"] == ["thursday"]
    assert state["sources"]["excluded_periods"] == "turn:1" and state["sources"]["preferred_days"] == "turn:2"
    assert next_action(state) == "search_slots"


def test_a_later_positive_mention_lifts_an_exclusion():
    state = fold("I can't do mornings", "actually mornings are fine, I'd prefer the morning")
    assert state["excluded_periods"] == [] and state["preferred_period"] == "morning"


@pytest.mark.parametrize("turns", [
    ("book a cardiology follow-up", "not between 12 and 2", "after 2pm then"),
    ("book a cardiology follow-up", "2pm-4pm doesn't work", "before 2pm"),
    ("book a cardiology follow-up, I work 9am-5pm so after 5pm",),
])
def test_a_time_answers_which_times_would_suit_instead(turns):
    """The question a negated range raises has no kind: any time stated answers it, so the booking goes on."""
    state = fold(*turns)
    assert state["pending_clarifications"] == [] and (state["earliest_time"] or state["latest_time"])
    assert next_action(state) == "search_slots"


def test_contradicting_times_are_asked_about_and_a_later_one_corrects_an_earlier_one():
    state = fold("book a cardiology follow-up after 10 or before 8")
    assert state["earliest_time"] is None and state["latest_time"] is None
    assert [p["question"] for p in state["pending_clarifications"]] == [
        "Both cannot hold for one appointment: do you mean after 10:00 am, or before 8:00 am?"]
    answered = fold("book a cardiology follow-up after 10 or before 8", "after 10 then")
    assert answered["earliest_time"] == "10:00" and answered["pending_clarifications"] == []
    corrected = fold("book a cardiology follow-up after 10", "before 8 actually")
    assert corrected["earliest_time"] is None and corrected["latest_time"] == "08:00"
    assert "earliest_time" not in corrected["sources"]
    assert fold("book cardiology after 10", "before 4pm")["earliest_time"] == "10:00"


@pytest.mark.parametrize("reply, earliest, open_question", [
    ("3am? no way, pm", "15:00", False),
    ("3 in the morning? God no. afternoon", "15:00", False),
    ("3am? no", None, True),  # refused, not chosen: the question stays
    ("3am? yes", "03:00", False),
])
def test_a_reading_echoed_and_refused_is_not_the_answer(reply, earliest, open_question):
    state = fold("book a cardiology follow-up after 3", reply)
    assert state["earliest_time"] == earliest and bool(state["pending_clarifications"]) is open_question


@pytest.mark.parametrize("text, specialty, preferred_days, excluded_periods", [
    ("Monday? no, Tuesday", None, ("tuesday",), ()),
    ("Cardiology? no, dermatology", "dermatology", (), ()),
    ("Is Monday possible? no mornings though", None, ("monday",), ("morning",)),  # this "no" still negates
    ("Is there anything Monday? no worries if not", None, ("monday",), ()),
])
def test_a_choice_echoed_and_refused_is_not_taken(text, specialty, preferred_days, excluded_periods):
    p = parse_turn(text)
    assert (p.specialty, p.preferred_days, p.excluded_periods) == (specialty, preferred_days, excluded_periods)


@pytest.mark.parametrize("text, preferred, excluded", [
    # a day refused with its week is one date, never every such weekday
    ("not this Monday, next Monday", ("monday",), ()),
    ("I can't do this Friday", (), ()),
    ("next Monday is out", (), ()),
    # a date said relative to today cannot be matched to a weekday, nor its part of the day widened to every day
    ("tomorrow please", (), ()),
    ("not tomorrow morning", (), ()),
    ("I'd like a check-up next week", (), ()),
    ("in two weeks, any day but Friday", (), ("friday",)),
    # a day as a point in time is a date range, never that weekday wanted or refused
    ("I'm away until Friday, anything after that is fine", (), ()),
    ("any day after Tuesday", (), ()),  # Tuesday was preferred
    ("not before Wednesday", (), ()),  # Wednesday was refused
    ("I'm free from Monday", (), ()),
])
def test_days_said_relative_to_today_are_asked_about(text, preferred, excluded):
    p = parse_turn(text)
    assert p.preferred_days == preferred and p.excluded_days == excluded
    assert p.excluded_periods == () and p.excluded_day_periods == ()
    assert [c.code for c in p.clarifications] == ["relative_day"]
    assert memory_facts(p) == []  # "in two weeks, any day but Friday" refuses that week's Friday, not every Friday


@pytest.mark.parametrize("text, preferred, excluded, times", [
    # a calendar date is no weekday, its day number no clock time, and "on the 3rd" no choice among offers
    ("on 14 December please", (), (), ()),
    ("December 14th at 10", (), (), ("10:00",)),
    ("14/12 if possible", (), (), ()),
    ("I'm away until the 20th", (), (), ()),
    ("on the 3rd at 2pm", (), (), ("14:00",)),
    ("any Tuesday in March", ("tuesday",), (), ()),
    ("Thursdays are fine but not on the 24th", ("thursday",), (), ()),
    ("2027-01-14 please", (), (), ()),
])
def test_calendar_dates_are_asked_about_and_never_read_as_times_or_choices(text, preferred, excluded, times):
    p = parse_turn(text)
    assert (p.preferred_days, p.excluded_days, p.reference.times, p.reference.ordinal) == (
        preferred, excluded, times, None)
    assert [c.code for c in p.clarifications] == ["relative_day"]
    assert "not by a date" in p.clarifications[0].question


@pytest.mark.parametrize("text, preferred, excluded, times", [
    # a part of the day refused with the time that bounds it refuses that time, never the whole part of the day
    ("no mornings before 10", (), (), (("earliest_time", "10:00"),)),
    ("I can't do mornings before 10 but afternoons are fine", ("afternoon",), (), (("earliest_time", "10:00"),)),
    ("mornings before 10 are no good", (), (), (("earliest_time", "10:00"),)),
    ("afternoons after 3 don't work", (), (), (("latest_time", "15:00"),)),
    ("Mornings after 9:30 please", ("morning",), (), (("earliest_time", "09:30"),)),
    ("not mornings", (), ("morning",), ()),
    # and it says which half of the day a bare hour is in
    ("evenings after 6", ("evening",), (), (("earliest_time", "18:00"),)),
    ("afternoons between 2 and 4", ("afternoon",), (), (("earliest_time", "14:00"), ("latest_time", "16:00"))),
    ("mornings before 7 only", ("morning",), (), (("latest_time", "07:00"),)),
])
def test_a_part_of_the_day_bounded_by_a_time(text, preferred, excluded, times):
    p = parse_turn(text)
    assert (p.preferred_periods, p.excluded_periods) == (preferred, excluded)
    assert tuple((t.kind, t.time) for t in p.times) == times and p.clarifications == ()


@pytest.mark.parametrize("text, intent, preferred_days, preferred_periods", [
    # the day (and time) of the appointment already held says where it is, never when the patient can come
    ("move my Tuesday appointment to Thursday", "reschedule", ("thursday",), ()),
    ("I'd like to cancel Tuesday's appointment", "cancel", (), ()),
    ("can I change my Monday 9am appointment to the afternoon", "reschedule", (), ("afternoon",)),
    ("reschedule my appointment on Friday to Monday", "reschedule", ("monday",), ()),
    ("I have an appointment on Wednesday already, can I get another on Friday", None, ("friday",), ()),
    # a wish or a choice is no appointment held
    ("I'd like an appointment on Friday please", "book", ("friday",), ()),
    ("book the Tuesday one", "book", ("tuesday",), ()),
])
def test_the_appointment_already_held_is_not_a_preference(text, intent, preferred_days, preferred_periods):
    p = parse_turn(text)
    assert (p.intent, p.preferred_days, p.preferred_periods, p.reference.times) == (
        intent, preferred_days, preferred_periods, ())


def test_neither_refuses_both():
    p = parse_turn("neither Monday nor Tuesday")  # both were preferred
    assert (p.preferred_days, p.excluded_days) == ((), ("monday", "tuesday"))
    p = parse_turn("neither mornings nor evenings work")
    assert (p.preferred_periods, p.excluded_periods) == ((), ("morning", "evening"))


@pytest.mark.parametrize("text, ordinal", [
    ("the 2nd one please", 2), ("I'll take the 3rd", 3), ("the first slot", 1), ("the 14th one", None),
])
def test_a_choice_among_offers_is_not_a_date(text, ordinal):
    p = parse_turn(text)
    assert p.reference.ordinal == ordinal and p.clarifications == ()


def test_a_date_is_asked_about_until_a_weekday_answers_it():
    state = fold("book a cardiology follow-up on 14 December")
    assert next_action(state) == "ask_clarifying_question" and state["preferred_days"] == []
    answered = fold("book a cardiology follow-up on 14 December", "Monday then")
    assert answered["preferred_days"] == ["monday"] and answered["pending_clarifications"] == []


def test_a_weekday_answers_the_relative_day_question():
    state = fold("book a cardiology follow-up tomorrow please")
    assert next_action(state) == "ask_clarifying_question"
    assert state["preferred_days"] == [] and state["excluded_days"] == []
    answered = fold("book a cardiology follow-up tomorrow please", "Thursday then")
    assert answered["preferred_days"] == ["thursday"] and answered["pending_clarifications"] == []
    assert next_action(answered) == "search_slots"
    assert parse_turn("next Monday please").clarifications == ()  # a day wanted with its week stays that weekday
    for days in ("available Monday to Friday", "from Monday to Wednesday", "from Monday or Tuesday"):
        assert parse_turn(days).clarifications == () and parse_turn(days).preferred_days  # the days they name


@pytest.mark.parametrize("text, preferred_periods", [
    ("I can't do lunchtime", ()),  # an exclusion: never lost silently
    ("first thing please", ()),
    ("after lunch if possible", ()),
    ("late afternoon please", ("afternoon",)),
    ("early morning", ("morning",)),
    ("not too early please", ()),
    ("nothing too late, I need to get the bus", ()),
    ("I finish work at 5 so anything after that", ()),  # a time said by pointing back at another
    ("not during school hours", ()),  # times named by the day's other commitments
    ("only after work", ()),
    ("before the school run please", ()),
])
def test_a_time_of_day_in_words_is_asked_about(text, preferred_periods):
    p = parse_turn(text)
    assert p.times == () and p.preferred_periods == preferred_periods and p.excluded_periods == ()
    assert [c.code for c in p.clarifications] == ["vague_time"]
    state = fold("book a cardiology follow-up", text)
    assert next_action(state) == "ask_clarifying_question"
    answered = fold("book a cardiology follow-up", text, "after 2pm")
    assert answered["earliest_time"] == "14:00" and next_action(answered) == "search_slots"


def test_a_time_of_day_in_words_with_its_time_or_answering_a_question_asks_nothing():
    assert parse_turn("after lunch, so after 1pm").clarifications == ()
    state = fold("book a cardiology follow-up after 3", "the later one, late afternoon")
    assert state["earliest_time"] == "15:00" and state["pending_clarifications"] == []


@pytest.mark.parametrize("turns, expected", [
    (("after 2pm", "actually, any time is fine"), {"earliest_time": None}),
    (("mornings please, before 11am", "whenever suits, really"), {"preferred_period": None, "latest_time": None}),
    (("Thursday afternoon", "any time is fine"), {"preferred_days": ["thursday"], "preferred_day_periods": []}),
    (("Thursday please", "any day works"), {"preferred_days": []}),
    (("Thursday afternoon", "any day is fine actually"),
     {"preferred_period": "afternoon", "preferred_day_periods": []}),
    (("after 3", "any time really"), {"earliest_time": None, "pending_clarifications": []}),
    # exclusions are lifted only by naming them again
    (("no mornings, not Mondays", "any time is fine, any day"), {"excluded_periods": ["morning"],
                                                                 "excluded_days": ["monday"]}),
    # a constraint, not a lift
    (("Thursday please", "any day but Friday"), {"preferred_days": ["thursday"], "excluded_days": ["friday"]}),
    (("after 2pm", "any time but mornings"), {"earliest_time": "14:00", "excluded_periods": ["morning"]}),
])
def test_any_time_or_any_day_said_later_lifts_what_was_said_before(turns, expected):
    state = fold("book a cardiology follow-up", *turns)
    assert {k: state[k] for k in expected} == expected
    assert next_action(state) == "search_slots"


def pairs(*values: str) -> list[dict]:
    return [dict(zip(("day", "period"), v.split(), strict=True)) for v in values]


@pytest.mark.parametrize("turns, expected", [
    (("Thursday please", "Friday works too"), {"preferred_days": ["thursday", "friday"]}),
    (("Thursday please", "or Friday?"), {"preferred_days": ["thursday", "friday"]}),
    (("Thursday please", "Friday then"), {"preferred_days": ["friday"]}),  # a change, not an addition
    (("Thursday afternoon", "Friday morning would work as well"),
     {"preferred_day_periods": pairs("thursday afternoon", "friday morning")}),
    (("Thursday afternoon", "Friday too"),
     {"preferred_day_periods": pairs("thursday afternoon", "friday morning", "friday afternoon", "friday evening"),
      "preferred_days": []}),
    (("Thursday please", "I also can't do Friday"), {"preferred_days": ["thursday"], "excluded_days": ["friday"]}),
])
def test_a_day_wanted_too_is_added_to_those_wanted_before(turns, expected):
    state = fold("book a cardiology follow-up", *turns)
    assert {k: state[k] for k in expected} == expected


@pytest.mark.parametrize("text", ["after tenish please", "after 10ish", "before noonish", "not before about nineish"])
def test_a_time_that_cannot_be_read_is_asked_about_never_lost(text):
    p = parse_turn(text)
    assert p.times == () and [c.code for c in p.clarifications] == ["unreadable_time"]
    assert next_action(fold("book a cardiology follow-up", text)) == "ask_clarifying_question"
    answered = fold("book a cardiology follow-up", text, "after 4:30pm then")
    assert next_action(answered) == "search_slots" and answered["pending_clarifications"] == []


@pytest.mark.parametrize("text", ["after 30 minutes", "after ten minutes", "after 2pm", "by the way, Thursday"])
def test_durations_and_readable_times_ask_nothing(text):
    assert parse_turn(text).clarifications == ()


def test_a_time_answers_the_open_question():
    state = fold("book a cardiology follow-up after 3", "pm")
    assert state["earliest_time"] == "15:00" and state["pending_clarifications"] == []
    state = fold("book a cardiology follow-up after 3", "I meant 3 am")
    assert state["earliest_time"] == "03:00"
    state = fold("book a cardiology follow-up after 3")
    assert next_action(state) == "ask_clarifying_question"


OFFER = {"role": "tool", "tool_name": OFFER_TOOL, "tool_result": {"offers": [
    {"slot_id": "A1", "start": "2031-01-09T14:00", "day": "thursday", "time": "14:00"},
    {"slot_id": "A4", "start": "2031-01-09T16:30", "day": "thursday", "time": "16:30"}]}}


@pytest.mark.parametrize("reply, chosen", [
    ("I'll take the first one", "A1"),
    ("the last one please", "A4"),
    ("A4 please", "A4"),
    ("the 2 o'clock one", "A1"),
    ("16:30 works", "A4"),
    ("yes", None),  # two offers: "yes" does not say which
    # a slot named to reject it is never the one selected
    ("not the 2 o'clock one", None),
    ("I can't make 16:30", None),
    ("16:30 is too late", None),
    ("the first one won't work", None),
    ("not A4", None),
    ("A1 is no good", None),
    ("not the first, the second", "A4"),
    ("can I have the 16:30 instead of the 2 o'clock", "A4"),  # the one named after "instead of" is turned down
    ("the 4:30pm rather than the 2pm", "A4"),
    # the ordinal alone, or the option's number (never 2 o'clock)
    ("2nd please", "A4"),
    ("option 2", "A4"),
    ("number 1 please", "A1"),
    # a number that is part of another time is not an hour ("half past 2" is not 2 o'clock)
    ("anything before half past 2", None),
    ("before quarter to 2", None),
    ("ten to 2 would be ideal", None),
    ("switch to 16:30 please", "A4"),  # "to" alone is no part of a time
    # a time refused in another language is not chosen either
    ("nicht um 16:30 bitte", None),
    ("pas à 16:30", None),
    ("nie o 16:30", None),
    ("não às 16:30", None),
    ("um 16:30 bitte", "A4"),
])
def test_follow_up_references_resolve_against_the_offers(reply, chosen):
    state = fold(SEED_TURN_1, SEED_TURN_2, OFFER, reply)
    assert state["selected_slot_id"] == chosen
    # a time the parser cannot read ("before half past 2") is asked about rather than dropped
    unread = "half past" in reply or "quarter to" in reply
    assert next_action(state) == ("confirm_selection" if chosen else
                                  "ask_clarifying_question" if unread else "select_slot")


ONE_OFFER = {"role": "tool", "tool_name": OFFER_TOOL, "tool_result": {"offers": [
    {"slot_id": "A1", "start": "2031-01-09T14:00", "day": "thursday", "time": "14:00"}]}}


def test_accepting_the_one_offer_takes_a_plain_yes():
    """With one slot offered, "yes" takes it; "ok" or "sure" before a question, an alternative or a refusal takes
    nothing."""
    taken = ["yes", "yes please book it", "that works", "ok no problem, book it"]
    not_taken = ["ok, what else do you have?", "ok but do you have anything later?", "sure, but not that one",
                 "that one doesn't work", "ok I'll think about it", "sounds good but can I do 3pm instead?"]
    chosen = {reply: fold(SEED_TURN_1, SEED_TURN_2, ONE_OFFER, reply)["selected_slot_id"]
              for reply in taken + not_taken}
    assert chosen == {**dict.fromkeys(taken, "A1"), **dict.fromkeys(not_taken)}


THREE_OFFERS = {**OFFER, "tool_result": {"offers": [
    {"slot_id": "A2", "start": "2031-01-09T09:00", "day": "thursday", "time": "09:00"},
    {"slot_id": "T2", "start": "2031-01-07T14:30", "day": "tuesday", "time": "14:30"},
    OFFER["tool_result"]["offers"][0]]}}


@pytest.mark.parametrize("reply, chosen", [
    # a day or part of the day that names one of the offers is a choice among them, not a new search
    ("the Tuesday one", "T2"),
    ("Tuesday please", "T2"),
    ("Thursday afternoon", "A1"),
    ("the morning one", "A2"),
    ("Thursday at 2", "A1"),
    ("Thursday at 9", "A2"),
    # "2:30" said without am/pm is the offer at 14:30 (no offer is at 02:30)
    ("the 2:30 one", "T2"),
    ("2.30 please", "T2"),
])
def test_a_day_or_time_naming_one_offer_selects_it(reply, chosen):
    state = fold("book a cardiology follow-up", THREE_OFFERS, reply)
    assert state["selected_slot_id"] == chosen and state["last_offer"] is not None
    assert next_action(state) == "confirm_selection"
    assert state["preferred_days"] == [] and state["preferred_period"] is None


@pytest.mark.parametrize("reply", ["the Thursday one", "the afternoon one", "Friday please", "not Tuesday"])
def test_a_day_naming_several_offers_or_none_is_a_new_constraint(reply):
    state = fold("book a cardiology follow-up", THREE_OFFERS, reply)
    assert state["selected_slot_id"] is None and state["last_offer"] is None
    assert next_action(state) == "search_slots"


def test_new_constraints_make_offers_stale():
    state = fold(SEED_TURN_1, SEED_TURN_2, OFFER, "actually, Friday instead")
    assert state["last_offer"] is None and state["preferred_days"] == ["friday"]
    assert next_action(state) == "search_slots"


def test_offer_constraints_combine_the_session_and_long_term_preferences():
    state = fold(SEED_TURN_1, SEED_TURN_2)
    standing = [{"kind": "earliest_time", "time": "10:00", "memory_id": "m1"},
                {"kind": "excluded_days", "days": ["friday"], "memory_id": "m2"}]
    c = offer_constraints(state, standing)
    assert c["earliest_time"] == "10:00" and c["sources"]["earliest_time"] == ["memory:m1"]
    assert c["excluded_periods"] == ["morning"] and c["excluded_days"] == ["friday"]
    slot = {"slot_id": "x", "day": "thursday", "time": "14:00"}
    assert slot_matches(slot, c)
    assert not slot_matches({**slot, "time": "09:00"}, c)
    assert not slot_matches({**slot, "day": "monday"}, c)
    # a time stated in the conversation overrides the long-term value of the same kind
    c = offer_constraints(fold(SEED_TURN_1, "after 11:30 on Thursday"), standing)
    assert c["earliest_time"] == "11:30" and c["sources"]["earliest_time"] == ["turn:2"]


# --- preferences between alternatives: the first-preferred wins, not the last named ----------------------------

@pytest.mark.parametrize("text, preferred", [
    # prefer X to / over / rather than Y
    ("I prefer mornings to afternoons", "morning"),
    ("I'd prefer the morning to the afternoon", "morning"),
    ("i prefer mornings over afternoons tbh", "morning"),
    ("I prefer afternoons rather than mornings", "afternoon"),
    ("I'd prefer an evening appointment to a morning one", "evening"),
    ("prefer afternoon to morning please", "afternoon"),
    ("I much prefer evenings to mornings", "evening"),
    ("I'd like a morning rather than an afternoon", "morning"),
    ("I want afternoons more than mornings", "afternoon"),
    ("I'd take an afternoon over a morning any day", "afternoon"),
    ("I'd choose mornings over evenings", "morning"),
    # X is / are better (easier, more convenient, ...) than Y
    ("Mornings are better than afternoons", "morning"),
    ("mornings are better for me than afternoons", "morning"),
    ("Morning is better than afternoon for me", "morning"),
    ("Mornings suit me better than afternoons", "morning"),
    ("afternoons suit me better than mornings", "afternoon"),
    ("evenings work better than mornings", "evening"),
    ("an afternoon would be easier than a morning", "afternoon"),
    ("Afternoons are more convenient than mornings", "afternoon"),
    ("mornings are much easier than evenings with the kids", "morning"),
    ("the afternoon is nicer than the morning for me", "afternoon"),
    ("Evenings are simpler than afternoons", "evening"),
    ("morning's better than afternoon", "morning"),
    ("afternoons are way better than mornings", "afternoon"),
    # Y is worse (harder, ...) than X
    ("afternoons are worse than mornings", "morning"),
    ("mornings are harder than afternoons for me", "afternoon"),
    ("evenings are more difficult than mornings", "morning"),
    ("mornings are less convenient than afternoons", "afternoon"),
    ("the afternoon is trickier than the morning", "morning"),
    # rather X than Y; X over / instead of Y
    ("I'd rather come in the morning than the afternoon", "morning"),
    ("I would rather do afternoons than mornings", "afternoon"),
    ("rather evenings than mornings", "evening"),
    ("I'd sooner come in the morning rather than the evening", "morning"),
    ("mornings over afternoons", "morning"),
    ("afternoon instead of morning please", "afternoon"),
    ("evening rather than afternoon", "evening"),
    ("morning in preference to afternoon", "morning"),
    # ideally X, otherwise Y
    ("ideally mornings, otherwise afternoons", "morning"),
    ("preferably an afternoon, but a morning would do", "afternoon"),
    ("mornings if possible, afternoons if not", "morning"),
    ("an afternoon ideally, or failing that a morning", "afternoon"),
    ("evenings first, then afternoons", "evening"),
    ("afternoon is my first choice, morning second choice", "afternoon"),
    ("mornings by preference, afternoons as a backup", "morning"),
    ("morning if you can, evening at a push", "morning"),
    # not Y / anything but Y
    ("anything but afternoons, mornings are great", "morning"),
    ("not afternoons, mornings please", "morning"),
    ("mornings, not evenings", "morning"),
    ("afternoons please, not mornings", "afternoon"),
    ("no mornings, afternoons are fine", "afternoon"),
])
def test_preferences_between_periods_keep_the_first_preferred(text, preferred):
    p = parse_turn(text)
    assert p.preferred_periods == (preferred,), p
    state = fold(text)
    assert state["preferred_period"] == preferred


@pytest.mark.parametrize("text, preferred", [
    ("I prefer Tuesdays to Thursdays", ("tuesday",)),
    ("Mondays are better than Fridays", ("monday",)),
    ("Wednesday suits me better than Thursday", ("wednesday",)),
    ("I'd rather come on a Friday than a Monday", ("friday",)),
    ("Thursday over Tuesday please", ("thursday",)),
    ("Fridays are harder than Tuesdays", ("tuesday",)),
    ("ideally Monday, otherwise Wednesday", ("monday",)),
    ("weekdays are better than weekends", ("monday", "tuesday", "wednesday", "thursday", "friday")),
    ("Saturday rather than Sunday", ("saturday",)),
    ("Tuesday instead of Thursday", ("tuesday",)),
])
def test_preferences_between_days_keep_the_first_preferred(text, preferred):
    assert parse_turn(text).preferred_days == preferred


@pytest.mark.parametrize("text, preferred", [
    ("mornings or afternoons are both fine", ("morning", "afternoon")),
    ("I can do mornings and afternoons", ("morning", "afternoon")),
    ("the afternoon", ("afternoon",)),
    ("Good morning! Is there anything in the afternoon?", ("afternoon",)),
])
def test_no_comparison_changes_nothing(text, preferred):
    assert parse_turn(text).preferred_periods == preferred


def test_a_comparison_never_books_an_excluded_period():
    state = fold("I can't do evenings", "mornings are better than afternoons")
    assert state["preferred_period"] == "morning" and state["excluded_periods"] == ["evening"]


# --- answers to a clarifying question --------------------------------------------------------------------------

@pytest.mark.parametrize("answer, expected", [
    # the afternoon reading
    ("I meant 3 in the afternoon", "15:00"),
    ("PM, sorry", "15:00"),
    ("pm sorry", "15:00"),
    ("p.m.", "15:00"),
    ("P.M. please", "15:00"),
    ("pm", "15:00"),
    ("3 pm", "15:00"),
    ("3pm obviously", "15:00"),
    ("15:00", "15:00"),
    ("15:00 please", "15:00"),
    ("the afternoon one", "15:00"),
    ("afternoon", "15:00"),
    ("in the afternoon", "15:00"),
    ("afternoon, sorry!", "15:00"),
    ("oh sorry, I meant the afternoon", "15:00"),
    ("Afternoon of course", "15:00"),
    ("definitely pm", "15:00"),
    ("the second", "15:00"),
    ("the second one", "15:00"),
    ("the latter", "15:00"),
    ("the later one", "15:00"),
    ("3 o'clock in the afternoon", "15:00"),
    ("not the morning one", "15:00"),
    ("not am", "15:00"),
    ("sorry, 3 in the afternoon", "15:00"),
    ("yes, pm", "15:00"),
    ("I meant pm, my bad", "15:00"),
    ("3:00 pm", "15:00"),
    # the morning reading
    ("am", "03:00"),
    ("a.m.", "03:00"),
    ("I meant 3 am", "03:00"),
    ("in the morning", "03:00"),
    ("the morning one", "03:00"),
    ("the first one", "03:00"),
    ("the first", "03:00"),
    ("03:00", "03:00"),
    ("3 in the morning, I work nights", None),  # says more than the answer: asked again, never guessed
])
def test_answers_to_an_am_pm_question_fill_the_slot(answer, expected):
    state = fold("book a cardiology follow-up after 3", answer)
    if expected is None:
        assert state["earliest_time"] in (None, "03:00")
        return
    assert state["earliest_time"] == expected, (answer, state["pending_clarifications"])
    assert state["pending_clarifications"] == []
    assert next_action(state) == "search_slots"


@pytest.mark.parametrize("answer", ["the afternoon one", "PM, sorry", "not the morning one", "in the afternoon"])
def test_an_answer_about_the_hour_is_not_a_period_preference(answer):
    state = fold("book a cardiology follow-up before 5", answer)
    assert state["latest_time"] == "17:00"
    assert state["preferred_period"] is None and state["excluded_periods"] == []


@pytest.mark.parametrize("answer", ["thursday please", "what times do you have?", "I'm not sure", "mornings"])
def test_what_does_not_answer_the_question_leaves_it_open(answer):
    state = fold("book a cardiology follow-up after 3", answer)
    assert state["earliest_time"] is None
    assert [p["code"] for p in state["pending_clarifications"]] == ["ambiguous_time"]


@pytest.mark.parametrize("text, expected", [
    ("after 3 in the afternoon", [(EARLIEST, "15:00")]),
    ("before 5 in the evening", [(LATEST, "17:00")]),
    ("not before 9 in the morning", [(EARLIEST, "09:00")]),
    ("no later than 4 o'clock in the afternoon", [(LATEST, "16:00")]),
    ("until 8 at night", [(LATEST, "20:00")]),
])
def test_a_time_with_its_part_of_the_day_is_not_ambiguous(text, expected):
    assert times(text) == expected
    assert parse_turn(text).preferred_periods == ()


def test_a_long_message_naming_thousands_of_times_is_read_in_time_linear_in_its_length():
    """A turn may hold CONVERSATION_MAX_CONTENT_CHARS (8,000) characters. Each time, slot id or ordinal in it looked
    for its clause from the first, for a negation from its clause's start and for "half past" from the message's
    start: a patient's or agent's turn of "1,1,1,..." or "A1 A1 ..." took about 3 s of CPU to read (quadratic), so
    a few such turns a second held every worker. Each is now read in CPU time linear in its length (measured in CPU
    time, as a ratio: a bound of 2 s on the wall clock failed on a loaded machine)."""
    for unit in ("1,", "#12 ", "A1 ", "at 9 "):
        assert_linear(parse_turn, unit, chars=8000)
    # and what is read is read as before: a negation at the start of a long clause still reaches its end
    long_clause = "i can't do " + "any of the days that we talked about last week or the one " * 5 + "at 9"
    assert parse_turn(long_clause).as_dict()["reference"]["times"] == ()
    assert parse_turn(long_clause.replace("can't", "can")).as_dict()["reference"]["times"] == ("09:00",)
