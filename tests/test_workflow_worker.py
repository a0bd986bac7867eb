"""The outbox worker in this process, with real commits, against a fake insurer over real HTTP: outcomes,
reconciliation after a timeout, backoff, the circuit breaker, retry budgets, lost leases, a database that goes away
while recording. (Separate processes and SIGKILL: test_workflow_recovery.py.)"""

from __future__ import annotations

import threading
import time
import uuid
from datetime import timedelta

import pytest
from django.db import OperationalError
from django.utils import timezone

from core.identity import Identity, identity_context
from core.models import AuditEvent
from tests.conftest import admin_connect
from tests.fakes.outside import FakeOutsideSystem
from tests.fakes.processes import wait_until
from tests.support import PATIENT_SCOPES, Api, mint
from workflows import services
from workflows.adapters import SPECS, OutsideSystem
from workflows.definitions import INSURER, SCHEDULING
from workflows.worker import Worker

PAYLOAD = {"referral_id": "REF-1", "diagnosis_code": "E11.9", "medication_code": "860975", "member_ref": "M-1"}
SUBMIT = "submit_prior_authorization"
LEASE = 2.5


@pytest.fixture
def insurer():
    fake = FakeOutsideSystem("insurer")
    yield fake
    fake.stop()


@pytest.fixture
def scheduling():
    fake = FakeOutsideSystem("scheduling")
    yield fake
    fake.stop()


@pytest.fixture(autouse=True)
def fast_worker_settings(settings):
    settings.WORKFLOW_RETRY_BASE_SECONDS = 0.05
    settings.WORKFLOW_RETRY_MAX_SECONDS = 0.2
    settings.WORKFLOW_OPERATION_MAX_ATTEMPTS = 8
    settings.WORKFLOW_CIRCUIT_FAILURE_THRESHOLD = 3
    settings.WORKFLOW_CIRCUIT_COOLDOWN_SECONDS = 60
    settings.WORKFLOW_HTTP_CONNECT_TIMEOUT_SECONDS = 0.3
    settings.WORKFLOW_HTTP_READ_TIMEOUT_SECONDS = 0.3
    reset_circuits()


def reset_circuits() -> None:
    with admin_connect() as conn:
        conn.execute("UPDATE workflow_circuit SET state = 'closed', consecutive_failures = 0, opened_at = NULL, "
                     "open_until = NULL")


def worker(insurer: FakeOutsideSystem, scheduling: FakeOutsideSystem | None = None, **kwargs) -> Worker:
    adapters = {INSURER: OutsideSystem(SPECS[INSURER], base_url=insurer.url, connect_timeout=0.3, read_timeout=0.3)}
    if scheduling is not None:
        adapters[SCHEDULING] = OutsideSystem(SPECS[SCHEDULING], base_url=scheduling.url, connect_timeout=0.3,
                                             read_timeout=0.3)
    return Worker(name="test-worker", adapters=adapters, lease_seconds=LEASE, poll_seconds=0.02, **kwargs)


def submit_workflow(world, patient_id=None) -> tuple[str, dict]:
    """A prior-authorisation workflow whose checkpoint into submission queued the insurer submission."""
    patient_id = patient_id or world.patient_a
    api = world.patient(patient_id)
    wf = api.post("/v1/workflows", {"workflow_type": "prior_authorization", "patient_id": str(patient_id)}).json()
    r = api.post(f"/v1/workflows/{wf['workflow_id']}/checkpoint", {
        "expected_version": 1, "next_step": SUBMIT, "state_patch": {"referral_verified": True},
        "request_operation": {"kind": SUBMIT, "payload": PAYLOAD}})
    assert r.status_code == 200, r.content
    return wf["workflow_id"], r.json()["pending_operations"][0]


def queue_booking(api, world) -> tuple[dict, dict]:
    """An appointment-booking workflow of patient A whose checkpoint into confirm_booking queued the booking."""
    wf = api.post("/v1/workflows", {"workflow_type": "appointment_booking",
                                    "patient_id": str(world.patient_a)}).json()
    api.post(f"/v1/workflows/{wf['workflow_id']}/checkpoint", {"expected_version": 1, "next_step": "propose_slots"})
    r = api.post(f"/v1/workflows/{wf['workflow_id']}/checkpoint", {
        "expected_version": 2, "next_step": "confirm_booking",
        "request_operation": {"kind": "book_appointment",
                              "payload": {"slot_id": "S-1", "appointment_type": "follow_up"}}})
    assert r.status_code == 200, r.content
    return wf, r.json()["pending_operations"][0]


def read(world, workflow_id, patient_id=None) -> dict:
    api = world.patient(patient_id or world.patient_a)
    r = api.get(f"/v1/workflows/{workflow_id}")
    assert r.status_code == 200
    return r.json()


def operation_row(operation_id) -> dict:
    with admin_connect() as conn:
        cur = conn.execute("SELECT status, attempts, outcome_uncertain, next_attempt_at, last_error_code, result, "
                           "claimed_by, attempt_limit FROM workflow_operation WHERE operation_id = %s",
                           [operation_id])
        names = [d.name for d in cur.description]
        return dict(zip(names, cur.fetchone(), strict=True))


def circuit(system="insurer") -> tuple[str, int]:
    with admin_connect() as conn:
        return conn.execute("SELECT state, consecutive_failures FROM workflow_circuit WHERE system = %s",
                            [system]).fetchone()


def end_cool_down(system="insurer") -> None:
    with admin_connect() as conn:
        conn.execute("UPDATE workflow_circuit SET open_until = now() WHERE system = %s AND state <> 'closed'",
                     [system])


def make_due(operation_id) -> None:
    """Skip the backoff wait (the schedule itself is asserted elsewhere)."""
    with admin_connect() as conn:
        conn.execute("UPDATE workflow_operation SET next_attempt_at = now() WHERE operation_id = %s "
                     "AND next_attempt_at IS NOT NULL", [operation_id])


