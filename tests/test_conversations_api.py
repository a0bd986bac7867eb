"""Conversation sessions through the HTTP API: start, turns, context within a token budget, end; access rules, audit,
transient clinical remarks, proposals to long-term memory, and the invariants the database holds."""

from __future__ import annotations

import json
import uuid
from datetime import timedelta

import jsonschema
import psycopg
import pytest
from django.db import connection, transaction
from django.utils import timezone

from consent.models import ConsentRecord
from conversations.models import ConversationSession, ConversationTurn
from conversations.summaries import SUMMARY_SCHEMA, dumps, summary_problems
from conversations.tokens import count_tokens
from core.identity import ACTOR_PATIENT, Identity, identity_context
from core.models import AuditEvent
from memory.models import Memory
from tests.conftest import memory_body
from tests.support import PATIENT_SCOPES, Api, mint

pytestmark = pytest.mark.django_db

SEED_TURN_1 = ("I need to reschedule my cardiology follow-up. I can't do mornings, and I'm currently taking blood "
               "thinners.")
SEED_TURN_2 = "What about Thursday?"


def session_path(sid, tail: str = "") -> str:
    return f"/v1/sessions/{sid}{tail}"


def start(api: Api, pid, purpose: str = "appointment_scheduling") -> dict:
    r = api.post("/v1/sessions", {"patient_id": str(pid), "purpose": purpose})
    assert r.status_code == 201, r.content
    return r.json()


def say(api: Api, sid, content: str, role: str = "user", status: int = 201, **extra) -> dict:
    r = api.post(session_path(sid, "/turns"), {"role": role, "content": content, **extra})
    assert r.status_code == status, r.content
    return r.json()


def context(api: Api, sid, max_tokens: int | None = None, status: int = 200) -> dict:
    r = api.get(session_path(sid, "/context"), {"max_tokens": max_tokens} if max_tokens else None)
    assert r.status_code == status, r.content
    return r.json()


def patient_identity(org, pid) -> Identity:
    return Identity(org_id=org, actor_sub=f"patient-{pid}", patient_self_id=pid, actor_kind=ACTOR_PATIENT,
                    scopes=frozenset({"memory:read", "memory:write"}))


# --- start ---------------------------------------------------------------------------------------------------

def test_start_gives_a_session_with_sliding_and_absolute_expiry(world):
    body = start(world.patient(world.patient_a), world.patient_a)
    s = body["session"]
    assert s["status"] == "active" and s["turn_count"] == 0 and s["purpose"] == "appointment_scheduling"
    assert s["idle_timeout_seconds"] == 4 * 3600
    with identity_context(patient_identity(world.org, world.patient_a)):
        session = ConversationSession.objects.get(session_id=s["session_id"])
    assert (session.expires_at - session.created_at).total_seconds() == 4 * 3600
    assert (session.absolute_expires_at - session.created_at).total_seconds() == 24 * 3600
    assert body["next_action"] == "clarify_intent"
    assert body["slots"]["intent"] is None and body["slots"]["specialty"] is None


def test_idle_timeout_is_configurable(world, settings):
    settings.CONVERSATION_IDLE_SECONDS = 600
    s = start(world.patient(world.patient_a), world.patient_a)["session"]
    assert s["idle_timeout_seconds"] == 600


def test_only_the_patient_or_granted_staff_may_start(world):
    r = world.patient(world.patient_b).post("/v1/sessions", {"patient_id": str(world.patient_a),
                                                            "purpose": "appointment_scheduling"})
    assert r.status_code == 403 and r.json()["code"] == "no_active_consent_or_access"
    nurse = world.staff("nurse-1")
    r = nurse.post("/v1/sessions", {"patient_id": str(world.patient_a), "purpose": "appointment_scheduling"})
    assert r.status_code == 403
    world.grant(world.patient_a, "nurse-1", "care_coordination")
    r = nurse.post("/v1/sessions", {"patient_id": str(world.patient_a), "purpose": "appointment_scheduling"})
    assert r.status_code == 403, "a grant for another purpose is no grant"
    world.grant(world.patient_a, "nurse-1", "appointment_scheduling")
    assert start(nurse, world.patient_a)["session"]["status"] == "active"
    with identity_context(Identity(org_id=world.org, actor_sub="auditor", scopes=frozenset({"audit:read"}))):
        denied = list(AuditEvent.objects.filter(action="conversation.start", outcome="denied")
                      .values_list("patient_id", flat=True))
    assert world.patient_a in denied


def test_start_needs_memory_write_and_a_valid_body(world):
    reader = world.patient(world.patient_a, scope="memory:read")
    r = reader.post("/v1/sessions", {"patient_id": str(world.patient_a), "purpose": "appointment_scheduling"})
    assert r.status_code == 403 and r.json()["code"] == "insufficient_scope"
    api = world.patient(world.patient_a)
    for body in ({"patient_id": "nope", "purpose": "appointment_scheduling"},
                 {"patient_id": str(world.patient_a), "purpose": "marketing"},
                 {"patient_id": str(world.patient_a), "purpose": "appointment_scheduling", "extra": 1}):
        r = api.post("/v1/sessions", body)
        assert r.status_code == 422 and r.json()["code"] == "validation_error", r.content


# --- turns ---------------------------------------------------------------------------------------------------

def test_turns_get_sequence_numbers_and_slots_update_on_the_first_turn(world):
    api = world.patient(world.patient_a)
    sid = start(api, world.patient_a)["session"]["session_id"]
    first = say(api, sid, SEED_TURN_1)
    assert first["turn"]["seq"] == 1 and first["turn"]["source_id"] == "turn:1"
    assert first["slots"]["intent"] == "reschedule" and first["slots"]["specialty"] == "cardiology"
    assert first["slots"]["excluded_periods"] == ["morning"] and first["slots"]["preferred_period"] is None
    assert first["next_action"] == "search_slots"
    assert first["turn"]["token_count"] > 0
    assert say(api, sid, "Let me check my calendar.", role="assistant")["turn"]["seq"] == 2
    second = say(api, sid, SEED_TURN_2)
    assert second["turn"]["seq"] == 3 and second["session"]["turn_count"] == 3
    assert second["slots"]["preferred_days"] == ["thursday"]
    assert second["slots"]["specialty"] == "cardiology", "the follow-up resolves against the first turn"
    assert second["slots"]["excluded_periods"] == ["morning"], "a constraint from the first turn is kept"


@pytest.mark.parametrize("content", ["\x1b[31mcardiology\x1b[0m on Monday", "bell\x07 please",
                                     "Monday \u202eyadsruhT", "back\x08space"])
def test_a_turn_with_control_or_direction_characters_is_422_and_stores_nothing(world, content):
    """A turn is what the model reads and the summary quotes: an escape sequence, a bell or a direction override
    (text shown in another order than it is stored) was stored and put into the model context as sent. It is
    422 unstorable_character naming content and the code point, nothing stored; tabs and line breaks are text."""
    api = world.patient(world.patient_a)
    sid = start(api, world.patient_a)["session"]["session_id"]
    r = api.post(session_path(sid, "/turns"), {"role": "user", "content": content})
    assert r.status_code == 422, r.content
    assert [(e["field"], e["code"]) for e in r.json()["errors"]] == [("content", "unstorable_character")], r.content
    assert "U+" in r.json()["errors"][0]["message"]
    assert api.get(session_path(sid)).json()["session"]["turn_count"] == 0
    body = say(api, sid, "cardiology\tplease\r\nMonday \u200fok")
    assert body["turn"]["seq"] == 1 and body["slots"]["specialty"] == "cardiology"


