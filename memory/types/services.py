"""Writes of the memory type registry: organisation administrators add a type, revise it, and reword what any
type they may use answers.

A revision is a new version (a new row); memories keep the version they were written with. A revision that a
current memory of the type (proposed, active or quarantined) would not satisfy is refused, listing each memory id
and failing field path, never a value. What a type answers (its ``serves`` phrases) steers retrieval, not what a
fact means: an organisation rewords it for itself, built-in types included, in place and without a new version.
Every change is audited.
"""

from __future__ import annotations

import dataclasses
import json
import uuid

from django.db import IntegrityError, connection, transaction
from django.utils import timezone

from core import audit, maintenance
from core.access import require_person_deciding_access
from core.errors import ConcurrentUpdate, Conflict, NotFound, ValidationFailed, VersionConflict
from core.identity import Identity
from core.services import organization_ensure
from memory.crypto import decrypt_fact
from memory.models import MemoryType, MemoryTypeServes
from memory.types.definitions import definition_check, serves_clean, serves_problems
from memory.types.facts import fact_validate
from memory.types.registry import builtin_catalogue, revision_lock_key, type_get
from memory.types.spec import NAME, DefinitionInvalid, FactInvalid, TypeSpec, closed_vocabulary, supersession_field


class TypeExists(Conflict):
    code = "memory_type_exists"
    title = "A memory type with this name exists; revise it instead"


class BuiltinType(Conflict):
    code = "memory_type_builtin"
    title = "Built-in memory types change only with a release of the service"


class TooManyTypes(Conflict):
    code = "too_many_memory_types"
    title = "The organisation holds as many memory types, or this type as many versions, as it may"


# Every type an organisation may use is in one answer (``GET /v1/memory-types``, each with its schema, up to
# definitions.MAX_SCHEMA_BYTES), and every version of one type in another: bounded by bounding what is kept.
MAX_ORGANIZATION_TYPES = 100
MAX_TYPE_VERSIONS = 100


class RevisionBreaksMemories(Conflict):
    code = "revision_breaks_memories"
    title = "Current memories of this type would not satisfy the revision"


def _checked(identity: Identity, definition: dict, version: int) -> TypeSpec:
    if "version" in definition:
        raise ValidationFailed(errors=[{"field": "version", "message": "assigned by the service", "code": "invalid"}])
    try:
        return definition_check(definition, organization_id=identity.org_id, version=version)
    except DefinitionInvalid as exc:
        raise ValidationFailed(errors=exc.errors) from None


def _insert(identity: Identity, spec: TypeSpec) -> MemoryType:
    try:
        with transaction.atomic():
            return MemoryType.objects.create(organization_id=identity.org_id, name=spec.name, version=spec.version,
                                             memory_class=spec.memory_class, definition=spec.definition,
                                             created_by=identity.actor_sub)
    except IntegrityError:
        raise ConcurrentUpdate() from None


def memory_type_create(*, identity: Identity, definition: dict) -> TypeSpec:
    """Add an organisation type (version 1). Its name may not be a built-in's or an existing type's."""
    require_person_deciding_access(identity)  # an administrator's decision: never a patient's, nor an agent's
    spec = _checked(identity, definition, 1)
    with connection.cursor() as cursor:  # new types of one organisation counted one at a time, so the cap holds
        cursor.execute("SELECT pg_advisory_xact_lock(hashtextextended(%s, 0))", [f"memory-types:{identity.org_id}"])
    if spec.name in builtin_catalogue() or MemoryType.objects.filter(organization_id=identity.org_id,
                                                                      name=spec.name).exists():
        raise TypeExists()
    held = MemoryType.objects.filter(organization_id=identity.org_id, version=1).count()
    if held >= MAX_ORGANIZATION_TYPES:
        raise TooManyTypes(f"the organisation holds {held} memory types, the most it may; revise one instead")
    organization_ensure(identity=identity)
    row = _insert(identity, spec)
    audit.record(action="memory_type.create", resource_type="memory_type", resource_id=row.type_id)
    return spec


