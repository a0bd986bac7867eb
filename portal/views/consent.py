"""Portal pages for consents and access: a patient's consents (and revoking one); the staff console's patient list
(only patients the signed-in staff member holds active grants for), a patient's page, recording a consent with its
evidence; the organisation administrator's grants (grant and revoke, with a reason).

All through :func:`portal.context.portal_view` and the same services and selectors as the API.
"""

from __future__ import annotations

import uuid
from datetime import datetime
from urllib.parse import urlencode

from django import forms
from django.contrib import messages
from django.db import transaction
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils import timezone
from django.utils.formats import date_format
from django.views.decorators.http import require_http_methods, require_POST

from consent import selectors, services
from consent.models import AccessGrant, ConsentRecord
from conversations import selectors as conversation_selectors
from core.authentication import well_formed_subject
from core.cursors import cursor_key, key_cursor
from core.errors import Conflict, NotFound, ValidationFailed
from core.identity import Identity
from core.vocabulary import PURPOSES
from directory import selectors as directory
from memory import selectors as memory_selectors
from portal.context import error_page, portal_view
from portal.forms import DateInput, end_of_day, search_text
from portal.oidc import ROLE_AUDITOR, SESSION_KEY
from portal.rows import (
    ADMIN_ROLES,
    PATIENT_ROLES,
    PURPOSE_LABELS,
    STAFF_ROLES,
    STAFF_SOURCE_LABELS,
    memory_row,
    recorded_by,
    recorder_names,
)

STATUS_TEXT = {"granted": "Given", "revoked": "Withdrawn", "expired": "Expired"}


def consent_row(record: ConsentRecord, me: str, names: dict[str, str] | None = None) -> dict:
    agent = record.recorded_by.removeprefix("agent:") if record.recorded_by.startswith("agent:") else None
    return {"record": record, "id": record.consent_record_id,
            "purpose": PURPOSE_LABELS.get(record.purpose, record.purpose),
            "status": STATUS_TEXT.get(record.status, record.status), "active": record.status == "granted",
            "given_at": record.granted_at, "expires_at": record.expires_at, "revoked_at": record.revoked_at,
            "recorded_by": recorded_by(record.recorded_by, me=me, agent=agent, names=names or {}),
            "evidence": record.evidence_ref}


def once_more_if_raced(write):
    """``write()``, and once more when the same form's other submit (a double click) created the row meanwhile
    (``concurrent_update_retry``): the second finds that row, as a form sent again after the first had finished
    does, and answers with it (created=False), never "This has changed"."""
    try:
        return write()
    except Conflict as exc:
        if exc.code != "concurrent_update_retry":
            raise
    return write()


# --- patient ---------------------------------------------------------------------------------------------------
@require_http_methods(["GET"])
@portal_view(scopes=("consent:read",), roles=PATIENT_ROLES)
def patient_consents(request):
    identity = request.portal_identity
    records = selectors.consent_list_audited(identity=identity, patient_id=identity.patient_self_id)
    names = recorder_names(identity, consents=records)
    rows = [consent_row(c, identity.actor_sub, names) for c in records]
    in_force = {row["record"].purpose for row in rows if row["active"]}
    return render(request, "consent/patient_consents.html",
                  {"consents": rows, "may_give": [(p, label) for p, label in PURPOSES if p not in in_force]})


# What a consent the patient gives in the portal names as its evidence: their own action, signed in.
PORTAL_EVIDENCE = "given by the patient in the portal"


@require_POST
@portal_view(scopes=("consent:write",), roles=PATIENT_ROLES)
def patient_give(request):
    """The patient gives (or gives again, after withdrawing) a consent for one purpose. Giving one already in force
    changes nothing and says so."""
    identity = request.portal_identity
    purpose = request.POST.get("purpose", "")
    if purpose not in PURPOSE_LABELS:
        return error_page(request, 400, title="This is not a purpose we ask consent for",
                          message="Go back and choose one of the purposes listed.")
    try:
        _, created = once_more_if_raced(lambda: services.consent_record(
            identity=identity, patient_id=identity.patient_self_id, purpose=purpose, evidence_ref=PORTAL_EVIDENCE))
    except Conflict as exc:
        if exc.code != "consent_exists":
            raise
        created = False
    if created:
        messages.success(request, f"Consent given for: {PURPOSE_LABELS[purpose]}.")
    else:
        messages.info(request, f"Your consent for {PURPOSE_LABELS[purpose]} is already in force. Nothing was "
                               "changed.")
    return redirect("patient-consents")


