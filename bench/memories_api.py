"""Benchmark ``GET /v1/patients/{id}/memories`` through the whole stack, against the same read in plain SQL.

    .venv/bin/python -m bench.memories_api [--patients 10000] [--per-patient 20] [--requests 2000]
                                           [--concurrency 8] [--reuse]

1. (Re)creates its own database ``anamnesis_bench`` (never ``anamnesis`` or ``anamnesis_test``), migrates
   it as the owner role and bulk-seeds it as the superuser: organisations, one granted scheduling consent per
   patient and ``--per-patient`` current memories each; ``--reuse`` keeps an existing seed of that size.
2. Starts a local JWKS server and the real service under gunicorn (runtime role, RLS, audit), on 127.0.0.1.
3. Sends ``--requests`` GETs with patient tokens over ``--concurrency`` keep-alive connections; checks every
   answer (200, ``--per-patient`` items, all of the requested patient).
4. Runs the same read over SQL as the runtime role (transaction-local identity, then the selector's query)
   with the same patients and threads, and shows EXPLAIN (ANALYZE, BUFFERS) for one patient.
5. Prints a summary and writes it to ``bench/results/memories_api.json``.
"""

from __future__ import annotations

from bench.bootstrap import ORIGINAL_ENV, setup_django
from bench.common import bench_db_name  # stdlib only: does not load Django

# anamnesis_bench unless BENCH_MEMORIES_DB names another anamnesis_bench* database (bench.scale's larger seeds)
DB_NAME = bench_db_name("BENCH_MEMORIES_DB", "anamnesis_bench")
setup_django(DB_NAME)

import argparse  # noqa: E402
import http.client  # noqa: E402
import json  # noqa: E402
import os  # noqa: E402
import platform  # noqa: E402
import random  # noqa: E402
import re  # noqa: E402
import subprocess  # noqa: E402
import sys  # noqa: E402
import threading  # noqa: E402
import time  # noqa: E402
import uuid  # noqa: E402
from collections.abc import Callable  # noqa: E402
from dataclasses import dataclass, field  # noqa: E402
from datetime import UTC, datetime  # noqa: E402
from pathlib import Path  # noqa: E402

import psycopg  # noqa: E402
from django.conf import settings  # noqa: E402
from django.core.management import call_command  # noqa: E402
from django.db import connections  # noqa: E402

from bench import common  # noqa: E402
from bench.common import free_port, log, percentile  # noqa: E402
from bench.tokens import AUDIENCE, ISSUER, PATIENT_SCOPES, JwksServer, SigningKey, mint  # noqa: E402
from core.bootstrap import bootstrap  # noqa: E402
from core.identity import ACTOR_PATIENT, Identity, identity_context  # noqa: E402
from memory.models import Memory  # noqa: E402
from memory.selectors import memory_list_current  # noqa: E402

BASE_DIR = Path(__file__).resolve().parent.parent
RESULTS_DIR = BASE_DIR / "bench" / "results"
PURPOSE = "appointment_scheduling"
HOST = "127.0.0.1"

# Same statement as core.identity._apply: transaction-local, read by the RLS policies.
SET_IDENTITY_SQL = (
    "SELECT set_config('app.org_id', %s, true), set_config('app.actor_sub', %s, true), "
    "set_config('app.patient_self_id', %s, true), set_config('app.scopes', %s, true)"
)

# The selector's query (memory.selectors.memory_list_current = MemoryQuerySet.current + for_patient + order),
# written out: the model's columns, the same LEFT JOIN on the consent, the same filters, ``now`` passed as a
# parameter as the ORM does. check_sql_matches_orm() proves both return the same rows in the same order.
CURRENT_MEMORIES_SQL = """
SELECT {columns}
  FROM patient_memory m
  LEFT OUTER JOIN patient_consent c ON m.consent_record_id = c.consent_record_id
 WHERE m.expires_at > %(now)s
   AND m.state = 'active'
   AND m.superseded_by IS NULL
   AND m.valid_from <= %(now)s
   AND (m.valid_until IS NULL OR m.valid_until > %(now)s)
   AND (m.consent_record_id IS NULL
        OR (c.revoked_at IS NULL AND c.status = 'granted'
            AND (c.expires_at IS NULL OR c.expires_at > %(now)s)))
   AND m.organization_id = %(org)s
   AND m.patient_id = %(patient)s
 ORDER BY m.memory_type, m.attribute, m.consent_purpose
""".replace("{columns}", ", ".join(f"m.{f.column}" for f in Memory._meta.concrete_fields))

