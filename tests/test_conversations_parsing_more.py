"""The turn parser (conversations.parsing) on messages as patients type them and booking agents relay them:
texting forms, short day ranges, digit times and ranges, misspelt days, a held appointment named by its day, and a
part of the day whose days are unclear (tests/test_conversations_parsing.py holds the rest)."""

from __future__ import annotations

import pytest

from conversations.parsing import EARLIEST, LATEST, memory_facts, parse_turn
from tests.cpu_time import assert_linear

WEEKDAYS = ("monday", "tuesday", "wednesday", "thursday", "friday")


def questions(text: str) -> list[str]:
    return [c.code for c in parse_turn(text).clarifications]


@pytest.mark.parametrize("text, preferred, excluded", [
    ("mornings dont work", (), ("morning",)),
    ("mornings no good", (), ("morning",)),
    ("mornings r bad", (), ("morning",)),
    ("evenings arent good for me", (), ("evening",)),
])
def test_a_negation_typed_without_its_apostrophe_still_excludes_the_period(text, preferred, excluded):
    """"mornings dont work" (no apostrophe, as typed on a phone) and "mornings no good" excluded mornings only when
    spelt "don't" or "are no good"; otherwise they were read as a wish for mornings, the opposite of what was said."""
    p = parse_turn(text)
    assert (p.preferred_periods, p.excluded_periods) == (preferred, excluded)


@pytest.mark.parametrize("text, preferred, excluded", [
    ("monday doesnt work", (), ("monday",)),
    ("mondays wont work for me", (), ("monday",)),
    ("friday isnt good", (), ("friday",)),
    ("Monday not possible", (), ("monday",)),
    ("monday not tuesday", ("monday",), ("tuesday",)),
])
def test_a_day_refused_in_texting_words_is_excluded_not_wanted(text, preferred, excluded):
    """"monday doesnt work" was a wish for Monday: the day refused without an apostrophe or a verb is excluded."""
    p = parse_turn(text)
    assert (p.preferred_days, p.excluded_days) == (preferred, excluded)


def test_times_refused_in_texting_words_keep_their_direction():
    """"i cant do b4 10" is an earliest time of 10:00, as "I can't do before 10" is ("b4" was lost)."""
    assert [(t.kind, t.time) for t in parse_turn("i cant do b4 10").times] == [(EARLIEST, "10:00")]
    assert [(t.kind, t.time) for t in parse_turn("after 4pm doesnt work").times] == [(LATEST, "16:00")]


@pytest.mark.parametrize("text", ["tmrw morning", "2moro", "tomorow afternoon", "tommorow pls"])
def test_tomorrow_spelt_as_typed_is_asked_about_not_read_as_every_morning(text):
    """"tmrw morning" preferred every morning (the day was lost); a day said relative to today is asked about."""
    p = parse_turn(text)
    assert questions(text) == ["relative_day"]
    assert p.preferred_periods == () and p.preferred_days == ()


def test_a_period_refused_in_texting_words_is_proposed_as_an_exclusion():
    """What is kept for the long term follows the reading: "mornings dont work" proposes excluded mornings."""
    assert memory_facts(parse_turn("mornings dont work")) == [{"kind": "excluded_periods", "periods": ["morning"]}]


def window(text: str) -> list[tuple[str, str]]:
    return [(t.kind, t.time) for t in parse_turn(text).times]


@pytest.mark.parametrize("text, expected", [
    ("from 10 to 12", [(EARLIEST, "10:00"), (LATEST, "12:00")]),
    ("between 10 to 12", [(EARLIEST, "10:00"), (LATEST, "12:00")]),
    ("10 to 12 works", [(EARLIEST, "10:00"), (LATEST, "12:00")]),
    ("from 9:30 to 11:30", [(EARLIEST, "09:30"), (LATEST, "11:30")]),
    ("9:30 to 10:30", [(EARLIEST, "09:30"), (LATEST, "10:30")]),
    ("from 10:30 to 12", [(EARLIEST, "10:30"), (LATEST, "12:00")]),
    # said in words, "ten to twelve" is still 11:50, and "20 to 4" (minutes before the hour) 3:40
    ("ten to 12 at the latest", [(LATEST, "11:50")]),
    ("20 to 4pm at the latest", [(LATEST, "15:40")]),
])
def test_an_hour_to_a_later_hour_in_digits_is_a_window_not_minutes_to_the_hour(text, expected):
    """"from 10 to 12" was read as "ten to twelve", an earliest time of 11:50 and no latest time; "from 9:30 to
    11:30" as "9:10:30:30" (the minutes of 9:30 taken as minutes to 11) and "9:30 to 10:30" was lost."""
    assert window(text) == expected


