"""Memory lifecycle through the API: proposals, care context, correction, quarantine, deletion with receipts,
expiry at query time and the sweep, consent revocation."""

from __future__ import annotations

import json
import uuid
from datetime import UTC, datetime, timedelta

import pytest
from django.core.management import call_command
from django.db import connection

from core.identity import Identity, identity_context
from memory.models import Memory
from tests.conftest import memory_body
from tests.support import Api, without_timestamps

pytestmark = pytest.mark.django_db


def mem(pid) -> str:
    return f"/v1/patients/{pid}/memories"


def future(days=30) -> str:
    return (datetime.now(UTC) + timedelta(days=days)).isoformat()


def care_body(**overrides) -> dict:
    body = {"memory_type": "care_context", "consent_purpose": "care_coordination",
            "fact": {"kind": "allergy", "substance": "penicillin", "reaction": "rash", "severity": "moderate"},
            "review_by": future(180), "source": "ehr_import", "source_ref": "ehr:AllergyIntolerance/991"}
    body.update(overrides)
    return body


def nurse_with(world, *purposes):
    for purpose in purposes:
        world.grant(world.patient_a, "nurse-1", purpose)
    return world.staff("nurse-1")


def test_proposals_are_invisible_until_confirmed(world):
    cid = world.consent(world.patient_a)
    agent = Api(world.token(sub="booking-agent", act="booking-agent"))  # an agent's token (a staff one: staff_entered)
    world.grant(world.patient_a, "booking-agent", "appointment_scheduling")
    r = agent.post(f"{mem(world.patient_a)}/proposals",
                   {**memory_body(cid, "latest_time", "15:00"), "source_ref": "session:s1/turn:3"})
    assert r.status_code == 201, r.content
    proposal = r.json()
    assert proposal["state"] == "proposed" and proposal["source"] == "agent_extracted"
    patient = world.patient(world.patient_a)
    assert patient.get(mem(world.patient_a)).json()["items"] == []
    assert [p["memory_id"] for p in patient.get(f"{mem(world.patient_a)}/proposals").json()["items"]] == [
        proposal["memory_id"]]
    r = patient.post(f"{mem(world.patient_a)}/{proposal['memory_id']}/confirm")
    assert r.status_code == 200 and r.json()["state"] == "active"
    items = patient.get(mem(world.patient_a)).json()["items"]
    assert [i["fact"]["time"] for i in items] == ["15:00"]
    assert patient.post(f"{mem(world.patient_a)}/{proposal['memory_id']}/confirm").status_code == 409


def test_a_proposal_made_before_the_current_value_became_current_is_not_confirmed(world):
    """A suggestion made before the patient stated a newer value answered a value since replaced: confirming it
    would silently overwrite the newer statement, so it is 409 proposal_stale naming the current value, and nothing
    changes. The same suggestion made again is a new proposal (the stale one is not handed back), and it is
    confirmed, current from its confirmation. Another value made current after a proposal (a confirmation, a value
    made current again when a newer one is set aside) makes it stale too."""
    cid = world.consent(world.patient_a)
    agent = Api(world.token(sub="booking-agent", act="booking-agent"))
    world.grant(world.patient_a, "booking-agent", "appointment_scheduling")
    body = {**memory_body(cid, "latest_time", "15:00"), "source_ref": "session:s1/turn:3"}
    proposal = agent.post(f"{mem(world.patient_a)}/proposals", body).json()
    patient = world.patient(world.patient_a)
    stated = patient.post(mem(world.patient_a), memory_body(cid, "latest_time", "17:00")).json()["memory"]
    r = patient.post(f"{mem(world.patient_a)}/{proposal['memory_id']}/confirm")
    assert r.status_code == 409 and r.json()["code"] == "proposal_stale", r.content
    assert r.json()["current_memory_id"] == stated["memory_id"]
    assert [i["memory_id"] for i in patient.get(mem(world.patient_a)).json()["items"]] == [stated["memory_id"]]
    assert patient.get(f"{mem(world.patient_a)}/{proposal['memory_id']}").json()["state"] == "proposed"

    again = agent.post(f"{mem(world.patient_a)}/proposals", {**body, "source_ref": "session:s2/turn:1"})
    assert again.status_code == 201 and again.json()["memory_id"] != proposal["memory_id"], again.content
    r = patient.post(f"{mem(world.patient_a)}/{again.json()['memory_id']}/confirm")
    assert r.status_code == 200, r.content
    confirmed = r.json()
    assert datetime.fromisoformat(confirmed["valid_from"]) > datetime.fromisoformat(stated["valid_from"])
    replaced = patient.get(f"{mem(world.patient_a)}/{stated['memory_id']}").json()
    assert replaced["state"] == "superseded" and replaced["superseded_by"] == again.json()["memory_id"]

    # two proposals of one attribute: once one is confirmed, the other was made against what it replaced
    first = agent.post(f"{mem(world.patient_a)}/proposals", memory_body(cid, "earliest_time", "08:00",
                                                                        source_ref="turn:7")).json()
    second = agent.post(f"{mem(world.patient_a)}/proposals", memory_body(cid, "earliest_time", "09:00",
                                                                         source_ref="turn:8")).json()
    assert patient.post(f"{mem(world.patient_a)}/{second['memory_id']}/confirm").status_code == 200
    r = patient.post(f"{mem(world.patient_a)}/{first['memory_id']}/confirm")
    assert r.status_code == 409 and r.json()["current_memory_id"] == second["memory_id"]
    assert patient.post(f"{mem(world.patient_a)}/{first['memory_id']}/reject").status_code == 200


def test_the_proposals_list_says_which_proposals_are_stale_and_what_overtook_them(world):
    """A proposal made before its attribute's current value became current cannot be confirmed (proposal_stale):
    the list says so (stale, overtaken_by the current value) before anyone tries; a later one is not stale."""
    cid = world.consent(world.patient_a)
    agent = Api(world.token(sub="booking-agent", act="booking-agent"))
    world.grant(world.patient_a, "booking-agent", "appointment_scheduling")
    old = agent.post(f"{mem(world.patient_a)}/proposals",
                     memory_body(cid, "latest_time", "15:00", source_ref="turn:1")).json()["memory_id"]
    patient = world.patient(world.patient_a)
    stated = patient.post(mem(world.patient_a), memory_body(cid, "latest_time", "17:00")).json()["memory_id"]
    fresh = agent.post(f"{mem(world.patient_a)}/proposals",
                       memory_body(cid, "latest_time", "16:00", source_ref="turn:2")).json()["memory_id"]
    other = agent.post(f"{mem(world.patient_a)}/proposals",
                       memory_body(cid, "earliest_time", "09:00", source_ref="turn:3")).json()["memory_id"]
    for api in (patient, agent):
        items = api.get(f"{mem(world.patient_a)}/proposals").json()["items"]
        assert [(i["memory_id"], i["stale"], i["overtaken_by"]) for i in items] == [
            (old, True, stated), (fresh, False, None), (other, False, None)]
    r = patient.post(f"{mem(world.patient_a)}/{old}/confirm")
    assert r.status_code == 409 and r.json()["code"] == "proposal_stale"


