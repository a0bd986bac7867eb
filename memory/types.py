"""The memory type registry: what a memory's fact may contain, who may write it, how it is kept and how it reads.

A type is data, not code. The built-in catalogue lives in ``memory/catalogue/<name>.v<version>.json`` and is
visible to every organisation; organisation administrators add their own types (rows of ``memory_type``, under
row-level security, visible only to their organisation) through ``/v1/memory-types``. Every definition passes
:func:`definition_check`; every fact passes :func:`fact_validate`; every fact reads as a sentence through
:func:`fact_render`. The rest of the memory lifecycle (consent, supersession, validity, proposals, quarantine,
correction, deletion, retrieval) only ever asks a :class:`TypeSpec`, so a new type needs no new code.

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
"""

from __future__ import annotations

import copy
import functools
import hashlib
import hmac
import json
import logging
import re
import threading
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import regex
from django.conf import settings
from jsonschema import Draft202012Validator, ValidationError, validators
from jsonschema.exceptions import SchemaError
from referencing import Registry
from referencing.exceptions import NoSuchResource, Unresolvable

from core.serializers import schema_error_message
from core.vocabulary import PURPOSES

log = logging.getLogger("anamnesis.memory")

CATALOGUE_DIR = Path(__file__).resolve().parent / "catalogue"
DRAFT_2020_12 = "https://json-schema.org/draft/2020-12/schema"
MEMORY_CLASSES = ("working", "preference", "account_fact", "care_context")
WRITERS = ("patient", "staff", "ehr_import", "agent_proposal")
PURPOSE_VALUES = tuple(value for value, _ in PURPOSES)
NAME = re.compile(r"^[a-z][a-z0-9_]{2,49}$")
FILTERS = {"title", "or", "language", "list"}
DEFINITION_KEYS = {"name", "version", "memory_class", "label", "purposes", "writers", "encrypted", "review",
                   "fetch_live", "default_validity_days", "retention_days", "supersession", "text", "schema"}
REQUIRED_KEYS = {"name", "memory_class", "label", "purposes", "writers", "supersession", "text", "schema"}
MAX_SCHEMA_BYTES = 32_000
MAX_ATTRIBUTE = 60
_PLACEHOLDER = re.compile(r"\{([a-z_][a-z0-9_]*)(\?|\|[a-z]+)?\}")
_SEGMENT = re.compile(r"\[([^\]]*)\]|([^\[]+)")


class DefinitionInvalid(Exception):
    """A type definition that cannot be registered; ``errors`` are ``{field, message, code}``."""

    def __init__(self, errors: list[dict]):
        super().__init__("; ".join(f"{e['field']}: {e['message']}" for e in errors))
        self.errors = errors


class FactInvalid(Exception):
    """A fact its type refuses; ``detail`` is nested by field path, like a DRF serializer's errors."""

    def __init__(self, detail: dict):
        super().__init__("invalid fact")
        self.detail = detail


@dataclass(frozen=True)
class TypeSpec:
    name: str
    version: int
    memory_class: str
    label: str
    purposes: tuple[str, ...]
    writers: frozenset[str]
    encrypted: bool
    review: bool
    fetch_live: bool
    default_validity_days: int | None
    retention_days: int | None
    supersession: tuple[str, ...]
    text: str | dict
    schema: dict
    organization_id: uuid.UUID | None = None
    definition: dict = field(default_factory=dict, compare=False, repr=False)

    @property
    def builtin(self) -> bool:
        return self.organization_id is None

    @property
    def kept_days(self) -> int:
        """How long a memory of this type is kept at most: the type's retention, else its class's."""
        return self.retention_days or settings.MEMORY_RETENTION_DAYS[self.memory_class]

    @property
    def kinds(self) -> list[str]:
        return sorted(k for branch in self.branches() for k in _branch_kinds(branch))

    def branches(self) -> list[dict]:
        return self.schema["oneOf"] if "oneOf" in self.schema else [self.schema]

    def branch_for(self, fact: dict) -> dict | None:
        if "oneOf" not in self.schema:
            return self.schema
        kind = fact.get("kind")
        for branch in self.schema["oneOf"]:
            if isinstance(kind, str) and kind in _branch_kinds(branch):
                return branch
        return None

    def attribute_fields(self, branch: dict) -> list[str]:
        """The fields of this shape whose values name the attribute (what a new value supersedes): a correction
        keeps them; another value is another attribute, recorded as a new fact."""
        return [name for entry in self.supersession if (name := _supersession_field(branch, entry))]

    def template_for(self, kind: str | None) -> str:
        return self.text if isinstance(self.text, str) else self.text.get(kind or "", "")

    @functools.cached_property
    def _render_plans(self) -> dict[str, tuple | None]:
        return {}

    def render_plan(self, kind: Any) -> tuple | None:
        """What :func:`fact_render` needs for facts of this ``kind``: the parsed template (``None``: no template), each
        placeholder with its property and how to word it. Worked out once per kind (a list or a search renders many
        facts)."""
        key = kind if isinstance(kind, str) else ""
        if key in self._render_plans:
            return self._render_plans[key]
        template = self.template_for(kind)
        plan = None
        if template:
            props = (self.branch_for({"kind": kind}) or {}).get("properties", {})
            plan = _planned(_compiled(template), props)
        if isinstance(kind, str) or kind is None:
            self._render_plans[key] = plan
        return plan


