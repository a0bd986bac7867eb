"""What must be shown with real processes and real commits: ``manage.py run_worker`` runs as its own process
against this test database and a fake insurer over real HTTP, and is SIGKILLed where it hurts most.

* the seed's dangerous case: the insurer accepts, the response is lost; after resume exactly one authorisation
  exists at the insurer and the workflow holds its id;
* crash recovery: killed between claiming, sending and recording (and in the middle of the call), a restarted
  worker completes every operation exactly once at the insurer, none is lost;
* two workers at once never send an operation twice;
* duplicate requests create one operation; concurrent checkpoint writers get one success and 409s.
"""

from __future__ import annotations

import json
import threading
import time
from datetime import UTC, datetime

import pytest
from django.conf import settings
from django.db import connections

from core.identity import ACTOR_PATIENT, Identity, identity_context
from tests.conftest import admin_connect, done_or_waiting_for_a_lock, race_with_erasure, run_into
from tests.fakes.outside import FakeOutsideSystem
from tests.fakes.processes import WorkerProcess, run_worker, wait_until, worker_env
from workflows.models import WorkflowTransition

pytestmark = pytest.mark.slow

PAYLOAD = {"referral_id": "REF-1", "diagnosis_code": "E11.9", "medication_code": "860975", "member_ref": "M-1"}
SUBMIT = "submit_prior_authorization"


@pytest.fixture
def insurer():
    fake = FakeOutsideSystem("insurer")
    yield fake
    fake.stop()


@pytest.fixture(autouse=True)
def closed_circuits():
    with admin_connect() as conn:
        conn.execute("UPDATE workflow_circuit SET state = 'closed', consecutive_failures = 0, opened_at = NULL, "
                     "open_until = NULL")


def env_for(insurer: FakeOutsideSystem, **extra) -> dict[str, str]:
    return worker_env(db_name=settings.DB_TOPOLOGY.runtime.name, settings_module="config.settings_test",
                      insurer_url=insurer.url, extra={k: str(v) for k, v in extra.items()})


def submit_workflow(world, patient_id=None) -> tuple[str, dict]:
    patient_id = patient_id or world.patient_a
    api = world.patient(patient_id)
    wf = api.post("/v1/workflows", {"workflow_type": "prior_authorization", "patient_id": str(patient_id)}).json()
    r = api.post(f"/v1/workflows/{wf['workflow_id']}/checkpoint", {
        "expected_version": 1, "next_step": SUBMIT, "state_patch": {"referral_verified": True},
        "request_operation": {"kind": SUBMIT, "payload": PAYLOAD}})
    assert r.status_code == 200, r.content
    return wf["workflow_id"], r.json()["pending_operations"][0]


def read(world, workflow_id) -> dict:
    r = world.patient(world.patient_a).get(f"/v1/workflows/{workflow_id}")
    assert r.status_code == 200
    return r.json()


def wait_for_leases_to_end() -> None:
    with admin_connect() as conn:
        latest = conn.execute("SELECT max(claimed_until) FROM workflow_operation WHERE status = 'in_flight'"
                              ).fetchone()[0]
    if latest is not None:
        time.sleep(max(0.0, (latest - datetime.now(UTC)).total_seconds()) + 0.1)


def assert_each_completed_exactly_once(world, insurer, workflows: list[tuple[str, dict]]) -> None:
    assert insurer.created == len(workflows)
    for workflow_id, op in workflows:
        key = op["idempotency_key"]
        assert insurer.submissions[key] == 1, (key, insurer.submissions[key])
        body = read(world, workflow_id)
        assert body["current_step"] == "await_insurer_decision", body
        assert body["state"]["authorization_id"] == insurer.record_for(key)["authorization_id"]
        assert body["pending_operations"] == []


