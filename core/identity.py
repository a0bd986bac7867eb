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
from typing import Protocol

import psycopg
from django.db import DEFAULT_DB_ALIAS, DatabaseError, connections, transaction

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
    # The purposes of use the token names (its ``purpose_of_use`` claim, known codes only): when it names exactly
    # one, a read that names none is for that one (``consent.purpose.read_purpose``).
    token_purposes: frozenset[str] = field(default_factory=frozenset)

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


class Gate(Protocol):
    """Work folded into the statement that sets the identity, so a request pays no extra round trip for it
    (admission of the token's organisation, rate limits: see :mod:`core.gate`). It refuses in SQL, by raising in
    that statement, which aborts the transaction before anything pipelined after it runs; ``refusal`` turns the
    error's SQLSTATE into the answer (None for an error that is not the gate's)."""

    def sql(self) -> tuple[str, list, str, list, str, list]:
        """(``WITH`` prefix, its params, extra select columns, their params, ``FROM`` clause, its params)."""

    def refusal(self, sqlstate: str | None) -> Exception | None: ...


_SET_COLUMNS = (
    "set_config('app.org_id', %s, true), set_config('app.actor_sub', %s, true), "
    "set_config('app.patient_self_id', %s, true), set_config('app.scopes', %s, true), "
    "set_config('app.service_patient_id', %s, true), set_config('app.service_purpose', %s, true)"
)
_SET_SQL = "SELECT " + _SET_COLUMNS
_ATTR = "_anamnesis_identity"
_DEFERRED_ATTR = "_anamnesis_deferred_identity"
_CLEARED = ["", "", "", "", "", ""]


def _params(identity: Identity) -> list[str]:
    return [
        str(identity.org_id),
        identity.actor_sub,
        str(identity.patient_self_id) if identity.patient_self_id else "",
        " ".join(sorted(identity.scopes)),
        str(identity.service_patient_id) if identity.service_patient_id else "",
        identity.service_purpose or "",
    ]


def _statement(identity: Identity | None, gate: Gate | None) -> tuple[str, list]:
    params = _CLEARED if identity is None else _params(identity)
    if gate is None:
        return _SET_SQL, params
    prefix, prefix_params, columns, column_params, from_sql, from_params = gate.sql()
    return (f"{prefix} SELECT {_SET_COLUMNS}{columns} {from_sql}",
            [*prefix_params, *params, *column_params, *from_params])


@contextmanager
def _refusals(gate: Gate | None) -> Iterator[None]:
    """The gate's refusal raised by PostgreSQL, as the gate's answer (any other error passes through)."""
    try:
        yield
    except (psycopg.Error, DatabaseError) as exc:
        cause = exc if isinstance(exc, psycopg.Error) else exc.__cause__
        refused = gate.refusal(getattr(cause, "sqlstate", None)) if gate is not None else None
        if refused is None:
            raise
        raise refused from None


def _apply(connection, identity: Identity | None, gate: Gate | None = None) -> None:
    sql, params = _statement(identity, gate)
    with _refusals(gate), connection.cursor() as cursor:
        cursor.execute(sql, params)


class _DeferredIdentity:
    """A Django execute wrapper that sends the identity statement together with the block's first statement.

    Both go to the server in one pipeline (psycopg's pipeline mode: one network round trip for ``BEGIN``, the
    identity and the first query). The gate refuses in the identity statement, which aborts the transaction
    before the first query runs. Batches (``executemany``) and server-side cursors get the identity statement
    on its own, just before them.

    A block opened with ``commit_early=True`` that is the outermost transaction may have its last statement carry
    the ``COMMIT`` (:func:`commit_with_next_statement`): the statement and the commit travel in one pipeline, so a
    read with its audit row, or a checkpoint, is one round trip less. A statement after that would run outside
    the block's transaction and identity, so it is refused as the programming error it is.
    """

    def __init__(self, identity: Identity, gate: Gate | None, *, commit_early: bool) -> None:
        self.identity = identity
        self.gate = gate
        self.commit_early = commit_early
        self.pending = True
        self.commit_next = False
        self.committed = False

    def __call__(self, execute, sql, params, many, context):
        if self.committed:
            raise RuntimeError("this block's transaction was committed with its last statement; "
                               "no statement may follow it")
        commit, self.commit_next = self.commit_next, False  # the hint is for exactly this statement
        connection = context["connection"]
        raw_cursor = getattr(context["cursor"], "cursor", None)
        if many or raw_cursor is None or isinstance(raw_cursor, psycopg.ServerCursor):
            self.flush(connection)
            return execute(sql, params, many, context)
        if not (self.pending or commit):
            return execute(sql, params, many, context)
        raw = connection.connection
        with connection.wrap_database_errors, _refusals(self.gate), raw.cursor() as side_cursor:
            with raw.pipeline():
                if self.pending:
                    self.pending = False
                    side_cursor.execute(*_statement(self.identity, self.gate))
                result = execute(sql, params, many, context)
                if commit:
                    side_cursor.execute("COMMIT", prepare=False)
        self.committed = commit
        return result

    def flush(self, connection) -> None:
        """Send the identity statement now if no statement has carried it yet (the gate must always run)."""
        if self.pending:
            self.pending = False
            _apply(connection, self.identity, self.gate)


