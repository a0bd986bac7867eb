#!/usr/bin/env python3
"""Writes ../org_types.json: ten organisation-defined memory types for emergency and urgent care, ambulance
services and same-day clinics, in the catalogue format.

None repeats the subject of an organisation type of blind..blind7 (only the names of their types were read) or of
a built-in type. Helpers copied from memory/eval/blind3/build/org_types.py. Run: python3 build/org_types.py"""

import json
import os

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "org_types.json")
SCHEMA = "https://json-schema.org/draft/2020-12/schema"
LINE = "^[^\\n\\r\\t]*$"
TERM = "^[A-Za-z0-9][A-Za-z0-9 ,.()'/&-]{0,79}$"
NAME = "^[^\\n\\r\\t0-9]+$"


def text(title, max_length=200, pattern=LINE):
    return {"type": "string", "title": title, "minLength": 1, "maxLength": max_length, "pattern": pattern}


def enum(title, labels):
    return {"enum": list(labels), "title": title, "x-labels": dict(labels)}


def enum_list(title, labels, max_items=None):
    return {
        "type": "array",
        "title": title,
        "minItems": 1,
        "maxItems": max_items or len(labels),
        "uniqueItems": True,
        "items": {"enum": list(labels), "x-labels": dict(labels)},
    }


def boolean(title):
    return {"type": "boolean", "title": title}


def schema(properties, required):
    return {
        "$schema": SCHEMA,
        "type": "object",
        "properties": properties,
        "required": required,
        "additionalProperties": False,
    }


def org_type(name, memory_class, label, purposes, writers, supersession, text_template, properties, required):
    return {
        "name": name,
        "version": 1,
        "memory_class": memory_class,
        "label": label,
        "purposes": purposes,
        "writers": writers,
        "encrypted": False,
        "review": False,
        "fetch_live": False,
        "default_validity_days": None,
        "retention_days": None,
        "supersession": supersession,
        "text": text_template,
        "schema": schema(properties, required),
    }


ALL = ["appointment_scheduling", "communication", "care_coordination"]
STAFF = ["staff", "ehr_import"]
ANYONE = ["patient", "staff", "agent_proposal"]

TIME = "^([01][0-9]|2[0-3]):[0-5][0-9]$"


def time(title):
    return {"type": "string", "title": title, "maxLength": 5, "pattern": TIME, "x-input": "time"}


PHONE = "^\\+?[0-9 ()-]{6,20}$"
DATE = "^20[0-9]{2}-(0[1-9]|1[0-2])-(0[1-9]|[12][0-9]|3[01])$"

