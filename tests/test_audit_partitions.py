"""The audit trail partitioned by month (core migration 0016, ``core.audit_partitions``): append-only and row-level
security on every partition, partitions reachable only through the parent, no insert that can fail for want of a
partition, retention that drops whole months and audits itself, and reads that prune to the months they ask for."""

from __future__ import annotations

import dataclasses
import subprocess
import sys
import uuid
from datetime import UTC, datetime

import psycopg
import pytest
from django.core.management import call_command

from core.audit_partitions import audit_partitions_ensure, audit_retention_apply, month_start
from core.bootstrap import bootstrap
from tests.conftest import admin_connect, owner_connect, runtime_connect

IDENTITY = ("SELECT set_config('app.org_id', %s, true), set_config('app.actor_sub', %s, true), "
            "set_config('app.scopes', %s, true), set_config('app.patient_self_id', %s, true)")
COLUMNS = ("id, occurred_at, organization_id, patient_id, actor_sub, actor_kind, action, resource_type, outcome, "
           "correlation_id")


def partitions() -> dict[str, str]:
    with admin_connect() as conn:
        return dict(conn.execute(
            "SELECT c.relname, pg_get_expr(c.relpartbound, c.oid) FROM pg_inherits i "
            "JOIN pg_class c ON c.oid = i.inhrelid WHERE i.inhparent = 'audit_event'::regclass").fetchall())


def append(conn: psycopg.Connection, org: uuid.UUID, when: datetime, patient: uuid.UUID | None = None,
           actor: str = "nurse-1") -> None:
    """One audit row as the runtime role writes it: inside a transaction with the identity set."""
    with conn.transaction():
        conn.execute(IDENTITY, [str(org), actor, "audit:read", ""])
        conn.execute(f"INSERT INTO audit_event ({COLUMNS}) VALUES (gen_random_uuid(), %s, %s, %s, %s, 'staff', "
                     "'memory.list', 'memory', 'success', 'req-1')", [when, org, patient, actor])


def read_as_auditor(org: uuid.UUID, sql: str = "SELECT action, occurred_at FROM audit_event ORDER BY occurred_at",
                    params: list | None = None) -> list[tuple]:
    with runtime_connect() as conn, conn.transaction():
        conn.execute(IDENTITY, [str(org), "auditor-1", "audit:read", ""])
        return conn.execute(sql, params or []).fetchall()


@pytest.mark.django_db
def test_the_trail_is_range_partitioned_by_month_with_its_keys_indexes_and_protection_on_every_partition():
    with admin_connect() as conn:
        kind, key = conn.execute("SELECT c.relkind, pg_get_partkeydef(c.oid) FROM pg_class c "
                                 "WHERE c.oid = 'audit_event'::regclass").fetchone()
        pkey = conn.execute("SELECT pg_get_constraintdef(oid) FROM pg_constraint "
                            "WHERE conrelid = 'audit_event'::regclass AND contype = 'p'").fetchone()[0]
        sealed = conn.execute("""
            SELECT c.relname, c.relrowsecurity AND c.relforcerowsecurity,
                   has_table_privilege('anamnesis_runtime', c.oid, 'SELECT,INSERT,UPDATE,DELETE'),
                   (SELECT array_agg(t.tgname ORDER BY t.tgname) FROM pg_trigger t WHERE t.tgrelid = c.oid),
                   (SELECT count(*) FROM pg_index x WHERE x.indrelid = c.oid)
              FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
             WHERE i.inhparent = 'audit_event'::regclass""").fetchall()
        parent = conn.execute("SELECT relrowsecurity, relforcerowsecurity, "
                              "has_table_privilege('anamnesis_runtime', oid, 'SELECT'), "
                              "has_table_privilege('anamnesis_runtime', oid, 'INSERT'), "
                              "has_table_privilege('anamnesis_runtime', oid, 'UPDATE,DELETE,TRUNCATE') "
                              "FROM pg_class WHERE oid = 'audit_event'::regclass").fetchone()
    assert (kind, key) == ("p", "RANGE (occurred_at)")
    assert pkey == "PRIMARY KEY (id, organization_id, occurred_at)"
    assert parent == (True, True, True, True, False)
    names = {name for name, *_ in sealed}
    this_month = month_start(datetime.now(UTC))
    assert "audit_event_default" in names
    assert f"audit_event_y{this_month:%Y}m{this_month:%m}" in names
    for name, forced, runtime_may, triggers, indexes in sealed:
        assert forced and not runtime_may, name
        assert triggers == ["audit_event_append_only", "audit_event_check_codes", "audit_event_no_truncate"], name
        assert indexes == 3, name  # the key and both read indexes


