"""Typed request and response models. Responses keep fields this version does not know (``extra="allow"``), so a
newer service never breaks an older client; requests refuse unknown fields, like the service does."""

from __future__ import annotations

import datetime as dt
import uuid
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

Purpose = Literal["appointment_scheduling", "communication", "care_coordination", "prior_authorization"]


class _In(BaseModel):
    model_config = ConfigDict(extra="forbid")

    def body(self) -> dict[str, Any]:
        return self.model_dump(mode="json", exclude_none=True)


class _Out(BaseModel):
    model_config = ConfigDict(extra="allow")


# --- requests ------------------------------------------------------------------------------------------------------
class MemoryIn(_In):
    memory_type: str
    fact: dict[str, Any]
    consent_purpose: str
    consent_record_id: uuid.UUID | None = None
    valid_until: dt.datetime | None = None
    review_by: dt.datetime | None = None
    source: str | None = None
    source_ref: str | None = None


class ProposalIn(_In):
    memory_type: str
    fact: dict[str, Any]
    consent_purpose: str
    consent_record_id: uuid.UUID
    source_ref: str = Field(description="The conversation turn it was extracted from, e.g. turn:3")
    confidence: float | None = Field(default=None, ge=0, le=1)
    valid_until: dt.datetime | None = None


class OperationRequest(_In):
    kind: str
    payload: dict[str, Any]


class CheckpointIn(_In):
    expected_version: int = Field(ge=1)
    next_step: str
    state_patch: dict[str, str | int | float | bool | None] = Field(default_factory=dict)
    request_operation: OperationRequest | None = None


# --- responses -----------------------------------------------------------------------------------------------------
class Memory(_Out):
    memory_id: uuid.UUID
    patient_id: uuid.UUID
    memory_class: str
    memory_type: str
    attribute: str
    fact: dict[str, Any] | None = None
    text: str | None = None
    state: str
    source: str
    consent_purpose: str
    consent_record_id: uuid.UUID | None = None
    valid_from: dt.datetime | None = None
    valid_until: dt.datetime | None = None
    guardrails: dict[str, Any] = Field(default_factory=dict)
    created_by: str | None = None
    created_at: dt.datetime | None = None


class Proposal(Memory):
    """A proposal waiting for review. ``stale``: made before its attribute's current value (``overtaken_by``) became
    current, so confirming it is ``proposal_stale`` (:class:`errors.ProposalStale`): reject it instead."""

    stale: bool = False
    overtaken_by: uuid.UUID | None = None


class MemoryStored(_Out):
    memory_id: uuid.UUID
    status: str
    memory: Memory


class SearchHit(_Out):
    memory: Memory
    score: float  # the probability that the memory answers the question
    cosine: float
    text_rank: float
    concept: float = 0.0
    intent: float = 0.0  # how closely the question matches what the memory's type serves
    confidence: str = "high"  # "low": a best guess or an alternative, not an answer to act on
    included_by: str = "relevance"


class SearchResult(_Out):
    items: list[SearchHit]
    min_score: float
    confidence: str = "high"  # the answer's band: "high", "low" (nothing confident) or "none"
    safety_rule_applied: bool = False
    # the safety rule applied but the filters left allergies and long-term medicines out: not "no allergies"
    safety_facts_filtered_out: bool = False
    left_out_over_limit: int = 0  # hits that reached their threshold but not the limit: ask with a higher one


class ContextFact(_Out):
    memory_id: uuid.UUID
    text: str
    memory_class: str
    memory_type: str | None = None  # None from a service older than these fields
    consent_purpose: str | None = None
    source: str
    source_ref: str | None = None
    agent_client_id: str | None = None
    score: float
    guardrails: dict[str, Any] = Field(default_factory=dict)


class ContextPack(_Out):
    release_id: uuid.UUID
    purpose: str
    facts: list[ContextFact]
    guardrail_notes: list[str]
    text: str


class CareTeamFlag(_Out):
    """A clinical remark a conversation routed to the care team: its kind and urgency, never the words."""

    session_id: uuid.UUID
    purpose: str
    session_status: str
    category: str
    urgent: bool
    source_id: str
    flagged_at: dt.datetime | None = None


class Consent(_Out):
    consent_record_id: uuid.UUID
    patient_id: uuid.UUID
    purpose: str
    status: str
    evidence_ref: str | None = None
    recorded_by: str | None = None
    granted_at: dt.datetime | None = None
    expires_at: dt.datetime | None = None
    revoked_at: dt.datetime | None = None


class Session(_Out):
    session_id: uuid.UUID
    patient_id: uuid.UUID
    purpose: str
    status: str
    turn_count: int
    expires_at: dt.datetime


class SessionState(_Out):
    session: Session
    slots: dict[str, Any]
    next_action: str
    clarifying_questions: list[dict[str, Any]] = Field(default_factory=list)
    care_team_flags: list[dict[str, Any]] = Field(default_factory=list)


class Turn(_Out):
    seq: int
    source_id: str
    role: str
    tool_name: str | None = None
    token_count: int


class TurnAppended(SessionState):
    turn: Turn
    new_care_team_flags: list[dict[str, Any]] = Field(default_factory=list)


class SessionContext(_Out):
    session_id: uuid.UUID
    expires_at: dt.datetime
    context: dict[str, Any]
    budget: dict[str, Any]


class Offer(_Out):
    slot_id: str
    start: str
    day: str
    time: str


class Offers(_Out):
    offers: list[Offer]
    considered: int
    constraints: dict[str, Any]
    next_action: str
    turn: Turn


class Proposals(_Out):
    proposed: list[Memory]
    skipped: list[dict[str, Any]]


class Operation(_Out):
    operation_id: uuid.UUID
    workflow_id: uuid.UUID
    kind: str
    system: str
    status: str
    idempotency_key: str
    attempts: int
    result: dict[str, Any] | None = None
    attempt_limit: int | None = None
    last_error_code: str | None = None  # why it failed: the outside system's code, or staff_confirmed_not_sent
    requested_by_kind: str | None = None  # patient, agent, staff or service; None before it was recorded
    completed_at: dt.datetime | None = None


class NextSafeAction(_Out):
    action: str
    message: str
    operation_id: uuid.UUID | None = None
    allowed_next_steps: list[str] = Field(default_factory=list)


class Workflow(_Out):
    workflow_id: uuid.UUID
    patient_id: uuid.UUID
    workflow_type: str
    purpose: str
    current_step: str
    state: dict[str, Any]
    version: int
    allowed_next_steps: list[str]
    terminal: bool
    pending_operations: list[Operation] = Field(default_factory=list)
    next_safe_action: NextSafeAction | None = None
