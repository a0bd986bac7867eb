"""The patient directory through the HTTP API: staff recognise patients by name, date of birth and the
organisation's identifiers; agents with access resolve an identifier; names are patient data under the same
row-level security and audited when read."""

from __future__ import annotations

import pytest

from core.identity import Identity, identity_context
from core.models import AuditEvent

pytestmark = pytest.mark.django_db

MRN = "urn:oid:2.16.840.1.113883.19.5"
DIRECTORY_ADMIN = "patient:write patient:read grant:write"


def directory_admin(world, org=None):
    return world.staff("org-admin", org=org, scope=DIRECTORY_ADMIN)


def register(world, name, birth_date, mrn, org=None, patient_id=None):
    body = {"display_name": name, "birth_date": birth_date, "identifiers": [{"system": MRN, "value": mrn}]}
    if patient_id:
        body["patient_id"] = str(patient_id)
    r = directory_admin(world, org).post("/v1/patients", body)
    assert r.status_code == 201, r.content
    return r.json()


def audited(world, action):
    with identity_context(Identity(org_id=world.org, actor_sub="auditor", scopes=frozenset({"audit:read"}))):
        return list(AuditEvent.objects.filter(organization_id=world.org, action=action)
                    .values_list("actor_sub", "patient_id"))


def test_an_agent_with_access_resolves_an_identifier_and_the_read_is_audited(world):
    alice = register(world, "Alice Nowak", "1957-03-14", "MRN-0001", patient_id=world.patient_a)
    assert alice["identifiers"] == [{"system": MRN, "value": "MRN-0001"}]
    world.grant(world.patient_a, "scheduling-agent", "appointment_scheduling")
    agent = world.staff("scheduling-agent", scope="patient:read memory:read")
    r = agent.get("/v1/patients", {"identifier": f"{MRN}|MRN-0001"})
    assert r.status_code == 200, r.content
    assert r.json()["items"] == [{"patient_id": str(world.patient_a), "display_name": "Alice Nowak",
                                  "birth_date": "1957-03-14", "identifiers": [{"system": MRN, "value": "MRN-0001"}]}]
    assert ("scheduling-agent", world.patient_a) in audited(world, "patient.resolve")
    # the identifier as typed with spaces around it is the same one (registration trims them too)
    spaced = agent.get("/v1/patients", {"identifier": f"{MRN}| MRN-0001 "}).json()["items"]
    assert [p["patient_id"] for p in spaced] == [str(world.patient_a)]


def test_an_identifier_is_one_in_any_letter_case_for_lookups_and_registration(world):
    """A record number read out or typed in another case (mrn-0001 for MRN-0001, an OID system in capitals) is
    the same identifier: the lookup finds the patient, and registering it again for someone else is the conflict
    it always was, never a second patient under one number."""
    register(world, "Alice Nowak", "1957-03-14", "MRN-0001", patient_id=world.patient_a)
    world.grant(world.patient_a, "scheduling-agent", "appointment_scheduling")
    agent = world.staff("scheduling-agent", scope="patient:read")
    for typed in (f"{MRN}|mrn-0001", f"{MRN.upper()}|Mrn-0001"):
        found = agent.get("/v1/patients", {"identifier": typed}).json()["items"]
        assert [p["patient_id"] for p in found] == [str(world.patient_a)], typed
        assert found[0]["identifiers"] == [{"system": MRN, "value": "MRN-0001"}]  # as registered
    r = directory_admin(world).post("/v1/patients", {"display_name": "Carol Lis", "identifiers": [
        {"system": MRN, "value": "mrn-0001"}]})
    assert r.status_code == 409 and r.json()["code"] == "identifier_in_use"
    r = directory_admin(world).post("/v1/patients", {"display_name": "Carol Lis", "identifiers": [
        {"system": MRN, "value": "MRN-0002"}, {"system": MRN.upper(), "value": "mrn-0002"}]})
    assert r.status_code == 422 and [e["field"] for e in r.json()["errors"]] == ["identifiers"]
    assert directory_admin(world).get("/v1/patients", {"q": "Carol"}).json()["items"] == []


