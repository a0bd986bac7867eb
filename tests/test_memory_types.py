"""The open memory model through the HTTP API: the registry of types (built-in catalogue and an organisation's
own), schema validation naming the field, organisation isolation, revisions that keep old memories readable, and
every built-in type through the whole lifecycle with no type-specific code."""

from __future__ import annotations

import json
import time
import uuid
from datetime import UTC, datetime, timedelta

import pytest

from core.identity import Identity, identity_context
from core.models import AuditEvent
from memory.types import builtin_catalogue, definition_check
from memory.types.spec import DefinitionInvalid
from tests.conftest import memory_body

pytestmark = pytest.mark.django_db

TYPE_ADMIN = "memory_type:write memory:read"


def admin(world, org=None):
    return world.staff("type-admin", org=org, scope=TYPE_ADMIN)


def mem_path(pid) -> str:
    return f"/v1/patients/{pid}/memories"


def _shape(place: dict) -> dict:
    """The wound care type's schema with another definition of its ``place`` field."""
    return {"type": "object", "additionalProperties": False, "required": ["place"], "properties": {
        "place": place, "interval_days": {"type": "integer", "minimum": 1, "maximum": 14}}}


def wound_care_type(**changes) -> dict:
    """An organisation's own type: how a patient wants their dressing changes booked."""
    definition = {
        "name": "dressing_change_preference", "memory_class": "preference", "label": "Dressing changes",
        "purposes": ["appointment_scheduling"], "writers": ["patient", "staff", "agent_proposal"],
        "supersession": [], "text": "Dressing changes: at {place}[, every {interval_days} days]",
        "schema": {"type": "object", "additionalProperties": False, "required": ["place"], "properties": {
            "place": {"enum": ["home", "clinic"],
                      "x-labels": {"home": "home (district nurse)", "clinic": "the clinic"}},
            "interval_days": {"type": "integer", "minimum": 1, "maximum": 14}}},
    }
    definition.update(changes)
    return definition


# --- the catalogue -------------------------------------------------------------------------------------------

def test_the_builtin_catalogue_is_data_and_every_definition_checks():
    """Each catalogue file is a definition that passes the same check as an administrator's, and today's types
    are there with the classes and purposes the API always had."""
    catalogue = builtin_catalogue()
    assert {"scheduling_preference", "communication_preference", "care_context", "accessibility_need",
            "language_support", "reminder_preference", "transport_need", "dietary_requirement",
            "observance_preference", "caregiver_contact", "preferred_name"} <= set(catalogue)
    for versions in catalogue.values():
        for spec in versions.values():
            assert definition_check(dict(spec.definition), version=spec.version) == spec
    assert catalogue["care_context"][1].encrypted and catalogue["care_context"][1].review
    assert catalogue["scheduling_preference"][1].purposes == ("appointment_scheduling",)


def test_agents_read_the_types_and_their_schemas(world):
    agent = world.staff("scheduling-agent", scope="memory:read")
    r = agent.get("/v1/memory-types")
    assert r.status_code == 200, r.content
    types = {t["name"]: t for t in r.json()["items"]}
    lang = types["language_support"]
    assert lang["builtin"] and lang["schema"]["additionalProperties"] is False
    assert "agent_proposal" in lang["writers"] and lang["memory_class"] == "preference"
    assert "agent_proposal" not in types["care_context"]["writers"]
    r = agent.get("/v1/memory-types/care_context")
    assert [v["version"] for v in r.json()["versions"]] == [2, 1]
    r = agent.get("/v1/memory-types/care_context/versions/1")
    assert r.status_code == 200 and "note" not in json.dumps(r.json()["schema"])
    assert agent.get("/v1/memory-types/no_such_type").status_code == 404


# --- validation names the field -------------------------------------------------------------------------------

@pytest.mark.parametrize("memory_type, purpose, fact, field", [
    ("language_support", "communication", {"language": "pl", "interpreter_needed": "yes"},
     "fact.interpreter_needed"),
    ("language_support", "communication", {"language": "pl"}, "fact.interpreter_needed"),
    ("language_support", "communication", {"language": "pl", "interpreter_needed": True, "modality": "telepathy"},
     "fact.modality"),
    ("reminder_preference", "communication", {"channel": "sms", "lead_time_hours": 0}, "fact.lead_time_hours"),
    ("accessibility_need", "appointment_scheduling", {"kind": "mobility", "aid": "wheelchair", "colour": "red"},
     "fact.colour"),
    ("accessibility_need", "appointment_scheduling", {"kind": "hearing", "support": []}, "fact.support"),
    ("caregiver_contact", "communication", {"name": "Jan", "relationship": "parent", "may_be_told": ["all"]},
     "fact.may_be_told.0"),
    ("preferred_name", "communication", {"preferred_name": "x" * 61}, "fact.preferred_name"),
    ("preferred_name", "care_coordination", {"preferred_name": "Kasia", "pronouns": "she/her"}, None),
    # a pattern's $ is the end of the text, as in JSON Schema (Python's also matched before a final newline)
    ("scheduling_preference", "appointment_scheduling", {"kind": "earliest_time", "time": "10:00\n"},
     "fact.time"),
])
def test_schema_validation_errors_name_the_field_and_store_nothing(world, memory_type, purpose, fact, field):
    cid = world.consent(world.patient_a, purpose)
    api = world.patient(world.patient_a)
    r = api.post(mem_path(world.patient_a), {"memory_type": memory_type, "fact": fact, "consent_purpose": purpose,
                                             "consent_record_id": cid})
    if field is None:
        assert r.status_code == 201, r.content
        return
    assert r.status_code == 422, r.content
    problem = r.json()
    assert problem["code"] == "validation_error" and r["Content-Type"] == "application/problem+json"
    assert field in [e["field"] for e in problem["errors"]], problem
    assert "telepathy" not in r.content.decode()  # messages name the rule, not the value
    assert api.get(mem_path(world.patient_a)).json()["items"] == []


def test_a_type_may_only_be_kept_for_its_purposes(world):
    cid = world.consent(world.patient_a, "prior_authorization")
    r = world.patient(world.patient_a).post(mem_path(world.patient_a), {
        "memory_type": "dietary_requirement", "fact": {"diets": ["halal"]}, "consent_purpose": "prior_authorization",
        "consent_record_id": cid})
    assert r.status_code == 422 and r.json()["errors"][0]["field"] == "consent_purpose"


def test_writers_decide_who_may_write_and_propose(world):
    """Care context: never the patient, never an agent's proposal; caregiver contact: never proposed."""
    cid = world.consent(world.patient_a, "communication")
    patient = world.patient(world.patient_a)
    r = patient.post(mem_path(world.patient_a), {
        "memory_type": "care_context", "consent_purpose": "care_coordination", "review_by": "2031-01-01T00:00:00Z",
        "fact": {"kind": "allergy", "substance": "latex", "note": "use nitrile gloves"}})
    assert r.status_code == 403 and r.json()["code"] == "staff_only"
    world.grant(world.patient_a, "scheduling-agent", "communication")
    agent = world.staff("scheduling-agent")
    r = agent.post(f"{mem_path(world.patient_a)}/proposals", {
        "memory_type": "caregiver_contact", "consent_purpose": "communication", "consent_record_id": cid,
        "source_ref": "session:1/turn:2",
        "fact": {"name": "Jan Kowalski", "relationship": "spouse_or_partner", "may_be_told": ["appointments"]}})
    assert r.status_code == 403 and r.json()["code"] == "staff_only"
    r = agent.post(f"{mem_path(world.patient_a)}/proposals", {
        "memory_type": "language_support", "consent_purpose": "communication", "consent_record_id": cid,
        "source_ref": "session:1/turn:3", "fact": {"language": "pl", "interpreter_needed": True}})
    assert r.status_code == 201 and r.json()["state"] == "proposed"
    assert r.json()["text"] == "Language support: Polish; needs a Polish interpreter"


