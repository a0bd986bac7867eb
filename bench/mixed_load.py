"""Mixed load: many keep-alive connections reading and writing at once through the whole stack, then proof that
nothing acknowledged was lost.

    .venv/bin/python -m bench.mixed_load                       # 50 connections, 60 s, 10,000 patients x 20
    .venv/bin/python -m bench.mixed_load --quick               # 50 connections, 15 s, 1,000 patients
    .venv/bin/python -m bench.mixed_load --server asgi         # manage.py serve --asgi (uvicorn) instead of gunicorn

1. Own database ``anamnesis_bench_mixed`` (``BENCH_MIXED_DB`` names another, ``anamnesis_bench*`` only): dropped,
   recreated, migrated as the owner role and seeded in bulk with bench.memories_api's seeding SQL (organisations,
   one granted scheduling consent and ``--per-patient`` current memories per patient); ``--reuse`` keeps a seed of
   the same size.
2. Serves the product the way ``manage.py serve`` does by default (gunicorn on ``config.wsgi``, the machine's one
   embedding server beside it on a free loopback port), or with ``--server asgi`` as ``manage.py serve --asgi``
   does (uvicorn workers on ``config.asgi``); a local JWKS (bench.tokens) signs the tokens. Runtime role, RLS,
   audit: the real service.
3. Each connection owns ``--owned`` patients (its memory writes) and ``--workflows`` workflows (its checkpoints,
   created through the API first), so no 409 is expected anywhere; reads go to a shared pool of ``--read-pool``
   patients. Operations, chosen at random by ``--mix``: ``list`` (GET .../memories), ``read`` (GET .../memories/{id}),
   ``create`` (POST .../memories as the patient, with consent and an Idempotency-Key), ``checkpoint``
   (POST /v1/workflows/{id}/checkpoint with the expected version). ``--clients`` processes (bench.loadgen) drive the
   connections; ``--warmup-seconds`` unmeasured, then ``--seconds`` measured.
4. After the run, as the superuser: every acknowledged memory exists (for its patient) with its vector, every
   acknowledged checkpoint version exists in the workflow's history and each workflow is at the version its client
   last saw, and every acknowledged request (its X-Request-ID) has exactly one audit row of its action.
5. Prints throughput, p50/p95/p99 per operation and overall, errors, the loss check, the resident memory of every
   service process after the load, and writes ``bench/results/mixed_load.json``. Exits 1 on any error (a transport
   error or any non-2xx) or anything lost; the p99 target is reported, not enforced (see bench.summary).
"""

from __future__ import annotations

from bench.bootstrap import ORIGINAL_ENV, setup_django
from bench.common import bench_db_name  # stdlib only: does not load Django

DB_NAME = bench_db_name("BENCH_MIXED_DB", "anamnesis_bench_mixed")
setup_django(DB_NAME)  # settings now point at DB_NAME for the life of this process

import argparse  # noqa: E402
import http.client  # noqa: E402
import io  # noqa: E402
import json  # noqa: E402
import os  # noqa: E402
import platform  # noqa: E402
import random  # noqa: E402
import subprocess  # noqa: E402
import sys  # noqa: E402
import tempfile  # noqa: E402
import time  # noqa: E402
import uuid  # noqa: E402
from datetime import UTC, datetime  # noqa: E402
from pathlib import Path  # noqa: E402

import psycopg  # noqa: E402
from django.conf import settings  # noqa: E402
from django.core.management import call_command  # noqa: E402
from django.db import connections  # noqa: E402

from bench import common  # noqa: E402
from bench import memories_api as base  # noqa: E402  (its setup_django() changes nothing: ours ran)
from bench.common import HOST, free_port, log, percentile  # noqa: E402
from bench.embeddings import FakeEmbeddings  # noqa: E402
from bench.tokens import AUDIENCE, ISSUER, PATIENT_SCOPES, JwksServer, SigningKey, mint  # noqa: E402
from core.bootstrap import bootstrap  # noqa: E402

