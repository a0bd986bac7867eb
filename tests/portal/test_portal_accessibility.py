"""Forms a screen reader can follow: every id an input names in ``aria-describedby`` exists on the page (Django's
widgets name ``<id>_helptext`` and ``<id>_error``); the summary at the top links each field in error to its input;
an error about something that is not a field of its own is shown next to the field it is about, with that field's
label, never an internal name."""

from __future__ import annotations

import re
from datetime import timedelta
from html.parser import HTMLParser

import pytest
from django.utils import timezone

from tests.conftest import memory_body

pytestmark = pytest.mark.django_db


class _Ids(HTMLParser):
    def __init__(self):
        super().__init__()
        self.ids: dict[str, dict] = {}  # id -> the element's tag and attributes
        self.described: list[tuple[str, str]] = []  # (element id or name, an id it names in aria-describedby)
        self.summary_links: list[str] = []
        self._summary_depth = 0

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if a.get("id"):
            self.ids[a["id"]] = {"tag": tag, **a}
        for ref in (a.get("aria-describedby") or "").split():
            self.described.append((a.get("id") or a.get("name") or tag, ref))
        if tag == "div" and "error-summary" in (a.get("class") or "").split():
            self._summary_depth = 1
        elif self._summary_depth and tag == "div":
            self._summary_depth += 1
        if self._summary_depth and tag == "a" and (a.get("href") or "").startswith("#"):
            self.summary_links.append(a["href"][1:])

    def handle_endtag(self, tag):
        if self._summary_depth and tag == "div":
            self._summary_depth -= 1


def page_ids(html: str) -> _Ids:
    parser = _Ids()
    parser.feed(html)
    return parser


def assert_described_by_ids_exist(html: str) -> _Ids:
    ids = page_ids(html)
    missing = [(who, ref) for who, ref in ids.described if ref not in ids.ids]
    assert not missing, missing
    return ids


def _memory(world, patient, consent) -> str:
    r = world.patient(patient).post(f"/v1/patients/{patient}/memories", memory_body(consent))
    assert r.status_code == 201, r.content
    return r.json()["memory_id"]


def test_a_refused_correction_names_existing_hint_and_error_ids_and_the_summary_links_to_the_inputs(
        world, people, signed_in):
    consent = world.consent(world.patient_a)
    memory_id = _memory(world, world.patient_a, consent)
    client = signed_in(people.patient(world.patient_a))
    response = client.post(f"/me/preferences/{memory_id}/correct/", {"time": "", "valid_until": "not a date"})
    assert response.status_code == 422
    html = response.content.decode()
    ids = assert_described_by_ids_exist(html)
    assert ("id_time", "id_time_error") in ids.described and ("id_valid_until", "id_valid_until_helptext") in \
        ids.described and ("id_valid_until", "id_valid_until_error") in ids.described
    assert ids.ids["id_time_error"]["class"] == "error" and ids.ids["id_valid_until_helptext"]["class"] == "hint"
    # the summary: each field in error, a link to its input
    assert ids.summary_links == ["id_time", "id_valid_until"]
    assert all(ids.ids[target]["tag"] == "input" for target in ids.summary_links)
    assert '<a href="#id_valid_until">Keep until (optional): Enter a valid date.</a>' in html


def test_a_page_whose_form_was_refused_says_error_first_in_its_title(world, people, signed_in):
    """The page title is what a screen reader announces first: a form sent back with errors starts it with
    "Error: " (the patient's correction, the erase-everything tick box, the administrators' memory types), and
    the same page shown afresh does not."""
    consent = world.consent(world.patient_a)
    memory_id = _memory(world, world.patient_a, consent)
    client = signed_in(people.patient(world.patient_a))
    url = f"/me/preferences/{memory_id}/correct/"
    assert "<title>Correct a preference · Anamnesis</title>" in client.get(url).content.decode()
    refused = client.post(url, {"time": "25:99"}).content.decode()
    assert "<title>Error: Correct a preference · Anamnesis</title>" in refused
    unticked = client.post("/me/preferences/delete-all/", {}).content.decode()
    assert "<title>Error: Delete all my preferences · Anamnesis</title>" in unticked
    admin = signed_in(people.admin())
    assert "<title>Error: Memory types · Anamnesis</title>" in admin.post(
        "/staff/memory-types/", {"definition": "not json"}).content.decode()
    assert "<title>Memory types · Anamnesis</title>" in admin.get("/staff/memory-types/").content.decode()


