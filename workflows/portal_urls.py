from django.urls import path

from workflows import views

urlpatterns = [
    path("staff/workflows/", views.monitor, name="workflow-monitor"),
]
