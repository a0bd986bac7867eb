"""The one JSON parser of the API: bounded nesting, no NaN/Infinity, nothing PostgreSQL cannot store.

* nesting deeper than ``MAX_JSON_DEPTH`` is 400 ``malformed_json`` (Python's parser would otherwise recurse
  until it fails with an error we would answer as 500), checked on the raw bytes before parsing;
* ``NaN``, ``Infinity`` are not JSON (RFC 8259) and jsonb refuses them: 400 ``malformed_json``;
* a number beyond a double's range (``1e999``, which Python reads as infinity) or an integer beyond 64 bits is JSON
  we cannot keep: 422 ``validation_error`` (``out_of_range``), naming where;
* a key twice in one object (``{"purpose": "a", "purpose": "b"}``) is 400 ``malformed_json``: parsers disagree on
  which one counts (Python keeps the last), so a proxy or a log could read another request than the one acted on;
* NUL characters and lone surrogates in any string or key cannot be stored (PostgreSQL text, UTF-8): 422
  ``validation_error``, naming where;
* the body is read as sent, in UTF-8: a ``Content-Encoding`` other than ``identity`` or a charset other than
  UTF-8 (by any of its names) or US-ASCII is 415 ``unsupported_media_type`` (:func:`check_body_coding`).
"""

from __future__ import annotations

import json
import math

import orjson
from django.conf import settings
from django.utils.http import parse_header_parameters
from rest_framework.exceptions import ParseError, UnsupportedMediaType
from rest_framework.parsers import JSONParser

from core.errors import ValidationFailed

_OPEN, _CLOSE, _QUOTE, _BACKSLASH = frozenset(b"[{"), frozenset(b"]}"), ord('"'), ord("\\")


def json_depth_exceeds(raw: bytes, limit: int) -> bool:
    if raw.count(b"[") + raw.count(b"{") <= limit:
        return False  # cannot nest deeper than it has brackets
    depth, in_string, escaped = 0, False, False
    for byte in raw:
        if in_string:
            if escaped:
                escaped = False
            elif byte == _BACKSLASH:
                escaped = True
            elif byte == _QUOTE:
                in_string = False
        elif byte == _QUOTE:
            in_string = True
        elif byte in _OPEN:
            depth += 1
            if depth > limit:
                return True
        elif byte in _CLOSE:
            depth -= 1
    return False


def _unstorable(text: str) -> bool:
    return "\x00" in text or any("\ud800" <= ch <= "\udfff" for ch in text)


_INT_LIMIT = 2**63  # a 64-bit integer: what JSON libraries agree on (orjson, PostgreSQL's bigint)


def _out_of_range(number) -> bool:
    """An integer beyond 64 bits (orjson, which reads facts back, refuses it), or a number beyond a double's
    range, which Python reads as infinity and jsonb refuses."""
    if isinstance(number, bool):
        return False
    if isinstance(number, int):
        return not -_INT_LIMIT <= number < _INT_LIMIT
    return isinstance(number, float) and math.isinf(number)


def _problem_paths(value, path: str = "") -> tuple[list[str], list[str]]:
    """Where a parsed JSON value holds a string PostgreSQL cannot store, and where a number out of range
    (breadth is bounded by the body size)."""
    found: list[str] = []
    numbers: list[str] = []
    stack = [(value, path)]
    while stack:
        item, where = stack.pop()
        if isinstance(item, str):
            if _unstorable(item):
                found.append(where or "(body)")
        elif isinstance(item, int | float):
            if _out_of_range(item):
                numbers.append(where or "(body)")
        elif isinstance(item, dict):
            for key, child in item.items():
                if _unstorable(key):
                    found.append(f"{where}.(key)".lstrip("."))
                else:
                    stack.append((child, f"{where}.{key}".lstrip(".")))
        elif isinstance(item, list):
            stack.extend((child, f"{where}[{i}]") for i, child in enumerate(item))
    return sorted(found), sorted(numbers)


def _refuse_constant(name: str):
    raise ValueError(f"{name} is not JSON")


def fast_loads(text: str | bytes):
    """JSON we wrote (a fact read back): orjson, several times faster, or Python's reader for what orjson refuses
    (an integer beyond 64 bits stored before the API refused them)."""
    try:
        return orjson.loads(text)
    except orjson.JSONDecodeError:
        return json.loads(text)


class _RepeatedKey(ValueError):
    pass


def _object_without_repeated_keys(pairs: list[tuple[str, object]]) -> dict:
    obj = dict(pairs)
    if len(obj) != len(pairs):
        raise _RepeatedKey
    return obj


