"""HL7 FHIR R4 resources for a patient's export, and the FHIR resources staff may import.

Models and validation come from ``fhir.resources`` (its R4B package: FHIR 4.3, whose Patient, Consent, Provenance,
AuditEvent, AllergyIntolerance, MedicationStatement and Basic are the R4 resources with the same elements). Every
resource built here is validated by the library before it leaves the service; an import is validated by the same
library before anything is stored. The profiles and code systems are documented in ``docs/fhir.md``.
"""

from __future__ import annotations

import uuid

from fhir.resources.R4B.allergyintolerance import AllergyIntolerance
from fhir.resources.R4B.auditevent import AuditEvent as FhirAuditEvent
from fhir.resources.R4B.basic import Basic
from fhir.resources.R4B.consent import Consent
from fhir.resources.R4B.medicationstatement import MedicationStatement
from fhir.resources.R4B.patient import Patient
from fhir.resources.R4B.provenance import Provenance

BASE = "https://anamnesis.dev/fhir"
SYSTEM_PATIENT = "urn:anamnesis:patient"
SYSTEM_MEMORY = "urn:anamnesis:memory"
SYSTEM_ACTOR = "urn:anamnesis:actor"
SYSTEM_AGENT_CLIENT = "urn:anamnesis:agent-client"  # an AI agent's client id (the software that acted)
SYSTEM_PURPOSE = f"{BASE}/CodeSystem/purpose"
SYSTEM_ACTION = f"{BASE}/CodeSystem/audit-action"
SYSTEM_REASON = f"{BASE}/CodeSystem/lifecycle-reason"
SYSTEM_EVENT = f"{BASE}/CodeSystem/lifecycle-event"
SYSTEM_MEMORY_TYPE = f"{BASE}/CodeSystem/memory-type"
PREFERENCE_PROFILE = f"{BASE}/StructureDefinition/anamnesis-preference"
PREFERENCE_EXTENSION = f"{BASE}/StructureDefinition/preference-fact"
MEMORY_STATE_EXTENSION = f"{BASE}/StructureDefinition/memory-state"
V3_ACT_REASON = "http://terminology.hl7.org/CodeSystem/v3-ActReason"
V3_DATA_OPERATION = "http://terminology.hl7.org/CodeSystem/v3-DataOperation"

# Our purposes of use, and the HL7 v3 PurposeOfUse code closest to each (both are given).
PURPOSE_OF_USE = {"appointment_scheduling": "PATADMIN", "communication": "PATADMIN",
                  "prior_authorization": "COVAUTH", "care_coordination": "CAREMGT"}
# What a lifecycle event did to the record, as a v3 DataOperation.
EVENT_OPERATION = {"proposed": "CREATE", "confirmed": "UPDATE", "rejected": "NULLIFY", "corrected": "UPDATE",
                   "superseded": "UPDATE", "expired": "UPDATE", "quarantined": "SUSPEND",
                   "reinstated": "UPDATE", "released": "UPDATE",
                   "consent_revoked": "SUSPEND", "deletion_requested": "DELETE", "deleted": "DELETE"}

MODELS = {"Patient": Patient, "Consent": Consent, "Provenance": Provenance, "AuditEvent": FhirAuditEvent,
          "AllergyIntolerance": AllergyIntolerance, "MedicationStatement": MedicationStatement, "Basic": Basic}


def validated(resource: dict) -> dict:
    """Validate with the FHIR model library (raises pydantic.ValidationError) and return the resource."""
    MODELS[resource["resourceType"]].model_validate(resource)
    return resource


def _purpose_codings(purpose: str | None) -> list[dict]:
    if not purpose:
        return []
    codings = [{"system": SYSTEM_PURPOSE, "code": purpose}]
    if purpose in PURPOSE_OF_USE:
        codings.append({"system": V3_ACT_REASON, "code": PURPOSE_OF_USE[purpose]})
    return codings


def _actor(sub: str) -> dict:
    return {"identifier": {"system": SYSTEM_ACTOR, "value": sub}}


def patient_ref(patient_id) -> dict:
    """Entries of an export Bundle have ``urn:uuid:`` full URLs, so references resolve inside the Bundle."""
    return {"reference": f"urn:uuid:{patient_id}"}


