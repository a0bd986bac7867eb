"""Register an organisation (a tenant) with the token issuers it trusts. Idempotent: run again to add issuers."""

import uuid

from django.core.management.base import BaseCommand, CommandError

from core.errors import ValidationFailed
from core.services import organization_register_or_update


class Command(BaseCommand):
    help = "Register an organisation and the issuers whose tokens it trusts (runs as the owner role)"

    def add_arguments(self, parser):
        parser.add_argument("organization_id", type=uuid.UUID)
        parser.add_argument("--name", default=None)
        parser.add_argument("--issuer", action="append", required=True, dest="issuers",
                            help="an issuer (the iss claim) this organisation trusts; repeat for several")
        parser.add_argument("--administrator", action="store_true",
                            help="may list and register organisations through the API (organization:admin)")

    def handle(self, *args, organization_id, name, issuers, administrator, **options):
        try:
            org, created = organization_register_or_update(organization_id=organization_id, name=name,
                                                           trusted_issuers=issuers, administrator=administrator)
        except ValidationFailed as exc:
            raise CommandError("; ".join(e["message"] for e in exc.errors)) from None
        verb = "registered" if created else "updated"
        self.stdout.write(f"{verb} organisation {org.id} trusting {', '.join(org.trusted_issuers)}"
                          + (" (registry administrator)" if org.administrator else ""))
