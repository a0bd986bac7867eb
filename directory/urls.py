from django.urls import path

from directory import api

urlpatterns = [
    path("patients", api.PatientsView.as_view(), name="patients"),
    path("patients/<uuid:patient_id>", api.PatientDetailView.as_view(), name="patient-detail"),
    path("staff", api.StaffView.as_view(), name="staff"),
]