def patient(patient_id: uuid.UUID, entry: dict | None = None) -> dict:
    """The patient: our id, and what the organisation's directory holds (``entry``: name, date of birth, its
    identifiers such as an MRN) when there is an entry."""
    resource = {"resourceType": "Patient", "id": str(patient_id),
                "identifier": [{"system": SYSTEM_PATIENT, "value": str(patient_id)}]}
    if entry is not None:
        resource["identifier"] += [{"system": i["system"], "value": i["value"]} for i in entry["identifiers"]]
        resource["name"] = [{"text": entry["display_name"]}]
        if entry["birth_date"]:
            resource["birthDate"] = entry["birth_date"]
    return resource


def consent(c: dict, patient_id) -> dict:
    active = c["status"] == "granted" and not c["revoked_at"]
    period = {"start": c["granted_at"]}
    end = c["revoked_at"] or c["expires_at"]
    if end:
        period["end"] = end
    return {
        "resourceType": "Consent", "id": c["consent_record_id"],
        "identifier": [{"system": "urn:anamnesis:consent", "value": c["consent_record_id"]}],
        "status": "active" if active else "inactive",
        "scope": {"coding": [{"system": "http://terminology.hl7.org/CodeSystem/consentscope",
                              "code": "patient-privacy"}]},
        "category": [{"coding": [{"system": "http://loinc.org", "code": "59284-0", "display": "Consent Document"}]}],
        "patient": patient_ref(patient_id), "dateTime": c["granted_at"],
        "policyRule": {"coding": [{"system": "http://terminology.hl7.org/CodeSystem/v3-ActCode", "code": "OPTIN"}]},
        "sourceReference": {"identifier": {"system": "urn:anamnesis:evidence", "value": c["evidence_ref"]}},
        "provision": {"type": "permit", "period": period, "purpose": _purpose_codings(c["purpose"])},
    }


def _state_extension(m: dict) -> dict:
    return {"url": MEMORY_STATE_EXTENSION, "valueCode": m["state"]}


def _memory_identifier(m: dict) -> list[dict]:
    return [{"system": SYSTEM_MEMORY, "value": m["memory_id"]}]


# A clinical value still asserted: in use, or set aside by staff (quarantined) or awaiting review (unconfirmed, not
# resolved: "inactive" told a receiving system that the allergy was over). A superseded or expired one is inactive.
ASSERTED = ("active", "proposed", "quarantined")
# A medication statement set aside or awaiting review is of unknown status ("completed" said the course had ended).
MEDICATION_STATUS = {"active": "active", "proposed": "unknown", "quarantined": "unknown"}


def allergy(m: dict, patient_id) -> dict:
    fact = m["fact"]
    resource = {
        "resourceType": "AllergyIntolerance", "id": m["memory_id"], "identifier": _memory_identifier(m),
        "extension": [_state_extension(m)],
        "clinicalStatus": {"coding": [{
            "system": "http://terminology.hl7.org/CodeSystem/allergyintolerance-clinical",
            "code": "active" if m["state"] in ASSERTED else "inactive"}]},
        "verificationStatus": {"coding": [{
            "system": "http://terminology.hl7.org/CodeSystem/allergyintolerance-verification",
            "code": "unconfirmed" if m["state"] in ("proposed", "quarantined") else "confirmed"}]},
        "code": {"text": fact["substance"]}, "patient": patient_ref(patient_id), "recordedDate": m["created_at"],
    }
    coded = fact.get("coded_substance")  # care_context from version 2: the substance in a terminology
    if coded:
        resource["code"]["coding"] = [{"system": coded["system"], "code": coded["code"]}]
    if fact.get("note"):  # the care team's note on handling it ("use nitrile gloves")
        resource["note"] = [{"text": fact["note"]}]
    if fact.get("reaction") or fact.get("severity") in ("mild", "moderate", "severe"):
        reaction = {"manifestation": [{"text": fact.get("reaction") or "unspecified"}]}
        if fact.get("severity") in ("mild", "moderate", "severe"):
            reaction["severity"] = fact["severity"]
        resource["reaction"] = [reaction]
    return resource