def test_without_a_grant_a_patient_is_not_found_by_identifier_or_name(world):
    register(world, "Alice Nowak", "1957-03-14", "MRN-0001", patient_id=world.patient_a)
    stranger = world.staff("other-agent", scope="patient:read")
    assert stranger.get("/v1/patients", {"identifier": f"{MRN}|MRN-0001"}).json()["items"] == []
    assert stranger.get("/v1/patients", {"q": "Alice"}).json()["items"] == []
    assert stranger.get(f"/v1/patients/{world.patient_a}").status_code == 404
    assert stranger.get("/v1/patients", {"identifier": f"{MRN}|MRN-9999"}).json()["items"] == []


def test_another_organisation_never_sees_the_directory(world):
    register(world, "Alice Nowak", "1957-03-14", "MRN-0001", patient_id=world.patient_a)
    outsider = directory_admin(world, org=world.other_org)
    assert outsider.get("/v1/patients", {"q": "Alice"}).json()["items"] == []
    assert outsider.get("/v1/patients", {"identifier": f"{MRN}|MRN-0001"}).json()["items"] == []
    # The same MRN may exist in another organisation: identifiers are unique per organisation only.
    register(world, "Someone Else", "1990-01-01", "MRN-0001", org=world.other_org)


def test_staff_search_by_name_date_of_birth_and_mrn_shows_only_their_patients(world):
    register(world, "Alice Nowak", "1957-03-14", "MRN-0001", patient_id=world.patient_a)
    register(world, "Bob Kowalski", "1962-11-02", "MRN-0002", patient_id=world.patient_b)
    world.grant(world.patient_a, "nurse-1", "appointment_scheduling")
    nurse = world.staff("nurse-1", scope="patient:read")
    for q in ("alice", "NOWAK", "1957-03-14", "mrn-0001", "Nowak Alice", "  alice   nowak "):
        found = nurse.get("/v1/patients", {"q": q}).json()["items"]
        assert [p["display_name"] for p in found] == ["Alice Nowak"], q
    assert nurse.get("/v1/patients", {"q": "Bob"}).json()["items"] == []
    admin = directory_admin(world)
    assert [p["display_name"] for p in admin.get("/v1/patients", {"q": "ow"}).json()["items"]] == [
        "Alice Nowak", "Bob Kowalski"]
    assert admin.get("/v1/patients", {"q": "o"}).status_code == 422
    assert {pid for _, pid in audited(world, "patient.search")} == {world.patient_a, world.patient_b}


def test_a_search_matching_more_than_it_lists_says_so_and_audits_only_those_listed(world):
    """The directory's searches list at most 20 and cut the rest without a word, so a nurse looking for one of
    21 Smiths could not tell the list was incomplete. The answer says truncated, and how to narrow it in its
    schema; only the patients shown are audited as read."""
    admin = directory_admin(world)
    for i in range(21):
        assert admin.post("/v1/patients", {"display_name": f"Ann Smith {i:02}"}).status_code == 201
        assert admin.post("/v1/staff", {"actor_sub": f"nurse-{i}", "display_name": f"Jo Jones {i:02}"}
                          ).status_code == 201
    answer = admin.get("/v1/patients", {"q": "Smith"}).json()
    assert answer["truncated"] is True and len(answer["items"]) == 20
    assert answer["items"][-1]["display_name"] == "Ann Smith 19"
    assert len(audited(world, "patient.search")) == 20
    one = admin.get("/v1/patients", {"q": "Smith 20"}).json()
    assert one["truncated"] is False and [p["display_name"] for p in one["items"]] == ["Ann Smith 20"]
    staff = admin.get("/v1/staff", {"q": "Jones"}).json()
    assert staff["truncated"] is True and len(staff["items"]) == 20
    assert admin.get("/v1/staff", {"q": "Jones 20"}).json()["truncated"] is False


