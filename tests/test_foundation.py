"""The foundation: roles, catalog facts, the identity context and the seed's RLS verification list."""

from __future__ import annotations

import threading
import uuid
from datetime import timedelta

import psycopg
import psycopg.sql
import pytest
from django.conf import settings
from django.db import connection, connections
from django.utils import timezone

from consent.models import AccessGrant, ConsentRecord
from consent.services import consent_record, consent_revoke, grant_create, grant_revoke
from core.checks import runtime_role_problems
from core.identity import ACTOR_PATIENT, Identity, current_identity, identity_context
from memory.models import Memory
from memory.services import memory_record
from tests.conftest import in_directory, owner_connect, runtime_connect

PATIENT_SCOPED_TABLES = ["workflow_operation", "patient_memory", "patient_consent", "patient_access_grants",
                         "agent_workflow", "agent_workflow_transition", "audit_event", "organization",
                         "conversation_session", "conversation_turn", "memory_embedding", "memory_release",
                         "memory_release_member", "memory_lifecycle_event", "memory_representation"]


def patient(org, pid) -> Identity:
    return Identity(org_id=org, actor_sub=f"patient-{pid}", patient_self_id=pid, actor_kind=ACTOR_PATIENT,
                    scopes=frozenset({"memory:read", "memory:write", "consent:write"}))


def staff(org, sub="nurse-1") -> Identity:
    return Identity(org_id=org, actor_sub=sub, scopes=frozenset({"memory:read", "memory:write"}))


def admin(org) -> Identity:
    return Identity(org_id=org, actor_sub="org-admin", scopes=frozenset({"grant:write"}))


def record_pref(identity, patient_id, consent_id, kind="earliest_time", time="10:00"):
    return memory_record(identity=identity, patient_id=patient_id, memory_type="scheduling_preference",
                         fact={"kind": kind, "time": time},
                         consent_purpose="appointment_scheduling", consent_record_id=consent_id)


def give_consent(org, pid, purpose="appointment_scheduling") -> uuid.UUID:
    me = patient(org, pid)
    with identity_context(me):
        record, _ = consent_record(identity=me, patient_id=pid, purpose=purpose, evidence_ref="test")
    return record.consent_record_id


def give_grant(org, pid, sub, purpose, expires_at=None) -> AccessGrant:
    in_directory(org, pid)
    a = admin(org)
    with identity_context(a):
        grant, _ = grant_create(identity=a, patient_id=pid, actor_sub=sub, purpose=purpose, expires_at=expires_at)
    return grant


# --- roles and catalog ------------------------------------------------------------------------------------

@pytest.mark.django_db
def test_runtime_role_is_not_superuser_not_bypassrls_and_owns_nothing():
    with connection.cursor() as cur:
        cur.execute("SELECT current_user, rolsuper, rolbypassrls FROM pg_roles WHERE rolname = current_user")
        user, superuser, bypass = cur.fetchone()
        cur.execute("SELECT count(*) FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace "
                    "WHERE c.relowner = (SELECT oid FROM pg_roles WHERE rolname = current_user) "
                    "AND n.nspname = 'public'")
        owned = cur.fetchone()[0]
    assert user == settings.DB_TOPOLOGY.runtime.user
    assert superuser is False and bypass is False
    assert owned == 0
    assert runtime_role_problems() == []


@pytest.mark.django_db(databases=["default", "owner"])
def test_startup_check_flags_a_role_that_could_bypass_rls():
    """The owner owns the tables: the same check run on its connection must refuse it."""
    problems = runtime_role_problems(using="owner")
    assert any(p.startswith("owns table") for p in problems)


@pytest.mark.django_db
def test_every_patient_scoped_table_has_rls_enabled_and_forced():
    with connection.cursor() as cur:
        cur.execute("SELECT relname, relrowsecurity, relforcerowsecurity FROM pg_class "
                    "WHERE relname = ANY(%s) AND relkind IN ('r', 'p')", [PATIENT_SCOPED_TABLES])
        rows = {name: (enabled, forced) for name, enabled, forced in cur.fetchall()}
        cur.execute("SELECT DISTINCT tablename FROM pg_policies WHERE schemaname = 'public'")
        with_policies = {r[0] for r in cur.fetchall()}
    assert set(rows) == set(PATIENT_SCOPED_TABLES)
    assert all(enabled and forced for enabled, forced in rows.values()), rows
    assert set(PATIENT_SCOPED_TABLES) <= with_policies


