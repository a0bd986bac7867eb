"""Whether search is sure, by class of question: a question asking for a kind of detail (which days, what time,
what the patient cannot do or have) that nothing on record holds gets no high-confidence answer, however close
the nearest fact is in meaning; the same question with the fact on record does. Small hand-written sets, written
before looking at the ranking rules; the band is asserted, never a score. Real model, real PostgreSQL."""

from __future__ import annotations

import pytest

from tests.test_memory_types import admin

pytestmark = pytest.mark.django_db

SCHED = "appointment_scheduling"


def positive_type(name: str, label: str, serves: str, text: str, field: str) -> dict:
    """An organisation's own type whose one free-text field says what the patient can do, or likes."""
    return {"name": name, "memory_class": "preference", "label": label, "serves": [serves], "purposes": [SCHED],
            "writers": ["patient", "staff", "agent_proposal"], "supersession": [], "text": text,
            "schema": {"type": "object", "additionalProperties": False, "required": [field],
                       "properties": {field: {"type": "string", "maxLength": 100}}}}


AVAILABILITY = positive_type("clinic_availability", "Days the patient is free for clinic",
                             "which days the patient is free to come to clinic",
                             "Available for appointments on {days}", "days")
FOOD = positive_type("food_preference", "Food the patient enjoys", "food and drink the patient likes",
                     "Food preference: enjoys {foods}", "foods")

POSITIVE_ONLY = [  # patient A: when she is free, when she likes to be phoned, what she enjoys; not before 10:00
    ("clinic_availability", {"days": "Tuesdays and Thursdays"}),
    ("food_preference", {"foods": "curries and fresh fruit"}),
    ("communication_preference", {"kind": "contact_window", "start": "10:00", "end": "16:00"}),
    ("scheduling_preference", {"kind": "earliest_time", "time": "10:00"}),
    ("preferred_name", {"preferred_name": "Mags"}),
]
NEGATIVES = [  # patient B: the days she cannot come and what she cannot eat; no clock time on record
    ("scheduling_preference", {"kind": "excluded_days", "days": ["monday", "friday"]}),
    ("dietary_requirement", {"diets": ["vegetarian", "gluten_free"]}),
    ("communication_preference", {"kind": "channel", "channel": "email"}),
    ("preferred_name", {"preferred_name": "Bea"}),
]


@pytest.fixture
def recorded(world):
    for definition in (AVAILABILITY, FOOD):
        r = admin(world).post("/v1/memory-types", definition)
        assert r.status_code == 201, r.content
    return record_facts(world, ((world.patient_a, POSITIVE_ONLY), (world.patient_b, NEGATIVES)))


def record_facts(world, facts_by_patient):
    """Each patient's facts, written by the patient under a scheduling consent."""
    for patient, facts in facts_by_patient:
        consent = world.consent(patient)
        for memory_type, fact in facts:
            r = world.patient(patient).post(f"/v1/patients/{patient}/memories", {
                "memory_type": memory_type, "fact": fact, "consent_purpose": SCHED, "consent_record_id": consent})
            assert r.status_code == 201, r.content
    return world


def bands(world, patient, questions) -> dict[str, str]:
    api = world.patient(patient)
    out = {}
    for q in questions:
        r = api.get(f"/v1/patients/{patient}/memories/search", {"q": q})
        assert r.status_code == 200, r.content
        out[q] = r.json()["confidence"]
    return out


DAYS_UNAVAILABLE = ["Which days can she not come in?", "What days is she unavailable for appointments?",
                    "which days are no good for her?"]
CANNOT_EAT = ["What can't she eat?", "Which foods does she avoid?"]
CLOCK_TIME = ["What time can she come in?", "how early can we book her?"]


def test_a_question_about_what_the_patient_cannot_do_is_not_answered_confidently_by_what_she_can(recorded):
    """Patient A has only positive facts for days and food (free on Tuesdays and Thursdays, enjoys curries):
    "which days can she not come?" and "what can't she eat?" are not answered by them, so nothing is high; her
    "not before 10:00" is a time of day, not a day. So too with one or two candidates (a search limited by
    ``memory_type``, a patient with little on record), where there is nothing for the answerability check to
    compare and each candidate's threshold decided alone, without asking whether it holds the detail; a
    candidate that holds it is still high."""
    found = bands(recorded, recorded.patient_a, DAYS_UNAVAILABLE + CANNOT_EAT)
    assert found == {q: "low" for q in DAYS_UNAVAILABLE + CANNOT_EAT}
    url = f"/v1/patients/{recorded.patient_a}/memories/search"
    api = recorded.patient(recorded.patient_a)
    narrow = {"memory_type": "clinic_availability,preferred_name"}
    body = api.get(url, {"q": "Which days can she not come in?", **narrow}).json()
    assert body["confidence"] == "low", body
    body = api.get(url, {"q": "Which days is she free to come in?", **narrow}).json()
    assert body["confidence"] == "high", body
    assert body["items"][0]["memory"]["memory_type"] == "clinic_availability"


def test_the_same_questions_are_confident_when_a_fact_holds_the_detail_and_a_day_is_no_clock_time(recorded):
    """Patient B's record says which days she cannot attend and her diet: the same questions are high, and so is
    "when is she unavailable?" (a day answers "when"). "What time can she come in?": patient A's "not before
    10:00" answers it; patient B's days she cannot attend say no time of day."""
    questions = DAYS_UNAVAILABLE + CANNOT_EAT + ["When is she unavailable?"]
    assert bands(recorded, recorded.patient_b, questions) == {q: "high" for q in questions}
    assert bands(recorded, recorded.patient_a, CLOCK_TIME) == {q: "high" for q in CLOCK_TIME}
    assert bands(recorded, recorded.patient_b, CLOCK_TIME) == {q: "low" for q in CLOCK_TIME}
