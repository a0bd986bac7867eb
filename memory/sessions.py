"""Conversation sessions that a context pack may name.

Short-term context (``conversations``) builds on long-term memory, so memory may not import it. When it loads, it
registers here the one question memory needs to ask of it: is this a session of this patient that the caller may
see? With nothing registered the answer is no (deny by default).
"""

from __future__ import annotations

import uuid
from collections.abc import Callable

from core.identity import Identity

SessionPatient = Callable[..., "uuid.UUID | None"]
_session_patient: list[SessionPatient] = []


def register_session_patient(lookup: SessionPatient) -> None:
    """Register ``lookup(identity=..., session_id=...) -> patient id or None`` (idempotent: the last one counts)."""
    _session_patient[:] = [lookup]


def is_session_of(*, identity: Identity, patient_id: uuid.UUID, session_id: uuid.UUID) -> bool:
    """Whether ``session_id`` is a conversation of ``patient_id`` that ``identity`` may see."""
    if not _session_patient:
        return False
    return _session_patient[0](identity=identity, session_id=session_id) == patient_id