# --- seeding (superuser, one transaction, set-based) -------------------------------------------------------
SEED_ORGS_SQL = """
INSERT INTO organization (id, name, created_at, trusted_issuers)
SELECT gen_random_uuid(), 'bench-org-' || g, now() - interval '400 days', ARRAY[%(issuer)s]
  FROM generate_series(1, %(orgs)s) AS g
"""

# Patients are spread round-robin over the organisations; each gets one granted consent for scheduling.
SEED_CONSENTS_SQL = """
WITH orgs AS (SELECT id, (row_number() OVER (ORDER BY id)) - 1 AS n FROM organization),
     patients AS (SELECT gen_random_uuid() AS patient_id, p FROM generate_series(0, %(patients)s - 1) AS p)
INSERT INTO patient_consent (consent_record_id, organization_id, patient_id, purpose, status, granted_at,
                             revoked_at, expires_at, evidence_ref, policy_revision, recorded_by, revoked_by,
                             created_at)
SELECT gen_random_uuid(), o.id, p.patient_id, %(purpose)s, 'granted', now() - interval '90 days',
       NULL, NULL, 'bench-seed', %(policy)s, 'patient-' || p.patient_id, NULL, now() - interval '90 days'
  FROM patients p JOIN orgs o ON o.n = mod(p.p, %(orgs)s)
"""

# Every memory of a patient is current, so each needs its own attribute (patient_memory_one_current is unique
# per organisation, patient, type, attribute and purpose among active, unsuperseded rows).
SEED_MEMORIES_SQL = """
INSERT INTO patient_memory (memory_id, organization_id, patient_id, memory_class, memory_type, attribute,
                            fact, fact_ciphertext, fact_key_id, state, source, source_ref, confidence,
                            policy_revision, consent_purpose, consent_record_id, valid_from, valid_until,
                            expires_at, review_by, superseded_by, created_by, created_at, updated_at)
SELECT gen_random_uuid(), c.organization_id, c.patient_id, 'preference', 'scheduling_preference',
       s.kind || '_' || lpad(k::text, 2, '0'),
       jsonb_build_object('kind', s.kind, 'time', s.at),
       NULL, NULL, 'active', 'patient_stated', 'bench:seed', 1,
       %(policy)s, c.purpose, c.consent_record_id, s.since, NULL,
       now() + interval '730 days', NULL, NULL, 'patient-' || c.patient_id, s.since, s.since
  FROM patient_consent c
 CROSS JOIN generate_series(1, %(per_patient)s) AS k
 CROSS JOIN LATERAL (
       SELECT now() - interval '30 days' - k * interval '1 minute' AS since,
              CASE WHEN mod(k, 2) = 1 THEN 'earliest_time' ELSE 'latest_time' END AS kind,
              CASE WHEN mod(k, 2) = 1 THEN lpad((7 + mod(k, 4))::text, 2, '0') || ':00'
                   ELSE (15 + mod(k, 4))::text || ':30' END AS at) AS s
 WHERE c.purpose = %(purpose)s AND c.status = 'granted'
"""

SEED_TABLES = ("organization", "patient_consent", "patient_memory")


# --- database preparation ----------------------------------------------------------------------------------
def admin_conninfo() -> str:
    return common.admin_conninfo(DB_NAME)


def check_topology() -> None:
    common.check_topology(DB_NAME)


def existing_seed(patients: int, per_patient: int) -> str | None:
    """None when the database already holds exactly this seed, otherwise why it cannot be reused."""
    with psycopg.connect(settings.DB_TOPOLOGY.admin.conninfo(dbname="postgres"), autocommit=True) as conn:
        if conn.execute("SELECT 1 FROM pg_database WHERE datname = %s", (DB_NAME,)).fetchone() is None:
            return "no database yet"
    with psycopg.connect(admin_conninfo(), autocommit=True) as conn:
        if conn.execute("SELECT to_regclass('public.patient_memory')").fetchone()[0] is None:
            return "not migrated"
        have_patients = conn.execute(
            "SELECT count(*) FROM patient_consent WHERE purpose = %s AND status = 'granted'",
            (PURPOSE,)).fetchone()[0]
        have_memories = conn.execute(
            "SELECT count(*) FROM patient_memory WHERE state = 'active' AND superseded_by IS NULL"
        ).fetchone()[0]
    if have_patients != patients or have_memories != patients * per_patient:
        return (f"it holds {have_patients} patients / {have_memories} memories, "
                f"wanted {patients} / {patients * per_patient}")
    return None


