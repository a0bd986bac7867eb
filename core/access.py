"""Access decisions that need only the caller's identity. (The patient access rule itself belongs to consent, which
owns the grants it reads: consent/access.py and consent/sql/access_rule.sql.)"""

from __future__ import annotations

from core.errors import Forbidden
from core.identity import Identity


def require_staff(identity: Identity) -> None:
    """Organisation-level actions (grants) are never taken by a patient token."""
    if identity.patient_self_id is not None:
        raise Forbidden("this action is for organisation staff")


def require_person_deciding_access(identity: Identity) -> None:
    """Who may see a patient's records is decided by an administrator, never by an AI agent acting for one (it
    could grant itself, or whoever a prompt names): grants, their revocation, the staff and patient registers."""
    require_staff(identity)
    if identity.is_agent:
        raise Forbidden("an administrator decides access; an agent cannot", code="agent_cannot_grant")
