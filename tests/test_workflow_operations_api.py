"""Operations through the HTTP API: the transactional outbox, idempotent requests, resume, staff's reconciliation
queue, and the invariants the database keeps on the outbox."""

from __future__ import annotations

import uuid
from datetime import timedelta

import pytest
from django.db import IntegrityError, connection, transaction
from django.utils import timezone

from agents_mcp.tools import input_schema
from consent.models import AccessGrant, ConsentRecord
from core.identity import ACTOR_PATIENT, Identity, identity_context
from tests.support import PATIENT_SCOPES, Api, mint
from workflows.models import Operation, WorkflowTransition

pytestmark = pytest.mark.django_db

PAYLOAD = {"referral_id": "REF-1", "diagnosis_code": "E11.9", "medication_code": "860975", "member_ref": "M-1"}
BOOKING = {"slot_id": "SLOT-9", "appointment_type": "follow_up"}
SUBMIT = "submit_prior_authorization"


def create(api, patient_id, workflow_type="prior_authorization"):
    r = api.post("/v1/workflows", {"workflow_type": workflow_type, "patient_id": str(patient_id)})
    assert r.status_code == 201, r.content
    return r.json()


def checkpoint(api, workflow_id, version, step, patch=None, operation=None):
    body = {"expected_version": version, "next_step": step, "state_patch": patch or {}}
    if operation is not None:
        body["request_operation"] = operation
    return api.post(f"/v1/workflows/{workflow_id}/checkpoint", body)


def request_op(api, workflow_id, version, payload=None, kind=SUBMIT, key=None):
    headers = {"Idempotency-Key": key} if key else None
    return api.post(f"/v1/workflows/{workflow_id}/operations",
                    {"expected_version": version, "kind": kind, "payload": payload or PAYLOAD}, headers=headers)


def at_submit_step(api, patient_id):
    """A prior-authorisation workflow whose referral is verified, at the submission step, with no operation."""
    wf = create(api, patient_id)
    r = checkpoint(api, wf["workflow_id"], 1, SUBMIT, {"referral_verified": True})
    assert r.status_code == 200, r.content
    return r.json()


def as_patient(org, pid) -> Identity:
    return Identity(org_id=org, actor_sub=f"patient-{pid}", patient_self_id=pid, actor_kind=ACTOR_PATIENT)


# --- the outbox: a checkpoint and its operation commit together ---------------------------------------------
def test_checkpoint_with_request_operation_stores_step_and_operation_together(world):
    api = world.patient(world.patient_a)
    wf = create(api, world.patient_a)
    r = checkpoint(api, wf["workflow_id"], 1, SUBMIT, {"referral_verified": True},
                   {"kind": SUBMIT, "payload": PAYLOAD})
    assert r.status_code == 200, r.content
    body = r.json()
    assert body["current_step"] == SUBMIT and body["version"] == 2
    [op] = body["pending_operations"]
    assert op["kind"] == SUBMIT and op["system"] == "insurer" and op["status"] == "pending"
    assert op["idempotency_key"] == f"anamnesis-{op['operation_id']}" and len(op["payload_hash"]) == 64
    assert "payload" not in op
    assert body["next_safe_action"]["action"] == "wait_for_operation"
    assert body["next_safe_action"]["operation_id"] == op["operation_id"]
    with identity_context(as_patient(world.org, world.patient_a)):
        last = WorkflowTransition.objects.filter(workflow_id=wf["workflow_id"]).order_by("-version").first()
    assert (last.version, last.to_step, str(last.operation_id)) == (2, SUBMIT, op["operation_id"])


def test_operation_not_allowed_at_the_new_step_refuses_the_whole_checkpoint(world):
    api = world.patient(world.patient_a)
    wf = create(api, world.patient_a)
    r = checkpoint(api, wf["workflow_id"], 1, "cancelled", operation={"kind": SUBMIT, "payload": PAYLOAD})
    assert r.status_code == 409 and r.json()["code"] == "operation_not_allowed"
    after = api.get(f"/v1/workflows/{wf['workflow_id']}").json()
    assert after["version"] == 1 and after["current_step"] == "verify_referral"
    assert api.get(f"/v1/workflows/{wf['workflow_id']}/operations").json()["items"] == []


def test_an_operation_of_another_workflow_type_is_422(world):
    api = world.patient(world.patient_a)
    wf = create(api, world.patient_a)
    r = checkpoint(api, wf["workflow_id"], 1, SUBMIT, operation={"kind": "book_appointment", "payload": BOOKING})
    assert r.status_code == 422 and r.json()["errors"][0]["field"] == "kind"


@pytest.mark.parametrize("payload, field", [
    ({**PAYLOAD, "diagnosis_code": "not a code"}, "payload.diagnosis_code"),
    ({**PAYLOAD, "note": "patient says she is pregnant"}, "payload.note"),
    ({k: v for k, v in PAYLOAD.items() if k != "member_ref"}, "payload.member_ref"),
])
def test_payloads_are_typed_per_kind(world, payload, field):
    api = world.patient(world.patient_a)
    wf = at_submit_step(api, world.patient_a)
    r = request_op(api, wf["workflow_id"], 2, payload)
    assert r.status_code == 422, r.content
    assert r.json()["errors"][0]["field"] == field


# --- idempotent requests ------------------------------------------------------------------------------------
def test_the_same_request_twice_returns_the_same_operation(world):
    api = world.patient(world.patient_a)
    wf = at_submit_step(api, world.patient_a)
    first = request_op(api, wf["workflow_id"], 2)
    assert first.status_code == 201, first.content
    again = request_op(api, wf["workflow_id"], 2)  # the same body, even with the version now stale
    assert again.status_code == 200 and again.headers["Idempotent-Replayed"] == "true"
    assert again.json()["operation_id"] == first.json()["operation_id"]
    assert again.json()["idempotency_key"] == first.json()["idempotency_key"]
    assert len(api.get(f"/v1/workflows/{wf['workflow_id']}/operations").json()["items"]) == 1
    body = api.get(f"/v1/workflows/{wf['workflow_id']}").json()
    assert body["version"] == 3  # the request wrote one new version (same step), the replay none