def test_a_search_box_sent_back_with_its_error_says_error_first_in_the_title(world, people, signed_in):
    """A patient search of one character is sent back with an error next to its box, but the title a screen reader
    announces first did not say so, as every other page sent back with errors does."""
    world.grant(world.patient_a, nurse := people.staff("nurse"), "appointment_scheduling")
    client = signed_in(nurse)
    assert "<title>Error: My patients · Anamnesis</title>" in client.get("/staff/?q=a").content.decode()
    assert "<title>My patients · Anamnesis</title>" in client.get("/staff/?q=al").content.decode()
    admin = signed_in(people.admin())
    assert "<title>Error: Access to patients · Anamnesis</title>" in admin.get(
        "/staff/access/?patient_q=a").content.decode()
    assert "<title>Access to patients · Anamnesis</title>" in admin.get(
        "/staff/access/?patient_q=al").content.decode()


def test_the_staff_forms_name_existing_ids_too(world, people, signed_in):
    nurse = people.staff("nurse")
    world.grant(world.patient_a, nurse, "appointment_scheduling")
    client = signed_in(nurse)
    bad = client.post(f"/staff/patients/{world.patient_a}/consents/new/",
                      {"purpose": "appointment_scheduling", "evidence_ref": " ", "expires_at": "2001-01-01"})
    assert bad.status_code == 422
    ids = assert_described_by_ids_exist(bad.content.decode())
    assert ("id_evidence_ref", "id_evidence_ref_helptext") in ids.described
    assert ("id_evidence_ref", "id_evidence_ref_error") in ids.described
    assert ids.summary_links == ["id_evidence_ref", "id_expires_at"]

    admin = signed_in(people.admin())
    refused = admin.post("/staff/access/", {"purpose": "appointment_scheduling", "reason": "x"})
    assert refused.status_code == 422
    ids = assert_described_by_ids_exist(refused.content.decode())
    # the radio groups (no search yet, so no choices): the link goes to the group
    assert ids.summary_links == ["id_actor_sub_fieldset", "id_patient_id_fieldset", "id_reason"]
    assert ("id_patient_id_fieldset", "id_patient_id_error") in ids.described


def test_an_error_about_a_group_of_fields_sits_next_to_the_group_with_its_label():
    """The service names ``fact.coded_substance`` (no field of that name): the error goes next to the group's
    first field, not to the top of the form."""
    from memory.types import type_get
    from portal.forms import FactForm

    form = FactForm(data={"substance": "penicillin", "review_by": "2099-01-01"}, spec=type_get("care_context"),
                    kind="allergy")
    assert form.is_valid(), form.errors
    form.add_service_errors([{"field": "fact.coded_substance", "message": "needs both a system and a code"},
                             {"field": "fact.note", "message": "one short line"}])
    assert not form.non_field_errors()
    assert form.errors["coded_substance__system"] == ["needs both a system and a code"]
    assert form.errors["note"] == ["one short line"]


def test_the_memory_types_page_shows_a_problem_next_to_its_text_box_by_its_label(world, people, signed_in):
    admin = signed_in(people.admin())
    refused = admin.post("/staff/memory-types/", {"serves_for": "transport_need",
                                                  "serves": "\n".join(f"phrase {i}" for i in range(9))})
    assert refused.status_code == 422
    html = refused.content.decode()
    assert "<code>phrases</code>" not in html and "phrases</code>" not in html
    ids = assert_described_by_ids_exist(html)
    assert ids.summary_links == ["serves-transport_need"]
    assert "<a href=\"#serves-transport_need\">What it answers</a>: at most 8 phrases" in html
    assert ("serves-transport_need", "serves-transport_need-error") in ids.described
    box = html[html.index('id="serves-transport_need-error"'):html.index('id="serves-transport_need"')]
    assert "at most 8 phrases" in box  # right above its text box

    bad_json = admin.post("/staff/memory-types/", {"definition": '{"name": "x"'}).content.decode()
    ids = assert_described_by_ids_exist(bad_json)
    assert ids.summary_links == ["new-definition"] and "<code>definition</code>" not in bad_json
    assert ("new-definition", "new-definition-error") in ids.described