def test_a_search_matching_more_than_it_lists_reaches_the_rest_through_its_cursor(world):
    """A truncated search offered no way to the rest but narrowing q, and namesakes (same name, same date of birth,
    or none) cannot be told apart by narrowing: next_cursor, passed as cursor with the same q, gives the next 20 by
    name, date of birth (none last) and id, each patient once, until it is null; only those shown are audited; a
    cursor the search never gave, or one with identifier, is 422 on cursor."""
    admin = directory_admin(world)
    for i in range(45):
        born = None if i % 3 == 0 else "1980-01-0" + str(1 + i % 2)
        assert admin.post("/v1/patients", {"display_name": f"Ann Smith {i % 4}", "birth_date": born}
                          ).status_code == 201
        assert admin.post("/v1/staff", {"actor_sub": f"nurse-{i:02}", "display_name": f"Jo Jones {i % 3}"}
                          ).status_code == 201
    pages, answer = [], admin.get("/v1/patients", {"q": "Smith"}).json()
    while True:
        pages.append(answer["items"])
        assert answer["truncated"] is (answer["next_cursor"] is not None)
        if not answer["next_cursor"]:
            break
        answer = admin.get("/v1/patients", {"q": "Smith", "cursor": answer["next_cursor"]}).json()
    seen = [p for page in pages for p in page]
    assert [len(page) for page in pages] == [20, 20, 5] and len({p["patient_id"] for p in seen}) == 45
    keys = [(p["display_name"], p["birth_date"] or "9999", p["patient_id"]) for p in seen]
    assert keys == sorted(keys)
    assert len(audited(world, "patient.search")) == 45
    staff, answer = [], admin.get("/v1/staff", {"q": "Jones"}).json()
    while True:
        staff += answer["items"]
        if not answer["next_cursor"]:
            break
        answer = admin.get("/v1/staff", {"q": "Jones", "cursor": answer["next_cursor"]}).json()
    assert sorted(m["actor_sub"] for m in staff) == [f"nurse-{i:02}" for i in range(45)]
    assert [(m["display_name"], m["actor_sub"]) for m in staff] == sorted((m["display_name"], m["actor_sub"])
                                                                         for m in staff)
    for path, params in (("/v1/patients", {"q": "Smith", "cursor": "not-a-cursor"}),
                         ("/v1/patients", {"identifier": "mrn|1", "cursor": "WyJhIl0"}),
                         ("/v1/staff", {"q": "Jones", "cursor": "WyJhIiwiYiIsImMiXQ"})):
        r = admin.get(path, params)
        assert r.status_code == 422 and [e["field"] for e in r.json()["errors"]] == ["cursor"], r.content
    assert len(audited(world, "patient.search")) == 45


def test_a_patient_reads_their_own_entry_only(world):
    register(world, "Alice Nowak", "1957-03-14", "MRN-0001", patient_id=world.patient_a)
    register(world, "Bob Kowalski", "1962-11-02", "MRN-0002", patient_id=world.patient_b)
    alice = world.patient(world.patient_a, scope="patient:read")
    assert alice.get(f"/v1/patients/{world.patient_a}").json()["display_name"] == "Alice Nowak"
    assert alice.get(f"/v1/patients/{world.patient_b}").status_code == 404
    assert [p["display_name"] for p in alice.get("/v1/patients", {"q": "ow"}).json()["items"]] == ["Alice Nowak"]


def test_a_patients_session_resolves_the_staff_names_it_shows_but_cannot_list_the_staff(world):
    """Since directory 0005 a patient's session could read the whole staff directory (every name and subject of
    the organisation) with any query the row-level security let through. Now only staff sessions read the table;
    a patient's pages get the names of the subjects they show (``staff_names``), in their own organisation only."""
    from directory.models import StaffMember
    from directory.selectors import staff_names

    admin = directory_admin(world)
    for sub, name in (("nurse-a", "Nurse Ada"), ("nurse-b", "Nurse Bo")):
        assert admin.post("/v1/staff", {"actor_sub": sub, "display_name": name}).status_code == 201
    assert directory_admin(world, org=world.other_org).post(
        "/v1/staff", {"actor_sub": "nurse-c", "display_name": "Nurse Cy"}).status_code == 201
    patient = Identity(org_id=world.org, actor_sub="patient-a", scopes=frozenset({"patient:read"}),
                       patient_self_id=world.patient_a)
    with identity_context(patient):
        assert list(StaffMember.objects.values_list("actor_sub", flat=True)) == []
        assert staff_names(identity=patient, subs={"nurse-a", "nurse-c", "nobody", ""}) == {"nurse-a": "Nurse Ada"}
    nurse = Identity(org_id=world.org, actor_sub="nurse-b", scopes=frozenset({"patient:read"}))
    with identity_context(nurse):
        assert sorted(StaffMember.objects.values_list("actor_sub", flat=True)) == ["nurse-a", "nurse-b"]
        assert staff_names(identity=nurse, subs=["nurse-a", "nurse-b"]) == {
            "nurse-a": "Nurse Ada", "nurse-b": "Nurse Bo"}


