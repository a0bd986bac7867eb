"""The turn parser (conversations.parsing) on messages as patients type them and booking agents relay them:
texting forms, short day ranges, digit times and ranges, misspelt days, a held appointment named by its day, and a
part of the day whose days are unclear (tests/test_conversations_parsing.py holds the rest)."""

from __future__ import annotations

import pytest

from conversations.parsing import EARLIEST, LATEST, memory_facts, parse_turn

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
