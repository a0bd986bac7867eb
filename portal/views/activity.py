"""The patient's page of who used their information, and for what purpose: what staff, agents and services read
and changed (with the purpose they named), the context packs given to agents, and the patient's own actions.

As every portal view, it goes through :func:`portal.context.portal_view` and reads through the same selectors as
the API (the audit history: ``core.audit.patient_history``).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from datetime import datetime

from django.shortcuts import render
from django.views.decorators.http import require_http_methods

from core import audit
from core.models import AuditEvent
from directory import selectors as directory
from memory import selectors
from portal.context import error_page, portal_view
from portal.rows import PATIENT_ROLES, PURPOSE_LABELS, agent_label

ACTION_TEXT = {
    "memory.list": "looked at your preferences",
    "memory.read": "looked at one of your preferences",
    "memory.search": "searched your preferences",
    "memory.history": "looked at the history of a preference",
    "memory.create": "recorded a preference",
    "memory.supersede": "replaced an earlier preference with a newer one",
    "memory.correct": "corrected a preference",
    "memory.propose": "suggested a preference for you to confirm",
    "memory.proposals": "looked at suggestions waiting for you",
    "memory.confirm": "confirmed a suggested preference",
    "memory.delete": "deleted a preference",
    "memory.quarantine": "set a preference aside as doubtful",
    "memory.quarantine_release": "took a preference set aside back into use",
    "memory.context_pack": "used your preferences to help with a task",
    "memory.releases": "looked at who used your information",
    "memory.deletions": "looked at deletion receipts",
    "consent.grant": "recorded your consent",
    "consent.revoke": "withdrew a consent",
    "consent.list": "looked at your consents",
    "grant.create": "gave a staff member access to your information",
    "grant.revoke": "ended a staff member's access to your information",
    "grant.expire": "closed a staff member's access that had run out",
    "grant.list": "looked at who has access to your information",
    "workflow.create": "started a task for you",
    "workflow.checkpoint": "moved a task on to its next step",
    "workflow.read": "looked at a task",
    "audit.list": "looked at this access history",
    "patient.register": "added your name and identifiers to the directory",
    "patient.read": "looked up your name and identifiers",
    "patient.list": "saw your name in their list of patients",
    "patient.search": "found you by searching the directory",
    "patient.resolve": "found you by your record number",
    "portal.access": "tried to open a page about you",
    "patient.export": "downloaded a copy of everything held about you",
    "memory.fhir_import": "imported a clinical fact from your health record",
    "memory.erase_all": "erased your information",
    "conversation.erase": "erased a conversation with you",
    "workflow.redact": "removed personal details from a finished task",
    "workflow.operation.redact": "removed personal details from a finished request to an outside system",
    "memory.reject": "turned down a suggested preference",
    "memory.release": "was given some of your preferences for a task",
    "conversation.start": "started a conversation with you",
    "conversation.turn": "added to a conversation with you",
    "conversation.read": "looked at a conversation with you",
    "conversation.context": "used a conversation with you to help with a task",
    "conversation.offers": "looked for appointment times for you",
    "conversation.propose": "suggested preferences from a conversation for you to confirm",
    "conversation.end": "ended a conversation with you",
    "conversation.flags": "looked at what your conversations flagged for the care team",
    "conversation.purge": "removed an expired conversation with you",
    "conversation.care_team_flag": "passed something from a conversation to your care team",
    "workflow.operation.request": "asked an outside system to act on a task for you",
    "workflow.operation.attempt": "contacted an outside system about a task for you",
    "workflow.operation.retry": "asked an outside system again about a task for you",
    "workflow.operation.cancel": "cancelled a request to an outside system",
    "workflow.operation.withdraw": "stopped a request to an outside system from being sent again",
    "workflow.operation.resolve": "recorded what an outside system did with a request for you",
    "workflow.operation.list": "looked at requests to outside systems for a task",
    "workflow.reconciliation.list": "checked tasks whose outcome is unknown",
}


# the words of ACTION_TEXT that name the patient as the one an action was for or with
OWN_ACTION = re.compile(r" (?:for|with) you\b")


def describe_actor(event_sub: str, kind: str, me: str, names: Mapping[str, str]) -> str:
    """Who acted, as the patient reads it; a staff member by the directory's name (``names``: subject to name)."""
    if event_sub == me:
        return "You"
    if kind == "service":  # by the row's kind: a person's provider subject may be spelled "service:..." too
        return f"Automated service ({event_sub.removeprefix('service:')})"
    if kind == "patient":
        return f"An app acting for you (“{event_sub}”)"
    if event_sub in names:
        return f"Staff member {names[event_sub]}"
    return f"Staff member or assistant “{event_sub}”"


