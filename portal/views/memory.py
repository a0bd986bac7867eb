"""Portal pages for memories: a patient's own preferences (view, correct, delete, confirm proposals, deletion
receipts) and the staff actions on one patient's memories (correct, quarantine and release, confirm or reject a
suggestion). Who used my information is :mod:`portal.views.activity`.

Every view goes through :func:`portal.context.portal_view` (login, scopes, identity context around view and
rendering) and calls the same services and selectors as the API.
"""

from __future__ import annotations

import uuid
from datetime import datetime

from django.contrib import messages
from django.db import transaction
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils import timezone
from django.utils.dateparse import parse_datetime
from django.views.decorators.http import require_http_methods, require_POST

from core.errors import Conflict, Forbidden, IllegalTransition, NotFound, ValidationFailed
from directory import selectors as directory
from memory import deletion, review, selectors
from memory.lifecycle import memory_value
from memory.models import MemoryState
from memory.types import type_get
from portal.context import error_page, portal_view
from portal.forms import FactForm, ReasonForm
from portal.rows import (
    PATIENT_ROLES,
    SOURCE_LABELS,
    STAFF_ROLES,
    STAFF_SOURCE_LABELS,
    memory_row,
    recorder_names,
)
from portal.views.consent import require_staff_patient, staff_patient_name


def _one_row(identity, memory, labels=SOURCE_LABELS) -> dict:
    """One memory's row for a page of its own, naming who recorded it as the directory does."""
    return memory_row(memory, me=identity.actor_sub, labels=labels,
                      names=recorder_names(identity, [memory]))


# --- patient pages ---------------------------------------------------------------------------------------------
@require_http_methods(["GET"])
@portal_view(scopes=("memory:read",), roles=PATIENT_ROLES)
def patient_preferences(request):
    identity = request.portal_identity
    patient_id = identity.patient_self_id
    overview = selectors.memory_overview(identity=identity, patient_id=patient_id, with_proposed=True)
    names = recorder_names(identity, [*overview.current, *overview.proposed, *overview.quarantined])
    current = [memory_row(m, me=identity.actor_sub, names=names) for m in overview.current]
    # a suggestion made before its preference last changed can only be turned down: it says so, with no Confirm
    overtaken = selectors.memory_proposals_stale(identity=identity, patient_id=patient_id, proposals=overview.proposed)
    proposed = [{**memory_row(m, me=identity.actor_sub, names=names), "overtaken": m.memory_id in overtaken,
                 "confirm_url": reverse("patient-confirm", args=[m.memory_id]),
                 "reject_url": reverse("patient-reject", args=[m.memory_id])} for m in overview.proposed]
    set_aside = [memory_row(m, me=identity.actor_sub, names=names) for m in overview.quarantined]
    profile = directory.patient_get(identity=identity, patient_id=patient_id)  # their own name: a greeting
    return render(request, "memory/patient_preferences.html",
                  {"current": current, "proposed": proposed, "set_aside": set_aside,
                   "name": profile["display_name"] if profile else None})


def _staff_read(request, patient_id: uuid.UUID, memory) -> None:
    """A staff page that shows one memory (to correct or quarantine it) is a read in the patient's history;
    recorded when the page is shown, not again when its form is sent."""
    if request.method == "GET":
        selectors.memory_shown(patient_id=patient_id, memory=memory)


