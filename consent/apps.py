from django.apps import AppConfig


class ConsentConfig(AppConfig):
    name = "consent"
    verbose_name = "Consent and access grants"
    default_auto_field = "django.db.models.BigAutoField"