def medication_statement(m: dict, patient_id) -> dict:
    fact = m["fact"]
    resource = {
        "resourceType": "MedicationStatement", "id": m["memory_id"], "identifier": _memory_identifier(m),
        "extension": [_state_extension(m)],
        "status": MEDICATION_STATUS.get(m["state"], "completed"),
        "medicationCodeableConcept": {"text": fact["medication"]}, "subject": patient_ref(patient_id),
        "dateAsserted": m["created_at"], "reasonCode": [{"text": fact["indication"]}],
    }
    if fact.get("monitoring"):
        resource["note"] = [{"text": f"monitoring: {fact['monitoring']}"}]
    return resource


def _fact_fields(name: str, value) -> list[dict]:
    """A fact's field as sub-extensions: a list repeats it once per item, an object (an organisation's type may
    nest one) is a complex sub-extension of its own fields, and a yes/no reads as JSON writes it (``true``).
    FHIR has no empty string (the library refuses ``""``, which stopped the whole export half-way): a field
    holding one is left out, as a field the fact does not give is; the ``text`` says what the fact holds."""
    if isinstance(value, list):
        return [field for item in value for field in _fact_fields(name, item)]
    if isinstance(value, dict):
        nested = [field for key, item in value.items() for field in _fact_fields(key, item)]
        return [{"url": name, "extension": nested}] if nested else []
    if isinstance(value, bool):
        return [{"url": name, "valueString": "true" if value else "false"}]
    if value is None or value == "":
        return []
    return [{"url": name, "valueString": str(value)}]


def preference(m: dict, patient_id) -> dict:
    """Profile ``anamnesis-preference`` on Basic (docs/fhir.md): the memory type as code, each field of the typed
    fact as a sub-extension of ``preference-fact`` (lists repeat the sub-extension), the plain-language text."""
    # Types without kinds (transport_need, accessibility_need, organisation types, ...) have no "kind" field:
    # the memory type stands in for it.
    fields = [{"url": "kind", "valueCode": m["fact"].get("kind") or m["memory_type"]}]
    for name, value in m["fact"].items():
        if name != "kind":
            fields += _fact_fields(name, value)
    fields.append({"url": "text", "valueString": m["text"]})
    fields.append({"url": "purpose", "valueCode": m["consent_purpose"]})
    return {
        "resourceType": "Basic", "id": m["memory_id"], "meta": {"profile": [PREFERENCE_PROFILE]},
        "identifier": _memory_identifier(m),
        "extension": [_state_extension(m), {"url": PREFERENCE_EXTENSION, "extension": fields}],
        "code": {"coding": [{"system": SYSTEM_MEMORY_TYPE, "code": m["memory_type"]}]},
        "subject": patient_ref(patient_id), "created": m["created_at"][:10], "author": _actor(m["created_by"]),
    }


def memory_resource(m: dict, patient_id) -> dict | None:
    """The clinical or preference resource carrying a memory's value (None when it holds none)."""
    if m["fact"] is None:
        return None
    # Only the built-in care_context type holds clinical facts; an organisation's type may reuse a kind name
    # ("allergy") with other fields.
    kind = m["fact"].get("kind") if m["memory_type"] == "care_context" else None
    if kind == "allergy":
        return allergy(m, patient_id)
    if kind == "long_term_indication":
        return medication_statement(m, patient_id)
    return preference(m, patient_id)


def _memory_target(m_id: str, resource_type: str | None) -> dict:
    if resource_type:  # the memory's value is in this Bundle; otherwise (erased) only its identifier remains
        return {"reference": f"urn:uuid:{m_id}", "type": resource_type}
    return {"identifier": {"system": SYSTEM_MEMORY, "value": m_id}}


def _acting(sub: str, agent_client_id: str | None) -> dict:
    """Who acted: the person, or the agent (its client id) on behalf of the person its token named (an agent's
    proposal is not the patient's own statement)."""
    if agent_client_id:
        return {"who": {"identifier": {"system": SYSTEM_AGENT_CLIENT, "value": agent_client_id}},
                "onBehalfOf": _actor(sub)}
    return {"who": _actor(sub)}


