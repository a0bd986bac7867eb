"""The hot read (``GET /v1/patients/{id}/memories``) and the plumbing that makes it fast keep every guarantee:
the same bytes as the serializer path, the audit row in the read's transaction, the identity only inside its
block, and JSON identical to DRF's renderer."""

from __future__ import annotations

import json
import uuid
from datetime import UTC, datetime, timedelta
from decimal import Decimal

import psycopg
import pytest
from django.db import connection, connections, transaction
from django.http.request import HttpHeaders
from orjson import loads as orjson_loads
from rest_framework import serializers
from rest_framework.renderers import JSONRenderer

from core.audit import insert_statement
from core.audit import record as audit_record
from core.audit import record_all as audit_record_all
from core.errors import UnknownOrganization
from core.identity import (
    ACTOR_PATIENT,
    Identity,
    commit_held,
    commit_with_next_statement,
    identity_context,
    pipelined,
)
from core.models import AuditEvent
from core.renderers import OrjsonRenderer
from memory.models import Memory
from memory.rendering import memory_out
from memory.selectors import UtcIsoText, memory_get
from tests.conftest import admin_connect, memory_body, runtime_connect
from tests.reference_rendering import ReferenceMemoryOut
from tests.roundtrips import round_trips
from tests.support import PATIENT_SCOPES, Api

SETTINGS = ("app.org_id", "app.actor_sub", "app.patient_self_id", "app.scopes", "app.service_patient_id",
            "app.service_purpose")


def mem(pid) -> str:
    return f"/v1/patients/{pid}/memories"


def settings_now(cursor) -> list[str]:
    cursor.execute("SELECT " + ", ".join(f"current_setting('{s}', true)" for s in SETTINGS))
    return list(cursor.fetchone())


@pytest.mark.django_db
def test_list_is_byte_identical_to_the_serializer_path(world):
    """Every field of every kind of memory (plain, encrypted care context, bounded validity, communication)
    renders exactly as ReferenceMemoryOut through DRF's JSONRenderer would."""
    cid = world.consent(world.patient_a)
    ccid = world.consent(world.patient_a, "communication")
    world.grant(world.patient_a, "nurse-1", "appointment_scheduling")
    world.grant(world.patient_a, "nurse-1", "care_coordination")
    world.grant(world.patient_a, "nurse-1", "communication")
    nurse = world.staff("nurse-1")
    until = (datetime.now(UTC) + timedelta(days=3)).isoformat()
    assert nurse.post(mem(world.patient_a), memory_body(cid, "earliest_time", "10:00")).status_code == 201
    assert nurse.post(mem(world.patient_a), memory_body(cid, "latest_time", "16:30",
                                                        valid_until=until)).status_code == 201
    assert nurse.post(mem(world.patient_a), {
        "memory_type": "communication_preference", "fact": {"kind": "language", "language": "pl-PL"},
        "consent_purpose": "communication", "consent_record_id": ccid}).status_code == 201
    care = {"memory_type": "care_context", "consent_purpose": "care_coordination",
            "fact": {"kind": "allergy", "substance": "penicillin", "reaction": "rash", "severity": "moderate"},
            "review_by": (datetime.now(UTC) + timedelta(days=180)).isoformat(), "source": "ehr_import",
            "source_ref": "ehr:AllergyIntolerance/991"}
    assert nurse.post(mem(world.patient_a), care).status_code == 201, "care context"

    response = nurse.get(mem(world.patient_a))
    assert response.status_code == 200
    items = response.json()["items"]
    assert len(items) == 4 and any(i["guardrails"]["fetch_live"] for i in items)
    assert any(i["fact"] and i["fact"].get("substance") == "penicillin" for i in items)  # decrypted

    staff = Identity(org_id=world.org, actor_sub="nurse-1", scopes=frozenset({"memory:read"}))
    with identity_context(staff):
        memories = list(Memory.objects.filter(memory_id__in=[i["memory_id"] for i in items]))
        by_id = {str(m.memory_id): m for m in memories}
        expected = JSONRenderer().render({"items": ReferenceMemoryOut([by_id[i["memory_id"]] for i in items],
                                                             many=True).data, "next_cursor": None})
    assert response.content == expected


@pytest.mark.django_db
def test_filters_and_order_are_those_of_the_selector(world):
    cid = world.consent(world.patient_a)
    ccid = world.consent(world.patient_a, "communication")
    api = world.patient(world.patient_a)
    for kind, at in (("latest_time", "17:00"), ("earliest_time", "09:00")):
        assert api.post(mem(world.patient_a), memory_body(cid, kind, at)).status_code == 201
    assert api.post(mem(world.patient_a), {
        "memory_type": "communication_preference", "fact": {"kind": "channel", "channel": "sms"},
        "consent_purpose": "communication", "consent_record_id": ccid}).status_code == 201
    assert [i["attribute"] for i in api.get(mem(world.patient_a)).json()["items"]] == [
        "channel", "earliest_time", "latest_time"]
    only = api.get(mem(world.patient_a), {"consent_purpose": "communication"}).json()["items"]
    assert [i["attribute"] for i in only] == ["channel"]
    typed = api.get(mem(world.patient_a), {"memory_type": "scheduling_preference"}).json()["items"]
    assert [i["attribute"] for i in typed] == ["earliest_time", "latest_time"]
    # another patient's token sees nothing of patient A (404 or empty, never A's rows)
    other = world.patient(world.patient_b).get(mem(world.patient_a))
    assert other.status_code in (403, 404) or other.json()["items"] == []


@pytest.mark.django_db
def test_the_list_audit_row_is_the_one_record_would_write(world):
    cid = world.consent(world.patient_a)
    api = world.patient(world.patient_a)
    assert api.post(mem(world.patient_a), memory_body(cid)).status_code == 201
    r = api.get(mem(world.patient_a), {"consent_purpose": "appointment_scheduling"},
                headers={"X-Request-ID": "req-fast-path-1"})
    assert r.status_code == 200 and r["X-Request-ID"] == "req-fast-path-1"
    staff = Identity(org_id=world.org, actor_sub="auditor", scopes=frozenset({"audit:read"}))
    with identity_context(staff):
        row = AuditEvent.objects.get(action="memory.list", correlation_id="req-fast-path-1")
    assert (row.organization_id, row.patient_id, row.actor_sub, row.actor_kind, row.resource_type,
            row.resource_id, row.purpose, row.outcome, row.reason) == (
        world.org, world.patient_a, f"patient-{world.patient_a}", ACTOR_PATIENT, "memory", None,
        "appointment_scheduling", "success", None)
    assert abs((row.occurred_at - datetime.now(UTC)).total_seconds()) < 60


