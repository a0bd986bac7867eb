"""Guardrail notes that travel with memories of some classes (memory versus real-time data)."""

from memory.models import MemoryClass

FETCH_LIVE_NOTE = ("Memory is not a current clinical value: fetch current values (for example INR, active "
                   "prescriptions, allergy status) live from the clinical system before acting.")


def guardrails_for(memory_class: str, fetch_live: bool | None = None) -> dict:
    """Care context always carries the note; another type carries it when its definition says fetch_live."""
    if memory_class == MemoryClass.CARE_CONTEXT or fetch_live:
        return {"fetch_live": True, "clinical": True, "note": FETCH_LIVE_NOTE}
    return {"fetch_live": False, "clinical": False, "note": None}