def _correct(request, *, identity, patient_id: uuid.UUID, memory_id: uuid.UUID, template: str, done_url: str,
             labels: dict[str, str], extra: dict | None = None):
    memory = selectors.memory_get(identity=identity, patient_id=patient_id, memory_id=memory_id)
    replaced = None  # a correction sent from a page shown before another replaced the value: what it replaced
    if memory.state not in (MemoryState.ACTIVE, MemoryState.QUARANTINED):
        if request.method == "POST" and _correction_saved(request, identity, patient_id, memory):
            messages.info(request, "This correction had already been saved. Nothing more was changed.")
            return redirect(done_url)
        current = _current_version(identity, patient_id, memory) if request.method == "POST" else None
        if current is None:
            # replaced, expired or deleted since the page that links here was shown: "this has changed", not "no
            # page"
            raise Conflict("it is no longer the current value", code="not_correctable")
        replaced, memory, memory_id = memory, current, current.memory_id
    value = memory_value(memory) or {}
    spec = type_get(memory.memory_type)  # a correction is written with the type's latest version
    if spec is None:
        raise NotFound()
    if identity.is_patient(patient_id) and "patient" not in spec.writers:
        raise Forbidden("clinical facts are corrected by the care team", code="staff_only")  # before the form
    initial = FactForm.initial_from_fact(value)
    kwargs = {"spec": spec, "kind": value.get("kind"), "correcting": True, "current": value}
    if replaced is not None:
        # What was typed is shown again, to be sent for the value now current (nothing is saved unseen): the 409
        # page lost it.
        form = FactForm(request.POST, initial=initial, **kwargs)
        form.is_valid()
        form.add_error(None, "This has changed since your page was shown: someone saved another value. Nothing was "
                             "saved. What you typed is below: save it again to replace the value shown as now, or "
                             "cancel.")
        status = 409
        if not identity.is_patient(patient_id):
            selectors.memory_shown(patient_id=patient_id, memory=memory)  # the value now current is read here
    elif request.method == "POST":
        form = FactForm(request.POST, initial=initial, **kwargs)
        if form.is_valid():
            try:
                with transaction.atomic():  # nothing half-saved when the service refuses
                    review.memory_correct(identity=identity, patient_id=patient_id, memory_id=memory_id,
                                          fact=form.cleaned_data["fact"],
                                          valid_until=form.cleaned_data["valid_until_at"],
                                          review_by=form.cleaned_data["review_by_at"])
            except (ValidationFailed, Conflict) as exc:  # Conflict: it was replaced or expired meanwhile
                if isinstance(exc, Conflict) and selectors.memory_get(
                        identity=identity, patient_id=patient_id, memory_id=memory_id).state not in (
                        MemoryState.ACTIVE, MemoryState.QUARANTINED):
                    # replaced while this submit waited, by the same form's other submit (a double click) or
                    # another window: answered as a form sent after that had finished ("had already been saved", or
                    # what was typed, for the value now current), not "a superseded memory cannot be corrected"
                    return _correct(request, identity=identity, patient_id=patient_id, memory_id=memory_id,
                                    template=template, done_url=done_url, labels=labels, extra=extra)
                form.add_service_errors(exc.errors or [{"field": None, "message": exc.message}])
            else:
                messages.success(request, "Saved. The earlier value is kept in the history as replaced.")
                return redirect(done_url)
        status = 422 if form.errors else 200
    else:
        # the days typed were the ends of days in the page's zone (end_of_day): the same days, not their UTC dates
        if memory.valid_until:
            initial["valid_until"] = timezone.localtime(memory.valid_until).date()
        if memory.review_by:
            initial["review_by"] = timezone.localtime(memory.review_by).date()
        form = FactForm(initial=initial, **kwargs)
        status = 200
    row = _one_row(identity, memory, labels)
    if not identity.is_patient(patient_id):
        _staff_read(request, patient_id, memory)
    action = None
    if replaced is not None:  # the form now corrects the current value: it is sent to that value's page
        match = request.resolver_match
        action = reverse(match.url_name, kwargs={**match.kwargs, "memory_id": memory_id})
    return render(request, template, {"form": form, "row": row, "form_action": action, **(extra or {})},
                  status=status)


def _current_version(identity, patient_id: uuid.UUID, memory):
    """The value now current (active or quarantined) that replaced ``memory``, through its corrections, or None
    (expired, deleted, or replaced by nothing current)."""
    for _ in range(20):  # a bounded walk along superseded_by
        if memory.state in (MemoryState.ACTIVE, MemoryState.QUARANTINED):
            return memory
        if memory.state != MemoryState.SUPERSEDED or memory.superseded_by_id is None:
            return None
        try:
            memory = selectors.memory_get(identity=identity, patient_id=patient_id,
                                          memory_id=memory.superseded_by_id)
        except NotFound:
            return None
    return None


def _correction_saved(request, identity, patient_id: uuid.UUID, memory) -> bool:
    """Whether the correction form sent (again: a double click, the back button) for ``memory`` is what replaced
    it: the value that superseded it is this person's, and the very one the form holds."""
    if memory.state != MemoryState.SUPERSEDED or memory.superseded_by_id is None:
        return False
    try:
        successor = selectors.memory_get(identity=identity, patient_id=patient_id, memory_id=memory.superseded_by_id)
    except NotFound:
        return False
    value, spec = memory_value(memory) or {}, type_get(memory.memory_type)
    if spec is None or successor.created_by != identity.actor_sub or successor.agent_client_id:
        return False
    form = FactForm(request.POST, initial=FactForm.initial_from_fact(value), spec=spec, kind=value.get("kind"),
                    correcting=True, current=value)
    return form.is_valid() and form.cleaned_data["fact"] == memory_value(successor)


