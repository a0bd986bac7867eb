from __future__ import annotations

import uuid

from django.db.models import QuerySet

from consent.models import AccessGrant, ConsentRecord
from core.errors import ValidationFailed
from core.identity import Identity


def consent_list(*, identity: Identity, patient_id: uuid.UUID) -> QuerySet[ConsentRecord]:
    """A patient's consents that the caller may see (RLS: the patient, or staff with a grant per purpose)."""
    return ConsentRecord.objects.filter(organization_id=identity.org_id, patient_id=patient_id).order_by(
        "-granted_at")


def grant_list(*, identity: Identity, patient_id: str | None = None) -> QuerySet[AccessGrant]:
    qs = AccessGrant.objects.filter(organization_id=identity.org_id)
    if patient_id:
        try:
            qs = qs.filter(patient_id=uuid.UUID(patient_id))
        except ValueError:
            raise ValidationFailed(errors=[{"field": "patient_id", "message": "must be a UUID",
                                            "code": "invalid"}]) from None
    return qs.order_by("-created_at")[:500]