def _paths(detail, prefix: str = "") -> list[tuple[str, str]]:
    out: list[tuple[str, str]] = []
    if isinstance(detail, dict):
        for key, value in detail.items():
            out += _paths(value, f"{prefix}.{key}" if prefix else str(key))
    elif isinstance(detail, list):
        out += [(prefix, str(message)) for message in detail]
    return out


def _current_values(identity: Identity, name: str) -> list[tuple[uuid.UUID, str, dict]]:
    """The purposes and values of the organisation's current memories of type ``name``, through the narrow
    revision policy. One past its validity or retention (a proposal that lapsed unreviewed too) reads as expired
    and never becomes current again, whether or not the sweep has recorded it: it breaks nothing."""
    rows = maintenance.discover(
        "type_revision",
        "SELECT memory_id, patient_id, consent_purpose, fact, fact_ciphertext, fact_key_id FROM patient_memory "
        "WHERE organization_id = %s AND memory_type = %s AND state IN ('proposed', 'active', 'quarantined') "
        "AND expires_at > statement_timestamp() AND (valid_until IS NULL OR valid_until > statement_timestamp()) "
        "ORDER BY memory_id", [identity.org_id, name], settings={"app.type_revision": name})
    values = []
    for memory_id, patient_id, purpose, fact, ciphertext, key_id in rows:
        if ciphertext is not None:
            fact = decrypt_fact(bytes(ciphertext), key_id=key_id, memory_id=memory_id, patient_id=patient_id)
        elif isinstance(fact, str):
            fact = json.loads(fact)
        values.append((memory_id, purpose, fact))
    return values


def revision_breakages(*, identity: Identity, spec: TypeSpec) -> tuple[int, list[dict]]:
    """What a revision would break: how many current memories, and each failing field path and rule with how many
    memories fail it. Never which memories: an administrator holds no grant to any patient's values, and trying
    revisions (an enum of one value, then another) against a list of memory ids read each memory's value one
    guess at a time; counts say what a revision would break without naming whose."""
    broken: set[uuid.UUID] = set()
    rules: dict[tuple[str, str], int] = {}
    for memory_id, purpose, fact in _current_values(identity, spec.name):
        failed = set()
        if purpose not in spec.purposes:  # kept for a purpose the revision no longer allows
            failed.add(("consent_purpose", f"kept for {purpose}, which the revision's purposes leave out"))
        try:
            fact_validate(spec, fact, readable=False)
        except FactInvalid as exc:
            failed.update(_paths(exc.detail))
        if failed:
            broken.add(memory_id)
        for rule in failed:
            rules[rule] = rules.get(rule, 0) + 1
    return len(broken), [{"field": path, "message": message, "code": "breaks_memory", "memories": count}
                         for (path, message), count in sorted(rules.items())]


def _closedness(spec: TypeSpec) -> dict[str, set[bool]]:
    """Each field the supersession attribute is made of, and whether its shapes give it a closed vocabulary."""
    fields: dict[str, set[bool]] = {}
    for branch in spec.branches():
        for entry in spec.supersession:
            name = supersession_field(branch, entry)
            if name:
                fields.setdefault(name, set()).add(closed_vocabulary(branch["properties"][name]))
    return fields


def _attribute_changes(previous: TypeSpec, spec: TypeSpec) -> list[dict]:
    """The attribute keeps closed values as they are and free text as a keyed hash: a field of it that a revision
    turns from one into the other would give the same place, substance or day another attribute, so a new value
    would no longer supersede the current one (two current values) and the current one could not be corrected."""
    before, after = _closedness(previous), _closedness(spec)
    return [{"field": "supersession", "code": "invalid",
             "message": f"{name}: a revision keeps a field of the supersession attribute a closed vocabulary "
                        f"(enum or const) or free text, as it was"}
            for name in sorted(before.keys() & after.keys()) if before[name] != after[name]]


