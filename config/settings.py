"""Anamnesis settings: one module, driven by the environment (see .env.example)."""

from __future__ import annotations

import ipaddress
import logging
import uuid
import zoneinfo
from pathlib import Path

import environ

from core import dbconfig

BASE_DIR = Path(__file__).resolve().parent.parent

env = environ.Env()
environ.Env.read_env(BASE_DIR / ".env", overwrite=False)

ENVIRONMENT = env.str("ANAMNESIS_ENV", default="development")
PRODUCTION = ENVIRONMENT == "production"


def _required_in_production(name: str, default):
    if PRODUCTION and not env.str(name, default=""):
        raise environ.ImproperlyConfigured(f"{name} must be set when ANAMNESIS_ENV=production")
    return default


if PRODUCTION:
    SECRET_KEY = env.str("DJANGO_SECRET_KEY", default="") or _required_in_production("DJANGO_SECRET_KEY", "")
    ALLOWED_HOSTS = env.list("DJANGO_ALLOWED_HOSTS", default=[]) or _required_in_production(
        "DJANGO_ALLOWED_HOSTS", [])
    _required_in_production("DATABASE_URL", None)
    _required_in_production("DATABASE_OWNER_URL", None)
    DEBUG = False
else:
    SECRET_KEY = env.str("DJANGO_SECRET_KEY", default="dev-only-insecure-key-do-not-use-in-production")
    ALLOWED_HOSTS = env.list("DJANGO_ALLOWED_HOSTS", default=["127.0.0.1", "localhost", "testserver"])
    DEBUG = env.bool("DJANGO_DEBUG", default=False)

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "rest_framework",
    "drf_spectacular",
    "drf_spectacular_sidecar",
    "core",
    "events",
    "consent",
    "directory",
    "memory",
    "conversations",
    "workflows",
    "portal",
    "rights",
    "agents_mcp",
]
if not PRODUCTION:
    INSTALLED_APPS.append("demo")  # demo data, the development identity provider and demo tokens

MIDDLEWARE = [
    # first, so its span covers every other layer; not in the chain at all unless traces are on (core.tracing)
    "core.tracing.TracingMiddleware",
    "django.middleware.security.SecurityMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "core.middleware.RequestIdMiddleware",
    "core.observability.MetricsMiddleware",
    # the refusals of the next two, as a page for a browser (nothing of the browser's layers has run yet)
    "portal.context.RequestShapePageMiddleware",
    "core.middleware.RequestShapeMiddleware",
    "core.middleware.BodySizeLimitMiddleware",
    # The browser's layers (core.browser.BrowserOnly) stand aside on the bearer-token paths below.
    "core.browser.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "core.browser.CsrfViewMiddleware",
    "core.browser.AuthenticationMiddleware",
    "core.browser.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "portal.context.PortalSessionMiddleware",
    "portal.context.ContentSecurityPolicyMiddleware",
    "portal.context.MethodNotAllowedPageMiddleware",
]
# Paths that take a bearer token, never a cookie; the API's documentation is a page among them.
BEARER_PATH_PREFIXES = ("/v1/", "/mcp", "/health/", "/metrics")
BEARER_PATH_PAGES = ("/v1/docs",)
# What serves those paths under WSGI (core.wsgi): the list above without the browser's layers (static files,
# sessions, CSRF, the session user, messages, the portal's session and error pages), in the same order.
BROWSER_ONLY_MIDDLEWARE = (
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "portal.context.RequestShapePageMiddleware",
    "core.browser.SessionMiddleware",
    "core.browser.CsrfViewMiddleware",
    "core.browser.AuthenticationMiddleware",
    "core.browser.MessageMiddleware",
    "portal.context.PortalSessionMiddleware",
    "portal.context.MethodNotAllowedPageMiddleware",
)
BEARER_PATH_MIDDLEWARE = [m for m in MIDDLEWARE if m not in BROWSER_ONLY_MIDDLEWARE]
# A form without our CSRF token: the portal's page for browsers (only pages take forms).
CSRF_FAILURE_VIEW = "portal.context.csrf_failure"

ROOT_URLCONF = "config.urls"
WSGI_APPLICATION = "config.wsgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
                "portal.context.portal_context",
            ],
        },
    },
]

# --- Database ------------------------------------------------------------------------------------------------
# "default" is the runtime role (RLS applies); "owner" runs migrations only. See core/dbconfig.py.
DB_TOPOLOGY = dbconfig.resolve()
DATABASES = {
    "default": DB_TOPOLOGY.runtime.django(pool=env.bool("DB_POOL", default=True)),
    "owner": DB_TOPOLOGY.owner.django(pool=False),
}
DATABASE_ROUTERS = ["core.routers.OwnerMigratesRouter"]
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

