"""An independent rendering of a memory, built the plain DRF way (a ModelSerializer over the model instance), that
the product's one renderer (``memory.rendering``) is compared with byte for byte. It reads the model's fields and
the type registry itself, so a slip in the product's hand-built dicts shows up as a difference."""

from __future__ import annotations

from rest_framework import serializers

from memory.guardrails import guardrails_for
from memory.lifecycle import memory_value
from memory.models import Memory
from memory.types import fact_render, type_get


class ReferenceMemoryOut(serializers.ModelSerializer):
    fact = serializers.SerializerMethodField()
    text = serializers.SerializerMethodField()
    guardrails = serializers.SerializerMethodField()
    consent_record_id = serializers.UUIDField(allow_null=True)
    superseded_by = serializers.UUIDField(source="superseded_by_id", allow_null=True)
    confidence = serializers.FloatField()

    class Meta:
        model = Memory
        fields = ["memory_id", "patient_id", "memory_class", "memory_type", "type_version", "attribute", "fact",
                  "text",
                  "state", "source", "source_ref", "confidence", "policy_revision", "consent_purpose",
                  "consent_record_id", "valid_from", "valid_until", "expires_at", "review_by", "superseded_by",
                  "guardrails", "created_by", "agent_client_id", "created_at"]

    def get_fact(self, obj) -> dict | None:
        return memory_value(obj)

    def get_text(self, obj) -> str | None:
        value = memory_value(obj)
        if value is None:
            return None
        spec = type_get(obj.memory_type, obj.type_version) or type_get(obj.memory_type)
        return fact_render(spec, value) if spec is not None else obj.memory_type.replace("_", " ")

    def get_guardrails(self, obj) -> dict:
        spec = type_get(obj.memory_type, obj.type_version)
        return guardrails_for(obj.memory_class, fetch_live=spec.fetch_live if spec else None)
