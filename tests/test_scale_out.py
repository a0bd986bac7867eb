"""Ready to scale out: several service processes behind PgBouncer in transaction pooling mode.

* No identity survives from one transaction to the next on a shared server connection: two tenants' patients
  interleaved over two service processes, thousands of requests through fewer server connections than clients,
  zero cross-reads.
* Nothing another node needs lives in process memory: one client moves between the two processes and sees its
  own writes whichever answers.

PgBouncer is Debian's package (installed here when missing, as ``make test`` does), started by the test itself.
"""

from __future__ import annotations

import os
import pwd
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import httpx
import psycopg
import pytest
from django.conf import settings

from tests.conftest import memory_body
from tests.support import AUDIENCE, ISSUER

# Timing-sensitive (faults, failover, timeouts): run alone, after the suite's parallel part (`make test`)
pytestmark = [pytest.mark.slow, pytest.mark.serial]

BASE_DIR = Path(__file__).resolve().parent.parent
POOL_SIZE = 2  # server connections PgBouncer may open: far fewer than the service's client connections


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_for_port(port: int, proc: subprocess.Popen, timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"process exited with {proc.returncode}")
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                return
        except OSError:
            time.sleep(0.2)
    raise RuntimeError(f"nothing listens on {port}")


def pgbouncer_binary() -> str:
    found = shutil.which("pgbouncer") or ("/usr/sbin/pgbouncer" if os.path.exists("/usr/sbin/pgbouncer") else None)
    if found is None:  # like `make browser`: CI starts on a fresh machine
        subprocess.run("apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq pgbouncer",
                       shell=True, check=True)  # noqa: S602 (fixed command)
        found = shutil.which("pgbouncer") or "/usr/sbin/pgbouncer"
    return found


@pytest.fixture(scope="module")
def pgbouncer():
    runtime = settings.DB_TOPOLOGY.runtime
    port = free_port()
    workdir = Path(tempfile.mkdtemp(prefix="pgbouncer-"))
    server = f"host={runtime.host}" + (f" port={runtime.port}" if runtime.port else "")
    (workdir / "users.txt").write_text(f'"{runtime.user}" ""\n"pgb_admin" ""\n')
    (workdir / "pgbouncer.ini").write_text(f"""[databases]
{runtime.name} = {server} dbname={runtime.name}
[pgbouncer]
listen_addr = 127.0.0.1
listen_port = {port}
unix_socket_dir =
auth_type = trust
auth_file = {workdir}/users.txt
admin_users = pgb_admin
pool_mode = transaction
default_pool_size = {POOL_SIZE}
min_pool_size = 0
reserve_pool_size = 0
max_client_conn = 500
server_reset_query =
logfile = {workdir}/pgbouncer.log
""")
    argv = [pgbouncer_binary(), str(workdir / "pgbouncer.ini")]
    if os.geteuid() == 0:  # PgBouncer refuses root: run as whoever owns the data folder (its socket is there)
        owner = pwd.getpwuid(os.stat(runtime.host).st_uid).pw_name if os.path.isdir(runtime.host) else "nobody"
        shutil.chown(workdir, owner)
        for f in workdir.iterdir():
            shutil.chown(f, owner)
        argv[1:1] = ["-u", owner]
    proc = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)  # noqa: S603
    try:
        wait_for_port(port, proc, timeout=20)
        PGBOUNCER_LOGS[port] = workdir / "pgbouncer.log"
        yield port
    finally:
        proc.terminate()
        proc.wait(10)
        shutil.rmtree(workdir, ignore_errors=True)


PGBOUNCER_LOGS: dict[int, Path] = {}


def starvation_report(port: int) -> str:
    """What PgBouncer and PostgreSQL say when requests failed: its pools, clients and server connections, the
    runtime role's sessions (state, wait, age of the transaction; no query text), and the end of its log."""
    from tests.conftest import admin_connect

    parts = []
    for command in ("SHOW POOLS", "SHOW CLIENTS", "SHOW SERVERS"):
        try:
            parts.append(f"{command}: {admin_console(port, command)}")
        except psycopg.Error as exc:
            parts.append(f"{command}: {type(exc).__name__}")
    with admin_connect() as conn:
        parts.append("pg_stat_activity: " + repr(conn.execute(
            "SELECT pid, state, wait_event_type, wait_event, now() - xact_start, now() - state_change "
            "FROM pg_stat_activity WHERE usename = %s", (settings.DB_TOPOLOGY.runtime.user,)).fetchall()))
    log = PGBOUNCER_LOGS.get(port)
    if log is not None and log.exists():
        parts.append("pgbouncer.log (end):\n" + log.read_text(errors="replace")[-6000:])
    return "\n".join(parts)


def admin_console(port: int, command: str) -> list[tuple]:
    with psycopg.connect(f"host=127.0.0.1 port={port} dbname=pgbouncer user=pgb_admin", autocommit=True,
                         prepare_threshold=None) as conn:
        return conn.execute(command).fetchall()


