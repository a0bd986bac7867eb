"""Correlation ids (taken from ``X-Request-ID`` when it is sane, generated otherwise, echoed on the response),
``Cache-Control: no-store`` on every response that did not set its own, and the request shapes refused before any
view runs (paths, headers, query strings, bodies)."""

from __future__ import annotations

import io
import re
import uuid
from urllib.parse import unquote_plus

from django.conf import settings

from core.errors import json_problem
from core.logging import request_id_var

_SANE = re.compile(r"^[A-Za-z0-9._:\-]{1,128}$")


def normalise_request_id(value: str | None) -> str:
    if value and _SANE.fullmatch(value):
        return value
    return str(uuid.uuid4())


class RequestIdMiddleware:
    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        # META, not request.headers: building the headers' mapping (every header of the request parsed) cost more
        # than the rest of this middleware, and nothing else on the quick list's path reads it
        rid = normalise_request_id(request.META.get("HTTP_X_REQUEST_ID"))
        request.request_id = rid
        token = request_id_var.set(rid)
        try:
            response = self.get_response(request)
        finally:
            request_id_var.reset(token)
        response["X-Request-ID"] = rid
        # Answers hold personal data (memories, exports, access history) or say who may see it: no shared or
        # browser cache keeps them. Static files are served before this, with their own caching.
        response.setdefault("Cache-Control", "no-store")
        return response


_UUID_IN_PATH = re.compile(r"[0-9A-Fa-f]{8}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{12}")
MAX_HEADER_BYTES = 16 * 1024


def _lower_uuids(path: str) -> str:
    return _UUID_IN_PATH.sub(lambda m: m.group(0).lower(), path)


_ENCODED_SLASH = re.compile("%2f", re.IGNORECASE)


def _raw_path(request) -> str:
    """The path as the client sent it, before the server decoded it (gunicorn's ``RAW_URI``, another WSGI server's
    ``REQUEST_URI``, an ASGI server's ``raw_path``: config.asgi's a2wsgi hands its scope on as ``asgi.scope``);
    '' where the server keeps no such copy."""
    scope = request.META.get("asgi.scope") or getattr(request, "scope", None)
    if scope is not None:
        return (scope.get("raw_path") or b"").decode("latin-1")
    raw = request.META.get("RAW_URI") or request.META.get("REQUEST_URI") or ""
    return raw.partition("?")[0]


class RequestShapeMiddleware:
    """Requests whose shape we refuse before any view runs, always as problem+json:

    * a path with an encoded slash (``%2F``) in it: 400 ``invalid_path``. The server decodes it before routing,
      so ``/v1/patients/<id>%2Fmemories`` read as the memories list and an id holding one reached another
      operation than the one the client named;

    * UUIDs in the path are case-insensitive (RFC 4122 §3): they are lower-cased before URL resolution, so an
      upper-case patient id reaches its own patient;
    * headers over 16 KiB in total: 431; a query string over ``MAX_QUERY_STRING_CHARS``: 414; a query value over
      ``MAX_QUERY_VALUE_CHARS`` or holding NUL: 422.
    """

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        if _ENCODED_SLASH.search(_raw_path(request)):
            return json_problem(400, "invalid_path", "A path segment holds an encoded slash (%2F), which no id "
                                                     "here contains: send each id as it was given")
        if _UUID_IN_PATH.search(request.path_info):
            request.path_info = _lower_uuids(request.path_info)
            request.path = _lower_uuids(request.path)
            request.META["PATH_INFO"] = request.path_info
        header_bytes = sum(len(k) + len(str(v)) for k, v in request.META.items() if k.startswith("HTTP_"))
        if header_bytes > MAX_HEADER_BYTES:
            return json_problem(431, "headers_too_large", "The request headers are too large")
        query = request.META.get("QUERY_STRING", "")
        # Counted in characters, as q's 500 are: a question in Chinese or emoji is three to four bytes a character,
        # each byte three once percent-encoded (499 emoji were 5,988 characters, a valid question refused 414).
        # What gunicorn's request line takes (8,190 bytes) still bounds the encoded length.
        if len(query) > settings.MAX_QUERY_STRING_CHARS and len(
                unquote_plus(query, errors="replace")) > settings.MAX_QUERY_STRING_CHARS:
            return json_problem(414, "query_too_long", "The query string is too long")
        # Each value's length and vocabulary are checked by the API view (422 naming the field).
        return self.get_response(request)


def read_at_most(stream, limit: int) -> bytes:
    """A body from ``stream`` (a server's ``wsgi.input``, already de-chunked), at most ``limit + 1`` bytes: one byte
    more than ``limit`` says the body is over it, without reading the rest."""
    data = b""
    while len(data) <= limit:
        piece = stream.read(min(65536, limit + 1 - len(data)))
        if not piece:
            break
        data += piece
    return data


class BodySizeLimitMiddleware:
    """413 for bodies over MAX_REQUEST_BYTES, before anything reads them.

    A body sent with ``Transfer-Encoding: chunked`` has no Content-Length; Django's WSGI request would read it as
    empty. It is read here (the server has already de-chunked it), at most MAX_REQUEST_BYTES + 1 bytes, and then
    served to the view like any other body.
    """

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        limit = settings.MAX_REQUEST_BYTES
        chunked = "chunked" in request.META.get("HTTP_TRANSFER_ENCODING", "").lower()
        if chunked and not request.META.get("CONTENT_LENGTH"):
            stream = request.META.get("wsgi.input")
            if stream is None:
                return json_problem(411, "length_required", "Send a Content-Length or a chunked body")
            data = read_at_most(stream, limit)
            if len(data) > limit:
                return json_problem(413, "payload_too_large", "The request body is too large")
            request.META["CONTENT_LENGTH"] = str(len(data))
            request._stream = io.BytesIO(data)
            request._read_started = False
            return self.get_response(request)
        try:
            length = int(request.META.get("CONTENT_LENGTH") or 0)
        except ValueError:
            return json_problem(400, "bad_content_length", "The Content-Length header is not a number")
        if length < 0:
            return json_problem(400, "bad_content_length", "The Content-Length header is not a number")
        if length > limit:
            return json_problem(413, "payload_too_large", "The request body is too large")
        return self.get_response(request)


