"""Which types there are: the built-in catalogue (files, every organisation) and an organisation's own (rows of
``memory_type`` under row-level security, only that organisation), looked up by name and version; and what each
answers for an organisation (its ``serves`` phrases, or the organisation's own wording of them in
``memory_type_serves``)."""

from __future__ import annotations

import copy
import functools
import json
import logging
import threading
import uuid
from collections.abc import Iterable

from django.db import connection

from memory.types.definitions import definition_check
from memory.types.spec import CATALOGUE_DIR, NAME, DefinitionInvalid, TypeSpec

log = logging.getLogger("anamnesis.memory")


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
    """The built-in types' latest versions, by name (the organisation's own come from :func:`type_get`)."""
    return {name: versions[max(versions)] for name, versions in builtin_catalogue().items()}


# Organisation types never change once written (a revision is a new row), so a spec read from the database
# can be kept per (organisation, name, version); a lookup for another organisation never finds it. None: a row
# that fails today's check (it will not pass tomorrow either).
_cache: dict[tuple, TypeSpec | None] = {}
_cache_lock = threading.Lock()


def _cache_put(key: tuple, spec: TypeSpec | None) -> None:
    with _cache_lock:
        if len(_cache) > 4096:
            _cache.clear()
        _cache[key] = spec


def _spec_from_row(row) -> TypeSpec | None:
    """A stored type as a spec; None for a row stored under an earlier, looser rule (a name ending in a newline)
    that fails today's check: unusable, so not offered, and the rest of the registry still answers."""
    try:
        return definition_check(copy.deepcopy(row.definition), organization_id=row.organization_id,
                                version=row.version)
    except DefinitionInvalid:
        log.warning("memory type row %s fails today's definition check; left out", row.type_id)
        return None


def uncached_statement(org_id: uuid.UUID) -> tuple[str, list]:
    """A statement for the organisation's type versions this process has not looked up (with their definitions),
    to send with a read that carries its block's COMMIT (the memory list, a read by id): nothing may be looked up
    after that COMMIT, so the versions its memories are rendered with must come with it. Usually no rows.
    :func:`cache_rows` takes its answer."""
    with _cache_lock:
        known = [f"{name}:{version}" for org, name, version in _cache if org == org_id]
    return ("SELECT type_id, name, version, definition FROM memory_type WHERE organization_id = %s "
            "AND NOT (name || ':' || version::text = ANY(%s::text[]))", [org_id, known])


def cache_rows(org_id: uuid.UUID, rows: Iterable[tuple]) -> None:
    """Keep the answer of :func:`uncached_statement` in this process's cache."""
    from memory.models import MemoryType

    for type_id, name, version, definition in rows:
        row = MemoryType(type_id=type_id, organization_id=org_id, name=name, version=version,
                         definition=json.loads(definition) if isinstance(definition, str) else definition)
        _cache_put((org_id, name, version), _spec_from_row(row))


def uncached_keys(org_id: uuid.UUID, keys: Iterable[tuple[str, int]]) -> set[tuple[str, int]]:
    """Of ``keys`` (type, version), those neither built in nor in this process's cache (a miss that found nothing
    is cached too, so it is asked once)."""
    catalogue = builtin_catalogue()
    return {(name, version) for name, version in set(keys)
            if name not in catalogue and (org_id, name, version) not in _cache}


def cache_absent(org_id: uuid.UUID, keys: Iterable[tuple[str, int]]) -> None:
    """Remember that ``keys`` were asked for and not found (rendered as their name, as a type never defined)."""
    for name, version in keys:
        _cache_put((org_id, name, version), None)


def cached_specs(org_id: uuid.UUID, keys: Iterable[tuple[str, int]]) -> dict[tuple[str, int], tuple]:
    """``memory.rendering.memory_item``'s ``specs`` for ``keys`` (type, version), from the catalogue and this
    process's cache only (no statement): what renders a read's memories after its COMMIT and identity are gone."""
    specs: dict[tuple[str, int], tuple] = {}
    for name, version in set(keys):
        builtin = builtin_catalogue().get(name)
        if builtin is not None:
            spec = builtin.get(version)
            specs[(name, version)] = (spec, spec or builtin[max(builtin)])
        elif (org_id, name, version) in _cache:
            spec = _cache[(org_id, name, version)]
            if spec is not None:
                specs[(name, version)] = (spec, spec)
    return specs


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
    return _own_spec(org_id, name, version)


def _own_spec(org_id: uuid.UUID, name: str, version: int | None) -> TypeSpec | None:
    """One of the organisation's own types, at ``version`` (else its latest), from this process's cache or its
    row; None when there is none or it fails today's check."""
    if version is not None and (org_id, name, version) in _cache:
        return _cache[(org_id, name, version)]
    from memory.models import MemoryType

    rows = MemoryType.objects.filter(organization_id=org_id, name=name)
    row = (rows.filter(version=version) if version is not None else rows.order_by("-version")).first()
    if row is None:
        return None
    spec = _spec_from_row(row)
    _cache_put((org_id, name, row.version), spec)
    return spec


def types_visible(*, org_id: uuid.UUID) -> list[TypeSpec]:
    """The latest version of every type the organisation may use: built-in, then its own, by name (an own type
    whose latest row fails today's check is offered at the version before it). It reads the versions only, and a
    definition (checked again, which costs far more than the query) only for a version this process has not seen."""
    from memory.models import MemoryType

    return _visible(org_id, MemoryType.objects.filter(organization_id=org_id).values_list("name", "version"))


