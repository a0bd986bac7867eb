"""Conversation sessions that a context pack may name.

Short-term context (``conversations``) builds on long-term memory, so memory may not import it. When it loads, it
registers here the one question memory needs to ask of it: which patient and purpose is this session for, if the
caller may release a pack into it (live, and an agent's own)? With nothing registered the answer is no (deny by
default).
"""

from __future__ import annotations

import uuid
from collections.abc import Callable

from core.identity import Identity

SessionScope = Callable[..., "tuple[uuid.UUID, str] | None"]
_session_scope: list[SessionScope] = []


def register_session_scope(lookup: SessionScope) -> None:
    """Register ``lookup(identity=..., session_id=...) -> (patient id, purpose) or None`` (idempotent: the last one
    counts)."""
    _session_scope[:] = [lookup]


def is_session_for(*, identity: Identity, patient_id: uuid.UUID, purpose: str, session_id: uuid.UUID) -> bool:
    """Whether ``session_id`` is a live conversation of ``patient_id``, held for ``purpose``, that ``identity`` may
    release a context pack into."""
    if not _session_scope:
        return False
    return _session_scope[0](identity=identity, session_id=session_id) == (patient_id, purpose)
