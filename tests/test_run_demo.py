"""`manage.py run_demo` on other ports than 8000/8001: the service it starts takes tokens from the provider it
starts and publishes the MCP resource at the address it serves, unless the environment names others."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import tempfile

import httpx

from core.services import organization_register_or_update
from demo import devidp
from tests.fakes.processes import BASE_DIR, wait_until
from tests.live import free_port


def test_run_demo_on_other_ports_publishes_its_own_resource_and_takes_its_own_providers_tokens(committed_db,
                                                                                                  settings):
    # the demo clinic as seed_demo leaves it without OIDC_* set: trusting the default provider's issuer
    organization_register_or_update(organization_id=devidp.DEMO_ORG, name="Demo clinic",
                                    trusted_issuers=["http://127.0.0.1:8001"], administrator=False)
    port, idp_port = free_port(), free_port()
    url, issuer = f"http://127.0.0.1:{port}", f"http://127.0.0.1:{idp_port}"
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OIDC_", "MCP_RESOURCE_URL"))}
    env.update({"ANAMNESIS_DB_NAME": settings.DB_TOPOLOGY.runtime.name, "DJANGO_SETTINGS_MODULE":
                "config.settings_test", "LOG_LEVEL": "WARNING", "WEB_WORKERS": "1",
                # no embedding model in the workers (loading it takes a minute on a busy machine)
                "EMBEDDING_PROVIDER": "openai", "EMBEDDING_BASE_URL": "http://127.0.0.1:9"})
    log = tempfile.TemporaryFile()
    proc = subprocess.Popen([sys.executable, "manage.py", "run_demo", "--bind", f"127.0.0.1:{port}", "--idp-port",
                             str(idp_port)], cwd=BASE_DIR, env=env, stdout=log, stderr=log, start_new_session=True)
    def live() -> bool:
        if proc.poll() is not None:
            log.seek(0)
            raise AssertionError(f"run_demo exited: {log.read()[-3000:]!r}")
        try:
            return httpx.get(f"{url}/health/live", timeout=1).status_code == 200
        except httpx.HTTPError:
            return False

    try:
        wait_until(live, timeout=180, interval=0.3, message="run_demo to serve")
        metadata = httpx.get(f"{url}/.well-known/oauth-protected-resource/mcp", timeout=10).json()
        assert metadata["resource"] == f"{url}/mcp"
        assert metadata["authorization_servers"] == [issuer]
        token = devidp.agent_access_token(issuer, "admin-demo")
        r = httpx.get(f"{url}/v1/memory-types", headers={"Authorization": f"Bearer {token}"}, timeout=30)
        assert r.status_code == 200, r.text
        r = httpx.post(f"{url}/mcp", json={}, timeout=10)
        assert f'resource_metadata="{url}/.well-known/oauth-protected-resource/mcp"' in r.headers["WWW-Authenticate"]
    finally:
        os.killpg(proc.pid, signal.SIGTERM)
        proc.wait(timeout=30)
