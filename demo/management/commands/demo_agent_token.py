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

    def handle(self, *args, sub, **options):
        if settings.PRODUCTION:
            raise CommandError("development only")
        self.stdout.write(devidp.agent_access_token(settings.OIDC_ISSUER, sub))
