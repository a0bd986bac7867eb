"""Scopes: every API view declares what it needs; a view that declares nothing is refused at import."""

from __future__ import annotations

from rest_framework.exceptions import MethodNotAllowed
from rest_framework.permissions import BasePermission

from core.errors import InsufficientScope, MissingToken
from core.identity import Identity

SCOPES = {
    "memory:read": "Read a patient's long-term memories",
    "memory:write": "Record, correct or delete long-term memories",
    "workflow:read": "Read workflow checkpoints",
    "workflow:write": "Create workflows and write checkpoints",
    "consent:read": "Read consent records",
    "consent:write": "Record or revoke consent",
    "grant:write": "Grant and revoke staff access (organisation administrators)",
    "audit:read": "Read access history",
    "organization:admin": "List and register organisations (only in tokens of a registry-administrator organisation)",
    "workflow:reconcile": "See the workflows stuck in needs_reconciliation of patients one holds grants for (staff)",
    "workflow:reconcile:org": "With workflow:reconcile: the whole organisation's reconciliation queue",
    "patient:read": "Find patients in the directory by name, date of birth or identifier",
    "patient:write": "Register patients in the directory (organisation administrators)",
    "memory_type:write": "Add and revise the organisation's memory types (organisation administrators)",
    "webhook:admin": "Register and manage the organisation's event subscriptions (organisation administrators)",
}


_SERVED_METHODS = ("GET", "POST", "PUT", "PATCH", "DELETE")


def declared_method(method: str) -> str:
    """The method whose declarations (scopes, audit action) apply: HEAD is a GET without the body."""
    method = method.upper()
    return "GET" if method == "HEAD" else method


def required_scopes_for(view, method: str) -> frozenset[str]:
    declared = view.required_scopes
    if isinstance(declared, dict):
        scopes = declared.get(declared_method(method))
        if scopes is None:
            return frozenset()
        return frozenset(scopes)
    return frozenset(declared)


class HasRequiredScopes(BasePermission):
    def has_permission(self, request, view) -> bool:
        identity = request.auth
        if not isinstance(identity, Identity):
            raise MissingToken("missing bearer token")
        if request.method == "OPTIONS":
            # what the operations here take and answer: told only to a token that may use one of them, so an
            # OPTIONS says no more than that token's GET (or POST...) would (403 insufficient_scope otherwise)
            needs = [required_scopes_for(view, m) for m in _SERVED_METHODS if hasattr(view, m.lower())]
            needs = [n for n in needs if n]
            if any(n <= identity.scopes for n in needs):
                return True
            if not needs:
                return False
            raise InsufficientScope(needs[0])
        needed = required_scopes_for(view, request.method)
        if not needed:
            if not hasattr(view, request.method.lower()):
                raise MethodNotAllowed(request.method)  # 405, not 403: nobody may use this method here
            return False  # deny by default: a method without declared scopes is not served
        if not needed <= identity.scopes:
            raise InsufficientScope(needed)
        return True
