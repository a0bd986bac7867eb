"""The clinical lexicon: shipped as data with its sources, broad, and read the way retrieval needs it."""

from __future__ import annotations

import json

import pytest

from memory.lexicon import LEXICON_FILE, lexicon


def test_lexicon_names_its_sources_and_is_broad():
    data = json.loads(LEXICON_FILE.read_text())
    sources = " ".join(data["sources"])
    for source in ("WHO", "ATC", "BNF", "FDA", "ACAAI"):
        assert source in sources
    terms = sum(len(c["terms"]) + len(c["found_in"]) + len(c["tests"]) for c in data["concepts"].values())
    assert terms >= 300 and len(data["concepts"]) >= 60 and len(data["interactions"]) >= 20


@pytest.mark.parametrize("classes", [
    "penicillins", "cephalosporins", "sulfonamides", "macrolides", "fluoroquinolones", "tetracyclines", "nsaids",
    "opioids", "ace_inhibitors", "statins", "anticonvulsants", "iodinated_contrast", "local_anaesthetics",
    "vaccine_components", "egg", "gelatin", "latex", "warfarin", "doacs", "lithium", "methotrexate", "metformin",
    "insulin", "digoxin", "amiodarone", "levothyroxine", "clozapine"])
def test_common_allergy_classes_and_monitored_drugs_are_covered(classes):
    assert classes in lexicon().concepts


@pytest.mark.parametrize("text, concept", [
    ("Can we give her Bactrim?", "sulfonamides"),
    ("co-trimoxazole", "sulfonamides"),
    ("amoxicillin 500mg", "penicillins"),
    ("Augmentin", "penicillins"),
    ("ibuprofen for pain", "nsaids"),
    ("Nurofen", "nsaids"),
    ("Xarelto", "doacs"),
    ("Tegretol", "anticonvulsants"),
    ("lignocaine", "local_anaesthetics"),
    ("What gloves should the nurse use?", "latex"),
    ("a dental dam", "latex"),
    ("the flu jab", "egg"),
    ("MMR vaccine", "gelatin"),
    ("satay sauce", "peanut"),
    ("is the INR in range?", "warfarin"),
])
def test_names_brands_and_hiding_places_map_to_their_classes(text, concept):
    assert concept in lexicon().mentions(text)


def test_words_that_name_nothing_clinical_map_to_nothing():
    for text in ("does the patient own a bicycle?", "how should we send the appointment reminder?",
                 "can she come on Friday after 3?", "which language does he speak?"):
        assert lexicon().mentions(text) == {}, text


def test_relevance_follows_classes_cross_reactions_and_interactions():
    lex = lexicon()
    m = lex.mentions
    assert lex.relevance(m("Bactrim"), m("sulfonamide")) == 1.0
    assert lex.relevance(m("any antibiotic allergy?"), m("penicillin")) > 0.5  # umbrella word
    assert 0 < lex.relevance(m("cefalexin"), m("penicillin")) < 1  # cross-reaction
    assert lex.relevance(m("naproxen"), m("warfarin"), taken=True) > 0  # interaction with what is taken
    assert lex.relevance(m("naproxen"), m("warfarin"), taken=False) == 0  # not with an allergy to it
    assert lex.relevance(m("contrast for the CT"), m("metformin"), taken=True) > 0
    assert lex.mismatch(m("any penicillin allergy?"), m("ciprofloxacin")) == 1.0
    assert lex.mismatch(m("any food allergy?"), m("codeine")) == 1.0
    assert lex.mismatch(m("colonoscopy next week"), m("codeine")) == 0.0  # procedures are never a mismatch


def test_expansion_adds_class_names():
    text = lexicon().expand("Can we give her Bactrim?")
    assert "sulfonamide antibiotics" in text and text.startswith("Can we give her Bactrim?")