BASE_DIR = Path(__file__).resolve().parent.parent
RESULTS_DIR = BASE_DIR / "bench" / "results"
OPS = ("list", "read", "create", "checkpoint")
# What each acknowledged request must have left in audit_event (its X-Request-ID is the row's correlation_id).
AUDIT_ACTION = {"list": "memory.list", "read": "memory.read", "create": "memory.create",
                "checkpoint": "workflow.checkpoint", "workflow_create": "workflow.create",
                "workflow_read": "workflow.read"}


def admin_conninfo() -> str:
    return common.admin_conninfo(DB_NAME)


# --- database ------------------------------------------------------------------------------------------------
def seeded_patients() -> int | None:
    with psycopg.connect(settings.DB_TOPOLOGY.admin.conninfo(dbname="postgres"), autocommit=True) as conn:
        if conn.execute("SELECT 1 FROM pg_database WHERE datname = %s", (DB_NAME,)).fetchone() is None:
            return None
    with psycopg.connect(admin_conninfo(), autocommit=True) as conn:
        if conn.execute("SELECT to_regclass('public.patient_consent')").fetchone()[0] is None:
            return None
        return conn.execute("SELECT count(*) FROM patient_consent WHERE purpose = %s AND status = 'granted'",
                            (base.PURPOSE,)).fetchone()[0]


def seed(args) -> float:
    """bench.memories_api's seed (the SQL lives there), in this database."""
    params = {"orgs": args.orgs, "patients": args.patients, "per_patient": args.per_patient,
              "purpose": base.PURPOSE, "policy": settings.MEMORY_POLICY_REVISION, "issuer": ISSUER}
    t0 = time.perf_counter()
    with psycopg.connect(admin_conninfo()) as conn:
        conn.execute("SET synchronous_commit = off")
        for statement in (base.SEED_ORGS_SQL, base.SEED_CONSENTS_SQL, base.SEED_MEMORIES_SQL):
            conn.execute(statement, params)
        conn.commit()
    with psycopg.connect(admin_conninfo(), autocommit=True) as conn:
        conn.execute("VACUUM (ANALYZE) " + ", ".join(base.SEED_TABLES))
    return time.perf_counter() - t0


def prepare_database(args) -> dict:
    for conn in connections.all():
        conn.close()
    if args.reuse and seeded_patients() == args.patients:
        bootstrap(settings.DB_TOPOLOGY, drop_first=False)
        call_command("migrate", database="owner", verbosity=0)
        connections["owner"].close()
        log(f"reusing the seeded database {DB_NAME}")
        return {"reused": True}
    t0 = time.perf_counter()
    bootstrap(settings.DB_TOPOLOGY, drop_first=True)
    call_command("migrate", database="owner", verbosity=0)
    connections["owner"].close()
    migrate_s = time.perf_counter() - t0
    seed_s = seed(args)
    log(f"created and migrated {DB_NAME} in {migrate_s:.1f}s; seeded {args.patients:,} patients x "
        f"{args.per_patient} memories in {seed_s:.1f}s")
    return {"reused": False, "migrate_s": round(migrate_s, 1), "seed_s": round(seed_s, 1)}


def cast(args, rng: random.Random) -> tuple[list[dict], list[dict]]:
    """(owned patients with their consent, read pool with one seeded memory each), tokens not yet minted."""
    with psycopg.connect(admin_conninfo(), autocommit=True) as conn:
        consents = conn.execute(
            "SELECT organization_id, patient_id, consent_record_id FROM patient_consent "
            "WHERE purpose = %s AND status = 'granted' ORDER BY patient_id", (base.PURPOSE,)).fetchall()
        rng.shuffle(consents)
        owned_n = args.connections * args.owned
        owned = [{"org": str(o), "patient": str(p), "consent": str(c)} for o, p, c in consents[:owned_n]]
        pool_rows = consents[:min(args.read_pool, len(consents))]
        first = dict(conn.execute(
            "SELECT DISTINCT ON (patient_id) patient_id, memory_id FROM patient_memory "
            "WHERE patient_id = ANY(%s) AND state = 'active' ORDER BY patient_id, attribute",
            ([p for _, p, _ in pool_rows],)).fetchall())
    pool = [{"org": str(o), "patient": str(p), "memory_id": str(first[p])} for o, p, _ in pool_rows]
    return owned, pool


