"""Running ``manage.py run_worker`` as a real process, against the database and fake systems a test or the
benchmark uses: start, wait for a test pause point, SIGKILL, or run to the end."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

BASE_DIR = Path(__file__).resolve().parent.parent.parent

# Short timeouts and leases so that crash-recovery tests wait seconds, not minutes. The lease must cover one
# attempt (workflows.worker.min_lease_seconds): 1.25 * 2 * (0.3 + 2 * 0.3) = 2.25 s.
FAST_ENV = {
    "WORKFLOW_HTTP_CONNECT_TIMEOUT_SECONDS": "0.3",
    "WORKFLOW_HTTP_READ_TIMEOUT_SECONDS": "0.3",
    "WORKFLOW_OPERATION_LEASE_SECONDS": "2.5",
    "WORKFLOW_RETRY_BASE_SECONDS": "0.05",
    "WORKFLOW_RETRY_MAX_SECONDS": "0.2",
    "WORKFLOW_WORKER_POLL_SECONDS": "0.05",
}


def worker_env(*, db_name: str, settings_module: str, insurer_url: str | None = None,
               scheduling_url: str | None = None, extra: dict | None = None) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("WORKFLOW_")}
    env.update({"ANAMNESIS_DB_NAME": db_name, "DJANGO_SETTINGS_MODULE": settings_module, "LOG_LEVEL": "WARNING",
                "PYTHONUNBUFFERED": "1", **FAST_ENV})
    if insurer_url:
        env["INSURER_BASE_URL"] = insurer_url
    if scheduling_url:
        env["SCHEDULING_BASE_URL"] = scheduling_url
    env.update(extra or {})
    return env


class WorkerProcess:
    """One ``manage.py run_worker`` process. Its stdout is watched for ``worker-paused`` lines; stderr (logs) goes
    to a temporary file, shown when something goes wrong."""

    def __init__(self, env: dict[str, str], *args: str) -> None:
        self.stderr = tempfile.TemporaryFile(mode="w+")
        self.proc = subprocess.Popen([sys.executable, "manage.py", "run_worker", *args], cwd=BASE_DIR, env=env,
                                     stdout=subprocess.PIPE, stderr=self.stderr, text=True)
        self.lines: list[str] = []
        self.paused = threading.Event()
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()

    def _read(self) -> None:
        for line in self.proc.stdout:
            self.lines.append(line.rstrip("\n"))
            if line.startswith("worker-paused"):
                self.paused.set()

    @property
    def pid(self) -> int:
        return self.proc.pid

    def wait_paused(self, timeout: float = 30.0) -> str:
        if not self.paused.wait(timeout):
            raise AssertionError(f"the worker did not reach its pause point: {self.describe()}")
        return next(line for line in self.lines if line.startswith("worker-paused"))

    def kill(self) -> None:
        """SIGKILL: no handler runs, no transaction is committed, nothing is cleaned up."""
        if self.proc.poll() is None:
            os.kill(self.proc.pid, signal.SIGKILL)
        self.proc.wait(timeout=10)
        self.reader.join(timeout=5)

    def terminate(self, timeout: float = 15.0) -> int:
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
        try:
            return self.proc.wait(timeout=timeout)
        finally:
            self.reader.join(timeout=5)

    def wait(self, timeout: float = 60.0) -> int:
        try:
            rc = self.proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            self.kill()
            raise AssertionError(f"the worker did not finish within {timeout}s: {self.describe()}") from None
        self.reader.join(timeout=5)
        return rc

    def describe(self) -> str:
        self.stderr.seek(0)
        return f"rc={self.proc.poll()} stdout={self.lines[-5:]} stderr={self.stderr.read()[-3000:]}"


def run_worker(env: dict[str, str], *args: str, timeout: float = 60.0) -> WorkerProcess:
    """Run a worker to its end (give it --until-idle, --once or --max-seconds); raises if it fails."""
    worker = WorkerProcess(env, *args)
    rc = worker.wait(timeout)
    if rc != 0:
        raise AssertionError(f"run_worker exited with {rc}: {worker.describe()}")
    return worker


def wait_until(predicate, timeout: float = 30.0, interval: float = 0.05, message: str = "condition") -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return
        time.sleep(interval)
    raise AssertionError(f"timed out waiting for {message}")