# --- Identity -----------------------------------------------------------------------------------------------
OIDC_ISSUER = env.str("OIDC_ISSUER", default="http://127.0.0.1:8001")
OIDC_AUDIENCE = env.str("OIDC_AUDIENCE", default="anamnesis-api")
OIDC_JWKS_URL = env.str("OIDC_JWKS_URL", default="http://127.0.0.1:8001/jwks")
OIDC_JWKS_CACHE_SECONDS = env.int("OIDC_JWKS_CACHE_SECONDS", default=300)
OIDC_JWKS_TIMEOUT_SECONDS = env.float("OIDC_JWKS_TIMEOUT_SECONDS", default=3.0)
# At most one refetch of the key set per this many seconds when a token names an unknown key id.
OIDC_JWKS_MIN_REFETCH_SECONDS = env.float("OIDC_JWKS_MIN_REFETCH_SECONDS", default=10.0)
# How long past OIDC_JWKS_CACHE_SECONDS a key set is still used while its provider cannot be reached (the longest
# token lifetime by default): a provider's outage does not refuse tokens signed by keys it published moments ago.
OIDC_JWKS_STALE_SECONDS = env.float("OIDC_JWKS_STALE_SECONDS", default=3600.0)
OIDC_ALLOWED_ALGORITHMS = ["RS256", "ES256"]
OIDC_LEEWAY_SECONDS = env.int("OIDC_LEEWAY_SECONDS", default=30)
# Longest accepted access-token lifetime (exp - iat).
OIDC_MAX_TOKEN_LIFETIME_SECONDS = env.int("OIDC_MAX_TOKEN_LIFETIME_SECONDS", default=3600)
# One deployment may serve several hospitals, each with its own identity provider: a JSON list of
# {"issuer": ..., "jwks_url": ..., "audience": ...}. Empty: the one issuer above. Which organisation trusts which
# issuer is in the organisation registry (manage.py register_organization). Subjects of every issuer after the
# first are "<issuer>#<sub>" in the service, unless the entry says "subject_namespace": "" (core.authentication).
OIDC_TRUSTED_ISSUERS = env.json("OIDC_TRUSTED_ISSUERS", default=[])
if PRODUCTION:
    _required_in_production("OIDC_ISSUER", None) if not OIDC_TRUSTED_ISSUERS else None
    _required_in_production("OIDC_JWKS_URL", None) if not OIDC_TRUSTED_ISSUERS else None
    for _issuer in OIDC_TRUSTED_ISSUERS or [{"issuer": OIDC_ISSUER, "jwks_url": OIDC_JWKS_URL}]:
        for _key in ("issuer", "jwks_url"):
            if not str(_issuer.get(_key, "")).startswith("https://"):
                raise environ.ImproperlyConfigured(
                    f"OIDC {_key} must be an https:// URL when ANAMNESIS_ENV=production")
# Client ids (``client_id`` / ``azp`` claim) of AI agents: their tokens never speak as the patient (what they write
# is proposed). Tokens with an RFC 8693 ``act`` claim are agents' whatever their client.
OIDC_AGENT_CLIENT_IDS = frozenset(env.list("OIDC_AGENT_CLIENT_IDS", default=[]))

# --- Portal login (OpenID Connect, authorisation-code flow with PKCE; see portal/oidc.py) -------------------------
# Development defaults point at the local provider that `make run` starts (manage.py dev_idp).
AUTHENTICATION_BACKENDS = ["portal.oidc.PortalOIDCBackend"]
OIDC_OP_ISSUER = env.str("OIDC_OP_ISSUER", default=OIDC_ISSUER)
OIDC_OP_AUTHORIZATION_ENDPOINT = env.str("OIDC_OP_AUTHORIZATION_ENDPOINT",
                                         default=OIDC_OP_ISSUER + "/oauth2/authorize")
OIDC_OP_TOKEN_ENDPOINT = env.str("OIDC_OP_TOKEN_ENDPOINT", default=OIDC_OP_ISSUER + "/oauth2/token")
OIDC_OP_USER_ENDPOINT = env.str("OIDC_OP_USER_ENDPOINT", default=OIDC_OP_ISSUER + "/userinfo")
OIDC_OP_JWKS_ENDPOINT = env.str("OIDC_OP_JWKS_ENDPOINT", default=OIDC_JWKS_URL)
OIDC_OP_END_SESSION_ENDPOINT = env.str("OIDC_OP_END_SESSION_ENDPOINT", default=OIDC_OP_ISSUER + "/oauth2/end_session")
OIDC_RP_CLIENT_ID = env.str("OIDC_RP_CLIENT_ID", default="anamnesis-portal")
if PRODUCTION:
    # as the API's issuers: the token endpoint gets the client secret and the code, the key set decides whose ID
    # tokens are believed (and with OIDC_TRUSTED_ISSUERS and no OIDC_OP_ISSUER, all pointed at 127.0.0.1:8001)
    for _key in ("OIDC_OP_ISSUER", "OIDC_OP_AUTHORIZATION_ENDPOINT", "OIDC_OP_TOKEN_ENDPOINT", "OIDC_OP_JWKS_ENDPOINT",
                 "OIDC_OP_END_SESSION_ENDPOINT"):
        if globals()[_key] and not globals()[_key].startswith("https://"):  # end_session may be off ("")
            raise environ.ImproperlyConfigured(f"{_key} must be an https:// URL when ANAMNESIS_ENV=production")
