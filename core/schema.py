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
