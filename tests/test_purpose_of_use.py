"""Every read names its purpose of use (issue 39, item 1).

A read names why it reads with ``purpose`` (the memory list and search also take the older ``consent_purpose`` as
the same thing); a read that names none is for the token's one ``purpose_of_use`` claim. A purpose the caller holds
no consent (an agent in a patient's context) or grant (staff) for is refused as such: 403 ``purpose_not_permitted``,
audited ``denied`` with that purpose, the same answer whether or not the patient exists. The audit row names the
purpose, so the patient's activity page can say why an agent read."""

from __future__ import annotations

import json
import uuid

import pytest

from core.identity import Identity, identity_context
from core.models import AuditEvent
from tests.conftest import memory_body
from tests.support import PATIENT_SCOPES, Api, mint

pytestmark = pytest.mark.django_db

SCHED, COMM = "appointment_scheduling", "communication"


def mem(pid) -> str:
    return f"/v1/patients/{pid}/memories"


def agent_for(world, patient_id, **extra) -> Api:
    return Api(mint(world.keyring, sub=f"patient-{patient_id}", org_id=world.org, patient_id=patient_id,
                    scope=PATIENT_SCOPES, act="scheduling-agent", extra=extra or None))


def events(world, **filters) -> list[AuditEvent]:
    """The organisation's trail, read as an auditor (oldest first)."""
    auditor = Identity(org_id=world.org, actor_sub="auditor", scopes=frozenset({"audit:read"}))
    with identity_context(auditor):
        return list(AuditEvent.objects.filter(organization_id=world.org, **filters).order_by("occurred_at", "id"))


def rows(world, patient_id, action: str) -> list[AuditEvent]:
    return events(world, patient_id=patient_id, action=action)


def seeded(world) -> dict:
    """Patient A keeps one scheduling and one communication memory, each under its consent."""
    sched = world.consent(world.patient_a, SCHED)
    comm = world.consent(world.patient_a, COMM)
    api = world.patient(world.patient_a)
    r1 = api.post(mem(world.patient_a), memory_body(sched))
    r2 = api.post(mem(world.patient_a), {"memory_type": "communication_preference",
                                         "fact": {"kind": "channel", "channel": "email"},
                                         "consent_purpose": COMM, "consent_record_id": comm})
    assert r1.status_code == r2.status_code == 201
    return {"sched": r1.json()["memory_id"], "comm": r2.json()["memory_id"], "comm_consent": comm}


def test_an_agents_list_names_its_purpose_in_the_audit_row_and_sees_only_that_purpose(world):
    ids = seeded(world)
    r = agent_for(world, world.patient_a).get(mem(world.patient_a), {"purpose": COMM})
    assert r.status_code == 200, r.content
    assert [m["memory_id"] for m in r.json()["items"]] == [ids["comm"]]
    [row] = rows(world, world.patient_a, "memory.list")
    assert (row.purpose, row.outcome, row.agent_client_id) == (COMM, "success", "scheduling-agent")


def test_an_agent_without_the_patients_consent_for_the_purpose_is_refused_as_such(world):
    ids = seeded(world)
    world.patient(world.patient_a).post(f"/v1/patients/{world.patient_a}/consents/{ids['comm_consent']}/revoke")
    agent = agent_for(world, world.patient_a)
    for path in (mem(world.patient_a), f"{mem(world.patient_a)}/{ids['comm']}", f"{mem(world.patient_a)}/search"):
        params = {"purpose": COMM, **({"q": "how do I reach her?"} if path.endswith("search") else {})}
        r = agent.get(path, params)
        assert r.status_code == 403 and r.json()["code"] == "purpose_not_permitted", (path, r.content)
    r = agent.post(f"/v1/patients/{world.patient_a}/context", {"question": "how do I reach her?", "purpose": COMM})
    assert r.status_code == 403 and r.json()["code"] == "purpose_not_permitted"
    refused = events(world, patient_id=world.patient_a, agent_client_id="scheduling-agent")
    assert {(e.action, e.outcome, e.purpose, e.reason) for e in refused} == {
        (action, "denied", COMM, "purpose_not_permitted")
        for action in ("memory.list", "memory.read", "memory.search", "memory.context_pack")}
    # the purpose it holds consent for still reads
    assert agent.get(mem(world.patient_a), {"purpose": SCHED}).status_code == 200


