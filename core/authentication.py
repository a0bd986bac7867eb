"""Bearer JWT access tokens, validated locally against the identity provider's JWKS.

* algorithms come from a fixed allow-list (RS256, ES256), never from the token; keys never from the token's
  ``jku``/``x5u``/``jwk``/``x5c`` headers;
* ``exp iat iss aud sub`` are required (``sub`` without control characters), issuer and audience checked,
  ``org_id`` must be a UUID, ``patient_id`` (optional) a UUID;
* a token for several audiences names a client of ours as its ``azp`` (:func:`_check_authorized_party`);
* the key set is cached for ``OIDC_JWKS_CACHE_SECONDS`` and refetched when a token names an unknown ``kid``, at
  most once per ``OIDC_JWKS_MIN_REFETCH_SECONDS`` so random key ids cannot turn us into a fetch amplifier;
  refreshed by one caller while the others go on with the set they have, and kept through a failed refresh for
  ``OIDC_JWKS_STALE_SECONDS`` (:class:`core.jwks.KeySetCache`);
* an unreachable key set, with none kept, is the identity provider's outage (503), never the caller's fault (401);
* a verified token's identity is remembered until its ``exp``, while its key stays in the key set
  (:class:`VerifiedTokens`).
"""

from __future__ import annotations

import json
import logging
import re
import threading
import time
import unicodedata
import uuid
from dataclasses import dataclass
from typing import TypeGuard

import jwt
from django.conf import settings
from rest_framework.authentication import BaseAuthentication, get_authorization_header

from core.errors import IdentityProviderUnavailable, InvalidToken
from core.identity import ACTOR_AGENT, ACTOR_PATIENT, ACTOR_STAFF, Identity
from core.jwks import KeySetCache, KeySetUnavailable, UnknownKey
from core.vocabulary import PURPOSE_CODES

log = logging.getLogger("anamnesis.auth")

_FORBIDDEN_HEADERS = ("jku", "x5u", "jwk", "x5c")
_ACCEPTED_TYP = {"jwt", "at+jwt", "application/at+jwt"}


_cache_lock = threading.Lock()
_key_set_caches: dict[str, KeySetCache] = {}


@dataclass(frozen=True)
class TrustedIssuer:
    issuer: str
    jwks_url: str
    audience: str
    # Prefix of this issuer's subjects in the service (see local_subject); "" keeps them bare.
    subject_namespace: str = ""


def trusted_issuers() -> dict[str, TrustedIssuer]:
    """The issuers this deployment accepts tokens from (``OIDC_TRUSTED_ISSUERS``, or the one ``OIDC_ISSUER``).
    Which organisation trusts which of them is the registry's business (``core.gate``).

    A subject is unique only at its issuer (OIDC Core §5.7), so each issuer after the first has its subjects in
    a namespace of their own, its issuer identifier, unless its entry says otherwise (``"subject_namespace": ""``
    makes two providers share one set of users, on purpose)."""
    configured = settings.OIDC_TRUSTED_ISSUERS or [
        {"issuer": settings.OIDC_ISSUER, "jwks_url": settings.OIDC_JWKS_URL, "audience": settings.OIDC_AUDIENCE}]
    return {c["issuer"]: TrustedIssuer(c["issuer"], c["jwks_url"], c.get("audience") or settings.OIDC_AUDIENCE,
                                       c.get("subject_namespace", "" if i == 0 else c["issuer"]))
            for i, c in enumerate(configured)}


SUBJECT_SEPARATOR = "#"


def _namespaced(issuer: str, name: str) -> str:
    """``name`` (a subject or a client id) as the service knows it: in its issuer's namespace, or bare. A bare
    name that reads like one in another issuer's namespace is refused: it would speak for that issuer's user."""
    issuers = trusted_issuers()
    trusted = issuers.get(issuer)
    namespace = trusted.subject_namespace if trusted is not None else ""
    if namespace:
        return f"{namespace}{SUBJECT_SEPARATOR}{name}"
    if any(t.subject_namespace and name.startswith(t.subject_namespace + SUBJECT_SEPARATOR) for t in issuers.values()):
        raise InvalidToken("a name in the token poses as another issuer's")
    return name


def local_agent(issuer: str, client_id: str) -> str:
    """An agent's client id as the service names it: like subjects (see local_subject), a client of an issuer
    after the first is ``<namespace>#<client id>``, so two providers' agents of one name stay apart."""
    local = _namespaced(issuer, client_id)
    if len(local) > 255 or not local.isascii():
        raise InvalidToken("the agent's client id is malformed")
    return local


