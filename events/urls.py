from django.urls import path

from events import api

urlpatterns = [
    path("event-subscriptions", api.SubscriptionsView.as_view(), name="event-subscriptions"),
    path("event-subscriptions/<uuid:subscription_id>", api.SubscriptionView.as_view(), name="event-subscription"),
    path("event-subscriptions/<uuid:subscription_id>/deliveries", api.SubscriptionDeliveriesView.as_view(),
         name="event-subscription-deliveries"),
]