def test_partitions_are_reachable_only_through_the_parent(committed_db):
    org = uuid.uuid4()
    name = next(n for n in partitions() if n != "audit_event_default")
    with runtime_connect() as conn:
        append(conn, org, datetime.now(UTC))
        for statement in (f"SELECT count(*) FROM {name}", f"INSERT INTO {name} SELECT * FROM audit_event LIMIT 0",
                          f"DELETE FROM {name}", "SELECT count(*) FROM audit_event_default"):
            with pytest.raises(psycopg.errors.InsufficientPrivilege), conn.transaction():
                conn.execute(IDENTITY, [str(org), "nurse-1", "audit:read", ""])
                conn.execute(statement)
    with owner_connect() as conn:
        # the owner sees nothing in a partition (forced RLS, no policy) and cannot rewrite it
        assert conn.execute(f"SELECT count(*) FROM {name}").fetchone()[0] == 0
        for statement in (f"DELETE FROM {name}", f"TRUNCATE {name}", f"UPDATE {name} SET outcome = 'error'",
                          "TRUNCATE audit_event_default"):
            with pytest.raises(psycopg.errors.InsufficientPrivilege, match="append-only"):
                conn.execute(statement)
    assert read_as_auditor(org)[0][0] == "memory.list"


def test_a_row_for_a_month_without_a_partition_is_kept_in_the_default_partition(committed_db):
    """No insert fails for want of a partition; creating that month later leaves the row where it is."""
    org, far = uuid.uuid4(), datetime(2091, 5, 17, tzinfo=UTC)
    with runtime_connect() as conn:
        append(conn, org, far)
    with admin_connect() as conn:
        assert conn.execute("SELECT count(*) FROM audit_event_default WHERE organization_id = %s",
                            [org]).fetchone()[0] == 1
    assert audit_partitions_ensure(months_ahead=0, now=far) == []  # refused with a warning, nothing moved
    assert "audit_event_y2091m05" not in partitions()
    assert read_as_auditor(org) == [("memory.list", far)]


def test_partitions_are_created_ahead_once(committed_db):
    now = datetime(2090, 11, 20, tzinfo=UTC)
    try:
        assert audit_partitions_ensure(months_ahead=3, now=now) == [
            "audit_event_y2090m11", "audit_event_y2090m12", "audit_event_y2091m01", "audit_event_y2091m02"]
        assert audit_partitions_ensure(months_ahead=3, now=now) == []
        assert partitions()["audit_event_y2090m12"] == (
            "FOR VALUES FROM ('2090-12-01 00:00:00+00') TO ('2091-01-01 00:00:00+00')")
        org = uuid.uuid4()
        with runtime_connect() as conn:
            append(conn, org, datetime(2090, 12, 31, 23, 59, 59, tzinfo=UTC))
        with admin_connect() as conn:
            assert conn.execute("SELECT tableoid::regclass::text FROM audit_event WHERE organization_id = %s",
                                [org]).fetchone()[0] == "audit_event_y2090m12"
    finally:
        drop_partitions("audit_event_y209")


def drop_partitions(prefix: str) -> None:
    with admin_connect() as conn:
        for name in [n for n in partitions() if n.startswith(prefix)]:
            conn.execute(f"DROP TABLE {name}")


