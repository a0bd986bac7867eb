"""Test settings: the same settings against a separate, throw-away database (``anamnesis_test``, one per
pytest-xdist worker)."""

import os
from urllib.parse import urlsplit, urlunsplit

# Under pytest-xdist each worker has its own database (``anamnesis_test_gw0``, ...; with ``DATABASE_URL``, its database
# name so suffixed), and the processes its tests start inherit it. The workers inherit the controller's environment,
# where this module has already set the plain name.
if os.environ.setdefault("ANAMNESIS_DB_NAME", "anamnesis_test") == "anamnesis_test" and (
        worker := os.environ.get("PYTEST_XDIST_WORKER")):
    os.environ["ANAMNESIS_DB_NAME"] = f"anamnesis_test_{worker}"
    for variable in ("DATABASE_URL", "DATABASE_OWNER_URL"):
        if url := os.environ.get(variable):
            parts = urlsplit(url)
            os.environ[variable] = urlunsplit(parts._replace(path=f"{parts.path}_{worker}"))
os.environ.setdefault("OIDC_JWKS_MIN_REFETCH_SECONDS", "0")

from config.settings import *  # noqa: E402,F403

PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]

# The suite never exports traces because of the machine's OTEL_* variables: tests/test_tracing.py switches them on
# against its own collector, in this process or (through this test-only variable) in a served one.
OTEL_TRACES_ENDPOINT = os.environ.get("ANAMNESIS_TEST_OTLP_ENDPOINT", "")