def test_the_same_idempotency_key_with_other_data_is_409(world):
    api = world.patient(world.patient_a)
    wf = at_submit_step(api, world.patient_a)
    assert request_op(api, wf["workflow_id"], 2, key="agent-req-1").status_code == 201
    assert request_op(api, wf["workflow_id"], 3, key="agent-req-1").status_code == 200
    r = request_op(api, wf["workflow_id"], 3, {**PAYLOAD, "medication_code": "197361"}, key="agent-req-1")
    assert r.status_code == 409 and r.json()["code"] == "idempotency_key_reused"


def test_changed_data_while_an_operation_is_unsettled_is_409(world):
    api = world.patient(world.patient_a)
    wf = at_submit_step(api, world.patient_a)
    assert request_op(api, wf["workflow_id"], 2).status_code == 201
    r = request_op(api, wf["workflow_id"], 3, {**PAYLOAD, "medication_code": "197361"})
    assert r.status_code == 409 and r.json()["code"] == "operation_in_progress"


def test_a_stale_writer_is_rejected(world):
    api = world.patient(world.patient_a)
    wf = at_submit_step(api, world.patient_a)
    r = request_op(api, wf["workflow_id"], 1)
    assert r.status_code == 409 and r.json()["code"] == "version_conflict"


def test_a_malformed_idempotency_key_is_422(world):
    api = world.patient(world.patient_a)
    wf = at_submit_step(api, world.patient_a)
    r = request_op(api, wf["workflow_id"], 2, key="has spaces and ümlauts")
    assert r.status_code == 422 and r.json()["errors"][0]["field"] == "Idempotency-Key"


def test_while_an_operation_is_unsettled_only_cancel_moves_the_workflow(world):
    api = world.patient(world.patient_a)
    wf = at_submit_step(api, world.patient_a)
    op = request_op(api, wf["workflow_id"], 2).json()
    r = checkpoint(api, wf["workflow_id"], 3, "await_insurer_decision")
    assert r.status_code == 409 and r.json()["code"] == "operation_in_progress"
    r = checkpoint(api, wf["workflow_id"], 3, "cancelled")
    assert r.status_code == 200 and r.json()["next_safe_action"]["action"] == "none"
    [item] = api.get(f"/v1/workflows/{wf['workflow_id']}/operations").json()["items"]
    assert item["operation_id"] == op["operation_id"]
    assert item["status"] == "cancelled" and item["last_error_code"] == "workflow_cancelled"


def test_resume_after_a_lost_response_points_at_the_pending_operation(world):
    """An agent that crashed after asking reloads the workflow: the step is past the referral, the operation is
    there, and the next safe action is to wait, never to verify the referral or resubmit."""
    api = world.patient(world.patient_a)
    wf = create(api, world.patient_a)
    checkpoint(api, wf["workflow_id"], 1, SUBMIT, {"referral_verified": True}, {"kind": SUBMIT, "payload": PAYLOAD})
    retry = checkpoint(api, wf["workflow_id"], 1, SUBMIT, {"referral_verified": True},
                       {"kind": SUBMIT, "payload": PAYLOAD})
    assert retry.status_code == 409 and retry.json()["code"] == "version_conflict"
    body = api.get(f"/v1/workflows/{wf['workflow_id']}").json()
    assert body["current_step"] == SUBMIT and "verify_referral" not in body["allowed_next_steps"]
    assert body["state"] == {"referral_verified": True}
    assert len(body["pending_operations"]) == 1
    assert body["next_safe_action"]["action"] == "wait_for_operation"


def test_next_safe_action_asks_for_the_operation_when_none_was_requested(world):
    api = world.patient(world.patient_a)
    wf = at_submit_step(api, world.patient_a)
    action = api.get(f"/v1/workflows/{wf['workflow_id']}").json()["next_safe_action"]
    assert action["action"] == "request_operation" and action["operation_kind"] == SUBMIT
    booking = create(api, world.patient_a, "appointment_booking")
    action = api.get(f"/v1/workflows/{booking['workflow_id']}").json()["next_safe_action"]
    assert action["action"] == "checkpoint" and action["allowed_next_steps"] == ["cancelled", "propose_slots"]


def test_appointment_booking_queues_a_booking_at_confirm_booking(world):
    api = world.patient(world.patient_a)
    wf = create(api, world.patient_a, "appointment_booking")
    assert checkpoint(api, wf["workflow_id"], 1, "propose_slots").status_code == 200
    r = checkpoint(api, wf["workflow_id"], 2, "confirm_booking",
                   operation={"kind": "book_appointment", "payload": BOOKING})
    assert r.status_code == 200, r.content
    [op] = r.json()["pending_operations"]
    assert op["kind"] == "book_appointment" and op["system"] == "scheduling"


# --- access -------------------------------------------------------------------------------------------------
def test_operations_of_other_patients_and_organisations_are_404(world):
    api = world.patient(world.patient_a)
    wf = at_submit_step(api, world.patient_a)
    op = request_op(api, wf["workflow_id"], 2).json()
    missing = uuid.uuid4()
    for other in (world.patient(world.patient_b), world.staff("nurse-1"),
                  world.patient(world.patient_a, org=world.other_org)):
        for r, ref in (
            (other.get(f"/v1/workflows/{wf['workflow_id']}/operations"),
             other.get(f"/v1/workflows/{missing}/operations")),
            (request_op(other, wf["workflow_id"], 3), request_op(other, missing, 3)),
            (other.post(f"/v1/workflows/{wf['workflow_id']}/operations/{op['operation_id']}/retry"),
             other.post(f"/v1/workflows/{missing}/operations/{missing}/retry")),
        ):
            assert r.status_code == 404
            assert {**r.json(), "request_id": None} == {**ref.json(), "request_id": None}


