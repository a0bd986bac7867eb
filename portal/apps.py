from django.apps import AppConfig


class PortalConfig(AppConfig):
    """The browser face: patients' and staff pages, forms and the OpenID Connect login. Built on the domain apps'
    services and selectors; nothing imports it."""

    name = "portal"
    verbose_name = "Patient portal and staff console"
