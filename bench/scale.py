"""Cost growth: the memory list read at two sizes (10,000 and 100,000 patients x 20 memories, i.e. 200,000 and
2,000,000 rows), and the plans of the hot queries as the runtime role at each size.

    .venv/bin/python -m bench.scale                 # 10,000 vs 100,000 patients, 2 alternating rounds
    .venv/bin/python -m bench.scale --quick         # 1,000 vs 10,000 patients, 1 round, fewer requests

1. For each size, runs ``python -m bench.memories_api --reuse`` (its seeding, load driver, SQL baseline and checks;
   nothing re-implemented) in its own database: ``anamnesis_bench`` for 10,000 patients (the one memories_api and
   ../shared/tools/api-ratio use), ``anamnesis_bench_p<N>`` for any other size. The seed is bulk SQL
   (INSERT ... SELECT over generate_series, one transaction, then VACUUM ANALYZE) and is kept between runs.
   The sizes alternate for ``--rounds`` rounds, so both see the same machine; each size's p99 is the median of its
   rounds.
2. Adds what the plans need and the list seed lacks (SEED_PLAN_EXTRAS: one appointment-booking workflow and one
   vector per patient), then EXPLAIN (ANALYZE, BUFFERS) as the runtime role, in a transaction with the patient's
   identity set as the service sets it, with literal parameters as Django sends them: the list read (the selector's
   queryset, and the API's one-round-trip variant when the selector module has it), a memory read by id, the
   search's deterministic filter query (``memory.retrieval.candidates.candidates``) and the checkpoint's workflow
   lookup (``SELECT ... FOR UPDATE``). SQL comes from the service's own querysets, so it follows the service's changes.
3. Prints p50/p99 side by side with the ratio, the plans' indexes, and writes ``bench/results/scale.json``.
   Exits 1 when a memories_api run fails, or a plan scans a patient-scoped table sequentially or reaches its main
   table without an index. The 1.5x ratio is reported (bench.summary), not enforced: figures on a shared 2-core box
   are noisy.
"""

from __future__ import annotations

from bench.bootstrap import ORIGINAL_ENV, setup_django

SMALL_DB = "anamnesis_bench"  # memories_api's default database, seeded at 10,000 patients
setup_django(SMALL_DB)  # this process only builds SQL; EXPLAIN connects to each size's database

import argparse  # noqa: E402
import json  # noqa: E402
import os  # noqa: E402
import re  # noqa: E402
import statistics  # noqa: E402
import subprocess  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402
import uuid  # noqa: E402
from datetime import UTC, datetime, timedelta  # noqa: E402
from pathlib import Path  # noqa: E402

import psycopg  # noqa: E402
from django.conf import settings  # noqa: E402
from django.db import connections, transaction  # noqa: E402
from django.db.models import Q  # noqa: E402

from bench import common  # noqa: E402
from bench.common import log  # noqa: E402
from bench.tokens import PATIENT_SCOPES  # noqa: E402
from core.identity import ACTOR_PATIENT, Identity  # noqa: E402
from core.models import AuditEvent  # noqa: E402
from memory import selectors  # noqa: E402
from memory.models import Memory  # noqa: E402
from memory.retrieval.candidates import candidates  # noqa: E402
from memory.retrieval.vectors import vector_model  # noqa: E402
from workflows.models import Workflow  # noqa: E402

BASE_DIR = Path(__file__).resolve().parent.parent
RESULTS_DIR = BASE_DIR / "bench" / "results"
PURPOSE = "appointment_scheduling"

# What the plans need besides memories_api's seed; set-based, as the superuser, idempotent (only into empty tables).
# One place to adapt when patient-scoped keys change (e.g. organization_id in composite keys).
SEED_PLAN_EXTRAS = {
    "agent_workflow": """
        INSERT INTO agent_workflow (workflow_id, organization_id, patient_id, workflow_type, purpose, current_step,
                                    state, version, created_by, created_at, updated_at)
        SELECT gen_random_uuid(), organization_id, patient_id, 'appointment_booking', purpose, 'collect_preferences',
               '{}', 1, 'bench-scale', now(), now()
          FROM patient_consent WHERE purpose = %(purpose)s AND status = 'granted'""",
    # one vector per patient (the first memory in list order); the values do not matter to a plan
    "memory_embedding": """
        INSERT INTO memory_embedding (memory_id, organization_id, patient_id, purpose, model, embedding, created_at)
        SELECT DISTINCT ON (m.patient_id) m.memory_id, m.organization_id, m.patient_id, m.consent_purpose,
               %(model)s, array_fill(0.05::real, ARRAY[%(dims)s])::vector, now()
          FROM patient_memory m ORDER BY m.patient_id, m.memory_type, m.attribute""",
}
VECTOR_DIMS = 384