def test_staff_need_a_grant_for_the_purpose_and_an_unknown_patient_gets_the_same_answer(world):
    seeded(world)
    world.grant(world.patient_a, "nurse-1", COMM)
    nurse = world.staff("nurse-1")
    assert [m["memory_type"] for m in nurse.get(mem(world.patient_a), {"purpose": COMM}).json()["items"]] == [
        "communication_preference"]
    refused = nurse.get(mem(world.patient_a), {"purpose": SCHED})
    unknown = nurse.get(mem(uuid.uuid4()), {"purpose": SCHED})
    assert refused.status_code == unknown.status_code == 403
    strip = ("instance", "correlation_id", "request_id")
    assert ({k: v for k, v in refused.json().items() if k not in strip}
            == {k: v for k, v in unknown.json().items() if k not in strip})
    [denied] = [e for e in rows(world, world.patient_a, "memory.list") if e.outcome == "denied"]
    assert (denied.purpose, denied.reason, denied.actor_sub.endswith("nurse-1")) == (
        SCHED, "purpose_not_permitted", True)


def test_the_patient_in_person_is_never_refused_their_own_record(world):
    ids = seeded(world)
    me = world.patient(world.patient_a)
    for purpose in (SCHED, COMM, "care_coordination"):
        assert me.get(mem(world.patient_a), {"purpose": purpose}).status_code == 200
    assert me.get(f"{mem(world.patient_a)}/{ids['sched']}", {"purpose": SCHED}).status_code == 200


def test_the_tokens_one_purpose_claim_is_the_default_and_two_leave_the_read_unnamed(world):
    seeded(world)
    one = agent_for(world, world.patient_a, purpose_of_use=COMM)
    assert len(one.get(mem(world.patient_a)).json()["items"]) == 1
    two = agent_for(world, world.patient_a, purpose_of_use=[COMM, SCHED])
    assert len(two.get(mem(world.patient_a)).json()["items"]) == 2
    assert [e.purpose for e in rows(world, world.patient_a, "memory.list")] == [COMM, None]
    # a parameter overrides the claim
    assert len(one.get(mem(world.patient_a), {"purpose": SCHED}).json()["items"]) == 1
    # a malformed claim fails the token; codes of other vocabularies are left out
    assert agent_for(world, world.patient_a, purpose_of_use=7).get(mem(world.patient_a)).status_code == 401
    other = agent_for(world, world.patient_a, purpose_of_use="TREAT communication")
    assert len(other.get(mem(world.patient_a)).json()["items"]) == 1


def test_purpose_and_the_older_consent_purpose_are_one_thing(world):
    seeded(world)
    agent = agent_for(world, world.patient_a)
    assert len(agent.get(mem(world.patient_a), {"consent_purpose": COMM}).json()["items"]) == 1
    assert len(agent.get(mem(world.patient_a), {"consent_purpose": COMM, "purpose": COMM}).json()["items"]) == 1
    r = agent.get(mem(world.patient_a), {"consent_purpose": COMM, "purpose": SCHED})
    assert r.status_code == 422 and r.json()["errors"][0]["code"] == "purpose_conflict"
    r = agent.get(mem(world.patient_a), {"purpose": "marketing"})
    assert r.status_code == 422 and r.json()["errors"][0]["field"] == "purpose"
    assert rows(world, world.patient_a, "memory.list") == rows(world, world.patient_a, "memory.list")[:2]


