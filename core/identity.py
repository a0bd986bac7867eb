"""The request identity, and the one piece of code that hands it to PostgreSQL row-level security.

Every query that touches patient data runs inside :func:`identity_context`: one transaction whose first
statement sets ``app.org_id``, ``app.actor_sub``, ``app.patient_self_id`` and ``app.scopes`` with
``set_config(..., true)`` (transaction-local). Outside such a block those settings read back as ``''``, which
the policies treat as "nobody", so a forgotten context returns zero rows instead of someone else's.
The settings are also cleared before the block ends, so an enclosing transaction (a test, a management command
that wraps several blocks) never keeps an identity beyond its block.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field

from django.db import DEFAULT_DB_ALIAS, connections, transaction

ACTOR_PATIENT = "patient"
ACTOR_STAFF = "staff"
ACTOR_SERVICE = "service"
ACTOR_AGENT = "agent"


@dataclass(frozen=True)
class Identity:
    """A verified caller: from an access token, a portal login, or a service acting for one organisation."""

    org_id: uuid.UUID
    actor_sub: str
    patient_self_id: uuid.UUID | None = None
    scopes: frozenset[str] = field(default_factory=frozenset)
    actor_kind: str = ACTOR_STAFF
    issuer: str = ""
    # A service (worker) acting for one workflow sees exactly that patient and purpose.
    service_patient_id: uuid.UUID | None = None
    service_purpose: str | None = None
    # An AI agent's client id when the token is an agent's (an RFC 8693 ``act`` claim, or a client listed in
    # ``OIDC_AGENT_CLIENT_IDS``). An agent launched in a patient's context reaches that patient's data like the
    # patient, but never speaks as them: what it writes is a proposal.
    agent_client_id: str | None = None

    def __post_init__(self) -> None:
        if not isinstance(self.org_id, uuid.UUID):
            raise TypeError("org_id must be a UUID")
        if self.patient_self_id is not None and not isinstance(self.patient_self_id, uuid.UUID):
            raise TypeError("patient_self_id must be a UUID or None")
        if not self.actor_sub:
            raise ValueError("actor_sub must not be empty")

    @classmethod
    def service(cls, *, org_id: uuid.UUID, name: str, patient_id: uuid.UUID, purpose: str) -> Identity:
        """A service identity scoped to one organisation, one patient and one purpose (audited as itself)."""
        return cls(org_id=org_id, actor_sub=f"service:{name}", actor_kind=ACTOR_SERVICE,
                   service_patient_id=patient_id, service_purpose=purpose)

    def has_scope(self, scope: str) -> bool:
        return scope in self.scopes

    def is_patient(self, patient_id: uuid.UUID) -> bool:
        """The caller acts in this patient's own context: the patient, or an agent acting for them."""
        return self.patient_self_id is not None and self.patient_self_id == patient_id

    @property
    def is_agent(self) -> bool:
        return self.agent_client_id is not None

    def is_patient_themself(self, patient_id: uuid.UUID) -> bool:
        """The patient in person (their own token or portal login), not an agent acting for them."""
        return self.is_patient(patient_id) and not self.is_agent


_SET_SQL = (
    "SELECT set_config('app.org_id', %s, true), set_config('app.actor_sub', %s, true), "
    "set_config('app.patient_self_id', %s, true), set_config('app.scopes', %s, true), "
    "set_config('app.service_patient_id', %s, true), set_config('app.service_purpose', %s, true)"
)
_ATTR = "_anamnesis_identity"


def _apply(connection, identity: Identity | None) -> None:
    if identity is None:
        params = ["", "", "", "", "", ""]
    else:
        params = [
            str(identity.org_id),
            identity.actor_sub,
            str(identity.patient_self_id) if identity.patient_self_id else "",
            " ".join(sorted(identity.scopes)),
            str(identity.service_patient_id) if identity.service_patient_id else "",
            identity.service_purpose or "",
        ]
    with connection.cursor() as cursor:
        cursor.execute(_SET_SQL, params)


def current_identity(using: str = DEFAULT_DB_ALIAS) -> Identity | None:
    """The identity whose context is open on this connection, if any."""
    return getattr(connections[using], _ATTR, None)


@contextmanager
def identity_context(identity: Identity, *, using: str = DEFAULT_DB_ALIAS) -> Iterator[Identity]:
    """Run the block in one transaction whose row-level-security identity is ``identity``.

    Re-entering with the same identity just nests (a savepoint); entering with a different identity while one
    is open is a programming error and raises, so one request can never act as two people.
    """
    connection = connections[using]
    previous = getattr(connection, _ATTR, None)
    if previous is not None:
        if previous != identity:
            raise RuntimeError("an identity context is already open on this connection for someone else")
        with transaction.atomic(using=using):
            yield identity
        return
    with transaction.atomic(using=using):
        _apply(connection, identity)
        setattr(connection, _ATTR, identity)
        try:
            yield identity
        except BaseException:
            raise  # the rollback undoes the transaction-local settings
        else:
            _apply(connection, None)
        finally:
            setattr(connection, _ATTR, None)