def _branch_kinds(branch: dict) -> list[str]:
    kind = branch.get("properties", {}).get("kind", {})
    if "const" in kind:
        return [kind["const"]]
    return list(kind.get("enum", []))


# --- definitions -------------------------------------------------------------------------------------------

def _err(path: str, message: str, code: str = "invalid") -> dict:
    return {"field": path, "message": message, "code": code}


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


def _walk_objects(schema: Any, path: str, out: list[dict], *, top: bool = True) -> None:
    """Every keyword from the allowlist; every object shape closed, every value typed (one type, or a closed
    vocabulary), every string and array bounded; no references to elsewhere (nothing is ever fetched)."""
    if not isinstance(schema, dict):
        out.append(_err(path, "must be a JSON Schema object", "invalid_schema"))
        return
    for key, value in schema.items():
        kind = ("text" if top else None) if key == "$schema" else _KEYWORDS.get(key)
        if kind is None:
            out.append(_err(path, f"'{key}' is not supported in memory type schemas", "unsupported_keyword"))
        elif not _keyword_ok(kind, value):
            out.append(_err(f"{path}.{key}", "not a value this keyword takes here", "invalid_schema"))
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
    if _is_count(schema.get("maxLength")) and schema["maxLength"] > 500:
        out.append(_err(path, "maxLength is at most 500", "unbounded"))
    if _is_count(schema.get("maxItems")) and schema["maxItems"] > 100:
        out.append(_err(path, "maxItems is at most 100", "unbounded"))
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


def _placeholders(template: str) -> list[tuple[str, str]]:
    return [(m.group(1), m.group(2) or "") for m in _PLACEHOLDER.finditer(template)]


def _check_template(template: Any, branch: dict, path: str, out: list[dict]) -> None:
    if not isinstance(template, str) or not 1 <= len(template) <= 300:
        out.append(_err(path, "a sentence template of 1 to 300 characters", "invalid_template"))
        return
    if template.count("[") != template.count("]") or re.search(r"\[[^\]]*\[", template):
        out.append(_err(path, "unbalanced or nested [ ] segments", "invalid_template"))
    if re.search(r"[{}]", _PLACEHOLDER.sub("", template)):
        # {0}, {x!r}, a lone brace: not a placeholder, and it would reach people and agents as it stands
        out.append(_err(path, "braces only around a field's name: {field}, {field|filter} or {field?}",
                        "invalid_template"))
    props = branch.get("properties", {})
    for name, modifier in _placeholders(template):
        if name not in props:
            out.append(_err(path, f"{{{name}}} is not a field of the fact", "invalid_template"))
        if modifier.startswith("|") and modifier[1:] not in FILTERS:
            out.append(_err(path, f"unknown filter {modifier[1:]}; one of {sorted(FILTERS)}", "invalid_template"))


def _supersession_field(branch: dict, entry: str) -> str | None:
    props = branch.get("properties", {})
    return next((alt for alt in entry.split("|") if alt in props), None)


def _closed_vocabulary(prop: dict) -> bool:
    return "enum" in prop or "const" in prop


