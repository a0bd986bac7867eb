"""Settings of the outbox worker and its adapters.

Each is read at call time from Django settings when defined there, otherwise from the environment variable of the
same name, otherwise the default, so tests and the benchmark can point a worker process at a fake system with
environment variables alone.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import TypeVar

from django.conf import settings

T = TypeVar("T")

DEFAULTS: dict[str, object] = {
    "WORKFLOW_INSURER_BASE_URL": "http://127.0.0.1:8090",
    "WORKFLOW_SCHEDULING_BASE_URL": "http://127.0.0.1:8091",
    "WORKFLOW_HTTP_CONNECT_TIMEOUT_SECONDS": 2.0,
    "WORKFLOW_HTTP_READ_TIMEOUT_SECONDS": 10.0,
    "WORKFLOW_OPERATION_MAX_ATTEMPTS": 8,
    "WORKFLOW_RETRY_BASE_SECONDS": 2.0,
    "WORKFLOW_RETRY_MAX_SECONDS": 300.0,
    "WORKFLOW_OPERATION_LEASE_SECONDS": 60.0,
    "WORKFLOW_CIRCUIT_FAILURE_THRESHOLD": 5,
    "WORKFLOW_CIRCUIT_COOLDOWN_SECONDS": 30.0,
    "WORKFLOW_WORKER_BATCH_SIZE": 10,
    "WORKFLOW_WORKER_POLL_SECONDS": 1.0,
    # Retention (manage.py sweep_workflows): a settled operation's payload is redacted this long after it settled;
    # a finished (completed or cancelled) workflow's state keeps only outside-system ids this long after it ended.
    "WORKFLOW_OPERATION_PAYLOAD_RETENTION_DAYS": 30,
    "WORKFLOW_FINISHED_STATE_RETENTION_DAYS": 90,
}


def _get(name: str, cast: Callable[[object], T]) -> T:
    value = getattr(settings, name, None)
    if value is None:
        value = os.environ.get(name) or None
    if value is None:
        value = DEFAULTS[name]
    return cast(value)


def base_url(system: str) -> str:
    return _get(f"WORKFLOW_{system.upper()}_BASE_URL", str).rstrip("/")


def connect_timeout() -> float:
    return _get("WORKFLOW_HTTP_CONNECT_TIMEOUT_SECONDS", float)


def read_timeout() -> float:
    return _get("WORKFLOW_HTTP_READ_TIMEOUT_SECONDS", float)


def max_attempts() -> int:
    return _get("WORKFLOW_OPERATION_MAX_ATTEMPTS", int)


def retry_base() -> float:
    return _get("WORKFLOW_RETRY_BASE_SECONDS", float)


def retry_max() -> float:
    return _get("WORKFLOW_RETRY_MAX_SECONDS", float)


def lease_seconds() -> float:
    return _get("WORKFLOW_OPERATION_LEASE_SECONDS", float)


def circuit_threshold() -> int:
    return _get("WORKFLOW_CIRCUIT_FAILURE_THRESHOLD", int)


def circuit_cooldown() -> float:
    return _get("WORKFLOW_CIRCUIT_COOLDOWN_SECONDS", float)


def batch_size() -> int:
    return _get("WORKFLOW_WORKER_BATCH_SIZE", int)


def poll_seconds() -> float:
    return _get("WORKFLOW_WORKER_POLL_SECONDS", float)


def min_lease_seconds() -> float:
    """A live worker must not lose its claim mid-call: one attempt is at most a lookup and a submission, each
    bounded by the connect, write and read timeouts (httpx applies them per phase); the lease covers that with a
    margin for the two short database transactions around it."""
    return 1.25 * 2 * (connect_timeout() + 2 * read_timeout())


def payload_retention_days() -> float:
    return _get("WORKFLOW_OPERATION_PAYLOAD_RETENTION_DAYS", float)


def finished_state_retention_days() -> float:
    return _get("WORKFLOW_FINISHED_STATE_RETENTION_DAYS", float)