if PRODUCTION:
    OIDC_RP_CLIENT_SECRET = env.str("OIDC_RP_CLIENT_SECRET", default="") or _required_in_production(
        "OIDC_RP_CLIENT_SECRET", "")
else:
    OIDC_RP_CLIENT_SECRET = env.str("OIDC_RP_CLIENT_SECRET", default="dev-portal-secret")
OIDC_RP_SIGN_ALGO = env.str("OIDC_RP_SIGN_ALGO", default="RS256")
OIDC_RP_SCOPES = "openid profile"
OIDC_USE_PKCE = True
OIDC_PKCE_CODE_CHALLENGE_METHOD = "S256"
OIDC_USE_NONCE = True
OIDC_TIMEOUT = env.float("OIDC_TIMEOUT_SECONDS", default=5.0)
OIDC_STORE_ID_TOKEN = True  # only as the id_token_hint for logout at the provider
OIDC_CREATE_USER = True
OIDC_CALLBACK_CLASS = "portal.oidc.PortalCallbackView"
OIDC_AUTHENTICATE_CLASS = "portal.oidc.PortalAuthenticateView"
LOGIN_URL = "/login/"
LOGIN_REDIRECT_URL = "/"
LOGIN_REDIRECT_URL_FAILURE = "/login/"
# Inactivity: the session cookie lives 15 minutes and every request renews it. Absolute: 8 hours from login.
SESSION_COOKIE_AGE = env.int("PORTAL_SESSION_IDLE_SECONDS", default=15 * 60)
SESSION_SAVE_EVERY_REQUEST = True
PORTAL_SESSION_ABSOLUTE_SECONDS = env.int("PORTAL_SESSION_ABSOLUTE_SECONDS", default=8 * 3600)
# Sign-in callbacks per minute, counted in PostgreSQL (shared by every worker and node): per browser for the
# sign-ins it began, and per client address for callbacks no sign-in here began (forged, replayed, stale); the
# sign-ins begun here from one address (a hospital's NAT) share a far larger allowance. 0: no limit.
PORTAL_LOGIN_CALLBACK_RATE = env.int("PORTAL_LOGIN_CALLBACK_RATE", default=20)
PORTAL_LOGIN_CALLBACK_RATE_PER_ADDRESS = env.int("PORTAL_LOGIN_CALLBACK_RATE_PER_ADDRESS", default=600)
# Sign-ins begun per minute from one client address that write a new session row (a browser with a session reuses
# its row). An IPv6 client counts by its /64. 0: no limit.
PORTAL_LOGIN_START_RATE_PER_ADDRESS = env.int("PORTAL_LOGIN_START_RATE_PER_ADDRESS", default=600)
# The time zone the portal's pages show times in (each named beside its time); stored times stay UTC. An
# organisation may have its own: a JSON object of organisation id -> IANA zone name.
PORTAL_TIME_ZONE = env.str("PORTAL_TIME_ZONE", default="UTC")
PORTAL_ORGANIZATION_TIME_ZONES = env.json("PORTAL_ORGANIZATION_TIME_ZONES", default={})
try:
    PORTAL_ORGANIZATION_TIME_ZONES = {str(uuid.UUID(org)): zone for org, zone in PORTAL_ORGANIZATION_TIME_ZONES.items()}
    for _zone in (PORTAL_TIME_ZONE, *PORTAL_ORGANIZATION_TIME_ZONES.values()):
        zoneinfo.ZoneInfo(_zone)
except (AttributeError, TypeError, ValueError, zoneinfo.ZoneInfoNotFoundError):
    raise environ.ImproperlyConfigured("PORTAL_TIME_ZONE and the values of PORTAL_ORGANIZATION_TIME_ZONES (an object "
                                       "of organisation ids) must be IANA time zone names") from None
PORTAL_CONTENT_SECURITY_POLICY = (
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; font-src 'self'; "
    # {idp_origin}: the provider's origin (sign-out is a form whose redirect ends there), filled in per response
    "connect-src 'self'; form-action 'self' {idp_origin}; frame-ancestors 'none'; base-uri 'none'; "
    "object-src 'none'"
)
# Paths whose pages set their own policy, or need none (the interactive API docs' script is a file of its own,
# config/urls.py, so they keep the policy above).
PORTAL_CSP_EXEMPT_PREFIXES: tuple[str, ...] = ()

