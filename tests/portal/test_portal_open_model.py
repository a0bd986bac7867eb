"""The open memory model in the portal: correction forms generated from each type's JSON Schema, the staff console's
memory types page, and the directory (a greeting by name, staff finding patients by name and MRN, administrators
choosing the patient and the staff member from search results)."""

from __future__ import annotations

import json
import re
import uuid

import pytest

from memory.types import builtin_catalogue, validate_fact
from tests.test_memory_types import ROUND_TRIP, wound_care_type

pytestmark = pytest.mark.django_db

MRN = "urn:oid:2.16.840.1.113883.19.5"


def directory_admin(world):
    return world.staff("org-admin", scope="patient:write patient:read grant:write memory_type:write memory:read")


def register(world, patient_id, name, born, mrn):
    r = directory_admin(world).post("/v1/patients", {"patient_id": str(patient_id), "display_name": name,
                                                     "birth_date": born,
                                                     "identifiers": [{"system": MRN, "value": mrn}]})
    assert r.status_code == 201, r.content


def form_data(fact: dict) -> dict:
    """A fact as the generated form posts it: lists as repeated values, booleans as a ticked box, nested objects
    as ``outer__inner``."""
    data: dict = {}
    for key, value in fact.items():
        if key == "kind":
            continue
        if isinstance(value, dict):
            data.update({f"{key}__{k}": v for k, v in value.items()})
        elif value is True:
            data[key] = "on"
        elif value is False:
            continue
        else:
            data[key] = value
    return data


# --- correction forms generated from the schema, for every built-in type ------------------------------------------

@pytest.mark.slow
@pytest.mark.parametrize("memory_type", sorted(ROUND_TRIP))
def test_each_builtin_type_is_corrected_and_deleted_through_the_portal(world, people, signed_in, memory_type):
    purpose, fact, corrected, _ = ROUND_TRIP[memory_type]
    versions = builtin_catalogue()[memory_type]
    spec = versions[max(versions)]
    pid = uuid.uuid4()
    if "patient" in spec.writers:
        body = {"memory_type": memory_type, "fact": fact, "consent_purpose": purpose,
                "consent_record_id": world.consent(pid, purpose)}
        r = world.patient(pid).post(f"/v1/patients/{pid}/memories", body)
        client = signed_in(people.patient(pid))
        base = "/me/preferences/{id}"
        home = "/me/"
    else:
        sub = people.staff("clinician")
        world.grant(pid, sub, purpose)
        r = world.staff(sub).post(f"/v1/patients/{pid}/memories", {
            "memory_type": memory_type, "fact": fact, "consent_purpose": purpose,
            "review_by": "2031-01-01T00:00:00Z", "source": "ehr_import", "source_ref": "ehr:allergy/7"})
        client = signed_in(sub)
        base = f"/staff/patients/{pid}/memories/{{id}}"
        home = f"/staff/patients/{pid}/"
    assert r.status_code == 201, r.content
    memory = r.json()["memory"]
    assert memory["text"] in client.get(home).content.decode()

    form = client.get(base.format(id=memory["memory_id"]) + "/correct/").content.decode()
    branch = spec.branch_for(fact)
    for name, prop in branch["properties"].items():  # every field of the schema has its input, nested included
        if name == "kind":
            continue
        inner = [f"{name}__{k}" for k in prop.get("properties", {})] or [name]
        for field in inner:
            assert f'name="{field}"' in form, (field, form)
    data = form_data(corrected)
    if spec.review:
        data["review_by"] = "2031-06-01"
    response = client.post(base.format(id=memory["memory_id"]) + "/correct/", data)
    assert response.status_code == 302, response.content.decode()[:3000]
    page = client.get(home).content.decode()
    listed = world.patient(pid).get(f"/v1/patients/{pid}/memories").json()["items"] if "patient" in spec.writers \
        else world.staff(sub).get(f"/v1/patients/{pid}/memories").json()["items"]
    _, expected = validate_fact(memory_type, {**({"kind": fact["kind"]} if "kind" in fact else {}), **corrected})
    assert [m["fact"] for m in listed] == [expected]
    new = listed[0]
    assert new["text"] in page and new["attribute"] == memory["attribute"]

    if "patient" in spec.writers:
        response = client.post(f"/me/preferences/{new['memory_id']}/delete/", {"confirm": "yes"},
                               follow=True)
        assert response.status_code == 200 and "2 " in response.content.decode()
        assert world.patient(pid).get(f"/v1/patients/{pid}/memories").json()["items"] == []
    else:
        assert "Correct" in page  # staff keep clinical facts; deletion goes through the API with its receipt
        r = world.staff(sub).client.delete(f"/v1/patients/{pid}/memories/{new['memory_id']}",
                                           **world.staff(sub)._headers(None))
        assert r.status_code == 200 and len(r.json()["memory_ids"]) == 2


