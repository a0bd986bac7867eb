from django.apps import AppConfig


class DemoConfig(AppConfig):
    """Demo data, the development identity provider and demo tokens. Development only; nothing imports it."""

    name = "demo"
    verbose_name = "Demo data and development identity provider"
