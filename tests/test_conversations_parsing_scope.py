"""The turn parser (conversations.parsing) on what a word reaches: a negation over a list of days, a cancellation
that asks for another day, numbers that may be a date or a time window, and a refusal said for one occasion or for
good (tests/test_conversations_parsing.py and tests/test_conversations_parsing_more.py hold the rest)."""

from __future__ import annotations

import pytest

from conversations.parsing import EARLIEST, LATEST, memory_facts, parse_turn, this_booking_only

MON_TUE_WED = ("monday", "tuesday", "wednesday")


def pairs(values) -> list[tuple[str, str]]:
    return [(d["day"], d["period"]) for d in values]


@pytest.mark.parametrize("text, excluded, preferred", [
    ("not Monday, Tuesday or Wednesday", MON_TUE_WED, ()),
    ("I can't do Monday, Tuesday or Wednesday", MON_TUE_WED, ()),
    ("not mon, tue or wed", MON_TUE_WED, ()),
    ("no Mondays, Tuesdays, or Wednesdays please", MON_TUE_WED, ()),
    ("I can't make Monday, Tuesday, Wednesday", MON_TUE_WED, ()),
    ("Monday, Tuesday or Wednesday don't work", MON_TUE_WED, ()),
    ("Monday, Tuesday, or Wednesday won't work for me", MON_TUE_WED, ()),
    ("Monday, Tuesday, Wednesday are out", MON_TUE_WED, ()),
    ("no mornings, afternoons or Fridays", ("friday",), ()),
])
def test_a_negation_over_a_list_covers_every_day_of_the_list(text, excluded, preferred):
    """"not Monday, Tuesday or Wednesday" refused Monday and wanted Tuesday and Wednesday: the comma ended the
    negation. A list of days (and parts of the day) joined by commas and ending in "or"/"and", or of three or more,
    is one list: a negation before it, or a refusal after it, covers every item."""
    p = parse_turn(text)
    assert (p.excluded_days, p.preferred_days) == (excluded, preferred)
    if "mornings" in text:
        assert (p.excluded_periods, p.preferred_periods) == (("morning", "afternoon"), ())


@pytest.mark.parametrize("text, excluded, preferred", [
    ("not Monday, Tuesday is fine", ("monday",), ("tuesday",)),
    ("not Monday, Tuesday", ("monday",), ("tuesday",)),
    ("not Monday, Tuesday or Wednesday is fine", ("monday",), ("tuesday", "wednesday")),
    ("not Monday, Tuesday and Wednesday are fine", ("monday",), ("tuesday", "wednesday")),
    ("not Monday, Tuesday or Wednesday would work", ("monday",), ("tuesday", "wednesday")),
    ("I'm free Monday, not Tuesday or Wednesday", ("tuesday", "wednesday"), ("monday",)),
    ("not Monday, but Tuesday, Wednesday or Thursday", ("monday",), ("tuesday", "wednesday", "thursday")),
    ("Monday, Tuesday or Wednesday, not Friday", ("friday",), MON_TUE_WED),
])
def test_a_comma_still_ends_a_negation_when_what_follows_is_wanted(text, excluded, preferred):
    """"not Monday, Tuesday is fine" refuses Monday only: a list followed by what is fine ("is fine", "would
    work"), two days with only a comma between them, and a day after "but" or outside the list are no part of it."""
    p = parse_turn(text)
    assert (p.excluded_days, p.preferred_days) == (excluded, preferred)


