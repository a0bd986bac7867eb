"""Whether a patient id names a patient of the caller's organisation: its directory holds them.

An access grant opens a patient's records to a staff member, so it is given only for a patient the organisation
has registered (a mistyped id, or another organisation's patient, is refused alike: the answer tells nothing of
other organisations). ``core`` knows no domain, so the app that holds the directory registers its reader here when
it loads (``AppConfig.ready``: the directory). A reader runs under the caller's identity, so row-level security
decides what it sees. With no reader registered nobody is known: a grant is refused, never opened blindly.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable

Reader = Callable[[uuid.UUID, uuid.UUID], bool]

_readers: list[Reader] = []


def register(reader: Reader) -> None:
    if reader not in _readers:
        _readers.append(reader)


def patient_registered(org_id: uuid.UUID, patient_id: uuid.UUID) -> bool:
    """Whether the organisation's directory holds the patient, as the caller may see it."""
    return any(reader(org_id, patient_id) for reader in _readers)
