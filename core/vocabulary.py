"""The words every app shares: purposes of use and the shape of reason codes. Plain data, no domain imports."""

from __future__ import annotations

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