def local_subject(issuer: str, sub: str) -> str:
    """Who the token's subject is in this service: what grants, consents, receipts and audit rows name.

    The first issuer's subjects stay bare (``nurse-7``); another issuer's are ``<namespace>#<sub>``
    (``https://idp.b.example#nurse-7``), so a provider cannot speak for a user of another that happens to share a
    ``sub``. A bare subject that reads like a namespaced one is refused, and so is one too long to store."""
    local = _namespaced(issuer, sub)
    if len(local) > 255:
        raise InvalidToken("the subject claim is malformed")
    return local


def key_set_cache(url: str | None = None) -> KeySetCache:
    """The key-set cache of one JWKS URL (default: the first trusted issuer's)."""
    url = url or next(iter(trusted_issuers().values())).jwks_url
    config = KeySetCache.configured(url, timeout=settings.OIDC_JWKS_TIMEOUT_SECONDS)
    with _cache_lock:
        cache = _key_set_caches.get(url)
        if cache is None or cache.config != config:
            cache = _key_set_caches[url] = KeySetCache.from_config(config)
        return cache


# Control and format characters (zero-width spaces, direction overrides that make "\u202eecila" show as "alice"),
# line and paragraph separators: a subject is a name people read in access histories.
_UNPRINTABLE = frozenset({"Cc", "Cf", "Zl", "Zp"})


def well_formed_subject(sub: object) -> TypeGuard[str]:
    """A ``sub`` we can store and print (audit trails name it): text of 1 to 255 characters, not only spaces, no
    NUL, lone surrogate, control, invisible formatting or line-separator character."""
    return (isinstance(sub, str) and bool(sub.strip()) and len(sub) <= 255 and not unstorable(sub)
            and not any(unicodedata.category(ch) in _UNPRINTABLE for ch in sub))


def unstorable(value: str) -> bool:
    """PostgreSQL text cannot hold NUL, and UTF-8 cannot encode a lone surrogate."""
    return "\x00" in value or any("\ud800" <= ch <= "\udfff" for ch in value)


def _numeric_date(claims: dict, name: str, *, required: bool) -> float | None:
    value = claims.get(name)
    if value is None:
        if required:
            raise InvalidToken(f"the {name} claim is missing")
        return None
    # RFC 7519 NumericDate: a JSON number. A string, even "1700000000", is refused (bool is an int in Python).
    if isinstance(value, bool) or not isinstance(value, int | float) or value != value:
        raise InvalidToken(f"the {name} claim must be a number")
    return float(value)


# A UUID claim in its one written form (8-4-4-4-12 hex digits, either case): Python's parser also reads braces,
# urn:uuid: and no dashes, which no identity provider issues. A scope token as RFC 6749 section 3.3 defines it,
# the tokens separated by spaces (never tabs or newlines).
_UUID_CLAIM = re.compile(r"[0-9A-Fa-f]{8}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{12}")
_SCOPE_TOKEN = re.compile(r"[\x21\x23-\x5B\x5D-\x7E]+")


def _parse_uuid(value) -> uuid.UUID:
    if not isinstance(value, str):
        raise InvalidToken("a UUID claim is not a string")
    if not _UUID_CLAIM.fullmatch(value):
        raise InvalidToken("a UUID claim is malformed")
    parsed = uuid.UUID(value)
    if parsed.int in (0, 2**128 - 1):  # placeholders (RFC 9562), never an organisation's or a patient's id
        raise InvalidToken("a UUID claim is the nil or max UUID")
    return parsed


def _scopes(claims: dict) -> frozenset[str]:
    raw = claims.get("scope", claims.get("scp", ""))
    tokens = [t for t in raw.split(" ") if t] if isinstance(raw, str) else raw
    if isinstance(tokens, list) and all(isinstance(t, str) and _SCOPE_TOKEN.fullmatch(t) for t in tokens):
        return frozenset(tokens)
    raise InvalidToken("the scope claim is malformed")


def _purposes(claims: dict) -> frozenset[str]:
    """The token's ``purpose_of_use`` claim (space-separated like ``scope``, or a list): the codes of ours it names.
    Codes of other vocabularies are left out, so a provider's wider claim never fails the token."""
    raw = claims.get("purpose_of_use")
    if raw is None:
        return frozenset()
    codes = raw.split(" ") if isinstance(raw, str) else raw
    if not isinstance(codes, list) or not all(isinstance(c, str) for c in codes) or len(codes) > 20:
        raise InvalidToken("the purpose_of_use claim is malformed")
    return frozenset(c for c in codes if c in PURPOSE_CODES)


def _check_config() -> tuple:
    # The trusted issuers too: a verified token names its subject in its issuer's namespace (local_subject).
    return (settings.OIDC_ISSUER, settings.OIDC_AUDIENCE, tuple(settings.OIDC_ALLOWED_ALGORITHMS),
            tuple(settings.OIDC_AGENT_CLIENT_IDS), repr(settings.OIDC_TRUSTED_ISSUERS))