def test_accepted_then_lost_response_ends_with_exactly_one_authorisation(committed_db, world, insurer):
    workflow_id, op = submit_workflow(world)
    insurer.accept_then_time_out(times=1, hang=5)
    run_worker(env_for(insurer), "--once")

    body = read(world, workflow_id)  # the agent comes back
    assert body["current_step"] == "needs_reconciliation" and insurer.created == 1
    assert body["next_safe_action"]["action"] == "wait_for_reconciliation"
    assert body["pending_operations"][0]["status"] == "outcome_unknown"
    api = world.patient(world.patient_a)
    again = api.post(f"/v1/workflows/{workflow_id}/operations",
                     {"expected_version": body["version"], "kind": SUBMIT, "payload": PAYLOAD})
    assert again.status_code == 200 and again.json()["operation_id"] == op["operation_id"]  # not a second one
    changed = api.post(f"/v1/workflows/{workflow_id}/operations", {
        "expected_version": body["version"], "kind": SUBMIT, "payload": {**PAYLOAD, "medication_code": "197361"}})
    assert changed.status_code == 409 and changed.json()["code"] == "operation_in_progress"

    time.sleep(0.3)  # the backoff (at most WORKFLOW_RETRY_MAX_SECONDS=0.2 here)
    run_worker(env_for(insurer), "--until-idle")
    body = read(world, workflow_id)
    record = insurer.record_for(op["idempotency_key"])
    assert body["current_step"] == "await_insurer_decision"
    assert body["state"]["authorization_id"] == record["authorization_id"]
    assert insurer.created == 1 and insurer.submissions[op["idempotency_key"]] == 1
    assert insurer.lookups[op["idempotency_key"]] == 1


@pytest.mark.parametrize("point", ["claim_uncommitted", "claimed", "sent", "recorded"])
def test_a_worker_killed_at_each_point_loses_nothing_and_sends_nothing_twice(committed_db, world, insurer, point):
    workflows = [submit_workflow(world) for _ in range(3)]
    victim = WorkerProcess(env_for(insurer, WORKFLOW_WORKER_PAUSE_AT=point), "--until-idle")
    try:
        victim.wait_paused()
    finally:
        victim.kill()
    seen_before_restart = insurer.created
    assert seen_before_restart == (1 if point in ("sent", "recorded") else 0)
    wait_for_leases_to_end()
    survivor = run_worker(env_for(insurer), "--until-idle", "--stats-json")
    assert_each_completed_exactly_once(world, insurer, workflows)
    stats = json.loads(survivor.lines[-1])
    assert stats["succeeded"] == (2 if point == "recorded" else 3)
    if point == "sent":  # the request had landed: the restarted worker asked, and adopted the answer
        first_key = workflows[0][1]["idempotency_key"]
        assert insurer.lookups[first_key] == 1


def test_a_worker_killed_during_the_call_loses_nothing(committed_db, world, insurer):
    """Killed while the insurer holds the request (accepted, not yet answered): no response ever arrives."""
    workflows = [submit_workflow(world)]
    insurer.accept_then_time_out(times=1, hang=30)
    slow = {"WORKFLOW_HTTP_READ_TIMEOUT_SECONDS": 1.0, "WORKFLOW_OPERATION_LEASE_SECONDS": 6.0}
    victim = WorkerProcess(env_for(insurer, **slow), "--until-idle")
    try:
        assert insurer.in_hang.wait(30), victim.describe()
    finally:
        victim.kill()
    assert insurer.created == 1
    insurer.normal()
    wait_for_leases_to_end()
    run_worker(env_for(insurer, **slow), "--until-idle")
    assert_each_completed_exactly_once(world, insurer, workflows)


def test_two_workers_at_once_send_every_operation_exactly_once(committed_db, world, insurer):
    workflows = [submit_workflow(world) for _ in range(24)]
    env = env_for(insurer, WORKFLOW_WORKER_BATCH_SIZE=4)
    workers = [WorkerProcess(env, "--until-idle", "--stats-json") for _ in range(2)]
    for w in workers:
        assert w.wait(60) == 0, w.describe()
    stats = [json.loads(w.lines[-1]) for w in workers]
    assert sum(s["succeeded"] for s in stats) == 24 and all(s["lost_claims"] == 0 for s in stats)
    assert_each_completed_exactly_once(world, insurer, workflows)