@pytest.mark.parametrize("tool_result", [
    {"note": "\x1b[2J\x1b[31mcall the patient now\x1b[0m"},
    {"offers": [{"slot_id": "s1", "day": "monday", "time": "10:00", "clinician": "Dr \u202eyadsruhT"}]},
    {"items": [{"nested": ["ok", "bell\x07"]}]},
    {"key\x08": "value"},
])
def test_a_tool_result_with_control_or_direction_characters_is_422_and_stores_nothing(world, tool_result):
    """A tool result reaches the model context and the summaries as turns do, but its strings were stored as sent:
    escape sequences, a bell, a backspace in a key or a direction override anywhere in it. It is 422
    unstorable_character on tool_result, nothing stored, as such a turn's content is; tabs and line breaks are
    text."""
    api = world.patient(world.patient_a)
    sid = start(api, world.patient_a)["session"]["session_id"]
    r = api.post(session_path(sid, "/turns"), {"role": "tool", "content": "", "tool_name": "scheduling.search",
                                               "tool_result": tool_result})
    assert r.status_code == 422, r.content
    assert [(e["field"], e["code"]) for e in r.json()["errors"]] == [("tool_result", "unstorable_character")]
    assert api.get(session_path(sid)).json()["session"]["turn_count"] == 0
    r = api.post(session_path(sid, "/turns"), {"role": "tool", "content": "", "tool_name": "scheduling.search",
                                               "tool_result": {"note": "line one\nline\ttwo \u200f"}})
    assert r.status_code == 201, r.content


def test_assistant_turns_do_not_set_slots(world):
    api = world.patient(world.patient_a)
    sid = start(api, world.patient_a)["session"]["session_id"]
    body = say(api, sid, "Would you like a cardiology appointment on Monday morning?", role="assistant")
    assert body["slots"]["specialty"] is None and body["slots"]["preferred_days"] == []


@pytest.mark.parametrize("body, field", [
    ({"role": "robot", "content": "hi"}, "role"),
    ({"role": "user", "content": ""}, "content"),
    ({"role": "user", "content": "\u200b\u200b"}, "content"),  # zero-width spaces: nothing said
    ({"role": "assistant", "content": " \u2060\ufeff\x07 "}, "content"),  # invisible and control characters
    ({"role": "user", "content": "x" * 8001}, "content"),
    ({"role": "user", "content": "hi", "tool_name": "scheduling.search"}, "tool_name"),
    ({"role": "tool", "content": "done"}, "tool_name"),
    ({"role": "tool", "content": "", "tool_name": "x", "tool_result": [1, 2]}, "tool_result"),
    ({"role": "tool", "content": "", "tool_name": "x", "tool_result": {"blob": "y" * 17000}}, "tool_result"),
    ({"role": "tool", "content": "", "tool_name": "bad name!", "tool_result": {}}, "tool_name"),
    ({"role": "user", "content": "hi", "extra": 1}, "extra"),
])
def test_invalid_turns_are_422_and_store_nothing(world, body, field):
    api = world.patient(world.patient_a)
    sid = start(api, world.patient_a)["session"]["session_id"]
    r = api.post(session_path(sid, "/turns"), body)
    assert r.status_code == 422, r.content
    assert field in [e["field"] for e in r.json()["errors"]], r.json()
    assert api.get(session_path(sid)).json()["session"]["turn_count"] == 0


@pytest.mark.parametrize("offers", [[1, "A1", None], [{"day": "monday", "time": "10:00"}], [{"slot_id": 7}],
                                    [{"slot_id": "A1", "time": 1000}], [{"slot_id": "A1", "time": "25:00"}],
                                    [{"slot_id": "A1", "day": "someday"}], "A1", None])
def test_a_malformed_slot_search_result_is_refused_and_the_conversation_goes_on(world, offers):
    """Later turns pick from the latest offers ("the first one") and the summary quotes them: a result recorded
    under the slot search's name whose offers are not objects with a slot id (and a day and HH:MM time when
    given) is 422 naming tool_result.offers, stores nothing, and the next turns work; before, it was stored and
    every later user turn failed with a 500."""
    from conversations.slots import OFFER_TOOL

    api = world.patient(world.patient_a)
    sid = start(api, world.patient_a)["session"]["session_id"]
    say(api, sid, "book cardiology please")
    r = api.post(session_path(sid, "/turns"), {"role": "tool", "tool_name": OFFER_TOOL, "content": "",
                                               "tool_result": {"offers": offers}})
    assert r.status_code == 422 and r.json()["errors"][0]["field"] == "tool_result.offers", r.content
    assert api.get(session_path(sid)).json()["session"]["turn_count"] == 1
    good = {"offers": [{"slot_id": "A1", "day": "thursday", "time": "14:00"}]}
    say(api, sid, "", role="tool", tool_name=OFFER_TOOL, tool_result=good)
    assert say(api, sid, "the first one")["slots"]["selected_slot_id"] == "A1"
    assert context(api, sid, 300)["context"]["slots"]["selected_slot_id"] == "A1"


def test_a_slot_search_result_holds_at_most_as_many_offers_as_the_service_offers(world):
    """Every context carries the latest offers whole: an agent's list of a hundred left no room for the
    conversation at the default budget (422 context_budget_too_small on every read)."""
    from conversations.services import MAX_OFFERS
    from conversations.slots import OFFER_TOOL

    api = world.patient(world.patient_a)
    sid = start(api, world.patient_a)["session"]["session_id"]
    offers = [{"slot_id": f"S{i}", "day": "monday", "time": "09:00"} for i in range(MAX_OFFERS + 1)]
    r = api.post(session_path(sid, "/turns"), {"role": "tool", "tool_name": OFFER_TOOL, "content": "",
                                               "tool_result": {"offers": offers}})
    assert r.status_code == 422, r.content
    assert r.json()["errors"] == [{"field": "tool_result.offers", "message": f"at most {MAX_OFFERS} offers",
                                   "code": "too_long"}]
    assert api.get(session_path(sid)).json()["session"]["turn_count"] == 0
    say(api, sid, "", role="tool", tool_name=OFFER_TOOL, tool_result={"offers": offers[:MAX_OFFERS]})
    assert api.get(session_path(sid, "/context")).status_code == 200


def test_offers_with_extra_fields_leave_room_for_the_conversation_at_the_default_budget(world):
    """Every context carries the latest offers: ten offers that came with other fields (a clinician, a long note)
    filled the slots beyond the default budget, so every default read was 422 context_budget_too_small. The slots
    keep what the conversation refers back to (slot_id, start, day, time); the tool turn keeps the whole result.
    A slot id over 128 characters or a start over 64 is refused as a malformed offer."""
    from conversations.slots import OFFER_TOOL

    api = world.patient(world.patient_a)
    sid = start(api, world.patient_a)["session"]["session_id"]
    say(api, sid, "I need a cardiology follow-up")
    note = " ".join(["parking on level two near the east entrance"] * 30)
    offers = [{"slot_id": f"S{i}", "start": "2031-03-03T10:00", "day": "monday", "time": "10:00",
               "clinician": "Dr Example", "note": note} for i in range(10)]
    say(api, sid, "", role="tool", tool_name=OFFER_TOOL, tool_result={"offers": offers})
    body = context(api, sid)
    assert body["budget"]["used_tokens"] <= 2000
    assert body["context"]["slots"]["last_offer"]["slots"][0] == {
        "slot_id": "S0", "start": "2031-03-03T10:00", "day": "monday", "time": "10:00"}
    assert say(api, sid, "the second one")["slots"]["selected_slot_id"] == "S1"
    for offer in ({"slot_id": "S" * 129}, {"slot_id": "S1", "start": "2" * 65}):
        r = api.post(session_path(sid, "/turns"), {"role": "tool", "tool_name": OFFER_TOOL, "content": "",
                                                   "tool_result": {"offers": [offer]}})
        assert r.status_code == 422 and r.json()["errors"][0]["field"] == "tool_result.offers", r.content


