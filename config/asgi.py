"""The ASGI entry point (``manage.py serve --asgi``; ``manage.py serve`` runs gunicorn on ``config.wsgi``): ``/mcp``
and the OAuth protected-resource metadata go to the MCP server (the official SDK's Starlette app), everything else
to the Django application.

Django is served through its WSGI application in a thread pool (a2wsgi), not Django's ASGI handler: our views are
synchronous, and Django's ASGI handler runs synchronous views one at a time per process (thread-sensitive), which
would serialise every request of a worker. The WSGI module keeps its start-up checks (core.E001, model warm-up).
A request's body is read, and its answer written, within the deadlines gunicorn's worker sets (core.asgi_deadlines),
for Django and the MCP app alike: a slow client holds none of those threads, nor a connection, for longer.
"""

import os

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

import gc  # noqa: E402
from concurrent.futures import ThreadPoolExecutor  # noqa: E402

from a2wsgi import WSGIMiddleware  # noqa: E402


def _load_wsgi_application():
    """config.wsgi (django.setup, the core.E001 database check, the model warm-up), loaded in a thread: uvicorn's
    worker processes import this module inside their event loop, where Django refuses synchronous database work."""
    def load():
        from config.wsgi import django_application as application  # (its MCP app built the tools' schemas)

        gc.collect()
        gc.freeze()  # as config.wsgi does: what start-up built is never walked by the garbage collector again
        return application

    with ThreadPoolExecutor(max_workers=1) as pool:
        return pool.submit(load).result()


wsgi_application = _load_wsgi_application()

from agents_mcp.server import build_app, is_mcp_path  # noqa: E402  (Django is set up by now)


class Router:
    """Path routing between the two applications; lifespan events go to the MCP app (its session manager)."""

    def __init__(self, django_app, mcp_app):
        self.django_app = django_app
        self.mcp_app = mcp_app

    async def __call__(self, scope, receive, send):
        if scope["type"] == "lifespan" or (scope["type"] in ("http", "websocket") and is_mcp_path(scope["path"])):
            await self.mcp_app(scope, receive, send)
        else:
            await self.django_app(scope, receive, send)


def build_application():
    from django.conf import settings

    from core.asgi_deadlines import ClientDeadlines

    workers = int(os.environ.get("WEB_THREADS", "8"))
    # /mcp too: its body trickling in, or its answer never taken, held the connection without end
    return Router(ClientDeadlines(WSGIMiddleware(wsgi_application, workers=workers),
                                  max_body=settings.MAX_REQUEST_BYTES),
                  ClientDeadlines(build_app(), max_body=settings.MAX_REQUEST_BYTES))


application = build_application()