@pytest.mark.django_db
def test_a_list_audit_row_asks_the_access_rule_once_for_its_outcome_and_reason(world):
    """A list that names no purpose is audited ``success`` or ``denied`` (with its reason) by the access rule, which
    the row's statement asks once for both columns: asking it in each (an EXISTS over the four purposes apiece) was
    up to eight grant lookups a list for staff. Staff with a grant, staff without one and the patient are audited as
    the rule says."""
    cid = world.consent(world.patient_a)
    world.grant(world.patient_a, "nurse-1", "appointment_scheduling")
    assert world.patient(world.patient_a).post(mem(world.patient_a), memory_body(cid)).status_code == 201
    with identity_context(Identity(org_id=world.org, actor_sub="nurse-2")), connection.cursor() as cur:
        sql, params = insert_statement(action="memory.list", resource_type="memory", patient_id=world.patient_a,
                                       outcome_by_access=True)
        cur.execute(f"EXPLAIN (COSTS OFF) {sql}", params)  # as planned (the planner may copy a subquery up)
        plan = "\n".join(line for line, in cur.fetchall())
    assert plan.count("Function Scan on unnest") == 1, plan
    callers = [("nurse-1", world.staff("nurse-1"), 1, ("success", None)),
               ("nurse-2", world.staff("nurse-2"), 0, ("denied", "no_active_consent_or_access")),
               ("patient", world.patient(world.patient_a), 1, ("success", None))]
    for name, api, items, audited in callers:
        r = api.get(mem(world.patient_a), headers={"X-Request-ID": f"access-once-{name}"})
        assert r.status_code == 200 and len(r.json()["items"]) == items, name
        with identity_context(Identity(org_id=world.org, actor_sub="auditor", scopes=frozenset({"audit:read"}))):
            row = AuditEvent.objects.get(action="memory.list", correlation_id=f"access-once-{name}")
        assert (row.outcome, row.reason, row.purpose) == (*audited, None), name


@pytest.mark.django_db
def test_the_grant_check_keeps_its_plan_for_the_session_and_decides_as_before(world):
    """``app_has_grant`` is PL/pgSQL, so a session keeps its query's plan: as an SQL function PostgreSQL cannot
    inline, it was planned again in every statement that asked it for staff (each policy a staff list meets, its
    audit row), about 100 us of the database's CPU each time. It answers as the rule says: a grant of this subject
    for exactly this purpose of this patient."""
    world.grant(world.patient_a, "nurse-1", "appointment_scheduling")
    with connection.cursor() as cur:
        cur.execute("SELECT l.lanname FROM pg_proc p JOIN pg_language l ON l.oid = p.prolang "
                    "WHERE p.proname = 'app_has_grant'")
        assert cur.fetchall() == [("plpgsql",)]

    def has_grant(sub: str, patient: uuid.UUID, purpose: str) -> bool:
        with identity_context(Identity(org_id=world.org, actor_sub=sub)), connection.cursor() as cur:
            cur.execute("SELECT app_has_grant(%s, %s, %s)", [world.org, patient, purpose])
            return cur.fetchone()[0]

    assert has_grant("nurse-1", world.patient_a, "appointment_scheduling") is True
    assert has_grant("nurse-1", world.patient_a, "care_coordination") is False
    assert has_grant("nurse-1", world.patient_b, "appointment_scheduling") is False
    assert has_grant("nurse-2", world.patient_a, "appointment_scheduling") is False


@pytest.mark.django_db
def test_the_audit_statement_needs_an_identity():
    with pytest.raises(RuntimeError):
        insert_statement(action="memory.list", resource_type="memory")


def test_no_identity_survives_an_outermost_block_on_a_reused_connection(committed_db):
    """The outermost block skips the clearing statement: its COMMIT or ROLLBACK ends the settings. Proven on one
    server connection reused for the next transaction."""
    me = Identity(org_id=uuid.uuid4(), actor_sub="patient-y", patient_self_id=uuid.uuid4(),
                  scopes=frozenset({"memory:read"}), actor_kind=ACTOR_PATIENT)
    assert not connection.in_atomic_block
    with identity_context(me), connection.cursor() as cur:
        assert settings_now(cur)[0] == str(me.org_id)
        pid = cur.connection.info.backend_pid
    with pytest.raises(ZeroDivisionError), identity_context(me), connection.cursor() as cur:
        cur.execute("SELECT 1")
        raise ZeroDivisionError
    with transaction.atomic(), connection.cursor() as cur:
        assert cur.connection.info.backend_pid == pid
        assert settings_now(cur) == [""] * len(SETTINGS)
    with connection.cursor() as cur:  # autocommit, outside any block
        assert settings_now(cur) == [""] * len(SETTINGS)


@pytest.mark.django_db
def test_orjson_renderer_gives_drf_bytes():
    data = {"when": datetime(2026, 1, 2, 3, 4, 5, 678901, tzinfo=UTC), "naive": datetime(2026, 1, 2, 3, 4, 5),
            "id": uuid.UUID(int=7), "amount": Decimal("0.800"), "text": "zażółć \u2028 line \u2029 para <b>",
            "nested": [{"a": 1, "b": None, "c": True, "d": 1.5, "e": 1.0}], "tuple": (1, 2), 3: "int key",
            "day": datetime(2026, 1, 2).date(), "big": 2 ** 60}
    assert OrjsonRenderer().render(data) == JSONRenderer().render(data)
    assert OrjsonRenderer().render(None) == JSONRenderer().render(None)
    for text in ("plain ascii", "zażółć", "\u2028 alone", "\u2029", "\u2019 and \u2028"):  # ASCII or not, with each
        assert OrjsonRenderer().render({"text": text}) == JSONRenderer().render({"text": text}), text


@pytest.mark.django_db
def test_problem_responses_render_through_the_same_renderer(world):
    r = Api(None).get(mem(world.patient_a))
    assert r.status_code == 401 and r["Content-Type"].startswith("application/problem+json")
    assert r.json()["code"] == "invalid_token"


def test_runtime_connection_sees_no_identity_after_commit(committed_db, world):
    """Through the API, as the runtime role: after the request, nothing of its identity lingers server-side."""
    cid = world.consent(world.patient_a)
    api = world.patient(world.patient_a)
    assert api.post(mem(world.patient_a), memory_body(cid)).status_code == 201
    assert len(api.get(mem(world.patient_a)).json()["items"]) == 1
    with runtime_connect() as conn:
        assert conn.execute("SELECT count(*) FROM patient_memory").fetchone()[0] == 0  # RLS: no identity


@pytest.mark.django_db
@pytest.mark.parametrize("memory_type, purpose, after", [
    (None, None, None), ("scheduling_preference", None, None), (None, "communication", None),
    ("care_context", "care_coordination", None), (None, None, ("care_context", "allergy:x", "care_coordination")),
    ("scheduling_preference", "appointment_scheduling", ("scheduling_preference", "earliest_time", "communication"))])