@pytest.mark.parametrize("text, expected", [
    ("0930", []),
    ("after 0930", [(EARLIEST, "09:30")]),
    ("before 1430", [(LATEST, "14:30")]),
    ("from 0900 to 1100", [(EARLIEST, "09:00"), (LATEST, "11:00")]),
    ("0930-1130", [(EARLIEST, "09:30"), (LATEST, "11:30")]),
    ("not before 1415 hrs", [(EARLIEST, "14:15")]),
    ("in 2027", []),
    ("my number ends 1234", []),
])
def test_four_digit_times_are_read_as_clock_times(text, expected):
    """"after 0930" and "before 1430" were only asked about (unreadable_time) and "0930-1130" was lost: four digits
    are HH:MM where nothing else could be meant (a leading zero, hrs, a relation or a range); a year or another
    number is not a time."""
    assert window(text) == expected


def test_a_four_digit_time_alone_names_an_offer_and_dates_keep_their_digits():
    """"0930" alone points at the 09:30 offer; a date written with its year is still a date (asked about)."""
    assert parse_turn("0930 please").reference.times == ("09:30",)
    assert parse_turn("14/12/2026").reference.times == () and questions("14/12/2026") == ["relative_day"]
    assert questions("on 2026-12-14") == ["relative_day"]


@pytest.mark.parametrize("text, expected, asked", [
    ("10-12", [(EARLIEST, "10:00"), (LATEST, "12:00")], []),
    ("any time 10-12 please", [(EARLIEST, "10:00"), (LATEST, "12:00")], []),
    ("between 10-12", [(EARLIEST, "10:00"), (LATEST, "12:00")], []),
    ("10.30 to 11", [(EARLIEST, "10:30"), (LATEST, "11:00")], []),
    ("2-4", [], ["ambiguous_time", "ambiguous_time"]),
    ("12-15 people", [], []),
    ("I'll be 5-10 minutes late", [], []),
    ("1-2 tablets a day", [], []),
])
def test_a_bare_range_of_hours_is_a_window(text, expected, asked):
    """"10-12" was no time at all (only its two hours as offers pointed at): two hours in order are a window, its
    ends read as any hour is (2-4 asked am or pm); numbers of something ("5-10 minutes") stay numbers."""
    assert window(text) == expected and questions(text) == asked


@pytest.mark.parametrize("text, preferred, excluded", [
    ("M-F", WEEKDAYS, ()),
    ("m-f only please", WEEKDAYS, ()),
    ("Tu-Th", ("tuesday", "wednesday", "thursday"), ()),
    ("tu/th", ("tuesday", "thursday"), ()),
    ("m/w/f", ("monday", "wednesday", "friday"), ()),
    ("sat or sun", ("saturday", "sunday"), ()),
    ("fri-sun", ("friday", "saturday", "sunday"), ()),
    ("not sun", (), ("sunday",)),
    ("I sat in the sun", (), ()),
    ("sex: m/f", (), ()),
])
def test_days_written_short_are_the_days_they_name(text, preferred, excluded):
    """"M-F", "tu/th" and "sat or sun" named no day at all (and "fri-sun" only Friday): letters in a range or a
    list of them, and "sat"/"sun" beside another day or after "on", "not" and the like, are days."""
    p = parse_turn(text)
    assert (p.preferred_days, p.excluded_days) == (preferred, excluded)


def test_a_short_day_range_keeps_the_part_of_the_day_said_with_it():
    """"M-Th mornings" preferred every morning (the days were lost): it is the mornings of Monday to Thursday."""
    pairs = parse_turn("M-Th mornings").preferred_day_periods
    assert [(d["day"], d["period"]) for d in pairs] == [(day, "morning") for day in WEEKDAYS[:4]]


