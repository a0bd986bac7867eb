"""What a memory type answers (``serves``): short phrases in every definition, built-in and an organisation's own,
that search embeds to decide which types could answer a question; and an organisation's own wording of them for
any type it may use, saved in place (no new version), visible to that organisation only, audited."""

from __future__ import annotations

import statistics
import time
import uuid

import pytest
from django.db import DatabaseError, connection, transaction
from django.test.utils import CaptureQueriesContext

from core.identity import Identity, identity_context
from core.models import AuditEvent
from memory.models import MemoryTypeServes
from memory.types import builtin_catalogue, definition_check, type_serves
from memory.types import registry as registry_module
from memory.types.registry import serves_from_definition
from memory.types.spec import DefinitionInvalid
from tests.support import Api
from tests.test_memory_types import TYPE_ADMIN, admin, wound_care_type

pytestmark = pytest.mark.django_db

NAME_PHRASES = ["how to greet the patient", "the name for the waiting-room screen", "the name on a letter"]


def serves_url(name: str) -> str:
    return f"/v1/memory-types/{name}/serves"


def put(api, name: str, body):
    return api.request("PUT", serves_url(name), body)


def listed(api) -> dict[str, dict]:
    r = api.get("/v1/memory-types")
    assert r.status_code == 200, r.content
    return {t["name"]: t for t in r.json()["items"]}


def override_rows(org: uuid.UUID) -> list[tuple]:
    """The organisation's rows, read in the test's transaction as anyone of the organisation may."""
    with identity_context(Identity(org_id=org, actor_sub="reader")):
        return list(MemoryTypeServes.objects.order_by("name").values_list("name", "phrases", "updated_by"))


def type_admin_identity(org: uuid.UUID, **changes) -> Identity:
    return Identity(**{"org_id": org, "actor_sub": "type-admin", "scopes": frozenset({"memory_type:write"}),
                       **changes})


# --- the definition field ----------------------------------------------------------------------------------------

def test_a_definition_says_what_the_type_answers_trimmed():
    spec = definition_check(wound_care_type(serves=["  where dressings are changed ", "how often dressings are due"]))
    assert spec.serves == ("where dressings are changed", "how often dressings are due")
    assert spec.definition["serves"] == ["where dressings are changed", "how often dressings are due"]
    assert definition_check(wound_care_type(serves=["x" * 110 + "  "])).serves == ("x" * 110,)
    assert definition_check(wound_care_type()).serves == ()  # optional; a type without it says nothing more


@pytest.mark.parametrize("serves, field, code", [
    ("where dressings are changed", "serves", "invalid"),
    ({"a": "b"}, "serves", "invalid"),
    (None, "serves", "invalid"),
    ([f"phrase {i}" for i in range(9)], "serves", "too_many"),
    (["fine", "x" * 121], "serves[1]", "max_length"),
    (["where dressings are changed", "Where  dressings are CHANGED"], "serves[1]", "duplicate"),
    (["fine", "   "], "serves[1]", "blank"),
    (["fine", ""], "serves[1]", "blank"),
    (["fine", 7], "serves[1]", "invalid"),
    (["two\nlines"], "serves[0]", "control_character"),
    (["a\ttab"], "serves[0]", "control_character"),
    (["nul\x00here"], "serves[0]", "control_character"),
    (["\u202eright to left"], "serves[0]", "control_character"),
    (["zero\u200bwidth"], "serves[0]", "control_character"),
])
def test_the_definition_check_refuses_phrases_that_break_the_rule(serves, field, code):
    with pytest.raises(DefinitionInvalid) as refused:
        definition_check(wound_care_type(serves=serves))
    assert [(e["field"], e["code"]) for e in refused.value.errors] == [(field, code)]


def test_eight_phrases_of_120_characters_pass_and_every_problem_is_listed_at_once():
    assert len(definition_check(wound_care_type(serves=[f"{i}" + "x" * 119 for i in range(8)])).serves) == 8
    with pytest.raises(DefinitionInvalid) as refused:
        definition_check(wound_care_type(text="Dressings: {nowhere}", serves=["ok", "", "ok"]))
    assert {(e["field"], e["code"]) for e in refused.value.errors} == {
        ("text", "invalid_template"), ("serves[1]", "blank"), ("serves[2]", "duplicate")}


def test_every_builtin_type_says_what_it_answers_in_four_to_eight_phrases():
    for name, versions in builtin_catalogue().items():
        for version, spec in versions.items():
            assert 4 <= len(spec.serves) <= 8, (name, version)
            assert len({p.casefold() for p in spec.serves}) == len(spec.serves), (name, version)
            assert all(p == p.strip() and len(p) <= 120 for p in spec.serves), (name, version)
            assert "_" not in " ".join(spec.serves), (name, version)  # people's words, not field names