# --- outcomes -----------------------------------------------------------------------------------------------
def test_a_confirmed_submission_moves_the_workflow_and_is_audited_as_the_service(committed_db, world, insurer):
    workflow_id, op = submit_workflow(world)
    stats = worker(insurer).run(until_idle=True)
    assert stats.succeeded == 1
    body = read(world, workflow_id)
    record = insurer.record_for(op["idempotency_key"])
    assert body["current_step"] == "await_insurer_decision" and body["version"] == 3
    assert body["state"] == {"referral_verified": True, "authorization_id": record["authorization_id"]}
    assert body["pending_operations"] == [] and body["next_safe_action"]["action"] == "checkpoint"
    [item] = world.patient(world.patient_a).get(f"/v1/workflows/{workflow_id}/operations").json()["items"]
    assert item["status"] == "succeeded" and item["attempts"] == 1
    assert item["result"] == {"authorization_id": record["authorization_id"], "status": "pending_review"}
    assert insurer.submissions[op["idempotency_key"]] == 1 and insurer.lookups[op["idempotency_key"]] == 0
    events = world.patient(world.patient_a).get("/v1/audit-events", {"patient_id": str(world.patient_a)}).json()
    by_service = {(e["action"], e["outcome"], e["reason"]) for e in events["items"]
                  if e["actor_sub"] == "service:workflow-worker"}
    assert ("workflow.operation.attempt", "success", "confirmed") in by_service
    assert ("workflow.checkpoint", "success", None) in by_service
    assert all(e["actor_kind"] == "service" for e in events["items"] if e["actor_sub"].startswith("service:"))
    assert {e["correlation_id"] for e in events["items"] if e["actor_sub"] == "service:workflow-worker"} == {
        op["operation_id"]}


def test_the_seeds_dangerous_case_in_process(committed_db, world, insurer):
    """Accepted, response lost: needs_reconciliation; the next attempt asks first and adopts; one authorisation."""
    workflow_id, op = submit_workflow(world)
    insurer.accept_then_time_out(times=1, hang=3)
    worker(insurer).run(once=True)
    body = read(world, workflow_id)
    assert body["current_step"] == "needs_reconciliation"
    assert body["pending_operations"][0]["status"] == "outcome_unknown"
    assert body["pending_operations"][0]["last_error_code"] == "timeout"
    assert body["next_safe_action"]["action"] == "wait_for_reconciliation"
    assert insurer.created == 1  # it did land
    make_due(op["operation_id"])
    worker(insurer).run(until_idle=True)
    body = read(world, workflow_id)
    assert body["current_step"] == "await_insurer_decision"
    assert body["state"]["authorization_id"] == insurer.record_for(op["idempotency_key"])["authorization_id"]
    assert insurer.created == 1 and insurer.submissions[op["idempotency_key"]] == 1
    assert insurer.lookups[op["idempotency_key"]] == 1
    row = operation_row(op["operation_id"])
    assert row["status"] == "succeeded" and row["outcome_uncertain"] is False


def test_a_500_is_an_unknown_outcome_then_a_lookup_and_a_resubmission_with_the_same_key(committed_db, world,
                                                                                        insurer):
    workflow_id, op = submit_workflow(world)
    insurer.fail(times=1)
    worker(insurer).run(once=True)
    assert read(world, workflow_id)["current_step"] == "needs_reconciliation"
    assert operation_row(op["operation_id"])["last_error_code"] == "http_500"
    make_due(op["operation_id"])
    worker(insurer).run(until_idle=True)
    assert read(world, workflow_id)["current_step"] == "await_insurer_decision"
    assert insurer.submissions[op["idempotency_key"]] == 2  # the first never landed; same key both times
    assert insurer.lookups[op["idempotency_key"]] == 1 and insurer.created == 1


def test_an_answer_that_cannot_be_decoded_is_an_unknown_outcome_settled_by_lookup(committed_db, world, insurer):
    """The insurer accepted the submission but its answer cannot be decoded (a body that is not the gzip its
    headers say): the request may have arrived, so the outcome is unknown, the workflow needs reconciliation and the
    next attempt adopts what the lookup finds instead of submitting again. The adapter used to raise here, so the
    attempt was never recorded: the operation stayed in flight, was claimed again at each lease's end without a
    limit, and the workflow never showed that it needed reconciliation."""
    workflow_id, op = submit_workflow(world)
    insurer.accept_then_garble(times=1)
    worker(insurer).run(once=True)
    row = operation_row(op["operation_id"])
    assert (row["status"], row["last_error_code"], row["claimed_by"]) == ("outcome_unknown", "unreadable_answer",
                                                                          None)
    assert read(world, workflow_id)["current_step"] == "needs_reconciliation"
    make_due(op["operation_id"])
    worker(insurer).run(until_idle=True)
    assert read(world, workflow_id)["current_step"] == "await_insurer_decision"
    assert insurer.submissions[op["idempotency_key"]] == 1 and insurer.lookups[op["idempotency_key"]] == 1


def test_an_insurer_dribbling_its_answer_is_a_timeout_within_the_timeouts_and_settled_by_lookup(committed_db, world,
                                                                                              insurer):
    """httpx's timeouts bound each read, not the request: an insurer sending its answer a byte every 0.1 s (each
    well within the 0.3 s read timeout) held the worker for the whole answer, 15 s here, past the lease that one
    attempt's timeouts are meant to fit in (another worker could claim the operation meanwhile). The request now ends
    within its connect, write and read timeouts together, as a timeout: an unknown outcome, settled by a lookup and
    never submitted twice."""
    workflow_id, op = submit_workflow(world)
    insurer.accept_then_dribble(times=1)
    started = time.monotonic()
    worker(insurer).run(once=True)
    assert time.monotonic() - started < 3
    row = operation_row(op["operation_id"])
    assert (row["status"], row["last_error_code"]) == ("outcome_unknown", "timeout")
    make_due(op["operation_id"])
    worker(insurer).run(until_idle=True)
    assert read(world, workflow_id)["current_step"] == "await_insurer_decision"
    assert insurer.submissions[op["idempotency_key"]] == 1 and insurer.lookups[op["idempotency_key"]] == 1


