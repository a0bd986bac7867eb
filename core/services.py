from __future__ import annotations

import uuid

from django.db import IntegrityError, connection, connections, transaction

from core.errors import Conflict, Forbidden, ValidationFailed
from core.identity import Identity
from core.models import Organization

MAX_TRUSTED_ISSUERS = 20


def organization_ensure(*, identity: Identity) -> None:
    """Make sure the caller's organisation row exists (RLS lets a caller insert only their own).

    Creating the row admits nobody: the API admits a token only when its organisation is *registered* with the
    token's issuer (``core.gate``), which this never does. It remains for internal identities (management
    commands, workers, tests) that act for an organisation without a token."""
    with connection.cursor() as cursor:
        cursor.execute("INSERT INTO organization (id, name, created_at) VALUES (%s, '', now()) "
                       "ON CONFLICT (id) DO NOTHING", [identity.org_id])


def _clean_issuers(issuers: list[str]) -> list[str]:
    problems = []
    if not issuers or len(issuers) > MAX_TRUSTED_ISSUERS:
        problems.append(f"1 to {MAX_TRUSTED_ISSUERS} issuers")
    for issuer in issuers:
        if (not isinstance(issuer, str) or not issuer.startswith(("https://", "http://")) or len(issuer) > 255
                or any(ch.isspace() or ord(ch) < 32 for ch in issuer)):
            problems.append("each issuer is an http(s) URL of at most 255 characters")
            break
    if problems:
        raise ValidationFailed(errors=[{"field": "trusted_issuers", "message": p, "code": "invalid"}
                                       for p in problems])
    return list(dict.fromkeys(issuers))


def _refuse_reserved(organization_id: uuid.UUID) -> None:
    """The nil and max UUIDs are placeholders, never an organisation's id: the API refuses them
    (core.serializers.RealUUIDIn) and so does the operator's command, which registered the nil UUID."""
    if uuid.UUID(str(organization_id)).int in (0, 2**128 - 1):  # callers pass a UUID, or its text
        raise ValidationFailed.of("organization_id", "the nil and max UUIDs are no one's id: send a real one",
                                  "reserved")


def organization_register(*, organization_id: uuid.UUID, name: str, trusted_issuers: list[str],
                          using: str = "default") -> Organization:
    """Register a new organisation trusting ``trusted_issuers``. Through the API (runtime role) only a registry
    administrator's RLS policy lets the row in; an existing id is a conflict (never changed by the API)."""
    _refuse_reserved(organization_id)
    issuers = _clean_issuers(trusted_issuers)
    if using == "default":
        with connection.cursor() as cursor:
            cursor.execute("SELECT app_is_organization_admin()")
            if not cursor.fetchone()[0]:
                raise Forbidden("only a registry administrator's organisation may register organisations")
    try:
        with transaction.atomic(using=using), connections[using].cursor() as cursor:
            # Only these columns: the runtime role may not set ``administrator`` (column privileges).
            cursor.execute("INSERT INTO organization (id, name, created_at, trusted_issuers) "
                           "VALUES (%s, %s, now(), %s)", [organization_id, name, issuers])
    except IntegrityError:
        raise Conflict("an organisation with this id is already registered", code="organization_exists") from None
    return Organization.objects.using(using).get(id=organization_id)


def organization_register_or_update(*, organization_id: uuid.UUID, name: str | None, trusted_issuers: list[str],
                                    administrator: bool) -> tuple[Organization, bool]:
    """The operator's registration (``manage.py register_organization``, owner connection): creates, or adds
    issuers to, an organisation and sets whether it administers the registry. Also adopts a row that older
    versions created implicitly."""
    _refuse_reserved(organization_id)
    issuers = _clean_issuers(trusted_issuers)
    with transaction.atomic(using="owner"):
        org = Organization.objects.using("owner").select_for_update().filter(id=organization_id).first()
        if org is None:
            org = Organization.objects.using("owner").create(id=organization_id, name=name or "",
                                                             trusted_issuers=issuers, administrator=administrator)
            return org, True
        org.trusted_issuers = list(dict.fromkeys([*org.trusted_issuers, *issuers]))
        org.administrator = administrator
        if name is not None:
            org.name = name
        org.save(using="owner", update_fields=["trusted_issuers", "administrator", "name"])
        return org, False