def test_the_compiled_list_query_is_what_the_orm_compiles(memory_type, purpose, after):
    """The list query is compiled once per shape (a page after a cursor's key is a shape); with this request's
    values it is exactly the ORM's query."""
    from memory import selectors

    values = {"org_id": uuid.uuid4(), "patient_id": uuid.uuid4(), "memory_type": memory_type,
              "consent_purpose": purpose, "now": datetime.now(UTC),
              **dict(zip(("after_type", "after_attribute", "after_purpose"), after or (None, None, None)))}
    assert selectors._current_rows_sql(**values) == selectors._compile_current_rows(**values)
    shape = (memory_type is not None, purpose is not None, *(after is not None,) * 3)
    assert shape in selectors._SQL_TEMPLATES  # the template was kept
    again = {**values, "org_id": uuid.uuid4(), "now": datetime.now(UTC) + timedelta(seconds=5)}
    assert selectors._current_rows_sql(**again) == selectors._compile_current_rows(**again)


@pytest.mark.django_db
def test_the_compiled_consent_check_is_what_the_orm_compiles_and_share_locks():
    """A write's consent check (active, this patient's, this purpose, FOR SHARE) is compiled once; with each
    request's values it is the ORM's query for ``ConsentRecord.objects.active()`` with those filters."""
    from memory import services

    for _ in range(2):
        values = {"org_id": uuid.uuid4(), "patient_id": uuid.uuid4(), "now": datetime.now(UTC),
                  "purpose": "appointment_scheduling", "consent_record_id": uuid.uuid4()}
        sql, params = services.compiled_once(services._ACTIVE_CONSENT_SQL, services._compile_active_consent,
                                             **values)
        assert (sql, params) == services._compile_active_consent(**values)
        assert sql.endswith(" FOR SHARE") and values["consent_record_id"] in params
    assert (True, True) in services._ACTIVE_CONSENT_SQL  # kept, not compiled per request


@pytest.mark.django_db(transaction=True)
def test_the_compiled_supersession_lock_is_what_the_orm_compiles():
    """The query that locks an attribute's current records (FOR UPDATE) before a new value supersedes them is
    compiled once, without the time (it does not depend on it); with each write's values it is the ORM's."""
    from memory import services

    with transaction.atomic():  # the ORM compiles FOR UPDATE only inside a transaction
        for kind in ("earliest_time", "latest_time"):
            values = {"org_id": uuid.uuid4(), "patient_id": uuid.uuid4(), "memory_type": "scheduling_preference",
                      "attribute": kind, "purpose": "appointment_scheduling"}
            sql, params = services.compiled_once(services._CURRENT_OF_ATTRIBUTE_SQL,
                                                 services._compile_current_of_attribute, now=None, **values)
            assert (sql, params) == services._compile_current_of_attribute(now=None, **values)
            assert sql.endswith("FOR UPDATE") and kind in params
    assert (True, True, True) in services._CURRENT_OF_ATTRIBUTE_SQL


class _Refuse:
    """A gate that refuses in SQL, as admission does (``app_gate`` for an organisation that does not exist)."""

    def __init__(self) -> None:
        self.checked = 0

    def sql(self):
        return "", [], ", app_gate(%s::uuid, %s, true)", [str(uuid.uuid4()), "http://nobody.test"], "", []

    def refusal(self, sqlstate):
        self.checked += 1
        return UnknownOrganization() if sqlstate == "AN403" else None


def _audit_rows(actor_sub: str) -> int:
    with admin_connect() as conn:
        return conn.execute("SELECT count(*) FROM audit_event WHERE actor_sub = %s", [actor_sub]).fetchone()[0]


def _me() -> Identity:
    return Identity(org_id=uuid.uuid4(), actor_sub="patient-z", patient_self_id=uuid.uuid4(),
                    scopes=frozenset({"memory:read"}), actor_kind=ACTOR_PATIENT)


def test_the_gate_decides_even_when_the_block_runs_no_statement(committed_db):
    gate = _Refuse()
    with pytest.raises(UnknownOrganization), identity_context(_me(), gate=gate):
        pass
    assert gate.checked == 1


def test_a_refusal_rolls_back_the_statement_that_carried_the_identity(committed_db):
    """The identity goes to the server in one pipeline with the block's first statement; a gate that refuses
    undoes that statement too."""
    me = _me()
    with pytest.raises(UnknownOrganization), identity_context(me, gate=_Refuse()):
        audit_record(action="memory.list", resource_type="memory", patient_id=me.patient_self_id)
    with connection.cursor() as cur:
        assert not connection.in_atomic_block
        cur.execute("SELECT 1")
    assert _audit_rows("patient-z") == 0


def _read_with_audit_row(me: Identity) -> list:
    sql, params = insert_statement(action="memory.list", resource_type="memory", patient_id=me.patient_self_id)
    with connection.cursor() as cur:
        cur.execute(f"WITH audit_row AS ({sql}) SELECT current_setting('app.actor_sub', true)", params)
        return cur.fetchall()


def test_a_first_and_last_statement_commits_in_its_own_round_trip(committed_db):
    """A read that says it is the block's only statement is committed with it: its audit row is durable before
    the block ends (another connection sees it), and a statement after it is refused, since it would run outside
    the block's transaction and identity."""
    me = _me()
    with identity_context(me, commit_early=True):
        commit_with_next_statement()
        assert _read_with_audit_row(me) == [("patient-z",)]
        assert connection.connection.info.transaction_status == psycopg.pq.TransactionStatus.IDLE
        assert _audit_rows("patient-z") == 1
        with pytest.raises(RuntimeError, match="committed with its last statement"), connection.cursor() as cur:
            cur.execute("SELECT 1")
    assert _audit_rows("patient-z") == 1
    with runtime_connect() as conn:  # nothing of the identity survives on the server
        assert conn.execute("SELECT current_setting('app.actor_sub', true)").fetchone()[0] in ("", None)


def test_inside_commit_held_no_statement_ends_the_block_and_the_next_after_it_may(committed_db):
    """An idempotent create: the handler's statements run with the COMMIT held (its hint is ignored; statements
    may follow), and the statement that stores the response afterwards carries it."""
    me = _me()
    with identity_context(me, commit_early=True):
        with commit_held():
            commit_with_next_statement()
            _read_with_audit_row(me)
            assert connection.connection.info.transaction_status == psycopg.pq.TransactionStatus.INTRANS
            assert _audit_rows("patient-z") == 0  # not committed yet
        commit_with_next_statement()
        _read_with_audit_row(me)
        assert connection.connection.info.transaction_status == psycopg.pq.TransactionStatus.IDLE
        assert _audit_rows("patient-z") == 2


