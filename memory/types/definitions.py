"""The definition checker: what a memory type definition must say before the registry keeps it.

A definition:

* ``schema``: JSON Schema draft 2020-12 for the fact, closed (``additionalProperties: false`` on every object).
  Either one object shape, or ``oneOf`` object shapes told apart by a ``kind`` property (``const`` or ``enum``),
  which is how today's ``memory_type`` + ``fact.kind`` pairs map onto one type each. Two annotations extend it:
  ``x-error`` (the message for a value that fails ``pattern``) and ``x-labels`` (words for enum values: what
  people read and what retrieval embeds), plus ``x-ascending`` on a shape: ``[[a, b, message]]``, b after a.
* ``supersession``: the fields whose values name the attribute a new fact replaces (``a|b``: whichever the shape
  has). Closed-vocabulary values (``enum``/``const``) appear as they are; free values only as one keyed hash, so
  the attribute, which outlives the value in the tombstone, holds no plaintext. Empty: one value per type.
* ``text``: a sentence template, or one per kind: ``{field}``, ``{field|title}``, ``{field|or}``,
  ``{field|language}``, ``{field?}`` (renders nothing; a condition), and ``[...]`` segments that are left out
  unless every field inside has a value.
* ``serves`` (optional): up to 8 short phrases naming the situations and questions the type answers ("how to
  address the patient", "the title to put on a letter"). Search embeds them to decide which types could answer a
  question; an organisation may reword them for itself without a new version (:func:`serves_problems` is the
  rule both follow).

:func:`definition_check` lists every problem at once (an administrator fixes them in one go), each as
``{field, message, code}``.
"""

from __future__ import annotations

import json
import re
import unicodedata
import uuid
from typing import Any

from django.conf import settings
from jsonschema import Draft202012Validator
from jsonschema.exceptions import SchemaError

from memory.types.spec import (
    MAX_ATTRIBUTE,
    MAX_SERVES,
    MAX_SERVES_CHARS,
    MEMORY_CLASSES,
    NAME,
    PURPOSE_VALUES,
    TERM_KEY_LENGTH,
    WRITERS,
    DefinitionInvalid,
    TypeSpec,
    branch_kinds,
    closed_vocabulary,
    supersession_field,
)
from memory.types.templates import FILTERS, PLACEHOLDER, placeholders

DRAFT_2020_12 = "https://json-schema.org/draft/2020-12/schema"
DEFINITION_KEYS = {"name", "version", "memory_class", "label", "purposes", "writers", "encrypted", "review",
                   "fetch_live", "default_validity_days", "retention_days", "supersession", "text", "schema",
                   "serves"}
REQUIRED_KEYS = {"name", "memory_class", "label", "purposes", "writers", "supersession", "text", "schema"}
MAX_SCHEMA_BYTES = 32_000


def definition_check(definition: Any, *, organization_id: uuid.UUID | None = None,
                     version: int | None = None) -> TypeSpec:
    """Check a type definition and return its spec, or raise :class:`DefinitionInvalid` listing every problem."""
    if not isinstance(definition, dict):
        raise DefinitionInvalid([_err("definition", "must be an object")])
    errors = _check_keys(definition)
    if errors:  # the checks below read every required key
        raise DefinitionInvalid(errors)
    errors += _check_naming(definition)
    errors += _check_audience(definition)
    errors += _check_keeping(definition)
    branches = _check_schema(definition["schema"], errors)
    if branches and not errors:  # supersession and text are read against shapes known to be sound
        _check_supersession_and_text(definition, branches, errors)
    errors += serves_problems(definition["serves"]) if "serves" in definition else []
    if errors:
        raise DefinitionInvalid(errors)
    return _spec(definition, organization_id=organization_id, version=version)


def _err(path: str, message: str, code: str = "invalid") -> dict:
    return {"field": path, "message": message, "code": code}


