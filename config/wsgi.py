import os

from django.core.wsgi import get_wsgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
application = get_wsgi_application()

# Refuse to serve when the runtime role could bypass row-level security.
from core.checks import assert_runtime_role_is_safe  # noqa: E402

assert_runtime_role_is_safe()

# Load the local embedding model when the worker starts, not on its first search (about 4 s).
from django.conf import settings  # noqa: E402

if settings.EMBEDDING_PROVIDER == "local":
    from memory.embeddings import provider  # noqa: E402

    provider().warm_up()
