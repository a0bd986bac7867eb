"""The checkpoint's fast path keeps every answer and record the ORM path gave: the same response bytes as
``WorkflowOut`` in every kind of state, one history row and one audit row per new version, and the shortcut for
workflows without operations never hides one."""

from __future__ import annotations

import pytest
from rest_framework.renderers import JSONRenderer

from core.identity import ACTOR_PATIENT, Identity, identity_context
from core.models import AuditEvent
from workflows import selectors
from workflows.api import WorkflowOut, workflow_body
from workflows.models import Workflow, WorkflowTransition

pytestmark = pytest.mark.django_db

PAYLOAD = {"referral_id": "REF-1", "diagnosis_code": "E11.9", "medication_code": "860975", "member_ref": "M-1"}
SUBMIT = "submit_prior_authorization"


def create(api, patient_id, workflow_type="prior_authorization"):
    r = api.post("/v1/workflows", {"workflow_type": workflow_type, "patient_id": str(patient_id)})
    assert r.status_code == 201, r.content
    return r.json()


def checkpoint(api, workflow_id, version, step, patch=None, operation=None):
    body = {"expected_version": version, "next_step": step, "state_patch": patch or {}}
    if operation is not None:
        body["request_operation"] = operation
    r = api.post(f"/v1/workflows/{workflow_id}/checkpoint", body)
    assert r.status_code == 200, r.content
    return r.json()


def both_renderings(world, workflow_id) -> tuple[bytes, bytes]:
    me = Identity(org_id=world.org, actor_sub=f"patient-{world.patient_a}", patient_self_id=world.patient_a,
                  actor_kind=ACTOR_PATIENT, scopes=frozenset({"workflow:read"}))
    with identity_context(me):
        workflow = Workflow.objects.get(workflow_id=workflow_id)
        resume = selectors.workflow_resume(identity=me, workflow=workflow)
        return (JSONRenderer().render(workflow_body(workflow, resume)),
                JSONRenderer().render(WorkflowOut(workflow, context={"resume": resume}).data))


def test_the_body_is_what_the_serializer_renders_in_every_kind_of_state(world):
    api = world.patient(world.patient_a)
    fresh = create(api, world.patient_a)["workflow_id"]
    moved = create(api, world.patient_a)["workflow_id"]
    checkpoint(api, moved, 1, SUBMIT, {"referral_verified": True, "note_ref": "R-1", "count": 2, "ok": None})
    pending = create(api, world.patient_a)["workflow_id"]
    checkpoint(api, pending, 1, SUBMIT, {"x": 1}, {"kind": SUBMIT, "payload": PAYLOAD})
    cancelled = create(api, world.patient_a)["workflow_id"]
    checkpoint(api, cancelled, 1, "cancelled")
    booking = create(api, world.patient_a, "appointment_booking")["workflow_id"]
    for workflow_id in (fresh, moved, pending, cancelled, booking):
        fast, serializer = both_renderings(world, workflow_id)
        assert fast == serializer


def test_a_checkpoint_answers_what_a_read_then_shows(world):
    api = world.patient(world.patient_a)
    wf = create(api, world.patient_a)["workflow_id"]
    answer = checkpoint(api, wf, 1, SUBMIT, {"referral_verified": True})
    assert answer == api.get(f"/v1/workflows/{wf}").json()
    other = create(api, world.patient_a)["workflow_id"]
    with_operation = checkpoint(api, other, 1, SUBMIT, {"x": True}, {"kind": SUBMIT, "payload": PAYLOAD})
    assert len(with_operation["pending_operations"]) == 1  # created in this very checkpoint: never hidden
    assert with_operation["next_safe_action"]["action"] == "wait_for_operation"
    assert with_operation == api.get(f"/v1/workflows/{other}").json()


def test_every_version_has_its_history_row_and_audit_row(world):
    api = world.patient(world.patient_a)
    wf = create(api, world.patient_a)["workflow_id"]
    version = 1
    for step in (SUBMIT, "needs_reconciliation", "await_insurer_decision"):
        version = checkpoint(api, wf, version, step, {"at": step})["version"]
    me = Identity(org_id=world.org, actor_sub=f"patient-{world.patient_a}", patient_self_id=world.patient_a,
                  actor_kind=ACTOR_PATIENT)
    with identity_context(me):
        history = list(WorkflowTransition.objects.filter(workflow_id=wf).order_by("version")
                       .values_list("version", "from_step", "to_step", "actor_sub"))
        audits = AuditEvent.objects.filter(action="workflow.checkpoint", resource_id=str(wf)).count()
    actor = f"patient-{world.patient_a}"
    assert history == [(1, None, "verify_referral", actor), (2, "verify_referral", SUBMIT, actor),
                       (3, SUBMIT, "needs_reconciliation", actor),
                       (4, "needs_reconciliation", "await_insurer_decision", actor)]
    assert audits == 3


def test_the_audit_row_names_the_workflows_patient_and_purpose_for_patients_and_staff(world):
    api = world.patient(world.patient_a)
    wf = create(api, world.patient_a)["workflow_id"]
    checkpoint(api, wf, 1, SUBMIT)
    world.grant(world.patient_a, "nurse-1", "prior_authorization")
    checkpoint(world.staff("nurse-1"), wf, 2, "needs_reconciliation")
    me = Identity(org_id=world.org, actor_sub="x", patient_self_id=world.patient_a, actor_kind=ACTOR_PATIENT)
    with identity_context(me):
        rows = list(AuditEvent.objects.filter(action="workflow.checkpoint", resource_id=wf).order_by("occurred_at")
                    .values_list("patient_id", "purpose", "actor_sub", "outcome"))
    assert rows == [(world.patient_a, "prior_authorization", f"patient-{world.patient_a}", "success"),
                    (world.patient_a, "prior_authorization", "nurse-1", "success")]


def test_a_full_state_refuses_a_new_key_and_writes_nothing(world):
    api = world.patient(world.patient_a)
    wf = create(api, world.patient_a, "appointment_booking")["workflow_id"]
    version, steps = 1, ["propose_slots", "collect_preferences"]
    for i in range(10):  # 20 new keys each: the state's 200
        version = checkpoint(api, wf, version, steps[i % 2], {f"k{i}_{j}": j for j in range(20)})["version"]
    r = api.post(f"/v1/workflows/{wf}/checkpoint",
                 {"expected_version": version, "next_step": steps[0], "state_patch": {"one_more": 1}})
    assert r.status_code == 422 and r.json()["errors"][0]["code"] == "state_too_large"
    after = api.get(f"/v1/workflows/{wf}").json()
    assert after["version"] == version and "one_more" not in after["state"]
    # changing keys it already has is still a checkpoint
    assert checkpoint(api, wf, version, steps[0], {"k0_0": "changed"})["state"]["k0_0"] == "changed"
    me = Identity(org_id=world.org, actor_sub="x", patient_self_id=world.patient_a, actor_kind=ACTOR_PATIENT)
    with identity_context(me):
        assert WorkflowTransition.objects.filter(workflow_id=wf).count() == version + 1
        assert AuditEvent.objects.filter(action="workflow.checkpoint", resource_id=wf,
                                         outcome="success").count() == version
