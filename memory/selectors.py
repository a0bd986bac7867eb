from __future__ import annotations

import uuid

from django.db.models import QuerySet

from core.identity import Identity
from memory.models import Memory


def memory_list_current(*, identity: Identity, patient_id: uuid.UUID, memory_type: str | None = None,
                        consent_purpose: str | None = None) -> QuerySet[Memory]:
    """Current memories of one patient that the caller may see (RLS), in a stable order.

    The organisation and patient filters repeat what RLS enforces so that plans use the patient index.
    """
    qs = Memory.objects.current().for_patient(identity.org_id, patient_id)
    if memory_type:
        qs = qs.filter(memory_type=memory_type)
    if consent_purpose:
        qs = qs.filter(consent_purpose=consent_purpose)
    return qs.order_by("memory_type", "attribute", "consent_purpose")
