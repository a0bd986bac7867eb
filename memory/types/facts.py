"""Facts against their type: :func:`fact_validate` checks and normalises one and names the attribute it supersedes.

Each type's fact has a closed JSON Schema; free text has no place here: an open dict is how transcripts leak into
"memory". :func:`validate_fact` and :func:`validate_fact_spec` look the type up by name and give the error in the
shape serializers and forms raise (a DRF ``ValidationError`` naming the field).
"""

from __future__ import annotations

import functools
import hashlib
import hmac
import re
import time
import unicodedata
from typing import Any

import regex
from django.conf import settings
from jsonschema import Draft202012Validator, ValidationError, validators
from referencing import Registry
from referencing.exceptions import NoSuchResource, Unresolvable
from rest_framework import serializers
from rest_framework.exceptions import ErrorDetail

from core.serializers import schema_error_message, text_problem
from memory.types.registry import type_get
from memory.types.spec import (
    MAX_ATTRIBUTE,
    TERM_KEY_LENGTH,
    FactInvalid,
    TypeSpec,
    closed_vocabulary,
    supersession_field,
)

# An organisation's administrator writes the patterns, and anyone the type lets write may send a value: a pattern
# such as (a+)+$ takes exponential time on some values (hours for 40 characters) while the request holds its
# transaction. Values are matched by the ``regex`` module with a deadline; a value the pattern cannot decide in
# time is refused like one that does not match. The deadline is wall-clock time, which also runs while the thread
# waits for a core or for the GIL (another thread of the worker embedding, a loaded machine): a match that timed out
# is tried again while the thread itself has spent less than the deadline's CPU time on it, up to
# PATTERN_ATTEMPTS times, so a slow moment never refuses a valid value.
PATTERN_TIMEOUT_SECONDS = 0.05
PATTERN_ATTEMPTS = 20

# No text in a fact is longer than this, whatever its schema says: maxLength is capped at it, and a pattern alone
# (which a definition may give instead of maxLength) bounds nothing.
MAX_FACT_TEXT_CHARS = 500


def validate_fact(memory_type: str, fact, version: int | None = None) -> tuple[str, dict]:
    """Return (attribute, normalised fact) or raise serializers.ValidationError naming the field."""
    return validate_fact_spec(memory_type, fact, version)[1:]


def validate_fact_spec(memory_type: str, fact, version: int | None = None) -> tuple[TypeSpec, str, dict]:
    """Like :func:`validate_fact`, also returning the type (version included) the fact was checked against."""
    spec = type_get(memory_type, version) if isinstance(memory_type, str) else None
    if spec is None:
        raise serializers.ValidationError({"memory_type": ["unknown memory type; see GET /v1/memory-types"]})
    try:
        attribute, normalised = fact_validate(spec, fact)
    except FactInvalid as exc:
        raise serializers.ValidationError(exc.detail) from None
    return spec, attribute, normalised


