"""Concurrency through the HTTP stack, with real commits (no test transaction)."""

from __future__ import annotations

from tests.conftest import memory_body
from tests.support import run_threads


def mem_path(pid) -> str:
    return f"/v1/patients/{pid}/memories"


def test_concurrent_writers_get_success_or_409_never_two_current(committed_db, world):
    cid = world.consent(world.patient_a)
    statuses = run_threads(6, lambda i: world.patient(world.patient_a).post(
        mem_path(world.patient_a), memory_body(cid, time=f"{8 + i:02d}:00")).status_code)
    assert len(statuses) == 6 and set(statuses) <= {201, 409}, statuses
    items = world.patient(world.patient_a).get(mem_path(world.patient_a)).json()["items"]
    assert len(items) == 1


def test_identical_proposals_at_once_make_one_proposal(committed_db, world):
    """The same proposal sent six times at once: one is written (201), the others are answered with it (200)."""
    cid = world.consent(world.patient_a)
    body = {**memory_body(cid, "latest_time", "15:00"), "source_ref": "session:s1/turn:3"}
    answers = run_threads(6, lambda _: world.patient(world.patient_a).post(
        f"{mem_path(world.patient_a)}/proposals", body))
    assert sorted(r.status_code for r in answers) == [200, 200, 200, 200, 200, 201], [r.content for r in answers]
    assert len({r.json()["memory_id"] for r in answers}) == 1
    proposals = world.patient(world.patient_a).get(f"{mem_path(world.patient_a)}/proposals").json()["items"]
    assert [p["memory_id"] for p in proposals] == [answers[0].json()["memory_id"]]


def test_concurrent_checkpoint_writers_get_one_success_and_409s(committed_db, world):
    api = world.patient(world.patient_a)
    wf = api.post("/v1/workflows", {"workflow_type": "prior_authorization",
                                    "patient_id": str(world.patient_a)}).json()
    statuses = run_threads(5, lambda _: world.patient(world.patient_a).post(
        f"/v1/workflows/{wf['workflow_id']}/checkpoint",
        {"expected_version": 1, "next_step": "submit_prior_authorization"}).status_code)
    assert sorted(statuses) == [200, 409, 409, 409, 409]
    assert api.get(f"/v1/workflows/{wf['workflow_id']}").json()["version"] == 2


def test_one_turn_proposed_concurrently_gives_one_proposal_per_attribute(committed_db, world):
    from tests.test_conversations_api import say, session_path, start

    world.consent(world.patient_a)
    api = world.patient(world.patient_a)
    sid = start(api, world.patient_a)["session"]["session_id"]
    say(api, sid, "Please don't book me before 10 a.m. and nothing after 5pm.")
    statuses = run_threads(6, lambda _: world.patient(world.patient_a).post(
        session_path(sid, "/turns/1/propose")).status_code)
    assert len(statuses) == 6 and set(statuses) <= {200, 201}, statuses
    proposals = api.get(f"/v1/patients/{world.patient_a}/memories/proposals").json()["items"]
    attributes = sorted(p["attribute"] for p in proposals)
    assert attributes == sorted(set(attributes)) and len(attributes) == 2, attributes


def test_a_withdrawal_racing_writes_leaves_nothing_active_under_it_and_never_deadlocks(committed_db, world):
    """A withdrawal and writes under the same consent, released together: every answer is a success or a clear
    refusal (never 503 from a deadlock), the consent ends withdrawn, and no memory is left active under it, whether
    it was written before or after the withdrawal took effect."""
    from core.identity import Identity, identity_context
    from memory.models import Memory

    for _ in range(3):
        pid = world.patient_a
        cid = world.consent(pid, "communication")
        api = world.patient(pid)
        existing = api.post(mem_path(pid), {"memory_type": "preferred_name", "fact": {"preferred_name": "Al"},
                                            "consent_purpose": "communication", "consent_record_id": cid})
        assert existing.status_code == 201, existing.content

        def act(i):
            me = world.patient(pid)
            if i == 0:
                return "revoke", me.post(f"/v1/patients/{pid}/consents/{cid}/revoke").status_code
            if i == 1:  # a correction supersedes the current value under the same consent
                return "correct", me.post(f"{mem_path(pid)}/{existing.json()['memory_id']}/correct",
                                          {"fact": {"preferred_name": "Alfie"}}).status_code
            body = {"memory_type": "reminder_preference", "fact": {"channel": ["sms", "email", "phone"][i % 3],
                                                                    "lead_time_hours": 24},
                    "consent_purpose": "communication", "consent_record_id": cid}
            return "create", me.post(mem_path(pid), body).status_code

        outcomes = run_threads(5, act)
        assert ("revoke", 200) in outcomes, outcomes
        assert {status for _, status in outcomes} <= {200, 201, 403, 404, 409}, outcomes
        with identity_context(Identity(org_id=world.org, actor_sub="t", patient_self_id=pid)):
            left = list(Memory.objects.filter(consent_record_id=cid, state__in=["active", "proposed",
                                                                              "quarantined"]))
            kept = [m for m in Memory.objects.filter(consent_record_id=cid).exclude(state="deleted")
                    if m.expires_at > m.updated_at]
        assert left == [], [(m.memory_type, m.state) for m in left]
        assert kept == [], [(m.memory_type, m.state) for m in kept]


