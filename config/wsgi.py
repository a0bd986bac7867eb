import os

from django.core.wsgi import get_wsgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
application = get_wsgi_application()

# Refuse to serve when the runtime role could bypass row-level security.
from core.checks import assert_runtime_role_is_safe  # noqa: E402

assert_runtime_role_is_safe()
