"""The words every app shares: purposes of use, the shape of reason codes and of ids. Plain data, no domain
imports."""

from __future__ import annotations

import uuid

# Purposes of use (consent, grants, memories, sessions, workflows): the value and the label people read.
PURPOSES = [
    ("appointment_scheduling", "Appointment scheduling"),
    ("communication", "Communication with the patient"),
    ("prior_authorization", "Prior authorisation"),
    ("care_coordination", "Care coordination"),
]
PURPOSE_CODES = frozenset(p for p, _ in PURPOSES)

# A reason code is a short machine word (``disputed_by_patient``), never a sentence: it is stored in append-only
# lifecycle and audit rows, where free text could never be erased.
REASON_CODE_PATTERN = r"^[a-z][a-z0-9_]{2,59}$"


def uuid_or_none(value: object) -> uuid.UUID | None:
    """``value`` as a UUID, or None when it is none: a body's or an argument's id may be anything (``"x"``, a number,
    a list)."""
    if isinstance(value, uuid.UUID):
        return value
    try:
        return uuid.UUID(value) if isinstance(value, str) else None
    except ValueError:
        return None
