"""Safe retries for creating POSTs: ``Idempotency-Key``.

A view opts in with ``idempotent_create = True`` (:class:`core.api.ScopedAPIView` does the rest). With a key, the
first successful response is stored with a hash of the request, in the same transaction as the creation, so a
crash can never keep one without the other. The same key with the same request answers that response again
(same status, same body, ``Idempotent-Replayed: true``); with another request, 409 ``idempotency_key_reused``.
The same request is the same method, path and body; a JSON body is compared by its value (:func:`canonical_json`:
keys in any order, any whitespace), any other body by its bytes.
Keys belong to the caller (organisation and subject, by RLS; and the agent, when an agent calls: see
:func:`caller_key`) and are kept at least
``IDEMPOTENCY_KEY_RETENTION_HOURS``. Concurrent requests with one key are serialised by a transaction-scoped
advisory lock: the second waits for the first and then replays it. Failed requests store nothing, so the key can
be used again once the request is fixed.

Responses may hold a memory's value, so they are stored encrypted (AES-256-GCM, key derived from the secret key)
and removed by ``manage.py sweep_idempotency_keys``. A response is never given back once what it holds is gone or
may no longer be seen: deleting the patient's data, withdrawing their consent, revoking a grant or deleting the
resource of no patient it created (a webhook subscription) withdraws it (:func:`idempotency_withdraw`: the key
stays, the response goes; a retry is 409 ``idempotent_response_withdrawn`` and does nothing), and a response about
a patient is replayed only while the caller may still access that patient (else 403, as a new request would be).
"""

from __future__ import annotations

import hashlib
import hmac
import json
import os
import re
import time
from dataclasses import dataclass

from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives.ciphers.aead import AESGCM
from django.conf import settings
from django.db import connection, transaction
from rest_framework.utils.encoders import JSONEncoder

from core.errors import IdempotencyKeyReused, IdempotentResponseWithdrawn, NoConsentOrAccess, ValidationFailed
from core.identity import Identity, pipelined
from core.vocabulary import PURPOSES

HEADER = "Idempotency-Key"
_PURPOSES = [p for p, _ in PURPOSES]
# Whether the caller may access the record's patient for any purpose (the access rule, as RLS applies it).
_MAY_ACCESS = ("(patient_id IS NOT NULL AND EXISTS (SELECT 1 FROM unnest(%s::text[]) AS p(purpose) "
               "WHERE app_may_access(organization_id, patient_id, p.purpose)))")
_KEY = re.compile(r"^[A-Za-z0-9._:\-]{1,100}$")


def clean_key(raw: str | None) -> str | None:
    if raw is None:
        return None
    if not _KEY.fullmatch(raw):
        raise ValidationFailed(errors=[{"field": HEADER, "message": "1-100 of A-Z a-z 0-9 . _ : -",
                                        "code": "invalid"}])
    return raw


def request_hash(*, method: str, path: str, body: bytes) -> str:
    digest = hashlib.sha256()
    for part in (method.upper().encode(), path.encode(), body):
        digest.update(len(part).to_bytes(8, "big"))
        digest.update(part)
    return digest.hexdigest()


