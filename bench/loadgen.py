"""The mixed load's client: one process driving some of the keep-alive connections (``bench.mixed_load`` starts
several, so the load generator is not held to one core by the GIL). Standard library only, no Django: the parent
hands over everything it needs in a JSON plan.

    python -m bench.loadgen PLAN.json RESULT.json

Protocol with the parent: connect every session, print ``ready``, wait for ``go`` on stdin, run ``warmup_seconds``
unmeasured then ``seconds`` measured, write RESULT.json, print ``done``.

Every request carries its own ``X-Request-ID`` (the service writes it into the audit row's ``correlation_id``), so the
parent can prove one audit row per acknowledged request. Nothing is retried: a transport error or any non-2xx answer
is an error, and the connection is reopened for the next request.
"""

from __future__ import annotations

import http.client
import json
import os
import random
import sys
import threading
import time

HOST = "127.0.0.1"
OPS = ("list", "read", "create", "checkpoint")
STEPS = ("collect_preferences", "propose_slots")


class Session:
    def __init__(self, port: int) -> None:
        self.port = port
        self.conn = http.client.HTTPConnection(HOST, port, timeout=30)
        self.reopened = 0

    def request(self, method: str, path: str, token: str, request_id: str,
                body: dict | None = None, extra: dict | None = None) -> tuple[int, bytes]:
        headers = {"Accept": "application/json", "Authorization": f"Bearer {token}", "X-Request-ID": request_id}
        data = None
        if body is not None:
            data = json.dumps(body)
            headers["Content-Type"] = "application/json"
        if extra:
            headers.update(extra)
        try:
            self.conn.request(method, path, body=data, headers=headers)
            response = self.conn.getresponse()
            return response.status, response.read()
        except Exception:
            self.reopen()
            raise

    def reopen(self) -> None:
        self.conn.close()
        self.conn = http.client.HTTPConnection(HOST, self.port, timeout=30)
        self.reopened += 1

    def connect(self) -> None:
        self.conn.request("GET", "/health/live")
        self.conn.getresponse().read()