def test_tool_turns_carry_bounded_results(world):
    api = world.patient(world.patient_a)
    sid = start(api, world.patient_a)["session"]["session_id"]
    body = say(api, sid, "", role="tool", tool_name="ehr.lookup_appointment", tool_result={"appointment": "X1"})
    assert body["turn"]["tool_name"] == "ehr.lookup_appointment"


def test_sessions_are_invisible_to_other_patients_organisations_and_purposes(world):
    api = world.patient(world.patient_a)
    sid = start(api, world.patient_a)["session"]["session_id"]
    say(api, sid, SEED_TURN_1)
    others = [world.patient(world.patient_b), world.staff("nurse-1"), world.staff("nurse-1", org=world.other_org),
              world.patient(world.patient_a, org=world.other_org)]
    world.grant(world.patient_a, "nurse-2", "care_coordination")
    others.append(world.staff("nurse-2"))
    for other in others:
        assert other.get(session_path(sid)).status_code == 404
        assert other.get(session_path(sid, "/context")).status_code == 404
        r = other.post(session_path(sid, "/turns"), {"role": "user", "content": "cancel it"})
        assert r.status_code == 404 and r.json()["code"] == "not_found"
        assert other.post(session_path(sid, "/end"), {"outcome": "abandoned"}).status_code == 404
    assert api.get(session_path(sid)).json()["session"]["turn_count"] == 1
    world.grant(world.patient_a, "nurse-3", "appointment_scheduling")
    assert world.staff("nurse-3").get(session_path(sid)).status_code == 200


def test_unknown_session_is_404(world):
    assert world.patient(world.patient_a).get(session_path(uuid.uuid4(), "/context")).status_code == 404


# --- context -------------------------------------------------------------------------------------------------

def test_context_holds_slots_and_turns_and_never_the_patient_identifier(world):
    api = world.patient(world.patient_a)
    sid = start(api, world.patient_a)["session"]["session_id"]
    say(api, sid, SEED_TURN_1)
    say(api, sid, f"My patient number is {world.patient_a} and {world.patient_a.hex.upper()}, by the way.")
    say(api, sid, SEED_TURN_2)
    body = context(api, sid)
    text = json.dumps(body)
    assert str(world.patient_a) not in text and world.patient_a.hex not in text.lower()
    assert "[patient]" in text
    ctx = body["context"]
    assert ctx["purpose"] == "appointment_scheduling"
    assert [m["source_id"] for m in ctx["messages"]] == ["turn:1", "turn:2", "turn:3"]
    assert ctx["slots"]["excluded_periods"] == ["morning"] and ctx["slots"]["preferred_days"] == ["thursday"]
    assert ctx["summary"] is None and body["budget"]["truncated"] is False
    assert body["budget"]["tokenizer"] == "cl100k_base"
    assert body["budget"]["used_tokens"] == count_tokens(dumps(ctx))



def test_the_patient_identifier_is_redacted_in_tool_names_and_however_it_is_spaced(world):
    """A tool's name is text the agent chose, and an id is the same id with spaces, other hyphens or zero-width
    characters between its digits: none of them brings the patient identifier into the model context."""
    api = world.patient(world.patient_a)
    sid = start(api, world.patient_a)["session"]["session_id"]
    pid, hexed = world.patient_a, world.patient_a.hex
    spaced = [" ".join(hexed[i:i + 4] for i in range(0, 32, 4)), "-".join(hexed[i:i + 4] for i in range(0, 32, 4)),
              hexed[:16] + "\u200b" + hexed[16:], "{" + str(pid).upper() + "}"]
    say(api, sid, "", role="tool", tool_name=str(pid), tool_result={"ok": True})
    say(api, sid, "", role="tool", tool_name=hexed, tool_result={"ok": True})
    for form in spaced:
        say(api, sid, f"my number is {form}, thanks")
        say(api, sid, "", role="tool", tool_name="ehr.lookup", tool_result={"id": form, form: 1})
    body = context(api, sid, 4000)
    assert body["budget"]["truncated"] is False
    text = json.dumps(body["context"], ensure_ascii=False)
    assert str(pid) not in text and hexed not in text.lower()
    assert all(form.lower() not in text.lower() for form in spaced), text
    assert [m.get("tool_name") for m in body["context"]["messages"][:2]] == ["[patient]", "[patient]"]
    assert "my number is [patient], thanks" in text
    assert body["budget"]["used_tokens"] == count_tokens(dumps(body["context"]))

def test_remarks_routed_to_the_care_team_reach_the_staff_who_care_for_the_patient(world):
    """"Routed to the care team" means the care team can see it: the staff holding a grant for the conversation's
    purpose read each flag (what kind, how urgent, which turn; never what was said), urgent first; anyone else
    reads nothing, as for a patient with no flags."""
    api = world.patient(world.patient_a)
    sid = start(api, world.patient_a)["session"]["session_id"]
    say(api, sid, SEED_TURN_1)  # blood thinners
    say(api, sid, "I have crushing chest pain right now")
    world.grant(world.patient_a, "nurse-5", "appointment_scheduling")
    path = f"/v1/patients/{world.patient_a}/care-team-flags"
    r = world.staff("nurse-5").get(path)
    assert r.status_code == 200, r.content
    items = r.json()["items"]
    assert [(f["category"], f["urgent"]) for f in items][0][1] is True, items
    assert {f["category"] for f in items} >= {"medication_anticoagulant"} and all(f["session_id"] == sid
                                                                                   for f in items)
    assert "thinner" not in r.content.decode() and "chest" not in r.content.decode()
    assert world.staff("nurse-6").get(path).json()["items"] == []  # no grant: nothing, as for no flags
    assert world.patient(world.patient_b).get(path).json()["items"] == []


def _copies_of(world, session_id: str, count: int) -> None:
    """``count`` more sessions of patient A like this one (its flags, its start time), made in one statement."""
    with identity_context(Identity(org_id=world.org, actor_sub=f"patient-{world.patient_a}",
                                   patient_self_id=world.patient_a, actor_kind=ACTOR_PATIENT)):
        template = ConversationSession.objects.get(session_id=session_id)
        ConversationSession.objects.bulk_create([ConversationSession(**{
            f.attname: getattr(template, f.attname) for f in ConversationSession._meta.concrete_fields
            if f.attname != "session_id"}) for _ in range(count)])


