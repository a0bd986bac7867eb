"""The review side of the memory lifecycle: proposals that wait (how long, and which count against a proposer's
bound), and a value made current again (reinstated while the newer one is quarantined) under the type's latest
version, as any current value is."""

from __future__ import annotations

import pytest

from tests.conftest import memory_body
from tests.support import Api

pytestmark = pytest.mark.django_db

TYPE_ADMIN = "memory_type:write memory:read"


def mem(pid) -> str:
    return f"/v1/patients/{pid}/memories"


def dressing_type(**changes) -> dict:
    definition = {
        "name": "dressing_change_preference", "memory_class": "preference", "label": "Dressing changes",
        "purposes": ["appointment_scheduling", "communication"], "writers": ["patient", "staff", "agent_proposal"],
        "supersession": [], "text": "Dressing changes: at {place}",
        "schema": {"type": "object", "additionalProperties": False, "required": ["place"], "properties": {
            "place": {"enum": ["home", "clinic"]}}},
    }
    definition.update(changes)
    return definition


def _current(api: Api, pid) -> list[tuple[str, str]]:
    return [(i["memory_id"], i["fact"]["place"]) for i in api.get(mem(pid)).json()["items"]]


def _setup(world):
    admin = world.staff("type-admin", scope=TYPE_ADMIN)
    assert admin.post("/v1/memory-types", dressing_type()).status_code == 201
    cid = world.consent(world.patient_a)
    patient = world.patient(world.patient_a)
    world.grant(world.patient_a, "nurse-1", "appointment_scheduling")
    nurse = world.staff("nurse-1")

    def record(place):
        r = patient.post(mem(world.patient_a), {"memory_type": "dressing_change_preference", "fact": {"place": place},
                                                "consent_purpose": "appointment_scheduling", "consent_record_id": cid})
        assert r.status_code == 201, r.content
        return r.json()["memory_id"]
    return admin, patient, nurse, record


def test_a_value_the_latest_revision_refuses_is_not_made_current_again_when_the_newer_is_quarantined(world):
    """A revision checks current values only, so a superseded value it refuses passed it; quarantining the value
    that replaced it used to make it current again unchecked (the type's latest version refusing a current
    value, which a correction then could not even keep). It stays superseded: the attribute has no current value
    while the newer one is set aside, and releasing that one brings it back."""
    admin, patient, nurse, record = _setup(world)
    home = record("home")
    clinic = record("clinic")
    revised = dressing_type(schema={"type": "object", "additionalProperties": False, "required": ["place"],
                                    "properties": {"place": {"enum": ["clinic", "pharmacy"]}}})
    r = admin.post("/v1/memory-types/dressing_change_preference/versions", revised)
    assert r.status_code == 201, r.content  # home is superseded: no current memory breaks

    r = nurse.post(f"{mem(world.patient_a)}/{clinic}/quarantine", {"reason_code": "disputed"})
    assert r.status_code == 200, r.content
    assert _current(patient, world.patient_a) == []
    read = patient.get(f"{mem(world.patient_a)}/{home}").json()
    assert (read["state"], read["superseded_by"]) == ("superseded", clinic)
    assert nurse.post(f"{mem(world.patient_a)}/{clinic}/release", {}).status_code == 200
    assert _current(patient, world.patient_a) == [(clinic, "clinic")]


