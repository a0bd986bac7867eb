"""Agents are not patients. A token with an RFC 8693 ``act`` claim, or from a client listed in
``OIDC_AGENT_CLIENT_IDS``, is an agent's: even in a patient's context what it records is a proposal
(``agent_extracted``, with its client id) until the patient or staff confirm it, and the audit trail names the agent
and the patient it acted for. A token with ``patient_id`` and no agent marker stays the patient themself."""

from __future__ import annotations

import uuid

import pytest

from tests.conftest import memory_body
from tests.support import PATIENT_SCOPES, Api, mint

pytestmark = pytest.mark.django_db


def mem(pid) -> str:
    return f"/v1/patients/{pid}/memories"


def agent_for(world, patient_id, *, act: str | dict | None = "scheduling-agent", **claims) -> Api:
    """An agent launched in the patient's context: the patient's subject and patient_id, plus the agent marker."""
    return Api(mint(world.keyring, sub=f"patient-{patient_id}", org_id=world.org, patient_id=patient_id,
                    scope=PATIENT_SCOPES, act=act, **claims))


def test_an_agent_acting_for_the_patient_records_a_proposal_not_a_patient_statement(world):
    cid = world.consent(world.patient_a)
    agent = agent_for(world, world.patient_a)
    r = agent.post(mem(world.patient_a), memory_body(cid, "latest_time", "15:00"))
    assert r.status_code == 201, r.content
    body = r.json()
    assert body["status"] == "proposed"
    memory = body["memory"]
    assert memory["state"] == "proposed" and memory["source"] == "agent_extracted"
    assert memory["agent_client_id"] == "scheduling-agent"
    patient = world.patient(world.patient_a)
    assert patient.get(mem(world.patient_a)).json()["items"] == [], "a proposal is used by nobody"
    assert [p["memory_id"] for p in patient.get(f"{mem(world.patient_a)}/proposals").json()["items"]] == [
        body["memory_id"]]
    # the agent cannot confirm its own proposal (nor correct a current value into place)
    r = agent.post(f"{mem(world.patient_a)}/{body['memory_id']}/confirm")
    assert r.status_code == 403 and r.json()["code"] == "agent_cannot_confirm"
    mine = patient.post(mem(world.patient_a), memory_body(cid)).json()["memory_id"]
    r = agent.post(f"{mem(world.patient_a)}/{mine}/correct", {"fact": {"kind": "earliest_time", "time": "07:00"}})
    assert r.status_code == 403 and r.json()["code"] == "agent_cannot_confirm"
    # the patient confirms: now it is current, still marked as the agent's extraction
    r = patient.post(f"{mem(world.patient_a)}/{body['memory_id']}/confirm")
    assert r.status_code == 200 and r.json()["state"] == "active"
    items = {i["attribute"]: i for i in patient.get(mem(world.patient_a)).json()["items"]}
    assert items["latest_time"]["source"] == "agent_extracted"
    assert items["latest_time"]["agent_client_id"] == "scheduling-agent"
    assert items["earliest_time"]["source"] == "patient_stated" and items["earliest_time"]["agent_client_id"] is None


def test_the_patients_own_token_still_states(world):
    cid = world.consent(world.patient_a)
    r = world.patient(world.patient_a).post(mem(world.patient_a), memory_body(cid))
    assert r.status_code == 201 and r.json()["status"] == "stored"
    assert r.json()["memory"]["state"] == "active" and r.json()["memory"]["source"] == "patient_stated"


@pytest.mark.parametrize("claim", ["azp", "client_id"])
def test_configured_agent_clients_are_agents_and_other_clients_are_not(world, settings, claim):
    settings.OIDC_AGENT_CLIENT_IDS = frozenset({"booking-bot"})
    cid = world.consent(world.patient_a)
    agent = agent_for(world, world.patient_a, act=None, **{claim: "booking-bot"})
    r = agent.post(mem(world.patient_a), memory_body(cid, "latest_time", "15:00"))
    assert r.status_code == 201 and r.json()["memory"]["state"] == "proposed"
    assert r.json()["memory"]["agent_client_id"] == "booking-bot"
    app = agent_for(world, world.patient_a, act=None, **{claim: "patient-app"})
    r = app.post(mem(world.patient_a), memory_body(cid, "earliest_time", "09:00"))
    assert r.status_code == 201 and r.json()["memory"]["source"] == "patient_stated"


