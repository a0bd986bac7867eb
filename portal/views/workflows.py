"""Staff console: the workflow monitor. Counts per step of the workflows the signed-in identity may see (RLS),
drawn as an inline SVG bar chart (no JavaScript), and the organisation's needs_reconciliation queue (through the
narrow view that staff with ``workflow:reconcile`` read), where staff who asked the outside system record what they
learnt of an operation whose outcome is unknown (the REST resolve, through the same service)."""

from __future__ import annotations

import uuid

from django.contrib import messages
from django.shortcuts import redirect, render
from django.views.decorators.http import require_http_methods, require_POST

from directory import selectors as directory
from portal.context import error_page, portal_view
from workflows.api import OperationResolveIn
from workflows.definitions import NEEDS_RECONCILIATION
from workflows.reconciliation import operation_resolve
from workflows.selectors import VIEW_ORGANIZATION, workflow_monitor

BAR_HEIGHT = 28
BAR_GAP = 10
LABEL_WIDTH = 210
CHART_WIDTH = 640
RESOLVE_SCOPES = ("workflow:write", "workflow:reconcile")


def step_chart(counts: list[tuple[str, int]]) -> dict:
    """Geometry for a horizontal bar chart: one bar per step, scaled to the largest count."""
    largest = max((n for _, n in counts), default=0) or 1
    room = CHART_WIDTH - LABEL_WIDTH - 60
    bars = []
    for i, (step, n) in enumerate(counts):
        y = i * (BAR_HEIGHT + BAR_GAP)
        width = max(2, round(room * n / largest))
        bars.append({"step": step.replace("_", " "), "count": n, "y": y, "text_y": y + BAR_HEIGHT // 2 + 5,
                     "width": width, "value_x": LABEL_WIDTH + width + 8,
                     "attention": step == NEEDS_RECONCILIATION})
    height = max(1, len(bars)) * (BAR_HEIGHT + BAR_GAP)
    return {"bars": bars, "height": height, "width": CHART_WIDTH, "label_width": LABEL_WIDTH,
            "bar_height": BAR_HEIGHT, "label_x": LABEL_WIDTH - 8}


@require_http_methods(["GET"])
@portal_view(scopes=("workflow:read",), roles=("staff", "org_admin"))
def monitor(request):
    return _monitor_page(request)


def _monitor_page(request, *, resolving: dict | None = None):
    """The monitor; ``resolving``: a resolution sent back (422), what was chosen and typed kept in its row's form,
    with what is wrong beside it and in a summary at the top."""
    # The queue a page at a time: the monitor showed its oldest 100 and nothing of the rest
    after = request.GET.get("after") or None
    try:
        shown = workflow_monitor(identity=request.portal_identity, cursor=after)
    except ValueError:  # a next-page link this page did not give
        return error_page(request, 400)
    counts = shown.step_counts
    # by name, as the grants list names them: a shortened id ("00000000-000…") told no two patients apart
    names = directory.patient_names(identity=request.portal_identity,
                                    patient_ids={w["patient_id"] for w in shown.queue})
    sent_back = resolving["operation_id"] if resolving else None
    queue = [{**w, "patient_name": names.get(w["patient_id"]),
              "sent_back": sent_back is not None and w["operation_id"] == sent_back} for w in shown.queue]
    return render(request, "workflows/monitor.html", {
        "chart": step_chart(counts), "total": sum(n for _, n in counts), "queue": queue,
        "organisation_wide": shown.view == VIEW_ORGANIZATION, "resolving": resolving, "error": resolving is not None,
        # an administrator reads the organisation's queue, but records nothing for patients they hold no grant for
        "can_resolve": all(request.portal_identity.has_scope(s) for s in RESOLVE_SCOPES),
        "queue_paged": after is not None, "next_queue": shown.next_cursor},
        status=422 if resolving is not None else 200)


@require_POST
@portal_view(scopes=RESOLVE_SCOPES, roles=("staff", "org_admin"))
def resolve(request, workflow_id: uuid.UUID, operation_id: uuid.UUID):
    """Record what the outside system said of an operation whose outcome is unknown: sent (with its id) or not
    sent. Checked against the version the page showed; the same answer twice changes nothing; another is 409."""
    form: dict = {key: request.POST[key] for key in ("outcome", "external_id") if request.POST.get(key, "").strip()}
    version = request.POST.get("expected_version", "")
    if version.isascii() and version.isdigit() and len(version) < 19:  # the API's body holds it as a number
        form["expected_version"] = int(version)
    body = OperationResolveIn(data=form)
    if not body.is_valid():
        # the monitor again, the row's form as it was sent with what is wrong beside it (an error page lost both)
        return _monitor_page(request, resolving={
            "operation_id": operation_id, "outcome": request.POST.get("outcome", ""),
            "external_id": request.POST.get("external_id", "")[:64],
            "message": "Nothing was recorded. Choose sent, with the outside system's reference, or not sent (no "
                       "reference)."})
    _, changed = operation_resolve(identity=request.portal_identity, workflow_id=workflow_id,
                                   operation_id=operation_id, **body.validated_data)
    sent = body.validated_data["outcome"] == "sent"
    if changed:
        messages.success(request, "Recorded: the outside system " + ("has the request; the workflow moves on."
                                                                      if sent else "never got the request; it may "
                                                                      "be asked for again."))
    else:
        messages.info(request, "This had already been recorded. Nothing was changed.")
    return redirect("workflow-monitor")
