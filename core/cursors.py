"""Opaque cursors of lists read newest first: the time and id of the last row of the page before, so the next page
starts after it whatever was added since (the audit trail, a workflow's operations)."""

from __future__ import annotations

import base64
import json
import uuid
from datetime import datetime


def position_cursor(when: datetime, ident: uuid.UUID) -> str:
    raw = json.dumps([when.isoformat(), str(ident)]).encode()
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


def cursor_position(cursor: str) -> tuple[datetime, uuid.UUID]:
    """The position a cursor of :func:`position_cursor` holds; ValueError for anything else."""
    if len(cursor) > 200:
        raise ValueError("cursor too long")
    try:
        when, ident = json.loads(base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4)))
        at = datetime.fromisoformat(when)
    except TypeError as exc:  # binascii.Error, JSONDecodeError and a bad date are ValueErrors already
        raise ValueError("not a cursor") from exc
    if at.tzinfo is None:
        raise ValueError("not a cursor")
    return at, uuid.UUID(str(ident))


def key_cursor(key: tuple[str, ...]) -> str:
    """An opaque cursor for a list in the order of a unique key of text columns: the key of the page's last row."""
    return base64.urlsafe_b64encode(json.dumps(list(key)).encode()).decode().rstrip("=")


def cursor_key(cursor: str, size: int) -> tuple[str, ...]:
    """The key a cursor of :func:`key_cursor` holds (``size`` texts); ValueError for anything else."""
    if len(cursor) > 1000:
        raise ValueError("cursor too long")
    try:
        key = json.loads(base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4)))
    except TypeError as exc:  # binascii.Error and JSONDecodeError are ValueErrors already
        raise ValueError("not a cursor") from exc
    if not (isinstance(key, list) and len(key) == size and all(isinstance(k, str) and "\x00" not in k for k in key)):
        raise ValueError("not a cursor")
    for k in key:
        k.encode()  # a lone surrogate ("\ud800" in the JSON) is no text the database takes: UnicodeEncodeError
    return tuple(key)