def fact_validate(spec: TypeSpec, fact: Any, *, readable: bool = True) -> tuple[str, dict]:
    """Return (attribute, normalised fact) or raise :class:`FactInvalid` with errors keyed by field path.

    ``readable``: free text holds nothing a reader cannot see (:func:`core.serializers.text_problem`: control
    characters other than tab and line breaks, direction controls), as every other free text people read; a fact's
    text is shown on the patient's page and the staff console, and embedded for search. False only to re-check a
    stored fact against a revision (what was stored before this rule is not the revision's to refuse)."""
    if not isinstance(fact, dict):
        raise FactInvalid({"fact": ["must be an object"]})
    branch = spec.branch_for(fact)
    if branch is None:
        raise FactInvalid({"fact": {"kind": [f"one of {spec.kinds}"]}})
    fact = _normalise(branch, fact)
    detail: dict = {}
    try:
        errors = list(_validator(branch).iter_errors(fact))
    except Unresolvable:  # a type stored before references were refused: it names something never fetched
        raise FactInvalid({"fact": ["this type's schema refers elsewhere; an administrator must revise it"]}) from None
    for error in errors:
        path = [str(p) for p in error.absolute_path]
        if error.validator == "additionalProperties":
            allowed = set(error.schema.get("properties", {}))
            for extra in sorted(set(error.instance) - allowed):
                _put(detail, ["fact", *path, extra], ErrorDetail("unknown field", code="unknown_field"))
        elif error.validator == "required":
            missing = [r for r in error.validator_value if r not in error.instance]
            for name in missing:
                _put(detail, ["fact", *path, name], "This field is required.")
        else:
            _put(detail, ["fact", *path] if path else ["fact"], schema_error_message(error))
    for path in _over_long(fact, []):
        _put(detail, ["fact", *path], f"at most {MAX_FACT_TEXT_CHARS} characters")
    for path, problem in _unreadable(fact, []) if readable else ():
        _put(detail, ["fact", *path], ErrorDetail(problem, code="unstorable_character"))
    if not detail:
        for first, second, message in branch.get("x-ascending", []):
            if fact.get(first) is not None and fact.get(second) is not None and fact[first] >= fact[second]:
                _put(detail, ["fact", second], message)
    if detail:
        raise FactInvalid(detail)
    return attribute_of(spec, branch, fact), fact


def attribute_of(spec: TypeSpec, branch: dict, fact: dict, *, earlier: bool = False) -> str:
    """The attribute a fact supersedes: closed-vocabulary parts as they are, free parts as one keyed hash.
    ``earlier``: as records written before letters of every script counted carry it (:func:`_earlier_term`)."""
    raw: list[str] = []
    free: list[str] = []
    for entry in spec.supersession:
        name = supersession_field(branch, entry)
        value = fact.get(name) if name else None
        prop = branch.get("properties", {}).get(name or "", {})
        (raw if closed_vocabulary(prop) else free).append(str(value if value is not None else ""))
    term = _earlier_term if earlier else _term
    parts = raw + ([_term_key(term(" ".join(free)))] if free else [])
    return ":".join(parts)[:MAX_ATTRIBUTE] if parts else spec.name[:MAX_ATTRIBUTE]


def earlier_attribute(spec: TypeSpec, fact: dict) -> str:
    """The attribute a valid fact had before letters of every script counted: a record written then carries it,
    and its correction keeps it."""
    branch = spec.branch_for(fact)
    assert branch is not None, "a valid fact has a shape"
    return attribute_of(spec, branch, fact, earlier=True)


_NOT_A_LETTER = regex.compile(r"[^\p{L}\p{M}\p{N}]+")


def _term(value: str) -> str:
    """A free value as supersession compares it: case, spacing and punctuation aside, every letter, mark and digit
    of any script counts ("Анна" is not "Ольга", "Żaneta" not "Aneta"); the same as :func:`_earlier_term` for text
    in a-z and 0-9."""
    return _NOT_A_LETTER.sub(" ", unicodedata.normalize("NFKC", value).casefold()).strip()


def _earlier_term(value: str) -> str:
    # only a-z and 0-9 counted: names in another script were all "", and "Żaneta" was "aneta"
    return re.sub(r"[^a-z0-9]+", " ", value.casefold()).strip()


def _term_key(normalised: str) -> str:
    """A keyed hash of a normalised free value: stable for supersession, no plaintext in the attribute."""
    digest = hmac.new(settings.MEMORY_ATTRIBUTE_KEY.encode(), normalised.encode(), hashlib.sha256).hexdigest()
    return digest[:TERM_KEY_LENGTH]


def _normalise(branch: dict, fact: dict) -> dict:
    """Sets of choices are kept once each and in the order the schema lists them."""
    out = dict(fact)
    for name, prop in branch.get("properties", {}).items():
        value = out.get(name)
        choices = (prop.get("items") or {}).get("enum") if prop.get("type") == "array" else None
        if choices and isinstance(value, list) and all(isinstance(x, str) and x in choices for x in value):
            out[name] = sorted(set(value), key=choices.index)
    return out