# --- Policy -------------------------------------------------------------------------------------------------
MEMORY_POLICY_REVISION = env.str("MEMORY_POLICY_REVISION", default="memory-policy-v1")
AUDIT_POLICY_REVISION = MEMORY_POLICY_REVISION
# Encryption at rest for sensitive memory values: "kid:base64(32 bytes)[,kid2:...]" and the active kid.
# Development derives a key from the secret key; production must set both.
if PRODUCTION:
    MEMORY_ENCRYPTION_KEYS = env.str("MEMORY_ENCRYPTION_KEYS", default="") or _required_in_production(
        "MEMORY_ENCRYPTION_KEYS", "")
else:
    import base64 as _b64
    import hashlib as _hashlib

    _dev_key = _hashlib.sha256(("anamnesis-dev-memory-key:" + SECRET_KEY).encode()).digest()
    MEMORY_ENCRYPTION_KEYS = (env.str("MEMORY_ENCRYPTION_KEYS", default="")
                              or "dev1:" + _b64.b64encode(_dev_key).decode())
# Keys the hashed attribute of care facts (one per substance or medication). Must stay stable once in use.
MEMORY_ATTRIBUTE_KEY = env.str("MEMORY_ATTRIBUTE_KEY", default="") or ("attr:" + SECRET_KEY)
if PRODUCTION:
    MEMORY_ATTRIBUTE_KEY = env.str("MEMORY_ATTRIBUTE_KEY", default="") or _required_in_production(
        "MEMORY_ATTRIBUTE_KEY", "")
MEMORY_ENCRYPTION_ACTIVE_KEY = env.str("MEMORY_ENCRYPTION_ACTIVE_KEY", default="dev1")
# Retention (days) per memory class, and how long memories under a revoked consent are kept before erasure.
MEMORY_RETENTION_DAYS = {"working": 1, "preference": 730, "account_fact": 730, "care_context": 365}
MEMORY_REVOKED_CONSENT_GRACE_DAYS = env.int("MEMORY_REVOKED_CONSENT_GRACE_DAYS", default=0)
MEMORY_SUPERSEDED_RETENTION_DAYS = env.int("MEMORY_SUPERSEDED_RETENTION_DAYS", default=90)
# A proposal nobody confirmed or rejected within this many days lapses (expired; the sweep erases its value).
MEMORY_PROPOSAL_LAPSE_DAYS = env.int("MEMORY_PROPOSAL_LAPSE_DAYS", default=30)
# The audit trail is partitioned by month (core/audit_partitions.py). AUDIT_RETENTION_MONTHS: drop a month's
# partition once the whole month ended more than this many months ago (0, the default, keeps everything; HIPAA asks
# covered entities to keep such documentation six years, i.e. 72). AUDIT_PARTITIONS_AHEAD: months created ahead.
AUDIT_RETENTION_MONTHS = env.int("AUDIT_RETENTION_MONTHS", default=0)
AUDIT_PARTITIONS_AHEAD = env.int("AUDIT_PARTITIONS_AHEAD", default=3)
if AUDIT_RETENTION_MONTHS < 0 or AUDIT_PARTITIONS_AHEAD < 1:
    raise environ.ImproperlyConfigured("AUDIT_RETENTION_MONTHS must be 0 or more, AUDIT_PARTITIONS_AHEAD 1 or more")
# Embeddings: "local" (all-MiniLM-L6-v2, offline, CPU, in this process), "local-server" (the same model in one
# process per machine: manage.py run_embedding_server, which manage.py serve starts and points the web workers at)
# or "openai" (an OpenAI-compatible /v1/embeddings server).
EMBEDDING_PROVIDER = env.str("EMBEDDING_PROVIDER", default="local")
EMBEDDING_BASE_URL = env.str("EMBEDDING_BASE_URL", default="")
EMBEDDING_MODEL = env.str("EMBEDDING_MODEL", default="")
EMBEDDING_API_KEY = env.str("EMBEDDING_API_KEY", default="")
EMBEDDING_TIMEOUT_SECONDS = env.float("EMBEDDING_TIMEOUT_SECONDS", default=5.0)
EMBEDDING_TORCH_THREADS = env.int("EMBEDDING_TORCH_THREADS", default=1)
# auto: small calls (a question, a memory being written) use bfloat16 weights where the CPU computes in it natively
# and the vectors agree with float32's (memory.embeddings.TracedMiniLM); float32: never.
EMBEDDING_PRECISION = env.str("EMBEDDING_PRECISION", default="auto")
if EMBEDDING_PRECISION not in ("auto", "float32"):
    raise environ.ImproperlyConfigured("EMBEDDING_PRECISION must be auto or float32")
# Where manage.py serve runs the shared embedding server (loopback only); 0 = serve without it (in-process model).
EMBEDDING_SERVER_PORT = env.int("EMBEDDING_SERVER_PORT", default=8079)
MAX_REQUEST_BYTES = env.int("MAX_REQUEST_BYTES", default=64 * 1024)
# Deepest JSON nesting a request body may have (400 malformed_json beyond).
MAX_JSON_DEPTH = env.int("MAX_JSON_DEPTH", default=32)
# Longest query-string value (422 beyond) and whole query string (414 beyond).
MAX_QUERY_VALUE_CHARS = env.int("MAX_QUERY_VALUE_CHARS", default=500)
MAX_QUERY_STRING_CHARS = env.int("MAX_QUERY_STRING_CHARS", default=4096)
DATA_UPLOAD_MAX_MEMORY_SIZE = MAX_REQUEST_BYTES