@pytest.mark.parametrize("text, intent, preferred", [
    ("cancel Tuesday", "cancel", ()),
    ("cancel my thursday 10am please", "cancel", ()),
    ("can you cancel the one on tuesday", "cancel", ()),
    ("i need to cancel for wednesday", "cancel", ()),
    ("cancel thursday and book friday", "reschedule", ("friday",)),
    ("I want to book Tuesday", "book", ("tuesday",)),
])
def test_the_day_cancelled_is_the_appointment_held_never_a_day_wanted(text, intent, preferred):
    """"cancel Tuesday" preferred Tuesday, and "cancel thursday and book friday" preferred Thursday and Friday
    (Thursday could be offered again): the day after "cancel" is the appointment held, read out as "cancel
    Tuesday's appointment" is."""
    p = parse_turn(text)
    assert (p.intent, p.preferred_days, p.excluded_days) == (intent, preferred, ())
    assert p.reference.times == ()


@pytest.mark.parametrize("text, preferred", [
    ("I can't make Thursday any more", ()),
    ("i cant make thursday anymore", ()),
    ("I can no longer make Tuesday", ()),
    ("I can't come in on friday any more", ()),
])
def test_a_day_that_can_no_longer_be_made_cancels_the_appointment_held(text, preferred):
    """"I can't make Thursday any more" said nothing of the appointment (no intent) and refused every Thursday,
    proposed to be kept as a standing preference: it is the appointment held that cannot be made (cancel), its
    day no wish and no refusal."""
    p = parse_turn(text)
    assert (p.intent, p.preferred_days, p.excluded_days) == ("cancel", preferred, ())
    assert memory_facts(p) == []


def test_a_day_refused_without_any_more_stays_refused():
    """Without "any more" or "no longer" a day that cannot be made is a constraint on this booking, as before."""
    p = parse_turn("I can't make Tuesday")
    assert (p.intent, p.excluded_days) == (None, ("tuesday",))
    assert parse_turn("I can't do mornings any more").excluded_periods == ("morning",)


def test_a_list_of_days_or_periods_is_read_in_time_linear_in_its_length():
    """"mornings or mornings or ..." 20 times (240 characters) took 9 s of CPU to read and 25 times minutes (what
    follows a term was tried split inside its words: exponential), and "monday or " 800 times (a full 8,000
    character turn) seconds (each listed day read the rest of the list again). A turn any patient or agent may send
    held a worker; each is now read in CPU time linear in its length."""
    for unit in ("mornings or ", "evenings and ", "monday or ", "sat or sun or ", "monday's, "):
        assert_linear(parse_turn, unit, chars=8000)


@pytest.mark.parametrize("text, pairs, excluded_days", [
    ("Tuesday and Thursday mornings", [("tuesday", "morning"), ("thursday", "morning")], ()),
    ("I'm free but mondays and fridays don't work", [], ("monday", "friday")),
    ("Monday morning or Tuesday and Friday evenings",
     [("monday", "morning"), ("tuesday", "evening"), ("friday", "evening")], ()),
])
def test_lists_of_days_keep_their_reading(text, pairs, excluded_days):
    """Read linearly, a list still shares its part of the day and its refusal after it."""
    p = parse_turn(text)
    assert [(d["day"], d["period"]) for d in p.preferred_day_periods] == pairs
    assert p.excluded_days == excluded_days


@pytest.mark.parametrize("text", ["any time Tuesday or Wednesday morning",
                                  "anytime on tuesday and thursday afternoons"])
def test_a_part_of_the_day_after_any_time_and_a_list_of_days_is_asked_about(text):
    """"any time Tuesday or Wednesday morning" was read as the mornings of both days, though "any time" may be all
    of Tuesday: which days the part of the day is for is asked (day_period_scope), and nothing is read as a wish
    meanwhile; the patient's next words about days answer it."""
    from conversations.slots import apply_turn, next_action

    p = parse_turn(text)
    assert questions(text) == ["day_period_scope"]
    assert p.preferred_day_periods == () and p.preferred_days == () and p.preferred_periods == ()
    state = apply_turn({}, seq=1, role="user", parsed=p.as_dict())
    assert next_action(state) == "ask_clarifying_question"
    assert "each of those days" in state["pending_clarifications"][0]["question"]
    answered = apply_turn(state, seq=2, role="user",
                          parsed=parse_turn("Tuesday any time, or Wednesday morning").as_dict())
    assert answered["pending_clarifications"] == []
    assert {(d["day"], d["period"]) for d in answered["preferred_day_periods"]} == {
        ("tuesday", "morning"), ("tuesday", "afternoon"), ("tuesday", "evening"), ("wednesday", "morning")}