def test_reading_operations_needs_workflow_read_and_requesting_needs_workflow_write(world):
    wf = at_submit_step(world.patient(world.patient_a), world.patient_a)
    read_only = world.patient(world.patient_a, scope="workflow:read")
    assert read_only.get(f"/v1/workflows/{wf['workflow_id']}/operations").status_code == 200
    r = request_op(read_only, wf["workflow_id"], 2)
    assert r.status_code == 403 and r.json()["code"] == "insufficient_scope"


def test_staff_with_a_grant_request_operations_and_are_audited(world):
    world.consent(world.patient_a, "prior_authorization")
    nurse = world.staff("nurse-1")
    world.grant(world.patient_a, "nurse-1", "prior_authorization")
    wf = at_submit_step(nurse, world.patient_a)
    assert request_op(nurse, wf["workflow_id"], 2).status_code == 201
    events = world.patient(world.patient_a).get("/v1/audit-events",
                                                {"patient_id": str(world.patient_a)}).json()["items"]
    assert ("workflow.operation.request", "nurse-1", "success") in {
        (e["action"], e["actor_sub"], e["outcome"]) for e in events}


@pytest.mark.parametrize("lapse", ["consent_revoked", "consent_expired"])
def test_staff_queue_nothing_new_once_the_patient_withdrew_her_consent_or_it_ran_out(world, lapse):
    """The patient withdrew her consent for prior authorisation (or it ran out): a nurse holding a grant for her
    asks for a new submission, by a checkpoint or a request, and is refused 403 with the lapse as its code; nothing
    is written (the workflow keeps its version, no operation). Staff queued one the moment after a withdrawal had
    withdrawn the others. The patient in person still may, and a consent given again lets staff ask again."""
    purpose = "prior_authorization"
    consent = world.consent(world.patient_a, purpose)
    world.grant(world.patient_a, "nurse-1", purpose)
    nurse = world.staff("nurse-1")
    wf = create(nurse, world.patient_a)
    if lapse == "consent_revoked":
        r = world.patient(world.patient_a).post(f"/v1/patients/{world.patient_a}/consents/{consent}/revoke")
        assert r.status_code == 200
    else:  # it ran out: nothing marks that moment
        past = timezone.now() - timedelta(minutes=1)
        with identity_context(as_patient(world.org, world.patient_a)):
            ConsentRecord.objects.filter(pk=consent).update(granted_at=past - timedelta(days=1), expires_at=past)
    r = checkpoint(nurse, wf["workflow_id"], 1, SUBMIT, {"referral_verified": True},
                   {"kind": SUBMIT, "payload": PAYLOAD})
    assert r.status_code == 403 and r.json()["code"] == lapse, r.content
    assert checkpoint(nurse, wf["workflow_id"], 1, SUBMIT, {"referral_verified": True}).status_code == 200
    r = request_op(nurse, wf["workflow_id"], 2)
    assert r.status_code == 403 and r.json()["code"] == lapse, r.content
    body = nurse.get(f"/v1/workflows/{wf['workflow_id']}").json()
    assert body["version"] == 2 and body["pending_operations"] == []
    assert nurse.get(f"/v1/workflows/{wf['workflow_id']}/operations").json()["items"] == []
    mine = at_submit_step(world.patient(world.patient_a), world.patient_a)
    assert request_op(world.patient(world.patient_a), mine["workflow_id"], 2).status_code == 201
    world.consent(world.patient_a, purpose)  # given again
    assert request_op(nurse, wf["workflow_id"], 2).status_code == 201


def test_staff_queue_nothing_for_a_patient_who_never_gave_consent_for_the_purpose(world):
    """The patient never consented to prior authorisation (not withdrawn, not run out: never given). A nurse
    holding a grant for her used to queue a submission all the same, by a checkpoint or a request, and the worker
    sent it. Now both are refused 403 no_active_consent_or_access naming the purpose, nothing is written; once the
    patient consents, the same request queues it. The patient in person still may without one."""
    purpose = "prior_authorization"
    world.consent(world.patient_a, "appointment_scheduling")  # a consent for another purpose counts for nothing
    world.grant(world.patient_a, "nurse-1", purpose)
    nurse = world.staff("nurse-1")
    wf = create(nurse, world.patient_a)
    r = checkpoint(nurse, wf["workflow_id"], 1, SUBMIT, {"referral_verified": True},
                   {"kind": SUBMIT, "payload": PAYLOAD})
    assert r.status_code == 403 and r.json()["code"] == "no_active_consent_or_access", r.content
    assert purpose in r.json()["message"]
    assert checkpoint(nurse, wf["workflow_id"], 1, SUBMIT, {"referral_verified": True}).status_code == 200
    r = request_op(nurse, wf["workflow_id"], 2)
    assert r.status_code == 403 and r.json()["code"] == "no_active_consent_or_access", r.content
    body = nurse.get(f"/v1/workflows/{wf['workflow_id']}").json()
    assert body["version"] == 2 and body["pending_operations"] == []
    assert nurse.get(f"/v1/workflows/{wf['workflow_id']}/operations").json()["items"] == []
    mine = at_submit_step(world.patient(world.patient_a), world.patient_a)
    assert request_op(world.patient(world.patient_a), mine["workflow_id"], 2).status_code == 201
    world.consent(world.patient_a, purpose)
    assert request_op(nurse, wf["workflow_id"], 2).status_code == 201


