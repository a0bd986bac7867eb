from django.apps import AppConfig


class DirectoryConfig(AppConfig):
    name = "directory"
    verbose_name = "Patient and staff directory"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self):
        from core import patient_directory, patient_identifiers
        from directory.selectors import identifier_values, patient_registered

        patient_identifiers.register(identifier_values)
        patient_directory.register(patient_registered)