def definition_check(definition: Any, *, organization_id: uuid.UUID | None = None,
                     version: int | None = None) -> TypeSpec:
    """Check a type definition and return its spec, or raise :class:`DefinitionInvalid` listing every problem."""
    if not isinstance(definition, dict):
        raise DefinitionInvalid([_err("definition", "must be an object")])
    errors: list[dict] = []
    errors += [_err(k, "unknown field", "unknown_field") for k in sorted(set(definition) - DEFINITION_KEYS)]
    errors += [_err(k, "This field is required.", "required") for k in sorted(REQUIRED_KEYS - set(definition))]
    if errors:
        raise DefinitionInvalid(errors)
    d = definition
    if not isinstance(d["name"], str) or not NAME.fullmatch(d["name"]):
        errors.append(_err("name", "lower-case letters, digits and _ (3 to 50), starting with a letter"))
    if d["memory_class"] not in MEMORY_CLASSES:
        errors.append(_err("memory_class", f"one of {list(MEMORY_CLASSES)}"))
    if not isinstance(d["label"], str) or not 1 <= len(d["label"].strip()) <= 80:
        errors.append(_err("label", "1 to 80 characters"))
    purposes, writers = d["purposes"], d["writers"]
    if (not isinstance(purposes, list) or not purposes or len(set(purposes)) != len(purposes)
            or not set(purposes) <= set(PURPOSE_VALUES)):
        errors.append(_err("purposes", f"a non-empty list of distinct purposes from {list(PURPOSE_VALUES)}"))
    if (not isinstance(writers, list) or not writers or len(set(writers)) != len(writers)
            or not set(writers) <= set(WRITERS)):
        errors.append(_err("writers", f"a non-empty list of distinct writers from {list(WRITERS)}"))
    elif d["memory_class"] == "care_context" and set(writers) - {"staff", "ehr_import"}:
        errors.append(_err("writers", "care context is written only by staff or an EHR import"))
    for flag in ("encrypted", "review", "fetch_live"):
        if not isinstance(d.get(flag, False), bool):
            errors.append(_err(flag, "true or false"))
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
    schema = d["schema"]
    branches: list[dict] = []
    if not isinstance(schema, dict):
        errors.append(_err("schema", "must be a JSON Schema object"))
    elif len(json.dumps(schema)) > MAX_SCHEMA_BYTES:
        errors.append(_err("schema", f"at most {MAX_SCHEMA_BYTES} bytes", "too_large"))
    else:
        if schema.get("$schema", DRAFT_2020_12) != DRAFT_2020_12:
            errors.append(_err("schema.$schema", f"only {DRAFT_2020_12}"))
        try:
            Draft202012Validator.check_schema(schema)
        except SchemaError as exc:
            errors.append(_err("schema", f"not a valid JSON Schema: {exc.message}"[:300], "invalid_schema"))
        else:
            if schema.get("type") != "object":
                errors.append(_err("schema.type", "the fact is an object", "invalid_schema"))
            _walk_objects(schema, "schema", errors)
            if "oneOf" in schema:
                if "properties" in schema:
                    errors.append(_err("schema", "either properties or oneOf at the top, not both", "invalid_schema"))
                branches = [b for b in schema["oneOf"] if isinstance(b, dict)]
                seen: set[str] = set()
                for i, branch in enumerate(branches):
                    kinds = _branch_kinds(branch)
                    if not kinds or "kind" not in branch.get("required", []):
                        errors.append(_err(f"schema.oneOf[{i}]", "each shape requires a kind (const or enum)",
                                           "invalid_schema"))
                    if seen & set(kinds):
                        errors.append(_err(f"schema.oneOf[{i}]", "kinds must not repeat", "invalid_schema"))
                    seen |= set(kinds)
            else:
                branches = [schema]
    if branches and not errors:
        _check_supersession_and_text(d, branches, errors)
    if errors:
        raise DefinitionInvalid(errors)
    return TypeSpec(
        name=d["name"], version=version or d.get("version") or 1, memory_class=d["memory_class"],
        label=d["label"].strip(), purposes=tuple(purposes), writers=frozenset(writers),
        encrypted=d.get("encrypted", False), review=d.get("review", False), fetch_live=d.get("fetch_live", False),
        default_validity_days=d.get("default_validity_days"), retention_days=d.get("retention_days"),
        supersession=tuple(d["supersession"]), text=d["text"], schema=schema, organization_id=organization_id,
        definition={k: v for k, v in d.items() if k != "version"})