# --- Short-term context (conversation sessions) -------------------------------------------------------------
# Sliding expiry: a session not touched for this long is gone (the specification's 4 hours of inactivity).
CONVERSATION_IDLE_SECONDS = env.int("CONVERSATION_IDLE_SECONDS", default=4 * 3600)
# Absolute limit: no session outlives this, however active.
CONVERSATION_ABSOLUTE_SECONDS = env.int("CONVERSATION_ABSOLUTE_SECONDS", default=24 * 3600)
# How long an ended (completed or abandoned) session's turns stay before the sweep removes them.
CONVERSATION_ENDED_RETENTION_SECONDS = env.int("CONVERSATION_ENDED_RETENTION_SECONDS", default=3600)
CONVERSATION_MAX_TURNS = env.int("CONVERSATION_MAX_TURNS", default=1000)
CONVERSATION_MAX_CONTENT_CHARS = env.int("CONVERSATION_MAX_CONTENT_CHARS", default=8000)
CONVERSATION_MAX_TOOL_RESULT_BYTES = env.int("CONVERSATION_MAX_TOOL_RESULT_BYTES", default=16 * 1024)
CONVERSATION_CONTEXT_DEFAULT_TOKENS = env.int("CONVERSATION_CONTEXT_DEFAULT_TOKENS", default=2000)
CONVERSATION_CONTEXT_MIN_TOKENS = env.int("CONVERSATION_CONTEXT_MIN_TOKENS", default=256)
CONVERSATION_CONTEXT_MAX_TOKENS = env.int("CONVERSATION_CONTEXT_MAX_TOKENS", default=128_000)
# deterministic (default) or llm (an OpenAI-compatible API; falls back to deterministic on any failure)
CONVERSATION_SUMMARISER = env.str("CONVERSATION_SUMMARISER", default="deterministic")
CONVERSATION_LLM_BASE_URL = env.str("CONVERSATION_LLM_BASE_URL", default="")
CONVERSATION_LLM_MODEL = env.str("CONVERSATION_LLM_MODEL", default="")
CONVERSATION_LLM_API_KEY = env.str("CONVERSATION_LLM_API_KEY", default="")
# responses (POST /v1/responses) or chat_completions (POST /v1/chat/completions); both with store: false
CONVERSATION_LLM_API = env.str("CONVERSATION_LLM_API", default="responses")
CONVERSATION_LLM_TIMEOUT_SECONDS = env.float("CONVERSATION_LLM_TIMEOUT_SECONDS", default=10.0)

# --- Outside systems -----------------------------------------------------------------------------------------
# One name per system: <SYSTEM>_BASE_URL. Conversations ask the scheduling system for offers; the outbox worker
# submits bookings to it and authorisation requests to the insurer.
SCHEDULING_BASE_URL = env.str("SCHEDULING_BASE_URL", default="http://127.0.0.1:8091")
INSURER_BASE_URL = env.str("INSURER_BASE_URL", default="http://127.0.0.1:8090")
SCHEDULING_CONNECT_TIMEOUT_SECONDS = env.float("SCHEDULING_CONNECT_TIMEOUT_SECONDS", default=2.0)
SCHEDULING_READ_TIMEOUT_SECONDS = env.float("SCHEDULING_READ_TIMEOUT_SECONDS", default=5.0)