def test_a_worker_stops_cleanly_on_sigterm(committed_db, world, insurer):
    submit_workflow(world)
    w = WorkerProcess(env_for(insurer), "--max-seconds", "30")
    wait_until(lambda: insurer.created == 1, timeout=30, message="the submission")
    assert w.terminate() == 0, w.describe()


# --- duplicate and concurrent writers through the HTTP API -----------------------------------------------------
def _concurrently(n: int, call) -> list:
    barrier = threading.Barrier(n)
    results: list = []

    def run():
        try:
            barrier.wait(timeout=10)
            results.append(call())
        finally:
            connections.close_all()

    threads = [threading.Thread(target=run) for _ in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=30)
    return results


@pytest.mark.parametrize("key", [None, "agent-request-7"])
def test_the_same_request_sent_concurrently_creates_one_operation(committed_db, world, key):
    api = world.patient(world.patient_a)
    wf = api.post("/v1/workflows", {"workflow_type": "prior_authorization",
                                    "patient_id": str(world.patient_a)}).json()
    api.post(f"/v1/workflows/{wf['workflow_id']}/checkpoint", {"expected_version": 1, "next_step": SUBMIT})
    headers = {"Idempotency-Key": key} if key else None

    def call():
        r = world.patient(world.patient_a).post(f"/v1/workflows/{wf['workflow_id']}/operations",
                                                {"expected_version": 2, "kind": SUBMIT, "payload": PAYLOAD},
                                                headers=headers)
        return r.status_code, r.json().get("operation_id")

    results = _concurrently(6, call)
    assert sorted(s for s, _ in results) == [200, 200, 200, 200, 200, 201]
    assert len({op for _, op in results}) == 1
    items = api.get(f"/v1/workflows/{wf['workflow_id']}/operations").json()["items"]
    assert len(items) == 1


def test_concurrent_checkpoints_asking_for_an_operation_get_one_success_and_409s(committed_db, world):
    api = world.patient(world.patient_a)
    wf = api.post("/v1/workflows", {"workflow_type": "prior_authorization",
                                    "patient_id": str(world.patient_a)}).json()

    def call():
        return world.patient(world.patient_a).post(f"/v1/workflows/{wf['workflow_id']}/checkpoint", {
            "expected_version": 1, "next_step": SUBMIT, "request_operation": {"kind": SUBMIT, "payload": PAYLOAD},
        }).status_code

    assert sorted(_concurrently(5, call)) == [200, 409, 409, 409, 409]
    body = api.get(f"/v1/workflows/{wf['workflow_id']}").json()
    assert body["version"] == 2 and len(body["pending_operations"]) == 1


def test_concurrent_checkpoints_from_one_version_get_one_success_and_version_conflicts(committed_db, world):
    api = world.patient(world.patient_a)
    wf = api.post("/v1/workflows", {"workflow_type": "appointment_booking",
                                    "patient_id": str(world.patient_a)}).json()["workflow_id"]
    for version in range(1, 4):  # each round: five writers who all read the same version
        step = "propose_slots" if version % 2 else "collect_preferences"

        def call(version=version, step=step):
            r = world.patient(world.patient_a).post(f"/v1/workflows/{wf}/checkpoint", {
                "expected_version": version, "next_step": step, "state_patch": {"round": version}})
            return r.status_code, r.json().get("code")

        assert sorted(_concurrently(5, call)) == [(200, None)] + [(409, "version_conflict")] * 4
    with identity_context(Identity(org_id=world.org, actor_sub="x", patient_self_id=world.patient_a,
                                   actor_kind=ACTOR_PATIENT)):
        history = list(WorkflowTransition.objects.filter(workflow_id=wf).order_by("version")
                       .values_list("version", "from_step", "to_step"))
    assert history == [(1, None, "collect_preferences"), (2, "collect_preferences", "propose_slots"),
                       (3, "propose_slots", "collect_preferences"), (4, "collect_preferences", "propose_slots")]
    assert api.get(f"/v1/workflows/{wf}").json()["state"] == {"round": 3}


