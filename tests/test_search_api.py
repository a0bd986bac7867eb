"""The search and context-pack API around ranking: what a request may name (the conversation a pack goes to, the
memory types a search is limited to), what each read leaves in the audit trail, and the refusals."""

from __future__ import annotations

import uuid

import pytest
from django.db import connection

from core.identity import Identity, identity_context
from tests.conftest import memory_body
from tests.test_purpose_of_use import SCHED, agent_for, events

pytestmark = pytest.mark.django_db


def context(pid) -> str:
    return f"/v1/patients/{pid}/context"


def start_session(api, pid, purpose=SCHED) -> str:
    r = api.post("/v1/sessions", {"patient_id": str(pid), "purpose": purpose})
    assert r.status_code == 201, r.content
    return r.json()["session"]["session_id"]


@pytest.fixture
def booked(world):
    """Patient A keeps a scheduling preference under her consent for scheduling."""
    cid = world.consent(world.patient_a)
    r = world.patient(world.patient_a).post(f"/v1/patients/{world.patient_a}/memories", memory_body(cid))
    assert r.status_code == 201, r.content
    return r.json()["memory_id"]


def test_a_context_pack_is_one_audit_row_naming_the_release_and_its_purpose(world, booked):
    """One read, one row: the pack's search wrote a ``memory.search`` row of its own beside the pack's
    ``memory.context_pack`` row, so the patient's history showed two reads (a search nobody asked for) for one."""
    agent = agent_for(world, world.patient_a)
    r = agent.post(context(world.patient_a), {"question": "when can I come in?", "purpose": SCHED})
    assert r.status_code == 200, r.content
    rows = [(e.action, e.resource_id, e.purpose, e.outcome) for e in events(world, patient_id=world.patient_a)
            if e.action.startswith("memory.") and e.action != "memory.create"]
    assert rows == [("memory.context_pack", r.json()["release_id"], SCHED, "success")]


def test_a_context_pack_names_only_a_live_session_of_its_caller_and_purpose(world, booked):
    """The release records the conversation the pack went to: an ended or expired session, one held for another
    purpose, and (for an agent) one another agent holds are refused with the answer a made-up id gets, and nothing
    is released."""
    agent = agent_for(world, world.patient_a)
    world.consent(world.patient_a, "communication")
    ended = start_session(agent, world.patient_a)
    assert agent.post(f"/v1/sessions/{ended}/end", {"outcome": "completed"}).status_code == 200
    expired = start_session(agent, world.patient_a)
    me = Identity(org_id=world.org, actor_sub="t", patient_self_id=world.patient_a)
    with identity_context(me), connection.cursor() as cur:  # idle long past its timeout (the trigger recomputes)
        cur.execute("UPDATE conversation_session SET last_activity_at = last_activity_at - idle_timeout "
                    "WHERE session_id = %s", [expired])
    other_purpose = start_session(agent, world.patient_a, "communication")
    other_agent = start_session(_other_agent(world), world.patient_a)
    ask = {"question": "when can I come in?", "purpose": SCHED}
    answers = {name: agent.post(context(world.patient_a), {**ask, "session_id": sid}) for name, sid in [
        ("made_up", str(uuid.uuid4())), ("ended", ended), ("expired", expired), ("other_purpose", other_purpose),
        ("other_agent", other_agent)]}
    made_up = answers["made_up"]
    assert made_up.status_code == 422, made_up.content
    for name, r in answers.items():
        assert (r.status_code, r.json()["errors"]) == (422, made_up.json()["errors"]), name
    releases = world.patient(world.patient_a).get(f"/v1/patients/{world.patient_a}/releases").json()["items"]
    assert releases == []
    live = start_session(agent, world.patient_a)
    assert agent.post(context(world.patient_a), {**ask, "session_id": live}).status_code == 200


def _other_agent(world):
    from tests.support import PATIENT_SCOPES, Api, mint

    return Api(mint(world.keyring, sub=f"patient-{world.patient_a}", org_id=world.org, patient_id=world.patient_a,
                    scope=PATIENT_SCOPES, act="another-agent"))


def test_search_is_limited_to_the_memory_types_it_names_before_ranking(world, booked):
    """``memory_type`` (one type, or several separated by commas) is a deterministic filter applied before
    ranking, as the class is: "how should we contact her?" limited to scheduling preferences answers her
    scheduling preference or nothing, never her channel; an unknown type is 422 ``unknown_memory_type`` and
    nothing is audited."""
    comm = world.consent(world.patient_a, "communication")
    api = world.patient(world.patient_a)
    r = api.post(f"/v1/patients/{world.patient_a}/memories", {
        "memory_type": "communication_preference", "fact": {"kind": "channel", "channel": "email"},
        "consent_purpose": "communication", "consent_record_id": comm})
    assert r.status_code == 201, r.content
    channel = r.json()["memory_id"]
    url = f"/v1/patients/{world.patient_a}/memories/search"
    q = "how should we contact her?"
    unfiltered = api.get(url, {"q": q}).json()["items"]
    assert unfiltered[0]["memory"]["memory_id"] == channel
    only = api.get(url, {"q": q, "memory_type": "scheduling_preference"})
    assert only.status_code == 200, only.content
    assert [h["memory"]["memory_id"] for h in only.json()["items"]] == [booked]
    both = api.get(url, {"q": q, "memory_type": "scheduling_preference,communication_preference"}).json()["items"]
    assert {h["memory"]["memory_id"] for h in both} == {booked, channel}
    before = len(events(world, patient_id=world.patient_a, action="memory.search"))
    for value, code in [("no_such_type", "unknown_memory_type"),
                        ("scheduling_preference,no_such_type", "unknown_memory_type"),
                        ("Scheduling Preference", "invalid"), ("scheduling_preference,", "invalid")]:
        r = api.get(url, {"q": q, "memory_type": value})
        assert r.status_code == 422, (value, r.content)
        assert [(e["field"], e["code"]) for e in r.json()["errors"]] == [("memory_type", code)], value
    assert len(events(world, patient_id=world.patient_a, action="memory.search")) == before