def prepare_database(args) -> float | None:
    """Make anamnesis_bench ready; returns the seeding time in seconds, or None when a seed is kept."""
    for conn in connections.all():
        conn.close()
    if args.reuse:
        why_not = existing_seed(args.patients, args.per_patient)
        if why_not is None:
            bootstrap(settings.DB_TOPOLOGY, drop_first=False)
            call_command("migrate", database="owner", verbosity=0)
            connections["owner"].close()
            log(f"reusing the seeded database {DB_NAME}")
            return None
        log(f"--reuse: cannot keep {DB_NAME} ({why_not}); reseeding")
    started = time.perf_counter()
    bootstrap(settings.DB_TOPOLOGY, drop_first=True)
    call_command("migrate", database="owner", verbosity=0)
    connections["owner"].close()
    log(f"created and migrated {DB_NAME} in {time.perf_counter() - started:.1f}s")
    return seed(args)


def seed(args) -> float:
    params = {"orgs": args.orgs, "patients": args.patients, "per_patient": args.per_patient,
              "purpose": PURPOSE, "policy": settings.MEMORY_POLICY_REVISION, "issuer": ISSUER}
    started = time.perf_counter()
    with psycopg.connect(admin_conninfo()) as conn:
        conn.execute("SET synchronous_commit = off")  # the seed is reproducible; only the load is measured
        for table, statement in zip(SEED_TABLES, (SEED_ORGS_SQL, SEED_CONSENTS_SQL, SEED_MEMORIES_SQL),
                                    strict=True):
            t0 = time.perf_counter()
            rows = conn.execute(statement, params).rowcount
            log(f"  seeded {rows:>9,} rows into {table:<16} {time.perf_counter() - t0:6.1f}s")
        conn.commit()
    inserted = time.perf_counter() - started
    with psycopg.connect(admin_conninfo(), autocommit=True) as conn:
        t0 = time.perf_counter()
        # VACUUM sets hint bits and the visibility map, so the measured reads do not pay for the bulk load.
        conn.execute("VACUUM (ANALYZE) " + ", ".join(SEED_TABLES))
        log(f"  VACUUM (ANALYZE) {time.perf_counter() - t0:.1f}s")
    total = time.perf_counter() - started
    log(f"seeded {args.patients:,} patients x {args.per_patient} memories in {total:.1f}s "
        f"(inserts {inserted:.1f}s)")
    return total


def load_patients() -> list[tuple[uuid.UUID, uuid.UUID]]:
    with psycopg.connect(admin_conninfo(), autocommit=True) as conn:
        rows = conn.execute("SELECT organization_id, patient_id FROM patient_consent "
                            "WHERE purpose = %s AND status = 'granted' ORDER BY patient_id",
                            (PURPOSE,)).fetchall()
    return [(org, patient) for org, patient in rows]


def database_facts() -> dict:
    with psycopg.connect(admin_conninfo(), autocommit=True) as conn:
        size = conn.execute("SELECT pg_total_relation_size('patient_memory')").fetchone()[0]
        version = conn.execute("SHOW server_version").fetchone()[0]
        memories = conn.execute("SELECT count(*) FROM patient_memory").fetchone()[0]
    return {"server_version": version, "patient_memory_rows": memories,
            "patient_memory_total_mb": round(size / 2**20, 1)}


def audit_rows_since(since: datetime) -> int:
    with psycopg.connect(admin_conninfo(), autocommit=True) as conn:
        return conn.execute("SELECT count(*) FROM audit_event "
                            "WHERE action = 'memory.list' AND occurred_at >= %s", (since,)).fetchone()[0]


# --- load driver -------------------------------------------------------------------------------------------
@dataclass
class Run:
    latencies_ms: list[float] = field(default_factory=list)
    failures: list[str] = field(default_factory=list)
    wall_s: float = 0.0

    @property
    def ok(self) -> int:
        return len(self.latencies_ms)

    def summary(self) -> dict:
        lat = sorted(self.latencies_ms)
        return {
            "ok": self.ok, "failed": len(self.failures), "wall_s": round(self.wall_s, 2),
            "per_s": round(self.ok / self.wall_s, 1) if self.wall_s else 0.0,
            "mean_ms": round(sum(lat) / len(lat), 2) if lat else None,
            "p50_ms": percentile(lat, 50), "p95_ms": percentile(lat, 95), "p99_ms": percentile(lat, 99),
            "max_ms": round(lat[-1], 2) if lat else None,
        }