@pytest.mark.parametrize("body, field", [
    ({"display_name": ""}, "display_name"),
    ({"display_name": "A\nB"}, "display_name"),
    ({"display_name": "Ann", "birth_date": "14/03/1957"}, "birth_date"),
    ({"display_name": "Ann", "identifiers": [{"system": MRN, "value": "has space"}]}, "identifiers.0.value"),
    ({"display_name": "Ann", "identifiers": [{"system": MRN}]}, "identifiers.0.value"),
    ({"display_name": "Ann", "ssn": "123"}, "ssn"),
    ({"display_name": "Ann", "birth_date": "2999-01-01"}, "birth_date"),
    ({"display_name": "Ann", "birth_date": "1066-10-14"}, "birth_date"),
    ({"display_name": "Ann", "identifiers": [{"system": MRN, "value": "MRN-7"}, {"system": MRN, "value": "MRN-7"}]},
     "identifiers"),
    # the service's own system: another patient's id under it would export as this patient's own
    ({"display_name": "Ann", "identifiers": [{"system": "urn:anamnesis:patient",
                                             "value": "00000000-0000-4000-8000-0000000a11ce"}]},
     "identifiers.0.system"),
    ({"display_name": "\u200b\u200b"}, "display_name"),
    # a number is not read as the patient 00000000-0000-0000-0000-000000000005
    ({"display_name": "Ann", "patient_id": 5}, "patient_id"),
])
def test_bad_registrations_are_422_naming_the_field(world, body, field):
    r = directory_admin(world).post("/v1/patients", body)
    assert r.status_code == 422, r.content
    assert field in [e["field"] for e in r.json()["errors"]], r.json()


def test_a_duplicate_identifier_is_a_conflict_that_says_nothing_about_whose_and_writes_nothing(world):
    register(world, "Alice Nowak", "1957-03-14", "MRN-0001", patient_id=world.patient_a)
    r = directory_admin(world).post("/v1/patients", {"display_name": "Carol Lis", "identifiers": [
        {"system": MRN, "value": "MRN-0001"}]})
    assert r.status_code == 409 and r.json()["code"] == "identifier_in_use"
    assert "Alice" not in r.content.decode()
    assert directory_admin(world).get("/v1/patients", {"q": "Carol"}).json()["items"] == []


def test_only_administrators_register_and_queries_need_one_form(world):
    nurse = world.staff("nurse-1", scope="patient:read")
    r = nurse.post("/v1/patients", {"display_name": "Ann"})
    assert r.status_code == 403 and r.json()["code"] == "insufficient_scope"
    patient = world.patient(world.patient_a, scope="patient:write patient:read")
    assert patient.post("/v1/patients", {"display_name": "Ann"}).status_code == 403
    assert nurse.get("/v1/patients").status_code == 422
    assert nurse.get("/v1/patients", {"identifier": "no-bar"}).status_code == 422


def test_administrators_find_staff_by_name(world):
    admin = directory_admin(world)
    r = admin.post("/v1/staff", {"actor_sub": "nurse-demo", "display_name": "Nurse Joy Adams"})
    assert r.status_code == 201, r.content
    assert admin.post("/v1/staff", {"actor_sub": "scheduling-agent", "display_name": "Scheduling agent",
                                    "kind": "agent"}).status_code == 201
    assert admin.post("/v1/staff", {"actor_sub": "nurse-demo", "display_name": "Again"}).status_code == 409
    assert [s["actor_sub"] for s in admin.get("/v1/staff", {"q": "joy"}).json()["items"]] == ["nurse-demo"]
    assert [s["kind"] for s in admin.get("/v1/staff", {"q": "agent"}).json()["items"]] == ["agent"]
    assert world.staff("nurse-1", scope="patient:read").get("/v1/staff", {"q": "joy"}).status_code == 403
    # a patient's token is refused the search as it is the registration (it used to find nobody, 200)
    r = world.patient(world.patient_a, scope="grant:write").get("/v1/staff", {"q": "joy"})
    assert r.status_code == 403 and r.json()["code"] == "forbidden"
    assert directory_admin(world, org=world.other_org).get("/v1/staff", {"q": "joy"}).json()["items"] == []
    # a subject is free text: an e-mail address, another provider's namespaced name (it was a 500 from the audit row)
    for sub in ("jane.doe@hospital.example", "http://idp.b.example#nurse-9", "Dr Jane Doe"):
        r = admin.post("/v1/staff", {"actor_sub": sub, "display_name": f"Staff {sub[:4]}"})
        assert r.status_code == 201, (sub, r.content)


