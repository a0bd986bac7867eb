"""The bases of the API's serializers: requests refuse fields they do not declare (never silently dropped), and
model renderings work their fields out once per class."""

from __future__ import annotations

import copy
import re
import unicodedata
from typing import ClassVar

from drf_spectacular.utils import OpenApiParameter, extend_schema_field
from rest_framework import serializers

from core.authentication import well_formed_subject
from core.errors import ValidationFailed


class StrictSerializer(serializers.Serializer):
    """Refuses fields it does not declare."""

    # (The docstring is every request body's description in the OpenAPI document.) A choice it refuses is answered
    # with the choices, never with what was sent: DRF's message repeats the value, which may be health information.
    def get_fields(self):
        fields = super().get_fields()
        for field in fields.values():
            for choice in (field, getattr(field, "child", None)):
                if isinstance(choice, serializers.ChoiceField):
                    choice.error_messages["invalid_choice"] = choices_message(choice.choices)
        return fields

    def to_internal_value(self, data):
        if isinstance(data, dict):
            unknown = sorted(set(data) - set(self.fields))
            if unknown:
                # the code a memory type's definition, an MCP tool's arguments and a fact's fields give it too
                raise serializers.ValidationError(
                    {name: [serializers.ErrorDetail("unknown field", code="unknown_field")] for name in unknown})
            # DRF's text fields take the number 12 as "12": a subject, a name or a reason is sent as text
            numbers = sorted(name for name, field in self.fields.items()
                             if not field.read_only and (_number_for_text(field, data.get(name)) or (
                                 isinstance(field, serializers.ListField) and isinstance(data.get(name), list)
                                 and any(_number_for_text(field.child, item) for item in data[name]))))
            if numbers:
                raise serializers.ValidationError(
                    {name: [serializers.ErrorDetail("Not a valid string.", code="invalid")] for name in numbers})
            # ... and its number fields take "5", " 5" and true as 5 and 1: a count or a score is sent as a number
            texts = sorted(name for name, field in self.fields.items()
                           if isinstance(field, serializers.IntegerField | serializers.FloatField)
                           and isinstance(data.get(name), str | bool) and not field.read_only)
            if texts:
                raise serializers.ValidationError(
                    {name: [serializers.ErrorDetail("Not a valid number.", code="invalid")] for name in texts})
            # ... and its flags take "yes", "off", "0", 1 and 0 as true and false: a flag is sent as true or false
            words = sorted(name for name, field in self.fields.items()
                           if isinstance(field, serializers.BooleanField) and not field.read_only
                           and name in data and not isinstance(data[name], bool)
                           and not (data[name] is None and field.allow_null))
            if words:
                raise serializers.ValidationError(
                    {name: [serializers.ErrorDetail("must be true or false", code="invalid")] for name in words})
        return super().to_internal_value(data)


def _number_for_text(field, value) -> bool:
    return isinstance(field, serializers.CharField) and isinstance(value, int | float)


def choices_message(choices) -> str:
    """What a refused choice is told: the accepted values, when they are few enough to read."""
    names = [str(c) for c in choices]
    return f"one of {', '.join(names)}" if len(names) <= 12 else "not one of the accepted values"


_ASCII_DIGITS = re.compile(r"[0-9]{1,9}")


def page_parameters(*, default: int, older: str) -> list[OpenApiParameter]:
    """The query parameters of a list read a page at a time, newest first (core.audit.keyset_page)."""
    return [OpenApiParameter("limit", {"type": "integer", "minimum": 1, "maximum": 500}, required=False,
                             description=f"1-500, default {default}"),
            OpenApiParameter("cursor", str, required=False,
                             description=f"the next_cursor of the previous page: {older}")]


def next_cursor_field() -> serializers.CharField:
    return serializers.CharField(allow_null=True, help_text="null on the last page")


def integer_parameter(params, name: str, *, default: int, low: int, high: int, blank: bool = False) -> int:
    """A query parameter holding a whole number from ``low`` to ``high`` (``default`` when absent, and when empty
    if ``blank``), written in ASCII digits only: ``int`` also reads "+5", " 5 ", "1_000" and other scripts' digits
    ("١٥٠٠"). Anything else is 422 ``invalid`` naming the range."""
    raw = params.get(name)
    if raw is None or (blank and raw == ""):
        return default
    if _ASCII_DIGITS.fullmatch(raw) and low <= int(raw) <= high:
        return int(raw)
    raise ValidationFailed.of(name, f"an integer from {low} to {high}")


class QueryInteger(serializers.IntegerField):
    """A whole number in a query string, in ASCII digits only (as :func:`integer_parameter`)."""

    def to_internal_value(self, data):
        if isinstance(data, str) and not _ASCII_DIGITS.fullmatch(data):
            self.fail("invalid")
        return super().to_internal_value(data)