def drive(count: int, sessions: list, op: Callable[[object, int], tuple[float, str | None]]) -> Run:
    """Run op(session, i) for i in range(count), one thread per session; op returns (latency_ms, problem)."""
    run = Run()
    lock = threading.Lock()
    next_index = iter(range(count))

    def worker(session) -> None:
        while True:
            with lock:
                i = next(next_index, None)
            if i is None:
                return
            try:
                latency, problem = op(session, i)
            except Exception as exc:  # a broken connection or a bad answer: count it, keep going
                latency, problem = 0.0, f"{type(exc).__name__}: {exc}"
            with lock:
                if problem is None:
                    run.latencies_ms.append(latency)
                else:
                    run.failures.append(problem)

    threads = [threading.Thread(target=worker, args=(s,), daemon=True) for s in sessions]
    started = time.perf_counter()
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    run.wall_s = time.perf_counter() - started
    return run


# --- HTTP side ---------------------------------------------------------------------------------------------
class HttpSession:
    """One keep-alive connection to the service; reconnects once if the server closed it."""

    def __init__(self, port: int) -> None:
        self.port = port
        self.conn = http.client.HTTPConnection(HOST, port, timeout=30)
        self.reconnects = 0

    def get(self, path: str, token: str | None = None) -> tuple[int, bytes]:
        return self.request("GET", path, token)

    def post(self, path: str, body: dict, token: str | None = None) -> tuple[int, bytes]:
        return self.request("POST", path, token, json.dumps(body).encode())

    def request(self, method: str, path: str, token: str | None = None,
                body: bytes | None = None) -> tuple[int, bytes]:
        headers = {"Accept": "application/json"}
        if token is not None:
            headers["Authorization"] = f"Bearer {token}"
        if body is not None:
            headers["Content-Type"] = "application/json"
        for attempt in (1, 2):
            try:
                self.conn.request(method, path, body=body, headers=headers)
                response = self.conn.getresponse()
                return response.status, response.read()
            except (http.client.RemoteDisconnected, ConnectionResetError, BrokenPipeError):
                self.conn.close()
                if attempt == 2:
                    raise
                self.reconnects += 1
                self.conn = http.client.HTTPConnection(HOST, self.port, timeout=30)
        raise AssertionError("unreachable")

    def reopen(self) -> None:
        """A new connection, accepted by whichever worker is quickest (the liveness call makes sure of it)."""
        self.conn.close()
        self.conn = http.client.HTTPConnection(HOST, self.port, timeout=30)
        self.get("/health/live")

    def local_port(self) -> int | None:
        return self.conn.sock.getsockname()[1] if self.conn.sock is not None else None

    def close(self) -> None:
        self.conn.close()


# --- which gunicorn worker holds which keep-alive connection (Linux /proc; best effort) ----------------------
# A gthread worker keeps every connection it accepted, so 8 keep-alive clients can all land on one worker of two
# and leave the other idle: throughput then depends on the luck of accept(). These helpers see the split and
# let the benchmark even it out before measuring.
def worker_pids(master_pid: int) -> list[int]:
    pids = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[1]) == master_pid:  # fields[0] is the state, fields[1] the parent pid
            pids.append(int(stat.parent.name))
    return sorted(pids)


def connection_owners(master_pid: int, port: int) -> dict[int, int] | None:
    """Client port -> worker pid, for established connections to the service; None without /proc."""
    try:
        by_inode: dict[str, int] = {}
        for pid in worker_pids(master_pid):
            for fd in Path(f"/proc/{pid}/fd").iterdir():
                try:
                    target = os.readlink(fd)
                except OSError:
                    continue
                if target.startswith("socket:["):
                    by_inode[target[8:-1]] = pid
        owners = {}
        for line in Path("/proc/net/tcp").read_text().splitlines()[1:]:
            cols = line.split()
            local_port = int(cols[1].rsplit(":", 1)[1], 16)
            remote_port = int(cols[2].rsplit(":", 1)[1], 16)
            if cols[3] == "01" and local_port == port and cols[9] in by_inode:  # 01 = ESTABLISHED
                owners[remote_port] = by_inode[cols[9]]
        return owners
    except (OSError, ValueError, IndexError):
        return None


def split(master_pid: int, port: int, sessions: list[HttpSession]) -> list[int] | None:
    """How many of the sessions each worker holds, busiest first."""
    owners = connection_owners(master_pid, port)
    if owners is None:
        return None
    counts = dict.fromkeys(worker_pids(master_pid), 0)
    for s in sessions:
        pid = owners.get(s.local_port())
        if pid is not None:
            counts[pid] = counts.get(pid, 0) + 1
    return sorted(counts.values(), reverse=True)


