"""`make run`: the development identity provider and the service, in one foreground command.

Starts ``manage.py dev_idp`` as a child, waits until its discovery document answers, then runs ``manage.py serve``
(gunicorn) as a second child. Ctrl-C or SIGTERM stops both, the service first (core.supervision); when the service
exits the provider is stopped too. If the provider cannot start (its port is taken, say by another provider the
environment points OIDC_* at), the service is served anyway: the API validates tokens against whatever
OIDC_JWKS_URL names.
"""

import os
import sys

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError

from core.models import Organization
from core.services import organization_register_or_update
from core.supervision import supervised, wait_until_ready
from demo.devidp import DEMO_ORG


class Command(BaseCommand):
    help = "Run the development identity provider and the service together (development only)"

    def add_arguments(self, parser):
        parser.add_argument("--bind", default="127.0.0.1:8000")
        parser.add_argument("--idp-port", type=int, default=8001)

    def handle(self, *args, bind, idp_port, **options):
        if settings.PRODUCTION:
            raise CommandError("run_demo is for development; run `manage.py serve` behind your provider")
        manage = [sys.executable, os.path.join(settings.BASE_DIR, "manage.py")]
        derived = derived_settings(os.environ, bind=bind, idp_port=idp_port)
        env = {**os.environ, **derived}
        if "OIDC_ISSUER" in derived:
            trust_in_demo_clinic(derived["OIDC_ISSUER"])
        jwks_url = env.get("OIDC_JWKS_URL") or settings.OIDC_JWKS_URL
        with supervised(stop_timeout=15) as children:
            # not watched: the service runs on when the provider stops (or never starts)
            idp = children.start([*manage, "dev_idp", "--port", str(idp_port)], env=env, watch=False)
            try:
                wait_until_ready(f"http://127.0.0.1:{idp_port}/.well-known/openid-configuration", idp,
                                 name="identity provider", timeout=20.0, interval=0.2)
                self.stdout.write(f"portal: http://{bind}/  (sign in as alice, bob, nurse-demo or admin-demo)")
            except CommandError as exc:
                self.stderr.write(f"development identity provider not started ({exc}); serving the API anyway, "
                                  f"tokens are checked against {jwks_url}")
            self.stdout.flush()
            children.start([*manage, "serve", "--bind", bind], env=env)
            children.wait()


def derived_settings(environ, *, bind: str, idp_port: int) -> dict[str, str]:
    """What the flags say and the environment does not: the provider the service takes tokens from (the one this
    command starts, unless OIDC_ISSUER or OIDC_TRUSTED_ISSUERS names one) and the MCP resource (the address it
    serves). Without them the service published http://127.0.0.1:8000/mcp and took tokens from :8001 whatever the
    ports."""
    derived = {}
    if not environ.get("OIDC_ISSUER") and not environ.get("OIDC_TRUSTED_ISSUERS"):
        derived["OIDC_ISSUER"] = f"http://127.0.0.1:{idp_port}"
        if not environ.get("OIDC_JWKS_URL"):
            derived["OIDC_JWKS_URL"] = f"http://127.0.0.1:{idp_port}/jwks"
    host, _, port = bind.rpartition(":")
    if not environ.get("MCP_RESOURCE_URL") and port.isdigit() and not host.startswith("unix"):
        host = "127.0.0.1" if host in ("", "0.0.0.0", "[::]") else host  # noqa: S104 (read, not bound)
        derived["MCP_RESOURCE_URL"] = f"http://{host}:{port}/mcp"
    return derived


def trust_in_demo_clinic(issuer: str) -> None:
    """The demo clinic, once seed_demo made it, takes the provider's tokens (seed_demo registered the issuer its
    own environment named: :8001 by default)."""
    if Organization.objects.using("owner").filter(id=DEMO_ORG).exists():
        organization_register_or_update(organization_id=DEMO_ORG, name=None, trusted_issuers=[issuer],
                                        administrator=False)
