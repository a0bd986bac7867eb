"""OpenAPI: the bearer scheme, and each operation's required scopes as ``x-required-scopes``."""

from drf_spectacular.extensions import OpenApiAuthenticationExtension
from drf_spectacular.openapi import AutoSchema

from core.permissions import required_scopes_for


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
        return operation

    def _map_serializer_field(self, field, direction, bypass_extensions=False):
        return nullable_ref(super()._map_serializer_field(field, direction, bypass_extensions))


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