def test_once_the_outbox_is_used_only_the_outcome_moves_the_workflow_and_records_the_outside_id(committed_db, world,
                                                                                              insurer):
    api = world.patient(world.patient_a)
    workflow_id, _ = submit_workflow(world)
    run_worker(env_for(insurer), "--until-idle")
    body = read(world, workflow_id)
    assert body["current_step"] == "await_insurer_decision"
    real_id = body["state"]["authorization_id"]
    forged = api.post(f"/v1/workflows/{workflow_id}/checkpoint", {
        "expected_version": body["version"], "next_step": "completed",
        "state_patch": {"authorization_id": "FORGED-1"}})
    assert forged.status_code == 422 and forged.json()["errors"][0] == {
        "field": "state_patch.authorization_id", "code": "server_owned",
        "message": "recorded from the outcome of submit_prior_authorization, never by a checkpoint"}
    assert read(world, workflow_id)["state"]["authorization_id"] == real_id
    done = api.post(f"/v1/workflows/{workflow_id}/checkpoint", {
        "expected_version": body["version"], "next_step": "completed", "state_patch": {"decision_seen": True}})
    assert done.status_code == 200 and done.json()["state"]["authorization_id"] == real_id
    # a workflow whose submission was refused goes back to submit; from there it cannot claim the outcome itself
    refused_id, _ = submit_workflow(world)
    insurer.refuse(1)
    run_worker(env_for(insurer), "--until-idle")
    body = read(world, refused_id)
    assert body["current_step"] == SUBMIT and body["pending_operations"] == []
    assert body["allowed_next_steps"] == ["cancelled"]  # the outcome steps are not the client's to take
    assert body["next_safe_action"]["action"] == "request_operation"
    for step in ("await_insurer_decision", "needs_reconciliation"):
        r = api.post(f"/v1/workflows/{refused_id}/checkpoint", {"expected_version": body["version"],
                                                                 "next_step": step})
        assert r.status_code == 409 and r.json()["code"] == "illegal_transition", r.content
    assert read(world, refused_id)["version"] == body["version"]
    # nor may the checkpoint that asks for the operation write the id its outcome records
    wf = api.post("/v1/workflows", {"workflow_type": "prior_authorization",
                                    "patient_id": str(world.patient_a)}).json()
    r = api.post(f"/v1/workflows/{wf['workflow_id']}/checkpoint", {
        "expected_version": 1, "next_step": SUBMIT, "state_patch": {"authorization_id": "FORGED-2"},
        "request_operation": {"kind": SUBMIT, "payload": PAYLOAD}})
    assert r.status_code == 422 and r.json()["errors"][0]["code"] == "server_owned"
    assert read(world, wf["workflow_id"])["version"] == 1