# --- organisation types ---------------------------------------------------------------------------------------

def test_an_administrator_adds_a_type_that_patients_then_use_and_the_change_is_audited(world):
    r = admin(world).post("/v1/memory-types", wound_care_type())
    assert r.status_code == 201, r.content
    assert r.json()["version"] == 1 and r.json()["builtin"] is False
    cid = world.consent(world.patient_a)
    r = world.patient(world.patient_a).post(mem_path(world.patient_a), {
        "memory_type": "dressing_change_preference", "fact": {"place": "home", "interval_days": 3},
        "consent_purpose": "appointment_scheduling", "consent_record_id": cid})
    assert r.status_code == 201, r.content
    memory = r.json()["memory"]
    assert memory["type_version"] == 1 and memory["attribute"] == "dressing_change_preference"
    assert memory["text"] == "Dressing changes: at home (district nurse), every 3 days"
    with identity_context(Identity(org_id=world.org, actor_sub="auditor", scopes=frozenset({"audit:read"}))):
        actions = set(AuditEvent.objects.filter(resource_type="memory_type").values_list("action", flat=True))
    assert actions == {"memory_type.create"}


def test_a_context_pack_carries_the_fetch_live_guardrail_an_organisation_type_declares(world):
    """A type the organisation marks fetch_live: search shows its memory with the guardrail; the context pack gave
    the same memory guardrails {fetch_live: false} and no note, as if it were a settled fact (it read the class
    only)."""
    r = admin(world).post("/v1/memory-types", wound_care_type(fetch_live=True, serves=["how dressings are changed"]))
    assert r.status_code == 201, r.content
    cid = world.consent(world.patient_a)
    me = world.patient(world.patient_a)
    r = me.post(mem_path(world.patient_a), {
        "memory_type": "dressing_change_preference", "fact": {"place": "home", "interval_days": 3},
        "consent_purpose": "appointment_scheduling", "consent_record_id": cid})
    assert r.status_code == 201, r.content
    stored = r.json()["memory"]
    assert stored["guardrails"]["fetch_live"] is True
    question = "how are her dressings changed?"
    body = me.get(f"{mem_path(world.patient_a)}/search", {"q": question}).json()
    assert body["items"][0]["memory"]["guardrails"] == stored["guardrails"]
    pack = me.post(f"/v1/patients/{world.patient_a}/context",
                   {"question": question, "purpose": "appointment_scheduling"}).json()
    assert [f["memory_id"] for f in pack["facts"]] == [stored["memory_id"]], pack
    assert pack["facts"][0]["guardrails"] == stored["guardrails"]
    assert pack["guardrail_notes"] == [stored["guardrails"]["note"]] and stored["guardrails"]["note"] in pack["text"]


def test_a_pattern_that_would_take_exponential_time_refuses_the_value_at_once(world):
    """An administrator's pattern such as (a+)+$ backtracks exponentially on "aaa...!": the value is refused like
    one that does not match, within the pattern deadline, and values the pattern decides still pass or fail."""
    schema = {"type": "object", "additionalProperties": False, "required": ["place", "code"], "properties": {
        "place": {"enum": ["home", "clinic"]},
        "code": {"type": "string", "maxLength": 60, "pattern": "^(a+)+$", "x-error": "letters a only"}}}
    r = admin(world).post("/v1/memory-types", wound_care_type(schema=schema, text="Dressing changes: at {place}"))
    assert r.status_code == 201, r.content
    cid = world.consent(world.patient_a)
    patient = world.patient(world.patient_a)

    def write(code: str):
        return patient.post(mem_path(world.patient_a), {
            "memory_type": "dressing_change_preference", "fact": {"place": "home", "code": code},
            "consent_purpose": "appointment_scheduling", "consent_record_id": cid})

    started = time.monotonic()
    r = write("a" * 50 + "!")  # about 2**50 steps for the backtracking engine
    assert time.monotonic() - started < 5
    assert r.status_code == 422 and r.json()["errors"] == [
        {"field": "fact.code", "message": "letters a only", "code": "invalid"}], r.content
    assert patient.get(mem_path(world.patient_a)).json()["items"] == []
    assert write("b").status_code == 422
    assert write("aaa").status_code == 201


def test_a_valid_value_is_not_refused_because_the_thread_waited_for_a_core(world, monkeypatch):
    """The pattern deadline is wall-clock time: a thread that waited (for the GIL while another thread embeds, for
    a core on a loaded machine) rather than computed is given another try, so a slow moment never refuses a value
    the pattern accepts. Seen in the blind evaluation under load: a town and a note refused as invalid."""
    from memory.types import facts

    schema = {"type": "object", "additionalProperties": False, "required": ["place", "code"], "properties": {
        "place": {"enum": ["home", "clinic"]},
        "code": {"type": "string", "maxLength": 60, "pattern": "^[a-z]+$", "x-error": "letters only"}}}
    r = admin(world).post("/v1/memory-types", wound_care_type(schema=schema, text="Dressing changes: at {place}"))
    assert r.status_code == 201, r.content
    real_search, waits = facts.regex.search, []

    def waiting_search(pattern, value, timeout=None):
        if len(waits) < 3:  # the first three tries wait past the deadline without computing, then time out
            waits.append(value)
            time.sleep(timeout * 1.2)
            raise TimeoutError("regex timed out")
        return real_search(pattern, value, timeout=timeout)

    monkeypatch.setattr(facts.regex, "search", waiting_search)
    cid = world.consent(world.patient_a)
    r = world.patient(world.patient_a).post(mem_path(world.patient_a), {
        "memory_type": "dressing_change_preference", "fact": {"place": "home", "code": "abc"},
        "consent_purpose": "appointment_scheduling", "consent_record_id": cid})
    assert r.status_code == 201, r.content
    assert waits == ["abc"] * 3


def test_a_pattern_alone_does_not_let_a_value_grow_past_the_text_limit(world):
    """A definition may bound a string by a pattern instead of maxLength; ``^.+$`` bounds nothing, so every text
    in a fact is at most MAX_FACT_TEXT_CHARS (500) characters whatever the schema says."""
    place = {"type": "string", "pattern": "^[a-z]+$"}
    assert admin(world).post("/v1/memory-types", wound_care_type(
        schema=_shape(place), text="Dressing changes: at {place}")).status_code == 201
    cid = world.consent(world.patient_a)
    api = world.patient(world.patient_a)
    body = {"memory_type": "dressing_change_preference", "consent_purpose": "appointment_scheduling",
            "consent_record_id": cid}
    r = api.post(mem_path(world.patient_a), {**body, "fact": {"place": "a" * 501}})
    assert r.status_code == 422 and [e["field"] for e in r.json()["errors"]] == ["fact.place"], r.content
    assert "500" in r.json()["errors"][0]["message"]
    assert api.post(mem_path(world.patient_a), {**body, "fact": {"place": "a" * 500}}).status_code == 201


def test_a_type_stored_under_an_earlier_looser_rule_is_left_out_not_a_500(world):
    """A name ending in a newline passed the name check before it read to the end of the text; such a row fails
    today's definition check. The registry leaves it out (it was never usable) and still answers."""
    from memory.models import MemoryType

    assert admin(world).post("/v1/memory-types", wound_care_type()).status_code == 201
    staff = Identity(org_id=world.org, actor_sub="type-admin", scopes=frozenset({"memory_type:write"}))
    with identity_context(staff):
        MemoryType.objects.create(organization_id=world.org, name="legacy_pref\n", version=1,
                                  memory_class="preference", definition={**wound_care_type(), "name": "legacy_pref\n",
                                                                          "version": 1}, created_by="type-admin")
    r = admin(world).get("/v1/memory-types")
    assert r.status_code == 200, r.content
    names = [t["name"] for t in r.json()["items"]]
    assert "dressing_change_preference" in names and not any(n.startswith("legacy_pref") for n in names)