@pytest.mark.django_db
def test_every_table_with_a_patient_column_is_protected():
    """No new table with patient data may forget RLS."""
    with connection.cursor() as cur:
        cur.execute("""SELECT c.relname FROM pg_class c JOIN pg_attribute a ON a.attrelid = c.oid
                        WHERE a.attname = 'patient_id' AND c.relkind = 'r' AND NOT a.attisdropped
                          AND c.relnamespace = 'public'::regnamespace
                          AND NOT (c.relrowsecurity AND c.relforcerowsecurity)""")
        assert cur.fetchall() == []


# --- identity context ---------------------------------------------------------------------------------------

@pytest.mark.django_db
def test_identity_context_sets_and_clears_transaction_local_settings():
    org, pid = uuid.uuid4(), uuid.uuid4()
    me = patient(org, pid)

    def settings_now():
        with connection.cursor() as cur:
            cur.execute("SELECT current_setting('app.org_id', true), current_setting('app.patient_self_id', true),"
                        " current_setting('app.actor_sub', true)")
            return cur.fetchone()

    with identity_context(me):
        assert settings_now() == (str(org), str(pid), me.actor_sub)
        assert current_identity() == me
    assert settings_now() in ((None, None, None), ("", "", ""))
    assert current_identity() is None


@pytest.mark.django_db
def test_nested_context_for_someone_else_is_refused():
    org = uuid.uuid4()
    with identity_context(staff(org)):
        with pytest.raises(RuntimeError), identity_context(staff(org, "someone-else")):
            pass


@pytest.mark.django_db
def test_a_failed_block_leaves_no_identity_behind():
    org = uuid.uuid4()
    with pytest.raises(ZeroDivisionError), identity_context(staff(org)):
        1 / 0
    with connection.cursor() as cur:
        cur.execute("SELECT COALESCE(current_setting('app.org_id', true), '')")
        assert cur.fetchone()[0] == ""


# --- the seed's verification list -----------------------------------------------------------------------------

@pytest.mark.django_db
def test_repeated_writes_supersede_per_attribute():
    org, pid = uuid.uuid4(), uuid.uuid4()
    cid = give_consent(org, pid)
    me = patient(org, pid)
    with identity_context(me):
        first = record_pref(me, pid, cid, "earliest_time", "10:00")
        record_pref(me, pid, cid, "latest_time", "16:00")  # must not erase earliest_time
        second = record_pref(me, pid, cid, "earliest_time", "11:00")
        current = {m.attribute: m.fact["time"] for m in Memory.objects.current().for_patient(org, pid)}
        old = Memory.objects.get(pk=first.pk)
    assert current == {"earliest_time": "11:00", "latest_time": "16:00"}
    assert old.superseded_by_id == second.memory_id and old.state == "superseded"


@pytest.mark.django_db
def test_staff_grant_for_one_purpose_cannot_read_or_write_another():
    org, pid = uuid.uuid4(), uuid.uuid4()
    sched = give_consent(org, pid, "appointment_scheduling")
    give_consent(org, pid, "communication")
    me = patient(org, pid)
    with identity_context(me):
        record_pref(me, pid, sched)
        memory_record(identity=me, patient_id=pid, memory_type="communication_preference",
                      fact={"kind": "channel", "channel": "sms"}, consent_purpose="communication",
                      consent_record_id=ConsentRecord.objects.get(purpose="communication").pk)
    give_grant(org, pid, "nurse-1", "communication")
    nurse = staff(org)
    with identity_context(nurse):
        visible = {m.consent_purpose for m in Memory.objects.filter(patient_id=pid)}
        assert visible == {"communication"}
        from core.errors import NoConsentOrAccess

        with pytest.raises(NoConsentOrAccess):
            record_pref(nurse, pid, sched, "latest_time", "15:00")


@pytest.mark.django_db
def test_rls_refuses_a_direct_insert_for_a_purpose_without_grant():
    """Even bypassing the service (a bug in a view), the database refuses the row."""
    org, pid = uuid.uuid4(), uuid.uuid4()
    sched = give_consent(org, pid)
    give_grant(org, pid, "nurse-1", "communication")
    now = timezone.now()
    from django.db import DatabaseError, transaction

    with identity_context(staff(org)), pytest.raises(DatabaseError, match="row-level security"), \
            transaction.atomic():
        Memory.objects.create(organization_id=org, patient_id=pid, memory_class="preference",
                              memory_type="scheduling_preference", attribute="earliest_time",
                              fact={"kind": "earliest_time", "time": "09:00"}, state="active",
                              source="staff_entered", policy_revision="x", consent_purpose="appointment_scheduling",
                              consent_record_id=sched, valid_from=now, expires_at=now + timedelta(days=1),
                              created_by="nurse-1")


