"""Test settings: the same settings against a separate, throw-away database (``anamnesis_test``)."""

import os

os.environ.setdefault("ANAMNESIS_DB_NAME", "anamnesis_test")
os.environ.setdefault("OIDC_JWKS_MIN_REFETCH_SECONDS", "0")

from config.settings import *  # noqa: E402,F403

PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]

# The suite never exports traces on its own; tests/test_tracing.py switches them on against its own collector.
OTEL_TRACES_ENDPOINT = ""