def test_rejected_proposal_is_erased(world):
    cid = world.consent(world.patient_a)
    patient = world.patient(world.patient_a)
    p = patient.post(f"{mem(world.patient_a)}/proposals",
                     {**memory_body(cid, "earliest_time", "07:15"), "source_ref": "session:s9/turn:1"}).json()
    r = patient.post(f"{mem(world.patient_a)}/{p['memory_id']}/reject")
    assert r.status_code == 200
    assert {rep["target"] for rep in r.json()["representations"]} == {"postgres", "vector"}
    tomb = patient.get(f"{mem(world.patient_a)}/{p['memory_id']}").json()
    assert tomb["state"] == "deleted" and tomb["fact"] is None


def test_a_proposal_says_truly_who_proposed_it(world):
    """Only an agent's proposal is ``agent_extracted``: the patient's own is ``patient_stated`` and staff's
    ``staff_entered``, each created by them, and confirming keeps that provenance."""
    from tests.test_memory_types import admin, mem_path, wound_care_type

    cid = world.consent(world.patient_a)
    patient = world.patient(world.patient_a)
    r = patient.post(f"{mem(world.patient_a)}/proposals",
                     {**memory_body(cid, "earliest_time", "07:15"), "source_ref": "session:s9/turn:1"})
    assert r.status_code == 201, r.content
    mine = r.json()
    assert (mine["state"], mine["source"], mine["created_by"], mine["agent_client_id"]) == (
        "proposed", "patient_stated", f"patient-{world.patient_a}", None)
    nurse = nurse_with(world, "appointment_scheduling")
    r = nurse.post(f"{mem(world.patient_a)}/proposals",
                   {**memory_body(cid, "latest_time", "16:00"), "source_ref": "phone-call:2026-12-01"})
    assert r.status_code == 201, r.content
    staffs = r.json()
    assert (staffs["state"], staffs["source"], staffs["created_by"]) == ("proposed", "staff_entered", "nurse-1")
    assert patient.post(f"{mem(world.patient_a)}/{staffs['memory_id']}/confirm").status_code == 200
    assert {i["attribute"]: i["source"] for i in patient.get(mem(world.patient_a)).json()["items"]} == {
        "latest_time": "staff_entered"}
    # a person proposes only what the type lets them write (as recording it would)
    assert admin(world).post("/v1/memory-types", wound_care_type(writers=["staff", "agent_proposal"])
                             ).status_code == 201
    r = patient.post(f"{mem_path(world.patient_a)}/proposals", {
        "memory_type": "dressing_change_preference", "fact": {"place": "home"},
        "consent_purpose": "appointment_scheduling", "consent_record_id": cid, "source_ref": "turn:1"})
    assert r.status_code == 403 and r.json()["code"] == "staff_only", r.content
    assert [p["memory_id"] for p in patient.get(f"{mem(world.patient_a)}/proposals").json()["items"]] == [
        mine["memory_id"]]


def test_the_same_proposal_again_while_it_waits_is_answered_with_it(world):
    """The same proposer proposing the same value again while their proposal of it waits gets that proposal (200)
    and nothing is written; another value, another proposer, or the same value once reviewed is a new proposal."""
    cid = world.consent(world.patient_a)
    world.grant(world.patient_a, "booking-agent", "appointment_scheduling")
    agent = Api(world.token(sub="booking-agent", act="booking-agent"))
    patient = world.patient(world.patient_a)
    proposals = f"{mem(world.patient_a)}/proposals"
    first = agent.post(proposals, {**memory_body(cid, "latest_time", "15:00"), "source_ref": "session:s1/turn:3"})
    assert first.status_code == 201, first.content
    for turn in (3, 4):
        again = agent.post(proposals, {**memory_body(cid, "latest_time", "15:00"),
                                       "source_ref": f"session:s1/turn:{turn}"})
        assert again.status_code == 200, again.content
        assert again.json() == first.json()  # the waiting proposal as it is (its source_ref kept)
    # an agent's write through the record endpoint is a proposal too: the same one
    r = agent.post(mem(world.patient_a), memory_body(cid, "latest_time", "15:00"))
    assert (r.status_code, r.json()["status"], r.json()["memory_id"]) == (
        200, "already_proposed", first.json()["memory_id"]), r.content
    # another validity asked for is not silently dropped
    r = agent.post(proposals, {**memory_body(cid, "latest_time", "15:00"), "source_ref": "session:s1/turn:5",
                               "valid_until": future(10)})
    assert r.status_code == 409 and r.json()["code"] == "proposal_pending", r.content
    assert first.json()["memory_id"] in r.json()["message"]
    # another value, and another proposer, are proposals of their own
    assert agent.post(proposals, {**memory_body(cid, "latest_time", "16:00"), "source_ref": "t:6"}).status_code == 201
    assert patient.post(proposals, {**memory_body(cid, "latest_time", "15:00"), "source_ref": "t:7"}).status_code == 201
    waiting = patient.get(proposals).json()["items"]
    assert len(waiting) == 3 and len({p["memory_id"] for p in waiting}) == 3
    with identity_context(Identity(org_id=world.org, actor_sub="x", patient_self_id=world.patient_a)):
        assert Memory.objects.filter(organization_id=world.org, patient_id=world.patient_a).count() == 3
    # once reviewed, the same value proposed again is a new proposal
    assert patient.post(f"{mem(world.patient_a)}/{first.json()['memory_id']}/reject").status_code == 200
    r = agent.post(proposals, {**memory_body(cid, "latest_time", "15:00"), "source_ref": "session:s2/turn:1"})
    assert r.status_code == 201 and r.json()["memory_id"] != first.json()["memory_id"], r.content