# --- the service -----------------------------------------------------------------------------------------------
def start_service(args, jwks_url: str, log_path: Path,
                  fake_embeddings_url: str | None = None) -> tuple[subprocess.Popen, int, object]:
    """``manage.py serve`` (gunicorn, the default) or ``manage.py serve --asgi`` (uvicorn), as deployed. With
    ``fake_embeddings_url`` (``--embeddings fake``, the test's mode) the workers embed through a fake
    OpenAI-compatible server instead (bench.embeddings), and serve starts no embedding server (start-up in
    seconds, not ~20 s)."""
    port = free_port()
    env = {k: v for k, v in ORIGINAL_ENV.items() if not k.startswith("EMBEDDING_")} if fake_embeddings_url \
        else dict(ORIGINAL_ENV)
    env.update({
        "DJANGO_SETTINGS_MODULE": "config.settings", "ANAMNESIS_DB_NAME": DB_NAME,
        "OIDC_JWKS_URL": jwks_url, "OIDC_ISSUER": ISSUER, "OIDC_AUDIENCE": AUDIENCE, "LOG_LEVEL": "WARNING",
        # the limiter's statement is measured, its limits are not reached
        "API_RATE_LIMIT_PER_SUBJECT": "1000000000", "API_RATE_LIMIT_PER_ORGANIZATION": "1000000000",
    })
    env.pop("PROMETHEUS_MULTIPROC_DIR", None)  # serve makes its own
    if fake_embeddings_url:
        env.update({"EMBEDDING_PROVIDER": "openai", "EMBEDDING_BASE_URL": fake_embeddings_url,
                    "EMBEDDING_MODEL": "fake-16"})
    argv = [sys.executable, "manage.py", "serve", "--bind", f"{HOST}:{port}", "--workers", str(args.workers),
            "--threads", str(args.threads), "--embedding-port", str(free_port())]
    if args.server == "asgi":
        argv.append("--asgi")
    log_file = open(log_path, "w")  # closed by base.stop_service
    proc = subprocess.Popen(argv, cwd=BASE_DIR, env=env, stdout=log_file, stderr=subprocess.STDOUT)
    common.wait_until_ready(proc, port, log_file, log_path, args.startup_timeout, base.stop_service,
                            name="manage.py serve")
    return proc, port, log_file


def create_workflows(port: int, owned: list[dict], tokens: dict[str, str], per_connection: int,
                     connections_n: int, run_id: str) -> tuple[list[list[dict]], list[list]]:
    """``per_connection`` appointment-booking workflows per connection, through the API (not measured)."""
    session = http.client.HTTPConnection(HOST, port, timeout=30)
    acked: list[list] = []
    plan: list[list[dict]] = []
    try:
        for c in range(connections_n):
            mine = owned[c::connections_n]
            flows = []
            for k in range(per_connection):
                p = mine[k % len(mine)]
                rid = f"{run_id}-setup-{c}-{k}"
                session.request("POST", "/v1/workflows",
                                body=json.dumps({"workflow_type": "appointment_booking", "patient_id": p["patient"]}),
                                headers={"Authorization": f"Bearer {tokens[p['patient']]}", "X-Request-ID": rid,
                                         "Content-Type": "application/json", "Accept": "application/json"})
                response = session.getresponse()
                raw = response.read()
                if response.status != 201:
                    raise RuntimeError(f"creating a workflow: HTTP {response.status} {raw[:200]!r}")
                answer = json.loads(raw)
                flows.append({"workflow_id": answer["workflow_id"], "token": tokens[p["patient"]],
                              "version": answer["version"], "step": answer["current_step"]})
                acked.append([rid, "workflow_create", False])
            plan.append(flows)
    finally:
        session.close()
    return plan, acked


