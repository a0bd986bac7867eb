"""A database migrated and filled by the previous release's code migrates forward with its data intact.

The previous release is taken from the repository's history (``git archive``), so this runs that release's own
migrations and services, not today's: its ``memory.conversations`` app wrote the short-term context that today's
top-level ``conversations`` app must read back unchanged, beside long-term memory and consent written by it."""

from __future__ import annotations

import dataclasses
import json
import os
import subprocess
import sys
import tarfile
import uuid
from io import BytesIO
from pathlib import Path

import psycopg
import pytest
from django.conf import settings
from psycopg import sql

from core.bootstrap import bootstrap
from core.dbconfig import DatabaseTopology, embedded_data_dir

pytestmark = pytest.mark.slow

BASE_DIR = Path(settings.BASE_DIR)
# The last commit before conversations/ became a top-level app (its label, tables and migrations kept).
PREVIOUS_RELEASE = "90a3eef3429a36435e621da80c37abf61833e118"
DB_NAME = "anamnesis_previous_release"

WRITE_WITH_PREVIOUS = """
import json, uuid
from consent.services import consent_record
from core.identity import ACTOR_PATIENT, Identity, identity_context
from memory.conversations.services import session_start, turn_append
from memory.services import memory_record

org, pid = uuid.UUID("{org}"), uuid.UUID("{pid}")
me = Identity(org_id=org, actor_sub="patient-forward", patient_self_id=pid, actor_kind=ACTOR_PATIENT)
with identity_context(me):
    consent, _ = consent_record(identity=me, patient_id=pid, purpose="appointment_scheduling", evidence_ref="t")
    memory = memory_record(identity=me, patient_id=pid, memory_type="scheduling_preference",
                           attribute="earliest_time", fact={{"kind": "earliest_time", "time": "10:00"}},
                           consent_purpose="appointment_scheduling", consent_record_id=consent.consent_record_id)
    session = session_start(identity=me, patient_id=pid, purpose="appointment_scheduling")
    turn_append(identity=me, session_id=session.session_id, role="user", content="I can't do mornings")
print(json.dumps({{"memory_id": str(memory.memory_id), "session_id": str(session.session_id),
                  "consent_id": str(consent.consent_record_id)}}))
"""

READ_WITH_CURRENT = """
import json, uuid
from conversations.models import ConversationSession, ConversationTurn
from core.identity import ACTOR_PATIENT, Identity, identity_context
from memory.rendering import memory_out
from memory.selectors import memory_list_current

org, pid = uuid.UUID("{org}"), uuid.UUID("{pid}")
me = Identity(org_id=org, actor_sub="patient-forward", patient_self_id=pid, actor_kind=ACTOR_PATIENT)
with identity_context(me):
    sessions = [(str(s.session_id), s.purpose, s.turn_count, s.slots) for s in ConversationSession.objects.all()]
    turns = list(ConversationTurn.objects.order_by("seq").values_list("role", "content"))
    memories = [memory_out(m) for m in memory_list_current(identity=me, patient_id=pid)]
print(json.dumps({{"sessions": sessions, "turns": turns, "memories": [
    {{"memory_id": m["memory_id"], "fact": m["fact"], "text": m["text"], "state": m["state"],
      "consent_record_id": m["consent_record_id"]}} for m in memories]}}))
"""


def _topology() -> DatabaseTopology:
    topology = settings.DB_TOPOLOGY
    assert topology.admin is not None, "this test needs the embedded server or DATABASE_ADMIN_URL"
    return dataclasses.replace(topology, runtime=dataclasses.replace(topology.runtime, name=DB_NAME),
                               owner=dataclasses.replace(topology.owner, name=DB_NAME))


def _environment() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTEST", "DJANGO_SETTINGS"))}
    env.update(DJANGO_SETTINGS_MODULE="config.settings", ANAMNESIS_DB_NAME=DB_NAME, DB_POOL="false",
               # No model is needed to prove the data's way forward: vectors are left to reindexing.
               EMBEDDING_PROVIDER="openai", EMBEDDING_BASE_URL="http://127.0.0.1:9", EMBEDDING_MODEL="none")
    if settings.DB_TOPOLOGY.embedded:
        env["EMBEDDED_PGDATA"] = str(embedded_data_dir())
    else:
        for name in ("DATABASE_URL", "DATABASE_OWNER_URL"):
            url = env[name]
            env[name] = url[: url.rindex("/") + 1] + DB_NAME
    return env


def _manage(tree: Path, *args: str) -> str:
    done = subprocess.run([sys.executable, "manage.py", *args], cwd=tree, env=_environment(), capture_output=True,
                          text=True, timeout=300, check=False)
    assert done.returncode == 0, f"manage.py {args[0]} in {tree} failed:\n{done.stderr[-3000:]}"
    return done.stdout


@pytest.fixture
def previous_release(tmp_path) -> Path:
    archive = subprocess.run(["git", "archive", "--format=tar", PREVIOUS_RELEASE], cwd=BASE_DIR,
                             capture_output=True, timeout=120, check=False)
    assert archive.returncode == 0, f"the previous release is not in this clone's history: {archive.stderr!r}"
    tree = tmp_path / "previous"
    with tarfile.open(fileobj=BytesIO(archive.stdout)) as tar:
        tar.extractall(tree, filter="data")
    return tree


@pytest.fixture
def scratch_database():
    topology = _topology()
    bootstrap(topology, drop_first=True)
    yield topology
    with psycopg.connect(topology.admin.conninfo(dbname="postgres"), autocommit=True) as conn:
        conn.execute(sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(DB_NAME)))


def test_a_database_of_the_previous_release_migrates_forward_with_its_data(previous_release, scratch_database):
    org, pid = uuid.uuid4(), uuid.uuid4()
    _manage(previous_release, "migrate", "--database", "owner", "--verbosity", "0")
    written = json.loads(_manage(previous_release, "shell", "-c",
                                 WRITE_WITH_PREVIOUS.format(org=org, pid=pid)).strip().splitlines()[-1])

    _manage(BASE_DIR, "migrate", "--database", "owner", "--verbosity", "0")
    _manage(BASE_DIR, "migrate", "--database", "owner", "--check")  # nothing left unapplied
    read = json.loads(_manage(BASE_DIR, "shell", "-c", READ_WITH_CURRENT.format(org=org, pid=pid))
                      .strip().splitlines()[-1])

    assert [s[:3] for s in read["sessions"]] == [[written["session_id"], "appointment_scheduling", 1]]
    assert read["sessions"][0][3], "the slots the previous release parsed from the turn are kept"
    assert read["turns"] == [["user", "I can't do mornings"]]
    assert read["memories"] == [{"memory_id": written["memory_id"], "fact": {"kind": "earliest_time", "time": "10:00"},
                                 "text": read["memories"][0]["text"], "state": "active",
                                 "consent_record_id": written["consent_id"]}]
    assert "10:00" in read["memories"][0]["text"]