def test_an_agent_for_staff_proposes_too_and_never_writes_care_context(world):
    cid = world.consent(world.patient_a)
    world.grant(world.patient_a, "nurse-1", "appointment_scheduling")
    world.grant(world.patient_a, "nurse-1", "care_coordination")
    agent = Api(mint(world.keyring, sub="nurse-1", org_id=world.org, act={"sub": "x", "client_id": "triage-bot"}))
    r = agent.post(mem(world.patient_a), memory_body(cid, "latest_time", "15:00"))
    assert r.status_code == 201 and r.json()["memory"]["state"] == "proposed"
    assert r.json()["memory"]["agent_client_id"] == "triage-bot"
    care = {"memory_type": "care_context", "consent_purpose": "care_coordination", "review_by": "2099-01-01T00:00Z",
            "fact": {"kind": "allergy", "substance": "penicillin", "reaction": "rash", "severity": "moderate"}}
    r = agent.post(mem(world.patient_a), care)
    assert r.status_code == 403 and r.json()["code"] == "staff_only"
    # staff confirm the agent's proposal
    proposals = world.staff("nurse-1").get(f"{mem(world.patient_a)}/proposals").json()["items"]
    r = world.staff("nurse-1").post(f"{mem(world.patient_a)}/{proposals[0]['memory_id']}/confirm")
    assert r.status_code == 200 and r.json()["state"] == "active"


@pytest.mark.parametrize("act", [{"sub": ""}, {"sub": 7}, "not-an-object", {"client_id": "two words"}, {}])
def test_a_malformed_act_claim_is_an_invalid_token(world, act):
    token = mint(world.keyring, sub=f"patient-{world.patient_a}", org_id=world.org, patient_id=world.patient_a,
                 scope=PATIENT_SCOPES, extra={"act": act})
    r = Api(token).get(mem(world.patient_a))
    assert r.status_code == 401 and r.json()["code"] == "invalid_token"


def test_audit_rows_name_the_agent_the_patient_and_the_purpose(world):
    cid = world.consent(world.patient_a)
    agent = agent_for(world, world.patient_a)
    agent.post(mem(world.patient_a), memory_body(cid, "latest_time", "15:00"))
    agent.get(mem(world.patient_a), {"consent_purpose": "appointment_scheduling"})
    events = world.patient(world.patient_a).get("/v1/audit-events").json()
    assert events["view"] == "own"
    by_agent = [e for e in events["items"] if e["agent_client_id"] == "scheduling-agent"]
    assert {e["action"] for e in by_agent} == {"memory.propose", "memory.list"}
    for e in by_agent:
        assert e["actor_kind"] == "agent" and e["on_behalf_of"] == str(world.patient_a)
        assert e["purpose"] == "appointment_scheduling"
    own = [e for e in events["items"] if e["action"] == "consent.grant"]
    assert own and all(e["agent_client_id"] is None and e["actor_kind"] == "patient" for e in own)
    # an auditor sees the same columns for the organisation
    items = world.admin().get("/v1/audit-events", {"patient_id": str(world.patient_a)}).json()["items"]
    assert any(e["agent_client_id"] == "scheduling-agent" for e in items)


def test_a_refusal_of_an_agent_is_audited_with_the_agent(world):
    agent = agent_for(world, world.patient_a)
    r = agent.post(mem(world.patient_a), memory_body(str(uuid.uuid4())))
    assert r.status_code == 403
    items = world.patient(world.patient_a).get("/v1/audit-events").json()["items"]
    denied = [e for e in items if e["outcome"] == "denied"]
    assert denied and denied[0]["agent_client_id"] == "scheduling-agent"


def test_an_agent_cannot_give_consent_in_the_patients_name_without_evidence(world):
    agent = agent_for(world, world.patient_a)
    r = agent.post(f"/v1/patients/{world.patient_a}/consents", {"purpose": "appointment_scheduling"})
    assert r.status_code == 422 and r.json()["errors"][0]["field"] == "evidence_ref"
    r = agent.post(f"/v1/patients/{world.patient_a}/consents",
                   {"purpose": "appointment_scheduling", "evidence_ref": "recorded-call-2291"})
    assert r.status_code == 201 and r.json()["evidence_ref"] == "recorded-call-2291"
    # recorded by the agent, not by the patient whose subject its token carries
    assert r.json()["recorded_by"] == "agent:scheduling-agent"


