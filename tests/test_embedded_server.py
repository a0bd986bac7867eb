"""The embedded PostgreSQL stops when the last process using it exits, even after one was killed."""

import os
import subprocess
import sys
import time
from pathlib import Path

import psutil
import pytest

from core.dbconfig import BASE_DIR

ATTACH = "from core.dbconfig import embedded_admin; embedded_admin(); print('attached', flush=True)"


def _attach(data_dir: Path, *, then: str = "") -> None:
    env = {**os.environ, "EMBEDDED_PGDATA": str(data_dir)}
    env.pop("DATABASE_URL", None)
    subprocess.run([sys.executable, "-c", f"{ATTACH}\n{then}"], cwd=BASE_DIR, env=env, check=True,
                   timeout=120, capture_output=True)


def _postmaster(data_dir: Path) -> psutil.Process | None:
    pid_file = data_dir / "postmaster.pid"
    if not pid_file.exists():
        return None
    try:
        process = psutil.Process(int(pid_file.read_text().split()[0]))
    except (psutil.Error, ValueError):
        return None
    return process if process.is_running() and process.status() != psutil.STATUS_ZOMBIE else None


@pytest.fixture
def data_dir(tmp_path):
    yield tmp_path / "pgdata"
    postmaster = _postmaster(tmp_path / "pgdata")
    if postmaster is not None:
        postmaster.terminate()
        postmaster.wait(10)


@pytest.mark.slow
def test_the_server_stops_with_its_last_user_after_another_was_killed(data_dir):
    _attach(data_dir, then="import os; os._exit(0)")  # leaves without exit handlers, as a killed process does
    assert _postmaster(data_dir) is not None, "the first user left the server running, as it should"

    _attach(data_dir)  # the only user left, ending normally

    deadline = time.monotonic() + 15
    while _postmaster(data_dir) is not None and time.monotonic() < deadline:
        time.sleep(0.2)
    assert _postmaster(data_dir) is None


@pytest.mark.slow
def test_the_server_keeps_running_while_another_user_runs(data_dir):
    env = {**os.environ, "EMBEDDED_PGDATA": str(data_dir)}
    env.pop("DATABASE_URL", None)
    holder = subprocess.Popen([sys.executable, "-c", f"{ATTACH}\nimport sys; sys.stdin.read()"], cwd=BASE_DIR,
                              env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline().strip() == "attached"
        _attach(data_dir)
        assert _postmaster(data_dir) is not None
    finally:
        holder.communicate("", timeout=60)
    assert holder.returncode == 0
    deadline = time.monotonic() + 15
    while _postmaster(data_dir) is not None and time.monotonic() < deadline:
        time.sleep(0.2)
    assert _postmaster(data_dir) is None