class Connection:
    """One client connection: its own patients (writes) and workflows (checkpoints), reads over a shared pool."""

    def __init__(self, spec: dict, plan: dict, results: dict, lock: threading.Lock) -> None:
        self.id = spec["id"]
        self.owned = spec["patients"]  # [{patient, token, consent}]
        self.workflows = spec["workflows"]  # [{workflow_id, token, version, step}]
        self.pool = plan["read_pool"]  # [{patient, token, memory_id}]
        self.run_id = plan["run_id"]
        self.per_patient = plan["per_patient"]
        self.session = Session(plan["port"])
        self.rng = random.Random(plan["seed"] * 100_003 + self.id)
        self.results, self.lock = results, lock
        self.seq = 0
        weights = plan["mix"]
        self.ops = [op for op in OPS if weights.get(op, 0) > 0]
        self.weights = [weights[op] for op in self.ops]
        # local buffers, merged once at the end
        self.latencies = {op: [] for op in OPS}
        self.acked: list[list] = []  # [request_id, op, measured]
        self.created: list[list[str]] = []  # [memory_id, patient, request_id]
        self.checkpoints: list[list] = []  # [workflow_id, version, request_id]
        self.errors: list[list] = []  # [op, what]
        self.counts = {op: 0 for op in OPS}

    def next_id(self) -> str:
        self.seq += 1
        return f"{self.run_id}-{self.id}-{self.seq}"

    def one(self, op: str) -> tuple[str, str | None, list | None]:
        """Send one request of kind ``op``; returns (request_id, problem, what it wrote)."""
        rid = self.next_id()
        if op == "list":
            p = self.rng.choice(self.pool)
            status, raw = self.session.request("GET", f"/v1/patients/{p['patient']}/memories", p["token"], rid)
            if status != 200:
                return rid, f"HTTP {status}: {raw[:160]!r}", None
            items = json.loads(raw)["items"]
            if len(items) < self.per_patient or any(i["patient_id"] != p["patient"] for i in items):
                return rid, f"{len(items)} items, or an item of another patient", None
            return rid, None, None
        if op == "read":
            p = self.rng.choice(self.pool)
            status, raw = self.session.request("GET", f"/v1/patients/{p['patient']}/memories/{p['memory_id']}",
                                               p["token"], rid)
            if status != 200:
                return rid, f"HTTP {status}: {raw[:160]!r}", None
            if json.loads(raw)["memory_id"] != p["memory_id"]:
                return rid, "another memory", None
            return rid, None, None
        if op == "create":
            p = self.rng.choice(self.owned)
            kind = self.rng.choice(("earliest_time", "latest_time"))
            at = f"{self.rng.randint(7, 18):02d}:{self.rng.choice(('00', '30'))}"
            body = {"memory_type": "scheduling_preference", "fact": {"kind": kind, "time": at},
                    "consent_purpose": "appointment_scheduling", "consent_record_id": p["consent"]}
            status, raw = self.session.request("POST", f"/v1/patients/{p['patient']}/memories", p["token"], rid,
                                               body, {"Idempotency-Key": rid})
            if status != 201:
                return rid, f"HTTP {status}: {raw[:160]!r}", None
            return rid, None, ["memory", json.loads(raw)["memory_id"], p["patient"]]
        # checkpoint: this connection's own workflow, so no version conflict is expected
        wf = self.rng.choice(self.workflows)
        nxt = STEPS[1] if wf["step"] == STEPS[0] else STEPS[0]
        body = {"expected_version": wf["version"], "next_step": nxt, "state_patch": {"seq": self.seq}}
        status, raw = self.session.request("POST", f"/v1/workflows/{wf['workflow_id']}/checkpoint", wf["token"],
                                           rid, body)
        if status != 200:
            self.resync(wf)
            return rid, f"HTTP {status}: {raw[:160]!r}", None
        answer = json.loads(raw)
        if answer["version"] != wf["version"] + 1 or answer["current_step"] != nxt:
            self.resync(wf)
            return rid, f"version {answer['version']} / {answer['current_step']}", None
        wf["version"], wf["step"] = answer["version"], answer["current_step"]
        return rid, None, ["checkpoint", wf["workflow_id"], answer["version"]]

    def resync(self, wf: dict) -> None:
        """After a failed checkpoint, learn the workflow's version again (the read is acknowledged like any)."""
        rid = self.next_id()
        try:
            status, raw = self.session.request("GET", f"/v1/workflows/{wf['workflow_id']}", wf["token"], rid)
        except Exception:  # noqa: BLE001 (the failure itself is already counted)
            return
        if status == 200:
            answer = json.loads(raw)
            wf["version"], wf["step"] = answer["version"], answer["current_step"]
            self.acked.append([rid, "workflow_read", False])

    def run(self, measure_from: float, stop_at: float) -> None:
        while True:
            now = time.perf_counter()
            if now >= stop_at:
                break
            measured = now >= measure_from
            op = self.rng.choices(self.ops, self.weights)[0]
            t0 = time.perf_counter()
            try:
                rid, problem, wrote = self.one(op)
            except Exception as exc:  # noqa: BLE001 (transport errors are errors, counted and shown)
                rid, problem, wrote = None, f"{type(exc).__name__}: {exc}", None
            latency = (time.perf_counter() - t0) * 1000
            if problem is not None:
                self.errors.append([op, problem])
                continue
            self.acked.append([rid, op, measured])
            if wrote and wrote[0] == "memory":
                self.created.append([wrote[1], wrote[2], rid])
            elif wrote:
                self.checkpoints.append([wrote[1], wrote[2], rid])
            if measured:
                self.latencies[op].append(round(latency, 3))
                self.counts[op] += 1

    def merge(self) -> None:
        with self.lock:
            r = self.results
            for op in OPS:
                r["latencies_ms"][op].extend(self.latencies[op])
            r["acked"].extend(self.acked)
            r["created"].extend(self.created)
            r["checkpoints"].extend(self.checkpoints)
            r["errors"].extend(self.errors)
            r["reopened"] += self.session.reopened
            r["final_versions"].extend([[w["workflow_id"], w["version"]] for w in self.workflows])


def main(argv: list[str]) -> int:
    plan_path, result_path = argv[1], argv[2]
    with open(plan_path) as f:
        plan = json.load(f)
    results = {"latencies_ms": {op: [] for op in OPS}, "acked": [], "created": [], "checkpoints": [], "errors": [],
               "reopened": 0, "final_versions": []}
    lock = threading.Lock()
    conns = [Connection(spec, plan, results, lock) for spec in plan["connections"]]
    for c in conns:
        c.session.connect()
    print("ready", flush=True)
    if sys.stdin.readline().strip() != "go":
        return 2
    cpu0 = os.times()
    started = time.perf_counter()
    measure_from = started + plan["warmup_seconds"]
    stop_at = measure_from + plan["seconds"]
    threads = [threading.Thread(target=c.run, args=(measure_from, stop_at), daemon=True) for c in conns]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    ended = time.perf_counter()
    cpu1 = os.times()
    for c in conns:
        c.merge()
        c.session.conn.close()
    results["measured_wall_s"] = round(ended - measure_from, 3)
    results["client_cpu_s"] = round((cpu1.user - cpu0.user) + (cpu1.system - cpu0.system), 3)
    results["client_wall_s"] = round(ended - started, 3)
    with open(result_path, "w") as f:
        json.dump(results, f)
    print("done", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
