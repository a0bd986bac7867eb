"""Audit rows hold only server-validated, coded values: request parameters are checked against their closed sets
before anything is stored, and the database refuses free text in the append-only trail even from a bug."""

from __future__ import annotations

import json
import uuid
from datetime import timedelta

import psycopg
import pytest
from django.db import DatabaseError, connection, transaction
from django.utils import timezone

from core import audit
from core.identity import Identity, identity_context
from core.models import AuditEvent
from tests.conftest import admin_connect, database_contains, memory_body

pytestmark = pytest.mark.django_db

PHI = "Patient has HIV, call 555-0100"


def mem(pid) -> str:
    return f"/v1/patients/{pid}/memories"


def audit_count() -> int:
    with admin_connect() as conn:
        return conn.execute("SELECT count(*) FROM audit_event").fetchone()[0]


@pytest.mark.parametrize("name,value", [
    ("consent_purpose", PHI),
    ("consent_purpose", "x" * 81),
    ("consent_purpose", "x" * 3000),
    ("memory_type", PHI),
    ("memory_type", "scheduling_preference\x00"),
])
def test_list_parameters_outside_their_closed_set_are_422_and_never_stored(world, name, value):
    cid = world.consent(world.patient_a)
    api = world.patient(world.patient_a)
    assert api.post(mem(world.patient_a), memory_body(cid)).status_code == 201
    before = audit_count()
    r = api.get(mem(world.patient_a), {name: value})
    assert r.status_code == 422, r.content
    problem = r.json()
    assert problem["code"] == "validation_error" and r["Content-Type"] == "application/problem+json"
    assert name in [e["field"] for e in problem["errors"]]
    assert audit_count() == before, "a refused parameter writes nothing, not even an audit row"
    assert database_contains("555-0100") == []


def test_valid_list_parameters_still_filter_and_are_audited_as_codes(world):
    cid = world.consent(world.patient_a)
    api = world.patient(world.patient_a)
    api.post(mem(world.patient_a), memory_body(cid))
    r = api.get(mem(world.patient_a), {"consent_purpose": "appointment_scheduling",
                                        "memory_type": "scheduling_preference"})
    assert r.status_code == 200 and len(r.json()["items"]) == 1
    assert api.get(mem(world.patient_a), {"consent_purpose": "communication"}).json()["items"] == []
    assert api.get(mem(world.patient_a), {"consent_purpose": ""}).status_code == 200  # empty means any
    events = world.patient(world.patient_a).get("/v1/audit-events").json()["items"]
    purposes = {e["purpose"] for e in events if e["action"] == "memory.list"}
    assert purposes == {"appointment_scheduling", "communication", None}


def test_a_query_string_over_the_request_limit_is_414_and_writes_nothing(world):
    api = world.patient(world.patient_a)
    before = audit_count()
    r = api.get(mem(world.patient_a), {"consent_purpose": "x" * 5000})
    assert r.status_code == 414 and r.json()["code"] == "query_too_long", r.content
    assert audit_count() == before


@pytest.mark.parametrize("path", ["/v1/audit-events", "/v1/grants", "/v1/workflows/reconciliation",
                                  "memories", "search"])
def test_over_long_query_parameters_are_422_naming_the_field(world, path):
    if path == "memories":
        path = mem(world.patient_a)
    elif path == "search":
        path = f"{mem(world.patient_a)}/search"
    api = world.staff("admin-1", scope="memory:read grant:write audit:read workflow:reconcile")
    r = api.get(path, {"q": "x" * 501})
    assert r.status_code == 422 and r.json()["code"] == "validation_error", r.content
    assert r.json()["errors"][0]["field"] == "q"
    r = api.get(path, {f"p{i}": "1" for i in range(21)})
    assert r.status_code == 422


def test_grant_list_patient_filter_must_be_a_uuid(world):
    r = world.admin().get("/v1/grants", {"patient_id": PHI})
    assert r.status_code == 422 and r.json()["errors"][0]["field"] == "patient_id"