def _reminder_by_text(world, people, signed_in):
    """A new patient with a reminder preference (by text message, 24 hours before), signed in to the portal:
    (patient id, the portal client, the memory's correction page)."""
    pid = uuid.uuid4()
    cid = world.consent(pid, "communication")
    r = world.patient(pid).post(f"/v1/patients/{pid}/memories", {
        "memory_type": "reminder_preference", "fact": {"channel": "sms", "lead_time_hours": 24},
        "consent_purpose": "communication", "consent_record_id": cid})
    assert r.status_code == 201, r.content
    return pid, signed_in(people.patient(pid)), f"/me/preferences/{r.json()['memory_id']}/correct/"


def test_a_bad_value_in_a_generated_form_is_refused_next_to_its_field(world, people, signed_in):
    _, client, url = _reminder_by_text(world, people, signed_in)
    response = client.post(url, {"channel": "sms", "lead_time_hours": "999"})
    assert response.status_code == 422
    html = response.content.decode()
    block = re.search(r'<div class="field field-invalid">(?:(?!<div class="field).)*?name="lead_time_hours"', html,
                      re.S)
    assert block and "336" in block.group(0), html
    assert "24 hours" in client.get("/me/").content.decode()


def test_a_correction_form_keeps_what_the_preference_is_about(world, people, signed_in):
    """The reminder's channel names the attribute: the form shows it fixed (not a choice the service would refuse
    with "a correction keeps the attribute"), and a posted other channel changes nothing but the rest."""
    pid, client, url = _reminder_by_text(world, people, signed_in)
    form = client.get(url).content.decode()
    channel = re.search(r'<select[^>]*name="channel"[^>]*>', form)
    assert channel and "disabled" in channel.group(0), form
    response = client.post(url, {"channel": "email", "lead_time_hours": "48"})
    assert response.status_code == 302, response.content.decode()[:2000]
    items = world.patient(pid).get(f"/v1/patients/{pid}/memories").json()["items"]
    assert [(i["fact"]["channel"], i["fact"]["lead_time_hours"]) for i in items] == [("sms", 48)]


def _correcting_own_type(world, people, signed_in, definition: dict, fact: dict):
    """An administrator adds ``definition``; a new patient records ``fact`` of it through the API and signs in to
    the portal: (patient id, the portal client, the memory's correction page)."""
    admin = signed_in(people.admin())
    assert admin.post("/staff/memory-types/", {"definition": json.dumps(definition)}).status_code == 302
    pid = uuid.uuid4()
    r = world.patient(pid).post(f"/v1/patients/{pid}/memories", {
        "memory_type": definition["name"], "fact": fact, "consent_purpose": "appointment_scheduling",
        "consent_record_id": world.consent(pid, "appointment_scheduling")})
    assert r.status_code == 201, r.content
    return pid, signed_in(people.patient(pid)), f"/me/preferences/{r.json()['memory_id']}/correct/"