def test_an_urgent_remark_is_listed_behind_more_than_100_newer_flagged_sessions(world):
    """The list read the newest 100 flagged sessions and then put urgent flags first: an urgent remark made before
    100 sessions with other flags was left out, with nothing saying so. Sessions holding an urgent flag are read
    first."""
    api = world.patient(world.patient_a)
    urgent = start(api, world.patient_a)["session"]["session_id"]
    say(api, urgent, "I have crushing chest pain right now")
    newer = start(api, world.patient_a)["session"]["session_id"]
    say(api, newer, SEED_TURN_1)  # blood thinners: not urgent
    _copies_of(world, newer, 101)
    world.grant(world.patient_a, "nurse-5", "appointment_scheduling")
    items = world.staff("nurse-5").get(f"/v1/patients/{world.patient_a}/care-team-flags").json()["items"]
    assert items[0]["urgent"] is True and items[0]["session_id"] == urgent, items[:2]


def test_care_team_flags_are_read_a_page_at_a_time_through_every_flagged_session(world):
    """The list stopped at 100 flagged sessions with no cursor: whoever had more never saw the rest. Pages of
    ``limit`` sessions follow ``next_cursor`` through every one, once each, the urgent one first (sessions made in
    one statement share their start time: their ids keep the order); a cursor the list never gave is 422."""
    api = world.patient(world.patient_a)
    older = start(api, world.patient_a)["session"]["session_id"]
    say(api, older, SEED_TURN_1)  # blood thinners: not urgent
    urgent = start(api, world.patient_a)["session"]["session_id"]
    say(api, urgent, "I have crushing chest pain right now")
    newer = start(api, world.patient_a)["session"]["session_id"]
    say(api, newer, SEED_TURN_1)
    _copies_of(world, newer, 120)
    world.grant(world.patient_a, "nurse-5", "appointment_scheduling")
    nurse = world.staff("nurse-5")
    path = f"/v1/patients/{world.patient_a}/care-team-flags"
    first = nurse.get(path).json()
    assert len({f["session_id"] for f in first["items"]}) == 100 and first["next_cursor"], first["next_cursor"]
    sessions, cursor, pages = [], None, 0
    while True:
        r = nurse.get(path, {"limit": "7", **({"cursor": cursor} if cursor else {})})
        assert r.status_code == 200, r.content
        page_sessions = list(dict.fromkeys(f["session_id"] for f in r.json()["items"]))
        assert len(page_sessions) == 7 or r.json()["next_cursor"] is None
        sessions += page_sessions
        pages += 1
        cursor = r.json()["next_cursor"]
        if cursor is None:
            break
    assert pages == 18 and len(sessions) == len(set(sessions)) == 123, (pages, len(sessions))
    assert sessions[0] == urgent and sessions[-1] == older
    for bad in ("x", "u" + "A" * 10, "n", first["next_cursor"][1:]):
        r = nurse.get(path, {"cursor": bad})
        assert r.status_code == 422 and r.json()["errors"][0]["field"] == "cursor", (bad, r.content)
    assert nurse.get(path, {"limit": "0"}).status_code == 422


def register_mrn(world, mrn: str) -> None:
    """Patient A in the directory, known by this MRN."""
    admin = world.staff("org-admin", scope="patient:write patient:read grant:write")
    r = admin.post("/v1/patients", {"patient_id": str(world.patient_a), "display_name": "Ada Quill",
                                    "identifiers": [{"system": "urn:oid:2.16.840.1.113883.19.5", "value": mrn}]})
    assert r.status_code == 201, r.content


def test_the_patients_other_identifiers_are_redacted_like_their_id(world):
    """An MRN the directory knows the patient by is an identifier too: a tool result or a turn quoting it reaches
    the model as ``[patient]``, and the stored turn's token count is that of what the model sees."""
    register_mrn(world, "MRN-774411")
    api = world.patient(world.patient_a)
    sid = start(api, world.patient_a)["session"]["session_id"]
    say(api, sid, "My record number is mrn-774411.")
    tool = api.post(session_path(sid, "/turns"), {"role": "tool", "tool_name": "ehr_lookup", "content": "found",
                                                  "tool_result": {"mrn": "MRN-774411", "visits": 3}})
    assert tool.status_code == 201, tool.content
    body = context(api, sid)
    text = json.dumps(body)
    assert "774411" not in text, text
    assert body["context"]["messages"][0]["content"] == "My record number is [patient]."
    assert body["context"]["messages"][1]["tool_result"] == {"mrn": "[patient]", "visits": 3}
    assert body["budget"]["used_tokens"] == count_tokens(dumps(body["context"]))
    # another patient's conversation keeps that text: only the patient's own identifiers are theirs
    other = world.patient(world.patient_b)
    sid_b = start(other, world.patient_b)["session"]["session_id"]
    say(other, sid_b, "Is MRN-774411 a valid number?")
    assert "MRN-774411" in json.dumps(context(other, sid_b))


def test_the_patients_mrn_is_redacted_however_it_is_written(world):
    """An MRN quoted with other separators or none ("MRN 774412", "MRN774412", a non-breaking hyphen, a zero-width
    space, full-width digits) or its number alone ("my number is 774412") is the patient's identifier too; other
    numbers and times are left as they are."""
    register_mrn(world, "MRN-774412")
    api = world.patient(world.patient_a)
    sid = start(api, world.patient_a)["session"]["session_id"]
    written = ["MRN 774412", "mrn774412", "MRN: 774412", "my number is 774412", "MRN\u2011774412",
               "MRN\u2013774412", "MRN-774\u200b412", "MRN-\uff17\uff17\uff14\uff14\uff11\uff12", "774 412"]
    for text in written:
        say(api, sid, text)
    tool = api.post(session_path(sid, "/turns"), {"role": "tool", "tool_name": "ehr_lookup", "content": "found",
                                                  "tool_result": {"mrn": "MRN 774412"}})
    assert tool.status_code == 201, tool.content
    say(api, sid, "not 7744120 or 1774412, and after 10:30 please")
    body = context(api, sid)
    messages = body["context"]["messages"]
    assert [m["content"] for m in messages[:len(written)]] == [
        "[patient]", "[patient]", "[patient]", "my number is [patient]", "[patient]", "[patient]", "[patient]",
        "[patient]", "[patient]"]
    assert messages[len(written)]["tool_result"] == {"mrn": "[patient]"}
    assert messages[-1]["content"] == "not 7744120 or 1774412, and after 10:30 please"
    assert body["budget"]["used_tokens"] == count_tokens(dumps(body["context"]))


def test_a_numeric_mrn_glued_to_a_record_label_is_redacted(world):
    """A directory holding the MRN as a number alone ("1030"): "MRN1030", "id1030" or "NHS1030" kept the
    number in the model context (only a whole token was the identifier). After a record label it is the patient's
    identifier; a slot or room id ("A1030", "B1030") and a longer number ("MRN10301") are left as they are."""
    register_mrn(world, "1030")
    api = world.patient(world.patient_a)
    sid = start(api, world.patient_a)["session"]["session_id"]
    for text in ["MRN1030", "my id1030", "ref NHS1030.", "slot A1030 in room B1030, MRN10301"]:
        say(api, sid, text)
    messages = context(api, sid)["context"]["messages"]
    assert [m["content"] for m in messages] == [
        "MRN[patient]", "my id[patient]", "ref NHS[patient].", "slot A1030 in room B1030, MRN10301"]


