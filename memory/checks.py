"""System checks. ``memory.E001``: every built-in memory type in ``memory/catalogue`` passes the same definition
check as an administrator's type (a broken catalogue file stops start-up, not the first write)."""

from __future__ import annotations

from django.core.checks import Error, register

from memory.types import builtin_catalogue


@register()
def catalogue_check(app_configs=None, **kwargs) -> list[Error]:
    try:
        builtin_catalogue()
    except RuntimeError as exc:
        return [Error(str(exc), id="memory.E001")]
    return []