def test_a_context_pack_an_agent_asks_for_is_recorded_as_given_to_the_agent(world):
    cid = world.consent(world.patient_a)
    assert world.patient(world.patient_a).post(mem(world.patient_a), memory_body(cid)).status_code == 201
    agent = agent_for(world, world.patient_a)
    r = agent.post(f"/v1/patients/{world.patient_a}/context", {"question": "when can she come in?",
                                                                "purpose": "appointment_scheduling"})
    assert r.status_code == 200, r.content
    [release] = world.patient(world.patient_a).get(f"/v1/patients/{world.patient_a}/releases").json()["items"]
    assert release["agent_client_id"] == "scheduling-agent"
    assert release["actor_sub"] == f"patient-{world.patient_a}"


def test_an_agents_context_pack_holds_no_care_context_the_patient_has_not_consented_to(world):
    """Care context is kept for care coordination. An agent in the patient's context with the patient's consent for
    scheduling only is refused it when it reads for care coordination; a scheduling pack that names a medicine
    brought it in all the same (the safety rule's clinical context). It comes in once that consent is given."""
    world.grant(world.patient_a, "clinician", "care_coordination")
    r = world.staff("clinician").post(mem(world.patient_a), {
        "memory_type": "care_context", "consent_purpose": "care_coordination", "source": "staff_entered",
        "fact": {"kind": "allergy", "substance": "penicillin", "reaction": "anaphylaxis", "severity": "severe"},
        "review_by": "2031-01-01T00:00:00Z"})
    allergy = r.json()["memory_id"]
    cid = world.consent(world.patient_a)
    assert world.patient(world.patient_a).post(mem(world.patient_a), memory_body(cid)).status_code == 201
    agent = agent_for(world, world.patient_a)
    refused = agent.get(f"{mem(world.patient_a)}/search", {"q": "amoxicillin", "purpose": "care_coordination"})
    assert refused.status_code == 403 and refused.json()["code"] == "purpose_not_permitted"
    question = {"question": "can we give her amoxicillin before the appointment?", "purpose": "appointment_scheduling"}
    pack = agent.post(f"/v1/patients/{world.patient_a}/context", question).json()
    assert allergy not in [f["memory_id"] for f in pack["facts"]] and "penicillin" not in pack["text"], pack
    [release] = world.patient(world.patient_a).get(f"/v1/patients/{world.patient_a}/releases").json()["items"]
    assert allergy not in [m["memory_id"] for m in release["members"]]
    world.consent(world.patient_a, "care_coordination")
    pack = agent.post(f"/v1/patients/{world.patient_a}/context", question).json()
    assert allergy in [f["memory_id"] for f in pack["facts"]], pack


def test_a_pack_that_cannot_include_allergies_says_so_whether_or_not_there_are_any(world):
    """An agent without the patient's consent for care coordination asks a scheduling pack about a medicine: the
    pack cannot include allergies, and says so in the same words with or without one on record (it said "none
    relevant on record" and safety_rule_applied, which reads as "no allergies")."""
    cid = world.consent(world.patient_a)
    assert world.patient(world.patient_a).post(mem(world.patient_a), memory_body(cid)).status_code == 201
    agent = agent_for(world, world.patient_a)
    question = {"question": "can we give her amoxicillin at the appointment?", "purpose": "appointment_scheduling"}

    def pack():
        body = agent.post(f"/v1/patients/{world.patient_a}/context", question).json()
        assert body["safety_rule_applied"] is True, body
        return body

    before = pack()
    [note] = [n for n in before["guardrail_notes"] if n.startswith("Safety:")]
    assert "none are included, whether or not any are on record" in note and note in before["text"]
    world.grant(world.patient_a, "clinician", "care_coordination")
    r = world.staff("clinician").post(mem(world.patient_a), {
        "memory_type": "care_context", "consent_purpose": "care_coordination", "source": "staff_entered",
        "fact": {"kind": "allergy", "substance": "penicillin", "reaction": "rash"},
        "review_by": "2031-01-01T00:00:00Z"})
    assert r.status_code == 201, r.content
    after = pack()
    assert after["guardrail_notes"] == before["guardrail_notes"] and after["facts"] == before["facts"]
    world.consent(world.patient_a, "care_coordination")
    reached = pack()
    assert r.json()["memory_id"] in [f["memory_id"] for f in reached["facts"]]
    assert not any("whether or not any are on record" in n for n in reached["guardrail_notes"])


