"""The scheduling system, read-only: which appointment slots exist for a specialty.

``GET {SCHEDULING_BASE_URL}/v1/slots?specialty=...&visit_type=...`` answers ``{"slots": [{"slot_id": "A1",
"start": "2031-01-09T14:00", ...}]}`` with clinic-local wall-clock start times. Only the specialty and visit type
leave this service (never a patient identifier); only slot ids and start times are kept from the answer, each
validated. Any failure (connection, timeout, a non-200, an unreadable body) is the system's outage: the caller
answers 503 and changes nothing. Logs carry counts and error codes only.
"""

from __future__ import annotations

import logging
import re
from datetime import datetime

import httpx
from django.conf import settings

from conversations.errors import SchedulingUnavailable
from conversations.slots import slot_from_start

log = logging.getLogger("anamnesis.conversations")
_SAFE_ID = re.compile(r"^[A-Za-z0-9._:\-]{1,64}$")
MAX_SLOTS = 500


def search_slots(*, specialty: str, visit_type: str | None,
                 transport: httpx.BaseTransport | None = None) -> list[dict]:
    """Slots of the scheduling system for this specialty (and visit type, when known), ordered by start."""
    params = {"specialty": specialty}
    if visit_type:
        params["visit_type"] = visit_type
    connect, read = settings.SCHEDULING_CONNECT_TIMEOUT_SECONDS, settings.SCHEDULING_READ_TIMEOUT_SECONDS
    timeout = httpx.Timeout(connect=connect, read=read, write=read, pool=connect)
    try:
        with httpx.Client(base_url=settings.SCHEDULING_BASE_URL.rstrip("/"), timeout=timeout, transport=transport,
                          follow_redirects=False, headers={"Accept": "application/json"}) as client:
            response = client.get("/v1/slots", params=params)
    except httpx.HTTPError as exc:
        log.warning("scheduling unavailable: %s", type(exc).__name__)
        raise SchedulingUnavailable() from None
    if response.status_code != 200:
        log.warning("scheduling unavailable: http_%d", response.status_code)
        raise SchedulingUnavailable()
    try:
        body = response.json()
    except ValueError:
        log.warning("scheduling unavailable: unreadable_answer")
        raise SchedulingUnavailable() from None
    items = body.get("slots") if isinstance(body, dict) else None
    if not isinstance(items, list):
        log.warning("scheduling unavailable: unreadable_answer")
        raise SchedulingUnavailable()
    slots, skipped = [], 0
    for item in items[:MAX_SLOTS]:
        slot = _slot(item)
        if slot is None:
            skipped += 1
        else:
            slots.append(slot)
    log.info("scheduling search: returned=%d usable=%d skipped=%d", len(items), len(slots), skipped)
    return sorted(slots, key=lambda s: (s["start"], s["slot_id"]))


def _slot(item) -> dict | None:
    if not isinstance(item, dict):
        return None
    slot_id, start = item.get("slot_id"), item.get("start")
    if not isinstance(slot_id, str) or not _SAFE_ID.fullmatch(slot_id) or not isinstance(start, str):
        return None
    try:
        when = datetime.fromisoformat(start)
    except ValueError:
        return None
    return slot_from_start(slot_id, when.replace(tzinfo=None))