def test_reading_one_patients_grants_is_in_that_patients_history(world):
    """Who may reach a patient's records is about them: an administrator listing them is in their history (the row
    named no patient); the whole organisation's list names none."""
    world.grant(world.patient_a, "nurse-1", "appointment_scheduling")
    admin = world.admin()
    assert len(admin.get("/v1/grants", {"patient_id": str(world.patient_a)}).json()["items"]) == 1
    admin.get("/v1/grants")
    history = world.patient(world.patient_a).get("/v1/audit-events", {"patient_id": str(world.patient_a)}).json()
    assert [(e["action"], e["outcome"]) for e in history["items"] if e["action"] == "grant.list"] == [
        ("grant.list", "success")]


def _insert(**overrides):
    values = {"organization_id": uuid.uuid4(), "actor_sub": "nurse-1", "actor_kind": "staff",
              "action": "memory.list", "resource_type": "memory", "outcome": "success",
              "correlation_id": "req-1", **overrides}
    columns = ", ".join(values)
    marks = ", ".join(["%s"] * len(values))
    # as the superuser (no RLS), in a transaction rolled back: only the constraints stand in the way
    with admin_connect() as conn, conn.transaction(force_rollback=True):
        conn.execute(f"INSERT INTO audit_event (id, occurred_at, {columns}) VALUES (gen_random_uuid(), now(), "
                     f"{marks})", list(values.values()))


@pytest.mark.parametrize("column,value", [
    ("purpose", PHI), ("purpose", "research"), ("action", PHI), ("resource_type", "memory; drop"),
    ("reason", "call 555-0100"), ("resource_id", "Patient has HIV"), ("correlation_id", "a b"),
    ("actor_kind", "doctor"), ("actor_sub", "nurse\n-1"), ("agent_client_id", "agent one"),
])
def test_the_database_refuses_free_text_in_coded_audit_columns(column, value):
    with pytest.raises(psycopg.errors.CheckViolation):
        _insert(**{column: value})


def test_the_database_accepts_coded_values():
    _insert(purpose="care_coordination", reason="no_active_consent_or_access", resource_id=str(uuid.uuid4()),
            agent_client_id="https://agents.example/scheduler", on_behalf_of=uuid.uuid4(), actor_kind="agent")


# The checks' length bounds (char_length beside an unbounded pattern, core 0014): each limit itself is accepted,
# one character more, or none at all, is refused.
_AUDIT_BOUNDS = [("action", "m" * 80, 80), ("resource_type", "memory" + "_" * 74, 80), ("reason", "r" * 80, 80),
                 ("resource_id", "9" * 80, 80), ("correlation_id", "c" * 128, 128),
                 ("agent_client_id", "~" * 255, 255)]


@pytest.mark.parametrize("column,value,limit", _AUDIT_BOUNDS)
def test_the_database_accepts_coded_values_up_to_their_length_limit(column, value, limit):
    assert len(value) == limit
    _insert(**{column: value})


@pytest.mark.parametrize("column,value,limit", _AUDIT_BOUNDS)
def test_the_database_refuses_coded_values_one_over_their_length_limit_or_empty(column, value, limit):
    # refused by the check, or by the column's own varchar length where it has one
    with pytest.raises((psycopg.errors.CheckViolation, psycopg.errors.StringDataRightTruncation)):
        _insert(**{column: value + value[-1]})
    with pytest.raises(psycopg.errors.CheckViolation):
        _insert(**{column: ""})


@pytest.mark.parametrize("column,value", [("action", "9memory"), ("resource_type", "_memory"), ("reason", ".x")])
def test_the_database_refuses_codes_that_do_not_start_with_a_letter(column, value):
    with pytest.raises(psycopg.errors.CheckViolation):
        _insert(**{column: value})


def test_audit_record_refuses_uncoded_values_before_the_insert(world):
    me = Identity(org_id=world.org, actor_sub="nurse-1")
    with identity_context(me):
        for bad in ({"purpose": PHI}, {"reason": "free text"}, {"action": "memory list"}):
            with pytest.raises(ValueError), transaction.atomic():
                audit.record(**{"action": "memory.list", "resource_type": "memory", **bad})
        with pytest.raises(DatabaseError), transaction.atomic(), connection.cursor() as cursor:
            cursor.execute("INSERT INTO audit_event (id, occurred_at, organization_id, actor_sub, actor_kind, action, "
                           "resource_type, purpose, outcome, correlation_id) VALUES (gen_random_uuid(), now(), %s, "
                           "'nurse-1', 'staff', 'memory.list', 'memory', %s, 'success', 'r')", [world.org, PHI])


