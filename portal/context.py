"""The portal's request plumbing: session timeouts, the signed-in identity, and the one wrapper every portal view
goes through.

:func:`portal_view` is to portal pages what :class:`core.api.ScopedAPIView` is to the API: it requires a login
with the declared scopes, then runs the view *and its template rendering* inside
:func:`core.identity.identity_context`, so every query of the page (lazy querysets in templates included) sees
exactly the signed-in person's rows and all writes commit or roll back together. A refused or missing patient
(NotFound, Forbidden) is answered the same way as an unknown one, and audited after the rollback.
"""

from __future__ import annotations

import functools
import logging
import sys
import time
import zoneinfo
from urllib.parse import urlencode, urlsplit

import psycopg
from django.conf import settings
from django.contrib import auth
from django.core.exceptions import DisallowedHost
from django.db import InterfaceError, OperationalError
from django.http import HttpResponse
from django.shortcuts import redirect, render
from django.templatetags.static import static
from django.utils import timezone
from django.utils.cache import add_never_cache_headers
from django.utils.html import escape
from django.utils.http import url_has_allowed_host_and_scheme

from core import audit, health
from core.errors import (
    ApiError,
    CommitOutcomeUnknown,
    Conflict,
    Forbidden,
    InsufficientScope,
    NoConsentOrAccess,
    NotFound,
    RateLimited,
    ServiceUnavailable,
    UnknownOrganization,
    json_problem,
)
from core.gate import RequestGate
from core.identity import CommitInterrupted, Identity, identity_context, takes_no_writes
from core.pages import REFUSAL_PAGES, static_page
from portal.oidc import ROLE_LABELS, SESSION_KEY, UNSENT_FORM_KEY, identity_from_session, new_session_refused

log = logging.getLogger("anamnesis.portal")

PORTAL_ATTR = "_portal_view"


def session_identity(request) -> Identity | None:
    data = request.session.get(SESSION_KEY) if hasattr(request, "session") else None
    if not data or not request.user.is_authenticated:
        return None
    try:
        return identity_from_session(data)
    except (KeyError, ValueError, TypeError):
        return None


class PortalSessionMiddleware:
    """Ends portal sessions past the absolute lifetime (the inactivity timeout is the session cookie's age,
    renewed on every request), and exposes ``request.portal_identity``. Touches no patient data."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        request.portal_identity = None
        request.portal_session_expired = False
        session = getattr(request, "session", None)
        if session is not None and SESSION_KEY in session:
            login_at = session.get("portal_login_at", 0)
            if time.time() - login_at > settings.PORTAL_SESSION_ABSOLUTE_SECONDS:
                auth.logout(request)
                request.portal_session_expired = True
            else:
                request.portal_identity = session_identity(request)
        return self.get_response(request)


class ContentSecurityPolicyMiddleware:
    """A strict CSP on every response that has none: our own scripts, styles and images only, no inline script,
    forms only to us and to the identity provider (logout redirects there), no framing."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        response = self.get_response(request)
        if request.path.startswith(tuple(settings.PORTAL_CSP_EXEMPT_PREFIXES)):
            return response
        if "Content-Security-Policy" not in response:
            response["Content-Security-Policy"] = _content_security_policy(
                settings.PORTAL_CONTENT_SECURITY_POLICY, settings.OIDC_OP_AUTHORIZATION_ENDPOINT)
        return response


@functools.lru_cache(maxsize=8)
def _content_security_policy(policy: str, authorization_endpoint: str) -> str:
    """The policy with the identity provider's origin filled in (worked out once per configuration, not per
    response)."""
    return policy.replace("{idp_origin}", "/".join(authorization_endpoint.split("/")[:3]))


