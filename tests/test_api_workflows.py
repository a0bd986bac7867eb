"""Workflow checkpoints: the server-owned transition table, optimistic versions, audit of every transition."""

from __future__ import annotations

import uuid

import pytest

pytestmark = pytest.mark.django_db


def create(api, patient_id, workflow_type="prior_authorization"):
    return api.post("/v1/workflows", {"workflow_type": workflow_type, "patient_id": str(patient_id)})


def checkpoint(api, workflow_id, version, step, patch=None):
    return api.post(f"/v1/workflows/{workflow_id}/checkpoint",
                    {"expected_version": version, "next_step": step, "state_patch": patch or {}})


def test_prior_authorization_happy_path(world):
    api = world.patient(world.patient_a)
    r = create(api, world.patient_a)
    assert r.status_code == 201, r.content
    wf = r.json()
    assert wf["current_step"] == "verify_referral" and wf["version"] == 1
    assert wf["allowed_next_steps"] == ["cancelled", "submit_prior_authorization"]
    steps = ["submit_prior_authorization", "needs_reconciliation", "await_insurer_decision", "completed"]
    version = 1
    for step in steps:
        r = checkpoint(api, wf["workflow_id"], version, step, {"last": step})
        assert r.status_code == 200, r.content
        body = r.json()
        assert body["current_step"] == step and body["version"] == version + 1
        version += 1
    body = api.get(f"/v1/workflows/{wf['workflow_id']}").json()
    assert body["terminal"] is True and body["state"] == {"last": "completed"}


def test_stale_version_is_409_version_conflict(world):
    api = world.patient(world.patient_a)
    wf = create(api, world.patient_a).json()
    assert checkpoint(api, wf["workflow_id"], 1, "submit_prior_authorization").status_code == 200
    r = checkpoint(api, wf["workflow_id"], 1, "await_insurer_decision")
    assert r.status_code == 409 and r.json()["code"] == "version_conflict"


def test_a_version_conflict_names_the_current_version_for_the_client_to_retry_with(world):
    """A stale checkpoint or operation request is told the workflow's version now, as a number
    (``current_version``), not only inside the message's text: an agent that lost the race reads it and retries
    with it, without parsing prose."""
    api = world.patient(world.patient_a)
    wf = create(api, world.patient_a).json()
    assert checkpoint(api, wf["workflow_id"], 1, "submit_prior_authorization").status_code == 200
    r = checkpoint(api, wf["workflow_id"], 1, "cancelled")
    assert (r.status_code, r.json()["code"], r.json()["current_version"]) == (409, "version_conflict", 2)
    op = api.post(f"/v1/workflows/{wf['workflow_id']}/operations", {
        "expected_version": 1, "kind": "submit_prior_authorization", "payload": {
            "referral_id": "REF-1", "diagnosis_code": "E11.9", "medication_code": "860975", "member_ref": "M-1"}})
    assert (op.status_code, op.json()["code"], op.json()["current_version"]) == (409, "version_conflict", 2)
    retried = checkpoint(api, wf["workflow_id"], r.json()["current_version"], "cancelled")
    assert retried.status_code == 200 and retried.json()["version"] == 3
    assert "current_version" not in checkpoint(api, wf["workflow_id"], 3, "completed").json()  # other conflicts


def test_illegal_transition_is_409_and_changes_nothing(world):
    api = world.patient(world.patient_a)
    wf = create(api, world.patient_a).json()
    r = checkpoint(api, wf["workflow_id"], 1, "completed", {"x": 1})
    assert r.status_code == 409 and r.json()["code"] == "illegal_transition"
    after = api.get(f"/v1/workflows/{wf['workflow_id']}").json()
    assert after["current_step"] == "verify_referral" and after["version"] == 1 and after["state"] == {}


def test_a_refused_move_names_the_step_and_the_allowed_steps_for_the_client_to_read(world):
    """An illegal transition answers the step the workflow is at (``current_step``) and the steps a checkpoint may
    take from it (``allowed_next_steps``, what a read of the workflow answers), and an operation asked for at the
    wrong step the step too, as members of the problem: they were only in the message's prose."""
    api = world.patient(world.patient_a)
    wf = create(api, world.patient_a).json()
    r = checkpoint(api, wf["workflow_id"], 1, "completed")
    assert (r.status_code, r.json()["code"]) == (409, "illegal_transition")
    assert r.json()["current_step"] == "verify_referral"
    assert r.json()["allowed_next_steps"] == wf["allowed_next_steps"] == ["cancelled", "submit_prior_authorization"]
    payload = {"referral_id": "REF-1", "diagnosis_code": "E11.9", "medication_code": "860975", "member_ref": "M-1"}
    op = api.post(f"/v1/workflows/{wf['workflow_id']}/operations", {
        "expected_version": 1, "kind": "submit_prior_authorization", "payload": payload})
    assert (op.status_code, op.json()["code"], op.json()["current_step"]) == (
        409, "operation_not_allowed", "verify_referral")
    assert "not at verify_referral" in op.json()["message"]
    # once the outbox is used, the steps its outcome leads to are left out, as the read leaves them out
    moved = checkpoint(api, wf["workflow_id"], 1, "submit_prior_authorization")
    queued = api.post(f"/v1/workflows/{wf['workflow_id']}/operations", {
        "expected_version": 2, "kind": "submit_prior_authorization", "payload": payload})
    assert moved.status_code == 200 and queued.status_code == 201, queued.content
    read = api.get(f"/v1/workflows/{wf['workflow_id']}").json()
    r = checkpoint(api, wf["workflow_id"], read["version"], "completed")
    assert (r.json()["current_step"], r.json()["allowed_next_steps"]) == (
        "submit_prior_authorization", read["allowed_next_steps"])


