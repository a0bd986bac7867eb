"""What the portal's pages say: patients in the staff console's lists in the order people read names in, and the
patient's pages promising only what they can do, with no empty paragraphs."""

from __future__ import annotations

import uuid

import pytest

from tests.conftest import in_directory

pytestmark = pytest.mark.django_db


def test_my_patients_are_listed_by_name_whatever_its_letter_case_and_accents(world, people, signed_in):
    """Names sort as people read them: "adam" before "Émile" before "Zofia", not upper case before lower case
    and accented capitals after every plain letter (code point order)."""
    sub = people.staff("nurse")
    names = {"Zofia Zielinska": uuid.uuid4(), "adam nowak": uuid.uuid4(), "Émile Durand": uuid.uuid4()}
    for name, patient in names.items():
        in_directory(world.org, patient, name)
        world.grant(patient, sub, "appointment_scheduling")
    page = signed_in(sub).get("/staff/").content.decode()
    shown = sorted(names, key=page.index)
    assert shown == ["adam nowak", "Émile Durand", "Zofia Zielinska"]


def test_the_preferences_page_promises_only_the_changes_the_patient_can_make(world, people, signed_in):
    """The page said "You can correct or delete any of them" above a care team's record the patient can neither
    correct nor delete; it says what they can do with each, and whom to ask for the others."""
    page = signed_in(people.patient(world.patient_a)).get("/me/").content.decode()
    assert "correct or delete any of them" not in page
    assert "ask your care team" in page


def test_the_activity_page_has_no_empty_paragraph(world, people, signed_in):
    """The links to newer and older events stood in a paragraph that was empty on the only page there is."""
    page = signed_in(people.patient(world.patient_a)).get("/me/activity/")
    assert page.status_code == 200 and "<p></p>" not in page.content.decode()