def _check_supersession_and_text(d: dict, branches: list[dict], errors: list[dict]) -> None:
    sup = d["supersession"]
    if not isinstance(sup, list) or len(sup) > 3 or not all(isinstance(s, str) for s in sup):
        errors.append(_err("supersession", "a list of at most 3 field names"))
        return
    for branch in branches:
        raw_length = 0
        for entry in sup:
            name = _supersession_field(branch, entry)
            if name is None or name not in branch.get("required", []):
                errors.append(_err("supersession", f"{entry} must be a required field of every shape"))
                continue
            prop = branch["properties"][name]
            if _closed_vocabulary(prop):
                values = [prop["const"]] if "const" in prop else prop["enum"]
                raw_length += max(len(str(v)) for v in values) + 1
        if raw_length + 25 > MAX_ATTRIBUTE:
            errors.append(_err("supersession", f"the attribute would pass {MAX_ATTRIBUTE} characters"))
    text = d["text"]
    if "oneOf" in d["schema"]:
        if isinstance(text, dict):
            for branch in branches:
                for kind in _branch_kinds(branch):
                    if kind not in text:
                        errors.append(_err(f"text.{kind}", "a template for every kind", "required"))
                    else:
                        _check_template(text[kind], branch, f"text.{kind}", errors)
            kinds = {k for b in branches for k in _branch_kinds(b)}
            errors += [_err(f"text.{k}", "not a kind of this type", "unknown_field") for k in sorted(set(text) - kinds)]
        else:
            for branch in branches:
                _check_template(text, branch, "text", errors)
    else:
        _check_template(text, branches[0], "text", errors)


# --- facts ---------------------------------------------------------------------------------------------------

# An organisation's administrator writes the patterns, and anyone the type lets write may send a value: a pattern
# such as (a+)+$ takes exponential time on some values (hours for 40 characters) while the request holds its
# transaction. Values are matched by the ``regex`` module with a deadline; a value the pattern cannot decide in
# time is refused like one that does not match.
PATTERN_TIMEOUT_SECONDS = 0.05


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
        matched = regex.search(ecma_anchors(pattern), instance, timeout=PATTERN_TIMEOUT_SECONDS)
    except (TimeoutError, regex.error):
        matched = None
    if matched is None:
        yield ValidationError(f"does not match {pattern!r}")


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


def _put(detail: dict, path: list[str], message: str) -> None:
    node = detail
    for part in path[:-1]:
        node = node.setdefault(part, {})
        if not isinstance(node, dict):
            return
    node.setdefault(path[-1], [])
    if isinstance(node[path[-1]], list) and message not in node[path[-1]]:
        node[path[-1]].append(message)


def _normalise(branch: dict, fact: dict) -> dict:
    """Sets of choices are kept once each and in the order the schema lists them."""
    out = dict(fact)
    for name, prop in branch.get("properties", {}).items():
        value = out.get(name)
        choices = (prop.get("items") or {}).get("enum") if prop.get("type") == "array" else None
        if choices and isinstance(value, list) and all(isinstance(x, str) and x in choices for x in value):
            out[name] = sorted(set(value), key=choices.index)
    return out


# No text in a fact is longer than this, whatever its schema says: maxLength is capped at it, and a pattern alone
# (which a definition may give instead of maxLength) bounds nothing.
MAX_FACT_TEXT_CHARS = 500


def _over_long(value: Any, path: list[str]):
    if isinstance(value, str):
        if len(value) > MAX_FACT_TEXT_CHARS:
            yield path
    elif isinstance(value, dict):
        for key, child in value.items():
            yield from _over_long(child, [*path, str(key)])
    elif isinstance(value, list):
        for i, child in enumerate(value):
            yield from _over_long(child, [*path, str(i)])


def fact_validate(spec: TypeSpec, fact: Any) -> tuple[str, dict]:
    """Return (attribute, normalised fact) or raise :class:`FactInvalid` with errors keyed by field path."""
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
                _put(detail, ["fact", *path, extra], "unknown field")
        elif error.validator == "required":
            missing = [r for r in error.validator_value if r not in error.instance]
            for name in missing:
                _put(detail, ["fact", *path, name], "This field is required.")
        else:
            _put(detail, ["fact", *path] if path else ["fact"], schema_error_message(error))
    for path in _over_long(fact, []):
        _put(detail, ["fact", *path], f"at most {MAX_FACT_TEXT_CHARS} characters")
    if not detail:
        for first, second, message in branch.get("x-ascending", []):
            if fact.get(first) is not None and fact.get(second) is not None and fact[first] >= fact[second]:
                _put(detail, ["fact", second], message)
    if detail:
        raise FactInvalid(detail)
    return attribute_of(spec, branch, fact), fact


def _term_key(value: str) -> str:
    """A keyed hash of a normalised free value: stable for supersession, no plaintext in the attribute."""
    from django.conf import settings

    normalised = re.sub(r"[^a-z0-9]+", " ", value.casefold()).strip()
    return hmac.new(settings.MEMORY_ATTRIBUTE_KEY.encode(), normalised.encode(), hashlib.sha256).hexdigest()[:24]