@require_http_methods(["GET", "POST"])
@portal_view(scopes=("memory:write",), roles=PATIENT_ROLES)
def patient_correct(request, memory_id: uuid.UUID):
    identity = request.portal_identity
    return _correct(request, identity=identity, patient_id=identity.patient_self_id, memory_id=memory_id,
                    template="memory/correct.html", done_url="patient-preferences", labels=SOURCE_LABELS,
                    extra={"cancel_url": "patient-preferences"})


@require_http_methods(["GET", "POST"])
@portal_view(scopes=("memory:write",), roles=PATIENT_ROLES)
def patient_delete(request, memory_id: uuid.UUID):
    """Deleting one preference is permanent, so it is asked twice, as deleting everything is: the card's button
    opens a page naming what will be erased, whose own button posts ``confirm=yes``. A post without it (an old
    page's one-click form) gets that page, and nothing is deleted."""
    identity = request.portal_identity
    memory = selectors.memory_get(identity=identity, patient_id=identity.patient_self_id, memory_id=memory_id)
    confirmed = request.method == "POST" and request.POST.get("confirm") == "yes"
    if confirmed and memory.state == MemoryState.DELETED:
        return _already_deleted(request, memory_id)  # the form sent again (a double click, the back button)
    if memory.state not in (MemoryState.ACTIVE, MemoryState.QUARANTINED, MemoryState.PROPOSED):
        # the page showed it as current; it was replaced (deleting the old value would keep the new one) or is gone
        raise Conflict("it is no longer the current value", code="not_current")
    if not deletion.patient_may_edit(memory):  # refused before the confirmation page, as the service refuses it
        raise Forbidden("clinical facts are removed by the care team", code="staff_only")
    if not confirmed:
        return render(request, "memory/delete.html", {"row": _one_row(identity, memory)})
    try:
        with transaction.atomic():
            receipt = deletion.memory_delete(identity=identity, patient_id=identity.patient_self_id,
                                             memory_id=memory_id)
    except NotFound:  # deleted by the same form's other submit, which held the row until it committed
        return _already_deleted(request, memory_id)
    return redirect("patient-receipt", deletion_id=receipt["deletion_id"])


def _already_deleted(request, memory_id: uuid.UUID):
    """A delete form sent again after its preference was deleted: that deletion's receipt, saying nothing more was
    changed ("This has changed" would read as if the deletion had not happened)."""
    receipt = _receipt_erasing(request.portal_identity, memory_id)
    if receipt is None:
        raise Conflict("it is no longer the current value", code="not_current")
    messages.info(request, "This preference had already been deleted. Nothing more was changed.")
    return redirect("patient-receipt", deletion_id=receipt["deletion_id"])


@require_http_methods(["GET", "POST"])
@portal_view(scopes=("memory:write",), roles=PATIENT_ROLES)
def patient_delete_all(request):
    """Erase everything, asked with a tick box. The form names when its page was shown: sent again (a double
    click, the back button) after an erasure since then, and erasing nothing more, it answers with that erasure's
    receipt instead of a second, empty one."""
    identity = request.portal_identity
    shown_at = timezone.now().isoformat()
    if request.method == "POST":
        if request.POST.get("confirm") != "yes":
            return render(request, "memory/delete_all.html",
                          {"error": "Tick the box to confirm that everything should be deleted.",
                           "shown_at": shown_at}, status=422)
        try:
            with transaction.atomic():
                receipt = deletion.memory_erase_patient(identity=identity, patient_id=identity.patient_self_id)
                earlier = _erasure_since(identity, request.POST.get("shown_at", ""), receipt)
                if earlier is not None:
                    raise _SentAgain(earlier)  # this one erased nothing: rolled back, no second receipt
        except _SentAgain as again:
            messages.info(request, "Everything had already been deleted: this is that deletion's receipt. Nothing "
                                   "more was changed.")
            return redirect("patient-receipt", deletion_id=again.receipt["deletion_id"])
        return redirect("patient-receipt", deletion_id=receipt["deletion_id"])
    return render(request, "memory/delete_all.html", {"shown_at": shown_at})


class _SentAgain(Exception):
    def __init__(self, receipt: dict):
        super().__init__("sent again")
        self.receipt = receipt


