"""Ranking by intent and the learned scoring head: what a type says it serves decides which memories answer a
question (an organisation's own wording included, with no code), a question no type answers gets no confident
answer, and the head and its training behave as documented. Real model, real PostgreSQL."""

from __future__ import annotations

import json

import numpy as np
import pytest

from core.identity import Identity, identity_context
from memory.embeddings import provider
from memory.retrieval import selection, training
from memory.retrieval.intent import type_phrases
from memory.retrieval.ranker import FEATURES, GATE_FEATURES, MODEL_FILE, Ranker, ranker, ranker_from
from memory.retrieval.scoring import HIGH, LOW, Hit
from memory.retrieval.vectors import vector_model
from tests.test_memory_types import admin, wound_care_type

pytestmark = pytest.mark.django_db


def intents_for(org, question: str):
    [vector] = provider().embed([question])
    with identity_context(Identity(org_id=org, actor_sub="reader")):
        return type_phrases(org_id=org, model=vector_model()).intents(vector)


def test_a_question_about_a_situation_is_most_about_the_type_that_serves_it(world):
    intents = intents_for(world.org, "How should we address the envelope of her clinic letter?")
    assert max(intents.by_type, key=intents.by_type.get) == "preferred_name"
    assert intents.best == intents.of("preferred_name")


def test_an_organisations_wording_of_what_its_type_serves_is_used_in_ranking(world):
    """The organisation's own type, with no phrase about ambulances: a transport question is not about it. Once
    its administrator says it serves that, it is."""
    question = "Does she need an ambulance to get home after the dressing is changed?"
    r = admin(world).post("/v1/memory-types", wound_care_type(serves=["how often the wound dressing is changed"]))
    assert r.status_code == 201, r.content
    before = intents_for(world.org, question).of("dressing_change_preference")
    r = admin(world).request("PUT", "/v1/memory-types/dressing_change_preference/serves",
                             {"serves": ["how the patient gets home after a dressing change, by ambulance or car"]})
    assert r.status_code == 200, r.content
    after = intents_for(world.org, question)
    assert after.of("dressing_change_preference") > before + 0.2
    # another organisation's wording never reaches this one's ranking
    assert "dressing_change_preference" not in intents_for(world.other_org, question).by_type


def test_a_question_no_type_answers_gets_no_confident_answer(world):
    world.grant(world.patient_a, "clinician", "care_coordination")
    nurse = world.staff("clinician")
    for fact in ({"kind": "allergy", "substance": "penicillin", "reaction": "rash"},
                 {"kind": "long_term_indication", "medication": "warfarin", "indication": "atrial fibrillation",
                  "monitoring": "INR"}):
        r = nurse.post(f"/v1/patients/{world.patient_a}/memories",
                       {"memory_type": "care_context", "consent_purpose": "care_coordination", "fact": fact,
                        "review_by": "2031-01-01T00:00:00Z", "source": "ehr_import", "source_ref": "ehr:1"})
        assert r.status_code == 201, r.content
    for question in ("What is the capital of France?", "Who won the football last night?"):
        body = nurse.get(f"/v1/patients/{world.patient_a}/memories/search", {"q": question}).json()
        assert body["confidence"] == "low", (question, body)
        assert all(i["confidence"] == "low" for i in body["items"])
    body = nurse.get(f"/v1/patients/{world.patient_a}/memories/search", {"q": "Can she have ibuprofen?"}).json()
    assert body["confidence"] == "high" and body["safety_rule_applied"] is True


def test_the_shipped_model_matches_the_features_and_refuses_others():
    shipped = json.loads(MODEL_FILE.read_text())
    assert shipped["features"] == list(FEATURES) and len(shipped["weights"]) == len(FEATURES)
    assert shipped["trained_on"] and not any("heldout" in name for name in shipped["trained_on"])
    assert 0.0 < ranker().threshold < 1.0
    with pytest.raises(ValueError, match="features"):
        ranker_from({**shipped, "features": list(reversed(FEATURES))})
    gate = shipped["gate"]
    assert gate["features"] == list(GATE_FEATURES) and len(gate["weights"]) == len(GATE_FEATURES)
    assert ranker().gate_weights and 0.0 < ranker().gate_threshold < 1.0
    with pytest.raises(ValueError, match="gate features"):
        ranker_from({**shipped, "gate": {**gate, "features": list(reversed(GATE_FEATURES))}})