@require_http_methods(["GET", "POST"])
@portal_view(scopes=("consent:write",), roles=PATIENT_ROLES)
def patient_revoke(request, consent_id: uuid.UUID):
    """Withdrawing a consent stops the use of everything kept under it at once, so it is asked twice, as deleting
    is: the card's link opens a page naming the purpose and what withdrawing does, whose own button posts
    ``confirm=yes``. A post without it (an old page's one-click form) gets that page, and nothing is withdrawn."""
    identity = request.portal_identity
    confirmed = request.method == "POST" and request.POST.get("confirm") == "yes"
    # Locked until the end of the request: of two submits of the same form (a double click, a stale page), the
    # second waits for the first and then reads it as withdrawn. The service's lock on the same row is then ours.
    consents = selectors.consent_list(identity=identity, patient_id=identity.patient_self_id)
    earlier = ((consents.select_for_update() if confirmed else consents).filter(consent_record_id=consent_id)
               .values_list("status", "revoked_at", "purpose").first())
    if earlier is None:  # as the service answers one that is not theirs
        raise NotFound()
    status, revoked_at, purpose = earlier
    if status == ConsentRecord.Status.REVOKED:
        when = f" on {date_format(timezone.localtime(revoked_at), 'j M Y, H:i T')}" if revoked_at else ""
        messages.info(request, f"This consent for {PURPOSE_LABELS.get(purpose, purpose)} had already been "
                               f"withdrawn{when}. Nothing was changed.")
        return redirect("patient-consents")
    if not confirmed:
        return render(request, "consent/patient_revoke.html",
                      {"purpose": PURPOSE_LABELS.get(purpose, purpose), "consent_id": consent_id})
    record = services.consent_revoke(identity=identity, patient_id=identity.patient_self_id, consent_id=consent_id)
    messages.success(request, f"Consent withdrawn for: {PURPOSE_LABELS.get(record.purpose, record.purpose)}. "
                              "Information kept under it is no longer used.")
    return redirect("patient-consents")


# --- staff -----------------------------------------------------------------------------------------------------
def require_staff_patient(identity: Identity, patient_id: uuid.UUID) -> list[AccessGrant]:
    """The staff member's active grants for this patient, or NotFound (the same answer as an unknown patient)."""
    grants = selectors.grant_list_for_actor(identity=identity, patient_id=patient_id)
    if not grants:
        raise NotFound().about(patient_id=patient_id)
    return grants


def staff_patient_name(identity: Identity, patient_id: uuid.UUID) -> str:
    """The name a staff page acting on one patient shows, so nobody acts on the wrong patient from a tab left open
    (the directory's name, as the grants list shows it; the page's own read is audited)."""
    return directory.patient_names(identity=identity, patient_ids=[patient_id]).get(patient_id) or "Unnamed patient"


@require_http_methods(["GET"])
@portal_view(roles=("staff", "org_admin", "auditor"))
def staff_patients(request):
    identity = request.portal_identity
    if request.session.get(SESSION_KEY, {}).get("role") == ROLE_AUDITOR:
        # an auditor holds no grants and reads no patient's records: their page is the access history
        return redirect("access-history")
    grants = selectors.grant_list_for_actor(identity=identity)
    patients: dict[uuid.UUID, list[str]] = {}
    for g in grants:
        patients.setdefault(g.patient_id, []).append(PURPOSE_LABELS.get(g.purpose, g.purpose))
    q = search_text(request.GET, "q")
    found = None
    next_found = None
    after = request.GET.get("after") or None
    if len(q) >= 2:
        # Row-level security shows only patients this staff member holds a grant for (all of them, for an
        # administrator), whichever of name, MRN or date of birth was typed. 20 at a time: namesakes (the same
        # name, the same or no date of birth) cannot be told apart by typing more, so the next ones are a link away
        try:
            found, next_found = directory.patient_search_page(identity=identity, q=q, cursor=after)
        except ValueError:  # a next-matches link this page did not give
            return error_page(request, 400)
        for item in found:
            item["mine"] = uuid.UUID(item["patient_id"]) in patients
    try:
        shown, next_patients = _patients_page(identity, list(patients), request.GET.get("patients") or None)
    except ValueError:  # a next-patients link this page did not give
        return error_page(request, 400)
    # only the patients shown are read (and audited): the page read and audited every patient the grants name
    profiles = {uuid.UUID(p["patient_id"]): p for p in directory.patients_get_audited(identity=identity,
                                                                                        patient_ids=shown)}
    rows = [{"patient_id": p, "purposes": patients[p], "profile": profiles.get(p)} for p in shown]
    kept = {"q": q} if q else {}
    return render(request, "consent/staff_patients.html", {
        "patients": rows, "patients_paged": request.GET.get("patients") is not None,
        "first_patients_query": urlencode(kept),
        "next_patients_query": urlencode({**kept, "patients": next_patients}) if next_patients else "",
        "q": q, "found": found, "more_found": next_found is not None, "q_too_short": 0 < len(q) < 2,
        "found_paged": after is not None and found is not None, "first_found_query": urlencode({"q": q}),
        "next_found_query": urlencode({"q": q, "after": next_found}) if next_found else ""})


