from django.apps import AppConfig


class WorkflowsConfig(AppConfig):
    name = "workflows"
    verbose_name = "Workflows"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        from consent.signals import consent_revoked
        from core.observability import register_collector
        from memory import erasure
        from workflows.metrics import outbox_metrics
        from workflows.receivers import on_consent_revoked
        from workflows.retention import workflow_erase_patient

        erasure.register("workflows", workflow_erase_patient)
        register_collector("outbox", outbox_metrics)

        # What would leave for the withdrawn purpose is withdrawn in the revoking transaction itself.
        consent_revoked.connect(on_consent_revoked, dispatch_uid="workflows.on_consent_revoked")