def _asked(patient: str, answer_at: int | None, n: int = 4) -> training.Asked:
    """A question whose candidates differ in cosine only; ``answer_at`` is the one that answers (or none)."""
    rows = np.zeros((n, len(FEATURES)))
    rows[:, FEATURES.index("bias")] = 1.0
    rows[:, FEATURES.index("cosine")] = np.linspace(0.1, 0.3, n)
    answers = np.zeros(n)
    if answer_at is not None:
        rows[answer_at, FEATURES.index("cosine")] = 0.9
        answers[answer_at] = 1.0
    return training.Asked(patient=patient, kind="paraphrase" if answer_at is not None else "no_answer",
                          answerable=answer_at is not None, features=rows, types=("t",) * n, answers=answers)


def test_training_ranks_what_answers_first_and_puts_the_threshold_between():
    asked = [_asked(f"p{i % 8}", i % 4 if i % 3 else None) for i in range(48)]
    scored = training.cross_validated(asked, l2=1.0)
    figures = training.figures(asked, scored, default=training.choose_threshold(asked, scored))
    assert figures["p@1"] == 1.0 and figures["answer_kept_high"] == 1.0 and figures["no_answer_kept_low"] == 1.0
    weights = training.fit(asked, l2=1.0)
    assert weights[FEATURES.index("cosine")] > 0
    # a threshold nothing reaches keeps every no-answer question low and loses every answer
    assert training.figures(asked, scored, default=1.01)["answer_kept_high"] == 0.0


def _lexical(question: str, value: dict):
    """What the lexicon makes of one care-context memory (its text as the catalogue renders it) for a question."""
    from types import SimpleNamespace

    from memory.lexicon import lexicon
    from memory.retrieval.question import understand
    from memory.retrieval.scoring import lexical_features
    from memory.types import fact_text

    text = fact_text("care_context", value, 2)
    [lexical] = lexical_features(understand(question),
                                 [SimpleNamespace(memory_class="care_context", memory_type="care_context")], [value],
                                 [lexicon().mentions(text)])
    return lexical


@pytest.mark.parametrize(("memory_type", "value", "question", "echo"), [
    ("preferred_name", {"preferred_name": "Stan", "pronouns": "he/him"}, "Does Stan have a fistula?", True),
    ("preferred_name", {"preferred_name": "Stan"}, "who holds LPA for stan", True),
    ("preferred_name", {"preferred_name": "Mary-Jo"}, "Is Mary-Jo on warfarin?", True),
    ("preferred_name", {"preferred_name": "Stan"}, "Does Stanley have a fistula?", False),  # another word
    ("preferred_name", {"preferred_name": "Stan"}, "What does he like to be called?", False),
    ("preferred_name", {"preferred_name": "Jo (Mrs)"}, "Does Jo (Mrs) need a hoist?", True),  # no pattern
    ("caregiver_contact", {"name": "Stan", "relationship": "child"}, "Can we tell Stan?", False),
])
def test_a_question_that_calls_the_patient_by_name_is_marked_on_the_name_alone(memory_type, value, question, echo):
    """The head learns from ``name_echo`` that "Does Stan have a fistula?" is about Stan, not about his name."""
    from types import SimpleNamespace

    from memory.retrieval.question import understand
    from memory.retrieval.scoring import lexical_features

    memory = SimpleNamespace(memory_class="preference", memory_type=memory_type)
    [lexical] = lexical_features(understand(question), [memory], [value], [{}])
    assert lexical.name_echo is echo
    assert FEATURES.index("name_echo") < FEATURES.index("bias")


@pytest.mark.parametrize(("question", "names", "stems"), [
    ("What's his target dry weight?", [], {"target", "dry", "weight"}),
    ("Which surgeon is doing his bypass?", [], {"surgeon", "bypas"}),
    ("Does Stan's wife know about the nurses' visits?", ["Stan"], {"wif", "nurs", "visit"}),
    ("Is she on it now?", [], set()),
    ("Isn\u2019t she on it now? Doesn't she?", [], set()),  # either apostrophe
    ("Why can't he come, and won't he drive?", [], {"com", "driv"}),
])
def test_a_question_is_read_as_its_content_words(question, names, stems):
    """Stop words, the patient's own name and possessives are not what a question asks about."""
    from memory.retrieval.coverage import question_stems

    assert question_stems(question, names=names) == stems