@pytest.mark.parametrize("sub", ["nurse\n9", "nurse-9\u0007", "\u202e9-esrun", "nurse\u200b9", "nurse\u20289"])
def test_a_staff_subject_no_token_can_carry_is_refused_and_not_registered(world, sub):
    """A token whose ``sub`` holds a control, invisible or direction character is refused (401), so such a subject
    could never sign in; registered, it only showed in the administrators' search box, where "\u202e9-esrun" reads
    as "nurse-9"."""
    admin = directory_admin(world)
    r = admin.post("/v1/staff", {"actor_sub": sub, "display_name": "Nurse Nine"})
    assert r.status_code == 422, r.content
    assert [(e["field"], e["code"]) for e in r.json()["errors"]] == [("actor_sub", "unstorable_character")]
    assert admin.get("/v1/staff", {"q": "Nurse Nine"}).json()["items"] == []


def test_a_staff_search_without_a_query_says_which_problem_it_has(world):
    """The staff search's ``q`` is refused as every other operation's parameters are: ``required`` when left out,
    ``blank`` when only spaces, ``max_length`` past 100 characters (all three were ``invalid``)."""
    admin = directory_admin(world)
    assert admin.post("/v1/staff", {"actor_sub": "nurse-demo", "display_name": "Nurse Joy Adams"}).status_code == 201
    for params, code in [({}, "required"), ({"q": "   "}, "blank"), ({"q": "j" * 101}, "max_length")]:
        r = admin.get("/v1/staff", params)
        assert r.status_code == 422, r.content
        assert [(e["field"], e["code"]) for e in r.json()["errors"]] == [("q", code)], params
    assert [s["actor_sub"] for s in admin.get("/v1/staff", {"q": " joy "}).json()["items"]] == ["nurse-demo"]


# Characters no name shows, or shows as something else: each refused with the code point named, never stripped.
HIDDEN_IN_NAMES = [
    ("\u202eecila", "U+202E"),  # right-to-left override: shows as "alice"
    ("Ann\u2066a", "U+2066"),  # left-to-right isolate
    ("A\u2028B", "U+2028"),  # line separator
    ("A\u2029B", "U+2029"),  # paragraph separator
    ("Al\u200bice", "U+200B"),  # zero width space
    ("\u200cAlice", "U+200C"),  # a joiner is spelling only between two letters
    ("Alice\u200d", "U+200D"),
    ("Ann \u200cLee", "U+200C"),
    ("Al\u200c\u200cice", "U+200C"),
    ("\ufeffAlice", "U+FEFF"),  # byte-order mark
    ("Alice\U000e0041\U000e007f", "U+E0041"),  # tag characters
    ("\u0301Ann", "U+0301"),  # a combining mark with no letter before it
    ("Ann \u0301Lee", "U+0301"),
    ("Zed\u0085x", "U+0085"),  # C1 control (next line): was stored as "Zedx"
    ("Zed\u0085", "U+0085"),  # trimmed away unseen before
    ("Zed\u007f", "U+007F"),  # delete: was stored as "Zed"
    ("Zed\u0001", "U+0001"),
    ("A\tB", "U+0009"),
    ("Ann\n", "U+000A"),
    ("Ann\ue000", "U+E000"),  # private use
    ("Ann\U0010ffff", "U+10FFFF"),  # a noncharacter, never assigned
]


