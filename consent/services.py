"""Writes for consents and access grants. Each runs inside the caller's identity context (RLS applies)."""

from __future__ import annotations

import uuid
from datetime import datetime

from django.conf import settings
from django.db import IntegrityError, transaction
from django.utils import timezone

from consent.access import may_access
from consent.models import AccessGrant, ConsentRecord
from consent.signals import consent_revoked
from core import audit
from core.access import require_person_deciding_access
from core.errors import Conflict, Forbidden, NoConsentOrAccess, NotFound, ValidationFailed
from core.idempotency import idempotency_withdraw
from core.identity import Identity
from core.patient_directory import patient_registered
from core.serializers import readable_text
from core.services import organization_ensure
from events.services import event_emit


def _future(value: datetime | None, field: str) -> None:
    if value is not None and value <= timezone.now():
        raise ValidationFailed(errors=[{"field": field, "message": "must be in the future", "code": "not_future"}])


def consent_record(*, identity: Identity, patient_id: uuid.UUID, purpose: str, evidence_ref: str,
                   expires_at: datetime | None = None) -> tuple[ConsentRecord, bool]:
    """Record a granted consent. The patient records their own; staff need a grant for the purpose.

    Idempotent: while a granted, unexpired consent exists for the purpose it is returned (created=False).
    """
    _future(expires_at, "expires_at")
    evidence_ref = readable_text("evidence_ref", evidence_ref)
    if not evidence_ref:  # zero-width spaces are not evidence (the portal's form reaches here without the API's)
        raise ValidationFailed(errors=[{"field": "evidence_ref", "message": "This field may not be blank.",
                                        "code": "blank"}])
    if not may_access(patient_id=patient_id, purpose=purpose):
        raise NoConsentOrAccess()
    organization_ensure(identity=identity)
    now = timezone.now()
    # A consent whose expiry passed is marked so; then a new one may be granted.
    ConsentRecord.objects.filter(organization_id=identity.org_id, patient_id=patient_id, purpose=purpose,
                                 status=ConsentRecord.Status.GRANTED, expires_at__lte=now).update(
        status=ConsentRecord.Status.EXPIRED)
    existing = ConsentRecord.objects.active(now).filter(
        organization_id=identity.org_id, patient_id=patient_id, purpose=purpose).first()
    if existing is not None:
        if existing.expires_at != expires_at:  # another expiry would be a new consent: never silently dropped
            raise Conflict("a consent for this purpose is in force with another expiry; withdraw it first to give "
                           "a new one", code="consent_exists").about(patient_id=patient_id, purpose=purpose)
        return existing, False
    try:
        with transaction.atomic():
            record = ConsentRecord.objects.create(
                organization_id=identity.org_id, patient_id=patient_id, purpose=purpose,
                status=ConsentRecord.Status.GRANTED, granted_at=now, expires_at=expires_at,
                evidence_ref=evidence_ref, policy_revision=settings.MEMORY_POLICY_REVISION,
                # an agent acting for the patient recorded it, not the patient (its token carries their subject)
                recorded_by=f"agent:{identity.agent_client_id}" if identity.agent_client_id else identity.actor_sub)
    except IntegrityError:
        raise Conflict("a consent for this purpose was recorded concurrently; read it again",
                       code="concurrent_update_retry") from None
    audit.record(action="consent.grant", resource_type="consent", resource_id=record.consent_record_id,
                 patient_id=patient_id, purpose=purpose)
    return record, True


def consent_revoke(*, identity: Identity, patient_id: uuid.UUID, consent_id: uuid.UUID) -> ConsentRecord:
    """Revoke a consent. Memories that depend on it stop being served in this same transaction (reads join the
    consent's status). Revoking a revoked consent is a no-op. The patient (or staff, for them) decides: an agent
    acting for the patient never revokes on its own word, as everything depending on the consent stops with it."""
    if identity.is_agent:
        raise Forbidden("the patient or staff revoke a consent; an agent cannot", code="agent_cannot_revoke")
    record = (ConsentRecord.objects.select_for_update()
              .filter(consent_record_id=consent_id, patient_id=patient_id, organization_id=identity.org_id)
              .first())
    if record is None:
        raise NotFound()
    if record.status == ConsentRecord.Status.REVOKED:
        return record
    record.status = ConsentRecord.Status.REVOKED
    record.revoked_at = timezone.now()
    record.revoked_by = identity.actor_sub
    record.save(update_fields=["status", "revoked_at", "revoked_by"])
    consent_revoked.send(sender=ConsentRecord, identity=identity, consent=record)
    # Answers given under it (a context pack, a created memory) are not replayed to a retry any more.
    idempotency_withdraw(identity=identity, patient_id=patient_id)
    event_emit("consent.revoked", consent_id=record.consent_record_id, patient_id=patient_id, purpose=record.purpose)
    audit.record(action="consent.revoke", resource_type="consent", resource_id=record.consent_record_id,
                 patient_id=patient_id, purpose=record.purpose)
    return record