def test_a_stem_meets_its_other_endings_and_nothing_longer():
    from memory.retrieval.coverage import Coverage, question_stems

    coverage = Coverage(question_stems("nursing therapies"))
    assert coverage.found("District nurses: therapy review") == {"nurs", "therap"}
    assert coverage.found("A nurse gives the therapy") == {"nurs", "therap"}
    assert coverage.found("nursery; therapist") == frozenset()
    assert coverage.uncovered(coverage.found("a nurse visits")) == 0.5
    assert Coverage(frozenset()).uncovered(frozenset()) == 0.0


def test_a_memory_on_the_topic_that_lacks_the_detail_asked_leaves_the_question_uncovered():
    """"What's his target dry weight?" is near a fluid restriction in meaning, but its words are not there: the
    head learns what the uncovered share, and the gap to the best-covered candidate, are worth. What the type
    serves covers words too, and the patient's own name is no content word."""
    from types import SimpleNamespace

    from memory.retrieval.question import understand
    from memory.retrieval.scoring import Texts, uncovered_shares

    kinds = ["fluid_restriction", "dialysis_schedule", "preferred_name"]
    ordered = [SimpleNamespace(memory_type=k) for k in kinds]
    values = [{"limit_ml": 1000}, {"days": "Mon Wed Fri"}, {"preferred_name": "Dennis"}]
    made = Texts(values=values, texts=[], named=[], lexical=[], expanded=[
        "Fluid restriction: 1000 ml a day", "Dialysis: Monday, Wednesday and Friday mornings",
        "Preferred name: Dennis"])
    serves = {"fluid_restriction": "how much fluid a patient may drink fluid_restriction",
              "dialysis_schedule": "which days of the week dialysis is, and the dry weight target dialysis_schedule"}
    dry, fluid, restriction = (uncovered_shares(understand(q), ordered, made, serves) for q in (
        "What's Dennis's target dry weight?", "How much fluid can Dennis drink?", "any fluid restriction?"))
    assert dry == [1.0, 0.0, 1.0]  # the dialysis type says it serves the dry weight target
    assert fluid[0] == 0.0 and fluid[1] == 1.0  # "much", "can" are stop words; "Dennis" is the patient's name
    assert restriction[0] == 0.0 and restriction[2] == 1.0
    assert FEATURES.index("uncovered") + 1 == FEATURES.index("uncovered_gap") < FEATURES.index("bias")


SPIRONOLACTONE = {"kind": "long_term_indication", "medication": "spironolactone", "indication": "heart failure",
                  "monitoring": "potassium"}


@pytest.mark.parametrize("question", ["Is she on digoxin?", "is he still taking digoxin", "Does she take digoxin?"])
def test_whether_the_patient_takes_a_medicine_is_not_answered_by_one_that_interacts_with_it(question):
    lexical = _lexical(question, SPIRONOLACTONE)  # diuretics interact with digoxin
    assert lexical.concept == 0.0 and lexical.mismatch == 1.0


@pytest.mark.parametrize("question", ["Can we start digoxin?", "Is she on anything that interacts with digoxin?",
                                      "Is she on digoxin? Any problem with her heart failure tablets?"])
def test_a_reason_to_ask_about_a_medicine_keeps_its_interactions_in_play(question):
    lexical = _lexical(question, SPIRONOLACTONE)
    assert lexical.concept > 0 and lexical.mismatch == 0.0


@pytest.mark.parametrize("question", ["Is there any HIV drug he must never be given?",
                                      "Any anti-sickness medicine he mustn't have?", "Can she tolerate codeine?"])
def test_what_a_patient_must_not_be_given_is_asked_as_an_allergy_is(question):
    """The answer is an allergy, not a medicine the patient takes that interacts with the one named."""
    from memory.retrieval.question import understand

    assert understand(question).about_allergy
    assert not understand("Can we give him tramadol after the hip surgery?").about_allergy


