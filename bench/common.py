"""Helpers every benchmark shares. Django settings are read lazily: each benchmark names its own database
(``ANAMNESIS_DB_NAME``) before settings load, then calls these with that name."""

from __future__ import annotations

import socket
import sys
from collections.abc import Sequence

HOST = "127.0.0.1"


def log(message: str) -> None:
    print(message, flush=True)


def admin_conninfo(db_name: str) -> str:
    from django.conf import settings

    return settings.DB_TOPOLOGY.admin.conninfo(dbname=db_name)


def check_topology(db_name: str) -> None:
    """Refuse to run anywhere but in the benchmark's own database (DATABASE_URL would make ANAMNESIS_DB_NAME
    moot, and a benchmark drops and reseeds its database)."""
    from django.conf import settings

    topology = settings.DB_TOPOLOGY
    names = {topology.runtime.name, topology.owner.name}
    if names != {db_name}:
        sys.exit(f"refusing to run: the settings point at {sorted(names)}, not {db_name!r} (unset DATABASE_URL / "
                 f"DATABASE_OWNER_URL, or point both at a database named {db_name})")
    if topology.admin is None:
        sys.exit("the benchmark needs a superuser connection: use the embedded server or set DATABASE_ADMIN_URL")


def percentile(ordered: Sequence[float], pct: float) -> float | None:
    """Linear interpolation between closest ranks, on an already sorted list."""
    if not ordered:
        return None
    rank = (len(ordered) - 1) * pct / 100
    low = int(rank)
    high = min(low + 1, len(ordered) - 1)
    return round(ordered[low] + (ordered[high] - ordered[low]) * (rank - low), 2)


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind((HOST, 0))
        return s.getsockname()[1]