def _erasure_since(identity, shown_at: str, receipt: dict) -> dict | None:
    """The patient's own erasure of everything made after the form's page was shown, when ``receipt`` (a new
    one) erased nothing at all; else None."""
    try:
        since = parse_datetime(shown_at)
    except ValueError:
        since = None
    erased = (receipt.get("memory_ids") or receipt.get("representations") or receipt.get("stored_responses_removed")
              or any(section.get("erased") for section in receipt.get("other_copies", [])))
    if since is None or timezone.is_naive(since) or erased:
        return None
    return next((r for r in selectors.deletion_receipts(identity=identity, patient_id=identity.patient_self_id)
                 if r["deletion_id"] != receipt["deletion_id"] and r.get("scope") == "patient"
                 and r.get("reason_code") == "subject_request"
                 and (parse_datetime(r.get("requested_at") or "") or since) > since), None)


def _receipt_erasing(identity, memory_id: uuid.UUID, reason_code: str | None = None) -> dict | None:
    """The patient's deletion receipt that erased ``memory_id`` (for that reason, when one is named), or None."""
    return next((r for r in selectors.deletion_receipts(identity=identity, patient_id=identity.patient_self_id)
                 if str(memory_id) in r.get("memory_ids", [])
                 and reason_code in (None, r.get("reason_code"))), None)


@require_http_methods(["GET"])
@portal_view(scopes=("memory:read",), roles=PATIENT_ROLES)
def patient_receipt(request, deletion_id: uuid.UUID):
    identity = request.portal_identity
    receipt = selectors.deletion_receipt_audited(identity=identity, patient_id=identity.patient_self_id,
                                                 deletion_id=deletion_id)
    if receipt is None:
        raise NotFound()
    places = [{"place": RECEIPT_PLACES.get(line.get("target"), line.get("target")),
               "state": RECEIPT_STATES.get(line.get("state"), line.get("state")),
               "verified_at": _when(line.get("verified_at"))} for line in receipt.get("representations", [])]
    return render(request, "memory/receipt.html", {
        "receipt": receipt, "places": places, "count": len(receipt.get("memory_ids", [])),
        "requested_at": _when(receipt.get("requested_at")), "completed_at": _when(receipt.get("completed_at")),
        "reason": _reason(receipt)})


def _reason(receipt: dict) -> str:
    """Why a receipt was made, in the patient's words."""
    code = receipt.get("reason_code")
    return RECEIPT_REASONS.get(code, str(code or "").replace("_", " ").capitalize())


# A receipt in the patient's words: where each copy was, how far its erasure went, and why it was erased.
RECEIPT_PLACES = {"postgres": "The record itself", "vector": "Its entry in the search index",
                  "cache": "A cached copy", "provider_conversation": "A copy in a conversation with an assistant"}
RECEIPT_STATES = {"verified": "Erased, and checked", "deleted": "Erased", "deletion_pending": "Being erased",
                  "active": "Not erased yet"}
RECEIPT_REASONS = {"subject_request": "Your request", "proposal_rejected": "You turned down a suggestion",
                   "consent_revoked": "You withdrew the consent it was kept under",
                   "retention_elapsed": "It was kept as long as we may keep it",
                   "validity_ended": "The date you gave for it passed",
                   "proposal_lapsed": "A suggestion nobody confirmed in time"}


def _when(value: str | None) -> datetime | None:
    """A receipt's ISO timestamp as a local date and time to show (None stays None)."""
    parsed = parse_datetime(value) if isinstance(value, str) else None
    return timezone.localtime(parsed) if parsed is not None else None


@require_http_methods(["GET"])
@portal_view(scopes=("memory:read",), roles=PATIENT_ROLES)
def patient_receipts(request):
    identity = request.portal_identity
    # Newest first, a page at a time: every receipt there ever was made one page (a rejected or lapsed suggestion
    # makes one too)
    older = request.GET.get("older") or None
    try:
        receipts, next_cursor = selectors.deletion_receipts_audited(
            identity=identity, patient_id=identity.patient_self_id, limit=RECEIPTS_PAGE, cursor=older)
    except ValueError:  # an older-page link this page did not give
        return error_page(request, 400)
    return render(request, "memory/receipts.html", {"receipts": [
        {**r, "completed": _when(r.get("completed_at")), "count": len(r.get("memory_ids", [])),
         "reason": _reason(r)} for r in receipts],
        "paged": older is not None, "older": next_cursor})


RECEIPTS_PAGE = 50