@pytest.mark.parametrize("path", ["/v1/staff", "/v1/patients", "/v1/audit-events", "memories"])
def test_query_values_postgresql_cannot_store_are_422_on_every_view(world, path):
    """A NUL byte in any query value is refused before a view sends it to the database."""
    if path == "memories":
        path = mem(world.patient_a)
    api = world.staff("admin-1", scope="memory:read grant:write audit:read patient:read")
    for value in ("a\x00b", "\x00"):
        r = api.get(path, {"q": value})
        assert r.status_code == 422 and r.json()["code"] == "validation_error", r.content
        assert r.json()["errors"][0]["field"] == "q"


def _list_and_search_rows(world, actor_sub: str) -> list[tuple]:
    with identity_context(Identity(org_id=world.org, actor_sub="auditor", scopes=frozenset({"audit:read"}))):
        return list(AuditEvent.objects.filter(
            organization_id=world.org, patient_id=world.patient_a, actor_sub=actor_sub,
            action__in=["memory.list", "memory.search"]).order_by("occurred_at").values_list(
            "action", "outcome", "reason"))


def test_a_list_or_search_by_someone_without_access_answers_empty_and_is_audited_as_denied(world):
    """The answer is the one for a patient with no memories (nothing is revealed), but the trail, and the
    patient's own activity page, record a refused read, not a successful one."""
    cid = world.consent(world.patient_a)
    patient = world.patient(world.patient_a)
    assert patient.post(mem(world.patient_a), memory_body(cid)).status_code == 201
    stranger = world.staff("stranger", scope="memory:read")
    assert stranger.get(mem(world.patient_a)).json() == {"items": [], "next_cursor": None}
    r = stranger.get(f"{mem(world.patient_a)}/search", {"q": "morning"})
    assert r.status_code == 200 and r.json()["items"] == []
    denied = ("denied", "no_active_consent_or_access")
    assert _list_and_search_rows(world, "stranger") == [("memory.list", *denied), ("memory.search", *denied)]
    # the patient themself, and staff granted one purpose, read successfully
    assert patient.get(mem(world.patient_a)).json()["items"]
    world.grant(world.patient_a, "nurse-1", "appointment_scheduling")
    assert world.staff("nurse-1", scope="memory:read").get(mem(world.patient_a)).json()["items"]
    assert _list_and_search_rows(world, f"patient-{world.patient_a}") == [("memory.list", "success", None)]
    assert _list_and_search_rows(world, "nurse-1") == [("memory.list", "success", None)]
    # a grant for another purpose than the one the read names: refused as such, and audited for that purpose
    # (tests/test_purpose_of_use.py)
    r = world.staff("nurse-1", scope="memory:read").get(mem(world.patient_a), {"consent_purpose": "communication"})
    assert r.status_code == 403 and r.json()["code"] == "purpose_not_permitted"
    assert _list_and_search_rows(world, "nurse-1")[-1] == ("memory.list", "denied", "purpose_not_permitted")


@pytest.mark.parametrize("path, action", [
    ("/v1/patients/{pid}/consents", "consent.list"),
    ("/v1/patients/{pid}/memories/proposals", "memory.proposals"),
    ("/v1/patients/{pid}/deletions", "memory.deletions"),
    ("/v1/patients/{pid}/releases", "memory.releases"),
])
def test_other_lists_of_a_patient_are_audited_as_denied_for_someone_without_access(world, path, action):
    url = path.format(pid=world.patient_a)
    stranger = world.staff("stranger", scope="memory:read consent:read")
    r = stranger.get(url)
    assert r.status_code == 200 and r.json()["items"] == []
    patient = world.patient(world.patient_a)
    assert patient.get(url).status_code == 200
    with identity_context(Identity(org_id=world.org, actor_sub="auditor", scopes=frozenset({"audit:read"}))):
        rows = dict(AuditEvent.objects.filter(organization_id=world.org, patient_id=world.patient_a,
                                              action=action).values_list("actor_sub", "outcome"))
    assert rows == {"stranger": "denied", f"patient-{world.patient_a}": "success"}


