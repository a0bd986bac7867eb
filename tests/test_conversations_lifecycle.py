"""Conversation lifecycles with time travel and real commits: sliding and absolute expiry, the sweep, concurrent
turns on one session, concurrent sessions for one patient, and a restart (a new process picks the session up)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import uuid
from datetime import timedelta
from pathlib import Path

import pytest
from django.conf import settings
from django.core.management import call_command
from django.db import connections
from django.utils import timezone

from conversations.models import ConversationSession
from core.identity import identity_context
from tests.conftest import admin_connect, database_contains, runtime_connect
from tests.support import run_threads
from tests.test_conversations_api import SEED_TURN_1, SEED_TURN_2, context, patient_identity, say, session_path, start

BASE_DIR = Path(__file__).resolve().parent.parent


def travel(org, pid, sid, *, idle_ago: timedelta) -> None:
    """Time travel inside the test's transaction: the last activity moves back; the trigger recomputes expiry."""
    with identity_context(patient_identity(org, pid)):
        ConversationSession.objects.filter(session_id=sid).update(last_activity_at=timezone.now() - idle_ago)


def admin_travel(sid, **columns) -> None:
    """Time travel on committed rows, as the superuser (the trigger recomputes expires_at from these columns)."""
    assignments = ", ".join(f"{name} = %s" for name in columns)
    with admin_connect() as conn:
        conn.execute(f"UPDATE conversation_session SET {assignments} WHERE session_id = %s", [*columns.values(), sid])


def admin_count(table: str, sid) -> int:
    with admin_connect() as conn:
        return conn.execute(f"SELECT count(*) FROM {table} WHERE session_id = %s", [sid]).fetchone()[0]


# --- timeouts ---------------------------------------------------------------------------------------------------

@pytest.mark.django_db
def test_after_four_idle_hours_the_session_is_refused_everywhere(world):
    api = world.patient(world.patient_a)
    sid = start(api, world.patient_a)["session"]["session_id"]
    say(api, sid, SEED_TURN_1)
    travel(world.org, world.patient_a, sid, idle_ago=timedelta(hours=4, seconds=1))
    for r in (api.post(session_path(sid, "/turns"), {"role": "user", "content": SEED_TURN_2}),
              api.get(session_path(sid, "/context")), api.get(session_path(sid)),
              api.post(session_path(sid, "/offers")), api.post(session_path(sid, "/turns/1/propose")),
              api.post(session_path(sid, "/end"), {"outcome": "completed"})):
        assert r.status_code == 410 and r.json()["code"] == "session_expired", r.content


@pytest.mark.django_db
def test_every_refusal_of_an_expired_session_is_in_the_patients_access_history(world):
    """Each use of an expired conversation is refused 410 and recorded as a denied act about the patient and the
    conversation's purpose, ending it included (the patient's history shows who tried what)."""
    api = world.patient(world.patient_a)
    sid = start(api, world.patient_a)["session"]["session_id"]
    say(api, sid, SEED_TURN_1)
    travel(world.org, world.patient_a, sid, idle_ago=timedelta(hours=4, seconds=1))
    assert api.post(session_path(sid, "/turns"), {"role": "user", "content": SEED_TURN_2}).status_code == 410
    assert api.post(session_path(sid, "/end"), {"outcome": "completed"}).status_code == 410
    events = api.get("/v1/audit-events", {"patient_id": str(world.patient_a)}).json()["items"]
    denied = {e["action"]: e for e in events if e["outcome"] == "denied"}
    assert set(denied) == {"conversation.turn", "conversation.end"}, events
    assert all(e["reason"] == "session_expired" and e["purpose"] == "appointment_scheduling"
               for e in denied.values()), denied


