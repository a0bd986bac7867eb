"""Writes of long-term memory. Every state change goes through here."""

from __future__ import annotations

import uuid
from datetime import datetime, timedelta

from django.conf import settings
from django.db import IntegrityError, connection, transaction
from django.utils import timezone

from consent.models import ConsentRecord
from core import audit
from core.access import may_access
from core.errors import ConcurrentUpdate, NoConsentOrAccess, ValidationFailed
from core.identity import Identity
from core.services import organization_ensure
from memory.facts import MEMORY_TYPES
from memory.models import Memory, MemoryState, Source

DEFAULT_RETENTION = timedelta(days=365 * 2)


def _attribute_lock(identity: Identity, patient_id: uuid.UUID, memory_type: str, attribute: str,
                    purpose: str) -> None:
    """Serialise writers of one attribute: each supersedes the previous instead of colliding with it."""
    key = f"memory:{identity.org_id}:{patient_id}:{memory_type}:{attribute}:{purpose}"
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_advisory_xact_lock(hashtextextended(%s, 0))", [key])


def memory_record(*, identity: Identity, patient_id: uuid.UUID, memory_type: str, attribute: str, fact: dict,
                  consent_purpose: str, consent_record_id: uuid.UUID,
                  valid_until: datetime | None = None) -> Memory:
    """Record a typed fact, superseding the current record of the same attribute (and only that attribute).

    Needs an active consent of this patient for this purpose that the caller can see. Provenance is
    ``patient_stated`` when the patient writes about themself, ``staff_entered`` otherwise.
    """
    now = timezone.now()
    if valid_until is not None and valid_until <= now:
        raise ValidationFailed(errors=[{"field": "valid_until", "message": "must be in the future",
                                        "code": "not_future"}])
    spec = MEMORY_TYPES[memory_type]
    if consent_purpose not in spec.purposes:
        raise ValidationFailed(errors=[{"field": "consent_purpose",
                                        "message": f"{memory_type} may be kept for: {', '.join(spec.purposes)}",
                                        "code": "invalid_purpose"}])
    if not may_access(patient_id=patient_id, purpose=consent_purpose):
        raise NoConsentOrAccess()
    consent = ConsentRecord.objects.active(now).filter(
        consent_record_id=consent_record_id, patient_id=patient_id, purpose=consent_purpose,
        organization_id=identity.org_id).first()
    if consent is None:
        raise NoConsentOrAccess()
    organization_ensure(identity=identity)
    memory_id = uuid.uuid4()
    try:
        with transaction.atomic():
            _attribute_lock(identity, patient_id, memory_type, attribute, consent_purpose)
            # Supersede first: the self-referencing foreign key is deferred to commit.
            superseded = Memory.objects.filter(
                organization_id=identity.org_id, patient_id=patient_id, memory_type=memory_type,
                attribute=attribute, consent_purpose=consent_purpose, state=MemoryState.ACTIVE,
                superseded_by__isnull=True,
            ).update(superseded_by_id=memory_id, state=MemoryState.SUPERSEDED, updated_at=now)
            memory = Memory.objects.create(
                memory_id=memory_id, organization_id=identity.org_id, patient_id=patient_id,
                memory_class=spec.memory_class, memory_type=memory_type, attribute=attribute, fact=fact,
                state=MemoryState.ACTIVE,
                source=Source.PATIENT_STATED if identity.is_patient(patient_id) else Source.STAFF_ENTERED,
                source_ref=f"api:{identity.actor_sub}", confidence=1,
                policy_revision=settings.MEMORY_POLICY_REVISION, consent_purpose=consent_purpose,
                consent_record=consent, valid_from=now, valid_until=valid_until,
                expires_at=max(now + DEFAULT_RETENTION, valid_until or now),
                created_by=identity.actor_sub,
            )
    except IntegrityError:
        raise ConcurrentUpdate() from None
    audit.record(action="memory.create", resource_type="memory", resource_id=memory.memory_id,
                 patient_id=patient_id, purpose=consent_purpose)
    if superseded:
        audit.record(action="memory.supersede", resource_type="memory", resource_id=memory.memory_id,
                     patient_id=patient_id, purpose=consent_purpose)
    return memory