def memory_type_revise(*, identity: Identity, name: str, definition: dict,
                       based_on_version: int | None = None) -> tuple[TypeSpec, bool]:
    """Add the next version of an organisation type. It keeps the class and the supersession attribute (so a
    new value still replaces an old one), and every current memory of the type must satisfy it.

    ``based_on_version``: the version the revision was made from; another revision having come first is a
    ``version_conflict`` (it would be undone unseen). The latest definition again adds nothing: that version is
    returned with created=False (a double submit makes one version, not two)."""
    require_person_deciding_access(identity)
    if not NAME.fullmatch(name):  # NUL or other characters no type name has: never reach the database
        raise NotFound()
    if name in builtin_catalogue():
        raise BuiltinType()
    # Rows never change (no UPDATE, so no row locks): revisions of one type queue on an advisory lock instead, and
    # the unique (organisation, name, version) catches anything that slips past it.
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_advisory_xact_lock(hashtextextended(%s, 0))",
                       [revision_lock_key(identity.org_id, name)])
    latest = MemoryType.objects.filter(organization_id=identity.org_id, name=name).order_by("-version").first()
    if latest is None:
        raise NotFound()
    definition = {"name": name, **definition} if isinstance(definition, dict) else definition
    spec = _checked(identity, definition, latest.version + 1)
    if spec.definition == latest.definition:  # sent again (a double submit, a retry): that version, whatever its base
        return dataclasses.replace(spec, version=latest.version), False
    if latest.version >= MAX_TYPE_VERSIONS:
        raise TooManyTypes(f"{name} has {latest.version} versions, the most a type may have")
    if based_on_version is not None and based_on_version != latest.version:
        raise VersionConflict(f"version {latest.version} is the latest; revise it instead of {based_on_version}")
    errors = []
    if spec.name != name:
        errors.append({"field": "name", "message": "a revision keeps the name", "code": "invalid"})
    if spec.memory_class != latest.memory_class:
        errors.append({"field": "memory_class", "message": "a revision keeps the class", "code": "invalid"})
    if list(spec.supersession) != list(latest.definition.get("supersession", [])):
        errors.append({"field": "supersession", "message": "a revision keeps the supersession attribute",
                       "code": "invalid"})
    previous = type_get(name, latest.version, org_id=identity.org_id)
    if previous is not None:
        errors += _attribute_changes(previous, spec)
    if errors:
        raise ValidationFailed(errors=errors)
    broken, breaks = revision_breakages(identity=identity, spec=spec)
    if broken:
        raise RevisionBreaksMemories(f"{broken} current memor{'y' if broken == 1 else 'ies'} would not satisfy "
                                     f"version {spec.version}", errors=breaks)
    row = _insert(identity, spec)
    audit.record(action="memory_type.revise", resource_type="memory_type", resource_id=row.type_id)
    return spec, True


def memory_type_serves_set(*, identity: Identity, name: str,
                           serves: list[str] | None) -> tuple[TypeSpec, tuple[str, ...] | None]:
    """Reword what type ``name`` answers, for the caller's organisation only: ``serves`` replaces the type's own
    phrases (the same rule as a definition's, at least one); ``None``, or the type's own phrases again, goes back
    to them. Any type the organisation may use, built-in included; a type it cannot see is NotFound, as on every
    other type route. The row is replaced in place (no new version: memories and their facts are untouched).

    Returns the type's latest version and the organisation's phrases now in force for it (None: the type's own)."""
    require_person_deciding_access(identity)
    spec = type_get(name, org_id=identity.org_id) if isinstance(name, str) and NAME.fullmatch(name) else None
    if spec is None:
        raise NotFound()
    phrases = None
    if serves is not None:
        errors = serves_problems(serves, required=True)
        if errors:
            raise ValidationFailed(errors=errors)
        phrases = serves_clean(serves)
    if phrases == spec.serves:  # the type's own words are no override: a revision's new ones then show through
        phrases = None
    organization_ensure(identity=identity)
    # One statement (INSERT ... ON CONFLICT DO UPDATE): two administrators saving at once both succeed, the last
    # one's phrases stand, and no read-then-write can interleave.
    MemoryTypeServes.objects.bulk_create(
        [MemoryTypeServes(organization_id=identity.org_id, name=name, phrases=list(phrases) if phrases else None,
                          updated_by=identity.actor_sub, updated_at=timezone.now())],
        update_conflicts=True, unique_fields=["organization", "name"],
        update_fields=["phrases", "updated_by", "updated_at"])
    audit.record(action="memory_type.serves_set", resource_type="memory_type", resource_id=name)
    return spec, phrases
