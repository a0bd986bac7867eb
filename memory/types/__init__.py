"""The memory type registry: what a memory's fact may contain, who may write it, how it is kept and how it reads.

A type is data, not code. The built-in catalogue lives in ``memory/catalogue/<name>.v<version>.json`` and is
visible to every organisation; organisation administrators add their own types (rows of ``memory_type``, under
row-level security, visible only to their organisation) through ``/v1/memory-types``. Every definition passes
:func:`definition_check`; every fact passes :func:`fact_validate`; every fact reads as a sentence through
:func:`fact_render`. The rest of the memory lifecycle (consent, supersession, validity, proposals, quarantine,
correction, deletion, retrieval) only ever asks a :class:`TypeSpec`, so a new type needs no new code.

What lives where:

* ``spec``: :class:`TypeSpec`, the vocabulary a definition draws on, the two errors.
* ``definitions``: :func:`definition_check`, what a definition must say (its docstring describes the format).
* ``templates``: the sentence-template language, shared by the check and the renderer.
* ``facts``: :func:`fact_validate` (schema, pattern deadline, normalisation, the attribute a fact supersedes).
* ``text``: :func:`fact_render`, a fact as a sentence.
* ``registry``: the catalogue and an organisation's own types, by name and version; what each answers for an
  organisation (:func:`type_serves`: the phrases search embeds to decide which types could answer a question).
* ``services``: an administrator adds or revises a type, or rewords what a type answers (writes, audited).
* ``api``: ``/v1/memory-types``.

Code outside the package imports the names below from ``memory.types``; the writes and the views it imports as
the modules ``memory.types.services`` and ``memory.types.api``.
"""

from memory.types.definitions import definition_check, serves_problems
from memory.types.facts import earlier_attribute, fact_validate, validate_fact, validate_fact_spec
from memory.types.registry import (
    builtin_catalogue,
    builtin_latest,
    revision_lock_key,
    serves_overrides,
    type_get,
    type_public,
    type_serves,
    types_visible,
)
from memory.types.spec import NAME, DefinitionInvalid, FactInvalid, TypeSpec, closed_vocabulary
from memory.types.text import fact_render, fact_text

__all__ = [
    "NAME", "DefinitionInvalid", "FactInvalid", "TypeSpec", "builtin_catalogue", "builtin_latest", "closed_vocabulary",
    "definition_check", "earlier_attribute", "fact_render", "fact_text", "fact_validate", "revision_lock_key",
    "serves_overrides", "serves_problems", "type_get", "type_public", "type_serves", "types_visible",
    "validate_fact", "validate_fact_spec",
]