def test_the_patients_mrn_given_as_a_json_number_is_redacted(world):
    """A tool result holding the MRN's number as a JSON number ({"mrn": 774413}, 774413.0) carries the identifier as
    much as the text "774413" does: it reads [patient] in the model context; other numbers are left as they are."""
    register_mrn(world, "MRN-774413")
    api = world.patient(world.patient_a)
    sid = start(api, world.patient_a)["session"]["session_id"]
    say(api, sid, "", role="tool", tool_name="ehr.lookup",
        tool_result={"mrn": 774413, "records": [{"n": 774413.0}], "visits": 3, "ok": True, "other": 7744130})
    body = context(api, sid)
    assert body["context"]["messages"][0]["tool_result"] == {
        "mrn": "[patient]", "records": [{"n": "[patient]"}], "visits": 3, "ok": True, "other": 7744130}
    assert "774413," not in json.dumps(body["context"])
    assert body["budget"]["used_tokens"] == count_tokens(dumps(body["context"]))


def test_the_patient_identifier_split_across_lines_is_redacted(world):
    """An id pasted with a line break and the next line's indentation between its digits, or with a hyphen and
    spaces around it, is the same id: it never reaches the model context, in a turn or a tool result."""
    api = world.patient(world.patient_a)
    sid = start(api, world.patient_a)["session"]["session_id"]
    hexed = world.patient_a.hex
    forms = [hexed[:8] + "\n        " + hexed[8:], " - ".join(hexed[i:i + 4] for i in range(0, 32, 4)),
             hexed[:12] + "\r\n\t\t" + hexed[12:20] + "\n\n" + hexed[20:]]
    for form in forms:
        say(api, sid, f"my id is {form} ok")
    say(api, sid, "", role="tool", tool_name="ehr.lookup", tool_result={"record": {"id": forms[0]}})
    body = context(api, sid, 4000)
    messages = body["context"]["messages"]
    assert [m["content"] for m in messages[:3]] == ["my id is [patient] ok"] * 3
    assert messages[3]["tool_result"] == {"record": {"id": "[patient]"}}
    assert hexed[:8] not in json.dumps(body["context"]).lower()


def test_a_summary_of_older_turns_is_redacted_like_the_turns(world):
    """The deterministic summary quotes what tool results said (offered slot ids, the chosen one); an id or MRN
    inside them reaches the model as [patient] there too."""
    from conversations.summaries import OFFER_TOOL

    admin = world.staff("org-admin", scope="patient:write patient:read grant:write")
    assert admin.post("/v1/patients", {"patient_id": str(world.patient_a), "display_name": "Ada Quill",
                                       "identifiers": [{"system": "urn:oid:2.16.840.1.113883.19.5",
                                                        "value": "MRN-553311"}]}).status_code == 201
    api = world.patient(world.patient_a)
    sid = start(api, world.patient_a)["session"]["session_id"]
    say(api, sid, SEED_TURN_1)
    offers = {"offers": [{"slot_id": "MRN-553311-A1", "day": "thursday", "time": "14:00"},
                         {"slot_id": f"{world.patient_a}-A2", "day": "thursday", "time": "15:00"}]}
    r = api.post(session_path(sid, "/turns"), {"role": "tool", "tool_name": OFFER_TOOL, "content": "offers",
                                               "tool_result": offers})
    assert r.status_code == 201, r.content
    say(api, sid, "The second one please.")
    for i in range(20):
        say(api, sid, f"Checking option {i} against the calendar now, one moment please.", role="assistant")
    body = context(api, sid, max_tokens=400)
    assert body["context"]["summary"] is not None and body["budget"]["turns_summarised"] >= 3
    text = json.dumps(body)
    assert "553311" not in text and str(world.patient_a) not in text, body["context"]["summary"]
    assert "[patient]" in json.dumps(body["context"]["summary"])


def test_context_stays_within_the_budget_and_summarises_older_turns(world):
    api = world.patient(world.patient_a)
    sid = start(api, world.patient_a)["session"]["session_id"]
    say(api, sid, SEED_TURN_1)
    for i in range(30):
        say(api, sid, f"Let me see what we have for you, option {i} is being checked against the calendar now.",
            role="assistant")
        say(api, sid, "Hmm, maybe. Is parking available near the clinic?")
    say(api, sid, SEED_TURN_2)
    for budget in (400, 700, 1200):
        body = context(api, sid, max_tokens=budget)
        ctx, meta = body["context"], body["budget"]
        assert count_tokens(dumps(ctx)) == meta["used_tokens"] <= budget
        assert meta["truncated"] and meta["turns_summarised"] + meta["turns_included"] == 62
        summary = ctx["summary"]
        assert summary_problems(summary, allowed_source_ids={f"turn:{i}" for i in range(1, 63)}) == []
        assert not list(jsonschema.Draft202012Validator(SUMMARY_SCHEMA).iter_errors(summary))
        included = [int(m["source_id"].split(":")[1]) for m in ctx["messages"]]
        assert included == list(range(63 - len(included), 63)), "the newest turns, contiguous, oldest first"
        assert ctx["summarised_through"] == f"turn:{62 - len(included)}"
        facts = {f["source_id"]: f["fact"] for f in summary["confirmed_facts"]}
        assert facts["turn:1"].startswith(("The patient wants to reschedule", "The appointment",
                                           "It is a follow-up", "Cannot attend"))
        assert any("morning" in f["fact"] for f in summary["confirmed_facts"]), summary
        assert "thinner" not in dumps(summary), "clinical remarks are routed, never summarised"
        assert ctx["slots"]["excluded_periods"] == ["morning"], "slots survive any truncation"
    small, large = context(api, sid, max_tokens=400), context(api, sid, max_tokens=1200)
    assert small["budget"]["turns_included"] < large["budget"]["turns_included"]


# int() would also read "+1000", " 1000 ", "1_000" and other scripts' digits ("\u0661\u0665\u0660\u0660")
@pytest.mark.parametrize("value", ["abc", "10", "1000000", "-5", "+1000", " 1000 ", "1_000",
                                   "\u0661\u0665\u0660\u0660"])
def test_context_budget_is_validated(world, value):
    api = world.patient(world.patient_a)
    sid = start(api, world.patient_a)["session"]["session_id"]
    r = api.get(session_path(sid, "/context"), {"max_tokens": value})
    assert r.status_code == 422 and r.json()["errors"][0]["field"] == "max_tokens"


def test_a_budget_too_small_for_the_slots_is_refused_clearly(world, settings):
    settings.CONVERSATION_CONTEXT_MIN_TOKENS = 32
    api = world.patient(world.patient_a)
    sid = start(api, world.patient_a)["session"]["session_id"]
    say(api, sid, SEED_TURN_1)
    r = api.get(session_path(sid, "/context"), {"max_tokens": 64})
    assert r.status_code == 422 and r.json()["code"] == "context_budget_too_small"
    assert r.json()["errors"][0]["field"] == "max_tokens"
    for i in range(20):
        say(api, sid, f"after {10 + i % 9}:15 on Thursday? Or Friday, or the weekend, or before {16 + i % 3}:45?")
    body = context(api, sid, max_tokens=256)
    assert body["budget"]["used_tokens"] <= 256 and body["budget"]["turns_summarised"] > 0


def test_limits_on_sessions_and_turns(world, settings):
    api = world.patient(world.patient_a)
    for _ in range(10):
        start(api, world.patient_a)
    r = api.post("/v1/sessions", {"patient_id": str(world.patient_a), "purpose": "appointment_scheduling"})
    assert r.status_code == 409 and r.json()["code"] == "too_many_sessions"
    assert start(api, world.patient_a, purpose="communication")["session"]["status"] == "active"
    settings.CONVERSATION_MAX_TURNS = 2
    sid = start(world.patient(world.patient_b), world.patient_b)["session"]["session_id"]
    me = world.patient(world.patient_b)
    say(me, sid, "hello")
    say(me, sid, "hello again")
    r = me.post(session_path(sid, "/turns"), {"role": "user", "content": "and again"})
    assert r.status_code == 409 and r.json()["code"] == "turn_limit_reached"