def test_a_list_of_days_before_a_part_of_the_day_shares_it_however_it_is_joined():
    """"Monday, Tuesday or Wednesday afternoon" is the afternoon of each, as "Tuesday or Wednesday afternoon"
    always was; refused, each afternoon is refused (it read: Monday refused, Tuesday and Wednesday afternoons
    wanted). Two days with only a comma are still apart ("Monday, Tuesday afternoon": all Monday)."""
    refused = parse_turn("not Monday, Tuesday or Wednesday afternoon")
    assert pairs(refused.excluded_day_periods) == [(day, "afternoon") for day in MON_TUE_WED]
    assert (refused.excluded_days, refused.preferred_days, refused.preferred_day_periods) == ((), (), ())
    wanted = parse_turn("Monday, Tuesday or Wednesday afternoon")
    assert pairs(wanted.preferred_day_periods) == [(day, "afternoon") for day in MON_TUE_WED]
    apart = parse_turn("Monday, Tuesday afternoon")
    assert ("monday", "morning") in pairs(apart.preferred_day_periods)


@pytest.mark.parametrize("text, preferred", [
    ("I won't make Tuesday after all, can we do Friday instead?", ("friday",)),
    ("I won't be able to make Tuesday after all, can we do Friday instead?", ("friday",)),
    ("I'm not going to make Tuesday after all, is Thursday possible?", ("thursday",)),
    ("I can't make Thursday any more, is Monday possible?", ("monday",)),
    ("cancel Tuesday, Friday would be better", ("friday",)),
    ("I couldn't make it on Wednesday after all, any chance of a Friday afternoon", ()),
    ("I can no longer make Tuesday, can I have another day?", ()),
])
def test_a_cancellation_that_asks_for_another_time_is_a_move(text, preferred):
    """"I won't make Tuesday after all, can we do Friday instead?" was a cancellation (and "I won't make Tuesday"
    refused every Tuesday): the appointment held cannot be made, and another day is asked for, so it is moved
    (reschedule); the day it was on is no wish and no refusal."""
    p = parse_turn(text)
    assert (p.intent, p.preferred_days, p.excluded_days) == ("reschedule", preferred, ())


@pytest.mark.parametrize("text", [
    "I won't make Tuesday after all",
    "I'm not going to make Thursday after all, sorry",
    "cancel Tuesday please",
    "I can't make Thursday any more, and I'm away Friday too",
    "I need to cancel, sorry",
])
def test_a_cancellation_that_asks_for_nothing_else_stays_a_cancellation(text):
    """Without another day, part of the day or "another time", the appointment that cannot be made is cancelled."""
    p = parse_turn(text)
    assert (p.intent, p.preferred_days) == ("cancel", ())
    assert "tuesday" not in p.excluded_days and "thursday" not in p.excluded_days  # the appointment held


@pytest.mark.parametrize("turns, intent", [
    (("cancel my cardiology appointment", "can we do Friday instead?"), "reschedule"),
    (("I won't make Tuesday after all", "mornings would be better"), "reschedule"),
    (("cancel my cardiology appointment", "after 2pm if possible"), "reschedule"),
    (("cancel my cardiology appointment", "and I can't do Fridays anyway"), "cancel"),
    (("cancel my cardiology appointment", "thanks"), "cancel"),
])
def test_a_cancellation_followed_by_a_wish_for_another_time_is_a_move(turns, intent):
    """"Cancel my appointment", then "can we do Friday instead?" stayed a cancellation (confirm_cancellation) with
    Friday wanted: a later wish for a day, part of the day or time makes it a move; a refusal alone does not."""
    from conversations.slots import apply_turn, empty_state, next_action

    state = empty_state()
    for seq, text in enumerate(turns, start=1):
        state = apply_turn(state, seq=seq, role="user", parsed=parse_turn(text).as_dict())
    assert state["intent"] == intent
    assert next_action(state) != "confirm_cancellation" or intent == "cancel"


def questions(text: str) -> list[str]:
    return [c.code for c in parse_turn(text).clarifications]


def window(text: str) -> list[tuple[str, str]]:
    return [(t.kind, t.time) for t in parse_turn(text).times]


@pytest.mark.parametrize("text", ["on 12-14", "the 12-14", "on the 12-14 please", "for 10-12", "on 3-4",
                                  "can I come on 14.12?", "not on 12-14", "on 10-3"])