def test_a_refused_request_commits_nothing_even_with_its_commit_in_the_pipeline(committed_db):
    """The gate refuses in the identity statement, so the read, its audit row and the COMMIT sent after it in
    the same pipeline never run."""
    me = _me()
    gate = _Refuse()
    with pytest.raises(UnknownOrganization), identity_context(me, gate=gate, commit_early=True):
        commit_with_next_statement()
        _read_with_audit_row(me)
    assert gate.checked == 1
    assert _audit_rows("patient-z") == 0
    with connection.cursor() as cur:  # the connection is usable again
        assert not connection.in_atomic_block
        cur.execute("SELECT 1")


def test_a_refusal_leaves_no_warning_but_another_error_in_a_failed_pipeline_is_logged(committed_db, caplog):
    """The statements skipped behind the gate's refusal are not worth a warning (psycopg's "pipeline aborted",
    once per refused request); a queued statement that fails when its block failed for another reason is a real
    error: logged, by class and SQLSTATE, while the block's own error is the one raised."""
    me = _me()
    with caplog.at_level("DEBUG"):
        with pytest.raises(UnknownOrganization), identity_context(me, gate=_Refuse(), commit_early=True):
            commit_with_next_statement()
            _read_with_audit_row(me)
        assert [r for r in caplog.records if r.levelname == "WARNING"] == []
        with pytest.raises(RuntimeError, match="the block's own"), identity_context(me):
            with pipelined(), connection.cursor() as cur:
                cur.execute("SELECT 1/0")
                raise RuntimeError("the block's own failure")
    warnings = [r.getMessage() for r in caplog.records if r.levelname == "WARNING"]
    assert warnings == ["another error while leaving a failed pipeline: DivisionByZero (22012)"], warnings


def test_inside_an_enclosing_transaction_the_block_commits_with_it(committed_db):
    """Not the outermost transaction: the hint changes nothing, and an enclosing rollback undoes the read's row."""
    me = _me()
    with pytest.raises(ZeroDivisionError), transaction.atomic():
        with identity_context(me, commit_early=True):
            commit_with_next_statement()
            _read_with_audit_row(me)
            with connection.cursor() as cur:  # more statements may follow: nothing was committed early
                cur.execute("SELECT 1")
        assert _audit_rows("patient-z") == 0  # not yet committed
        1 / 0
    assert _audit_rows("patient-z") == 0


def test_a_list_read_is_committed_with_its_read(committed_db, world):
    """Through the API: the list's audit row is in the trail, and the runtime connection is left with no
    identity and no open transaction."""
    cid = world.consent(world.patient_a)
    api = world.patient(world.patient_a)
    assert api.post(mem(world.patient_a), memory_body(cid)).status_code == 201

    def listed() -> int:
        with admin_connect() as conn:
            return conn.execute("SELECT count(*) FROM audit_event WHERE action = 'memory.list' "
                                "AND outcome = 'success' AND patient_id = %s", [world.patient_a]).fetchone()[0]

    r = api.get(mem(world.patient_a))
    assert r.status_code == 200 and len(r.json()["items"]) == 1
    assert listed() == 1
    assert not connection.in_atomic_block


@pytest.mark.parametrize("first", ["execute", "executemany", "server_side_cursor"])
def test_every_kind_of_first_statement_runs_under_the_identity(committed_db, first):
    me = _me()
    with identity_context(me):
        if first == "execute":
            with connection.cursor() as cur:
                cur.execute("SELECT current_setting('app.actor_sub', true)")
                seen = cur.fetchone()[0]
        elif first == "executemany":
            with connection.cursor() as cur:
                cur.executemany("SELECT set_config('test.probe', current_setting('app.actor_sub', true), true) "
                                "WHERE %s", [(True,), (True,)])
                cur.execute("SELECT current_setting('test.probe', true)")
                seen = cur.fetchone()[0]
        else:
            with connection.chunked_cursor() as cur:
                cur.execute("SELECT current_setting('app.actor_sub', true) FROM generate_series(1, 3)")
                seen = cur.fetchone()[0]
    assert seen == "patient-z"


@pytest.mark.django_db
@pytest.mark.parametrize("zone", ["UTC", "Europe/Warsaw"])
def test_list_timestamps_as_text_are_what_drf_renders(zone):
    """The list reads timestamps as text and reshapes them; every fraction and offset gives DRF's bytes."""
    stamps = [datetime(2026, 11, 30, 22, 42, 35, tzinfo=UTC), datetime(2026, 11, 30, 22, 42, 35, 500000, tzinfo=UTC),
              datetime(2026, 1, 2, 3, 4, 5, 1, tzinfo=UTC), datetime(1999, 12, 31, 23, 59, 59, 123456, tzinfo=UTC),
              datetime(2026, 6, 1, 0, 0, 0, 120000, tzinfo=UTC)]
    field = serializers.DateTimeField()
    with transaction.atomic(), connection.cursor() as cur:
        cur.execute("SELECT set_config('TimeZone', %s, true)", [zone])
        cur.cursor.adapters.register_loader("timestamptz", UtcIsoText)
        cur.execute("SELECT unnest(%s::timestamptz[])", [stamps])
        assert [r[0] for r in cur.fetchall()] == [field.to_representation(s) for s in stamps]


