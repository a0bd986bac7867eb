"""Portal forms for typed facts. The fields are generated from the type's JSON Schema; a form only shapes what was
typed into a fact. The write's service checks it, as it does for the API, and its errors are shown next to their
fields (:meth:`FactForm.add_service_errors`)."""

from __future__ import annotations

import re
from datetime import date, datetime, time, timedelta

from django import forms
from django.utils import timezone

from core.vocabulary import REASON_CODE_PATTERN
from memory.types import TypeSpec


class DateInput(forms.DateInput):
    """``<input type="date">``, whose value must be ``yyyy-mm-dd`` whatever the locale: with en-GB's
    ``dd/mm/yyyy`` a browser shows the box empty, and the next save drops the date. Every date field of the portal
    and the staff console uses this widget."""

    input_type = "date"
    iso_format = "%Y-%m-%d"

    def __init__(self, attrs=None):
        super().__init__(attrs, format=self.iso_format)


INT64 = 2**63


def _label(name: str, prop: dict) -> str:
    return prop.get("title") or name.replace("_", " ").capitalize()


def _choices(prop: dict) -> list[tuple[str, str]]:
    labels = prop.get("x-labels") or {}
    return [(str(v), (labels.get(str(v)) or str(v).replace("_", " ")).capitalize()) for v in prop.get("enum", [])]


def _enum_value(prop: dict):
    """What a choice sent as text stands for in the schema's enum: an organisation's type may list numbers (a level
    1 to 3), which the form sent back as the text "3" and the schema refused as not one of 1, 2, 3."""
    values = {str(v): v for v in prop.get("enum", [])}
    return lambda text: values.get(text, text)


def _field_for(name: str, prop: dict, required: bool) -> forms.Field | None:
    """One form field for one property of a fact's JSON Schema (the schema stays the validator)."""
    common = {"label": _label(name, prop), "required": required, "help_text": prop.get("description", "")}
    if "enum" in prop:
        choices = _choices(prop)
        return forms.TypedChoiceField(choices=choices if required else [("", "Not stated"), *choices],
                                      coerce=_enum_value(prop), **common)
    kind = prop.get("type")
    if kind == "array" and "enum" in (prop.get("items") or {}):
        return forms.TypedMultipleChoiceField(choices=_choices(prop["items"]), coerce=_enum_value(prop["items"]),
                                              widget=forms.CheckboxSelectMultiple, **common)
    if kind == "boolean":
        return forms.BooleanField(**{**common, "required": False})
    if kind == "integer":
        # within a 64-bit integer, as the API's parser holds every number (a larger one was stored, and read back
        # by the API as an approximate float)
        return forms.IntegerField(min_value=max(prop.get("minimum", -INT64), -INT64),
                                  max_value=min(prop.get("maximum", INT64 - 1), INT64 - 1), **common)
    if kind == "number":
        return NumberField(min_value=prop.get("minimum"), max_value=prop.get("maximum"), **common)
    if kind == "string":
        if prop.get("x-input") == "time":
            return forms.CharField(max_length=5, widget=forms.TextInput(
                attrs={"type": "time", "inputmode": "numeric", "autocomplete": "off"}),
                **{**common, "help_text": common["help_text"] or "24-hour time, HH:MM"})
        return forms.CharField(max_length=prop.get("maxLength", 200), **common)
    return None


class NumberField(forms.FloatField):
    """A JSON Schema ``number``: a whole number typed stays one (72, not 72.0), as the API would store it."""

    def to_python(self, value):
        value = super().to_python(value)
        return int(value) if value is not None and value.is_integer() and abs(value) < 2**53 else value


def fields_from_schema(branch: dict, prefix: str = "") -> dict[str, tuple[tuple[str, ...], forms.Field]]:
    """Form fields generated from one shape of a type's schema: {form name: (path in the fact, field)}.
    Nested objects become their fields, named ``outer__inner``; ``kind`` is fixed by the memory being edited."""
    out: dict[str, tuple[tuple[str, ...], forms.Field]] = {}
    required = set(branch.get("required", []))
    for name, prop in branch.get("properties", {}).items():
        if name == "kind" and not prefix:
            continue
        if prop.get("type") == "object":
            for inner, (path, field) in fields_from_schema(prop, prefix=f"{prefix}{name}__").items():
                field.label = f"{_label(name, prop)}: {field.label[0].lower()}{field.label[1:]}"
                if name not in required:
                    field.required = False
                    if isinstance(field, forms.ChoiceField) and not isinstance(field, forms.MultipleChoiceField) \
                            and not any(value == "" for value, _ in field.choices):
                        # else a browser sends the first choice, and an untouched optional object is half-filled
                        field.choices = [("", "Not stated"), *field.choices]
                out[inner] = ((name, *path), field)
            continue
        field = _field_for(name, prop, name in required)
        if field is not None:
            out[f"{prefix}{name}"] = ((name,), field)
    return out


def _unshown(branch: dict, shown: set[tuple[str, ...]], prefix: tuple[str, ...] = ()) -> list[tuple[str, ...]]:
    """The paths of the properties of one shape that the generated form has no field for (a list of free values,
    say, which an organisation's type may hold)."""
    out: list[tuple[str, ...]] = []
    for name, prop in branch.get("properties", {}).items():
        path = (*prefix, name)
        if path == ("kind",):
            continue
        if isinstance(prop, dict) and prop.get("type") == "object" and prop.get("properties"):
            out += _unshown(prop, shown, path)
        elif path not in shown:
            out.append(path)
    return out