@pytest.mark.parametrize("name, code_point", HIDDEN_IN_NAMES)
def test_names_with_invisible_or_control_characters_are_refused_naming_the_character(world, name, code_point):
    """A patient's or staff member's name is refused (422 unstorable_character, the code point named) when it holds
    a character that shows nothing or shows as something else in staff search; nothing is written."""
    admin = directory_admin(world)
    for path, body in (("/v1/patients", {"display_name": name}),
                       ("/v1/staff", {"actor_sub": "nurse-x", "display_name": name})):
        r = admin.post(path, body)
        assert r.status_code == 422, (path, r.content)
        [error] = [e for e in r.json()["errors"] if e["code"] != "blank"]
        assert (error["field"], error["code"]) == ("display_name", "unstorable_character"), error
        assert code_point in error["message"], error
    assert admin.get("/v1/patients", {"q": "Zed"}).json()["items"] == []
    assert admin.get("/v1/staff", {"q": "nurse-x"}).json()["items"] == []


def test_the_directory_service_refuses_them_too(world):
    """The rule is the service's: callers other than the API (the demo seed, commands) meet it as well."""
    from core.errors import ValidationFailed
    from directory.services import patient_register, staff_register

    admin = Identity(org_id=world.org, actor_sub="org-admin", scopes=frozenset({"patient:write", "grant:write"}))
    with identity_context(admin):
        with pytest.raises(ValidationFailed) as refused:
            patient_register(identity=admin, display_name="\u202eecila", birth_date=None, identifiers=[])
        assert refused.value.errors[0]["code"] == "unstorable_character"
        with pytest.raises(ValidationFailed):
            staff_register(identity=admin, actor_sub="nurse-y", display_name="Joy\u200b")


@pytest.mark.parametrize("name", [
    "Zoë Kowalska",  # NFC
    "Zoe\u0308 Kowalska",  # NFD: the mark sits on its letter
    "محمد بن سلمان",  # Arabic
    "דוד לוי",  # Hebrew
    "प्रिया शर्मा",  # Devanagari, with its vowel signs and virama inside words
    "王小明",  # CJK
    "Seán O'Brien-Ní Dhuibhir",
    "José María Ñúñez",
    "Nguyễn Thị Minh Khai",
    "\u0645\u0647\u200c\u0622\u0633\u0627",  # Persian, a zero-width non-joiner inside the word
    "\u0915\u094d\u200d\u0937\u093f\u0924\u093f",  # Devanagari, a zero-width joiner after the virama
])
def test_ordinary_names_in_any_script_are_kept_as_sent(world, name):
    admin = directory_admin(world)
    r = admin.post("/v1/patients", {"display_name": name})
    assert r.status_code == 201, r.content
    assert r.json()["display_name"] == name
    r = admin.post("/v1/staff", {"actor_sub": "nurse-z", "display_name": name})
    assert r.status_code == 201 and r.json()["display_name"] == name, r.content


def test_spaces_around_a_name_are_trimmed_as_before(world):
    r = directory_admin(world).post("/v1/patients", {"display_name": "  Ann Lee\u00a0 "})
    assert r.status_code == 201 and r.json()["display_name"] == "Ann Lee", r.content


def test_a_name_is_found_whether_its_letters_come_composed_or_decomposed(world):
    """"José" typed on one keyboard is U+00E9, on another "e" and U+0301: the same name, so each finds the other
    (the search found only the form it was stored in)."""
    composed, decomposed = "Jos\u00e9 M\u00fcller", "Jose\u0301 Mu\u0308ller"
    admin = directory_admin(world)
    register(world, composed, "1970-01-01", "MRN-NFC1")
    register(world, "Zo\u0308e\u0308 Nowak", "1971-01-01", "MRN-NFD1")
    for q in (composed, decomposed, "jose\u0301", "M\u00dcLLER", "MU\u0308LLER"):
        assert [p["display_name"] for p in admin.get("/v1/patients", {"q": q}).json()["items"]] == [composed], q
    for q in ("Z\u00f6\u00eb", "zo\u0308e\u0308", "Z\u00d6\u00cb"):
        assert [p["display_name"] for p in admin.get("/v1/patients", {"q": q}).json()["items"]] == [
            "Zo\u0308e\u0308 Nowak"], q
    assert admin.post("/v1/staff", {"actor_sub": "nurse-j", "display_name": "Ren\u00e9e Dupont"}).status_code == 201
    for q in ("Rene\u0301e", "ren\u00e9e"):
        assert [s["actor_sub"] for s in admin.get("/v1/staff", {"q": q}).json()["items"]] == ["nurse-j"], q