class _ActionNames(HTMLParser):
    """The accessible name (text, hidden text included) of each link and button inside the page's cards."""

    def __init__(self):
        super().__init__()
        self.names: list[str] = []
        self._open: list[str] | None = None

    def handle_starttag(self, tag, attrs):
        if tag in ("a", "button") and self._open is None:
            self._open = []

    def handle_data(self, data):
        if self._open is not None:
            self._open.append(data)

    def handle_endtag(self, tag):
        if tag in ("a", "button") and self._open is not None:
            self.names.append(" ".join("".join(self._open).split()))
            self._open = None


def _one_set_aside(world, people, signed_in):
    """Patient A with two preferences (not before 10:00, no later than 16:00), the first quarantined by a nurse
    holding a grant: (the quarantined one's id, the other's id, the nurse's portal client)."""
    consent = world.consent(world.patient_a)
    doubted = _memory(world, world.patient_a, consent)
    r = world.patient(world.patient_a).post(f"/v1/patients/{world.patient_a}/memories",
                                            memory_body(consent, kind="latest_time", time="16:00"))
    assert r.status_code == 201, r.content
    nurse = people.staff("nurse")
    world.grant(world.patient_a, nurse, "appointment_scheduling")
    client = signed_in(nurse)
    assert client.post(f"/staff/patients/{world.patient_a}/memories/{doubted}/quarantine/",
                       {"reason_code": "doubtful_source"}).status_code == 302
    return doubted, r.json()["memory_id"], client


def test_each_action_on_a_patients_memories_names_the_memory(world, people, signed_in):
    """The staff console's patient page had a 'Correct' and a 'Quarantine' for every memory (and 'Correct it',
    'Release it' for every quarantined one), all alike to a screen reader's list of links and buttons; the
    patient's own page names the preference in each. Each names the memory it acts on."""
    _, _, client = _one_set_aside(world, people, signed_in)
    parser = _ActionNames()
    parser.feed(client.get(f"/staff/patients/{world.patient_a}/").content.decode())
    actions = [n for n in parser.names if n.split(":")[0] in ("Correct", "Quarantine", "Correct it", "Release it")]
    assert sorted(actions) == sorted([
        "Correct: Scheduling preference: appointments no later than 16:00",
        "Quarantine: Scheduling preference: appointments no later than 16:00",
        "Correct it: Scheduling preference: appointments not before 10:00",
        "Release it: Scheduling preference: appointments not before 10:00"]), parser.names


def test_confirm_and_reject_name_the_suggestion_they_act_on(world, people, signed_in):
    """Each suggestion waiting for the patient had a 'Confirm' and a 'Reject' button, all alike in a screen
    reader's list of buttons; each names the suggestion, as Correct and Delete name the preference."""
    from tests.support import Api

    consent = world.consent(world.patient_a)
    world.grant(world.patient_a, "agent-x", "appointment_scheduling")
    agent = Api(world.token(sub="agent-x", act="agent-x"))
    for time in ("10:00", "11:00"):
        body = {**memory_body(consent, time=time), "source_ref": "turn:1"}
        assert agent.post(f"/v1/patients/{world.patient_a}/memories/proposals", body).status_code == 201
    parser = _ActionNames()
    parser.feed(signed_in(people.patient(world.patient_a)).get("/me/").content.decode())
    actions = [n for n in parser.names if n.split(":")[0] in ("Confirm", "Reject")]
    assert sorted(actions) == sorted(f"{verb}: Scheduling preference: appointments not before {time}"
                                     for verb in ("Confirm", "Reject") for time in ("10:00", "11:00")), parser.names


def test_each_end_access_form_names_the_grant_it_ends(world, people, signed_in):
    """The administrators' list of grants had an 'End access' button and a 'Reason for ending access' box for
    every grant, all alike to a screen reader; each names whose access to whom, for what, it ends."""
    world.grant(world.patient_a, people.staff("nurse"), "appointment_scheduling")
    world.grant(world.patient_b, people.staff("porter"), "communication")
    page = signed_in(people.admin()).get("/staff/access/").content.decode()
    parser = _ActionNames()
    parser.feed(page)
    ends = sorted(n for n in parser.names if n.startswith("End access"))
    assert len(ends) == 2 and len(set(ends)) == 2, parser.names
    assert any("for Communication with the patient" in n for n in ends), ends
    labels = re.findall(r'<label for="reason-[^"]+">(.*?)</label>', page, re.S)
    texts = {" ".join(re.sub(r"<[^>]+>", "", label).split()) for label in labels}
    assert len(labels) == 2 and len(texts) == 2, labels