def test_context_needs_memory_read(world):
    api = world.patient(world.patient_a)
    sid = start(api, world.patient_a)["session"]["session_id"]
    writer = world.patient(world.patient_a, scope="memory:write")
    r = writer.get(session_path(sid, "/context"))
    assert r.status_code == 403 and r.json()["code"] == "insufficient_scope"


def test_context_includes_standing_long_term_preferences(world):
    cid = world.consent(world.patient_a)
    api = world.patient(world.patient_a)
    assert api.post(f"/v1/patients/{world.patient_a}/memories", memory_body(cid)).status_code == 201
    sid = start(api, world.patient_a)["session"]["session_id"]
    say(api, sid, SEED_TURN_1)
    ctx = context(api, sid)["context"]
    assert ctx["standing_preferences"] == [{"kind": "earliest_time", "time": "10:00"}]


# --- transient clinical remarks --------------------------------------------------------------------------------

def test_clinical_remark_is_flagged_for_the_care_team_and_never_kept_as_memory(world):
    world.consent(world.patient_a)
    api = world.patient(world.patient_a)
    sid = start(api, world.patient_a)["session"]["session_id"]
    body = say(api, sid, SEED_TURN_1)
    assert body["new_care_team_flags"] == [{"category": "medication_anticoagulant", "urgent": False,
                                            "source_id": "turn:1"}]
    assert body["care_team_flags"] == body["new_care_team_flags"]
    assert say(api, sid, SEED_TURN_2)["new_care_team_flags"] == []
    again = say(api, sid, "As I said, I'm on blood thinners.")
    assert again["new_care_team_flags"] == [] and len(again["care_team_flags"]) == 1, "one flag per category"
    ctx = context(api, sid)["context"]
    assert ctx["care_team_flags"][0]["category"] == "medication_anticoagulant"
    assert "care team" in ctx["care_team_note"]
    with identity_context(patient_identity(world.org, world.patient_a)):
        assert not Memory.objects.filter(patient_id=world.patient_a).exists()
    with identity_context(Identity(org_id=world.org, actor_sub="auditor", scopes=frozenset({"audit:read"}))):
        flags = list(AuditEvent.objects.filter(action="conversation.care_team_flag").values("reason", "patient_id"))
        reasons = list(AuditEvent.objects.values_list("reason", flat=True))
    assert flags == [{"reason": "clinical_remark", "patient_id": world.patient_a}]
    assert not any(r and "thinner" in r for r in reasons)


def test_urgent_symptoms_escalate(world):
    api = world.patient(world.patient_a)
    sid = start(api, world.patient_a)["session"]["session_id"]
    body = say(api, sid, "I need to reschedule my cardiology follow-up, I have chest pain right now")
    assert body["new_care_team_flags"][0] == {"category": "urgent_symptom", "urgent": True, "source_id": "turn:1"}
    assert body["next_action"] == "escalate_to_care_team"


# --- proposals to long-term memory -----------------------------------------------------------------------------

def test_proposals_need_consent_and_point_at_the_turn(world):
    api = world.patient(world.patient_a)
    sid = start(api, world.patient_a)["session"]["session_id"]
    say(api, sid, "Please don't book me before 10 a.m. because I need time for morning medication and transport.")
    r = api.post(session_path(sid, "/turns/1/propose"))
    assert r.status_code == 403 and r.json()["code"] == "no_active_consent_or_access"
    world.consent(world.patient_a)
    r = api.post(session_path(sid, "/turns/1/propose"))
    assert r.status_code == 201, r.content
    [proposal] = r.json()["proposed"]
    assert proposal["state"] == "proposed" and proposal["source"] == "agent_extracted"
    assert proposal["fact"] == {"kind": "earliest_time", "time": "10:00"}
    assert proposal["source_ref"] == f"conversation:{sid}:turn:1"
    assert api.get(f"/v1/patients/{world.patient_a}/memories").json()["items"] == [], "unused until confirmed"
    again = api.post(session_path(sid, "/turns/1/propose")).json()
    assert again["proposed"] == [] and again["skipped"] == [{"kind": "earliest_time", "reason": "already_proposed"}]
    # the same wish in another conversation, while the first suggestion still waits: one suggestion to review
    other = start(api, world.patient_a)["session"]["session_id"]
    say(api, other, "Again: nothing before 10am please.")
    later = api.post(session_path(other, "/turns/1/propose")).json()
    assert later["proposed"] == [] and later["skipped"] == [{"kind": "earliest_time", "reason": "already_proposed"}]
    assert len(api.get(f"/v1/patients/{world.patient_a}/memories/proposals").json()["items"]) == 1
    r = api.post(f"/v1/patients/{world.patient_a}/memories/{proposal['memory_id']}/confirm")
    assert r.status_code == 200
    items = api.get(f"/v1/patients/{world.patient_a}/memories").json()["items"]
    assert [i["fact"] for i in items] == [{"kind": "earliest_time", "time": "10:00"}]


def _said_again_is_proposed_anew(api: Api, world, earlier: dict) -> None:
    """The same wish said in another conversation is a new suggestion (not ``earlier``), and it is confirmed."""
    other = start(api, world.patient_a)["session"]["session_id"]
    say(api, other, "Again: nothing before 10am please.")
    later = api.post(session_path(other, "/turns/1/propose")).json()
    [fresh] = later["proposed"]
    assert fresh["memory_id"] != earlier["memory_id"] and later["skipped"] == []
    assert api.post(f"/v1/patients/{world.patient_a}/memories/{fresh['memory_id']}/confirm").status_code == 200


def test_a_suggestion_made_before_the_preference_changed_does_not_stop_the_same_wish_being_proposed_again(world):
    """A waiting suggestion made before the patient's current value became current cannot be confirmed (409
    proposal_stale): the same wish said again is proposed anew, not skipped as already proposed."""
    api = world.patient(world.patient_a)
    cid = world.consent(world.patient_a)
    sid = start(api, world.patient_a)["session"]["session_id"]
    say(api, sid, "Please don't book me before 10 a.m.")
    [stale] = api.post(session_path(sid, "/turns/1/propose")).json()["proposed"]
    assert api.post(f"/v1/patients/{world.patient_a}/memories", memory_body(cid, time="08:00")).status_code == 201
    r = api.post(f"/v1/patients/{world.patient_a}/memories/{stale['memory_id']}/confirm")
    assert r.status_code == 409 and r.json()["code"] == "proposal_stale"
    _said_again_is_proposed_anew(api, world, stale)
    items = api.get(f"/v1/patients/{world.patient_a}/memories").json()["items"]
    assert [i["fact"] for i in items] == [{"kind": "earliest_time", "time": "10:00"}]