def test_a_name_is_found_typed_without_its_accents(world):
    """Staff type a name as they hear it: "Jose Alvarez" finds José Álvarez, "Zoe" Zoë, "Odysseas"'s Greek without
    its tonos too (the search found a name only with its accents as stored). Accents alone find nobody, not
    everybody."""
    admin = directory_admin(world)
    register(world, "Jos\u00e9 \u00c1lvarez", "1970-01-01", "MRN-ACC1")
    register(world, "Zo\u00eb M\u00fcller", "1971-01-01", "MRN-ACC2")
    register(world, "\u039f\u03b4\u03c5\u03c3\u03c3\u03ad\u03b1\u03c2 \u03a0\u03b1\u03c0\u03ac\u03c2", "1972-01-01",
             "MRN-ACC3")
    register(world, "\u0130lkay Y\u0131ld\u0131z", "1973-01-01", "MRN-ACC4")

    def found(q):
        r = admin.get("/v1/patients", {"q": q})
        assert r.status_code == 200, r.content
        return [p["display_name"] for p in r.json()["items"]]

    assert found("jose alvarez") == found("ALVAREZ") == found("\u00c1lvarez") == ["Jos\u00e9 \u00c1lvarez"]
    assert found("zoe muller") == found("Zoe") == ["Zo\u00eb M\u00fcller"]
    assert found("\u03bf\u03b4\u03c5\u03c3\u03c3\u03b5\u03b1\u03c2") == [
        "\u039f\u03b4\u03c5\u03c3\u03c3\u03ad\u03b1\u03c2 \u03a0\u03b1\u03c0\u03ac\u03c2"]
    assert found("ilkay") == ["\u0130lkay Y\u0131ld\u0131z"]
    assert found("\u0301\u0308") == []
    assert admin.post("/v1/staff", {"actor_sub": "nurse-r", "display_name": "Ren\u00e9e Dupont"}).status_code == 201
    assert [s["actor_sub"] for s in admin.get("/v1/staff", {"q": "renee"}).json()["items"]] == ["nurse-r"]
    assert admin.get("/v1/staff", {"q": "\u0301\u0301"}).json()["items"] == []


def test_a_pasted_name_is_found_without_the_invisible_characters_it_brought(world):
    """A name copied from a letter or a web page carries a zero-width space, a soft hyphen, a byte-order mark or a
    direction mark, which no stored name holds (registration refuses them): the search found nobody."""
    admin = directory_admin(world)
    register(world, "Zofia Kami\u0144ska", "1970-01-01", "MRN-PASTE1")
    for q in ("\u200bZofia", "Kami\u00adnska", "\ufeffZofia Kami\u0144ska", "\u200eKami\u0144ska\u200f"):
        assert [p["display_name"] for p in admin.get("/v1/patients", {"q": q}).json()["items"]] == [
            "Zofia Kami\u0144ska"], q
    assert admin.get("/v1/patients", {"q": "\u200b\u200b"}).json()["items"] == []


def test_a_forged_cursor_holding_no_text_is_refused_not_a_server_error(world):
    """A key cursor is JSON the client can forge: one holding a lone surrogate ("\\ud800", no text the database
    takes) was a 500 from the driver's encoder. It is 422 on cursor, as any cursor a list never gave."""
    admin = directory_admin(world)
    pid = world.patient_a
    patient = world.patient(pid)
    for api, path, params, cursor in (
            (patient, f"/v1/patients/{pid}/memories", {}, "WyJzY2hlZHVsaW5nX3ByZWZlcmVuY2UiLCJcdWQ4MDAiLCJ4Il0"),
            (admin, "/v1/staff", {"q": "Jones"}, "WyJcdWQ4MDAiLCJiIl0"),
            (admin, "/v1/patients", {"q": "Smith"},
             "WyJBbm5cdWQ4MDAiLCI5OTk5LTEyLTMxIiwiMDAwMDAwMDAtMDAwMC00MDAwLTgwMDAtMDAwMDAwMDAwMDAxIl0")):
        r = api.get(path, {**params, "cursor": cursor})
        assert r.status_code == 422 and [e["field"] for e in r.json()["errors"]] == ["cursor"], (path, r.content)
