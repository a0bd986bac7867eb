"""Browser login with OpenID Connect (mozilla-django-oidc), and the portal identity it yields.

What mozilla-django-oidc leaves to us, done here:

* the ID token's issuer, audience (and ``azp`` when there are several), expiry and issue time are checked; the
  library verifies only the signature and the nonce. The algorithm comes from ``OIDC_RP_SIGN_ALGO`` (RS256 or
  ES256), never from the token;
* users are found by the provider's ``(iss, sub)`` through :class:`core.models.PortalIdentity`, never by e-mail;
* the claims come from the verified ID token, not from an unsigned user-info response;
* the organisation, patient id and role are checked (a patient has a patient id, staff have none) and kept in the
  session; each portal request turns them into the same :class:`core.identity.Identity` the API uses;
* login callbacks are rate-limited per browser and per client address, in counters every worker shares.
"""

from __future__ import annotations

import logging
import random
import time
import uuid
from urllib.parse import urlencode

import httpx
import jwt
from django.conf import settings
from django.contrib import auth, messages
from django.contrib.auth import get_user_model
from django.core.exceptions import SuspiciousOperation
from django.db import IntegrityError, connection, transaction
from django.http import HttpResponse
from django.middleware.csrf import rotate_token
from django.shortcuts import redirect, render
from mozilla_django_oidc.auth import OIDCAuthenticationBackend
from mozilla_django_oidc.views import OIDCAuthenticationCallbackView, OIDCAuthenticationRequestView

from core.authentication import KeySetCache, KeySetUnavailable, UnknownKey, local_subject, well_formed_subject
from core.errors import InvalidToken
from core.gate import address_group, admitted, hits_counted, request_client_address
from core.http_deadline import DeadlineTransport
from core.identity import ACTOR_PATIENT, ACTOR_STAFF, Identity
from core.models import PortalIdentity

log = logging.getLogger("anamnesis.portal.auth")

ROLE_PATIENT = "patient"
ROLE_STAFF = "staff"
ROLE_ORG_ADMIN = "org_admin"
ROLE_AUDITOR = "auditor"
ROLES = (ROLE_PATIENT, ROLE_STAFF, ROLE_ORG_ADMIN, ROLE_AUDITOR)
ROLE_LABELS = {ROLE_PATIENT: "Patient", ROLE_STAFF: "Care staff", ROLE_ORG_ADMIN: "Organisation administrator",
               ROLE_AUDITOR: "Auditor"}

# What each role may do in the portal; the same scope names the API's tokens carry, so RLS policies that test a
# scope (audit:read, grant:write, workflow:reconcile) read the portal identity exactly as a token's.
ROLE_SCOPES: dict[str, frozenset[str]] = {
    ROLE_PATIENT: frozenset({"memory:read", "memory:write", "consent:read", "consent:write", "audit:read",
                             "workflow:read", "patient:read", "export:read"}),
    ROLE_STAFF: frozenset({"memory:read", "memory:write", "consent:read", "consent:write", "workflow:read",
                           "workflow:write", "workflow:reconcile", "patient:read"}),
    ROLE_ORG_ADMIN: frozenset({"grant:write", "consent:read", "audit:read", "workflow:read", "workflow:reconcile",
                               "workflow:reconcile:org", "patient:read", "patient:write", "memory:read",
                               "memory_type:write"}),
    ROLE_AUDITOR: frozenset({"audit:read"}),
}

SESSION_KEY = "portal_identity"
# A form was sent after the session had ended (nothing saved): the page the sign-in returns to says so.
UNSENT_FORM_KEY = "portal_unsent_form"
UNSENT_FORM_NOTICE = ("Your session had ended when you sent the form, so it was not saved and nothing was changed. "
                      "Fill it in again and send it.")


class ClaimsRefused(SuspiciousOperation):
    """The provider's claims do not describe a portal user we can serve (no PHI in the message)."""