def balance(master_pid: int, port: int, sessions: list[HttpSession],
            budget_s: float = 15.0) -> tuple[list[int] | None, int]:
    """Reopen connections held by the busiest worker until the split is even or the time budget is spent.

    Returns the split and the number of reopened connections. A worker that is still booting accepts nothing,
    hence the pauses and a time budget rather than a fixed number of tries.
    """
    reopened = 0
    deadline = time.monotonic() + budget_s
    while time.monotonic() < deadline:
        owners = connection_owners(master_pid, port)
        if owners is None:
            return None, reopened
        counts = dict.fromkeys(worker_pids(master_pid), 0)
        held: dict[int, list[HttpSession]] = {}
        for s in sessions:
            pid = owners.get(s.local_port())
            if pid is not None:
                counts[pid] = counts.get(pid, 0) + 1
                held.setdefault(pid, []).append(s)
        busiest = max(counts, key=counts.get)
        if max(counts.values()) - min(counts.values()) <= 1 or busiest not in held:
            break
        held[busiest][0].reopen()
        reopened += 1
        time.sleep(0.02)
    return split(master_pid, port, sessions), reopened


def start_service(args, jwks_url: str, log_path: Path) -> tuple[subprocess.Popen, int, object]:
    port = free_port()
    env = dict(ORIGINAL_ENV)
    env.update({
        "DJANGO_SETTINGS_MODULE": "config.settings", "ANAMNESIS_DB_NAME": DB_NAME,
        "OIDC_JWKS_URL": jwks_url, "OIDC_ISSUER": ISSUER, "OIDC_AUDIENCE": AUDIENCE, "LOG_LEVEL": "WARNING",
        # the limiter's statement is measured, its limits are not reached
        "API_RATE_LIMIT_PER_SUBJECT": "1000000000", "API_RATE_LIMIT_PER_ORGANIZATION": "1000000000",
    })
    argv = [sys.executable, "-m", "gunicorn", "config.wsgi:application", "--bind", f"{HOST}:{port}",
            "--workers", str(args.workers), "--threads", str(args.threads), "--graceful-timeout", "10"]
    log_file = open(log_path, "w")  # closed by stop_service
    proc = subprocess.Popen(argv, cwd=BASE_DIR, env=env, stdout=log_file, stderr=subprocess.STDOUT)
    common.wait_until_ready(proc, port, log_file, log_path, args.startup_timeout, stop_service, name="gunicorn")
    return proc, port, log_file


def worker_stats(master_pid: int) -> list[tuple[int, float, float]]:
    """(pid, resident MB, CPU seconds) of each gunicorn worker (Linux /proc)."""
    stats = []
    try:
        children = Path(f"/proc/{master_pid}/task/{master_pid}/children").read_text().split()
    except OSError:
        return stats
    ticks = os.sysconf("SC_CLK_TCK")
    for pid in map(int, children):
        try:
            rss_kb = next(int(line.split()[1]) for line in Path(f"/proc/{pid}/status").read_text().splitlines()
                          if line.startswith("VmRSS:"))
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
            stats.append((pid, round(rss_kb / 1024, 1), (int(fields[11]) + int(fields[12])) / ticks))
        except (OSError, StopIteration, IndexError, ValueError):
            continue
    return stats


def stop_service(proc: subprocess.Popen, log_file) -> int | None:
    if proc.poll() is None:
        proc.terminate()  # SIGTERM: gunicorn's graceful shutdown of its workers
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=10)
    log_file.close()
    return proc.returncode


def api_op(plan, tokens, per_patient: int):
    def op(session: HttpSession, i: int) -> tuple[float, str | None]:
        org, patient = plan[i]
        t0 = time.perf_counter()
        status, body = session.get(f"/v1/patients/{patient}/memories", tokens[patient])
        latency = (time.perf_counter() - t0) * 1000
        if status != 200:
            return latency, f"HTTP {status}: {body[:200]!r}"
        items = json.loads(body)["items"]
        if len(items) != per_patient:
            return latency, f"{len(items)} items instead of {per_patient}"
        if any(item["patient_id"] != str(patient) for item in items):
            return latency, "an item of another patient"
        return latency, None
    return op


