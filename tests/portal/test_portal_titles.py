"""Page titles: what a screen reader announces first and what a tab shows. Each page's title says what the page is,
no two pages share one, and none names a patient (a title is shown in tab bars, window lists and history)."""

from __future__ import annotations

import re

import pytest
from django.test import Client

from tests.portal.test_portal_access_history import named_patient_with_a_memory

pytestmark = pytest.mark.django_db

GENERIC = {"Anamnesis", "Patient", "Access", "Workflows", "Error"}


def _title(client: Client, path: str) -> str:
    response = client.get(path)
    assert response.status_code == 200, (path, response.status_code)
    found = re.findall(r"<title>(.*?)</title>", response.content.decode(), re.S)
    assert len(found) == 1, path
    assert found[0].endswith(" · Anamnesis"), found[0]
    return found[0].removesuffix(" · Anamnesis")


def test_every_page_has_a_title_of_its_own_that_names_no_patient(world, people, signed_in):
    """The staff console's patient page was titled just "Patient": every patient's tab read the same."""
    consent, memory = named_patient_with_a_memory(world)
    nurse = people.staff("nurse")
    world.grant(world.patient_a, nurse, "appointment_scheduling")
    patient, staff, admin = (signed_in(people.patient(world.patient_a, name="Ada Quill")), signed_in(nurse),
                             signed_in(people.admin()))
    pages = {
        "/login/": Client(), "/signed-out/": Client(),
        "/me/": patient, "/me/consents/": patient, "/me/activity/": patient, "/me/deletions/": patient,
        f"/me/preferences/{memory}/correct/": patient, f"/me/preferences/{memory}/delete/": patient,
        "/me/preferences/delete-all/": patient, f"/me/consents/{consent}/revoke/": patient,
        "/staff/": staff, f"/staff/patients/{world.patient_a}/": staff,
        f"/staff/patients/{world.patient_a}/consents/new/": staff,
        f"/staff/patients/{world.patient_a}/memories/{memory}/correct/": staff,
        f"/staff/patients/{world.patient_a}/memories/{memory}/quarantine/": staff,
        "/staff/workflows/": staff,
        "/staff/access/": admin, "/staff/memory-types/": admin, "/staff/access-history/": signed_in(people.auditor()),
    }
    titles = {path: _title(client, path) for path, client in pages.items()}
    assert titles[f"/staff/patients/{world.patient_a}/"] == "Patient record"
    assert not [t for t in titles.values() if t in GENERIC], titles
    assert len(set(titles.values())) == len(titles), titles
    assert not [t for t in titles.values() if "Ada" in t or "Quill" in t], titles