def test_a_type_with_a_number_and_a_list_of_free_values_is_corrected_without_losing_either(world, people,
                                                                                            signed_in):
    """An organisation's type may hold a number (a JSON Schema ``number``) and a list of free values, which the
    generated form had no field for: the required number made every correction a bare "This field is required."
    next to no field, and the list was dropped from the corrected value. The number has its input; the list, which
    the form does not show, is kept as it is."""
    definition = wound_care_type(
        name="dressing_weight_preference", text="Weigh at {place}: {kg} kg",
        schema={"type": "object", "additionalProperties": False, "required": ["place", "kg"], "properties": {
            "place": {"enum": ["home", "clinic"]},
            "kg": {"type": "number", "minimum": 0, "maximum": 500, "title": "Weight in kg"},
            "tags": {"type": "array", "maxItems": 3, "items": {"type": "string", "maxLength": 20}}}})
    pid, client, url = _correcting_own_type(world, people, signed_in, definition,
                                            {"place": "home", "kg": 72.5, "tags": ["scale"]})
    form = client.get(url).content.decode()
    number = re.search(r'<input[^>]*name="kg"[^>]*>', form)
    assert number and 'type="number"' in number.group(0) and 'value="72.5"' in number.group(0), form
    assert re.search(r'<label for="id_kg">Weight in kg</label>', form)

    refused = client.post(url, {"place": "clinic", "kg": "900"})
    assert refused.status_code == 422
    assert re.search(r'<p class="error" id="id_kg_error">', refused.content.decode())

    response = client.post(url, {"place": "clinic", "kg": "70"})
    assert response.status_code == 302, response.content.decode()[:3000]
    items = world.patient(pid).get(f"/v1/patients/{pid}/memories").json()["items"]
    assert [i["fact"] for i in items] == [{"place": "clinic", "kg": 70, "tags": ["scale"]}]


def test_a_whole_number_beyond_64_bits_is_refused_next_to_its_field(world, people, signed_in):
    """A type's integer without a maximum took any whole number in the portal (the API refuses one beyond 64 bits,
    422 out_of_range): 10**30 was saved, shown exactly on the patient's page and read back by the API as the
    float 1.1e+29. The form holds it within 64 bits, next to the field, and nothing is saved."""
    definition = wound_care_type(
        name="dressing_count_preference", text="Dressings: {count}",
        schema={"type": "object", "additionalProperties": False, "required": ["count"],
                "properties": {"count": {"type": "integer", "minimum": 0}}})
    pid, client, url = _correcting_own_type(world, people, signed_in, definition, {"count": 3})
    refused = client.post(url, {"count": str(10**30)})
    assert refused.status_code == 422
    assert re.search(r'<p class="error" id="id_count_error">', refused.content.decode())
    items = world.patient(pid).get(f"/v1/patients/{pid}/memories").json()["items"]
    assert [i["fact"] for i in items] == [{"count": 3}]
    assert client.post(url, {"count": str(2**63 - 1)}).status_code == 302
    items = world.patient(pid).get(f"/v1/patients/{pid}/memories").json()["items"]
    assert [i["fact"] for i in items] == [{"count": 2**63 - 1}]


def test_a_type_whose_choices_are_numbers_is_corrected_in_the_portal(world, people, signed_in):
    """An organisation's type may list numbers as its choices (a level 1 to 3): the form sent the choice back as
    the text "3", which the schema refused ('Level: one of 1, 2, 3') whatever was chosen, so no correction could
    be saved. The choice is the enum's own value again, in a list of choices too."""
    definition = wound_care_type(
        name="dressing_level_preference", text="Level {level}",
        schema={"type": "object", "additionalProperties": False, "required": ["level"], "properties": {
            "level": {"enum": [1, 2, 3], "title": "Level", "x-labels": {"3": "three (most help)"}},
            "days": {"type": "array", "maxItems": 2, "items": {"enum": [10, 20]}}}})
    pid, client, url = _correcting_own_type(world, people, signed_in, definition,
                                            {"level": 2, "days": [10]})
    form = client.get(url).content.decode()
    assert '<option value="2" selected>2</option>' in form and ">Three (most help)</option>" in form
    response = client.post(url, {"level": "3", "days": ["10", "20"]})
    assert response.status_code == 302, response.content.decode()[:3000]
    items = world.patient(pid).get(f"/v1/patients/{pid}/memories").json()["items"]
    assert [i["fact"] for i in items] == [{"level": 3, "days": [10, 20]}]


# --- the memory types page -------------------------------------------------------------------------------------

