"""Every benchmark's first import: the environment it started with, and Django loaded once, on its own database.

A benchmark imports this before anything that could load Django settings, calls :func:`setup_django` with its
database, and only then imports the service's modules. The settings resolve the database from
``ANAMNESIS_DB_NAME`` when they load, so the first benchmark to call :func:`setup_django` names the database for
the life of the process; a benchmark imported by another (``bench.memories_api`` by ``bench.mixed_load``) changes
neither the settings nor the environment that the services and workers started later inherit.
"""

from __future__ import annotations

import os

# What child processes (the service, workers) inherit, plus their own overrides: the environment before any
# benchmark pointed it at its database.
ORIGINAL_ENV = dict(os.environ)
SETTINGS_MODULE = "config.settings"

_database: list[str | None] = []  # the database of the one setup_django() that took effect


def setup_django(db_name: str | None = None) -> None:
    """Load Django with the service's settings on ``db_name`` (None: whatever the environment names, for a
    benchmark that never connects). Connections are plain in this process, never pooled: a benchmark drops and
    recreates its database."""
    if _database:
        return
    _database.append(db_name)
    if db_name is not None:
        os.environ["ANAMNESIS_DB_NAME"] = db_name
        os.environ["DB_POOL"] = "false"
    os.environ["DJANGO_SETTINGS_MODULE"] = SETTINGS_MODULE

    import django

    django.setup()
