"""What an MCP tool's answer must not carry: the patient's id (the launch patient's and any the call names) and
their directory identifiers, replaced wherever they stand (agents_mcp.calls.run_tool)."""

from __future__ import annotations

import logging
import uuid

from django.db import DatabaseError, connection

from agents_mcp.tools import PATIENT_ARGUMENT
from conversations.context import REDACTED, redactor
from core.authentication import identity_from_token
from core.errors import ApiError
from core.identity import identity_context
from core.patient_identifiers import identifier_values
from core.vocabulary import uuid_or_none

log = logging.getLogger("anamnesis.mcp")


def patient_ids_in(value) -> list[uuid.UUID]:
    found: list[uuid.UUID] = []
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, dict):
            for key, child in item.items():
                if key == PATIENT_ARGUMENT and (pid := uuid_or_none(child)) is not None and pid not in found:
                    found.append(pid)
                else:
                    stack.append(child)
        elif isinstance(item, list):
            stack.extend(item)
    return found


def identifiers_of(token: str, patients: list[uuid.UUID]) -> tuple[str, ...]:
    """The directory identifiers (MRNs) of these patients that the caller may see (row-level security)."""
    if not patients:
        return ()
    try:
        identity = identity_from_token(token)
        with identity_context(identity):
            return tuple(v for p in patients for v in identifier_values(identity.org_id, p))
    except (ApiError, DatabaseError) as exc:  # the call itself answered; the ids are redacted all the same
        log.warning("mcp: patient identifiers unavailable for redaction (%s)", type(exc).__name__)
        return ()
    finally:
        connection.close()  # as the request handler does: no worker thread keeps a connection (or a pool slot)


def without_patient_ids(body: dict, patients: list[uuid.UUID], identifiers: tuple[str, ...] = ()) -> dict:
    redact = redactor(*patients, also=identifiers)

    def walk(value, key=None):
        if key == PATIENT_ARGUMENT and isinstance(value, str):
            return REDACTED
        if isinstance(value, dict):
            return {redact(k): walk(v, k) for k, v in value.items()}
        if isinstance(value, list):
            return [walk(v) for v in value]
        return redact(value)

    return walk(body)