class _CardRegions(HTMLParser):
    """The region (a section's aria-labelledby, or aria-label) each memory card is inside."""

    def __init__(self):
        super().__init__()
        self.regions: dict[str, str | None] = {}
        self._sections: list[str | None] = []

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "section":
            self._sections.append(a.get("aria-labelledby") or a.get("aria-label"))
        elif tag == "li" and a.get("data-memory-id"):
            self.regions[a["data-memory-id"]] = self._sections[-1] if self._sections else None

    def handle_endtag(self, tag):
        if tag == "section" and self._sections:
            self._sections.pop()


def test_a_preference_set_aside_is_not_announced_as_in_use(world, people, signed_in):
    """The patient's preferences set aside by their care team were listed inside the region named 'In use' (its
    section closed only after them), so a screen reader moving by landmarks announced them as in use. Each list is
    its own region."""
    doubted, in_use, _ = _one_set_aside(world, people, signed_in)
    parser = _CardRegions()
    parser.feed(signed_in(people.patient(world.patient_a)).get("/me/").content.decode())
    assert parser.regions == {in_use: "current-h", doubted: "set-aside-h"}


def test_a_search_matching_more_than_it_shows_says_so_and_how_to_narrow_it(world, people, signed_in):
    """My patients and the Access page listed the first 20 patients (and staff) a search matched and dropped the
    rest without a word, so an administrator looking for one of 21 Smiths saw 20 and no sign of the 21st."""
    registrar = world.staff("org-admin", scope="patient:write grant:write")
    for i in range(21):
        assert registrar.post("/v1/patients", {"display_name": f"Ann Smith {i:02}"}).status_code == 201
        assert registrar.post("/v1/staff", {"actor_sub": f"jones-{i}", "display_name": f"Jo Jones {i:02}"}
                              ).status_code == 201
    admin = signed_in(people.admin())
    page = admin.get("/staff/?q=Smith").content.decode()
    assert "More patients match than the first 20 shown here" in page and page.count("data-patient-id=") == 20
    assert "More patients match" not in admin.get("/staff/?q=Smith+20").content.decode()
    access = admin.get("/staff/access/?patient_q=Smith&staff_q=Jones").content.decode()
    assert "More patients match than the first 20 listed" in access
    assert "More staff match than the first 20 listed" in access
    narrowed = admin.get("/staff/access/?patient_q=Smith+20&staff_q=Jones+20").content.decode()
    assert "More patients match" not in narrowed and "More staff match" not in narrowed


def test_namesakes_past_the_first_20_matches_are_a_link_away(world, people, signed_in):
    """25 patients named alike (no date of birth to tell them apart) could not be reached past the first 20 on My
    patients: typing more finds the same 25. 'see the next matches' shows the next ones (the API's search cursor),
    each patient once, 'First matches' goes back; a link the page never gave is 400."""
    registrar = world.staff("org-admin", scope="patient:write grant:write")
    for _ in range(25):
        assert registrar.post("/v1/patients", {"display_name": "Ann Smith"}).status_code == 201
    admin = signed_in(people.admin())
    first = admin.get("/staff/?q=Ann+Smith").content.decode()
    link = re.search(r'<a href="\?([^"#]+)#found-h">see the next matches</a>', first)
    assert link and first.count("data-patient-id=") == 20 and "First matches" not in first
    second = admin.get(f"/staff/?{link.group(1).replace('&amp;', '&')}").content.decode()
    assert second.count("data-patient-id=") == 5 and "First matches" in second and "see the next matches" not in second
    ids = re.findall(r'data-patient-id="([0-9a-f-]{36})"', first + second)
    assert len(set(ids)) == 25
    assert admin.get("/staff/", {"q": "Ann Smith", "after": "not-a-cursor"}).status_code == 400


