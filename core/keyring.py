"""The service's encryption keys: ``MEMORY_ENCRYPTION_KEYS`` ("kid:base64key,kid2:base64key", 32-byte keys) and
``MEMORY_ENCRYPTION_ACTIVE_KEY``. Memory values are encrypted under them (``memory.crypto``); other secrets at rest
use keys derived from them for their own purpose (``events.signing``), so the service has one key configuration."""

from __future__ import annotations

import base64
from functools import lru_cache

from django.conf import settings
from django.core.exceptions import ImproperlyConfigured


@lru_cache(maxsize=8)
def _parse_keys(spec: str) -> dict[str, bytes]:
    keys: dict[str, bytes] = {}
    for part in filter(None, (p.strip() for p in spec.split(","))):
        kid, _, b64 = part.partition(":")
        key = base64.b64decode(b64)
        if not kid or len(key) != 32:
            raise ImproperlyConfigured("MEMORY_ENCRYPTION_KEYS entries are kid:base64(32 bytes)")
        keys[kid] = key
    return keys


def keyring() -> tuple[str, dict[str, bytes]]:
    """(the active key's id, every key by id)."""
    keys = _parse_keys(settings.MEMORY_ENCRYPTION_KEYS)
    active = settings.MEMORY_ENCRYPTION_ACTIVE_KEY
    if active not in keys:
        raise ImproperlyConfigured("MEMORY_ENCRYPTION_ACTIVE_KEY must name a key in MEMORY_ENCRYPTION_KEYS")
    return active, keys