# --- the clients -------------------------------------------------------------------------------------------------
def run_clients(args, port: int, owned: list[dict], pool: list[dict], tokens: dict[str, str],
                flows: list[list[dict]], run_id: str, service_pid: int) -> tuple[dict, dict]:
    """Start ``--clients`` bench.loadgen processes, let them go together, merge what they report."""
    specs = []
    for c in range(args.connections):
        mine = owned[c::args.connections]
        specs.append({"id": c, "workflows": flows[c],
                      "patients": [{"patient": p["patient"], "consent": p["consent"], "token": tokens[p["patient"]]}
                                   for p in mine]})
    read_pool = [{"patient": p["patient"], "memory_id": p["memory_id"], "token": tokens[p["patient"]]} for p in pool]
    tmp = Path(tempfile.mkdtemp(prefix="mixed-load-"))
    procs = []
    n = min(args.clients, args.connections)
    for k in range(n):
        plan = {"port": port, "seconds": args.seconds, "warmup_seconds": args.warmup_seconds, "mix": args.mix,
                "run_id": run_id, "seed": args.seed * 1000 + k, "per_patient": args.per_patient,
                "read_pool": read_pool, "connections": specs[k::n]}
        plan_path, result_path = tmp / f"plan-{k}.json", tmp / f"result-{k}.json"
        plan_path.write_text(json.dumps(plan))
        procs.append((subprocess.Popen([sys.executable, "-m", "bench.loadgen", str(plan_path), str(result_path)],
                                       cwd=BASE_DIR, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True),
                      result_path))
    try:
        for proc, _ in procs:
            line = proc.stdout.readline().strip()
            if line != "ready":
                raise RuntimeError(f"a load generator did not start (said {line!r}, exit {proc.poll()})")
        for proc, _ in procs:
            proc.stdin.write("go\n")
            proc.stdin.flush()
        # which web worker holds which connection, once the warm-up is over
        time.sleep(args.warmup_seconds + min(2.0, args.seconds / 2))
        workers = [p["pid"] for p in common.service_processes(service_pid) if p["role"] == "web_worker"]
        split = sorted(common.connections_per_process(workers, port).values(), reverse=True)
        for proc, _ in procs:
            proc.wait(timeout=args.seconds + args.warmup_seconds + 120)
    finally:
        for proc, _ in procs:
            if proc.poll() is None:
                proc.kill()
                proc.wait()
    merged = {"latencies_ms": {op: [] for op in OPS}, "acked": [], "created": [], "checkpoints": [], "errors": [],
              "reopened": 0, "final_versions": [], "client_cpu_s": 0.0, "measured_wall_s": 0.0}
    for proc, result_path in procs:
        if proc.returncode != 0 or not result_path.exists():
            raise RuntimeError(f"a load generator failed (exit {proc.returncode})")
        r = json.loads(result_path.read_text())
        for op in OPS:
            merged["latencies_ms"][op].extend(r["latencies_ms"][op])
        for key in ("acked", "created", "checkpoints", "errors", "final_versions"):
            merged[key].extend(r[key])
        merged["reopened"] += r["reopened"]
        merged["client_cpu_s"] += r["client_cpu_s"]
        merged["measured_wall_s"] = max(merged["measured_wall_s"], r["measured_wall_s"])
        result_path.unlink()
    for f in tmp.iterdir():
        f.unlink()
    tmp.rmdir()
    return merged, {"connections_per_worker": split, "client_processes": n}


# --- the loss check ------------------------------------------------------------------------------------------------
def copy_rows(cur, table: str, rows: list[tuple]) -> None:
    with cur.copy(f"COPY {table} FROM STDIN") as copy:
        for row in rows:
            copy.write_row(row)


