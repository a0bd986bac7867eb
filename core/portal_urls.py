from django.urls import include, path

from core import portal

urlpatterns = [
    path("", portal.home, name="portal-home"),
    path("login/", portal.login_page, name="portal-login"),
    path("logout/", portal.logout, name="portal-logout"),
    path("signed-out/", portal.signed_out, name="portal-signed-out"),
    path("oidc/", include("mozilla_django_oidc.urls")),
]
