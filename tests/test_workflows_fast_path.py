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


def test_a_plain_checkpoint_body_is_read_without_building_the_serializer(world, monkeypatch):
    """The usual checkpoint (a version, a step, a patch of plain values) is read without DRF's ``CheckpointIn``,
    whose fields, deep-copied from its declarations on every request, cost about 170 us of a checkpoint's 2 ms of
    worker CPU. A body with an operation, or one the serializer would refuse, still goes through it."""
    from workflows.api import CheckpointIn

    api = world.patient(world.patient_a)
    wf = create(api, world.patient_a)
    built = []
    get_fields = CheckpointIn.get_fields
    monkeypatch.setattr(CheckpointIn, "get_fields", lambda self: built.append(1) or get_fields(self))
    assert checkpoint(api, wf["workflow_id"], 1, SUBMIT, {"n": 1, "note": None})["version"] == 2
    assert built == []
    r = api.post(f"/v1/workflows/{wf['workflow_id']}/checkpoint", {"expected_version": "2", "next_step": SUBMIT})
    assert r.status_code == 422 and r.json()["code"] == "validation_error", r.content
    assert built


LONG = "x" * 1001
BODIES = [
    {"expected_version": 1, "next_step": "propose_slots"},
    {"expected_version": 7, "next_step": "collect_preferences", "state_patch": {}},
    {"expected_version": 2, "next_step": "propose_slots", "state_patch": {"a": 1, "b": 2.5, "c": True, "d": None,
                                                                          "e": "text", "f": ""}},
    {"expected_version": 2, "next_step": "propose_slots", "state_patch": {f"k{i}": i for i in range(20)}},
    {"expected_version": 2, "next_step": "propose_slots", "state_patch": {f"k{i}": i for i in range(21)}},
    {"expected_version": 2, "next_step": "propose_slots", "state_patch": {"k" * 64: "x" * 1000}},
    {"expected_version": 2, "next_step": "propose_slots", "state_patch": {"k" * 65: 1}},
    {"expected_version": 2, "next_step": "propose_slots", "state_patch": {"": 1}},
    {"expected_version": 2, "next_step": "propose_slots", "state_patch": {"a": LONG}},
    {"expected_version": 2, "next_step": "propose_slots", "state_patch": {"a": [1]}},
    {"expected_version": 2, "next_step": "propose_slots", "state_patch": {"a": {"b": 1}}},
    {"expected_version": 2, "next_step": "propose_slots", "state_patch": None},
    {"expected_version": 2, "next_step": "propose_slots", "state_patch": [1]},
    {"expected_version": 0, "next_step": "propose_slots"},
    {"expected_version": True, "next_step": "propose_slots"},
    {"expected_version": "2", "next_step": "propose_slots"},
    {"expected_version": 2.0, "next_step": "propose_slots"},
    {"expected_version": None, "next_step": "propose_slots"},
    {"next_step": "propose_slots"},
    {"expected_version": 2},
    {"expected_version": 2, "next_step": " propose_slots "},
    {"expected_version": 2, "next_step": ""},
    {"expected_version": 2, "next_step": 5},
    {"expected_version": 2, "next_step": "x" * 81},
    {"expected_version": 2, "next_step": "x" * 80},
    {"expected_version": 2, "next_step": "Propose-Slots"},
    {"expected_version": 2, "next_step": "propose_slots", "extra": 1},
    {"expected_version": 2, "next_step": "propose_slots", "request_operation": {"kind": "x", "payload": {}}},
    [1, 2],
    "text",
]


@pytest.mark.parametrize("body", BODIES)
def test_the_plain_reading_of_a_checkpoint_is_the_serializers(body):
    """What the plain reading takes, it reads exactly as ``CheckpointIn`` validates it; what it leaves (None), the
    serializer answers (a refusal, a trimmed step, an operation)."""
    from workflows.api import CheckpointIn, plain_checkpoint

    plain = plain_checkpoint(body)
    if plain is not None:
        drf = CheckpointIn(data=body)
        assert drf.is_valid(), drf.errors
        assert plain == dict(drf.validated_data)
        assert type(plain["state_patch"]) is dict


def test_the_plain_reading_takes_the_usual_bodies():
    from workflows.api import plain_checkpoint

    assert [plain_checkpoint(body) is not None for body in BODIES[:4]] == [True] * 4
    assert plain_checkpoint(BODIES[0]) == {"expected_version": 1, "next_step": "propose_slots", "state_patch": {}}
