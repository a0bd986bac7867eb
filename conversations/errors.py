"""The conversation API's refusals (problem details with a stable code, like every other error)."""

from __future__ import annotations

from rest_framework import status

from core.errors import ApiError, Conflict, ServiceUnavailable, ValidationFailed


class SessionGone(ApiError):
    """The session existed and was the caller's, but is no longer served."""

    status_code = status.HTTP_410_GONE
    code = "session_gone"
    title = "This conversation is no longer available"


class SessionExpired(SessionGone):
    code = "session_expired"
    title = "This conversation expired (inactivity or its absolute limit); start a new one"


class SessionEnded(SessionGone):
    code = "session_ended"
    title = "This conversation has ended; start a new one"


class SessionAlreadyEnded(Conflict):
    code = "session_already_ended"
    title = "This conversation already ended with another outcome"


class TooManySessions(Conflict):
    code = "too_many_sessions"
    title = "This patient has too many open conversations for this purpose; end one first"


class TurnLimitReached(Conflict):
    code = "turn_limit_reached"
    title = "This conversation has reached its turn limit; end it and start a new one"


class SlotsIncomplete(Conflict):
    code = "slots_incomplete"
    title = "The conversation does not say enough yet to search for slots (see errors)"


class ClarificationNeeded(Conflict):
    code = "clarification_needed"
    title = "A stated time is ambiguous; ask the clarifying question before searching"


class BudgetTooSmall(ValidationFailed):
    code = "context_budget_too_small"
    title = "The token budget cannot hold the conversation's slots and summary"


class SchedulingUnavailable(ServiceUnavailable):
    code = "scheduling_unavailable"
    title = "The scheduling system cannot be reached; nothing was changed, retry later"