def _spec(d: dict, *, organization_id: uuid.UUID | None, version: int | None) -> TypeSpec:
    serves = serves_clean(d.get("serves", []))
    if "serves" in d:  # kept as the spec reads them, so the same phrases sent again are the same definition
        d = {**d, "serves": list(serves)}
    return TypeSpec(
        name=d["name"], version=version or d.get("version") or 1, memory_class=d["memory_class"],
        label=d["label"].strip(), purposes=tuple(d["purposes"]), writers=frozenset(d["writers"]),
        encrypted=d.get("encrypted", False), review=d.get("review", False), fetch_live=d.get("fetch_live", False),
        default_validity_days=d.get("default_validity_days"), retention_days=d.get("retention_days"),
        supersession=tuple(d["supersession"]), text=d["text"], schema=d["schema"], serves=serves,
        organization_id=organization_id, definition={k: v for k, v in d.items() if k != "version"})


# --- the fields beside the schema ------------------------------------------------------------------------------

def _check_keys(d: dict) -> list[dict]:
    errors = [_err(k, "unknown field", "unknown_field") for k in sorted(set(d) - DEFINITION_KEYS)]
    return errors + [_err(k, "This field is required.", "required") for k in sorted(REQUIRED_KEYS - set(d))]


def _check_naming(d: dict) -> list[dict]:
    errors = []
    if not isinstance(d["name"], str) or not NAME.fullmatch(d["name"]):
        errors.append(_err("name", "lower-case letters, digits and _ (3 to 50), starting with a letter"))
    if d["memory_class"] not in MEMORY_CLASSES:
        errors.append(_err("memory_class", f"one of {list(MEMORY_CLASSES)}"))
    if not isinstance(d["label"], str) or not 1 <= len(d["label"].strip()) <= 80:
        errors.append(_err("label", "1 to 80 characters"))
    elif _unprintable(d["label"]):
        errors.append(_err("label", "one line of text, without control or invisible characters", "control_character"))
    return errors


def _distinct_from(values: Any, allowed: tuple[str, ...]) -> bool:
    """A non-empty list of distinct values, each one of ``allowed``."""
    return (isinstance(values, list) and bool(values) and len(set(values)) == len(values)
            and set(values) <= set(allowed))


def _check_audience(d: dict) -> list[dict]:
    """Who the type is for (purposes) and who may write it."""
    errors = []
    purposes, writers = d["purposes"], d["writers"]
    if not _distinct_from(purposes, PURPOSE_VALUES):
        errors.append(_err("purposes", f"a non-empty list of distinct purposes from {list(PURPOSE_VALUES)}"))
    if not _distinct_from(writers, WRITERS):
        errors.append(_err("writers", f"a non-empty list of distinct writers from {list(WRITERS)}"))
    elif d["memory_class"] == "care_context" and set(writers) - {"staff", "ehr_import"}:
        errors.append(_err("writers", "care context is written only by staff or an EHR import"))
    return errors


def _check_keeping(d: dict) -> list[dict]:
    """How a memory of the type is kept: its flags, validity and retention."""
    errors = [_err(flag, "true or false") for flag in ("encrypted", "review", "fetch_live")
              if not isinstance(d.get(flag, False), bool)]
    days_ok = True
    for days in ("default_validity_days", "retention_days"):
        value = d.get(days)
        if value is not None and (not isinstance(value, int) or isinstance(value, bool) or not 1 <= value <= 3650):
            errors.append(_err(days, "null or a whole number of days from 1 to 3650"))
            days_ok = False
    if days_ok and d.get("default_validity_days") and d["memory_class"] in MEMORY_CLASSES:
        kept = d.get("retention_days") or settings.MEMORY_RETENTION_DAYS[d["memory_class"]]
        if d["default_validity_days"] > kept:
            # validity past the retention would keep every memory of the type longer than its retention allows
            errors.append(_err("default_validity_days", f"at most the retention, {kept} days", "beyond_retention"))
    return errors


# --- what the type answers --------------------------------------------------------------------------------------

# Control characters (tab, newline, NUL), lone surrogates, invisible formatting (direction overrides, zero-width
# spaces) and line separators: a label, a template and a phrase are one line people read (a direction override
# turns a label around on the patient's page) and search embeds as it is.
_UNPRINTABLE = frozenset({"Cc", "Cs", "Cf", "Zl", "Zp"})