def _uuid_claim(claims: dict, name: str, *, required: bool) -> str | None:
    value = claims.get(name)
    if value in (None, ""):
        if required:
            raise ClaimsRefused(f"the {name} claim is missing")
        return None
    if not isinstance(value, str):
        raise ClaimsRefused(f"the {name} claim is not a string")
    try:
        return str(uuid.UUID(value))
    except ValueError:
        raise ClaimsRefused(f"the {name} claim is not a UUID") from None


def portal_claims(claims: dict) -> dict:
    """The session's view of a verified login: issuer, subject, organisation, role, patient id (patients only)."""
    sub = claims.get("sub")
    if not well_formed_subject(sub):
        raise ClaimsRefused("the sub claim is missing or malformed")
    role = claims.get("role")
    if role not in ROLES:
        raise ClaimsRefused("the role claim is missing or unknown")
    org_id = _uuid_claim(claims, "org_id", required=True)
    patient_id = _uuid_claim(claims, "patient_id", required=role == ROLE_PATIENT)
    if role != ROLE_PATIENT and patient_id is not None:
        raise ClaimsRefused("staff logins carry no patient_id")
    name = claims.get("name") if isinstance(claims.get("name"), str) else ""
    try:
        actor_sub = local_subject(claims["iss"], sub)  # as the API names this user (issuer namespaces)
    except InvalidToken:
        raise ClaimsRefused("the sub claim is missing or malformed") from None
    return {"iss": claims["iss"], "sub": sub, "actor_sub": actor_sub, "org_id": org_id, "role": role,
            "patient_id": patient_id, "name": name[:120]}


def identity_from_session(data: dict) -> Identity:
    """The RLS identity of a portal session (the same dataclass the API builds from a token)."""
    role = data["role"]
    patient_id = uuid.UUID(data["patient_id"]) if data.get("patient_id") else None
    return Identity(org_id=uuid.UUID(data["org_id"]), actor_sub=data["actor_sub"], patient_self_id=patient_id,
                    scopes=ROLE_SCOPES[role], actor_kind=ACTOR_PATIENT if patient_id else ACTOR_STAFF,
                    issuer=data["iss"])


_op_key_sets: dict[tuple, KeySetCache] = {}


def _op_key_set() -> KeySetCache:
    """The provider's JWKS, cached like the API's (refetched on an unknown kid, at a bounded rate)."""
    config = KeySetCache.configured(settings.OIDC_OP_JWKS_ENDPOINT, timeout=settings.OIDC_TIMEOUT)
    cache_ = _op_key_sets.get(config)
    if cache_ is None:
        cache_ = _op_key_sets[config] = KeySetCache.from_config(config)
    return cache_


