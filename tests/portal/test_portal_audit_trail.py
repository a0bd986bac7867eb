"""Each portal page leaves exactly the audit rows of the reads it shows: one row per read, with the action, resource,
patient and outcome the page has always recorded, whichever layer writes them."""

from __future__ import annotations

from collections import Counter

import pytest

from core.identity import Identity, identity_context
from core.models import AuditEvent
from tests.conftest import grant_outside_directory, memory_body
from tests.portal.test_portal_open_model import register

pytestmark = pytest.mark.django_db


def rows_of(client, world, actor_sub: str, path: str, *, status: int = 200) -> Counter:
    """The audit rows ``actor_sub`` leaves by opening ``path``, counted as
    (action, resource_type, resource_id, patient_id, outcome, reason)."""
    auditor = Identity(org_id=world.org, actor_sub="auditor", scopes=frozenset({"audit:read"}))
    with identity_context(auditor):
        before = set(AuditEvent.objects.filter(actor_sub=actor_sub).values_list("id", flat=True))
    response = client.get(path)
    assert response.status_code == status, response.content[:300]
    if hasattr(response, "streaming_content"):
        b"".join(response.streaming_content)
    with identity_context(auditor):
        new = AuditEvent.objects.filter(actor_sub=actor_sub).exclude(id__in=before)
        return Counter((e.action, e.resource_type, e.resource_id, e.patient_id, e.outcome, e.reason) for e in new)


@pytest.fixture
def alice(world, people, signed_in):
    consent = world.consent(world.patient_a)
    register(world, world.patient_a, "Alice Nowak", "1980-02-03", "MRN-A-1")
    sub = people.patient(world.patient_a, name="Alice")
    return {"sub": sub, "client": signed_in(sub), "consent": consent}


@pytest.mark.parametrize("path, expected", [
    ("/me/", [("memory.list", "memory", None)]),
    ("/me/consents/", [("consent.list", "consent", None)]),
    ("/me/deletions/", [("memory.deletions", "memory_deletion", None)]),
    ("/me/activity/", [("audit.list", "audit_event", None)]),
])
def test_a_patients_pages_record_one_read_each(world, alice, path, expected):
    rows = rows_of(alice["client"], world, alice["sub"], path)
    assert rows == Counter((*e, world.patient_a, "success", None) for e in expected)


def test_opening_a_deletion_receipt_is_one_read_of_that_receipt(world, alice):
    """The receipts list was recorded as a read, but opening one receipt (reached from the list, or after a
    deletion) read every receipt the patient had, whole, and recorded nothing. It reads that one receipt, recorded
    as the list is (``memory.deletions``) naming it; another patient's receipt is not found and reads nothing."""
    consent = world.consent(world.patient_b)
    r = world.patient(world.patient_b).post(f"/v1/patients/{world.patient_b}/memories", memory_body(consent))
    assert r.status_code == 201, r.content
    api = world.patient(world.patient_b)
    gone = api.client.delete(f"/v1/patients/{world.patient_b}/memories", HTTP_AUTHORIZATION=f"Bearer {api.token}")
    assert gone.status_code == 200, gone.content
    others = gone.json()["deletion_id"]
    assert rows_of(alice["client"], world, alice["sub"], f"/me/deletions/{others}/", status=404)[
        ("memory.deletions", "memory_deletion", others, world.patient_a, "success", None)] == 0
    sent = alice["client"].post("/me/preferences/delete-all/", {"confirm": "yes"})
    receipt = sent["Location"].rstrip("/").rsplit("/", 1)[1]
    rows = rows_of(alice["client"], world, alice["sub"], f"/me/deletions/{receipt}/")
    assert rows == Counter([("memory.deletions", "memory_deletion", receipt, world.patient_a, "success", None)])


def test_a_refused_history_cursor_is_not_a_read(world, alice):
    assert rows_of(alice["client"], world, alice["sub"], "/me/activity/?older=not-a-cursor", status=400) == Counter()


