"""Encryption at rest for sensitive memory values (AES-256-GCM, authenticated), with key rotation.

Keys come from ``MEMORY_ENCRYPTION_KEYS`` ("kid:base64key,kid2:base64key") and ``MEMORY_ENCRYPTION_ACTIVE_KEY``.
The associated data binds each ciphertext to its memory and patient, so a ciphertext copied onto another row
does not decrypt. Deleting a memory destroys its ciphertext.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import os
import uuid
from functools import lru_cache

from cryptography.hazmat.primitives.ciphers.aead import AESGCM

from core.keyring import keyring
from core.parsers import fast_loads

NONCE_BYTES = 12


def _aad(memory_id: uuid.UUID, patient_id: uuid.UUID) -> bytes:
    return f"anamnesis:memory:{memory_id}:{patient_id}".encode()


def encrypt_fact(fact: dict, *, memory_id: uuid.UUID, patient_id: uuid.UUID) -> tuple[bytes, str]:
    kid, keys = keyring()
    nonce = os.urandom(NONCE_BYTES)
    plaintext = json.dumps(fact, sort_keys=True, separators=(",", ":")).encode()
    return nonce + AESGCM(keys[kid]).encrypt(nonce, plaintext, _aad(memory_id, patient_id)), kid


@lru_cache(maxsize=8)
def _cipher(key: bytes) -> AESGCM:
    """One AES-GCM object per key (its key schedule is built once): a search decrypts every candidate."""
    return AESGCM(key)


def decrypt_fact(ciphertext: bytes, *, key_id: str, memory_id: uuid.UUID, patient_id: uuid.UUID) -> dict:
    _, keys = keyring()
    data = bytes(ciphertext)
    plaintext = _cipher(keys[key_id]).decrypt(data[:NONCE_BYTES], data[NONCE_BYTES:], _aad(memory_id, patient_id))
    return fast_loads(plaintext)  # what json.dumps wrote, read several times faster (a search reads 200)


def new_salt() -> bytes:
    return os.urandom(32)


def value_digest(fact: dict | None, salt: bytes | None) -> str | None:
    """A keyed digest of a value: equal values of one record compare equal, but without the record's salt
    (erased on deletion) nobody can test a guess against it."""
    if fact is None or salt is None:
        return None
    canonical = json.dumps(fact, sort_keys=True, separators=(",", ":")).encode()
    return hmac.new(bytes(salt), canonical, hashlib.sha256).hexdigest()