def verify(since: datetime, acked: list[list], created: list[list], checkpoints: list[list],
           final_versions: list[list], workflow_ids: list[str]) -> dict:
    """As the superuser, after the service stopped: did every acknowledged write and audit row survive?"""
    with psycopg.connect(admin_conninfo()) as conn, conn.cursor() as cur:
        cur.execute("CREATE TEMP TABLE ack (request_id text PRIMARY KEY, action text) ON COMMIT DROP")
        copy_rows(cur, "ack", [(rid, AUDIT_ACTION[op]) for rid, op, _ in acked])
        cur.execute("CREATE TEMP TABLE created (memory_id uuid PRIMARY KEY, patient_id uuid) ON COMMIT DROP")
        copy_rows(cur, "created", [(m, p) for m, p, _ in created])
        cur.execute("CREATE TEMP TABLE cp (workflow_id uuid, version bigint, PRIMARY KEY (workflow_id, version)) "
                    "ON COMMIT DROP")
        copy_rows(cur, "cp", [(w, v) for w, v, _ in checkpoints])
        cur.execute("CREATE TEMP TABLE fv (workflow_id uuid PRIMARY KEY, version bigint) ON COMMIT DROP")
        copy_rows(cur, "fv", [tuple(x) for x in final_versions])
        cur.execute("ANALYZE ack, created, cp, fv")
        audit = cur.execute("""
            SELECT a.action, count(*), count(*) FILTER (WHERE n = 0), count(*) FILTER (WHERE n > 1)
              FROM (SELECT ack.action, ack.request_id, count(e.id) AS n
                      FROM ack LEFT JOIN audit_event e
                        ON e.correlation_id = ack.request_id AND e.action = ack.action AND e.occurred_at >= %s
                     GROUP BY ack.action, ack.request_id) a
             GROUP BY a.action ORDER BY a.action""", (since,)).fetchall()
        memories_found = cur.execute(
            "SELECT count(*) FROM created c JOIN patient_memory m "
            "ON m.memory_id = c.memory_id AND m.patient_id = c.patient_id").fetchone()[0]
        # written after each create commits (memory.retrieval.vectors.VectorWrites); the workers wrote what they held
        # as they stopped
        vectors_found = cur.execute(
            "SELECT count(*) FROM created c WHERE EXISTS (SELECT 1 FROM memory_embedding e "
            "WHERE e.memory_id = c.memory_id AND e.patient_id = c.patient_id)").fetchone()[0]
        versions_found = cur.execute(
            "SELECT count(*) FROM cp JOIN agent_workflow_transition t "
            "ON t.workflow_id = cp.workflow_id AND t.version = cp.version").fetchone()[0]
        workflows_at_version = cur.execute(
            "SELECT count(*) FROM fv JOIN agent_workflow w "
            "ON w.workflow_id = fv.workflow_id AND w.version = fv.version").fetchone()[0]
        workflows_found = cur.execute("SELECT count(*) FROM agent_workflow WHERE workflow_id = ANY(%s::uuid[])",
                                      (workflow_ids,)).fetchone()[0]
        conn.rollback()
    by_action = {action: {"acked": n, "missing": missing, "duplicated": dup} for action, n, missing, dup in audit}
    lost = {
        "memories": len(created) - memories_found,
        "memory_vectors": len(created) - vectors_found,
        "checkpoint_versions": len(checkpoints) - versions_found,
        "workflows_not_at_last_version": len(final_versions) - workflows_at_version,
        "workflows": len(workflow_ids) - workflows_found,
        "audit_rows_missing": sum(v["missing"] for v in by_action.values()),
        "audit_rows_duplicated": sum(v["duplicated"] for v in by_action.values()),
    }
    return {
        "acked_requests": len(acked), "created_memories": len(created), "memories_found": memories_found,
        "vectors_found": vectors_found,
        "checkpoints": len(checkpoints), "checkpoint_versions_found": versions_found,
        "workflows": len(workflow_ids), "workflows_found": workflows_found,
        "workflows_at_last_version": workflows_at_version, "audit_by_action": by_action,
        "lost": lost, "lost_total": sum(lost.values()),
    }


# --- figures -------------------------------------------------------------------------------------------------------
def stats(latencies: list[float], wall_s: float) -> dict:
    lat = sorted(latencies)
    return {"ok": len(lat), "per_s": round(len(lat) / wall_s, 1) if wall_s else 0.0,
            "p50_ms": percentile(lat, 50), "p95_ms": percentile(lat, 95), "p99_ms": percentile(lat, 99),
            "max_ms": round(lat[-1], 2) if lat else None}


