"""The service's WSGI application: pages go through every middleware, bearer-token paths through the ones that serve
them.

Paths that take a bearer token and never a cookie (``core.browser.bearer_path``: the API, MCP, health, metrics)
have no use for the browser's layers (sessions, CSRF, the session user, messages, the portal's session and error
pages, static files): under Django's single handler each stood aside on those paths (:class:`core.browser.BrowserOnly`)
but still cost a call per layer on every API request. Here each kind of path has its own handler, built from
``settings.MIDDLEWARE`` (pages) or ``settings.BEARER_PATH_MIDDLEWARE`` (the same list without those layers, in the
same order), so an API request passes only through what changes its answer. The test client builds Django's single
handler from ``settings.MIDDLEWARE``; ``tests/test_wsgi_handlers.py`` checks both give bearer paths the same answer.
"""

from __future__ import annotations

from django.conf import settings
from django.core.exceptions import ImproperlyConfigured, MiddlewareNotUsed
from django.core.handlers.exception import convert_exception_to_response
from django.core.handlers.wsgi import WSGIHandler
from django.utils.module_loading import import_string

from core.browser import is_bearer_path


class BearerPathHandler(WSGIHandler):
    """Django's WSGI handler with ``settings.BEARER_PATH_MIDDLEWARE`` instead of ``settings.MIDDLEWARE``.

    Django's ``load_middleware`` reads ``settings.MIDDLEWARE`` itself, so this builds the chain the same way for
    a synchronous handler: each middleware wraps the next, its ``process_view``, ``process_template_response`` and
    ``process_exception`` hooks are registered in Django's order, and ``MiddlewareNotUsed`` skips one."""

    def load_middleware(self, is_async: bool = False) -> None:
        if is_async:
            raise ImproperlyConfigured("BearerPathHandler serves WSGI only")
        self._view_middleware: list = []
        self._template_response_middleware: list = []
        self._exception_middleware: list = []
        handler = convert_exception_to_response(self._get_response)  # type: ignore[attr-defined]  # Django's own
        for path in reversed(settings.BEARER_PATH_MIDDLEWARE):
            middleware = import_string(path)
            try:
                instance = middleware(handler)
            except MiddlewareNotUsed:
                continue
            if instance is None:
                raise ImproperlyConfigured(f"Middleware factory {path} returned None.")
            if hasattr(instance, "process_view"):
                self._view_middleware.insert(0, instance.process_view)
            if hasattr(instance, "process_template_response"):
                self._template_response_middleware.append(instance.process_template_response)
            if hasattr(instance, "process_exception"):
                self._exception_middleware.append(instance.process_exception)
            handler = convert_exception_to_response(instance)
        self._middleware_chain = handler


class RoutedWSGIApplication:
    """Bearer-token paths to :class:`BearerPathHandler`, everything else to Django's handler."""

    def __init__(self) -> None:
        self.pages = WSGIHandler()
        self.bearer = BearerPathHandler()

    def __call__(self, environ, start_response):
        handler = self.bearer if is_bearer_path(environ.get("PATH_INFO", "")) else self.pages
        return handler(environ, start_response)


class HeadWithoutBody:
    """HEAD answered as GET, without the body (RFC 9110 9.3.2): where responses leave the application.

    Django's views answer HEAD as they answer GET (a class-based view's ``head`` is its ``get``; the health checks
    take both), headers and ``Content-Length`` included, and send the body too. A server must not send it on:
    gunicorn drops it but logs "WSGI app sent body bytes on a no-body response" for every HEAD. The answer is run
    to its end here (a streamed body included, so that it closes and the server has its status and headers) and
    nothing of the body is handed on."""

    def __init__(self, application) -> None:
        self.application = application

    def __call__(self, environ, start_response):
        result = self.application(environ, start_response)
        if environ.get("REQUEST_METHOD") != "HEAD":
            return result
        try:
            for _ in result:
                pass
        finally:
            close = getattr(result, "close", None)
            if close is not None:
                close()
        return []