PATIENTS_PAGE = 100


def _patients_page(identity: Identity, patient_ids: list[uuid.UUID],
                   cursor: str | None) -> tuple[list[uuid.UUID], str | None]:
    """``PATIENTS_PAGE`` of the patients a staff member holds grants for, by name in any letter case and with or
    without accents (the unnamed last), after
    ``cursor``, and the cursor of the next ones (None on the last page). The names are read whole (not audited);
    the page reads and audits only the profiles it shows. ValueError for a cursor it did not give."""
    names = directory.patient_names(identity=identity, patient_ids=patient_ids)
    # as people read names: without regard to letter case or accents ("adam", "Émile", "Zofia"; code point
    # order put every capital before "adam" and "É" after "Z"), then by id
    keys = sorted(("1" if p not in names else "0", directory.fold(names.get(p, "")).casefold(), str(p))
                  for p in patient_ids)
    if cursor is not None:
        after = cursor_key(cursor, 3)
        keys = [k for k in keys if k > after]
    page = keys[:PATIENTS_PAGE]
    return [uuid.UUID(k[2]) for k in page], key_cursor(page[-1]) if len(keys) > PATIENTS_PAGE else None


@require_http_methods(["GET"])
@portal_view(scopes=("memory:read", "consent:read"), roles=STAFF_ROLES)
def staff_patient(request, patient_id: uuid.UUID):
    identity = request.portal_identity
    grants = require_staff_patient(identity, patient_id)
    # The page reads for one purpose its grants name, and the patient's history names it: the first of them, or
    # the one chosen (?purpose=); staff holding several switch between them. Another purpose is not found, as a
    # patient without a grant is.
    purposes = sorted({g.purpose for g in grants})
    purpose = request.GET.get("purpose") or purposes[0]
    if purpose not in purposes:
        raise NotFound().about(patient_id=patient_id)
    # The flags a page at a time (the API's pages): a patient with more than 100 flagged conversations showed the
    # first 100 and nothing of the rest. Read first, so a forged link (400) reads nothing else.
    flags_cursor = request.GET.get("flags") or None
    try:
        flag_page, older_flags = conversation_selectors.care_team_flags(identity=identity, patient_id=patient_id,
                                                                        purpose=purpose, cursor=flags_cursor)
    except ValueError:  # a more-flags link this page did not give
        return error_page(request, 400)
    overview = memory_selectors.memory_overview(identity=identity, patient_id=patient_id, purpose=purpose,
                                                with_proposed=True)
    records = selectors.consents_as_now(selectors.consent_list(identity=identity, patient_id=patient_id))
    names = recorder_names(identity, [*overview.current, *overview.proposed, *overview.quarantined], records)
    memories = [memory_row(m, me=identity.actor_sub, labels=STAFF_SOURCE_LABELS, names=names)
                for m in overview.current]
    # suggestions waiting for review, as the patient's page shows them: one made before its value last changed can
    # only be rejected
    overtaken = memory_selectors.memory_proposals_stale(identity=identity, patient_id=patient_id,
                                                        proposals=overview.proposed)
    proposed = [{**memory_row(m, me=identity.actor_sub, labels=STAFF_SOURCE_LABELS, names=names),
                 "overtaken": m.memory_id in overtaken,
                 "confirm_url": reverse("staff-confirm", args=[patient_id, m.memory_id]),
                 "reject_url": reverse("staff-reject", args=[patient_id, m.memory_id])} for m in overview.proposed]
    quarantined = [memory_row(m, me=identity.actor_sub, labels=STAFF_SOURCE_LABELS, names=names)
                   for m in overview.quarantined]
    # beside the memories they govern: the page's read is recorded once, as memory.list, not a consent.list too
    consents = [consent_row(c, identity.actor_sub, names) for c in records]
    profile = directory.patient_get_audited(identity=identity, patient_id=patient_id, purpose=purpose)
    flags = [{**f, "label": f["category"].replace("_", " ").capitalize(),
              "purpose_label": PURPOSE_LABELS.get(f["purpose"], f["purpose"]),
              "flagged_at": _stored_time(f["flagged_at"])}
             for f in flag_page]
    return render(request, "consent/staff_patient.html",
                  {"patient_id": patient_id, "profile": profile, "memories": memories, "quarantined": quarantined,
                   "proposed": proposed,
                   "consents": consents, "flags": flags, "purpose": PURPOSE_LABELS.get(purpose, purpose),
                   "flags_paged": flags_cursor is not None, "first_flags_query": urlencode({"purpose": purpose}),
                   "older_flags_query": urlencode({"purpose": purpose, "flags": older_flags}) if older_flags else "",
                   "other_purposes": [(p, PURPOSE_LABELS.get(p, p)) for p in purposes if p != purpose]})


