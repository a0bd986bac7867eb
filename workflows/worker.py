"""The outbox worker: claim due operations, call the outside system, record what the call proved.

One operation, one attempt::

    claim (commit) -> start attempt (commit) -> [lookup by key if the outcome may exist] -> submit -> record (commit)

No transaction is open during an HTTP call. A worker killed anywhere in between loses nothing: the claim's lease
ends, another worker (or this one, restarted) claims the operation again, marks its outcome uncertain and asks the
outside system whether the key is known before it would ever submit again. Several workers may run at once.

Logs name operations by id, kind, system and error code only: never payload values, results or tokens.
"""

from __future__ import annotations

import logging
import os
import signal
import socket
import sys
import threading
import time
from dataclasses import dataclass, field
from datetime import datetime

from django.conf import settings
from django.db import DatabaseError, InterfaceError, OperationalError, close_old_connections, connections
from django.utils import timezone
from opentelemetry.trace import SpanKind

from core import tracing
from core.identity import identity_context
from core.logging import request_id_var
from workflows import services, withdrawal
from workflows.adapters import CONFIRMED, NOT_FOUND, NOT_SENT, UNKNOWN, Outcome, OutsideSystem, adapters_from_settings
from workflows.dispatch import CircuitSnapshot, Claim, circuit_record, operations_claim

log = logging.getLogger("anamnesis.worker")

# Test-only: pause at a named point so a test can SIGKILL the process exactly there. Ignored in production.
PAUSE_ENV = "WORKFLOW_WORKER_PAUSE_AT"
PAUSE_POINTS = ("claim_uncommitted", "claimed", "sent", "recorded")
RECORD_RETRIES = 3


def min_lease_seconds() -> float:
    """A live worker must not lose its claim mid-call: one attempt is at most a lookup and a submission, each
    bounded by the connect, write and read timeouts (httpx applies them per phase); the lease covers that with a
    margin for the two short database transactions around it."""
    return 1.25 * 2 * (settings.WORKFLOW_HTTP_CONNECT_TIMEOUT_SECONDS + 2 * settings.WORKFLOW_HTTP_READ_TIMEOUT_SECONDS)


@dataclass
class Stats:
    claimed: int = 0
    attempted: int = 0
    succeeded: int = 0
    failed: int = 0
    unknown: int = 0
    retry_later: int = 0
    lost_claims: int = 0
    released: int = 0
    withdrawn: int = 0  # not sent: the consent it was asked under lapsed (see operation_withdraw_if_consent_lapsed)
    errors: int = 0
    first_claim_at: float | None = None  # time.monotonic()
    last_record_at: float | None = None
    first_claim_epoch: float | None = None  # time.time(), comparable between processes (benchmarks)
    last_record_epoch: float | None = None
    outcomes: dict[str, int] = field(default_factory=dict)

    def as_dict(self) -> dict:
        busy = (self.last_record_at - self.first_claim_at) if self.first_claim_at and self.last_record_at else 0.0
        return {"claimed": self.claimed, "attempted": self.attempted, "succeeded": self.succeeded,
                "failed": self.failed, "unknown": self.unknown, "retry_later": self.retry_later,
                "lost_claims": self.lost_claims, "released": self.released, "withdrawn": self.withdrawn,
                "errors": self.errors,
                "busy_seconds": round(busy, 3), "first_claim_epoch": self.first_claim_epoch,
                "last_record_epoch": self.last_record_epoch, "outcomes": dict(sorted(self.outcomes.items()))}


def default_worker_name() -> str:
    return f"{socket.gethostname()[:60]}:{os.getpid()}"