def test_a_proposal_the_patient_has_since_overtaken_no_longer_counts_against_the_proposers_bound(world, monkeypatch):
    """A proposal made before its attribute's current value became current can only be rejected (confirming it is
    409 proposal_stale): it waits for nobody. It kept its place in the proposer's bound, so an agent whose
    suggestions the patient overtook by stating their own values was refused (409 too_many_proposals) until the
    patient rejected each one, or for good. Overtaken proposals stay listed, for the patient to reject, and hold no
    place; those still waiting do."""
    from memory import services

    monkeypatch.setattr(services, "MAX_PENDING_PROPOSALS_PER_PROPOSER", 2)
    cid = world.consent(world.patient_a)
    world.grant(world.patient_a, "booking-agent", "appointment_scheduling")
    agent = Api(world.token(sub="booking-agent", act="booking-agent"))
    proposals = f"{mem(world.patient_a)}/proposals"
    made = [agent.post(proposals, memory_body(cid, kind, "09:00" if kind == "earliest_time" else "17:00",
                                              source_ref="turn:1")) for kind in ("earliest_time", "latest_time")]
    assert [r.status_code for r in made] == [201, 201], made[0].content
    r = agent.post(proposals, {**memory_body(cid, source_ref="turn:2"),
                               "fact": {"kind": "excluded_days", "days": ["monday"]}})
    assert r.status_code == 409 and r.json()["code"] == "too_many_proposals", r.content

    patient = world.patient(world.patient_a)
    assert patient.post(mem(world.patient_a), memory_body(cid, "earliest_time", "10:00")).status_code == 201
    overtaken = made[0].json()["memory_id"]
    r = patient.post(f"{mem(world.patient_a)}/{overtaken}/confirm")
    assert r.status_code == 409 and r.json()["code"] == "proposal_stale"
    r = agent.post(proposals, {**memory_body(cid, source_ref="turn:2"),
                               "fact": {"kind": "excluded_days", "days": ["monday"]}})
    assert r.status_code == 201, r.content
    assert [p["memory_id"] for p in patient.get(proposals).json()["items"]] == [
        overtaken, made[1].json()["memory_id"], r.json()["memory_id"]]
    r = agent.post(proposals, {**memory_body(cid, source_ref="turn:3"),
                               "fact": {"kind": "excluded_periods", "periods": ["morning"]}})
    assert r.status_code == 409 and r.json()["code"] == "too_many_proposals", r.content


def test_a_proposal_nobody_reviews_lapses_after_the_documented_time_and_frees_its_place(world, monkeypatch,
                                                                                        settings):
    """A proposal waited for review as long as its type keeps a value (two years for a preference), holding its
    place in the proposer's bound all that time: an agent whose patient never opened the portal was refused for
    good. It waits MEMORY_PROPOSAL_LAPSE_DAYS (30); then it reads as expired, without its value, leaves the list
    and the bound, cannot be confirmed (409 not_proposed, saying it lapsed), and the sweep erases it with a
    receipt saying why. A proposal confirmed in time is kept for its type's retention from when it was written."""
    from django.core.management import call_command
    from django.db import connection

    from core.identity import Identity, identity_context
    from memory import services

    monkeypatch.setattr(services, "MAX_PENDING_PROPOSALS_PER_PROPOSER", 1)
    cid = world.consent(world.patient_a)
    world.grant(world.patient_a, "booking-agent", "appointment_scheduling")
    agent = Api(world.token(sub="booking-agent", act="booking-agent"))
    patient = world.patient(world.patient_a)
    proposals = f"{mem(world.patient_a)}/proposals"
    waiting = agent.post(proposals, memory_body(cid, "earliest_time", "09:00", source_ref="turn:1")).json()
    me = Identity(org_id=world.org, actor_sub="t", patient_self_id=world.patient_a)

    def expires_in_days(memory_id) -> float:
        with identity_context(me), connection.cursor() as cur:
            cur.execute("SELECT expires_at - created_at FROM patient_memory WHERE memory_id = %s", [memory_id])
            return cur.fetchone()[0].total_seconds() / 86400

    assert round(expires_in_days(waiting["memory_id"])) == settings.MEMORY_PROPOSAL_LAPSE_DAYS == 30
    with identity_context(me), connection.cursor() as cur:  # the clock moves 31 days on
        cur.execute("UPDATE patient_memory SET created_at = created_at - interval '31 days', valid_from = "
                    "valid_from - interval '31 days', expires_at = expires_at - interval '31 days', valid_until = "
                    "valid_until - interval '31 days' WHERE memory_id = %s", [waiting["memory_id"]])
    assert patient.get(proposals).json()["items"] == []
    read = patient.get(f"{mem(world.patient_a)}/{waiting['memory_id']}").json()
    assert (read["state"], read["fact"]) == ("expired", None)
    r = patient.post(f"{mem(world.patient_a)}/{waiting['memory_id']}/confirm")
    assert r.status_code == 409 and r.json()["code"] == "not_proposed" and "lapsed" in r.json()["message"]

    fresh = agent.post(proposals, memory_body(cid, "earliest_time", "09:00", source_ref="turn:2"))
    assert fresh.status_code == 201, fresh.content  # a new proposal, in the place the lapsed one left
    r = patient.post(f"{mem(world.patient_a)}/{fresh.json()['memory_id']}/confirm")
    assert r.status_code == 200, r.content
    assert expires_in_days(fresh.json()["memory_id"]) > 700  # a preference's retention, from when it was written

    call_command("sweep_memories")
    [receipt] = [d for d in patient.get(f"/v1/patients/{world.patient_a}/deletions").json()["items"]
                 if waiting["memory_id"] in d["memory_ids"]]
    assert receipt["reason_code"] == "proposal_lapsed"
    assert patient.get(f"{mem(world.patient_a)}/{waiting['memory_id']}").json()["state"] == "deleted"