def test_two_numbers_that_may_be_a_date_or_a_time_in_a_date_context_are_asked_about(text):
    """"on 12-14" was read as a window from 12:00 to 14:00, though after "on" or "the" it is as likely the 14th of
    December (or the 12th of the 14th month: never mind) and "on 14.12" as 14:12: two numbers that read both as a
    date and as times, said where a date is said, are asked about (date_or_time), nothing read as a time, a day or
    a choice among offers meanwhile."""
    p = parse_turn(text)
    assert questions(text) == ["date_or_time"]
    assert (p.times, p.reference.times, p.reference.hours, p.reference.either_times) == ((), (), (), ())
    assert "a date or a time" in p.clarifications[0].question


@pytest.mark.parametrize("text, expected", [
    ("12-14", [(EARLIEST, "12:00"), (LATEST, "14:00")]),
    ("12-14 please", [(EARLIEST, "12:00"), (LATEST, "14:00")]),
    ("on Tuesday 12-14", [(EARLIEST, "12:00"), (LATEST, "14:00")]),
    ("12-14 on Tuesday", [(EARLIEST, "12:00"), (LATEST, "14:00")]),
    ("between 12-14", [(EARLIEST, "12:00"), (LATEST, "14:00")]),
    ("from 10-12", [(EARLIEST, "10:00"), (LATEST, "12:00")]),
    ("on 12:00-14:00", [(EARLIEST, "12:00"), (LATEST, "14:00")]),
    ("on 12-2pm", [(EARLIEST, "12:00"), (LATEST, "14:00")]),
    ("by 12.30", [(LATEST, "12:30")]),
    ("I'll take the 10-12 slot", [(EARLIEST, "10:00"), (LATEST, "12:00")]),
])
def test_two_numbers_said_as_times_stay_a_time(text, expected):
    """Without a date word before them ("12-14", "on Tuesday 12-14"), after a time word ("between", "from"), with
    minutes or am/pm, or naming an offer ("the 10-12 slot"), the numbers are times as before."""
    assert window(text) == expected and "date_or_time" not in questions(text)


@pytest.mark.parametrize("text", ["on 12/14", "12/14 please", "on 12-25", "14.12.2026", "on the 12-25 if possible"])
def test_numbers_that_can_only_be_a_date_are_a_date(text):
    """"12/14" (month and day) was lost without a word and "on 12-25" read as the 12:00 offer (and hour 25): they
    can be no time, so they are dates, asked about as "14/12" is (offers are matched by weekday)."""
    p = parse_turn(text)
    assert questions(text) == ["relative_day"]
    assert (p.times, p.reference.times, p.reference.hours) == ((), (), ())


@pytest.mark.parametrize("answer, slot", [("Thursday then", ("preferred_days", ["thursday"])),
                                          ("I meant between 12 and 2pm", ("earliest_time", "12:00"))])
def test_a_date_or_time_question_is_answered_by_a_day_or_a_time(answer, slot):
    """The question is settled by the day of the week or the time said next."""
    from conversations.slots import apply_turn, empty_state, next_action

    state = apply_turn(empty_state(), seq=1, role="user", parsed=parse_turn("cardiology on 12-14").as_dict())
    assert next_action(state) == "ask_clarifying_question"
    state = apply_turn(state, seq=2, role="user", parsed=parse_turn(answer).as_dict())
    assert state["pending_clarifications"] == [] and state[slot[0]] == slot[1]


@pytest.mark.parametrize("text, excluded_days, excluded_periods", [
    ("mornings are really bad", (), ("morning",)),
    ("Monday is usually impossible for me", ("monday",), ()),
    ("evenings are always difficult", (), ("evening",)),
    ("Monday's always bad", ("monday",), ()),
    ("Fridays are a bit awkward", ("friday",), ()),
    ("Tuesday is a problem", ("tuesday",), ()),
    ("afternoons are pretty hard for me", (), ("afternoon",)),
])
def test_a_refusal_with_a_word_between_is_and_its_predicate_still_refuses(text, excluded_days, excluded_periods):
    """"mornings are really bad" and "Monday is usually impossible" were read as wishes for mornings and Monday,
    the opposite of what was said: a word of degree or habit between "is"/"are" and the refusal ("really",
    "usually", "a bit") and the usual refusals "a problem", "hard", "awkward" are read as "mornings are bad" is."""
    p = parse_turn(text)
    assert (p.excluded_days, p.excluded_periods, p.preferred_days, p.preferred_periods) == (
        excluded_days, excluded_periods, (), ())


