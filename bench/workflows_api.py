"""Benchmark workflow checkpoints through the whole stack, and outbox dispatch by one and by two workers.

    .venv/bin/python -m bench.workflows_api [--workflows 64] [--checkpoints 3000] [--concurrency 8]
                                            [--operations 1000] [--quick]

1. (Re)creates its own database ``anamnesis_bench_wf`` (never ``anamnesis``, ``anamnesis_test`` or
   ``anamnesis_bench``) and migrates it as the owner role.
2. Starts a local JWKS server and the real service under gunicorn (runtime role, RLS, audit) on 127.0.0.1, creates
   ``--workflows`` appointment-booking workflows (one patient each) through the API, then sends ``--checkpoints``
   checkpoints over ``--concurrency`` keep-alive connections, each thread moving its own workflows between
   ``propose_slots`` and ``collect_preferences`` with the version it expects (every answer must be 200 with the
   next version), and ``--reads`` resume reads (``GET /v1/workflows/{id}``).
3. Starts the fake insurer as its own process (``python -m tests.fakes.outside``), seeds ``--operations`` pending
   submissions in bulk, and runs ``manage.py run_worker --until-idle`` once with one worker and once with two at the
   same time (a fresh seed each). Throughput is operations settled between the first claim and the last record.
   Every operation must have succeeded, and the insurer must have seen each key exactly once. Before that, it
   shows the claim's plan as the runtime role with ``--settled`` operations done and 10 due (the outbox keeps
   settled rows): the claim must use the partial index, never scan the table.
4. Prints a summary and writes it to ``bench/results/workflows_api.json``.
"""

from __future__ import annotations

from bench.bootstrap import ORIGINAL_ENV, setup_django

DB_NAME = "anamnesis_bench_wf"
setup_django(DB_NAME)

import argparse  # noqa: E402
import http.client  # noqa: E402
import json  # noqa: E402
import os  # noqa: E402
import platform  # noqa: E402
import re  # noqa: E402
import subprocess  # noqa: E402
import sys  # noqa: E402
import tempfile  # noqa: E402
import threading  # noqa: E402
import time  # noqa: E402
import uuid  # noqa: E402
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
from workflows.services import payload_hash  # noqa: E402

BASE_DIR = Path(__file__).resolve().parent.parent
RESULTS_DIR = BASE_DIR / "bench" / "results"
HOST = "127.0.0.1"
PAYLOAD = {"referral_id": "REF-1", "diagnosis_code": "E11.9", "medication_code": "860975", "member_ref": "M-1"}

# Bulk seed of pending insurer submissions, one workflow each, as the superuser (the measured part is the worker).
SEED_OPERATIONS_SQL = """
WITH org AS (INSERT INTO organization (id, name, created_at, trusted_issuers)
             VALUES (%(org)s, 'bench-wf-ops', now(), ARRAY[%(issuer)s]) RETURNING id),
     wf AS (
       INSERT INTO agent_workflow (workflow_id, organization_id, patient_id, workflow_type, purpose, current_step,
                                   state, version, created_by, created_at, updated_at)
       SELECT gen_random_uuid(), (SELECT id FROM org), gen_random_uuid(), 'prior_authorization',
              'prior_authorization', 'submit_prior_authorization', '{"referral_verified": true}', 2, 'bench',
              now(), now()
         FROM generate_series(1, %(n)s)
       RETURNING workflow_id, organization_id, patient_id, purpose),
     ids AS (SELECT wf.*, gen_random_uuid() AS operation_id FROM wf)
INSERT INTO workflow_operation (operation_id, organization_id, patient_id, purpose, workflow_id, kind, system,
                                idempotency_key, request_key, payload, payload_hash, status, outcome_uncertain,
                                attempts, attempt_limit, next_attempt_at, requested_by, requested_at_version,
                                created_at, updated_at)
SELECT operation_id, organization_id, patient_id, purpose, workflow_id, 'submit_prior_authorization', 'insurer',
       'anamnesis-' || operation_id, NULL, %(payload)s::jsonb, %(hash)s, 'pending', false, 0, 8, now(), 'bench', 2,
       now(), now()
  FROM ids
"""

