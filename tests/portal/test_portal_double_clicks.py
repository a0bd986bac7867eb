"""Forms sent twice at once (a double click): both submits run together on committed data, the second meeting the
first's row at a unique index. Each answers with what the first did, as a form sent again after the first had
finished does; never "This has changed" or "reload the page"."""

from __future__ import annotations

import uuid

import pytest
from django.db import connection

from consent.models import AccessGrant, ConsentRecord
from core.identity import Identity, identity_context
from tests.conftest import in_directory
from tests.test_api_concurrency import _met_while_it_waits


@pytest.fixture
def committed_portal(committed_db):
    yield
    from tests.conftest import admin_connect

    with admin_connect() as conn:  # logins leave users and sessions behind; they are not app tables
        conn.execute("DELETE FROM django_session")
        conn.execute("DELETE FROM portal_identity")
        conn.execute("DELETE FROM auth_user WHERE username LIKE 'oidc-%%'")


def _sent_while_the_first_commits(client, path: str, data: dict, first: tuple[str, list]):
    """POST ``data`` to ``path`` while another transaction holds ``first`` (the other submit's row), uncommitted
    until this request waits for it."""
    answer: dict = {}

    def send():
        try:
            answer["r"] = client.post(path, data, HTTP_ACCEPT="text/html")
        finally:
            connection.close()

    _met_while_it_waits(send, first=[first], then=[])
    return answer["r"]


def test_agree_clicked_twice_at_once_says_the_consent_is_in_force(committed_portal, world, people, signed_in):
    """Agree on the patient's consents page: the second submit answered the 'This has changed' page (409)."""
    pid = uuid.uuid4()
    world.consent(pid, "appointment_scheduling")  # the organisation and the patient exist
    sub = people.patient(pid)
    client = signed_in(sub)
    response = _sent_while_the_first_commits(client, "/me/consents/give/", {"purpose": "communication"}, (
        "INSERT INTO patient_consent (consent_record_id, organization_id, patient_id, purpose, status, granted_at, "
        "evidence_ref, policy_revision, recorded_by, created_at) VALUES (gen_random_uuid(), %s, %s, "
        "'communication', 'granted', now(), 'given by the patient in the portal', 'v1', %s, now())",
        [world.org, pid, sub]))
    assert response.status_code == 302, response.content.decode()[:2000]
    page = client.get("/me/consents/").content.decode()
    assert "Your consent for Communication with the patient is already in force. Nothing was changed." in page
    with identity_context(Identity(org_id=world.org, actor_sub="x", patient_self_id=pid)):
        assert ConsentRecord.objects.filter(patient_id=pid, purpose="communication", status="granted").count() == 1


def test_record_a_consent_sent_twice_at_once_says_it_already_exists(committed_portal, world, people, signed_in):
    """The staff console's consent form: the second submit said 'recorded at the same time; reload the page'."""
    pid = uuid.uuid4()
    world.consent(pid, "appointment_scheduling")
    nurse = people.staff("nurse")
    world.grant(pid, nurse, "communication")
    client = signed_in(nurse)
    response = _sent_while_the_first_commits(
        client, f"/staff/patients/{pid}/consents/new/",
        {"purpose": "communication", "evidence_ref": "signed form 42", "expires_at": ""}, (
            "INSERT INTO patient_consent (consent_record_id, organization_id, patient_id, purpose, status, "
            "granted_at, evidence_ref, policy_revision, recorded_by, created_at) VALUES (gen_random_uuid(), %s, %s, "
            "'communication', 'granted', now(), 'signed form 42', 'v1', %s, now())", [world.org, pid, nurse]))
    assert response.status_code == 302, response.content.decode()[:3000]
    page = client.get(f"/staff/patients/{pid}/?purpose=communication").content.decode()
    assert "An active consent for this purpose already exists; nothing was changed." in page


def test_grant_access_sent_twice_at_once_says_the_person_has_it(committed_portal, world, people, signed_in):
    """The administrators' access form: the second submit said 'created at the same time; reload the page'."""
    pid = uuid.uuid4()
    world.consent(pid, "appointment_scheduling")
    in_directory(world.org, pid)
    nurse = people.staff("nurse")
    admin = people.admin()
    client = signed_in(admin)
    response = _sent_while_the_first_commits(
        client, "/staff/access/", {"patient_id": str(pid), "actor_sub": nurse, "purpose": "communication",
                                   "reason": "covers the clinic this week", "expires_at": ""}, (
            "INSERT INTO patient_access_grants (grant_id, organization_id, patient_id, actor_sub, purpose, "
            "granted_by, reason, created_at) VALUES (gen_random_uuid(), %s, %s, %s, 'communication', %s, "
            "'covers the clinic this week', now())", [world.org, pid, nurse, admin]))
    assert response.status_code == 302, response.content.decode()[:3000]
    page = client.get("/staff/access/").content.decode()
    assert "That person already has this access; nothing was changed." in page
    with identity_context(Identity(org_id=world.org, actor_sub=admin, scopes=frozenset({"grant:write"}))):
        assert AccessGrant.objects.filter(patient_id=pid, actor_sub=nurse, purpose="communication").count() == 1