@pytest.mark.django_db
def test_a_read_by_id_is_byte_identical_to_the_serializer_path_in_every_state(world):
    """``GET .../memories/{id}`` (one statement: the row, its state worked out by the database, the audit row)
    answers exactly what ReferenceMemoryOut renders for ``memory_get``'s instance: current, superseded, proposed,
    quarantined, encrypted, past its validity, past retention (no value), consent lapsed, deleted. Each case
    is a patient of its own, so no write supersedes another case's memory."""
    until = (datetime.now(UTC) + timedelta(days=3)).isoformat()

    def case(write) -> tuple[uuid.UUID, str, str]:
        pid = uuid.uuid4()
        cid = world.consent(pid)
        for actor, purpose in (("nurse-1", "appointment_scheduling"), ("nurse-1", "care_coordination"),
                               ("booking-agent", "appointment_scheduling")):
            world.grant(pid, actor, purpose)
        return pid, cid, write(pid, cid, world.patient(pid))

    def stored(api, pid, body, path=""):
        r = api.post(mem(pid) + path, body)
        assert r.status_code == 201, r.content
        return r.json()["memory_id"]

    def superseded(pid, cid, patient):
        first = stored(patient, pid, memory_body(cid, "earliest_time", "09:00"))
        stored(patient, pid, memory_body(cid, "earliest_time", "10:00"))
        return first

    def quarantined(pid, cid, patient):
        mid = stored(patient, pid, memory_body(cid))
        assert world.staff("nurse-1").post(f"{mem(pid)}/{mid}/quarantine",
                                           {"reason_code": "disputed"}).status_code == 200
        return mid

    def deleted(pid, cid, patient):
        mid = stored(patient, pid, memory_body(cid))
        assert patient.request("DELETE", f"{mem(pid)}/{mid}").status_code == 200
        return mid

    def moved(sql):
        def write(pid, cid, patient):
            mid = stored(patient, pid, memory_body(cid, valid_until=until))
            with identity_context(Identity(org_id=world.org, actor_sub="t", patient_self_id=pid)), \
                    connection.cursor() as cur:
                cur.execute(sql, [cid if "patient_consent" in sql else mid])
            return mid
        return write

    cases = {
        "current": (lambda pid, cid, patient: stored(patient, pid, memory_body(cid)), ("active", False)),
        "superseded": (superseded, ("superseded", False)),
        "proposed": (lambda pid, cid, patient: stored(world.staff("booking-agent"), pid, {
            **memory_body(cid, "latest_time", "15:00"), "source_ref": "turn:1"}, "/proposals"), ("proposed", False)),
        "quarantined": (quarantined, ("quarantined", False)),
        "encrypted": (lambda pid, cid, patient: stored(world.staff("nurse-1"), pid, {
            "memory_type": "care_context", "consent_purpose": "care_coordination",
            "fact": {"kind": "allergy", "substance": "latex", "reaction": "rash", "severity": "mild"},
            "review_by": (datetime.now(UTC) + timedelta(days=90)).isoformat()}), ("active", False)),
        "past validity": (moved("UPDATE patient_memory SET valid_from = now() - interval '3 days', "
                                "valid_until = now() - interval '1 second' WHERE memory_id = %s"), ("expired", False)),
        "past retention": (moved("UPDATE patient_memory SET valid_from = now() - interval '3 days', "
                                 "expires_at = now() - interval '1 second' WHERE memory_id = %s"), ("expired", True)),
        "consent lapsed": (moved("UPDATE patient_consent SET granted_at = now() - interval '2 days', "
                                 "expires_at = now() - interval '1 second' WHERE consent_record_id = %s"),
                           ("expired", False)),
        "deleted": (deleted, ("deleted", True)),
    }
    seen = {}
    for name, (write, _) in cases.items():
        pid, _, memory_id = case(write)
        readers = [(world.patient(pid), Identity(org_id=world.org, actor_sub=f"patient-{pid}", patient_self_id=pid,
                                                 scopes=frozenset({"memory:read"})))]
        if name == "encrypted":  # staff read it decrypted too
            readers.append((world.staff("nurse-1"), Identity(org_id=world.org, actor_sub="nurse-1",
                                                             scopes=frozenset({"memory:read"}))))
        for api, identity in readers:
            response = api.get(f"{mem(pid)}/{memory_id}")
            assert response.status_code == 200, (name, response.content)
            with identity_context(identity):
                memory = memory_get(identity=identity, patient_id=pid, memory_id=uuid.UUID(memory_id))
                expected = JSONRenderer().render(ReferenceMemoryOut(memory).data)
            assert response.content == expected, name
            assert JSONRenderer().render(memory_out(memory)) == expected, name  # what writes answer with
            body = orjson_loads(response.content)
            seen[name] = (body["state"], body["fact"] is None)
            if name == "encrypted":
                assert body["fact"]["substance"] == "latex"
    assert seen == {name: outcome for name, (_, outcome) in cases.items()}


@pytest.mark.django_db
def test_a_read_by_id_writes_the_audit_row_record_would_and_nothing_when_refused(world):
    cid = world.consent(world.patient_a)
    api = world.patient(world.patient_a)
    mid = api.post(mem(world.patient_a), memory_body(cid)).json()["memory_id"]
    assert api.get(f"{mem(world.patient_a)}/{mid}", headers={"X-Request-ID": "req-read-1"}).status_code == 200
    # another patient asking for it by id: the same answer as for no such memory, and only the refusal's row
    other = world.patient(world.patient_b)
    for memory_id, request_id in ((mid, "req-read-2"), (str(uuid.uuid4()), "req-read-3")):
        r = other.get(f"{mem(world.patient_b)}/{memory_id}", headers={"X-Request-ID": request_id})
        assert r.status_code == 404 and r.json()["code"] == "not_found"
    staff = Identity(org_id=world.org, actor_sub="auditor", scopes=frozenset({"audit:read"}))
    with identity_context(staff):
        row = AuditEvent.objects.get(correlation_id="req-read-1")
        refused = {e.correlation_id: (e.action, e.outcome, e.reason, e.purpose)
                   for e in AuditEvent.objects.filter(correlation_id__in=["req-read-2", "req-read-3"])}
    assert (row.organization_id, row.patient_id, row.actor_sub, row.actor_kind, row.action, row.resource_type,
            row.resource_id, row.purpose, row.outcome, row.reason) == (
        world.org, world.patient_a, f"patient-{world.patient_a}", ACTOR_PATIENT, "memory.read", "memory", mid,
        "appointment_scheduling", "success", None)
    assert refused == {"req-read-2": ("memory.read", "denied", "not_found", None),
                       "req-read-3": ("memory.read", "denied", "not_found", None)}


@pytest.mark.django_db
def test_an_audit_row_takes_its_purpose_from_a_named_column_only(world):
    me = Identity(org_id=world.org, actor_sub="t", patient_self_id=world.patient_a)
    with identity_context(me):
        for bad in ("memory_row", "memory_row.purpose; DROP TABLE x", "Memory_Row.purpose", "a.b.c"):
            with pytest.raises(ValueError):
                insert_statement(action="memory.read", resource_type="memory", purpose_from=bad)
        with pytest.raises(ValueError):  # one or the other
            insert_statement(action="memory.read", resource_type="memory", purpose="appointment_scheduling",
                             purpose_from="memory_row.consent_purpose")
        sql, params = insert_statement(action="memory.read", resource_type="memory",
                                       purpose_from="memory_row.consent_purpose")
    assert sql.endswith(" FROM memory_row") and "memory_row.consent_purpose" in sql
    assert "appointment_scheduling" not in params


