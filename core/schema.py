"""OpenAPI: the bearer scheme, each operation's required scopes as ``x-required-scopes``, every problem status it
can answer (RFC 9457 bodies, ``Problem``), request objects closed where unknown fields are refused
(``additionalProperties: false`` for :class:`core.serializers.StrictSerializer`), and the ``Idempotency-Key``
header where a view takes one, with the headers answers carry (``Retry-After`` on every 429 and 503,
``Idempotent-Replayed`` on a keyed operation's success)."""

import copy

from drf_spectacular.extensions import OpenApiAuthenticationExtension
from drf_spectacular.openapi import AutoSchema
from drf_spectacular.utils import OpenApiParameter

from core.permissions import required_scopes_for
from core.serializers import ModelOutSerializer, StrictSerializer

PROBLEM_SCHEMA = {
    "type": "object",
    "description": "RFC 9457 problem details; `code` is stable and machine-readable (README: error codes).",
    "properties": {
        "type": {"type": "string"}, "title": {"type": "string"}, "status": {"type": "integer"},
        "code": {"type": "string"}, "detail": {"type": "string"}, "message": {"type": "string"},
        "request_id": {"type": "string"},
        "errors": {"type": "array", "items": {"type": "object", "properties": {
            "field": {"type": "string", "nullable": True}, "message": {"type": "string"},
            "code": {"type": "string"}, "memories": {"type": "integer", "description": "With "
                     "revision_breaks_memories: how many current memories fail this field's rule"}}},
                   "description": "The first 100 problems, in the order found"},
        "errors_total": {"type": "integer", "description": "How many problems there were, when more than the 100 "
                         "`errors` lists"},
        "current_version": {"type": "integer", "description": "With a workflow's version_conflict: its version "
                            "now (read it again, then send this expected_version)"},
        "current_step": {"type": "string", "description": "With a workflow's illegal_transition or "
                         "operation_not_allowed: the step it is at"},
        "allowed_next_steps": {"type": "array", "items": {"type": "string"}, "description": "With a workflow's "
                               "illegal_transition: the steps a checkpoint may move it to now"},
    },
    "required": ["type", "title", "status", "code", "detail"],
}

# Why each status can happen; which ones an operation lists depends on its method and path.
_ALWAYS = {
    "400": "Malformed request (bad JSON or Content-Length)",
    "401": "Missing, invalid or expired access token (invalid_token)",
    "403": "Insufficient scope, no consent or access, or an unregistered organisation (unknown_organization)",
    "404": "Not found (also when it exists but is not the caller's)",
    "406": "Not acceptable",
    "414": "Query string too long",
    "422": "Invalid request (validation_error), including over-long query parameters",
    "429": "Rate limited (rate_limited; see Retry-After)",
    "431": "Request headers too large",
    "503": ("A dependency is unavailable (service_unavailable, identity_provider_unavailable, ...: nothing was "
            "changed; or commit_outcome_unknown: a write may have been saved, retry it only under its "
            "Idempotency-Key); see Retry-After"),
}
# The headers some answers carry: when to come back (every 429 and 503), and that an answer is the one stored
# for an earlier request with the same Idempotency-Key.
RETRY_AFTER_HEADER = {"required": True, "description": "Seconds to wait before trying again",
                      "schema": {"type": "integer", "minimum": 1}}
REPLAYED_HEADER = {"description": "`true` when this is the stored answer to an earlier request with the same "
                                  "Idempotency-Key (nothing was done again)",
                   "schema": {"type": "string", "enum": ["true"]}}
_WITH_BODY = {
    "409": "Conflict (concurrent update, version, transition, idempotency_key_reused, ...)",
    "410": "The session expired or ended",
    "411": "Length required",
    "413": "Request body too large",
    "415": "Send application/json",
}


class BearerTokenScheme(OpenApiAuthenticationExtension):
    target_class = "core.authentication.BearerTokenAuthentication"
    name = "bearerAuth"

    def get_security_definition(self, auto_schema):
        return {"type": "http", "scheme": "bearer", "bearerFormat": "JWT",
                "description": "OIDC access token (RS256/ES256) with org_id, optional patient_id and scope claims"}