# --- Workflow outbox worker ------------------------------------------------------------------------------------
WORKFLOW_HTTP_CONNECT_TIMEOUT_SECONDS = env.float("WORKFLOW_HTTP_CONNECT_TIMEOUT_SECONDS", default=2.0)
WORKFLOW_HTTP_READ_TIMEOUT_SECONDS = env.float("WORKFLOW_HTTP_READ_TIMEOUT_SECONDS", default=10.0)
WORKFLOW_OPERATION_MAX_ATTEMPTS = env.int("WORKFLOW_OPERATION_MAX_ATTEMPTS", default=8)
WORKFLOW_RETRY_BASE_SECONDS = env.float("WORKFLOW_RETRY_BASE_SECONDS", default=2.0)
WORKFLOW_RETRY_MAX_SECONDS = env.float("WORKFLOW_RETRY_MAX_SECONDS", default=300.0)
WORKFLOW_OPERATION_LEASE_SECONDS = env.float("WORKFLOW_OPERATION_LEASE_SECONDS", default=60.0)
WORKFLOW_CIRCUIT_FAILURE_THRESHOLD = env.int("WORKFLOW_CIRCUIT_FAILURE_THRESHOLD", default=5)
WORKFLOW_CIRCUIT_COOLDOWN_SECONDS = env.float("WORKFLOW_CIRCUIT_COOLDOWN_SECONDS", default=30.0)
WORKFLOW_WORKER_BATCH_SIZE = env.int("WORKFLOW_WORKER_BATCH_SIZE", default=10)
WORKFLOW_WORKER_POLL_SECONDS = env.float("WORKFLOW_WORKER_POLL_SECONDS", default=1.0)
# While the database is unreachable the worker tries to claim again after pauses that double from the poll interval
# up to this (or the poll interval, if longer): the longest it goes on waiting once the database is back.
WORKFLOW_WORKER_OUTAGE_RETRY_SECONDS = env.float("WORKFLOW_WORKER_OUTAGE_RETRY_SECONDS", default=2.0)
# Retention (manage.py sweep_workflows): a settled operation's payload is redacted this long after it settled; a
# finished (completed or cancelled) workflow's state keeps only the outside systems' ids this long after it ended.
WORKFLOW_OPERATION_PAYLOAD_RETENTION_DAYS = env.float("WORKFLOW_OPERATION_PAYLOAD_RETENTION_DAYS", default=30)
WORKFLOW_FINISHED_STATE_RETENTION_DAYS = env.float("WORKFLOW_FINISHED_STATE_RETENTION_DAYS", default=90)

# --- API ----------------------------------------------------------------------------------------------------
# Rate limits, counted in PostgreSQL (shared by every worker and node) in fixed windows: requests per token
# subject and per organisation per window; 0 switches a limit off.
API_RATE_LIMIT_WINDOW_SECONDS = env.int("API_RATE_LIMIT_WINDOW_SECONDS", default=10)
API_RATE_LIMIT_PER_SUBJECT = env.int("API_RATE_LIMIT_PER_SUBJECT", default=1000)
API_RATE_LIMIT_PER_ORGANIZATION = env.int("API_RATE_LIMIT_PER_ORGANIZATION", default=20000)
API_RATE_LIMIT_SWEEP_SHARE = env.float("API_RATE_LIMIT_SWEEP_SHARE", default=0.01)
# Failed authentications (401, and 403 unknown_organization) per client address per window: past it, those
# failures are answered 429 (a valid token from the address is served as ever); 0 switches it off.
API_AUTH_FAILURES_PER_ADDRESS = env.int("API_AUTH_FAILURES_PER_ADDRESS", default=300)
# The reverse proxies in front of the service (addresses or networks, comma-separated): from one of them, the client's
# address is the one X-Forwarded-For names through these hops (core.gate.client_address). None by default: the
# header is never believed and the client is the connection's peer.
TRUSTED_PROXIES = [str(ipaddress.ip_network(p.strip(), strict=False))
                   for p in env.list("TRUSTED_PROXIES", default=[]) if p.strip()]
# With the database unreachable, a request gives up after DB_CONNECT_TIMEOUT_SECONDS (default 2, read by
# core/dbconfig.py with the other connection settings) and answers 503 with this Retry-After.
API_UNAVAILABLE_RETRY_AFTER_SECONDS = env.int("API_UNAVAILABLE_RETRY_AFTER_SECONDS", default=5)
# After a connection to the database could not be made, new connections are refused at once (503 within
# milliseconds, not after the connect timeout) until, this long after the failure, one request tries again and
# connects (core.postgresql).
DB_CIRCUIT_RETRY_SECONDS = env.float("DB_CIRCUIT_RETRY_SECONDS", default=1.0)
# Idempotency-Key records are kept at least this long (manage.py sweep_idempotency_keys removes older ones).
IDEMPOTENCY_KEY_RETENTION_HOURS = env.int("IDEMPOTENCY_KEY_RETENTION_HOURS", default=24)
REST_FRAMEWORK = {
    "DEFAULT_AUTHENTICATION_CLASSES": ["core.authentication.BearerTokenAuthentication"],
    "DEFAULT_PERMISSION_CLASSES": ["core.permissions.HasRequiredScopes"],
    "DEFAULT_RENDERER_CLASSES": ["core.renderers.OrjsonRenderer"],
    "DEFAULT_PARSER_CLASSES": ["core.parsers.StrictJSONParser"],
    "DEFAULT_CONTENT_NEGOTIATION_CLASS": "core.negotiation.QualityContentNegotiation",
    "EXCEPTION_HANDLER": "core.errors.problem_exception_handler",
    "DEFAULT_SCHEMA_CLASS": "core.schema.ScopedAutoSchema",
    "UNAUTHENTICATED_USER": None,
}
SPECTACULAR_SETTINGS = {
    "TITLE": "Anamnesis API",
    "DESCRIPTION": "Governed memory for healthcare AI agents: typed, consented long-term memory, "
    "workflow checkpoints, consents, access grants and audit. Every call needs an OIDC bearer access token.",
    "VERSION": "1.0.0",
    "SERVE_INCLUDE_SCHEMA": False,
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "REDOC_DIST": "SIDECAR",
    "COMPONENT_SPLIT_REQUEST": True,
    "SCHEMA_PATH_PREFIX": "/v1",
    "SERVE_PERMISSIONS": ["rest_framework.permissions.AllowAny"],
    "SERVE_AUTHENTICATION": [],
    # Two fields are called outcome: a session's end keeps the name OutcomeEnum, a staff resolution's has its own
    "ENUM_NAME_OVERRIDES": {"PurposeEnum": "core.vocabulary.PURPOSES", "OutcomeEnum": ["completed", "abandoned"],
                            "ResolutionOutcomeEnum": ["not_sent", "sent"],
                            "MemoryOutSourceEnum": "memory.models.Source"},
    "POSTPROCESSING_HOOKS": ["drf_spectacular.hooks.postprocess_schema_enums", "core.schema.add_problem_component"],
}