@pytest.fixture(scope="module")
def embedding_server():
    """The machine's one embedding process, as ``manage.py serve`` runs it (here in a thread of the test process)."""
    import threading

    from memory.embeddings import provider
    from memory.management.commands.run_embedding_server import make_server

    model = provider()
    model.embed(["warm up"])
    httpd = make_server("127.0.0.1", 0, model)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}"
    httpd.shutdown()
    httpd.server_close()


@pytest.fixture
def services(committed_db, pgbouncer, identity_provider, embedding_server):
    """Two service processes (gunicorn, 2 workers x 4 threads each) whose runtime connections go through PgBouncer."""
    runtime, owner = settings.DB_TOPOLOGY.runtime, settings.DB_TOPOLOGY.owner
    env = dict(os.environ, DJANGO_SETTINGS_MODULE="config.settings",
               DATABASE_URL=f"postgresql://{runtime.user}@127.0.0.1:{pgbouncer}/{runtime.name}",
               DATABASE_OWNER_URL=f"postgresql://{owner.user}@/{owner.name}?host={owner.host}",
               DB_POOL_MAX_SIZE="4", OIDC_JWKS_URL=identity_provider.url, OIDC_ISSUER=ISSUER,
               OIDC_AUDIENCE=AUDIENCE, LOG_LEVEL="WARNING", EMBEDDING_PROVIDER="local-server",
               EMBEDDING_BASE_URL=embedding_server, EMBEDDING_TIMEOUT_SECONDS="30",
               # PgBouncer 1.18 cannot keep protocol-level prepared statements in transaction mode (1.21+ can)
               DB_PREPARE_THRESHOLD="off")
    procs, ports = [], []
    # what the services say (warnings and up: a worker timeout, a pool that starved) is shown with a failure
    logs = [tempfile.TemporaryFile() for _ in range(2)]
    try:
        for log in logs:
            port = free_port()
            procs.append(subprocess.Popen(  # noqa: S603 (fixed argv)
                [sys.executable, "-m", "gunicorn", "config.wsgi:application", "--bind", f"127.0.0.1:{port}",
                 "--workers", "2", "--threads", "4", "--log-level", "warning"],
                env=env, cwd=BASE_DIR, stdout=subprocess.DEVNULL, stderr=log))
            ports.append(port)
        for port, proc in zip(ports, procs, strict=True):
            wait_for_port(port, proc)
        yield [f"http://127.0.0.1:{p}" for p in ports]
    finally:
        for proc in procs:
            proc.terminate()
        for proc in procs:
            try:
                proc.wait(30)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
        for number, log in enumerate(logs):
            log.seek(0)
            said = log.read()[-20000:].decode(errors="replace")
            log.close()
            if said.strip():
                print(f"--- service {number} stderr (last 20 kB) ---\n{said}", file=sys.stderr)