def test_the_access_page_reaches_namesakes_past_the_first_20_and_grants_to_one(world, people, signed_in):
    """The Access page offered the first 20 patients (and staff) a search matched, and typing more cannot tell
    25 Ann Smiths apart: 'see the next patients' (and staff) lists the next ones, keeping the other search, and
    access is granted to a patient chosen there; a link the page never gave is 400."""
    registrar = world.staff("org-admin", scope="patient:write grant:write")
    for i in range(25):
        assert registrar.post("/v1/patients", {"display_name": "Ann Smith"}).status_code == 201
        assert registrar.post("/v1/staff", {"actor_sub": f"jones-{i:02}", "display_name": "Jo Jones"}
                              ).status_code == 201
    admin = signed_in(people.admin())
    first = admin.get("/staff/access/", {"patient_q": "Ann Smith", "staff_q": "Jo Jones"}).content.decode()
    choices = re.compile(r'name="patient_id" value="([0-9a-f-]{36})"')
    staff_choices = re.compile(r'name="actor_sub" value="([^"]+)"')
    assert len(choices.findall(first)) == 20 and len(staff_choices.findall(first)) == 20
    link = re.search(r'<a href="\?([^"#]+)#grant-h">see the next patients</a>', first)
    second = admin.get(f"/staff/access/?{link.group(1).replace('&amp;', '&')}").content.decode()
    later = choices.findall(second)
    assert len(later) == 5 and not set(later) & set(choices.findall(first))
    assert len(staff_choices.findall(second)) == 20 and "see the next patients" not in second
    staff_link = re.search(r'<a href="\?([^"#]+)#grant-h">see the next staff</a>', second)
    third = admin.get(f"/staff/access/?{staff_link.group(1).replace('&amp;', '&')}").content.decode()
    assert choices.findall(third) == later and staff_choices.findall(third) == [f"jones-{i}" for i in range(20, 25)]
    patient_after = re.search(r'name="patient_after" value="([^"]+)"', third).group(1)
    granted = admin.post("/staff/access/", {"patient_q": "Ann Smith", "staff_q": "Jo Jones",
                                            "patient_after": patient_after, "patient_id": later[-1],
                                            "actor_sub": "jones-24", "purpose": "appointment_scheduling",
                                            "reason": "cover"}, follow=True)
    assert "Access granted." in granted.content.decode()
    assert admin.get("/staff/access/", {"patient_q": "Ann Smith", "patient_after": "x"}).status_code == 400


def test_the_erase_everything_summary_links_to_its_tick_box(world, people, signed_in):
    """"Delete everything" sent without its tick box: the summary at the top, which a screen reader reads first,
    says there is a problem and links to the tick box, as every other form's summary links to its fields (it was a
    bare sentence leading nowhere), and the box says it is in error."""
    client = signed_in(people.patient(world.patient_a))
    refused = client.post("/me/preferences/delete-all/", {})
    assert refused.status_code == 422
    html = refused.content.decode()
    ids = assert_described_by_ids_exist(html)
    assert ids.summary_links == ["id_confirm"] and ids.ids["id_confirm"]["type"] == "checkbox"
    assert ("id_confirm", "confirm-error") in ids.described and ids.ids["id_confirm"]["aria-invalid"] == "true"
    assert "<h2>There is a problem</h2>" in html and "Nothing was deleted." in html


def test_a_keep_until_date_past_what_the_type_is_kept_says_so_in_words_without_the_types_name(world, people,
                                                                                              signed_in):
    """A correction kept until a date past the preference's retention came back with the service's words for the
    API, "at most 730 days ahead: scheduling_preference is kept no longer", an internal name. The patient reads how
    far ahead the date may be, in words; and the date box offers no day before today or past that."""
    consent = world.consent(world.patient_a)
    memory_id = _memory(world, world.patient_a, consent)
    client = signed_in(people.patient(world.patient_a))
    url = f"/me/preferences/{memory_id}/correct/"
    refused = client.post(url, {"time": "11:00", "valid_until": "2999-01-01"})
    assert refused.status_code == 422
    html = refused.content.decode()
    assert "scheduling_preference" not in html
    assert ("Keep until (optional): Choose a day at most 730 days from today: it is kept no longer."
            in html)
    assert 'value="2999-01-01"' in html  # what was typed stays
    shown = client.get(url).content.decode()
    today = timezone.localdate()
    assert re.search(rf'<input type="date" name="valid_until" min="{today.isoformat()}" '
                     rf'max="{(today + timedelta(days=729)).isoformat()}"', shown), shown
