"""The scheduling system, read-only: which appointment slots exist for a specialty.

``GET {SCHEDULING_BASE_URL}/v1/slots?specialty=...&visit_type=...`` answers ``{"slots": [{"slot_id": "A1",
"start": "2031-01-09T14:00", ...}]}`` with clinic-local wall-clock start times. The request, its timeouts and the
validation of the answer are the scheduling system's one client (``workflows.adapters.SchedulingSystem``); this
module turns its slots into offers. Only the specialty and visit type leave this service (never a patient
identifier). Any failure (connection, timeout, a non-200, an unreadable body) is the system's outage: the caller
answers 503 and changes nothing. Logs carry counts and error codes only.
"""

from __future__ import annotations

import logging

import httpx

from conversations.errors import SchedulingUnavailable
from conversations.slots import slot_from_start
from workflows.adapters import CONFIRMED, SchedulingSystem

log = logging.getLogger("anamnesis.conversations")


def search_slots(*, specialty: str, visit_type: str | None,
                 transport: httpx.BaseTransport | None = None) -> list[dict]:
    """Slots of the scheduling system for this specialty (and visit type, when known), ordered by start."""
    system = SchedulingSystem.for_slot_search(transport=transport)
    try:
        outcome = system.slots(specialty=specialty, visit_type=visit_type)
    finally:
        system.close()
    if outcome.kind != CONFIRMED or outcome.result is None:
        log.warning("scheduling unavailable: %s", outcome.code)
        raise SchedulingUnavailable()
    read = outcome.result
    slots = [slot_from_start(s["slot_id"], s["start"]) for s in read["slots"]]
    log.info("scheduling search: returned=%d usable=%d skipped=%d", read["returned"], len(slots), read["skipped"])
    return sorted(slots, key=lambda s: (s["start"], s["slot_id"]))