def _stored_time(value: str | None) -> datetime | None:
    """A time kept as ISO text in a JSON column, as a datetime the page shows in its zone (the text was UTC, cut
    to the minute and shown unnamed beside times in the page's zone)."""
    try:
        parsed = datetime.fromisoformat(value) if value else None
    except ValueError:
        return None
    return parsed if parsed is not None and timezone.is_aware(parsed) else None


class ConsentForm(forms.Form):
    purpose = forms.ChoiceField(label="Purpose", choices=[("", "Choose a purpose")] + PURPOSES)
    evidence_ref = forms.CharField(label="Evidence", max_length=255, min_length=3,
                                   help_text="Where the patient's consent is documented, e.g. the signed form's "
                                             "reference number")
    expires_at = forms.DateField(label="Expires on (optional)", required=False,
                                 widget=DateInput())

    def clean_evidence_ref(self):
        value = self.cleaned_data["evidence_ref"].strip()
        if len(value) < 3:
            raise forms.ValidationError("Give the reference of the document that records the consent.")
        return value

    def clean_expires_at(self):
        value = self.cleaned_data.get("expires_at")
        if value is not None and value <= timezone.localdate():
            raise forms.ValidationError("Must be a date in the future.")
        return value




@require_http_methods(["GET", "POST"])
@portal_view(scopes=("consent:write",), roles=STAFF_ROLES)
def staff_record_consent(request, patient_id: uuid.UUID):
    identity = request.portal_identity
    grants = require_staff_patient(identity, patient_id)
    allowed = {g.purpose for g in grants}
    form = ConsentForm(request.POST or None)
    form.fields["purpose"].choices = [("", "Choose a purpose")] + [p for p in PURPOSES if p[0] in allowed]
    if request.method == "POST" and form.is_valid():
        def record():
            with transaction.atomic():
                return services.consent_record(
                    identity=identity, patient_id=patient_id, purpose=form.cleaned_data["purpose"],
                    evidence_ref=form.cleaned_data["evidence_ref"],
                    expires_at=end_of_day(form.cleaned_data.get("expires_at")))

        try:
            _, created = once_more_if_raced(record)
        except ValidationFailed as exc:
            for error in exc.errors:
                form.add_error(error["field"] if error.get("field") in form.fields else None, error["message"])
        except Conflict as exc:
            form.add_error(None, "A consent for this purpose is already in force with another expiry; withdraw it "
                           "first." if exc.code == "consent_exists" else
                           "A consent for this purpose was recorded at the same time; reload the page.")
        else:
            messages.success(request, "Consent recorded." if created else
                             "An active consent for this purpose already exists; nothing was changed.")
            return redirect("staff-patient", patient_id=patient_id)
    status = 422 if request.method == "POST" else 200
    return render(request, "consent/staff_record_consent.html",
                  {"form": form, "patient_id": patient_id,
                   "patient_name": staff_patient_name(identity, patient_id)}, status=status)