@pytest.mark.django_db
@pytest.mark.parametrize("how", ["completed", "expired"])
def test_a_retry_after_the_conversation_ended_or_expired_gets_no_stored_answer(world, how):
    """An Idempotency-Key retry gives the stored answer again only while the conversation is live. Once it ended
    (its slots cleared) or expired, a retry is 409 idempotent_response_withdrawn: never the old slots, nor a session
    reading "active"; and nothing is written."""
    api = world.patient(world.patient_a)
    start_key, turn_key = {"Idempotency-Key": f"start-{how}"}, {"Idempotency-Key": f"turn-{how}"}
    start_body = {"patient_id": str(world.patient_a), "purpose": "appointment_scheduling"}
    sid = api.post("/v1/sessions", start_body, headers=start_key).json()["session"]["session_id"]
    turn = {"role": "user", "content": SEED_TURN_1}
    assert api.post(session_path(sid, "/turns"), turn, headers=turn_key).status_code == 201
    again = api.post(session_path(sid, "/turns"), turn, headers=turn_key)
    assert again.status_code == 201 and again.headers["Idempotent-Replayed"] == "true"  # live: the stored answer
    if how == "completed":
        assert api.post(session_path(sid, "/end"), {"outcome": "completed"}).status_code == 200
    else:
        travel(world.org, world.patient_a, sid, idle_ago=timedelta(hours=4, seconds=1))
    for path, body, key in ((session_path(sid, "/turns"), turn, turn_key), ("/v1/sessions", start_body, start_key)):
        r = api.post(path, body, headers=key)
        assert r.status_code == 409 and r.json()["code"] == "idempotent_response_withdrawn", r.content
        assert "morning" not in r.content.decode()
    with identity_context(patient_identity(world.org, world.patient_a)):
        assert ConversationSession.objects.get(session_id=sid).turn_count == 1


@pytest.mark.django_db
def test_activity_slides_the_expiry(world):
    api = world.patient(world.patient_a)
    sid = start(api, world.patient_a)["session"]["session_id"]
    say(api, sid, SEED_TURN_1)
    travel(world.org, world.patient_a, sid, idle_ago=timedelta(hours=3, minutes=59))
    body = say(api, sid, SEED_TURN_2)
    remaining = (timezone.datetime.fromisoformat(body["session"]["expires_at"]) - timezone.now()).total_seconds()
    assert 4 * 3600 - 60 < remaining <= 4 * 3600
    assert context(api, sid)["context"]["slots"]["preferred_days"] == ["thursday"]


@pytest.mark.django_db
def test_a_shorter_configured_idle_timeout_applies(world, settings):
    settings.CONVERSATION_IDLE_SECONDS = 900
    api = world.patient(world.patient_a)
    sid = start(api, world.patient_a)["session"]["session_id"]
    travel(world.org, world.patient_a, sid, idle_ago=timedelta(minutes=16))
    assert api.get(session_path(sid, "/context")).json()["code"] == "session_expired"


def test_the_absolute_limit_ends_even_an_active_session(committed_db, world):
    api = world.patient(world.patient_a)
    sid = start(api, world.patient_a)["session"]["session_id"]
    say(api, sid, SEED_TURN_1)
    now = timezone.now()
    with admin_connect() as conn:  # 25 hours ago, busy until a second ago: only the absolute limit has passed
        conn.execute("SET session_replication_role = replica")
        conn.execute("UPDATE conversation_session SET created_at = %s, absolute_expires_at = %s, "
                     "last_activity_at = %s, expires_at = %s WHERE session_id = %s",
                     [now - timedelta(hours=25), now - timedelta(hours=1), now - timedelta(seconds=1),
                      now - timedelta(hours=1), sid])
    r = api.post(session_path(sid, "/turns"), {"role": "user", "content": SEED_TURN_2})
    assert r.status_code == 410 and r.json()["code"] == "session_expired"
    admin_travel(sid, last_activity_at=now)  # the trigger keeps the limit: activity cannot extend past it
    with admin_connect() as conn:
        expires, limit = conn.execute("SELECT expires_at, absolute_expires_at FROM conversation_session "
                                      "WHERE session_id = %s", [sid]).fetchone()
    assert expires == limit


# --- the sweep ----------------------------------------------------------------------------------------------------

