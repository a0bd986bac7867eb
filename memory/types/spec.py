"""What a memory type is once checked: :class:`TypeSpec`, the vocabulary a definition draws on, and the two errors
the registry raises (a definition it cannot register, a fact its type refuses)."""

from __future__ import annotations

import functools
import re
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from django.conf import settings

from core.vocabulary import PURPOSES
from memory.types.templates import compiled, planned

# The built-in types and the language names their templates use; data shipped with the code.
CATALOGUE_DIR = Path(__file__).resolve().parent.parent / "catalogue"
MEMORY_CLASSES = ("working", "preference", "account_fact", "care_context")
WRITERS = ("patient", "staff", "ehr_import", "agent_proposal")
PURPOSE_VALUES = tuple(value for value, _ in PURPOSES)
NAME = re.compile(r"^[a-z][a-z0-9_]{2,49}$")
MAX_ATTRIBUTE = 60
TERM_KEY_LENGTH = 24  # the keyed hash that stands for a supersession's free values in an attribute
# What a type answers (``serves``): a few short phrases that search embeds to decide which types could answer a
# question. Few, so each keeps its weight; short, so each names one situation.
MAX_SERVES = 8
MAX_SERVES_CHARS = 120


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
    serves: tuple[str, ...] = ()
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
        return sorted(k for branch in self.branches() for k in branch_kinds(branch))

    def branches(self) -> list[dict]:
        return self.schema["oneOf"] if "oneOf" in self.schema else [self.schema]

    def branch_for(self, fact: dict) -> dict | None:
        if "oneOf" not in self.schema:
            return self.schema
        kind = fact.get("kind")
        for branch in self.schema["oneOf"]:
            if isinstance(kind, str) and kind in branch_kinds(branch):
                return branch
        return None

    def attribute_fields(self, branch: dict) -> list[str]:
        """The fields of this shape whose values name the attribute (what a new value supersedes): a correction
        keeps them; another value is another attribute, recorded as a new fact."""
        return [name for entry in self.supersession if (name := supersession_field(branch, entry))]

    def template_for(self, kind: str | None) -> str:
        return self.text if isinstance(self.text, str) else self.text.get(kind or "", "")

    @functools.cached_property
    def _render_plans(self) -> dict[str, tuple | None]:
        return {}

    def render_plan(self, kind: Any) -> tuple | None:
        """What :func:`memory.types.text.fact_render` needs for facts of this ``kind``: the parsed template
        (``None``: no template), each placeholder with its property and how to word it. Worked out once per kind
        (a list or a search renders many facts)."""
        key = kind if isinstance(kind, str) else ""
        if key in self._render_plans:
            return self._render_plans[key]
        template = self.template_for(kind)
        plan = None
        if template:
            props = (self.branch_for({"kind": kind}) or {}).get("properties", {})
            plan = planned(compiled(template), props)
        if isinstance(kind, str) or kind is None:
            self._render_plans[key] = plan
        return plan


def branch_kinds(branch: dict) -> list[str]:
    """The kinds one shape of a ``oneOf`` schema stands for (its ``kind`` property's const or enum)."""
    kind = branch.get("properties", {}).get("kind", {})
    if "const" in kind:
        return [kind["const"]]
    return list(kind.get("enum", []))


def supersession_field(branch: dict, entry: str) -> str | None:
    """Which of a supersession entry's alternatives (``a|b``) this shape has."""
    props = branch.get("properties", {})
    return next((alt for alt in entry.split("|") if alt in props), None)


def closed_vocabulary(prop: dict) -> bool:
    return "enum" in prop or "const" in prop