def test_care_context_answers_for_allergies_and_long_term_medicines_alike():
    """Both kinds of care context: allergies before prescribing, and long-term medicines (interactions)."""
    for spec in builtin_catalogue()["care_context"].values():
        words = " ".join(spec.serves)
        assert "allerg" in words and "prescrib" in words and "long-term medicine" in words and "interaction" in words


def test_the_api_shows_what_each_type_answers_and_where_the_words_come_from(world):
    agent = world.staff("scheduling-agent", scope="memory:read")
    types = listed(agent)
    assert types["preferred_name"]["serves"] == list(builtin_catalogue()["preferred_name"][1].serves)
    assert types["preferred_name"]["serves_source"] == "definition"
    versions = agent.get("/v1/memory-types/care_context").json()["versions"]
    assert [len(v["serves"]) for v in versions] == [7, 6]
    assert agent.get("/v1/memory-types/care_context/versions/1").json()["serves"] == versions[1]["serves"]


def test_a_type_stored_without_serves_loads_and_answers_by_its_label_and_fields(world):
    """Types stored before the field existed, or registered without it, have none: they load, the API shows their
    label, and search reads the label and each field's title with the words of its values."""
    assert admin(world).post("/v1/memory-types", wound_care_type()).status_code == 201
    mine = listed(admin(world))["dressing_change_preference"]
    assert mine["serves"] == ["Dressing changes"] and mine["serves_source"] == "label"
    with identity_context(type_admin_identity(world.org)):
        assert type_serves(org_id=world.org)["dressing_change_preference"] == (
            "Dressing changes", "Dressing changes: place: home (district nurse), the clinic",
            "Dressing changes: interval days")


def test_what_search_reads_of_a_type_without_phrases_comes_from_its_schema():
    """Titles over field names, value labels over values, every shape of a oneOf once, a description after; a
    free-text note and the catch-all value "other" name no situation and are left out."""
    spec = definition_check({
        "name": "home_visit_access", "memory_class": "care_context", "label": "Home visit access",
        "purposes": ["care_coordination"], "writers": ["staff"], "supersession": ["about"],
        "text": {"key_safe": "Key safe: {code_hint}[ ({note})]", "pets": "Pets: {animal}[ ({note})]"},
        "schema": {"type": "object", "oneOf": [
            {"type": "object", "additionalProperties": False, "required": ["kind", "about", "code_hint"],
             "properties": {"kind": {"const": "key_safe"},
                            "about": {"enum": ["key_safe", "pets", "other"], "title": "About",
                                      "x-labels": {"key_safe": "key safe", "pets": "pets in the home"}},
                            "code_hint": {"type": "string", "maxLength": 40, "title": "Where the code is kept",
                                          "description": "never the code itself"},
                            "note": {"type": "string", "maxLength": 200, "title": "Note"}}},
            {"type": "object", "additionalProperties": False, "required": ["kind", "about", "animal"],
             "properties": {"kind": {"const": "pets"},
                            "about": {"enum": ["key_safe", "pets", "other"], "title": "About",
                                      "x-labels": {"key_safe": "key safe", "pets": "pets in the home"}},
                            "animal": {"type": "string", "maxLength": 40},
                            "note": {"type": "string", "maxLength": 200, "title": "Note"}}}]},
    })
    assert serves_from_definition(spec) == (
        "Home visit access", "Home visit access: kind", "Home visit access: About: key safe, pets in the home",
        "Home visit access: Where the code is kept (never the code itself)", "Home visit access: animal")


def test_an_organisation_type_is_created_and_revised_with_its_phrases(world):
    """A revision's phrases are the new version's; the old version keeps its own."""
    first = ["where dressings are changed", "whether a district nurse visits"]
    r = admin(world).post("/v1/memory-types", wound_care_type(serves=first))
    assert r.status_code == 201 and r.json()["serves"] == first, r.content
    revised = ["where dressings are changed", "how often dressings are due"]
    r = admin(world).post("/v1/memory-types/dressing_change_preference/versions", wound_care_type(serves=revised))
    assert r.status_code == 201 and r.json()["version"] == 2 and r.json()["serves"] == revised, r.content
    versions = admin(world).get("/v1/memory-types/dressing_change_preference").json()["versions"]
    assert [(v["serves"], v["serves_source"]) for v in versions] == [(revised, "definition"), (first, "definition")]
    with identity_context(type_admin_identity(world.org)):
        assert type_serves(org_id=world.org)["dressing_change_preference"] == tuple(revised)
    bad = admin(world).post("/v1/memory-types/dressing_change_preference/versions",
                            wound_care_type(serves=["x" * 121]))
    assert bad.status_code == 422 and bad.json()["errors"] == [
        {"field": "serves[0]", "message": "at most 120 characters", "code": "max_length"}]