@pytest.mark.parametrize("fmt", ["json", "fhir"])
def test_the_download_button_records_the_export_with_its_format(world, alice, fmt):
    rows = rows_of(alice["client"], world, alice["sub"], f"/me/export/?format={fmt}")
    assert rows == Counter([("patient.export", "patient", str(world.patient_a), world.patient_a, "success", fmt)])


@pytest.mark.parametrize("method", ["OPTIONS", "HEAD", "TRACE"])
def test_the_download_is_given_only_to_a_get(world, alice, method):
    """A method the browser's CSRF check lets through (OPTIONS, HEAD, TRACE) ran the download: OPTIONS answered
    the patient's whole record and each recorded a copy downloaded that nobody asked for. It is a 405 naming GET,
    as every other page answers a method it does not take, and nothing is recorded."""
    auditor = Identity(org_id=world.org, actor_sub="auditor", scopes=frozenset({"audit:read"}))
    response = alice["client"].generic(method, "/me/export/?format=json", HTTP_ACCEPT="text/html")
    assert response.status_code == 405 and response["Allow"] == "GET"
    assert "Content-Disposition" not in response and str(world.patient_a) not in response.content.decode()
    with identity_context(auditor):
        assert not AuditEvent.objects.filter(actor_sub=alice["sub"], action="patient.export").exists()


@pytest.fixture
def nurse(world, people, signed_in):
    register(world, world.patient_a, "Alice Nowak", "1980-02-03", "MRN-A-1")
    register(world, world.patient_b, "Bob Nowak", "1975-06-07", "MRN-B-1")
    sub = people.staff("nurse")
    world.grant(world.patient_a, sub, "appointment_scheduling")
    return {"sub": sub, "client": signed_in(sub)}


def test_the_staff_list_records_each_patient_shown_and_each_found(world, nurse):
    a = world.patient_a
    assert rows_of(nurse["client"], world, nurse["sub"], "/staff/") == Counter([
        ("patient.list", "patient", str(a), a, "success", None)])
    # the search finds only the patients she may see (Bob's grant is someone else's business)
    assert rows_of(nurse["client"], world, nurse["sub"], "/staff/?q=Nowak") == Counter([
        ("patient.search", "patient", str(a), a, "success", None),
        ("patient.list", "patient", str(a), a, "success", None)])


def test_a_staff_patient_page_records_its_memories_profile_and_flags(world, nurse):
    a = world.patient_a
    assert rows_of(nurse["client"], world, nurse["sub"], f"/staff/patients/{a}/") == Counter([
        ("memory.list", "memory", None, a, "success", None),
        ("patient.read", "patient", str(a), a, "success", None),
        ("conversation.flags", "conversation_session", None, a, "success", None)])


def purposes_of(world, actor_sub: str, since: set) -> Counter:
    auditor = Identity(org_id=world.org, actor_sub="auditor", scopes=frozenset({"audit:read"}))
    with identity_context(auditor):
        new = AuditEvent.objects.filter(actor_sub=actor_sub).exclude(id__in=since)
        return Counter((e.action, e.purpose) for e in new)


def audit_ids(world, actor_sub: str) -> set:
    auditor = Identity(org_id=world.org, actor_sub="auditor", scopes=frozenset({"audit:read"}))
    with identity_context(auditor):
        return set(AuditEvent.objects.filter(actor_sub=actor_sub).values_list("id", flat=True))