@pytest.mark.parametrize("name", ["dressing%00change", "%C5%BC%C3%B3%C5%82w", "a" * 300])
def test_revising_a_name_no_type_can_have_is_404_and_the_refusal_is_audited(world, name, caplog):
    """A NUL in the path never reaches the database (it was a 500), and a name no type can have is refused as
    any unknown type is, with its refusal in the audit trail (writing that row failed on the name)."""
    assert admin(world).post("/v1/memory-types", wound_care_type()).status_code == 201
    for method, path, body in [("POST", f"/v1/memory-types/{name}/versions", wound_care_type()),
                               ("PUT", f"/v1/memory-types/{name}/serves", {"serves": ["dressings"]})]:
        r = admin(world).request(method, path, body)
        assert r.status_code == 404 and r.json()["code"] == "not_found", r.content
    assert "could not audit a refusal" not in caplog.text
    with identity_context(Identity(org_id=world.org, actor_sub="auditor", scopes=frozenset({"audit:read"}))):
        refused = list(AuditEvent.objects.filter(organization_id=world.org, outcome="denied",
                                                 action__in=["memory_type.revise", "memory_type.serves_set"])
                       .values_list("action", "resource_id"))
    assert sorted(refused) == [("memory_type.revise", None), ("memory_type.serves_set", None)]
    versions = admin(world).get("/v1/memory-types/dressing_change_preference").json()["versions"]
    assert [v["version"] for v in versions] == [1]


def test_the_memory_list_refuses_a_type_the_organisation_does_not_have_as_search_does(world):
    """The list's ``memory_type`` filter knows the types search knows: built-in ones and the caller organisation's
    own filter the list; any other well-formed name (another organisation's type, a typo) is 422
    ``unknown_memory_type`` on ``memory_type``, as search answers, not an empty list that reads as "nothing on
    record", and nothing is audited. Empty still means any type."""
    assert admin(world, org=world.other_org).post("/v1/memory-types", wound_care_type()).status_code == 201
    cid = world.consent(world.patient_a)
    api = world.patient(world.patient_a)
    assert api.post(mem_path(world.patient_a), memory_body(cid)).status_code == 201
    listed = {name: api.get(mem_path(world.patient_a), {"memory_type": name}) for name in (
        "scheduling_preference", "", "preferred_name")}
    assert [len(r.json()["items"]) for r in listed.values()] == [1, 1, 0], [r.content for r in listed.values()]
    with identity_context(Identity(org_id=world.org, actor_sub="auditor", scopes=frozenset({"audit:read"}))):
        before = AuditEvent.objects.filter(action="memory.list").count()
    for name in ("no_such_type", "dressing_change_preference"):  # the second is only the other organisation's
        r = api.get(mem_path(world.patient_a), {"memory_type": name})
        assert r.status_code == 422, (name, r.content)
        assert [(e["field"], e["code"]) for e in r.json()["errors"]] == [("memory_type", "unknown_memory_type")]
    with identity_context(Identity(org_id=world.org, actor_sub="auditor", scopes=frozenset({"audit:read"}))):
        assert AuditEvent.objects.filter(action="memory.list").count() == before
    assert admin(world).post("/v1/memory-types", wound_care_type()).status_code == 201  # now the organisation's own
    r = api.get(mem_path(world.patient_a), {"memory_type": "dressing_change_preference"})
    assert r.status_code == 200 and r.json()["items"] == [], r.content


def test_a_custom_type_is_invisible_to_another_organisation(world):
    assert admin(world).post("/v1/memory-types", wound_care_type()).status_code == 201
    outsider_patient = uuid.uuid4()
    outsider = world.staff("scheduling-agent", org=world.other_org, scope="memory:read")
    names = [t["name"] for t in outsider.get("/v1/memory-types").json()["items"]]
    assert "dressing_change_preference" not in names and "scheduling_preference" in names
    assert outsider.get("/v1/memory-types/dressing_change_preference").status_code == 404
    assert outsider.get("/v1/memory-types/dressing_change_preference/versions/1").status_code == 404
    cid = world.consent(outsider_patient, org=world.other_org)
    r = world.patient(outsider_patient, org=world.other_org).post(mem_path(outsider_patient), {
        "memory_type": "dressing_change_preference", "fact": {"place": "home"},
        "consent_purpose": "appointment_scheduling", "consent_record_id": cid})
    assert r.status_code == 422 and r.json()["errors"][0]["field"] == "memory_type"
    # The other organisation may define its own type of the same name: names are per organisation.
    r = admin(world, org=world.other_org).post("/v1/memory-types", wound_care_type(label="Wound dressings"))
    assert r.status_code == 201, r.content
    mine = admin(world).get("/v1/memory-types/dressing_change_preference").json()["versions"]
    assert [v["label"] for v in mine] == ["Dressing changes"]


@pytest.mark.parametrize("change, field, code", [
    ({"schema": {"type": "object", "properties": {"place": {"enum": ["home"]}}}}, "schema", "schema_not_closed"),
    ({"schema": {"type": "object", "additionalProperties": False, "properties": {"note": {"type": "string"}}}},
     "schema.properties.note", "unbounded"),
    ({"schema": {"type": "object", "additionalProperties": False, "properties": {
        "who": {"type": "object", "properties": {"name": {"enum": ["a"]}}}}}}, "schema.properties.who",
     "schema_not_closed"),
    ({"schema": {"type": "object", "additionalProperties": False, "properties": {"x": {"type": "nonsense"}}}},
     "schema", "invalid_schema"),
    ({"text": "Dressing changes: at {room}"}, "text", "invalid_template"),
    ({"text": "Dressing changes: at {place} {0}"}, "text", "invalid_template"),
    ({"text": "Dressing changes: at {place!r}"}, "text", "invalid_template"),
    ({"text": "Dressing changes: at {place} }"}, "text", "invalid_template"),
    ({"supersession": ["interval_days"]}, "supersession", "invalid"),
    ({"memory_class": "care_context", "writers": ["patient"]}, "writers", "invalid"),
    ({"name": "scheduling_preference"}, None, "memory_type_exists"),
    ({"name": "scheduling_preference\n"}, "name", "invalid"),  # not a second, unusable copy of a built-in
    ({"name": "dressing_change_preference\n"}, "name", "invalid"),
    ({"colour": "red"}, "colour", "invalid"),
    ({"version": 7}, "version", "invalid"),
    ({"default_validity_days": 400, "retention_days": 30}, "default_validity_days", "beyond_retention"),
    # every keyword is checked wherever it stands: nothing names another schema, nothing is open or untyped
    ({"schema": _shape({"type": "array", "maxItems": 2, "items": {"enum": ["a"]},
                        "prefixItems": [{"$ref": "file:///etc/passwd"}]})}, "schema.properties.place",
     "unsupported_keyword"),
    ({"schema": _shape({"type": "array", "maxItems": 2, "items": {"enum": ["a"]},
                        "contains": {"$ref": "http://127.0.0.1:9/x.json"}})}, "schema.properties.place",
     "unsupported_keyword"),
    ({"schema": {**_shape({"enum": ["home"]}), "$defs": {"x": {"$ref": "http://127.0.0.1:9/"}}}}, "schema",
     "unsupported_keyword"),
    ({"schema": _shape({"enum": ["home"], "$id": "http://127.0.0.1:9/"})}, "schema.properties.place",
     "unsupported_keyword"),
    ({"schema": _shape({})}, "schema.properties.place", "unbounded"),
    ({"schema": _shape({"type": ["string", "null"], "maxLength": 10})}, "schema.properties.place.type",
     "unsupported_type"),
    ({"schema": _shape({"type": "string", "maxLength": 100000.0})}, "schema.properties.place.maxLength",
     "invalid_schema"),
    ({"schema": _shape({"type": "array", "maxItems": 3})}, "schema.properties.place", "unbounded"),
    ({"schema": _shape({"type": "array", "maxItems": 3, "items": {"enum": ["a", {"b": 1}]}})},
     "schema.properties.place.items.enum", "invalid_schema"),
    ({"schema": _shape({"type": "string", "maxLength": 9, "oneOf": [{"const": "a"}]})}, "schema.properties.place",
     "unsupported_keyword"),
    ({"schema": {**_shape({"type": "string", "maxLength": 9}), "x-ascending": "zz"}}, "schema.x-ascending",
     "invalid_schema"),
    ({"schema": {**_shape({"type": "string", "maxLength": 9}), "x-ascending": [["place", "interval_days"]]}},
     "schema.x-ascending[0]", "invalid_schema"),
    ({"schema": {**_shape({"type": "string", "maxLength": 9}), "x-ascending": [["place", "interval_days", "m"]]}},
     "schema.x-ascending[0]", "invalid_schema"),  # a string and an integer do not compare
    ({"schema": {**_shape({"type": "string", "maxLength": 9}), "x-ascending": [["place", "nowhere", "m"]]}},
     "schema.x-ascending[0]", "invalid_schema"),
    ({"default_validity_days": 3000}, "default_validity_days", "beyond_retention"),  # past the class's 730
    # bounds no value fits: every memory of the type would be refused
    ({"schema": _shape({"type": "integer", "minimum": 10, "maximum": 1})}, "schema.properties.place.minimum",
     "invalid_schema"),
    ({"schema": _shape({"type": "string", "minLength": 9, "maxLength": 3})}, "schema.properties.place.minLength",
     "invalid_schema"),
    ({"schema": _shape({"type": "array", "minItems": 3, "maxItems": 2, "items": {"enum": ["a"]}})},
     "schema.properties.place.minItems", "invalid_schema"),
    ({"schema": {**_shape({"enum": ["home"]}), "required": ["place", "room"]}}, "schema.required", "invalid_schema"),
])
def test_a_bad_type_definition_is_refused_naming_the_problem(world, change, field, code):
    r = admin(world).post("/v1/memory-types", wound_care_type(**change))
    if code == "memory_type_exists":
        assert r.status_code == 409 and r.json()["code"] == code
        return
    assert r.status_code == 422, r.content
    errors = r.json()["errors"]
    assert (field, code) in [(e["field"], e["code"]) for e in errors] or (
        code == "invalid" and field in [e["field"] for e in errors]), errors
    assert admin(world).get("/v1/memory-types/dressing_change_preference").status_code == 404


