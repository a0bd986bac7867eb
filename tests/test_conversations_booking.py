"""The seed's booking conversation end to end, against a real local HTTP fake of a scheduling system: slot offers
from the conversation's slots and the patient's long-term preferences, follow-up references, interruptions,
clarifying questions, and a scheduling outage."""

from __future__ import annotations

import json

import pytest

from conversations.models import ConversationTurn
from core.identity import identity_context
from tests.conftest import memory_body
from tests.fakes.scheduling import SEED_SLOTS, FakeScheduling
from tests.test_conversations_api import SEED_TURN_1, SEED_TURN_2, context, patient_identity, say, session_path, start

pytestmark = pytest.mark.django_db

# The seed's slots, plus a late-morning Thursday slot that only the long-term preference lets through.
WITH_A4 = [*SEED_SLOTS,
           {"slot_id": "A4", "start": "2031-01-09T10:30", "specialty": "cardiology", "visit_type": "followup"}]


@pytest.fixture
def scheduling(settings):
    fake = FakeScheduling()
    settings.SCHEDULING_BASE_URL = fake.url
    settings.SCHEDULING_CONNECT_TIMEOUT_SECONDS = 1.0
    settings.SCHEDULING_READ_TIMEOUT_SECONDS = 1.0
    yield fake
    fake.down()


def offers(api, sid, status: int = 200) -> dict:
    r = api.post(session_path(sid, "/offers"))
    assert r.status_code == status, r.content
    return r.json()


def conversation(world, *turns: str):
    api = world.patient(world.patient_a)
    sid = start(api, world.patient_a)["session"]["session_id"]
    for turn in turns:
        say(api, sid, turn)
    return api, sid


def test_seed_conversation_offers_only_the_thursday_afternoon_slot(world, scheduling):
    api, sid = conversation(world, SEED_TURN_1, SEED_TURN_2)
    body = offers(api, sid)
    assert [o["slot_id"] for o in body["offers"]] == ["A1"]
    assert body["offers"][0] == {"slot_id": "A1", "start": "2031-01-09T14:00", "day": "thursday", "time": "14:00"}
    assert body["considered"] == 3 and body["next_action"] == "select_slot"
    c = body["constraints"]
    assert c["excluded_periods"] == ["morning"] and c["preferred_days"] == ["thursday"]
    assert c["sources"] == {"excluded_periods": ["turn:1"], "preferred_days": ["turn:2"]}
    assert body["turn"]["role"] == "tool" and body["turn"]["seq"] == 3
    # only the specialty and visit type left the service; never a patient identifier
    assert scheduling.requests == [{"specialty": ["cardiology"], "visit_type": ["followup"]}]
    assert str(world.patient_a) not in json.dumps(scheduling.requests)
    ctx = context(api, sid)["context"]
    assert ctx["slots"]["last_offer"]["slots"][0]["slot_id"] == "A1"
    assert ctx["messages"][-1]["tool_name"] == "scheduling.search_slots"
    assert ctx["next_action"] == "select_slot"


def test_the_long_term_not_before_ten_preference_is_respected(world, scheduling):
    scheduling.slots = WITH_A4
    api, sid = conversation(world, "I need to reschedule my cardiology follow-up.", SEED_TURN_2)
    assert [o["slot_id"] for o in offers(api, sid)["offers"]] == ["A2", "A4", "A1"], "no preference yet"

    cid = world.consent(world.patient_a)
    assert api.post(f"/v1/patients/{world.patient_a}/memories", memory_body(cid, "earliest_time", "10:00")
                    ).status_code == 201
    api, sid = conversation(world, "I need to reschedule my cardiology follow-up.", SEED_TURN_2)
    body = offers(api, sid)
    assert [o["slot_id"] for o in body["offers"]] == ["A4", "A1"], "09:00 is before 10:00"
    assert body["constraints"]["earliest_time"] == "10:00"
    assert body["constraints"]["sources"]["earliest_time"][0].startswith("memory:")
    # the seed's whole conversation with the preference: still only A1 (A4 is a morning slot)
    api, sid = conversation(world, SEED_TURN_1, SEED_TURN_2)
    assert [o["slot_id"] for o in offers(api, sid)["offers"]] == ["A1"]


def test_another_specialty_is_never_booked_as_cardiology(world, scheduling):
    api, sid = conversation(world, "I need to reschedule my dermatology visit", "Thursday please")
    body = offers(api, sid)
    assert [o["slot_id"] for o in body["offers"]] == ["D1"]
    assert scheduling.requests[-1] == {"specialty": ["dermatology"]}


def test_no_search_until_the_appointment_is_known(world, scheduling):
    api, sid = conversation(world, "I need to reschedule my appointment", "What about Thursday?")
    r = api.post(session_path(sid, "/offers"))
    assert r.status_code == 409 and r.json()["code"] == "slots_incomplete"
    assert [e["field"] for e in r.json()["errors"]] == ["slots.specialty"]
    assert scheduling.requests == [], "nothing guessed, nothing asked"
    assert say(api, sid, "It's the cardiology one")["next_action"] == "search_slots"
    assert [o["slot_id"] for o in offers(api, sid)["offers"]] == ["A2", "A1"]


