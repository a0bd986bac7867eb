"""Benchmark the agents' front door: the same read over REST and as an MCP tool, and the two ways to serve.

    .venv/bin/python -m bench.mcp_tools [--calls 300] [--seconds 8] [--concurrency 8]

1. (Re)creates its own database ``anamnesis_bench_mcp`` and migrates it as the owner role; a local JWKS server signs
   the tokens.
2. Serves the service with ``manage.py serve`` (gunicorn on config.wsgi: /mcp in the MCP SDK's app through a2wsgi's
   ASGIMiddleware) and, for comparison, ``manage.py serve --asgi`` (uvicorn on config.asgi: Django in a2wsgi's
   thread pool, /mcp in the MCP SDK), both 2 workers x 4 threads, with EMBEDDING_PROVIDER=openai pointed at nothing
   (no model is loaded; the measured read embeds nothing).
3. One patient with a consent and two memories. Against each server: sequential latency of
   ``GET /v1/patients/{p}/memories`` over REST and of the ``list_memories`` tool over MCP (the SDK's client, one
   connection), ``--calls`` each; then REST throughput over ``--concurrency`` keep-alive connections for
   ``--seconds``.
4. Prints a summary and writes it to ``bench/results/mcp_tools.json``.
"""

from __future__ import annotations

from bench.bootstrap import ORIGINAL_ENV, setup_django

DB_NAME = "anamnesis_bench_mcp"
setup_django(DB_NAME)

import argparse  # noqa: E402
import json  # noqa: E402
import os  # noqa: E402
import subprocess  # noqa: E402
import sys  # noqa: E402
import threading  # noqa: E402
import time  # noqa: E402
import uuid  # noqa: E402
from pathlib import Path  # noqa: E402

import anyio  # noqa: E402
import httpx  # noqa: E402
import httpx2  # noqa: E402
from django.conf import settings  # noqa: E402
from django.core.management import call_command  # noqa: E402
from django.db import connections  # noqa: E402
from mcp import Client  # noqa: E402
from mcp.client.streamable_http import streamable_http_client  # noqa: E402

from bench import common  # noqa: E402
from bench.common import HOST, free_port, log, percentile  # noqa: E402
from bench.tokens import (  # noqa: E402
    AUDIENCE,
    ISSUER,
    PATIENT_SCOPES,
    JwksServer,
    SigningKey,
    mint,
    register_organization,
)
from core.bootstrap import bootstrap  # noqa: E402

BASE_DIR = Path(__file__).resolve().parent.parent
RESULTS_DIR = BASE_DIR / "bench" / "results"


def prepare_database() -> None:
    for conn in connections.all():
        conn.close()
    bootstrap(settings.DB_TOPOLOGY, drop_first=True)
    call_command("migrate", database="owner", verbosity=0)
    connections["owner"].close()


def seed(url: str, token: str, patient: uuid.UUID, path: str) -> None:
    with httpx.Client(base_url=url, headers={"Authorization": f"Bearer {token}"}) as http:
        cid = http.post(f"/v1/patients/{patient}/consents", json={"purpose": "appointment_scheduling"}).json()[
            "consent_record_id"]
        for kind, value in (("earliest_time", "10:00"), ("latest_time", "16:00")):
            r = http.post(path, json={"memory_type": "scheduling_preference", "fact": {"kind": kind, "time": value},
                                      "consent_purpose": "appointment_scheduling", "consent_record_id": cid})
            assert r.status_code == 201, r.text


def start(jwks_url: str, *, asgi: bool, log_path: Path) -> tuple[subprocess.Popen, str]:
    port = free_port()
    url = f"http://{HOST}:{port}"
    env = {**ORIGINAL_ENV, "DJANGO_SETTINGS_MODULE": "config.settings", "ANAMNESIS_DB_NAME": DB_NAME,
           "OIDC_JWKS_URL": jwks_url, "OIDC_ISSUER": ISSUER, "OIDC_AUDIENCE": AUDIENCE, "LOG_LEVEL": "WARNING",
           "MCP_RESOURCE_URL": f"{url}/mcp", "EMBEDDING_PROVIDER": "openai",
           "EMBEDDING_BASE_URL": f"http://{HOST}:9",
           # one subject sends every request: the limiter's statement is measured, its limits are not reached
           "API_RATE_LIMIT_PER_SUBJECT": "1000000000", "API_RATE_LIMIT_PER_ORGANIZATION": "1000000000"}
    argv = [sys.executable, "manage.py", "serve", "--bind", f"{HOST}:{port}", "--workers", "2", "--threads", "4"]
    if asgi:
        argv.append("--asgi")
    out = open(log_path, "w")  # noqa: SIM115 (closed with the process)
    proc = subprocess.Popen(argv, cwd=BASE_DIR, env=env, stdout=out, stderr=subprocess.STDOUT,
                            start_new_session=True)
    deadline = time.monotonic() + 90
    while True:
        if proc.poll() is not None:
            raise RuntimeError(f"serve exited with {proc.returncode}:\n{log_path.read_text()[-2000:]}")
        try:
            if httpx.get(f"{url}/health/ready", timeout=2).status_code == 200:
                return proc, url
        except httpx.HTTPError:
            pass
        if time.monotonic() > deadline:
            raise RuntimeError("serve did not become ready")
        time.sleep(0.2)