def test_a_pack_with_no_facts_still_carries_its_safety_note_in_its_text(world):
    """The text is what goes into the prompt: a pack with no facts gave "none relevant on record" alone, without
    the note that allergies could not be included (it was only in guardrail_notes)."""
    agent = agent_for(world, world.patient_a)
    world.consent(world.patient_a)
    pack = agent.post(f"/v1/patients/{world.patient_a}/context",
                      {"question": "can we give her amoxicillin?", "purpose": "appointment_scheduling"}).json()
    assert pack["facts"] == [] and pack["confidence"] == "none", pack
    [note] = pack["guardrail_notes"]
    assert pack["text"] == f"Known facts about this patient: none relevant on record.\nNote: {note}"


def test_an_agent_is_refused_a_correction_before_its_fact_is_checked(world):
    """An agent never corrects, so its correction is refused as such (403 ``agent_cannot_confirm``, as confirm and
    reject are) whatever it sends: not a 422 about the fact that invites it to fix the body and try again."""
    cid = world.consent(world.patient_a)
    stored = world.patient(world.patient_a).post(mem(world.patient_a), memory_body(cid)).json()["memory_id"]
    agent = agent_for(world, world.patient_a)
    for fact in ({"kind": "earliest_time", "time": "25:00"}, {"kind": "latest_time", "time": "12:00"}, "x"):
        r = agent.post(f"{mem(world.patient_a)}/{stored}/correct", {"fact": fact})
        assert r.status_code == 403 and r.json()["code"] == "agent_cannot_confirm", r.content
    items = world.patient(world.patient_a).get(mem(world.patient_a)).json()["items"]
    assert [(m["memory_id"], m["fact"]["time"]) for m in items] == [(stored, "10:00")]


def test_an_agent_cannot_quarantine_a_memory_even_for_staff(world):
    """Quarantine takes a fact (an allergy too) out of every read; staff decide it, not an agent acting for them."""
    cid = world.consent(world.patient_a)
    stored = world.patient(world.patient_a).post(mem(world.patient_a), memory_body(cid)).json()["memory_id"]
    world.grant(world.patient_a, "nurse-1", "appointment_scheduling")
    bot = Api(mint(world.keyring, sub="nurse-1", org_id=world.org, scope="memory:read memory:write",
                   act={"sub": "nurse-bot"}))
    r = bot.post(f"{mem(world.patient_a)}/{stored}/quarantine", {"reason_code": "disputed_by_patient"})
    assert r.status_code == 403 and r.json()["code"] == "agent_cannot_confirm"
    assert [m["memory_id"] for m in world.patient(world.patient_a).get(mem(world.patient_a)).json()["items"]] == [
        stored]
    nurse = world.staff("nurse-1", scope="memory:read memory:write")
    assert nurse.post(f"{mem(world.patient_a)}/{stored}/quarantine",
                      {"reason_code": "disputed_by_patient"}).status_code == 200