# --- SQL side ----------------------------------------------------------------------------------------------
def identity_params(org: uuid.UUID, patient: uuid.UUID) -> tuple[str, str, str, str]:
    """What identity_context would set for this patient's token (scopes sorted and space separated)."""
    return str(org), f"patient-{patient}", str(patient), " ".join(sorted(PATIENT_SCOPES.split()))


def runtime_connect() -> psycopg.Connection:
    return psycopg.connect(settings.DB_TOPOLOGY.runtime.conninfo(), autocommit=True)


def sql_op(plan, per_patient: int):
    def op(conn: psycopg.Connection, i: int) -> tuple[float, str | None]:
        org, patient = plan[i]
        t0 = time.perf_counter()
        with conn.transaction():
            conn.execute(SET_IDENTITY_SQL, identity_params(org, patient))
            rows = conn.execute(CURRENT_MEMORIES_SQL,
                                {"now": datetime.now(UTC), "org": org, "patient": patient}).fetchall()
        latency = (time.perf_counter() - t0) * 1000
        if len(rows) != per_patient:
            return latency, f"{len(rows)} rows instead of {per_patient}"
        return latency, None
    return op


def check_sql_matches_orm(org: uuid.UUID, patient: uuid.UUID) -> int:
    """The hand-written SQL returns exactly what the API's selector returns, in the same order."""
    identity = Identity(org_id=org, actor_sub=f"patient-{patient}", patient_self_id=patient,
                        scopes=frozenset(PATIENT_SCOPES.split()), actor_kind=ACTOR_PATIENT)
    with identity_context(identity):
        orm_ids = list(memory_list_current(identity=identity, patient_id=patient)
                       .values_list("memory_id", flat=True))
    connections["default"].close()
    with runtime_connect() as conn, conn.transaction():
        conn.execute(SET_IDENTITY_SQL, identity_params(org, patient))
        sql_ids = [r[0] for r in conn.execute(CURRENT_MEMORIES_SQL,
                                              {"now": datetime.now(UTC), "org": org, "patient": patient})]
    if orm_ids != sql_ids:
        raise RuntimeError("the SQL baseline and the ORM selector disagree "
                           f"({len(sql_ids)} vs {len(orm_ids)} rows)")
    return len(sql_ids)


def explain(org: uuid.UUID, patient: uuid.UUID) -> tuple[str, dict]:
    with runtime_connect() as conn, conn.transaction():
        conn.execute(SET_IDENTITY_SQL, identity_params(org, patient))
        cur = psycopg.ClientCursor(conn)  # literal parameters, so EXPLAIN sees a plain statement
        params = {"now": datetime.now(UTC), "org": org, "patient": patient}
        cur.execute("EXPLAIN (ANALYZE, BUFFERS) " + CURRENT_MEMORIES_SQL, params)  # warm the plan cache
        cur.execute("EXPLAIN (ANALYZE, BUFFERS) " + CURRENT_MEMORIES_SQL, params)
        plan = "\n".join(row[0] for row in cur.fetchall())
    indexes = sorted(set(re.findall(r"(?:Index Scan|Index Only Scan|Bitmap Index Scan)(?: Backward)? "
                                    r"(?:using|on) (\w+)", plan)))
    execution = re.search(r"Execution Time: ([\d.]+) ms", plan)
    planning = re.search(r"Planning Time: ([\d.]+) ms", plan)
    return plan, {
        "indexes": indexes,
        "seq_scan_on_patient_memory": bool(re.search(r"Seq Scan on patient_memory", plan)),
        "planning_ms": float(planning.group(1)) if planning else None,
        "execution_ms": float(execution.group(1)) if execution else None,
    }


