"""The turn parser (conversations.parsing) on what a word reaches: a negation over a list of days, a cancellation
that asks for another day, numbers that may be a date or a time window, and a refusal said for one occasion or for
good (tests/test_conversations_parsing.py and tests/test_conversations_parsing_more.py hold the rest)."""

from __future__ import annotations

import pytest

from conversations.parsing import parse_turn

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