@pytest.mark.django_db
def test_a_superseding_write_leaves_its_two_audit_rows_in_one_statement(world):
    """A new value of an attribute writes ``memory.create`` and ``memory.supersede`` (one INSERT of two rows, as
    record would write each); a first value writes only ``memory.create``."""
    cid = world.consent(world.patient_a)
    api = world.patient(world.patient_a)
    first = api.post(mem(world.patient_a), memory_body(cid, "earliest_time", "09:00"),
                     headers={"X-Request-ID": "req-first-value"})
    second = api.post(mem(world.patient_a), memory_body(cid, "earliest_time", "10:00"),
                      headers={"X-Request-ID": "req-new-value"})
    assert first.status_code == second.status_code == 201
    staff = Identity(org_id=world.org, actor_sub="auditor", scopes=frozenset({"audit:read"}))
    with identity_context(staff):
        rows = {(e.correlation_id, e.action): e for e in AuditEvent.objects.filter(
            correlation_id__in=["req-first-value", "req-new-value"])}
    assert sorted(rows) == [("req-first-value", "memory.create"), ("req-new-value", "memory.create"),
                            ("req-new-value", "memory.supersede")]
    created, superseded = rows["req-new-value", "memory.create"], rows["req-new-value", "memory.supersede"]
    assert created.id != superseded.id
    for row in (created, superseded):
        assert (row.organization_id, row.patient_id, row.actor_sub, row.actor_kind, row.resource_type,
                row.resource_id, row.purpose, row.outcome, row.reason) == (
            world.org, world.patient_a, f"patient-{world.patient_a}", ACTOR_PATIENT, "memory",
            second.json()["memory_id"], "appointment_scheduling", "success", None)


@pytest.mark.django_db
def test_audit_rows_of_different_shapes_are_not_written_together(world):
    me = Identity(org_id=world.org, actor_sub="t", patient_self_id=world.patient_a)
    with identity_context(me):
        with pytest.raises(ValueError):
            audit_record_all([{"action": "memory.read", "resource_type": "memory"},
                              {"action": "memory.read", "resource_type": "memory",
                               "purpose_from": "memory_row.consent_purpose"}])


@pytest.mark.django_db
def test_a_write_answers_with_the_record_as_it_is_stored(world):
    """What a create, a proposal and a correction answer with (built from the record just written, without the
    serializer) is byte for byte what ReferenceMemoryOut renders for that record read back: plain, bounded, encrypted,
    proposed, and a correction that superseded a value."""
    pid = world.patient_a
    cid = world.consent(pid)
    for actor, purpose in (("nurse-1", "care_coordination"), ("nurse-1", "appointment_scheduling"),
                           ("booking-agent", "appointment_scheduling")):
        world.grant(pid, actor, purpose)
    patient, nurse, agent = world.patient(pid), world.staff("nurse-1"), world.staff("booking-agent")
    reader = Identity(org_id=world.org, actor_sub="nurse-1", scopes=frozenset({"memory:read"}))
    until = (datetime.now(UTC) + timedelta(days=3)).isoformat()
    writes = {}

    def check(name, response):
        """The answer against the record read back at once (a later write may supersede it)."""
        assert response.status_code in (200, 201), (name, response.content)
        answer = response.json()
        shown = answer.get("memory", answer)
        with identity_context(reader):
            stored = memory_get(identity=reader, patient_id=pid, memory_id=uuid.UUID(shown["memory_id"]))
            expected = JSONRenderer().render(ReferenceMemoryOut(stored).data)
        assert JSONRenderer().render(shown) == expected, name
        writes[name] = shown

    check("plain", patient.post(mem(pid), memory_body(cid, "earliest_time", "09:00")))
    check("bounded, superseding", patient.post(mem(pid), memory_body(cid, "earliest_time", "09:30",
                                                                      valid_until=until)))
    check("encrypted", nurse.post(mem(pid), {
        "memory_type": "care_context", "consent_purpose": "care_coordination",
        "fact": {"kind": "allergy", "substance": "latex", "reaction": "rash", "severity": "mild"},
        "review_by": (datetime.now(UTC) + timedelta(days=90)).isoformat()}))
    check("proposed", agent.post(mem(pid) + "/proposals", {**memory_body(cid, "latest_time", "15:00"),
                                                            "source_ref": "turn:1"}))
    current = writes["bounded, superseding"]["memory_id"]
    check("correction", patient.post(f"{mem(pid)}/{current}/correct", {"fact": {"kind": "earliest_time",
                                                                               "time": "08:00"}}))
    assert (writes["encrypted"]["fact"]["substance"], writes["proposed"]["state"]) == ("latex", "proposed")


# --- the quick read (core.api._quick_get) ------------------------------------------------------------------------
def _answer(response) -> tuple:
    """Status, headers and body, the request's own id left out (a problem document names it too)."""
    request_id = response["X-Request-ID"].encode()
    headers = {k: v for k, v in response.items() if k not in ("X-Request-ID", "Content-Length")}
    return response.status_code, headers, response.content.replace(request_id, b"<request id>")


def _audit_rows_of_request(org, request_id: str) -> list[tuple]:
    with admin_connect() as conn:
        return conn.execute(
            "SELECT action, outcome, reason, purpose, patient_id, actor_sub, resource_type FROM audit_event "
            "WHERE organization_id = %s AND correlation_id = %s ORDER BY occurred_at", [org, request_id]).fetchall()


@pytest.mark.django_db(transaction=True)
def test_the_quick_list_answers_and_audits_as_drf_does(world, monkeypatch):
    """A token verified earlier skips DRF's machinery for the plain list: the same status, headers, bytes and audit
    row as DRF's whole path gives (which answers when the token is new to the process), for a patient, for staff
    with and without a grant; a refusal inside the block (here a purpose the token's claim names and the grant
    does not cover) and anything not plain (a filter, another Accept) go to DRF's path."""
    from core.authentication import verified_tokens
    from memory.api import PatientMemoriesView

    cid = world.consent(world.patient_a)
    world.consent(world.patient_a, "care_coordination")
    world.grant(world.patient_a, "nurse-1", "appointment_scheduling")
    patient = world.patient(world.patient_a)
    assert patient.post(mem(world.patient_a), memory_body(cid, "earliest_time", "10:00")).status_code == 201
    assert patient.post(mem(world.patient_a), memory_body(cid, "latest_time", "16:00")).status_code == 201
    ran: list[str] = []
    drf_get = PatientMemoriesView.get
    monkeypatch.setattr(PatientMemoriesView, "get", lambda view, *a, **k: ran.append("drf") or drf_get(view, *a, **k))
    nurse_for_care = Api(world.token(sub="nurse-1", extra={"purpose_of_use": "care_coordination"}))
    cases = [("patient", patient, {}, ["drf"]),
             ("staff with a grant", world.staff("nurse-1"), {}, ["drf"]),
             ("staff without one", world.staff("nurse-2"), {}, ["drf"]),
             ("purpose refused", nurse_for_care, {}, ["drf", "drf"]),
             ("another Accept", patient, {"Accept": "application/json; indent=2"}, ["drf", "drf"])]
    for name, api, headers, expected in cases:
        verified_tokens.clear()  # DRF's path verifies the token; the second request finds it verified
        ran.clear()
        full = api.get(mem(world.patient_a), headers={**headers, "X-Request-ID": f"q-{len(name)}-full"})
        quick = api.get(mem(world.patient_a), headers={**headers, "X-Request-ID": f"q-{len(name)}-quick"})
        assert ran == expected, name
        assert _answer(quick) == _answer(full), name
        assert quick["X-Request-ID"] == f"q-{len(name)}-quick"
        rows = _audit_rows_of_request(world.org, f"q-{len(name)}-quick")
        assert rows and rows == _audit_rows_of_request(world.org, f"q-{len(name)}-full"), name
    assert len(json.loads(_answer(quick)[2])["items"]) == 2
    verified_tokens.clear()
    ran.clear()
    patient.get(mem(world.patient_a))
    filtered = patient.get(mem(world.patient_a), {"memory_type": "scheduling_preference"})
    assert ran == ["drf", "drf"] and len(filtered.json()["items"]) == 2