def canonical_json(value) -> bytes:
    """A parsed JSON body as one text: keys sorted, no whitespace, UTF-8 (as a workflow operation's payload hash).
    The same object sent with its keys in another order, other whitespace or other escapes is the same request."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode("utf-8")


def is_json_body(content_type: str | None, body: bytes) -> bool:
    """Whether a request's body is read as JSON (by the API's parser), so compared by its value, not its bytes."""
    media = (content_type or "").split(";", 1)[0].strip().lower()
    return bool(body) and media == "application/json"


def _aead() -> AESGCM:
    key = hmac.new(settings.SECRET_KEY.encode(), b"anamnesis idempotency responses", hashlib.sha256).digest()
    return AESGCM(key)


def caller_key(identity: Identity, key: str) -> str:
    """The key as stored for this caller. An agent shares its subject with the person it acts for (the patient's
    own ``sub``), but is not them: its writes are proposals, theirs are not. So an agent's keys are its own, apart
    from the person's and from every other agent's: the client's key, keyed-hashed with the agent's client id into
    the same alphabet and length (nobody without the secret key can name another caller's stored key)."""
    if identity.agent_client_id is None:
        return key
    mac = hmac.new(settings.SECRET_KEY.encode(), f"idempotency agent|{identity.agent_client_id}|{key}".encode(),
                   hashlib.sha256)
    return "agent:" + mac.hexdigest()[:40]


def _aad(identity: Identity, key: str) -> bytes:
    return f"{identity.org_id}|{identity.actor_sub}|{key}".encode()


@dataclass(frozen=True)
class Replay:
    status: int
    data: object
    patient_id: str | None


def idempotency_lookup(*, identity: Identity, key: str, digest: str, raw_digest: str | None = None) -> Replay | None:
    """Inside the caller's identity context: lock the key for this transaction, then return the stored response
    (same request) or raise ``idempotency_key_reused`` (another request); None when the key is new.

    ``raw_digest``, the hash of a JSON body's bytes as sent, also matches: records stored before JSON bodies were
    compared by their canonical form hold that one (the same bytes are the same request either way)."""
    key = caller_key(identity, key)
    # The lock, then the read it guards (a statement of its own, so its snapshot comes after the lock), in one
    # round trip (with the request's identity and gate when they are the block's first statements).
    with connection.cursor() as lock, connection.cursor() as cursor:
        with pipelined():
            lock.execute("SELECT pg_advisory_xact_lock(hashtextextended(%s, 0))",
                         [f"idempotency|{identity.org_id}|{identity.actor_sub}|{key}"])
            cursor.execute("SELECT request_hash, response_status, response_body, patient_id::text, "
                           f"NOT under_access OR {_MAY_ACCESS} "
                           "FROM idempotency_record "
                           "WHERE organization_id = %s AND actor_sub = %s AND idempotency_key = %s",
                           [_PURPOSES, identity.org_id, identity.actor_sub, key])
        row = cursor.fetchone()
    if row is None:
        return None
    stored_hash, status, sealed, patient_id, may_access = row
    if not hmac.compare_digest(stored_hash, digest) and not (
            raw_digest is not None and hmac.compare_digest(stored_hash, raw_digest)):
        raise IdempotencyKeyReused()
    if sealed is None:
        raise IdempotentResponseWithdrawn()
    if not may_access:  # the grant it was given under has ended (revoked or expired)
        raise NoConsentOrAccess()
    sealed = bytes(sealed)
    try:
        plain = _aead().decrypt(sealed[:12], sealed[12:], _aad(identity, key))
    except InvalidTag:  # the secret key changed since: the response cannot be given again
        raise IdempotencyKeyReused("this key's first response can no longer be replayed; use a new key") from None
    return Replay(status=status, data=json.loads(plain), patient_id=patient_id)


def patient_of(kwargs: dict, data, identity: Identity):
    """The patient a response is about: the URL's, else the one the response names (at its top or one level
    down: ``{"session": {"patient_id": ...}}``), else the caller's own when they act as a patient."""
    if kwargs.get("patient_id"):
        return kwargs["patient_id"]
    if isinstance(data, dict):
        for part in (data, *(v for v in data.values() if isinstance(v, dict))):
            if part.get("patient_id"):
                return part["patient_id"]
    return identity.patient_self_id


def idempotency_store(*, identity: Identity, key: str, digest: str, status: int, data, patient_id=None,
                      resource_id=None) -> None:
    """In the creation's own transaction: remember its response for this key (and which patient it is about, or
    which resource of no patient it created, so that deleting that patient's data or that resource withdraws it
    too: :func:`idempotency_withdraw`)."""
    key = caller_key(identity, key)
    plain = json.dumps(data, cls=JSONEncoder, separators=(",", ":")).encode()
    nonce = os.urandom(12)
    sealed = nonce + _aead().encrypt(nonce, plain, _aad(identity, key))
    with connection.cursor() as cursor:
        cursor.execute("INSERT INTO idempotency_record (organization_id, actor_sub, idempotency_key, "
                       "request_hash, response_status, response_body, patient_id, resource_id, under_access) "
                       "SELECT organization_id, actor_sub, idempotency_key, request_hash, response_status, "
                       f"response_body, patient_id, resource_id, {_MAY_ACCESS} FROM (VALUES (%s::uuid, %s, %s, "
                       "%s, %s::smallint, %s::bytea, %s::uuid, %s::uuid)) AS v(organization_id, actor_sub, "
                       "idempotency_key, request_hash, response_status, response_body, patient_id, resource_id)",
                       [_PURPOSES, identity.org_id, identity.actor_sub, key, digest, status, sealed,
                        str(patient_id) if patient_id else None, str(resource_id) if resource_id else None])


def idempotency_withdraw(*, identity: Identity, patient_id=None, actor_sub: str | None = None,
                         resource_id=None) -> int:
    """Inside a deletion's, consent withdrawal's or grant revocation's transaction, after it decided access: withdraw
    the stored responses about this patient (of every caller, or of ``actor_sub`` only), or, given ``resource_id``
    instead, those that created that resource of no patient (a webhook subscription deleted), as a replay would give
    back what was deleted or may no longer be seen. The keys stay: a retry is told its answer was withdrawn and does
    nothing (a retry of a deleted memory's creation would otherwise create it again). Returns how many."""
    if (patient_id is None) == (resource_id is None):
        raise ValueError("withdraw the responses about a patient or those that created a resource")
    # the setting opens exactly those records to the withdrawal (core migrations 0012 and 0018)
    setting, column, named = (("app.erase_patient", "patient_id", patient_id) if resource_id is None
                              else ("app.withdraw_resource", "resource_id", resource_id))
    sql = ("UPDATE idempotency_record SET response_status = NULL, response_body = NULL, withdrawn_at = now() "
           f"WHERE organization_id = %s AND {column} = %s AND withdrawn_at IS NULL")
    params: list = [identity.org_id, named]
    if actor_sub is not None:
        sql += " AND actor_sub = %s"
        params.append(actor_sub)
    with connection.cursor() as cursor:
        cursor.execute("SELECT set_config(%s, %s, true)", [setting, str(named)])
        cursor.execute(sql, params)
        removed = cursor.rowcount
        cursor.execute("SELECT set_config(%s, '', true)", [setting])
    return removed


def idempotency_sweep(*, older_than_hours: int | None = None) -> int:
    """Remove records older than the retention (default IDEMPOTENCY_KEY_RETENTION_HOURS, never under 24 h),
    and rate-limit counters of past windows. Idempotent; run from cron."""
    hours = max(24, older_than_hours if older_than_hours is not None else settings.IDEMPOTENCY_KEY_RETENTION_HOURS)
    with transaction.atomic(), connection.cursor() as cursor:
        cursor.execute("SELECT set_config('app.maintenance', 'idempotency', true)")
        cursor.execute("DELETE FROM idempotency_record WHERE created_at < now() - make_interval(hours => %s)",
                       [hours])
        removed = cursor.rowcount
        cursor.execute("SELECT set_config('app.maintenance', '', true)")
        cursor.execute("DELETE FROM api_rate_counter WHERE window_number < %s",
                       [int(time.time() // settings.API_RATE_LIMIT_WINDOW_SECONDS) - 1])
    return removed