@pytest.mark.parametrize("text", ["the 4pm is really too late", "4pm is a bit awkward", "the 2pm one is a problem"])
def test_an_offer_refused_with_a_word_between_is_and_its_predicate_is_not_chosen(text):
    """"the 4pm is really too late" pointed at the 16:00 offer as a choice; it turns it down."""
    assert parse_turn(text).reference.times == ()


@pytest.mark.parametrize("text, preferred", [("mornings are really good", ("morning",)),
                                             ("Monday is not a problem", ("monday",)),
                                             ("Tuesday is always fine", ("tuesday",))])
def test_a_day_said_to_be_fine_stays_wanted(text, preferred):
    p = parse_turn(text)
    assert (p.preferred_days or p.preferred_periods, p.excluded_days, p.excluded_periods) == (preferred, (), ())


@pytest.mark.parametrize("text", [
    "I can't make Tuesday", "not Monday", "Tuesday doesn't work", "Friday is out", "I can't do the morning",
    "not Monday, Tuesday or Wednesday", "book cardiology but not Friday", "any day but Friday",
])
def test_a_refusal_said_for_one_occasion_is_not_proposed_for_good(text):
    """"I can't make Tuesday" refuses Tuesday for this booking (the slots exclude it) but was also proposed as a
    standing preference never to be offered a Tuesday again, which the patient never said. A day or part of the day
    refused once (named in the singular, with no "every", "never", "always" and the like) is this conversation's;
    only what is said as lasting is proposed."""
    p = parse_turn(text)
    assert p.excluded_days or p.excluded_periods
    assert memory_facts(p) == []


@pytest.mark.parametrize("text, fact", [
    ("I can't do Mondays", {"kind": "excluded_days", "days": ["monday"]}),
    ("Mondays don't work for me", {"kind": "excluded_days", "days": ["monday"]}),
    ("I can never do Monday", {"kind": "excluded_days", "days": ["monday"]}),
    ("I'm never free on a Tuesday", {"kind": "excluded_days", "days": ["tuesday"]}),
    ("I work every Friday", {"kind": "excluded_days", "days": ["friday"]}),
    ("Monday is usually impossible for me", {"kind": "excluded_days", "days": ["monday"]}),
    ("weekends are out", {"kind": "excluded_days", "days": ["saturday", "sunday"]}),
    ("no Mondays, Tuesdays or Wednesdays", {"kind": "excluded_days", "days": list(MON_TUE_WED)}),
    ("I can't do mornings", {"kind": "excluded_periods", "periods": ["morning"]}),
    ("evenings are always difficult", {"kind": "excluded_periods", "periods": ["evening"]}),
])
def test_a_refusal_said_as_lasting_is_proposed(text, fact):
    """Said in the plural ("Mondays"), with "every", "any" or "on a", or with "never", "always", "usually" and the
    like, a refusal is a standing preference and proposed (for the patient to confirm) as before."""
    assert memory_facts(parse_turn(text)) == [fact]


def test_only_the_lasting_part_of_a_refusal_is_proposed():
    """"I can't do Mondays, and not this Friday either... nor Thursday": Mondays are proposed, Thursday is not."""
    p = parse_turn("I can't do Mondays, and Thursday is out too")
    assert p.excluded_days == ("monday", "thursday")
    assert memory_facts(p) == [{"kind": "excluded_days", "days": ["monday"]}]