def test_no_identity_crosses_transactions_on_shared_server_connections(world, services, pgbouncer):
    """Two organisations' patients, interleaved over two processes and eight client threads sharing two server
    connections: every answer holds exactly the caller's own memories, never the other tenant's."""
    tenants = []
    for org, patient, times in ((world.org, world.patient_a, ("07:00", "18:00")),
                                (world.other_org, world.patient_b, ("09:30",))):
        cid = world.consent(patient, org=org)
        api = world.patient(patient, org=org)
        for i, at in enumerate(times):
            kind = "earliest_time" if i == 0 else "latest_time"
            assert api.post(f"/v1/patients/{patient}/memories", memory_body(cid, kind, at)).status_code == 201
        tenants.append((patient, api.token, len(times)))

    def call(i: int) -> str | None:
        try:
            return read_both(i)
        except httpx.TimeoutException as exc:
            return f"{type(exc).__name__} at {time.strftime('%H:%M:%S')}"

    def read_both(i: int) -> str | None:
        patient, token, expected = tenants[i % 2]
        base = services[(i // 2) % 2]
        with httpx.Client(base_url=base, headers={"Authorization": f"Bearer {token}"}, timeout=30) as client:
            r = client.get(f"/v1/patients/{patient}/memories")
            if r.status_code != 200:
                return f"HTTP {r.status_code} at {time.strftime('%H:%M:%S')}"
            items = r.json()["items"]
            if len(items) != expected or any(item["patient_id"] != str(patient) for item in items):
                return f"cross-read or loss: {len(items)} items for {patient}"
            # the other tenant's patient, with this token: nothing (the same answer as for an unknown patient)
            other = tenants[(i + 1) % 2][0]
            r = client.get(f"/v1/patients/{other}/memories")
            if r.status_code == 200 and r.json()["items"]:
                return "cross-read through another patient's path"
        return None

    requests = 1200  # x2 calls each
    with ThreadPoolExecutor(max_workers=8) as pool:
        problems = [p for p in pool.map(call, range(requests)) if p]
    assert problems == [], starvation_report(pgbouncer)
    servers = [row for row in admin_console(pgbouncer, "SHOW SERVERS")]
    assert 0 < len(servers) <= POOL_SIZE  # the requests really shared a couple of server connections
    # And on such a shared connection, a transaction that sets no identity sees none.
    with psycopg.connect(f"host=127.0.0.1 port={pgbouncer} dbname={settings.DB_TOPOLOGY.runtime.name} "
                         f"user={settings.DB_TOPOLOGY.runtime.user}", prepare_threshold=None) as conn:
        for _ in range(50):
            with conn.transaction():
                row = conn.execute("SELECT current_setting('app.org_id', true), "
                                   "current_setting('app.patient_self_id', true), "
                                   "(SELECT count(*) FROM patient_memory)").fetchone()
            assert row == ("", "", 0) or row == (None, None, 0)


def test_a_client_slow_to_leave_its_pipeline_parks_no_server_connection(pgbouncer, django_db_setup, monkeypatch):
    """Two clients whose threads lose the CPU right after their pipeline's Sync (0.2 s here) leave PgBouncer's two
    server connections free: a third client is served at once. It was not (it waited until one of the two sent
    its next request): psycopg wrote a Flush after the Sync, which reached PgBouncer 1.18 after the Sync's answer
    had released the server, so PgBouncer linked a server to the idle client for it and waited for an answer that
    never comes. With a loaded machine that parked servers often enough for requests to wait 30 s and more."""
    from psycopg import _pipeline_base

    fetch = _pipeline_base.BasePipeline._fetch_gen

    def descheduled_before_a_flush(self, *, flush):
        if flush and self.result_queue:
            time.sleep(0.2)
        return (yield from fetch(self, flush=flush))

    monkeypatch.setattr(_pipeline_base.BasePipeline, "_fetch_gen", descheduled_before_a_flush)
    runtime = settings.DB_TOPOLOGY.runtime
    dsn = f"host=127.0.0.1 port={pgbouncer} dbname={runtime.name} user={runtime.user}"
    clients = [psycopg.connect(dsn, autocommit=True, prepare_threshold=None) for _ in range(POOL_SIZE + 1)]
    try:
        for client in clients[:POOL_SIZE]:
            with client.pipeline():
                client.execute("SELECT pg_sleep(0.01)")
        answered: list = []
        started = time.monotonic()
        reader = threading.Thread(target=lambda: answered.append(clients[-1].execute("SELECT 2").fetchone()),
                                  daemon=True)
        reader.start()
        reader.join(5)
        assert answered == [(2,)], f"still waiting after {time.monotonic() - started:.1f} s"
    finally:
        for client in clients:
            client.close()


def test_a_client_moves_between_service_processes(world, services):
    """Writes through one process are read, corrected and audited through the other: no node keeps anything the
    next one needs (tokens are verified by each, sessions and rate of writes live in PostgreSQL)."""
    cid = world.consent(world.patient_a)
    token = world.patient(world.patient_a).token
    headers = {"Authorization": f"Bearer {token}"}
    path = f"/v1/patients/{world.patient_a}/memories"
    one, two = (httpx.Client(base_url=b, headers=headers, timeout=30) for b in services)
    with one, two:
        r = one.post(path, json=memory_body(cid, "earliest_time", "08:00"))
        assert r.status_code == 201, r.text
        memory_id = r.json()["memory_id"]
        listed = two.get(path).json()["items"]
        assert [i["memory_id"] for i in listed] == [memory_id]
        r = two.post(f"{path}/{memory_id}/correct", json={"fact": {"kind": "earliest_time", "time": "08:30"}})
        assert r.status_code == 201, r.text
        assert [i["fact"]["time"] for i in one.get(path).json()["items"]] == ["08:30"]
        request_id = f"moved-{uuid.uuid4()}"
        assert two.get(path, headers={"X-Request-ID": request_id}).status_code == 200
        events = one.get("/v1/audit-events").json()
        rows = events["items"] if isinstance(events, dict) else events
        assert any(e.get("correlation_id") == request_id for e in rows)


@pytest.mark.django_db
def test_every_patient_scoped_table_carries_the_organisation():
    """The distribution column Citus would use (docs/scaling.md): every table holding a patient's data has a NOT
    NULL organization_id, and the unique rules that scope patient data lead with it."""
    from tests.conftest import admin_connect

    with admin_connect() as conn:
        rows = conn.execute("""
            SELECT c.relname,
                   bool_or(a.attname = 'organization_id' AND a.attnotnull) AS has_org
              FROM pg_class c
              JOIN pg_namespace n ON n.oid = c.relnamespace AND n.nspname = 'public'
              JOIN pg_attribute a ON a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped
             WHERE c.relkind IN ('r', 'p')
             GROUP BY c.relname
            HAVING bool_or(a.attname = 'patient_id')""").fetchall()
        scoped_unique = dict(conn.execute("""
            SELECT i.relname, pg_get_indexdef(i.oid) FROM pg_index x JOIN pg_class i ON i.oid = x.indexrelid
             WHERE i.relname IN ('patient_memory_one_current', 'consent_one_granted_per_purpose',
                                 'grant_one_open_per_purpose', 'conversation_session_scope_key',
                                 'workflow_scope_unique')""").fetchall())
    assert len(rows) >= 15
    assert [table for table, has_org in rows if not has_org] == []
    assert len(scoped_unique) == 5 and all("organization_id" in d for d in scoped_unique.values())
