"""Content negotiation that reads ``q``: a media range with ``q=0`` is "not acceptable" (RFC 9110 12.4.2).

DRF orders ``Accept``'s ranges by how specific they are and never reads their quality, so ``application/json;q=0``
was answered JSON. A renderer's quality is the one of the most specific range that matches it
(``application/json;q=0, */*`` refuses JSON); a renderer at quality 0 is left out, the ranges at 0 are dropped, and
DRF chooses among what remains as before: nothing acceptable left is 406 ``not_acceptable``."""

from __future__ import annotations

from rest_framework.negotiation import DefaultContentNegotiation
from rest_framework.utils.mediatypes import _MediaType


def _quality(media_range: _MediaType) -> float:
    try:
        return float(media_range.params.get("q", "1"))
    except ValueError:
        return 1.0  # a quality we cannot read counts as none given, as DRF read it before


def _acceptable(renderer_type: _MediaType, ranges: list[_MediaType]) -> bool:
    matching = [r for r in ranges if renderer_type.match(r)]
    if not matching:
        return True  # DRF's own matching decides about a renderer no range names
    most_specific = max(r.precedence for r in matching)
    return any(_quality(r) > 0 for r in matching if r.precedence == most_specific)


class QualityContentNegotiation(DefaultContentNegotiation):
    def select_renderer(self, request, renderers, format_suffix=None):
        ranges = self._get_parsed_accept_list(request)  # type: ignore[attr-defined]  # DRF's own, unstubbed
        if any(_quality(r) <= 0 for r in ranges):
            renderers = [r for r in renderers if _acceptable(_MediaType(r.media_type), ranges)]
            request._parsed_accept_list = [r for r in ranges if _quality(r) > 0]
        return super().select_renderer(request, renderers, format_suffix)


def refuses(accept: str, media_type: str) -> bool:
    """Whether an ``Accept`` header refuses ``media_type`` by a range at ``q=0`` (the most specific range that
    matches it, or every range that does, is at 0), for doors that negotiate without DRF (MCP's transport reads
    the ranges and never their quality)."""
    ranges = [_MediaType(token.strip()) for token in accept.split(",")[:64] if token.strip()]
    if not any(_quality(r) <= 0 for r in ranges):
        return False
    wanted = _MediaType(media_type)
    return not (_acceptable(wanted, ranges) and any(wanted.match(r) and _quality(r) > 0 for r in ranges))