def test_a_read_shows_an_operation_whose_consent_ran_out_as_the_worker_will_treat_it(world):
    """A nurse queued a submission; then the patient's consent for prior authorisation ran out. Nothing marks that
    moment, and the read showed the submission queued ("pending", in pending_operations, waiting for the worker)
    until the worker next ran. The workflow's read and its operations' list show it as it will be treated:
    cancelled, consent_expired, and no longer pending; nothing is written or sent by reading."""
    purpose = "prior_authorization"
    consent = world.consent(world.patient_a, purpose)
    world.grant(world.patient_a, "nurse-1", purpose)
    nurse = world.staff("nurse-1")
    wf = at_submit_step(nurse, world.patient_a)
    op = request_op(nurse, wf["workflow_id"], 2).json()
    assert op["status"] == "pending"
    with identity_context(as_patient(world.org, world.patient_a)):  # it runs out after the request
        ConsentRecord.objects.filter(pk=consent).update(expires_at=timezone.now())
    for reader in (nurse, world.patient(world.patient_a)):
        body = reader.get(f"/v1/workflows/{wf['workflow_id']}").json()
        assert body["pending_operations"] == [], body
        assert body["next_safe_action"]["action"] != "wait_for_operation"
        ops = reader.get(f"/v1/workflows/{wf['workflow_id']}/operations").json()["items"]
        assert [(o["operation_id"], o["status"], o["last_error_code"]) for o in ops] == [
            (op["operation_id"], "cancelled", "consent_expired")]
    with identity_context(as_patient(world.org, world.patient_a)):
        assert Operation.objects.get(pk=op["operation_id"]).status == "pending"  # the worker's to write


def test_an_operation_whose_consent_ran_out_does_not_hold_up_the_next_request(world):
    """A nurse's submission was queued; the patient's consent ran out before the worker took it, and she gave a new
    one. The read shows the old submission cancelled (consent_expired), but asking for it again was refused 409
    operation_in_progress (the row still said pending, until the worker ran). Asking again now withdraws the old one
    (cancelled, consent_expired, audited) and queues the new one, under the new consent."""
    purpose = "prior_authorization"
    consent = world.consent(world.patient_a, purpose)
    world.grant(world.patient_a, "nurse-1", purpose)
    nurse = world.staff("nurse-1")
    wf = at_submit_step(nurse, world.patient_a)
    old = request_op(nurse, wf["workflow_id"], 2).json()
    with identity_context(as_patient(world.org, world.patient_a)):
        ConsentRecord.objects.filter(pk=consent).update(expires_at=timezone.now())
    world.consent(world.patient_a, purpose)  # given again
    r = request_op(nurse, wf["workflow_id"], 3)
    assert r.status_code == 201, r.content
    assert r.json()["operation_id"] != old["operation_id"] and r.json()["status"] == "pending"
    with identity_context(as_patient(world.org, world.patient_a)):
        row = Operation.objects.values_list("status", "last_error_code").get(pk=old["operation_id"])
    assert row == ("cancelled", "consent_expired")


@pytest.mark.parametrize("ending", ["revoked", "expired"])
def test_a_staff_members_grant_ending_leaves_the_operations_they_asked_for_queued(world, ending):
    """What a nurse asked for the patient's care under her consent is the organisation's, not the nurse's: revoking
    the nurse's grant (or its running out) stops the nurse reading or asking for more, but the queued submission
    stays queued, not withdrawn, and the patient and other staff see it so; the patient's withdrawal of her consent
    is what withdraws it."""
    purpose = "prior_authorization"
    consent = world.consent(world.patient_a, purpose)
    grant = world.grant(world.patient_a, "nurse-1", purpose)
    nurse = world.staff("nurse-1")
    wf = at_submit_step(nurse, world.patient_a)
    op = request_op(nurse, wf["workflow_id"], 2).json()
    if ending == "revoked":
        r = world.admin().post(f"/v1/grants/{grant['grant_id']}/revoke", {"reason": "moved to another ward"})
        assert r.status_code == 200, r.content
    else:  # it ran out (the clock moved on; grants are never changed so through the API)
        with identity_context(Identity(org_id=world.org, actor_sub="org-admin", scopes=frozenset({"grant:write"}))):
            AccessGrant.objects.filter(pk=grant["grant_id"]).update(expires_at=timezone.now() - timedelta(minutes=1))
    assert nurse.get(f"/v1/workflows/{wf['workflow_id']}").status_code == 404
    me = world.patient(world.patient_a)
    body = me.get(f"/v1/workflows/{wf['workflow_id']}").json()
    assert [(o["operation_id"], o["status"]) for o in body["pending_operations"]] == [(op["operation_id"], "pending")]
    with identity_context(as_patient(world.org, world.patient_a)):
        row = Operation.objects.values_list("status", "withdrawn_reason").get(pk=op["operation_id"])
    assert row == ("pending", None)
    assert me.post(f"/v1/patients/{world.patient_a}/consents/{consent}/revoke").status_code == 200
    ops = me.get(f"/v1/workflows/{wf['workflow_id']}/operations").json()["items"]
    assert [(o["status"], o["last_error_code"]) for o in ops] == [("cancelled", "consent_revoked")]