@pytest.mark.parametrize("text, expected", [
    ("from 9 to 1pm", [(EARLIEST, "09:00"), (LATEST, "13:00")]),
    ("from 10 to 3", [(EARLIEST, "10:00"), (LATEST, "15:00")]),
    ("between 11 to 1", [(EARLIEST, "11:00"), (LATEST, "13:00")]),
    ("from 12 to 2", [(EARLIEST, "12:00"), (LATEST, "14:00")]),
    ("I meant 12 to 2pm", [(EARLIEST, "12:00"), (LATEST, "14:00")]),
    ("11 to 1pm works", [(EARLIEST, "11:00"), (LATEST, "13:00")]),
    # minutes to the hour are said in fives ("twenty to four"), and stay so
    ("20 to 4pm at the latest", [(LATEST, "15:40")]),
    ("ten to 12 at the latest", [(LATEST, "11:50")]),
])
def test_a_window_across_noon_is_a_window_not_minutes_to_the_hour(text, expected):
    """"from 9 to 1pm" was an earliest time of 12:51 (9 minutes to 1 pm), "12 to 2pm" the 13:48 offer and "between
    11 to 1" 12:49: a window whose end is past noon has a first hour larger than its last. After "from" or "between",
    or when the first number is not a number of minutes said before "to" (5, 10, 15, 20, 25), it is a window."""
    assert window(text) == expected and questions(text) == []
    assert parse_turn("at 10 to 3").reference.either_times == ("02:50", "14:50")


@pytest.mark.parametrize("text, intent, preferred", [
    ("cancel my Tuesday and Wednesday appointments", "cancel", ()),
    ("cancel my Tuesday 10am and Thursday 2pm appointments please", "cancel", ()),
    ("move my Monday and Tuesday appointments to Friday", "reschedule", ("friday",)),
    ("my Monday, Tuesday and Wednesday visits need cancelling", "cancel", ()),
])
def test_the_appointments_held_named_by_a_list_of_days_are_no_wish(text, intent, preferred):
    """"cancel my Tuesday and Wednesday appointments" wanted Wednesday (only the first day was read as the
    appointment held), so it read as a move to Wednesday: every day of the list names an appointment held."""
    p = parse_turn(text)
    assert (p.intent, p.preferred_days, p.excluded_days) == (intent, preferred, ())


@pytest.mark.parametrize("text, excluded_days, excluded_periods", [
    ("i cnt do monday", ("monday",), ()),
    ("i carnt do mornings", (), ("morning",)),
    ("cannt do friday", ("friday",), ()),
    ("i dnt want mondays", ("monday",), ()),
    ("cudnt do tues", ("tuesday",), ()),
    ("monday dosnt work", ("monday",), ()),
    ("mondays arnt good", ("monday",), ()),
    ("wednesdays no", ("wednesday",), ()),
    ("monday - no, tuesday yes", ("monday",), ()),
    ("monday: nope", ("monday",), ()),
    ("mornings no thanks", (), ("morning",)),
])
def test_a_refusal_typed_as_on_a_phone_refuses(text, excluded_days, excluded_periods):
    """"i cnt do monday", "monday dosnt work" and "wednesdays no" were read as wishes for the day, the opposite of
    what was said: the usual misspellings of can't, don't, doesn't, aren't and couldn't are those words, and a day or
    part of the day answered with a bare "no" or "nope" is refused."""
    p = parse_turn(text)
    assert (p.excluded_days, p.excluded_periods) == (excluded_days, excluded_periods)
    assert set(p.preferred_days) & set(excluded_days) == set() and p.preferred_periods == ()


@pytest.mark.parametrize("text, preferred_days, excluded_periods", [
    ("monday no problem", ("monday",), ()),
    ("monday no mornings", ("monday",), ("morning",)),
    ("want monday", ("monday",), ()),
])
def test_a_no_that_refuses_something_else_leaves_the_day_wanted(text, preferred_days, excluded_periods):
    p = parse_turn(text)
    assert (p.preferred_days, p.excluded_days, p.excluded_periods) == (preferred_days, (), excluded_periods)