def test_a_read_by_id_for_another_purpose_than_the_memory_is_kept_for_is_not_found(world):
    ids = seeded(world)
    agent = agent_for(world, world.patient_a)
    assert agent.get(f"{mem(world.patient_a)}/{ids['comm']}", {"purpose": COMM}).status_code == 200
    assert agent.get(f"{mem(world.patient_a)}/{ids['comm']}", {"purpose": SCHED}).status_code == 404
    reads = rows(world, world.patient_a, "memory.read")
    assert [(e.outcome, e.purpose) for e in reads] == [("success", COMM), ("denied", SCHED)]


def test_search_and_context_pack_name_the_purpose(world):
    seeded(world)
    agent = agent_for(world, world.patient_a, purpose_of_use=SCHED)
    r = agent.get(f"{mem(world.patient_a)}/search", {"q": "when can she come in?"})
    assert r.status_code == 200, r.content
    r = agent.post(f"/v1/patients/{world.patient_a}/context", {"question": "when can she come in?"})
    assert r.status_code == 200 and r.json()["purpose"] == SCHED
    assert {e.purpose for e in rows(world, world.patient_a, "memory.search")} == {SCHED}
    assert [e.purpose for e in rows(world, world.patient_a, "memory.context_pack")] == [SCHED]
    unnamed = agent_for(world, world.patient_a)
    r = unnamed.post(f"/v1/patients/{world.patient_a}/context", {"question": "when can she come in?"})
    assert r.status_code == 422 and r.json()["errors"][0] == {
        "field": "purpose", "code": "required", "message": r.json()["errors"][0]["message"]}


def test_a_conversation_is_read_for_the_purpose_it_is_held_for(world):
    world.consent(world.patient_a, SCHED)
    me = world.patient(world.patient_a)
    r = me.post("/v1/sessions", {"patient_id": str(world.patient_a), "purpose": SCHED})
    assert r.status_code == 201, r.content
    sid = r.json()["session"]["session_id"]
    agent = agent_for(world, world.patient_a)
    assert agent.get(f"/v1/sessions/{sid}", {"purpose": SCHED}).status_code == 200
    assert agent.get(f"/v1/sessions/{sid}/context", {"purpose": SCHED}).status_code == 200
    for tail in ("", "/context"):
        r = agent.get(f"/v1/sessions/{sid}{tail}", {"purpose": COMM})
        assert r.status_code == 403 and r.json()["code"] == "purpose_not_permitted"
    r = agent.get(f"/v1/sessions/{sid}", {"purpose": "nope"})
    assert r.status_code == 422 and r.json()["errors"][0]["field"] == "purpose"
    # the token's one claim is the default
    assert agent_for(world, world.patient_a, purpose_of_use=COMM).get(f"/v1/sessions/{sid}").status_code == 403
    reads = events(world, resource_id=sid)
    assert {(e.action, e.outcome, e.purpose) for e in reads if e.actor_kind == "agent"} == {
        ("conversation.read", "success", SCHED), ("conversation.context", "success", SCHED),
        ("conversation.read", "denied", COMM), ("conversation.context", "denied", COMM)}
    flags = agent.get(f"/v1/patients/{world.patient_a}/care-team-flags", {"purpose": COMM})
    assert flags.status_code == 403 and flags.json()["code"] == "purpose_not_permitted"


