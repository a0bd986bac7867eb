"""The sentence-template language of a type's ``text``: its grammar, parsed once per template.

Both sides read it through here: :mod:`memory.types.definitions` refuses a template that names no field or an
unknown filter, and :mod:`memory.types.text` fills one in, so what is accepted is exactly what can be rendered.
"""

from __future__ import annotations

import functools
import re

FILTERS = {"title", "or", "language", "list"}
PLACEHOLDER = re.compile(r"\{([a-z_][a-z0-9_]*)(\?|\|[a-z]+)?\}")
_SEGMENT = re.compile(r"\[([^\]]*)\]|([^\[]+)")


def placeholders(template: str) -> list[tuple[str, str]]:
    """Each ``{field...}`` of the template as (field, modifier): ``""``, ``"?"`` or ``"|filter"``."""
    return [(m.group(1), m.group(2) or "") for m in PLACEHOLDER.finditer(template)]


@functools.lru_cache(maxsize=1024)
def compiled(template: str) -> tuple[tuple[bool, tuple], ...]:
    """A template parsed once: segments (optional or not) of literal text and (field, modifier) pairs."""
    segments = []
    for m in _SEGMENT.finditer(template):
        optional = m.group(1) is not None
        text = m.group(1) if optional else m.group(2)
        parts: list = []
        pos = 0
        for p in PLACEHOLDER.finditer(text):
            parts.append(text[pos:p.start()])
            parts.append((p.group(1), p.group(2) or ""))
            pos = p.end()
        parts.append(text[pos:])
        segments.append((optional, tuple(parts)))
    return tuple(segments)


def planned(segments: tuple, props: dict) -> tuple:
    """A parsed template with each placeholder as ``(name, presence_only, filter, property, verbatim)``:
    ``verbatim`` when a text value is shown as it stands (no filter, no labels, not a closed set), the usual case,
    which :func:`memory.types.text.fact_render` then words without looking at the property."""
    plan = []
    for optional, parts in segments:
        steps: list = []
        for part in parts:
            if isinstance(part, str):
                steps.append(part)
                continue
            name, modifier = part
            prop = props.get(name, {})
            verbatim = (modifier == "" and not prop.get("x-labels") and "enum" not in prop
                        and "const" not in prop)
            steps.append((name, modifier == "?", modifier.lstrip("|"), prop, verbatim))
        plan.append((optional, tuple(steps)))
    return tuple(plan)