def test_an_allergy_or_medicine_is_about_its_substance_more_than_its_note_or_indication():
    from memory.retrieval.scoring import CONTEXT_WEIGHT

    latex = _lexical("Is he allergic to latex?", {"kind": "allergy", "substance": "latex"})
    # theatre (where latex hides) is only in the note of an allergy to something else
    other = _lexical("Is he allergic to latex?", {"kind": "allergy", "substance": "chlorhexidine",
                                                   "note": "anaphylaxis in theatre 2019"})
    assert latex.concept == 1.0 and 0 < other.concept <= CONTEXT_WEIGHT
    # the indication is context too
    lithium = {"kind": "long_term_indication", "medication": "lithium", "indication": "bipolar disorder after surgery"}
    assert _lexical("Is he on lithium?", lithium).concept == 1.0
    assert 0 < _lexical("She has surgery next week", lithium).concept < 1.0


@pytest.mark.parametrize("question, concerns", [
    ("When is his next HbA1c due?", True), ("Does he need HbA1c checks?", True),
    ("What was his last HbA1c?", False), ("any recent TSH result", False), ("Is her INR normal?", False)])
def test_a_monitoring_test_names_its_medicine_unless_a_result_is_asked_for(question, concerns):
    value = {"kind": "long_term_indication", "medication": "insulin aspart", "indication": "type 1 diabetes",
             "monitoring": "HbA1c every 3 months"}
    if "TSH" in question:
        value = {"kind": "long_term_indication", "medication": "levothyroxine", "indication": "hypothyroidism",
                 "monitoring": "TFT yearly"}
    elif "INR" in question:
        value = {"kind": "long_term_indication", "medication": "warfarin", "indication": "atrial fibrillation"}
    assert (_lexical(question, value).concept > 0) is concerns


def test_only_a_builtin_type_gets_a_threshold_of_its_own():
    """An organisation's own type takes the global threshold: a threshold fitted to an evaluation set's type of the
    same name would say nothing about another organisation's."""
    asked, scored = [], []
    for memory_type in ("preferred_name", "an_organisations_own_type"):
        for i in range(training.TYPE_MIN_QUESTIONS):
            answerable = i % 2 == 0
            asked.append(training.Asked(patient=f"p{i}", kind="paraphrase", answerable=answerable,
                                        features=np.zeros((2, len(FEATURES))), types=(memory_type, "care_context"),
                                        answers=np.array([1.0 if answerable else 0.0, 0.0])))
            # the answers score 0.45 and the questions with none 0.42: below the global 0.5, 0.45 separates them
            scored.append(np.array([0.45 if answerable else 0.42, 0.1]))
    assert training.choose_type_thresholds(asked, scored, default=0.5) == {"preferred_name": 0.45}


def _question_with(patient: str, answerable: bool, second: float) -> tuple[training.Asked, np.ndarray]:
    """Three candidates; the best scores 0.6 whether or not it answers, the second ``second``."""
    answers = np.array([1.0 if answerable else 0.0, 0.0, 0.0])
    rows = np.zeros((3, len(FEATURES)))
    rows[:, FEATURES.index("bias")] = 1.0
    return (training.Asked(patient=patient, kind="paraphrase" if answerable else "no_answer", answerable=answerable,
                           features=rows, types=("t", "t", "u"), answers=answers),
            np.array([0.6, second, 0.05]))


def test_the_answerability_check_tells_what_one_threshold_cannot():
    """The best candidates of questions that have an answer and of questions that have none score alike (0.6),
    so no threshold on a candidate's score keeps both promises; how far the best is ahead of the next does, and
    the check learns it from cross-validated scores and chooses its own threshold on them."""
    pairs = [_question_with(f"p{i % 8}", i % 2 == 0, 0.1 if i % 2 == 0 else 0.55) for i in range(64)]
    asked, scored = [a for a, _ in pairs], [s for _, s in pairs]
    alone = training.figures(asked, scored, default=training.choose_threshold(asked, scored))
    assert min(alone["answer_kept_high"], alone["no_answer_kept_low"]) == 0.0
    chances = training.cross_validated_gate(asked, scored)
    threshold = training.choose_gate_threshold(asked, scored, chances, 0.2, {}, 0.5)
    checked = training.figures(asked, scored, passes=[c >= threshold for c in chances])
    assert checked["answer_kept_high"] == 1.0 and checked["no_answer_kept_low"] == 1.0
    weights = training.fit_gate(*training.gate_rows(asked, scored)[:2])
    assert weights[GATE_FEATURES.index("margin")] > 0
    model = {"features": list(FEATURES), "weights": [0.0] * len(FEATURES), "threshold": 0.5, "type_thresholds": {},
             "gate": {"features": list(GATE_FEATURES), "weights": list(weights), "threshold": threshold, "floor": 0.2}}
    assert training.gate_passes(asked, scored, model) == [a.answerable for a in asked]
    # the best scores 0.6: a floor above it keeps every question low
    assert not any(training.gate_passes(asked, scored, {**model, "gate": {**model["gate"], "floor": 0.61}}))


