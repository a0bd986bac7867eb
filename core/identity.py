"""The request identity, and the one piece of code that hands it to PostgreSQL row-level security.

Every query that touches patient data runs inside :func:`identity_context`: one transaction whose first
statement sets ``app.org_id``, ``app.actor_sub``, ``app.patient_self_id`` and ``app.scopes`` with
``set_config(..., true)`` (transaction-local). Outside such a block those settings read back as ``''``, which
the policies treat as "nobody", so a forgotten context returns zero rows instead of someone else's.
The settings are also cleared before the block ends, so an enclosing transaction (a test, a management command
that wraps several blocks) never keeps an identity beyond its block.
"""

from __future__ import annotations

import logging
import sys
import uuid
from collections.abc import Callable, Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass, field
from typing import Protocol

import psycopg
from django.db import DEFAULT_DB_ALIAS, DatabaseError, OperationalError, connections, transaction

log = logging.getLogger("anamnesis.identity")

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
    connection.ensure_connection()
    raw = connection.connection
    with connection.wrap_database_errors, _refusals(gate), _pipeline(raw):
        raw.execute(sql, params)


@contextmanager
def _pipeline(raw: psycopg.Connection, *, whole: bool = False) -> Iterator[bool]:
    """A pipeline (psycopg's pipeline mode) that opens the transaction itself when it is the transaction's first.

    psycopg starts a transaction with ``BEGIN`` and, in pipeline mode, a sync of its own (a round trip just for the
    ``BEGIN``, before anything else of the pipeline is sent). Here ``BEGIN`` is the pipeline's first statement and
    travels with the rest: psycopg is told not to begin (its ``_autocommit``) until the pipeline has been synced,
    after which the server's transaction status (in transaction, or idle if the pipeline committed) is what
    psycopg reads, and commit and rollback work from it as usual. Only when the transaction is a plain one (no
    isolation level, read-only or deferrable setting: those are psycopg's to spell).

    ``whole``: every statement of the transaction is in this pipeline (a read with its audit row, the identity
    before it, the COMMIT after it). Then neither ``BEGIN`` nor ``COMMIT`` is sent: statements of a pipeline outside
    a transaction block run as one implicit transaction (PostgreSQL's extended protocol), which the pipeline's sync
    commits when every one succeeded and rolls back otherwise, so the transaction-local identity lasts exactly as
    long. Two statements less for the server to parse and run, and for psycopg to send (about 80 us of the web
    worker's CPU and 25 us of the database's per request). Yields whether it is so (a plain transaction only)."""
    begin = (raw.pgconn.transaction_status == psycopg.pq.TransactionStatus.IDLE and not raw.autocommit
             and raw.isolation_level is None and raw.read_only is None and raw.deferrable is None)
    try:
        with raw.pipeline() as pipeline:
            if begin:
                raw._autocommit = True  # psycopg's own flag: no BEGIN and sync of its own in this pipeline
                if not whole:
                    raw.execute("BEGIN", prepare=False)
            try:
                yield begin and whole
            except BaseException:
                _skip_aborted(pipeline)
                raise
    finally:
        if begin:
            raw._autocommit = False


