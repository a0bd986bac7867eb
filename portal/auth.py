"""Portal entry pages: sign-in landing, home (sends each role to its start page), sign-out."""

from __future__ import annotations

from django.shortcuts import redirect, render
from django.utils.http import url_has_allowed_host_and_scheme
from django.views.decorators.http import require_POST, require_safe

from portal.oidc import ROLE_AUDITOR, SESSION_KEY, portal_logout_response


def _safe_next(request) -> str:
    candidate = request.GET.get("next", "")
    if candidate and url_has_allowed_host_and_scheme(candidate, allowed_hosts={request.get_host()},
                                                     require_https=request.is_secure()):
        return candidate
    return ""


# GET and HEAD (a load balancer's or uptime monitor's check of the sign-in page), as every server must take HEAD
# where it takes GET; the pages holding patients' data take GET only (a HEAD there would be a read in their history)
@require_safe
def login_page(request):
    """The sign-in landing: one button that starts the authorisation-code flow at the identity provider."""
    if getattr(request, "portal_identity", None) is not None:
        return redirect("portal-home")
    return render(request, "portal/login.html", {"next": _safe_next(request),
                                                 "expired": request.GET.get("expired") in ("1", "form"),
                                                 "form_unsent": request.GET.get("expired") == "form"})


@require_safe
def home(request):
    identity = getattr(request, "portal_identity", None)
    if identity is None:
        return redirect("portal-login")
    if identity.patient_self_id is not None:
        return redirect("patient-preferences")
    if request.session.get(SESSION_KEY, {}).get("role") == ROLE_AUDITOR:  # holds no grants: no patients of theirs
        return redirect("access-history")
    return redirect("staff-patients")


@require_POST
def logout(request):
    """Ends the Django session, then the provider's (end_session) when it has one. POST with CSRF only."""
    return portal_logout_response(request)


@require_safe
def signed_out(request):
    """Where the provider's end_session returns to. Someone still signed in (a link, the history, a provider that
    kept nothing) is not told they are signed out: on a shared computer they would leave their session open."""
    if getattr(request, "portal_identity", None) is not None:
        return redirect("portal-home")
    return render(request, "portal/signed_out.html")
