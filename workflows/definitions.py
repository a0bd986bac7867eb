"""Workflow types, their transition tables, and the operations (non-read actions against outside systems) each
step may ask for. The server owns these: clients name a next step or an operation, the tables decide whether it
is legal, and the outcome of an operation moves the workflow along the steps declared here, never the client."""

from __future__ import annotations

from dataclasses import dataclass

NEEDS_RECONCILIATION = "needs_reconciliation"
CANCELLED = "cancelled"

# Outside systems. Each has an adapter (workflows.adapters) and a circuit breaker (workflows.circuit).
INSURER = "insurer"
SCHEDULING = "scheduling"
SYSTEMS = (INSURER, SCHEDULING)


@dataclass(frozen=True)
class WorkflowType:
    name: str
    purpose: str
    initial_step: str
    transitions: dict[str, frozenset[str]]
    terminal_steps: frozenset[str]

    def allows(self, current: str, nxt: str) -> bool:
        return nxt in self.transitions.get(current, frozenset())

    def next_steps(self, current: str) -> list[str]:
        return sorted(self.transitions.get(current, frozenset()))

    def is_terminal(self, step: str) -> bool:
        return step in self.terminal_steps


@dataclass(frozen=True)
class OperationKind:
    """A non-read action against an outside system, and what its outcome does to the workflow.

    ``requested_at``: the steps at which a workflow may ask for it (with the checkpoint that enters the step, or
    afterwards). ``on_success``: the step a confirmed result moves the workflow to, with ``result_field`` (the
    outside system's id) merged into the workflow state. ``on_unknown``: where a timeout or an ambiguous answer
    puts it (the outcome is not known, so the step says so). ``on_failure``: where a definitive refusal sends a
    workflow that was waiting in ``on_unknown`` (back to the step that may ask again, with a new key).
    """

    name: str
    system: str
    workflow_type: str
    requested_at: frozenset[str]
    on_success: str
    on_unknown: str
    on_failure: str
    result_field: str


def _table(moves: dict[str, set[str]], cancellable: bool = True) -> dict[str, frozenset[str]]:
    table = {k: frozenset(v) for k, v in moves.items()}
    if cancellable:
        table = {k: v | {CANCELLED} for k, v in table.items()}
    return table


PRIOR_AUTHORIZATION = WorkflowType(
    name="prior_authorization",
    purpose="prior_authorization",
    initial_step="verify_referral",
    transitions=_table({
        "verify_referral": {"submit_prior_authorization"},
        "submit_prior_authorization": {"await_insurer_decision", NEEDS_RECONCILIATION},
        NEEDS_RECONCILIATION: {"await_insurer_decision", "submit_prior_authorization"},
        "await_insurer_decision": {"completed"},
    }),
    terminal_steps=frozenset({"completed", CANCELLED}),
)

APPOINTMENT_BOOKING = WorkflowType(
    name="appointment_booking",
    purpose="appointment_scheduling",
    initial_step="collect_preferences",
    transitions=_table({
        "collect_preferences": {"propose_slots"},
        "propose_slots": {"confirm_booking", "collect_preferences"},
        "confirm_booking": {"booked", NEEDS_RECONCILIATION},
        NEEDS_RECONCILIATION: {"booked", "confirm_booking"},
        "booked": {"completed"},
    }),
    terminal_steps=frozenset({"completed", CANCELLED}),
)

WORKFLOW_TYPES: dict[str, WorkflowType] = {t.name: t for t in (PRIOR_AUTHORIZATION, APPOINTMENT_BOOKING)}

SUBMIT_PRIOR_AUTHORIZATION = OperationKind(
    name="submit_prior_authorization",
    system=INSURER,
    workflow_type=PRIOR_AUTHORIZATION.name,
    requested_at=frozenset({"submit_prior_authorization"}),
    on_success="await_insurer_decision",
    on_unknown=NEEDS_RECONCILIATION,
    on_failure="submit_prior_authorization",
    result_field="authorization_id",
)

BOOK_APPOINTMENT = OperationKind(
    name="book_appointment",
    system=SCHEDULING,
    workflow_type=APPOINTMENT_BOOKING.name,
    requested_at=frozenset({"confirm_booking"}),
    on_success="booked",
    on_unknown=NEEDS_RECONCILIATION,
    on_failure="confirm_booking",
    result_field="appointment_id",
)

OPERATION_KINDS: dict[str, OperationKind] = {k.name: k for k in (SUBMIT_PRIOR_AUTHORIZATION, BOOK_APPOINTMENT)}


def operation_kinds_for(workflow_type: str) -> list[OperationKind]:
    return [k for k in OPERATION_KINDS.values() if k.workflow_type == workflow_type]


def checkpoint_steps(workflow_type: str, current_step: str, kinds_used) -> list[str]:
    """The steps a checkpoint may move to: the transition table's, less the steps that follow from the outcome of
    an operation kind the workflow has used (``kinds_used``: names), which only that outcome moves it to."""
    owned = {step for name in kinds_used for step in (OPERATION_KINDS[name].on_success,
                                                      OPERATION_KINDS[name].on_unknown)}
    return [step for step in WORKFLOW_TYPES[workflow_type].next_steps(current_step) if step not in owned]


def _check_tables() -> None:
    """Every operation's outcome steps must be legal moves of its workflow's table (checked at import)."""
    for kind in OPERATION_KINDS.values():
        spec = WORKFLOW_TYPES[kind.workflow_type]
        legal = (all(spec.allows(s, kind.on_success) and spec.allows(s, kind.on_unknown) for s in kind.requested_at)
                 and spec.allows(kind.on_unknown, kind.on_success) and spec.allows(kind.on_unknown, kind.on_failure)
                 and kind.on_failure in kind.requested_at and kind.system in SYSTEMS)
        if not legal:
            raise RuntimeError(f"operation {kind.name} names steps its workflow type does not allow")


_check_tables()
