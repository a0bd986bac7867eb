"""Which types there are: the built-in catalogue (files, every organisation) and an organisation's own (rows of
``memory_type`` under row-level security, only that organisation), looked up by name and version."""

from __future__ import annotations

import copy
import functools
import json
import logging
import threading
import uuid

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