def _unprintable(text: str) -> bool:
    """Whether people would not read ``text`` as it is: a label, a sentence template and a phrase are one line."""
    return any(unicodedata.category(ch) in _UNPRINTABLE for ch in text)


def _phrase_key(phrase: str) -> str:
    """What makes two phrases the same one: case and runs of spaces aside."""
    return " ".join(phrase.split()).casefold()


def serves_problems(serves: Any, *, required: bool = False) -> list[dict]:
    """What is wrong with a list of phrases saying what a type answers, each as ``{field, message, code}``: a
    list of at most 8 distinct phrases (case and spacing aside), each a string of 1 to 120 characters once
    trimmed, on one line, without control or invisible characters. ``required``: at least one (an organisation's
    override; an empty list there would say nothing)."""
    if not isinstance(serves, list):
        return [_err("serves", f"a list of at most {MAX_SERVES} short phrases")]
    if len(serves) > MAX_SERVES:  # the items of an overlong list are not read one by one
        return [_err("serves", f"at most {MAX_SERVES} phrases", "too_many")]
    if required and not serves:
        return [_err("serves", "at least one phrase", "empty")]
    errors, seen = [], set()
    for i, phrase in enumerate(serves):
        where = f"serves[{i}]"
        if not isinstance(phrase, str):
            errors.append(_err(where, "a phrase (a string)"))
        elif _unprintable(phrase):
            errors.append(_err(where, "one line of text, without control or invisible characters",
                               "control_character"))
        elif not phrase.strip():
            errors.append(_err(where, "a phrase, not only spaces", "blank"))
        elif len(phrase.strip()) > MAX_SERVES_CHARS:
            errors.append(_err(where, f"at most {MAX_SERVES_CHARS} characters", "max_length"))
        elif _phrase_key(phrase) in seen:
            errors.append(_err(where, "the same phrase again", "duplicate"))
        else:
            seen.add(_phrase_key(phrase))
    return errors


def serves_clean(serves: list[str]) -> tuple[str, ...]:
    """Phrases :func:`serves_problems` accepted, as they are kept: trimmed."""
    return tuple(phrase.strip() for phrase in serves)


# --- the schema ------------------------------------------------------------------------------------------------

def _check_schema(schema: Any, errors: list[dict]) -> list[dict]:
    """Append what is wrong with the schema; return its object shapes (none when it is not a schema at all)."""
    if not isinstance(schema, dict):
        errors.append(_err("schema", "must be a JSON Schema object"))
        return []
    if len(json.dumps(schema)) > MAX_SCHEMA_BYTES:
        errors.append(_err("schema", f"at most {MAX_SCHEMA_BYTES} bytes", "too_large"))
        return []
    if schema.get("$schema", DRAFT_2020_12) != DRAFT_2020_12:
        errors.append(_err("schema.$schema", f"only {DRAFT_2020_12}"))
    try:
        Draft202012Validator.check_schema(schema)
    except SchemaError as exc:
        errors.append(_err("schema", f"not a valid JSON Schema: {exc.message}"[:300], "invalid_schema"))
        return []
    if schema.get("type") != "object":
        errors.append(_err("schema.type", "the fact is an object", "invalid_schema"))
    _walk_objects(schema, "schema", errors)
    if "oneOf" not in schema:
        return [schema]
    return _check_branches(schema, errors)


def _check_branches(schema: dict, errors: list[dict]) -> list[dict]:
    """A ``oneOf`` schema: shapes told apart by the kinds they require, no kind in two shapes."""
    if "properties" in schema:
        errors.append(_err("schema", "either properties or oneOf at the top, not both", "invalid_schema"))
    branches = [b for b in schema["oneOf"] if isinstance(b, dict)]
    seen: set[str] = set()
    for i, branch in enumerate(branches):
        kinds = branch_kinds(branch)
        if not kinds or "kind" not in branch.get("required", []):
            errors.append(_err(f"schema.oneOf[{i}]", "each shape requires a kind (const or enum)", "invalid_schema"))
        if seen & set(kinds):
            errors.append(_err(f"schema.oneOf[{i}]", "kinds must not repeat", "invalid_schema"))
        seen |= set(kinds)
    return branches


