"""Helpers every benchmark shares. Django settings are read lazily: each benchmark names its own database
(``ANAMNESIS_DB_NAME``) before settings load, then calls these with that name."""

from __future__ import annotations

import socket
import sys
from collections.abc import Sequence

HOST = "127.0.0.1"


def log(message: str) -> None:
    print(message, flush=True)


def admin_conninfo(db_name: str) -> str:
    from django.conf import settings

    return settings.DB_TOPOLOGY.admin.conninfo(dbname=db_name)


def check_topology(db_name: str) -> None:
    """Refuse to run anywhere but in the benchmark's own database (DATABASE_URL would make ANAMNESIS_DB_NAME
    moot, and a benchmark drops and reseeds its database)."""
    from django.conf import settings

    topology = settings.DB_TOPOLOGY
    names = {topology.runtime.name, topology.owner.name}
    if names != {db_name}:
        sys.exit(f"refusing to run: the settings point at {sorted(names)}, not {db_name!r} (unset DATABASE_URL / "
                 f"DATABASE_OWNER_URL, or point both at a database named {db_name})")
    if topology.admin is None:
        sys.exit("the benchmark needs a superuser connection: use the embedded server or set DATABASE_ADMIN_URL")


def percentile(ordered: Sequence[float], pct: float) -> float | None:
    """Linear interpolation between closest ranks, on an already sorted list."""
    if not ordered:
        return None
    rank = (len(ordered) - 1) * pct / 100
    low = int(rank)
    high = min(low + 1, len(ordered) - 1)
    return round(ordered[low] + (ordered[high] - ordered[low]) * (rank - low), 2)


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind((HOST, 0))
        return s.getsockname()[1]


def bench_db_name(env_var: str, default: str) -> str:
    """A benchmark's database: ``default`` unless ``env_var`` names another one. Any name must start with
    ``anamnesis_bench`` (a benchmark drops and reseeds it)."""
    import os

    name = os.environ.get(env_var) or default
    if not name.startswith("anamnesis_bench"):
        sys.exit(f"{env_var}={name!r}: a benchmark database's name must start with 'anamnesis_bench'")
    return name


# --- processes of the service under test (Linux /proc; best effort) ------------------------------------------
def _proc_stat(pid: int) -> list[str] | None:
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()
    except OSError:
        return None


def cmdline(pid: int) -> str:
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as f:
            return f.read().replace(b"\0", b" ").decode(errors="replace").strip()
    except OSError:
        return ""


def children(pid: int) -> list[int]:
    import os

    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            fields = _proc_stat(int(entry))
            if fields is not None and int(fields[1]) == pid:  # fields[1]: the parent pid
                found.append(int(entry))
    return sorted(found)


def rss_mb(pid: int) -> float | None:
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return round(int(line.split()[1]) / 1024, 1)
    except OSError:
        return None
    return None


def cpu_seconds(pid: int) -> float | None:
    import os

    fields = _proc_stat(pid)
    if fields is None:
        return None
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")  # utime + stime


def service_processes(root_pid: int) -> list[dict]:
    """Every process of the service under ``root_pid`` (``manage.py serve``, or a gunicorn master) with its role:
    ``web_worker`` (serves requests), ``web_master``, ``embedding_server``, ``serve`` (the supervisor) or
    ``helper`` (multiprocessing's resource tracker and the like), its resident MB and CPU seconds so far."""
    found: list[dict] = []

    def role_of(pid: int, parent_role: str | None) -> str:
        line = cmdline(pid)
        if "run_embedding_server" in line:
            return "embedding_server"
        if "resource_tracker" in line:
            return "helper"
        if parent_role == "web_master":
            return "web_worker"
        if " serve" in line and "manage.py" in line:
            return "serve"
        if "uvicorn" in line or "gunicorn" in line:
            return "web_master"
        return "helper"

    def walk(pid: int, parent_role: str | None) -> None:
        role = role_of(pid, parent_role)
        found.append({"pid": pid, "role": role, "rss_mb": rss_mb(pid), "cpu_s": cpu_seconds(pid),
                      "cmd": cmdline(pid)[:120]})
        for child in children(pid):
            walk(child, role)

    walk(root_pid, None)
    # uvicorn --workers N: the master's children are the workers; one worker alone runs in the master itself
    if not any(p["role"] == "web_worker" for p in found):
        for p in found:
            if p["role"] == "web_master":
                p["role"] = "web_worker"
    return found


def connections_per_process(pids: list[int], port: int) -> dict[int, int]:
    """Established connections to ``port`` held by each of ``pids`` (which worker got which keep-alive client)."""
    import os

    by_inode: dict[str, int] = {}
    for pid in pids:
        try:
            for fd in os.listdir(f"/proc/{pid}/fd"):
                try:
                    target = os.readlink(f"/proc/{pid}/fd/{fd}")
                except OSError:
                    continue
                if target.startswith("socket:["):
                    by_inode[target[8:-1]] = pid
        except OSError:
            continue
    counts = dict.fromkeys(pids, 0)
    try:
        with open("/proc/net/tcp") as f:
            lines = f.read().splitlines()[1:]
    except OSError:
        return counts
    for line in lines:
        cols = line.split()
        if cols[3] == "01" and int(cols[1].rsplit(":", 1)[1], 16) == port and cols[9] in by_inode:
            counts[by_inode[cols[9]]] += 1
    return counts


def wait_until_ready(proc, port: int, log_file, log_path, timeout: float, stop, name: str = "the service") -> None:
    """Poll ``GET /health/ready`` on ``port`` until it answers 200. If ``proc`` exits first, close its log and raise
    with the log's tail; if ``timeout`` seconds pass, ``stop(proc, log_file)`` and raise."""
    import http.client
    import time

    deadline = time.monotonic() + timeout
    while True:
        if proc.poll() is not None:
            log_file.close()
            raise RuntimeError(f"{name} exited with {proc.returncode}:\n{log_path.read_text()[-2000:]}")
        try:
            conn = http.client.HTTPConnection(HOST, port, timeout=2)
            conn.request("GET", "/health/ready")
            status = conn.getresponse().status
            conn.close()
            if status == 200:
                return
        except OSError:
            pass
        if time.monotonic() > deadline:
            stop(proc, log_file)
            raise RuntimeError(f"the service was not ready within {timeout}s (see {log_path})")
        time.sleep(0.2)
