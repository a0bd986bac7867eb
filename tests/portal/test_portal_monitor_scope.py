"""The staff workflow monitor lists for reconciliation only the patients and purposes the viewer holds grants
for; the organisation-wide queue is the administrator's (``workflow:reconcile:org``) and is labelled as such."""

from __future__ import annotations

import re

import pytest

from core.identity import ACTOR_PATIENT, Identity, identity_context
from workflows.models import Operation, Workflow

pytestmark = pytest.mark.django_db

SUBMIT = "submit_prior_authorization"


def _stuck(world, patient_id) -> str:
    api = world.patient(patient_id)
    wf = api.post("/v1/workflows", {"workflow_type": "prior_authorization", "patient_id": str(patient_id)}).json()
    for version, step in ((1, SUBMIT), (2, "needs_reconciliation")):
        r = api.post(f"/v1/workflows/{wf['workflow_id']}/checkpoint",
                     {"expected_version": version, "next_step": step, "state_patch": {}})
        assert r.status_code == 200, r.content
    return wf["workflow_id"]


def test_the_monitor_shows_a_nurse_only_her_granted_patients_and_an_administrator_the_organisation(
        world, people, signed_in):
    stuck_a = _stuck(world, world.patient_a)
    stuck_b = _stuck(world, world.patient_b)
    nurse_sub = people.staff("nurse")
    world.grant(world.patient_a, nurse_sub, "prior_authorization")
    page = signed_in(nurse_sub).get("/staff/workflows/").content.decode()
    assert 'data-view="granted_patients"' in page
    assert stuck_a[:10] in page and stuck_b[:10] not in page
    page = signed_in(people.admin()).get("/staff/workflows/").content.decode()
    assert 'data-view="organization"' in page
    assert stuck_a[:10] in page and stuck_b[:10] in page


def test_the_queue_names_each_patient(world, people, signed_in):
    """The queue showed each patient as the first 12 characters of their id, which tell no two patients apart
    (the demo's all begin 00000000-000): staff could record an outcome for the wrong one. Each is named, from the
    directory; a patient not in it is shown by the whole id."""
    admin = world.staff("admin-1", scope="patient:write")
    assert admin.post("/v1/patients", {"patient_id": str(world.patient_a), "display_name": "Ada Quill"},
                      ).status_code == 201
    _stuck(world, world.patient_a)
    _stuck(world, world.patient_b)
    page = signed_in(people.admin()).get("/staff/workflows/").content.decode()
    queue = page[page.index("Needing reconciliation"):]
    assert "<td>Ada Quill</td>" in queue and f"Unnamed patient <code>{world.patient_b}</code>" in queue


def _unknown_and_stuck(world, workflow_id: str, operation_id: str) -> str:
    """What the worker leaves when the insurer's answer was lost: the operation's outcome unknown, the workflow in
    needs_reconciliation (version 3)."""
    patient = Identity(org_id=world.org, actor_sub=f"patient-{world.patient_a}", patient_self_id=world.patient_a,
                       actor_kind=ACTOR_PATIENT)
    with identity_context(patient):
        Operation.objects.filter(pk=operation_id).update(status="outcome_unknown", outcome_uncertain=True, attempts=1)
        Workflow.objects.filter(pk=workflow_id).update(current_step="needs_reconciliation", version=3)
    return operation_id


PAYLOAD = {"referral_id": "REF-1", "diagnosis_code": "E11.9", "medication_code": "860975", "member_ref": "M-1"}


