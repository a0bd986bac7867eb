from __future__ import annotations

import uuid

import psycopg
import psycopg.sql
import pytest
from django.conf import settings
from django.core.management import call_command
from django.db import connections

from core.authentication import key_set_cache
from core.bootstrap import bootstrap
from tests.support import ISSUER, PATIENT_SCOPES, Api, JwksServer, KeyRing, configure_identity_provider, mint

APP_TABLES = ["memory_type_serves", "memory_type", "patient_identifier", "patient_directory", "staff_directory",
              "workflow_operation", "conversation_turn", "conversation_session", "memory_release_member",
              "memory_release",
              "memory_embedding", "memory_lifecycle_event", "memory_representation", "memory_deletion",
              "patient_memory", "patient_consent", "patient_access_grants", "agent_workflow_transition",
              "agent_workflow", "audit_event", "organization"]


@pytest.fixture(scope="session")
def django_db_setup(django_db_blocker):
    """A fresh database with the two roles, migrated as the owner. Tests then connect as the runtime role."""
    topology = settings.DB_TOPOLOGY
    assert topology.admin is not None, "tests need the embedded server or DATABASE_ADMIN_URL"
    with django_db_blocker.unblock():
        for conn in connections.all():
            conn.close()
        bootstrap(topology, drop_first=True)
        call_command("migrate", database="owner", verbosity=0)
        connections["owner"].close()


def admin_connect() -> psycopg.Connection:
    topology = settings.DB_TOPOLOGY
    return psycopg.connect(topology.admin.conninfo(dbname=topology.owner.name), autocommit=True)


def run_into(results: dict):
    """A thread's body for race tests: ``call()``'s answer kept under ``name``, its connections closed after."""
    def run(name, call):
        try:
            results[name] = call()
        finally:
            connections.close_all()
    return run


def done_or_waiting_for_a_lock(thread) -> bool:
    """Whether ``thread`` finished, or some connection of the test database waits for a lock."""
    with admin_connect() as conn:
        waiting = conn.execute("SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock' "
                               "AND datname = current_database()").fetchone()[0]
    return not thread.is_alive() or waiting > 0


def race_with_erasure(monkeypatch, patient, patient_id, write) -> tuple[dict, object]:
    """The patient's erase-all, paused once it has locked and read what it erases; ``write()`` sent then, in a
    thread, until it finished or waits for a lock; the erasure let go on. Returns the answers (``erase``,
    ``write``, and ``written_by``: a time after the write committed) and the time the erasure was let go."""
    import threading

    from django.utils import timezone

    from memory import deletion
    from tests.fakes.processes import wait_until

    reached, go, results = threading.Event(), threading.Event(), {}
    real = deletion.erase_with_receipt

    def paused(**kwargs):
        reached.set()
        go.wait(10)
        return real(**kwargs)

    monkeypatch.setattr(deletion, "erase_with_receipt", paused)
    run = run_into(results)
    eraser = threading.Thread(target=run, args=(
        "erase", lambda: patient.client.delete(f"/v1/patients/{patient_id}/memories", **patient._headers(None))))
    eraser.start()
    assert reached.wait(10)

    def timed():
        answer = write()
        results["written_by"] = timezone.now()  # committed by then
        return answer

    writer = threading.Thread(target=run, args=("write", timed))
    writer.start()
    wait_until(lambda: done_or_waiting_for_a_lock(writer), timeout=10, message="the write")
    released = timezone.now()
    go.set()
    eraser.join(timeout=30)
    writer.join(timeout=30)
    assert results["erase"].status_code == 200, results["erase"].content
    return results, released


def owner_connect() -> psycopg.Connection:
    return psycopg.connect(settings.DB_TOPOLOGY.owner.conninfo(), autocommit=True)


def runtime_connect() -> psycopg.Connection:
    return psycopg.connect(settings.DB_TOPOLOGY.runtime.conninfo(), autocommit=True)