@pytest.mark.django_db(transaction=True)
def test_a_quick_read_that_fails_after_its_commit_is_not_answered_twice(world, monkeypatch):
    """What the read committed (its audit row) stays, so DRF's path must not answer the request again: the error is
    the request's own (500), with one audit row, not two."""
    from memory.api import PatientMemoriesView

    patient = world.patient(world.patient_a)
    assert patient.get(mem(world.patient_a)).status_code == 200  # the token is now verified
    ran: list[str] = []
    drf_get = PatientMemoriesView.get
    monkeypatch.setattr(PatientMemoriesView, "get", lambda view, *a, **k: ran.append("drf") or drf_get(view, *a, **k))
    quick_rows = PatientMemoriesView.quick_get_rows

    def committed_then_failed(block, patient_id):
        quick_rows(block, patient_id)
        raise RuntimeError("after the commit")

    monkeypatch.setattr(PatientMemoriesView, "quick_get_rows", staticmethod(committed_then_failed))
    patient.client.raise_request_exception = False
    r = patient.get(mem(world.patient_a), headers={"X-Request-ID": "quick-after-commit"})
    assert r.status_code == 500 and ran == []
    assert [row[:2] for row in _audit_rows_of_request(world.org, "quick-after-commit")] == [("memory.list", "success")]


def test_a_quick_read_is_declared_whole_and_for_json_only():
    """A quick read renders as the view's first renderer would only when that is the JSON renderer, and needs both
    of its halves: anything else is refused when the URLconf builds the view, not answered wrongly later."""
    from rest_framework.renderers import BrowsableAPIRenderer

    from core.api import ScopedAPIView

    class HalfDeclared(ScopedAPIView):
        required_scopes = ["memory:read"]
        quick_get_rows = staticmethod(lambda identity: [])

    class OtherRenderer(HalfDeclared):
        renderer_classes = [BrowsableAPIRenderer]
        quick_get_data = staticmethod(lambda rows: {})

    for view in (HalfDeclared, OtherRenderer):
        with pytest.raises(TypeError, match="quick read"):
            view.as_view()


# --- round trips (deterministic, unlike timings: asserted exactly) ---------------------------------------------
@pytest.fixture
def fresh_connections(committed_db):
    """Round trips counted from new server connections: a connection that has run many other statements may be
    pruning psycopg's cache of prepared statements, which is not the request's own work."""
    connections["default"].close()
    connections["default"].close_pool()


def _trips(call) -> tuple[int, object]:
    with round_trips() as trips:
        response = call()
    return trips.count, response


def _committed_rows(sql: str, params: list) -> int:
    with admin_connect() as conn:
        return conn.execute(sql, params).fetchone()[0]


def test_a_list_read_with_its_gate_audit_row_and_commit_is_one_round_trip(fresh_connections, world):
    """BEGIN, the identity with admission and rate limits, the read with its audit row, and COMMIT travel in one
    pipeline: one round trip, and the audit row is committed when the answer is given."""
    api = world.patient(world.patient_a)
    api.get(mem(world.patient_a))  # the connection is made (connecting is not a request's round trip)
    for _ in range(7):  # the same on every request, including when psycopg prepares the statement (the 5th run)
        count, r = _trips(lambda: api.get(mem(world.patient_a), headers={"X-Request-ID": "req-trips-list"}))
        assert (count, r.status_code) == (1, 200)
    assert _committed_rows("SELECT count(*) FROM audit_event WHERE correlation_id = 'req-trips-list'", []) == 7


def test_a_read_by_id_is_one_round_trip(fresh_connections, world):
    cid = world.consent(world.patient_a)
    api = world.patient(world.patient_a)
    memory_id = api.post(mem(world.patient_a), memory_body(cid)).json()["memory_id"]
    count, r = _trips(lambda: api.get(f"{mem(world.patient_a)}/{memory_id}"))
    assert (count, r.status_code) == (1, 200)


def test_a_create_is_two_round_trips_and_three_with_an_idempotency_key(fresh_connections, world):
    """A create: (1) BEGIN, identity and gate, the write checks (access, consent share-locked, the attribute's lock)
    and the attribute's current records locked; (2) the supersession, the record with its copies, lifecycle event
    and audit rows, and COMMIT. With an Idempotency-Key, the key's lock and lookup come first, and the stored
    response travels with the writes and the COMMIT. Everything is committed together, superseding or not."""
    cid = world.consent(world.patient_a)
    api = world.patient(world.patient_a)
    api.get(mem(world.patient_a))
    cases = [(memory_body(cid, "earliest_time", "10:00"), None, 2),
             (memory_body(cid, "earliest_time", "11:00"), None, 2),  # supersedes 10:00
             (memory_body(cid, "latest_time", "16:00"), "trips-1", 3),
             (memory_body(cid, "latest_time", "17:00"), "trips-2", 3)]  # supersedes 16:00
    for body, key, expected in cases:
        headers = {"Idempotency-Key": key} if key else {}
        count, r = _trips(lambda body=body, headers=headers: api.post(mem(world.patient_a), body, headers=headers))
        assert (count, r.status_code) == (expected, 201), r.content
    items = api.get(mem(world.patient_a)).json()["items"]
    assert sorted(i["fact"]["time"] for i in items) == ["11:00", "17:00"]
    assert _committed_rows("SELECT count(*) FROM patient_memory WHERE patient_id = %s AND state = 'superseded'",
                           [world.patient_a]) == 2
    assert _committed_rows("SELECT count(*) FROM audit_event WHERE patient_id = %s AND action = ANY(%s)",
                           [world.patient_a, ["memory.create", "memory.supersede"]]) == 6
    assert _committed_rows("SELECT count(*) FROM idempotency_record WHERE idempotency_key LIKE 'trips-%%'", []) == 2
    replay = api.post(mem(world.patient_a), memory_body(cid, "latest_time", "17:00"),
                      headers={"Idempotency-Key": "trips-2"})
    assert replay.status_code == 201 and replay["Idempotent-Replayed"] == "true"