def _skip_aborted(pipeline: psycopg.Pipeline) -> None:
    """After a statement of the pipeline failed (the error is being raised): collect what was queued behind it.

    The server skips every statement after a failed one up to the pipeline's sync; psycopg reports each of them
    as ``PipelineAborted`` when the pipeline is left, and, since an error is already on its way out, logs that as
    a warning ("error ignored terminating ... pipeline aborted"). For the gate's refusals (403
    unknown_organization, 429) that was a warning per refused request. Syncing here collects those skipped
    results first: ``PipelineAborted`` says nothing the raised error does not, so it is dropped. Any other error
    met on the way (a queued statement that fails, when the block failed for another reason; the connection lost)
    is a real one: logged, by its class and SQLSTATE only (its message may quote a row), and the raised error
    stands."""
    try:
        pipeline.sync()
    except psycopg.errors.PipelineAborted:
        pass
    except psycopg.Error as exc:
        log.warning("another error while leaving a failed pipeline: %s (%s)", type(exc).__name__,
                    getattr(exc, "sqlstate", None))


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
        # Writes are held past their block (sent_with_next) only in a block that ends the transaction itself (an API
        # request's): elsewhere code after them could meet their errors.
        self.holds_writes = commit_early
        self.pending = True
        self.commit_next = False
        self.committed = False  # the COMMIT was sent (or the sync of an implicit transaction)
        self.rolled_back = False  # an implicit transaction's statement failed: its sync rolled it back
        # A pipeline left open by :func:`pipelined` or :func:`sent_with_next`: statements join it without waiting.
        self.open: ExitStack | None = None
        self.holding = 0  # open pipelined / sent_with_next blocks: while any is, a statement does not sync
        self.translators: list[Callable[[Exception], Exception | None]] = []

    def __call__(self, execute, sql, params, many, context):
        if self.committed:
            raise RuntimeError("this block's transaction was committed with its last statement; "
                               "no statement may follow it")
        commit, self.commit_next = self.commit_next, False  # the hint is for exactly this statement
        connection = context["connection"]
        raw_cursor = getattr(context["cursor"], "cursor", None)
        if many or raw_cursor is None or isinstance(raw_cursor, psycopg.ServerCursor):
            self.sync(connection)
            self.flush(connection)
            return execute(sql, params, many, context)
        raw = connection.connection
        if self.open is not None:
            with self.errors(connection):
                result = self.send(raw, execute, (sql, params, many, context), commit=commit)
            if commit or not self.holding:  # this statement's answer is awaited: everything queued goes with it
                self.sync(connection)
            return result
        # Every statement of the block goes in a pipeline, even alone: psycopg then prepares a statement it runs
        # often in the same round trip as its execution, not in one of its own. The block's first statement that is
        # also its last is the whole transaction: one implicit transaction (_pipeline's ``whole``).
        try:
            with connection.wrap_database_errors, _refusals(self.gate), _pipeline(
                    raw, whole=commit and self.pending) as implicit:
                return self.send(raw, execute, (sql, params, many, context), commit=commit, implicit=implicit)
        except BaseException:
            if self.committed:  # the pipeline failed: its COMMIT (or the implicit one at its sync) never took effect
                self.rolled_back = True
            raise

    def send(self, raw, execute, call: tuple, *, commit: bool, implicit: bool = False):
        """Queue one statement in the pipeline: the identity first if no statement has carried it, the ``COMMIT``
        after it when it is the block's last (``implicit``: the pipeline's sync commits it)."""
        if self.pending:
            self.pending = False
            raw.execute(*_statement(self.identity, self.gate))
        result = execute(*call)
        if commit:
            if not implicit:
                raw.execute("COMMIT", prepare=False)
            self.committed = True
        return result

    @contextmanager
    def errors(self, connection) -> Iterator[None]:
        """Errors of statements sent in an open pipeline (they may surface at any later statement of it, or at its
        sync): the gate's refusal, or what a :func:`sent_with_next` block made of it; the pipeline is then closed."""
        try:
            try:
                with connection.wrap_database_errors, _refusals(self.gate):
                    yield
            except DatabaseError as exc:  # Django's, as wrap_database_errors made it
                for translate in self.translators:
                    translated = translate(exc)
                    if translated is not None:
                        raise translated from None
                raise
        except BaseException:
            self.abandon()
            raise

    def hold(self, connection) -> None:
        if self.open is None:
            connection.ensure_connection()
            stack = ExitStack()
            stack.enter_context(_pipeline(connection.connection))
            self.open = stack
        self.holding += 1

    def release(self) -> None:
        self.holding -= 1

    def sync(self, connection) -> None:
        """Send what the open pipeline holds and wait for the answers (one round trip)."""
        if self.open is None:
            return
        stack, self.open = self.open, None
        try:
            with self.errors(connection):
                stack.close()
        finally:
            self.translators.clear()

    def abandon(self) -> None:
        """After an error: leave pipeline mode (psycopg syncs and discards what is left) without raising again."""
        stack, self.open = self.open, None
        self.translators.clear()
        if stack is not None:
            stack.__exit__(*sys.exc_info())

    def finish(self, connection) -> None:
        """The block's end: what is still queued goes now, with the ``COMMIT`` when the block may carry it."""
        if self.open is not None and self.commit_early and not connection.savepoint_ids and not self.committed:
            with self.errors(connection):
                self.send(connection.connection, lambda: None, (), commit=True)
        self.sync(connection)
        self.flush(connection)

    def flush(self, connection) -> None:
        """Send the identity statement now if no statement has carried it yet (the gate must always run)."""
        if self.pending:
            self.pending = False
            _apply(connection, self.identity, self.gate)