class PortalOIDCBackend(OIDCAuthenticationBackend):
    """mozilla-django-oidc with issuer/audience checks and (issuer, subject) matching."""

    def retrieve_matching_jwk(self, token):
        # A token without kid is accepted only while the provider publishes exactly one key (as for the API).
        header = jwt.get_unverified_header(token)
        kid = header.get("kid")
        if kid is not None and not isinstance(kid, str):
            raise SuspiciousOperation("malformed key id")
        try:
            key = _op_key_set().get(kid, header.get("alg"))  # of its algorithm, when keys share an id
        except KeySetUnavailable:
            # the provider's outage, as its token endpoint out of reach (the callback's 503 page), not a refusal
            raise ProviderUnavailable("the provider's key set cannot be reached") from None
        except UnknownKey:
            raise SuspiciousOperation("no matching signing key") from None
        if key.algorithm_name and key.algorithm_name != header.get("alg"):
            raise SuspiciousOperation("the key's algorithm does not match the token's")
        return key

    def verify_token(self, token, **kwargs):
        if self.OIDC_RP_SIGN_ALGO not in ("RS256", "ES256"):
            raise ImproperlyConfiguredAlgorithm()
        try:
            payload = super().verify_token(token, **kwargs)  # signature (alg pinned) and nonce
        except jwt.PyJWTError:
            raise SuspiciousOperation("ID token rejected") from None
        issuer = self.get_settings("OIDC_OP_ISSUER")
        leeway = self.get_settings("OIDC_LEEWAY_SECONDS", 30)
        if payload.get("iss") != issuer:
            raise SuspiciousOperation("ID token issuer mismatch")
        audience = payload.get("aud")
        audiences = [audience] if isinstance(audience, str) else audience if isinstance(audience, list) else []
        if self.OIDC_RP_CLIENT_ID not in audiences:
            raise SuspiciousOperation("ID token audience mismatch")
        if len(audiences) > 1 and payload.get("azp") != self.OIDC_RP_CLIENT_ID:
            raise SuspiciousOperation("ID token authorised party mismatch")
        now = time.time()
        exp, iat = payload.get("exp"), payload.get("iat")
        if not isinstance(exp, int | float) or exp + leeway < now:
            raise SuspiciousOperation("ID token expired")
        if not isinstance(iat, int | float) or iat - leeway > now:
            raise SuspiciousOperation("ID token issued in the future")
        return payload

    def get_user(self, user_id):
        # The session's user on every page. mozilla-django-oidc's returns an inactive user too (its callback only
        # refuses them a new sign-in), so a user made inactive kept their open sessions; Django's ModelBackend
        # ends them, and so does this.
        user = super().get_user(user_id)
        return user if user is not None and user.is_active else None

    def get_token(self, payload):
        """The code exchange at the provider's token endpoint, as the library's but within a deadline: requests'
        timeout bounds each read, so a provider sending its answer a byte at a time held the sign-in's thread for
        as long as it liked. The whole exchange ends within twice ``OIDC_TIMEOUT`` (as the key set's fetch)."""
        timeout = self.get_settings("OIDC_TIMEOUT")
        with httpx.Client(transport=DeadlineTransport(deadline=2 * timeout), timeout=timeout,
                          follow_redirects=False) as client:
            response = client.post(self.OIDC_OP_TOKEN_ENDPOINT, data=payload)
        response.raise_for_status()  # the body of an error answer is the provider's, never logged
        token_info = response.json()
        if not isinstance(token_info, dict):  # the library reads it with .get(): a list was a 500
            raise ProviderUnavailable("the token endpoint answered no JSON object")
        return token_info

    def get_userinfo(self, access_token, id_token, payload):
        # The verified, signed ID token is the source of the claims; no unsigned user-info round trip.
        return payload

    def verify_claims(self, claims):
        try:
            checked = portal_claims(claims)
        except ClaimsRefused as exc:
            log.warning("login refused: %s", exc)
            return False
        if not admitted(checked["org_id"], checked["iss"]):  # as the API answers 403 unknown_organization
            log.warning("login refused: the organisation is not registered for this identity provider")
            return False
        return True

    def filter_users_by_claims(self, claims):
        users = get_user_model().objects.filter(portal_identity__issuer=claims["iss"],
                                                portal_identity__subject=claims["sub"])
        return list(users)

    def create_user(self, claims):
        User = get_user_model()  # noqa: N806
        try:
            with transaction.atomic():
                # A username that says nothing about the person; the link is PortalIdentity.
                user = User.objects.create_user(username=f"oidc-{uuid.uuid4()}")
                user.set_unusable_password()
                user.save(update_fields=["password"])
                PortalIdentity.objects.create(user=user, issuer=claims["iss"], subject=claims["sub"])
        except IntegrityError:  # the same person's first two logins raced: use the winner
            user = User.objects.get(portal_identity__issuer=claims["iss"], portal_identity__subject=claims["sub"])
        return self._with_claims(user, claims)

    def update_user(self, user, claims):
        return self._with_claims(user, claims)

    @staticmethod
    def _with_claims(user, claims):
        user.portal_claims = portal_claims(claims)
        return user