def test_an_endless_answer_is_cut_off_as_an_unknown_outcome_and_settled_by_lookup(committed_db, world, insurer):
    """An insurer answering 201 with a body of 256 MiB: the adapter read all of it into memory (2 GB within 5 s of
    an endless one). It now stops reading past MAX_ANSWER_BYTES: the request arrived, so the outcome is unknown
    (``answer_too_large``), settled by a lookup and never submitted twice."""
    import resource

    workflow_id, op = submit_workflow(world)
    insurer.accept_then_flood(times=1)
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    worker(insurer).run(once=True)
    assert resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before < 64 * 1024  # KiB: under 64 MiB more
    row = operation_row(op["operation_id"])
    assert (row["status"], row["last_error_code"]) == ("outcome_unknown", "answer_too_large")
    make_due(op["operation_id"])
    worker(insurer).run(until_idle=True)
    assert read(world, workflow_id)["current_step"] == "await_insurer_decision"
    assert insurer.submissions[op["idempotency_key"]] == 1 and insurer.lookups[op["idempotency_key"]] == 1


def test_a_refusal_fails_the_operation_and_a_new_request_gets_a_new_key(committed_db, world, insurer):
    workflow_id, op = submit_workflow(world)
    insurer.refuse(times=1)
    worker(insurer).run(until_idle=True)
    body = read(world, workflow_id)
    assert body["current_step"] == SUBMIT and body["pending_operations"] == []
    action = body["next_safe_action"]
    assert action["action"] == "request_operation" and action["operation_id"] == op["operation_id"]
    assert "refused_http_422" in action["message"]
    r = world.patient(world.patient_a).post(f"/v1/workflows/{workflow_id}/operations", {
        "expected_version": body["version"], "kind": SUBMIT, "payload": PAYLOAD})
    assert r.status_code == 201 and r.json()["idempotency_key"] != op["idempotency_key"]
    worker(insurer).run(until_idle=True)
    assert read(world, workflow_id)["current_step"] == "await_insurer_decision"
    assert insurer.created == 1


def test_a_refusal_after_an_unknown_outcome_sends_the_workflow_back_to_submission(committed_db, world, insurer):
    workflow_id, op = submit_workflow(world)
    insurer.fail(times=1)
    worker(insurer).run(once=True)
    assert read(world, workflow_id)["current_step"] == "needs_reconciliation"
    insurer.refuse(times=1)
    make_due(op["operation_id"])
    worker(insurer).run(until_idle=True)
    body = read(world, workflow_id)
    assert body["current_step"] == SUBMIT and body["next_safe_action"]["action"] == "request_operation"


def test_a_booking_goes_to_the_scheduling_system(committed_db, world, insurer, scheduling):
    wf, _ = queue_booking(world.patient(world.patient_a), world)
    worker(insurer, scheduling).run(until_idle=True)
    body = read(world, wf["workflow_id"])
    assert body["current_step"] == "booked" and body["state"]["appointment_id"].startswith("APT-")
    assert scheduling.created == 1 and insurer.created == 0


def test_an_insurer_that_hangs_does_not_hold_up_the_bookings_claimed_with_its_submissions(committed_db, world,
                                                                                            insurer, scheduling,
                                                                                            settings):
    """The worker sent a batch's claims one after another: with the insurer accepting and never answering, a booking
    claimed behind ten of its submissions waited for each to time out (half a second each here; 22 s with the
    default timeouts, so a batch of ten held bookings up for minutes before the insurer's circuit opened). Each
    outside system's claims of a batch now go out on a thread of their own: the booking is made at once while the
    submissions are still timing out."""
    settings.WORKFLOW_CIRCUIT_FAILURE_THRESHOLD = 20
    insurer.accept_then_time_out(times=None, hang=5)
    for _ in range(10):
        submit_workflow(world)
    wf, _ = queue_booking(world.patient(world.patient_a), world)
    stop = threading.Event()
    runner = threading.Thread(target=worker(insurer, scheduling, stop=stop, batch_size=11).run,
                              kwargs={"once": True})
    started = time.monotonic()
    runner.start()
    try:
        wait_until(lambda: read(world, wf["workflow_id"])["current_step"] == "booked", timeout=30,
                   message="the booking")
        waited = time.monotonic() - started
    finally:
        stop.set()
        runner.join(timeout=30)
    assert waited < 2, waited
    assert scheduling.created == 1


def test_a_workflows_operations_are_read_a_page_at_a_time(committed_db, world, insurer):
    """Each refusal leaves a failed operation and a new request adds one, so a workflow's operations grow without
    bound; the list gave the newest 100 and no way to the rest. It takes limit (1-500) and cursor: pages, newest
    first, that together hold every operation once; a cursor it did not give is 422."""
    workflow_id, first = submit_workflow(world)
    me = world.patient(world.patient_a)
    for _ in range(3):
        insurer.refuse(times=1)
        worker(insurer).run(until_idle=True)
        r = me.post(f"/v1/workflows/{workflow_id}/operations", {
            "expected_version": read(world, workflow_id)["version"], "kind": SUBMIT, "payload": PAYLOAD})
        assert r.status_code == 201, r.content
    url = f"/v1/workflows/{workflow_id}/operations"
    everything = me.get(url).json()
    assert len(everything["items"]) == 4 and everything["next_cursor"] is None
    assert everything["items"][-1]["operation_id"] == first["operation_id"]
    pages, cursor = [], None
    while True:
        page = me.get(url + "?limit=3" + (f"&cursor={cursor}" if cursor else "")).json()
        pages.append([op["operation_id"] for op in page["items"]])
        cursor = page["next_cursor"]
        if cursor is None:
            break
    assert [len(p) for p in pages] == [3, 1]
    assert [i for p in pages for i in p] == [op["operation_id"] for op in everything["items"]]
    for query, field in (("?cursor=not-a-cursor", "cursor"), ("?limit=0", "limit"), ("?limit=501", "limit")):
        r = me.get(url + query)
        assert r.status_code == 422 and r.json()["errors"][0]["field"] == field, (query, r.content)