def test_an_agent_reads_a_conversation_for_its_purpose_only_while_the_patients_consent_is_in_force(world):
    """Naming the conversation's own purpose is no way around the purpose rule: once the patient withdrew the
    consent for it, an agent's read of the session or its context naming that purpose (or with a token claiming
    it) is 403 purpose_not_permitted, audited denied; the patient in person still reads it."""
    consent = world.consent(world.patient_a, SCHED)
    me = world.patient(world.patient_a)
    sid = me.post("/v1/sessions", {"patient_id": str(world.patient_a), "purpose": SCHED}).json()["session"][
        "session_id"]
    assert me.post(f"/v1/sessions/{sid}/turns", {"role": "user", "content": "cardiology please"}).status_code == 201
    assert me.post(f"/v1/patients/{world.patient_a}/consents/{consent}/revoke").status_code == 200
    claiming = agent_for(world, world.patient_a, purpose_of_use=SCHED)
    for agent, params in ((agent_for(world, world.patient_a), {"purpose": SCHED}), (claiming, None)):
        for tail in ("", "/context"):
            r = agent.get(f"/v1/sessions/{sid}{tail}", params)
            assert r.status_code == 403 and r.json()["code"] == "purpose_not_permitted", (tail, r.content)
            assert "cardiology" not in r.content.decode()
    assert {(e.action, e.outcome, e.purpose) for e in events(world, resource_id=sid) if e.actor_kind == "agent"} == {
        ("conversation.read", "denied", SCHED), ("conversation.context", "denied", SCHED)}
    assert me.get(f"/v1/sessions/{sid}/context", {"purpose": SCHED}).status_code == 200


def test_once_the_consent_is_withdrawn_an_agent_can_neither_add_turns_nor_search_offers_in_the_conversation(world):
    """Appending a turn or searching offers answers with the session's slots and flags: after the patient withdrew
    the consent for the conversation's purpose, an agent's turn or offer search is 403 purpose_not_permitted as its
    read of the session is, stores nothing and shows nothing said before, and it starts no new conversation for
    that purpose; the patient in person goes on."""
    consent = world.consent(world.patient_a, SCHED)
    me = world.patient(world.patient_a)
    agent = agent_for(world, world.patient_a)
    sid = agent.post("/v1/sessions", {"patient_id": str(world.patient_a), "purpose": SCHED}).json()["session"][
        "session_id"]
    said = agent.post(f"/v1/sessions/{sid}/turns", {"role": "user", "content": "cardiology on Monday please"})
    assert said.status_code == 201 and said.json()["slots"]["preferred_days"] == ["monday"], said.content
    assert me.post(f"/v1/patients/{world.patient_a}/consents/{consent}/revoke").status_code == 200
    again = agent.post("/v1/sessions", {"patient_id": str(world.patient_a), "purpose": SCHED})  # nor start another
    assert again.status_code == 403 and again.json()["code"] == "purpose_not_permitted", again.content
    for path, body in ((f"/v1/sessions/{sid}/turns", {"role": "assistant", "content": "Anything else?"}),
                       (f"/v1/sessions/{sid}/offers", None)):
        r = agent.post(path, body)
        assert r.status_code == 403 and r.json()["code"] == "purpose_not_permitted", (path, r.content)
        assert "monday" not in r.content.decode().lower()
    assert {(e.action, e.outcome, e.purpose) for e in events(world, resource_id=sid, outcome="denied")} == {
        ("conversation.turn", "denied", SCHED), ("conversation.offers", "denied", SCHED)}
    turns = me.post(f"/v1/sessions/{sid}/turns", {"role": "user", "content": "and not before 10"})
    assert turns.status_code == 201 and turns.json()["turn"]["seq"] == 2, turns.content


def test_an_agent_naming_no_purpose_reads_care_team_flags_only_of_purposes_whose_consent_is_in_force(world):
    """The flags of a conversation are read as the conversation is: once the patient withdrew the consent for its
    purpose, an agent whose token names no purpose no longer lists them (it listed every flagged session's codes
    while reading the session itself was 403); the flags of a conversation whose consent is in force stay, and the
    patient in person reads them all."""
    consent = world.consent(world.patient_a, SCHED)
    world.consent(world.patient_a, COMM)
    me = world.patient(world.patient_a)
    agent = agent_for(world, world.patient_a)
    path = f"/v1/patients/{world.patient_a}/care-team-flags"
    held = {}
    for purpose, said in ((SCHED, "I have crushing chest pain right now"), (COMM, "I'm on blood thinners")):
        sid = agent.post("/v1/sessions", {"patient_id": str(world.patient_a), "purpose": purpose}).json()[
            "session"]["session_id"]
        assert agent.post(f"/v1/sessions/{sid}/turns", {"role": "user", "content": said}).status_code == 201
        held[purpose] = sid
    assert {f["session_id"] for f in agent.get(path).json()["items"]} == set(held.values())
    assert me.post(f"/v1/patients/{world.patient_a}/consents/{consent}/revoke").status_code == 200
    r = agent.get(path)
    assert r.status_code == 200, r.content
    assert {f["session_id"] for f in r.json()["items"]} == {held[COMM]}, r.content
    assert "urgent_symptom" not in r.content.decode()
    assert {f["session_id"] for f in me.get(path).json()["items"]} == set(held.values())