def test_one_patient_asking_about_another_leaves_nothing_in_the_others_history(world):
    """Alice's token used on Bob's id answers as for a patient with nothing (or refuses), and the audit rows stay
    in the organisation's trail without Bob's id: Bob's history never shows Alice's subject or patient id."""
    a, b = world.patient_a, world.patient_b
    alice = world.patient(a)
    for path in (mem(b), f"/v1/patients/{b}/consents", f"/v1/patients/{b}/releases"):
        assert alice.get(path).json()["items"] == []
    assert alice.get("/v1/audit-events", {"patient_id": str(b)}).json()["items"] == []
    r = alice.post("/v1/sessions", {"patient_id": str(b), "purpose": "appointment_scheduling"})
    assert r.status_code in (403, 404)
    bob_history = world.patient(b).get("/v1/audit-events").json()["items"]
    assert not [e for e in bob_history if e["actor_sub"] != f"patient-{b}"], bob_history
    assert str(a) not in json.dumps(bob_history)
    with identity_context(Identity(org_id=world.org, actor_sub="auditor", scopes=frozenset({"audit:read"}))):
        attempts = list(AuditEvent.objects.filter(organization_id=world.org, actor_sub=f"patient-{a}")
                        .values_list("action", "patient_id", "outcome"))
    assert ("memory.list", None, "denied") in attempts  # the organisation's trail keeps the attempt


def test_the_history_pages_back_through_every_event_once_even_when_times_tie(world):
    """``next_cursor`` walks the whole history newest first: events sharing one timestamp (one transaction's rows
    often do) are neither repeated nor skipped at a page boundary, and the last page says there is nothing older."""
    a = world.patient_a
    staff = Identity(org_id=world.org, actor_sub="nurse-pages", scopes=frozenset({"audit:read"}))
    tied = timezone.now() - timedelta(hours=1)
    with identity_context(staff):
        for i in range(12):
            AuditEvent.objects.create(
                organization_id=world.org, patient_id=a, actor_sub="nurse-pages", actor_kind="staff",
                action="memory.list", resource_type="memory", outcome="success", correlation_id=f"page-{i}",
                occurred_at=tied if i < 7 else tied - timedelta(minutes=i))
        expected = [str(e) for e in AuditEvent.objects.filter(organization_id=world.org, patient_id=a)
                    .order_by("-occurred_at", "-id").values_list("id", flat=True)]
    api = world.patient(a)
    seen, cursor = [], None
    for _ in range(20):
        body = api.get("/v1/audit-events", {"limit": 3, **({"cursor": cursor} if cursor else {})}).json()
        seen += [e["id"] for e in body["items"]]
        cursor = body["next_cursor"]
        if cursor is None:
            break
    assert seen == expected and len(expected) >= 12


@pytest.mark.parametrize("cursor", ["x", "bm90IGpzb24", "WyJub3QgYSBkYXRlIiwgIngiXQ", "W10", "e30", "a" * 300,
                                    "WyIyMDI2LTAxLTAxVDAwOjAwOjAwIiwgIjAwMDAwMDAwLTAwMDAtMDAwMC0wMDAwLTAwMDAwMDAwMDAwMCJd",
                                    "WzEsIDJd", "é"])
def test_a_cursor_the_history_did_not_give_is_422_and_writes_nothing(world, cursor):
    api = world.patient(world.patient_a)
    before = audit_count()
    r = api.get("/v1/audit-events", {"cursor": cursor})
    assert r.status_code == 422, r.content
    assert [e["field"] for e in r.json()["errors"]] == ["cursor"]
    assert audit_count() == before


@pytest.mark.parametrize("column,value,check", [
    ("action", "9memory", "audit_action_code"), ("outcome", "maybe", "audit_outcome_valid"),
    ("actor_sub", "", "audit_actor_sub_printable"), ("agent_client_id", "agent one", "audit_agent_client_id_code"),
])
def test_a_refused_audit_row_names_the_check_it_fails(column, value, check):
    """The coded columns are checked by one trigger (core 0015), which still names the failed check."""
    with pytest.raises(psycopg.errors.CheckViolation) as refused:
        _insert(**{column: value})
    assert refused.value.diag.constraint_name == check
    assert refused.value.diag.table_name == "audit_event"
