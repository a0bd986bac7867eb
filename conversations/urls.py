from django.urls import path

from conversations import api

S = "sessions/<uuid:session_id>"

urlpatterns = [
    path("sessions", api.SessionsView.as_view(), name="sessions"),
    path(S, api.SessionDetailView.as_view(), name="session-detail"),
    path(f"{S}/turns", api.SessionTurnsView.as_view(), name="session-turns"),
    path(f"{S}/turns/<int:seq>/propose", api.TurnProposeView.as_view(), name="session-turn-propose"),
    path(f"{S}/context", api.SessionContextView.as_view(), name="session-context"),
    path(f"{S}/offers", api.SessionOffersView.as_view(), name="session-offers"),
    path(f"{S}/end", api.SessionEndView.as_view(), name="session-end"),
    path("patients/<uuid:patient_id>/care-team-flags", api.PatientCareTeamFlagsView.as_view(),
         name="patient-care-team-flags"),
]