def test_an_agent_whose_token_names_no_purpose_reads_a_conversation_only_while_its_consent_is_in_force(world):
    """A conversation is held for one purpose, so a read of it that names none is a read for that one: once the
    patient withdrew the consent for it, an agent whose token claims no purpose of use is refused the session and
    its context (403 purpose_not_permitted) as one naming the purpose is, and sees nothing said in it."""
    consent = world.consent(world.patient_a, SCHED)
    me = world.patient(world.patient_a)
    agent = agent_for(world, world.patient_a)
    sid = agent.post("/v1/sessions", {"patient_id": str(world.patient_a), "purpose": SCHED}).json()["session"][
        "session_id"]
    assert agent.post(f"/v1/sessions/{sid}/turns", {"role": "user", "content": "cardiology please"}).status_code == 201
    assert agent.get(f"/v1/sessions/{sid}").status_code == 200
    assert me.post(f"/v1/patients/{world.patient_a}/consents/{consent}/revoke").status_code == 200
    for tail in ("", "/context"):
        r = agent.get(f"/v1/sessions/{sid}{tail}")
        assert r.status_code == 403 and r.json()["code"] == "purpose_not_permitted", (tail, r.content)
        assert "cardiology" not in r.content.decode()
    assert me.get(f"/v1/sessions/{sid}/context").status_code == 200


def test_the_export_names_its_purpose_and_the_fhir_audit_event_carries_each_reads_purpose(world):
    seeded(world)
    agent_for(world, world.patient_a).get(mem(world.patient_a), {"purpose": COMM})
    me = world.patient(world.patient_a, scope=PATIENT_SCOPES + " export:read audit:read")
    r = me.get(f"/v1/patients/{world.patient_a}/export", {"format": "fhir", "purpose": "care_coordination"})
    assert r.status_code == 200
    bundle = json.loads(b"".join(r.streaming_content))
    audit_events = [e["resource"] for e in bundle["entry"] if e["resource"]["resourceType"] == "AuditEvent"]
    by_agent = [a for a in audit_events if a["agent"][0]["type"]["coding"][0]["code"] == "agent"]
    assert by_agent and all(c["code"] == COMM for a in by_agent for p in a["purposeOfEvent"] for c in p["coding"]
                            if c["system"].endswith("/purpose")), "the agent's read carries its purpose of use"
    assert all({"identifier": {"system": "urn:anamnesis:agent-client", "value": "scheduling-agent"}}
               in [who["who"] for who in a["agent"]] for a in by_agent), "and names the agent"
    [export_row] = rows(world, world.patient_a, "patient.export")
    assert export_row.purpose == "care_coordination"
    # staff without a grant for the purpose are refused as such
    nurse = world.staff("nurse-9", scope="export:read memory:read")
    r = nurse.get(f"/v1/patients/{world.patient_a}/export", {"purpose": COMM})
    assert r.status_code == 403 and r.json()["code"] == "purpose_not_permitted"


