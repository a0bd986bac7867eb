"""Correlation ids: taken from ``X-Request-ID`` when it is sane, generated otherwise, echoed on the response."""

from __future__ import annotations

import re
import uuid

from django.conf import settings

from core.errors import json_problem
from core.logging import request_id_var

_SANE = re.compile(r"^[A-Za-z0-9._:\-]{1,128}$")


def normalise_request_id(value: str | None) -> str:
    if value and _SANE.match(value):
        return value
    return str(uuid.uuid4())


class RequestIdMiddleware:
    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        rid = normalise_request_id(request.headers.get("X-Request-ID"))
        request.request_id = rid
        token = request_id_var.set(rid)
        try:
            response = self.get_response(request)
        finally:
            request_id_var.reset(token)
        response["X-Request-ID"] = rid
        return response


class BodySizeLimitMiddleware:
    """413 for declared bodies over MAX_REQUEST_BYTES, before anything reads them."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):


        try:
            length = int(request.META.get("CONTENT_LENGTH") or 0)
        except ValueError:
            return json_problem(400, "bad_content_length", "The Content-Length header is not a number")
        if length > settings.MAX_REQUEST_BYTES:
            return json_problem(413, "payload_too_large", "The request body is too large")
        return self.get_response(request)
