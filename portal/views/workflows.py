"""Staff console: the workflow monitor. Counts per step of the workflows the signed-in identity may see (RLS),
drawn as an inline SVG bar chart (no JavaScript), and the organisation's needs_reconciliation queue (through the
narrow view that staff with ``workflow:reconcile`` read)."""

from __future__ import annotations

from django.shortcuts import render
from django.views.decorators.http import require_http_methods

from portal.context import portal_view
from workflows.definitions import NEEDS_RECONCILIATION
from workflows.selectors import VIEW_ORGANIZATION, workflow_monitor

BAR_HEIGHT = 28
BAR_GAP = 10
LABEL_WIDTH = 210
CHART_WIDTH = 640


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
    shown = workflow_monitor(identity=request.portal_identity)
    counts = shown.step_counts
    return render(request, "workflows/monitor.html", {
        "chart": step_chart(counts), "total": sum(n for _, n in counts), "queue": shown.queue,
        "organisation_wide": shown.view == VIEW_ORGANIZATION})