# --- Web ----------------------------------------------------------------------------------------------------
STATIC_URL = "static/"
STATIC_ROOT = BASE_DIR / "staticfiles"
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {"BACKEND": "whitenoise.storage.CompressedStaticFilesStorage"},
}
WHITENOISE_USE_FINDERS = True
LANGUAGE_CODE = "en-gb"
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True

SESSION_COOKIE_HTTPONLY = True
# A page's notice ("Consent given for: ...") names what the patient did: kept in the session (ended at sign-out),
# never in the readable, signed-only cookie Django's default storage puts it in first.
MESSAGE_STORAGE = "django.contrib.messages.storage.session.SessionStorage"
CSRF_COOKIE_HTTPONLY = True
SESSION_COOKIE_SAMESITE = "Lax"
CSRF_COOKIE_SAMESITE = "Lax"
X_FRAME_OPTIONS = "DENY"
SECURE_CONTENT_TYPE_NOSNIFF = True
SECURE_REFERRER_POLICY = "same-origin"
if PRODUCTION:
    SESSION_COOKIE_SECURE = True
    CSRF_COOKIE_SECURE = True
    SECURE_SSL_REDIRECT = env.bool("SECURE_SSL_REDIRECT", default=True)
    SECURE_HSTS_SECONDS = env.int("SECURE_HSTS_SECONDS", default=31536000)
    SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")

# --- Operations -------------------------------------------------------------------------------------------------
# GET /metrics needs "Authorization: Bearer <METRICS_TOKEN>"; unset, /metrics refuses everyone. With several worker
# processes set PROMETHEUS_MULTIPROC_DIR (manage.py serve does; see core/observability.py).
METRICS_TOKEN = env.str("METRICS_TOKEN", default="")
# "plain" or "json" (one JSON object per line, with request id, route template, status and duration on access lines)
LOG_FORMAT = env.str("LOG_FORMAT", default="plain")
LOG_LEVEL = env.str("LOG_LEVEL", default="INFO").upper()
LOG_ACCESS = env.bool("LOG_ACCESS", default=logging.getLevelNamesMapping().get(LOG_LEVEL, logging.INFO) <= logging.INFO)
if LOG_FORMAT not in ("plain", "json"):
    raise environ.ImproperlyConfigured("LOG_FORMAT must be plain or json")
# OpenTelemetry traces (core/tracing.py, docs/tracing.md), read from the standard variables. Off unless an
# OTLP/HTTP endpoint is given: OTEL_EXPORTER_OTLP_ENDPOINT (the collector's base URL; /v1/traces is appended) or
# OTEL_EXPORTER_OTLP_TRACES_ENDPOINT (the full URL). OTEL_TRACES_EXPORTER=none or OTEL_SDK_DISABLED=true switch it
# off whatever the endpoint. The SDK itself reads OTEL_EXPORTER_OTLP_HEADERS, _TIMEOUT, OTEL_TRACES_SAMPLER and the
# OTEL_BSP_* batch settings.
OTEL_SERVICE_NAME = env.str("OTEL_SERVICE_NAME", default="anamnesis")
_otel_exporter = env.str("OTEL_TRACES_EXPORTER", default="otlp").strip().lower()
if _otel_exporter not in ("otlp", "none"):
    raise environ.ImproperlyConfigured("OTEL_TRACES_EXPORTER must be otlp or none")
_otel_protocol = env.str("OTEL_EXPORTER_OTLP_TRACES_PROTOCOL", default="") or env.str(
    "OTEL_EXPORTER_OTLP_PROTOCOL", default="http/protobuf")
if _otel_protocol != "http/protobuf":
    raise environ.ImproperlyConfigured("OTLP traces are sent as http/protobuf only (OTEL_EXPORTER_OTLP_PROTOCOL)")
