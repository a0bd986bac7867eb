"""Event subscriptions over HTTP, for an organisation's administrators (``webhook:admin``): register an HTTPS
endpoint (its signing secret is in the creation's answer only), list, read with its recent deliveries, change
(``enabled: false`` pauses it), delete. Another organisation's subscription is ``404``, as one that does not exist."""

from __future__ import annotations

from drf_spectacular.utils import extend_schema, inline_serializer
from rest_framework import serializers, status
from rest_framework.response import Response

from core import audit
from core.api import ScopedAPIView
from core.errors import cursor_checked
from core.serializers import (
    StrictSerializer,
    integer_parameter,
    next_cursor_field,
    page_parameters,
    require_readable,
)
from events import selectors, services
from events.models import EVENT_TYPES, Delivery, DeliveryStatus, Subscription

EVENT_TYPE_CHOICES = [(t, t) for t in EVENT_TYPES]


class SubscriptionOut(serializers.Serializer):
    subscription_id = serializers.UUIDField()
    url = serializers.CharField()
    description = serializers.CharField()
    event_types = serializers.ListField(child=serializers.ChoiceField(choices=EVENT_TYPE_CHOICES))
    enabled = serializers.BooleanField()
    created_by = serializers.CharField()
    created_at = serializers.DateTimeField()
    updated_at = serializers.DateTimeField()


class SubscriptionCreatedOut(SubscriptionOut):
    secret = serializers.CharField(help_text="whsec_<base64>: the signing secret, shown only in this answer")


class DeliveryOut(serializers.Serializer):
    delivery_id = serializers.UUIDField()
    event_id = serializers.UUIDField(help_text="the webhook-id header: the same on every attempt")
    event_type = serializers.CharField(source="event.event_type")
    status = serializers.ChoiceField(choices=DeliveryStatus.choices)
    attempts = serializers.IntegerField()
    last_status_code = serializers.IntegerField(allow_null=True)
    last_error_code = serializers.CharField(allow_null=True)
    last_attempt_at = serializers.DateTimeField(allow_null=True)
    next_attempt_at = serializers.DateTimeField(allow_null=True)
    delivered_at = serializers.DateTimeField(allow_null=True)
    created_at = serializers.DateTimeField()


class SubscriptionIn(StrictSerializer):
    url = serializers.CharField(max_length=services.MAX_URL_LENGTH, help_text="https only, without credentials")
    event_types = serializers.ListField(child=serializers.ChoiceField(choices=EVENT_TYPE_CHOICES), min_length=1,
                                        max_length=len(EVENT_TYPES))
    description = serializers.CharField(max_length=200, allow_blank=True, default="", validators=[require_readable])
    secret = serializers.CharField(max_length=200, required=False,
                                   help_text="whsec_<base64 of 24-64 bytes>; generated when absent")


class SubscriptionPatch(StrictSerializer):
    url = serializers.CharField(max_length=services.MAX_URL_LENGTH, required=False)
    event_types = serializers.ListField(child=serializers.ChoiceField(choices=EVENT_TYPE_CHOICES), min_length=1,
                                        max_length=len(EVENT_TYPES), required=False)
    description = serializers.CharField(max_length=200, allow_blank=True, required=False,
                                        validators=[require_readable])
    enabled = serializers.BooleanField(required=False)


def _out(subscription: Subscription) -> dict:
    return SubscriptionOut(subscription).data