# --- outside system down: backoff, circuit breaker ----------------------------------------------------------
def test_a_system_that_is_down_makes_operations_wait_and_opens_the_circuit(committed_db, world, insurer):
    ops = [submit_workflow(world)[1] for _ in range(4)]
    insurer.down()
    w = worker(insurer)
    w.run(once=True)  # one batch: three connection failures open the circuit, the fourth claim is given back
    assert circuit() == ("open", 3)
    rows = [operation_row(op["operation_id"]) for op in ops]
    assert sorted(r["attempts"] for r in rows) == [0, 1, 1, 1]
    assert all(r["status"] == "pending" and r["outcome_uncertain"] is False for r in rows)  # never delivered
    assert {r["last_error_code"] for r in rows if r["attempts"]} == {"connect_failed"}
    assert all(r["next_attempt_at"] is not None for r in rows)
    for op in ops:
        make_due(op["operation_id"])
    assert worker(insurer).run(once=True).claimed == 0  # open: nobody calls the insurer
    end_cool_down()  # one probe, which fails and re-opens the circuit at once
    stats = worker(insurer).run(once=True)
    assert stats.claimed == 1 and circuit()[0] == "open"
    insurer.up()
    end_cool_down()
    for op in ops:
        make_due(op["operation_id"])
    worker(insurer).run(until_idle=True)  # the probe succeeds, the circuit closes, the rest follow
    assert circuit() == ("closed", 0)
    assert all(operation_row(op["operation_id"])["status"] == "succeeded" for op in ops)
    assert insurer.created == 4 and max(insurer.submissions.values()) == 1  # refused connections sent nothing


def test_backoff_grows_exponentially_with_jitter(settings):
    settings.WORKFLOW_RETRY_BASE_SECONDS = 2.0
    settings.WORKFLOW_RETRY_MAX_SECONDS = 60.0
    for attempts, full in ((1, 2.0), (2, 4.0), (3, 8.0), (6, 60.0), (20, 60.0)):
        delays = [services.retry_delay(attempts) for _ in range(200)]
        assert all(full / 2 <= d <= full for d in delays)
        assert len({round(d, 6) for d in delays}) > 100  # jittered


def test_retries_run_out_differently_for_unsent_and_unknown_outcomes(committed_db, world, insurer, settings):
    settings.WORKFLOW_OPERATION_MAX_ATTEMPTS = 2
    settings.WORKFLOW_CIRCUIT_FAILURE_THRESHOLD = 100
    unsent_wf, unsent = submit_workflow(world)
    insurer.down()
    for _ in range(2):
        worker(insurer).run(once=True)
        make_due(unsent["operation_id"])
    row = operation_row(unsent["operation_id"])
    assert (row["status"], row["last_error_code"], row["attempts"]) == ("failed", "outside_system_unavailable", 2)
    assert read(world, unsent_wf)["next_safe_action"]["action"] == "request_operation"

    insurer.up()
    unknown_wf, unknown = submit_workflow(world, world.patient_b)
    insurer.fail(times=None, lookups=True)
    for _ in range(2):
        worker(insurer).run(once=True)
        make_due(unknown["operation_id"])
    row = operation_row(unknown["operation_id"])
    assert (row["status"], row["next_attempt_at"], row["attempts"]) == ("outcome_unknown", None, 2)  # parked
    body = read(world, unknown_wf, world.patient_b)
    assert body["current_step"] == "needs_reconciliation"
    assert body["next_safe_action"]["action"] == "staff_reconciliation"
    ops = world.staff("ops-1", scope="workflow:reconcile workflow:reconcile:org")  # organisation-wide view
    queue = ops.get("/v1/workflows/reconciliation").json()["items"]
    assert [(i["workflow_id"], i["parked"], i["operation_status"]) for i in queue] == [
        (unknown_wf, True, "outcome_unknown")]
    assert worker(insurer).run(once=True).claimed == 0  # parked: the worker leaves it alone

    insurer.normal()
    retry = f"/v1/workflows/{unknown_wf}/operations/{unknown['operation_id']}/retry"
    r = world.patient(world.patient_b).post(retry)  # a person checks with the insurer first: staff
    assert r.status_code == 403 and r.json()["code"] == "staff_only"
    world.grant(world.patient_b, "ops-1", "prior_authorization")
    r = world.staff("ops-1", scope="workflow:read workflow:write").post(retry)
    assert r.status_code == 200 and r.json()["attempt_limit"] == 4 and r.json()["next_attempt_at"]
    worker(insurer).run(until_idle=True)
    body = read(world, unknown_wf, world.patient_b)
    assert body["current_step"] == "await_insurer_decision"
    assert insurer.submissions[unknown["idempotency_key"]] == 2  # the 500s never landed; asked before resending
    assert ops.get("/v1/workflows/reconciliation").json()["items"] == []