def test_an_administrator_adds_and_revises_a_type_on_the_memory_types_page(world, people, signed_in):
    admin = signed_in(people.admin())
    page = admin.get("/staff/memory-types/")
    assert page.status_code == 200
    html = page.content.decode()
    assert "Language and interpreter" in html and "Built-in" in html
    bad = admin.post("/staff/memory-types/", {"definition": '{"name": "x"'})
    assert bad.status_code == 422 and "not a JSON object" in bad.content.decode()

    unclosed = wound_care_type()
    unclosed["schema"].pop("additionalProperties")
    bad = admin.post("/staff/memory-types/", {"definition": json.dumps(unclosed)})
    assert bad.status_code == 422 and "additionalProperties: false" in bad.content.decode()
    ok = admin.post("/staff/memory-types/", {"definition": json.dumps(wound_care_type())})
    assert ok.status_code == 302, ok.content.decode()[:2000]
    assert "Dressing changes" in admin.get("/staff/memory-types/").content.decode()
    # A patient records one; a revision that it would not satisfy is refused with the path and a count: no value,
    # nor which memory.
    cid = world.consent(world.patient_a)
    memory_id = world.patient(world.patient_a).post(f"/v1/patients/{world.patient_a}/memories", {
        "memory_type": "dressing_change_preference", "fact": {"place": "home"},
        "consent_purpose": "appointment_scheduling", "consent_record_id": cid}).json()["memory_id"]
    narrower = {k: v for k, v in wound_care_type().items() if k != "name"}
    narrower["schema"]["properties"]["place"] = {"enum": ["clinic"]}
    refused = admin.post("/staff/memory-types/", {"revise": "dressing_change_preference",
                                                  "definition": json.dumps(narrower)})
    assert refused.status_code == 422
    assert memory_id not in refused.content.decode() and "fact.place" in refused.content.decode()
    assert "1 current memory would not satisfy version 2" in refused.content.decode()
    wider = {k: v for k, v in wound_care_type().items() if k != "name"}
    wider["schema"]["properties"]["place"] = {"enum": ["home", "clinic", "pharmacy"]}
    assert admin.post("/staff/memory-types/", {"revise": "dressing_change_preference",
                                               "definition": json.dumps(wider)}).status_code == 302
    assert "version 2" in admin.get("/staff/memory-types/").content.decode()


def _card(html: str, name: str) -> str:
    """One type's card on the memory types page."""
    start = html.index(f'<li class="card" data-type="{name}">')
    end = html.find('<li class="card"', start + 1)
    return html[start:end if end != -1 else len(html)]


def _served(world, org=None) -> dict[str, tuple[list[str], str]]:
    r = world.staff("scheduling-agent", org=org, scope="memory:read").get("/v1/memory-types")
    return {t["name"]: (t["serves"], t["serves_source"]) for t in r.json()["items"]}


def test_a_type_added_or_revised_twice_says_nothing_more_was_changed(world, people, signed_in):
    """The add form sent twice (a double click, the back button) answered 'There is a problem. Nothing was saved. A
    memory type with this name exists', though the first had added it; a revision sent twice said 'Saved ... as
    version 2' again though nothing was saved. Each answers with what the first did, and saves nothing more."""
    admin = signed_in(people.admin())
    definition = json.dumps(wound_care_type())
    assert admin.post("/staff/memory-types/", {"definition": definition}).status_code == 302
    again = admin.post("/staff/memory-types/", {"definition": definition}, follow=True)
    page = again.content.decode()
    assert again.status_code == 200 and "There is a problem" not in page
    assert "Dressing changes version 1 already holds this definition. Nothing more was changed." in page
    other = wound_care_type(label="Dressings")
    refused = admin.post("/staff/memory-types/", {"definition": json.dumps(other)})  # not the one added: refused
    assert refused.status_code == 422 and "A memory type with this name exists" in refused.content.decode()

    wider = {k: v for k, v in wound_care_type(label="Wound dressings").items() if k != "name"}
    revision = {"revise": "dressing_change_preference", "based_on": "1", "definition": json.dumps(wider)}
    first = admin.post("/staff/memory-types/", revision, follow=True).content.decode()
    assert "Saved Wound dressings as version 2." in first
    second = admin.post("/staff/memory-types/", revision, follow=True).content.decode()
    assert "Saved" not in second and "Wound dressings version 2 already holds this definition." in second
    versions = admin.get("/staff/memory-types/").content.decode()
    assert "<code>dressing_change_preference</code> version 2" in versions
    assert "Definition of version 3 (JSON)" in versions  # the next revision's number: no third version was saved