class UUIDIn(serializers.UUIDField):
    """A UUID, sent as a string. DRF's field also reads an integer as the UUID with that value, so a client that
    sent a number (an MRN, say) was answered about the patient ``00000000-...-000000100001`` (403, no consent)
    instead of being told that the field is not a UUID."""

    def to_internal_value(self, data):
        if not isinstance(data, str):
            self.fail("invalid", value=data)
        return super().to_internal_value(data)


class RealUUIDIn(UUIDIn):
    """The id of a patient or an organisation, as a caller sends it to register one or to start something for one
    (a grant, a session, a workflow). The nil UUID (all zeros) and the max UUID (all ones, RFC 9562) are
    placeholders, what a client sends for "none" or by mistake, never an id: a patient was registered under the nil
    UUID, a real record that every such mistake then reached."""

    default_error_messages = {"reserved": "the nil and max UUIDs are no one's id: send a real one, or leave it out"}

    def to_internal_value(self, data):
        value = super().to_internal_value(data)
        if value.int in (0, 2**128 - 1):
            self.fail("reserved")
        return value


@extend_schema_field({"type": "object", "additionalProperties": True})
class JSONObjectIn(serializers.JSONField):
    """A JSON object, published as one: DRF's JSONField is any JSON value in the OpenAPI document (and so in the MCP
    tools' input schemas), while the services refuse anything but an object (422, "must be an object")."""


_DATE_TIME = re.compile(r"\d{4}-\d{2}-\d{2}([Tt ]\d{2}:\d{2}(:\d{2}(\.\d{1,6})?)?([Zz]|[+-]\d{2}:\d{2})?)?")


class DateTimeIn(serializers.DateTimeField):
    """A date and time as RFC 3339 writes it (the offset may be left out: UTC), or a calendar date (its midnight,
    UTC). Python's own parser also reads week dates (``2030-W01``) and ordinal dates (``2030-001``), each as some
    midnight nobody wrote: refused."""

    default_error_messages = {"invalid": "a date and time, such as 2027-01-31T09:00:00Z"}

    def to_internal_value(self, value):
        if isinstance(value, str):
            if not _DATE_TIME.fullmatch(value):
                self.fail("invalid")
            value = value.upper()  # RFC 3339 allows t and z; Django's parser reads only T and Z
        return super().to_internal_value(value)


def _invisible(ch: str) -> bool:
    # white space, and format characters such as the zero-width space and joiners (category Cf)
    return ch.isspace() or unicodedata.category(ch) in ("Cf", "Zs", "Cc")


def visible(text: str) -> str:
    """``text`` trimmed of white space and invisible characters at both ends ("" when it shows nothing)."""
    start, end = 0, len(text)
    while start < end and _invisible(text[start]):
        start += 1
    while end > start and _invisible(text[end - 1]):
        end -= 1
    return text[start:end]


# What no name people read may hold (the category's reason): a name is one line of visible text, and these show
# nothing, show as something else, or turn the text around ("\u202eecila" shows as "alice" in a staff search).
_NOT_IN_NAMES = {
    "Cc": "a control character",
    "Cf": "an invisible formatting character (a direction control, zero-width character, byte-order mark or tag)",
    "Zl": "a line separator",
    "Zp": "a paragraph separator",
    "Co": "a private-use character",
    "Cs": "an unpaired surrogate",
    "Cn": "an unassigned code point",
}


# The zero-width non-joiner and joiner (U+200C, U+200D) are part of how words are spelt in Persian and the Indic
# scripts: allowed between two letters or marks, refused anywhere else like every other format character.
_JOINERS = frozenset("\u200c\u200d")


def _in_word(ch: str) -> bool:
    return unicodedata.category(ch)[0] in ("L", "M")


def name_problem(text: str) -> str | None:
    """Why ``text`` cannot be a name people read (a patient's or staff member's, as staff search for it), naming
    the first offending character by its code point; None when it can. Refused: control, invisible formatting,
    line and paragraph separator, private-use, surrogate and unassigned characters, and a combining mark with no
    letter to sit on (at the start, or after a space). Letters and marks of every script are names' own, and so are
    the zero-width joiner and non-joiner between two of them."""
    for i, ch in enumerate(text):
        category = unicodedata.category(ch)
        if ch in _JOINERS and 0 < i < len(text) - 1 and _in_word(text[i - 1]) and _in_word(text[i + 1]):
            continue  # a joiner inside a word is its spelling (Persian, the Indic scripts)
        if category in _NOT_IN_NAMES:
            return f"U+{ord(ch):04X} is {_NOT_IN_NAMES[category]}: not part of a name"
        if category.startswith("M") and (i == 0 or text[i - 1].isspace()):
            return f"U+{ord(ch):04X} is a combining mark with no letter before it: not part of a name"
    return None