# --- organisation administrators: access grants -----------------------------------------------------------------
class GrantForm(forms.Form):
    """The patient and the staff member are chosen from the directory search results (radio buttons), never
    typed as ids; the submitted values are still checked as an account id and a UUID."""

    # any subject a token may carry (an e-mail address, another provider's "<issuer>#<sub>")
    actor_sub = forms.CharField(label="Staff member", max_length=255,
                                error_messages={"required": "Find the staff member above and choose them."},
                                widget=forms.RadioSelect)
    patient_id = forms.UUIDField(label="Patient", widget=forms.RadioSelect,
                                 error_messages={"invalid": "Enter a valid patient id (UUID).",
                                                 "required": "Find the patient above and choose them."})
    purpose = forms.ChoiceField(label="Purpose", choices=[("", "Choose a purpose")] + PURPOSES)
    expires_at = forms.DateField(label="Expires on (optional)", required=False,
                                 widget=DateInput())
    reason = forms.CharField(label="Reason", max_length=300, widget=forms.Textarea(attrs={"rows": 2}),
                             help_text="Why this person needs access (kept with the grant)")

    def clean_actor_sub(self):
        value = self.cleaned_data["actor_sub"]
        if not well_formed_subject(value):
            raise forms.ValidationError("Find the staff member above and choose them.", code="invalid")
        return value

    def clean_reason(self):
        value = self.cleaned_data["reason"].strip()
        if len(value) < 5:
            raise forms.ValidationError("Give a reason of at least 5 characters.")
        return value

    def clean_expires_at(self):
        value = self.cleaned_data.get("expires_at")
        if value is not None and value <= timezone.localdate():
            raise forms.ValidationError("Must be a date in the future.")
        return value


class RevokeForm(forms.Form):
    reason = forms.CharField(label="Reason for ending access", max_length=200)

    def clean_reason(self):
        value = self.cleaned_data["reason"].strip()
        if len(value) < 5:
            raise forms.ValidationError("Give a reason of at least 5 characters.")
        return value


GRANTS_PAGE = 100


def _grant_rows(identity: Identity, cursor: str | None = None) -> tuple[list[dict], str | None]:
    """A page of the organisation's grants as the page shows them, and the next page's cursor. ValueError, nothing
    read, for a cursor it did not give."""
    now = timezone.now()
    grants, next_cursor = selectors.grant_list_audited(identity=identity, cursor=cursor, limit=GRANTS_PAGE)
    patients = directory.patient_names(identity=identity, patient_ids={g.patient_id for g in grants})
    staff = directory.staff_names(identity=identity, subs={g.actor_sub for g in grants})
    rows = []
    for g in grants:
        active = g.revoked_at is None and (g.expires_at is None or g.expires_at > now)
        rows.append({"grant": g, "id": g.grant_id, "purpose": PURPOSE_LABELS.get(g.purpose, g.purpose),
                     "active": active, "patient_name": patients.get(g.patient_id),
                     "staff_name": staff.get(g.actor_sub)})
    return rows, next_cursor


def _patient_choice(p: dict) -> tuple[str, str]:
    born = f", born {p['birth_date']}" if p["birth_date"] else ""
    ids = "".join(f", {i['value']}" for i in p["identifiers"])
    return p["patient_id"], f"{p['display_name']}{born}{ids}"