class VerifiedTokens:
    """Identities of tokens verified recently, so an agent's repeated calls pay for the signature check once.

    An entry lives until the token's own ``exp`` (plus the same leeway the check allows) and only while the key
    set still holds the very key that verified it: a rotated-out key invalidates its tokens at the next key-set
    refresh. Bounded (oldest entries go first). A cache of verifications, not of authorisations: every request
    still runs under RLS, and another node simply verifies the token itself.
    """

    def __init__(self, max_entries: int = 10_000) -> None:
        self.max_entries = max_entries
        self._entries: dict[str, tuple[Identity, float, str | None, jwt.PyJWK, tuple, str]] = {}
        self._lock = threading.Lock()

    def get(self, token: str) -> Identity | None:
        entry = self._entries.get(token)
        if entry is None:
            return None
        identity, valid_until, kid, key, config, jwks_url = entry
        if time.time() >= valid_until or config != _check_config():
            self._entries.pop(token, None)
            return None
        try:
            # the key set of the issuer that signed it (each trusted issuer publishes its own)
            if not any(candidate is key for candidate in key_set_cache(jwks_url).candidates(kid)):
                self._entries.pop(token, None)
                return None
        except (KeySetUnavailable, UnknownKey):
            self._entries.pop(token, None)
            return None
        return identity

    def put(self, token: str, identity: Identity, *, exp: float, kid: str | None, key: jwt.PyJWK,
            jwks_url: str) -> None:
        with self._lock:
            while len(self._entries) >= self.max_entries:
                self._entries.pop(next(iter(self._entries)), None)
            self._entries[token] = (identity, exp + settings.OIDC_LEEWAY_SECONDS, kid, key, _check_config(),
                                    jwks_url)

    def clear(self) -> None:
        with self._lock:
            self._entries.clear()


verified_tokens = VerifiedTokens()


_CLIENT_ID_CHARS = frozenset(chr(c) for c in range(0x21, 0x7f))


def _agent_client_id(claims: dict) -> str | None:
    """The agent's client id when an agent presents this token, else None.

    An agent is named by the RFC 8693 ``act`` claim (``act.client_id`` or ``act.sub``: the party acting for the
    token's subject), or by a ``client_id`` / ``azp`` listed in ``OIDC_AGENT_CLIENT_IDS``.
    """
    act = claims.get("act")
    if act is not None:
        agent = act.get("client_id") or act.get("sub") if isinstance(act, dict) else None
        if not isinstance(agent, str) or not 0 < len(agent) <= 255 or not set(agent) <= _CLIENT_ID_CHARS:
            raise InvalidToken("the act claim is malformed")
        return agent
    for name in ("client_id", "azp"):
        value = claims.get(name)
        if isinstance(value, str) and value in settings.OIDC_AGENT_CLIENT_IDS:
            return value
    return None


def identity_from_token(token: str) -> Identity:
    """Validate an access token and return the verified identity, or raise InvalidToken / IdP unavailable."""
    cached = verified_tokens.get(token)
    if cached is not None:
        return cached
    try:
        header = jwt.get_unverified_header(token)
    except jwt.PyJWTError:
        raise InvalidToken("the token is not a well-formed JWT") from None
    alg = header.get("alg")
    if alg not in settings.OIDC_ALLOWED_ALGORITHMS:
        raise InvalidToken("the token's algorithm is not accepted")
    if any(h in header for h in _FORBIDDEN_HEADERS):
        raise InvalidToken("tokens may not name their own keys")
    typ = header.get("typ")
    if typ is not None and str(typ).lower() not in _ACCEPTED_TYP:
        raise InvalidToken("the token type is not an access token")
    kid = header.get("kid")
    if kid is not None and not isinstance(kid, str):
        raise InvalidToken("the key id is malformed")
    try:
        unverified = jwt.decode(token, options={"verify_signature": False})
    except jwt.PyJWTError:
        raise InvalidToken("the token is not a well-formed JWT") from None
    issuer = unverified.get("iss")
    trusted = trusted_issuers().get(issuer) if isinstance(issuer, str) else None
    if trusted is None:
        raise InvalidToken("the token's issuer is not trusted")
    try:
        keys = key_set_cache(trusted.jwks_url).candidates(kid, alg)
    except KeySetUnavailable:
        raise IdentityProviderUnavailable() from None
    except UnknownKey:
        raise InvalidToken("the token was signed by an unknown key") from None
    keys = tuple(key for key in keys if key.algorithm_name == alg)
    if not keys:
        raise InvalidToken("the token's algorithm does not match its key")
    key, claims = _verified(token, keys, alg, trusted)
    _check_authorized_party(claims)
    exp = _numeric_date(claims, "exp", required=True)
    iat = _numeric_date(claims, "iat", required=True)
    _numeric_date(claims, "nbf", required=False)
    assert exp is not None and iat is not None  # required above
    if exp - iat > settings.OIDC_MAX_TOKEN_LIFETIME_SECONDS:
        raise InvalidToken("the token's lifetime exceeds what this service accepts")
    sub = claims.get("sub")
    if not well_formed_subject(sub):
        raise InvalidToken("the subject claim is missing or malformed")
    if "org_id" not in claims:
        raise InvalidToken("the org_id claim is missing")
    org_id = _parse_uuid(claims["org_id"])
    patient_id = _parse_uuid(claims["patient_id"]) if claims.get("patient_id") is not None else None
    agent = _agent_client_id(claims)
    if agent is not None:
        agent = local_agent(claims["iss"], agent)
    identity = Identity(
        org_id=org_id,
        actor_sub=local_subject(claims["iss"], sub),
        patient_self_id=patient_id,
        scopes=_scopes(claims),
        actor_kind=ACTOR_AGENT if agent else ACTOR_PATIENT if patient_id else ACTOR_STAFF,
        issuer=claims["iss"],
        agent_client_id=agent,
        token_purposes=_purposes(claims),
    )
    if isinstance(claims["exp"], int | float):
        verified_tokens.put(token, identity, exp=float(claims["exp"]), kid=kid, key=key,
                            jwks_url=trusted.jwks_url)
    return identity