def test_staff_record_from_the_monitor_what_the_insurer_said_of_an_unknown_outcome(world, people, signed_in):
    """The monitor's queue listed an operation whose outcome was unknown with no way to record what the nurse
    learnt by asking the insurer. Its row has a form (the REST resolve): sent with the insurer's reference moves
    the workflow on; the same answer again changes nothing; one without its reference records nothing."""
    api = world.patient(world.patient_a)
    wf = api.post("/v1/workflows", {"workflow_type": "prior_authorization", "patient_id": str(world.patient_a)}).json()
    r = api.post(f"/v1/workflows/{wf['workflow_id']}/checkpoint", {
        "expected_version": 1, "next_step": SUBMIT, "request_operation": {"kind": SUBMIT, "payload": PAYLOAD}})
    op = r.json()["pending_operations"][0]["operation_id"]
    _unknown_and_stuck(world, wf["workflow_id"], op)
    nurse_sub = people.staff("nurse")
    world.grant(world.patient_a, nurse_sub, "prior_authorization")
    nurse = signed_in(nurse_sub)
    page = nurse.get("/staff/workflows/").content.decode()
    action = f"/staff/workflows/{wf['workflow_id']}/operations/{op}/resolve"
    assert f'action="{action}"' in page and 'name="expected_version" value="3"' in page
    # sent without its reference: the monitor again, the row's form as it was sent with what is wrong beside it
    # (it was an error page that lost what was chosen), nothing recorded
    refused = nurse.post(action, {"expected_version": "3", "outcome": "sent", "external_id": " "})
    html = refused.content.decode()
    assert refused.status_code == 422 and "<title>Error: " in html
    fieldset = re.search(rf'<fieldset id="resolve-{op}"[^>]*>(.*?)</fieldset>', html, re.S)
    assert fieldset and f'aria-describedby="resolve-{op}-error"' in fieldset.group(0)
    assert "Nothing was recorded" in fieldset.group(1)
    assert re.search(r'value="sent" required checked', fieldset.group(1))
    assert f'href="#resolve-{op}"' in html  # the summary at the top leads to it
    assert api.get(f"/v1/workflows/{wf['workflow_id']}").json()["current_step"] == "needs_reconciliation"
    r = nurse.post(action, {"expected_version": "3", "outcome": "sent", "external_id": "AUTH-9"})
    assert r.status_code == 302 and r["Location"] == "/staff/workflows/"
    body = api.get(f"/v1/workflows/{wf['workflow_id']}").json()
    assert body["current_step"] == "await_insurer_decision" and body["state"]["authorization_id"] == "AUTH-9"
    again = nurse.post(action, {"expected_version": "3", "outcome": "sent", "external_id": "AUTH-9"}, follow=True)
    assert "already been recorded" in again.content.decode()
    assert nurse.post(action, {"expected_version": "4", "outcome": "not_sent"}).status_code == 409
    assert f'action="{action}"' not in nurse.get("/staff/workflows/").content.decode()



def test_the_monitor_offers_no_resolution_to_an_administrator_who_cannot_record_one(world, people, signed_in):
    """An administrator reads the whole organisation's queue but holds no workflow:write: the form, which would
    only answer 403, is not offered."""
    api = world.patient(world.patient_a)
    wf = api.post("/v1/workflows", {"workflow_type": "prior_authorization", "patient_id": str(world.patient_a)}).json()
    r = api.post(f"/v1/workflows/{wf['workflow_id']}/checkpoint", {
        "expected_version": 1, "next_step": SUBMIT, "request_operation": {"kind": SUBMIT, "payload": PAYLOAD}})
    op = _unknown_and_stuck(world, wf["workflow_id"], r.json()["pending_operations"][0]["operation_id"])
    page = signed_in(people.admin()).get("/staff/workflows/").content.decode()
    assert wf["workflow_id"][:10] in page and f"/operations/{op}/resolve" not in page


def test_the_monitor_shows_the_whole_queue_a_page_at_a_time(world, people, signed_in):
    """The monitor showed the oldest 100 workflows needing reconciliation and nothing of the rest, with no way to
    them: a 'Next' link reads the queue's next page (the API's cursor) until the last, 'Oldest' goes back; a link
    the page never gave is 400."""
    stuck = _stuck(world, world.patient_a)
    with identity_context(Identity(org_id=world.org, actor_sub=f"patient-{world.patient_a}",
                                   patient_self_id=world.patient_a, actor_kind=ACTOR_PATIENT)):
        template = Workflow.objects.get(workflow_id=stuck)
        Workflow.objects.bulk_create([Workflow(**{
            f.attname: getattr(template, f.attname) for f in Workflow._meta.concrete_fields
            if f.attname != "workflow_id"}) for _ in range(104)])
    admin = signed_in(people.admin())
    first = admin.get("/staff/workflows/").content.decode()
    rows = re.compile(r"<tr><td><code>")
    assert len(rows.findall(first)) == 100 and ">Oldest<" not in first
    more = re.search(r'<a href="\?after=([^"#]+)#rec-h">Next</a>', first)
    assert more
    second = admin.get(f"/staff/workflows/?after={more.group(1)}").content.decode()
    assert len(rows.findall(second)) == 5 and ">Oldest<" in second and ">Next<" not in second
    assert admin.get("/staff/workflows/", {"after": "not-a-cursor"}).status_code == 400