def test_a_proposal_whose_validity_ended_unreviewed_lapses_and_is_in_no_other_values_history(world):
    """An agent's proposal whose validity ended before anyone reviewed it can never be confirmed. The sweep marked
    it expired, and the next value of its attribute then took it for an earlier value: linked to it, listed in its
    history as a version once on record, erased with it. Decided: it lapses as one nobody reviewed in time does;
    until the sweep it reads expired in its own history, without its value; the sweep erases it with a receipt
    (proposal_lapsed); it is in no other value's history."""
    from datetime import UTC, datetime, timedelta

    from django.core.management import call_command
    from django.db import connection

    from core.identity import Identity, identity_context

    cid = world.consent(world.patient_a)
    world.grant(world.patient_a, "booking-agent", "appointment_scheduling")
    agent = Api(world.token(sub="booking-agent", act="booking-agent"))
    patient = world.patient(world.patient_a)
    until = (datetime.now(UTC) + timedelta(days=2)).isoformat()
    proposal = agent.post(f"{mem(world.patient_a)}/proposals",
                          memory_body(cid, "earliest_time", "09:00", valid_until=until,
                                      source_ref="turn:1")).json()
    assert "memory_id" in proposal, proposal
    proposal = proposal["memory_id"]
    me = Identity(org_id=world.org, actor_sub="t", patient_self_id=world.patient_a)
    with identity_context(me), connection.cursor() as cur:  # the clock moves past its validity
        cur.execute("UPDATE patient_memory SET valid_from = now() - interval '3 days', "
                    "valid_until = now() - interval '1 second' WHERE memory_id = %s", [proposal])
    own = patient.get(f"{mem(world.patient_a)}/{proposal}/history").json()["versions"]
    assert [(v["memory_id"], v["state"]) for v in own] == [(proposal, "expired")]
    call_command("sweep_memories")
    [receipt] = [d for d in patient.get(f"/v1/patients/{world.patient_a}/deletions").json()["items"]
                 if proposal in d["memory_ids"]]
    assert receipt["reason_code"] == "proposal_lapsed"
    newer = patient.post(mem(world.patient_a), memory_body(cid, "earliest_time", "12:00")).json()["memory_id"]
    history = patient.get(f"{mem(world.patient_a)}/{newer}/history").json()
    assert [v["memory_id"] for v in history["versions"]] == [newer]
    assert {e["memory_id"] for e in history["events"]} == {newer}


def test_a_proposal_that_lapsed_unreviewed_does_not_block_a_revision_of_its_type(world):
    """A revision is refused when a current value of the type would not satisfy it. A proposal that lapsed
    unreviewed (or any value past its validity) reads as expired and can never become current, yet it counted
    until the sweep erased it: the administrator was refused over a memory nobody can see or confirm."""
    from django.db import connection

    from core.identity import Identity, identity_context

    admin, patient, nurse, record = _setup(world)
    cid = world.consent(world.patient_a)
    world.grant(world.patient_a, "booking-agent", "appointment_scheduling")
    agent = Api(world.token(sub="booking-agent", act="booking-agent"))
    lapsed = agent.post(f"{mem(world.patient_a)}/proposals", {
        "memory_type": "dressing_change_preference", "fact": {"place": "home"}, "source_ref": "turn:1",
        "consent_purpose": "appointment_scheduling", "consent_record_id": cid}).json()["memory_id"]
    me = Identity(org_id=world.org, actor_sub="t", patient_self_id=world.patient_a)
    with identity_context(me), connection.cursor() as cur:  # the clock moves past the proposal's lapse
        cur.execute("UPDATE patient_memory SET created_at = created_at - interval '31 days', valid_from = "
                    "valid_from - interval '31 days', expires_at = now() - interval '1 day' WHERE memory_id = %s",
                    [lapsed])
    revised = dressing_type(schema={"type": "object", "additionalProperties": False, "required": ["place"],
                                    "properties": {"place": {"enum": ["clinic"]}}})
    r = admin.post("/v1/memory-types/dressing_change_preference/versions", revised)
    assert r.status_code == 201, r.content
    assert patient.get(f"{mem(world.patient_a)}/{lapsed}").json()["state"] == "expired"