def test_a_list_of_days_sharing_a_part_of_the_day_without_any_time_is_still_read():
    """Without "any time" before it, "Tuesday or Wednesday morning" is both mornings as before, and "Tuesday any
    time or Wednesday morning" all of Tuesday and Wednesday morning."""
    assert [(d["day"], d["period"]) for d in parse_turn("Tuesday or Wednesday morning").preferred_day_periods] == [
        ("tuesday", "morning"), ("wednesday", "morning")]
    assert questions("Tuesday any time or Wednesday morning") == []


@pytest.mark.parametrize("text, preferred", [
    ("wednsday", ("wednesday",)),
    ("wensday please", ("wednesday",)),
    ("thrusday", ("thursday",)),
    ("frday or mondy", ("friday", "monday")),
    ("satruday", ("saturday",)),
    ("teusday", ("tuesday",)),
    ("thuesday", ()),  # Tuesday or Thursday: never a guess
    ("I had a fun day, see you someday", ()),
])
def test_a_misspelt_day_is_the_day_it_is_closest_to(text, preferred):
    """"wednsday", "thrusday" and "frday" named no day (lost without a word): a word ending as a day does and one
    letter (two in a long name) from exactly one day's name is that day; real words and ties are left alone."""
    assert parse_turn(text).preferred_days == preferred


def test_a_misspelt_day_keeps_its_part_of_the_day_and_its_refusal():
    """"tuesdy afternoon" preferred every afternoon, a wider wish than was said; "tuesdy afternoons dont work"
    refused every afternoon. Both are about Tuesday afternoons only."""
    assert [(d["day"], d["period"]) for d in parse_turn("tuesdy afternoon").preferred_day_periods] == [
        ("tuesday", "afternoon")]
    p = parse_turn("tuesdy afternoons dont work")
    assert p.excluded_periods == () and [(d["day"], d["period"]) for d in p.excluded_day_periods] == [
        ("tuesday", "afternoon")]


@pytest.mark.parametrize("text", ["Friday week", "friday week afternoon please", "a week on Friday",
                                  "14-12-2026", "on 14-12-26"])
def test_a_day_a_week_on_and_a_dashed_date_are_asked_about(text):
    """"Friday week" (the Friday after next) preferred Friday, so this week's Friday could be booked, and "friday
    week afternoon" every afternoon too; "14-12-2026" was read as the 14:00 and 12:00 offers. Both name a date:
    asked about as "in two weeks" and "14/12/2026" are, nothing read as a weekday or a time."""
    p = parse_turn(text)
    assert questions(text) == ["relative_day"]
    assert (p.preferred_days, p.preferred_periods, p.reference.times) == ((), (), ())


def test_friday_alone_and_the_weekend_stay_days():
    """"this Friday" and "friday, weekends are out" are the weekdays they name, as before."""
    assert parse_turn("this Friday").preferred_days == ("friday",)
    p = parse_turn("friday, weekends are out")
    assert (p.preferred_days, p.excluded_days) == (("friday",), ("saturday", "sunday"))


@pytest.mark.parametrize("text, pairs, preferred, excluded", [
    ("thursday arvo", [("thursday", "afternoon")], (), ()),
    ("weds morn", [("wednesday", "morning")], (), ()),
    ("afternnon please", [], ("afternoon",), ()),
    ("mornigs dont work", [], (), ("morning",)),
    ("in mourning, stop moaning", [], (), ()),
])
def test_a_part_of_the_day_misspelt_or_shortened_is_that_part(text, pairs, preferred, excluded):
    """"thursday arvo" and "weds morn" preferred all of the day (the part of it was lost), and "afternnon" or
    "mornigs dont work" said nothing: the usual short forms and a part of the day one letter off are that part;
    real words near one ("mourning") are left alone."""
    p = parse_turn(text)
    assert [(d["day"], d["period"]) for d in p.preferred_day_periods] == pairs
    assert (p.preferred_periods, p.excluded_periods, p.preferred_days) == (preferred, excluded, ())