@pytest.mark.parametrize("patch", [
    {f"k{i}": i for i in range(21)},
    {"nested": {"a": 1}},
    {"list": [1, 2]},
    {"long": "x" * 1001},
    "not an object",
])
def test_state_patch_is_bounded_to_scalars(world, patch):
    api = world.patient(world.patient_a)
    wf = create(api, world.patient_a).json()
    r = api.post(f"/v1/workflows/{wf['workflow_id']}/checkpoint",
                 {"expected_version": 1, "next_step": "submit_prior_authorization", "state_patch": patch})
    assert r.status_code == 422 and r.json()["errors"][0]["field"].startswith("state_patch")
    assert api.get(f"/v1/workflows/{wf['workflow_id']}").json()["version"] == 1


def test_other_patients_and_organisations_get_404(world):
    wf = create(world.patient(world.patient_a), world.patient_a).json()
    missing = uuid.uuid4()
    for api in (world.patient(world.patient_b), world.staff("nurse-1"),
                world.patient(world.patient_a, org=world.other_org)):
        r = api.get(f"/v1/workflows/{wf['workflow_id']}")
        assert r.status_code == 404
        assert r.json() == {**api.get(f"/v1/workflows/{missing}").json(), "request_id": r.json()["request_id"]}
        r = checkpoint(api, wf["workflow_id"], 1, "submit_prior_authorization")
        assert r.status_code == 404


def test_staff_need_a_grant_for_the_workflow_purpose(world):
    nurse = world.staff("nurse-1")
    r = create(nurse, world.patient_a)
    assert r.status_code == 403 and r.json()["code"] == "no_active_consent_or_access"
    world.grant(world.patient_a, "nurse-1", "appointment_scheduling")
    assert create(nurse, world.patient_a).status_code == 403  # wrong purpose
    world.grant(world.patient_a, "nurse-1", "prior_authorization")
    wf = create(nurse, world.patient_a).json()
    assert checkpoint(nurse, wf["workflow_id"], 1, "submit_prior_authorization").status_code == 200
    booking = create(world.patient(world.patient_a), world.patient_a, "appointment_booking").json()
    assert nurse.get(f"/v1/workflows/{booking['workflow_id']}").status_code == 200  # scheduling grant


def test_unknown_workflow_type_is_422(world):
    r = create(world.patient(world.patient_a), world.patient_a, "teleport")
    assert r.status_code == 422 and r.json()["errors"][0]["field"] == "workflow_type"


@pytest.mark.parametrize("patient_id", [100001, 5.0, True, ["x"], {"id": 1}])
def test_a_patient_id_that_is_not_a_uuid_string_is_422(world, patient_id):
    """A number is not a patient id: it used to be read as the UUID with that value, and answered 403 about a
    patient nobody meant (no consent or access) instead of saying what is wrong with the request."""
    r = world.patient(world.patient_a).post("/v1/workflows", {"workflow_type": "prior_authorization",
                                                               "patient_id": patient_id})
    assert r.status_code == 422, r.content
    assert r.json()["errors"] == [{"field": "patient_id", "message": "Must be a valid UUID.", "code": "invalid"}]


def test_every_transition_is_audited(world):
    api = world.patient(world.patient_a)
    wf = create(api, world.patient_a).json()
    checkpoint(api, wf["workflow_id"], 1, "submit_prior_authorization")
    checkpoint(api, wf["workflow_id"], 1, "await_insurer_decision")  # stale: audited as a conflict
    events = api.get("/v1/audit-events", {"patient_id": str(world.patient_a)}).json()["items"]
    actions = [(e["action"], e["outcome"]) for e in events if e["resource_id"] == wf["workflow_id"]]
    assert ("workflow.create", "success") in actions
    assert ("workflow.checkpoint", "success") in actions
    assert ("workflow.checkpoint", "conflict") in actions
    from core.identity import ACTOR_PATIENT, Identity, identity_context
    from workflows.models import WorkflowTransition

    with identity_context(Identity(org_id=world.org, actor_sub="x", patient_self_id=world.patient_a,
                                   actor_kind=ACTOR_PATIENT)):
        history = list(WorkflowTransition.objects.filter(workflow_id=wf["workflow_id"]).order_by("version")
                       .values_list("from_step", "to_step", "version"))
    assert history == [(None, "verify_referral", 1), ("verify_referral", "submit_prior_authorization", 2)]