def test_an_agents_stored_answers_are_not_given_again_once_the_consent_ran_out(world):
    """The patient's agent created a booking workflow, checkpointed it (with its state) and asked for the booking,
    each under an Idempotency-Key. Her consent for scheduling then ran out: a fresh read of the workflow is refused
    (403 purpose_not_permitted), but a retry with the same key and body answered the stored workflow, state and all,
    200. Such a retry is 409 idempotent_response_withdrawn, as after a withdrawal (an operation's request, replayed by
    the service after reading the workflow, was already refused as the read is); the patient's own are replayed."""
    consent = world.consent(world.patient_a)
    agent = Api(mint(world.keyring, sub=f"patient-{world.patient_a}", org_id=world.org, patient_id=world.patient_a,
                     scope=PATIENT_SCOPES, act="scheduling-agent"))
    create_body = {"workflow_type": "appointment_booking", "patient_id": str(world.patient_a)}
    wf = agent.post("/v1/workflows", create_body, headers={"Idempotency-Key": "c-1"}).json()
    step = {"expected_version": 1, "next_step": "propose_slots", "state_patch": {"day": "Thursday"}}
    path = f"/v1/workflows/{wf['workflow_id']}"
    assert agent.post(f"{path}/checkpoint", step, headers={"Idempotency-Key": "c-2"}).status_code == 200
    assert checkpoint(agent, wf["workflow_id"], 2, "confirm_booking").status_code == 200
    booking = {"expected_version": 3, "kind": "book_appointment", "payload": BOOKING}
    assert agent.post(f"{path}/operations", booking, headers={"Idempotency-Key": "c-3"}).status_code == 201
    me = world.patient(world.patient_a)
    mine = me.post("/v1/workflows", create_body, headers={"Idempotency-Key": "m-1"})
    assert mine.status_code == 201
    past = timezone.now() - timedelta(minutes=1)
    with identity_context(as_patient(world.org, world.patient_a)):
        ConsentRecord.objects.filter(pk=consent).update(granted_at=past - timedelta(days=1), expires_at=past)
    r = agent.get(path)
    assert r.status_code == 403 and r.json()["code"] == "purpose_not_permitted"
    for url, body, key in (("/v1/workflows", create_body, "c-1"), (f"{path}/checkpoint", step, "c-2")):
        r = agent.post(url, body, headers={"Idempotency-Key": key})
        assert r.status_code == 409 and r.json()["code"] == "idempotent_response_withdrawn", (url, r.content)
        assert "Thursday" not in r.content.decode()
    r = agent.post(f"{path}/operations", booking, headers={"Idempotency-Key": "c-3"})  # replayed by the service,
    assert r.status_code == 403 and r.json()["code"] == "purpose_not_permitted"  # which reads the workflow first
    r = me.post("/v1/workflows", create_body, headers={"Idempotency-Key": "m-1"})
    assert r.status_code == 201 and r["Idempotent-Replayed"] == "true"


def test_retry_is_only_for_parked_operations(world):
    """Retrying is staff's, checked first: the patient (or an agent) is 403 staff_only whatever the operation's
    status (they were told 409 operation_not_retryable until it was parked, as if they could retry it then);
    staff are told the operation is not retryable."""
    api = world.patient(world.patient_a)
    wf = at_submit_step(api, world.patient_a)
    op = request_op(api, wf["workflow_id"], 2).json()
    r = api.post(f"/v1/workflows/{wf['workflow_id']}/operations/{op['operation_id']}/retry")
    assert r.status_code == 403 and r.json()["code"] == "staff_only"  # never the patient's, whatever its status
    world.grant(world.patient_a, "ops-1", "prior_authorization")
    staff = world.staff("ops-1", scope="workflow:read workflow:write")
    r = staff.post(f"/v1/workflows/{wf['workflow_id']}/operations/{op['operation_id']}/retry")
    assert r.status_code == 409 and r.json()["code"] == "operation_not_retryable"


# --- staff: the reconciliation queue ------------------------------------------------------------------------
def _stuck(world, patient_id, org=None):
    """A workflow moved into needs_reconciliation by hand (no operation)."""
    api = world.patient(patient_id, org=org)
    wf = at_submit_step(api, patient_id)
    r = checkpoint(api, wf["workflow_id"], 2, "needs_reconciliation", {"secret_note": "x"})
    assert r.status_code == 200
    return wf["workflow_id"]


def test_an_operation_records_and_shows_what_kind_of_caller_asked_for_it(world):
    """The patient in person, an AI agent acting for a patient, and staff each ask for an operation: each operation
    says which kind of caller asked (requested_by_kind), in the list, a workflow's pending operations and the
    answer to the request. Nothing said who had asked: an agent's request read as the patient's own."""
    patient_c = uuid.uuid4()
    world.consent(world.patient_b, "prior_authorization")
    world.consent(patient_c, "prior_authorization")
    world.grant(patient_c, "nurse-1", "prior_authorization")
    agent = Api(mint(world.keyring, sub=f"patient-{world.patient_b}", org_id=world.org, patient_id=world.patient_b,
                     scope=PATIENT_SCOPES, act="prior-auth-agent"))
    callers = [("patient", world.patient(world.patient_a), world.patient_a), ("agent", agent, world.patient_b),
               ("staff", world.staff("nurse-1"), patient_c)]
    for kind, api, patient_id in callers:
        wf = at_submit_step(api, patient_id)
        r = request_op(api, wf["workflow_id"], 2)
        assert r.status_code == 201, r.content
        assert r.json()["requested_by_kind"] == kind
        listed = api.get(f"/v1/workflows/{wf['workflow_id']}/operations").json()["items"]
        assert [op["requested_by_kind"] for op in listed] == [kind]
        pending = api.get(f"/v1/workflows/{wf['workflow_id']}").json()["pending_operations"]
        assert [op["requested_by_kind"] for op in pending] == [kind]


def test_reconciliation_queue_shows_the_organisation_without_state(world):
    stuck_a = _stuck(world, world.patient_a)
    stuck_b = _stuck(world, world.patient_b)
    _stuck(world, world.patient_a, org=world.other_org)
    at_submit_step(world.patient(world.patient_a), world.patient_a)  # not stuck
    # no grant for either patient: the organisation-wide view needs its own scope, and says so
    ops = world.staff("ops-1", scope="workflow:reconcile workflow:reconcile:org")
    r = ops.get("/v1/workflows/reconciliation")
    assert r.status_code == 200, r.content
    assert r.json()["view"] == "organization"
    items = r.json()["items"]
    assert {i["workflow_id"] for i in items} == {stuck_a, stuck_b}
    assert all("state" not in i and i["current_step"] == "needs_reconciliation" for i in items)
    assert all(i["operation_id"] is None and i["parked"] is False for i in items)
    # the queue shows no more than that: the workflows themselves stay behind the access rule
    assert ops.get(f"/v1/workflows/{stuck_a}").status_code == 403  # insufficient_scope: workflow:read missing
    reader = world.staff("ops-1", scope="workflow:read workflow:reconcile workflow:reconcile:org")
    assert reader.get(f"/v1/workflows/{stuck_a}").status_code == 404