def search_text(params, name: str) -> str:
    """What was typed into a search box: trimmed, at most 100 characters, without characters PostgreSQL cannot
    hold (a NUL in the query string was a 500)."""
    value = params.get(name, "")
    value = "".join(ch for ch in value if ch != "\x00" and not "\ud800" <= ch <= "\udfff")
    return value.strip()[:100]


def _at(fact: dict, path: tuple[str, ...]):
    for part in path:
        fact = fact.get(part) if isinstance(fact, dict) else None
    return fact


def end_of_day(value) -> datetime | None:
    if value is None:
        return None
    return timezone.make_aware(datetime.combine(value, time(23, 59)), timezone.get_current_timezone())


def keep_until_days(spec: TypeSpec) -> tuple[date, date]:
    """The first and last day a memory of ``spec`` may be kept until, in the page's zone: today, and the last day
    whose end (:func:`end_of_day`) is within the type's retention from now."""
    now = timezone.now()
    kept = now + timedelta(days=spec.kept_days)
    last = timezone.localtime(kept).date()
    if end_of_day(last) > kept:
        last -= timedelta(days=1)
    return timezone.localdate(now), last


class FactForm(forms.Form):
    """A fact's fields, generated from its type's JSON Schema (the shape of the memory's kind), plus its
    validity and, for types with review, the review date. ``cleaned_data`` gains ``fact``, ``valid_until_at`` and
    ``review_by_at``; the service checks the fact, and its errors name the same fields as the API's."""

    valid_until = forms.DateField(label="Keep until (optional)", required=False,
                                  widget=DateInput(), help_text="Leave empty to keep it until you change it")

    def __init__(self, *args, spec: TypeSpec, kind: str | None, correcting: bool = False,
                 current: dict | None = None, **kwargs):
        super().__init__(*args, **kwargs)
        self.spec = spec
        self.kind = kind
        branch = spec.branch_for({"kind": kind} if kind else {}) or {}
        self.paths = {name: path for name, (path, _) in fields_from_schema(branch).items()}
        # What the form cannot show is kept as it is by a correction (it was dropped from the value saved, or,
        # required, made every correction fail with an error next to no field)
        self.kept = {path: value for path in _unshown(branch, set(self.paths.values()))
                     if (value := _at(current or {}, path)) is not None}
        fields = {name: field for name, (_, field) in fields_from_schema(branch).items()}
        if correcting:
            # What the preference is about (say, the reminder's channel) is kept by a correction: shown, fixed to
            # the memory's value (the form's initial), never offered as a choice the service would refuse.
            props = branch.get("properties", {})
            for name in spec.attribute_fields(branch):
                # a closed vocabulary (the channel): another value is another attribute; a free value (a
                # substance's name) may still be corrected in its spelling, which names the same attribute
                if name in fields and ("enum" in props.get(name, {}) or "const" in props.get(name, {})):
                    fields[name].disabled = True
                    fields[name].help_text = "What this is about; it stays as it is when you correct the rest"
        fields["valid_until"] = self.fields.pop("valid_until")
        # the days the service takes (in the future, within the type's retention), offered by the date picker
        first, last = keep_until_days(spec)
        fields["valid_until"].widget.attrs.update({"min": first.isoformat(), "max": last.isoformat()})
        if spec.review:
            fields["review_by"] = forms.DateField(label="Review by", widget=DateInput())
        self.fields = fields

    @classmethod
    def initial_from_fact(cls, fact: dict) -> dict:
        initial: dict = {}
        for key, value in fact.items():
            if key == "kind":
                continue
            if isinstance(value, dict):
                initial.update({f"{key}__{k}": v for k, v in value.items()})
            else:
                initial[key] = value
        return initial

    def clean(self):
        cleaned = super().clean()
        if self.errors:
            return cleaned
        fact: dict = {"kind": self.kind} if self.kind else {}
        for name, path in self.paths.items():
            value = cleaned.get(name)
            if value in (None, "", []) or (value is False and not self.fields[name].required
                                           and name not in self._required_booleans()):
                continue
            node = fact
            for part in path[:-1]:
                node = node.setdefault(part, {})
            node[path[-1]] = value
        for path, value in self.kept.items():
            node = fact
            for part in path[:-1]:
                node = node.setdefault(part, {})
            node[path[-1]] = value
        cleaned["fact"] = fact
        cleaned["valid_until_at"] = end_of_day(cleaned.get("valid_until"))
        cleaned["review_by_at"] = end_of_day(cleaned.get("review_by"))
        return cleaned

    def _required_booleans(self) -> set[str]:
        branch = self.spec.branch_for({"kind": self.kind} if self.kind else {}) or {}
        return {n for n in branch.get("required", []) if branch.get("properties", {}).get(n, {}).get("type") ==
                "boolean"}

    def add_service_errors(self, errors: list[dict]) -> None:
        """Errors a service raised (ValidationFailed.errors): each next to its field when it has one here."""
        for error in errors or []:
            field = re.sub(r"\[\d+\]", "", (error.get("field") or "").removeprefix("fact.")).replace(".", "__")
            if field and field not in self.fields:
                # about a group of fields (a coded substance without its code): next to the group's first field
                field = next((name for name in self.fields if name.startswith(f"{field}__")), "")
            message = error.get("message") or "is not valid"
            if error.get("code") == "beyond_retention":  # the API's words name the type by its internal name
                message = f"Choose a day at most {self.spec.kept_days} days from today: it is kept no longer."
            self.add_error(field or None, message)


class ReasonForm(forms.Form):
    reason_code = forms.RegexField(label="Reason", regex=REASON_CODE_PATTERN, max_length=60,
                                   help_text="A short code, e.g. doubtful_source",
                                   error_messages={"invalid": "Use lower-case letters, digits and underscores "
                                                              "(3 to 60), starting with a letter."})