# What a memory type's schema may say, keyword by keyword: a closed allowlist, so no keyword that names another
# schema (``$ref``, ``$id``, ``$defs``, ``prefixItems``, ``contains``, ...) or opens the shape can slip through a
# walk that did not know it. Everything listed here is a leaf, except ``properties``, ``items`` and ``oneOf``, which
# the walk follows.
_SCALARS = (str, int, float, bool)
_KEYWORDS: dict[str, str] = {
    "type": "type", "title": "text", "description": "text", "$comment": "text", "format": "text",
    "x-error": "text", "x-input": "text", "x-labels": "labels", "x-ascending": "ascending",
    "properties": "schemas", "required": "names", "additionalProperties": "false", "items": "schema",
    "oneOf": "branches", "enum": "values", "const": "value", "pattern": "text",
    "maxLength": "count", "minLength": "count", "maxItems": "count", "minItems": "count", "uniqueItems": "flag",
    "minimum": "number", "maximum": "number", "exclusiveMinimum": "number", "exclusiveMaximum": "number",
    "multipleOf": "number",
    "default": "value", "examples": "values", "deprecated": "flag",  # annotations: a scalar, scalars, a flag
}
_TYPES = ("object", "array", "string", "integer", "number", "boolean")
# The words of a schema that people read: form labels and hints, the message for a refused value, and the words
# for enum values that the type's sentences show.
_READ_BY_PEOPLE = frozenset({"title", "description", "x-error", "x-labels"})


