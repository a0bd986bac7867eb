from django.apps import AppConfig


class MemoryConfig(AppConfig):
    name = "memory"
    verbose_name = "Long-term memory"
    default_auto_field = "django.db.models.BigAutoField"