def test_care_context_only_from_staff_encrypted_and_flagged(world):
    patient = world.patient(world.patient_a)
    r = patient.post(mem(world.patient_a), care_body())
    assert r.status_code == 403
    nurse = world.staff("nurse-1")
    assert nurse.post(mem(world.patient_a), care_body()).status_code == 403  # no grant yet
    nurse = nurse_with(world, "care_coordination")
    assert nurse.post(mem(world.patient_a), care_body(review_by=None)).status_code == 422
    assert nurse.post(mem(world.patient_a), care_body(source_ref="")).status_code == 422
    r = nurse.post(mem(world.patient_a), care_body())
    assert r.status_code == 201, r.content
    item = r.json()["memory"]
    assert item["guardrails"]["fetch_live"] is True and "INR" in item["guardrails"]["note"]
    assert item["text"] == "Documented penicillin allergy (reaction: rash), severity moderate"
    # the patient reads their own care context, flagged too
    mine = patient.get(mem(world.patient_a)).json()["items"]
    assert mine[0]["guardrails"]["fetch_live"] is True
    # stored encrypted: the row holds no plaintext
    with identity_context(Identity(org_id=world.org, actor_sub="x", patient_self_id=world.patient_a)):
        stored = Memory.objects.get(pk=item["memory_id"])
    assert stored.fact is None and b"penicillin" not in bytes(stored.fact_ciphertext)
    assert stored.fact_key_id == "dev1"


def test_a_second_allergy_does_not_supersede_the_first(world):
    nurse = nurse_with(world, "care_coordination")
    nurse.post(mem(world.patient_a), care_body())
    nurse.post(mem(world.patient_a), care_body(fact={"kind": "allergy", "substance": "latex"}))
    nurse.post(mem(world.patient_a), care_body(
        fact={"kind": "long_term_indication", "medication": "warfarin", "indication": "atrial fibrillation",
              "monitoring": "INR"}))
    texts = sorted(i["text"] for i in nurse.get(mem(world.patient_a)).json()["items"])
    assert texts == ["Documented latex allergy", "Documented penicillin allergy (reaction: rash), severity moderate",
                     "Long-term warfarin therapy for atrial fibrillation; INR monitoring required"]


@pytest.mark.parametrize("names", [("Анна", "Ольга"), ("王伟", "李娜"), ("Żaneta", "Aneta"), ("Μαρία", "Ελένη")])
def test_two_carers_named_in_any_script_are_two_facts_and_the_same_name_again_supersedes(world, names):
    """A caregiver is an attribute by relationship and name: names written in another script, or differing in a
    letter outside a-z, are different people (each was read as no letters at all, or without that letter, so the
    second carer replaced the first); the same name again, in another case or with other spaces, is the same
    carer, and a new value of them supersedes the old one."""
    cid = world.consent(world.patient_a, "communication")
    me = world.patient(world.patient_a)

    def carer(name, phone):
        return {"memory_type": "caregiver_contact", "consent_purpose": "communication", "consent_record_id": cid,
                "fact": {"name": name, "relationship": "child", "phone": phone, "may_be_told": ["appointments"]}}

    first, second = names
    for name, phone in ((first, "+48 600 000 001"), (second, "+48 600 000 002")):
        r = me.post(mem(world.patient_a), carer(name, phone))
        assert r.status_code == 201, r.content
    items = me.get(mem(world.patient_a)).json()["items"]
    assert sorted(i["fact"]["name"] for i in items) == sorted(names)
    again = me.post(mem(world.patient_a), carer(f"  {first.upper()} ", "+48 600 000 003"))
    assert again.status_code == 201, again.content
    items = me.get(mem(world.patient_a)).json()["items"]
    assert sorted((i["fact"]["name"].strip().casefold(), i["fact"]["phone"]) for i in items) == sorted(
        [(first.casefold(), "+48 600 000 003"), (second.casefold(), "+48 600 000 002")])


def test_a_carer_recorded_before_every_script_counted_is_still_corrected(world):
    """A record written when only a-z and 0-9 told free values apart carries its attribute as then worked out
    (a name in Cyrillic as no letters at all): correcting it is still a correction of it, keeping that attribute."""
    from memory.types import earlier_attribute, type_get

    cid = world.consent(world.patient_a, "communication")
    me = world.patient(world.patient_a)
    fact = {"name": "Анна", "relationship": "child", "phone": "+48 600 000 001", "may_be_told": ["appointments"]}
    mid = me.post(mem(world.patient_a), {"memory_type": "caregiver_contact", "consent_purpose": "communication",
                                         "consent_record_id": cid, "fact": fact}).json()["memory_id"]
    earlier = earlier_attribute(type_get("caregiver_contact"), fact)
    with identity_context(Identity(org_id=world.org, actor_sub="t", patient_self_id=world.patient_a)), \
            connection.cursor() as cur:
        cur.execute("UPDATE patient_memory SET attribute = %s WHERE memory_id = %s", [earlier, mid])
    r = me.post(f"{mem(world.patient_a)}/{mid}/correct", {"fact": {**fact, "phone": "+48 600 000 009"}})
    assert r.status_code == 201, r.content
    assert r.json()["attribute"] == earlier
    assert [i["fact"]["phone"] for i in me.get(mem(world.patient_a)).json()["items"]] == ["+48 600 000 009"]


def test_history_of_a_long_chain_lists_every_version_in_a_few_statements(world, django_assert_max_num_queries):
    """Twelve values of one attribute: the history of any version lists all twelve, newest first, each pointing at
    its successor, read in the same handful of statements however long the chain (a query per version before)."""
    cid = world.consent(world.patient_a)
    patient = world.patient(world.patient_a)
    ids = [patient.post(mem(world.patient_a), memory_body(cid, "earliest_time", f"{7 + i:02d}:00")).json()["memory_id"]
           for i in range(12)]
    for middle in (ids[0], ids[5], ids[-1]):
        with django_assert_max_num_queries(12):
            history = patient.get(f"{mem(world.patient_a)}/{middle}/history").json()
        versions = history["versions"]
        assert [v["memory_id"] for v in versions] == ids[::-1]
        assert [v["superseded_by"] for v in versions] == [None, *ids[::-1][:-1]]
        assert [v["state"] for v in versions] == ["active"] + ["superseded"] * 11
    # another patient's memory has no history here, as before
    other = world.patient(world.patient_b)
    assert other.get(f"/v1/patients/{world.patient_b}/memories/{ids[5]}/history").status_code == 404