@pytest.mark.parametrize("text, kept", [
    ("I can't do Monday after 3pm", []),
    ("can I come on Tuesday after 2pm?", []),
    ("tomorrow after 2pm please", []),
    ("Mondays before 10 are impossible", []),
    ("Please don't book me before 10 a.m., I can't do Mondays", [{"kind": "earliest_time", "time": "10:00"},
                                                                {"kind": "excluded_days", "days": ["monday"]}]),
    ("never after 4pm on any day", [{"kind": "latest_time", "time": "16:00"}]),
])
def test_a_time_said_with_a_day_is_not_proposed_for_every_day(text, kept):
    """"I can't do Monday after 3pm" was proposed as a standing latest time of 15:00 for every day, and "can I come
    on Tuesday after 2pm?" as a standing earliest time: a time said in the same clause as a day (or a date such as
    "tomorrow") is about that day, which the type cannot keep with it, so it stays this conversation's (a proposal
    skips it as not_kept_long_term)."""
    assert memory_facts(parse_turn(text)) == kept
    if not kept:
        assert this_booking_only(parse_turn(text).as_dict())


@pytest.mark.parametrize("text, times", [
    ("I can't do Monday after 3pm", [(LATEST, "15:00")]),
    ("Mondays before 10 are impossible", [(EARLIEST, "10:00")]),
])
def test_a_day_refused_with_the_time_that_bounds_it_refuses_that_time_not_the_day(text, times):
    """"I can't do Monday after 3pm" refused all of Monday (its morning too) and "Mondays before 10 are
    impossible" wanted Monday: as for a part of the day ("no mornings before 10"), the time phrase carries the
    refusal, and the day is neither refused whole nor wanted."""
    p = parse_turn(text)
    assert (p.excluded_days, p.preferred_days) == ((), ()) and window(text) == times


def fold(*texts: str) -> dict:
    from conversations.slots import apply_turn, empty_state

    state = empty_state()
    for seq, text in enumerate(texts, start=1):
        state = apply_turn(state, seq=seq, role="user", parsed=parse_turn(text).as_dict())
    return state


@pytest.mark.parametrize("later, wanted", [
    ("either Monday or Tuesday", ["monday", "tuesday"]),
    ("either Monday or Tuesday would be fine", ["monday", "tuesday"]),
    ("Friday works as well", ["thursday", "friday"]),
    ("Friday too", ["thursday", "friday"]),
])
def test_either_or_chooses_between_days_it_does_not_add_them(later, wanted):
    """"Thursday please", then "either Monday or Tuesday" kept Thursday wanted beside them ("either" was read as
    "as well"): a choice between days said with "either ... or" replaces the days wanted before."""
    assert sorted(fold("Thursday please", later)["preferred_days"]) == sorted(wanted)


@pytest.mark.parametrize("text", [
    "in a fortnight", "the week after next", "Monday after next", "weekend after next please", "end of the month",
    "early next month", "sometime next month", "in 2 wks", "nxt week", "this wk if possible",
    "beginning of next week", "not until the middle of next month",
])
def test_a_date_said_relative_to_today_in_other_words_is_asked_about(text):
    """"in a fortnight", "the week after next", "end of the month" and "nxt week" were lost without a word (no day
    and no question), "Monday after next" and "weekend after next" wanted every Monday or weekend (this week's
    could be booked), and "in 2 wks" named the 2 o'clock offer: each names a date, asked about as "in two weeks"
    and "next week" are (offers are matched by weekday), nothing read as a weekday or a time meanwhile."""
    p = parse_turn(text)
    assert questions(text) == ["relative_day"]
    assert (p.preferred_days, p.excluded_days, p.reference.hours, p.reference.either_times) == ((), (), (), ())


