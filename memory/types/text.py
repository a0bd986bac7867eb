"""A fact as one plain-language sentence, from its type's template: what people read, what full-text search
indexes and what retrieval embeds. (A whole memory as JSON, text or FHIR is another renderer's concern; this one
words the fact alone.)"""

from __future__ import annotations

import functools
import json
from typing import Any

from memory.types.registry import type_get
from memory.types.spec import CATALOGUE_DIR, TypeSpec


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


def fact_text(memory_type: str, fact: dict, version: int | None = None) -> str:
    """:func:`fact_render` for a type named by the caller: its latest version when ``version`` is not found, and
    the type's name in words when the caller's organisation cannot see the type."""
    spec = type_get(memory_type, version) or type_get(memory_type)
    if spec is None:
        return memory_type.replace("_", " ")
    return fact_render(spec, fact)


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