def test_history_is_read_a_page_at_a_time_newest_first_with_each_pages_events(world):
    """A memory's history answered every version of its attribute in one body (a value changed thousands of times
    was thousands of versions, with all their events), while every other list is paged. It is read ``limit``
    versions at a time (1-500, default 100), newest first, each page with its versions' events, the next through
    ``next_cursor`` (null on the last); a version written meanwhile does not shift the pages, and a cursor the
    history never gave is 422."""
    cid = world.consent(world.patient_a)
    patient = world.patient(world.patient_a)
    ids = [patient.post(mem(world.patient_a), memory_body(cid, "earliest_time", f"{7 + i:02d}:00")).json()["memory_id"]
           for i in range(5)]
    path = f"{mem(world.patient_a)}/{ids[2]}/history"
    first = patient.get(path, {"limit": "2"}).json()
    assert [v["memory_id"] for v in first["versions"]] == ids[:2:-1] and first["next_cursor"]
    assert {e["memory_id"] for e in first["events"]} == set(ids[3:])
    newest = patient.post(mem(world.patient_a), memory_body(cid, "earliest_time", "13:00")).json()["memory_id"]
    second = patient.get(path, {"limit": "2", "cursor": first["next_cursor"]}).json()
    assert [v["memory_id"] for v in second["versions"]] == [ids[2], ids[1]], second
    last = patient.get(path, {"limit": "2", "cursor": second["next_cursor"]}).json()
    assert [v["memory_id"] for v in last["versions"]] == [ids[0]] and last["next_cursor"] is None
    whole = patient.get(path).json()
    assert [v["memory_id"] for v in whole["versions"]] == [newest, *ids[::-1]] and whole["next_cursor"] is None
    for params, field in (({"cursor": "bm90LWEtY3Vyc29y"}, "cursor"), ({"limit": "0"}, "limit"),
                          ({"limit": "501"}, "limit")):
        r = patient.get(path, params)
        assert r.status_code == 422 and r.json()["errors"][0]["field"] == field, r.content


def test_correction_supersedes_and_history_shows_both(world):
    cid = world.consent(world.patient_a)
    patient = world.patient(world.patient_a)
    old = patient.post(mem(world.patient_a), memory_body(cid, "earliest_time", "10:00")).json()["memory_id"]
    r = patient.post(f"{mem(world.patient_a)}/{old}/correct", {"fact": {"kind": "earliest_time", "time": "10:30"}})
    assert r.status_code == 201, r.content
    new = r.json()
    assert new["source_ref"] == f"correction-of:{old}" and new["source"] == "patient_stated"
    history = patient.get(f"{mem(world.patient_a)}/{new['memory_id']}/history").json()
    assert [v["memory_id"] for v in history["versions"]] == [new["memory_id"], old]
    assert history["versions"][1]["state"] == "superseded" and history["versions"][1]["superseded_by"] == new[
        "memory_id"]
    assert "corrected" in [e["event_type"] for e in history["events"]]
    assert all("10:00" not in without_timestamps(str(e)) for e in history["events"])  # digests, never values
    # a correction cannot change the attribute
    r = patient.post(f"{mem(world.patient_a)}/{new['memory_id']}/correct",
                     {"fact": {"kind": "latest_time", "time": "12:00"}})
    assert r.status_code == 422


def test_a_correction_keeps_the_validity_unless_it_names_another(world):
    """Correcting a value that holds until a date does not make it hold for ever: left out, ``valid_until`` is the
    corrected record's (as ``review_by`` is); a new date replaces it; ``null`` asks for the type's default."""
    cid = world.consent(world.patient_a)
    patient = world.patient(world.patient_a)
    until = datetime.now(UTC).replace(microsecond=0) + timedelta(days=20)
    old = patient.post(mem(world.patient_a), memory_body(cid, "earliest_time", "10:00",
                                                         valid_until=until.isoformat())).json()["memory_id"]

    def correct(memory_id, time, **extra):
        r = patient.post(f"{mem(world.patient_a)}/{memory_id}/correct",
                         {"fact": {"kind": "earliest_time", "time": time}, **extra})
        assert r.status_code == 201, r.content
        return r.json()

    kept = correct(old, "10:30")
    assert datetime.fromisoformat(kept["valid_until"]) == until
    [listed] = patient.get(mem(world.patient_a)).json()["items"]
    assert listed["memory_id"] == kept["memory_id"] and datetime.fromisoformat(listed["valid_until"]) == until
    later = until + timedelta(days=5)
    moved = correct(kept["memory_id"], "11:00", valid_until=later.isoformat())
    assert datetime.fromisoformat(moved["valid_until"]) == later
    assert correct(moved["memory_id"], "11:30", valid_until=None)["valid_until"] is None  # no default validity


def test_patients_cannot_correct_or_delete_clinical_facts(world):
    nurse = nurse_with(world, "care_coordination")
    care = nurse.post(mem(world.patient_a), care_body()).json()["memory_id"]
    patient = world.patient(world.patient_a)
    r = patient.post(f"{mem(world.patient_a)}/{care}/correct",
                     {"fact": {"kind": "allergy", "substance": "penicillin"}})
    assert r.status_code == 403
    assert patient.client.delete(f"{mem(world.patient_a)}/{care}",
                                 HTTP_AUTHORIZATION=f"Bearer {patient.token}").status_code == 403


def test_quarantine_excludes_at_once_and_is_staff_only(world):
    cid = world.consent(world.patient_a)
    patient = world.patient(world.patient_a)
    mid = patient.post(mem(world.patient_a), memory_body(cid)).json()["memory_id"]
    r = patient.post(f"{mem(world.patient_a)}/{mid}/quarantine", {"reason_code": "disputed"})
    assert r.status_code == 403
    nurse = nurse_with(world, "appointment_scheduling")
    assert nurse.post(f"{mem(world.patient_a)}/{mid}/quarantine", {"reason_code": "Bad Reason!"}).status_code == 422
    r = nurse.post(f"{mem(world.patient_a)}/{mid}/quarantine", {"reason_code": "disputed_by_patient"})
    assert r.status_code == 200 and r.json()["state"] == "quarantined"
    assert patient.get(mem(world.patient_a)).json()["items"] == []
    # a new value for the attribute can be recorded; quarantining twice is an illegal transition
    assert patient.post(mem(world.patient_a), memory_body(cid, time="09:45")).status_code == 201
    r = nurse.post(f"{mem(world.patient_a)}/{mid}/quarantine", {"reason_code": "again"})
    assert r.status_code == 409 and r.json()["code"] == "illegal_transition"


def _current(api, pid) -> list[tuple[str, str]]:
    return [(i["memory_id"], i["fact"]["time"]) for i in api.get(mem(pid)).json()["items"]]