class ProviderUnavailable(ValueError):
    """The provider cannot be reached or answered nonsense: the callback shows the sign-in service's 503 page."""


class ImproperlyConfiguredAlgorithm(SuspiciousOperation):
    def __init__(self):
        super().__init__("OIDC_RP_SIGN_ALGO must be RS256 or ES256")


def _client_address(request) -> str:
    # an IPv6 client by its /64 (it may rotate through the whole of it), an IPv4-mapped one as the IPv4 address
    return address_group(request_client_address(request.META) or "unknown")


def _too_many_sign_ins(request, retry_after: int):
    response = render(request, "portal/login_failed.html",
                      {"reason": "Too many sign-in attempts. Wait a minute and try again."}, status=429)
    response["Retry-After"] = str(retry_after)
    return response


# Expired sessions deleted by a share of the sign-ins begun, a bounded batch each time, so the rows of sign-ins
# never finished (and of sessions that timed out) go without a cron job running clearsessions.
_SWEEP_SESSIONS = ("DELETE FROM django_session WHERE session_key IN (SELECT session_key FROM django_session "
                   "WHERE expire_date < now() LIMIT 500)")


def new_session_refused(request) -> int | None:
    """Whether a request without a session (none sent, or one that ended) may not have a session row written for
    it: None, or the seconds until it may. Counted per client address in the shared counters
    (``PORTAL_LOGIN_START_RATE_PER_ADDRESS`` a minute), so no client writes rows without end; a request with a
    session reuses its row and is not counted."""
    request.session.get(SESSION_KEY)  # loads it: an unknown or expired session's cookie names no row
    limit = settings.PORTAL_LOGIN_START_RATE_PER_ADDRESS
    if request.session.session_key is not None or limit <= 0:
        return None
    (count,), retry_after = hits_counted([("portal-login-start", "address", _client_address(request))],
                                         window_seconds=60)
    return retry_after if count > limit else None


class PortalAuthenticateView(OIDCAuthenticationRequestView):
    """The start of a sign-in (``/oidc/authenticate/``): the state, nonce and PKCE verifier kept in the session.
    A browser without a session gets a new session row for them, so a script calling it without cookies wrote one
    row per call, with no limit. A start that would create a session is counted per client address in the shared
    counters (``PORTAL_LOGIN_START_RATE_PER_ADDRESS`` a minute; 429 beyond, nothing written); a browser's further
    starts reuse its row (the library keeps at most 50 states in it)."""

    def get(self, request):
        retry_after = new_session_refused(request)
        if retry_after is not None:
            log.warning("sign-in starts rate-limited")
            return _too_many_sign_ins(request, retry_after)
        if random.random() < settings.API_RATE_LIMIT_SWEEP_SHARE:  # noqa: S311 (not security)
            with connection.cursor() as cursor:
                cursor.execute(_SWEEP_SESSIONS)
        return super().get(request)


def callback_rate_limited(request) -> int | None:
    """Whether this sign-in callback is over its limit: None, or the seconds until it may be tried again.

    Counted in PostgreSQL beside the API's limits, so every worker and node shares the counts (a per-process
    cache let each worker take its own allowance). A callback answering a sign-in this browser began (its state is
    in the session) spends the browser's allowance and a far larger one of its address: a hospital's staff behind
    one NAT address all sign in at the start of a shift. Any other callback (forged, replayed, stale) can sign
    nobody in; those are limited per address, apart, so a flood of them from an address locks out no one there who
    is signing in."""
    states = request.session.get("oidc_states")
    state = request.GET.get("state")
    address = _client_address(request)
    if isinstance(states, dict) and isinstance(state, str) and state in states:
        limits = [(("portal-login", "browser", request.session.session_key or ""),
                   settings.PORTAL_LOGIN_CALLBACK_RATE),
                  (("portal-login", "address", address), settings.PORTAL_LOGIN_CALLBACK_RATE_PER_ADDRESS)]
    else:
        limits = [(("portal-login", "unissued", address), settings.PORTAL_LOGIN_CALLBACK_RATE)]
    limits = [(parts, limit) for parts, limit in limits if limit > 0]
    if not limits:
        return None
    counts, retry_after = hits_counted([parts for parts, _ in limits], window_seconds=60)
    return retry_after if any(count > limit for count, (_, limit) in zip(counts, limits, strict=True)) else None


