"""The service itself as a real process (``manage.py serve``: gunicorn, its access log, Django's logging), against
the test database and the test identity provider; for tests that need real HTTP (chunked bodies, schemathesis,
log scans, outages)."""

from __future__ import annotations

import http.client
import os
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from tests.support import AUDIENCE, ISSUER

BASE_DIR = Path(__file__).resolve().parent.parent.parent


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class LiveService:
    def __init__(self, jwks_url: str, *, workers: int = 2, threads: int = 2, extra_env: dict | None = None,
                 settings_module: str = "config.settings_test", asgi: bool = False) -> None:
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.log = tempfile.NamedTemporaryFile(mode="w+", suffix=".log", delete=False)
        env = {k: v for k, v in os.environ.items() if not k.startswith(("OIDC_", "API_RATE_", "EMBEDDING_"))}
        env.update({
            "DJANGO_SETTINGS_MODULE": settings_module, "OIDC_JWKS_URL": jwks_url, "OIDC_ISSUER": ISSUER,
            "OIDC_AUDIENCE": AUDIENCE, "PYTHONUNBUFFERED": "1", "LOG_LEVEL": "INFO",
            # no embedding model in the web workers: writes store without a vector, searches answer 503
            "EMBEDDING_PROVIDER": "openai", "EMBEDDING_BASE_URL": "http://127.0.0.1:9", "EMBEDDING_MODEL": "none",
            "EMBEDDING_TIMEOUT_SECONDS": "0.5",
        })
        env.update(extra_env or {})
        self.proc = subprocess.Popen(
            [sys.executable, "manage.py", "serve", "--bind", f"127.0.0.1:{self.port}", "--workers", str(workers),
             "--threads", str(threads), *(["--asgi"] if asgi else [])],
            cwd=BASE_DIR, env=env, stdout=self.log, stderr=subprocess.STDOUT)
        deadline = time.monotonic() + 90
        while True:
            if self.proc.poll() is not None:
                raise RuntimeError(f"the service exited: {self.logs()[-3000:]}")
            try:
                conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=2)
                conn.request("GET", "/health/live")
                if conn.getresponse().status == 200:
                    conn.close()
                    return
            except OSError:
                pass
            if time.monotonic() > deadline:
                self.stop()
                raise RuntimeError(f"the service did not start: {self.logs()[-3000:]}")
            time.sleep(0.2)

    def logs(self) -> str:
        self.log.flush()
        return Path(self.log.name).read_text(errors="replace")

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(timeout=10)

    def close(self) -> None:
        self.stop()
        self.log.close()
        os.unlink(self.log.name)