@pytest.mark.parametrize("change, field", [
    ({"label": "Dressing\nchanges"}, "label"),
    ({"label": "Dressing changes\u0007"}, "label"),
    ({"label": "\u202esegnahc gnisserD"}, "label"),  # reads "Dressing changes" on a page, backwards in search
    ({"label": "Dressing\u200bchanges"}, "label"),
    ({"text": "Dressing changes:\tat {place}"}, "text"),
    ({"text": "Dressing changes at {place}\u2028"}, "text"),
    ({"schema": _shape({"enum": ["home"], "x-labels": {"home": "\u202eemoh"}})}, "schema.properties.place.x-labels"),
    ({"schema": _shape({"enum": ["home"], "title": "Place\n"})}, "schema.properties.place.title"),
])
def test_a_label_or_template_people_would_not_read_as_sent_is_refused(world, change, field):
    """A type's label, sentence template and the words its schema gives fields and values are one line people read
    (the patient's page, the staff console) and search embeds, as its ``serves`` phrases are: control, invisible
    and direction characters are refused with the phrases' code, and nothing is stored."""
    r = admin(world).post("/v1/memory-types", wound_care_type(**change))
    assert r.status_code == 422, r.content
    assert (field, "control_character") in [(e["field"], e["code"]) for e in r.json()["errors"]]
    assert admin(world).get("/v1/memory-types/dressing_change_preference").status_code == 404
    assert admin(world).post("/v1/memory-types", wound_care_type(label="Pansements à domicile")).status_code == 201
    r = admin(world).post("/v1/memory-types/dressing_change_preference/versions", wound_care_type(**change))
    assert r.status_code == 422 and r.json()["errors"][0]["code"] == "control_character", r.content


def test_only_administrators_with_the_scope_add_types(world):
    r = world.staff("nurse-1", scope="memory:read memory:write").post("/v1/memory-types", wound_care_type())
    assert r.status_code == 403 and r.json()["code"] == "insufficient_scope"
    patient = world.patient(world.patient_a, scope="memory:read memory_type:write")
    r = patient.post("/v1/memory-types", wound_care_type())
    assert r.status_code == 403
    assert admin(world).get("/v1/memory-types/dressing_change_preference").status_code == 404


# --- revisions --------------------------------------------------------------------------------------------

def clinic_dressing_changes(world):
    """The wound care type, and patient A's memory of it (at the clinic): (the patient's client, the memory)."""
    assert admin(world).post("/v1/memory-types", wound_care_type()).status_code == 201
    cid = world.consent(world.patient_a)
    patient = world.patient(world.patient_a)
    old = patient.post(mem_path(world.patient_a), {
        "memory_type": "dressing_change_preference", "fact": {"place": "clinic"},
        "consent_purpose": "appointment_scheduling", "consent_record_id": cid}).json()["memory"]
    return patient, old


def test_a_revised_type_keeps_old_memories_readable(world):
    patient, old = clinic_dressing_changes(world)
    # Version 2 adds a place and a field, and words the sentence differently.
    schema = wound_care_type()["schema"]
    schema["properties"]["place"] = {"enum": ["home", "clinic", "pharmacy"]}
    schema["properties"]["time_of_day"] = {"enum": ["morning", "afternoon"]}
    r = admin(world).post("/v1/memory-types/dressing_change_preference/versions", {
        **{k: v for k, v in wound_care_type().items() if k != "name"}, "schema": schema,
        "text": "Dressing changes at {place}[ in the {time_of_day}]"})
    assert r.status_code == 201, r.content
    assert r.json()["version"] == 2
    read = patient.get(f"{mem_path(world.patient_a)}/{old['memory_id']}").json()
    assert read["type_version"] == 1 and read["fact"] == {"place": "clinic"}
    assert read["text"] == "Dressing changes: at the clinic"
    r = patient.post(f"{mem_path(world.patient_a)}/{old['memory_id']}/correct",
                     {"fact": {"place": "pharmacy", "time_of_day": "morning"}})
    assert r.status_code == 201, r.content
    assert r.json()["type_version"] == 2 and r.json()["text"] == "Dressing changes at pharmacy in the morning"
    versions = admin(world).get("/v1/memory-types/dressing_change_preference").json()["versions"]
    assert [v["version"] for v in versions] == [2, 1]


def test_a_process_that_has_not_seen_an_organisation_type_lists_and_reads_its_memories(committed_db, world):
    """A web worker that never looked the type up (the other worker, or any after a restart) renders a memory of
    an organisation's type after the read's COMMIT, which travels with the read: the list was a 500 ("no statement
    may follow it") on DRF's path, and on the quick path the memory read as its type's name ("dressing change
    preference") with the built-in guardrails. The versions it needs come with the read."""
    from memory.types import registry

    patient, old = clinic_dressing_changes(world)
    schema = wound_care_type()["schema"]
    schema["properties"]["place"] = {"enum": ["home", "clinic", "pharmacy"]}
    assert admin(world).post("/v1/memory-types/dressing_change_preference/versions", wound_care_type(
        schema=schema, text="Dressing changes at {place}")).status_code == 201
    one = f"{mem_path(world.patient_a)}/{old['memory_id']}"
    named = {"purpose": "appointment_scheduling"}  # DRF's path; without parameters, the quick read's
    for path, params in ((mem_path(world.patient_a), None), (mem_path(world.patient_a), named), (one, None),
                         (one, named)):
        registry._cache.clear()  # as in a process that has not looked the type up
        r = patient.get(path, params)
        assert r.status_code == 200, (path, r.content)
        item = r.json()["items"][0] if "items" in r.json() else r.json()
        assert (item["type_version"], item["text"]) == (1, "Dressing changes: at the clinic"), path
        assert item["guardrails"] == old["guardrails"]