class PortalCallbackView(OIDCAuthenticationCallbackView):
    """The provider's redirect back to us: rate-limited, and the verified claims land in the session."""

    def get(self, request):
        retry_after = callback_rate_limited(request)
        if retry_after is not None:
            log.warning("login callbacks rate-limited")
            return _too_many_sign_ins(request, retry_after)
        try:
            if request.GET.get("error"):
                return self._provider_refused(request)
            return super().get(request)
        except SuspiciousOperation as exc:
            log.warning("login failed: %s", type(exc).__name__)
            return self.login_failure()
        except (httpx.HTTPError, ValueError) as exc:  # the provider is down or answered nonsense
            log.warning("login failed: identity provider error %s", type(exc).__name__)
            response = render(request, "portal/login_failed.html",
                              {"reason": "The sign-in service is not available at the moment. Try again shortly."},
                              status=503)
            response["Retry-After"] = str(settings.API_UNAVAILABLE_RETRY_AFTER_SECONDS)  # as every 503 of ours
            return response

    def _provider_refused(self, request):
        """The provider answered with an error. mozilla-django-oidc would also sign out whoever is signed in
        (for its session-refresh middleware, which the portal does not use): anyone's page could then sign a user
        out with a link to ``?error=x``. Only the state the error answers is spent (no replay)."""
        states = request.session.get("oidc_states")
        if isinstance(states, dict) and request.GET.get("state") in states:
            del states[request.GET["state"]]
            request.session.modified = True
        return self.login_failure()

    def login_failure(self):
        # A failed or forged callback (any site can link to /oidc/callback/?code=x&state=y) leaves an existing
        # session alone; signing out here would let any page end the user's session.
        signed_in = self.request.user.is_authenticated and SESSION_KEY in self.request.session
        reason = ("Sign-in did not complete. You are still signed in as before." if signed_in else
                  "Sign-in did not complete. Please try again.")
        return render(self.request, "portal/login_failed.html", {"reason": reason, "still_signed_in": signed_in},
                      status=403)

    def login_success(self):
        claims = getattr(self.user, "portal_claims", None)
        if claims is None:
            return self.login_failure()
        # A fresh session for every login (no fixation), then the claims and the absolute-timeout clock.
        next_url = self.request.session.get("oidc_login_next")
        id_token = self.request.session.get("oidc_id_token")
        unsent_form = self.request.session.get(UNSENT_FORM_KEY)
        auth.logout(self.request)
        auth.login(self.request, self.user)
        if unsent_form:
            messages.warning(self.request, UNSENT_FORM_NOTICE)
        self.request.session[SESSION_KEY] = claims
        self.request.session["portal_login_at"] = int(time.time())
        if id_token:
            self.request.session["oidc_id_token"] = id_token
        if next_url:
            self.request.session["oidc_login_next"] = next_url
        return super().login_success()


def portal_logout_response(request) -> HttpResponse:
    """End the Django session, then (when the provider has one) its session too, via end_session."""
    id_token = request.session.get("oidc_id_token")
    auth.logout(request)  # flushes the session
    rotate_token(request)  # a form of the signed-out pages (a token another script read there) is spent with them
    end_session = settings.OIDC_OP_END_SESSION_ENDPOINT
    if end_session:
        params = {"post_logout_redirect_uri": request.build_absolute_uri("/signed-out/")}
        if id_token:
            params["id_token_hint"] = id_token
        return redirect(f"{end_session}?{urlencode(params)}")
    return redirect("portal-signed-out")