def test_quarantining_the_current_value_makes_the_one_it_replaced_current_until_it_is_released(world):
    """Setting the newer value aside does not leave the attribute with none: the value it replaced is current again
    (its history says why); released, the newer value supersedes it again. Only staff release, only what is
    quarantined."""
    cid = world.consent(world.patient_a)
    patient = world.patient(world.patient_a)
    nurse = nurse_with(world, "appointment_scheduling")
    older = patient.post(mem(world.patient_a), memory_body(cid, time="10:00")).json()["memory_id"]
    newer = patient.post(mem(world.patient_a), memory_body(cid, time="10:30")).json()["memory_id"]
    assert _current(patient, world.patient_a) == [(newer, "10:30")]

    assert nurse.post(f"{mem(world.patient_a)}/{newer}/quarantine", {"reason_code": "disputed"}).status_code == 200
    assert _current(patient, world.patient_a) == [(older, "10:00")]
    read = patient.get(f"{mem(world.patient_a)}/{older}").json()
    assert read["state"] == "active" and read["superseded_by"] is None
    reinstated = patient.get(f"{mem(world.patient_a)}/{older}/history").json()["events"][-1]
    assert (reinstated["event_type"], reinstated["from_state"], reinstated["to_state"]) == (
        "reinstated", "superseded", "active")
    assert reinstated["source_ref"] == f"quarantine-of:{newer}"

    assert patient.post(f"{mem(world.patient_a)}/{newer}/release", {}).json()["code"] == "staff_only"
    r = nurse.post(f"{mem(world.patient_a)}/{older}/release", {})
    assert r.status_code == 409 and r.json()["code"] == "not_quarantined"
    r = nurse.post(f"{mem(world.patient_a)}/{uuid.uuid4()}/release", {})
    assert r.status_code == 404
    assert nurse.post(f"{mem(world.patient_a)}/{newer}/release", {"reason_code": "Bad!"}).status_code == 422
    r = nurse.post(f"{mem(world.patient_a)}/{newer}/release", {"reason_code": "confirmed_with_patient"})
    assert r.status_code == 200 and r.json()["state"] == "active", r.content
    assert _current(patient, world.patient_a) == [(newer, "10:30")]
    read = patient.get(f"{mem(world.patient_a)}/{older}").json()
    assert read["state"] == "superseded" and read["superseded_by"] == newer
    history = patient.get(f"{mem(world.patient_a)}/{newer}/history").json()
    assert [v["memory_id"] for v in history["versions"]] == [newer, older]
    assert [e["event_type"] for e in history["events"] if e["memory_id"] == newer][-2:] == [
        "quarantined", "released"]
    # and again: the same value comes back while the newer one is set aside a second time
    assert nurse.post(f"{mem(world.patient_a)}/{newer}/quarantine", {"reason_code": "disputed"}).status_code == 200
    assert _current(patient, world.patient_a) == [(older, "10:00")]


def test_a_value_that_was_itself_set_aside_or_whose_validity_ended_is_not_made_current_again(world):
    cid = world.consent(world.patient_a)
    patient = world.patient(world.patient_a)
    nurse = nurse_with(world, "appointment_scheduling")
    doubtful = patient.post(mem(world.patient_a), memory_body(cid, time="10:00")).json()["memory_id"]
    assert nurse.post(f"{mem(world.patient_a)}/{doubtful}/quarantine", {"reason_code": "disputed"}).status_code == 200
    newer = patient.post(mem(world.patient_a), memory_body(cid, time="10:30")).json()["memory_id"]
    assert nurse.post(f"{mem(world.patient_a)}/{newer}/quarantine", {"reason_code": "disputed"}).status_code == 200
    assert _current(patient, world.patient_a) == []
    assert patient.get(f"{mem(world.patient_a)}/{doubtful}").json()["state"] == "superseded"

    ended = patient.post(mem(world.patient_a), memory_body(cid, "latest_time", "16:00", valid_until=future(1)))
    latest = patient.post(mem(world.patient_a), memory_body(cid, "latest_time", "17:00")).json()["memory_id"]
    me = Identity(org_id=world.org, actor_sub="t", patient_self_id=world.patient_a)
    with identity_context(me), connection.cursor() as cur:  # the clock moves past the older value's validity
        cur.execute("UPDATE patient_memory SET valid_from = now() - interval '3 days', "
                    "valid_until = now() - interval '1 second' WHERE memory_id = %s", [ended.json()["memory_id"]])
    assert nurse.post(f"{mem(world.patient_a)}/{latest}/quarantine", {"reason_code": "disputed"}).status_code == 200
    assert _current(patient, world.patient_a) == []
    # a quarantined value past its own validity is not released into reads either
    with identity_context(me), connection.cursor() as cur:
        cur.execute("UPDATE patient_memory SET valid_from = now() - interval '3 days', "
                    "valid_until = now() - interval '1 second' WHERE memory_id = %s", [latest])
    r = nurse.post(f"{mem(world.patient_a)}/{latest}/release", {})
    assert r.status_code == 409 and r.json()["code"] == "illegal_transition"


def test_a_value_made_current_again_is_kept_no_longer_than_its_retention_from_when_it_was_written(world):
    """A proposal confirmed days after it was made is valid from its confirmation, but its retention runs from its
    writing: made current again, it keeps that deadline, not one counted from its confirmation."""
    from memory.types import type_get

    cid = world.consent(world.patient_a)
    agent = Api(world.token(sub="booking-agent", act="booking-agent"))
    world.grant(world.patient_a, "booking-agent", "appointment_scheduling")
    proposal = agent.post(f"{mem(world.patient_a)}/proposals",
                          {**memory_body(cid, "latest_time", "15:00"), "source_ref": "turn:3"}).json()["memory_id"]
    me = Identity(org_id=world.org, actor_sub="t", patient_self_id=world.patient_a)
    with identity_context(me), connection.cursor() as cur:  # proposed ten days ago
        cur.execute("UPDATE patient_memory SET created_at = created_at - interval '10 days', valid_from = valid_from "
                    "- interval '10 days', expires_at = expires_at - interval '10 days' WHERE memory_id = %s",
                    [proposal])
        # its retention as written (the proposal itself waits for review a shorter time: it lapses sooner)
        written = Memory.objects.get(memory_id=proposal).created_at + timedelta(
            days=type_get("scheduling_preference").kept_days)
    patient = world.patient(world.patient_a)
    assert patient.post(f"{mem(world.patient_a)}/{proposal}/confirm").status_code == 200
    newer = patient.post(mem(world.patient_a), memory_body(cid, "latest_time", "17:00")).json()["memory_id"]
    nurse = nurse_with(world, "appointment_scheduling")
    assert nurse.post(f"{mem(world.patient_a)}/{newer}/quarantine", {"reason_code": "disputed"}).status_code == 200
    again = patient.get(f"{mem(world.patient_a)}/{proposal}").json()
    assert again["state"] == "active"  # its deadline as written (created_at and the write's clock differ by a moment)
    assert abs(datetime.fromisoformat(again["expires_at"]) - written) < timedelta(seconds=1)
    assert type_get("scheduling_preference").kept_days > 10


def _delete(api, path):
    return api.client.delete(path, HTTP_AUTHORIZATION=f"Bearer {api.token}")