def _met_while_it_waits(request, *, first: list[tuple[str, list]], then: list[tuple[str, list]]) -> None:
    """Another session runs ``first`` in a transaction (a writer of the service taking its first locks), starts
    ``request`` in a thread, waits until that request waits for a lock, then runs ``then`` and commits: the moment
    two writers meet, every time."""
    import threading
    import time

    from tests.conftest import admin_connect

    with admin_connect() as other, admin_connect() as watcher:
        other.autocommit = False
        for statement in first:
            other.execute(*statement)
        thread = threading.Thread(target=request)
        thread.start()
        deadline = time.monotonic() + 20
        while not watcher.execute("SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock' "
                                  "AND datname = current_database()").fetchone()[0]:
            assert time.monotonic() < deadline, "the request never waited for a lock"
            time.sleep(0.05)
        other.execute("SET LOCAL lock_timeout = '5s'")
        for statement in then:
            other.execute(*statement)
        other.commit()
        thread.join(timeout=30)


def test_a_correction_waits_for_a_write_of_the_same_attribute_instead_of_deadlocking(committed_db, world):
    """A write holds the attribute's lock, then locks its current record; a correction of that record arriving
    meanwhile waits for the write's lock before it takes the record's, so both go through (it used to hold the
    record and wait for the attribute: a deadlock, and one of them answered 503)."""
    from memory.services import _attribute_lock_key

    pid = world.patient_a
    cid = world.consent(pid)
    api = world.patient(pid)
    first = api.post(mem_path(pid), memory_body(cid, time="10:00"))
    assert first.status_code == 201, first.content
    memory_id = first.json()["memory_id"]
    answer: dict = {}

    def correct():
        answer["correct"] = world.patient(pid).post(f"{mem_path(pid)}/{memory_id}/correct",
                                                    {"fact": {"kind": "earliest_time", "time": "09:00"}})

    # as memory_write does: the attribute's lock first, then its current record
    attribute = _attribute_lock_key(world.org, pid, "scheduling_preference", "earliest_time", "appointment_scheduling")
    _met_while_it_waits(correct, first=[("SELECT pg_advisory_xact_lock(hashtextextended(%s, 0))", [attribute])],
                        then=[("SELECT 1 FROM patient_memory WHERE memory_id = %s FOR UPDATE", [memory_id])])
    assert answer["correct"].status_code == 201, answer["correct"].content
    items = api.get(mem_path(pid)).json()["items"]
    assert [i["fact"]["time"] for i in items] == ["09:00"]


def test_erasing_everything_waits_for_a_deletion_of_one_memory_instead_of_deadlocking(committed_db, world):
    """Deleting one memory locks it, then the version it superseded; erasing all locks every memory by age, the
    older version first. Erase-all now waits for a deletion under way before its first row (as the deletion holds
    the patient's erasure lock), so both go through; it used to lock the older version, wait for the newer one,
    and the deletion's wait for the older closed a deadlock that failed erase-all with 503."""
    pid = world.patient_a
    cid = world.consent(pid)
    api = world.patient(pid)
    older = api.post(mem_path(pid), memory_body(cid, time="10:00")).json()["memory_id"]
    newer = api.post(f"{mem_path(pid)}/{older}/correct", {"fact": {"kind": "earliest_time", "time": "09:00"}})
    assert newer.status_code == 201, newer.content
    answer: dict = {}

    def erase_all():
        answer["erase"] = world.patient(pid).request("DELETE", mem_path(pid))

    # as memory_delete does: the patient's erasure lock, the memory, then the version it superseded
    row = "SELECT 1 FROM patient_memory WHERE memory_id = %s FOR UPDATE"
    _met_while_it_waits(erase_all, first=[("SELECT pg_advisory_xact_lock(hashtextextended(%s, 0))",
                                           [f"memory-erasure:{world.org}:{pid}"]),
                                          (row, [newer.json()["memory_id"]])],
                        then=[(row, [older])])
    assert answer["erase"].status_code == 200, answer["erase"].content
    assert sorted(answer["erase"].json()["memory_ids"]) == sorted([older, newer.json()["memory_id"]])


def test_confirming_a_proposal_waits_for_a_deletion_of_the_value_instead_of_deadlocking(committed_db, world):
    """Deleting a memory locks it, then the proposals waiting with its value; confirming a proposal locked the
    proposal, then the attribute's current value: the two met in a deadlock and one answered 503. Confirming now
    waits for a deletion (or erase-all) under way before its first row, as they wait for each other."""
    pid = world.patient_a
    cid = world.consent(pid)
    api = world.patient(pid)
    current = api.post(mem_path(pid), memory_body(cid, "latest_time", "15:00")).json()["memory_id"]
    proposal = api.post(f"{mem_path(pid)}/proposals", {**memory_body(cid, "latest_time", "16:00"),
                                                       "source_ref": "turn:1"})
    assert proposal.status_code == 201, proposal.content
    answer: dict = {}

    def confirm():
        answer["confirm"] = world.patient(pid).post(f"{mem_path(pid)}/{proposal.json()['memory_id']}/confirm")

    # as memory_delete does: the patient's erasure lock, the memory, then the proposals waiting with its value
    row = "SELECT 1 FROM patient_memory WHERE memory_id = %s FOR UPDATE"
    _met_while_it_waits(confirm, first=[("SELECT pg_advisory_xact_lock(hashtextextended(%s, 0))",
                                         [f"memory-erasure:{world.org}:{pid}"]), (row, [current])],
                        then=[(row, [proposal.json()["memory_id"]])])
    assert answer["confirm"].status_code == 200, answer["confirm"].content
    assert [i["fact"]["time"] for i in api.get(mem_path(pid)).json()["items"]] == ["16:00"]