def test_the_sweep_removes_expired_and_retired_sessions_with_their_turns(committed_db, world, settings):
    api = world.patient(world.patient_a)
    sids = {}
    for name in ("live", "expired", "ended_recently", "ended_long_ago"):
        sids[name] = start(api, world.patient_a)["session"]["session_id"]
        say(api, sids[name], SEED_TURN_1)
        say(api, sids[name], f"{name}: what about Thursday?")
    admin_travel(sids["expired"], last_activity_at=timezone.now() - timedelta(hours=5))
    assert api.post(session_path(sids["ended_recently"], "/end"), {"outcome": "completed"}).status_code == 200
    settings.CONVERSATION_ENDED_RETENTION_SECONDS = 0
    assert api.post(session_path(sids["ended_long_ago"], "/end"), {"outcome": "abandoned"}).status_code == 200
    assert len(database_contains("ended_long_ago: what about")) == 1

    call_command("sweep_sessions")
    for name, kept in (("live", True), ("expired", False), ("ended_recently", True), ("ended_long_ago", False)):
        assert admin_count("conversation_session", sids[name]) == int(kept), name
        assert admin_count("conversation_turn", sids[name]) == (2 if kept else 0), name
    assert database_contains("expired: what about") == [] and database_contains("ended_long_ago: what") == []
    assert api.get(session_path(sids["expired"], "/context")).status_code == 404
    with admin_connect() as conn:
        purged = conn.execute("SELECT resource_id, actor_sub, reason FROM audit_event "
                              "WHERE action = 'conversation.purge' ORDER BY reason").fetchall()
    assert purged == [(sids["ended_long_ago"], "service:session-sweep", "ended_retention"),
                      (sids["expired"], "service:session-sweep", "expired")]

    from conversations.services import session_sweep

    assert session_sweep() == {"sessions": 0, "turns": 0}, "idempotent"
    assert say(api, sids["live"], "still here?")["turn"]["seq"] == 3


def test_once_everything_is_swept_no_table_holds_the_conversation(committed_db, world, settings):
    settings.CONVERSATION_ENDED_RETENTION_SECONDS = 0
    api = world.patient(world.patient_a)
    sid = start(api, world.patient_a)["session"]["session_id"]
    say(api, sid, SEED_TURN_1)
    assert database_contains("blood thinners")
    api.post(session_path(sid, "/end"), {"outcome": "completed"})
    call_command("sweep_sessions")
    assert database_contains("blood thinners") == [] and database_contains("thinner") == []


def test_sweep_discovery_sees_only_due_sessions_and_only_in_maintenance(committed_db, world):
    api = world.patient(world.patient_a)
    live = start(api, world.patient_a)["session"]["session_id"]
    due = start(api, world.patient_a)["session"]["session_id"]
    admin_travel(due, last_activity_at=timezone.now() - timedelta(hours=5))
    with runtime_connect() as conn:
        assert conn.execute("SELECT count(*) FROM conversation_session").fetchone()[0] == 0
        with conn.transaction():
            conn.execute("SELECT set_config('app.maintenance', 'session_sweep', true)")
            seen = [str(r[0]) for r in conn.execute("SELECT session_id FROM conversation_session").fetchall()]
            assert seen == [due] and live not in seen
            assert conn.execute("SELECT count(*) FROM conversation_turn").fetchone()[0] == 0
            assert conn.execute("UPDATE conversation_session SET turn_count = 0").rowcount == 0, "SELECT only"
            assert conn.execute("DELETE FROM conversation_session").rowcount == 0, "no deletion without identity"


# --- concurrency ------------------------------------------------------------------------------------------------

def test_concurrent_turns_on_one_session_are_ordered_and_never_lost(committed_db, world):
    api = world.patient(world.patient_a)
    sid = start(api, world.patient_a)["session"]["session_id"]
    writers, per_writer = 6, 5

    def writer(i):
        me = world.patient(world.patient_a)
        seqs = []
        for j in range(per_writer):
            r = me.post(session_path(sid, "/turns"), {"role": "user", "content": f"writer {i} message {j}"})
            assert r.status_code == 201, r.content
            seqs.append(r.json()["turn"]["seq"])
        return i, seqs

    results = run_threads(writers, writer)
    all_seqs = sorted(s for _, seqs in results for s in seqs)
    assert all_seqs == list(range(1, writers * per_writer + 1)), "one sequence number each, no gaps, no repeats"
    for _, seqs in results:
        assert seqs == sorted(seqs), "each writer's turns keep their order"
    body = context(api, sid, max_tokens=4000)
    assert body["budget"]["turns_total"] == writers * per_writer
    with admin_connect() as conn:
        rows = conn.execute("SELECT seq, content FROM conversation_turn WHERE session_id = %s ORDER BY seq",
                            [sid]).fetchall()
    assert len(rows) == writers * per_writer
    for i, _ in results:
        mine = [content for _, content in rows if content.startswith(f"writer {i} ")]
        assert mine == [f"writer {i} message {j}" for j in range(per_writer)]