def test_deletion_reaches_every_version_and_returns_a_receipt(world):
    cid = world.consent(world.patient_a)
    patient = world.patient(world.patient_a)
    first = patient.post(mem(world.patient_a), memory_body(cid, time="06:40")).json()["memory_id"]
    second = patient.post(mem(world.patient_a), memory_body(cid, time="06:50")).json()["memory_id"]
    r = _delete(patient, f"{mem(world.patient_a)}/{second}")
    assert r.status_code == 200, r.content
    receipt = r.json()
    assert set(receipt["memory_ids"]) == {first, second}
    assert receipt["representations"] and all(line["verified_at"] and line["state"] == "verified"
                                              for line in receipt["representations"])
    assert patient.get(mem(world.patient_a)).json()["items"] == []
    assert _delete(patient, f"{mem(world.patient_a)}/{second}").status_code == 404
    listed = patient.get(f"/v1/patients/{world.patient_a}/deletions").json()["items"]
    assert [d["deletion_id"] for d in listed] == [receipt["deletion_id"]]
    # another patient cannot delete or see it
    assert _delete(world.patient(world.patient_b), f"{mem(world.patient_a)}/{first}").status_code == 404


def test_erase_all_as_patient_keeps_clinical_record_and_says_so(world):
    cid = world.consent(world.patient_a)
    patient = world.patient(world.patient_a)
    patient.post(mem(world.patient_a), memory_body(cid, "earliest_time", "10:00"))
    patient.post(mem(world.patient_a), memory_body(cid, "latest_time", "16:00"))
    nurse = nurse_with(world, "care_coordination")
    care = nurse.post(mem(world.patient_a), care_body()).json()["memory_id"]
    receipt = _delete(patient, mem(world.patient_a)).json()
    assert receipt["scope"] == "patient" and len(receipt["memory_ids"]) == 2
    assert [r["memory_id"] for r in receipt["retained"]] == [care]
    assert [i["memory_id"] for i in patient.get(mem(world.patient_a)).json()["items"]] == [care]


def _past_its_validity(world, cid) -> tuple[str, Identity]:
    """A new value whose valid_until has just passed (the clock moved), and the patient's identity."""
    mid = world.patient(world.patient_a).post(mem(world.patient_a), memory_body(cid, valid_until=future(1))).json()[
        "memory_id"]
    me = Identity(org_id=world.org, actor_sub="t", patient_self_id=world.patient_a)
    with identity_context(me), connection.cursor() as cur:
        cur.execute("UPDATE patient_memory SET valid_from = now() - interval '3 days', "
                    "valid_until = now() - interval '1 second' WHERE memory_id = %s", [mid])
    return mid, me


def test_expired_records_are_never_served_even_before_the_sweep(world):
    cid = world.consent(world.patient_a)
    patient = world.patient(world.patient_a)
    mid, me = _past_its_validity(world, cid)
    assert patient.get(mem(world.patient_a)).json()["items"] == []
    call_command("sweep_memories")
    assert patient.get(f"{mem(world.patient_a)}/{mid}").json()["state"] == "expired"
    with identity_context(me), connection.cursor() as cur:  # retention passes too
        cur.execute("UPDATE patient_memory SET expires_at = now() - interval '1 second' WHERE memory_id = %s", [mid])
    call_command("sweep_memories")
    tomb = patient.get(f"{mem(world.patient_a)}/{mid}").json()
    assert tomb["state"] == "deleted" and tomb["fact"] is None
    call_command("sweep_memories")  # idempotent


def test_a_value_whose_validity_ended_before_the_sweep_is_expired_not_superseded_by_the_next(world):
    """Reads say a value past its valid_until expired, whether or not the sweep has run; the next value for its
    attribute must not rewrite that into "a newer value replaced it" (superseded) in its history."""
    cid = world.consent(world.patient_a)
    patient = world.patient(world.patient_a)
    mid, _ = _past_its_validity(world, cid)
    assert patient.get(f"{mem(world.patient_a)}/{mid}").json()["state"] == "expired"
    newer = patient.post(mem(world.patient_a), memory_body(cid, "earliest_time", "11:00"))
    assert newer.status_code == 201, newer.content
    old = patient.get(f"{mem(world.patient_a)}/{mid}").json()
    assert old["state"] == "expired" and old["superseded_by"] == newer.json()["memory_id"]
    events = patient.get(f"{mem(world.patient_a)}/{mid}/history").json()["events"]
    assert [e["event_type"] for e in events if e["memory_id"] == mid][-1] == "expired"
    assert [i["memory_id"] for i in patient.get(mem(world.patient_a)).json()["items"]] == [
        newer.json()["memory_id"]]


@pytest.mark.parametrize("swept", [False, True])
def test_deleting_the_value_that_came_after_an_expired_one_erases_the_expired_one_too(world, swept):
    """A value whose validity ended (recorded by the sweep or not) then followed by a newer value of its attribute
    is an earlier value of it: in the newer one's history, and erased with it (the receipt says so), not kept
    until its retention."""
    cid = world.consent(world.patient_a)
    patient = world.patient(world.patient_a)
    mid, _ = _past_its_validity(world, cid)
    if swept:
        call_command("sweep_memories")
    newer = patient.post(mem(world.patient_a), memory_body(cid, "earliest_time", "11:00")).json()["memory_id"]
    history = patient.get(f"{mem(world.patient_a)}/{newer}/history").json()
    assert [v["memory_id"] for v in history["versions"]] == [newer, mid]
    newest = patient.post(mem(world.patient_a), memory_body(cid, "earliest_time", "12:00")).json()["memory_id"]
    receipt = _delete(patient, f"{mem(world.patient_a)}/{newest}").json()
    assert set(receipt["memory_ids"]) == {newest, newer, mid}
    tomb = patient.get(f"{mem(world.patient_a)}/{mid}").json()
    assert tomb["state"] == "deleted" and tomb["fact"] is None


@pytest.mark.parametrize("swept", [False, True])
def test_an_expired_value_a_newer_one_replaced_is_kept_no_longer_than_a_superseded_one(world, settings, swept):
    """An earlier value is kept MEMORY_SUPERSEDED_RETENTION_DAYS once a newer value of its attribute comes (a
    superseded one was), but one whose validity had ended first (recorded by the sweep or not) kept its type's
    whole retention, two years: past the superseded value beside it, which was current after it. Now both are kept
    the same time at most; the sweep erases the expired one then, with its receipt."""
    settings.MEMORY_SUPERSEDED_RETENTION_DAYS = 7
    cid = world.consent(world.patient_a)
    patient = world.patient(world.patient_a)
    mid, me = _past_its_validity(world, cid)
    if swept:
        call_command("sweep_memories")
    newer = patient.post(mem(world.patient_a), memory_body(cid, "earliest_time", "11:00")).json()["memory_id"]
    newest = patient.post(mem(world.patient_a), memory_body(cid, "earliest_time", "12:00")).json()["memory_id"]
    with identity_context(me):
        kept = dict(Memory.objects.filter(memory_id__in=[mid, newer]).values_list("memory_id", "expires_at"))
    limit = datetime.now(UTC) + timedelta(days=7, minutes=1)
    assert all(until <= limit for until in kept.values()), kept
    assert patient.get(f"{mem(world.patient_a)}/{mid}").json()["state"] == "expired"
    with identity_context(me), connection.cursor() as cur:  # the 7 days pass
        cur.execute("UPDATE patient_memory SET expires_at = now() - interval '1 second' WHERE memory_id = %s",
                    [mid])
    call_command("sweep_memories")
    assert patient.get(f"{mem(world.patient_a)}/{mid}").json()["state"] == "deleted"
    assert [i["memory_id"] for i in patient.get(mem(world.patient_a)).json()["items"]] == [newest]