def database_contains(needle: str) -> list[str]:
    """Every text-castable column of every table, read as the superuser (no RLS): where does ``needle`` occur?

    Dates and times are left out: no value is ever kept in one, and a needle such as "05:12" is also the text of
    any timestamp written at that minute and second."""
    hits = []
    with admin_connect() as conn:
        columns = conn.execute(
            "SELECT c.table_name, c.column_name FROM information_schema.columns c "
            "JOIN information_schema.tables t USING (table_schema, table_name) "
            "WHERE c.table_schema = 'public' AND t.table_type = 'BASE TABLE' "
            "AND c.data_type NOT IN ('timestamp with time zone', 'timestamp without time zone', 'date', "
            "'time with time zone', 'time without time zone', 'interval')").fetchall()
        for table, column in columns:
            query = psycopg.sql.SQL("SELECT count(*) FROM {} WHERE {}::text ILIKE %s").format(
                psycopg.sql.Identifier(table), psycopg.sql.Identifier(column))
            if conn.execute(query, [f"%{needle}%"]).fetchone()[0]:
                hits.append(f"{table}.{column}")
    return hits


def register_organization(org: uuid.UUID, *issuers: str, administrator: bool = False) -> None:
    """Register an organisation as the operator does (owner role, committed: API requests run on their own
    connections in some tests)."""
    with owner_connect() as conn:
        conn.execute("INSERT INTO organization (id, name, created_at, trusted_issuers, administrator) "
                     "VALUES (%s, '', now(), %s, %s) ON CONFLICT (id) DO UPDATE SET "
                     "trusted_issuers = EXCLUDED.trusted_issuers, administrator = EXCLUDED.administrator",
                     [org, list(issuers or (ISSUER,)), administrator])


def wipe_app_tables() -> None:
    """Remove committed rows between real-commit tests (append-only triggers are bypassed as superuser)."""
    with admin_connect() as conn:
        conn.execute("SET session_replication_role = replica")
        conn.execute("TRUNCATE " + ", ".join(APP_TABLES) + " CASCADE")
        # circuit rows come from the migration (one per outside system): reset, never truncate
        conn.execute("UPDATE workflow_circuit SET state = 'closed', consecutive_failures = 0, opened_at = NULL, "
                     "open_until = NULL")


def settle_vector_writes() -> None:
    """Wait for the vectors of memories a test wrote (``memory.retrieval.vectors.VectorWrites`` writes them after the
    write commits), so none is written into the next test's tables or through its provider."""
    from memory.retrieval.vectors import vector_writes

    assert vector_writes.wait(timeout=60), "new memories' vectors still being written"


@pytest.fixture(autouse=True)
def vector_writes_settled():
    """After each test, before its database is cleaned (pytest-django's fixtures are set up before this one, so
    they are torn down after it)."""
    yield
    settle_vector_writes()


@pytest.fixture
def committed_db(django_db_setup, django_db_blocker):
    """Real commits (for concurrency and connection-reuse tests); tables are wiped afterwards."""
    with django_db_blocker.unblock():
        yield
        settle_vector_writes()
        for conn in connections.all():
            conn.close()
        wipe_app_tables()


@pytest.fixture(scope="session")
def keyring() -> KeyRing:
    return KeyRing()


@pytest.fixture(scope="session")
def jwks_server(keyring):
    server = JwksServer(keyring)
    yield server
    server.stop()


@pytest.fixture(autouse=True)
def identity_provider(jwks_server):
    from core import gate

    gate._OVER.clear()  # addresses a test sent failed authentications from: the next test starts afresh
    configure_identity_provider(jwks_server.url)
    key_set_cache().clear()
    jwks_server.available = True
    jwks_server.answering.set()
    yield jwks_server