def grant_create(*, identity: Identity, patient_id: uuid.UUID, actor_sub: str, purpose: str,
                 expires_at: datetime | None, reason: str = "") -> tuple[AccessGrant, bool]:
    """Grant a staff subject access to one patient for one purpose. Organisation administrators only
    (``grant:write``, enforced by the view and again by RLS), for a patient of the organisation's directory (else
    422 ``unknown_patient``, the same for a patient of another organisation). An open grant for the same subject,
    patient and purpose is returned unchanged (created=False)."""
    require_person_deciding_access(identity)
    _future(expires_at, "expires_at")
    reason = readable_text("reason", reason)
    if not patient_registered(identity.org_id, patient_id):
        # a mistyped id and another organisation's patient alike: the answer tells nothing of other organisations
        raise ValidationFailed.of("patient_id", "no patient with this id is in your organisation's directory; "
                                                "register them first (POST /v1/patients)", "unknown_patient")
    organization_ensure(identity=identity)
    existing = AccessGrant.objects.active().filter(
        organization_id=identity.org_id, patient_id=patient_id, actor_sub=actor_sub, purpose=purpose).first()
    if existing is not None:
        if existing.expires_at != expires_at:
            # e.g. a shorter expiry asked for: answering with the old grant would leave access open unawares
            raise Conflict("an open grant for this subject, patient and purpose has another expiry; revoke it "
                           "first to grant anew", code="grant_exists").about(patient_id=patient_id, purpose=purpose)
        return existing, False
    now = timezone.now()
    # An expired but unrevoked grant still holds the open-grant slot: it is closed as of its expiry, revoked by
    # nobody (it was not revoked: it ran out), and the closing is audited.
    for stale in AccessGrant.objects.filter(organization_id=identity.org_id, patient_id=patient_id,
                                            actor_sub=actor_sub, purpose=purpose, revoked_at__isnull=True,
                                            expires_at__lte=now):
        AccessGrant.objects.filter(pk=stale.pk, revoked_at__isnull=True).update(revoked_at=stale.expires_at,
                                                                              revoked_by=None)
        audit.record(action="grant.expire", resource_type="access_grant", resource_id=stale.grant_id,
                     patient_id=patient_id, purpose=purpose, reason="expired")
    try:
        with transaction.atomic():
            grant = AccessGrant.objects.create(
                organization_id=identity.org_id, patient_id=patient_id, actor_sub=actor_sub, purpose=purpose,
                expires_at=expires_at, granted_by=identity.actor_sub, reason=reason)
    except IntegrityError:
        raise Conflict("the same grant was created concurrently; read it again",
                       code="concurrent_update_retry") from None
    audit.record(action="grant.create", resource_type="access_grant", resource_id=grant.grant_id,
                 patient_id=patient_id, purpose=purpose)
    return grant, True


def grant_revoke(*, identity: Identity, grant_id: uuid.UUID, reason: str = "") -> AccessGrant:
    require_person_deciding_access(identity)
    grant = AccessGrant.objects.select_for_update().filter(grant_id=grant_id).first()
    if grant is None:
        raise NotFound()
    if grant.revoked_at is not None:
        return grant
    reason = readable_text("reason", reason)
    if reason:
        kept = f"{grant.reason} | revoked: {reason}" if grant.reason else f"revoked: {reason}"
        limit = AccessGrant.REASON_MAX_LENGTH
        if len(kept) > limit:  # refused, never cut: the grant stays open and the caller shortens the reason
            room = max(limit - len(kept) + len(reason), 0)
            raise ValidationFailed.of("reason", f"at most {room} characters beside the grant's own reason",
                                      "max_length")
        grant.reason = kept
    grant.revoked_at = timezone.now()
    grant.revoked_by = identity.actor_sub
    grant.save(update_fields=["revoked_at", "revoked_by", "reason"])
    idempotency_withdraw(identity=identity, patient_id=grant.patient_id, actor_sub=grant.actor_sub)
    # and the answer that created it, which shows it open: a retry is told it was withdrawn, never granted again
    idempotency_withdraw(identity=identity, resource_id=grant.grant_id)
    event_emit("grant.revoked", grant_id=grant.grant_id, patient_id=grant.patient_id, purpose=grant.purpose,
               actor_sub=grant.actor_sub)
    audit.record(action="grant.revoke", resource_type="access_grant", resource_id=grant.grant_id,
                 patient_id=grant.patient_id, purpose=grant.purpose)
    return grant