def test_consent_revocation_expires_dependent_memories_in_the_same_transaction(world):
    cid = world.consent(world.patient_a)
    patient = world.patient(world.patient_a)
    mid = patient.post(mem(world.patient_a), memory_body(cid)).json()["memory_id"]
    patient.post(f"/v1/patients/{world.patient_a}/consents/{cid}/revoke")
    record = patient.get(f"{mem(world.patient_a)}/{mid}").json()
    assert record["state"] == "expired"
    events = patient.get(f"{mem(world.patient_a)}/{mid}/history").json()["events"]
    assert events[-1]["event_type"] == "consent_revoked"
    call_command("sweep_memories")  # grace period 0: erased by the next sweep
    assert patient.get(f"{mem(world.patient_a)}/{mid}").json()["state"] == "deleted"


def test_the_database_refuses_illegal_state_moves():
    """Even a direct UPDATE (a bug elsewhere) cannot move a state outside the table."""
    from django.db import DatabaseError, transaction

    org, pid = uuid.uuid4(), uuid.uuid4()
    from tests.test_foundation import give_consent, patient, record_pref

    cid = give_consent(org, pid)
    me = patient(org, pid)
    with identity_context(me):
        memory = record_pref(me, pid, cid)
        for bad in ("proposed", "superseded"):
            with pytest.raises(DatabaseError), transaction.atomic():
                Memory.objects.filter(pk=memory.pk).update(state=bad)
        with pytest.raises(DatabaseError), transaction.atomic():
            Memory.objects.filter(pk=memory.pk).update(state="deleted")  # value not erased: refused too


def test_key_rotation_reencrypts_under_the_active_key(world, settings):
    import base64
    import os

    k1, k2 = (base64.b64encode(os.urandom(32)).decode() for _ in range(2))
    settings.MEMORY_ENCRYPTION_KEYS = f"k1:{k1}"
    settings.MEMORY_ENCRYPTION_ACTIVE_KEY = "k1"
    nurse = nurse_with(world, "care_coordination")
    mid = nurse.post(mem(world.patient_a), care_body()).json()["memory_id"]
    settings.MEMORY_ENCRYPTION_KEYS = f"k1:{k1},k2:{k2}"
    settings.MEMORY_ENCRYPTION_ACTIVE_KEY = "k2"
    call_command("rotate_memory_keys")
    me = Identity(org_id=world.org, actor_sub="x", patient_self_id=world.patient_a)
    with identity_context(me):
        assert Memory.objects.get(pk=mid).fact_key_id == "k2"
    settings.MEMORY_ENCRYPTION_KEYS = f"k2:{k2}"  # the old key is gone; values still read
    item = nurse.get(f"{mem(world.patient_a)}/{mid}").json()
    assert item["fact"]["substance"] == "penicillin"


def test_withdrawing_consent_reaches_earlier_values_too(world):
    """A corrected value's earlier version was kept under the same consent: after the withdrawal it reads without
    its value, and the sweep erases it with the current one."""
    cid = world.consent(world.patient_a, "care_coordination")
    patient = world.patient(world.patient_a)
    body = {"memory_type": "dietary_requirement", "fact": {"diets": ["vegetarian"]},
            "consent_purpose": "care_coordination", "consent_record_id": cid}
    first = patient.post(mem(world.patient_a), body)
    assert first.status_code == 201, first.content
    old = first.json()["memory_id"]
    fixed = patient.post(f"{mem(world.patient_a)}/{old}/correct", {"fact": {"diets": ["vegan"]}})
    assert fixed.status_code == 201, fixed.content
    assert patient.post(f"/v1/patients/{world.patient_a}/consents/{cid}/revoke").status_code == 200
    read = patient.get(f"{mem(world.patient_a)}/{old}").json()
    assert read["fact"] is None and "vegetarian" not in json.dumps(
        patient.get(f"{mem(world.patient_a)}/{old}/history").json())
    call_command("sweep_memories", verbosity=0)
    for memory_id in (old, fixed.json()["memory_id"]):
        assert patient.get(f"{mem(world.patient_a)}/{memory_id}").json()["state"] == "deleted"


@pytest.mark.parametrize("ref", ["ehr:AllergyIntolerance/991\u0000", "ehr:\u202e199/ecnarelotnIygrellA",
                                 "session:s1\u0008/turn:3"])
def test_a_source_reference_that_would_show_otherwise_than_it_holds_is_refused_and_nothing_written(world, ref):
    """A memory's source reference is shown to staff and the patient as its provenance: control characters and
    direction overrides are 422 ``unstorable_character``, from staff and agents alike."""
    nurse = nurse_with(world, "care_coordination")
    r = nurse.post(mem(world.patient_a), care_body(source_ref=ref))
    assert r.status_code == 422, r.content
    assert [(e["field"], e["code"]) for e in r.json()["errors"]] == [("source_ref", "unstorable_character")]
    cid = world.consent(world.patient_a)
    agent = Api(world.token(sub="booking-agent", act="booking-agent"))
    world.grant(world.patient_a, "booking-agent", "appointment_scheduling")
    r = agent.post(f"{mem(world.patient_a)}/proposals", {**memory_body(cid, "latest_time", "15:00"), "source_ref": ref})
    assert r.status_code == 422, r.content
    assert [(e["field"], e["code"]) for e in r.json()["errors"]] == [("source_ref", "unstorable_character")]
    with identity_context(Identity(org_id=world.org, actor_sub="auditor", scopes=frozenset({"memory:read"}))):
        assert not Memory.objects.exists()