def test_a_suggestion_that_lapsed_unreviewed_does_not_stop_the_same_wish_being_proposed_again(world):
    """A suggestion nobody reviewed within MEMORY_PROPOSAL_LAPSE_DAYS reads as expired and cannot be confirmed;
    until the sweep erased it, the same wish said again was skipped as already proposed, leaving the patient
    nothing to confirm. It is proposed anew."""
    api = world.patient(world.patient_a)
    world.consent(world.patient_a)
    sid = start(api, world.patient_a)["session"]["session_id"]
    say(api, sid, "Please don't book me before 10 a.m.")
    [lapsed] = api.post(session_path(sid, "/turns/1/propose")).json()["proposed"]
    with identity_context(patient_identity(world.org, world.patient_a)), connection.cursor() as cur:
        cur.execute("UPDATE patient_memory SET created_at = created_at - interval '31 days', valid_from = "
                    "valid_from - interval '31 days', expires_at = now() - interval '1 day' WHERE memory_id = %s",
                    [lapsed["memory_id"]])
    assert api.get(f"/v1/patients/{world.patient_a}/memories/{lapsed['memory_id']}").json()["state"] == "expired"
    _said_again_is_proposed_anew(api, world, lapsed)


def test_the_seed_turn_proposes_the_exclusion_and_nothing_clinical(world):
    world.consent(world.patient_a)
    api = world.patient(world.patient_a)
    r = api.post(f"/v1/patients/{world.patient_a}/memories",
                 {**memory_body(world.consent(world.patient_a)), "fact": {"kind": "excluded_periods",
                                                                          "periods": ["evening"]}})
    assert r.status_code == 201
    sid = start(api, world.patient_a)["session"]["session_id"]
    say(api, sid, SEED_TURN_1)
    proposed = api.post(session_path(sid, "/turns/1/propose")).json()["proposed"]
    assert [p["fact"] for p in proposed] == [{"kind": "excluded_periods", "periods": ["morning", "evening"]}], \
        "an exclusion is added to the standing one, never replaces it"
    with identity_context(patient_identity(world.org, world.patient_a)):
        kinds = set(Memory.objects.filter(patient_id=world.patient_a).values_list("memory_type", flat=True))
    assert kinds == {"scheduling_preference"}


def test_a_retried_proposal_is_not_given_back_as_proposed_once_the_patient_confirmed_it(world):
    """An Idempotency-Key retry of a proposal from a turn gives the stored answer again only while its memories
    read as they did, as the memory API's own answers: once the patient confirmed the preference, the retry is
    409 idempotent_response_withdrawn, not a "proposed" memory that is no longer one; nothing new is proposed."""
    world.consent(world.patient_a)
    api = world.patient(world.patient_a)
    sid = start(api, world.patient_a)["session"]["session_id"]
    say(api, sid, SEED_TURN_1)
    key = {"Idempotency-Key": "propose-turn-1"}
    [proposal] = api.post(session_path(sid, "/turns/1/propose"), headers=key).json()["proposed"]
    again = api.post(session_path(sid, "/turns/1/propose"), headers=key)
    assert again.status_code == 201 and again.headers["Idempotent-Replayed"] == "true"
    r = api.post(f"/v1/patients/{world.patient_a}/memories/{proposal['memory_id']}/confirm")
    assert r.status_code == 200 and r.json()["state"] == "active"
    r = api.post(session_path(sid, "/turns/1/propose"), headers=key)
    assert r.status_code == 409 and r.json()["code"] == "idempotent_response_withdrawn", r.content
    with identity_context(patient_identity(world.org, world.patient_a)):
        assert Memory.objects.filter(patient_id=world.patient_a).count() == 1


def test_only_patient_statements_without_ambiguity_are_proposed(world):
    world.consent(world.patient_a)
    api = world.patient(world.patient_a)
    sid = start(api, world.patient_a)["session"]["session_id"]
    say(api, sid, "Nothing before 10 then?", role="assistant")
    say(api, sid, "book cardiology after 3")
    r = api.post(session_path(sid, "/turns/1/propose"))
    assert r.status_code == 422 and r.json()["code"] == "not_a_patient_statement"
    body = api.post(session_path(sid, "/turns/2/propose")).json()
    assert body["proposed"] == [] and body["skipped"] == [{"kind": "earliest_time", "reason": "needs_clarification"}]
    assert api.post(session_path(sid, "/turns/9/propose")).status_code == 404


def test_a_tool_name_holding_the_patient_identifier_is_redacted_in_the_summary_too(world):
    """The deterministic summary names the write tools older turns called: a name ending in the patient's id
    (64 characters at most) reads [patient] there as in the messages, never a cut-off part of the id."""
    api = world.patient(world.patient_a)
    sid = start(api, world.patient_a)["session"]["session_id"]
    name = "book.appointment.patient." + str(world.patient_a)
    assert 60 < len(name) <= 64
    say(api, sid, "", role="tool", tool_name=name, tool_result={"status": "booked"})
    for _ in range(8):
        say(api, sid, "Is there parking near the clinic, and do I need my referral letter? " * 3)
    body = context(api, sid, 400)
    assert body["budget"]["truncated"] and body["context"]["summarised_through"] is not None
    effects = [e["effect"] for e in body["context"]["summary"]["side_effects"]]
    assert effects == ["Called book.appointment.patient.[patient]"], effects
    assert world.patient_a.hex[:12] not in json.dumps(body).replace("-", "")


@pytest.mark.parametrize("tail", ["/offers", "/turns/1/propose"])
@pytest.mark.parametrize("raw", ['{"seq": 2}', '{"constraints": {"excluded_days": ["monday"]}}', "[]"])
def test_actions_that_take_no_body_refuse_one_and_do_nothing(world, tail, raw):
    """Searching offers and proposing from a turn take no body: a field sent anyway is refused (422 naming it), as
    every other action's, never silently ignored while the action runs on what the caller did not mean."""
    world.consent(world.patient_a)
    api = world.patient(world.patient_a)
    sid = start(api, world.patient_a)["session"]["session_id"]
    say(api, sid, SEED_TURN_1)
    r = api.post(session_path(sid, tail), raw=raw)
    assert r.status_code == 422 and r.json()["code"] == "validation_error", r.content
    assert api.get(session_path(sid)).json()["session"]["turn_count"] == 1
    with identity_context(patient_identity(world.org, world.patient_a)):
        assert not Memory.objects.filter(patient_id=world.patient_a).exists()
    assert api.post(session_path(sid, tail), raw="").status_code != 422  # no body at all is the call itself


# --- end ---------------------------------------------------------------------------------------------------------

def test_end_clears_slots_and_tool_results_and_refuses_further_use(world):
    api = world.patient(world.patient_a)
    sid = start(api, world.patient_a)["session"]["session_id"]
    say(api, sid, SEED_TURN_1)
    say(api, sid, "", role="tool", tool_name="scheduling.hold_slot", tool_result={"slot_id": "A1", "status": "held"})
    r = api.post(session_path(sid, "/end"), {"outcome": "completed"})
    assert r.status_code == 200, r.content
    body = r.json()
    assert body["session"]["status"] == "completed" and body["session"]["ended_at"]
    assert body["slots"]["intent"] is None and body["slots"]["excluded_periods"] == []
    assert body["slots"]["preferred_days"] == [] and body["slots"]["excluded_days"] == []
    with identity_context(patient_identity(world.org, world.patient_a)):
        session = ConversationSession.objects.get(session_id=sid)
        tool = ConversationTurn.objects.get(session_id=sid, role="tool")
    assert session.slots == {} and session.summary_cache is None
    assert tool.tool_result is None and tool.content == ""
    r = api.post(session_path(sid, "/turns"), {"role": "user", "content": "one more thing"})
    assert r.status_code == 410 and r.json()["code"] == "session_ended"
    assert api.get(session_path(sid, "/context")).status_code == 410
    assert api.post(session_path(sid, "/offers")).status_code == 410
    assert api.post(session_path(sid, "/end"), {"outcome": "completed"}).status_code == 200, "same outcome: no-op"
    r = api.post(session_path(sid, "/end"), {"outcome": "abandoned"})
    assert r.status_code == 409 and r.json()["code"] == "session_already_ended"
    assert api.get(session_path(sid)).json()["session"]["status"] == "completed"
    assert api.post(session_path(sid, "/end"), {"outcome": "expired"}).status_code == 422


