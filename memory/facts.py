"""Typed facts. Each memory type has a closed set of kinds; each kind a closed set of fields. Free text has no
place here: an open dict is how transcripts leak into "memory"."""

from __future__ import annotations

import re
from dataclasses import dataclass

from rest_framework import serializers

from memory.models import MemoryClass

HHMM = re.compile(r"^([01]\d|2[0-3]):[0-5]\d$")
DAYS = ["monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"]
PERIODS = ["morning", "afternoon", "evening"]
CHANNELS = ["sms", "email", "phone", "portal", "letter"]
LANGUAGE = re.compile(r"^[A-Za-z]{2,3}(-[A-Za-z0-9]{2,8}){0,3}$")


class StrictSerializer(serializers.Serializer):
    """Refuses fields it does not declare."""

    def to_internal_value(self, data):
        if isinstance(data, dict):
            unknown = sorted(set(data) - set(self.fields))
            if unknown:
                raise serializers.ValidationError({name: ["unknown field"] for name in unknown})
        return super().to_internal_value(data)


class TimeField(serializers.RegexField):
    def __init__(self, **kwargs):
        super().__init__(HHMM, error_messages={"invalid": "use 24-hour HH:MM"}, **kwargs)


class TimeFact(StrictSerializer):
    kind = serializers.ChoiceField(choices=["earliest_time", "latest_time"])
    time = TimeField()


class ExcludedDaysFact(StrictSerializer):
    kind = serializers.ChoiceField(choices=["excluded_days"])
    days = serializers.ListField(child=serializers.ChoiceField(choices=DAYS), min_length=1, max_length=7)

    def validate_days(self, value):
        return sorted(set(value), key=DAYS.index)


class ExcludedPeriodsFact(StrictSerializer):
    kind = serializers.ChoiceField(choices=["excluded_periods"])
    periods = serializers.ListField(child=serializers.ChoiceField(choices=PERIODS), min_length=1, max_length=3)

    def validate_periods(self, value):
        return sorted(set(value), key=PERIODS.index)


class ChannelFact(StrictSerializer):
    kind = serializers.ChoiceField(choices=["channel"])
    channel = serializers.ChoiceField(choices=CHANNELS)


class LanguageFact(StrictSerializer):
    kind = serializers.ChoiceField(choices=["language"])
    language = serializers.RegexField(LANGUAGE, max_length=35,
                                      error_messages={"invalid": "use a BCP 47 language tag such as en or pl-PL"})


class ContactWindowFact(StrictSerializer):
    kind = serializers.ChoiceField(choices=["contact_window"])
    start = TimeField()
    end = TimeField()

    def validate(self, attrs):
        if attrs["start"] >= attrs["end"]:
            raise serializers.ValidationError({"end": ["must be after start"]})
        return attrs


@dataclass(frozen=True)
class MemoryTypeSpec:
    memory_class: str
    purposes: tuple[str, ...]
    kinds: dict[str, type[StrictSerializer]]


MEMORY_TYPES: dict[str, MemoryTypeSpec] = {
    "scheduling_preference": MemoryTypeSpec(
        memory_class=MemoryClass.PREFERENCE,
        purposes=("appointment_scheduling",),
        kinds={"earliest_time": TimeFact, "latest_time": TimeFact, "excluded_days": ExcludedDaysFact,
               "excluded_periods": ExcludedPeriodsFact},
    ),
    "communication_preference": MemoryTypeSpec(
        memory_class=MemoryClass.PREFERENCE,
        purposes=("communication", "appointment_scheduling"),
        kinds={"channel": ChannelFact, "language": LanguageFact, "contact_window": ContactWindowFact},
    ),
}


def validate_fact(memory_type: str, fact) -> tuple[str, dict]:
    """Return (attribute, normalised fact) or raise serializers.ValidationError naming the field."""
    spec = MEMORY_TYPES.get(memory_type)
    if spec is None:
        raise serializers.ValidationError({"memory_type": [f"unknown memory type; one of {sorted(MEMORY_TYPES)}"]})
    if not isinstance(fact, dict):
        raise serializers.ValidationError({"fact": ["must be an object"]})
    kind = fact.get("kind")
    serializer_class = spec.kinds.get(kind) if isinstance(kind, str) else None
    if serializer_class is None:
        raise serializers.ValidationError({"fact": {"kind": [f"one of {sorted(spec.kinds)}"]}})
    s = serializer_class(data=fact)
    if not s.is_valid():
        raise serializers.ValidationError({"fact": s.errors})
    return kind, dict(s.validated_data)