def _sent_twice_while_locked(client, path: str, data: dict, lock: tuple[str, list]) -> list:
    """Two submits of ``data`` to ``path`` that both read the page's record, then wait on ``lock`` (held by
    another transaction) until both wait; then they go through one after the other."""
    import threading
    import time

    from tests.conftest import admin_connect

    answers: list = []

    def send():
        try:
            answers.append(client.post(path, data, HTTP_ACCEPT="text/html"))
        finally:
            connection.close()

    with admin_connect() as other, admin_connect() as watcher:
        other.autocommit = False
        other.execute(*lock)
        threads = [threading.Thread(target=send) for _ in range(2)]
        for thread in threads:
            thread.start()
        deadline = time.monotonic() + 20
        while watcher.execute("SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock' "
                              "AND datname = current_database()").fetchone()[0] < 2:
            assert time.monotonic() < deadline, "the two submits never waited together"
            time.sleep(0.05)
        other.commit()
        for thread in threads:
            thread.join(timeout=30)
    return answers


def said(answers: list) -> list[str]:
    """The notices the answers left for the next page (read from each request: two requests of one session save
    it in either order)."""
    from django.contrib.messages import get_messages

    return [str(m) for a in answers for m in get_messages(a.wsgi_request)]


def test_a_correction_sent_twice_at_once_says_it_had_already_been_saved(committed_portal, world, people,
                                                                         signed_in):
    """Save correction clicked twice: the submit that waited for the other answered 'There is a problem. Nothing
    was saved. a superseded memory cannot be corrected', though the correction it held had been saved."""
    from tests.conftest import memory_body

    pid = uuid.uuid4()
    cid = world.consent(pid, "appointment_scheduling")
    r = world.patient(pid).post(f"/v1/patients/{pid}/memories", memory_body(cid, time="10:00"))
    assert r.status_code == 201, r.content
    memory_id = r.json()["memory_id"]
    client = signed_in(people.patient(pid))
    answers = _sent_twice_while_locked(client, f"/me/preferences/{memory_id}/correct/", {"time": "08:15"},
                                       ("SELECT 1 FROM patient_memory WHERE memory_id = %s FOR UPDATE", [memory_id]))
    assert [a.status_code for a in answers] == [302, 302], [a.content.decode()[:3000] for a in answers]
    assert "This correction had already been saved. Nothing more was changed." in said(answers)
    items = world.patient(pid).get(f"/v1/patients/{pid}/memories").json()["items"]
    assert [i["fact"]["time"] for i in items] == ["08:15"]


def test_quarantine_sent_twice_at_once_says_it_had_already_been_quarantined(committed_portal, world, people,
                                                                             signed_in):
    """Quarantine clicked twice on the staff console: the submit that waited for the other answered 'This memory
    can no longer be quarantined (it changed meanwhile)', as an error, though it was quarantined as asked."""
    from tests.conftest import memory_body

    pid = uuid.uuid4()
    cid = world.consent(pid, "appointment_scheduling")
    r = world.patient(pid).post(f"/v1/patients/{pid}/memories", memory_body(cid, time="10:00"))
    assert r.status_code == 201, r.content
    memory_id = r.json()["memory_id"]
    nurse = people.staff("nurse")
    world.grant(pid, nurse, "appointment_scheduling")
    client = signed_in(nurse)
    answers = _sent_twice_while_locked(client, f"/staff/patients/{pid}/memories/{memory_id}/quarantine/",
                                       {"reason_code": "doubtful_source"},
                                       ("SELECT 1 FROM patient_memory WHERE memory_id = %s FOR UPDATE", [memory_id]))
    assert [a.status_code for a in answers] == [302, 302], [a.content.decode()[:3000] for a in answers]
    assert "This memory had already been quarantined. Nothing more was changed." in said(answers)


def test_end_access_sent_twice_at_once_says_it_had_already_ended(committed_portal, world, people, signed_in):
    """End access clicked twice: both submits said 'Access ended.', the second's reason silently not kept, where a
    submit after the first had finished says the access had already ended and nothing was changed."""
    pid = uuid.uuid4()
    world.consent(pid, "appointment_scheduling")
    nurse = people.staff("nurse")
    world.grant(pid, nurse, "appointment_scheduling")
    client = signed_in(people.admin())
    with identity_context(Identity(org_id=world.org, actor_sub="x", scopes=frozenset({"grant:write"}))):
        grant_id = AccessGrant.objects.get(patient_id=pid, actor_sub=nurse).grant_id
    answers = _sent_twice_while_locked(client, f"/staff/access/{grant_id}/revoke/", {"reason": "left the ward"},
                                       ("SELECT 1 FROM patient_access_grants WHERE grant_id = %s FOR UPDATE",
                                        [grant_id]))
    assert [a.status_code for a in answers] == [302, 302], [a.content.decode()[:3000] for a in answers]
    notices = said(answers)
    assert "Access ended." in notices and any(n.startswith("This access had already ended on") for n in notices)