@pytest.mark.parametrize("resolution", ["sent", "not_sent"])
def test_staff_resolve_a_parked_unknown_outcome_from_the_reconciliation_queue(committed_db, world, insurer, settings,
                                                                              resolution):
    """The insurer answers neither submissions nor look-ups until the attempts run out: the operation is parked and
    the workflow waits for staff. Staff who asked the insurer record what they learnt: sent (with the insurer's
    id: the operation succeeded and the workflow moves on with it) or not sent (failed, the workflow goes back to
    the step that asks again, under a new key). Staff could only retry, which asks the insurer again. Checked
    against the workflow's version, staff only, audited; the same resolution again answers the same operation,
    another one is 409; the worker never sends it again."""
    settings.WORKFLOW_OPERATION_MAX_ATTEMPTS = 2
    settings.WORKFLOW_CIRCUIT_FAILURE_THRESHOLD = 100
    workflow_id, op = submit_workflow(world)
    insurer.fail(times=None, lookups=True)
    for _ in range(2):
        worker(insurer).run(once=True)
        make_due(op["operation_id"])
    assert operation_row(op["operation_id"])["next_attempt_at"] is None  # parked
    queue = world.staff("ops-1", scope="workflow:reconcile workflow:reconcile:org").get(
        "/v1/workflows/reconciliation").json()["items"]
    assert [(i["operation_id"], i["requested_by_kind"]) for i in queue] == [(op["operation_id"], "patient")]
    action = read(world, workflow_id)["next_safe_action"]
    assert action["action"] == "staff_reconciliation" and "record what it said (resolve" in action["message"]
    version = read(world, workflow_id)["version"]
    path = f"/v1/workflows/{workflow_id}/operations/{op['operation_id']}/resolve"
    body = {"expected_version": version, "outcome": resolution}
    if resolution == "sent":
        body["external_id"] = "AUTH-77"
    assert world.patient(world.patient_a).post(path, body).status_code == 403
    r = world.patient(world.patient_a, scope=f"{PATIENT_SCOPES} workflow:reconcile").post(path, body)
    assert r.status_code == 403 and r.json()["code"] == "staff_only"
    world.grant(world.patient_a, "ops-1", "prior_authorization")
    ops = world.staff("ops-1", scope="workflow:read workflow:write workflow:reconcile")
    r = ops.post(path, {"expected_version": version, "outcome": "sent"})
    assert r.status_code == 422 and r.json()["errors"][0]["field"] == "external_id", r.content
    r = ops.post(path, {**body, "expected_version": version - 1})
    assert r.status_code == 409 and r.json()["code"] == "version_conflict" and r.json()["current_version"] == version
    assert operation_row(op["operation_id"])["status"] == "outcome_unknown"
    r = ops.post(path, body)
    assert r.status_code == 200, r.content
    assert r.json()["status"] == ("succeeded" if resolution == "sent" else "failed")
    again = ops.post(path, body)
    assert again.status_code == 200 and again.headers["Idempotent-Replayed"] == "true" and again.json() == r.json()
    other = {"expected_version": version, "outcome": "not_sent"} if resolution == "sent" else {
        "expected_version": version, "outcome": "sent", "external_id": "AUTH-78"}
    r = ops.post(path, other)
    assert r.status_code == 409 and r.json()["code"] == "operation_not_resolvable", r.content
    row = operation_row(op["operation_id"])
    resumed = read(world, workflow_id)
    if resolution == "sent":
        assert (row["status"], row["result"]) == ("succeeded", {"authorization_id": "AUTH-77"}), row
        assert resumed["current_step"] == "await_insurer_decision"
        assert resumed["state"]["authorization_id"] == "AUTH-77"
    else:
        assert (row["status"], row["last_error_code"]) == ("failed", "staff_confirmed_not_sent"), row
        assert resumed["current_step"] == SUBMIT
        assert resumed["next_safe_action"]["action"] == "request_operation"
    assert resumed["version"] == version + 1 and resumed["pending_operations"] == []
    submissions = insurer.submissions[op["idempotency_key"]]
    insurer.normal()
    assert worker(insurer).run(until_idle=True).claimed == 0
    assert insurer.submissions[op["idempotency_key"]] == submissions
    queue = world.staff("ops-1", scope="workflow:reconcile").get("/v1/workflows/reconciliation").json()["items"]
    assert queue == []
    auditor = Identity(org_id=world.org, actor_sub="auditor", scopes=frozenset({"audit:read"}))
    with identity_context(auditor):
        assert AuditEvent.objects.filter(action="workflow.operation.resolve", resource_id=op["operation_id"],
                                         reason=f"staff_confirmed_{resolution}").count() == 1


# --- leases and a database that goes away ---------------------------------------------------------------------
def test_a_stale_claim_can_neither_start_nor_record(committed_db, world, insurer):
    from workflows.adapters import CONFIRMED, Outcome
    from workflows.dispatch import operations_claim

    _, op = submit_workflow(world)
    [claim] = operations_claim(worker="w1", limit=5, lease_seconds=0.1)
    time.sleep(0.2)
    [again] = operations_claim(worker="w2", limit=5, lease_seconds=LEASE)  # the lease ended: re-claimed
    assert again.operation_id == claim.operation_id and again.outcome_uncertain is True
    from core.identity import identity_context

    with identity_context(claim.identity()):
        assert services.operation_start_attempt(operation_id=claim.operation_id, claimed_by=claim.claimed_by,
                                                lease_seconds=LEASE) is None
        assert services.operation_record_outcome(
            identity=claim.identity(), operation_id=claim.operation_id, claimed_by=claim.claimed_by,
            outcome=Outcome(CONFIRMED, "confirmed", {"authorization_id": "PA-forged"})) is None
    assert operation_row(op["operation_id"])["status"] == "in_flight"


def test_a_database_outage_while_recording_loses_nothing(committed_db, world, insurer, monkeypatch):
    workflow_id, op = submit_workflow(world)
    real = services.operation_record_outcome

    def down(**kwargs):
        raise OperationalError("connection refused")

    monkeypatch.setattr(services, "operation_record_outcome", down)
    monkeypatch.setattr("workflows.worker._record_backoff", lambda attempt: None)
    stats = worker(insurer).run(once=True)
    assert stats.errors == 1 and insurer.created == 1  # the insurer has it; we could not write it down
    assert operation_row(op["operation_id"])["status"] == "in_flight"
    monkeypatch.setattr(services, "operation_record_outcome", real)
    wait_until(lambda: worker(insurer).run(once=True).claimed == 1, timeout=10, message="the lease to end")
    body = read(world, workflow_id)
    assert body["current_step"] == "await_insurer_decision"
    assert insurer.submissions[op["idempotency_key"]] == 1 and insurer.lookups[op["idempotency_key"]] == 1