def test_an_ambiguous_time_is_asked_about_before_any_search(world, scheduling):
    api, sid = conversation(world, "I need to reschedule my cardiology follow-up", "Thursday after 3?")
    state = api.get(session_path(sid)).json()
    assert state["next_action"] == "ask_clarifying_question"
    assert state["clarifying_questions"] == [
        {"question": "Do you mean 3:00 am or 3:00 pm as the earliest time?", "source_id": "turn:2"}]
    assert state["slots"]["earliest_time"] is None
    r = api.post(session_path(sid, "/offers"))
    assert r.status_code == 409 and r.json()["code"] == "clarification_needed"
    assert scheduling.requests == []
    answered = say(api, sid, "pm")
    assert answered["slots"]["earliest_time"] == "15:00" and answered["clarifying_questions"] == []
    assert [o["slot_id"] for o in offers(api, sid)["offers"]] == []  # A1 is at 14:00, before 15:00
    assert say(api, sid, "OK, after 2pm then")["slots"]["earliest_time"] == "14:00"
    assert [o["slot_id"] for o in offers(api, sid)["offers"]] == ["A1"]


def test_follow_up_references_pick_an_offered_slot(world, scheduling):
    scheduling.slots = WITH_A4
    api, sid = conversation(world, "I need to reschedule my cardiology follow-up", SEED_TURN_2)
    assert [o["slot_id"] for o in offers(api, sid)["offers"]] == ["A2", "A4", "A1"]
    body = say(api, sid, "I'll take the 2 o'clock one")
    assert body["slots"]["selected_slot_id"] == "A1" and body["next_action"] == "confirm_selection"
    body = say(api, sid, "Sorry, the first one")
    assert body["slots"]["selected_slot_id"] == "A2"


def test_an_interruption_keeps_the_booking_and_a_correction_changes_it(world, scheduling):
    api, sid = conversation(world, SEED_TURN_1)
    say(api, sid, "Certainly. Which day suits you?", role="assistant")
    aside = say(api, sid, "Sorry, unrelated: is there parking at the clinic?")
    assert aside["slots"]["specialty"] == "cardiology" and aside["slots"]["excluded_periods"] == ["morning"]
    say(api, sid, "Yes, there is a car park behind the building.", role="assistant")
    say(api, sid, SEED_TURN_2)
    assert [o["slot_id"] for o in offers(api, sid)["offers"]] == ["A1"]
    corrected = say(api, sid, "Actually, make that the dermatology appointment, not cardiology")
    assert corrected["slots"]["specialty"] == "dermatology"
    assert corrected["slots"]["last_offer"] is None, "offers made for cardiology are stale"
    assert corrected["next_action"] == "search_slots"
    assert [o["slot_id"] for o in offers(api, sid)["offers"]] == [], "D1 is at 11:00 and mornings are excluded"


@pytest.mark.parametrize("failure", ["down", "error", "garbage", "slow"])
def test_a_scheduling_outage_is_503_and_changes_nothing(world, scheduling, failure):
    api, sid = conversation(world, SEED_TURN_1, SEED_TURN_2)
    if failure == "down":
        scheduling.down()
    else:
        scheduling.mode = failure
        scheduling.hang_seconds = 2.0
    r = api.post(session_path(sid, "/offers"))
    assert r.status_code == 503 and r.json()["code"] == "scheduling_unavailable"
    state = api.get(session_path(sid)).json()
    assert state["session"]["turn_count"] == 2 and state["slots"]["last_offer"] is None


def test_completion_clears_the_offers(world, scheduling):
    api, sid = conversation(world, SEED_TURN_1, SEED_TURN_2)
    offers(api, sid)
    say(api, sid, "yes, that one")
    assert api.post(session_path(sid, "/end"), {"outcome": "completed"}).status_code == 200
    with identity_context(patient_identity(world.org, world.patient_a)):
        tool = ConversationTurn.objects.get(session_id=sid, role="tool")
    assert tool.tool_result is None and tool.content == ""


def test_offers_need_both_scopes(world, scheduling):
    api, sid = conversation(world, SEED_TURN_1, SEED_TURN_2)
    r = world.patient(world.patient_a, scope="memory:write").post(session_path(sid, "/offers"))
    assert r.status_code == 403 and r.json()["code"] == "insufficient_scope"


def test_offers_are_refused_when_the_conversation_moved_on_meanwhile(world, scheduling, monkeypatch):
    """Offers are recorded only against the turns they were searched for: a turn that arrives during the search
    makes them stale, and the caller is told to retry (409) rather than given a tool result for other slots."""
    from conversations import scheduling as client
    from conversations import services

    api, sid = conversation(world, SEED_TURN_1, SEED_TURN_2)
    real = client.search_slots

    def search_while_the_patient_types(**kwargs):
        me = patient_identity(world.org, world.patient_a)
        services.turn_append(identity=me, session_id=sid, role="user", content="actually, Friday")
        return real(**kwargs)

    monkeypatch.setattr(client, "search_slots", search_while_the_patient_types)
    r = api.post(session_path(sid, "/offers"))
    assert r.status_code == 409 and r.json()["code"] == "concurrent_update_retry"


