"""Settings of short-term conversation context, read at call time so tests can override them.

Each value comes from Django settings when defined there, otherwise from the environment variable of the same
name, otherwise the default below (so a subprocess or a benchmark can be configured with environment variables).
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import TypeVar

from django.conf import settings

T = TypeVar("T")

DEFAULTS: dict[str, object] = {
    # Sliding expiry: a session not touched for this long is gone (seed 004: 4 hours of inactivity).
    "CONVERSATION_IDLE_SECONDS": 4 * 3600,
    # Absolute limit: no session outlives this, however active.
    "CONVERSATION_ABSOLUTE_SECONDS": 24 * 3600,
    # How long an ended (completed or abandoned) session's turns stay before the sweep removes them.
    "CONVERSATION_ENDED_RETENTION_SECONDS": 3600,
    "CONVERSATION_MAX_TURNS": 1000,
    "CONVERSATION_MAX_CONTENT_CHARS": 8000,
    "CONVERSATION_MAX_TOOL_RESULT_BYTES": 16 * 1024,
    "CONVERSATION_CONTEXT_DEFAULT_TOKENS": 2000,
    "CONVERSATION_CONTEXT_MIN_TOKENS": 256,
    "CONVERSATION_CONTEXT_MAX_TOKENS": 128_000,
    # deterministic (default) or llm (an OpenAI-compatible API; falls back to deterministic on any failure)
    "CONVERSATION_SUMMARISER": "deterministic",
    "CONVERSATION_LLM_BASE_URL": "",
    "CONVERSATION_LLM_MODEL": "",
    "CONVERSATION_LLM_API_KEY": "",
    # responses (POST /v1/responses) or chat_completions (POST /v1/chat/completions); both with store: false
    "CONVERSATION_LLM_API": "responses",
    "CONVERSATION_LLM_TIMEOUT_SECONDS": 10.0,
    "SCHEDULING_BASE_URL": "http://127.0.0.1:8091",
    "SCHEDULING_CONNECT_TIMEOUT_SECONDS": 2.0,
    "SCHEDULING_READ_TIMEOUT_SECONDS": 5.0,
}


def _get(name: str, cast: Callable[[object], T]) -> T:
    value = getattr(settings, name, None)
    if value is None:
        value = os.environ.get(name) or None
    if value is None:
        value = DEFAULTS[name]
    return cast(value)


def idle_seconds() -> int:
    return _get("CONVERSATION_IDLE_SECONDS", int)


def absolute_seconds() -> int:
    return _get("CONVERSATION_ABSOLUTE_SECONDS", int)


def ended_retention_seconds() -> int:
    return _get("CONVERSATION_ENDED_RETENTION_SECONDS", int)


def max_turns() -> int:
    return _get("CONVERSATION_MAX_TURNS", int)


def max_content_chars() -> int:
    return _get("CONVERSATION_MAX_CONTENT_CHARS", int)


def max_tool_result_bytes() -> int:
    return _get("CONVERSATION_MAX_TOOL_RESULT_BYTES", int)


def default_budget() -> int:
    return _get("CONVERSATION_CONTEXT_DEFAULT_TOKENS", int)


def min_budget() -> int:
    return _get("CONVERSATION_CONTEXT_MIN_TOKENS", int)


def max_budget() -> int:
    return _get("CONVERSATION_CONTEXT_MAX_TOKENS", int)


def summariser() -> str:
    return _get("CONVERSATION_SUMMARISER", str)


def llm_base_url() -> str:
    return _get("CONVERSATION_LLM_BASE_URL", str).rstrip("/")


def llm_model() -> str:
    return _get("CONVERSATION_LLM_MODEL", str)


def llm_api_key() -> str:
    return _get("CONVERSATION_LLM_API_KEY", str)


def llm_api() -> str:
    return _get("CONVERSATION_LLM_API", str)


def llm_timeout() -> float:
    return _get("CONVERSATION_LLM_TIMEOUT_SECONDS", float)


def scheduling_base_url() -> str:
    return _get("SCHEDULING_BASE_URL", str).rstrip("/")


def scheduling_connect_timeout() -> float:
    return _get("SCHEDULING_CONNECT_TIMEOUT_SECONDS", float)


def scheduling_read_timeout() -> float:
    return _get("SCHEDULING_READ_TIMEOUT_SECONDS", float)
