"""Demo data: one clinic, two named patients with MRNs, a nurse with a scheduling grant. Idempotent."""

import uuid
from datetime import date

from django.conf import settings
from django.core.management.base import BaseCommand

from consent.models import AccessGrant
from consent.services import consent_record, grant_create
from core.identity import ACTOR_PATIENT, Identity, identity_context
from core.services import organization_register_or_update
from directory.models import PatientProfile, StaffMember
from directory.services import Identifier, patient_register, staff_register
from memory.models import Memory
from memory.retrieval.vectors import vector_writes
from memory.services import memory_record
from workflows.services import workflow_create

DEMO_ORG = uuid.UUID("00000000-0000-4000-8000-00000000c0de")
ALICE = uuid.UUID("00000000-0000-4000-8000-0000000a11ce")
BOB = uuid.UUID("00000000-0000-4000-8000-000000000b0b")
NURSE = "nurse-demo"
ADMIN = "admin-demo"
MRN_SYSTEM = "urn:oid:2.16.840.1.113883.19.5.99999.1"  # the demo clinic's medical record numbers
PATIENTS = {ALICE: ("Alice Nowak", "1957-03-14", "MRN-100001"), BOB: ("Bob Kowalski", "1962-11-02", "MRN-100002")}
STAFF = {NURSE: ("Nurse Joy Adams", "person"), "scheduling-agent": ("Scheduling agent", "agent"),
         ADMIN: ("Administrator (demo)", "person")}
ALL = frozenset("memory:read memory:write workflow:read workflow:write consent:read consent:write audit:read"
                .split())


# The demo patients' subjects at the development identity provider (demo.devidp), so that what the seed records
# shows as theirs when they sign in.
PATIENT_SUBS = {ALICE: "alice", BOB: "bob"}


def patient_identity(patient_id: uuid.UUID) -> Identity:
    return Identity(org_id=DEMO_ORG, actor_sub=PATIENT_SUBS.get(patient_id, f"patient-{patient_id}"),
                    patient_self_id=patient_id, scopes=ALL,
                    actor_kind=ACTOR_PATIENT)


class Command(BaseCommand):
    help = "Load demo data (idempotent)"

    def handle(self, *args, **options):
        # The demo clinic trusts the development provider (and any other configured issuer).
        issuers = [settings.OIDC_ISSUER, *(i["issuer"] for i in settings.OIDC_TRUSTED_ISSUERS)]
        organization_register_or_update(organization_id=DEMO_ORG, name="Demo clinic", trusted_issuers=issuers,
                                        administrator=False)
        admin = Identity(org_id=DEMO_ORG, actor_sub=ADMIN, scopes=frozenset({"grant:write", "patient:write"}))
        with identity_context(admin):
            for patient, (name, born, mrn) in PATIENTS.items():
                if not PatientProfile.objects.filter(patient_id=patient).exists():
                    patient_register(identity=admin, patient_id=patient, display_name=name,
                                     birth_date=date.fromisoformat(born),
                                     identifiers=[Identifier(system=MRN_SYSTEM, value=mrn)])
            for sub, (name, kind) in STAFF.items():
                if not StaffMember.objects.filter(actor_sub=sub).exists():
                    staff_register(identity=admin, actor_sub=sub, display_name=name, kind=kind)
            if not AccessGrant.objects.filter(actor_sub=NURSE, patient_id=ALICE).exists():
                grant_create(identity=admin, patient_id=ALICE, actor_sub=NURSE, purpose="appointment_scheduling",
                             expires_at=None, reason="demo: scheduling nurse for Alice")
        for patient, prefs in ((ALICE, [("earliest_time", "10:00"), ("latest_time", "16:00")]),
                               (BOB, [("latest_time", "15:00")])):
            me = patient_identity(patient)
            with identity_context(me):
                if Memory.objects.filter(patient_id=patient).exists():
                    continue
                consent, _ = consent_record(identity=me, patient_id=patient, purpose="appointment_scheduling",
                                            evidence_ref="demo-portal-checkbox")
                for kind, time in prefs:
                    memory_record(identity=me, patient_id=patient, memory_type="scheduling_preference",
                                  fact={"kind": kind, "time": time},
                                  consent_purpose="appointment_scheduling",
                                  consent_record_id=consent.consent_record_id)
                workflow_create(identity=me, workflow_type="prior_authorization", patient_id=patient)
        vector_writes.wait(timeout=120)  # the memories' vectors are written after their writes commit
        self.stdout.write(f"demo data ready: organisation {DEMO_ORG}, patients {ALICE} and {BOB}")
