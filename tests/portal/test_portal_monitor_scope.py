"""The staff workflow monitor lists for reconciliation only the patients and purposes the viewer holds grants
for; the organisation-wide queue is the administrator's (``workflow:reconcile:org``) and is labelled as such."""

from __future__ import annotations

import pytest

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
