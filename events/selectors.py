"""Reads of an organisation's subscriptions and their deliveries: its administrators' (never a patient's token or an
AI agent's), and RLS shows them their own organisation's only."""

from __future__ import annotations

import uuid

from django.db.models import QuerySet

from core import audit
from core.access import require_person_deciding_access
from core.errors import NotFound
from core.identity import Identity
from events.models import Delivery, Subscription


def subscriptions_list(*, identity: Identity) -> list[Subscription]:
    require_person_deciding_access(identity)
    return list(Subscription.objects.filter(organization_id=identity.org_id).order_by("created_at", "subscription_id"))


def subscription_get(*, identity: Identity, subscription_id: uuid.UUID) -> Subscription:
    require_person_deciding_access(identity)
    found = Subscription.objects.filter(subscription_id=subscription_id, organization_id=identity.org_id).first()
    if found is None:
        raise NotFound()
    return found


def deliveries_page(*, identity: Identity, subscription_id: uuid.UUID, limit: int,
                    cursor: str | None = None) -> tuple[list[Delivery], str | None]:
    """The subscription's deliveries newest first, ``limit`` older than ``cursor``, with their event's type, and the
    cursor of the next page (None on the last). ValueError for a cursor it did not give."""
    found = Delivery.objects.filter(subscription_id=subscription_id, organization_id=identity.org_id
                                    ).select_related("event")
    return audit.keyset_page(found, cursor=cursor, limit=limit, time_field="created_at", id_field="delivery_id")


def deliveries_recent(*, identity: Identity, subscription_id: uuid.UUID, limit: int = 100) -> QuerySet[Delivery]:
    """The subscription's newest deliveries, with their event's type (one query)."""
    return (Delivery.objects.filter(subscription_id=subscription_id, organization_id=identity.org_id)
            .select_related("event").order_by("-created_at", "-delivery_id")[:limit])