def attribute_of(spec: TypeSpec, branch: dict, fact: dict) -> str:
    """The attribute a fact supersedes: closed-vocabulary parts as they are, free parts as one keyed hash."""
    raw: list[str] = []
    free: list[str] = []
    for entry in spec.supersession:
        name = _supersession_field(branch, entry)
        value = fact.get(name) if name else None
        prop = branch.get("properties", {}).get(name or "", {})
        (raw if _closed_vocabulary(prop) else free).append(str(value if value is not None else ""))
    parts = raw + ([_term_key(" ".join(free))] if free else [])
    return ":".join(parts)[:MAX_ATTRIBUTE] if parts else spec.name[:MAX_ATTRIBUTE]


# --- words ---------------------------------------------------------------------------------------------------

@functools.cache
def language_names() -> dict[str, str]:
    return json.loads((CATALOGUE_DIR / "languages.json").read_text(encoding="utf-8"))


def language_name(tag: str) -> str:
    names = language_names()
    lowered = tag.lower()
    return names.get(lowered) or names.get(lowered.split("-")[0]) or tag


def _words(value: Any, prop: dict, flt: str) -> str:
    if isinstance(value, list):
        item = prop.get("items", {}) if isinstance(prop.get("items"), dict) else {}
        words = [_words(v, item, "title" if flt == "title" else "") for v in value]
        if flt == "or":
            return " or ".join(words)
        return ", ".join(words)
    if isinstance(value, bool):
        labels = prop.get("x-labels", {})
        return labels.get(str(value).lower(), "yes" if value else "no")
    if isinstance(value, dict):
        return ", ".join(f"{k} {v}" for k, v in value.items())
    text = str(value)
    if flt == "language":
        return language_name(text)
    labels = prop.get("x-labels") or {}
    if text in labels:
        text = labels[text]
    elif "enum" in prop or "const" in prop:
        text = text.replace("_", " ")
    return text.title() if flt == "title" else text


def _present(value: Any) -> bool:
    return value is not None and value is not False and value != "" and value != []


@functools.lru_cache(maxsize=1024)
def _compiled(template: str) -> tuple[tuple[bool, tuple], ...]:
    """A template parsed once: segments (optional or not) of literal text and (field, modifier) pairs."""
    segments = []
    for m in _SEGMENT.finditer(template):
        optional = m.group(1) is not None
        text = m.group(1) if optional else m.group(2)
        parts: list = []
        pos = 0
        for p in _PLACEHOLDER.finditer(text):
            parts.append(text[pos:p.start()])
            parts.append((p.group(1), p.group(2) or ""))
            pos = p.end()
        parts.append(text[pos:])
        segments.append((optional, tuple(parts)))
    return tuple(segments)


def _planned(segments: tuple, props: dict) -> tuple:
    """A parsed template with each placeholder as ``(name, presence_only, filter, property, verbatim)``:
    ``verbatim`` when a text value is shown as it stands (no filter, no labels, not a closed set), the usual case,
    which :func:`fact_render` then words without calling :func:`_words`."""
    planned = []
    for optional, parts in segments:
        steps: list = []
        for part in parts:
            if isinstance(part, str):
                steps.append(part)
                continue
            name, modifier = part
            prop = props.get(name, {})
            verbatim = (modifier == "" and not prop.get("x-labels") and "enum" not in prop
                        and "const" not in prop)
            steps.append((name, modifier == "?", modifier.lstrip("|"), prop, verbatim))
        planned.append((optional, tuple(steps)))
    return tuple(planned)


def fact_render(spec: TypeSpec, fact: dict) -> str:
    """The fact as one plain-language sentence (for people, full-text search and embeddings)."""
    segments = spec.render_plan(fact.get("kind"))
    if segments is None:
        return spec.label
    get = fact.get
    pieces = []
    for optional, steps in segments:
        out: list[str] | None = []
        for step in steps:
            if step.__class__ is str:
                out.append(step)  # type: ignore[union-attr]
                continue
            name, presence_only, flt, prop, verbatim = step
            value = get(name)
            if not _present(value):
                if optional:
                    out = None
                    break
                continue
            if presence_only:
                continue
            out.append(value if verbatim and value.__class__ is str  # type: ignore[union-attr]
                       else _words(value, prop, flt))
        if out is not None:
            pieces.append("".join(out))
    return " ".join("".join(pieces).split())  # whitespace runs as one space, none at the ends


