"""The base class of every agent-facing API view.

Its guarantees cannot be switched off by a subclass:

* authentication and scope checks happen first, outside any transaction;
* the handler runs inside :func:`core.identity.identity_context`, so every query of the request sees exactly the
  caller's rows and all writes (audit included) commit or roll back together;
* a refused access (403/404/409) is audited in a transaction of its own, after the rollback;
* subclasses must declare ``required_scopes`` (checked when the class is created).
"""

from __future__ import annotations

import logging

from django.db import DatabaseError, InterfaceError, OperationalError
from rest_framework.views import APIView

from core import audit
from core.errors import ApiError, ServiceUnavailable, ValidationFailed
from core.identity import Identity, identity_context

log = logging.getLogger("anamnesis.api")

_AUDITED_REFUSALS = {403, 404, 409, 410}
MAX_QUERY_VALUE_CHARS = 500
MAX_QUERY_PARAMS = 20


def check_query_params(request) -> None:
    """Query parameters are short: no view ever has to store, log or audit a long one (422 naming the field)."""
    params = request.query_params
    if len(params) > MAX_QUERY_PARAMS:
        raise ValidationFailed(errors=[{"field": None, "code": "too_many",
                                        "message": f"at most {MAX_QUERY_PARAMS} query parameters"}])
    errors = [{"field": name[:40], "code": "max_length", "message": f"at most {MAX_QUERY_VALUE_CHARS} characters"}
              for name, values in params.lists()
              if len(name) > 40 or any(len(v) > MAX_QUERY_VALUE_CHARS for v in values)]
    if errors:
        raise ValidationFailed(errors=errors)


class ScopedAPIView(APIView):
    required_scopes: dict[str, list[str]] | list[str] | None = None
    audit_actions: dict[str, str] = {}

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        if cls.__dict__.get("abstract", False):
            return
        if cls.required_scopes is None:
            raise TypeError(f"{cls.__name__} must declare required_scopes")
        if "dispatch" in cls.__dict__ or "permission_classes" in cls.__dict__ or (
                "authentication_classes" in cls.__dict__):
            raise TypeError(f"{cls.__name__} may not override dispatch, authentication or permissions")

    abstract = True

    @property
    def identity(self) -> Identity:
        identity = self.request.auth
        assert isinstance(identity, Identity), "ScopedAPIView runs only after bearer authentication"
        return identity

    def dispatch(self, request, *args, **kwargs):
        self.args = args
        self.kwargs = kwargs
        request = self.initialize_request(request, *args, **kwargs)
        self.request = request
        self.headers = self.default_response_headers
        try:
            self.initial(request, *args, **kwargs)
            check_query_params(request)
            method = request.method.lower()
            handler = getattr(self, method, self.http_method_not_allowed) if (
                method in self.http_method_names) else self.http_method_not_allowed
            try:
                with identity_context(request.auth):
                    response = handler(request, *args, **kwargs)
            except ApiError as exc:
                if exc.status_code in _AUDITED_REFUSALS:
                    self._audit_refusal(request, exc)
                raise
            except (OperationalError, InterfaceError) as exc:
                log.error("database unavailable: %s", type(exc).__name__)
                raise ServiceUnavailable() from None
            except DatabaseError as exc:
                # Constraint and RLS violations that a service did not translate: never a 500 with details.
                log.error("unexpected database error: %s", type(exc).__name__)
                raise
        except Exception as exc:
            response = self.handle_exception(exc)
        self.response = self.finalize_response(request, response, *args, **kwargs)
        return self.response

    def _audit_refusal(self, request, exc: ApiError) -> None:
        action = self.audit_actions.get(request.method.upper())
        if not action:
            return
        try:
            with identity_context(request.auth):
                audit.record(
                    action=action,
                    resource_type=self.audit_resource_type(),
                    resource_id=self.audit_resource_id(),
                    patient_id=exc.audit_patient_id or self.audit_patient_id(),
                    purpose=exc.audit_purpose,
                    outcome="denied" if exc.status_code in (403, 404, 410) else "conflict",
                    reason=exc.code,
                )
        except Exception as audit_exc:  # the refusal stands even if its audit row cannot be written
            log.error("could not audit a refusal: %s", type(audit_exc).__name__)

    # Views refine these; defaults read the URL.
    def audit_resource_type(self) -> str:
        return getattr(self, "resource_type", self.__class__.__name__)

    def audit_resource_id(self) -> str | None:
        for key in ("memory_id", "workflow_id", "consent_id", "grant_id", "session_id", "patient_id"):
            if key in self.kwargs:
                return str(self.kwargs[key])
        return None

    def audit_patient_id(self):
        return self.kwargs.get("patient_id")