def _hits(scores: list[float]) -> list[Hit]:
    hits = []
    for i, score in enumerate(scores):
        memory = type("Candidate", (), {"memory_type": "preferred_name", "memory_id": f"m{i}"})()
        hits.append(Hit(memory=memory, text=f"memory {i}", cosine=0.5, text_rank=0.0, score=score,
                        features=(0.0,) * (len(FEATURES) - 1) + (1.0,)))
    return hits


@pytest.mark.parametrize(("scores", "bands"), [
    ([0.35, 0.05, 0.04], [HIGH, LOW, LOW]),  # far ahead: high, though below its type's threshold (0.4)
    ([0.95, 0.5, 0.04], [HIGH, HIGH, LOW]),  # passes; the second reaches its type's threshold too
    ([0.9, 0.85, 0.8], [LOW, LOW, LOW]),  # all alike: nothing high, though each reaches its threshold
    ([0.25, 0.0001, 0.0], [LOW, LOW, LOW]),  # far ahead, but below the floor
    ([0.35, 0.05], [LOW, LOW]),  # too few to compare: its type's threshold (0.4) decides
    ([0.45], [HIGH]),
])
def test_the_best_is_high_exactly_when_the_answerability_check_passes(monkeypatch, scores, bands):
    weights = np.zeros(len(GATE_FEATURES))
    weights[GATE_FEATURES.index("margin")], weights[GATE_FEATURES.index("bias")] = 1.0, -1.5
    head = Ranker(weights=(0.0,) * len(FEATURES), threshold=0.4, type_thresholds={}, gate_weights=tuple(weights),
                  gate_threshold=0.5, gate_floor=0.3)
    monkeypatch.setattr(selection, "ranker", lambda: head)
    question = type("Question", (), {"safety_rule": False, "result_only": False, "details": frozenset(),
                                      "measures": frozenset(), "text": "is it there?"})()
    chosen = selection.select_hits(_hits(scores), question=question)
    assert [h.confidence for h in chosen] == bands
    assert selection.confidence_of(chosen) == (HIGH if bands[0] == HIGH else LOW)
    # a bar the caller sets is the bar: the check is not asked
    chosen = selection.select_hits(_hits(scores), question=question, min_score=0.3)
    assert [h.confidence for h in chosen] == [HIGH if s >= 0.3 else LOW for s in scores]


def test_figures_owe_nothing_to_the_order_candidates_come_in():
    """Training's candidates come ranked by the shipped model: a score that ties (a text rank of 0) must not borrow
    that order. The same question with its candidates reversed gets the same figures, and tied ranks are shared."""
    texts = ("Preferred name: Sam", "Uses a wheelchair", "Interpreter: Polish", "Lives alone")
    rows = np.zeros((4, len(FEATURES)))
    asked = training.Asked(patient="p", kind="paraphrase", answerable=True, features=rows, types=("t",) * 4,
                           answers=np.array([1.0, 0.0, 0.0, 0.0]), texts=texts)
    reversed_ = training.Asked(patient="p", kind="paraphrase", answerable=True, features=rows, types=("t",) * 4,
                               answers=np.array([0.0, 0.0, 0.0, 1.0]), texts=texts[::-1])
    tied = np.zeros(4)
    assert training.figures([asked], [tied]) == training.figures([reversed_], [tied])
    assert list(training._ranks(np.array([0.5, 0.0, 0.0, 0.9, 0.0]))) == [2.0, 4.0, 4.0, 1.0, 4.0]


