"""Workflow types and their transition tables. The server owns these: clients name a next step, the table
decides whether that move is legal."""

from __future__ import annotations

from dataclasses import dataclass


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


def _table(moves: dict[str, set[str]], cancellable: bool = True) -> dict[str, frozenset[str]]:
    table = {k: frozenset(v) for k, v in moves.items()}
    if cancellable:
        table = {k: v | {"cancelled"} for k, v in table.items()}
    return table


PRIOR_AUTHORIZATION = WorkflowType(
    name="prior_authorization",
    purpose="prior_authorization",
    initial_step="verify_referral",
    transitions=_table({
        "verify_referral": {"submit_prior_authorization"},
        "submit_prior_authorization": {"await_insurer_decision", "needs_reconciliation"},
        "needs_reconciliation": {"await_insurer_decision", "submit_prior_authorization"},
        "await_insurer_decision": {"completed"},
    }),
    terminal_steps=frozenset({"completed", "cancelled"}),
)

APPOINTMENT_BOOKING = WorkflowType(
    name="appointment_booking",
    purpose="appointment_scheduling",
    initial_step="collect_preferences",
    transitions=_table({
        "collect_preferences": {"propose_slots"},
        "propose_slots": {"confirm_booking", "collect_preferences"},
        "confirm_booking": {"booked", "needs_reconciliation"},
        "needs_reconciliation": {"booked", "confirm_booking"},
        "booked": {"completed"},
    }),
    terminal_steps=frozenset({"completed", "cancelled"}),
)

WORKFLOW_TYPES: dict[str, WorkflowType] = {t.name: t for t in (PRIOR_AUTHORIZATION, APPOINTMENT_BOOKING)}
