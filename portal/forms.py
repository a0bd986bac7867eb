"""Portal forms for typed facts. The fields follow the fact's kind; validation is the API's own
(:func:`memory.facts.validate_fact`), so a value the API refuses is refused here too, next to its field."""

from __future__ import annotations

from datetime import datetime, time

from django import forms
from django.utils import timezone
from rest_framework import serializers

from core.vocabulary import REASON_CODE_PATTERN
from memory.facts import CHANNELS, DAYS, PERIODS, validate_fact


def _time_field(label: str) -> forms.CharField:
    return forms.CharField(label=label, max_length=5, widget=forms.TextInput(
        attrs={"type": "time", "inputmode": "numeric", "autocomplete": "off"}),
        help_text="24-hour time, HH:MM")


def _fields_for_kind(kind: str) -> dict[str, forms.Field]:
    if kind == "earliest_time":
        return {"time": _time_field("Not before")}
    if kind == "latest_time":
        return {"time": _time_field("No later than")}
    if kind == "excluded_days":
        return {"days": forms.MultipleChoiceField(label="Days you cannot attend",
                                                  choices=[(d, d.title()) for d in DAYS],
                                                  widget=forms.CheckboxSelectMultiple)}
    if kind == "excluded_periods":
        return {"periods": forms.MultipleChoiceField(label="Times of day you cannot attend",
                                                     choices=[(p, p.title()) for p in PERIODS],
                                                     widget=forms.CheckboxSelectMultiple)}
    if kind == "channel":
        return {"channel": forms.ChoiceField(label="How to contact you", choices=[(c, c.title()) for c in CHANNELS])}
    if kind == "language":
        return {"language": forms.CharField(label="Language", max_length=35,
                                            help_text="A language tag such as en or pl-PL")}
    if kind == "contact_window":
        return {"start": _time_field("From"), "end": _time_field("Until")}
    if kind == "allergy":
        return {"substance": forms.CharField(label="Substance", max_length=80),
                "reaction": forms.CharField(label="Reaction", max_length=80, required=False),
                "severity": forms.ChoiceField(label="Severity", required=False, choices=[
                    ("", "Not stated"), ("mild", "Mild"), ("moderate", "Moderate"), ("severe", "Severe"),
                    ("unknown", "Unknown")])}
    if kind == "long_term_indication":
        return {"medication": forms.CharField(label="Medication", max_length=80),
                "indication": forms.CharField(label="Indication", max_length=80),
                "monitoring": forms.CharField(label="Monitoring", max_length=80, required=False)}
    return {}


def end_of_day(value) -> datetime | None:
    if value is None:
        return None
    return timezone.make_aware(datetime.combine(value, time(23, 59)), timezone.get_current_timezone())


class FactForm(forms.Form):
    """The typed fields of one memory's kind, plus its validity. ``cleaned_data`` gains ``fact``,
    ``attribute``, ``valid_until_at`` and ``review_by_at``."""

    valid_until = forms.DateField(label="Keep until (optional)", required=False,
                                  widget=forms.DateInput(attrs={"type": "date"}),
                                  help_text="Leave empty to keep it until you change it")

    def __init__(self, *args, memory_type: str, kind: str, care_context: bool = False, **kwargs):
        super().__init__(*args, **kwargs)
        self.memory_type = memory_type
        self.kind = kind
        self.kind_fields = _fields_for_kind(kind)
        fields = dict(self.kind_fields)
        fields["valid_until"] = self.fields.pop("valid_until")
        if care_context:
            fields["review_by"] = forms.DateField(label="Review by", widget=forms.DateInput(attrs={"type": "date"}))
        self.fields = fields

    @classmethod
    def initial_from_fact(cls, fact: dict) -> dict:
        return {k: v for k, v in fact.items() if k != "kind"}

    def clean(self):
        cleaned = super().clean()
        if self.errors:
            return cleaned
        fact = {"kind": self.kind}
        for name in self.kind_fields:
            value = cleaned.get(name)
            if value not in (None, "", []):
                fact[name] = value
        try:
            attribute, normalised = validate_fact(self.memory_type, fact)
        except serializers.ValidationError as exc:
            self._add_fact_errors(exc.detail)
            return cleaned
        cleaned["fact"] = normalised
        cleaned["attribute"] = attribute
        cleaned["valid_until_at"] = end_of_day(cleaned.get("valid_until"))
        cleaned["review_by_at"] = end_of_day(cleaned.get("review_by"))
        return cleaned

    def _add_fact_errors(self, detail) -> None:
        fact_errors = detail.get("fact", detail) if isinstance(detail, dict) else {"__all__": detail}
        if not isinstance(fact_errors, dict):
            self.add_error(None, "; ".join(str(m) for m in fact_errors))
            return
        for name, messages in fact_errors.items():
            messages = messages if isinstance(messages, list) else [messages]
            text = "; ".join(str(m) for m in messages if not isinstance(m, dict | list)) or "is not valid"
            self.add_error(name if name in self.fields else None, text)

    def add_service_errors(self, errors: list[dict]) -> None:
        """Errors a service raised (ValidationFailed.errors): each next to its field when it has one here."""
        for error in errors or []:
            field = (error.get("field") or "").removeprefix("fact.")
            self.add_error(field if field in self.fields else None, error.get("message") or "is not valid")


class ReasonForm(forms.Form):
    reason_code = forms.RegexField(label="Reason", regex=REASON_CODE_PATTERN, max_length=60,
                                   help_text="A short code, e.g. doubtful_source",
                                   error_messages={"invalid": "Use lower-case letters, digits and underscores "
                                                              "(3 to 60), starting with a letter."})
