"""Typed facts, through the memory type registry (:mod:`memory.types`). Each type's fact has a closed JSON Schema;
free text has no place here: an open dict is how transcripts leak into "memory".

The functions here keep the shape the rest of the code and the API were written against: ``validate_fact``
raises a DRF ``ValidationError`` naming the field, ``fact_text`` renders a sentence."""

from __future__ import annotations

import re

from rest_framework import serializers

from memory import types
from memory.types import TypeSpec

HHMM = re.compile(r"^([01]\d|2[0-3]):[0-5]\d$")
DAYS = ["monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"]
PERIODS = ["morning", "afternoon", "evening"]
CHANNELS = ["sms", "email", "phone", "portal", "letter"]
LANGUAGE = re.compile(r"^[A-Za-z]{2,3}(-[A-Za-z0-9]{2,8}){0,3}$")


# The built-in types' latest versions, by name (the organisation's own types come from ``types.type_get``).
MEMORY_TYPES: dict[str, TypeSpec] = types.builtin_latest()
MemoryTypeSpec = TypeSpec


def type_spec(memory_type: str, version: int | None = None) -> TypeSpec | None:
    """A type visible to the caller's organisation (built-in or its own), latest version unless asked."""
    return types.type_get(memory_type, version)


def fact_text(memory_type: str, fact: dict, version: int | None = None) -> str:
    """A short plain-language rendering of a typed fact (for people, full-text search and embeddings)."""
    spec = types.type_get(memory_type, version) or types.type_get(memory_type)
    if spec is None:
        return memory_type.replace("_", " ")
    return types.fact_render(spec, fact)


def validate_fact(memory_type: str, fact, version: int | None = None) -> tuple[str, dict]:
    """Return (attribute, normalised fact) or raise serializers.ValidationError naming the field."""
    return validate_fact_spec(memory_type, fact, version)[1:]


def validate_fact_spec(memory_type: str, fact, version: int | None = None) -> tuple[TypeSpec, str, dict]:
    """Like :func:`validate_fact`, also returning the type (version included) the fact was checked against."""
    spec = types.type_get(memory_type, version) if isinstance(memory_type, str) else None
    if spec is None:
        raise serializers.ValidationError({"memory_type": ["unknown memory type; see GET /v1/memory-types"]})
    try:
        attribute, normalised = types.fact_validate(spec, fact)
    except types.FactInvalid as exc:
        raise serializers.ValidationError(exc.detail) from None
    return spec, attribute, normalised
