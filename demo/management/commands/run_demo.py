"""`make run`: the development identity provider and the service, in one foreground command.

Starts ``manage.py dev_idp`` as a child, waits until its discovery document answers, then runs ``manage.py serve``
(gunicorn) as a second child. Ctrl-C or SIGTERM stops both; when the service exits the provider is stopped too.
If the provider cannot start (its port is taken, say by another provider the environment points OIDC_* at), the
service is served anyway: the API validates tokens against whatever OIDC_JWKS_URL names.
"""

import os
import signal
import subprocess
import sys
import time

import httpx
from django.conf import settings
from django.core.management.base import BaseCommand, CommandError


def _interrupt(signum, frame):
    raise KeyboardInterrupt()


class Command(BaseCommand):
    help = "Run the development identity provider and the service together (development only)"

    def add_arguments(self, parser):
        parser.add_argument("--bind", default="127.0.0.1:8000")
        parser.add_argument("--idp-port", type=int, default=8001)

    def handle(self, *args, bind, idp_port, **options):
        if settings.PRODUCTION:
            raise CommandError("run_demo is for development; run `manage.py serve` behind your provider")
        manage = [sys.executable, os.path.join(settings.BASE_DIR, "manage.py")]
        idp = subprocess.Popen([*manage, "dev_idp", "--port", str(idp_port)])  # noqa: S603 (fixed argv)
        children = [idp]
        try:
            try:
                self._wait_for(f"http://127.0.0.1:{idp_port}/.well-known/openid-configuration", idp)
                self.stdout.write(f"portal: http://{bind}/  (sign in as alice, bob, nurse-demo or admin-demo)")
            except CommandError as exc:
                self.stderr.write(f"development identity provider not started ({exc}); serving the API anyway, "
                                  f"tokens are checked against {settings.OIDC_JWKS_URL}")
            self.stdout.flush()
            web = subprocess.Popen([*manage, "serve", "--bind", bind])  # noqa: S603 (fixed argv)
            children.append(web)
            signal.signal(signal.SIGTERM, _interrupt)
            while web.poll() is None:
                time.sleep(0.5)
        except KeyboardInterrupt:
            pass
        finally:
            for child in reversed(children):
                if child.poll() is None:
                    child.terminate()
            for child in children:
                try:
                    child.wait(timeout=15)
                except subprocess.TimeoutExpired:
                    child.kill()

    @staticmethod
    def _wait_for(url: str, process: subprocess.Popen, timeout: float = 20.0) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if process.poll() is not None:
                raise CommandError("the identity provider exited during start-up")
            try:
                if httpx.get(url, timeout=1.0).status_code == 200:
                    return
            except httpx.HTTPError:
                pass
            time.sleep(0.2)
        raise CommandError("the identity provider did not start in time")
