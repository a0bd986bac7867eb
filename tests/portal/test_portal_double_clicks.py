"""Forms sent twice at once (a double click): both submits run together on committed data, the second meeting the
first's row at a unique index. Each answers with what the first did, as a form sent again after the first had
finished does; never "This has changed" or "reload the page"."""

from __future__ import annotations

import uuid

import pytest
from django.db import connection

from consent.models import AccessGrant, ConsentRecord
from core.identity import Identity, identity_context
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