@require_POST
@portal_view(scopes=("memory:write",), roles=PATIENT_ROLES)
def patient_confirm(request, memory_id: uuid.UUID):
    identity = request.portal_identity
    try:
        with transaction.atomic():
            review.memory_confirm(identity=identity, patient_id=identity.patient_self_id, memory_id=memory_id)
    except NotFound:
        # erased meanwhile with the value it repeated (the patient deleted that value in another window)
        if _receipt_erasing(identity, memory_id) is None:
            raise
        messages.info(request, "This suggestion was erased with a value you deleted. Nothing was confirmed.")
        return redirect("patient-preferences")
    except Conflict as exc:
        if exc.code == "proposal_stale":
            messages.error(request, "This suggestion was made before your preference last changed, so it cannot be "
                                    "confirmed. Reject it, or change the preference yourself.")
            return redirect("patient-preferences")
        # sent twice (a double click, the back button): only a confirmation makes a proposal current
        memory = selectors.memory_get(identity=identity, patient_id=identity.patient_self_id, memory_id=memory_id)
        if memory.state == MemoryState.EXPIRED and exc.code == "not_proposed":
            messages.error(request, "This suggestion waited too long and lapsed, so it cannot be confirmed. Nothing "
                                    "was changed; set the preference yourself if you want it.")
            return redirect("patient-preferences")
        if memory.state != MemoryState.ACTIVE:
            raise
        messages.info(request, "This suggestion had already been confirmed. Nothing more was changed.")
        return redirect("patient-preferences")
    messages.success(request, "Confirmed. It is now one of your preferences.")
    return redirect("patient-preferences")


@require_POST
@portal_view(scopes=("memory:write",), roles=PATIENT_ROLES)
def patient_reject(request, memory_id: uuid.UUID):
    identity = request.portal_identity
    try:
        with transaction.atomic():
            review.memory_reject(identity=identity, patient_id=identity.patient_self_id, memory_id=memory_id)
    except (NotFound, Conflict):
        # sent twice: the first rejection erased it ("Page not found" read as if it had never been there)
        if _receipt_erasing(identity, memory_id, "proposal_rejected") is None:
            raise
        messages.info(request, "This suggestion had already been rejected and erased. Nothing more was changed.")
        return redirect("patient-preferences")
    messages.success(request, "Rejected. The suggestion has been erased.")
    return redirect("patient-preferences")


# --- staff actions on one patient's memories -------------------------------------------------------------------
@require_http_methods(["GET", "POST"])
@portal_view(scopes=("memory:write",), roles=STAFF_ROLES)
def staff_correct(request, patient_id: uuid.UUID, memory_id: uuid.UUID):
    identity = request.portal_identity
    require_staff_patient(identity, patient_id)
    return _correct(request, identity=identity, patient_id=patient_id, memory_id=memory_id,
                    template="memory/staff_correct.html", labels=STAFF_SOURCE_LABELS,
                    done_url=f"/staff/patients/{patient_id}/",
                    extra={"patient_id": patient_id, "patient_name": staff_patient_name(identity, patient_id)})


@require_http_methods(["GET", "POST"])
@portal_view(scopes=("memory:write",), roles=STAFF_ROLES)
def staff_quarantine(request, patient_id: uuid.UUID, memory_id: uuid.UUID):
    identity = request.portal_identity
    require_staff_patient(identity, patient_id)
    memory = selectors.memory_get(identity=identity, patient_id=patient_id, memory_id=memory_id)
    _staff_read(request, patient_id, memory)
    if request.method == "POST" and memory.state == MemoryState.QUARANTINED:
        # the form sent twice (a double click, another window): "it changed meanwhile" read as if it had not
        messages.info(request, "This memory had already been quarantined. Nothing more was changed.")
        return redirect("staff-patient", patient_id=patient_id)
    form = ReasonForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        try:
            with transaction.atomic():
                review.memory_quarantine(identity=identity, patient_id=patient_id, memory_id=memory_id,
                                         reason_code=form.cleaned_data["reason_code"])
        except IllegalTransition:
            if selectors.memory_get(identity=identity, patient_id=patient_id,
                                    memory_id=memory_id).state == MemoryState.QUARANTINED:
                # the same form's other submit (a double click) quarantined it while this one waited
                messages.info(request, "This memory had already been quarantined. Nothing more was changed.")
                return redirect("staff-patient", patient_id=patient_id)
            form.add_error(None, "This memory can no longer be quarantined (it changed meanwhile).")
        else:
            messages.success(request, "Quarantined: it is no longer given to anyone until corrected.")
            return redirect("staff-patient", patient_id=patient_id)
    status = 422 if request.method == "POST" else 200
    return render(request, "memory/quarantine.html",
                  {"form": form, "row": _one_row(identity, memory, STAFF_SOURCE_LABELS),
                   "patient_id": patient_id, "patient_name": staff_patient_name(identity, patient_id)},
                  status=status)


