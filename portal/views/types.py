"""The staff console's memory types page: organisation administrators see every type their organisation may use
(built-in and their own), add a type and revise one by editing its definition (JSON). The same services as
``/v1/memory-types``: the same checks, the same refusal listing what a revision would break, the same audit."""

from __future__ import annotations

import json

from django.contrib import messages
from django.db import transaction
from django.shortcuts import redirect, render
from django.views.decorators.http import require_http_methods

from core.errors import Conflict, NotFound, ValidationFailed
from core.parsers import NotJson, strict_loads
from memory.types import NAME as TYPE_NAME
from memory.types import services as type_services
from memory.types import type_public, types_visible
from portal.context import portal_view
from portal.rows import ADMIN_ROLES, PURPOSE_LABELS

EXAMPLE = {
    "name": "dressing_change_preference", "memory_class": "preference", "label": "Dressing changes",
    "purposes": ["appointment_scheduling"], "writers": ["patient", "staff", "agent_proposal"], "supersession": [],
    "text": "Dressing changes: at {place}",
    "schema": {"type": "object", "additionalProperties": False, "required": ["place"],
               "properties": {"place": {"enum": ["home", "clinic"], "title": "Where"}}},
}


def _editable(spec) -> str:
    return json.dumps({k: v for k, v in spec.definition.items() if k != "name"}, indent=2)


@require_http_methods(["GET", "POST"])
@portal_view(scopes=("memory_type:write",), roles=ADMIN_ROLES)
def memory_types(request):
    identity = request.portal_identity
    problems: list[dict] = []
    breaks: list[dict] = []
    submitted = request.POST.get("definition", "")
    revising = request.POST.get("revise", "")
    based_on = request.POST.get("based_on", "")
    if request.method == "POST":
        try:
            if revising and not TYPE_NAME.fullmatch(revising):
                raise NotFound()
            definition = strict_loads(submitted)  # as the API reads it: bounded nesting, storable strings
            if not isinstance(definition, dict):
                raise NotJson("It is not a JSON object")
        except NotJson as exc:
            problems = [{"field": "definition", "message": f"The definition is not a JSON object: {exc}."}]
        except ValidationFailed as exc:
            problems = exc.errors
        except NotFound as exc:
            problems = [{"field": None, "message": exc.title}]
        else:
            try:
                with transaction.atomic():  # nothing half-saved when a check refuses
                    if revising:
                        # the version the form showed: a revision saved meanwhile is a conflict, never undone
                        spec, _ = type_services.memory_type_revise(
                            identity=identity, name=revising, definition=definition,
                            based_on_version=int(based_on) if based_on.isdigit() else None)
                    else:
                        spec = type_services.memory_type_create(identity=identity, definition=definition)
            except ValidationFailed as exc:
                problems = exc.errors or [{"field": None, "message": exc.message}]
            except type_services.RevisionBreaksMemories as exc:
                breaks = exc.errors
                problems = [{"field": None, "message": exc.message}]
            except (Conflict, NotFound) as exc:
                problems = [{"field": None, "message": exc.message if exc.code == "version_conflict" else exc.title}]
            else:
                messages.success(request, f"Saved {spec.label} as version {spec.version}.")
                return redirect("memory-types")
    types = [{"spec": s, "public": type_public(s), "purposes": [PURPOSE_LABELS.get(p, p) for p in s.purposes],
              "editable": _editable(s) if not s.builtin else None}
             for s in types_visible(org_id=identity.org_id)]
    return render(request, "memory/types.html", {
        "types": types, "problems": problems, "breaks": breaks, "revising": revising,
        "definition": submitted if (problems and not revising) else json.dumps(EXAMPLE, indent=2),
        "revision_text": submitted if revising else "", "based_on": based_on}, status=422 if problems else 200)
