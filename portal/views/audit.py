"""The auditor's page: the organisation's access history, what ``GET /v1/audit-events`` answers a token with
``audit:read`` (the same rows, the same fields, nothing more: ids, never names or values), newest first, a page at a
time, filtered by patient and by days. Each page read is itself audited (``audit.list``), as the API's read is."""

from __future__ import annotations

import datetime
from urllib.parse import urlencode

from django import forms
from django.shortcuts import render
from django.utils import timezone
from django.views.decorators.http import require_http_methods

from core import audit
from core.models import AuditEvent
from portal.context import error_page, portal_view
from portal.forms import DateInput
from portal.rows import PURPOSE_LABELS, agent_label

AUDIT_ROLES = ("auditor", "org_admin")  # the portal's roles holding audit:read without a patient of their own
PAGE_SIZE = 100


class AuditFilterForm(forms.Form):
    patient = forms.UUIDField(label="Patient id (optional)", required=False,
                              help_text="The patient's id, as each row shows it")
    since = forms.DateField(label="From (optional)", required=False, widget=DateInput())
    until = forms.DateField(label="To (optional)", required=False, widget=DateInput(),
                            help_text="Including the whole of that day")

    def clean(self):
        data = super().clean()
        since, until = data.get("since"), data.get("until")
        if since and until and since > until:
            self.add_error("until", "Must be the same day as “From” or later.")
        return data


def _start_of_day(day: datetime.date) -> datetime.datetime:
    """The start of a day in the page's zone (a day typed in a form is a day there)."""
    return timezone.make_aware(datetime.datetime.combine(day, datetime.time()), timezone.get_current_timezone())


def _row(event: AuditEvent) -> dict:
    who = event.actor_sub
    if event.agent_client_id:
        who = f"{agent_label(event.agent_client_id)} for {event.actor_sub}"
    return {"event": event, "who": who,
            "why": PURPOSE_LABELS.get(event.purpose, event.purpose) if event.purpose else "Not stated",
            "refused": event.outcome != "success"}


@require_http_methods(["GET"])
@portal_view(scopes=("audit:read",), roles=AUDIT_ROLES)
def access_history(request):
    identity = request.portal_identity
    form = AuditFilterForm({key: request.GET.get(key, "") for key in ("patient", "since", "until")})
    if not form.is_valid():  # nothing read, nothing audited: the filters come back with what is wrong
        return render(request, "portal/access_history.html", {"form": form, "events": None}, status=422)
    data = form.cleaned_data
    until = data["until"]
    cursor = request.GET.get("older")
    try:
        page = audit.organization_history(
            identity=identity, patient_id=data["patient"], cursor=cursor, limit=PAGE_SIZE,
            since=_start_of_day(data["since"]) if data["since"] else None,
            before=_start_of_day(until + datetime.timedelta(days=1)) if until and until < datetime.date.max else None)
    except ValueError:  # an older-page link this page did not give
        return error_page(request, 400)
    filters = {key: request.GET[key] for key in ("patient", "since", "until") if request.GET.get(key)}
    return render(request, "portal/access_history.html", {
        "form": form, "events": [_row(e) for e in page.items], "paged": bool(cursor), "filtered": bool(filters),
        "newest_query": urlencode(filters),
        "older_query": urlencode({**filters, "older": page.next_cursor}) if page.next_cursor else ""})