def test_the_reconciliation_queue_says_which_items_the_caller_may_act_on(world):
    """The organisation's queue lists every stuck workflow, but acting on one (resolve, retry, checkpoint) needs a grant
    for its patient and purpose: a reconciler without one saw items whose every action answered 404, with nothing
    saying why. Each item says whether the caller may act on it (can_act) and why not (cannot_act_reason); acting
    without a grant stays the 404 of a workflow that does not exist, body for body."""
    stuck = _stuck(world, world.patient_a)
    api = world.patient(world.patient_b)
    wf = at_submit_step(api, world.patient_b)
    op = request_op(api, wf["workflow_id"], 2).json()  # patient B's operation: the caller holds no grant for her
    scopes = "workflow:read workflow:write workflow:reconcile workflow:reconcile:org"
    ops = world.staff("ops-1", scope=scopes)
    world.grant(world.patient_a, "ops-1", "prior_authorization")
    items = {i["workflow_id"]: i for i in ops.get("/v1/workflows/reconciliation").json()["items"]}
    assert (items[stuck]["can_act"], items[stuck]["cannot_act_reason"]) == (True, None)
    reader = world.staff("ops-1", scope="workflow:read workflow:reconcile workflow:reconcile:org")
    [item] = reader.get("/v1/workflows/reconciliation").json()["items"]
    assert (item["can_act"], item["cannot_act_reason"]) == (False, "missing_scope_workflow_write")
    stuck_b = _stuck(world, world.patient_b)
    items = {i["workflow_id"]: i for i in ops.get("/v1/workflows/reconciliation").json()["items"]}
    assert (items[stuck_b]["can_act"], items[stuck_b]["cannot_act_reason"]) == (False, "no_grant_for_patient")
    body = {"expected_version": 3, "outcome": "not_sent"}
    refused = ops.post(f"/v1/workflows/{wf['workflow_id']}/operations/{op['operation_id']}/resolve", body)
    missing = ops.post(f"/v1/workflows/{uuid.uuid4()}/operations/{uuid.uuid4()}/resolve", body)
    assert refused.status_code == missing.status_code == 404
    assert {k: v for k, v in refused.json().items() if k != "request_id"} == {
        k: v for k, v in missing.json().items() if k != "request_id"}
    retried = ops.post(f"/v1/workflows/{wf['workflow_id']}/operations/{op['operation_id']}/retry")
    assert retried.status_code == 404 and retried.json()["code"] == "not_found"


def test_the_reconciliation_queue_is_read_a_page_at_a_time(world):
    """The queue gave its oldest items up to limit (at most 500) and no way to the rest: its answer's next_cursor,
    passed as cursor, gives the items after them, oldest first, each once; a cursor it did not give is 422."""
    stuck = {_stuck(world, world.patient_a), _stuck(world, world.patient_b), _stuck(world, world.patient_a)}
    ops = world.staff("ops-1", scope="workflow:reconcile workflow:reconcile:org")
    whole = ops.get("/v1/workflows/reconciliation").json()
    assert {i["workflow_id"] for i in whole["items"]} == stuck and whole["next_cursor"] is None
    first = ops.get("/v1/workflows/reconciliation", {"limit": 2}).json()
    assert len(first["items"]) == 2 and first["next_cursor"]
    rest = ops.get("/v1/workflows/reconciliation", {"limit": 2, "cursor": first["next_cursor"]}).json()
    assert rest["next_cursor"] is None
    assert [i["workflow_id"] for i in first["items"] + rest["items"]] == [i["workflow_id"] for i in whole["items"]]
    r = ops.get("/v1/workflows/reconciliation", {"cursor": "not-a-cursor"})
    assert r.status_code == 422 and r.json()["errors"][0]["field"] == "cursor"


def test_reconciliation_queue_without_the_organisation_scope_shows_granted_patients_and_purposes_only(world):
    stuck_a = _stuck(world, world.patient_a)  # prior_authorization
    _stuck(world, world.patient_b)
    ops = world.staff("ops-1", scope="workflow:reconcile")
    r = ops.get("/v1/workflows/reconciliation")
    assert r.status_code == 200 and r.json() == {"view": "granted_patients", "items": [], "next_cursor": None}
    world.grant(world.patient_a, "ops-1", "appointment_scheduling")  # another purpose: still nothing
    assert ops.get("/v1/workflows/reconciliation").json()["items"] == []
    world.grant(world.patient_a, "ops-1", "prior_authorization")
    assert [i["workflow_id"] for i in ops.get("/v1/workflows/reconciliation").json()["items"]] == [stuck_a]
    # the database's rule agrees: through the view, without the organisation scope, only granted rows
    me = Identity(org_id=world.org, actor_sub="ops-1", scopes=frozenset({"workflow:reconcile"}))
    with identity_context(me), connection.cursor() as cursor:
        cursor.execute("SELECT workflow_id FROM workflow_reconciliation_queue")
        assert [str(w) for (w,) in cursor.fetchall()] == [stuck_a]


def test_reconciliation_queue_is_for_staff_with_the_scope(world):
    _stuck(world, world.patient_a)
    r = world.staff("nurse-1").get("/v1/workflows/reconciliation")
    assert r.status_code == 403 and r.json()["code"] == "insufficient_scope"
    patient = world.patient(world.patient_a, scope="workflow:read workflow:reconcile")
    r = patient.get("/v1/workflows/reconciliation")
    assert r.status_code == 403 and r.json()["code"] == "forbidden"
    other_org = world.staff("ops-1", org=world.other_org, scope="workflow:reconcile")
    assert other_org.get("/v1/workflows/reconciliation").json()["items"] == []
    for limit in ("0", "501", "+5", "\u0665"):  # ASCII digits only: int() reads the last two as 5
        r = world.staff("ops-1", scope="workflow:reconcile").get("/v1/workflows/reconciliation", {"limit": limit})
        assert r.status_code == 422 and r.json()["errors"] == [
            {"field": "limit", "message": "an integer from 1 to 500", "code": "invalid"}], limit