class World:
    """Two organisations, patients and staff, with helpers to speak as each of them."""

    def __init__(self, keyring: KeyRing) -> None:
        self.keyring = keyring
        self.org = uuid.uuid4()
        self.other_org = uuid.uuid4()
        register_organization(self.org)
        register_organization(self.other_org)
        self.patient_a = uuid.uuid4()
        self.patient_b = uuid.uuid4()

    def token(self, **kwargs) -> str:
        kwargs.setdefault("org_id", self.org)
        return mint(self.keyring, **kwargs)

    def patient(self, patient_id: uuid.UUID, *, org: uuid.UUID | None = None, scope: str = PATIENT_SCOPES) -> Api:
        return Api(self.token(sub=f"patient-{patient_id}", patient_id=patient_id, org_id=org or self.org,
                              scope=scope))

    def staff(self, sub: str = "nurse-1", *, org: uuid.UUID | None = None, scope: str | None = None) -> Api:
        kwargs = {"sub": sub, "org_id": org or self.org}
        if scope is not None:
            kwargs["scope"] = scope
        return Api(self.token(**kwargs))

    def admin(self, *, org: uuid.UUID | None = None) -> Api:
        return Api(self.token(sub="org-admin", org_id=org or self.org,
                              scope="grant:write consent:read audit:read"))

    # --- arrangements through the API ------------------------------------------------------------------
    def consent(self, patient_id: uuid.UUID, purpose: str = "appointment_scheduling",
                org: uuid.UUID | None = None) -> str:
        r = self.patient(patient_id, org=org).post(f"/v1/patients/{patient_id}/consents", {"purpose": purpose})
        assert r.status_code in (200, 201), r.content
        return r.json()["consent_record_id"]

    def grant(self, patient_id: uuid.UUID, actor_sub: str, purpose: str, expires_at: str | None = None) -> dict:
        in_directory(self.org, patient_id)
        r = self.admin().post("/v1/grants", {"patient_id": str(patient_id), "actor_sub": actor_sub,
                                             "purpose": purpose, "expires_at": expires_at})
        assert r.status_code in (200, 201), r.content
        return r.json()


def in_directory(org: uuid.UUID, patient_id: uuid.UUID, name: str | None = None) -> None:
    """Register a test's patient in the organisation's directory (grants are given only for its patients), under a
    placeholder name unless one is given; one already there keeps its name unless one is given. On the test's own
    connection, as an administrator registering patients (RLS), with no audit row."""
    from django.db import connection

    from core.identity import Identity, identity_context
    from core.services import organization_ensure

    registrar = Identity(org_id=org, actor_sub="org-admin", scopes=frozenset({"patient:write"}))
    with identity_context(registrar), connection.cursor() as cursor:
        organization_ensure(identity=registrar)  # a test's own organisation, when no token named it yet
        cursor.execute("INSERT INTO patient_directory (organization_id, patient_id, display_name, created_by, "
                       "created_at, updated_at) VALUES (%s, %s, %s, 'org-admin', now(), now()) "
                       "ON CONFLICT (organization_id, patient_id) DO "
                       + ("UPDATE SET display_name = EXCLUDED.display_name" if name else "NOTHING"),
                       [org, patient_id, name or f"Patient {str(patient_id)[:8]}"])


def grant_outside_directory(org: uuid.UUID, patient_id: uuid.UUID, actor_sub: str, purpose: str) -> None:
    """A grant given before grants needed a directory entry: its patient has none. Written as an administrator
    (RLS) on the test's own connection, past the service that now refuses it."""
    from consent.models import AccessGrant
    from core.identity import Identity, identity_context

    with identity_context(Identity(org_id=org, actor_sub="org-admin", scopes=frozenset({"grant:write"}))):
        AccessGrant.objects.create(organization_id=org, patient_id=patient_id, actor_sub=actor_sub, purpose=purpose,
                                   granted_by="org-admin")


@pytest.fixture
def world(keyring) -> World:
    return World(keyring)


def time_fact(kind: str, time: str) -> dict:
    return {"kind": kind, "time": time}


def memory_body(consent_id: str, kind: str = "earliest_time", time: str = "10:00", **extra) -> dict:
    return {"memory_type": "scheduling_preference", "fact": time_fact(kind, time),
            "consent_purpose": "appointment_scheduling", "consent_record_id": consent_id, **extra}


@pytest.fixture
def live(committed_db):
    """The service over real HTTP: uvicorn serving config.asgi's router (REST API and /mcp) in a thread."""
    from tests.live import LiveService

    service = LiveService()
    yield service
    service.stop()