def _is_count(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0


def _keyword_ok(kind: str, value: Any) -> bool:
    match kind:
        case "text":
            return isinstance(value, str)
        case "labels":
            return isinstance(value, dict) and all(isinstance(v, str) for v in value.values())
        case "schemas":
            return isinstance(value, dict) and all(isinstance(v, dict) for v in value.values())
        case "names":
            return isinstance(value, list) and all(isinstance(v, str) for v in value)
        case "false":
            return value is False
        case "schema":
            return isinstance(value, dict)
        case "branches":
            return isinstance(value, list) and all(isinstance(v, dict) for v in value)
        case "values":
            return isinstance(value, list) and bool(value) and all(isinstance(v, _SCALARS) for v in value)
        case "value":
            return isinstance(value, _SCALARS)
        case "count":
            return _is_count(value)
        case "flag":
            return isinstance(value, bool)
        case "number":
            return isinstance(value, int | float) and not isinstance(value, bool)
    return True  # "type" and "ascending" are checked on their own


def _walk_objects(schema: Any, path: str, out: list[dict], *, top: bool = True) -> None:
    """Every keyword from the allowlist; every object shape closed, every value typed (one type, or a closed
    vocabulary), every string and array bounded; no references to elsewhere (nothing is ever fetched)."""
    if not isinstance(schema, dict):
        out.append(_err(path, "must be a JSON Schema object", "invalid_schema"))
        return
    _check_keywords(schema, path, out, top=top)
    _check_bounds(schema, path, out, top=top)
    if "x-ascending" in schema:
        _check_ascending(schema, path, out)
    if _keyword_ok("schemas", schema.get("properties", {})):
        for name, sub in (schema.get("properties") or {}).items():
            _walk_objects(sub, f"{path}.properties.{name}", out, top=False)
    if isinstance(schema.get("items"), dict):
        _walk_objects(schema["items"], f"{path}.items", out, top=False)
    if top and _keyword_ok("branches", schema.get("oneOf", [])):
        for i, sub in enumerate(schema.get("oneOf") or []):
            _walk_objects(sub, f"{path}.oneOf[{i}]", out, top=False)


def _check_keywords(schema: dict, path: str, out: list[dict], *, top: bool) -> None:
    """Each keyword of one schema node is on the allowlist and takes a value of its kind."""
    for key, value in schema.items():
        kind = ("text" if top else None) if key == "$schema" else _KEYWORDS.get(key)
        if kind is None:
            out.append(_err(path, f"'{key}' is not supported in memory type schemas", "unsupported_keyword"))
        elif not _keyword_ok(kind, value):
            out.append(_err(f"{path}.{key}", "not a value this keyword takes here", "invalid_schema"))
        elif key in _READ_BY_PEOPLE and any(_unprintable(text) for text in (
                value.values() if isinstance(value, dict) else [value])):
            out.append(_err(f"{path}.{key}", "one line of text, without control or invisible characters",
                            "control_character"))


def _check_bounds(schema: dict, path: str, out: list[dict], *, top: bool) -> None:
    """One schema node is typed, closed if an object, bounded if a string or an array."""
    kind_of = schema.get("type")
    if "type" in schema and kind_of not in _TYPES:
        out.append(_err(f"{path}.type", f"one of {', '.join(_TYPES)} (one type, never null or a list)",
                        "unsupported_type"))
    if "oneOf" in schema and not top:
        out.append(_err(path, "oneOf only at the top, to tell shapes apart by kind", "unsupported_keyword"))
    if "type" not in schema and not ({"enum", "const"} & set(schema)) and not (top and "oneOf" in schema):
        out.append(_err(path, "every field needs a type, an enum or a const (no open values)", "unbounded"))
    is_object = kind_of == "object" or "properties" in schema
    if is_object and "oneOf" not in schema and schema.get("additionalProperties") is not False:
        out.append(_err(path, "every object must set additionalProperties: false", "schema_not_closed"))
    if kind_of == "string" and not ({"enum", "const", "maxLength", "pattern"} & set(schema)):
        out.append(_err(path, "a string needs maxLength, a pattern or an enum (no open free text)", "unbounded"))
    if kind_of == "array" and "maxItems" not in schema:
        out.append(_err(path, "an array needs maxItems", "unbounded"))
    if kind_of == "array" and "items" not in schema:
        out.append(_err(path, "an array needs items (what each item is)", "unbounded"))
    _check_satisfiable(schema, path, out)
    if _is_count(schema.get("maxLength")) and schema["maxLength"] > 500:
        out.append(_err(path, "maxLength is at most 500", "unbounded"))
    if _is_count(schema.get("maxItems")) and schema["maxItems"] > 100:
        out.append(_err(path, "maxItems is at most 100", "unbounded"))


_RANGES = (("minimum", "maximum"), ("minLength", "maxLength"), ("minItems", "maxItems"))


def _check_satisfiable(schema: dict, path: str, out: list[dict]) -> None:
    """No value fits a field whose lower bound is above its upper one, nor a closed object requiring a field it
    does not declare: every memory of the type would be refused, so the type is."""
    for low, high in _RANGES:
        lo, hi = schema.get(low), schema.get(high)
        if _keyword_ok("number", lo) and _keyword_ok("number", hi) and lo > hi:
            out.append(_err(f"{path}.{low}", f"{low} is above {high}: no value would fit", "invalid_schema"))
    required, props = schema.get("required"), schema.get("properties") or {}
    if _keyword_ok("names", required) and isinstance(props, dict) and schema.get("additionalProperties") is False:
        out += [_err(f"{path}.required", f"{name} is required but not among the properties", "invalid_schema")
                for name in required if name not in props]


def _check_ascending(schema: dict, path: str, out: list[dict]) -> None:
    """``x-ascending``: ``[[a, b, message], ...]``, a and b fields of this shape of one comparable type."""
    rules, props = schema["x-ascending"], schema.get("properties") or {}
    if not isinstance(rules, list):
        out.append(_err(f"{path}.x-ascending", "a list of [first, second, message]", "invalid_schema"))
        return
    for i, rule in enumerate(rules):
        where = f"{path}.x-ascending[{i}]"
        if not (isinstance(rule, list) and len(rule) == 3 and all(isinstance(x, str) for x in rule)
                and 1 <= len(rule[2]) <= 200):
            out.append(_err(where, "[first, second, message]: two field names and a message", "invalid_schema"))
            continue
        first, second = props.get(rule[0]), props.get(rule[1])
        kinds = {p.get("type") for p in (first, second) if isinstance(p, dict)}
        if first is None or second is None or rule[0] == rule[1]:
            out.append(_err(where, "first and second are two fields of this shape", "invalid_schema"))
        elif len(kinds) != 1 or not kinds <= {"string", "integer", "number"}:
            out.append(_err(where, "first and second are both strings or both numbers", "invalid_schema"))


# --- supersession and text, against the shapes -----------------------------------------------------------------

def _check_supersession_and_text(d: dict, branches: list[dict], errors: list[dict]) -> None:
    sup = d["supersession"]
    if not isinstance(sup, list) or len(sup) > 3 or not all(isinstance(s, str) for s in sup):
        errors.append(_err("supersession", "a list of at most 3 field names"))
        return
    for branch in branches:
        _check_supersession(sup, branch, errors)
    _check_text(d["text"], "oneOf" in d["schema"], branches, errors)


def _check_supersession(sup: list[str], branch: dict, errors: list[dict]) -> None:
    """Every entry names a required field of the shape, and the attribute they make fits its column: each closed
    value at its longest, one keyed hash for the free ones if there are any, and a separator between parts (what
    :func:`memory.types.facts.attribute_of` builds)."""
    longest, parts, free = 0, 0, False
    for entry in sup:
        name = supersession_field(branch, entry)
        if name is None or name not in branch.get("required", []):
            errors.append(_err("supersession", f"{entry} must be a required field of every shape"))
            continue
        prop = branch["properties"][name]
        if closed_vocabulary(prop):
            values = [prop["const"]] if "const" in prop else prop["enum"]
            longest += max(len(str(v)) for v in values)
            parts += 1
        elif not free:
            longest += TERM_KEY_LENGTH
            parts += 1
            free = True
    if longest + max(parts - 1, 0) > MAX_ATTRIBUTE:
        errors.append(_err("supersession", f"the attribute would pass {MAX_ATTRIBUTE} characters"))


def _check_text(text: Any, has_kinds: bool, branches: list[dict], errors: list[dict]) -> None:
    """One template for the type, or (shapes told apart by kind) one per kind and none for a kind it lacks."""
    if not has_kinds:
        _check_template(text, branches[0], "text", errors)
    elif not isinstance(text, dict):
        for branch in branches:
            _check_template(text, branch, "text", errors)
    else:
        for branch in branches:
            for kind in branch_kinds(branch):
                if kind not in text:
                    errors.append(_err(f"text.{kind}", "a template for every kind", "required"))
                else:
                    _check_template(text[kind], branch, f"text.{kind}", errors)
        kinds = {k for b in branches for k in branch_kinds(b)}
        errors += [_err(f"text.{k}", "not a kind of this type", "unknown_field") for k in sorted(set(text) - kinds)]


def _check_template(template: Any, branch: dict, path: str, out: list[dict]) -> None:
    if not isinstance(template, str) or not 1 <= len(template) <= 300:
        out.append(_err(path, "a sentence template of 1 to 300 characters", "invalid_template"))
        return
    if _unprintable(template):
        out.append(_err(path, "one line of text, without control or invisible characters", "control_character"))
    if template.count("[") != template.count("]") or re.search(r"\[[^\]]*\[", template):
        out.append(_err(path, "unbalanced or nested [ ] segments", "invalid_template"))
    if re.search(r"[{}]", PLACEHOLDER.sub("", template)):
        # {0}, {x!r}, a lone brace: not a placeholder, and it would reach people and agents as it stands
        out.append(_err(path, "braces only around a field's name: {field}, {field|filter} or {field?}",
                        "invalid_template"))
    props = branch.get("properties", {})
    for name, modifier in placeholders(template):
        if name not in props:
            out.append(_err(path, f"{{{name}}} is not a field of the fact", "invalid_template"))
        if modifier.startswith("|") and modifier[1:] not in FILTERS:
            out.append(_err(path, f"unknown filter {modifier[1:]}; one of {sorted(FILTERS)}", "invalid_template"))
