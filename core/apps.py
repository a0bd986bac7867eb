from django.apps import AppConfig
from django.db.models.signals import post_migrate


def _audit_partitions_ahead(sender, using, plan=None, **kwargs) -> None:
    """Every ``migrate`` as the owner keeps the audit trail's monthly partitions ahead (core.audit_partitions)."""
    from django.db import connections

    from core.audit_partitions import audit_partitions_ensure

    with connections[using].cursor() as cursor:
        cursor.execute("SELECT to_regproc('audit_event_add_partitions') IS NOT NULL "
                       "AND has_function_privilege('audit_event_add_partitions(timestamptz, timestamptz)', "
                       "'EXECUTE')")
        if not cursor.fetchone()[0]:  # migrated back before core 0016, or not the owner's connection
            return
    audit_partitions_ensure(using=using)


class CoreConfig(AppConfig):
    name = "core"
    verbose_name = "Core plumbing"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        from core import checks, schema, tracing  # noqa: F401  (registers system checks and schema extensions)

        # Per process, after gunicorn's fork (workers are not preloaded); nothing at all unless an endpoint is set.
        tracing.configure()

        post_migrate.connect(_audit_partitions_ahead, sender=self, dispatch_uid="core.audit_partitions_ahead")
