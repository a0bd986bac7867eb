"""Test settings: the same settings against a separate, throw-away database (``anamnesis_test``)."""

import os

os.environ.setdefault("ANAMNESIS_DB_NAME", "anamnesis_test")
os.environ.setdefault("OIDC_JWKS_MIN_REFETCH_SECONDS", "0")

from config.settings import *  # noqa: E402,F403

PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]

# The suite never exports traces because of the machine's OTEL_* variables: tests/test_tracing.py switches them on
# against its own collector, in this process or (through this test-only variable) in a served one.
OTEL_TRACES_ENDPOINT = os.environ.get("ANAMNESIS_TEST_OTLP_ENDPOINT", "")