def test_cancelling_withdraws_an_unsent_operation_before_the_worker_sends_it(committed_db, world, insurer):
    workflow_id, op = submit_workflow(world)
    r = world.patient(world.patient_a).post(f"/v1/workflows/{workflow_id}/checkpoint",
                                            {"expected_version": 2, "next_step": "cancelled"})
    assert r.status_code == 200
    assert worker(insurer).run(until_idle=True).claimed == 0
    assert operation_row(op["operation_id"])["status"] == "cancelled" and insurer.created == 0


def test_withdrawing_consent_withdraws_the_purposes_unsent_operations(committed_db, world, insurer, scheduling):
    """A booking the patient's agent queued under her consent for scheduling is not sent once she withdrew that
    consent (cancelled, consent_revoked, audited); an operation for another purpose goes out as before. The worker
    used to send her data to the scheduling system after the withdrawal."""
    consent = world.consent(world.patient_a, "appointment_scheduling")
    agent = Api(mint(world.keyring, sub=f"patient-{world.patient_a}", org_id=world.org,
                     patient_id=world.patient_a, scope=PATIENT_SCOPES, act="scheduling-agent"))
    wf, booking = queue_booking(agent, world)
    _, authorisation = submit_workflow(world)  # another purpose's
    me = world.patient(world.patient_a)
    assert me.post(f"/v1/patients/{world.patient_a}/consents/{consent}/revoke").status_code == 200
    worker(insurer, scheduling).run(until_idle=True)
    assert scheduling.submissions[booking["idempotency_key"]] == 0 and scheduling.created == 0
    row = operation_row(booking["operation_id"])
    assert (row["status"], row["last_error_code"]) == ("cancelled", "consent_revoked"), row
    assert operation_row(authorisation["operation_id"])["status"] == "succeeded" and insurer.created == 1
    mine = me.get(f"/v1/workflows/{wf['workflow_id']}").json()
    assert mine["pending_operations"] == [] and mine["current_step"] == "confirm_booking"
    action = mine["next_safe_action"]  # what she (or staff) reading it is told
    assert action["operation_id"] == booking["operation_id"] and "withdrew the consent" in action["message"]
    auditor = Identity(org_id=world.org, actor_sub="auditor", scopes=frozenset({"audit:read"}))
    with identity_context(auditor):
        assert AuditEvent.objects.filter(action="workflow.operation.cancel", resource_id=booking["operation_id"],
                                         reason="consent_revoked").count() == 1


@pytest.mark.parametrize("withdrawal", ["consent", "erase_all"])
def test_a_withdrawal_stops_every_operation_of_the_patient_even_one_whose_outcome_is_unknown(
        committed_db, world, insurer, scheduling, withdrawal):
    """The patient withdraws the consent for scheduling, or erases everything, while her agent's booking waits for
    an unknown outcome (the scheduling system failed after it may have got it): the worker only asks whether it
    arrived, and ends it (failed, the withdrawal as its code) when it did not; it used to send it again, after the
    withdrawal. On erase-all her queued authorisation is cancelled too (and its payload redacted), never sent."""
    consent = world.consent(world.patient_a, "appointment_scheduling")
    agent = Api(mint(world.keyring, sub=f"patient-{world.patient_a}", org_id=world.org,
                     patient_id=world.patient_a, scope=PATIENT_SCOPES, act="scheduling-agent"))
    wf, booking = queue_booking(agent, world)
    scheduling.fail(times=1)
    worker(insurer, scheduling).run(once=True)
    assert read(world, wf["workflow_id"])["current_step"] == "needs_reconciliation"
    assert scheduling.submissions[booking["idempotency_key"]] == 1
    me = world.patient(world.patient_a)
    authorisation = None
    if withdrawal == "consent":
        assert me.post(f"/v1/patients/{world.patient_a}/consents/{consent}/revoke").status_code == 200
    else:
        _, authorisation = submit_workflow(world)
        r = me.request("DELETE", f"/v1/patients/{world.patient_a}/memories")
        assert r.status_code == 200, r.content
    reason = "consent_revoked" if withdrawal == "consent" else "patient_erasure"
    action = me.get(f"/v1/workflows/{wf['workflow_id']}").json()["next_safe_action"]  # not "before it would submit"
    assert action["operation_id"] == booking["operation_id"] and f"withdrawn ({reason})" in action["message"]
    assert "never sends it again" in action["message"], action
    make_due(booking["operation_id"])
    worker(insurer, scheduling).run(until_idle=True)
    assert scheduling.lookups[booking["idempotency_key"]] == 1
    assert scheduling.submissions[booking["idempotency_key"]] == 1 and scheduling.created == 0
    row = operation_row(booking["operation_id"])
    assert (row["status"], row["last_error_code"]) == ("failed", reason), row
    if authorisation is not None:
        row = operation_row(authorisation["operation_id"])
        assert (row["status"], row["last_error_code"]) == ("cancelled", reason), row
        assert insurer.created == 0 and insurer.submissions[authorisation["idempotency_key"]] == 0
        with admin_connect() as conn:
            assert conn.execute("SELECT payload FROM workflow_operation WHERE operation_id = %s",
                                [authorisation["operation_id"]]).fetchone()[0] == {"_redacted": True}
    auditor = Identity(org_id=world.org, actor_sub="auditor", scopes=frozenset({"audit:read"}))
    with identity_context(auditor):
        assert AuditEvent.objects.filter(action="workflow.operation.withdraw", resource_id=booking["operation_id"],
                                         reason=reason).count() == 1


