"""Memory's answers to what other apps announce. Each runs inside the announcing transaction."""

from __future__ import annotations

from consent.models import ConsentRecord
from core.identity import Identity
from memory.deletion import memory_apply_consent_revocation


def on_consent_revoked(sender, *, identity: Identity, consent: ConsentRecord, **kwargs) -> None:
    memory_apply_consent_revocation(identity=identity, consent=consent)