# --- main --------------------------------------------------------------------------------------------------
def positive(value: str) -> int:
    number = int(value)
    if number < 1:
        raise argparse.ArgumentTypeError("must be at least 1")
    return number


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(prog="python -m bench.memories_api", description=__doc__.split("\n")[0])
    p.add_argument("--patients", type=positive, default=10_000)
    p.add_argument("--per-patient", type=positive, default=20, help="current memories per patient")
    p.add_argument("--orgs", type=positive, default=10, help="organisations the patients are spread over")
    p.add_argument("--requests", type=positive, default=2000, help="measured requests (and SQL queries)")
    p.add_argument("--warmup", type=int, default=50, help="unmeasured requests/queries before each phase")
    p.add_argument("--concurrency", type=positive, default=8, help="client threads (keep-alive connections)")
    p.add_argument("--workers", type=positive, default=2, help="gunicorn workers")
    p.add_argument("--threads", type=positive, default=4, help="gunicorn threads per worker")
    p.add_argument("--no-balance", dest="balance", action="store_false",
                   help="measure with however accept() spread the keep-alive connections over the workers")
    p.add_argument("--reuse", action="store_true", help="keep anamnesis_bench if it already holds this seed")
    p.add_argument("--seed", type=int, default=1, help="random seed for the choice of patients")
    p.add_argument("--startup-timeout", type=float, default=60.0)
    p.add_argument("--output", type=Path, default=RESULTS_DIR / "memories_api.json")
    args = p.parse_args(argv)
    if args.per_patient > 99:
        p.error("--per-patient is at most 99")
    if args.orgs > args.patients:
        p.error("--orgs may not exceed --patients")
    return args


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    check_topology()
    RESULTS_DIR.mkdir(parents=True, exist_ok=True)
    log(f"benchmark database {DB_NAME}: {args.patients:,} patients x {args.per_patient} memories, "
        f"{args.orgs} organisations")
    seed_seconds = prepare_database(args)
    patients = load_patients()
    facts = database_facts()
    log(f"patient_memory: {facts['patient_memory_rows']:,} rows, {facts['patient_memory_total_mb']} MB "
        "with indexes")

    rng = random.Random(args.seed)
    plan = [rng.choice(patients) for _ in range(args.requests)]
    warmup = [rng.choice(patients) for _ in range(max(args.warmup, 0))]
    matched = check_sql_matches_orm(*plan[0])
    log(f"the SQL baseline returns the same {matched} rows, in the same order, as the API's selector")

    keys = SigningKey()
    t0 = time.perf_counter()
    tokens = {patient: mint(keys, sub=f"patient-{patient}", org_id=org, patient_id=patient,
                            scope=PATIENT_SCOPES, exp_in=3600)
              for org, patient in plan + warmup}
    log(f"minted {len(tokens):,} RS256 patient tokens in {time.perf_counter() - t0:.1f}s (not measured)")

    jwks = JwksServer(keys)
    log_path = RESULTS_DIR / "gunicorn.log"
    proc = log_file = None
    try:
        t0 = time.perf_counter()
        proc, port, log_file = start_service(args, jwks.url, log_path)
        log(f"gunicorn ({args.workers} workers x {args.threads} threads) ready on {HOST}:{port} "
            f"in {time.perf_counter() - t0:.1f}s; JWKS at {jwks.url}")

        audit_since = datetime.now(UTC)
        sessions = [HttpSession(port) for _ in range(args.concurrency)]
        try:
            warm = drive(len(warmup), sessions, api_op(warmup, tokens, args.per_patient))
            for s in sessions:
                if s.local_port() is None:  # fewer warm-up calls than threads: connect the rest now
                    s.get("/health/live")
            split_before = split(proc.pid, port, sessions)
            split_used, reopened = (balance(proc.pid, port, sessions) if args.balance
                                    else (split_before, 0))
            log(f"API warm-up: {warm.ok}/{len(warmup)} ok; keep-alive connections per worker {split_before}"
                + (f", rebalanced to {split_used} ({reopened} reopened)" if reopened else ""))
            cpu_before = sum(cpu for _, _, cpu in worker_stats(proc.pid))
            api = drive(args.requests, sessions, api_op(plan, tokens, args.per_patient))
            workers_after = worker_stats(proc.pid)
            cpu_ms_per_request = round((sum(cpu for _, _, cpu in workers_after) - cpu_before) * 1000
                                       / max(api.ok, 1), 2)
            split_after = split(proc.pid, port, sessions)
        finally:
            for s in sessions:
                s.close()
        reconnects = sum(s.reconnects for s in sessions)
        log(f"API: {api.ok}/{args.requests} ok in {api.wall_s:.1f}s")
    finally:
        gunicorn_rc = stop_service(proc, log_file) if proc is not None else None
        jwks.stop()
    log(f"gunicorn stopped (exit {gunicorn_rc}); JWKS server stopped after {jwks.hits} fetch(es)")
    audited = audit_rows_since(audit_since)

    conns = [runtime_connect() for _ in range(args.concurrency)]
    try:
        drive(len(warmup), conns, sql_op(warmup, args.per_patient))
        sql = drive(args.requests, conns, sql_op(plan, args.per_patient))
    finally:
        for c in conns:
            c.close()
    log(f"SQL: {sql.ok}/{args.requests} ok in {sql.wall_s:.1f}s")

    plan_text, plan_facts = explain(*plan[0])
    log("\nEXPLAIN (ANALYZE, BUFFERS) as the runtime role, one patient:\n" + plan_text + "\n")

    api_s, sql_s = api.summary(), sql.summary()
    expected_audit = api.ok + warm.ok
    problems = [*api.failures, *warm.failures, *sql.failures]
    result = {
        "benchmark": "memories_api",
        "at": datetime.now(UTC).isoformat(timespec="seconds"),
        "machine": {"cpus": os.cpu_count(), "python": platform.python_version(), **facts},
        "dataset": {"database": DB_NAME, "patients": len(patients), "per_patient": args.per_patient,
                    "orgs": args.orgs, "seed_s": round(seed_seconds, 1) if seed_seconds is not None else None,
                    "reused": seed_seconds is None},
        "load": {"requests": args.requests, "warmup": len(warmup), "concurrency": args.concurrency,
                 "distinct_patients": len({p for _, p in plan}), "gunicorn_workers": args.workers,
                 "gunicorn_threads": args.threads},
        "api": {**api_s, "reconnects": reconnects, "connections_per_worker": {
                    "after_warmup": split_before, "measured": split_used, "at_end": split_after},
                "worker_rss_mb": [rss for _, rss, _ in workers_after],
                "worker_cpu_ms_per_request": cpu_ms_per_request,
                "audit_rows": audited,
                "audit_rows_expected": expected_audit, "jwks_fetches": jwks.hits},
        "sql": sql_s,
        "ratio_api_over_sql": {
            "p50": round(api_s["p50_ms"] / sql_s["p50_ms"], 2) if sql_s["p50_ms"] else None,
            "throughput": round(api_s["per_s"] / sql_s["per_s"], 3) if sql_s["per_s"] else None,
        },
        "explain": plan_facts,
        "failures_sample": problems[:5],
    }
    args.output.parent.mkdir(parents=True, exist_ok=True)
    args.output.write_text(json.dumps(result, indent=2) + "\n")
    print_summary(result)
    log(f"written to {args.output}")
    ok = not problems and audited == expected_audit and not plan_facts["seq_scan_on_patient_memory"]
    if audited != expected_audit:
        log(f"WARNING: {audited} memory.list audit rows, expected {expected_audit}")
    return 0 if ok else 1