def test_a_refused_create_writes_nothing_and_its_pipelined_locks_end_with_it(committed_db, world):
    """Without access the checks and the current records' lock travel together and find nothing; the refusal rolls
    everything back (403/404), and a later create of the same attribute by the patient is not kept waiting."""
    cid = world.consent(world.patient_a)
    stranger = world.staff("nurse-without-grant")
    r = stranger.post(mem(world.patient_a), memory_body(cid))
    assert r.status_code in (403, 404)
    assert _committed_rows("SELECT count(*) FROM patient_memory WHERE patient_id = %s", [world.patient_a]) == 0
    assert world.patient(world.patient_a).post(mem(world.patient_a), memory_body(cid)).status_code == 201


def test_a_create_that_meets_a_concurrent_value_at_commit_answers_409_and_writes_nothing(committed_db, world,
                                                                                      monkeypatch):
    """The writes are sent without waiting: a unique-index conflict surfaces with the COMMIT, and is answered as the
    service answers it (409 concurrent_update_retry), with nothing of the create kept."""
    from memory import services

    cid = world.consent(world.patient_a)
    api = world.patient(world.patient_a)
    assert api.post(mem(world.patient_a), memory_body(cid, "earliest_time", "09:00")).status_code == 201
    monkeypatch.setattr(services, "_memories", lambda cursor: [])  # as if the current record had not been seen
    r = api.post(mem(world.patient_a), memory_body(cid, "earliest_time", "10:00"),
                 headers={"Idempotency-Key": "trips-conflict"})
    assert r.status_code == 409 and r.json()["code"] == "concurrent_update_retry", r.content
    assert _committed_rows("SELECT count(*) FROM patient_memory WHERE patient_id = %s", [world.patient_a]) == 1
    assert _committed_rows("SELECT count(*) FROM idempotency_record WHERE idempotency_key = 'trips-conflict'",
                           []) == 0


def test_a_checkpoint_is_two_round_trips(fresh_connections, world):
    """A checkpoint: the workflow read and locked, with BEGIN, the identity and the gate; then the new version, its
    history row and audit row, with COMMIT."""
    api = world.patient(world.patient_a)
    r = api.post("/v1/workflows", {"workflow_type": "prior_authorization", "patient_id": str(world.patient_a)})
    assert r.status_code == 201, r.content
    workflow_id = r.json()["workflow_id"]
    count, r = _trips(lambda: api.post(f"/v1/workflows/{workflow_id}/checkpoint", {
        "expected_version": 1, "next_step": "submit_prior_authorization", "state_patch": {"n": 1}}))
    assert (count, r.status_code) == (2, 200), r.content


def _statements_sent(monkeypatch) -> list[str]:
    """The text of every statement psycopg is asked to send from here on (the service's and the test's alike)."""
    sent: list[str] = []
    execute = psycopg.Cursor.execute

    def recorded(cursor, query, *args, **kwargs):
        sent.append(query.decode() if isinstance(query, bytes) else str(query))
        return execute(cursor, query, *args, **kwargs)

    monkeypatch.setattr(psycopg.Cursor, "execute", recorded)
    return sent


def test_a_list_read_is_one_implicit_transaction_without_begin_or_commit(fresh_connections, world, monkeypatch):
    """The quick list's identity (with its gate) and its read (with the audit row) are the whole transaction and
    go in one pipeline, so they are sent as they are, without a BEGIN before them or a COMMIT after them: two
    statements fewer for psycopg to send and PostgreSQL to run on every list. The pipeline's sync commits them as
    one implicit transaction: the audit row is durable when the answer is given, and the connection is left idle,
    with no identity."""
    api = world.patient(world.patient_a)
    assert api.get(mem(world.patient_a)).status_code == 200  # the token is verified: the next ones are quick
    sent = _statements_sent(monkeypatch)
    for number in range(3):
        sent.clear()
        r = api.get(mem(world.patient_a), headers={"X-Request-ID": f"implicit-{number}"})
        assert r.status_code == 200
        assert [s.split()[0] for s in sent] == ["WITH", "WITH"], sent  # the identity with its gate, the read
        assert _committed_rows("SELECT count(*) FROM audit_event WHERE correlation_id = %s",
                               [f"implicit-{number}"]) == 1
    assert connection.connection.info.transaction_status == psycopg.pq.TransactionStatus.IDLE
    with connection.cursor() as cur:
        assert settings_now(cur) == [""] * len(SETTINGS)


def test_the_quick_list_is_its_one_statement_without_an_atomic_block(fresh_connections, world, monkeypatch):
    """The quick list is one implicit transaction (the identity with its gate, the read with its audit row) sent
    on the connection as it is: no Django atomic block, savepoint bookkeeping or execute wrapper around it (about a
    twentieth of the list's CPU in the web worker), no ``request.headers`` mapping built, and still the same answer,
    one committed audit row and no identity left behind; a refusal inside it (a purpose the token names and the
    patient never consented to) still goes to DRF's path, which answers and audits it."""
    api = world.patient(world.patient_a)
    assert api.get(mem(world.patient_a)).status_code == 200  # the token is verified: the next ones are quick
    atomic_blocks: list[str] = []
    enter = transaction.Atomic.__enter__
    monkeypatch.setattr(transaction.Atomic, "__enter__", lambda block: atomic_blocks.append("atomic") or enter(block))
    header_maps: list[str] = []  # nor the request's headers parsed into a mapping (every header, per request)
    headers_init = HttpHeaders.__init__
    monkeypatch.setattr(HttpHeaders, "__init__", lambda h, meta: header_maps.append("parsed") or headers_init(h, meta))
    r = api.get(mem(world.patient_a), headers={"X-Request-ID": "lone-1"})
    assert r.status_code == 200 and r["X-Request-ID"] == "lone-1" and atomic_blocks == [] and header_maps == []
    assert _committed_rows("SELECT count(*) FROM audit_event WHERE correlation_id = %s", ["lone-1"]) == 1
    assert connection.connection.info.transaction_status == psycopg.pq.TransactionStatus.IDLE
    with connection.cursor() as cur:
        assert settings_now(cur) == [""] * len(SETTINGS)
    agent = Api(world.token(sub=f"patient-{world.patient_a}", patient_id=world.patient_a, scope=PATIENT_SCOPES,
                            extra={"purpose_of_use": "prior_authorization", "act": {"client_id": "booking-agent"}}))
    assert agent.get(mem(world.patient_a)).status_code == 403  # verified by DRF's path, which refuses it
    atomic_blocks.clear()
    refused = agent.get(mem(world.patient_a), headers={"X-Request-ID": "lone-refused"})
    assert refused.status_code == 403 and refused.json()["code"] == "purpose_not_permitted"
    assert atomic_blocks  # DRF's path answered it
    assert _committed_rows("SELECT count(*) FROM audit_event WHERE correlation_id = %s AND outcome = 'denied'",
                           ["lone-refused"]) == 1