CLAIM_EXPLAIN_SQL = """
EXPLAIN (ANALYZE, BUFFERS)
SELECT operation_id FROM workflow_operation_dispatch
 WHERE system = ANY(ARRAY['insurer', 'scheduling']) AND status IN ('pending', 'in_flight', 'outcome_unknown')
   AND next_attempt_at <= now()
 ORDER BY next_attempt_at LIMIT 10 FOR UPDATE SKIP LOCKED
"""


def admin_conninfo() -> str:
    return common.admin_conninfo(DB_NAME)


def check_topology() -> None:
    common.check_topology(DB_NAME)


def prepare_database() -> float:
    for conn in connections.all():
        conn.close()
    started = time.perf_counter()
    bootstrap(settings.DB_TOPOLOGY, drop_first=True)
    call_command("migrate", database="owner", verbosity=0)
    connections["owner"].close()
    return time.perf_counter() - started


# --- measurements ------------------------------------------------------------------------------------------
@dataclass
class Run:
    latencies_ms: list[float] = field(default_factory=list)
    failures: list[str] = field(default_factory=list)
    wall_s: float = 0.0
    client_cpu_s: float = 0.0  # this process's CPU while driving: the load generator's share of the machine

    def summary(self) -> dict:
        lat = sorted(self.latencies_ms)
        ok = len(lat)
        return {"ok": ok, "failed": len(self.failures), "wall_s": round(self.wall_s, 2),
                "per_s": round(ok / self.wall_s, 1) if self.wall_s else 0.0,
                "p50_ms": percentile(lat, 50), "p95_ms": percentile(lat, 95), "p99_ms": percentile(lat, 99),
                "max_ms": round(lat[-1], 2) if lat else None,
                "client_cpu_share": round(self.client_cpu_s / self.wall_s / (os.cpu_count() or 1), 3)
                if self.wall_s else None}


class HttpSession:
    """One keep-alive connection to the service; reconnects once if the server closed it."""

    def __init__(self, port: int) -> None:
        self.port = port
        self.conn = http.client.HTTPConnection(HOST, port, timeout=30)

    def request(self, method: str, path: str, token: str, body: dict | None = None) -> tuple[int, bytes]:
        headers = {"Accept": "application/json", "Authorization": f"Bearer {token}"}
        data = None
        if body is not None:
            data = json.dumps(body)
            headers["Content-Type"] = "application/json"
        for attempt in (1, 2):
            try:
                self.conn.request(method, path, body=data, headers=headers)
                response = self.conn.getresponse()
                return response.status, response.read()
            except (http.client.RemoteDisconnected, ConnectionResetError, BrokenPipeError):
                self.conn.close()
                if attempt == 2:
                    raise
                self.conn = http.client.HTTPConnection(HOST, self.port, timeout=30)
        raise AssertionError("unreachable")

    def close(self) -> None:
        self.conn.close()


def start_service(args, jwks_url: str, log_path: Path) -> tuple[subprocess.Popen, int, object]:
    port = free_port()
    env = dict(ORIGINAL_ENV)
    env.update({"DJANGO_SETTINGS_MODULE": "config.settings", "ANAMNESIS_DB_NAME": DB_NAME,
                "OIDC_JWKS_URL": jwks_url, "OIDC_ISSUER": ISSUER, "OIDC_AUDIENCE": AUDIENCE, "LOG_LEVEL": "WARNING",
                "API_RATE_LIMIT_PER_SUBJECT": "1000000000", "API_RATE_LIMIT_PER_ORGANIZATION": "1000000000"})
    argv = [sys.executable, "-m", "gunicorn", "config.wsgi:application", "--bind", f"{HOST}:{port}",
            "--workers", str(args.gunicorn_workers), "--threads", str(args.gunicorn_threads),
            "--graceful-timeout", "10"]
    log_file = open(log_path, "w")  # closed by stop_process
    proc = subprocess.Popen(argv, cwd=BASE_DIR, env=env, stdout=log_file, stderr=subprocess.STDOUT)
    common.wait_until_ready(proc, port, log_file, log_path, 60, stop_process, name="gunicorn")
    return proc, port, log_file


def stop_process(proc: subprocess.Popen, log_file=None) -> int | None:
    if proc.poll() is None:
        proc.terminate()
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=10)
    if log_file is not None:
        log_file.close()
    return proc.returncode


