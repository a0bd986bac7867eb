"""Workflows' answers to what other apps announce. Each runs inside the announcing transaction."""

from __future__ import annotations

from consent.models import ConsentRecord
from core.identity import Identity
from workflows.withdrawal import operations_withdraw_for_consent


def on_consent_revoked(sender, *, identity: Identity, consent: ConsentRecord, **kwargs) -> None:
    operations_withdraw_for_consent(identity=identity, patient_id=consent.patient_id, purpose=consent.purpose)
