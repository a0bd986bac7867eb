"""Whether the MCP door lets a token's request in: its organisation registered and trusting its issuer, and (for
what no REST operation will count) the caller's rate limits, checked as the REST gate checks them."""

from __future__ import annotations

import logging

from django.db import DatabaseError, connection

from core.errors import ApiError, RateLimited, ServiceUnavailable, UnknownOrganization
from core.gate import RequestGate, admitted, failed_authentication_refused
from core.identity import identity_context

log = logging.getLogger("anamnesis.mcp")


def admission_refused(identity, counted: bool = True) -> ApiError | None:
    """The REST gate's admission (core.gate): the token's organisation is registered and trusts its issuer, read
    from the database on every request. ``/mcp`` answered initialize, tools/list and ping for a token of an
    organisation the registry does not hold; only its tool calls, going through REST, were refused.

    ``counted``: the request is counted against the caller's rate limits too (the REST gate's own counters), as
    every POST but one holding only tool calls is (each of those is counted by the REST operation it runs, or by
    :func:`agents_mcp.calls.run_tool` when refused before it). Handshakes, tool lists, pings and notifications
    were never counted: a token opened sessions without end. Over the limit: :class:`RateLimited`."""
    try:
        if not counted:
            return None if admitted(str(identity.org_id), identity.issuer) else UnknownOrganization()
        with identity_context(identity, gate=RequestGate(identity)):
            pass  # the identity statement, and the gate in it, runs when the block ends
        return None
    except (RateLimited, UnknownOrganization) as exc:
        return exc
    except DatabaseError as exc:
        log.warning("mcp: admission not checked, database unavailable (%s)", type(exc).__name__)
        return ServiceUnavailable()
    finally:
        connection.close()  # as the request handler does: no worker thread keeps a connection (or a pool slot)


def failed_authentication_counted(address: str) -> RateLimited | None:
    """:func:`core.gate.failed_authentication_refused` for the door's refusals (401, unknown organisation), run on
    a worker thread: its connection closed after, as :func:`admission_refused` closes it."""
    try:
        return failed_authentication_refused(address)
    finally:
        connection.close()