def parse_mix(value: str) -> dict[str, int]:
    mix = {}
    for part in value.split(","):
        name, _, weight = part.partition("=")
        if name.strip() not in OPS or not weight.strip().isdigit():
            raise argparse.ArgumentTypeError(f"--mix takes op=weight pairs of {', '.join(OPS)}")
        mix[name.strip()] = int(weight)
    if not any(mix.values()):
        raise argparse.ArgumentTypeError("--mix needs a positive weight")
    return mix


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    positive = base.positive
    p = argparse.ArgumentParser(prog="python -m bench.mixed_load", description=__doc__.split("\n")[0])
    p.add_argument("--connections", type=positive, default=50, help="keep-alive connections")
    p.add_argument("--seconds", type=float, default=60.0, help="measured duration")
    p.add_argument("--warmup-seconds", type=float, default=5.0, help="unmeasured load first (its writes are checked)")
    p.add_argument("--mix", type=parse_mix, default=parse_mix("list=40,read=25,create=15,checkpoint=20"))
    p.add_argument("--patients", type=positive, default=10_000)
    p.add_argument("--per-patient", type=positive, default=20)
    p.add_argument("--orgs", type=positive, default=10)
    p.add_argument("--owned", type=positive, default=4, help="patients each connection writes for")
    p.add_argument("--workflows", type=positive, default=2, help="workflows each connection checkpoints")
    p.add_argument("--read-pool", type=positive, default=1000, help="patients the reads go to")
    p.add_argument("--clients", type=positive, default=2, help="load generator processes")
    p.add_argument("--server", choices=("serve", "asgi"), default="serve",
                   help="serve: manage.py serve (gunicorn, the default deployment); asgi: manage.py serve --asgi")
    p.add_argument("--embeddings", choices=("real", "fake"), default="real",
                   help="real: the machine's embedding server, as serve runs it; fake: hash vectors from "
                        "bench.embeddings (the test's mode)")
    p.add_argument("--workers", type=positive, default=2, help="web workers")
    p.add_argument("--threads", type=positive, default=4, help="threads per web worker")
    p.add_argument("--reuse", action="store_true", help="keep the database if it holds a seed of this size")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--startup-timeout", type=float, default=120.0)
    p.add_argument("--p99-target-ms", type=float, default=200.0)
    p.add_argument("--quick", action="store_true", help="1,000 patients, 15 s (plus 3 s warm-up)")
    p.add_argument("--tiny", action="store_true", help="the test's size: 4 connections, 200 patients, 3 s")
    p.add_argument("--output", type=Path, default=None, help="default bench/results/mixed_load[_<server>].json")
    args = p.parse_args(argv)
    if args.quick:
        args.patients, args.seconds, args.warmup_seconds, args.read_pool = 1000, 15.0, 3.0, 500
    if args.tiny:
        args.connections, args.patients, args.per_patient, args.seconds, args.warmup_seconds = 4, 200, 5, 3.0, 1.0
        args.read_pool, args.clients, args.orgs, args.embeddings = 50, 1, 2, "fake"
    if args.connections * args.owned > args.patients:
        p.error("--connections x --owned may not exceed --patients")
    if args.output is None:
        suffix = "" if args.server == "serve" else f"_{args.server}"
        args.output = RESULTS_DIR / f"mixed_load{suffix}.json"
    return args


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    common.check_topology(DB_NAME)
    RESULTS_DIR.mkdir(parents=True, exist_ok=True)
    load_start = os.getloadavg()
    log(f"mixed load on {DB_NAME}: {args.connections} connections, {args.seconds:g}s (+{args.warmup_seconds:g}s "
        f"warm-up), mix {args.mix}, server {args.server} {args.workers}x{args.threads}; load average "
        f"{load_start[0]:.2f}")
    dataset = prepare_database(args)
    rng = random.Random(args.seed)
    owned, pool = cast(args, rng)
    keys = SigningKey()
    t0 = time.perf_counter()
    tokens = {p["patient"]: mint(keys, sub=f"patient-{p['patient']}", org_id=p["org"], patient_id=p["patient"],
                                 scope=PATIENT_SCOPES, exp_in=3600) for p in owned + pool}
    log(f"minted {len(tokens):,} patient tokens in {time.perf_counter() - t0:.1f}s (not measured)")
    run_id = "mx" + uuid.uuid4().hex[:10]
    since = datetime.now(UTC)
    jwks = JwksServer(keys)
    fake = FakeEmbeddings() if args.embeddings == "fake" else None
    log_path = RESULTS_DIR / f"mixed_load_{args.server}.log"
    proc = log_file = None
    try:
        t0 = time.perf_counter()
        proc, port, log_file = start_service(args, jwks.url, log_path, fake.url if fake else None)
        startup_s = time.perf_counter() - t0
        log(f"service ({args.server}, {args.workers}x{args.threads}) ready on {HOST}:{port} in {startup_s:.1f}s")
        flows, setup_acked = create_workflows(port, owned, tokens, args.workflows, args.connections, run_id)
        before = {p["pid"]: p["cpu_s"] for p in common.service_processes(proc.pid)}
        run, layout = run_clients(args, port, owned, pool, tokens, flows, run_id, proc.pid)
        processes = common.service_processes(proc.pid)
    finally:
        rc = base.stop_service(proc, log_file) if proc is not None else None
        jwks.stop()
        if fake is not None:
            fake.stop()
    log(f"service stopped (exit {rc}); JWKS fetched {jwks.hits} time(s)")

    wall = run["measured_wall_s"]
    per_op = {op: stats(run["latencies_ms"][op], wall) for op in OPS if args.mix.get(op)}
    overall = stats([x for op in OPS for x in run["latencies_ms"][op]], wall)
    workflow_ids = [f["workflow_id"] for conn in flows for f in conn]
    checked = verify(since, setup_acked + run["acked"], run["created"], run["checkpoints"], run["final_versions"],
                     workflow_ids)
    for p in processes:
        p["cpu_s_during_load"] = round((p["cpu_s"] or 0) - (before.get(p["pid"]) or 0), 2)
    web = [p for p in processes if p["role"] == "web_worker"]
    errors_by_op: dict[str, int] = {}
    for op, _ in run["errors"]:
        errors_by_op[op] = errors_by_op.get(op, 0) + 1
    cpus = os.cpu_count() or 1
    client_share = run["client_cpu_s"] / ((wall + args.warmup_seconds) * cpus) if wall else None
    load_end = os.getloadavg()
    result = {
        "benchmark": "mixed_load",
        "at": datetime.now(UTC).isoformat(timespec="seconds"),
        "machine": {"cpus": cpus, "python": platform.python_version(),
                    "load_average_at_start": [round(x, 2) for x in load_start],
                    "load_average_at_end": [round(x, 2) for x in load_end]},
        "dataset": {"database": DB_NAME, "patients": args.patients, "per_patient": args.per_patient,
                    "orgs": args.orgs, **dataset},
        "load": {"connections": args.connections, "seconds": args.seconds, "warmup_seconds": args.warmup_seconds,
                 "mix": args.mix, "owned_patients_per_connection": args.owned,
                 "workflows_per_connection": args.workflows, "read_pool": len(pool), **layout},
        "server": {"kind": args.server, "command": "manage.py serve" + (" --asgi" if args.server == "asgi"
                                                                          else ""),
                   "workers": args.workers, "threads": args.threads, "embeddings": args.embeddings,
                   "startup_s": round(startup_s, 1), "exit": rc, "jwks_fetches": jwks.hits},
        "per_op": per_op,
        "overall": overall,
        "errors": {"total": len(run["errors"]), "by_op": errors_by_op,
                   "sample": [f"{op}: {what}" for op, what in run["errors"][:8]]},
        "reopened_connections": run["reopened"],
        "nothing_lost": checked,
        "processes": processes,
        "worker_rss_mb": [p["rss_mb"] for p in web],
        "worker_cpu_ms_per_request": round(sum(p["cpu_s_during_load"] for p in web) * 1000
                                           / max(len(run["acked"]) + len(run["errors"]), 1), 2),
        "client": {"processes": layout["client_processes"], "cpu_s": round(run["client_cpu_s"], 2),
                   "cpu_ms_per_request": round(run["client_cpu_s"] * 1000 / max(len(run["acked"]), 1), 2),
                   "share_of_machine": round(client_share, 3) if client_share is not None else None},
        "targets": {"p99_ms": args.p99_target_ms, "errors": 0, "lost": 0, "worker_rss_mb": 200},
    }
    args.output.parent.mkdir(parents=True, exist_ok=True)
    args.output.write_text(json.dumps(result, indent=2) + "\n")
    print_summary(result)
    log(f"written to {args.output}")
    problems = []
    if run["errors"]:
        problems.append(f"{len(run['errors'])} failed requests")
    if checked["lost_total"]:
        problems.append(f"lost: {checked['lost']}")
    if not overall["ok"]:
        problems.append("no request succeeded")
    for problem in problems:
        log(f"PROBLEM: {problem}")
    return 1 if problems else 0


