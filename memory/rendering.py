"""One renderer of a memory: the JSON that the API, the MCP tools and the export give.

Every face renders a memory through here, so a memory reads the same wherever it is shown: its text is its type's
rendering (:func:`memory.types.fact_text`) by its own type version (an organisation may have revised the type
since), falling back to the latest version when that one is gone. The list, the read, search and the answers to
writes build the same dict from either a row of :data:`memory.selectors.ITEM_COLUMNS` (the hot reads: no model
instance, no serializer fields) or a model instance.
"""

from __future__ import annotations

from rest_framework import serializers

from core.parsers import fast_loads
from memory.crypto import decrypt_fact
from memory.guardrails import guardrails_for
from memory.lifecycle import memory_value
from memory.models import Memory
from memory.types import fact_render, type_get

_DECODE = object()


def memory_item(row: tuple, value=_DECODE, text: str | None = None, *, specs: dict | None = None) -> dict:
    """One row of ``ITEM_COLUMNS`` as the memory's JSON. Timestamps arrive as ISO 8601 text in UTC.
    ``value``: the plaintext fact when the caller has decoded it already, and ``text`` its rendering (search has
    both). ``specs``: a dict kept by the caller across the rows of one answer, so each type is looked up once."""
    (memory_id, patient_id, memory_class, memory_type, type_version, attribute, fact, ciphertext, key_id, state,
     source, source_ref, confidence, policy_revision, consent_purpose, consent_record_id, valid_from, valid_until,
     expires_at, review_by, superseded_by, created_by, agent_client_id, created_at) = row
    if value is not _DECODE:
        pass
    elif fact is not None:
        value = fast_loads(fact)
    elif ciphertext is not None:
        value = decrypt_fact(ciphertext, key_id=key_id, memory_id=memory_id, patient_id=patient_id)
    else:
        value = None
    looked_up = specs.get((memory_type, type_version)) if specs is not None else None
    if looked_up is None:
        # The guardrails read the memory's own version; its text falls back to the latest (as fact_text does).
        spec = type_get(memory_type, type_version)
        looked_up = (spec, spec or type_get(memory_type))
        if specs is not None:
            specs[(memory_type, type_version)] = looked_up
    spec, text_spec = looked_up
    if value is None:
        text = None
    elif text is None:
        text = fact_render(text_spec, value) if text_spec is not None else memory_type.replace("_", " ")
    return {
        "memory_id": str(memory_id), "patient_id": str(patient_id), "memory_class": memory_class,
        "memory_type": memory_type, "type_version": type_version, "attribute": attribute, "fact": value,
        "text": text,
        "state": state, "source": source, "source_ref": source_ref, "confidence": float(confidence),
        "policy_revision": policy_revision, "consent_purpose": consent_purpose,
        "consent_record_id": str(consent_record_id) if consent_record_id is not None else None,
        "valid_from": valid_from, "valid_until": valid_until, "expires_at": expires_at,
        "review_by": review_by, "superseded_by": str(superseded_by) if superseded_by is not None else None,
        "guardrails": guardrails_for(memory_class, fetch_live=spec.fetch_live if spec else None),
        "created_by": created_by, "agent_client_id": agent_client_id, "created_at": created_at,
    }


_WHEN = serializers.DateTimeField()  # the API's rendering of a datetime (settings.REST_FRAMEWORK's format)


def _when(value) -> str | None:
    return _WHEN.to_representation(value) if value is not None else None


def _text(value) -> str | None:
    return str(value) if value is not None else None


def memory_out(memory: Memory) -> dict:
    """A model instance's JSON, the same as :func:`memory_item` gives for its row (``memory_value`` decides what
    an expired or deleted memory still shows)."""
    row = (memory.memory_id, memory.patient_id, _text(memory.memory_class), _text(memory.memory_type),
           int(memory.type_version), _text(memory.attribute), None, None, None, _text(memory.state),
           _text(memory.source), _text(memory.source_ref), memory.confidence, _text(memory.policy_revision),
           _text(memory.consent_purpose), memory.consent_record_id, _when(memory.valid_from),
           _when(memory.valid_until), _when(memory.expires_at), _when(memory.review_by), memory.superseded_by_id,
           _text(memory.created_by), _text(memory.agent_client_id), _when(memory.created_at))
    return memory_item(row, memory_value(memory))
