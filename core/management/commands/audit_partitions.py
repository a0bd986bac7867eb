"""Keep the audit trail's monthly partitions ahead of time and apply the retention policy. Cron-safe (daily).

    manage.py audit_partitions                 # create AUDIT_PARTITIONS_AHEAD months ahead; drop months past
                                               # AUDIT_RETENTION_MONTHS (nothing dropped when it is 0)
    manage.py audit_partitions --dry-run       # say which months retention would drop; change nothing

Runs on the owner role's connection (it owns the partitions). Prints names and counts only.
"""

from django.core.management.base import BaseCommand, CommandError

from core.audit_partitions import audit_partitions_ensure, audit_retention_apply, retention_months


class Command(BaseCommand):
    help = "Create the audit trail's monthly partitions ahead of time and drop months past the retention policy"

    def add_arguments(self, parser):
        parser.add_argument("--months-ahead", type=int, default=None, help="default: AUDIT_PARTITIONS_AHEAD")
        parser.add_argument("--dry-run", action="store_true", help="report what retention would drop")

    def handle(self, *args, months_ahead, dry_run, **options):
        try:
            created = [] if dry_run else audit_partitions_ensure(months_ahead=months_ahead)
            dropped = audit_retention_apply(dry_run=dry_run)
        except ValueError as exc:
            raise CommandError(str(exc)) from None
        self.stdout.write(f"created={len(created)} {' '.join(created)}".rstrip())
        policy = retention_months()
        verb = "would_drop" if dry_run else "dropped"
        self.stdout.write(f"retention_months={policy or 'keep_all'} {verb}={len(dropped)}")
        for month in dropped:
            self.stdout.write(f"  {month.partition} rows={month.rows} organizations={month.organizations}")
