"""Standard Webhooks signing (https://www.standardwebhooks.com), and the subscriptions' secrets at rest.

A message is signed as ``v1,<base64 HMAC-SHA256 of "{id}.{timestamp}.{body}">`` under the secret's bytes (the
part after ``whsec_``, base64-decoded), and sent with the headers ``webhook-id`` (the event's id, the same on every
attempt, so a receiver deduplicates), ``webhook-timestamp`` (seconds since the epoch, of this attempt) and
``webhook-signature``. A receiver that checks the signature and refuses timestamps older than a few minutes is
protected against replays (the Standard Webhooks libraries' default tolerance is five minutes).

Secrets are kept encrypted with AES-256-GCM under a key derived (HKDF-SHA256) from the active memory encryption key
(``MEMORY_ENCRYPTION_KEYS``, ``MEMORY_ENCRYPTION_ACTIVE_KEY``): one key configuration for the service, and a key of
its own for this use. The associated data binds a ciphertext to its subscription and organisation.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import os
import re
import uuid
from functools import lru_cache

from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.ciphers.aead import AESGCM
from cryptography.hazmat.primitives.kdf.hkdf import HKDF

from core.keyring import keyring

SECRET_PREFIX = "whsec_"
SECRET_BYTES = 32
MIN_SECRET_BYTES, MAX_SECRET_BYTES = 24, 64
NONCE_BYTES = 12
_SECRET = re.compile(r"^whsec_[A-Za-z0-9+/]+={0,2}\Z")


def new_secret() -> str:
    return SECRET_PREFIX + base64.b64encode(os.urandom(SECRET_BYTES)).decode()


def secret_bytes(secret: str) -> bytes:
    """The key of a ``whsec_<base64>`` secret; ValueError for anything else (or a key of the wrong size)."""
    if not isinstance(secret, str) or len(secret) > 200 or not _SECRET.match(secret):
        raise ValueError("not a whsec_ secret")
    try:
        key = base64.b64decode(secret[len(SECRET_PREFIX):], validate=True)
    except (binascii.Error, ValueError):
        raise ValueError("not a whsec_ secret") from None
    if not MIN_SECRET_BYTES <= len(key) <= MAX_SECRET_BYTES:
        raise ValueError(f"the secret's key is {MIN_SECRET_BYTES} to {MAX_SECRET_BYTES} bytes")
    return key


def signature(secret: str, *, msg_id: str, timestamp: int, body: bytes) -> str:
    """The ``webhook-signature`` header's value for one message."""
    signed = f"{msg_id}.{timestamp}.".encode() + body
    digest = hmac.new(secret_bytes(secret), signed, hashlib.sha256).digest()
    return "v1," + base64.b64encode(digest).decode()


def headers(secret: str, *, msg_id: str, timestamp: int, body: bytes) -> dict[str, str]:
    return {"webhook-id": msg_id, "webhook-timestamp": str(timestamp),
            "webhook-signature": signature(secret, msg_id=msg_id, timestamp=timestamp, body=body),
            "content-type": "application/json"}


# --- the secret at rest ---------------------------------------------------------------------------------------
@lru_cache(maxsize=8)
def _derived(master: bytes) -> bytes:
    return HKDF(algorithm=hashes.SHA256(), length=32, salt=None,
                info=b"anamnesis:event-subscription-secret").derive(master)


def _keys() -> tuple[str, dict[str, bytes]]:
    active, masters = keyring()
    return active, {kid: _derived(master) for kid, master in masters.items()}


def _aad(subscription_id: uuid.UUID, organization_id: uuid.UUID) -> bytes:
    return f"anamnesis:event-subscription:{subscription_id}:{organization_id}".encode()


def encrypt_secret(secret: str, *, subscription_id: uuid.UUID, organization_id: uuid.UUID) -> tuple[bytes, str]:
    kid, keys = _keys()
    nonce = os.urandom(NONCE_BYTES)
    sealed = AESGCM(keys[kid]).encrypt(nonce, secret.encode(), _aad(subscription_id, organization_id))
    return nonce + sealed, kid


def decrypt_secret(ciphertext: bytes, *, key_id: str, subscription_id: uuid.UUID,
                   organization_id: uuid.UUID) -> str:
    _, keys = _keys()
    data = bytes(ciphertext)
    return AESGCM(keys[key_id]).decrypt(data[:NONCE_BYTES], data[NONCE_BYTES:],
                                        _aad(subscription_id, organization_id)).decode()