def test_concurrent_sessions_for_one_patient_stay_independent(committed_db, world):
    scripts = {0: ["I need to reschedule my cardiology follow-up.", "I can't do mornings", SEED_TURN_2],
               1: ["I'd like to book a dermatology appointment", "Mondays are impossible", "after 14:30"]}

    def talk(i):
        me = world.patient(world.patient_a)
        sid = start(me, world.patient_a)["session"]["session_id"]
        for text in scripts[i]:
            say(me, sid, text)
        return i, sid

    sessions = dict(run_threads(2, talk))
    api = world.patient(world.patient_a)
    cardiology = context(api, sessions[0])["context"]
    dermatology = context(api, sessions[1])["context"]
    assert cardiology["slots"]["specialty"] == "cardiology" and cardiology["slots"]["excluded_days"] == []
    assert cardiology["slots"]["excluded_periods"] == ["morning"] and cardiology["slots"]["earliest_time"] is None
    assert dermatology["slots"]["specialty"] == "dermatology" and dermatology["slots"]["excluded_periods"] == []
    assert dermatology["slots"]["excluded_days"] == ["monday"] and dermatology["slots"]["earliest_time"] == "14:30"
    assert {m["content"] for m in cardiology["messages"]} == set(scripts[0])
    assert api.post(session_path(sessions[0], "/end"), {"outcome": "completed"}).status_code == 200
    assert say(api, sessions[1], "Thursday then")["slots"]["preferred_days"] == ["thursday"]


# --- restart ------------------------------------------------------------------------------------------------------

CHILD = """
import json, uuid
from core.identity import ACTOR_PATIENT, Identity, identity_context
from conversations import selectors, services
org, pid, sid = (uuid.UUID(x) for x in {ids!r})
me = Identity(org_id=org, actor_sub=f"patient-{{pid}}", patient_self_id=pid, actor_kind=ACTOR_PATIENT,
              scopes=frozenset({{"memory:read", "memory:write"}}))
with identity_context(me):
    appended = services.turn_append(identity=me, session_id=sid, role="user", content={text!r})
    session, built = selectors.session_context(identity=me, session_id=sid, max_tokens=2000)
print("RESULT " + json.dumps({{"seq": appended.turn.seq, "slots": session.slots,
                              "sources": [m["source_id"] for m in built.context["messages"]]}}))
"""


def test_a_new_process_picks_the_session_up(committed_db, world):
    """Everything is in PostgreSQL: another process (a restarted server) continues the booking where it was."""
    api = world.patient(world.patient_a)
    sid = start(api, world.patient_a)["session"]["session_id"]
    say(api, sid, SEED_TURN_1)
    connections.close_all()
    env = {"DJANGO_SETTINGS_MODULE": settings.SETTINGS_MODULE, "ANAMNESIS_DB_NAME": settings.DB_TOPOLOGY.runtime.name,
           "DB_POOL": "false"}
    code = CHILD.format(ids=[str(world.org), str(world.patient_a), sid], text=SEED_TURN_2)
    done = subprocess.run([sys.executable, "manage.py", "shell", "-c", code], cwd=BASE_DIR, capture_output=True,
                          text=True, timeout=120, env={**os.environ, **env}, check=False)
    assert done.returncode == 0, done.stderr[-2000:]
    result = json.loads(next(line for line in done.stdout.splitlines() if line.startswith("RESULT "))[7:])
    assert result["seq"] == 2 and result["sources"] == ["turn:1", "turn:2"]
    assert result["slots"]["specialty"] == "cardiology" and result["slots"]["excluded_periods"] == ["morning"]
    assert result["slots"]["preferred_days"] == ["thursday"]
    body = context(api, sid)
    assert [m["content"] for m in body["context"]["messages"]] == [SEED_TURN_1, SEED_TURN_2]
    assert uuid.UUID(body["session_id"]) == uuid.UUID(sid)
