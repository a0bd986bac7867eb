"""Writes of the directory: organisation administrators register patients (name, date of birth, identifiers) and
staff subjects. Each write is audited; a conflicting identifier is answered without saying whose it is."""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from datetime import date

from django.db import IntegrityError, transaction

from core import audit
from core.access import require_person_deciding_access
from core.errors import Conflict, ValidationFailed
from core.identity import Identity
from core.serializers import name_problem
from core.services import organization_ensure
from directory.models import PatientIdentifier, PatientProfile, StaffMember


class PatientExists(Conflict):
    code = "patient_exists"
    title = "This patient is already in the directory"


class IdentifierInUse(Conflict):
    code = "identifier_in_use"
    title = "One of these identifiers is already in use in this organisation"


class StaffExists(Conflict):
    code = "staff_exists"
    title = "This staff subject is already in the directory"


def _name_checked(display_name: str) -> str:
    """A name as it is kept: refused (422 ``unstorable_character``, naming the code point) if it holds a character
    no name shows (:func:`core.serializers.name_problem`), never silently changed; spaces at its ends trimmed."""
    problem = name_problem(display_name)
    if problem is not None:
        raise ValidationFailed.of("display_name", problem, "unstorable_character")
    return display_name.strip()


@dataclass(frozen=True)
class Identifier:
    system: str
    value: str


def patient_register(*, identity: Identity, display_name: str, birth_date: date | None,
                     identifiers: list[Identifier], patient_id: uuid.UUID | None = None) -> PatientProfile:
    """Add a patient to the organisation's directory (a new patient id unless one is given). An administrator's own
    act, never an AI agent's acting for one: which patient an identifier (an MRN) names decides whose records every
    caller resolving it reaches, and an agent told by a prompt could claim a record number for a patient of its
    making, or fill the directory."""
    require_person_deciding_access(identity)
    display_name = _name_checked(display_name)
    organization_ensure(identity=identity)
    patient_id = patient_id or uuid.uuid4()
    try:
        with transaction.atomic():
            profile = PatientProfile.objects.create(organization_id=identity.org_id, patient_id=patient_id,
                                                    display_name=display_name, birth_date=birth_date,
                                                    created_by=identity.actor_sub)
    except IntegrityError:
        raise PatientExists() from None
    try:
        with transaction.atomic():
            PatientIdentifier.objects.bulk_create([
                PatientIdentifier(organization_id=identity.org_id, patient_id=patient_id, system=i.system,
                                  value=i.value) for i in identifiers])
    except IntegrityError:
        raise IdentifierInUse() from None
    audit.record(action="patient.register", resource_type="patient", resource_id=patient_id, patient_id=patient_id)
    return profile


def staff_register(*, identity: Identity, actor_sub: str, display_name: str,
                   kind: str = StaffMember.Kind.PERSON) -> StaffMember:
    require_person_deciding_access(identity)
    display_name = _name_checked(display_name)
    organization_ensure(identity=identity)
    try:
        with transaction.atomic():
            member = StaffMember.objects.create(organization_id=identity.org_id, actor_sub=actor_sub,
                                                display_name=display_name, kind=kind)
    except IntegrityError:
        raise StaffExists() from None
    # the row id names the member: a subject is free text (an e-mail address, "<issuer>#<sub>")
    audit.record(action="staff.register", resource_type="staff", resource_id=str(member.id))
    return member
