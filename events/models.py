"""Event subscriptions (webhooks): an organisation's endpoints, the event outbox and one delivery per endpoint.

An event is written by :func:`events.services.events_emit` in the transaction of the change it reports, with one
delivery row for each of the organisation's enabled subscriptions to its type, so a change that rolls back sends
nothing and one that commits is always delivered (at least once). The worker (``events.delivery``) posts each
delivery, signed in the Standard Webhooks format, with the same ``webhook-id`` (the event's id) on every attempt.
Events carry ids, types and purposes only, never values (docs/events.md lists them).
"""

from __future__ import annotations

import uuid

from django.contrib.postgres.fields import ArrayField
from django.db import models
from django.db.models import Q

# The closed set of event types (docs/events.md gives each one's data).
EVENT_TYPES = (
    "memory.proposed",
    "memory.confirmed",
    "memory.deleted",
    "patient.erased",
    "consent.revoked",
    "grant.revoked",
    "workflow.needs_reconciliation",
)


class Subscription(models.Model):
    """An HTTPS endpoint of one organisation and the event types it receives. The signing secret is kept
    encrypted (AES-GCM, bound to the subscription) and shown once, when the subscription is created."""

    subscription_id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    organization = models.ForeignKey("core.Organization", on_delete=models.CASCADE, db_column="organization_id")
    url = models.CharField(max_length=2000)
    description = models.CharField(max_length=200, blank=True, default="")
    event_types = ArrayField(models.CharField(max_length=60))
    enabled = models.BooleanField(default=True)
    secret_ciphertext = models.BinaryField()
    secret_key_id = models.CharField(max_length=40)
    created_by = models.CharField(max_length=255)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        db_table = "event_subscription"
        indexes = [models.Index(fields=["organization", "created_at"], name="event_subscription_org")]
        constraints = [
            models.CheckConstraint(condition=Q(event_types__contained_by=list(EVENT_TYPES))
                                   & ~Q(event_types=[]), name="event_subscription_types_known"),
            models.CheckConstraint(condition=Q(url__startswith="https://"), name="event_subscription_https"),
        ]


class Event(models.Model):
    """The outbox: one change that happened, for the subscriptions that wanted it when it happened."""

    event_id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    organization = models.ForeignKey("core.Organization", on_delete=models.CASCADE, db_column="organization_id")
    event_type = models.CharField(max_length=60)
    data = models.JSONField()
    occurred_at = models.DateTimeField()

    class Meta:
        db_table = "event_outbox"
        constraints = [models.CheckConstraint(condition=Q(event_type__in=EVENT_TYPES), name="event_type_known")]


class DeliveryStatus(models.TextChoices):
    PENDING = "pending", "Waiting for its next attempt"
    IN_FLIGHT = "in_flight", "Claimed by a worker (until its lease ends)"
    DELIVERED = "delivered", "The endpoint answered 2xx"
    FAILED = "failed", "No 2xx within the attempt limit, or the endpoint may not be called"


class Delivery(models.Model):
    """One event for one subscription: attempts, the last HTTP status and error code; never a response body."""

    delivery_id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    # Composite keys on (<id>, organization_id) in the database (migration 0003, for Citus), not Django's.
    event = models.ForeignKey(Event, on_delete=models.CASCADE, db_column="event_id", related_name="deliveries",
                              db_constraint=False)
    subscription = models.ForeignKey(Subscription, on_delete=models.CASCADE, db_column="subscription_id",
                                     db_constraint=False,
                                     related_name="deliveries")
    organization = models.ForeignKey("core.Organization", on_delete=models.CASCADE, db_column="organization_id")
    status = models.CharField(max_length=20, choices=DeliveryStatus.choices, default=DeliveryStatus.PENDING)
    attempts = models.IntegerField(default=0)
    next_attempt_at = models.DateTimeField()
    claimed_until = models.DateTimeField(null=True, blank=True)
    last_status_code = models.IntegerField(null=True, blank=True)
    last_error_code = models.CharField(max_length=60, null=True, blank=True)
    last_attempt_at = models.DateTimeField(null=True, blank=True)
    delivered_at = models.DateTimeField(null=True, blank=True)
    created_at = models.DateTimeField()
    updated_at = models.DateTimeField()

    class Meta:
        db_table = "event_delivery"
        indexes = [
            # The worker's claim: only rows that can still be due are in it.
            models.Index(fields=["next_attempt_at"], name="event_delivery_due",
                         condition=Q(status__in=["pending", "in_flight"])),
            models.Index(fields=["subscription", "created_at"], name="event_delivery_subscription"),
        ]
        constraints = [
            models.UniqueConstraint(fields=["event", "subscription", "organization_id"], name="event_delivery_once"),
            models.CheckConstraint(condition=Q(status__in=[s.value for s in DeliveryStatus]),
                                   name="event_delivery_status_valid"),
            models.CheckConstraint(condition=Q(attempts__gte=0), name="event_delivery_attempts_valid"),
            models.CheckConstraint(condition=~Q(status="in_flight") | Q(claimed_until__isnull=False),
                                   name="event_delivery_in_flight_has_lease"),
        ]