@pytest.mark.parametrize("text, preferred", [
    ("Monday, if not Tuesday", ("monday",)),
    ("if you can't do Tuesday, Wednesday is fine", ("tuesday", "wednesday")),
    ("I can't wait for Monday", ("monday",)),
    ("not sure about Monday", ()),
    ("Monday? not really", ()),
    ("Monday? Not great, Tuesday", ("tuesday",)),
])
def test_words_of_negation_that_refuse_nothing_the_patient_said_refuse_nothing(text, preferred):
    """"Monday, if not Tuesday" (Tuesday the second choice), "if you can't do Tuesday" (the clinic's constraint)
    and "I can't wait for Monday" refused Tuesday and Monday; "not sure about Monday" wanted Monday, and "Monday?
    not really" too. None refuses a day the patient could come on, and none is a wish."""
    p = parse_turn(text)
    assert (p.preferred_days, p.excluded_days) == (preferred, ())


@pytest.mark.parametrize("text, expected", [
    ("aftr 3pm", [(EARLIEST, "15:00")]),
    ("befor 10am", [(LATEST, "10:00")]),
    ("afer 2pm please", [(EARLIEST, "14:00")]),
    ("anytime aftr 2pm", [(EARLIEST, "14:00")]),
    ("no earlier then 10am", [(EARLIEST, "10:00")]),
    ("not erlier than 10am", [(EARLIEST, "10:00")]),
    ("no later then 4pm", [(LATEST, "16:00")]),
    ("untill 4pm", [(LATEST, "16:00")]),
    ("after 3p", [(EARLIEST, "15:00")]),
    ("before 10a", [(LATEST, "10:00")]),
    ("after 15h", [(EARLIEST, "15:00")]),
    ("not before 9h30", [(EARLIEST, "09:30")]),
])
def test_a_time_relation_typed_as_on_a_phone_keeps_its_direction(text, expected):
    """"aftr 3pm", "befor 10am" and "no earlier then 10am" were read as the 15:00 or 10:00 offer chosen (no time
    preference at all), and "anytime aftr 2pm" lifted every time said before: the usual misspellings of after,
    before, earlier and until, "then" for "than", "3p"/"10a" and the 24-hour "15h", "9h30" are read as written
    properly."""
    p = parse_turn(text)
    assert window(text) == expected and p.reference.times == () and not p.any_time


@pytest.mark.parametrize("text, preferred, excluded", [
    ("Tue \u2713 Wed \u2717", ("tuesday",), ("wednesday",)),
    ("Monday \U0001F44D Tuesday \U0001F44E", ("monday",), ("tuesday",)),
    ("mornings \u274c", (), ()),
    ("Fri \u2705", ("friday",), ()),
])
def test_a_tick_or_a_cross_after_a_day_says_yes_or_no(text, preferred, excluded):
    """"Tue ✓ Wed ✗" and "Monday 👍 Tuesday 👎" wanted both days: a cross or thumbs down after a day or part of
    the day refuses it as "no" does, a tick or thumbs up is a yes."""
    p = parse_turn(text)
    assert (p.preferred_days, p.excluded_days) == (preferred, excluded)
    assert p.excluded_periods == (("morning",) if "mornings" in text else ())


@pytest.mark.parametrize("text, expected", [
    ("I'm free 10 to 3", [(EARLIEST, "10:00"), (LATEST, "15:00")]),
    ("10 to 2 works for me", [(EARLIEST, "10:00"), (LATEST, "14:00")]),
    ("I'm free 9-1", [(EARLIEST, "09:00"), (LATEST, "13:00")]),
    ("after 10 to 3pm", [(EARLIEST, "14:50")]),
])
def test_ten_to_an_afternoon_hour_in_digits_is_a_window_unless_said_as_a_moment(text, expected):
    """"I'm free 10 to 3" named the 2:50 offer (ten minutes to three) rather than the window from 10:00 to 15:00
    it says in a text, and "9-1" no time at all (only hours in order were a window); after "at", "after", "before"
    and the like "10 to 3" is still the moment (14:50)."""
    assert window(text) == expected
    assert parse_turn("at 10 to 3").reference.either_times == ("02:50", "14:50")