def test_a_fact_whose_free_text_hides_what_it_holds_is_refused_naming_the_character(world):
    """A fact's text is what the patient's page and the staff console show and search embeds: a direction override
    ("see \u202efiler" displays as "see relif") or a control character was stored as sent, while every other free
    text people read refuses them. Tab and line breaks stay; nothing is written."""
    schema = wound_care_type()["schema"]
    schema["properties"]["note"] = {"type": "string", "maxLength": 60}
    assert admin(world).post("/v1/memory-types", wound_care_type(
        schema=schema, text="Dressing changes: at {place}[ ({note})]")).status_code == 201
    cid = world.consent(world.patient_a)
    patient = world.patient(world.patient_a)

    def record(note):
        return patient.post(mem_path(world.patient_a), {
            "memory_type": "dressing_change_preference", "fact": {"place": "home", "note": note},
            "consent_purpose": "appointment_scheduling", "consent_record_id": cid})

    for note, code_point in (("see \u202efiler", "U+202E"), ("ring \u2066twice\u2069", "U+2066"),
                             ("bell\u0007", "U+0007"), ("esc\u001b[31m", "U+001B")):
        r = record(note)
        assert r.status_code == 422, r.content
        [error] = r.json()["errors"]
        assert (error["field"], error["code"]) == ("fact.note", "unstorable_character") and code_point in error[
            "message"], error
    assert patient.get(mem_path(world.patient_a)).json()["items"] == []
    kept = record("ring twice,\tthen wait\nat the back door")
    assert kept.status_code == 201, kept.content
    r = patient.post(f"{mem_path(world.patient_a)}/{kept.json()['memory_id']}/correct",
                     {"fact": {"place": "home", "note": "\u202egnir"}})
    assert r.status_code == 422 and r.json()["errors"][0]["code"] == "unstorable_character", r.content


def test_a_revision_current_memories_would_not_satisfy_is_refused_listing_what_breaks(world):
    assert admin(world).post("/v1/memory-types", wound_care_type()).status_code == 201
    cid = world.consent(world.patient_a)
    patient = world.patient(world.patient_a)
    home = patient.post(mem_path(world.patient_a), {
        "memory_type": "dressing_change_preference", "fact": {"place": "home", "interval_days": 3},
        "consent_purpose": "appointment_scheduling", "consent_record_id": cid}).json()["memory_id"]
    schema = wound_care_type()["schema"]
    schema["properties"]["place"] = {"enum": ["clinic"]}
    schema["properties"]["interval_days"] = {"type": "integer", "minimum": 7, "maximum": 14}
    r = admin(world).post("/v1/memory-types/dressing_change_preference/versions",
                          wound_care_type(schema=schema))
    assert r.status_code == 409, r.content
    problem = r.json()
    assert problem["code"] == "revision_breaks_memories"
    assert {(e["field"], e["memories"]) for e in problem["errors"]} == {("fact.place", 1), ("fact.interval_days", 1)}
    assert problem["message"] == "1 current memory would not satisfy version 2"
    # paths, rules and counts: never the values, nor which memories (see the next test)
    assert "home" not in r.content.decode() and home not in r.content.decode()
    assert [v["version"] for v in admin(world).get(
        "/v1/memory-types/dressing_change_preference").json()["versions"]] == [1]
    # The class and the supersession attribute stay; built-in types are not revised by organisations.
    r = admin(world).post("/v1/memory-types/dressing_change_preference/versions",
                          wound_care_type(supersession=["place"]))
    assert r.status_code == 422 and r.json()["errors"][0]["field"] == "supersession"
    r = admin(world).post("/v1/memory-types/scheduling_preference/versions", wound_care_type())
    assert r.status_code == 409 and r.json()["code"] == "memory_type_builtin"
    r = admin(world).post("/v1/memory-types/not_there/versions", wound_care_type())
    assert r.status_code == 404


def test_an_administrator_cannot_read_a_patients_value_by_trying_revisions(world):
    """A refusal listed each breaking memory's id: an administrator without any grant tried revisions whose enum
    held one value at a time and read, per memory id, which value each patient had (ids that webhooks, receipts
    and audit rows tie to patients). The refusal says how many memories each rule breaks, never which."""
    assert admin(world).post("/v1/memory-types", wound_care_type()).status_code == 201
    ids = []
    for patient, place in ((world.patient_a, "home"), (world.patient_b, "clinic")):
        cid = world.consent(patient)
        ids.append(world.patient(patient).post(mem_path(patient), {
            "memory_type": "dressing_change_preference", "fact": {"place": place},
            "consent_purpose": "appointment_scheduling", "consent_record_id": cid}).json()["memory_id"])
    answers = []
    for only in ("home", "clinic"):
        schema = wound_care_type()["schema"]
        schema["properties"]["place"] = {"enum": [only]}
        r = admin(world).post("/v1/memory-types/dressing_change_preference/versions", wound_care_type(schema=schema))
        assert r.status_code == 409 and r.json()["code"] == "revision_breaks_memories", r.content
        assert not any(memory_id in r.content.decode() for memory_id in ids)
        answers.append(r.json())
    assert [a["errors"] for a in answers] == [[{"field": "fact.place", "message": "one of home", "code":
                                                "breaks_memory", "memories": 1}],
                                              [{"field": "fact.place", "message": "one of clinic", "code":
                                                "breaks_memory", "memories": 1}]]


def test_a_revision_may_not_leave_out_a_purpose_current_memories_are_kept_for(world):
    """Else those memories stay in every read for a purpose the type no longer allows, and the patient's own
    correction fails on a field they never sent."""
    assert admin(world).post("/v1/memory-types", wound_care_type()).status_code == 201
    cid = world.consent(world.patient_a)
    kept = world.patient(world.patient_a).post(mem_path(world.patient_a), {
        "memory_type": "dressing_change_preference", "fact": {"place": "home"},
        "consent_purpose": "appointment_scheduling", "consent_record_id": cid}).json()["memory_id"]
    r = admin(world).post("/v1/memory-types/dressing_change_preference/versions",
                          wound_care_type(purposes=["communication"]))
    assert r.status_code == 409 and r.json()["code"] == "revision_breaks_memories", r.content
    assert [(e["field"], e["memories"]) for e in r.json()["errors"]] == [("consent_purpose", 1)]
    assert kept not in r.content.decode()
    widened = admin(world).post("/v1/memory-types/dressing_change_preference/versions",
                                wound_care_type(purposes=["appointment_scheduling", "communication"]))
    assert widened.status_code == 201, widened.content


def test_a_write_checked_against_a_version_a_revision_then_replaced_is_a_retry(world, monkeypatch):
    """A write checks its fact against the latest version, then inserts; a revision committed in between (it
    found no memory it would break) must not leave a memory it refuses. The write holds the type (shared) while
    it inserts and checks the fact again against a newer version: 409, and the retry gets the 422."""
    from core.errors import ConcurrentUpdate
    from memory import services

    assert admin(world).post("/v1/memory-types", wound_care_type()).status_code == 201
    cid = world.consent(world.patient_a)
    schema = wound_care_type()["schema"]
    schema["properties"]["place"] = {"enum": ["clinic"]}
    r = admin(world).post("/v1/memory-types/dressing_change_preference/versions", wound_care_type(schema=schema))
    assert r.status_code == 201, r.content
    patient = Identity(org_id=world.org, actor_sub=f"patient-{world.patient_a}", patient_self_id=world.patient_a)
    looked_up = services._spec
    # the write looked its type up before the revision committed: it checks the fact against version 1
    monkeypatch.setattr(services, "_spec", lambda memory_type, version=None: looked_up(memory_type, 1))
    with identity_context(patient), pytest.raises(ConcurrentUpdate):
        services.memory_record(identity=patient, patient_id=world.patient_a, memory_type="dressing_change_preference",
                               fact={"place": "home"}, consent_purpose="appointment_scheduling",
                               consent_record_id=uuid.UUID(cid))
    monkeypatch.undo()
    retried = world.patient(world.patient_a).post(mem_path(world.patient_a), {
        "memory_type": "dressing_change_preference", "fact": {"place": "home"},
        "consent_purpose": "appointment_scheduling", "consent_record_id": cid})
    assert retried.status_code == 422 and retried.json()["errors"][0]["field"] == "fact.place", retried.content
    assert world.patient(world.patient_a).get(mem_path(world.patient_a)).json()["items"] == []


