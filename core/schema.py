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
    def get_override_parameters(self):
        params = list(super().get_override_parameters())
        if getattr(self.view, "idempotent_create", False) and self.method == "POST":
            from drf_spectacular.utils import OpenApiParameter

            params.append(OpenApiParameter(
                "Idempotency-Key", str, OpenApiParameter.HEADER, required=False, pattern=r"^[A-Za-z0-9._:\-]{1,100}$",
                description="Makes a retry safe: the same key with the same request answers the first response "
                "again; with another request, 409 idempotency_key_reused. Kept at least 24 h, per caller."))
        return params

    def get_operation(self, *args, **kwargs):
        operation = super().get_operation(*args, **kwargs)
        if operation is not None and getattr(self.view, "required_scopes", None) is not None:
            scopes = sorted(required_scopes_for(self.view, self.method))
            operation["x-required-scopes"] = scopes
            note = f"Requires scopes: `{' '.join(scopes)}`."
            operation["description"] = (operation.get("description", "") + "\n\n" + note).strip()
        return operation
