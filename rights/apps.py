from django.apps import AppConfig


class RightsConfig(AppConfig):
    """Patient rights and interoperability: a copy of everything held (JSON and HL7 FHIR R4), FHIR import.

    Built on the domain apps (it reads consent, memory, conversations and workflows); nothing imports it."""

    name = "rights"
    verbose_name = "Patient rights and interoperability"
    default_auto_field = "django.db.models.BigAutoField"