@contextmanager
def pipelined(using: str = DEFAULT_DB_ALIAS) -> Iterator[None]:
    """The block's statements go to the server together when it ends, in one round trip (with the identity and
    ``BEGIN`` when they are the block's first): for statements whose answers are read only after the block (a lock,
    then the read it guards). Each statement still runs after the one before it, with a snapshot of its own. An
    answer read inside the block costs a round trip of its own (psycopg waits for it), never a wrong result.
    Outside an identity block, statements simply run one by one."""
    connection = connections[using]
    deferred = getattr(connection, _DEFERRED_ATTR, None)
    if deferred is None or deferred.committed:
        yield
        return
    deferred.hold(connection)
    try:
        yield
    finally:
        deferred.release()
    if not deferred.holding:
        deferred.sync(connection)


@contextmanager
def sent_with_next(using: str = DEFAULT_DB_ALIAS, *,
                   translate: Callable[[Exception], Exception | None] | None = None) -> Iterator[None]:
    """The block's statements (writes whose answers nobody reads) are sent without waiting: they travel with the next
    statement that waits for its answer, or at the end of the identity block, with its ``COMMIT`` when the block
    may carry it (a create's rows and the response stored for its retries: one round trip). Their errors surface
    there; ``translate`` turns a database error into the answer the block's code would have given (None: leave
    it). Only in a block opened with ``commit_early`` (an API request's) and outside a savepoint; elsewhere the
    block's statements go together when it ends. Outside an identity block, statements simply run one by one
    (``translate`` applies)."""
    connection = connections[using]
    deferred = getattr(connection, _DEFERRED_ATTR, None)
    if deferred is None or deferred.committed:
        try:
            yield
        except DatabaseError as exc:
            translated = translate(exc) if translate is not None else None
            if translated is None:
                raise
            raise translated from None
        return
    deferred.hold(connection)
    if translate is not None:
        deferred.translators.append(translate)
    try:
        yield
    finally:
        deferred.release()
    if (not deferred.holds_writes or connection.savepoint_ids) and not deferred.holding:
        deferred.sync(connection)  # errors meet the block's own code (or its savepoint), not code after it


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


def block_committed(using: str = DEFAULT_DB_ALIAS) -> bool:
    """Whether the open identity block's transaction has been committed by a statement that carried the COMMIT
    (:func:`commit_with_next_statement`): what the block wrote stays, whatever it raises next. A COMMIT that was
    sent behind a statement that failed never ran (the server skips the rest of a failed pipeline)."""
    connection = connections[using]
    deferred = getattr(connection, _DEFERRED_ATTR, None)
    if deferred is None or not deferred.committed or deferred.rolled_back or connection.connection is None:
        return False
    return connection.connection.pgconn.transaction_status == psycopg.pq.TransactionStatus.IDLE


class CommitInterrupted(OperationalError):
    """The connection was lost after the block's ``COMMIT`` was sent and before its answer came: the transaction
    may have committed (PostgreSQL commits before it answers; a server ending the connection while it waits for a
    synchronous standby has committed locally) or not. Nobody here can tell which."""


def _connection_lost(connection, exc: BaseException) -> bool:
    """Whether ``exc`` is the connection's end rather than the server's answer to a statement: the connection is
    closed, or the error carries no SQLSTATE (libpq's own: "server closed the connection unexpectedly", which
    leaves the connection's status OK) or a connection-failure or operator-intervention one (08, 57P)."""
    raw = connection.connection
    if raw is None or raw.closed or raw.pgconn.status != psycopg.pq.ConnStatus.OK:
        return True
    cause = exc if isinstance(exc, psycopg.Error) else exc.__cause__
    if not isinstance(cause, psycopg.OperationalError | psycopg.InterfaceError):
        return False
    sqlstate = getattr(cause, "sqlstate", None)
    return sqlstate is None or sqlstate.startswith(("08", "57P"))


def takes_no_writes(exc: BaseException) -> bool:
    """Whether ``exc`` is read_only_sql_transaction (25006): the server is a standby, or an operator made every
    transaction read-only (default_transaction_read_only during an incident). The transaction did nothing; the
    service is unavailable for writes, and for reads that write their audit rows, until it takes writes again."""
    error = exc if isinstance(exc, psycopg.Error) else exc.__cause__
    return getattr(error, "sqlstate", None) == "25006"


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
    commit_sent = False  # leaving the atomic block sends the COMMIT (when no statement carried it)
    try:
        with transaction.atomic(using=using), connection.execute_wrapper(deferred):
            setattr(connection, _ATTR, identity)
            setattr(connection, _DEFERRED_ATTR, deferred)
            try:
                yield identity
                deferred.finish(connection)
            except BaseException:
                deferred.abandon()
                raise  # the rollback undoes the transaction-local settings
            else:
                if not outermost:
                    _apply(connection, None)
                commit_sent = outermost
            finally:
                setattr(connection, _ATTR, None)
                setattr(connection, _DEFERRED_ATTR, None)
    except (DatabaseError, psycopg.Error) as exc:
        # A COMMIT that the server answered with an error (a deferred constraint, a serialization failure) rolled
        # back, the connection still up; a lost connection leaves it unknown, not undone.
        if (commit_sent or deferred.committed) and not isinstance(exc, CommitInterrupted) and (
                _connection_lost(connection, exc)):
            raise CommitInterrupted("the connection was lost while the transaction was committing") from exc
        raise