def _visible(org_id: uuid.UUID, versions: Iterable[tuple[str, int]]) -> list[TypeSpec]:
    """:func:`types_visible` from the organisation's (name, version) pairs, in any order."""
    own: dict[str, TypeSpec] = {}
    for name, version in sorted(versions, key=lambda nv: (nv[0], -nv[1])):
        if name not in own and (spec := _own_spec(org_id, name, version)) is not None:
            own[name] = spec
    return sorted(builtin_latest().values(), key=lambda s: s.name) + [own[n] for n in sorted(own)]


# --- what each type answers ------------------------------------------------------------------------------------

SERVES_SOURCES = ("organization", "definition", "label")


def serves_overrides(*, org_id: uuid.UUID) -> dict[str, tuple[str, ...]]:
    """The organisation's own wording of what its types answer, by type name (one query; inside an identity
    context of the organisation, under row-level security)."""
    from memory.models import MemoryTypeServes

    rows = MemoryTypeServes.objects.filter(organization_id=org_id, phrases__isnull=False)
    return {name: tuple(phrases) for name, phrases in rows.values_list("name", "phrases") if phrases}


_GENERIC_FIELDS = frozenset({"note", "notes", "comment", "comments", "details", "detail"})
_MAX_VALUE_LABELS = 12
_MAX_DERIVED_PHRASES = 12  # each is embedded once per process


def serves_from_definition(spec: TypeSpec) -> tuple[str, ...]:
    """What search reads for a type that says nothing of what it answers: its label, and each field's title (after
    the label, so "Device" reads as the implanted device's) with the words of its values where the schema lists
    them ("MRI status: MRI safe, MRI conditional, MRI unsafe"). A free-text note names no situation and is left
    out. The API still shows such a type's ``serves`` as its label (``serves_source`` ``label``)."""
    phrases = [spec.label]
    seen = {spec.label.casefold()}
    for branch in spec.branches():
        for name, prop in (branch.get("properties") or {}).items():
            if not isinstance(prop, dict) or name.casefold() in _GENERIC_FIELDS:
                continue
            title = prop.get("title") if isinstance(prop.get("title"), str) else name.replace("_", " ")
            values = prop.get("enum") or (prop.get("items") or {}).get("enum") or []
            labels = {**((prop.get("items") or {}).get("x-labels") or {}), **(prop.get("x-labels") or {})}
            words = [str(labels.get(v, v)).replace("_", " ") for v in values if isinstance(v, str) and v != "other"]
            phrase = f"{spec.label}: {title}" + (f": {', '.join(words[:_MAX_VALUE_LABELS])}" if words else "")
            if isinstance(prop.get("description"), str):
                phrase += f" ({prop['description']})"
            if phrase.casefold() not in seen:
                seen.add(phrase.casefold())
                phrases.append(phrase)
    return tuple(phrases[:_MAX_DERIVED_PHRASES])


# type_serves' one statement: the organisation's type versions and its overrides together. Plain SQL because
# search asks it on every question: building the two querysets cost more than running them.
_VERSIONS_AND_OVERRIDES = """
SELECT name, version, NULL FROM memory_type WHERE organization_id = %s
UNION ALL
SELECT name, NULL, phrases::text FROM memory_type_serves WHERE organization_id = %s AND phrases IS NOT NULL
"""


def serves_effective(spec: TypeSpec, override: tuple[str, ...] | None = None) -> tuple[tuple[str, ...], str]:
    """What a type answers and where the words come from (one of :data:`SERVES_SOURCES`): the organisation's
    override, else the type's own phrases, else its label (a type that says nothing still names its subject)."""
    if override:
        return override, "organization"
    if spec.serves:
        return spec.serves, "definition"
    return (spec.label,), "label"


def type_serves(*, org_id: uuid.UUID) -> dict[str, tuple[str, ...]]:
    """What every type the organisation may use answers (its latest version), by type name: the organisation's
    own phrases for it, else the type's, else its label. Search embeds these to decide which types could answer a
    question. One query (the organisation's type versions and its overrides) and no definition check once this
    process has seen the versions; nothing cached that another process's write could leave stale. Runs inside
    an identity context of the organisation (row-level security)."""
    with connection.cursor() as cursor:
        cursor.execute(_VERSIONS_AND_OVERRIDES, [org_id, org_id])
        rows = cursor.fetchall()
    versions = [(name, version) for name, version, phrases in rows if phrases is None]
    overrides = {name: tuple(json.loads(phrases)) for name, _, phrases in rows if phrases is not None}
    return {spec.name: _serves_for_search(spec, overrides.get(spec.name)) for spec in _visible(org_id, versions)}


# A type version's definition never changes (a revision is a new version): its derived phrases are kept per process.
_derived: dict[tuple[uuid.UUID | None, str, int], tuple[str, ...]] = {}


def _serves_for_search(spec: TypeSpec, override: tuple[str, ...] | None) -> tuple[str, ...]:
    serves, source = serves_effective(spec, override)
    if source != "label":
        return serves
    key = (spec.organization_id, spec.name, spec.version)
    if key not in _derived:
        _derived[key] = serves_from_definition(spec)
    return _derived[key]


def type_public(spec: TypeSpec, *, override: tuple[str, ...] | None = None) -> dict:
    """A type as the API shows it (agents read it to know what they may propose). ``override``: the
    organisation's wording of what the type answers, for its latest version (older versions show their own)."""
    serves, source = serves_effective(spec, override)
    return {"name": spec.name, "version": spec.version, "builtin": spec.builtin, "memory_class": spec.memory_class,
            "label": spec.label, "purposes": list(spec.purposes), "writers": sorted(spec.writers),
            "encrypted": spec.encrypted, "review": spec.review, "fetch_live": spec.fetch_live,
            "default_validity_days": spec.default_validity_days, "retention_days": spec.retention_days,
            "supersession": list(spec.supersession), "text": spec.text, "kinds": spec.kinds, "schema": spec.schema,
            "serves": list(serves), "serves_source": source}
