from django.apps import AppConfig


class MemoryConfig(AppConfig):
    name = "memory"
    verbose_name = "Long-term memory"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        from consent.signals import consent_revoked
        from memory import checks  # noqa: F401  (registers memory.E001)
        from memory.receivers import on_consent_revoked

        # Memories under a revoked consent stop being served in the revoking transaction itself.
        consent_revoked.connect(on_consent_revoked, dispatch_uid="memory.on_consent_revoked")