def require_name(value: str) -> None:
    """A validator: :func:`name_problem` finds nothing (``unstorable_character`` otherwise, as for text
    PostgreSQL cannot store)."""
    problem = name_problem(value)
    if problem is not None:
        raise serializers.ValidationError(problem, code="unstorable_character")


def require_subject(value: str) -> None:
    """A validator: a token's subject (:func:`core.authentication.well_formed_subject`); a token naming anything
    else is refused (401), so such a subject could never sign in, and "\u202e9-esrun" reads as "nurse-9"
    (``unstorable_character`` otherwise)."""
    if not well_formed_subject(value):
        raise serializers.ValidationError("a token's subject: no control, invisible or direction characters",
                                          code="unstorable_character")


# Free text a person reads somewhere else (a grant's reason on the patient's access page, consent evidence, a
# memory's source reference): what it shows must be what it holds. Tab and line breaks are text; other control
# characters and the direction embeddings, overrides and isolates (U+202A-U+202E, U+2066-U+2069, which display text
# in another order than it is stored: "trojan source") are not. Marks such as U+200E and U+200F stay (right-to-left
# writing needs them).
_DIRECTION_CONTROLS = frozenset("\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")


def text_problem(text: str) -> str | None:
    """Why ``text`` cannot be free text people read (see above), naming the first offending character by its code
    point; None when it can."""
    for ch in text:
        if ch in _DIRECTION_CONTROLS:
            return f"U+{ord(ch):04X} is a direction control: not part of text people read"
        if unicodedata.category(ch) == "Cc" and ch not in "\t\n\r":
            return f"U+{ord(ch):04X} is a control character: not part of text people read"
    return None


def readable_text(field: str, value: str) -> str:
    """For services: ``visible(value)``, refused (``ValidationFailed``, ``unstorable_character``) when
    :func:`text_problem` finds something."""
    problem = text_problem(value)
    if problem is not None:
        raise ValidationFailed.of(field, problem, "unstorable_character")
    return visible(value)


def require_readable(value: str) -> None:
    """A validator: :func:`text_problem` finds nothing (``unstorable_character`` otherwise)."""
    problem = text_problem(value)
    if problem is not None:
        raise serializers.ValidationError(problem, code="unstorable_character")


def require_visible(value: str) -> None:
    """A validator: the text shows something (not only white space and zero-width characters)."""
    if not visible(value):
        raise serializers.ValidationError("This field may not be blank.", code="blank")


class NoBody(StrictSerializer):
    """The body of an action that takes none: absent, empty or ``{}``; malformed JSON is 400, any field 422, and
    so is any other JSON value (``null``, ``""``, ``[]``: a client's missing value is no request to act)."""

    @classmethod
    def check(cls, request) -> None:
        cls(data=request.data).is_valid(raise_exception=True)  # no body at all reads as {}


class ModelOutSerializer(serializers.ModelSerializer):
    """A ModelSerializer whose fields are worked out from the model once per class, not once per instance.

    ``ModelSerializer.get_fields`` introspects the model for every instance it makes (each field's class, its
    keyword arguments, its validators): 0.2 of the 0.6 ms that rendering one memory took. Here the
    fields built the first time are kept unbound on the class, and every instance gets its own deep copy of them,
    as DRF gives every instance a deep copy of the declared fields. Nothing in a field's construction depends on
    the instance, its data or its context.
    """

    _field_prototypes: ClassVar[dict]

    def get_fields(self):
        cls = type(self)
        prototypes = cls.__dict__.get("_field_prototypes")
        if prototypes is None:
            # Two threads may both build them the first time: the same fields, and either copy serves.
            prototypes = super().get_fields()
            cls._field_prototypes = prototypes
        return copy.deepcopy(prototypes)


def schema_error_message(error) -> str:
    """A JSON Schema validation error (jsonschema's) as a message naming the rule, never echoing the value (which
    may be health information). ``x-error`` in the schema words a failed ``pattern`` or ``maxLength``."""
    s, v = error.schema, error.validator_value
    match error.validator:
        case "pattern":
            return s.get("x-error") or "does not have the expected form"
        case "enum":
            return f"one of {', '.join(str(x) for x in v)}"
        case "const":
            return f"must be {v}"
        case "type":
            kinds = " or ".join(v) if isinstance(v, list) else str(v)
            return f"must be {'an' if kinds[0] in 'aeiou' else 'a'} {kinds}"
        case "maxLength":
            return s.get("x-error") or f"at most {v} characters"
        case "minLength":
            return "This field may not be blank." if v == 1 else f"at least {v} characters"
        case "maxItems":
            return f"at most {v} items"
        case "minItems":
            return f"at least {v} item{'s' if v != 1 else ''}"
        case "minimum":
            return f"at least {v}"
        case "maximum":
            return f"at most {v}"
        case "uniqueItems":
            return "no repeated items"
        case "format":
            return f"must be a {v.upper() if v == 'uuid' else v}"
    return "is not valid"
