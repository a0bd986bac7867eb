"""Writes of event subscriptions, and the emission of events into the outbox.

:func:`events_emit` is the one door into the outbox: the domain services call it inside the transaction of the
change they report, so the event commits or rolls back with the change. Subscriptions are written by an
organisation's administrators (``webhook:admin``): the view checks the scope, and RLS checks it again.
"""

from __future__ import annotations

import ipaddress
import re
import socket
import uuid
from collections.abc import Iterable, Mapping
from urllib.parse import urlsplit

import httpx
from django.conf import settings
from django.db import connection, transaction
from psycopg.types.json import Jsonb

from core import audit
from core.access import require_person_deciding_access
from core.errors import NotFound, ValidationFailed
from core.idempotency import idempotency_withdraw
from core.identity import Identity, current_identity
from core.services import organization_ensure
from events import signing
from events.models import EVENT_TYPES, Delivery, Subscription

MAX_SUBSCRIPTIONS = 20
MAX_URL_LENGTH = 2000


# --- emission ---------------------------------------------------------------------------------------------------
def _checked_data(event_type: str, data: Mapping[str, object]) -> dict[str, str | None]:
    """Events carry ids, types and purposes: strings (or null), never values, so anything else is a programming
    error in the caller."""
    if event_type not in EVENT_TYPES:
        raise ValueError(f"unknown event type {event_type!r}")
    checked: dict[str, str | None] = {}
    for key, value in data.items():
        if isinstance(value, uuid.UUID):
            value = str(value)
        if value is not None and (not isinstance(value, str) or len(value) > 255):
            raise ValueError(f"event data {key!r} must be an id, a type or a purpose")
        checked[key] = value
    return checked


def events_emit(events: Iterable[tuple[str, Mapping[str, object]]]) -> int:
    """Queue ``(event_type, data)`` events for the open identity's organisation, in the open transaction: one
    statement (``app_events_emit``), which writes nothing when no subscription of the organisation wants the type.
    Returns the number of deliveries queued."""
    identity = current_identity()
    if identity is None:
        raise RuntimeError("events are emitted inside the identity context of the change they report")
    rows = [(event_type, _checked_data(event_type, {"organization_id": str(identity.org_id), **data}))
            for event_type, data in events]
    if not rows:
        return 0
    with connection.cursor() as cursor:
        cursor.execute("SELECT app_events_emit(%s::text[], %s::jsonb[])",
                       [[t for t, _ in rows], [Jsonb(d) for _, d in rows]])
        return cursor.fetchone()[0]


def event_emit(event_type: str, **data: object) -> int:
    """One event: see :func:`events_emit`."""
    return events_emit([(event_type, data)])


# --- retention --------------------------------------------------------------------------------------------------
SWEEP_STATEMENT = """
WITH due AS (
  SELECT e.event_id, e.organization_id FROM event_outbox e
   WHERE e.occurred_at < now() - make_interval(days => %(days)s)
     AND NOT EXISTS (SELECT 1 FROM event_delivery d
                      WHERE d.event_id = e.event_id AND d.organization_id = e.organization_id
                        AND d.status IN ('pending', 'in_flight'))
   ORDER BY e.occurred_at LIMIT %(batch)s),
deliveries AS (
  DELETE FROM event_delivery d USING due
   WHERE d.event_id = due.event_id AND d.organization_id = due.organization_id RETURNING 1),
events AS (
  DELETE FROM event_outbox e USING due
   WHERE e.event_id = due.event_id AND e.organization_id = due.organization_id RETURNING 1)
SELECT (SELECT count(*) FROM events), (SELECT count(*) FROM deliveries)
"""


def events_sweep(*, older_than_days: int | None = None, batch: int = 1000, max_batches: int = 1000
                 ) -> dict[str, int]:
    """Remove events older than the retention (``EVENT_RETENTION_DAYS``, never under a day) whose deliveries are
    all settled (delivered or failed), with their deliveries; one waiting for an attempt keeps its event. Runs as the
    maintenance identity ``event_retention`` (its policies let it delete nothing else), in batches of ``batch``
    events, each in its own transaction. Idempotent; several may run at once."""
    days = max(1, older_than_days if older_than_days is not None else settings.EVENT_RETENTION_DAYS)
    counts = {"events": 0, "deliveries": 0}
    for _ in range(max_batches):
        with transaction.atomic(), connection.cursor() as cursor:
            cursor.execute("SELECT set_config('app.maintenance', 'event_retention', true)")
            cursor.execute(SWEEP_STATEMENT, {"days": days, "batch": batch})
            events, deliveries = cursor.fetchone()  # the setting ends with the transaction (is_local)
        counts["events"] += events
        counts["deliveries"] += deliveries
        if events < batch:
            break
    return counts