@pytest.mark.parametrize(("question", "details"), [
    ("When was his last seizure?", {"time"}),
    ("when's he best on the phone", {"time"}),
    ("what date is his cataract op?", {"time"}),
    ("Ringing her with the blood result - what time is best?", {"clock"}),
    ("Which days can't she come in?", {"day", "negative"}),
    ("how early can we book her?", {"clock"}),
    ("When is she unavailable?", {"time", "negative"}),
    ("What does he not eat?", {"negative"}),
    ("Is there a drug he must never be given?", {"negative"}),
    ("Can't we just phone her?", set()),
    ("Does he not speak English?", set()),
    ("She can't drive after the eye clinic - does she get help getting home?", set()),
    ("He's vomiting and can't keep his tablets down - what should happen?", set()),
    ("Lunch on the ward - anything he can't have?", {"negative"}),
    ("What times are his doses due?", {"clock"}),
    ("She's fitting - what do we do, and when is it an ambulance?", {"time"}),
    ("How old was the donor?", {"age"}),
    ("Where should he wait when he arrives?", set()),
    ("When he goes home who looks after his line?", set()),
    ("Her husband is asking what time she's booked - can I say?", set()),
    ("does it matter when she takes her thyroid tablet?", set()),
    ("What epilepsy medicine is he on?", set()),
])
def test_a_question_asking_for_a_time_or_an_age_says_so(question, details):
    """A time is asked at the start of a question or of one of its clauses; "when" in a clause of its own ("when
    he arrives") or a question reported for permission ("asking what time... can I say?") asks for none. Which
    day and what time of day are details of their own, and so is what the patient cannot do or have, asked in the
    question's own clause (not the staff's own "can't we...?", a question merely put negatively, or a clause
    that tells the situation: "she can't drive - does she get help home?")."""
    from memory.retrieval.question import understand

    assert understand(question).details == details


@pytest.mark.parametrize(("detail", "text", "held"), [
    ("time", "Best phoned between 10:00 and 16:00", True),
    ("time", "next due 2027-03-15", True),
    ("time", "repeat every 6 months", True),
    ("time", "no Monday appointments", True),
    ("time", "carbamazepine for focal epilepsy", False),
    ("day", "cannot attend on Monday and Friday", True),
    ("day", "appointments not before 10:00", False),
    ("clock", "appointments not before 10:00", True),
    ("clock", "cannot attend on Monday and Friday", False),
    ("negative", "Dietary requirements: vegetarian, gluten-free", True),
    ("negative", "appointments no later than 16:00", True),
    ("negative", "Available for appointments on Tuesdays", False),
    ("negative", "Food preference: enjoys curries", False),
    ("negative", "Hearing support: deaf in the left ear", True),
    ("day", "Dialysis Mon, Wed and Fri", True),
    ("time", "may be given paracetamol", False),
    ("age", "kidney from a donor aged 54", True),
    ("age", "transplant date 2021-06-09, DCD donor", False),
])
def test_what_holds_a_time_or_an_age(detail, text, held):
    from memory.retrieval.question import detail_held

    assert detail_held(detail, text) is held


@pytest.mark.parametrize(("question", "measures"), [
    ("What's his BMI?", {"bmi"}),
    ("what was his last ferritin", {"ferritin"}),
    ("egfr?", {"egfr"}),
    ("What's her infliximab trough level?", {"trough"}),
    ("what's her baseline hb", {"haemoglobin"}),
    ("whats his potassium limit", set()),
    ("Does she need her potassium checked before the infusion?", set()),
    ("what's her calcium supplement?", set()),
    ("Is his blood pressure ok for the extraction?", set()),
])
def test_a_question_asking_for_a_measurements_value_says_so(question, measures):
    """The value of a measurement, asked for with no reason, not a medicine or a rule about it ("limit")."""
    from memory.retrieval.question import understand

    assert understand(question).measures == measures


@pytest.mark.parametrize(("measure", "text", "held"), [
    ("haemoglobin", "baseline hb 98", True),
    ("weight", "Needs the bariatric table: 178 kg", True),
    ("ferritin", "ferric derisomaltose infusion, next due 2026-12-20", False),
    ("egfr", "dialysis three times a week", False),
])
def test_what_holds_a_measurements_value(measure, text, held):
    from memory.retrieval.question import measure_held

    assert measure_held(measure, text) is held