@pytest.mark.parametrize("text, expected, asked", [
    ("after ten", [(EARLIEST, "10:00")], []),
    ("not before ten thirty", [(EARLIEST, "10:30")], []),
    ("between ten and twelve", [(EARLIEST, "10:00"), (LATEST, "12:00")], []),
    ("before eleven please", [(LATEST, "11:00")], []),
    ("after three", [], ["ambiguous_time"]),
    ("at one point I said Monday", [], []),
    ("after ten minutes", [], []),
])
def test_an_hour_said_in_words_after_a_relation_is_read_as_its_digits(text, expected, asked):
    """"after ten", "before eleven" and "between ten and twelve" were only asked about (unreadable_time): an hour
    word after a relation is the hour its digits are, asked am or pm as they are ("after three")."""
    assert window(text) == expected and questions(text) == asked


@pytest.mark.parametrize("text, days, hours", [
    ("1. Monday 2. Tuesday", ("monday", "tuesday"), ()),
    ("1) Monday\n2) Tuesday", ("monday", "tuesday"), ()),
    ("my choices: 1.Mon 2.Tue 3.Fri", ("monday", "tuesday", "friday"), ()),
    ("1. Monday 2. Tuesday at 2", ("monday", "tuesday"), (2,)),
    ("at 2. Tuesday is fine", ("tuesday",), (2,)),
])
def test_the_numbers_of_a_list_are_not_hours(text, days, hours):
    """"1. Monday 2. Tuesday" named the 1 o'clock and 2 o'clock offers (each number was a bare hour, am or pm): the
    markers of a list typed as one, numbered from 1 in order, are neither hours nor a choice; an hour said in it, or
    a number alone before a full stop, still is."""
    p = parse_turn(text)
    assert (p.preferred_days, p.reference.hours, p.reference.ordinal) == (days, hours, None)
    assert p.times == () and p.clarifications == ()


@pytest.mark.parametrize("text, preferred, excluded", [
    ("no tuesday is fine", ("tuesday",), ()),
    ("nope, thursday would be better", ("thursday",), ()),
    ("Monday? no tuesday works", ("tuesday",), ()),
    ("no the afternoon is better", (), ()),
    ("no tuesday please", (), ("tuesday",)),
    ("no tuesday, wednesday is fine", ("wednesday",), ("tuesday",)),
])
def test_a_no_before_a_day_said_to_be_fine_answers_the_question(text, preferred, excluded):
    """"no tuesday is fine" (typed without its comma) refused Tuesday, the one day the patient said suits: a "no"
    opening the message or a sentence before a day or part of the day said to be fine answers the question asked,
    as "no, Tuesday is fine" does; a "no" before a day with nothing fine about it still refuses it."""
    p = parse_turn(text)
    assert (p.preferred_days, p.excluded_days) == (preferred, excluded)
    assert p.excluded_periods == () and p.clarifications == ()
    assert ("afternoon" in p.preferred_periods) == text.endswith("afternoon is better")


@pytest.mark.parametrize("text, asked", [
    ("this afternoon please", ["relative_day"]),
    ("can I come in this evening?", ["relative_day"]),
    ("I took my pills this morning, is there anything this afternoon?", ["relative_day"]),
    ("I took my pills this morning", []),
    ("my mum phoned this afternoon", []),
    ("I've had a headache since this morning", []),
])
def test_this_afternoon_asked_for_is_a_date_and_said_of_the_past_is_nothing(text, asked):
    """"this afternoon please" was lost without a word (no day, no question), while "tomorrow afternoon" and "today
    in the afternoon" are asked about: a part of today asked for names a date, asked about as they are; said of
    the past ("I took my pills this morning", "since this morning") it still names nothing."""
    p = parse_turn(text)
    assert questions(text) == asked
    assert (p.preferred_days, p.preferred_periods, p.excluded_periods) == ((), (), ())