def portal_context(request) -> dict:
    """Template context: who is signed in (no database access)."""
    identity = getattr(request, "portal_identity", None)
    data = request.session.get(SESSION_KEY, {}) if identity is not None else {}
    role = data.get("role")
    return {
        "portal_identity": identity,
        "portal_role": role,
        "portal_role_label": ROLE_LABELS.get(role, ""),
        "portal_display_name": data.get("name") or (data.get("sub") if identity else ""),
        "portal_is_patient": role == "patient",
        "portal_is_staff": role in ("staff", "org_admin", "auditor"),
        "portal_is_admin": role == "org_admin",
        # what the footer promises is what the session does (PORTAL_SESSION_IDLE_SECONDS), not a fixed 15 minutes
        "portal_idle_minutes": max(1, settings.SESSION_COOKIE_AGE // 60),
    }


def _login_redirect(request):
    """To the sign-in page, and back here after it. A form sent once the session had ended (only a signed-in page
    shows one) comes back to the page it was sent from (its same-site Referer), never to the address it was sent
    to: that answers a button, not a link (405 after signing in). Nothing it held was saved, and the page says so."""
    if request.method in ("GET", "HEAD"):
        params = {"next": request.get_full_path()}
        if getattr(request, "portal_session_expired", False):
            params["expired"] = "1"
    else:
        referer = request.headers.get("Referer", "")
        same_site = referer and url_has_allowed_host_and_scheme(referer, allowed_hosts={request.get_host()},
                                                                require_https=request.is_secure())
        page = urlsplit(referer) if same_site else None
        params = {"next": f"{page.path}?{page.query}" if page.query else page.path} if page and page.path else {}
        params["expired"] = "form"
        # said again on the page the sign-in returns to, where the form is filled in again (login_success). A
        # session row is written for it only within the address's allowance: forms sent without a session (any
        # form with a CSRF token once read) wrote a row each, without end; beyond it the sign-in page still says so
        if new_session_refused(request) is None:
            request.session[UNSENT_FORM_KEY] = True
    return redirect(f"{settings.LOGIN_URL}?{urlencode(params)}")


def _audit_refusal(identity: Identity, request, kwargs: dict, exc: ApiError) -> RateLimited | None:
    """Audit a refused page in a transaction of its own, counted against the person's limits as the page would
    have been (its own hit rolled back with it: guessing ids is throttled too); over them nothing is written and
    the rate limit is returned, to answer instead."""
    patient_id = kwargs.get("patient_id") or exc.audit_patient_id
    try:
        with identity_context(identity, gate=RequestGate(identity)):
            audit.record(action="portal.access", resource_type="portal_page",
                         resource_id=request.resolver_match.url_name if request.resolver_match else None,
                         patient_id=patient_id, purpose=exc.audit_purpose,
                         outcome="denied", reason=exc.code)
    except RateLimited as limited:
        return limited
    except Exception as audit_exc:  # the refusal stands even if its audit row cannot be written
        log.error("could not audit a portal refusal: %s", type(audit_exc).__name__)
    return None


def _counted_refusal(identity: Identity) -> RateLimited | None:
    """Count a refused page (nothing to audit) against the person's limits; over them, the rate limit."""
    try:
        with identity_context(identity, gate=RequestGate(identity)):
            pass  # the identity statement, and the gate in it, runs when the block ends
    except RateLimited as limited:
        return limited
    except Exception as count_exc:  # the refusal stands even if it cannot be counted
        log.error("could not count a portal refusal: %s", type(count_exc).__name__)
    return None


def rate_limited_page(request, limited: RateLimited):
    """429 for a page asked for faster than the person's limits allow: says how long to wait (Retry-After too)."""
    seconds = int(limited.headers["Retry-After"])
    response = error_page(request, 429, title="Too many requests",
                          message=f"Pages were asked for faster than this service allows. Nothing was changed. Wait "
                                  f"{seconds} second{'s' if seconds != 1 else ''}, then reload the page.")
    response["Retry-After"] = str(seconds)
    add_never_cache_headers(response)
    return response


def error_page(request, status: int, *, title: str | None = None, message: str | None = None):
    titles = {400: "This link is not valid", 403: "You cannot do that", 404: "Page not found",
              405: "This page does not open this way", 409: "This has changed"}
    messages = {400: "Part of the address is not one this site gave. Go back and follow the link again.",
                403: "Your account does not allow this action.",
                404: "There is nothing here, or it is not available to you.",
                405: "This address answers a button on a page, not a link. Go back and use the button.",
                409: "It changed since the page was shown (perhaps in another window). Go back and reload it."}
    identity = getattr(request, "portal_identity", None)
    with timezone.override(portal_time_zone(identity) if identity is not None else None):  # as its other pages
        return render(request, "portal/error.html", {"title": title or titles.get(status, "Error"),
                                                     "message": message or messages.get(status, "")}, status=status)


def _wants_page(request) -> bool:
    return (not request.path.startswith(settings.BEARER_PATH_PREFIXES)
            and "text/html" in request.headers.get("Accept", ""))


def csrf_failure(request, reason: str = ""):
    """``CSRF_FAILURE_VIEW``: a form that did not come from one of our pages (or whose page is too old). Only pages
    take forms (the API takes bearer tokens, never cookies), so a browser gets the portal's page."""
    if not _wants_page(request):
        return json_problem(403, "csrf_failed", "The form did not come from this site")
    response = error_page(request, 403, title="This form has expired",
                          message="The form did not come from this site, or its page is too old. Go back, reload "
                                  "the page and try again.")
    add_never_cache_headers(response)
    return response


class MethodNotAllowedPageMiddleware:
    """Django answers a method a page does not take (a link to a button's address) with an empty 405; a browser
    gets the portal's page instead, any other client the problem document, both with the same ``Allow``."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        response = self.get_response(request)
        if response.status_code != 405 or response.content:
            return response
        if not _wants_page(request):
            answer = json_problem(405, "method_not_allowed", "Method not allowed")
        else:
            answer = error_page(request, 405)
            add_never_cache_headers(answer)
        answer["Allow"] = response.get("Allow", "")
        return answer



class RequestShapePageMiddleware:
    """What :mod:`core.middleware` refuses before any browser layer runs (a form too large to take, 413; an address
    too long, 414; headers too large, 431; a broken Content-Length, 400) is a page for a browser, with the same
    status, saying what to do; any other client keeps the problem document. Outside the layers that add the page
    headers, so it adds them itself."""

    PAGES = REFUSAL_PAGES

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        response = self.get_response(request)
        if (response.status_code not in self.PAGES or not response.get("Content-Type", "").startswith(
                "application/problem+json") or not _wants_page(request)):
            return response
        title, message = self.PAGES[response.status_code]
        page = error_page(request, response.status_code, title=title, message=message)
        add_never_cache_headers(page)
        page["Content-Security-Policy"] = _content_security_policy(
            settings.PORTAL_CONTENT_SECURITY_POLICY, settings.OIDC_OP_AUTHORIZATION_ENDPOINT)
        page["X-Frame-Options"] = settings.X_FRAME_OPTIONS
        return page


def _page_for_browser(request, status: int, exception=None, **words):
    """Django's own 400 and 404 as a page, when a browser asked for one outside the API's paths; else None (the
    problem document). A Host we do not serve is never rendered: the page would ask for that host again."""
    if isinstance(exception, DisallowedHost) or not _wants_page(request):
        return None
    response = error_page(request, status, **words)
    add_never_cache_headers(response)
    return response


def not_found(request, exception=None):
    """Django's 404 for a path nothing serves (or a page that raised Http404)."""
    page = _page_for_browser(request, 404, exception)
    return page if page is not None else health.not_found(request, exception)


def server_error(request):
    """Django's 500: a page for browsers (no template context that could fail again: the page is static), the
    problem document for the API. The database out of reach (every page reads the session there) is the API's
    answer too: 503 with Retry-After, saying to try again shortly, not "something went wrong"."""
    exc = sys.exc_info()[1]
    unavailable = isinstance(exc, DATABASE_UNAVAILABLE) or (exc is not None and takes_no_writes(exc))
    # the connection was lost while the change was being saved: it may have been (never "nothing was changed")
    uncertain = isinstance(exc, CommitInterrupted)
    if not _wants_page(request):
        if unavailable:
            answer = CommitOutcomeUnknown if uncertain else ServiceUnavailable
            problem = json_problem(503, answer.code, answer.title)
            problem["Retry-After"] = str(settings.API_UNAVAILABLE_RETRY_AFTER_SECONDS)
            return problem
        return health.server_error(request)
    if uncertain:
        title, status = "We could not confirm your change", 503
        message = ("The connection to our database was lost while your change was being saved, so it may or may "
                   "not have been saved. In a minute, look at the page again before sending it again.")
    elif unavailable:
        title, status = "This service is unavailable for a moment", 503
        message = "Nothing was changed by this request. Please try again in a minute."
    else:
        title, status = "Something went wrong", 500
        message = ("Nothing was changed by this request. Try again in a moment; if it happens again, tell us this "
                   "reference: <code>{}</code>.").format(escape(getattr(request, "request_id", "-")))
    response = HttpResponse(static_page(title, message, static("portal/portal.css")), status=status,
                            content_type="text/html; charset=utf-8")
    if unavailable:
        response["Retry-After"] = str(settings.API_UNAVAILABLE_RETRY_AFTER_SECONDS)
    add_never_cache_headers(response)
    return response


DATABASE_UNAVAILABLE = (OperationalError, InterfaceError, psycopg.OperationalError, psycopg.InterfaceError)


def bad_request(request, exception=None):
    """Django's 400 (a Host we do not serve, a malformed request). A form Django could not read (more fields than
    it takes, a broken upload) says so: "part of the address" is about links."""
    words = {} if request.method in ("GET", "HEAD") else {
        "title": "This form could not be read",
        "message": "What was sent is not a form of this site as it was shown, so nothing was saved. Go back, reload "
                   "the page and try again."}
    page = _page_for_browser(request, 400, exception, **words)
    return page if page is not None else json_problem(400, "bad_request", "Bad request")


def portal_time_zone(identity: Identity) -> zoneinfo.ZoneInfo:
    """The zone a signed-in person's pages show times in: their organisation's, else the portal's (stored times
    are UTC; only the pages' words change, and a date typed in a form is a day in this zone)."""
    name = settings.PORTAL_ORGANIZATION_TIME_ZONES.get(str(identity.org_id), settings.PORTAL_TIME_ZONE)
    return zoneinfo.ZoneInfo(name)


def portal_view(*, scopes: tuple[str, ...] = (), roles: tuple[str, ...] | None = None):
    """Wrap a portal view: login, role and scope checks, then view + rendering inside the identity context."""

    def decorate(view):
        @functools.wraps(view)
        def wrapper(request, *args, **kwargs):
            identity: Identity | None = getattr(request, "portal_identity", None)
            if identity is None:
                return _login_redirect(request)
            role = request.session.get(SESSION_KEY, {}).get("role")
            if (roles is not None and role not in roles) or any(not identity.has_scope(s) for s in scopes):
                return error_page(request, 403)
            try:
                # the signed-in person's pages spend their subject's allowance in the API's counters (a script
                # holding a session cookie read pages without end), the organisation's too
                with (timezone.override(portal_time_zone(identity)),
                      identity_context(identity, gate=RequestGate(identity))):
                    response = view(request, *args, **kwargs)
                    if hasattr(response, "render") and not getattr(response, "is_rendered", True):
                        response.render()
            except RateLimited as limited:
                return rate_limited_page(request, limited)
            except UnknownOrganization:
                # The organisation was removed from the registry, or no longer trusts this provider: nothing is
                # shown, and nothing is audited (as for the API: nobody could read such rows).
                return error_page(request, 403)
            except Conflict:  # e.g. a proposal confirmed twice (a double submit): nothing was changed
                limited = _counted_refusal(identity)
                return rate_limited_page(request, limited) if limited else error_page(request, 409)
            except (NotFound, Forbidden, NoConsentOrAccess, InsufficientScope) as exc:
                if (limited := _audit_refusal(identity, request, kwargs, exc)) is not None:
                    return rate_limited_page(request, limited)
                # "Not yours" looks exactly like "not there".
                return error_page(request, 404 if isinstance(exc, NotFound | NoConsentOrAccess) else 403)
            add_never_cache_headers(response)  # pages hold personal data: never cached
            return response

        setattr(wrapper, PORTAL_ATTR, {"scopes": scopes, "roles": roles})
        return wrapper

    return decorate