def test_retention_drops_whole_months_past_the_policy_and_audits_it_in_each_organisation(committed_db):
    a, b, quiet = uuid.uuid4(), uuid.uuid4(), uuid.uuid4()
    now = datetime(2021, 6, 15, tzinfo=UTC)
    with owner_connect() as conn:
        conn.execute("SELECT audit_event_add_partitions('2020-04-01', '2020-07-01')")
    try:
        with runtime_connect() as conn:
            append(conn, a, datetime(2020, 4, 30, 12, tzinfo=UTC))       # April 2020: past a 12-month policy
            append(conn, b, datetime(2020, 4, 2, tzinfo=UTC))
            append(conn, a, datetime(2020, 5, 1, tzinfo=UTC))            # May 2020: ended 12 months before June 2021
            append(conn, quiet, datetime(2020, 6, 1, tzinfo=UTC))        # June 2020: kept
        assert audit_retention_apply(months=None, now=now, using="owner") == []  # default policy keeps all
        planned = audit_retention_apply(months=12, now=now, dry_run=True, using="owner")
        assert [(d.partition, d.rows, d.organizations) for d in planned] == [
            ("audit_event_y2020m04", 2, 2), ("audit_event_y2020m05", 1, 1)]
        assert {"audit_event_y2020m04", "audit_event_y2020m05"} <= set(partitions())  # a dry run changes nothing

        dropped = audit_retention_apply(months=12, now=now, using="owner")
        assert [d.partition for d in dropped] == ["audit_event_y2020m04", "audit_event_y2020m05"]
        left = set(partitions())
        assert "audit_event_y2020m04" not in left and "audit_event_y2020m05" not in left
        assert "audit_event_y2020m06" in left
        retention = ("SELECT actor_sub, actor_kind, resource_type, resource_id, reason FROM audit_event "
                     "WHERE action = 'audit.retention' ORDER BY resource_id")
        assert read_as_auditor(a, retention) == [
            ("service:audit-retention", "service", "audit_event", "audit_event_y2020m04", "retention_policy"),
            ("service:audit-retention", "service", "audit_event", "audit_event_y2020m05", "retention_policy")]
        assert read_as_auditor(b, retention) == [
            ("service:audit-retention", "service", "audit_event", "audit_event_y2020m04", "retention_policy")]
        assert read_as_auditor(quiet, retention) == []
        assert [action for action, _ in read_as_auditor(quiet)] == ["memory.list"]
        assert [action for action, _ in read_as_auditor(a) if action == "memory.list"] == []
    finally:
        drop_partitions("audit_event_y2020")


def test_the_command_creates_ahead_and_applies_the_policy(committed_db, settings, capsys):
    settings.AUDIT_RETENTION_MONTHS = 1200  # a century: nothing in the test database is that old
    call_command("audit_partitions", "--months-ahead", "4")
    out = capsys.readouterr().out
    assert "retention_months=1200 dropped=0" in out
    four_ahead = month_start(datetime.now(UTC), -4)
    assert f"audit_event_y{four_ahead:%Y}m{four_ahead:%m}" in partitions()
    settings.AUDIT_RETENTION_MONTHS = 0
    call_command("audit_partitions", "--dry-run")
    assert "retention_months=keep_all would_drop=0" in capsys.readouterr().out


def test_a_time_bounded_read_as_the_runtime_role_touches_only_its_months(committed_db):
    org = uuid.uuid4()
    with owner_connect() as conn:
        conn.execute("SELECT audit_event_add_partitions('2029-01-01', '2029-12-01')")
    try:
        with runtime_connect() as conn:
            for month in range(1, 13):
                append(conn, org, datetime(2029, month, 10, tzinfo=UTC))
        plan = "\n".join(r[0] for r in read_as_auditor(
            org, "EXPLAIN SELECT id FROM audit_event WHERE organization_id = %s AND occurred_at >= %s "
                 "AND occurred_at < %s ORDER BY occurred_at DESC LIMIT 50",
            [org, datetime(2029, 3, 1, tzinfo=UTC), datetime(2029, 5, 1, tzinfo=UTC)]))
        touched = {name for name in partitions() if name in plan}
        assert touched == {"audit_event_y2029m03", "audit_event_y2029m04"}, plan
        assert "Seq Scan" not in plan
    finally:
        drop_partitions("audit_event_y2029")


