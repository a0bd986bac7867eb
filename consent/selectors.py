from __future__ import annotations

import uuid
from collections.abc import Iterable
from datetime import datetime

from django.db import connection
from django.db.models import QuerySet
from django.utils import timezone

from consent.models import AccessGrant, ConsentRecord
from core import audit
from core.errors import ValidationFailed
from core.identity import Identity


def consent_list(*, identity: Identity, patient_id: uuid.UUID) -> QuerySet[ConsentRecord]:
    """A patient's consents that the caller may see (RLS: the patient, or staff with a grant per purpose)."""
    return ConsentRecord.objects.filter(organization_id=identity.org_id, patient_id=patient_id).order_by(
        "-granted_at")


def consents_as_now(records: Iterable[ConsentRecord]) -> list[ConsentRecord]:
    """``records`` with the status each has now: a granted consent whose expiry passed is ``expired`` (the row
    says so only once a new consent for the purpose is recorded), so it is never shown as in force."""
    now = timezone.now()
    records = list(records)
    for record in records:
        if record.status == ConsentRecord.Status.GRANTED and not record.in_force(now):
            record.status = ConsentRecord.Status.EXPIRED
    return records


CONSENT_REVOKED = "consent_revoked"
CONSENT_EXPIRED = "consent_expired"


def _lapsed(record: ConsentRecord, now: datetime) -> tuple[str, datetime] | None:
    """Why and when ``record`` stopped being in force (None while it is): withdrawn, or its expiry passed."""
    if record.status == ConsentRecord.Status.REVOKED and record.revoked_at is not None:
        return CONSENT_REVOKED, record.revoked_at
    if record.expires_at is not None and record.expires_at <= now:
        return CONSENT_EXPIRED, record.expires_at
    return None


def consent_lapse(*, identity: Identity, patient_id: uuid.UUID, purpose: str,
                  since: datetime | None = None) -> str | None:
    """Whether the patient's consent for ``purpose`` was withdrawn (``consent_revoked``) or ran out
    (``consent_expired``); None when it was not (or was never given).

    Without ``since``: the latest consent for it lapsed and none is in force now (asking for something new under
    it is refused). With ``since``: a consent for it lapsed after ``since``, so what was asked for before then was
    asked under a consent that no longer stands, whatever was given since (as a withdrawal withdraws it at once).
    Read as the caller (RLS: the patient, staff with a grant for the purpose, the service identity of it)."""
    now = timezone.now()
    records = list(ConsentRecord.objects.filter(organization_id=identity.org_id, patient_id=patient_id,
                                                purpose=purpose).order_by("-granted_at"))
    if since is not None:
        lapses = [lapse for lapse in map(lambda r: _lapsed(r, now), records) if lapse and lapse[1] > since]
        return min(lapses, key=lambda lapse: lapse[1])[0] if lapses else None
    if not records or any(r.in_force(now) for r in records):
        return None
    lapse = _lapsed(records[0], now)
    return lapse[0] if lapse else None


def consent_in_force(*, identity: Identity, patient_id: uuid.UUID, purpose: str) -> bool:
    """Whether a consent of the patient's for ``purpose`` is in force now (as the caller sees them, RLS)."""
    return ConsentRecord.objects.active().filter(organization_id=identity.org_id, patient_id=patient_id,
                                                 purpose=purpose).exists()