class WorkerRun:
    """One ``manage.py run_worker`` process. Its stdout (``--stats-json`` ends it with one JSON line) and stderr
    (logs, shown when something goes wrong) go to temporary files, read once it has ended."""

    def __init__(self, env: dict[str, str], *args: str) -> None:
        self.stdout = tempfile.TemporaryFile(mode="w+")
        self.stderr = tempfile.TemporaryFile(mode="w+")
        self.proc = subprocess.Popen([sys.executable, "manage.py", "run_worker", *args], cwd=BASE_DIR, env=env,
                                     stdout=self.stdout, stderr=self.stderr, text=True)
        self.lines: list[str] = []

    def wait(self, timeout: float) -> int:
        try:
            rc = self.proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
            raise RuntimeError(f"the worker did not finish within {timeout}s: {self.describe()}") from None
        self.stdout.seek(0)
        self.lines = self.stdout.read().splitlines()
        return rc

    def describe(self) -> str:
        self.stderr.seek(0)
        return f"rc={self.proc.poll()} stdout={self.lines[-5:]} stderr={self.stderr.read()[-3000:]}"


def drive_checkpoints(port: int, plan: list[list[tuple[str, str]]], per_thread: int) -> Run:
    """Each thread owns a list of (workflow_id, token) and cycles through it, one checkpoint at a time."""
    run = Run()
    lock = threading.Lock()

    def worker(owned: list[tuple[str, str]]) -> None:
        session = HttpSession(port)
        versions = {wf: 1 for wf, _ in owned}
        steps = {wf: "collect_preferences" for wf, _ in owned}
        try:
            for i in range(per_thread):
                wf, token = owned[i % len(owned)]
                nxt = "propose_slots" if steps[wf] == "collect_preferences" else "collect_preferences"
                body = {"expected_version": versions[wf], "next_step": nxt, "state_patch": {"round": i}}
                t0 = time.perf_counter()
                try:
                    status, raw = session.request("POST", f"/v1/workflows/{wf}/checkpoint", token, body)
                except OSError as exc:
                    with lock:
                        run.failures.append(type(exc).__name__)
                    continue
                latency = (time.perf_counter() - t0) * 1000
                problem = None
                if status != 200:
                    problem = f"HTTP {status}: {raw[:120]!r}"
                else:
                    answer = json.loads(raw)
                    if answer["version"] != versions[wf] + 1 or answer["current_step"] != nxt:
                        problem = "unexpected version or step"
                    versions[wf], steps[wf] = answer["version"], answer["current_step"]
                with lock:
                    (run.failures.append(problem) if problem else run.latencies_ms.append(latency))
        finally:
            session.close()

    threads = [threading.Thread(target=worker, args=(owned,), daemon=True) for owned in plan]
    started, cpu = time.perf_counter(), time.process_time()
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    run.wall_s, run.client_cpu_s = time.perf_counter() - started, time.process_time() - cpu
    return run


def drive_reads(port: int, plan: list[list[tuple[str, str]]], per_thread: int) -> Run:
    run = Run()
    lock = threading.Lock()

    def worker(owned):
        session = HttpSession(port)
        try:
            for i in range(per_thread):
                wf, token = owned[i % len(owned)]
                t0 = time.perf_counter()
                status, raw = session.request("GET", f"/v1/workflows/{wf}", token)
                latency = (time.perf_counter() - t0) * 1000
                ok = status == 200 and "next_safe_action" in json.loads(raw)
                with lock:
                    (run.latencies_ms.append(latency) if ok else run.failures.append(f"HTTP {status}"))
        finally:
            session.close()

    threads = [threading.Thread(target=worker, args=(owned,), daemon=True) for owned in plan]
    started, cpu = time.perf_counter(), time.process_time()
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    run.wall_s, run.client_cpu_s = time.perf_counter() - started, time.process_time() - cpu
    return run


