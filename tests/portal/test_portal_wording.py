"""What the portal's pages say: patients in the staff console's lists in the order people read names in, and the
patient's pages promising only what they can do, with no empty paragraphs."""

from __future__ import annotations

import uuid

import pytest

from tests.conftest import in_directory, memory_body
from tests.support import PATIENT_SCOPES, Api

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


def test_recorded_by_names_staff_as_the_directory_does(world, people, signed_in):
    """"Recorded by" showed the token's raw subject ("nurse-joy"): it shows the directory's name of the staff
    member who recorded it, which the patient's own page may read."""
    a = world.patient_a
    cid = world.consent(a)
    registrar = world.staff("org-admin", scope="grant:write")
    assert registrar.post("/v1/staff", {"actor_sub": "nurse-joy", "display_name": "Nurse Joy Adams"}).status_code == 201
    world.grant(a, "nurse-joy", "appointment_scheduling")
    assert world.staff("nurse-joy").post(f"/v1/patients/{a}/memories", memory_body(cid)).status_code == 201
    page = signed_in(people.patient(a)).get("/me/").content.decode()
    assert "<dd>Nurse Joy Adams</dd>" in page and "<dd>nurse-joy</dd>" not in page


def test_recorded_by_falls_back_to_the_subject_and_names_agents_as_agents():
    """Someone the directory does not name is shown by their subject; an agent by its directory name, else its
    client id, always as an agent; the viewer's own record is "you"."""
    from portal.rows import recorded_by

    names = {"nurse-joy": "Nurse Joy Adams", "scheduling-agent": "Scheduling agent"}
    assert recorded_by("nurse-joy", me="p-1", names=names) == "Nurse Joy Adams"
    assert recorded_by("nurse-unnamed", me="p-1", names=names) == "nurse-unnamed"
    assert recorded_by("p-1", me="p-1", names=names) == "you"
    assert recorded_by("p-1", me="p-1", agent="scheduling-agent", names=names) == "AI agent “Scheduling agent”"
    assert recorded_by("p-1", me="p-1", agent="bot-9", names=names) == "AI agent “bot-9”"


def test_the_activity_page_names_staff_and_agents_as_the_directory_does(world, people, signed_in):
    """"Who used my information" showed a staff member by the token's raw subject (“nurse-joy”) and an agent by its
    client id, though the directory names both (as "Recorded by" does); someone it does not name is still shown by
    their subject."""
    a = world.patient_a
    registrar = world.staff("org-admin", scope="grant:write")
    for sub, name in (("nurse-joy", "Nurse Joy Adams"), ("scheduling-agent", "Booking assistant")):
        assert registrar.post("/v1/staff", {"actor_sub": sub, "display_name": name}).status_code == 201
    for sub in ("nurse-joy", "nurse-unnamed"):
        world.grant(a, sub, "appointment_scheduling")
        assert world.staff(sub).get(f"/v1/patients/{a}/memories",
                                    {"purpose": "appointment_scheduling"}).status_code == 200
    agent = Api(world.token(sub=f"patient-{a}", patient_id=a, scope=PATIENT_SCOPES, act={"sub": "scheduling-agent"}))
    assert agent.get(f"/v1/patients/{a}/memories").status_code == 200
    page = signed_in(people.patient(a)).get("/me/activity/").content.decode()
    assert "<td>Staff member Nurse Joy Adams</td><td>looked at your preferences</td>" in page
    assert "nurse-joy" not in page
    assert "<td>Staff member or assistant “nurse-unnamed”</td>" in page
    assert "AI agent “Booking assistant” acting for you" in page