@require_POST
@portal_view(scopes=("memory:write",), roles=STAFF_ROLES)
def staff_release(request, patient_id: uuid.UUID, memory_id: uuid.UUID):
    """Staff release a quarantined memory: it is current again (the value made current meanwhile is replaced)."""
    identity = request.portal_identity
    require_staff_patient(identity, patient_id)
    try:
        with transaction.atomic():
            review.memory_release(identity=identity, patient_id=patient_id, memory_id=memory_id)
    except IllegalTransition:  # before Conflict: its subclass
        messages.error(request, "This memory's validity has ended; it cannot be released. Record a new value.")
    except Conflict:  # sent twice (a double click, another window), or corrected meanwhile
        messages.info(request, "This memory is no longer quarantined. Nothing more was changed.")
    else:
        messages.success(request, "Released: it is the current value again.")
    return redirect("staff-patient", patient_id=patient_id)


def _staff_back(patient_id: uuid.UUID, memory) -> str:
    """The staff patient page, read for the purpose the memory is kept for (the page reads for one at a time)."""
    return f"{reverse('staff-patient', args=[patient_id])}?purpose={memory.consent_purpose}"


@require_POST
@portal_view(scopes=("memory:write",), roles=STAFF_ROLES)
def staff_confirm(request, patient_id: uuid.UUID, memory_id: uuid.UUID):
    """Staff holding a grant confirm a suggestion waiting for review, through the API's service (audited
    ``memory.confirm``): it becomes the current value. Only the patient's portal could review them."""
    identity = request.portal_identity
    require_staff_patient(identity, patient_id)
    memory = selectors.memory_get(identity=identity, patient_id=patient_id, memory_id=memory_id)
    try:
        with transaction.atomic():
            review.memory_confirm(identity=identity, patient_id=patient_id, memory_id=memory_id)
    except Conflict as exc:
        now = selectors.memory_get(identity=identity, patient_id=patient_id, memory_id=memory_id)
        if exc.code == "proposal_stale":
            messages.error(request, "This suggestion was made before the value on record last changed, so it cannot "
                                    "be confirmed. Reject it, or correct the value on record.")
        elif now.state == MemoryState.ACTIVE:  # sent twice (a double click, another window)
            messages.info(request, "This suggestion had already been confirmed. Nothing more was changed.")
        elif now.state == MemoryState.EXPIRED:
            messages.error(request, "This suggestion waited too long and lapsed, so it cannot be confirmed. "
                                    "Nothing was changed.")
        else:
            messages.info(request, "This suggestion is no longer waiting for review. Nothing was changed.")
        return redirect(_staff_back(patient_id, memory))
    messages.success(request, "Confirmed. It is now the value on record.")
    return redirect(_staff_back(patient_id, memory))


@require_POST
@portal_view(scopes=("memory:write",), roles=STAFF_ROLES)
def staff_reject(request, patient_id: uuid.UUID, memory_id: uuid.UUID):
    """Staff holding a grant reject a suggestion waiting for review, through the API's service (audited
    as the API's rejection, ``memory.delete`` with ``proposal_rejected``): its value is erased, with a receipt."""
    identity = request.portal_identity
    require_staff_patient(identity, patient_id)
    memory = selectors.memory_get(identity=identity, patient_id=patient_id, memory_id=memory_id)
    try:
        with transaction.atomic():
            review.memory_reject(identity=identity, patient_id=patient_id, memory_id=memory_id)
    except (NotFound, Conflict):
        try:
            now = selectors.memory_get(identity=identity, patient_id=patient_id, memory_id=memory_id).state
        except NotFound:  # read a moment ago: erased since
            now = MemoryState.DELETED
        if now == MemoryState.DELETED:  # sent twice: the first rejection erased it
            messages.info(request, "This suggestion had already been rejected and erased. Nothing more was changed.")
        else:
            messages.info(request, "This suggestion is no longer waiting for review. Nothing was changed.")
        return redirect(_staff_back(patient_id, memory))
    messages.success(request, "Rejected. The suggestion has been erased.")
    return redirect(_staff_back(patient_id, memory))