def test_staff_with_grants_for_several_purposes_read_for_one_named_in_the_patients_history(world, nurse):
    """Each read of the page names the purpose it is for (the patient's history shows it, never "Not stated"),
    shows only what is kept for that purpose, and offers the others the grants cover; a purpose no grant covers
    is not found, as a patient without a grant is."""
    a = world.patient_a
    world.grant(a, nurse["sub"], "communication")
    sched, comm = world.consent(a, "appointment_scheduling"), world.consent(a, "communication")
    api = world.patient(a)
    assert api.post(f"/v1/patients/{a}/memories", memory_body(sched, "earliest_time", "07:45")).status_code == 201
    assert api.post(f"/v1/patients/{a}/memories", {
        "memory_type": "communication_preference", "fact": {"kind": "channel", "channel": "email"},
        "consent_purpose": "communication", "consent_record_id": comm}).status_code == 201
    client = nurse["client"]

    before = audit_ids(world, nurse["sub"])
    page = client.get(f"/staff/patients/{a}/").content.decode()
    assert "07:45" in page and "mail" not in page.split("Current memories")[1].split("</section>")[0]
    assert 'href="?purpose=communication"' in page
    assert purposes_of(world, nurse["sub"], before) == Counter({
        ("memory.list", "appointment_scheduling"): 1, ("patient.read", "appointment_scheduling"): 1,
        ("conversation.flags", "appointment_scheduling"): 1})

    before = audit_ids(world, nurse["sub"])
    page = client.get(f"/staff/patients/{a}/?purpose=communication").content.decode()
    assert "07:45" not in page and "mail" in page.split("Current memories")[1].split("</section>")[0]
    assert purposes_of(world, nurse["sub"], before) == Counter({
        ("memory.list", "communication"): 1, ("patient.read", "communication"): 1,
        ("conversation.flags", "communication"): 1})

    assert client.get(f"/staff/patients/{a}/?purpose=care_coordination").status_code == 404
    assert client.get(f"/staff/patients/{a}/?purpose=nonsense").status_code == 404


def test_a_staff_page_showing_one_memory_records_its_read_for_the_memorys_purpose(world, nurse):
    """Opening the correct or quarantine page shows the value: a read in the patient's history, named with the
    purpose the memory is kept for; sending the form is the change, not another read."""
    a = world.patient_a
    consent = world.consent(a)
    r = world.patient(a).post(f"/v1/patients/{a}/memories", memory_body(consent, "earliest_time", "08:15"))
    memory_id = r.json()["memory_id"]
    client = nurse["client"]
    for page in ("correct", "quarantine"):
        before = audit_ids(world, nurse["sub"])
        assert client.get(f"/staff/patients/{a}/memories/{memory_id}/{page}/").status_code == 200
        assert purposes_of(world, nurse["sub"], before) == Counter({("memory.read", "appointment_scheduling"): 1})
    before = audit_ids(world, nurse["sub"])
    client.post(f"/staff/patients/{a}/memories/{memory_id}/quarantine/", {"reason_code": "disputed_by_patient"})
    assert ("memory.read", "appointment_scheduling") not in purposes_of(world, nurse["sub"], before)


def test_a_staff_patient_page_without_a_profile_records_no_patient_read(world, people, signed_in):
    sub = people.staff("nurse")
    grant_outside_directory(world.org, world.patient_a, sub, "appointment_scheduling")
    rows = rows_of(signed_in(sub), world, sub, f"/staff/patients/{world.patient_a}/")
    assert sorted(action for action, *_ in rows.elements()) == ["conversation.flags", "memory.list"]


def test_the_workflow_monitor_records_the_queue_read(world, nurse):
    assert rows_of(nurse["client"], world, nurse["sub"], "/staff/workflows/") == Counter([
        ("workflow.reconciliation.list", "workflow", None, None, "success", None)])


def test_the_access_page_records_each_patient_found_and_the_grant_list(world, people, signed_in):
    register(world, world.patient_a, "Alice Nowak", "1980-02-03", "MRN-A-1")
    sub = people.admin()
    client = signed_in(sub)
    a = world.patient_a
    assert rows_of(client, world, sub, "/staff/access/") == Counter([
        ("grant.list", "access_grant", None, None, "success", None)])
    assert rows_of(client, world, sub, "/staff/access/?patient_q=Alice&staff_q=nobody") == Counter([
        ("patient.search", "patient", str(a), a, "success", None),
        ("grant.list", "access_grant", None, None, "success", None)])