class ScopedAutoSchema(AutoSchema):
    def get_operation(self, *args, **kwargs):
        operation = super().get_operation(*args, **kwargs)
        if operation is not None and getattr(self.view, "required_scopes", None) is not None:
            scopes = sorted(required_scopes_for(self.view, self.method))
            operation["x-required-scopes"] = scopes
            note = f"Requires scopes: `{' '.join(scopes)}`."
            operation["description"] = (operation.get("description", "") + "\n\n" + note).strip()
            statuses = dict(_ALWAYS)
            if self.method in ("POST", "PUT", "PATCH", "DELETE"):
                statuses.update(_WITH_BODY)
            if "session" in self.path:
                statuses["410"] = _WITH_BODY["410"]
                statuses["409"] = _WITH_BODY["409"]
            responses = operation.setdefault("responses", {})
            for code, description in statuses.items():
                responses.setdefault(code, {"description": description, "content": {
                    "application/problem+json": {"schema": {"$ref": "#/components/schemas/Problem"}}}})
            # a query value given empty is refused (422 blank) unless the view reads it as "any"
            may_be_blank = getattr(self.view, "blank_query_parameters", {}).get(self.method, frozenset())
            for param in operation.get("parameters", []):
                schema = param.get("schema", {})
                if (param.get("in") == "query" and schema.get("type") == "string" and "enum" not in schema
                        and param["name"] not in may_be_blank):
                    schema.setdefault("minLength", 1)
            for code in ("429", "503"):
                responses[code].setdefault("headers", {})["Retry-After"] = copy.deepcopy(RETRY_AFTER_HEADER)
            if any(p.get("in") == "header" and p.get("name") == "Idempotency-Key"
                   for p in operation.get("parameters", [])):
                for code, response in responses.items():
                    if code.startswith("2"):
                        response.setdefault("headers", {})["Idempotent-Replayed"] = copy.deepcopy(REPLAYED_HEADER)
        return operation

    def _map_serializer_field(self, field, direction, bypass_extensions=False):
        return nullable_ref(super()._map_serializer_field(field, direction, bypass_extensions))

    def get_override_parameters(self):
        params = list(super().get_override_parameters())
        if getattr(self.view, "idempotent_create", False) and self.method == "POST":
            params.append(OpenApiParameter(
                "Idempotency-Key", str, OpenApiParameter.HEADER, required=False, pattern=r"^[A-Za-z0-9._:\-]{1,100}$",
                description="Makes a retry safe: the same key with the same request answers the first response "
                "again; with another request, 409 idempotency_key_reused. Kept at least 24 h, per caller."))
        return params

    def _map_serializer(self, serializer, direction, bypass_extensions=False):
        schema = super()._map_serializer(serializer, direction, bypass_extensions)
        if direction == "request" and isinstance(serializer, StrictSerializer) and schema.get("type") == "object":
            schema["additionalProperties"] = False
        if direction == "response" and isinstance(serializer, ModelOutSerializer) and schema.get("properties"):
            # A model's answer carries every field it declares, null or not: one with a model default (a
            # workflow's version and state, a memory's valid_until) is not left out, so clients may rely on it.
            schema["required"] = sorted(schema["properties"])
        return schema


def add_problem_component(result, generator, request, public):
    """Postprocessing hook: the shared ``Problem`` schema every error response refers to."""
    result.setdefault("components", {}).setdefault("schemas", {})["Problem"] = PROBLEM_SCHEMA
    return result


NULL_ONLY = {"type": "object", "nullable": True, "enum": [None]}


def nullable_ref(schema):
    """A nullable nested serializer, published so that validators accept the ``null`` we send. drf-spectacular
    writes ``{"allOf": [{"$ref": ...}], "nullable": true}``, but OpenAPI 3.0 applies ``nullable`` only with a
    ``type`` in the same schema, so strict validators refuse ``null`` there; ``oneOf`` the object or null says it."""
    if (isinstance(schema, dict) and schema.get("nullable") and len(schema.get("allOf", ())) == 1
            and "type" not in schema):
        rest = {k: v for k, v in schema.items() if k not in ("allOf", "nullable")}
        return {"oneOf": [schema["allOf"][0], dict(NULL_ONLY)], **rest}
    return schema