def test_an_agent_cannot_delete_erase_reject_or_revoke_for_the_patient(world):
    """Deleting, erasing everything, rejecting a proposal and withdrawing consent are the patient's decisions (or
    staff's for them). An agent acting for the patient is refused each, and nothing changes; its receipt would have
    credited the patient with the request. The patient's own token still can."""
    cid = world.consent(world.patient_a)
    patient = world.patient(world.patient_a)
    stored = patient.post(mem(world.patient_a), memory_body(cid)).json()["memory_id"]
    agent = agent_for(world, world.patient_a)
    proposal = agent.post(mem(world.patient_a), memory_body(cid, "latest_time", "15:00")).json()["memory_id"]
    bot = Api(mint(world.keyring, sub="nurse-1", org_id=world.org, scope="memory:read memory:write consent:write",
                   act={"sub": "nurse-bot"}))
    world.grant(world.patient_a, "nurse-1", "appointment_scheduling")
    for api in (agent, bot):
        r = api.client.delete(f"{mem(world.patient_a)}/{stored}", HTTP_AUTHORIZATION=f"Bearer {api.token}")
        assert r.status_code == 403 and r.json()["code"] == "agent_cannot_delete", r.content
        r = api.client.delete(mem(world.patient_a), HTTP_AUTHORIZATION=f"Bearer {api.token}")
        assert r.status_code == 403 and r.json()["code"] == "agent_cannot_delete", r.content
        r = api.post(f"{mem(world.patient_a)}/{proposal}/reject")
        assert r.status_code == 403 and r.json()["code"] == "agent_cannot_confirm", r.content
        r = api.post(f"/v1/patients/{world.patient_a}/consents/{cid}/revoke")
        assert r.status_code == 403 and r.json()["code"] == "agent_cannot_revoke", r.content
    assert [m["memory_id"] for m in patient.get(mem(world.patient_a)).json()["items"]] == [stored]
    assert [p["memory_id"] for p in patient.get(f"{mem(world.patient_a)}/proposals").json()["items"]] == [proposal]
    assert patient.get(f"/v1/patients/{world.patient_a}/consents").json()["items"][0]["status"] == "granted"
    assert patient.post(f"{mem(world.patient_a)}/{proposal}/reject").status_code == 200
    r = patient.client.delete(f"{mem(world.patient_a)}/{stored}", HTTP_AUTHORIZATION=f"Bearer {patient.token}")
    assert r.status_code == 200 and r.json()["requested_by"] == f"patient-{world.patient_a}"
    assert patient.post(f"/v1/patients/{world.patient_a}/consents/{cid}/revoke").status_code == 200


def test_an_agent_acting_for_an_administrator_decides_no_access(world):
    """It could grant itself (or whoever a prompt names) a patient's records: grants, revoking them and the staff
    register are an administrator's own acts (403 agent_cannot_grant), and nothing changes."""
    bot = Api(mint(world.keyring, sub="org-admin", org_id=world.org, scope="grant:write patient:write",
                   act={"sub": "helper-agent"}))
    r = bot.post("/v1/grants", {"patient_id": str(world.patient_a), "actor_sub": "helper-agent",
                                "purpose": "care_coordination"})
    assert r.status_code == 403 and r.json()["code"] == "agent_cannot_grant", r.content
    grant = world.grant(world.patient_a, "nurse-1", "appointment_scheduling")
    r = bot.post(f"/v1/grants/{grant['grant_id']}/revoke", {"reason": "x"})
    assert r.status_code == 403 and r.json()["code"] == "agent_cannot_grant"
    r = bot.post("/v1/staff", {"actor_sub": "helper-agent", "display_name": "Helper"})
    assert r.status_code == 403 and r.json()["code"] == "agent_cannot_grant"
    [only] = world.admin().get("/v1/grants").json()["items"]
    assert only["grant_id"] == grant["grant_id"] and only["revoked_at"] is None


def test_an_agent_acting_for_an_administrator_registers_no_patient(world):
    """Which patient an identifier names decides whose records a lookup by it reaches: an agent (told by a prompt)
    registered patients, claiming a record number no real patient had yet, so the administrator's registration of
    the real one was 409 identifier_in_use and lookups reached the agent's. Registering is an administrator's own
    act, as grants and the staff register are (403 agent_cannot_grant), and nothing is written."""
    bot = Api(mint(world.keyring, sub="org-admin", org_id=world.org, scope="patient:write patient:read",
                   act={"sub": "helper-agent"}))
    body = {"display_name": "Made Up", "identifiers": [{"system": "urn:mrn", "value": "MRN-7777"}]}
    r = bot.post("/v1/patients", body)
    assert r.status_code == 403 and r.json()["code"] == "agent_cannot_grant", r.content
    assert bot.get("/v1/patients", {"identifier": "urn:mrn|MRN-7777"}).json()["items"] == []
    admin = Api(mint(world.keyring, sub="org-admin", org_id=world.org, scope="patient:write patient:read"))
    assert admin.post("/v1/patients", body).status_code == 201
