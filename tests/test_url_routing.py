"""The URLconf: every API route reaches its own view, and a request is matched against its own app's routes only."""

from __future__ import annotations

import re
import uuid
from importlib import import_module

import pytest
from django.urls import Resolver404, get_resolver, resolve, reverse

_SAMPLE = {"uuid": str(uuid.UUID(int=7)), "int": "3", "str": "sample_name"}
_PARAMETER = re.compile(r"<(?:(\w+):)?(\w+)>")


def _routes(patterns=None, prefix=""):
    for p in get_resolver().url_patterns if patterns is None else patterns:
        if hasattr(p, "url_patterns"):
            yield from _routes(p.url_patterns, prefix + str(p.pattern))
        else:
            yield prefix + str(p.pattern), p


def test_every_api_route_resolves_to_its_own_view_and_reverses_to_its_path():
    """No route shadows another: a path made from each route's own pattern resolves to that route's view and name,
    and the name (where no page shares it) reverses to the same path."""
    names = [pattern.name for _, pattern in _routes()]
    checked = 0
    for route, pattern in _routes():
        if not route.startswith("v1/"):
            continue
        kwargs = {name: _SAMPLE[converter or "str"] for converter, name in _PARAMETER.findall(route)}
        sample = "/" + _PARAMETER.sub(lambda m: _SAMPLE[m.group(1) or "str"], route)
        match = resolve(sample)
        assert (match.route, match.url_name) == (route, pattern.name), sample
        if names.count(pattern.name) == 1:
            assert reverse(pattern.name, kwargs=kwargs) == sample
        checked += 1
    assert checked >= 40


@pytest.mark.parametrize("path, app_urls", [
    (f"/v1/workflows/{uuid.UUID(int=7)}/nowhere", "workflows.urls"),
    (f"/v1/sessions/{uuid.UUID(int=7)}/nowhere", "conversations.urls"),
    ("/v1/grants/nowhere", "consent.urls"),
])
def test_a_path_is_tried_against_the_routes_of_its_own_app_only(path, app_urls):
    """Django tries an include's routes one by one: a checkpoint was matched against every route of the four apps
    listed before the workflows (about 50) on every request. Each app's ``v1/`` include is now entered only for the
    first segments its routes begin with, so a path is tried against its own app's routes (and the few top-level
    ones); an unknown path is still 404."""
    own = {"v1/" + str(pattern.pattern) for pattern in import_module(app_urls).urlpatterns}
    with pytest.raises(Resolver404) as refused:
        resolve(path)
    tried = ["".join(str(p.pattern) for p in attempt) for attempt in refused.value.args[0]["tried"]]
    api_tried = [route for route in tried if route.startswith("v1/") and route not in ("v1/", "v1/schema", "v1/docs")]
    assert api_tried and set(api_tried) <= own, sorted(set(api_tried) - own)
