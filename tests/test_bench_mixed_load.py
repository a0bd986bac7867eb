"""The mixed-load benchmark (bench.mixed_load) still runs and still proves its point, in its tiny mode: the real
service started as ``manage.py serve`` starts it, a few keep-alive connections reading and writing for a few seconds,
no failed request, and every acknowledged write and audit row found afterwards. Its own database
(``anamnesis_bench_mixed_test``), so a ``make bench`` running beside the tests is left alone."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow  # ~20-30 s: migrating a database and starting two web workers

BASE_DIR = Path(__file__).resolve().parent.parent


@pytest.mark.skipif(bool(os.environ.get("DATABASE_URL")), reason="the benchmark needs the embedded server")
def test_mixed_load_tiny_mode_has_no_errors_and_loses_nothing(tmp_path):
    output = tmp_path / "mixed_load.json"
    env = {k: v for k, v in os.environ.items() if k not in ("ANAMNESIS_DB_NAME", "DJANGO_SETTINGS_MODULE")}
    env["BENCH_MIXED_DB"] = "anamnesis_bench_mixed_test"
    done = subprocess.run([sys.executable, "-m", "bench.mixed_load", "--tiny", "--output", str(output)],
                          cwd=BASE_DIR, env=env, capture_output=True, text=True, timeout=180)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    result = json.loads(output.read_text())
    assert result["errors"]["total"] == 0
    assert result["overall"]["ok"] > 0
    checked = result["nothing_lost"]
    assert checked["lost_total"] == 0, checked["lost"]
    assert checked["created_memories"] > 0 and checked["checkpoints"] > 0  # writes of both kinds were checked
    assert checked["acked_requests"] == sum(v["acked"] for v in checked["audit_by_action"].values())
    assert result["worker_rss_mb"] and all(rss for rss in result["worker_rss_mb"])