def describe_event(event: AuditEvent, me: str, names: Mapping[str, str]) -> dict:
    what = ACTION_TEXT.get(event.action, event.action.replace(".", " ").replace("_", " "))
    outcome = {"success": "", "denied": " (refused)", "conflict": " (not done: conflicting change)",
               "error": " (failed)"}.get(event.outcome, "")
    if event.agent_client_id:  # an agent is never "You", even with the patient's own subject in its token
        who = f"{agent_label(event.agent_client_id, names)} acting for " + (
            "you" if event.on_behalf_of is not None and event.on_behalf_of == event.patient_id
            else names.get(event.actor_sub, f"“{event.actor_sub}”"))
    else:
        who = describe_actor(event.actor_sub, event.actor_kind, me, names)
    own = who == "You"
    if own:  # "You started a task for you": what the patient did is not said to be for or with themselves
        what = OWN_ACTION.sub("", what)
    return {"when": event.occurred_at, "who": who, "own": own,
            "what": what + outcome,
            # someone else's read or change that named no purpose says so; the patient's own needs none
            "why": PURPOSE_LABELS.get(event.purpose, event.purpose) if event.purpose else (
                "—" if own else "Not stated"),
            "refused": event.outcome != "success"}


def group_repeats(events: list[dict]) -> list[dict]:
    """The patient's own actions, newest first, with each run of the same action (same words, same purpose)
    folded into one line that counts it and gives the first and last time."""
    groups: list[dict] = []
    for e in events:
        last = groups[-1] if groups else None
        if last is not None and (last["what"], last["why"], last["refused"]) == (e["what"], e["why"], e["refused"]):
            last["count"] += 1
            last["first"] = e["when"]
        else:
            groups.append({**e, "count": 1, "first": e["when"], "last": e["when"]})
    return groups


@require_http_methods(["GET"])
@portal_view(scopes=("audit:read",), roles=PATIENT_ROLES)
def patient_activity(request):
    """Who used my information, and for what purpose: what others (staff, agents, services) read and changed, with
    the purpose they named, first; then the patient's own actions, repeats grouped; older events a page at a time."""
    identity = request.portal_identity
    patient_id = identity.patient_self_id
    paged = bool(request.GET.get("older"))
    # What assistants were given, 50 a page: the page showed the newest 50 and nothing of the older ones
    releases_older = request.GET.get("releases") or None
    try:
        shown_releases, older_releases = ([], None) if paged else selectors.release_page(
            identity=identity, patient_id=patient_id, limit=50, cursor=releases_older)
        page = audit.patient_history(identity=identity, patient_id=patient_id, cursor=request.GET.get("older"),
                                     limit=200)
    except ValueError:
        return error_page(request, 400)
    # the directory's names of the staff and agents on the page: one read, not audited (no patient's data)
    names = directory.staff_names(identity=identity, subs={
        s for e in page.items for s in (e.actor_sub, e.agent_client_id) if s and s != identity.actor_sub} | {
        s for r in shown_releases for s in (r["actor_sub"], r["agent_client_id"]) if s})
    events = [describe_event(e, identity.actor_sub, names) for e in page.items]
    releases = []
    for r in shown_releases:
        if not r["members"]:
            continue  # a context pack that held nothing gave nothing away
        who = (agent_label(r["agent_client_id"], names) if r["agent_client_id"]
               else describe_actor(r["actor_sub"], "", identity.actor_sub, names))
        releases.append({"who": who,
                         "why": PURPOSE_LABELS.get(r["purpose"], r["purpose"]),
                         "when": datetime.fromisoformat(r["created_at"]),
                         "count": len(r["members"]),
                         "withdrawn": sum(1 for m in r["members"] if m["withdrawn_at"])})
    return render(request, "memory/activity.html", {
        "others": [e for e in events if not e["own"]], "own": group_repeats([e for e in events if e["own"]]),
        "releases": releases, "older": page.next_cursor, "paged": paged,
        "releases_paged": releases_older is not None, "older_releases": older_releases})
