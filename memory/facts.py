"""Typed facts. Each memory type has a closed set of kinds; each kind a closed set of fields. Free text has no
place here: an open dict is how transcripts leak into "memory"."""

from __future__ import annotations

import hashlib
import hmac
import re
from dataclasses import dataclass

from django.conf import settings
from rest_framework import serializers

from core.serializers import StrictSerializer
from memory.models import MemoryClass

HHMM = re.compile(r"^([01]\d|2[0-3]):[0-5]\d$")
DAYS = ["monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"]
PERIODS = ["morning", "afternoon", "evening"]
CHANNELS = ["sms", "email", "phone", "portal", "letter"]
LANGUAGE = re.compile(r"^[A-Za-z]{2,3}(-[A-Za-z0-9]{2,8}){0,3}$")


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


CLINICAL_TERM = re.compile(r"^[A-Za-z0-9][A-Za-z0-9 ,.()'/-]{0,79}$")


class ClinicalTermField(serializers.RegexField):
    """A short clinical term (a substance, a medication), not a sentence: no transcripts in memory."""

    def __init__(self, **kwargs):
        super().__init__(CLINICAL_TERM, error_messages={"invalid": "a short term: letters, digits, spaces, "
                                                                   "and , . ( ) ' / - (at most 80)"}, **kwargs)


class AllergyFact(StrictSerializer):
    kind = serializers.ChoiceField(choices=["allergy"])
    substance = ClinicalTermField()
    reaction = ClinicalTermField(required=False)
    severity = serializers.ChoiceField(choices=["mild", "moderate", "severe", "unknown"], required=False)


class IndicationFact(StrictSerializer):
    kind = serializers.ChoiceField(choices=["long_term_indication"])
    medication = ClinicalTermField()
    indication = ClinicalTermField()
    monitoring = ClinicalTermField(required=False)


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
    # Staff-confirmed care context: only staff or an EHR import write it, always with a review date, and it is
    # always served with the note that current clinical values must be fetched live.
    "care_context": MemoryTypeSpec(
        memory_class=MemoryClass.CARE_CONTEXT,
        purposes=("care_coordination",),
        kinds={"allergy": AllergyFact, "long_term_indication": IndicationFact},
    ),
}

# The attribute a kind supersedes: one value per preference kind; one per substance or medication for care facts.
_ATTRIBUTE_KEY = {"allergy": "substance", "long_term_indication": "medication"}


def _term_key(value: str) -> str:
    """A keyed hash of a normalised clinical term: stable for supersession, and no plaintext in the attribute
    (which outlives the value as part of the tombstone's indexable identity)."""


    normalised = re.sub(r"[^a-z0-9]+", " ", value.casefold()).strip()
    return hmac.new(settings.MEMORY_ATTRIBUTE_KEY.encode(), normalised.encode(), hashlib.sha256).hexdigest()[:24]


def attribute_for(fact: dict) -> str:
    kind = fact["kind"]
    key = _ATTRIBUTE_KEY.get(kind)
    return f"{kind}:{_term_key(fact[key])}" if key else kind


def fact_text(memory_type: str, fact: dict) -> str:
    """A short plain-language rendering of a typed fact (for people, full-text search and embeddings)."""
    kind = fact.get("kind")
    if kind == "earliest_time":
        return f"Scheduling preference: appointments not before {fact['time']}"
    if kind == "latest_time":
        return f"Scheduling preference: appointments no later than {fact['time']}"
    if kind == "excluded_days":
        return "Scheduling preference: cannot attend on " + ", ".join(d.title() for d in fact["days"])
    if kind == "excluded_periods":
        return "Scheduling preference: cannot attend in the " + " or ".join(fact["periods"])
    if kind == "channel":
        return f"Communication preference: contact by {fact['channel']}"
    if kind == "language":
        return f"Communication preference: language {fact['language']}"
    if kind == "contact_window":
        return f"Communication preference: contact between {fact['start']} and {fact['end']}"
    if kind == "allergy":
        text = f"Documented {fact['substance']} allergy"
        if fact.get("reaction"):
            text += f" (reaction: {fact['reaction']})"
        if fact.get("severity"):
            text += f", severity {fact['severity']}"
        return text
    if kind == "long_term_indication":
        text = f"Long-term {fact['medication']} therapy for {fact['indication']}"
        if fact.get("monitoring"):
            text += f"; {fact['monitoring']} monitoring required"
        return text
    return memory_type.replace("_", " ")


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
    normalised = dict(s.validated_data)
    return attribute_for(normalised), normalised