class LoneStatement:
    """What :func:`lone_statement` yields: the block's one statement, run by :meth:`rows`, and whether it committed."""

    def __init__(self, identity: Identity, gate: Gate | None, connection) -> None:
        self.identity = identity
        self.gate = gate
        self.connection = connection
        self.sent = False
        self._committed = False

    @property
    def committed(self) -> bool:
        """Whether the statement committed (what it wrote stays, whatever the caller raises next)."""
        return self._committed

    def _one(self) -> None:
        if self.sent:
            raise RuntimeError("a lone statement's block runs one statement")
        self.sent = True

    def rows(self, statement: tuple[str, list], *, setup: Callable[[psycopg.Cursor], None] | None = None) -> list:
        """Run the block's statement and return its rows, committed. ``setup`` configures the psycopg cursor (its
        loaders) before it runs. Raises with nothing committed (the gate's refusal as the gate's answer)."""
        self._one()
        connection = self.connection
        cursor = connection.connection.cursor()
        if setup is not None:
            setup(cursor)
        # Outside a transaction block, the statements of one pipeline are one implicit transaction, which its sync
        # commits when both succeeded and rolls back otherwise: the identity lasts exactly as long.
        with connection.wrap_database_errors, _refusals(self.gate):
            with _pipeline(connection.connection):
                connection.connection.execute(*_statement(self.identity, self.gate))
                cursor.execute(*statement)
            self._committed = True
            return cursor.fetchall()


class _LoneStatementInBlock(LoneStatement):
    """The same inside :func:`identity_context`: within a transaction already open (a test's, a command's), or on a
    connection whose statements are watched (``execute_wrappers``: tracing's spans)."""

    @property
    def committed(self) -> bool:
        return block_committed(self.connection.alias)

    def rows(self, statement: tuple[str, list], *, setup: Callable[[psycopg.Cursor], None] | None = None) -> list:
        self._one()
        with self.connection.cursor() as cursor:
            if setup is not None:
                setup(cursor.cursor)
            commit_with_next_statement(self.connection.alias)
            cursor.execute(*statement)
            return cursor.fetchall()


@contextmanager
def lone_statement(identity: Identity, *, gate: Gate | None = None,
                   using: str = DEFAULT_DB_ALIAS) -> Iterator[LoneStatement]:
    """A transaction that is one statement (a hot read that writes its audit row in the same statement), run as
    :func:`identity_context` would run it with ``commit_early``, for less: the identity (with ``gate``) and the
    statement are sent in one pipeline outside any transaction block, without Django's atomic block, its execute
    wrappers or a ``BEGIN`` and ``COMMIT``; PostgreSQL runs them as one implicit transaction, committed at the
    pipeline's sync when both succeed and rolled back otherwise, so the identity lasts exactly as long. The block
    builds its statement (the identity is current in it: an audit row names it) and runs it with
    :meth:`LoneStatement.rows`. Inside a transaction, or with execute wrappers on the connection, it is
    :func:`identity_context`'s block after all (:class:`_LoneStatementInBlock`)."""
    connection = connections[using]
    previous = getattr(connection, _ATTR, None)
    if previous is not None and previous != identity:
        raise RuntimeError("an identity context is already open on this connection for someone else")
    if not connection.in_atomic_block:
        connection.ensure_connection()
    raw = connection.connection
    if (connection.in_atomic_block or connection.execute_wrappers or previous is not None or not raw.autocommit
            or raw.pgconn.transaction_status != psycopg.pq.TransactionStatus.IDLE):
        with identity_context(identity, using=using, gate=gate, commit_early=True):
            yield _LoneStatementInBlock(identity, gate, connection)
        return
    block = LoneStatement(identity, gate, connection)
    setattr(connection, _ATTR, identity)
    try:
        yield block
        if not block.sent:  # the gate decides even when the block runs no statement
            _apply(connection, identity, gate)
    finally:
        setattr(connection, _ATTR, None)