# --- the registry ----------------------------------------------------------------------------------------------

@functools.cache
def builtin_catalogue() -> dict[str, dict[int, TypeSpec]]:
    """The built-in types, every version, from the catalogue files. A broken file fails loudly at start-up."""
    catalogue: dict[str, dict[int, TypeSpec]] = {}
    for path in sorted(CATALOGUE_DIR.glob("*.v*.json")):
        definition = json.loads(path.read_text(encoding="utf-8"))
        try:
            spec = definition_check(definition, version=definition.get("version"))
        except DefinitionInvalid as exc:
            raise RuntimeError(f"memory type catalogue {path.name}: {exc}") from None
        if path.name != f"{spec.name}.v{spec.version}.json":
            raise RuntimeError(f"memory type catalogue {path.name}: file name must be {spec.name}.v{spec.version}.json")
        catalogue.setdefault(spec.name, {})[spec.version] = spec
    return catalogue


def builtin_latest() -> dict[str, TypeSpec]:
    return {name: versions[max(versions)] for name, versions in builtin_catalogue().items()}


# Organisation types never change once written (a revision is a new row), so a spec read from the database
# can be kept per (organisation, name, version); a lookup for another organisation never finds it.
_cache: dict[tuple, TypeSpec] = {}
_cache_lock = threading.Lock()


def _spec_from_row(row) -> TypeSpec | None:
    """A stored type as a spec; None for a row stored under an earlier, looser rule (a name ending in a newline)
    that fails today's check: unusable, so not offered, and the rest of the registry still answers."""
    try:
        return definition_check(copy.deepcopy(row.definition), organization_id=row.organization_id,
                                version=row.version)
    except DefinitionInvalid:
        log.warning("memory type row %s fails today's definition check; left out", row.type_id)
        return None


def revision_lock_key(org_id: uuid.UUID, name: str) -> str:
    """The advisory lock of one organisation type: revisions take it exclusively, memory writes shared, so a
    revision never slips in between a write's check of the fact and its insert."""
    return f"memory_type:{org_id}:{name}"


def type_get(name: str, version: int | None = None, *, org_id: uuid.UUID | None = None) -> TypeSpec | None:
    """The type ``name`` (its latest version unless ``version``), built-in or the organisation's own; None if the
    caller's organisation cannot see it. Must run inside an identity context for organisation types."""
    builtin = builtin_catalogue().get(name)
    if builtin is not None:
        return builtin.get(version) if version is not None else builtin[max(builtin)]
    if not isinstance(name, str) or not NAME.fullmatch(name):
        return None
    if org_id is None:
        from core.identity import current_identity

        identity = current_identity()
        if identity is None:
            return None
        org_id = identity.org_id
    if version is not None and (org_id, name, version) in _cache:
        return _cache[(org_id, name, version)]
    from memory.models import MemoryType

    rows = MemoryType.objects.filter(organization_id=org_id, name=name)
    row = (rows.filter(version=version) if version is not None else rows.order_by("-version")).first()
    if row is None:
        return None
    spec = _spec_from_row(row)
    if spec is None:
        return None
    with _cache_lock:
        if len(_cache) > 4096:
            _cache.clear()
        _cache[(org_id, name, spec.version)] = spec
    return spec


def types_visible(*, org_id: uuid.UUID) -> list[TypeSpec]:
    """The latest version of every type the organisation may use: built-in, then its own, by name."""
    from memory.models import MemoryType

    own: dict[str, TypeSpec] = {}
    for row in MemoryType.objects.filter(organization_id=org_id).order_by("name", "version"):
        spec = _spec_from_row(row)
        if spec is not None:
            own[row.name] = spec
    return sorted(builtin_latest().values(), key=lambda s: s.name) + [own[n] for n in sorted(own)]


def type_public(spec: TypeSpec) -> dict:
    """A type as the API shows it (agents read it to know what they may propose)."""
    return {"name": spec.name, "version": spec.version, "builtin": spec.builtin, "memory_class": spec.memory_class,
            "label": spec.label, "purposes": list(spec.purposes), "writers": sorted(spec.writers),
            "encrypted": spec.encrypted, "review": spec.review, "fetch_live": spec.fetch_live,
            "default_validity_days": spec.default_validity_days, "retention_days": spec.retention_days,
            "supersession": list(spec.supersession), "text": spec.text, "kinds": spec.kinds, "schema": spec.schema}