def test_a_revision_checks_encrypted_memories_too(world):
    definition = wound_care_type(name="carer_note_pref", memory_class="account_fact", encrypted=True,
                                 writers=["patient", "staff"])
    assert admin(world).post("/v1/memory-types", definition).status_code == 201
    cid = world.consent(world.patient_a)
    r = world.patient(world.patient_a).post(mem_path(world.patient_a), {
        "memory_type": "carer_note_pref", "fact": {"place": "home"}, "consent_purpose": "appointment_scheduling",
        "consent_record_id": cid})
    assert r.status_code == 201 and r.json()["memory"]["fact"] == {"place": "home"}
    schema = definition["schema"] | {"required": ["place", "interval_days"]}
    r = admin(world).post("/v1/memory-types/carer_note_pref/versions",
                          {**definition, "schema": schema})
    assert r.status_code == 409
    assert [e["field"] for e in r.json()["errors"]] == ["fact.interval_days"]


# --- every built-in type through the whole lifecycle -------------------------------------------------------

ROUND_TRIP = {
    # type: (purpose, fact, corrected fact (same attribute), question)
    "scheduling_preference": ("appointment_scheduling", {"kind": "earliest_time", "time": "10:00"},
                              {"kind": "earliest_time", "time": "11:00"}, "what time can I book?"),
    "communication_preference": ("communication", {"kind": "channel", "channel": "sms"},
                                 {"kind": "channel", "channel": "email"}, "how should we contact her?"),
    "care_context": ("care_coordination", {"kind": "allergy", "substance": "latex", "note": "use nitrile gloves",
                                           "coded_substance": {"system": "http://snomed.info/sct",
                                                               "code": "111088007"}},
                     {"kind": "allergy", "substance": "Latex", "reaction": "hives"}, "which gloves should we use?"),
    "accessibility_need": ("appointment_scheduling", {"kind": "mobility", "aid": "wheelchair",
                                                      "step_free_access": True},
                           {"kind": "mobility", "aid": "walking_frame"}, "does she need step-free access?"),
    "language_support": ("communication", {"language": "pl", "interpreter_needed": True},
                         {"language": "pl", "interpreter_needed": False}, "do we need an interpreter?"),
    "reminder_preference": ("communication", {"channel": "sms", "lead_time_hours": 24},
                            {"channel": "sms", "lead_time_hours": 48}, "when should we send a reminder?"),
    "transport_need": ("appointment_scheduling", {"needs": ["hospital_transport"]},
                       {"needs": ["hospital_transport", "escort"]}, "does she need transport?"),
    "dietary_requirement": ("care_coordination", {"diets": ["halal"]}, {"diets": ["gluten_free", "halal"]},
                            "any dietary requirements for the ward?"),
    "observance_preference": ("appointment_scheduling", {"practice": "religious_observance", "days": ["saturday"]},
                              {"practice": "religious_observance", "days": ["friday", "saturday"],
                               "periods": ["evening"]}, "which days should we avoid?"),
    "caregiver_contact": ("communication", {"name": "Jan Kowalski", "relationship": "spouse_or_partner",
                                            "may_be_told": ["appointments"]},
                          {"name": "Jan Kowalski", "relationship": "spouse_or_partner",
                           "may_be_told": ["appointments", "reminders"]}, "who can we talk to about her visits?"),
    "preferred_name": ("communication", {"preferred_name": "Kasia", "pronouns": "she/her"},
                       {"preferred_name": "Kasia", "pronouns": "they/them"}, "what should we call her?"),
}


def test_the_round_trip_covers_every_builtin_type():
    assert set(ROUND_TRIP) == set(builtin_catalogue())


@pytest.mark.slow
@pytest.mark.parametrize("memory_type", sorted(ROUND_TRIP))
def test_each_builtin_type_round_trips_through_write_search_correction_and_deletion(world, memory_type):
    purpose, fact, corrected, question = ROUND_TRIP[memory_type]
    spec = builtin_catalogue()[memory_type]
    spec = spec[max(spec)]
    pid = uuid.uuid4()
    world.grant(pid, "clinician", purpose)
    staff = world.staff("clinician")
    by_patient = "patient" in spec.writers
    writer = world.patient(pid) if by_patient else staff
    body = {"memory_type": memory_type, "fact": fact, "consent_purpose": purpose}
    if spec.memory_class == "care_context":
        body |= {"review_by": "2031-01-01T00:00:00Z", "source": "ehr_import", "source_ref": "ehr:allergy/7"}
    else:
        body["consent_record_id"] = world.consent(pid, purpose)
    r = writer.post(mem_path(pid), body)
    assert r.status_code == 201, r.content
    first = r.json()["memory"]
    assert first["type_version"] == spec.version and first["memory_class"] == spec.memory_class
    assert first["text"] and "{" not in first["text"] and "_" not in first["text"]
    assert first["guardrails"]["fetch_live"] is spec.fetch_live

    r = staff.get(f"{mem_path(pid)}/search", {"q": question, "min_score": 0})
    assert r.status_code == 200, r.content
    assert [h["memory"]["memory_id"] for h in r.json()["items"]] == [first["memory_id"]]
    r = staff.post(f"/v1/patients/{pid}/context", {"question": question, "purpose": purpose})
    assert r.status_code == 200, r.content

    r = writer.post(f"{mem_path(pid)}/{first['memory_id']}/correct", {"fact": corrected})
    assert r.status_code == 201, r.content
    second = r.json()
    assert second["attribute"] == first["attribute"] and second["text"] != first["text"]
    listed = writer.get(mem_path(pid)).json()["items"]
    assert [m["memory_id"] for m in listed] == [second["memory_id"]]

    r = writer.client.delete(f"{mem_path(pid)}/{second['memory_id']}", **writer._headers(None))
    assert r.status_code == 200, r.content
    receipt = r.json()
    assert set(receipt["memory_ids"]) == {first["memory_id"], second["memory_id"]}
    assert all(line["state"] == "verified" for line in receipt["representations"])
    assert writer.get(mem_path(pid)).json()["items"] == []


def test_existing_bodies_still_work_and_answers_carry_the_type_version(world):
    cid = world.consent(world.patient_a)
    r = world.patient(world.patient_a).post(mem_path(world.patient_a), memory_body(cid))
    assert r.status_code == 201 and r.json()["memory"]["type_version"] == 1
    assert r.json()["memory"]["text"] == "Scheduling preference: appointments not before 10:00"


@pytest.mark.slow
@pytest.mark.parametrize("memory_type", sorted(t for t, versions in builtin_catalogue().items()
                                               if "agent_proposal" in versions[max(versions)].writers))