def _put(detail: dict, path: list[str], message: str) -> None:
    node = detail
    for part in path[:-1]:
        node = node.setdefault(part, {})
        if not isinstance(node, dict):
            return
    node.setdefault(path[-1], [])
    if isinstance(node[path[-1]], list) and message not in node[path[-1]]:
        node[path[-1]].append(message)


def _strings(value: Any, path: list[str]):
    """Every text in a fact, with its field path."""
    if isinstance(value, str):
        yield path, value
    elif isinstance(value, dict):
        for key, child in value.items():
            yield from _strings(child, [*path, str(key)])
    elif isinstance(value, list):
        for i, child in enumerate(value):
            yield from _strings(child, [*path, str(i)])


def _over_long(value: Any, path: list[str]):
    return (where for where, text in _strings(value, path) if len(text) > MAX_FACT_TEXT_CHARS)


def _unreadable(value: Any, path: list[str]):
    return ((where, problem) for where, text in _strings(value, path) if (problem := text_problem(text)) is not None)


# --- the validator ---------------------------------------------------------------------------------------------

@functools.lru_cache(maxsize=1024)
def ecma_anchors(pattern: str) -> str:
    """The pattern with ECMA-262's meaning of ``$`` (JSON Schema's regular expressions): the end of the text. In
    Python's dialects ``$`` also matches before a final newline, so ``^[a-z]+$`` would let ``"abc\\n"`` through.
    Each ``$`` outside a character class becomes ``\\Z``."""
    out, in_class, escaped = [], False, False
    for ch in pattern:
        if escaped:
            escaped = False
        elif ch == "\\":
            escaped = True
        elif in_class:
            in_class = ch != "]"
        elif ch == "[":
            in_class = True
        elif ch == "$":
            out.append("\\Z")
            continue
        out.append(ch)
    return "".join(out)


def _pattern(validator, pattern: str, instance: Any, schema: dict):
    if not validator.is_type(instance, "string"):
        return
    try:
        matched = _search(ecma_anchors(pattern), instance)
    except (TimeoutError, regex.error):
        matched = None
    if matched is None:
        yield ValidationError(f"does not match {pattern!r}")


def _search(pattern: str, value: str):
    """``regex.search`` within PATTERN_TIMEOUT_SECONDS of this thread's own CPU time (TimeoutError beyond it)."""
    spent = 0.0
    for _ in range(PATTERN_ATTEMPTS):
        started = time.thread_time()
        try:
            return regex.search(pattern, value, timeout=PATTERN_TIMEOUT_SECONDS)
        except TimeoutError:
            spent += time.thread_time() - started
            if spent >= PATTERN_TIMEOUT_SECONDS / 2:  # it was computing, not waiting: a pattern that explodes
                raise
    raise TimeoutError("the pattern did not decide the value in time")


def _no_retrieval(uri: str):
    raise NoSuchResource(ref=uri)


# Nothing a schema names is ever fetched (no file, no URL): definitions refuse $ref, and were one stored before
# that rule, it resolves to nothing. An integer is a JSON integer: 3.0 or 1e1 would be stored and shown as "3.0".
_NO_RETRIEVAL = Registry(retrieve=_no_retrieval)  # type: ignore[call-arg]
FactValidator = validators.extend(
    Draft202012Validator, {"pattern": _pattern},
    type_checker=Draft202012Validator.TYPE_CHECKER.redefine(
        "integer", lambda _checker, value: isinstance(value, int) and not isinstance(value, bool)))

# Specs are immutable and kept (catalogue, organisation cache), so a validator is built once per schema shape.
_validators: dict[int, tuple[dict, Draft202012Validator]] = {}


def _validator(branch: dict) -> Draft202012Validator:
    entry = _validators.get(id(branch))
    if entry is None or entry[0] is not branch:
        if len(_validators) > 8192:
            _validators.clear()
        entry = _validators[id(branch)] = (branch, FactValidator(branch, registry=_NO_RETRIEVAL))
    return entry[1]