TYPES = [
    org_type(
        "crew_safety_alert", "account_fact", "Known risks to attending crews", ["care_coordination"], STAFF,
        ["hazard"],
        "Crew safety: {hazard}[; {precautions}][; {note}]",
        {
            "hazard": enum("Hazard", {
                "violence_by_patient": "previous violence by the patient towards staff",
                "violence_by_household_member": "a household member has been violent towards staff",
                "verbal_abuse": "verbal abuse or threats towards staff",
                "dangerous_dog": "a dangerous or loose dog at the address",
                "weapons_at_address": "weapons kept at the address",
                "sharps_or_drug_use": "used needles or drug use at the address",
                "hoarding_unsafe_access": "hoarding blocking exits or stairs",
                "structural_hazard": "unsafe floor, stairs or building",
            }),
            "precautions": enum_list("Precautions", {
                "police_to_attend": "police to attend with the crew",
                "two_crews": "send two crews or a clinical team leader",
                "wait_at_rendezvous": "wait at a rendezvous point until safe",
                "dog_secured_first": "ask for the dog to be shut away before entry",
                "gloves_for_sharps": "sharps-resistant gloves and a torch",
                "single_crew_not_to_attend": "no single responder alone",
            }),
            "note": text("Note"),
        },
        ["hazard"],
    ),
    org_type(
        "emergency_entry", "account_fact", "Getting in when the patient cannot open the door", ["care_coordination"],
        STAFF, [],
        "Emergency entry: {method}[ ({location})][; keyholder {keyholder}][, {keyholder_phone}][; {note}]",
        {
            "method": enum("How to get in", {
                "key_safe": "key safe (code held by the ambulance control room)",
                "keyholder_neighbour": "a neighbour holds a key",
                "keyholder_relative": "a relative holds a key",
                "warden_or_concierge": "the warden or concierge lets crews in",
                "door_left_unlocked_daytime": "door left unlocked in the daytime",
                "police_force_entry_only": "no key anywhere: police forced entry only",
            }),
            "location": text("Where (door, box)", 80, TERM),
            "keyholder": text("Keyholder", 80, NAME),
            "keyholder_phone": {"type": "string", "title": "Keyholder phone", "maxLength": 20, "pattern": PHONE},
            "note": text("Note"),
        },
        ["method"],
    ),
    org_type(
        "conveyance_preference", "preference", "Where to take the patient, or not", ["care_coordination"], ANYONE,
        ["preference"],
        "Conveyance: {preference}[ - {hospital}][ ({reason})][; {note}]",
        {
            "preference": enum("Preference", {
                "preferred_hospital": "take to this hospital if clinically safe",
                "avoid_hospital": "avoid this hospital if clinically safe",
                "direct_to_specialist_unit": "go direct to a specialist unit",
                "treat_at_home_if_safe": "treat at home where safe rather than convey",
                "declines_conveyance_history": "has often declined conveyance",
            }),
            "hospital": text("Hospital or unit", 80, TERM),
            "reason": enum("Why", {
                "under_specialist_care_there": "under specialist care there",
                "previous_bad_experience": "previous bad experience",
                "family_nearby": "family nearby",
                "open_access_agreement": "open-access agreement with the unit",
                "patient_choice": "patient's choice",
            }),
            "note": text("Note"),
        },
        ["preference"],
    ),
    org_type(
        "clinical_baseline", "care_context", "Usual observations and baseline state", ["care_coordination"], STAFF,
        ["measure"],
        "Baseline {measure}: {value}[ (from {source})][; {note}]",
        {
            "measure": enum("Measure", {
                "oxygen_saturation_target": "target oxygen saturation",
                "usual_confusion": "usual level of confusion",
                "usual_gcs": "usual GCS",
                "usual_blood_pressure": "usual blood pressure",
                "usual_heart_rhythm": "usual heart rhythm",
                "usual_mobility": "usual mobility",
                "usual_speech": "usual speech",
            }),
            "value": text("Value", 80, TERM),
            "source": enum("Source", {
                "respiratory_team": "respiratory team",
                "gp": "GP",
                "care_home": "care home",
                "hospital_letter": "hospital letter",
                "family": "family",
            }),
            "note": text("Note"),
        },
        ["measure", "value"],
    ),
    org_type(
        "bleeding_risk", "care_context", "Bleeding risk for injuries and head injury", ["care_coordination"], STAFF,
        ["risk"],
        "Bleeding risk: {risk}[; carries an alert card{card_carried?}][; reversal: {reversal}][; {note}]",
        {
            "risk": enum("Risk", {
                "anticoagulated_doac": "on a direct oral anticoagulant",
                "anticoagulated_warfarin": "on warfarin",
                "dual_antiplatelet": "on two antiplatelets",
                "haemophilia": "haemophilia",
                "von_willebrand_disease": "von Willebrand disease",
                "low_platelets": "low platelet count",
                "liver_disease_coagulopathy": "clotting problem from liver disease",
            }),
            "card_carried": boolean("Carries an alert card"),
            "reversal": text("Reversal or factor agreed", 120, TERM),
            "note": text("Note"),
        },
        ["risk"],
    ),
    org_type(
        "sepsis_risk", "care_context", "Raised risk of sepsis", ["care_coordination"], STAFF, [],
        "Sepsis risk: {reason}[; {action}][; {note}]",
        {
            "reason": enum("Why", {
                "chemotherapy_neutropenia": "chemotherapy: risk of neutropenic sepsis",
                "no_spleen": "no spleen or a non-working spleen",
                "immunosuppressed": "immunosuppressing medicines",
                "indwelling_line_or_catheter": "an indwelling line or catheter",
                "recurrent_urosepsis": "previous urosepsis",
                "sickle_cell": "sickle cell disease",
            }),
            "action": enum("Agreed action", {
                "antibiotics_within_one_hour": "antibiotics within one hour of arrival",
                "call_acute_oncology_line": "call the acute oncology line",
                "direct_to_ambulatory_unit": "direct to the ambulatory or haematology unit",
                "standby_antibiotics_held_at_home": "holds standby antibiotics at home",
            }),
            "note": text("Note"),
        },
        ["reason"],
    ),
    org_type(
        "rescue_medication", "care_context", "Emergency medicine kept by the patient", ["care_coordination"], STAFF,
        ["medicine"],
        "Rescue medicine: {medicine}[ ({dose})][; kept {kept}][; {note}]",
        {
            "medicine": enum("Medicine", {
                "buccal_midazolam": "buccal midazolam",
                "emergency_hydrocortisone": "emergency hydrocortisone injection",
                "adrenaline_auto_injector": "adrenaline auto-injector",
                "glucagon": "glucagon",
                "gtn_spray": "GTN spray",
                "rectal_diazepam": "rectal diazepam",
            }),
            "dose": text("Dose", 80, TERM),
            "kept": enum("Kept", {
                "on_person": "on the person",
                "in_bag": "in their bag",
                "kitchen": "in the kitchen",
                "bedside": "by the bed",
                "with_carer": "with the carer",
            }),
            "note": text("Note"),
        },
        ["medicine"],
    ),
    org_type(
        "frequent_attender_plan", "account_fact", "Agreed plan for frequent callers and attenders",
        ["care_coordination"], STAFF, [],
        "Frequent attender plan: {presentation}[; lead {lead}][; {response}][; review {review_date}]",
        {
            "presentation": enum("Usual presentation", {
                "chest_pain": "chest pain",
                "breathlessness": "breathlessness",
                "falls": "falls without injury",
                "abdominal_pain": "abdominal pain",
                "collapse_functional_seizures": "collapse or functional seizures",
                "self_harm": "self-harm",
                "alcohol_intoxication": "alcohol intoxication",
                "pain_crisis": "pain crisis",
            }),
            "lead": enum("Lead", {
                "high_intensity_user_team": "high intensity user team",
                "gp": "GP",
                "community_matron": "community matron",
                "mental_health_liaison": "mental health liaison",
                "haematology": "haematology",
            }),
            "response": text("Agreed response", 200),
            "review_date": {"type": "string", "title": "Review by", "maxLength": 10, "pattern": DATE},
        },
        ["presentation"],
    ),
    org_type(
        "emergency_call_access", "preference", "How the patient calls for help or is reached in an emergency",
        ["communication", "care_coordination"], ANYONE, [],
        "Emergency calls: {method}[; {note}]",
        {
            "method": enum("Method", {
                "emergency_sms": "registered for emergencySMS",
                "bsl_999_video_relay": "999 BSL video relay",
                "relay_uk_text": "Relay UK text relay",
                "silent_call_55": "silent 999 call, presses 55",
                "carer_calls_on_behalf": "a carer calls on their behalf",
            }),
            "note": text("Note"),
        },
        ["method"],
    ),
    org_type(
        "pet_arrangement", "account_fact", "Who looks after animals if the patient is taken in",
        ["care_coordination"], ANYONE, ["animal"],
        "Pets: {animal}[ ({animal_name})][; cared for by {carer}][, {carer_phone}][; {note}]",
        {
            "animal": enum("Animal", {"dog": "dog", "cat": "cat", "bird": "bird", "reptile": "reptile",
                                      "rabbit": "rabbit"}),
            "animal_name": text("Name", 40, NAME),
            "carer": text("Who takes over", 80, NAME),
            "carer_phone": {"type": "string", "title": "Phone", "maxLength": 20, "pattern": PHONE},
            "note": text("Note"),
        },
        ["animal"],
    ),
]

if __name__ == "__main__":
    with open(OUT, "w") as f:
        json.dump(TYPES, f, indent=2)
        f.write("\n")
    print(f"wrote {len(TYPES)} organisation types to {os.path.normpath(OUT)}")
