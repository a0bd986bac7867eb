from django.urls import path

from memory import api

urlpatterns = [
    path("patients/<uuid:patient_id>/memories", api.PatientMemoriesView.as_view(), name="patient-memories"),
]