def has_repeated_keys(raw: bytes) -> bool:
    """Whether a JSON body has a key twice in one object (malformed JSON is for the caller's own parser to say)."""
    try:
        json.loads(raw, object_pairs_hook=_object_without_repeated_keys)
    except _RepeatedKey:
        return True
    except (ValueError, RecursionError):
        return False
    return False


class NotJson(ValueError):
    """Text the strict reading refuses; ``str()`` says why, in words for the person who sent it."""


def strict_loads(raw: bytes | str):
    """JSON as the API reads it (the module docstring's rules): :class:`NotJson` for what is not JSON to us,
    :class:`ValidationFailed` for strings PostgreSQL cannot store and numbers out of range. Also for JSON that
    arrives inside a form."""
    if isinstance(raw, str):
        raw = raw.encode("utf-8", "surrogatepass")
    if json_depth_exceeds(raw, settings.MAX_JSON_DEPTH):
        raise NotJson("The JSON is nested too deeply")
    try:
        data = json.loads(raw.decode("utf-8"), parse_constant=_refuse_constant,
                          object_pairs_hook=_object_without_repeated_keys)
    except _RepeatedKey:
        raise NotJson("A key appears twice in one object") from None
    except (ValueError, RecursionError):
        raise NotJson("It is not valid JSON") from None
    bad, numbers = _problem_paths(data)
    if bad or numbers:
        raise ValidationFailed(errors=[
            *({"field": where, "message": "NUL and unpaired surrogate characters cannot be stored",
               "code": "unstorable_character"} for where in bad),
            *({"field": where, "message": "a number out of range (at most a 64-bit integer or a finite double)",
               "code": "out_of_range"} for where in numbers)])
    return data


def _unsupported(message: str) -> UnsupportedMediaType:
    refused = UnsupportedMediaType("application/json")
    refused.problem_message = message  # type: ignore[attr-defined]
    return refused


# The names UTF-8 is known by (IANA's UTF-8 and csUTF8, the WHATWG Encoding Standard's labels, the common utf8), and
# US-ASCII's registered aliases: ASCII text is UTF-8 as it stands, so it is read the same way
_UTF_8_LABELS = frozenset({
    "utf-8", "utf8", "csutf8", "unicode-1-1-utf-8", "unicode11utf8", "unicode20utf8", "x-unicode20utf8",
    "us-ascii", "ascii", "us", "iso-ir-6", "ansi_x3.4-1968", "ansi_x3.4-1986", "iso_646.irv:1991", "iso646-us",
    "ibm367", "cp367", "csascii"})


def check_body_coding(media_type: str | None, content_encoding: str | None) -> None:
    """The body is read as it was sent, as UTF-8 (RFC 8259 8.1): a content coding other than ``identity``
    (gzip, br, deflate...) or a charset other than UTF-8 is 415 ``unsupported_media_type``, never text misread as
    plain UTF-8 JSON (a gzip body was answered 400 malformed_json; a Latin-1 one could be silently misread)."""
    codings = [c.strip().lower() for c in (content_encoding or "").split(",")]
    if any(c not in ("", "identity") for c in codings):
        raise _unsupported("The request body must be sent without a content coding (no Content-Encoding, or "
                           "identity): send plain UTF-8 JSON")
    charset = parse_header_parameters(media_type or "")[1].get("charset")
    if charset is not None and charset.strip().lower() not in _UTF_8_LABELS:
        raise _unsupported("JSON is sent in UTF-8: leave the charset out or declare charset=utf-8")
    # charset=iso-8859-1; charset=utf-8 was read as UTF-8 (the last one counts here; elsewhere the first may)
    if [p.split("=", 1)[0].strip().lower() for p in (media_type or "").split(";")[1:]].count("charset") > 1:
        raise _unsupported("The charset is declared more than once: declare it once, as utf-8, or leave it out")


class StrictJSONParser(JSONParser):
    def parse(self, stream, media_type=None, parser_context=None):
        request = (parser_context or {}).get("request")
        check_body_coding(media_type, request.META.get("HTTP_CONTENT_ENCODING") if request is not None else None)
        try:
            return strict_loads(stream.read() if stream is not None else b"")
        except NotJson as exc:
            refused = ParseError(f"malformed JSON: {exc}")
            refused.problem_message = f"The request body: {str(exc)[0].lower()}{str(exc)[1:]}"  # type: ignore[attr-defined]
            raise refused from None
