"""Print an API access token for a demo account, issued by the running development identity provider.

The token is signed by the provider (its own key, published at its JWKS); this command only signs in at the
provider's page and exchanges the code, as any OAuth client would. Development only.
"""

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError

from demo import devidp


class Command(BaseCommand):
    help = "Print a JWT access token for a demo account from the development identity provider"

    def add_arguments(self, parser):
        parser.add_argument("--sub", default="scheduling-agent",
                            help="demo account: scheduling-agent (acts for Alice), alice, bob, nurse-demo, admin-demo")
        parser.add_argument("--idp-port", type=int, default=None,
                            help="the provider run_demo --idp-port started (default: OIDC_ISSUER's)")

    def handle(self, *args, sub, idp_port, **options):
        if settings.PRODUCTION:
            raise CommandError("development only")
        issuer = f"http://127.0.0.1:{idp_port}" if idp_port else settings.OIDC_ISSUER
        self.stdout.write(devidp.agent_access_token(issuer, sub))