def test_every_read_publishes_purpose_in_the_openapi_document():
    """The TypeScript client and the MCP tools are typed from the OpenAPI document: each read names ``purpose``
    there, from the closed set of purposes of use."""
    from agents_mcp.tools import openapi_document

    document = openapi_document()
    operations = {op["operationId"]: op for ops in document["paths"].values() for op in ops.values()
                  if isinstance(op, dict) and "operationId" in op}
    for operation_id in ("memories_list", "memories_read", "memories_search", "sessions_read", "sessions_context",
                         "care_team_flags_list", "patient_export", "memories_history", "memories_proposals_list",
                         "memories_releases_list", "memories_deletions_list"):
        [param] = [p for p in operations[operation_id].get("parameters", []) if p["name"] == "purpose"]
        assert param["in"] == "query" and not param.get("required")
        assert "appointment_scheduling" in param["schema"]["enum"], operation_id
    body = operations["memories_context_pack"]["requestBody"]["content"]["application/json"]["schema"]
    context_in = document["components"]["schemas"][body["$ref"].rsplit("/", 1)[-1]]
    assert "purpose" in context_in["properties"] and "purpose" not in context_in.get("required", [])


def test_naming_a_purpose_adds_no_statement_to_the_memory_list(world):
    """The list's purpose check travels in its audit row's statement: the same statements with and without it."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    seeded(world)
    agent = agent_for(world, world.patient_a)
    agent.get(mem(world.patient_a))  # warm: the token is verified and cached
    with CaptureQueriesContext(connection) as unnamed:
        assert agent.get(mem(world.patient_a)).status_code == 200
    with CaptureQueriesContext(connection) as named:
        assert agent.get(mem(world.patient_a), {"purpose": COMM}).status_code == 200
    # DRF's path (query parameters) also asks, in the read's round trip, for the type versions the process has not
    # cached (memory.api_reads); the quick read asks after its block, only for a version it meets uncached
    def besides_types(queries):
        return [q for q in queries if "FROM memory_type WHERE" not in q["sql"]]

    assert len(besides_types(named.captured_queries)) == len(besides_types(unnamed.captured_queries))
    assert any("app_require_purpose" in q["sql"] for q in named.captured_queries)


def test_history_proposals_releases_and_deletions_name_their_purpose(world):
    """The lifecycle reads take ``purpose`` like the rest: a named purpose sees only what is kept (or released) for
    it, is refused as such without consent, and names the purpose in the audit row."""
    ids = seeded(world)
    pid, base = world.patient_a, mem(world.patient_a)
    agent = agent_for(world, pid)
    sched_consent = world.consent(pid, SCHED)
    r = agent.post(f"{base}/proposals", {**memory_body(sched_consent, "latest_time", "15:00"), "source_ref": "turn:1"})
    assert r.status_code == 201, r.content
    proposal = r.json()["memory_id"]
    r = agent.post(f"/v1/patients/{pid}/context", {"question": "when can she come in?", "purpose": SCHED})
    assert r.status_code == 200, r.content
    assert world.patient(pid).request("DELETE", f"{base}/{ids['sched']}").status_code == 200

    history = agent.get(f"{base}/{ids['comm']}/history", {"purpose": COMM})
    assert history.status_code == 200, history.content
    assert [v["memory_id"] for v in history.json()["versions"]] == [ids["comm"]]
    assert agent.get(f"{base}/{ids['comm']}/history", {"purpose": SCHED}).status_code == 404  # kept for another
    assert [m["memory_id"] for m in agent.get(f"{base}/proposals", {"purpose": SCHED}).json()["items"]] == [proposal]
    assert agent.get(f"{base}/proposals", {"purpose": COMM}).json()["items"] == []
    assert [x["purpose"] for x in agent.get(f"/v1/patients/{pid}/releases", {"purpose": SCHED}).json()["items"]] == [
        SCHED]
    assert agent.get(f"/v1/patients/{pid}/releases", {"purpose": COMM}).json()["items"] == []
    deletions = agent.get(f"/v1/patients/{pid}/deletions", {"purpose": COMM})
    assert deletions.status_code == 200 and len(deletions.json()["items"]) == 1
    for action, purposes in (("memory.history", [COMM, SCHED]), ("memory.proposals", [SCHED, COMM]),
                             ("memory.releases", [SCHED, COMM]), ("memory.deletions", [COMM])):
        assert [e.purpose for e in rows(world, pid, action)] == purposes, action
    assert [e.outcome for e in rows(world, pid, "memory.history")] == ["success", "denied"]

    # without the patient's consent for the purpose: refused as such, and audited so
    world.patient(pid).post(f"/v1/patients/{pid}/consents/{ids['comm_consent']}/revoke")
    paths = {"memory.history": f"{base}/{ids['comm']}/history", "memory.proposals": f"{base}/proposals",
             "memory.releases": f"/v1/patients/{pid}/releases", "memory.deletions": f"/v1/patients/{pid}/deletions"}
    for action, path in paths.items():
        r = agent.get(path, {"purpose": COMM})
        assert r.status_code == 403 and r.json()["code"] == "purpose_not_permitted", (path, r.content)
        assert (rows(world, pid, action)[-1].outcome, rows(world, pid, action)[-1].purpose) == ("denied", COMM)
        r = agent.get(path, {"purpose": "marketing"})
        assert r.status_code == 422 and r.json()["errors"][0]["field"] == "purpose", path
    # the token's one claim is the default
    assert agent_for(world, pid, purpose_of_use=COMM).get(f"{base}/proposals").status_code == 403


def test_an_agent_works_on_a_workflow_only_while_the_patients_consent_for_its_purpose_is_in_force(world):
    """A workflow's state holds what the patient said for its purpose, and its operations send their data to an
    outside system: once the patient withdrew the consent for that purpose, an agent acting for them can neither
    read the workflow or its operations, nor checkpoint it, nor queue an operation, nor start another (403
    purpose_not_permitted, audited denied, nothing written), and without a consent it starts none. The patient in
    person goes on. Agents used to go on as if nothing had been withdrawn."""
    consent = world.consent(world.patient_a, SCHED)
    me = world.patient(world.patient_a)
    agent = agent_for(world, world.patient_a)
    created = agent.post("/v1/workflows", {"workflow_type": "appointment_booking",
                                           "patient_id": str(world.patient_a), "state": {"day": "monday"}})
    assert created.status_code == 201, created.content
    wid = created.json()["workflow_id"]
    assert agent.post(f"/v1/workflows/{wid}/checkpoint",
                      {"expected_version": 1, "next_step": "propose_slots"}).status_code == 200
    assert me.post(f"/v1/patients/{world.patient_a}/consents/{consent}/revoke").status_code == 200
    booking = {"expected_version": 2, "kind": "book_appointment",
               "payload": {"slot_id": "SLOT-9", "appointment_type": "follow_up"}}
    for method, path, body in (
            ("GET", f"/v1/workflows/{wid}", None), ("GET", f"/v1/workflows/{wid}/operations", None),
            ("POST", f"/v1/workflows/{wid}/checkpoint", {"expected_version": 2, "next_step": "confirm_booking"}),
            ("POST", f"/v1/workflows/{wid}/operations", booking),
            ("POST", "/v1/workflows", {"workflow_type": "appointment_booking", "patient_id": str(world.patient_a)}),
            ("POST", "/v1/workflows", {"workflow_type": "prior_authorization", "patient_id": str(world.patient_a)})):
        r = agent.request(method, path, body)
        assert r.status_code == 403 and r.json()["code"] == "purpose_not_permitted", (path, r.content)
        assert "monday" not in r.content.decode()
    assert {(e.action, e.outcome) for e in events(world, resource_id=wid, outcome="denied")} == {
        ("workflow.read", "denied"), ("workflow.operation.list", "denied"), ("workflow.checkpoint", "denied"),
        ("workflow.operation.request", "denied")}
    mine = me.get(f"/v1/workflows/{wid}")
    assert mine.status_code == 200 and mine.json()["version"] == 2 and mine.json()["pending_operations"] == []
    assert mine.json()["state"] == {"day": "monday"}
    assert me.post(f"/v1/workflows/{wid}/checkpoint",
                   {"expected_version": 2, "next_step": "confirm_booking"}).status_code == 200