def _verified(token: str, keys: tuple[jwt.PyJWK, ...], alg: str, trusted: TrustedIssuer) -> tuple[jwt.PyJWK, dict]:
    """The key among ``keys`` (those published under the token's key id for its algorithm) whose signature the
    token carries, and its checked claims; InvalidToken when none verifies it or a claim fails."""
    for key in keys:
        try:
            return key, jwt.decode(
                token,
                key.key,
                algorithms=[alg],
                audience=trusted.audience,
                issuer=trusted.issuer,
                leeway=settings.OIDC_LEEWAY_SECONDS,
                options={"require": ["exp", "iat", "iss", "aud", "sub"], "verify_iat": True},
            )
        except jwt.InvalidSignatureError:
            continue  # another key of the same id may have signed it
        except jwt.PyJWTError:
            raise InvalidToken() from None
        except (ValueError, TypeError, json.JSONDecodeError):
            raise InvalidToken() from None
    raise InvalidToken()


def _check_authorized_party(claims: dict) -> None:
    """A token for several audiences (ours among them: checked already) names the client it was issued to, and
    that client is one of our agents (``OIDC_AGENT_CLIENT_IDS``; OIDC Core 3.1.3.7). Any other such token was
    obtained by a client for another service too, and is not that client's to spend here; nor is the portal's
    (its ID tokens, naming the API too, are no access tokens)."""
    audiences = claims["aud"]
    if isinstance(audiences, str) or len(set(audiences)) <= 1:
        return
    azp = claims.get("azp")
    if not isinstance(azp, str) or azp not in settings.OIDC_AGENT_CLIENT_IDS:
        raise InvalidToken("a token for several audiences must name a client of ours as its azp")


def bearer_token(authorization: bytes) -> str | None:
    """The token of an ``Authorization: Bearer <token>`` header, read alike by the REST API and ``/mcp``; ``None``
    when the header is absent or blank. Another scheme, no token or more than one, a token that is not ASCII or
    is over 16 kB: :class:`InvalidToken`."""
    parts = authorization.split()
    if not parts:
        return None
    if parts[0].lower() != b"bearer" or len(parts) != 2:
        raise InvalidToken("use the Bearer scheme with one token")
    try:
        token = parts[1].decode("ascii")
    except UnicodeDecodeError:
        raise InvalidToken() from None
    if len(token) > 16_384:
        raise InvalidToken("the token is too large")
    return token


class BearerTokenAuthentication(BaseAuthentication):
    """DRF authentication: ``request.auth`` becomes the verified :class:`Identity`."""

    def authenticate(self, request):
        token = bearer_token(get_authorization_header(request))
        if token is None:
            return None
        identity = identity_from_token(token)
        return (TokenUser(identity), identity)

    def authenticate_header(self, request):
        return "Bearer"


class TokenUser:
    """The minimal user object DRF wants; the identity itself is ``request.auth``."""

    is_authenticated = True
    is_anonymous = False

    def __init__(self, identity: Identity):
        self.identity = identity
        self.pk = identity.actor_sub

    def __str__(self) -> str:
        return self.identity.actor_sub
