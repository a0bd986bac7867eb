"""What consent tells the apps built on it. Sent inside the writing transaction, so a receiver's writes commit or
roll back with the consent change itself (no window in which a revoked consent still serves memories)."""

from django.dispatch import Signal

# Sent after a consent is revoked, before the transaction commits. Arguments: identity, consent.
consent_revoked = Signal()