def api_phase(args) -> dict:
    keys = SigningKey()
    org = uuid.uuid4()
    patients = [uuid.uuid4() for _ in range(args.workflows)]
    tokens = {p: mint(keys, sub=f"patient-{p}", org_id=org, patient_id=p, scope=PATIENT_SCOPES, exp_in=3600)
              for p in patients}
    jwks = JwksServer(keys)
    log_path = RESULTS_DIR / "workflows_gunicorn.log"
    proc = log_file = None
    try:
        proc, port, log_file = start_service(args, jwks.url, log_path)
        log(f"gunicorn ({args.gunicorn_workers}x{args.gunicorn_threads}) ready on {HOST}:{port}")
        with psycopg.connect(admin_conninfo(), autocommit=True) as conn:
            conn.execute("INSERT INTO organization (id, name, created_at, trusted_issuers) "
                         "VALUES (%s, 'bench-wf-api', now(), ARRAY[%s])", (org, ISSUER))
        setup = HttpSession(port)
        owned: list[tuple[str, str]] = []
        for p in patients:
            status, raw = setup.request("POST", "/v1/workflows", tokens[p],
                                        {"workflow_type": "appointment_booking", "patient_id": str(p)})
            if status != 201:
                raise RuntimeError(f"creating a workflow: HTTP {status} {raw[:200]!r}")
            owned.append((json.loads(raw)["workflow_id"], tokens[p]))
        setup.close()
        plan = [owned[i::args.concurrency] for i in range(args.concurrency)]
        per_thread = max(1, args.checkpoints // args.concurrency)
        warm = drive_checkpoints(port, [[o[0]] for o in plan], min(per_thread, 20))  # own workflows, unmeasured
        if warm.failures:
            raise RuntimeError(f"warm-up failed: {warm.failures[:3]}")
        plan = [o[1:] or o for o in plan]  # measured on workflows still at version 1 (warm-up used the first)
        checkpoints = drive_checkpoints(port, plan, per_thread)
        reads = drive_reads(port, plan, max(1, args.reads // args.concurrency))
    finally:
        if proc is not None:
            stop_process(proc, log_file)
        jwks.stop()
    return {"workflows": args.workflows, "concurrency": args.concurrency,
            "gunicorn": f"{args.gunicorn_workers}x{args.gunicorn_threads}",
            "checkpoints": checkpoints.summary(), "resume_reads": reads.summary(),
            "failures_sample": (checkpoints.failures + reads.failures)[:5]}


# --- outbox dispatch ---------------------------------------------------------------------------------------
def start_fake_insurer() -> tuple[subprocess.Popen, str]:
    proc = subprocess.Popen([sys.executable, "-m", "tests.fakes.outside", "--system", "insurer", "--port", "0"],
                            cwd=BASE_DIR, stdout=subprocess.PIPE, text=True)
    line = proc.stdout.readline().strip()
    match = re.match(r"listening (http://127\.0\.0\.1:\d+)$", line)
    if not match:
        stop_process(proc)
        raise RuntimeError(f"the fake insurer did not start: {line!r}")
    return proc, match.group(1)


def fake_control(url: str, body: dict) -> dict:
    host, port = url.removeprefix("http://").split(":")
    conn = http.client.HTTPConnection(host, int(port), timeout=10)
    try:
        conn.request("POST", "/_fake/control", body=json.dumps(body), headers={"Content-Type": "application/json"})
        return json.loads(conn.getresponse().read())
    finally:
        conn.close()


def seed_operations(n: int) -> None:
    with psycopg.connect(admin_conninfo()) as conn:
        conn.execute(SEED_OPERATIONS_SQL, {"org": uuid.uuid4(), "n": n, "payload": json.dumps(PAYLOAD),
                                           "hash": payload_hash(PAYLOAD), "issuer": ISSUER})
        conn.commit()
    with psycopg.connect(admin_conninfo(), autocommit=True) as conn:
        conn.execute("VACUUM (ANALYZE) agent_workflow, workflow_operation")


def operation_counts() -> dict[str, int]:
    with psycopg.connect(admin_conninfo(), autocommit=True) as conn:
        return dict(conn.execute("SELECT status, count(*) FROM workflow_operation GROUP BY status").fetchall())


SETTLE_ALL_BUT_SQL = """
UPDATE workflow_operation SET status = 'succeeded', result = '{"authorization_id": "PA-seed"}',
       completed_at = now(), next_attempt_at = NULL
 WHERE operation_id IN (SELECT operation_id FROM workflow_operation ORDER BY operation_id OFFSET %s)
"""


def explain_claim(settled: int, due: int) -> tuple[str, dict]:
    """The claim's plan as the runtime role in a worker transaction, in a steady state: ``settled`` operations done
    (the outbox keeps them), ``due`` waiting."""
    seed_operations(settled + due)
    with psycopg.connect(admin_conninfo(), autocommit=True) as conn:
        conn.execute(SETTLE_ALL_BUT_SQL, [due])
        conn.execute("VACUUM (ANALYZE) workflow_operation")
    with psycopg.connect(settings.DB_TOPOLOGY.runtime.conninfo()) as conn:
        conn.execute("SELECT set_config('app.worker', 'bench', true)")
        plan = "\n".join(r[0] for r in conn.execute(CLAIM_EXPLAIN_SQL).fetchall())
        conn.rollback()
    indexes = sorted(set(re.findall(r"(?:Index (?:Only )?Scan(?: Backward)?|Bitmap Index Scan) (?:using|on) (\w+)",
                                    plan)))
    execution = re.search(r"Execution Time: ([\d.]+) ms", plan)
    with psycopg.connect(admin_conninfo(), autocommit=True) as conn:
        conn.execute("SET session_replication_role = replica")
        conn.execute("TRUNCATE workflow_operation, agent_workflow, organization CASCADE")
    return plan, {"settled_rows": settled, "due_rows": due, "indexes": indexes,
                  "seq_scan": "Seq Scan on workflow_operation" in plan,
                  "execution_ms": float(execution.group(1)) if execution else None}


def dispatch_run(args, url: str, workers: int) -> dict:
    fake_control(url, {"mode": "reset"})
    seed_operations(args.operations)
    env = dict(ORIGINAL_ENV)
    env.update({"ANAMNESIS_DB_NAME": DB_NAME, "DJANGO_SETTINGS_MODULE": "config.settings", "LOG_LEVEL": "WARNING",
                "INSURER_BASE_URL": url, "WORKFLOW_WORKER_BATCH_SIZE": str(args.batch_size),
                "WORKFLOW_WORKER_POLL_SECONDS": "0.05"})
    started = time.perf_counter()
    procs = [WorkerRun(env, "--until-idle", "--stats-json", "--name", f"bench-{i}") for i in range(workers)]
    problems = []
    for p in procs:
        if p.wait(timeout=args.worker_timeout) != 0:
            problems.append(p.describe())
    wall = time.perf_counter() - started
    stats = [json.loads(p.lines[-1]) for p in procs if p.lines and p.lines[-1].startswith("{")]
    firsts = [s["first_claim_epoch"] for s in stats if s["first_claim_epoch"]]
    lasts = [s["last_record_epoch"] for s in stats if s["last_record_epoch"]]
    busy = (max(lasts) - min(firsts)) if firsts and lasts else 0.0
    counts = operation_counts()
    insurer = fake_control(url, {"mode": "normal"})
    with psycopg.connect(admin_conninfo(), autocommit=True) as conn:  # the next run seeds afresh
        conn.execute("SET session_replication_role = replica")
        conn.execute("TRUNCATE workflow_operation, agent_workflow_transition, agent_workflow, audit_event, "
                     "organization CASCADE")
    succeeded = counts.get("succeeded", 0)
    return {"workers": workers, "operations": args.operations, "batch_size": args.batch_size,
            "succeeded": succeeded, "statuses": counts, "busy_s": round(busy, 3),
            "per_s": round(succeeded / busy, 1) if busy else 0.0, "wall_s_with_startup": round(wall, 2),
            "per_worker": [{k: s[k] for k in ("claimed", "succeeded", "lost_claims", "errors")} for s in stats],
            "insurer": {"created": insurer["created"], "submissions": insurer["submissions_total"],
                        "max_submissions_per_key": insurer["max_submissions_per_key"]},
            "problems": problems[:2]}


def dispatch_phase(args) -> dict:
    proc, url = start_fake_insurer()
    try:
        plan, plan_facts = explain_claim(args.settled, 10)
        log(f"claim plan (runtime role, worker transaction; {args.settled} settled, 10 due):\n" + plan)
        one = dispatch_run(args, url, 1)
        log(f"1 worker: {one['succeeded']}/{args.operations} in {one['busy_s']}s")
        two = dispatch_run(args, url, 2)
        log(f"2 workers: {two['succeeded']}/{args.operations} in {two['busy_s']}s")
    finally:
        stop_process(proc)
    return {"one_worker": one, "two_workers": two, "claim_plan": plan_facts}


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(prog="python -m bench.workflows_api", description=__doc__.split("\n")[0])
    p.add_argument("--workflows", type=int, default=64, help="workflows (one patient each) the checkpoints cycle")
    p.add_argument("--checkpoints", type=int, default=3000, help="measured checkpoints")
    p.add_argument("--reads", type=int, default=1000, help="measured resume reads")
    p.add_argument("--concurrency", type=int, default=8, help="client threads (keep-alive connections)")
    p.add_argument("--gunicorn-workers", type=int, default=2)
    p.add_argument("--gunicorn-threads", type=int, default=4)
    p.add_argument("--operations", type=int, default=1000, help="operations per dispatch run")
    p.add_argument("--batch-size", type=int, default=10, help="operations a worker claims at once")
    p.add_argument("--settled", type=int, default=20000, help="settled operations in the claim-plan check")
    p.add_argument("--worker-timeout", type=float, default=600.0)
    p.add_argument("--quick", action="store_true", help="small sizes, for a smoke run")
    p.add_argument("--output", type=Path, default=RESULTS_DIR / "workflows_api.json")
    args = p.parse_args(argv)
    if args.quick:
        args.workflows, args.checkpoints, args.reads, args.operations, args.settled = 16, 300, 100, 100, 2000
    if min(args.workflows, args.checkpoints, args.concurrency, args.operations, args.batch_size) < 1:
        p.error("sizes must be at least 1")
    if args.workflows < 2 * args.concurrency:
        p.error("--workflows must be at least twice --concurrency (each thread owns its own)")
    return args


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    check_topology()
    RESULTS_DIR.mkdir(parents=True, exist_ok=True)
    log(f"benchmark database {DB_NAME}")
    migrate_s = prepare_database()
    log(f"created and migrated {DB_NAME} in {migrate_s:.1f}s")
    api = api_phase(args)
    dispatch = dispatch_phase(args)
    with psycopg.connect(admin_conninfo(), autocommit=True) as conn:
        version = conn.execute("SHOW server_version").fetchone()[0]
    result = {"benchmark": "workflows_api", "at": datetime.now(UTC).isoformat(timespec="seconds"),
              "machine": {"cpus": os.cpu_count(), "python": platform.python_version(), "postgres": version},
              "api": api, "dispatch": dispatch}
    args.output.parent.mkdir(parents=True, exist_ok=True)
    args.output.write_text(json.dumps(result, indent=2) + "\n")
    print_summary(result)
    log(f"written to {args.output}")
    ok = (not api["failures_sample"] and not dispatch["claim_plan"]["seq_scan"]
          and all(run["succeeded"] == args.operations and run["insurer"]["max_submissions_per_key"] == 1
                  and run["insurer"]["created"] == args.operations and not run["problems"]
                  for run in (dispatch["one_worker"], dispatch["two_workers"])))
    return 0 if ok else 1


def print_summary(r: dict) -> None:
    a, c, rd = r["api"], r["api"]["checkpoints"], r["api"]["resume_reads"]
    one, two = r["dispatch"]["one_worker"], r["dispatch"]["two_workers"]
    lines = [
        "=== workflows_api summary " + "=" * 40,
        f"machine      {r['machine']['cpus']} CPUs, PostgreSQL {r['machine']['postgres']}; gunicorn {a['gunicorn']}, "
        f"{a['concurrency']} client threads, {a['workflows']} workflows",
        f"checkpoints  {c['per_s']:>7} /s  p50 {c['p50_ms']} ms  p95 {c['p95_ms']} ms  p99 {c['p99_ms']} ms  "
        f"ok {c['ok']} failed {c['failed']}  (the client used {c['client_cpu_share']:.0%} of the machine)",
        f"resume reads {rd['per_s']:>7} /s  p50 {rd['p50_ms']} ms  p95 {rd['p95_ms']} ms  p99 {rd['p99_ms']} ms  "
        f"ok {rd['ok']} failed {rd['failed']}",
    ]
    for label, run in (("1 worker", one), ("2 workers", two)):
        lines.append(f"dispatch     {label:<9} {run['per_s']:>7} ops/s  ({run['succeeded']}/{run['operations']} in "
                     f"{run['busy_s']}s; insurer saw {run['insurer']['submissions']} submissions, at most "
                     f"{run['insurer']['max_submissions_per_key']} per key)")
    plan = r["dispatch"]["claim_plan"]
    lines.append(f"claim plan   {plan['settled_rows']} settled + {plan['due_rows']} due: indexes "
                 f"{', '.join(plan['indexes']) or 'none'}; seq scan {plan['seq_scan']}; "
                 f"execution {plan['execution_ms']} ms")
    lines.append("=" * 66)
    log("\n".join(lines))


if __name__ == "__main__":
    sys.exit(main())