def test_each_proposable_type_goes_through_proposal_confirmation_quarantine_and_correction(world, memory_type):
    purpose, fact, corrected, _ = ROUND_TRIP[memory_type]
    pid = uuid.uuid4()
    cid = world.consent(pid, purpose)
    world.grant(pid, "scheduling-agent", purpose)
    agent = world.staff("scheduling-agent")
    r = agent.post(f"{mem_path(pid)}/proposals", {"memory_type": memory_type, "fact": fact, "consent_purpose": purpose,
                                                  "consent_record_id": cid, "source_ref": "session:1/turn:1"})
    assert r.status_code == 201, r.content
    proposal = r.json()
    assert proposal["state"] == "proposed" and world.patient(pid).get(mem_path(pid)).json()["items"] == []
    r = world.patient(pid).post(f"{mem_path(pid)}/{proposal['memory_id']}/confirm")
    assert r.status_code == 200 and r.json()["state"] == "active"
    r = agent.post(f"{mem_path(pid)}/{proposal['memory_id']}/quarantine", {"reason_code": "disputed_by_patient"})
    assert r.status_code == 200 and r.json()["state"] == "quarantined"
    assert world.patient(pid).get(mem_path(pid)).json()["items"] == []
    r = world.patient(pid).post(f"{mem_path(pid)}/{proposal['memory_id']}/correct", {"fact": corrected})
    assert r.status_code == 201, r.content
    assert [m["memory_id"] for m in world.patient(pid).get(mem_path(pid)).json()["items"]] == [r.json()["memory_id"]]


def test_a_reference_in_a_stored_schema_is_never_fetched(world, tmp_path):
    """Were a type with a $ref stored before references were refused, validating a fact fetches nothing (no file,
    no URL): the fact is refused, and the outside server sees no request."""
    import dataclasses

    from memory.types import FactInvalid, fact_validate
    from tests.support import JwksServer, KeyRing

    secret = tmp_path / "secret.json"
    secret.write_text(json.dumps({"enum": ["SECRET-VALUE-123"]}))
    outside = JwksServer(KeyRing())  # any real HTTP server that counts the requests it gets
    try:
        spec = definition_check(wound_care_type(schema=_shape({"enum": ["home"]})))
        for ref in (secret.as_uri(), outside.url):
            stored = dataclasses.replace(spec, schema=_shape({"$ref": ref}))
            with pytest.raises(FactInvalid) as refused:
                fact_validate(stored, {"place": "home"})
            assert "SECRET" not in json.dumps(refused.value.detail)
            assert "refers elsewhere" in json.dumps(refused.value.detail)
    finally:
        outside.stop()
    assert outside.hits == 0


@pytest.mark.parametrize("value", [3.0, 10.0, True])
def test_an_integer_field_takes_json_integers_only(world, value):
    """3.0 would be stored as a float and read back as "every 3.0 days"."""
    assert admin(world).post("/v1/memory-types", wound_care_type()).status_code == 201
    cid = world.consent(world.patient_a)
    patient = world.patient(world.patient_a)
    r = patient.post(mem_path(world.patient_a), {
        "memory_type": "dressing_change_preference", "fact": {"place": "home", "interval_days": value},
        "consent_purpose": "appointment_scheduling", "consent_record_id": cid})
    assert r.status_code == 422, r.content
    assert r.json()["errors"] == [{"field": "fact.interval_days", "message": "must be an integer", "code": "invalid"}]
    assert patient.get(mem_path(world.patient_a)).json()["items"] == []


def test_a_revision_sent_twice_is_one_version_and_a_stale_one_is_a_conflict(world):
    """A double submit makes one version (the latest definition again is that version, 200); a revision made from
    an older version is 409 version_conflict, never saved over the one that came first."""
    assert admin(world).post("/v1/memory-types", wound_care_type()).status_code == 201
    url = "/v1/memory-types/dressing_change_preference/versions"
    revision = wound_care_type(label="Wound dressings")
    first = admin(world).post(url, {**revision, "based_on_version": 1})
    assert first.status_code == 201 and first.json()["version"] == 2, first.content
    for again in (admin(world).post(url, revision), admin(world).post(url, {**revision, "based_on_version": 1})):
        assert again.status_code == 200 and again.json()["version"] == 2, again.content
    stale = admin(world).post(url, {**wound_care_type(text="Dressings: {place}"), "based_on_version": 1})
    assert stale.status_code == 409 and stale.json()["code"] == "version_conflict", stale.content
    versions = admin(world).get("/v1/memory-types/dressing_change_preference").json()["versions"]
    assert [(v["version"], v["label"]) for v in versions] == [(2, "Wound dressings"), (1, "Dressing changes")]
    assert admin(world).post(url, {**revision, "based_on_version": 0}).status_code == 422


def _kinds_type(*kinds: str, free: bool = False) -> dict:
    """A type whose attribute is its kind (a closed vocabulary), and with ``free`` also a free-text field."""
    required = ["kind", "what"] if free else ["kind"]
    props = {"kind": {"enum": list(kinds)}, "what": {"type": "string", "maxLength": 40, "pattern": "^[a-z ]+$"}}
    return wound_care_type(
        name="care_wish", label="Care wishes", supersession=["kind", "what"] if free else ["kind"],
        text="Wish: {kind}[ ({what})]",
        schema={"type": "object", "additionalProperties": False, "required": required, "properties": props})


def test_an_attribute_of_closed_values_only_may_use_its_whole_column(world):
    """The attribute is the closed values joined by ':' plus one keyed hash only when some part is free: a kind
    of up to 60 characters fits on its own, a free part leaves room for 35, and the memories of a long kind are
    written and supersede each other by it."""
    long_kind = "advance_decision_to_refuse_treatment_" + "x" * 23  # 60 characters
    assert len(long_kind) == 60
    r = admin(world).post("/v1/memory-types", _kinds_type(long_kind, "organ_donation"))
    assert r.status_code == 201, r.content
    cid = world.consent(world.patient_a)
    for _ in range(2):
        w = world.patient(world.patient_a).post(mem_path(world.patient_a), {
            "memory_type": "care_wish", "fact": {"kind": long_kind}, "consent_purpose": "appointment_scheduling",
            "consent_record_id": cid})
        assert w.status_code == 201, w.content
    items = world.patient(world.patient_a).get(mem_path(world.patient_a)).json()["items"]
    assert [(i["attribute"], i["state"]) for i in items] == [(long_kind, "active")]

    too_long = admin(world).post("/v1/memory-types/care_wish/versions", _kinds_type(long_kind + "y"))
    assert too_long.status_code == 422 and too_long.json()["errors"][0]["field"] == "supersession", too_long.content
    # with a free part: 35 characters of kind, ':' and the 24 of the hash make 60; one more does not fit
    assert definition_check(_kinds_type("k" * 35, free=True))
    with pytest.raises(DefinitionInvalid) as refused:
        definition_check(_kinds_type("k" * 36, free=True))
    assert [e["field"] for e in refused.value.errors] == ["supersession"]


@pytest.mark.django_db
def test_a_number_in_a_list_of_texts_is_refused_as_not_text(world):
    """A list of text fields refuses a number as its top-level text fields do ("Not a valid string."), rather than
    reading 12 as the field name "12"."""
    r = admin(world).post("/v1/memory-types", wound_care_type(supersession=[12]))
    assert r.status_code == 422, r.content
    assert r.json()["errors"] == [{"field": "supersession", "message": "Not a valid string.", "code": "invalid"}]


def test_a_revision_keeps_the_attributes_fields_closed_or_free_as_they_were(world):
    """The attribute keeps a closed value as it is and free text as a keyed hash: a revision that made the
    attribute's 'place' free text was stored, and then 'clinic' written again under it no longer superseded the
    current 'clinic' (two current values of one preference), which could not be corrected either (422). Refused
    now, naming the field, in both directions; a closed vocabulary may still grow."""
    definition = wound_care_type(supersession=["place"])
    assert admin(world).post("/v1/memory-types", definition).status_code == 201
    revise_with = {k: v for k, v in definition.items() if k != "name"}

    def revise(place):
        schema = wound_care_type()["schema"]
        schema["properties"]["place"] = place
        return admin(world).post("/v1/memory-types/dressing_change_preference/versions",
                                 {**revise_with, "schema": schema})

    r = revise({"type": "string", "maxLength": 40})
    assert r.status_code == 422, r.content
    assert [(e["field"], e["code"]) for e in r.json()["errors"]] == [("supersession", "invalid")]
    assert "place" in r.json()["errors"][0]["message"]
    r = revise({"enum": ["home", "clinic", "pharmacy"]})  # still a closed vocabulary: the same attributes
    assert r.status_code == 201 and r.json()["version"] == 2, r.content

    free = wound_care_type(name="dressing_place_note", supersession=["place"])
    free["schema"]["properties"]["place"] = {"type": "string", "maxLength": 40}
    assert admin(world).post("/v1/memory-types", free).status_code == 201
    schema = wound_care_type()["schema"]
    r = admin(world).post("/v1/memory-types/dressing_place_note/versions",
                          {**{k: v for k, v in free.items() if k != "name"}, "schema": schema})
    assert r.status_code == 422 and r.json()["errors"][0]["field"] == "supersession", r.content
    assert [v["version"] for v in admin(world).get("/v1/memory-types/dressing_place_note").json()["versions"]] == [1]


