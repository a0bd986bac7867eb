from django.apps import AppConfig


class CoreConfig(AppConfig):
    name = "core"
    verbose_name = "Core plumbing"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        from core import checks, schema, tracing  # noqa: F401  (registers system checks and schema extensions)

        # Per process, after gunicorn's fork (workers are not preloaded); nothing at all unless an endpoint is set.
        tracing.configure()