def stop(proc: subprocess.Popen) -> None:
    import signal

    os.killpg(proc.pid, signal.SIGTERM)
    proc.wait(timeout=30)


def summary(latencies: list[float], wall: float | None = None) -> dict:
    lat = sorted(latencies)
    out = {"n": len(lat), "p50_ms": percentile(lat, 50), "p95_ms": percentile(lat, 95)}
    if wall:
        out["per_s"] = round(len(lat) / wall, 1)
    return out


def rest_sequential(url: str, token: str, path: str, calls: int) -> dict:
    latencies = []
    with httpx.Client(base_url=url, headers={"Authorization": f"Bearer {token}"}) as http:
        for _ in range(calls):
            t = time.perf_counter()
            r = http.get(path)
            latencies.append((time.perf_counter() - t) * 1000)
            assert r.status_code == 200, r.text
    return summary(latencies)


def mcp_sequential(url: str, token: str, patient_id: str, calls: int) -> dict:
    async def go():
        latencies = []
        async with httpx2.AsyncClient(headers={"Authorization": f"Bearer {token}"}) as http, \
                Client(streamable_http_client(f"{url}/mcp", http_client=http)) as client:
            for _ in range(calls):
                t = time.perf_counter()
                result = await client.call_tool("list_memories", {"patient_id": patient_id})
                latencies.append((time.perf_counter() - t) * 1000)
                assert not result.is_error and len(result.structured_content["items"]) == 2
        return latencies
    return summary(anyio.run(go))


def rest_throughput(url: str, token: str, path: str, seconds: float, concurrency: int) -> dict:
    latencies: list[float] = []
    failures = []
    lock = threading.Lock()
    stop_at = time.monotonic() + seconds

    def worker():
        with httpx.Client(base_url=url, headers={"Authorization": f"Bearer {token}"}) as http:
            while time.monotonic() < stop_at:
                t = time.perf_counter()
                r = http.get(path)
                ms = (time.perf_counter() - t) * 1000
                with lock:
                    (latencies if r.status_code == 200 else failures).append(ms)

    started = time.monotonic()
    threads = [threading.Thread(target=worker) for _ in range(concurrency)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    out = summary(latencies, time.monotonic() - started)
    out["failed"] = len(failures)
    return out


def main(argv: list[str] | None = None) -> int:
    import logging

    logging.getLogger("httpx2").setLevel(logging.WARNING)
    p = argparse.ArgumentParser()
    p.add_argument("--calls", type=int, default=300)
    p.add_argument("--seconds", type=float, default=8.0)
    p.add_argument("--concurrency", type=int, default=8)
    args = p.parse_args(argv)
    common.check_topology(DB_NAME)
    prepare_database()
    RESULTS_DIR.mkdir(exist_ok=True)
    keys = SigningKey()
    jwks = JwksServer(keys)
    org, patient = uuid.uuid4(), uuid.uuid4()
    register_organization(org)  # admitted: its tokens' issuer is trusted (core.gate)
    token = mint(keys, sub=f"patient-{patient}", org_id=org, patient_id=patient, scope=PATIENT_SCOPES, exp_in=3600)
    path = f"/v1/patients/{patient}/memories"
    results: dict = {"calls": args.calls, "seconds": args.seconds, "concurrency": args.concurrency}
    try:
        for server, asgi in (("wsgi", False), ("asgi", True)):
            proc, url = start(jwks.url, asgi=asgi, log_path=RESULTS_DIR / f"mcp_tools_{server}.log")
            try:
                if not asgi:  # the patient's memories, once
                    seed(url, token, patient, path)
                rest_sequential(url, token, path, 20)  # warm both paths
                mcp_sequential(url, token, str(patient), 20)
                results[f"rest_sequential_{server}"] = rest_sequential(url, token, path, args.calls)
                results[f"mcp_sequential_{server}"] = mcp_sequential(url, token, str(patient), args.calls)
                results[f"rest_concurrent_{server}"] = rest_throughput(url, token, path, args.seconds,
                                                                       args.concurrency)
            finally:
                stop(proc)
    finally:
        jwks.stop()
    for name, value in results.items():
        if isinstance(value, dict):
            log(f"{name:22} {json.dumps(value)}")
    (RESULTS_DIR / "mcp_tools.json").write_text(json.dumps(results, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