def test_a_correction_after_a_revision_shortened_retention_keeps_the_validity_it_may(world):
    """A correction keeps the corrected record's valid_until; once a revision kept the type for less time, that
    refused every correction that named no validity (422 beyond_retention on a valid_until the patient never sent):
    the patient could not correct their preference. The kept validity ends at the latest retention now; one named
    beyond it is still refused."""
    definition = wound_care_type(retention_days=400, default_validity_days=300)
    assert admin(world).post("/v1/memory-types", definition).status_code == 201
    cid = world.consent(world.patient_a)
    patient = world.patient(world.patient_a)
    old = patient.post(mem_path(world.patient_a), {
        "memory_type": "dressing_change_preference", "fact": {"place": "clinic"},
        "consent_purpose": "appointment_scheduling", "consent_record_id": cid}).json()["memory"]
    r = admin(world).post("/v1/memory-types/dressing_change_preference/versions", {
        **{k: v for k, v in definition.items() if k != "name"}, "retention_days": 30, "default_validity_days": 20})
    assert r.status_code == 201, r.content
    r = patient.post(f"{mem_path(world.patient_a)}/{old['memory_id']}/correct", {"fact": {"place": "home"}})
    assert r.status_code == 201, r.content
    valid_until = datetime.fromisoformat(r.json()["valid_until"].replace("Z", "+00:00"))
    assert timedelta(days=29) < valid_until - datetime.now(UTC) <= timedelta(days=30)
    assert r.json()["type_version"] == 2
    listed = patient.get(mem_path(world.patient_a)).json()["items"]
    assert [(m["memory_id"], m["fact"]) for m in listed] == [(r.json()["memory_id"], {"place": "home"})]
    beyond = (datetime.now(UTC) + timedelta(days=60)).isoformat()
    r = patient.post(f"{mem_path(world.patient_a)}/{r.json()['memory_id']}/correct",
                     {"fact": {"place": "clinic"}, "valid_until": beyond})
    assert r.status_code == 422 and r.json()["errors"][0]["code"] == "beyond_retention", r.content


def test_a_correction_after_a_revision_dropped_review_dates_keeps_none(world):
    """A correction keeps the corrected record's review_by: once a revision of the type dropped review dates, that
    refused every correction (422 not_applicable on a review_by the patient never sent). A review date is kept only
    while the type has them; one named is still refused."""
    definition = wound_care_type(review=True)
    assert admin(world).post("/v1/memory-types", definition).status_code == 201
    cid = world.consent(world.patient_a)
    patient = world.patient(world.patient_a)
    r = patient.post(mem_path(world.patient_a), {
        "memory_type": "dressing_change_preference", "fact": {"place": "clinic"}, "review_by": "2031-01-01T00:00:00Z",
        "consent_purpose": "appointment_scheduling", "consent_record_id": cid})
    assert r.status_code == 201 and r.json()["memory"]["review_by"], r.content
    old = r.json()["memory"]
    r = admin(world).post("/v1/memory-types/dressing_change_preference/versions", {
        **{k: v for k, v in definition.items() if k != "name"}, "review": False})
    assert r.status_code == 201, r.content
    r = patient.post(f"{mem_path(world.patient_a)}/{old['memory_id']}/correct", {"fact": {"place": "home"}})
    assert r.status_code == 201, r.content
    assert r.json()["review_by"] is None and r.json()["type_version"] == 2
    r = patient.post(f"{mem_path(world.patient_a)}/{r.json()['memory_id']}/correct",
                     {"fact": {"place": "clinic"}, "review_by": "2031-01-01T00:00:00Z"})
    assert r.status_code == 422 and r.json()["errors"][0]["code"] == "not_applicable", r.content


def test_a_correction_that_changes_the_attribute_names_the_field_it_changed(world):
    """A correction keeps the attribute; the refusal named ``fact.kind`` for every type, also for a carer whose
    name was changed (the type has no kinds) and an allergy whose substance was: the field changed is named."""
    pid = world.patient_a
    cid = world.consent(pid, "communication")
    patient = world.patient(pid)
    carer = patient.post(mem_path(pid), {
        "memory_type": "caregiver_contact", "consent_purpose": "communication", "consent_record_id": cid,
        "fact": {"name": "Jan Kowalski", "relationship": "spouse_or_partner", "may_be_told": ["appointments"]}})
    assert carer.status_code == 201, carer.content
    r = patient.post(f"{mem_path(pid)}/{carer.json()['memory']['memory_id']}/correct", {"fact": {
        "name": "Anna Nowak", "relationship": "spouse_or_partner", "may_be_told": ["appointments"]}})
    assert r.status_code == 422 and [e["field"] for e in r.json()["errors"]] == ["fact.name"], r.content

    world.grant(pid, "clinician", "care_coordination")
    staff = world.staff("clinician")
    allergy = staff.post(mem_path(pid), {
        "memory_type": "care_context", "consent_purpose": "care_coordination", "review_by": "2031-01-01T00:00:00Z",
        "source": "staff_entered", "fact": {"kind": "allergy", "substance": "Latex"}})
    assert allergy.status_code == 201, allergy.content
    r = staff.post(f"{mem_path(pid)}/{allergy.json()['memory']['memory_id']}/correct",
                   {"fact": {"kind": "allergy", "substance": "Penicillin"}})
    assert r.status_code == 422 and [e["field"] for e in r.json()["errors"]] == ["fact.substance"], r.content


def test_an_organisation_holds_a_bounded_number_of_types_and_of_versions_of_each(world, monkeypatch):
    """``GET /v1/memory-types`` answers every type an organisation may use in one body, each with its schema, and
    a type's versions are one answer too: an administrator could add types and versions without end, and every
    agent's read of the types grew with them. Past ``MAX_ORGANIZATION_TYPES`` types, or ``MAX_TYPE_VERSIONS``
    versions of one, the next is 409 ``too_many_memory_types`` and nothing is added; the latest definition sent
    again is still answered as that version."""
    from memory.types import services

    monkeypatch.setattr(services, "MAX_ORGANIZATION_TYPES", 2)
    monkeypatch.setattr(services, "MAX_TYPE_VERSIONS", 2)
    api = admin(world)
    statuses = [api.post("/v1/memory-types", wound_care_type(name=name)).status_code
                for name in ("dressing_change_preference", "stoma_care_preference", "compression_preference")]
    assert statuses == [201, 201, 409], statuses
    r = api.post("/v1/memory-types", wound_care_type(name="compression_preference"))
    assert r.json()["code"] == "too_many_memory_types", r.content
    assert {t["name"] for t in api.get("/v1/memory-types").json()["items"]} >= {
        "dressing_change_preference", "stoma_care_preference"}
    revised = {k: v for k, v in wound_care_type(label="Dressing changes (nurse)").items() if k != "name"}
    path = "/v1/memory-types/dressing_change_preference/versions"
    assert api.post(path, revised).status_code == 201
    r = api.post(path, {**revised, "label": "Dressings"})
    assert r.status_code == 409 and r.json()["code"] == "too_many_memory_types", r.content
    assert api.post(path, revised).status_code == 200  # the latest again: that version
    assert [v["version"] for v in api.get("/v1/memory-types/dressing_change_preference").json()["versions"]] == [2, 1]