def commit_with_next_statement(using: str = DEFAULT_DB_ALIAS) -> None:
    """Say that the open identity block's next statement is its last (a hot read that writes its audit row in the
    same statement; a checkpoint's version, history and audit row). If the block allows it (``commit_early``) and
    is the outermost transaction, ``COMMIT`` goes to the server in the same pipeline as that statement: what it
    wrote is durable before its result is read. Otherwise nothing changes (the block commits when it ends)."""
    connection = connections[using]
    deferred = getattr(connection, _DEFERRED_ATTR, None)
    if deferred is not None and deferred.commit_early and not connection.savepoint_ids:
        deferred.commit_next = True


@contextmanager
def commit_held(using: str = DEFAULT_DB_ALIAS) -> Iterator[None]:
    """No statement of the block carries the ``COMMIT`` (:func:`commit_with_next_statement` is ignored in it): the
    code that runs after it still has statements to send (an idempotent create stores its answer after the
    handler, and that statement is the one that may carry it)."""
    deferred = getattr(connections[using], _DEFERRED_ATTR, None)
    if deferred is None:
        yield
        return
    allowed, deferred.commit_early = deferred.commit_early, False
    try:
        yield
    finally:
        deferred.commit_early = allowed


def current_identity(using: str = DEFAULT_DB_ALIAS) -> Identity | None:
    """The identity whose context is open on this connection, if any."""
    return getattr(connections[using], _ATTR, None)


@contextmanager
def identity_context(identity: Identity, *, using: str = DEFAULT_DB_ALIAS, gate: Gate | None = None,
                     commit_early: bool = False) -> Iterator[Identity]:
    """Run the block in one transaction whose row-level-security identity is ``identity``.

    ``gate`` (API requests) adds admission and rate-limit checks to the same statement; it may refuse.
    ``commit_early``: the block's code may let its last statement carry the COMMIT (:func:`commit_with_next_statement`);
    only for a block after which nothing runs in it (an API handler without a stored idempotent response).

    Re-entering with the same identity just nests (a savepoint); entering with a different identity while one
    is open is a programming error and raises, so one request can never act as two people.

    The settings are cleared at the end only when an enclosing transaction goes on: when this block is the
    outermost transaction, its COMMIT or ROLLBACK ends the transaction-local settings anyway (one round trip less).
    """
    connection = connections[using]
    previous = getattr(connection, _ATTR, None)
    if previous is not None:
        if previous != identity:
            raise RuntimeError("an identity context is already open on this connection for someone else")
        with transaction.atomic(using=using):
            yield identity
        return
    outermost = not connection.in_atomic_block
    deferred = _DeferredIdentity(identity, gate, commit_early=commit_early and outermost)
    with transaction.atomic(using=using), connection.execute_wrapper(deferred):
        setattr(connection, _ATTR, identity)
        setattr(connection, _DEFERRED_ATTR, deferred)
        try:
            yield identity
            deferred.flush(connection)
        except BaseException:
            raise  # the rollback undoes the transaction-local settings
        else:
            if not outermost:
                _apply(connection, None)
        finally:
            setattr(connection, _ATTR, None)
            setattr(connection, _DEFERRED_ATTR, None)