# --- an organisation's own wording ------------------------------------------------------------------------------

def test_an_administrator_rewords_a_builtin_type_for_their_organisation_only(world):
    default = list(builtin_catalogue()["preferred_name"][1].serves)
    r = put(admin(world), "preferred_name", {"serves": ["  " + NAME_PHRASES[0]] + NAME_PHRASES[1:]})
    assert r.status_code == 200, r.content
    body = r.json()
    assert body["name"] == "preferred_name" and body["version"] == 1 and body["builtin"] is True
    assert body["serves"] == NAME_PHRASES and body["serves_source"] == "organization"

    reader = world.staff("scheduling-agent", scope="memory:read")
    assert listed(reader)["preferred_name"]["serves"] == NAME_PHRASES
    assert reader.get("/v1/memory-types/preferred_name").json()["versions"][0]["serves"] == NAME_PHRASES
    assert reader.get("/v1/memory-types/preferred_name/versions/1").json()["serves"] == NAME_PHRASES
    with identity_context(type_admin_identity(world.org)):
        assert type_serves(org_id=world.org)["preferred_name"] == tuple(NAME_PHRASES)

    # another organisation still reads the type's own phrases: its API, its selector, and its rows (RLS)
    outsider = world.staff("scheduling-agent", org=world.other_org, scope="memory:read")
    theirs = listed(outsider)["preferred_name"]
    assert theirs["serves"] == default and theirs["serves_source"] == "definition"
    with identity_context(type_admin_identity(world.other_org)):
        assert type_serves(org_id=world.other_org)["preferred_name"] == tuple(default)
        assert type_serves(org_id=world.org)["preferred_name"] == tuple(default)  # asking for another org: nothing
        assert MemoryTypeServes.objects.count() == 0
    assert override_rows(world.org) == [("preferred_name", NAME_PHRASES, "type-admin")]


def test_the_change_is_audited_and_no_new_version_is_made(world):
    assert put(admin(world), "transport_need", {"serves": ["who drives the patient home"]}).status_code == 200
    versions = admin(world).get("/v1/memory-types/transport_need").json()["versions"]
    assert [v["version"] for v in versions] == [1]
    with identity_context(Identity(org_id=world.org, actor_sub="auditor", scopes=frozenset({"audit:read"}))):
        events = list(AuditEvent.objects.filter(resource_type="memory_type").values_list(
            "action", "resource_id", "outcome", "actor_sub"))
    assert events == [("memory_type.serves_set", "transport_need", "success", "type-admin")]


def test_null_or_the_types_own_phrases_go_back_to_them(world):
    own = list(builtin_catalogue()["transport_need"][1].serves)
    assert put(admin(world), "transport_need", {"serves": ["who drives the patient home"]}).status_code == 200
    r = put(admin(world), "transport_need", {"serves": None})
    assert r.status_code == 200 and r.json()["serves"] == own and r.json()["serves_source"] == "definition"
    assert listed(admin(world))["transport_need"]["serves"] == own
    assert override_rows(world.org) == [("transport_need", None, "type-admin")]
    # the type's own words sent as an override are none: a later revision of them would show through
    assert put(admin(world), "transport_need", {"serves": own}).json()["serves_source"] == "definition"
    assert override_rows(world.org) == [("transport_need", None, "type-admin")]


def test_an_override_outlives_a_revision_and_older_versions_keep_their_own(world):
    assert admin(world).post("/v1/memory-types", wound_care_type(serves=["where dressings are changed"])
                             ).status_code == 201
    mine = ["booking the district nurse", "dressing changes at the clinic"]
    r = put(admin(world), "dressing_change_preference", {"serves": mine})
    assert r.status_code == 200 and r.json()["builtin"] is False and r.json()["serves"] == mine
    r = admin(world).post("/v1/memory-types/dressing_change_preference/versions",
                          wound_care_type(serves=["how often dressings are due"]))
    assert r.status_code == 201, r.content
    versions = admin(world).get("/v1/memory-types/dressing_change_preference").json()["versions"]
    assert [(v["version"], v["serves"]) for v in versions] == [(2, mine), (1, ["where dressings are changed"])]
    old = admin(world).get("/v1/memory-types/dressing_change_preference/versions/1").json()
    assert old["serves"] == ["where dressings are changed"] and old["serves_source"] == "definition"
    assert put(admin(world), "dressing_change_preference", {"serves": None}).json()["serves"] == [
        "how often dressings are due"]