# The identity as the service sets it (core.identity): transaction-local settings read by the RLS policies.
SET_IDENTITY_SQL = (
    "SELECT set_config('app.org_id', %s, true), set_config('app.actor_sub', %s, true), "
    "set_config('app.patient_self_id', %s, true), set_config('app.scopes', %s, true), "
    "set_config('app.service_patient_id', '', true), set_config('app.service_purpose', '', true)"
)
# Tables whose rows grow with patients: a plan may never scan them sequentially.
PATIENT_TABLES = ("patient_memory", "patient_consent", "memory_embedding", "agent_workflow",
                  "agent_workflow_transition", "audit_event", "memory_lifecycle_event", "memory_representation")


def db_for(patients: int) -> str:
    return SMALL_DB if patients == 10_000 else f"anamnesis_bench_p{patients}"


# --- memories_api at one size ----------------------------------------------------------------------------------
def run_memories_api(args, patients: int, round_no: int) -> dict:
    output = args.output.parent / f"scale_{patients}_r{round_no}.json"
    env = dict(ORIGINAL_ENV, BENCH_MEMORIES_DB=db_for(patients))
    env.pop("ANAMNESIS_DB_NAME", None)
    argv = [sys.executable, "-m", "bench.memories_api", "--patients", str(patients), "--per-patient",
            str(args.per_patient), "--requests", str(args.requests), "--warmup", str(args.warmup),
            "--concurrency", str(args.concurrency), "--reuse", "--output", str(output)]
    log(f"--- round {round_no}: {patients:,} patients ({db_for(patients)}): {' '.join(argv[1:])}")
    t0 = time.perf_counter()
    proc = subprocess.Popen(argv, cwd=BASE_DIR, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    tail: list[str] = []
    for line in proc.stdout:  # as it comes: seeding 2M rows takes minutes
        tail = [*tail[-60:], line.rstrip()]
        if re.match(r"(=== memories_api|data |API |SQL |API/SQL|plan |seeded|\s+seeded|\s+VACUUM|--reuse)", line):
            log("  " + line.rstrip())
    returncode = proc.wait()
    if returncode != 0 or not output.exists():
        log("\n".join(tail))
        return {"patients": patients, "round": round_no, "exit": returncode, "seconds": None}
    r = json.loads(output.read_text())
    return {"patients": patients, "round": round_no, "exit": returncode,
            "seconds": round(time.perf_counter() - t0, 1), "seed_s": r["dataset"]["seed_s"],
            "rows": r["machine"]["patient_memory_rows"], "table_mb": r["machine"]["patient_memory_total_mb"],
            "api": {k: r["api"][k] for k in ("per_s", "p50_ms", "p95_ms", "p99_ms", "ok", "failed")},
            "sql": {k: r["sql"][k] for k in ("per_s", "p50_ms", "p95_ms", "p99_ms")},
            "worker_rss_mb": r["api"]["worker_rss_mb"], "list_plan": r["explain"]}


# --- search at one size: bench.retrieval_api's own seed, load and checks --------------------------------------------
def search_db_for(patients: int) -> str:
    return f"anamnesis_bench_retrieval_p{patients}"


def run_retrieval_api(args, patients: int, round_no: int) -> dict:
    """``python -m bench.retrieval_api --reuse`` at this size; its ``api.serial`` p50 (one connection, every
    question new) is the search goal's figure."""
    output = args.output.parent / f"scale_search_{patients}_r{round_no}.json"
    env = dict(ORIGINAL_ENV, BENCH_RETRIEVAL_DB=search_db_for(patients))
    env.pop("ANAMNESIS_DB_NAME", None)
    argv = [sys.executable, "-m", "bench.retrieval_api", "--patients", str(patients), "--reuse",
            "--requests", str(args.search_requests), "--serial", str(args.search_serial),
            "--service-runs", "20", "--singles", "10", "--batches", "1", "--main-singles", "5",
            "--main-batches", "1", "--output", str(output)]
    log(f"--- round {round_no}: search at {patients:,} patients ({search_db_for(patients)}): {' '.join(argv[1:])}")
    t0 = time.perf_counter()
    proc = subprocess.run(argv, cwd=BASE_DIR, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                          check=False)
    if proc.returncode != 0 or not output.exists():
        log("\n".join(proc.stdout.splitlines()[-60:]))
        return {"patients": patients, "round": round_no, "exit": proc.returncode, "seconds": None}
    r = json.loads(output.read_text())
    serial, warm = r["api"]["serial"], r["api"]["serial_warm"]
    log(f"  search p50 {serial['p50_ms']} ms (new questions), {warm['p50_ms']} ms (repeated) over one connection")
    return {"patients": patients, "round": round_no, "exit": proc.returncode,
            "seconds": round(time.perf_counter() - t0, 1),
            "serial": {k: serial[k] for k in ("p50_ms", "p95_ms", "p99_ms", "ok", "failed")},
            "serial_warm": {k: warm[k] for k in ("p50_ms", "p95_ms", "p99_ms", "ok", "failed")},
            "candidates_plan": {k: r["explain"].get(k) for k in ("patient_index_used", "seq_scans")}}


# --- the audit trail at two volumes -------------------------------------------------------------------------------
AUDIT_MONTHS = 12
# Bulk rows in the last AUDIT_MONTHS months, marked by their actor so a rerun tops up instead of doubling. The
# planned patient is busy (every 50th of the first 100,000 rows: 2,000 events) and stays so as the trail grows: what
# must stay flat is a read while *other* rows accumulate.
SEED_AUDIT_SQL = """
    WITH p AS (SELECT row_number() OVER (ORDER BY patient_id) - 1 AS n, organization_id, patient_id
                 FROM patient_consent WHERE purpose = %(purpose)s)
    INSERT INTO audit_event (id, occurred_at, organization_id, patient_id, actor_sub, actor_kind, action,
                             resource_type, resource_id, purpose, outcome, correlation_id)
    SELECT gen_random_uuid(), now() - interval '1 day' - (g::float8 / %(rows)s) * make_interval(months => %(months)s),
           p.organization_id, p.patient_id, 'bench-audit', 'staff', 'memory.read', 'memory', NULL, %(purpose)s,
           'success', 'bench-audit-' || g
      FROM generate_series(%(first)s, %(last)s) g
      JOIN p ON p.n = CASE WHEN g %% 50 = 0 AND g < 100000 THEN %(busy)s ELSE g %% %(patients)s END"""


def seed_audit(db: str, rows: int) -> dict:
    """Top the bench's audit rows up to ``rows`` (as the superuser, in bulk), into monthly partitions made first
    for the past AUDIT_MONTHS months (as the owner: what an operator backfilling the trail does)."""
    with psycopg.connect(settings.DB_TOPOLOGY.owner.conninfo(dbname=db), autocommit=True) as conn:
        made = conn.execute("SELECT count(*) FROM audit_event_add_partitions(now() - interval '%s months', "
                            "now() + interval '3 months')" % (AUDIT_MONTHS + 1)).fetchone()[0]
    with psycopg.connect(common.admin_conninfo(db), autocommit=True) as conn:
        have = conn.execute("SELECT count(*) FROM audit_event WHERE actor_sub = 'bench-audit'").fetchone()[0]
        patients = conn.execute("SELECT count(*) FROM patient_consent WHERE purpose = %s", (PURPOSE,)).fetchone()[0]
        t0 = time.perf_counter()
        if have < rows:
            with conn.transaction():
                conn.execute("SET LOCAL synchronous_commit = off")
                conn.execute(SEED_AUDIT_SQL, {"rows": rows, "months": AUDIT_MONTHS, "purpose": PURPOSE,
                                              "first": have, "last": rows - 1, "busy": patients // 2,
                                              "patients": patients})
            conn.execute("VACUUM (ANALYZE) audit_event")
        total = conn.execute("SELECT count(*) FROM audit_event").fetchone()[0]
        partitions = conn.execute("SELECT count(*) FROM pg_inherits WHERE inhparent = 'audit_event'::regclass"
                                  ).fetchone()[0]
    return {"bench_rows": max(have, rows), "rows": total, "partitions": partitions, "partitions_made": made,
            "seed_s": round(time.perf_counter() - t0, 1)}


def audit_statements(org: uuid.UUID, patient: uuid.UUID) -> dict[str, tuple[str, list]]:
    """The service's own audit reads (Django's SQL): a patient's activity page (the portal's "who used my
    information" and ``GET /v1/audit-events`` as the patient: ``core.audit.history_page``), a later page (its
    cursor six months back: a time-bounded read), the organisation's auditor list (``GET /v1/audit-events`` with
    audit:read) and the FHIR AuditEvent export's query (``rights.export.access_events``)."""
    events = AuditEvent.objects.filter(organization_id=org, patient_id=patient)
    when, ident = datetime.now(UTC) - timedelta(days=182), uuid.UUID(int=2**128 - 1)
    return {
        "audit_patient_page": events.order_by("-occurred_at", "-id")[:51].query.sql_with_params(),
        # history_page's cursor filter
        "audit_patient_older": (events.filter(Q(occurred_at__lt=when) | Q(occurred_at=when, id__lt=ident))
                                .order_by("-occurred_at", "-id")[:51].query.sql_with_params()),
        "audit_org_list": (AuditEvent.objects.filter(organization_id=org).order_by("-occurred_at", "-id")[:101]
                           .query.sql_with_params()),
        "audit_fhir_export": events.order_by("occurred_at", "id").query.sql_with_params(),
    }


def time_statements(db: str, identity: tuple, found: dict[str, tuple[str, list]], runs: int) -> dict:
    """p50/p99 of each statement as the runtime role, each run in its own transaction with the identity set."""
    timings = {}
    with psycopg.connect(settings.DB_TOPOLOGY.runtime.conninfo(dbname=db)) as conn:
        cur = psycopg.ClientCursor(conn)
        for name, (sql, params) in found.items():
            values = []
            for _ in range(runs + 5):
                t0 = time.perf_counter()
                cur.execute(SET_IDENTITY_SQL, identity)
                cur.execute(sql, params)
                cur.fetchall()
                conn.commit()
                values.append((time.perf_counter() - t0) * 1000)
            values = sorted(values[5:])
            timings[name] = {"p50_ms": round(statistics.median(values), 3),
                             "p99_ms": round(values[min(len(values) - 1, int(len(values) * 0.99))], 3)}
    return timings


# --- the plans ------------------------------------------------------------------------------------------------------
def add_plan_extras(db: str) -> dict[str, int]:
    added = {}
    params = {"purpose": PURPOSE, "model": vector_model(), "dims": VECTOR_DIMS}
    with psycopg.connect(common.admin_conninfo(db)) as conn:
        for table, statement in SEED_PLAN_EXTRAS.items():
            if conn.execute(f"SELECT NOT EXISTS (SELECT 1 FROM {table})").fetchone()[0]:  # noqa: S608 (fixed names)
                added[table] = conn.execute(statement, params).rowcount
        conn.commit()
    if added:
        with psycopg.connect(common.admin_conninfo(db), autocommit=True) as conn:
            conn.execute("VACUUM (ANALYZE) " + ", ".join(added))
    return added


def statements(org: uuid.UUID, patient: uuid.UUID, memory_id: uuid.UUID,
               workflow_id: uuid.UUID) -> dict[str, tuple[str, list]]:
    """The service's own SQL for each hot query (Django's, with its parameters)."""
    identity = Identity(org_id=org, actor_sub=f"patient-{patient}", patient_self_id=patient,
                        scopes=frozenset(PATIENT_SCOPES.split()), actor_kind=ACTOR_PATIENT)
    found = {
        "list": selectors.memory_list_current(identity=identity, patient_id=patient).query.sql_with_params(),
        # memory.selectors.memory_get's queryset
        "read_by_id": (Memory.objects.for_patient(org, patient).filter(memory_id=memory_id)
                       .select_related("consent_record").order_by("pk")[:1].query.sql_with_params()),
        "search_filter": candidates(identity=identity, patient_id=patient,
                                    query_vector=[0.05] * VECTOR_DIMS).query.sql_with_params(),
        # workflows.services._lock_workflow's queryset (every checkpoint)
        "checkpoint_lookup": (Workflow.objects.select_for_update().filter(workflow_id=workflow_id,
                                                                          organization_id=org)
                              .order_by("pk")[:1].query.sql_with_params()),
    }
    hot = getattr(selectors, "_current_rows_sql", None)  # the API's one-round-trip list read, when present
    if hot is not None:
        try:
            from django.utils import timezone

            found["list_rows"] = hot(org_id=org, patient_id=patient, memory_type=None, consent_purpose=None,
                                     now=timezone.now())
        except TypeError as exc:  # its signature changed: say so rather than guess
            log(f"note: selectors._current_rows_sql not explained ({exc})")
    return found


MAIN_TABLE = {"list": "patient_memory", "list_rows": "patient_memory", "read_by_id": "patient_memory",
              "search_filter": "patient_memory", "checkpoint_lookup": "agent_workflow",
              "audit_patient_page": "audit_event", "audit_patient_older": "audit_event",
              "audit_org_list": "audit_event", "audit_fhir_export": "audit_event"}


def target(db: str) -> tuple[uuid.UUID, uuid.UUID, uuid.UUID, uuid.UUID]:
    """The patient every plan reads (the middle one by id; also the busy patient of the audit seed)."""
    with psycopg.connect(common.admin_conninfo(db), autocommit=True) as conn:
        org, patient, memory_id = conn.execute(
            "SELECT organization_id, patient_id, memory_id FROM patient_memory "
            "WHERE patient_id = (SELECT patient_id FROM patient_consent ORDER BY patient_id "
            "                     OFFSET (SELECT count(*) / 2 FROM patient_consent) LIMIT 1) LIMIT 1").fetchone()
        workflow_id = conn.execute("SELECT workflow_id FROM agent_workflow WHERE patient_id = %s LIMIT 1",
                                   (patient,)).fetchone()[0]
    return org, patient, memory_id, workflow_id


def identities(org: uuid.UUID, patient: uuid.UUID) -> dict[str, tuple]:
    """SET_IDENTITY_SQL's values: the patient, and the organisation's auditor (audit:read, no patient)."""
    return {"patient": (str(org), f"patient-{patient}", str(patient), " ".join(sorted(PATIENT_SCOPES.split()))),
            "auditor": (str(org), "bench-auditor", "", "audit:read")}


def audit_identity(name: str) -> str:
    return "auditor" if name == "audit_org_list" else "patient"


def explain_all(db: str, only_audit: bool = False) -> dict:
    org, patient, memory_id, workflow_id = target(db)
    who = identities(org, patient)
    # Django builds SELECT ... FOR UPDATE only inside a transaction: point its connection at this size's database
    default = connections["default"]
    default.close()
    default.settings_dict["NAME"] = db
    with transaction.atomic():
        found = {} if only_audit else statements(org, patient, memory_id, workflow_id)
        found.update(audit_statements(org, patient))
    default.close()
    return {name: explain(db, sql, params, who[audit_identity(name)], MAIN_TABLE[name])
            for name, (sql, params) in found.items()}


# A month of the audit trail (or its default partition) is the audit trail in a plan.
AUDIT_PARTITION = re.compile(r"^audit_event_(?:y\d{4}m\d{2}|default)$")


def _table(name: str) -> str:
    return "audit_event" if AUDIT_PARTITION.match(name) else name


def explain(db: str, sql: str, params: list, identity: tuple, main: str) -> dict:
    with psycopg.connect(settings.DB_TOPOLOGY.runtime.conninfo(dbname=db)) as conn:
        role = conn.execute("SELECT current_user, rolsuper, rolbypassrls FROM pg_roles "
                            "WHERE rolname = current_user").fetchone()
        conn.execute(SET_IDENTITY_SQL, identity)
        cur = psycopg.ClientCursor(conn)  # literal parameters, as Django's client-side binding sends them
        cur.execute("EXPLAIN (ANALYZE, BUFFERS) " + sql, params)  # warm the caches
        cur.execute("EXPLAIN (ANALYZE, BUFFERS) " + sql, params)
        text = "\n".join(row[0] for row in cur.fetchall())
        rows = len(cur.execute(sql, params).fetchall())
        conn.rollback()  # FOR UPDATE locks, nothing else
    indexes = sorted(set(re.findall(r"(?:Index Scan|Index Only Scan|Bitmap Index Scan)(?: Backward)? "
                                    r"(?:using|on) (\w+)", text)))
    index_on = {_table(t) for t in re.findall(r"(?:Index Scan|Index Only Scan)(?: Backward)? using \w+ on (\w+)",
                                              text)}
    index_on |= {_table(t) for t in re.findall(r"Bitmap Heap Scan on (\w+)", text)}
    seq = sorted(set(re.findall(r"Seq Scan on (\w+)", text)))
    # A month with no rows yet (the default partition, the months made ahead) costs nothing to scan, and the
    # planner rightly scans it rather than its index; any other sequential scan of patient data is a problem.
    empty = set(re.findall(r"Seq Scan on (\w+) \w+ +\(cost=0\.00\.\.0\.00 ", text))
    bad_seq = [t for t in seq if _table(t) in PATIENT_TABLES and not (AUDIT_PARTITION.match(t) and t in empty)]
    partitions = sorted({t for t in re.findall(r" on (audit_event_\w+)", text) if AUDIT_PARTITION.match(t)})
    execution = re.search(r"Execution Time: ([\d.]+) ms", text)
    return {
        "role": role[0], "superuser": role[1], "bypassrls": role[2], "rows": rows, "indexes": indexes,
        "seq_scans": [t for t in seq if t not in empty], "empty_partitions_scanned": sorted(empty),
        "main_table": main, "main_table_by_index": main in index_on,
        "audit_partitions_read": partitions,
        # a read whose every month was pruned away but an empty one reads no table at all
        "ok": not bad_seq and (main in index_on or (main == "audit_event" and set(partitions) <= empty))
        and not role[1] and not role[2],
        "execution_ms": float(execution.group(1)) if execution else None, "plan": text,
    }


def audit_growth(db: str, volumes: list[int], runs: int) -> list[dict]:
    """The audit reads at each audit volume (bench rows over the last AUDIT_MONTHS months): plans and p50/p99."""
    out = []
    add_plan_extras(db)  # target() reads the patient's workflow
    for volume in volumes:
        seeded = seed_audit(db, volume)
        log(f"audit trail of {db}: {seeded['rows']:,} rows in {seeded['partitions']} partitions "
            f"(seeded in {seeded['seed_s']}s)")
        plans = explain_all(db, only_audit=True)
        org, patient, _, _ = target(db)
        who = identities(org, patient)
        default = connections["default"]
        default.close()
        default.settings_dict["NAME"] = db
        found = audit_statements(org, patient)
        default.close()
        timings = {}
        for name, statement in found.items():
            timings.update(time_statements(db, who[audit_identity(name)], {name: statement}, runs))
        for name, p in plans.items():
            log(f"  {name:<20} {'ok ' if p['ok'] else 'BAD'} {p['rows']:>5} rows, p50 {timings[name]['p50_ms']} ms "
                f"p99 {timings[name]['p99_ms']} ms, {len(p['audit_partitions_read'])} partition(s) read, "
                f"seq scans {', '.join(p['seq_scans']) or 'none'}")
        out.append({**seeded, "timings": timings, "plans": plans})
    return out


# --- main -------------------------------------------------------------------------------------------------------
def median(values) -> float:
    return round(statistics.median(values), 2)


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(prog="python -m bench.scale", description=__doc__.split("\n")[0])
    p.add_argument("--small", type=int, default=10_000, help="patients in the smaller database")
    p.add_argument("--large", type=int, default=100_000, help="patients in the larger database")
    p.add_argument("--per-patient", type=int, default=20)
    p.add_argument("--requests", type=int, default=2000)
    p.add_argument("--warmup", type=int, default=100)
    p.add_argument("--concurrency", type=int, default=8)
    p.add_argument("--rounds", type=int, default=2, help="alternating rounds (small, large, small, large, ...)")
    p.add_argument("--target-ratio", type=float, default=1.5)
    p.add_argument("--search-requests", type=int, default=100, help="bench.retrieval_api --requests (concurrent)")
    p.add_argument("--search-serial", type=int, default=200,
                   help="bench.retrieval_api --serial: searches over one connection (the p50 compared)")
    p.add_argument("--audit-volumes", default="100000,1000000",
                   help="audit rows (over 12 months) in the larger database at which the audit reads are measured")
    p.add_argument("--audit-runs", type=int, default=200, help="timed runs of each audit read per volume")
    p.add_argument("--skip", default="", help="comma-separated phases to leave out: list, search, audit")
    p.add_argument("--quick", action="store_true", help="1,000 vs 10,000 patients, 500 requests, 1 round")
    p.add_argument("--output", type=Path, default=RESULTS_DIR / "scale.json")
    args = p.parse_args(argv)
    if args.quick:
        args.small, args.large, args.requests, args.warmup, args.rounds = 1000, 10_000, 500, 50, 1
        args.search_requests, args.search_serial, args.audit_volumes, args.audit_runs = 50, 50, "10000,100000", 50
    args.skip = {x for x in args.skip.split(",") if x}
    args.audit_volumes = [int(v) for v in args.audit_volumes.split(",") if v]
    return args


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    args.output.parent.mkdir(parents=True, exist_ok=True)
    load_start = round(os.getloadavg()[0], 2)
    started = time.perf_counter()
    runs, searches = [], []
    for round_no in range(1, args.rounds + 1):
        for patients in (args.small, args.large):
            if "list" not in args.skip:
                runs.append(run_memories_api(args, patients, round_no))
            if "search" not in args.skip:
                searches.append(run_retrieval_api(args, patients, round_no))
    sizes = {}
    for patients in (args.small, args.large):
        mine = [r for r in runs if r["patients"] == patients and r["exit"] == 0]
        found = [r for r in searches if r["patients"] == patients and r["exit"] == 0]
        db = db_for(patients)
        seeded = "list" not in args.skip or bool(mine)
        extras = add_plan_extras(db) if seeded else {}
        plans = explain_all(db) if seeded else {}
        sizes[str(patients)] = {
            "search_database": search_db_for(patients), "search_runs": found,
            "failed_search_runs": sum(1 for r in searches if r["patients"] == patients and r["exit"] != 0),
            "search_p50_ms": median(r["serial"]["p50_ms"] for r in found) if found else None,
            "search_warm_p50_ms": median(r["serial_warm"]["p50_ms"] for r in found) if found else None,
            "database": db, "runs": mine, "failed_runs": sum(1 for r in runs if r["patients"] == patients
                                                             and r["exit"] != 0),
            "rows": mine[0]["rows"] if mine else None,
            "api_p50_ms": median(r["api"]["p50_ms"] for r in mine) if mine else None,
            "api_p99_ms": median(r["api"]["p99_ms"] for r in mine) if mine else None,
            "sql_p50_ms": median(r["sql"]["p50_ms"] for r in mine) if mine else None,
            "sql_p99_ms": median(r["sql"]["p99_ms"] for r in mine) if mine else None,
            "plan_extras_added": extras, "plans": plans,
        }
    small, large = sizes[str(args.small)], sizes[str(args.large)]
    ratio = (round(large["api_p99_ms"] / small["api_p99_ms"], 2)
             if large["api_p99_ms"] and small["api_p99_ms"] else None)
    sql_ratio = (round(large["sql_p99_ms"] / small["sql_p99_ms"], 2)
                 if large["sql_p99_ms"] and small["sql_p99_ms"] else None)
    search_ratio = (round(large["search_p50_ms"] / small["search_p50_ms"], 2)
                    if large["search_p50_ms"] and small["search_p50_ms"] else None)
    audit = audit_growth(db_for(args.large), args.audit_volumes, args.audit_runs) if "audit" not in args.skip else []
    plans_ok = all(p["ok"] for s in sizes.values() for p in s["plans"].values()) and (
        "list" in args.skip or all(s["plans"] for s in sizes.values())) and all(
        p["ok"] for a in audit for p in a["plans"].values())
    with psycopg.connect(common.admin_conninfo("postgres"), autocommit=True) as conn:
        server = {name: conn.execute(f"SHOW {name}").fetchone()[0]  # the cache the larger seed must fit
                  for name in ("server_version", "shared_buffers", "effective_cache_size", "work_mem")}
    result = {
        "benchmark": "scale", "at": datetime.now(UTC).isoformat(timespec="seconds"), "postgres": server,
        "machine": {"cpus": os.cpu_count(), "load_average_1m_at_start": load_start,
                    "load_average_1m_at_end": round(os.getloadavg()[0], 2)},
        "load": {"requests": args.requests, "concurrency": args.concurrency, "rounds": args.rounds,
                 "per_patient": args.per_patient},
        "small": args.small, "large": args.large, "sizes": sizes,
        "p99_ratio": ratio, "sql_p99_ratio": sql_ratio, "search_p50_ratio": search_ratio,
        "target_ratio": args.target_ratio, "audit_growth": audit,
        "plans_ok": plans_ok, "elapsed_s": round(time.perf_counter() - started, 1),
    }
    args.output.write_text(json.dumps(result, indent=2) + "\n")
    print_summary(result)
    log(f"written to {args.output}")
    failed = [r for r in runs + searches if r["exit"] != 0]
    if failed:
        log(f"PROBLEM: {len(failed)} memories_api/retrieval_api run(s) failed")
    if not plans_ok:
        log("PROBLEM: a plan is not an index scan as the runtime role (see above)")
    return 1 if failed or not plans_ok else 0


def print_summary(r: dict) -> None:
    s, b = r["sizes"][str(r["small"])], r["sizes"][str(r["large"])]
    lines = ["=== scale summary " + "=" * 70,
             f"{'':<22}{r['small']:>12,} pat.{r['large']:>12,} pat.{'ratio':>9}",
             f"{'patient_memory rows':<22}{s['rows'] or 0:>17,}{b['rows'] or 0:>17,}"]
    for label, key in (("API p50 ms", "api_p50_ms"), ("API p99 ms", "api_p99_ms"), ("SQL p50 ms", "sql_p50_ms"),
                       ("SQL p99 ms", "sql_p99_ms")):
        x, y = s[key], b[key]
        ratio = f"{y / x:.2f}" if x and y else "-"
        lines.append(f"{label:<22}{x if x is not None else '-':>17}{y if y is not None else '-':>17}{ratio:>9}")
    for label, key in (("search p50 ms", "search_p50_ms"), ("search warm p50 ms", "search_warm_p50_ms")):
        x, y = s[key], b[key]
        ratio = f"{y / x:.2f}" if x and y else "-"
        lines.append(f"{label:<22}{x if x is not None else '-':>17}{y if y is not None else '-':>17}{ratio:>9}")
    lines.append(f"API p99 per round     {[x['api']['p99_ms'] for x in s['runs']]} vs "
                 f"{[x['api']['p99_ms'] for x in b['runs']]}")
    lines.append(f"search p50 per round  {[x['serial']['p50_ms'] for x in s['search_runs']]} vs "
                 f"{[x['serial']['p50_ms'] for x in b['search_runs']]}")
    for a in r["audit_growth"]:
        lines.append(f"audit trail {a['rows']:>10,} rows, {a['partitions']} partitions: " + "; ".join(
            f"{name} p50 {t['p50_ms']} p99 {t['p99_ms']} ms ({len(a['plans'][name]['audit_partitions_read'])} "
            f"part., {'ok' if a['plans'][name]['ok'] else 'BAD'})" for name, t in a["timings"].items()))
    for name in sorted(set(s["plans"]) | set(b["plans"])):
        for label, size in ((r["small"], s), (r["large"], b)):
            p = size["plans"].get(name)
            if p:
                lines.append(f"plan {name:<18}{label:>8,}: {'ok ' if p['ok'] else 'BAD'} as {p['role']}; "
                             f"indexes {', '.join(p['indexes']) or 'none'}; seq scans "
                             f"{', '.join(p['seq_scans']) or 'none'}; {p['rows']} rows in {p['execution_ms']} ms")
    lines.append(f"p99 ratio {r['p99_ratio']}, search p50 ratio {r['search_p50_ratio']} (target <= "
                 f"{r['target_ratio']}); plans "
                 f"{'all index scans' if r['plans_ok'] else 'NOT all index scans'}; load average "
                 f"{r['machine']['load_average_1m_at_start']} -> {r['machine']['load_average_1m_at_end']}; "
                 f"{r['elapsed_s']}s; shared_buffers {r['postgres']['shared_buffers']}")
    lines.append("=" * 88)
    log("\n".join(lines))


if __name__ == "__main__":
    sys.exit(main())