class SubscriptionsView(ScopedAPIView):
    required_scopes = {"GET": ["webhook:admin"], "POST": ["webhook:admin"]}
    audit_actions = {"GET": "event_subscription.list", "POST": "event_subscription.create"}
    resource_type = "event_subscription"
    # A client that lost the answer retries with its key and gets the same subscription and secret (the stored
    # answer is encrypted, as every stored answer is; core.idempotency).
    idempotent_create = True

    def idempotency_resource_id(self, data):
        # deleting the subscription withdraws its creation's stored answer, secret and all (services)
        return data.get("subscription_id")

    @extend_schema(operation_id="event_subscriptions_list",
                   responses={200: inline_serializer("EventSubscriptionList", {"items": SubscriptionOut(many=True)})})
    def get(self, request):
        items = selectors.subscriptions_list(identity=self.identity)
        audit.record(action="event_subscription.list", resource_type="event_subscription")
        return Response({"items": SubscriptionOut(items, many=True).data})

    @extend_schema(operation_id="event_subscriptions_create", request=SubscriptionIn,
                   responses={201: SubscriptionCreatedOut})
    def post(self, request):
        body = SubscriptionIn(data=request.data)
        body.is_valid(raise_exception=True)
        subscription, secret = services.subscription_create(identity=self.identity, **body.validated_data)
        return Response({**_out(subscription), "secret": secret}, status=status.HTTP_201_CREATED)


class SubscriptionView(ScopedAPIView):
    required_scopes = {"GET": ["webhook:admin"], "PATCH": ["webhook:admin"], "DELETE": ["webhook:admin"]}
    audit_actions = {"GET": "event_subscription.read", "PATCH": "event_subscription.update",
                     "DELETE": "event_subscription.delete"}
    resource_type = "event_subscription"

    @extend_schema(operation_id="event_subscriptions_read",
                   responses={200: inline_serializer("EventSubscriptionDetail", {
                       "subscription": SubscriptionOut(),
                       "deliveries": DeliveryOut(many=True, help_text=(
                           "the 100 newest; every one, a page at a time: GET /v1/event-subscriptions/"
                           "{subscription_id}/deliveries"))})})
    def get(self, request, subscription_id):
        subscription = selectors.subscription_get(identity=self.identity, subscription_id=subscription_id)
        deliveries: list[Delivery] = list(selectors.deliveries_recent(identity=self.identity,
                                                                      subscription_id=subscription_id))
        audit.record(action="event_subscription.read", resource_type="event_subscription",
                     resource_id=subscription_id)
        return Response({"subscription": _out(subscription), "deliveries": DeliveryOut(deliveries, many=True).data})

    @extend_schema(operation_id="event_subscriptions_update", request=SubscriptionPatch,
                   responses={200: SubscriptionOut})
    def patch(self, request, subscription_id):
        body = SubscriptionPatch(data=request.data)
        body.is_valid(raise_exception=True)
        subscription = services.subscription_update(identity=self.identity, subscription_id=subscription_id,
                                                    **body.validated_data)
        return Response(_out(subscription))

    @extend_schema(operation_id="event_subscriptions_delete", request=None, responses={204: None})
    def delete(self, request, subscription_id):
        services.subscription_delete(identity=self.identity, subscription_id=subscription_id)
        return Response(status=status.HTTP_204_NO_CONTENT)


class SubscriptionDeliveriesView(ScopedAPIView):
    """Every delivery of one subscription, newest first, a page at a time (its read shows the 100 newest only)."""

    required_scopes = {"GET": ["webhook:admin"]}
    audit_actions = {"GET": "event_subscription.read"}
    resource_type = "event_subscription"
    query_parameters = {"GET": frozenset({"limit", "cursor"})}

    @extend_schema(operation_id="event_subscriptions_deliveries_list",
                   parameters=page_parameters(default=100, older="older deliveries"),
                   responses={200: inline_serializer("EventDeliveryList", {"items": DeliveryOut(many=True),
                                                                           "next_cursor": next_cursor_field()})})
    def get(self, request, subscription_id):
        limit = integer_parameter(request.query_params, "limit", default=100, low=1, high=500)
        selectors.subscription_get(identity=self.identity, subscription_id=subscription_id)  # else 404
        with cursor_checked():
            deliveries, next_cursor = selectors.deliveries_page(identity=self.identity,
                                                                subscription_id=subscription_id, limit=limit,
                                                                cursor=request.query_params.get("cursor"))
        audit.record(action="event_subscription.read", resource_type="event_subscription",
                     resource_id=subscription_id)
        return Response({"items": DeliveryOut(deliveries, many=True).data, "next_cursor": next_cursor})