def test_deleting_a_memory_deletes_the_proposals_waiting_with_its_value(world):
    """An agent's proposal of the value the patient then deletes is a copy of it: it goes with the deletion (in
    the receipt), so no later confirmation brings the value back; a proposal of another value stays."""
    cid = world.consent(world.patient_a)
    patient = world.patient(world.patient_a)
    stored = patient.post(mem(world.patient_a), memory_body(cid, "latest_time", "15:00")).json()
    agent = Api(world.token(sub="booking-agent", act="booking-agent"))
    world.grant(world.patient_a, "booking-agent", "appointment_scheduling")
    same, other = (agent.post(f"{mem(world.patient_a)}/proposals",
                              {**memory_body(cid, "latest_time", at), "source_ref": f"session:s1/turn:{n}"}).json()
                   for n, at in ((3, "15:00"), (4, "16:00")))
    assert same["state"] == other["state"] == "proposed", (same, other)
    r = _delete(patient, f"{mem(world.patient_a)}/{stored['memory_id']}")
    assert r.status_code == 200, r.content
    assert set(r.json()["memory_ids"]) == {stored["memory_id"], same["memory_id"]}
    waiting = patient.get(f"{mem(world.patient_a)}/proposals").json()["items"]
    assert [p["memory_id"] for p in waiting] == [other["memory_id"]]
    assert patient.post(f"{mem(world.patient_a)}/{same['memory_id']}/confirm").status_code == 404
    assert patient.get(mem(world.patient_a)).json()["items"] == []


def test_proposals_are_read_a_page_at_a_time_oldest_first(world):
    """The proposals list stopped nowhere: every waiting proposal was one answer. It is read as the other lists
    are: ``limit`` (1-500, default 100), ``next_cursor`` passed back as ``cursor`` (null on the last page), 422 on
    a cursor it never gave; oldest first, the order they wait for review in."""
    cid = world.consent(world.patient_a)
    world.grant(world.patient_a, "booking-agent", "appointment_scheduling")
    agent = Api(world.token(sub="booking-agent", act="booking-agent"))
    made = [agent.post(f"{mem(world.patient_a)}/proposals", memory_body(cid, "earliest_time", f"0{h}:00",
                                                                        source_ref=f"turn:{h}")).json()["memory_id"]
            for h in range(1, 6)]
    patient = world.patient(world.patient_a)
    proposals = f"{mem(world.patient_a)}/proposals"
    whole = patient.get(proposals).json()
    assert [p["memory_id"] for p in whole["items"]] == made and whole["next_cursor"] is None
    seen, cursor = [], None
    for size in (2, 2, 1):
        page = patient.get(proposals, {"limit": 2, **({"cursor": cursor} if cursor else {})}).json()
        assert len(page["items"]) == size
        seen += [p["memory_id"] for p in page["items"]]
        cursor = page["next_cursor"]
    assert seen == made and cursor is None
    assert patient.get(proposals, {"limit": 2, "purpose": "communication"}).json() == {"items": [],
                                                                                      "next_cursor": None}
    for bad in ({"cursor": "nonsense"}, {"limit": 0}, {"limit": 501}):
        r = patient.get(proposals, bad)
        assert r.status_code == 422 and r.json()["errors"][0]["field"] == next(iter(bad)), r.content


def test_an_agent_holds_a_bounded_number_of_proposals_waiting_for_one_patient(world, monkeypatch):
    """An agent could leave any number of proposals waiting: past the bound, another is 409 too_many_proposals and
    nothing is written; its identical proposal again is still answered with the waiting one, another agent or the
    patient still propose, and once one is reviewed the agent proposes again."""
    from memory import services

    monkeypatch.setattr(services, "MAX_PENDING_PROPOSALS_PER_PROPOSER", 3)
    cid = world.consent(world.patient_a)
    world.grant(world.patient_a, "booking-agent", "appointment_scheduling")
    agent = Api(world.token(sub="booking-agent", act="booking-agent"))
    proposals = f"{mem(world.patient_a)}/proposals"
    made = [agent.post(proposals, memory_body(cid, "earliest_time", f"0{h}:00", source_ref="turn:1")).json()
            for h in range(1, 4)]
    r = agent.post(proposals, memory_body(cid, "latest_time", "17:00", source_ref="turn:2"))
    assert r.status_code == 409 and r.json()["code"] == "too_many_proposals", r.content
    r = agent.post(mem(world.patient_a), memory_body(cid, "latest_time", "17:00"))  # its write is a proposal too
    assert r.status_code == 409 and r.json()["code"] == "too_many_proposals", r.content
    r = agent.post(proposals, memory_body(cid, "earliest_time", "01:00", source_ref="turn:3"))
    assert r.status_code == 200 and r.json()["memory_id"] == made[0]["memory_id"]
    patient = world.patient(world.patient_a)
    assert len(patient.get(proposals).json()["items"]) == 3
    r = patient.post(proposals, memory_body(cid, "latest_time", "16:00", source_ref="portal"))
    assert r.status_code == 201, r.content
    assert patient.post(f"{mem(world.patient_a)}/{made[0]['memory_id']}/reject").status_code == 200
    r = agent.post(proposals, memory_body(cid, "latest_time", "17:00", source_ref="turn:2"))
    assert r.status_code == 201, r.content


def test_history_shows_the_value_made_current_again_while_the_newer_one_is_set_aside(world):
    """Quarantining the current value makes the one it replaced current again, and that clears its superseded_by:
    the history of either hid the other (the quarantined value's history showed no current value at all). Both
    show both, the one current now reading active."""
    cid = world.consent(world.patient_a)
    patient = world.patient(world.patient_a)
    nurse = nurse_with(world, "appointment_scheduling")
    older = patient.post(mem(world.patient_a), memory_body(cid, time="10:00")).json()["memory_id"]
    newer = patient.post(mem(world.patient_a), memory_body(cid, time="10:30")).json()["memory_id"]
    assert nurse.post(f"{mem(world.patient_a)}/{newer}/quarantine", {"reason_code": "disputed"}).status_code == 200

    def versions(memory_id):
        history = patient.get(f"{mem(world.patient_a)}/{memory_id}/history").json()
        return [(v["memory_id"], v["state"]) for v in history["versions"]], history["events"]

    for memory_id in (newer, older):
        shown, events = versions(memory_id)
        assert shown == [(newer, "quarantined"), (older, "active")], memory_id
        assert {e["event_type"] for e in events} >= {"quarantined", "reinstated"}
    # released, the set-aside value supersedes the one made current again; a newer value supersedes it in turn
    assert nurse.post(f"{mem(world.patient_a)}/{newer}/release", {}).status_code == 200
    assert versions(older)[0] == [(newer, "active"), (older, "superseded")]
    latest = patient.post(mem(world.patient_a), memory_body(cid, time="11:00")).json()["memory_id"]
    assert versions(older)[0] == [(latest, "active"), (newer, "superseded"), (older, "superseded")]
    assert versions(latest)[0] == [(latest, "active"), (newer, "superseded"), (older, "superseded")]
