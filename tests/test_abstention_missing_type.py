"""Whether search is sure when the kind of fact asked for is not on this patient's record: another patient of the
same organisation has it, and this patient has other facts, some close in meaning. Small hand-written sets, written
before looking at the ranking rules; the band is asserted, never a score. Real model, real PostgreSQL."""

from __future__ import annotations

import pytest

from tests.test_answerability import record_facts

pytestmark = pytest.mark.django_db

PATIENT_A = [  # how and when to reach her, when she can come, her name, her transport; nothing else
    ("communication_preference", {"kind": "channel", "channel": "sms"}),
    ("communication_preference", {"kind": "contact_window", "start": "09:00", "end": "17:00"}),
    ("scheduling_preference", {"kind": "earliest_time", "time": "09:30"}),
    ("preferred_name", {"preferred_name": "Jo"}),
    ("transport_need", {"needs": ["hospital_transport"]}),
]
PATIENT_B = [  # reminders, diet, interpreter, carer, mobility, name; nothing about times, transport or contact
    ("reminder_preference", {"channel": "email", "lead_time_hours": 72}),
    ("dietary_requirement", {"diets": ["halal", "nut_free"]}),
    ("language_support", {"language": "pl", "interpreter_needed": True}),
    ("caregiver_contact", {"name": "Ewa Nowak", "relationship": "child", "may_be_told": ["appointments"]}),
    ("accessibility_need", {"kind": "mobility", "aid": "wheelchair", "step_free_access": True}),
    ("preferred_name", {"preferred_name": "Bea"}),
]

ONLY_B_HAS = {  # question -> the type that answers it
    "How many hours ahead of the clinic should her reminder go out?": "reminder_preference",
    "Does she want reminding the day before or a week before?": "reminder_preference",
    "What meals should the ward order for her?": "dietary_requirement",
    "Is there anything the kitchen should know before she is admitted?": "dietary_requirement",
    "Will we need an interpreter at the consultation?": "language_support",
    "Which language should the interpreter speak?": "language_support",
    "Who is her next of kin?": "caregiver_contact",
    "Which relative may we tell about her appointments?": "caregiver_contact",
    "Does she use a wheelchair?": "accessibility_need",
    "Does she need a room without steps?": "accessibility_need",
}
ONLY_A_HAS = {
    "Should we book hospital transport for her?": "transport_need",
    "How is she getting to the hospital?": "transport_need",
    "What is the earliest slot we can offer her?": "scheduling_preference",
    "What time of day is it all right to phone her?": "communication_preference",
}


@pytest.fixture
def recorded(world):
    return record_facts(world, ((world.patient_a, PATIENT_A), (world.patient_b, PATIENT_B)))


def answers(world, patient, questions) -> dict[str, tuple[str, str | None, list[str]]]:
    """Each question's overall band, the type of its first hit, and the types of the hits also marked high."""
    api = world.patient(patient)
    out = {}
    for q in questions:
        r = api.get(f"/v1/patients/{patient}/memories/search", {"q": q})
        assert r.status_code == 200, r.content
        body = r.json()
        items = body["items"]
        first = items[0]["memory"]["memory_type"] if items else None
        out[q] = (body["confidence"], first, [i["memory"]["memory_type"] for i in items if i["confidence"] == "high"])
    return out


def test_the_same_questions_are_answered_confidently_where_the_fact_is_on_record(recorded):
    """Asked of the patient who has the fact, each question is high with that fact first, and no fact of another
    kind is marked high beside it."""
    for patient, questions in ((recorded.patient_b, ONLY_B_HAS), (recorded.patient_a, ONLY_A_HAS)):
        found = answers(recorded, patient, questions)
        assert {q: (band, first) for q, (band, first, _) in found.items()} == {
            q: ("high", wanted) for q, wanted in questions.items()}, found
        assert {q: set(high) for q, (_, _, high) in found.items()} == {
            q: {wanted} for q, wanted in questions.items()}, found


def test_a_fact_beside_the_answer_is_not_confident_when_it_lacks_the_detail_asked(recorded):
    """"What time of day may we phone her?" asks a time of day: her contact hours answer it, high; her contact
    channel ("by text message"), of the same type and close in meaning, holds no time and comes beside them as an
    alternative, low. Every candidate is held to the detail asked, not only the best."""
    api = recorded.patient(recorded.patient_a)
    for q in ("What time of day is it all right to phone her?", "what hours can we ring her?"):
        body = api.get(f"/v1/patients/{recorded.patient_a}/memories/search", {"q": q}).json()
        by_kind = {i["memory"]["fact"].get("kind"): i["confidence"] for i in body["items"]
                   if i["memory"]["memory_type"] == "communication_preference"}
        assert by_kind == {"contact_window": "high", "channel": "low"}, (q, body["items"])