# A Monday morning, a Tuesday morning and a Tuesday afternoon besides the seed's slots.
WITH_PAIRS = [*SEED_SLOTS,
              {"slot_id": "M1", "start": "2031-01-06T09:00", "specialty": "cardiology", "visit_type": "followup"},
              {"slot_id": "T1", "start": "2031-01-07T09:30", "specialty": "cardiology", "visit_type": "followup"},
              {"slot_id": "T2", "start": "2031-01-07T14:30", "specialty": "cardiology", "visit_type": "followup"}]


def test_a_day_and_a_part_of_the_day_are_one_constraint_in_the_offers(world, scheduling):
    """"Tuesday morning or Thursday afternoon" offers those two, not a Tuesday afternoon or a Thursday morning; "not
    Monday morning" keeps Monday afternoons and other mornings."""
    scheduling.slots = WITH_PAIRS
    api, sid = conversation(world, "I need to reschedule my cardiology follow-up. I can do Tuesday morning or "
                                   "Thursday afternoon")
    body = offers(api, sid)
    assert [o["slot_id"] for o in body["offers"]] == ["T1", "A1"]
    c = body["constraints"]
    assert c["preferred_day_periods"] == [{"day": "tuesday", "period": "morning"},
                                          {"day": "thursday", "period": "afternoon"}]
    assert c["preferred_days"] == [] and c["preferred_period"] is None
    assert c["sources"] == {"preferred_day_periods": ["turn:1"]}

    api, sid = conversation(world, "I need to reschedule my cardiology follow-up, but not Monday morning")
    body = offers(api, sid)
    assert [o["slot_id"] for o in body["offers"]] == ["A3", "T1", "T2", "A2", "A1"]
    assert body["constraints"]["excluded_day_periods"] == [{"day": "monday", "period": "morning"}]
    assert body["constraints"]["excluded_days"] == [] and body["constraints"]["excluded_periods"] == []
    slots = context(api, sid)["context"]["slots"]
    assert slots["excluded_day_periods"] == [{"day": "monday", "period": "morning"}]
    assert slots["preferred_day_periods"] == []


def test_a_day_and_period_pair_is_not_proposed_long_term(world):
    """The long-term type keeps whole days and periods: the pair is skipped with its reason, never widened."""
    world.consent(world.patient_a)
    api = world.patient(world.patient_a)
    sid = start(api, world.patient_a)["session"]["session_id"]
    say(api, sid, "book cardiology, I can't do Fridays and not Tuesday morning")
    body = api.post(session_path(sid, "/turns/1/propose")).json()
    assert [m["fact"] for m in body["proposed"]] == [{"kind": "excluded_days", "days": ["friday"]}]
    assert body["skipped"] == [{"kind": "excluded_day_periods", "reason": "not_kept_long_term"}]


def test_a_day_said_relative_to_today_is_asked_about_and_blocks_no_proposal(world):
    world.consent(world.patient_a)
    api = world.patient(world.patient_a)
    sid = start(api, world.patient_a)["session"]["session_id"]
    body = say(api, sid, "book cardiology, not this Monday, and never before 10am")
    assert body["next_action"] == "ask_clarifying_question"
    assert body["slots"]["excluded_days"] == [] and body["slots"]["earliest_time"] == "10:00"
    assert [q["question"].startswith("Which day of the week") for q in body["clarifying_questions"]] == [True]
    proposed = api.post(session_path(sid, "/turns/1/propose")).json()
    assert [m["fact"] for m in proposed["proposed"]] == [{"kind": "earliest_time", "time": "10:00"}]
    assert proposed["skipped"] == []


def test_a_day_refused_for_this_booking_is_not_proposed_long_term(world):
    """"I can't make Tuesday" excludes Tuesday from this conversation's offers, but proposing it as a standing
    preference asked the patient to confirm never being offered a Tuesday again, which they never said: it is
    skipped (not_kept_long_term), while "I can't do Mondays" in the same turn is proposed."""
    world.consent(world.patient_a)
    api = world.patient(world.patient_a)
    sid = start(api, world.patient_a)["session"]["session_id"]
    body = say(api, sid, "book cardiology, I can't make Tuesday and I can't do Mondays")
    assert body["slots"]["excluded_days"] == ["monday", "tuesday"]
    proposal = api.post(session_path(sid, "/turns/1/propose")).json()
    assert [m["fact"] for m in proposal["proposed"]] == [{"kind": "excluded_days", "days": ["monday"]}]
    assert proposal["skipped"] == [{"kind": "excluded_days", "reason": "not_kept_long_term"}]