@pytest.mark.parametrize("unknown", [False, True])
def test_an_operation_whose_consent_ran_out_is_never_sent(committed_db, world, insurer, scheduling, unknown):
    """The patient's consent for scheduling runs out (its expires_at passes) while her agent's booking is queued,
    or waits for an unknown outcome: the worker sends nothing. The queued one is cancelled (consent_expired,
    audited); the unknown one is only asked after and ends failed with that code, as on a withdrawal. It used to
    go out after the expiry, since only a withdrawal withdrew operations; another purpose's goes out as before."""
    me = world.patient(world.patient_a)
    expires = timezone.now() + timedelta(seconds=1.5)
    r = me.post(f"/v1/patients/{world.patient_a}/consents", {"purpose": "appointment_scheduling",
                                                              "expires_at": expires.isoformat()})
    assert r.status_code == 201, r.content
    agent = Api(mint(world.keyring, sub=f"patient-{world.patient_a}", org_id=world.org,
                     patient_id=world.patient_a, scope=PATIENT_SCOPES, act="scheduling-agent"))
    wf, booking = queue_booking(agent, world)
    if unknown:
        scheduling.fail(times=1)
        worker(insurer, scheduling).run(once=True)
        assert operation_row(booking["operation_id"])["status"] == "outcome_unknown"
    _, authorisation = submit_workflow(world)  # another purpose's
    time.sleep(max(0.0, (expires - timezone.now()).total_seconds()) + 0.1)
    make_due(booking["operation_id"])
    stats = worker(insurer, scheduling).run(until_idle=True)
    assert scheduling.created == 0 and scheduling.submissions[booking["idempotency_key"]] == int(unknown)
    row = operation_row(booking["operation_id"])
    if unknown:
        assert scheduling.lookups[booking["idempotency_key"]] == 1
        assert (row["status"], row["last_error_code"]) == ("failed", "consent_expired"), row
    else:
        assert (row["status"], row["last_error_code"]) == ("cancelled", "consent_expired"), row
        assert stats.withdrawn == 1
        action = me.get(f"/v1/workflows/{wf['workflow_id']}").json()["next_safe_action"]
        assert action["operation_id"] == booking["operation_id"] and "consent ran out" in action["message"]
    assert operation_row(authorisation["operation_id"])["status"] == "succeeded" and insurer.created == 1
    auditor = Identity(org_id=world.org, actor_sub="auditor", scopes=frozenset({"audit:read"}))
    with identity_context(auditor):
        action = "workflow.operation.withdraw" if unknown else "workflow.operation.cancel"
        assert AuditEvent.objects.filter(action=action, resource_id=booking["operation_id"],
                                         reason="consent_expired").count() == 1


@pytest.mark.parametrize("arrived", [False, True])
def test_a_cancelled_workflows_unknown_outcome_is_settled_by_lookup_and_never_resubmitted(committed_db, world,
                                                                                         insurer, arrived):
    """Cancelled while the insurer's answer was unknown: the worker only asks. A request that arrived is adopted
    (kept on the operation); one that did not ends (failed: workflow_cancelled). The insurer never gets a new
    request for a workflow nobody wants any more (it created an authorization for the cancelled workflow once the
    insurer recovered)."""
    workflow_id, op = submit_workflow(world)
    if arrived:
        insurer.accept_then_fail(times=1)
    else:
        insurer.fail(times=1)
    worker(insurer).run(once=True)
    assert read(world, workflow_id)["current_step"] == "needs_reconciliation"
    version = read(world, workflow_id)["version"]
    r = world.patient(world.patient_a).post(f"/v1/workflows/{workflow_id}/checkpoint",
                                            {"expected_version": version, "next_step": "cancelled"})
    assert r.status_code == 200, r.content
    make_due(op["operation_id"])
    worker(insurer).run(until_idle=True)
    row = operation_row(op["operation_id"])
    assert insurer.lookups[op["idempotency_key"]] == 1
    assert insurer.submissions[op["idempotency_key"]] == 1 and insurer.created == int(arrived)
    assert (row["status"], row["last_error_code"]) == (
        ("succeeded", None) if arrived else ("failed", "workflow_cancelled")), row
    resumed = read(world, workflow_id)
    assert resumed["current_step"] == "cancelled"
    # an authorisation made for a cancelled workflow is somebody's to withdraw: whoever reads it is told so
    action = resumed["next_safe_action"]
    assert action["action"] == ("undo_at_outside_system" if arrived else "none"), action
    if arrived:
        assert action["operation_id"] == op["operation_id"] and "withdraw" in action["message"]


def test_a_cancelled_workflows_operation_whose_lookups_ran_out_goes_to_staff_and_is_settled(committed_db, world,
                                                                                            insurer, settings):
    """Cancelled while the insurer's answer was unknown, and the insurer then answers no look-up until the attempts
    run out: the operation is parked, and a person must find out whether an authorisation exists. The workflow's
    next safe action says so and the staff's queue lists it (cancelled, parked); it used to say "none" and the queue
    showed only needs_reconciliation, so what may exist at the insurer was forgotten. A staff retry only asks the
    insurer and settles it."""
    settings.WORKFLOW_OPERATION_MAX_ATTEMPTS = 3
    settings.WORKFLOW_CIRCUIT_FAILURE_THRESHOLD = 100
    settings.EVENT_DELIVERY_ALLOWED_PRIVATE_HOSTS = ["127.0.0.1"]
    hooks = Api(mint(world.keyring, sub="webhook-admin", org_id=world.org, scope="webhook:admin"))
    assert hooks.post("/v1/event-subscriptions", {"url": "https://127.0.0.1:9/hook",
                                                  "event_types": ["workflow.needs_reconciliation"]}).status_code == 201
    workflow_id, op = submit_workflow(world)
    insurer.accept_then_fail(times=1)
    worker(insurer).run(once=True)
    version = read(world, workflow_id)["version"]
    r = world.patient(world.patient_a).post(f"/v1/workflows/{workflow_id}/checkpoint",
                                            {"expected_version": version, "next_step": "cancelled"})
    assert r.status_code == 200, r.content
    insurer.fail(times=None, lookups=True)
    for _ in range(2):
        make_due(op["operation_id"])
        worker(insurer).run(once=True)
    row = operation_row(op["operation_id"])
    assert (row["status"], row["next_attempt_at"], row["attempts"]) == ("outcome_unknown", None, 3)  # parked
    # announced as it joins the staff's queue, as a workflow moving into needs_reconciliation is (once each)
    with admin_connect() as conn:
        announced = conn.execute("SELECT data->>'operation_id' FROM event_outbox WHERE event_type = "
                                 "'workflow.needs_reconciliation' AND data->>'workflow_id' = %s "
                                 "ORDER BY occurred_at", [workflow_id]).fetchall()
    assert announced == [(op["operation_id"],), (op["operation_id"],)], announced
    body = read(world, workflow_id)
    assert body["current_step"] == "cancelled"
    action = body["next_safe_action"]
    assert (action["action"], action["operation_id"]) == ("staff_reconciliation", op["operation_id"]), action
    ops = world.staff("ops-1", scope="workflow:reconcile workflow:reconcile:org")
    queue = ops.get("/v1/workflows/reconciliation").json()["items"]
    assert [(i["workflow_id"], i["current_step"], i["parked"], i["operation_id"]) for i in queue] == [
        (workflow_id, "cancelled", True, op["operation_id"])]
    world.grant(world.patient_a, "ops-1", "prior_authorization")
    granted = world.staff("ops-1", scope="workflow:reconcile").get("/v1/workflows/reconciliation").json()["items"]
    assert [i["workflow_id"] for i in granted] == [workflow_id]

    insurer.normal()
    retry = f"/v1/workflows/{workflow_id}/operations/{op['operation_id']}/retry"
    r = world.staff("ops-1", scope="workflow:read workflow:write").post(retry)
    assert r.status_code == 200, r.content
    worker(insurer).run(until_idle=True)
    assert operation_row(op["operation_id"])["status"] == "succeeded"
    assert insurer.submissions[op["idempotency_key"]] == 1  # asked, never sent again
    assert read(world, workflow_id)["next_safe_action"]["action"] == "undo_at_outside_system"
    assert ops.get("/v1/workflows/reconciliation").json()["items"] == []
    # a cancelled workflow with nothing unsettled is not in the queue
    other, _ = submit_workflow(world, world.patient_b)
    assert world.patient(world.patient_b).post(f"/v1/workflows/{other}/checkpoint", {
        "expected_version": 2, "next_step": "cancelled"}).status_code == 200
    assert ops.get("/v1/workflows/reconciliation").json()["items"] == []


