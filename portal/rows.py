"""How the portal shows domain records to people: labels for purposes and sources, and one row per memory."""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from core.identity import Identity
from core.vocabulary import PURPOSES
from directory import selectors as directory
from memory.deletion import patient_may_edit
from memory.lifecycle import memory_value
from memory.models import Memory
from memory.types import fact_text, type_get

PURPOSE_LABELS = dict(PURPOSES)
SOURCE_LABELS = {
    "patient_stated": "You told us",
    "staff_entered": "Entered by care staff",
    "agent_extracted": "Suggested by an assistant from a conversation",
    "ehr_import": "Imported from your health record",
}
STAFF_SOURCE_LABELS = {
    "patient_stated": "Stated by the patient",
    "staff_entered": "Entered by staff",
    "agent_extracted": "Extracted by an agent",
    "ehr_import": "EHR import",
}
PATIENT_ROLES = ("patient",)
STAFF_ROLES = ("staff",)
ADMIN_ROLES = ("org_admin",)


def agent_label(client_id: str, names: Mapping[str, str] | None = None) -> str:
    """How the portal names an AI agent wherever it acted: by the directory's name (``names``:
    :func:`recorder_names`), else its client id."""
    return f"AI agent “{(names or {}).get(client_id, client_id)}”"


def recorder_names(identity: Identity, memories: Iterable[Memory] = (), consents: Iterable = ()) -> dict[str, str]:
    """The directory's names of the staff members and agents (by subject or client id) who recorded the memories
    and consents a page shows, for :func:`recorded_by`; one read for the page, not audited (staff names are no
    patient's data)."""
    subjects = {*(m.agent_client_id or m.created_by for m in memories),
                *(c.recorded_by.removeprefix("agent:") for c in consents)}
    return directory.staff_names(identity=identity, subs={s for s in subjects if s})


def recorded_by(subject: str, *, me: str, agent: str | None = None, names: Mapping[str, str]) -> str:
    """Who recorded something, as people read it: "you", an agent by its directory name (its client id when the
    directory has none), anyone else by their directory name, their bare subject only when it has none."""
    if agent:
        return agent_label(agent, names)
    return "you" if subject == me else names.get(subject, subject)


def memory_row(memory: Memory, *, me: str, labels: dict[str, str] = SOURCE_LABELS,
               names: Mapping[str, str] | None = None) -> dict:
    """What a person needs to judge a remembered fact: what, where it came from, who (by the directory's name in
    ``names``: :func:`recorder_names`), when, until when."""
    value = memory_value(memory)
    spec = type_get(memory.memory_type, memory.type_version)
    # An agent's write carries the subject it acted for: it is the agent's, never "you".
    mine = not memory.agent_client_id and (
        memory.created_by == me or (labels is SOURCE_LABELS and memory.source == "patient_stated"))
    return {
        "memory": memory,
        "memory_id": memory.memory_id,
        "text": fact_text(memory.memory_type, value, memory.type_version) if value is not None else "(removed)",
        "label": spec.label if spec else memory.memory_type.replace("_", " "),
        "fact": value,
        "kind": (value or {}).get("kind"),
        "source": labels.get(memory.source, memory.source),
        "recorded_by": "you" if mine else recorded_by(memory.created_by, me=me, agent=memory.agent_client_id,
                                                      names=names or {}),
        "recorded_at": memory.created_at,
        "valid_until": memory.valid_until,
        "expires_at": memory.expires_at,
        "review_by": memory.review_by,
        "purpose": PURPOSE_LABELS.get(memory.consent_purpose, memory.consent_purpose),
        "state": memory.state,
        "editable_by_patient": spec is not None and "patient" in spec.writers,
        # what an agent proposed and the patient confirmed is theirs to delete, though not to correct
        "deletable_by_patient": patient_may_edit(memory),
    }


