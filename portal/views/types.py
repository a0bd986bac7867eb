"""The staff console's memory types page: organisation administrators see every type their organisation may use
(built-in and their own), add a type, revise one by editing its definition (JSON), and reword what any type
answers for their organisation (one phrase a line). The same services as ``/v1/memory-types``: the same checks,
the same refusal listing what a revision would break, the same audit."""

from __future__ import annotations

import json

from django.contrib import messages
from django.db import transaction
from django.shortcuts import redirect, render
from django.views.decorators.http import require_http_methods

from core.errors import Conflict, NotFound, ValidationFailed
from core.parsers import NotJson, strict_loads
from memory.types import NAME as TYPE_NAME
from memory.types import (
    DefinitionInvalid,
    TypeSpec,
    definition_check,
    serves_overrides,
    type_get,
    type_public,
    types_visible,
)
from memory.types import services as type_services
from portal.context import portal_view
from portal.rows import ADMIN_ROLES, PURPOSE_LABELS

EXAMPLE = {
    "name": "dressing_change_preference", "memory_class": "preference", "label": "Dressing changes",
    "serves": ["where the patient's dressings are changed", "whether a district nurse visits at home"],
    "purposes": ["appointment_scheduling"], "writers": ["patient", "staff", "agent_proposal"], "supersession": [],
    "text": "Dressing changes: at {place}",
    "schema": {"type": "object", "additionalProperties": False, "required": ["place"],
               "properties": {"place": {"enum": ["home", "clinic"], "title": "Where"}}},
}


def _editable(spec) -> str:
    return json.dumps({k: v for k, v in spec.definition.items() if k != "name"}, indent=2)


def _save_definition(identity, post) -> tuple[list[dict], list[dict], str | None]:
    """Add a type, or revise the one named in ``revise``: (problems, what a revision would break, the message
    when saved)."""
    revising, based_on = post.get("revise", ""), post.get("based_on", "")
    try:
        if revising and not TYPE_NAME.fullmatch(revising):
            raise NotFound()
        definition = strict_loads(post.get("definition", ""))  # as the API reads it: bounded nesting, storable strings
        if not isinstance(definition, dict):
            raise NotJson("It is not a JSON object")
    except NotJson as exc:
        return [{"field": None, "message": f"The definition is not a JSON object: {exc}."}], [], None
    except ValidationFailed as exc:
        return exc.errors, [], None
    except NotFound as exc:
        return [{"field": None, "message": exc.title}], [], None
    try:
        with transaction.atomic():  # nothing half-saved when a check refuses
            if revising:
                # the version the form showed: a revision saved meanwhile is a conflict, never undone
                spec, created = type_services.memory_type_revise(
                    identity=identity, name=revising, definition=definition,
                    based_on_version=int(based_on) if based_on.isdigit() else None)
            else:
                spec, created = type_services.memory_type_create(identity=identity, definition=definition), True
    except type_services.TypeExists as exc:
        # the add form sent twice (a double click, the back button): what the first added, not "it exists"
        spec = _added_before(identity, definition)
        if spec is None:
            return [{"field": None, "message": exc.title}], [], None
        created = False
    except ValidationFailed as exc:
        return exc.errors or [{"field": None, "message": exc.message}], [], None
    except type_services.RevisionBreaksMemories as exc:
        return [{"field": None, "message": exc.message}], exc.errors, None
    except (Conflict, NotFound) as exc:
        return [{"field": None, "message": exc.message if exc.code == "version_conflict" else exc.title}], [], None
    if not created:
        return [], [], f"{spec.label} version {spec.version} already holds this definition. Nothing more was changed."
    return [], [], f"Saved {spec.label} as version {spec.version}."


def _added_before(identity, definition: dict) -> TypeSpec | None:
    """The organisation's type of this name when its latest version is exactly the definition sent, else None."""
    existing = type_get(definition.get("name"), org_id=identity.org_id)
    if existing is None or existing.builtin:
        return None
    try:
        sent = definition_check(definition, organization_id=identity.org_id, version=existing.version)
    except DefinitionInvalid:
        return None
    return existing if sent.definition == existing.definition else None