def test_the_worker_refuses_a_lease_shorter_than_one_attempt(insurer):
    with pytest.raises(ValueError, match="lease"):
        Worker(name="w", adapters={}, lease_seconds=0.5)


def test_claims_never_run_inside_an_identity_context(committed_db, world):
    from core.identity import identity_context
    from workflows.dispatch import operations_claim

    with pytest.raises(RuntimeError), identity_context(world_identity(world)):
        operations_claim(worker="w", limit=1, lease_seconds=LEASE)


def world_identity(world):
    from core.identity import ACTOR_PATIENT, Identity

    return Identity(org_id=world.org, actor_sub=f"patient-{world.patient_a}", patient_self_id=world.patient_a,
                    actor_kind=ACTOR_PATIENT)


def test_the_key_sent_outside_is_only_a_random_id(committed_db, world, insurer):
    """The key sent to the insurer carries nothing but the operation's random id."""
    _, op = submit_workflow(world)
    assert uuid.UUID(op["idempotency_key"].removeprefix("anamnesis-")).version == 4


def test_only_one_claimer_wins_the_probe_of_a_circuit_after_its_cool_down(committed_db, world):
    from workflows.dispatch import operations_claim

    for _ in range(3):
        submit_workflow(world)
    with admin_connect() as conn:
        conn.execute("UPDATE workflow_circuit SET state = 'open', consecutive_failures = 5, opened_at = now(), "
                     "open_until = now() WHERE system = 'insurer'")
    first = operations_claim(worker="w1", limit=10, lease_seconds=LEASE)
    second = operations_claim(worker="w2", limit=10, lease_seconds=LEASE)
    assert [c.probe for c in first] == [True] and second == []
    assert circuit()[0] == "half_open"


def test_worker_logs_carry_no_payload_values(committed_db, world, insurer, caplog):
    import logging

    caplog.set_level(logging.DEBUG)
    workflow_id, op = submit_workflow(world)
    insurer.accept_then_time_out(times=1, hang=2)
    worker(insurer).run(once=True)
    make_due(op["operation_id"])
    worker(insurer).run(until_idle=True)
    assert read(world, workflow_id)["current_step"] == "await_insurer_decision"
    text = caplog.text
    assert op["operation_id"] in text  # it does log, by id
    for value in PAYLOAD.values():
        assert value not in text
    assert insurer.record_for(op["idempotency_key"])["authorization_id"] not in text


@pytest.mark.slow
def test_a_worker_claims_again_within_seconds_of_the_database_returning(committed_db):
    """The worker waits out an outage by claiming again with growing pauses; they doubled up to 30 s, so after a
    10 s outage it went on sleeping up to 8 s more (after a minute's, up to 30 s) while the database served again
    and operations waited. The pause stops growing at WORKFLOW_WORKER_OUTAGE_RETRY_SECONDS (2). The outage is the
    process's database circuit held open (core.postgresql): every connection is refused, as with the server down."""
    import threading

    from django.db import connection

    from core.postgresql.base import circuit_for

    circuit = circuit_for("default")
    worker = Worker(adapters={}, poll_seconds=1.0)  # the default
    runner = threading.Thread(target=worker.run, kwargs={"max_seconds": 40})
    connection.close()
    retry_after, circuit.retry_after = circuit.retry_after, 3600.0
    circuit.failed()
    try:
        runner.start()
        time.sleep(10)
        errors = worker.stats.errors
        assert errors >= 3  # it did try, and was refused
        worker.circuits.clear()
        circuit.succeeded()
        back = time.monotonic()
        while not worker.circuits and time.monotonic() - back < 30:  # set by its next claim that goes through
            time.sleep(0.05)
        waited = time.monotonic() - back
    finally:
        circuit.retry_after = retry_after
        circuit.succeeded()
        worker.stop.set()
        runner.join(timeout=30)
    assert worker.circuits, "no claim after the database returned"
    assert waited < 3, f"the worker claimed again {waited:.1f}s after the database returned"