# --- invariants the database keeps --------------------------------------------------------------------------
def _operation(world):
    api = world.patient(world.patient_a)
    wf = at_submit_step(api, world.patient_a)
    return request_op(api, wf["workflow_id"], 2).json()


@pytest.mark.parametrize("change", [
    {"payload": {**PAYLOAD, "medication_code": "197361"}},
    {"payload_hash": "0" * 64},
    {"idempotency_key": "anamnesis-something-else"},
    {"patient_id": uuid.uuid4()},
    {"requested_by_kind": "staff"},  # an agent's request never passes for someone else's
    {"requested_by_kind": None},
])
def test_the_key_payload_and_scope_of_an_operation_never_change(world, change):
    op = _operation(world)
    with identity_context(as_patient(world.org, world.patient_a)):
        with pytest.raises(IntegrityError), transaction.atomic():
            Operation.objects.filter(pk=op["operation_id"]).update(**change)


@pytest.mark.parametrize("undo", [None, "patient_erasure"])
def test_a_withdrawal_is_never_undone(world, undo):
    """A withdrawn operation is only asked after, never sent again: its withdrawal stays (the guard)."""
    op = _operation(world)
    with identity_context(as_patient(world.org, world.patient_a)):
        Operation.objects.filter(pk=op["operation_id"]).update(status="outcome_unknown", outcome_uncertain=True,
                                                               withdrawn_reason="consent_revoked")
        with pytest.raises(IntegrityError), transaction.atomic():
            Operation.objects.filter(pk=op["operation_id"]).update(withdrawn_reason=undo)


def test_an_unknown_outcome_cannot_be_forgotten(world):
    op = _operation(world)
    with identity_context(as_patient(world.org, world.patient_a)):
        Operation.objects.filter(pk=op["operation_id"]).update(status="outcome_unknown", outcome_uncertain=True)
        with pytest.raises(IntegrityError), transaction.atomic():  # the check constraint
            Operation.objects.filter(pk=op["operation_id"]).update(status="pending")
        with pytest.raises(IntegrityError), transaction.atomic():  # the trigger
            Operation.objects.filter(pk=op["operation_id"]).update(status="pending", outcome_uncertain=False)
        with pytest.raises(IntegrityError), transaction.atomic():
            Operation.objects.filter(pk=op["operation_id"]).update(status="cancelled", outcome_uncertain=False)


def test_a_settled_operation_is_final(world):
    op = _operation(world)
    with identity_context(as_patient(world.org, world.patient_a)):
        from django.utils import timezone

        Operation.objects.filter(pk=op["operation_id"]).update(
            status="succeeded", result={"authorization_id": "PA-1"}, completed_at=timezone.now())
        with pytest.raises(IntegrityError), transaction.atomic():
            Operation.objects.filter(pk=op["operation_id"]).update(result={"authorization_id": "PA-2"})


def test_the_outbox_is_behind_row_level_security_and_the_dispatch_view_hides_payloads(world):
    op = _operation(world)
    with connection.cursor() as cur:
        cur.execute("SELECT relname, relrowsecurity, relforcerowsecurity FROM pg_class "
                    "WHERE relname IN ('workflow_operation', 'workflow_circuit') ORDER BY relname")
        assert cur.fetchall() == [("workflow_circuit", True, True), ("workflow_operation", True, True)]
        cur.execute("SELECT has_table_privilege('workflow_operation', 'DELETE'), "
                    "has_table_privilege('workflow_operation', 'TRUNCATE'), "
                    "has_table_privilege('workflow_operation_dispatch', 'INSERT'), "
                    "has_column_privilege('workflow_operation_dispatch', 'status', 'UPDATE'), "
                    "has_table_privilege('workflow_reconciliation_queue', 'UPDATE')")
        assert cur.fetchone() == (False, False, False, True, False)
        cur.execute("SELECT column_name FROM information_schema.columns "
                    "WHERE table_name = 'workflow_operation_dispatch'")
        assert {"payload", "result", "idempotency_key", "payload_hash"}.isdisjoint({r[0] for r in cur.fetchall()})
        # no context: nothing; the worker setting alone opens the view (ids only), never the table
        cur.execute("SELECT count(*) FROM workflow_operation_dispatch WHERE operation_id = %s", [op["operation_id"]])
        assert cur.fetchone()[0] == 0
        cur.execute("SELECT set_config('app.worker', 'test', true)")
        cur.execute("SELECT count(*) FROM workflow_operation WHERE operation_id = %s", [op["operation_id"]])
        assert cur.fetchone()[0] == 0
        cur.execute("SELECT count(*) FROM workflow_operation_dispatch WHERE operation_id = %s", [op["operation_id"]])
        assert cur.fetchone()[0] == 1
        cur.execute("SELECT set_config('app.worker', '', true)")


# --- degraded: the database goes away mid-request -------------------------------------------------------------
def test_a_database_outage_mid_checkpoint_is_503_and_stores_nothing(world, monkeypatch):
    from django.db import OperationalError

    from workflows import services

    api = world.patient(world.patient_a)
    wf = create(api, world.patient_a)

    def outage(**kwargs):
        raise OperationalError("server closed the connection unexpectedly")

    monkeypatch.setattr(services, "_insert_operation", outage)  # after the workflow row is locked and checked
    r = checkpoint(api, wf["workflow_id"], 1, SUBMIT, {"referral_verified": True},
                   {"kind": SUBMIT, "payload": PAYLOAD})
    assert r.status_code == 503 and r.json()["code"] == "service_unavailable"
    monkeypatch.undo()
    after = api.get(f"/v1/workflows/{wf['workflow_id']}").json()
    assert (after["version"], after["current_step"], after["state"]) == (1, "verify_referral", {})
    assert api.get(f"/v1/workflows/{wf['workflow_id']}/operations").json()["items"] == []
    # the agent retries the very same checkpoint once the database is back, and it goes through
    assert checkpoint(api, wf["workflow_id"], 1, SUBMIT, {"referral_verified": True},
                      {"kind": SUBMIT, "payload": PAYLOAD}).status_code == 200


