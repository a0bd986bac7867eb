from django.apps import AppConfig


class DirectoryConfig(AppConfig):
    name = "directory"
    verbose_name = "Patient and staff directory"
    default_auto_field = "django.db.models.BigAutoField"