def test_an_administrator_rewords_what_a_type_answers_on_the_memory_types_page(world, people, signed_in):
    """Every card shows what its type answers and a form to reword it, built-in types too; saved for the
    administrator's organisation only, one phrase a line; an empty form goes back to the type's own words."""
    admin = signed_in(people.admin())
    own = list(builtin_catalogue()["preferred_name"][1].serves)
    html = admin.get("/staff/memory-types/").content.decode()
    card = _card(html, "preferred_name")
    assert "Answers questions about" in card and all(f"<li>{p}</li>" in card for p in own)
    assert "\n".join(own) in card  # the form starts from the type's own words
    assert html.count('name="serves_for"') == len(builtin_catalogue())

    saved = admin.post("/staff/memory-types/", {
        "serves_for": "preferred_name", "serves": "how to greet the patient\r\n\r\n  the name on a letter  \r\n"},
        follow=True)
    assert saved.status_code == 200
    html = saved.content.decode()
    assert "Saved what Name and pronouns answers for your organisation." in html
    card = _card(html, "preferred_name")
    assert "<li>how to greet the patient</li><li>the name on a letter</li>" in card
    assert "Your organisation's words" in card
    assert _served(world)["preferred_name"] == (["how to greet the patient", "the name on a letter"], "organization")
    assert _served(world, org=world.other_org)["preferred_name"] == (own, "definition")

    back = admin.post("/staff/memory-types/", {"serves_for": "preferred_name", "serves": " \r\n"}, follow=True)
    assert "Name and pronouns answers in the type&#x27;s own words." in back.content.decode()
    assert _served(world)["preferred_name"] == (own, "definition")


@pytest.mark.parametrize("text, shown", [
    ("\n".join(f"phrase {i}" for i in range(9)), "at most 8 phrases"),
    ("fine\n" + "x" * 121, "Phrase 2: at most 120 characters"),
    ("the same\nThe  same", "Phrase 2: the same phrase again"),
    ("a\ttab", "Phrase 1: one line of text, without control or invisible characters"),
])
def test_what_a_type_answers_is_refused_on_the_page_as_the_api_refuses_it(world, people, signed_in, text, shown):
    """The page lists the problem, keeps what was typed, and saves nothing."""
    admin = signed_in(people.admin())
    refused = admin.post("/staff/memory-types/", {"serves_for": "transport_need", "serves": text})
    assert refused.status_code == 422
    html = refused.content.decode()
    assert "There is a problem" in html and "Nothing was saved." in html and shown in html, html[:3000]
    card = _card(html, "transport_need")
    assert "<details open>" in card and text.split("\n")[0] in card
    assert _served(world)["transport_need"][1] == "definition"


def test_rewording_a_type_the_organisation_cannot_see_saves_nothing(world, people, signed_in):
    """Another organisation's own type reads as one that does not exist."""
    other_admin = world.staff("org-admin", org=world.other_org, scope="memory_type:write memory:read")
    assert other_admin.post("/v1/memory-types", wound_care_type()).status_code == 201
    admin = signed_in(people.admin())
    for name in ("dressing_change_preference", "no_such_type", "scheduling\u0000preference"):
        refused = admin.post("/staff/memory-types/", {"serves_for": name, "serves": "anything"})
        assert refused.status_code == 422 and "Not found" in refused.content.decode()
    theirs = other_admin.get("/v1/memory-types/dressing_change_preference").json()["versions"][0]
    assert (theirs["serves"], theirs["serves_source"]) == (["Dressing changes"], "label")


def test_the_memory_types_page_is_for_administrators(world, people, signed_in):
    nurse = signed_in(people.staff("nurse"))
    assert nurse.get("/staff/memory-types/").status_code == 403