def print_summary(r: dict) -> None:
    ld, s, o, e, n, c = r["load"], r["server"], r["overall"], r["errors"], r["nothing_lost"], r["client"]
    out = io.StringIO()
    print("=== mixed_load summary " + "=" * 64, file=out)
    print(f"load      {ld['connections']} connections over {s['command']} ({s['workers']}x{s['threads']}), "
          f"{ld['seconds']:g}s measured after {ld['warmup_seconds']:g}s warm-up; mix {ld['mix']}; "
          f"{r['dataset']['patients']:,} patients x {r['dataset']['per_patient']}", file=out)
    print(f"{'op':<11}{'ok':>8}{'req/s':>9}{'p50 ms':>9}{'p95 ms':>9}{'p99 ms':>9}{'max ms':>9}", file=out)
    for op, v in [*r["per_op"].items(), ("overall", o)]:
        print(f"{op:<11}{v['ok']:>8}{v['per_s']:>9}{v['p50_ms'] or '-':>9}{v['p95_ms'] or '-':>9}"
              f"{v['p99_ms'] or '-':>9}{v['max_ms'] or '-':>9}", file=out)
    print(f"errors    {e['total']} {e['by_op'] or ''} {e['sample'][:3] if e['sample'] else ''}".rstrip(), file=out)
    audit = ", ".join(f"{a} {v['acked']}" + (f" (missing {v['missing']}, dup {v['duplicated']})"
                                             if v["missing"] or v["duplicated"] else "")
                      for a, v in n["audit_by_action"].items())
    print(f"lost      {n['lost_total']}: memories {n['memories_found']}/{n['created_memories']} found "
          f"({n['vectors_found']} with their vectors), checkpoint "
          f"versions {n['checkpoint_versions_found']}/{n['checkpoints']}, workflows at their last version "
          f"{n['workflows_at_last_version']}/{n['workflows']}", file=out)
    print(f"audit     one row per acknowledged request: {audit}", file=out)
    roles = ", ".join(f"{p['role']} {p['rss_mb']} MB" for p in r["processes"] if p["role"] != "helper")
    print(f"memory    resident after the load: {roles}", file=out)
    print(f"workers   connections per web worker {ld['connections_per_worker']}; "
          f"{r['worker_cpu_ms_per_request']} ms web-worker CPU per request", file=out)
    print(f"client    {c['processes']} process(es), {c['cpu_ms_per_request']} ms CPU per request, "
          f"{c['share_of_machine']:.0%} of the machine's CPU; load average "
          f"{r['machine']['load_average_at_start'][0]} -> {r['machine']['load_average_at_end'][0]}", file=out)
    print("=" * 87, file=out)
    log(out.getvalue().rstrip())


if __name__ == "__main__":
    sys.exit(main())
