import os

from django.core.wsgi import get_wsgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
application = get_wsgi_application()

# Refuse to serve when the runtime role could bypass row-level security.
from core.checks import assert_runtime_role_is_safe  # noqa: E402

assert_runtime_role_is_safe()

# No embedding model here: a web worker that serves no search stays small (no torch). ``manage.py serve`` runs the
# machine's one embedding process beside the workers (EMBEDDING_PROVIDER=local-server); with the in-process provider
# the model loads on the first search.
