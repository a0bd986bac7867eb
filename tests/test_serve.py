"""``manage.py serve`` leaves nothing behind when it stops, and a web server that cannot start ends it with an
error instead of a service that looks up but serves nothing."""

from __future__ import annotations

import os
import socket
import subprocess
import sys

import pytest

from tests.fakes.service import BASE_DIR, LiveService


@pytest.mark.slow
def test_the_metrics_directory_serve_made_goes_when_it_stops(jwks_server, tmp_path):
    service = LiveService(jwks_server.url, workers=1, extra_env={"TMPDIR": str(tmp_path)})
    try:
        made = list(tmp_path.glob("anamnesis-metrics-*"))
        assert len(made) == 1 and made[0].is_dir()  # the workers' metrics live there while it runs
    finally:
        service.close()
    assert not list(tmp_path.glob("anamnesis-metrics-*"))


@pytest.mark.slow
def test_serve_ends_with_an_error_when_its_web_server_cannot_start(tmp_path):
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        env = {k: v for k, v in os.environ.items() if not k.startswith(("EMBEDDING_", "PROMETHEUS_"))}
        env.update({"DJANGO_SETTINGS_MODULE": "config.settings_test", "TMPDIR": str(tmp_path),
                    "EMBEDDING_PROVIDER": "openai", "EMBEDDING_BASE_URL": "http://127.0.0.1:9"})
        done = subprocess.run([sys.executable, "manage.py", "serve", "--bind", f"127.0.0.1:{port}",
                               "--workers", "1", "--threads", "1"], cwd=BASE_DIR, env=env, capture_output=True,
                              text=True, timeout=120)
    assert done.returncode != 0
    assert "the web server exited with status" in done.stderr, done.stderr[-2000:]
    assert not list(tmp_path.glob("anamnesis-metrics-*"))