# --- subscriptions ----------------------------------------------------------------------------------------------
def url_problem(url: str) -> tuple[str, str] | None:
    """(code, message) when ``url`` may not be an endpoint: https only, a host name, no credentials, no fragment,
    and no literal address that is not public (loopback, private, link-local, ...). Names are resolved and checked
    again at every delivery (``events.delivery``), since what a name points at can change."""
    if not isinstance(url, str) or len(url) > MAX_URL_LENGTH or any(ch.isspace() or ord(ch) < 32 for ch in url):
        return "invalid", f"an https URL of at most {MAX_URL_LENGTH} characters"
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError:
        return "invalid", "not a URL"
    if parts.scheme != "https":
        return "https_required", "the endpoint must use https"
    if parts.username is not None or parts.password is not None:
        return "credentials_in_url", "the URL may not carry credentials; the signature authenticates us"
    if not parts.hostname:
        return "invalid", "the URL names no host"
    if parts.fragment:
        return "invalid", "the URL may not have a fragment"
    if port == 0:
        return "invalid", "not a port"
    try:
        address = ipaddress.ip_address(parts.hostname)
    except ValueError:
        try:  # what the worker's look-up (socket.getaddrinfo) and its POST (httpx) do with the name
            if "%" in parts.hostname:  # percent-escapes: checked undecoded, "%6cocalhost" is localhost decoded
                raise UnicodeError()
            parts.hostname.encode("idna")
            httpx.URL(url)
        except (UnicodeError, httpx.InvalidURL):
            return "invalid", ("the URL's host is not a valid name (an empty label, one over 63 characters, an "
                               "address with leading zeros, a percent-escape, a character no host name may have)")
        other_form = _ipv4_in_other_form(parts.hostname)
        if other_form is None:
            if _LOOPBACK_NAME.search(parts.hostname.rstrip(".")) and parts.hostname not in allowed_private_hosts():
                return "destination_not_allowed", "localhost is not a public destination"
            return None
        address = other_form
    if not public_address(address) and parts.hostname not in allowed_private_hosts():
        return "destination_not_allowed", "the endpoint's address is not a public one"
    return None


# RFC 6761: localhost and every name under it are the loopback interface, whatever a resolver says.
_LOOPBACK_NAME = re.compile(r"(^|\.)localhost$", re.IGNORECASE)


def _ipv4_in_other_form(host: str) -> ipaddress.IPv4Address | None:
    """The IPv4 address the worker's look-up (getaddrinfo, as inet_aton) reads ``host`` as, when it is one written
    in another form than dotted quads (``127.1``, ``2130706433``, ``0x7f000001`` are 127.0.0.1); None for a name."""
    try:
        return ipaddress.IPv4Address(socket.inet_aton(host))
    except OSError:
        return None


_NAT64 = (ipaddress.ip_network("64:ff9b::/96"), ipaddress.ip_network("64:ff9b:1::/48"))
_IPV4_COMPATIBLE = ipaddress.ip_network("::/96")
_IPV4_TRANSLATED = ipaddress.ip_network("::ffff:0:0:0/96")  # RFC 2765 SIIT: ::ffff:0:a00:1 is 10.0.0.1
# What Python 3.11's ``is_global`` calls global and no public endpoint is: the IETF's protocol assignments
# (192.0.0.0/24), IPv6 site-local (deprecated, still routed inside some networks, as fc00::/7 is), IPv6's
# documentation prefix (RFC 9637) and SRv6 segment identifiers (RFC 9602). Multicast is asked of the address.
_NOT_PUBLIC = (ipaddress.ip_network("192.0.0.0/24"), ipaddress.ip_network("fec0::/10"),
               ipaddress.ip_network("3fff::/20"), ipaddress.ip_network("5f00::/16"))


def public_address(address: ipaddress.IPv4Address | ipaddress.IPv6Address) -> bool:
    """Whether an endpoint's address is a public one, also when it is an IPv6 address that carries an IPv4 one a
    gateway reaches (NAT64's prefixes, 6to4, Teredo, SIIT's IPv4-translated form, the deprecated IPv4-compatible
    form): Python calls ``64:ff9b::a00:1`` global, and a NAT64 gateway takes it to 10.0.0.1. Never multicast."""
    if not address.is_global or address.is_multicast or any(address in network for network in _NOT_PUBLIC):
        return False
    if address.version == 4:
        return True
    embedded: list[ipaddress.IPv4Address] = []
    if any(address in network for network in (*_NAT64, _IPV4_COMPATIBLE, _IPV4_TRANSLATED)):
        embedded.append(ipaddress.IPv4Address(int(address) & 0xFFFFFFFF))
    if address.sixtofour is not None:
        embedded.append(address.sixtofour)
    if address.teredo is not None:
        embedded.extend(address.teredo)
    return all(inner.is_global for inner in embedded)


def allowed_private_hosts() -> frozenset[str]:
    from django.conf import settings

    return frozenset(settings.EVENT_DELIVERY_ALLOWED_PRIVATE_HOSTS)


