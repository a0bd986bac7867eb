"""What a memory type answers (``serves``): short phrases in every definition, built-in and an organisation's own,
that search embeds to decide which types could answer a question."""

from __future__ import annotations

import pytest

from memory.types import builtin_catalogue, definition_check
from memory.types.spec import DefinitionInvalid
from tests.test_memory_types import wound_care_type

pytestmark = pytest.mark.django_db


# --- the definition field ----------------------------------------------------------------------------------------

def test_a_definition_says_what_the_type_answers_trimmed():
    spec = definition_check(wound_care_type(serves=["  where dressings are changed ", "how often dressings are due"]))
    assert spec.serves == ("where dressings are changed", "how often dressings are due")
    assert spec.definition["serves"] == ["where dressings are changed", "how often dressings are due"]
    assert definition_check(wound_care_type(serves=["x" * 110 + "  "])).serves == ("x" * 110,)
    assert definition_check(wound_care_type()).serves == ()  # optional; a type without it says nothing more


@pytest.mark.parametrize("serves, field, code", [
    ("where dressings are changed", "serves", "invalid"),
    ({"a": "b"}, "serves", "invalid"),
    (None, "serves", "invalid"),
    ([f"phrase {i}" for i in range(9)], "serves", "too_many"),
    (["fine", "x" * 121], "serves[1]", "max_length"),
    (["where dressings are changed", "Where  dressings are CHANGED"], "serves[1]", "duplicate"),
    (["fine", "   "], "serves[1]", "blank"),
    (["fine", ""], "serves[1]", "blank"),
    (["fine", 7], "serves[1]", "invalid"),
    (["two\nlines"], "serves[0]", "control_character"),
    (["a\ttab"], "serves[0]", "control_character"),
    (["nul\x00here"], "serves[0]", "control_character"),
    (["\u202eright to left"], "serves[0]", "control_character"),
    (["zero\u200bwidth"], "serves[0]", "control_character"),
])
def test_the_definition_check_refuses_phrases_that_break_the_rule(serves, field, code):
    with pytest.raises(DefinitionInvalid) as refused:
        definition_check(wound_care_type(serves=serves))
    assert [(e["field"], e["code"]) for e in refused.value.errors] == [(field, code)]


def test_eight_phrases_of_120_characters_pass_and_every_problem_is_listed_at_once():
    assert len(definition_check(wound_care_type(serves=[f"{i}" + "x" * 119 for i in range(8)])).serves) == 8
    with pytest.raises(DefinitionInvalid) as refused:
        definition_check(wound_care_type(text="Dressings: {nowhere}", serves=["ok", "", "ok"]))
    assert {(e["field"], e["code"]) for e in refused.value.errors} == {
        ("text", "invalid_template"), ("serves[1]", "blank"), ("serves[2]", "duplicate")}


def test_every_builtin_type_says_what_it_answers_in_four_to_eight_phrases():
    for name, versions in builtin_catalogue().items():
        for version, spec in versions.items():
            assert 4 <= len(spec.serves) <= 8, (name, version)
            assert len({p.casefold() for p in spec.serves}) == len(spec.serves), (name, version)
            assert all(p == p.strip() and len(p) <= 120 for p in spec.serves), (name, version)
            assert "_" not in " ".join(spec.serves), (name, version)  # people's words, not field names


def test_care_context_answers_for_allergies_and_long_term_medicines_alike():
    """Both kinds of care context: allergies before prescribing, and long-term medicines (interactions)."""
    for spec in builtin_catalogue()["care_context"].values():
        words = " ".join(spec.serves)
        assert "allerg" in words and "prescrib" in words and "long-term medicine" in words and "interaction" in words
