"""The browser's middleware (sessions, CSRF, the session user, messages), standing aside on the paths that take a
bearer token and never a cookie. Apart from :mod:`core.middleware` because the session user's middleware needs
the app registry, and the logging configuration imports that module before the apps are ready."""

from __future__ import annotations

from django.conf import settings
from django.contrib.auth import middleware as auth
from django.contrib.messages import middleware as messages
from django.contrib.sessions import middleware as sessions
from django.middleware import csrf
from django.utils.deprecation import MiddlewareMixin


def is_bearer_path(path: str) -> bool:
    """Whether the path takes a bearer token and never a cookie (the API, MCP, health, metrics:
    ``settings.BEARER_PATH_PREFIXES``), other than a page among them (``settings.BEARER_PATH_PAGES``). The prefixes
    are ASCII, so a WSGI ``PATH_INFO`` will do as well as Django's ``path_info``."""
    return path.startswith(settings.BEARER_PATH_PREFIXES) and not path.startswith(settings.BEARER_PATH_PAGES)


def bearer_path(request) -> bool:
    """:func:`is_bearer_path` for a Django request."""
    return is_bearer_path(request.path_info)


class BrowserOnly(MiddlewareMixin):
    """A browser's middleware (sessions, CSRF, the session user, messages) that stands aside on the bearer-token
    paths: nothing there reads a session, a session user or a message, and their views are exempt from CSRF, so
    the hot reads skip work that changes nothing in their answer (about a tenth of a memory list's Python time).
    Mixed in before the Django class, so the admin's checks still find the class they require."""

    def __call__(self, request):
        if bearer_path(request):
            return self.get_response(request)
        return super().__call__(request)


class SessionMiddleware(BrowserOnly, sessions.SessionMiddleware):
    pass


class CsrfViewMiddleware(BrowserOnly, csrf.CsrfViewMiddleware):
    pass


class AuthenticationMiddleware(BrowserOnly, auth.AuthenticationMiddleware):
    pass


class MessageMiddleware(BrowserOnly, messages.MessageMiddleware):
    pass