def test_the_search_tool_takes_memory_type_as_the_rest_operation_does():
    """The MCP tool's input schema comes from the OpenAPI operation: ``memory_type`` is there, with its pattern,
    and a call carries it in the query string as REST reads it."""
    from agents_mcp.dispatch import build_request
    from agents_mcp.tools import input_schema, operations

    prop = input_schema("search_memories")["properties"]["memory_type"]
    assert "commas" in prop["description"] and prop["pattern"].endswith(")*$") and prop["maxLength"] == 500
    _, query, _, _ = build_request(operations()["search_memories"],
                                   {"patient_id": str(uuid.uuid4()), "q": "when?",
                                    "memory_type": "scheduling_preference,communication_preference"})
    assert "memory_type=scheduling_preference%2Ccommunication_preference" in query


def test_a_context_pack_fact_says_which_type_and_purpose_it_is_kept_under_and_where_it_came_from(world, booked):
    """A pack's fact carried its class and source but not its type, the purpose it is kept for (a care-coordination
    allergy can come in a scheduling pack) or its source reference: an agent citing it could not say what kind of
    fact it used nor under which consent it was kept. Each fact now names them, as the memory itself does."""
    api = world.patient(world.patient_a)
    memory = api.get(f"/v1/patients/{world.patient_a}/memories/{booked}").json()
    pack = api.post(context(world.patient_a), {"question": "when can I come in?", "purpose": SCHED}).json()
    [fact] = [f for f in pack["facts"] if f["memory_id"] == booked]
    assert {k: fact[k] for k in ("memory_type", "consent_purpose", "source_ref", "agent_client_id")} == {
        k: memory[k] for k in ("memory_type", "consent_purpose", "source_ref", "agent_client_id")}


def test_a_search_whose_filters_leave_out_allergies_and_medicines_says_so(world, booked):
    """A question naming a medicine searched with ``memory_type``, ``memory_class`` or a purpose that care context
    is not kept for cannot bring the safety rule's allergies and long-term medicines: the answer said
    ``safety_rule_applied`` and nothing else, which reads as "no allergies". ``safety_facts_filtered_out`` now says
    that the filters left them out, whether or not any are on record (so it tells nothing of the record)."""
    world.grant(world.patient_a, "clinician", "care_coordination")
    world.grant(world.patient_a, "clinician", SCHED)
    nurse = world.staff("clinician")
    url = f"/v1/patients/{world.patient_a}/memories/search"
    q = "can we give her amoxicillin at the appointment?"

    def flags(**params):
        r = nurse.get(url, {"q": q, **params})
        assert r.status_code == 200, r.content
        body = r.json()
        return body["safety_rule_applied"], body["safety_facts_filtered_out"]

    filtered = [{"memory_type": "scheduling_preference"}, {"memory_class": "preference"}, {"purpose": SCHED}]
    assert [flags(**p) for p in filtered] == [(True, True)] * 3  # nothing on record yet: the same answer
    r = nurse.post(f"/v1/patients/{world.patient_a}/memories", {
        "memory_type": "care_context", "consent_purpose": "care_coordination", "source": "staff_entered",
        "fact": {"kind": "allergy", "substance": "penicillin", "reaction": "rash"},
        "review_by": "2031-01-01T00:00:00Z"})
    assert r.status_code == 201, r.content
    assert [flags(**p) for p in filtered] == [(True, True)] * 3
    for unfiltered in ({}, {"memory_type": "care_context,scheduling_preference"}):
        assert flags(**unfiltered) == (True, False), unfiltered
    # a question naming nothing a patient could be given leaves nothing out that the safety rule would bring
    q = "what time can she come in?"
    assert flags(memory_type="scheduling_preference") == (False, False)
    # a context pack that may not include care context says so in the same field (beside its Safety: note)
    ask = {"question": "can we give her amoxicillin at the appointment?", "purpose": SCHED}
    assert agent_for(world, world.patient_a).post(context(world.patient_a), ask).json()[
        "safety_facts_filtered_out"] is True
    assert nurse.post(context(world.patient_a), ask).json()["safety_facts_filtered_out"] is False


def test_the_search_and_pack_tools_publish_safety_facts_filtered_out():
    """The MCP tools' output schemas come from the OpenAPI operations: both answers declare the field, always sent."""
    from agents_mcp.tools import success_schema

    for tool in ("search_memories", "get_context_pack"):
        schema = success_schema(tool)
        assert schema["properties"]["safety_facts_filtered_out"]["type"] == "boolean", tool
        assert "safety_facts_filtered_out" in schema["required"], tool