@pytest.mark.django_db
def test_other_patients_and_other_organisations_see_nothing():
    org, other_org = uuid.uuid4(), uuid.uuid4()
    a, b = uuid.uuid4(), uuid.uuid4()
    cid = give_consent(org, a)
    with identity_context(patient(org, a)):
        record_pref(patient(org, a), a, cid)
    with identity_context(patient(org, b)):
        assert Memory.objects.count() == 0
        assert ConsentRecord.objects.count() == 0
    # the same patient id under another organisation is another person
    with identity_context(patient(other_org, a)):
        assert Memory.objects.count() == 0
    with identity_context(staff(other_org)):
        assert Memory.objects.count() == 0


@pytest.mark.django_db
def test_revoked_or_expired_grants_deny():
    org, pid = uuid.uuid4(), uuid.uuid4()
    cid = give_consent(org, pid)
    with identity_context(patient(org, pid)):
        record_pref(patient(org, pid), pid, cid)
    grant = give_grant(org, pid, "nurse-1", "appointment_scheduling")
    with identity_context(staff(org)):
        assert Memory.objects.count() == 1
    with identity_context(admin(org)):
        grant_revoke(identity=admin(org), grant_id=grant.grant_id)
    with identity_context(staff(org)):
        assert Memory.objects.count() == 0
    # an expired grant: made valid, then its expiry passes (moved into the past as the owner would see it)
    give_grant(org, pid, "nurse-2", "appointment_scheduling", expires_at=timezone.now() + timedelta(hours=1))
    with identity_context(staff(org, "nurse-2")):
        assert Memory.objects.count() == 1
    with identity_context(admin(org)):
        AccessGrant.objects.filter(actor_sub="nurse-2").update(expires_at=timezone.now() - timedelta(seconds=1))
    with identity_context(staff(org, "nurse-2")):
        assert Memory.objects.count() == 0


@pytest.mark.django_db
def test_revoked_or_expired_consent_denies_writes_and_hides_dependent_memories():
    org, pid = uuid.uuid4(), uuid.uuid4()
    cid = give_consent(org, pid)
    me = patient(org, pid)
    with identity_context(me):
        record_pref(me, pid, cid)
        consent_revoke(identity=me, patient_id=pid, consent_id=cid)
        # hidden in the same transaction as the revocation
        assert not Memory.objects.current().for_patient(org, pid).exists()
        from core.errors import NoConsentOrAccess

        with pytest.raises(NoConsentOrAccess):
            record_pref(me, pid, cid, "latest_time", "15:00")
    cid2 = give_consent(org, pid)
    with identity_context(me):
        record_pref(me, pid, cid2)
        ConsentRecord.objects.filter(pk=cid2).update(granted_at=timezone.now() - timedelta(days=2),
                                                     expires_at=timezone.now() - timedelta(days=1))
        assert not Memory.objects.current().for_patient(org, pid).exists()
        with pytest.raises(NoConsentOrAccess):
            record_pref(me, pid, cid2, "latest_time", "15:00")


@pytest.mark.django_db
def test_unset_context_returns_zero_rows_without_error():
    org, pid = uuid.uuid4(), uuid.uuid4()
    cid = give_consent(org, pid)
    with identity_context(patient(org, pid)):
        record_pref(patient(org, pid), pid, cid)
    # no identity context at all: the data exists but nothing is visible and nothing fails
    for model in (Memory, ConsentRecord, AccessGrant):
        assert model.objects.count() == 0


def test_audit_table_rejects_update_and_delete_even_from_the_owner(committed_db):
    org, pid = uuid.uuid4(), uuid.uuid4()
    give_consent(org, pid)
    with owner_connect() as conn:
        assert conn.execute("SELECT count(*) FROM audit_event WHERE organization_id = %s", [org]).fetchone()[0] == 0, \
            "FORCE RLS hides rows from the owner too without a context"
        conn.execute(f"SET app.org_id = '{org}'")
        conn.execute("SET app.scopes = 'audit:read'")
        assert conn.execute("SELECT count(*) FROM audit_event").fetchone()[0] >= 1
        for statement in ("UPDATE audit_event SET outcome = 'error'", "DELETE FROM audit_event",
                          "TRUNCATE audit_event"):
            with pytest.raises(psycopg.errors.InsufficientPrivilege, match="append-only"):
                conn.execute(statement)
    with runtime_connect() as conn:
        with pytest.raises(psycopg.errors.InsufficientPrivilege):
            conn.execute("DELETE FROM audit_event")


