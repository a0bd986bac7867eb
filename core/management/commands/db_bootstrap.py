from django.conf import settings
from django.core.management.base import BaseCommand, CommandError

from core.bootstrap import bootstrap


class Command(BaseCommand):
    help = "Create the database roles and the database (embedded server, or DATABASE_ADMIN_URL). Idempotent."

    def add_arguments(self, parser):
        parser.add_argument("--recreate", action="store_true", help="drop and recreate the database first")

    def handle(self, *args, recreate=False, **options):
        topology = settings.DB_TOPOLOGY
        if topology.admin is None:
            raise CommandError("set DATABASE_ADMIN_URL (a role that may create roles and databases), "
                               "or let the operator create the roles and database as the README describes")
        bootstrap(topology, drop_first=recreate)
        self.stdout.write(f"database {topology.owner.name!r} ready: owner {topology.owner.user!r}, "
                          f"runtime {topology.runtime.user!r}")