# --- the directory -------------------------------------------------------------------------------------------------

def test_the_portal_greets_the_patient_by_name(world, people, signed_in):
    register(world, world.patient_a, "Alice Nowak", "1957-03-14", "MRN-0001")
    client = signed_in(people.patient(world.patient_a))
    assert "Hello, Alice Nowak" in client.get("/me/").content.decode()


def test_a_nurse_finds_her_patient_by_name_and_by_mrn_and_never_sees_bare_ids(world, people, signed_in):
    register(world, world.patient_a, "Alice Nowak", "1957-03-14", "MRN-0001")
    register(world, world.patient_b, "Bob Kowalski", "1962-11-02", "MRN-0002")
    sub = people.staff("nurse")
    world.grant(world.patient_a, sub, "appointment_scheduling")
    client = signed_in(sub)
    listing = client.get("/staff/").content.decode()
    assert "Alice Nowak" in listing and "MRN-0001" in listing and "1957-03-14" in listing
    assert f">{world.patient_a}<" not in listing and "<code>" not in listing
    for q in ("nowak", "MRN-0001", "1957-03-14"):
        found = client.get("/staff/", {"q": q}).content.decode()
        assert re.search(r'data-patient-id="[^"]+">\s*<p class="fact"><a [^>]+>Alice Nowak</a>', found), q
    assert "Bob Kowalski" not in client.get("/staff/", {"q": "Kowalski"}).content.decode()
    detail = client.get(f"/staff/patients/{world.patient_a}/").content.decode()
    assert "<h1>Alice Nowak</h1>" in detail and "MRN-0001" in detail


def test_an_administrator_chooses_patient_and_staff_from_search_results(world, people, signed_in):
    register(world, world.patient_a, "Alice Nowak", "1957-03-14", "MRN-0001")
    nurse_sub = people.staff("nurse")
    r = directory_admin(world).post("/v1/staff", {"actor_sub": nurse_sub, "display_name": "Nurse Joy Adams"})
    assert r.status_code == 201
    admin = signed_in(people.admin())
    page = admin.get("/staff/access/", {"patient_q": "MRN-0001", "staff_q": "joy"}).content.decode()
    assert re.search(rf'type="radio" name="patient_id" value="{world.patient_a}"[^>]*>[^<]*Alice Nowak', page), page
    assert re.search(rf'type="radio" name="actor_sub" value="{nurse_sub}"[^>]*>[^<]*Nurse Joy Adams', page)
    assert 'name="patient_id" type="text"' not in page
    missing = admin.post("/staff/access/", {"patient_q": "zzz", "staff_q": "joy", "actor_sub": nurse_sub,
                                            "purpose": "appointment_scheduling", "reason": "covering the ward"})
    assert missing.status_code == 422 and "Find the patient above and choose them." in missing.content.decode()
    ok = admin.post("/staff/access/", {"patient_q": "MRN-0001", "staff_q": "joy", "actor_sub": nurse_sub,
                                       "patient_id": str(world.patient_a), "purpose": "appointment_scheduling",
                                       "reason": "covering the ward"}, follow=True)
    assert ok.status_code == 200
    assert re.search(r"Nurse Joy Adams</strong> → Alice Nowak", ok.content.decode())



@pytest.mark.parametrize("definition, revise", [
    ("[" * 4000 + "]" * 4000, ""),
    (json.dumps(wound_care_type(label="Dressing\u0000changes")), ""),
    ('{"name": "x", "name": "y"}', ""),
    (json.dumps(wound_care_type()), "scheduling\u0000preference"),
])
def test_the_memory_types_page_refuses_what_the_api_refuses_on_the_page(world, people, signed_in, definition,
                                                                         revise):
    """Deep nesting, NUL characters and repeated keys are refused next to the definition (the API's rules), never
    a 500; nothing is saved."""
    admin = signed_in(people.admin())
    response = admin.post("/staff/memory-types/", {"definition": definition, "revise": revise})
    assert response.status_code == 422, response.content.decode()[:500]
    assert world.patient(world.patient_a).get("/v1/memory-types/dressing_change_preference").status_code == 404