# --- real commits: concurrency and connection reuse ----------------------------------------------------------

def test_six_concurrent_writers_leave_exactly_one_current_record(committed_db):
    org, pid = uuid.uuid4(), uuid.uuid4()
    cid = give_consent(org, pid)
    barrier = threading.Barrier(6)
    outcomes: list[str] = []

    def writer(i: int) -> None:
        me = patient(org, pid)
        try:
            barrier.wait(timeout=10)
            with identity_context(me):
                record_pref(me, pid, cid, "earliest_time", f"{8 + i:02d}:00")
            outcomes.append("ok")
        except Exception as exc:  # a conflict is an acceptable answer, two current rows are not
            outcomes.append(type(exc).__name__)
        finally:
            connections.close_all()

    threads = [threading.Thread(target=writer, args=(i,)) for i in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=30)
    assert len(outcomes) == 6 and set(outcomes) <= {"ok", "ConcurrentUpdate"}, outcomes
    with identity_context(patient(org, pid)):
        current = list(Memory.objects.current().for_patient(org, pid))
        total = Memory.objects.filter(patient_id=pid).count()
    assert len(current) == 1
    assert total == outcomes.count("ok")


def test_pooled_connection_does_not_carry_identity_into_the_next_request(committed_db):
    """The same physical connection: after a committed identity transaction, the next work sees nothing."""
    org, pid = uuid.uuid4(), uuid.uuid4()
    cid = give_consent(org, pid)
    with identity_context(patient(org, pid)):
        record_pref(patient(org, pid), pid, cid)
    with runtime_connect() as conn:
        backend = conn.execute("SELECT pg_backend_pid()").fetchone()[0]
        with conn.transaction():
            conn.execute("SELECT set_config('app.org_id', %s, true), set_config('app.patient_self_id', %s, true),"
                         " set_config('app.actor_sub', 'x', true)", [str(org), str(pid)])
            assert conn.execute("SELECT count(*) FROM patient_memory").fetchone()[0] == 1
        # next "request" on the same connection, without identity
        assert conn.execute("SELECT pg_backend_pid()").fetchone()[0] == backend
        assert conn.execute("SELECT count(*) FROM patient_memory").fetchone()[0] == 0
        assert conn.execute("SELECT current_setting('app.org_id', true)").fetchone()[0] == ""


def test_django_pool_reuses_connections_without_identity(committed_db, world):
    """Through the HTTP stack and Django's pool: every request after an authenticated one starts clean."""
    cid = world.consent(world.patient_a)
    api = world.patient(world.patient_a)
    assert api.post(f"/v1/patients/{world.patient_a}/memories",
                    {"memory_type": "scheduling_preference", "fact": {"kind": "earliest_time", "time": "10:00"},
                     "consent_purpose": "appointment_scheduling", "consent_record_id": cid}).status_code == 201
    seen_pids = set()
    for _ in range(12):
        assert api.get(f"/v1/patients/{world.patient_a}/memories").status_code == 200
        with connection.cursor() as cur:  # the pooled connection handed to the next unit of work
            cur.execute("SELECT pg_backend_pid(), COALESCE(current_setting('app.org_id', true), ''),"
                        " (SELECT count(*) FROM patient_memory)")
            pid, org_setting, rows = cur.fetchone()
        connection.close()
        seen_pids.add(pid)
        assert org_setting == "" and rows == 0
    assert len(seen_pids) <= settings.DATABASES["default"]["OPTIONS"]["pool"]["max_size"]


PLANNED_MEMORIES = """
INSERT INTO patient_memory (memory_id, organization_id, patient_id, memory_class, memory_type, attribute, fact, state,
                            source, source_ref, confidence, policy_revision, consent_purpose, valid_from, expires_at,
                            created_by, created_at, updated_at)
SELECT gen_random_uuid(), %(org)s, CASE WHEN k %% 100 = 0 THEN %(patient)s ELSE gen_random_uuid() END,
       'care_context', 'allergy', 'substance_' || k, '{"substance": "penicillin"}', 'active', 'ehr_import', '', 1, 'p',
       'care_coordination', now(), now() + interval '1 day', 'plan', now(), now()
  FROM generate_series(1, 2000) AS k
"""