@pytest.mark.parametrize("body, field, code", [
    ({"serves": [f"phrase {i}" for i in range(9)]}, "serves", "too_many"),
    ({"serves": ["fine", "x" * 121]}, "serves[1]", "max_length"),
    ({"serves": ["the same", "The same"]}, "serves[1]", "duplicate"),
    ({"serves": ["tab\there"]}, "serves[0]", "control_character"),
    ({"serves": ["  "]}, "serves[0]", "blank"),
    ({"serves": []}, "serves", "empty"),
    ({"serves": "how to address the patient"}, "serves", "invalid"),
    ({"serves": [["nested"]]}, "serves[0]", "invalid"),
    ({}, "serves", "required"),
    ({"serves": ["fine"], "label": "Names"}, "label", "unknown_field"),  # a field it does not take
])
def test_a_bad_body_is_refused_with_its_code_and_nothing_is_written(world, body, field, code):
    r = put(admin(world), "preferred_name", body)
    assert r.status_code == 422, r.content
    problem = r.json()
    assert problem["code"] == "validation_error" and r["Content-Type"] == "application/problem+json"
    assert (field, code) in [(e["field"], e.get("code")) for e in problem["errors"]], problem
    assert override_rows(world.org) == []
    assert listed(admin(world))["preferred_name"]["serves_source"] == "definition"


def test_a_body_that_is_not_json_is_400(world):
    api = admin(world)
    r = api.client.generic("PUT", serves_url("preferred_name"), data="{serves", content_type="application/json",
                           **api._headers(None))
    assert r.status_code == 400 and r.json()["code"] == "malformed_json"
    assert override_rows(world.org) == []


def test_without_the_memory_type_write_scope_it_is_refused(world):
    nurse = world.staff("nurse-1", scope="memory:read memory:write grant:write")
    r = put(nurse, "preferred_name", {"serves": NAME_PHRASES})
    assert r.status_code == 403 and r.json()["code"] == "insufficient_scope"
    assert override_rows(world.org) == []
    assert listed(nurse)["preferred_name"]["serves_source"] == "definition"


def test_a_patient_is_refused_even_holding_the_scope_and_by_the_database_too(world):
    patient = world.patient(world.patient_a, scope="memory:read memory_type:write")
    r = put(patient, "preferred_name", {"serves": NAME_PHRASES})
    assert r.status_code == 403 and r.json()["code"] == "forbidden", r.content
    assert override_rows(world.org) == []
    as_patient = type_admin_identity(world.org, actor_sub=f"patient-{world.patient_a}",
                                     patient_self_id=world.patient_a)
    with identity_context(as_patient), pytest.raises(DatabaseError, match="row-level security"), \
            transaction.atomic():
        MemoryTypeServes.objects.create(organization_id=world.org, name="preferred_name", phrases=NAME_PHRASES,
                                        updated_by=as_patient.actor_sub)


def test_an_ai_agent_acting_for_an_administrator_may_not_change_the_types(world):
    """The types are administrators' decisions (what the organisation records, for which purposes, who may write
    it, and what each type answers: an allergy that search stops surfacing for a medicine question is a safety
    matter). An AI agent acting for an administrator (RFC 8693 ``act``, no patient), which a prompt could steer,
    reworded a built-in type's phrases, added a type and revised it. Refused as subscriptions and grants are:
    403 ``agent_cannot_grant``, nothing written; the administrator in person still may."""
    agent = Api(world.token(sub="type-admin", scope=TYPE_ADMIN, act={"sub": "admin-assistant"}))
    r = put(agent, "care_context", {"serves": NAME_PHRASES})
    assert r.status_code == 403 and r.json()["code"] == "agent_cannot_grant", r.content
    assert override_rows(world.org) == []
    r = agent.post("/v1/memory-types", wound_care_type())
    assert r.status_code == 403 and r.json()["code"] == "agent_cannot_grant", r.content
    assert admin(world).post("/v1/memory-types", wound_care_type()).status_code == 201
    r = agent.post("/v1/memory-types/dressing_change_preference/versions",
                   {**wound_care_type(label="Dressings"), "based_on_version": 1})
    assert r.status_code == 403 and r.json()["code"] == "agent_cannot_grant", r.content
    assert listed(admin(world))["dressing_change_preference"]["version"] == 1
    assert put(admin(world), "care_context", {"serves": NAME_PHRASES}).status_code == 200