def test_a_staff_request_racing_the_patients_withdrawal_is_withdrawn_with_it(committed_db, world, monkeypatch):
    """A nurse holding a grant asks for a submission at the moment the patient withdraws her consent for prior
    authorisation, on two connections: the request read the consent as in force, the withdrawal then committed,
    and the request after it. The operation used to stay pending: the withdrawal did not see it yet, and the
    worker's check at the send saw it asked for after the withdrawal. Now the request holds the consent until it
    commits, the withdrawal waits for it and withdraws it (cancelled, consent_revoked)."""
    from workflows import services

    purpose = "prior_authorization"
    consent = world.consent(world.patient_a, purpose)
    world.grant(world.patient_a, "nurse-1", purpose)
    nurse = world.staff("nurse-1")
    wf = nurse.post("/v1/workflows", {"workflow_type": purpose, "patient_id": str(world.patient_a)}).json()
    assert nurse.post(f"/v1/workflows/{wf['workflow_id']}/checkpoint", {
        "expected_version": 1, "next_step": SUBMIT, "state_patch": {"referral_verified": True}}).status_code == 200
    read, go, results = threading.Event(), threading.Event(), {}
    real = services.consent_lapse

    def paused(**kwargs):  # the request has read the consent: the withdrawal goes first from here
        lapse = real(**kwargs)
        if threading.current_thread() is requester:
            read.set()
            go.wait(10)
        return lapse

    monkeypatch.setattr(services, "consent_lapse", paused)

    run = run_into(results)
    requester = threading.Thread(target=run, args=("request", lambda: nurse.post(
        f"/v1/workflows/{wf['workflow_id']}/operations",
        {"expected_version": 2, "kind": SUBMIT, "payload": PAYLOAD})))
    requester.start()
    assert read.wait(10)
    revoker = threading.Thread(target=run, args=("revoke", lambda: world.patient(world.patient_a).post(
        f"/v1/patients/{world.patient_a}/consents/{consent}/revoke")))
    revoker.start()

    wait_until(lambda: done_or_waiting_for_a_lock(revoker), timeout=10, message="the withdrawal")
    go.set()
    requester.join(timeout=30)
    revoker.join(timeout=30)
    assert results["revoke"].status_code == 200
    with admin_connect() as conn:
        rows = conn.execute("SELECT status, last_error_code FROM workflow_operation WHERE workflow_id = %s",
                            [wf["workflow_id"]]).fetchall()
    if results["request"].status_code == 201:
        assert rows == [("cancelled", "consent_revoked")], rows
    else:  # or the request saw the withdrawal, and wrote nothing
        assert results["request"].json()["code"] == "consent_revoked" and rows == []


def test_a_staff_request_racing_the_patients_erasure_is_withdrawn_with_it_or_queued_after(committed_db, world,
                                                                                         monkeypatch):
    """The patient erases everything while a nurse holding a grant starts a prior authorisation and asks for its
    submission, on two connections. The erasure withdraws the operations of the workflows it sees when it reaches
    them, then goes on (its memories, the receipt); a request on a workflow started in that gap committed before
    the erasure did, a submission the erasure never saw, pending and sent after it. Now asking for an operation
    takes the patient's erasure lock shared, so it waits until the erasure has committed: every operation is
    either withdrawn by the erasure (patient_erasure) or asked for after it."""
    purpose = "prior_authorization"
    world.consent(world.patient_a, purpose)
    world.grant(world.patient_a, "nurse-1", purpose)
    nurse = world.staff("nurse-1")
    wf: dict = {}

    def start_and_request():  # once the erasure has withdrawn what it saw in workflows
        wf.update(nurse.post("/v1/workflows", {"workflow_type": purpose, "patient_id": str(world.patient_a)}).json())
        assert nurse.post(f"/v1/workflows/{wf['workflow_id']}/checkpoint", {
            "expected_version": 1, "next_step": SUBMIT, "state_patch": {"referral_verified": True}}).status_code == 200
        return nurse.post(f"/v1/workflows/{wf['workflow_id']}/operations",
                          {"expected_version": 2, "kind": SUBMIT, "payload": PAYLOAD})

    results, released = race_with_erasure(monkeypatch, world.patient(world.patient_a), world.patient_a,
                                          start_and_request)
    assert results["write"].status_code == 201, results["write"].content
    with admin_connect() as conn:
        rows = conn.execute("SELECT status, last_error_code, created_at FROM workflow_operation "
                            "WHERE workflow_id = %s", [wf["workflow_id"]]).fetchall()
    assert len(rows) == 1
    status, code, created = rows[0]
    assert (status, code) == ("cancelled", "patient_erasure") or created > released, rows