def consents_hold(*, identity: Identity, patient_id: uuid.UUID, purpose: str) -> None:
    """The patient's consents for ``purpose`` (those the caller sees) locked FOR SHARE until the transaction ends.
    A withdrawal locks its consent's row FOR UPDATE and then withdraws what was asked for under it, so what the
    caller writes under the consent after asking :func:`consent_lapse` is either refused (the withdrawal committed
    first) or seen by the withdrawal (which waits for the caller's commit), never neither. Take it before the locks
    of what a withdrawal locks after its consent row (workflows), in that order."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT 1 FROM patient_consent WHERE organization_id = %s AND patient_id = %s "
                       "AND purpose = %s FOR SHARE", [identity.org_id, patient_id, purpose])


def consent_list_audited(*, identity: Identity, patient_id: uuid.UUID) -> list[ConsentRecord]:
    """:func:`consent_list` as of now (:func:`consents_as_now`), read to be shown to the caller: audited as
    ``consent.list``, ``denied`` when the caller may not see the patient (the list is then empty, as for a patient
    with no consents)."""
    records = consents_as_now(consent_list(identity=identity, patient_id=patient_id))
    audit.record(action="consent.list", resource_type="consent", patient_id=patient_id, outcome_by_access=True)
    return records


def consent_page_audited(*, identity: Identity, patient_id: uuid.UUID, limit: int,
                         cursor: str | None = None) -> tuple[list[ConsentRecord], str | None]:
    """A page of :func:`consent_list_audited`, newest first, older than ``cursor``, and the cursor of the next page
    (None on the last). ValueError, nothing audited, for a cursor it did not give."""
    found = ConsentRecord.objects.filter(organization_id=identity.org_id, patient_id=patient_id)
    records, next_cursor = audit.keyset_page(found, cursor=cursor, limit=limit, time_field="granted_at",
                                             id_field="consent_record_id")
    audit.record(action="consent.list", resource_type="consent", patient_id=patient_id, outcome_by_access=True)
    return consents_as_now(records), next_cursor


def _grants(*, identity: Identity, patient_id: str | None) -> QuerySet[AccessGrant]:
    qs = AccessGrant.objects.filter(organization_id=identity.org_id)
    if patient_id:
        try:
            qs = qs.filter(patient_id=uuid.UUID(patient_id))
        except ValueError:
            raise ValidationFailed(errors=[{"field": "patient_id", "message": "must be a UUID",
                                            "code": "invalid"}]) from None
    return qs


def grant_get(*, identity: Identity, grant_id: uuid.UUID) -> AccessGrant | None:
    """One grant of the caller's organisation (None when there is no such grant); not audited: who may reach a
    patient, shown back to the administrator acting on it."""
    return _grants(identity=identity, patient_id=None).filter(grant_id=grant_id).first()


def grant_revoked_at_locked(*, identity: Identity, grant_id: uuid.UUID) -> datetime | None:
    """When the grant ended (None while it is active, or when the caller's organisation has no such grant), its row
    locked until the end of the transaction: of two revocations sent at once (a double click), the second waits
    for the first and then reads the access as ended."""
    return (_grants(identity=identity, patient_id=None).select_for_update().filter(grant_id=grant_id)
            .values_list("revoked_at", flat=True).first())


def grant_list_audited(*, identity: Identity, patient_id: str | None = None, cursor: str | None = None,
                       limit: int = 500) -> tuple[list[AccessGrant], str | None]:
    """A page of the organisation's grants (one patient's when given), newest first, after ``cursor``, and the next
    page's cursor (None on the last), read to be shown to an administrator: audited as ``grant.list``, in the
    patient's own history when it is one patient's (who may reach their records is about them). ValueError, and
    nothing audited, for a cursor it did not give."""
    grants, next_cursor = audit.keyset_page(_grants(identity=identity, patient_id=patient_id), cursor=cursor,
                                            limit=limit, time_field="created_at", id_field="grant_id")
    audit.record(action="grant.list", resource_type="access_grant", patient_id=patient_id or None)
    return grants, next_cursor


def grant_list_for_actor(*, identity: Identity, patient_id: uuid.UUID | None = None) -> list[AccessGrant]:
    """The active grants the caller's own subject holds (for one patient, or for all), by patient then purpose.
    Not audited: they are the caller's access, not a patient's data."""
    qs = AccessGrant.objects.active().filter(organization_id=identity.org_id, actor_sub=identity.actor_sub)
    if patient_id is not None:
        qs = qs.filter(patient_id=patient_id)
    return list(qs.order_by("patient_id", "purpose"))