class Worker:
    def __init__(self, *, name: str | None = None, adapters: dict[str, OutsideSystem] | None = None,
                 batch_size: int | None = None, lease_seconds: float | None = None,
                 poll_seconds: float | None = None, stop: threading.Event | None = None) -> None:
        self.name = name or default_worker_name()
        self.adapters = adapters if adapters is not None else adapters_from_settings()
        self.batch_size = batch_size or settings.WORKFLOW_WORKER_BATCH_SIZE
        self.lease_seconds = lease_seconds or settings.WORKFLOW_OPERATION_LEASE_SECONDS
        self.poll_seconds = poll_seconds if poll_seconds is not None else settings.WORKFLOW_WORKER_POLL_SECONDS
        self.stop = stop or threading.Event()
        self.stats = Stats()
        self.circuits: dict[str, CircuitSnapshot] = {}  # as last seen by a claim or written by this worker
        self.pause_at = "" if getattr(settings, "PRODUCTION", False) else os.environ.get(PAUSE_ENV, "")
        if self.lease_seconds < min_lease_seconds():
            raise ValueError(f"the lease ({self.lease_seconds}s) must cover one attempt's timeouts "
                             f"(at least {min_lease_seconds():.1f}s)")

    # --- the loop --------------------------------------------------------------------------------------------
    def run(self, *, once: bool = False, until_idle: bool = False, max_seconds: float | None = None) -> Stats:
        """Claim and process batches until stopped: after one batch (``once``), when nothing is due
        (``until_idle``), after ``max_seconds``, or on ``stop``. Database outages are waited out, not fatal."""
        deadline = time.monotonic() + max_seconds if max_seconds else None
        idle_backoff = self.poll_seconds
        try:
            while not self.stop.is_set() and (deadline is None or time.monotonic() < deadline):
                close_old_connections()
                try:
                    claims = operations_claim(worker=self.name, limit=self.batch_size,
                                              lease_seconds=self.lease_seconds, systems=list(self.adapters),
                                              before_commit=lambda c: self._pause("claim_uncommitted", c),
                                              circuits_seen=self.circuits)
                except (OperationalError, InterfaceError) as exc:
                    self.stats.errors += 1
                    log.warning("database unavailable while claiming (%s); waiting", type(exc).__name__)
                    # a claim refused by a database that is down costs nothing, and one that waits for its
                    # connection is bounded by the connect timeout: the pause stops growing at a few seconds, so
                    # that due operations go out within them of the database's return
                    self._sleep(idle_backoff, deadline)
                    idle_backoff = min(idle_backoff * 2,
                                       max(self.poll_seconds, settings.WORKFLOW_WORKER_OUTAGE_RETRY_SECONDS))
                    continue
                idle_backoff = self.poll_seconds
                if claims:
                    self.stats.claimed += len(claims)
                    if self.stats.first_claim_at is None:
                        self.stats.first_claim_at, self.stats.first_claim_epoch = time.monotonic(), time.time()
                    self._pause("claimed", claims)
                    self.process_batch(claims)
                if once or (until_idle and not claims):
                    break
                if not claims:
                    self._sleep(self.poll_seconds, deadline)
        finally:
            for adapter in self.adapters.values():
                adapter.close()
        return self.stats

    def process_batch(self, claims: list[Claim]) -> None:
        """Each outside system's claims in order, each system's on a thread of its own: an insurer that accepts and
        never answers holds up its own submissions (until its circuit opens), never the bookings claimed with them,
        which waited for each of its timeouts."""
        by_system: dict[str, list[Claim]] = {}
        for claim in claims:
            by_system.setdefault(claim.system, []).append(claim)
        if len(by_system) == 1:
            self._process_system(claims)
            return
        threads = [threading.Thread(target=self._process_system_on_its_thread, args=(group,),
                                    name=f"outbox-{system}") for system, group in by_system.items()]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()

    def _process_system_on_its_thread(self, claims: list[Claim]) -> None:
        try:
            self._process_system(claims)
        finally:
            connections.close_all()  # this thread's own

    def _process_system(self, claims: list[Claim]) -> None:
        open_until: dict[str, datetime] = {}  # circuits this batch saw open: give their claims back unused
        for claim in claims:
            if self.stop.is_set() or claim.system in open_until:
                self._release(claim, open_until.get(claim.system) or timezone.now())
                continue
            try:
                state, until = self.process(claim)
            except Exception as exc:  # one bad operation never stops the worker; its lease ends, it is retried
                self.stats.errors += 1
                log.error("operation %s: unexpected %s", claim.operation_id, type(exc).__name__)
                continue
            if state == "open" and until is not None:
                open_until[claim.system] = until

    # --- one operation ---------------------------------------------------------------------------------------
    def process(self, claim: Claim) -> tuple[str, datetime | None]:
        """One attempt for one claimed operation; returns the system's circuit state after it. Its log lines and
        audit events carry the operation id as their correlation id."""
        token = request_id_var.set(str(claim.operation_id))
        try:
            # one trace per delivery: the kind of operation and the system, never its payload or ids
            with tracing.span(f"outbox deliver {claim.kind}", kind=SpanKind.PRODUCER,
                              attributes={"anamnesis.operation.kind": claim.kind, "peer.service": claim.system}):
                return self._process(claim)
        finally:
            request_id_var.reset(token)

    def _process(self, claim: Claim) -> tuple[str, datetime | None]:
        try:
            with identity_context(claim.identity()):
                withdrawn = withdrawal.operation_withdraw_if_consent_lapsed(
                    identity=claim.identity(), operation_id=claim.operation_id, claimed_by=claim.claimed_by)
                dispatch = None if withdrawn else services.operation_start_attempt(
                    operation_id=claim.operation_id, claimed_by=claim.claimed_by, lease_seconds=self.lease_seconds)
        except DatabaseError as exc:
            self.stats.errors += 1
            log.warning("could not start operation %s (%s); its lease will end", claim.operation_id,
                        type(exc).__name__)
            return "unknown", None
        if withdrawn:  # its consent lapsed after it was asked for: cancelled, never sent
            self.stats.withdrawn += 1
            log.info("operation %s kind=%s system=%s withdrawn: consent lapsed", claim.operation_id, claim.kind,
                     claim.system)
            return "unknown", None
        if dispatch is None:
            self.stats.lost_claims += 1
            return "unknown", None
        self.stats.attempted += 1
        outcome = self._attempt(self.adapters[claim.system], dispatch)
        tracing.annotate({"anamnesis.outcome.kind": outcome.kind, "anamnesis.outcome.code": outcome.code})
        self._pause("sent", [claim])
        self._count(outcome)
        self._record(claim, outcome)
        self._pause("recorded", [claim])
        seen = self.circuits.get(claim.system)
        if outcome.system_responded and seen is not None and seen.state == "closed" and not seen.consecutive_failures:
            return "closed", None  # nothing to reset: spare the write
        try:
            state, until = circuit_record(worker=self.name, system=claim.system,
                                          responded=outcome.system_responded,
                                          threshold=settings.WORKFLOW_CIRCUIT_FAILURE_THRESHOLD,
                                          cooldown_seconds=settings.WORKFLOW_CIRCUIT_COOLDOWN_SECONDS)
        except DatabaseError as exc:
            log.warning("could not record the circuit of %s (%s)", claim.system, type(exc).__name__)
            return "unknown", None
        # after a failure, the next success must write the reset (other workers may have counted too)
        self.circuits[claim.system] = CircuitSnapshot(claim.system, state, 0 if outcome.system_responded else 1,
                                                      until)
        return state, until

    @staticmethod
    def _attempt(adapter: OutsideSystem, dispatch: services.Dispatch) -> Outcome:
        """Never submit twice: when an earlier attempt may have arrived, ask first and adopt what is there. For a
        cancelled workflow, never submit at all: what arrived is adopted (kept on the operation), what did not ends
        (the insurer must not get a request for a workflow nobody wants any more)."""
        if dispatch.outcome_uncertain or dispatch.withdrawn:
            found = adapter.lookup(key=dispatch.idempotency_key)
            if found.kind == CONFIRMED:
                return found  # it did arrive: adopt the existing result
            if found.kind != NOT_FOUND:
                # The lookup itself failed. Nothing is learnt about the submission (a 4xx here is not a refusal
                # of it), and nothing is submitted this attempt.
                return Outcome(NOT_SENT if found.kind == NOT_SENT else UNKNOWN, f"lookup_{found.code}")
            if dispatch.withdrawn:
                return found  # recorded as failed: workflow_cancelled
        return adapter.submit(key=dispatch.idempotency_key, payload=dispatch.payload)

    def _record(self, claim: Claim, outcome: Outcome) -> None:
        """Record in a new transaction, retried briefly if the database is away. If it stays away the claim's
        lease ends and the next attempt's lookup recovers the outcome, so nothing is lost either way."""
        for attempt in range(1, RECORD_RETRIES + 1):
            try:
                with identity_context(claim.identity()):
                    recorded = services.operation_record_outcome(identity=claim.identity(),
                                                                 operation_id=claim.operation_id,
                                                                 claimed_by=claim.claimed_by, outcome=outcome)
                break
            except (OperationalError, InterfaceError) as exc:
                log.warning("database unavailable while recording operation %s (%s), try %d",
                            claim.operation_id, type(exc).__name__, attempt)
                close_old_connections()
                _record_backoff(attempt)
        else:
            self.stats.errors += 1
            return
        self.stats.last_record_at, self.stats.last_record_epoch = time.monotonic(), time.time()
        if recorded is None:
            self.stats.lost_claims += 1
            log.info("operation %s: claim lost before recording (%s)", claim.operation_id, outcome.code)
            return
        status = recorded.status
        self.stats.succeeded += status == "succeeded"
        self.stats.failed += status == "failed"
        self.stats.unknown += status == "outcome_unknown"
        self.stats.retry_later += status == "pending"
        log.log(logging.DEBUG if status == "succeeded" else logging.INFO,
                "operation %s kind=%s system=%s outcome=%s status=%s step=%s", claim.operation_id, claim.kind,
                claim.system, outcome.code, status, recorded.workflow_step)

    def _release(self, claim: Claim, not_before: datetime) -> None:
        try:
            with identity_context(claim.identity()):
                if services.operation_release_claim(operation_id=claim.operation_id, claimed_by=claim.claimed_by,
                                                    not_before=not_before):
                    self.stats.released += 1
        except DatabaseError as exc:
            log.warning("could not release operation %s (%s); its lease will end", claim.operation_id,
                        type(exc).__name__)

    def _count(self, outcome: Outcome) -> None:
        key = f"{outcome.kind}:{outcome.code}"
        self.stats.outcomes[key] = self.stats.outcomes.get(key, 0) + 1

    # --- helpers ---------------------------------------------------------------------------------------------
    def _sleep(self, seconds: float, deadline: float | None) -> None:
        if deadline is not None:
            seconds = max(0.0, min(seconds, deadline - time.monotonic()))
        self.stop.wait(seconds)

    def _pause(self, point: str, claims: list[Claim]) -> None:
        if self.pause_at != point or not claims:
            return
        sys.stdout.write(f"worker-paused {point} {claims[0].operation_id}\n")
        sys.stdout.flush()
        time.sleep(600)  # the test kills us here; bounded all the same


def _record_backoff(attempt: int) -> None:
    time.sleep(0.2 * attempt)


def install_signal_handlers(worker: Worker) -> None:
    """SIGTERM/SIGINT: finish the operation in hand, give the rest of the batch back, exit."""
    def handler(signum, frame):
        worker.stop.set()

    signal.signal(signal.SIGTERM, handler)
    signal.signal(signal.SIGINT, handler)