def _phrases(text: str) -> list[str] | None:
    """One phrase a line (blank lines are gaps, not phrases); nothing at all: back to the type's own phrases.
    Lines end at line breaks only, so any other control or separator character is refused, as the API refuses it."""
    lines = [line.strip() for line in text.replace("\r\n", "\n").replace("\r", "\n").split("\n")]
    return [line for line in lines if line] or None


def _on_the_page(error: dict) -> dict:
    """A problem with the phrases as staff see them: ``serves[2]`` is phrase 3 (in the message, next to the
    phrases' box), the list as a whole points nowhere more precise than the box."""
    field = error.get("field") or ""
    if field.startswith("serves[") and field.endswith("]") and field[7:-1].isdigit():
        return {**error, "field": None, "message": f"Phrase {int(field[7:-1]) + 1}: {error.get('message')}"}
    return {**error, "field": None} if field == "serves" else error


def _save_serves(identity, name: str, text: str) -> tuple[list[dict], str | None]:
    """Reword what type ``name`` answers for the organisation: (problems, the message when saved)."""
    try:
        with transaction.atomic():
            spec, phrases = type_services.memory_type_serves_set(identity=identity, name=name,
                                                                 serves=_phrases(text))
    except ValidationFailed as exc:
        return [_on_the_page(e) for e in exc.errors], None
    except NotFound as exc:
        return [{"field": None, "message": exc.title}], None
    if phrases is None:
        return [], f"{spec.label} answers in the type's own words."
    return [], f"Saved what {spec.label} answers for your organisation."


@require_http_methods(["GET", "POST"])
@portal_view(scopes=("memory_type:write",), roles=ADMIN_ROLES)
def memory_types(request):
    identity = request.portal_identity
    post = request.POST
    problems: list[dict] = []
    breaks: list[dict] = []
    serving = post.get("serves_for", "")  # the type whose phrases were sent
    if request.method == "POST":
        if serving:
            problems, saved = _save_serves(identity, serving, post.get("serves", ""))
        else:
            problems, breaks, saved = _save_definition(identity, post)
        if saved:
            messages.success(request, saved)
            return redirect("memory-types")
    overrides = serves_overrides(org_id=identity.org_id)
    types = []
    for spec in types_visible(org_id=identity.org_id):
        public = type_public(spec, override=overrides.get(spec.name))
        types.append({"spec": spec, "public": public, "purposes": [PURPOSE_LABELS.get(p, p) for p in spec.purposes],
                      "editable": _editable(spec) if not spec.builtin else None,
                      "serves_text": post.get("serves", "") if serving == spec.name else (
                          "\n".join(public["serves"]) if public["serves_source"] != "label" else "")})
    revising = "" if serving else post.get("revise", "")
    adding = request.method == "POST" and not serving and not revising
    return render(request, "memory/types.html", {
        "types": types, "problems": problems, "breaks": breaks, "revising": revising, "serving": serving,
        "problem_box": _problem_box(types, serving=serving, revising=revising, adding=adding) if problems else None,
        "definition": post.get("definition", "") if (problems and adding) else json.dumps(EXAMPLE, indent=2),
        "revision_text": post.get("definition", "") if revising else "", "based_on": post.get("based_on", "")},
        status=422 if problems else 200)


def _problem_box(types: list[dict], *, serving: str, revising: str, adding: bool) -> dict | None:
    """The text box whose form was sent, where its problems are shown (id and label), or None when the page has
    no such box (a type it cannot show): the problems are then only listed at the top."""
    if serving and any(t["spec"].name == serving for t in types):
        return {"id": f"serves-{serving}", "label": "What it answers"}
    if revising and any(t["spec"].name == revising and t["editable"] for t in types):
        return {"id": f"revise-{revising}", "label": "Definition"}
    if adding:
        return {"id": "new-definition", "label": "Definition"}
    return None