def test_the_database_keeps_each_organisation_to_its_own_rows(world):
    """Bypassing the service: no row for another organisation or in another's name, no update of another's
    row, no delete at all."""
    assert put(admin(world), "preferred_name", {"serves": NAME_PHRASES}).status_code == 200
    outsider = type_admin_identity(world.other_org)
    with identity_context(outsider):
        assert MemoryTypeServes.objects.filter(organization_id=world.org).update(phrases=["mine now"]) == 0
        with pytest.raises(DatabaseError, match="row-level security"), transaction.atomic():
            MemoryTypeServes.objects.create(organization_id=world.org, name="transport_need", phrases=["x"],
                                            updated_by="type-admin")
    with identity_context(type_admin_identity(world.org)):
        with pytest.raises(DatabaseError, match="row-level security"), transaction.atomic():
            MemoryTypeServes.objects.create(organization_id=world.org, name="transport_need", phrases=["x"],
                                            updated_by="someone-else")
        with pytest.raises(DatabaseError, match="permission denied"), transaction.atomic():
            MemoryTypeServes.objects.all().delete()
        with pytest.raises(DatabaseError, match="memory_type_serves_phrases_list"), transaction.atomic():
            MemoryTypeServes.objects.filter(name="preferred_name").update(phrases=[])
    with identity_context(Identity(org_id=world.org, actor_sub="nurse-1", scopes=frozenset({"memory:read"}))):
        assert MemoryTypeServes.objects.filter(name="preferred_name").update(phrases=["x"]) == 0
    assert override_rows(world.org) == [("preferred_name", NAME_PHRASES, "type-admin")]


@pytest.mark.parametrize("name", ["no_such_type", "Preferred_Name", "dressing_change_preference", "x" * 60])
def test_a_type_the_organisation_cannot_see_is_404_like_on_every_type_route(world, name):
    """Another organisation's own type answers exactly as one that does not exist."""
    assert admin(world, org=world.other_org).post("/v1/memory-types", wound_care_type()).status_code == 201
    r = put(admin(world), name, {"serves": NAME_PHRASES})
    assert r.status_code == 404 and r.json()["code"] == "not_found", r.content
    assert admin(world).get(f"/v1/memory-types/{name}").status_code == 404
    assert override_rows(world.org) == []


# --- what search asks ----------------------------------------------------------------------------------------------

def test_type_serves_gives_every_visible_type_in_one_query_without_checking_definitions_again(world, monkeypatch):
    """Asked on every search: for 25 types (11 built-in, 14 of the organisation's, some reworded) it reads the
    organisation's type versions and its overrides in one statement, and checks no definition it has checked
    before; its cost is printed (goal: under 1 ms)."""
    api = admin(world)
    for i in range(14):
        definition = wound_care_type(name=f"local_type_{i:02d}", label=f"Local type {i}")
        if i % 2:
            definition["serves"] = [f"local question {i}", f"local situation {i}"]
        assert api.post("/v1/memory-types", definition).status_code == 201
    assert api.post("/v1/memory-types/local_type_03/versions", wound_care_type(
        name="local_type_03", label="Local type 3", serves=["revised question"])).status_code == 201
    for name in ("preferred_name", "local_type_00", "local_type_01"):
        assert put(api, name, {"serves": [f"{name} in our words"]}).status_code == 200

    with identity_context(type_admin_identity(world.org)):
        type_serves(org_id=world.org)  # this process checks each stored version once
        checks = []
        monkeypatch.setattr(registry_module, "definition_check", lambda *a, **k: checks.append(a))
        with CaptureQueriesContext(connection) as queries:
            served = type_serves(org_id=world.org)
        timings = []
        for _ in range(200):
            started = time.perf_counter()
            type_serves(org_id=world.org)
            timings.append(time.perf_counter() - started)
    assert checks == [] and len(queries) == 1, [q["sql"] for q in queries]
    assert len(served) == 25
    assert served["preferred_name"] == ("preferred_name in our words",)
    assert served["local_type_00"] == ("local_type_00 in our words",)
    assert served["local_type_01"] == ("local_type_01 in our words",)
    assert served["local_type_02"] == ("Local type 2", "Local type 2: place: home (district nurse), the clinic",
                                       "Local type 2: interval days")
    assert served["local_type_03"] == ("revised question",)
    assert served["local_type_05"] == ("local question 5", "local situation 5")
    assert served["care_context"] == builtin_catalogue()["care_context"][2].serves
    print(f"type_serves for 25 types: median {statistics.median(timings) * 1000:.3f} ms, "
          f"p95 {sorted(timings)[189] * 1000:.3f} ms")
