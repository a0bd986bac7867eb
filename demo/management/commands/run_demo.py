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

from core.supervision import supervised, wait_until_ready


class Command(BaseCommand):
    help = "Run the development identity provider and the service together (development only)"

    def add_arguments(self, parser):
        parser.add_argument("--bind", default="127.0.0.1:8000")
        parser.add_argument("--idp-port", type=int, default=8001)

    def handle(self, *args, bind, idp_port, **options):
        if settings.PRODUCTION:
            raise CommandError("run_demo is for development; run `manage.py serve` behind your provider")
        manage = [sys.executable, os.path.join(settings.BASE_DIR, "manage.py")]
        with supervised(stop_timeout=15) as children:
            # not watched: the service runs on when the provider stops (or never starts)
            idp = children.start([*manage, "dev_idp", "--port", str(idp_port)], watch=False)
            try:
                wait_until_ready(f"http://127.0.0.1:{idp_port}/.well-known/openid-configuration", idp,
                                 name="identity provider", timeout=20.0, interval=0.2)
                self.stdout.write(f"portal: http://{bind}/  (sign in as alice, bob, nurse-demo or admin-demo)")
            except CommandError as exc:
                self.stderr.write(f"development identity provider not started ({exc}); serving the API anyway, "
                                  f"tokens are checked against {settings.OIDC_JWKS_URL}")
            self.stdout.flush()
            children.start([*manage, "serve", "--bind", bind])
            children.wait()