@pytest.mark.django_db
def test_policies_read_settings_once_and_use_the_patient_index():
    """Planned as the runtime role over 2,000 analysed rows (inserted and rolled back by the superuser): on an empty
    or unanalysed table every index costs about the same, and the primary key (memory_id, organization_id) can tie
    with the patient index."""
    from tests.conftest import admin_connect

    org, pid = uuid.uuid4(), uuid.uuid4()
    with admin_connect() as conn, conn.transaction(force_rollback=True):
        conn.execute("INSERT INTO organization (id, name, created_at) VALUES (%s, '', now())", [org])
        conn.execute(PLANNED_MEMORIES, {"org": org, "patient": pid})
        conn.execute("ANALYZE patient_memory")
        conn.execute(psycopg.sql.SQL("SET LOCAL ROLE {}").format(
            psycopg.sql.Identifier(settings.DB_TOPOLOGY.runtime.user)))
        conn.execute("SELECT set_config('app.org_id', %s, true), set_config('app.patient_self_id', %s, true)",
                     [str(org), str(pid)])
        plan = "\n".join(r[0] for r in conn.execute(
            "EXPLAIN SELECT * FROM patient_memory WHERE organization_id = %s AND patient_id = %s", [org, pid]))
        assert conn.execute("SELECT count(*) FROM patient_memory").fetchone()[0] == 20  # RLS applies
        conn.execute("RESET ROLE")
    with admin_connect() as conn:
        conn.execute("ANALYZE patient_memory")  # the size estimate ANALYZE wrote is not rolled back: make it true again
    assert "memory_patient_lookup" in plan, plan
    assert "InitPlan" in plan, plan  # the organisation setting is evaluated once per statement
    assert "app_may_access" not in plan, plan  # the access rule is inlined, not called per row


@pytest.mark.django_db
def test_service_identity_sees_exactly_one_patient_and_purpose():
    org, a, b = uuid.uuid4(), uuid.uuid4(), uuid.uuid4()
    for pid in (a, b):
        for purpose in ("appointment_scheduling", "communication"):
            give_consent(org, pid, purpose)
    worker = Identity.service(org_id=org, name="workflow-worker", patient_id=a, purpose="communication")
    with identity_context(worker):
        assert list(ConsentRecord.objects.values_list("patient_id", "purpose")) == [(a, "communication")]
    other_org_worker = Identity.service(org_id=uuid.uuid4(), name="w", patient_id=a, purpose="communication")
    with identity_context(other_org_worker):
        assert ConsentRecord.objects.count() == 0


@pytest.mark.django_db(transaction=True)
def test_a_worker_starting_during_an_outage_checks_the_runtime_role_on_its_first_connection(monkeypatch):
    """A worker that cannot reach the database at start still starts (gunicorn halts every worker when one fails
    to boot, so an outage during a worker's replacement would stop the service); the role check then runs on the
    first connection that succeeds, and refuses to serve until it passes."""
    from django.core.exceptions import ImproperlyConfigured
    from django.db import OperationalError, connections
    from django.db.backends.signals import connection_created

    from core import checks

    def unreachable(using="default"):
        raise OperationalError("couldn't get a connection")

    def reconnect():
        connections["default"].close()
        connections["default"].ensure_connection()

    monkeypatch.setattr(checks, "runtime_role_problems", unreachable)
    try:
        checks.assert_runtime_role_is_safe()  # starts anyway
        monkeypatch.setattr(checks, "RUNTIME_ROLE_PROBLEMS_SQL", "SELECT 'superuser or BYPASSRLS: someone'")
        with pytest.raises(ImproperlyConfigured, match="could bypass RLS"):
            reconnect()
        assert connections["default"].connection is None  # nothing left open to query through
        with pytest.raises(ImproperlyConfigured):  # still refused: the check stays until it passes
            connections["default"].ensure_connection()
        monkeypatch.undo()
        reconnect()  # the real role passes, and the check is not run again
        assert not connection_created.disconnect(dispatch_uid=checks.DEFERRED_CHECK)
    finally:
        connection_created.disconnect(dispatch_uid=checks.DEFERRED_CHECK)
        connections["default"].close()
