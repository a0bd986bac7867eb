import os

import django

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
django.setup(set_prefix=False)

# Pages through every middleware, bearer-token paths (the API, health, metrics) through the ones that serve them
# (core.wsgi); /mcp and its metadata to the MCP SDK's app (agents_mcp.wsgi); for HEAD, no body leaves (core.wsgi).
# config.asgi serves the Django part beside the same MCP app on uvicorn (which drops a HEAD's body itself).
from agents_mcp.wsgi import McpWsgi, WithMcp  # noqa: E402
from core.wsgi import HeadWithoutBody, RoutedWSGIApplication  # noqa: E402

django_application = RoutedWSGIApplication()
application = HeadWithoutBody(WithMcp(django_application, McpWsgi()))

# Refuse to serve when the runtime role could bypass row-level security.
from core.checks import assert_runtime_role_is_safe  # noqa: E402

assert_runtime_role_is_safe()

# No embedding model here: a web worker that serves no search stays small (no torch). ``manage.py serve`` runs the
# machine's one embedding process beside the workers (EMBEDDING_PROVIDER=local-server); with the in-process provider
# the model loads on the first search.

# What is loaded by now (settings, apps, models, the URLconf with every view) lives as long as the process: frozen,
# the cyclic garbage collector never walks it again. A full pass over those ~150,000 objects stopped every thread
# of a worker for 20-80 ms, which was most of the list read's p99.
import gc  # noqa: E402

from django.urls import get_resolver  # noqa: E402

get_resolver().url_patterns  # noqa: B018 (imports every app's urls and views now, not at the first request)

from memory.lexicon import lexicon  # noqa: E402

lexicon()  # the clinical lexicon (about 170 ms to build: its names, their slips, one regular expression) now, not
# in a worker's first search; frozen with the rest below
gc.collect()
gc.freeze()