def print_summary(r: dict) -> None:
    d, ld, a, s, x, e = r["dataset"], r["load"], r["api"], r["sql"], r["ratio_api_over_sql"], r["explain"]
    seed = "reused" if d["reused"] else f"{d['seed_s']}s"
    lines = [
        "=== memories_api summary " + "=" * 40,
        f"data      {d['patients']:,} patients x {d['per_patient']} memories, {d['orgs']} orgs, "
        f"{r['machine']['patient_memory_total_mb']} MB; seed {seed}",
        f"load      {ld['requests']} requests, {ld['concurrency']} threads, "
        f"{ld['distinct_patients']} patients; gunicorn {ld['gunicorn_workers']}x{ld['gunicorn_threads']}; "
        f"{r['machine']['cpus']} CPUs",
        f"API       {a['per_s']:>8} req/s  p50 {a['p50_ms']} ms  p95 {a['p95_ms']} ms  p99 {a['p99_ms']} ms  "
        f"ok {a['ok']} failed {a['failed']}",
        f"SQL       {s['per_s']:>8} q/s    p50 {s['p50_ms']} ms  p95 {s['p95_ms']} ms  p99 {s['p99_ms']} ms  "
        f"ok {s['ok']} failed {s['failed']}",
        f"API/SQL   p50 x{x['p50']}  throughput x{x['throughput']}",
        f"workers   resident MB {a['worker_rss_mb']}; worker CPU {a['worker_cpu_ms_per_request']} ms per request",
        f"workers   keep-alive connections per worker {a['connections_per_worker']['measured']} "
        f"(after warm-up {a['connections_per_worker']['after_warmup']})",
        f"audit     {a['audit_rows']} memory.list rows (expected {a['audit_rows_expected']}); "
        f"JWKS fetches {a['jwks_fetches']}",
        f"plan      indexes {', '.join(e['indexes']) or 'none'}; execution {e['execution_ms']} ms; "
        f"seq scan on patient_memory: {e['seq_scan_on_patient_memory']}",
    ]
    if r["failures_sample"]:
        lines.append(f"failures  {r['failures_sample']}")
    lines.append("=" * 65)
    log("\n".join(lines))


if __name__ == "__main__":
    sys.exit(main())