def test_abandon_is_an_outcome_too(world):
    api = world.patient(world.patient_a)
    sid = start(api, world.patient_a)["session"]["session_id"]
    say(api, sid, SEED_TURN_1)
    assert api.post(session_path(sid, "/end"), {"outcome": "abandoned"}).json()["session"]["status"] == "abandoned"


# --- audit -------------------------------------------------------------------------------------------------------

def test_reads_and_writes_are_audited_without_content(world):
    api = world.patient(world.patient_a)
    sid = start(api, world.patient_a)["session"]["session_id"]
    say(api, sid, SEED_TURN_1)
    context(api, sid)
    api.get(session_path(sid))
    api.post(session_path(sid, "/end"), {"outcome": "completed"})
    events = api.get("/v1/audit-events", {"patient_id": str(world.patient_a)}).json()["items"]
    actions = [e["action"] for e in events]
    for action in ("conversation.start", "conversation.turn", "conversation.care_team_flag", "conversation.context",
                   "memory.list", "conversation.read", "conversation.end"):
        assert action in actions
    assert all(e["resource_id"] == sid for e in events if e["action"].startswith("conversation."))
    text = json.dumps(events)
    assert "cardiology" not in text and "morning" not in text and "thinner" not in text


# --- invariants in the database ------------------------------------------------------------------------------

def test_rls_is_enabled_and_forced_on_both_tables():
    with connection.cursor() as cur:
        cur.execute("SELECT relname, relrowsecurity, relforcerowsecurity FROM pg_class "
                    "WHERE relname IN ('conversation_session', 'conversation_turn') ORDER BY relname")
        assert cur.fetchall() == [("conversation_session", True, True), ("conversation_turn", True, True)]


def test_without_identity_nothing_is_visible(world):
    api = world.patient(world.patient_a)
    start(api, world.patient_a)
    assert ConversationSession.objects.count() == 0 and ConversationTurn.objects.count() == 0


def _violates(statement: str, params: list) -> bool:
    try:
        with connection.cursor() as cur:
            with transaction.atomic():
                cur.execute(statement, params)
                return cur.rowcount == 0
    except Exception as exc:  # noqa: BLE001 - which database error it is does not matter here
        return isinstance(exc.__cause__, psycopg.Error) or "conversation" in str(exc)


def test_the_database_refuses_what_the_services_never_do(world):
    api = world.patient(world.patient_a)
    sid = start(api, world.patient_a)["session"]["session_id"]
    say(api, sid, SEED_TURN_1)
    say(api, sid, "", role="tool", tool_name="scheduling.hold_slot", tool_result={"slot_id": "A1"})
    with identity_context(patient_identity(world.org, world.patient_a)):
        assert _violates("UPDATE conversation_turn SET content = 'rewritten' WHERE session_id = %s AND seq = 1", [sid])
        assert _violates("UPDATE conversation_session SET patient_id = %s WHERE session_id = %s",
                         [world.patient_b, sid])
        assert _violates("UPDATE conversation_session SET absolute_expires_at = absolute_expires_at + interval "
                         "'10 days' WHERE session_id = %s", [sid])
        assert _violates("DELETE FROM conversation_session WHERE session_id = %s", [sid]), "a live session stays"
        assert _violates("DELETE FROM conversation_turn WHERE session_id = %s", [sid])
        assert _violates("INSERT INTO conversation_turn (turn_id, session_id, organization_id, patient_id, purpose, "
                         "seq, role, content, token_count, created_by, created_at) "
                         "VALUES (gen_random_uuid(), %s, %s, %s, 'communication', 9, 'user', 'x', 1, %s, now())",
                         [sid, world.org, world.patient_a, f"patient-{world.patient_a}"]), "turn purpose must match"
        with connection.cursor() as cur:  # the one update allowed: clearing a tool result
            cur.execute("UPDATE conversation_turn SET tool_result = NULL, content = '' "
                        "WHERE session_id = %s AND role = 'tool'", [sid])
            assert cur.rowcount == 1
    api.post(session_path(sid, "/end"), {"outcome": "completed"})
    with identity_context(patient_identity(world.org, world.patient_a)):
        assert _violates("UPDATE conversation_session SET slots = '{\"intent\": \"book\"}' WHERE session_id = %s",
                         [sid]), "an ended session is frozen"
        assert _violates("INSERT INTO conversation_turn (turn_id, session_id, organization_id, patient_id, purpose, "
                         "seq, role, content, token_count, created_by, created_at) "
                         "VALUES (gen_random_uuid(), %s, %s, %s, 'appointment_scheduling', 9, 'user', 'x', 1, %s, "
                         "now())", [sid, world.org, world.patient_a, f"patient-{world.patient_a}"]), \
            "no turn goes into an ended session"


def test_an_agents_stored_answers_are_not_given_again_once_the_consent_ran_out(world):
    """The patient's agent started a conversation and said a turn, each under an Idempotency-Key; then her consent
    for scheduling ran out. Reading the session is refused (403 purpose_not_permitted), but the same retry answered
    the stored session and turn (its slots) again, 200. It is 409 idempotent_response_withdrawn, as after a
    withdrawal; the patient's own retry is still replayed."""
    pid = world.patient_a
    consent = world.consent(pid)
    agent = Api(mint(world.keyring, sub=f"patient-{pid}", org_id=world.org, patient_id=pid, scope=PATIENT_SCOPES,
                     act="scheduling-agent"))
    body = {"patient_id": str(pid), "purpose": "appointment_scheduling"}
    sid = agent.post("/v1/sessions", body, headers={"Idempotency-Key": "s-1"}).json()["session"]["session_id"]
    turn = {"role": "user", "content": "Thursday afternoon please"}
    assert agent.post(session_path(sid, "/turns"), turn, headers={"Idempotency-Key": "s-2"}).status_code == 201
    me = world.patient(pid)
    assert me.post(session_path(sid, "/turns"), turn, headers={"Idempotency-Key": "m-2"}).status_code == 201
    past = timezone.now() - timedelta(minutes=1)
    patient = Identity(org_id=world.org, actor_sub=f"patient-{pid}", patient_self_id=pid, actor_kind=ACTOR_PATIENT)
    with identity_context(patient):
        ConsentRecord.objects.filter(pk=consent).update(granted_at=past - timedelta(days=1), expires_at=past)
    r = agent.get(session_path(sid))
    assert r.status_code == 403 and r.json()["code"] == "purpose_not_permitted"
    for url, sent, key in (("/v1/sessions", body, "s-1"), (session_path(sid, "/turns"), turn, "s-2")):
        r = agent.post(url, sent, headers={"Idempotency-Key": key})
        assert r.status_code == 409 and r.json()["code"] == "idempotent_response_withdrawn", (url, r.content)
    r = me.post(session_path(sid, "/turns"), turn, headers={"Idempotency-Key": "m-2"})
    assert r.status_code == 201 and r["Idempotent-Replayed"] == "true"