# --- the migration converts a populated trail ----------------------------------------------------------------------
FORWARD_DB = "anamnesis_audit_forward"
TRAIL_DIGEST = "SELECT count(*), md5(string_agg(t::text, ',' ORDER BY t.id)) FROM audit_event t"


def _manage(*args: str) -> None:
    from tests.test_migrate_forward import BASE_DIR, _environment

    env = {k: (v.replace("anamnesis_previous_release", FORWARD_DB) if isinstance(v, str) else v)
           for k, v in _environment().items()}
    done = subprocess.run([sys.executable, "manage.py", *args], cwd=BASE_DIR, env=env, capture_output=True,
                          text=True, timeout=300, check=False)
    assert done.returncode == 0, f"manage.py {' '.join(args)} failed:\n{done.stderr[-3000:]}"


@pytest.mark.slow
def test_the_migration_converts_a_populated_trail_without_losing_a_row_and_back(settings):
    topology = dataclasses.replace(settings.DB_TOPOLOGY,
                                   runtime=dataclasses.replace(settings.DB_TOPOLOGY.runtime, name=FORWARD_DB),
                                   owner=dataclasses.replace(settings.DB_TOPOLOGY.owner, name=FORWARD_DB))
    bootstrap(topology, drop_first=True)
    admin = topology.admin.conninfo(dbname=FORWARD_DB)
    try:
        _manage("migrate", "core", "0015_audit_codes_in_one_check_i12", "--database", "owner", "--verbosity", "0")
        with psycopg.connect(admin, autocommit=True) as conn:  # the superuser: no RLS, the triggers still check
            conn.execute(f"INSERT INTO audit_event ({COLUMNS}) SELECT gen_random_uuid(), "
                         "now() - g * interval '5 hours', (ARRAY[%s, %s]::uuid[])[1 + g %% 2], gen_random_uuid(), "
                         "'nurse-' || g, 'staff', 'memory.list', 'memory', 'success', 'req-' || g "
                         "FROM generate_series(0, 2999) g", [uuid.uuid4(), uuid.uuid4()])  # ~21 months back
            before = conn.execute(TRAIL_DIGEST).fetchone()
        _manage("migrate", "core", "--database", "owner", "--verbosity", "0")
        with psycopg.connect(admin, autocommit=True) as conn:
            assert conn.execute(TRAIL_DIGEST).fetchone() == before
            kind = conn.execute("SELECT relkind FROM pg_class WHERE oid = 'audit_event'::regclass").fetchone()[0]
            spread = conn.execute("SELECT count(DISTINCT tableoid), count(*) FILTER (WHERE tableoid = "
                                  "'audit_event_default'::regclass) FROM audit_event").fetchone()
        assert kind == "p"
        assert spread[0] >= 20 and spread[1] == 0  # every month in its own partition, none in the default
        _manage("migrate", "core", "0015_audit_codes_in_one_check_i12", "--database", "owner", "--verbosity", "0")
        with psycopg.connect(admin, autocommit=True) as conn:
            assert conn.execute(TRAIL_DIGEST).fetchone() == before
            assert conn.execute("SELECT relkind FROM pg_class WHERE oid = 'audit_event'::regclass").fetchone()[0] \
                == "r"
    finally:
        with psycopg.connect(topology.admin.conninfo(dbname="postgres"), autocommit=True) as conn:
            conn.execute(f"DROP DATABASE IF EXISTS {FORWARD_DB} WITH (FORCE)")
