"""Purpose of use: every read of a patient's records names why it reads, and is refused for a purpose the caller
holds no consent or grant for.

The rule (README, "Purpose of use"):

* a read names its purpose with ``purpose`` (a query parameter of a GET, a body field of a POST); the memory list
  and search also take their older filter ``consent_purpose`` as the same thing (both, differing: 422
  ``purpose_conflict``). A read for a purpose sees only what is kept for that purpose (minimum necessary);
* a read that names none is for the token's one purpose when its ``purpose_of_use`` claim names exactly one;
  otherwise it stays unnamed, as before this rule: it sees what the caller may see for any purpose and its audit
  row has no purpose (kept for existing callers; agents should name one: the Python client and the MCP read
  tools take it). A context pack is always for one purpose: none at all is 422;
* a named purpose the caller may not read for is refused as such: 403 ``purpose_not_permitted``, audited
  ``denied`` with that purpose. The answer is the same whether or not the patient exists. The patient in person
  is never refused their own record; an agent in a patient's context needs that patient's consent in force for the
  purpose; staff need a grant for it (``consent/sql/purpose_rule.sql``).
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from contextlib import contextmanager

import psycopg
from django.db import DatabaseError, connection, transaction
from drf_spectacular.utils import OpenApiParameter
from rest_framework import status

from core.errors import ApiError, ValidationFailed
from core.identity import Identity
from core.vocabulary import PURPOSE_CODES, PURPOSES

REFUSED_SQLSTATE = "AP403"


class PurposeNotPermitted(ApiError):
    status_code = status.HTTP_403_FORBIDDEN
    code = "purpose_not_permitted"
    title = "No consent or grant for this patient and purpose of use"


def query_purpose(identity: Identity, query_params) -> str | None:
    """The purpose of a GET that takes ``purpose`` as its only purpose parameter: the query's (422 when it is not a
    purpose of use), else the token's one claim, else None."""
    raw = query_params.get("purpose")
    if raw is not None and raw not in PURPOSE_CODES:
        raise ValidationFailed.of("purpose", "not a purpose of use", "invalid_choice")
    return read_purpose(identity, purpose=raw)


def read_purpose(identity: Identity, *, purpose: str | None, consent_purpose: str | None = None) -> str | None:
    """The purpose a read is for: the one it names (``purpose``, or the older ``consent_purpose`` filter), else the
    token's single ``purpose_of_use`` claim, else None (unnamed). Both named and differing: 422."""
    if purpose and consent_purpose and purpose != consent_purpose:
        raise ValidationFailed.of("consent_purpose", "names another purpose than purpose", "purpose_conflict")
    named = purpose or consent_purpose
    if named:
        return named
    if len(identity.token_purposes) == 1:
        return next(iter(identity.token_purposes))
    return None


@contextmanager
def refused_as_such(*, patient_id: uuid.UUID | str, purpose: str | None) -> Iterator[None]:
    """Turn the purpose rule's refusal in SQL (``core.audit.insert_statement(require_purpose=True)``, or
    :func:`require_purpose`) into 403 ``purpose_not_permitted``, audited after the rollback with the purpose."""
    try:
        yield
    except DatabaseError as exc:
        cause = exc.__cause__
        if isinstance(cause, psycopg.Error) and cause.sqlstate == REFUSED_SQLSTATE:
            raise PurposeNotPermitted().about(patient_id=patient_id, purpose=purpose) from None
        raise


def require_purpose(identity: Identity, *, patient_id: uuid.UUID, purpose: str) -> None:
    """Refuse (403 ``purpose_not_permitted``) unless the open identity may read this patient's records for
    ``purpose``: the same rule the reads that audit in SQL carry, for reads that check before they read."""
    with refused_as_such(patient_id=patient_id, purpose=purpose), connection.cursor() as cursor:
        cursor.execute("SELECT app_require_purpose(%s::uuid, %s::uuid, %s, %s)",
                       [identity.org_id, patient_id, purpose,
                        identity.is_agent and identity.patient_self_id is not None])


def permits(identity: Identity, *, patient_id: uuid.UUID, purpose: str) -> bool:
    """Whether :func:`require_purpose` would let the open identity read this patient's records for ``purpose``: the
    same rule, asked in a savepoint, without refusing or auditing anything."""
    try:
        with transaction.atomic(), connection.cursor() as cursor:
            cursor.execute("SELECT app_require_purpose(%s::uuid, %s::uuid, %s, %s)",
                           [identity.org_id, patient_id, purpose,
                            identity.is_agent and identity.patient_self_id is not None])
    except DatabaseError as exc:
        cause = exc.__cause__
        if isinstance(cause, psycopg.Error) and cause.sqlstate == REFUSED_SQLSTATE:
            return False
        raise
    return True


def checked_query_purpose(identity: Identity, query_params, *, patient_id: uuid.UUID) -> str | None:
    """:func:`query_purpose`, refused (:func:`require_purpose`) when the caller may not read for it: for reads that
    check before they read."""
    purpose = query_purpose(identity, query_params)
    if purpose is not None:
        require_purpose(identity, patient_id=patient_id, purpose=purpose)
    return purpose


# What the OpenAPI document says of every read's ``purpose``.
DESCRIPTION = ("Why the caller reads (purpose of use). Default: the token's purpose_of_use claim when it names exactly "
               "one. A purpose the caller holds no consent or grant for is 403 purpose_not_permitted.")


def purpose_parameter(note: str = "") -> OpenApiParameter:
    """A read's ``purpose`` query parameter in the OpenAPI document, with what this read adds (``note``)."""
    return OpenApiParameter("purpose", str, required=False, enum=[p for p, _ in PURPOSES],
                            description=DESCRIPTION + (" " + note if note else ""))
