"""The other names a patient goes by (a medical record number, an insurance member id), for redaction.

What reaches a model's context never identifies the patient: conversations replace the patient's id,
and these values too, by ``[patient]``. ``core`` knows no domain, so the app that holds identifiers registers a
reader here when it loads (``AppConfig.ready``: the directory). A reader runs under the caller's identity, so
row-level security decides what it returns: for anyone who may read the conversation, that is the patient's own.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable, Iterable

Reader = Callable[[uuid.UUID, uuid.UUID], Iterable[str]]

# Shorter values are left alone: replacing every "12" or "AB" in a conversation would garble it.
MIN_CHARS = 4

_readers: list[Reader] = []


def register(reader: Reader) -> None:
    if reader not in _readers:
        _readers.append(reader)


def identifier_values(org_id: uuid.UUID, patient_id: uuid.UUID) -> tuple[str, ...]:
    """Every identifier value the caller may see for the patient, longest first (so a value that contains another
    is replaced whole)."""
    values = {v for reader in _readers for v in reader(org_id, patient_id) if len(v.strip()) >= MIN_CHARS}
    return tuple(sorted(values, key=lambda v: (-len(v), v)))