_otel_base = env.str("OTEL_EXPORTER_OTLP_ENDPOINT", default="").strip()
OTEL_TRACES_ENDPOINT = (
    "" if _otel_exporter == "none" or env.bool("OTEL_SDK_DISABLED", default=False)
    else env.str("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", default="").strip()
    or (_otel_base.rstrip("/") + "/v1/traces" if _otel_base else ""))
if OTEL_TRACES_ENDPOINT and not OTEL_TRACES_ENDPOINT.startswith(("http://", "https://")):
    raise environ.ImproperlyConfigured("the OTLP traces endpoint must be an http:// or https:// URL")

# --- MCP server (agents_mcp; served at /mcp by config.asgi) ---------------------------------------------------
# The resource identifier agents' tokens are for, and where its RFC 9728 metadata is published.
MCP_RESOURCE_URL = env.str("MCP_RESOURCE_URL", default="") or _required_in_production(
    "MCP_RESOURCE_URL", "http://127.0.0.1:8000/mcp")
# Host and Origin headers /mcp accepts (DNS-rebinding protection); empty lists switch the check off.
MCP_ALLOWED_HOSTS = env.list("MCP_ALLOWED_HOSTS", default=["127.0.0.1:*", "localhost:*", "[::1]:*"])
MCP_ALLOWED_ORIGINS = env.list("MCP_ALLOWED_ORIGINS", default=["http://127.0.0.1:*", "http://localhost:*"])
# Host header of tool calls run in-process when the MCP request has none (stdio): must be in ALLOWED_HOSTS.
MCP_INTERNAL_HOST = env.str("MCP_INTERNAL_HOST", default="localhost")

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "filters": {"request_id": {"()": "core.logging.RequestIdFilter"},
                # no patient identifiers in operational logs: ids in messages become keyed hashes
                "redact_ids": {"()": "core.logging.RedactIdsFilter"}},
    "formatters": {
        "plain": {"format": "%(asctime)s %(levelname)s %(name)s [%(request_id)s] %(message)s"},
        "json": {"()": "core.observability.JsonFormatter"},
    },
    "handlers": {
        "console": {"class": "logging.StreamHandler", "formatter": LOG_FORMAT,
                    "filters": ["request_id", "redact_ids"]},
        "null": {"class": "logging.NullHandler"},  # (no handler at all would fall back to Python's last resort)
    },
    "root": {"handlers": ["console"], "level": LOG_LEVEL},
    "loggers": {
        # Django logs the full request line of 4xx/5xx; URLs hold only ids, never values, but keep it terse.
        "django.request": {"level": "ERROR"},
        "django.server": {"level": "WARNING"},
        # A request naming a host we do not serve is answered 400 and not logged: its Host header is the caller's
        # text (a traceback at ERROR per request was a way to fill the logs with it).
        "django.security.DisallowedHost": {"handlers": ["null"], "propagate": False},
        "pgserver": {"level": "WARNING"},
        "httpx": {"level": "WARNING"},
        # One line per request, at INFO: written when LOG_LEVEL lets INFO through, unless LOG_ACCESS says
        # otherwise (true writes it under a quieter LOG_LEVEL too, false never).
        "anamnesis.access": {"level": "INFO" if LOG_ACCESS else "WARNING"},
    },
}

# --- Event subscriptions (webhooks; events.delivery, run by manage.py deliver_events or beside run_worker) -------
EVENT_DELIVERY_TIMEOUT_SECONDS = env.float("EVENT_DELIVERY_TIMEOUT_SECONDS", default=5.0)
EVENT_DELIVERY_MAX_ATTEMPTS = env.int("EVENT_DELIVERY_MAX_ATTEMPTS", default=10)
EVENT_DELIVERY_RETRY_BASE_SECONDS = env.float("EVENT_DELIVERY_RETRY_BASE_SECONDS", default=5.0)
EVENT_DELIVERY_RETRY_MAX_SECONDS = env.float("EVENT_DELIVERY_RETRY_MAX_SECONDS", default=3600.0)
EVENT_DELIVERY_LEASE_SECONDS = env.float("EVENT_DELIVERY_LEASE_SECONDS", default=60.0)
EVENT_DELIVERY_CONCURRENCY = env.int("EVENT_DELIVERY_CONCURRENCY", default=8)
EVENT_DELIVERY_POLL_SECONDS = env.float("EVENT_DELIVERY_POLL_SECONDS", default=1.0)
# How long events and their settled deliveries are kept (manage.py sweep_events removes them after; at least a day).
EVENT_RETENTION_DAYS = env.int("EVENT_RETENTION_DAYS", default=30)
# The CA bundle (PEM file) trusted for endpoints' certificates; empty: the system's trust store.
EVENT_DELIVERY_CA_BUNDLE = env.str("EVENT_DELIVERY_CA_BUNDLE", default="")
# Host names or literal addresses that may resolve to non-public addresses (an endpoint inside the network).
EVENT_DELIVERY_ALLOWED_PRIVATE_HOSTS = env.list("EVENT_DELIVERY_ALLOWED_PRIVATE_HOSTS", default=[])