def test_an_id_the_client_wrote_before_using_the_outbox_is_cleared_when_the_operation_is_asked_for(world):
    """A client that talked to the insurer itself may have checkpointed an authorization_id. Once it asks the
    outbox for a submission, that id is cleared in the same version: the insurer's answer writes it (or nothing
    does, if it refuses), and a stale id never stands beside an outcome it did not come from."""
    world.consent(world.patient_a, purpose="prior_authorization")
    api = world.patient(world.patient_a)
    wf = create(api, world.patient_a)
    r = checkpoint(api, wf["workflow_id"], 1, SUBMIT, {"referral_verified": True, "authorization_id": "PA-ELSEWHERE"})
    assert r.status_code == 200 and r.json()["state"]["authorization_id"] == "PA-ELSEWHERE", r.content
    asked = request_op(api, wf["workflow_id"], 2)
    assert asked.status_code == 201, asked.content
    read = api.get(f"/v1/workflows/{wf['workflow_id']}").json()
    assert read["state"].get("authorization_id") is None and read["state"]["referral_verified"] is True
    # the same in the checkpoint that asks for it
    other = create(api, world.patient_a)
    r = checkpoint(api, other["workflow_id"], 1, SUBMIT, {"authorization_id": "PA-ELSEWHERE"},
                   {"kind": SUBMIT, "payload": PAYLOAD})
    assert r.status_code == 422 and r.json()["errors"][0]["field"] == "state_patch.authorization_id"


def test_a_workflows_operations_are_read_a_page_at_a_time_past_the_newest_100(world):
    """The list stopped at the newest 100 operations with nothing saying so: an agent resuming a long workflow never
    saw the older ones. Pages of `limit` (default 100) follow next_cursor to the oldest, over REST and as the
    list_operations tool's arguments."""
    api = world.patient(world.patient_a)
    wf = at_submit_step(api, world.patient_a)
    assert request_op(api, wf["workflow_id"], 2).status_code == 201
    with identity_context(as_patient(world.org, world.patient_a)):
        first = Operation.objects.get(workflow_id=wf["workflow_id"])
        Operation.objects.bulk_create([Operation(
            organization_id=first.organization_id, patient_id=first.patient_id, purpose=first.purpose,
            workflow_id=first.workflow_id, kind=first.kind, system=first.system, idempotency_key=f"older-{i}",
            payload=first.payload, payload_hash=first.payload_hash, status="cancelled",
            attempt_limit=first.attempt_limit, requested_by=first.requested_by,
            requested_at_version=first.requested_at_version,
            completed_at=first.created_at) for i in range(104)])
    url = f"/v1/workflows/{wf['workflow_id']}/operations"
    page = api.get(url).json()
    assert len(page["items"]) == 100 and page["next_cursor"]
    rest = api.get(url, {"cursor": page["next_cursor"]}).json()
    assert len(rest["items"]) == 5 and rest["next_cursor"] is None
    ids = [op["operation_id"] for op in page["items"] + rest["items"]]
    assert len(set(ids)) == 105 and str(first.operation_id) in ids
    assert len(api.get(url, {"limit": 500}).json()["items"]) == 105
    r = api.get(url, {"cursor": "older"})
    assert r.status_code == 422 and [e["field"] for e in r.json()["errors"]] == ["cursor"]
    assert {"limit", "cursor"} <= set(input_schema("list_operations")["properties"])


def test_the_workflow_sweep_settles_operations_whose_consent_ran_out_as_the_send_would(world):
    """The patient's consent for prior authorisation ran out after a nurse queued a submission and another one was
    parked with an unknown outcome. Nothing marks that moment, and only the worker's send settled them: the parked
    one, never claimed again, stayed in the rows (and the reconciliation queue) as if asked for under a consent in
    force. ``manage.py sweep_workflows`` settles them as the send would: the unsent one cancelled with
    consent_expired, the parked one withdrawn (only asked after), each audited; another patient's, whose consent
    stands, is untouched; a second run finds nothing (idempotent)."""
    from django.core.management import call_command

    from core.models import AuditEvent
    from workflows.retention import workflow_sweep

    purpose = "prior_authorization"
    consent = world.consent(world.patient_a, purpose)
    world.consent(world.patient_b, purpose)
    world.grant(world.patient_a, "nurse-1", purpose)
    nurse = world.staff("nurse-1")
    queued = request_op(nurse, at_submit_step(nurse, world.patient_a)["workflow_id"], 2).json()
    parked = request_op(nurse, at_submit_step(nurse, world.patient_a)["workflow_id"], 2).json()
    bob = world.patient(world.patient_b)
    other = request_op(bob, at_submit_step(bob, world.patient_b)["workflow_id"], 2).json()
    with identity_context(as_patient(world.org, world.patient_a)):
        Operation.objects.filter(pk=parked["operation_id"]).update(status="outcome_unknown", outcome_uncertain=True)
        ConsentRecord.objects.filter(pk=consent).update(expires_at=timezone.now())
    call_command("sweep_workflows")
    with identity_context(as_patient(world.org, world.patient_a)):
        rows = {str(op.pk): (op.status, op.last_error_code, op.withdrawn_reason) for op in Operation.objects.all()}
        audited = set(AuditEvent.objects.filter(resource_type="workflow_operation", reason="consent_expired")
                      .values_list("action", "resource_id"))
    assert rows == {queued["operation_id"]: ("cancelled", "consent_expired", None),
                    parked["operation_id"]: ("outcome_unknown", None, "consent_expired")}
    assert {(a, str(r)) for a, r in audited} == {("workflow.operation.cancel", queued["operation_id"]),
                                                 ("workflow.operation.withdraw", parked["operation_id"])}
    with identity_context(as_patient(world.org, world.patient_b)):
        assert Operation.objects.get(pk=other["operation_id"]).status == "pending"
    assert workflow_sweep()["operations_lapsed"] == 0