def _clean_types(event_types: list[str]) -> list[str]:
    unknown = [t for t in event_types if t not in EVENT_TYPES]
    if not event_types or unknown:
        raise ValidationFailed.of("event_types", f"one or more of: {', '.join(EVENT_TYPES)}")
    return sorted(set(event_types), key=EVENT_TYPES.index)


def _clean_url(url: str) -> str:
    problem = url_problem(url)
    if problem is not None:
        raise ValidationFailed.of("url", problem[1], problem[0])
    # A scheme is case-insensitive (RFC 3986 3.1) and url_problem accepted any case of it; it is stored in its
    # canonical lower case, the form the table's check (``event_subscription_https``) and the worker expect.
    return "https" + url[len("https"):]


def subscription_create(*, identity: Identity, url: str, event_types: list[str], description: str = "",
                        secret: str | None = None) -> tuple[Subscription, str]:
    """Register an endpoint; returns it with its signing secret (generated unless given), which is never shown
    again. At most ``MAX_SUBSCRIPTIONS`` per organisation. Never by a patient's token or an AI agent: an endpoint
    receives the organisation's events."""
    require_person_deciding_access(identity)
    url, event_types = _clean_url(url), _clean_types(event_types)
    if secret is None:
        secret = signing.new_secret()
    else:
        try:
            signing.secret_bytes(secret)
        except ValueError as exc:
            raise ValidationFailed.of("secret", f"whsec_ and the base64 of a key ({exc})") from None
    organization_ensure(identity=identity)
    _lock_subscriptions(identity)  # two creations at once cannot pass the limit together
    if Subscription.objects.filter(organization_id=identity.org_id).count() >= MAX_SUBSCRIPTIONS:
        raise ValidationFailed.of("url", f"at most {MAX_SUBSCRIPTIONS} subscriptions per organisation", "too_many")
    subscription_id = uuid.uuid4()
    ciphertext, key_id = signing.encrypt_secret(secret, subscription_id=subscription_id,
                                                organization_id=identity.org_id)
    subscription = Subscription.objects.create(
        subscription_id=subscription_id, organization_id=identity.org_id, url=url, description=description,
        event_types=event_types, enabled=True, secret_ciphertext=ciphertext, secret_key_id=key_id,
        created_by=identity.actor_sub)
    audit.record(action="event_subscription.create", resource_type="event_subscription",
                 resource_id=subscription_id)
    return subscription, secret


def _lock_subscriptions(identity: Identity) -> None:
    """The organisation's set of subscriptions, until the transaction ends: creations and deletions take it
    exclusively, and ``app_events_emit`` shared before it queues deliveries (events migration 0005), so a deletion
    waits for a change that queued a delivery to the subscription and then removes that delivery too."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_advisory_xact_lock(hashtextextended('event_subscription:' || %s, 0))",
                       [str(identity.org_id)])


def _locked(identity: Identity, subscription_id: uuid.UUID) -> Subscription:
    require_person_deciding_access(identity)
    found = (Subscription.objects.select_for_update()
             .filter(subscription_id=subscription_id, organization_id=identity.org_id).first())
    if found is None:
        raise NotFound()  # another organisation's subscription is answered like one that does not exist
    return found


def subscription_update(*, identity: Identity, subscription_id: uuid.UUID, url: str | None = None,
                        event_types: list[str] | None = None, enabled: bool | None = None,
                        description: str | None = None) -> Subscription:
    """Change what is given. A disabled subscription queues nothing new; its queued deliveries end as failed
    (``subscription_disabled``) when the worker reaches them, and so do those of a type taken off ``event_types``
    (``event_type_unsubscribed``)."""
    changes: dict[str, object] = {}
    if url is not None:
        changes["url"] = _clean_url(url)
    if event_types is not None:
        changes["event_types"] = _clean_types(event_types)
    if enabled is not None:
        changes["enabled"] = enabled
    if description is not None:
        changes["description"] = description
    subscription = _locked(identity, subscription_id)
    for name, value in changes.items():
        setattr(subscription, name, value)
    if changes:
        subscription.save(update_fields=[*changes, "updated_at"])
    audit.record(action="event_subscription.update", resource_type="event_subscription",
                 resource_id=subscription_id)
    return subscription


def subscription_delete(*, identity: Identity, subscription_id: uuid.UUID) -> None:
    """Remove a subscription with its delivery history; what was queued for it is never sent, and its creation's
    stored answer (with the signing secret) is withdrawn: a retry of the creation with its key is 409
    ``idempotent_response_withdrawn``, whoever created it, and creates nothing."""
    with transaction.atomic():
        require_person_deciding_access(identity)  # before any lock is taken for the caller
        _lock_subscriptions(identity)
        subscription = _locked(identity, subscription_id)
        Delivery.objects.filter(subscription_id=subscription.subscription_id,
                                organization_id=identity.org_id).delete()
        Subscription.objects.filter(pk=subscription.pk).delete()
        idempotency_withdraw(identity=identity, resource_id=subscription.subscription_id)
    audit.record(action="event_subscription.delete", resource_type="event_subscription",
                 resource_id=subscription_id)
