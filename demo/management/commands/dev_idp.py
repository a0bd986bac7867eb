"""Run the development OpenID provider (oidc-provider-mock with the demo accounts) in the foreground."""

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError

from demo import devidp


class Command(BaseCommand):
    help = "Run the development OpenID Connect provider with the demo accounts (never in production)"

    def add_arguments(self, parser):
        parser.add_argument("--host", default="127.0.0.1")
        parser.add_argument("--port", type=int, default=8001)

    def handle(self, *args, host, port, **options):


        if settings.PRODUCTION:
            raise CommandError("the development identity provider never runs in production")
        server = devidp.make_server(host, port, audience=settings.OIDC_AUDIENCE)
        self.stdout.write(f"identity provider on http://{host}:{port} (accounts: {', '.join(devidp.DEMO_USERS)})")
        self.stdout.flush()
        try:
            server.serve_forever()
        except KeyboardInterrupt:
            pass
        finally:
            server.server_close()