def _search_choices(identity: Identity, params) -> dict:
    """The administrator's two search boxes: patients by name, MRN or date of birth; staff by name."""
    patient_q = search_text(params, "patient_q")
    staff_q = search_text(params, "staff_q")
    # 20 matches at a time, the next ones a link away (namesakes cannot be told apart by typing more): ValueError
    # for a link the page did not give
    patient_after, staff_after = params.get("patient_after") or None, params.get("staff_after") or None
    patients, next_patients = directory.patient_search_page(identity=identity, q=patient_q, cursor=patient_after) if (
        len(patient_q) >= 2) else ([], None)
    staff, next_staff = (directory.staff_search_page(identity=identity, q=staff_q, cursor=staff_after) if staff_q
                         else ([], None))
    kept = {"patient_q": patient_q, "staff_q": staff_q}
    return {"patient_q": patient_q, "staff_q": staff_q, "patient_q_too_short": 0 < len(patient_q) < 2,
            "more_patients": next_patients is not None, "more_staff": next_staff is not None,
            "patient_after": patient_after or "", "staff_after": staff_after or "",
            "next_patients_query": urlencode({**kept, "staff_after": staff_after or "", "patient_after": next_patients})
            if next_patients else "",
            "next_staff_query": urlencode({**kept, "patient_after": patient_after or "", "staff_after": next_staff})
            if next_staff else "",
            "patient_choices": [_patient_choice(p) for p in patients],
            "staff_choices": [(s["actor_sub"], f"{s['display_name']} ({s['actor_sub']})") for s in staff]}


@require_http_methods(["GET", "POST"])
@portal_view(scopes=("grant:write",), roles=ADMIN_ROLES)
def admin_access(request):
    identity = request.portal_identity
    try:
        search = _search_choices(identity, request.POST if request.method == "POST" else request.GET)
    except ValueError:  # a next-matches link this page did not give
        return error_page(request, 400)
    form = GrantForm(request.POST or None)
    form.fields["patient_id"].widget.choices = search["patient_choices"]
    form.fields["actor_sub"].widget.choices = search["staff_choices"]
    if request.method == "POST" and form.is_valid():
        data = form.cleaned_data
        def grant():
            with transaction.atomic():
                return services.grant_create(identity=identity, patient_id=data["patient_id"],
                                             actor_sub=data["actor_sub"], purpose=data["purpose"],
                                             expires_at=end_of_day(data.get("expires_at")), reason=data["reason"])

        try:
            _, created = once_more_if_raced(grant)
        except ValidationFailed as exc:
            for error in exc.errors:
                form.add_error(error["field"] if error.get("field") in form.fields else None, error["message"])
        except Conflict as exc:
            form.add_error(None, "That person already has this access with another expiry; end it first to grant "
                           "it anew." if exc.code == "grant_exists" else
                           "The same grant was created at the same time; reload the page.")
        else:
            messages.success(request, "Access granted." if created else
                             "That person already has this access; nothing was changed.")
            return redirect("admin-access")
    status = 422 if request.method == "POST" else 200
    # The grants newest first, a page at a time: the page showed the newest 500 and no way to the older ones
    older = request.GET.get("older") or None
    try:
        grants, next_cursor = _grant_rows(identity, older)
    except ValueError:  # an older-page link this page did not give
        return error_page(request, 400)
    kept = {key: request.GET[key] for key in ("patient_q", "staff_q") if request.GET.get(key)}
    return render(request, "consent/admin_access.html", {
        "form": form, "grants": grants, "revoke_form": RevokeForm(), **search, "grants_paged": older is not None,
        "newest_grants_query": urlencode(kept),
        "older_grants_query": urlencode({**kept, "older": next_cursor}) if next_cursor else ""}, status=status)


@require_POST
@portal_view(scopes=("grant:write",), roles=ADMIN_ROLES)
def admin_revoke(request, grant_id: uuid.UUID):
    identity = request.portal_identity
    form = RevokeForm(request.POST)
    if form.is_valid():
        # Locked until the end of the request: of two submits at once (a double click), the second waits for the
        # first and then reads the access as ended (its reason was not kept), as a submit after it had finished does
        ended = selectors.grant_revoked_at_locked(identity=identity, grant_id=grant_id)
        if ended is not None:
            when = date_format(timezone.localtime(ended), "j M Y, H:i T")
            messages.info(request, f"This access had already ended on {when}. Nothing was changed.")
            return redirect("admin-access")
        try:
            services.grant_revoke(identity=identity, grant_id=grant_id, reason=form.cleaned_data["reason"])
        except ValidationFailed as exc:  # the reason does not fit beside the grant's own
            for error in exc.errors:
                form.add_error("reason", error["message"])
    if not form.is_valid():
        return render(request, "consent/admin_revoke.html",
                      {"form": form, "grant_id": grant_id,
                       "grant": selectors.grant_get(identity=identity, grant_id=grant_id)}, status=422)
    messages.success(request, "Access ended.")
    return redirect("admin-access")