def memory_provenance(m: dict, resource_type: str) -> dict:
    """Where a memory came from: who recorded it, when, from what source, under which policy."""
    entity_ref = m["source_ref"] or f"api:{m['created_by']}"
    return {
        "resourceType": "Provenance", "id": str(uuid.uuid5(uuid.NAMESPACE_URL, f"memory:{m['memory_id']}")),
        "target": [_memory_target(m["memory_id"], resource_type)], "recorded": m["created_at"],
        "policy": [f"urn:anamnesis:policy:{m['policy_revision']}"],
        "activity": {"coding": [{"system": V3_DATA_OPERATION, "code": "CREATE"}]},
        "reason": [{"coding": _purpose_codings(m["consent_purpose"])}],
        "agent": [{"type": {"coding": [{"system": "http://terminology.hl7.org/CodeSystem/provenance-participant-type",
                                        "code": "enterer"}]},
                   **_acting(m["created_by"], m.get("agent_client_id"))}],
        "entity": [{"role": "source", "what": {"identifier": {"system": f"{BASE}/source/{m['source']}",
                                                             "value": entity_ref}}}],
    }


def event_provenance(e: dict, resource_type: str | None) -> dict:
    """One lifecycle event (confirmation, supersession, quarantine, deletion...) of a memory."""
    return {
        "resourceType": "Provenance", "id": e["event_id"],
        "target": [_memory_target(e["memory_id"], resource_type)], "recorded": e["occurred_at"],
        "policy": [f"urn:anamnesis:policy:{e['policy_revision']}"],
        "activity": {"coding": [{"system": V3_DATA_OPERATION, "code": EVENT_OPERATION.get(e["event_type"], "UPDATE")},
                                {"system": SYSTEM_EVENT, "code": e["event_type"]}]},
        "reason": [{"coding": [{"system": SYSTEM_REASON, "code": e["reason_code"]}]}],
        "agent": [_acting(e["actor_sub"], e.get("agent_client_id"))],
    }


_ACTION_CODE = {"create": "C", "read": "R", "list": "R", "search": "R", "history": "R", "context_pack": "R",
                "export": "R", "update": "U", "correct": "U", "confirm": "U", "delete": "D", "erase_all": "D",
                "erase": "D", "purge": "D", "redact": "U"}
_OUTCOME = {"success": "0", "denied": "4", "conflict": "4", "error": "8"}


def audit_event(a: dict, patient_id) -> dict:
    """One access to the patient's information (never values: the audit trail holds none)."""
    verb = a["action"].rsplit(".", 1)[-1]
    resource = {
        "resourceType": "AuditEvent", "id": a["id"],
        "type": {"system": "http://terminology.hl7.org/CodeSystem/audit-event-type", "code": "rest"},
        "subtype": [{"system": SYSTEM_ACTION, "code": a["action"]}],
        "action": _ACTION_CODE.get(verb, "E"), "recorded": a["occurred_at"],
        "outcome": _OUTCOME.get(a["outcome"], "8"),
        "agent": [{"who": _actor(a["actor_sub"]), "requestor": True,
                   "type": {"coding": [{"system": f"{BASE}/CodeSystem/actor-kind", "code": a["actor_kind"]}]}}],
        "source": {"observer": {"display": "anamnesis"}},
        "entity": [{"what": patient_ref(patient_id)},
                   {"what": {"identifier": {"system": f"{BASE}/resource/{a['resource_type']}",
                                            "value": a["resource_id"] or "-"}}}],
    }
    if a["outcome"] != "success" and a["reason"]:
        resource["outcomeDesc"] = a["reason"]
    if a["purpose"]:
        resource["purposeOfEvent"] = [{"coding": _purpose_codings(a["purpose"])}]
    if a.get("agent_client_id"):  # the software that acted, beside the person its token named
        resource["agent"].append({"who": {"identifier": {"system": SYSTEM_AGENT_CLIENT, "value": a["agent_client_id"]}},
                                  "requestor": False,
                                  "type": {"coding": [{"system": f"{BASE}/CodeSystem/actor-kind", "code": "agent"}]}})
    return resource


def validated_bundle(envelope: dict) -> dict:
    from fhir.resources.R4B.bundle import Bundle

    Bundle.model_validate(envelope)
    return envelope
