from django.apps import AppConfig


class EventsConfig(AppConfig):
    name = "events"
    verbose_name = "Event subscriptions"
    default_auto_field = "django.db.models.BigAutoField"
