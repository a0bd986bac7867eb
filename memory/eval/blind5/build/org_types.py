#!/usr/bin/env python3
"""Writes ../org_types.json: ten organisation-defined memory types in the catalogue format, for mental health,
learning disability, autism and substance-use services.

None of them repeats the subject of a type of the first three sets (only the names of their organisation
types were read) or of a built-in type. Helpers copied from memory/eval/blind3/build/org_types.py.
Run from anywhere: python3 build/org_types.py"""

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



DATE = "^20[0-9]{2}-(0[1-9]|1[0-2])-(0[1-9]|[12][0-9]|3[01])$"


def date(title):
    return {"type": "string", "title": title, "maxLength": 10, "pattern": DATE, "x-input": "date"}


def integer(title, lo, hi):
    return {"type": "integer", "title": title, "minimum": lo, "maximum": hi}


DAYS = {d: d.capitalize() for d in ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")}

TYPES = [
    org_type(
        "relapse_crisis_plan",
        "care_context",
        "Relapse signs and crisis plan",
        ["care_coordination", "communication"],
        STAFF,
        [],
        "Early warning signs: {early_signs}[; in a crisis contact {first_contact}][ ({trusted_person})][; {note}]",
        {
            "early_signs": enum_list(
                "Early warning signs",
                {
                    "sleeping_less": "sleeping less, up at night",
                    "stops_eating": "stops eating or drinking",
                    "withdraws": "withdraws, stops answering the door or phone",
                    "suspicious": "becomes suspicious of neighbours or staff",
                    "overspending": "overspends, gives money away",
                    "stops_medication": "stops taking medication",
                    "drinking_more": "drinks more alcohol or uses more drugs",
                    "self_harm_talk": "talks about self-harm or not being here",
                    "hearing_voices_more": "voices become louder or more frequent",
                    "agitated": "pacing, irritable, shouting",
                },
            ),
            "first_contact": enum(
                "First contact in a crisis",
                {
                    "care_coordinator": "the care coordinator",
                    "crisis_resolution_team": "the crisis resolution and home treatment team",
                    "trusted_person": "the trusted person named here",
                    "community_learning_disability_team": "the community learning disability team",
                    "recovery_worker": "the drug and alcohol recovery worker",
                },
            ),
            "trusted_person": text("Trusted person", 80, NAME),
            "note": text("Note"),
        },
        ["early_signs"],
    ),
    org_type(
        "sensory_profile",
        "preference",
        "Sensory sensitivities and adjustments",
        ALL,
        ANYONE,
        ["sensitivity"],
        "Sensitive to {sensitivity}; helps: {adjustments}[; {note}]",
        {
            "sensitivity": enum(
                "Sensitive to",
                {
                    "noise": "noise and sudden sounds",
                    "bright_light": "bright or fluorescent light",
                    "touch": "unexpected or light touch",
                    "smell": "strong smells",
                    "crowds_and_waiting": "crowded waiting rooms and waiting",
                    "clothing_and_textures": "clothing, gowns and textures",
                },
            ),
            "adjustments": enum_list(
                "What helps",
                {
                    "quiet_room": "a quiet room to wait in",
                    "ear_defenders": "ear defenders or headphones",
                    "dim_lights": "dimmed lights or sunglasses",
                    "first_appointment": "the first appointment of the day",
                    "wait_outside": "waiting outside or in the car until called",
                    "warn_before_touch": "say before touching, firm touch only",
                    "own_clothes": "keeping own clothes on where possible",
                    "unscented": "no perfume or scented products",
                },
            ),
            "note": text("Note"),
        },
        ["sensitivity", "adjustments"],
    ),
    org_type(
        "communication_passport",
        "preference",
        "Communication passport",
        ALL,
        ANYONE,
        [],
        "Communicates by {method}[; yes/no: {yes_no}][; signs of pain: {pain_signs}][; {note}]",
        {
            "method": enum_list(
                "Communicates by",
                {
                    "speech": "speech",
                    "short_phrases": "single words or short phrases",
                    "makaton": "Makaton signs",
                    "picture_exchange": "picture exchange (PECS)",
                    "aac_device": "a speech-generating device or app",
                    "objects_of_reference": "objects of reference",
                    "gesture_and_behaviour": "gesture, sounds and behaviour",
                    "writing": "writing or typing",
                },
            ),
            "yes_no": text("How yes and no are shown", 120),
            "pain_signs": text("How pain or distress is shown", 160),
            "note": text("Note"),
        },
        ["method"],
    ),
    org_type(
        "advance_statement",
        "care_context",
        "Mental health advance statement",
        ["care_coordination"],
        STAFF,  # lead engineer: care context is written by staff or an EHR import (was patient and staff, refused)
        ["topic"],
        "Advance statement ({topic}): {wish}[; made {made_on}][; {note}]",
        {
            "topic": enum(
                "About",
                {
                    "medicine_preferred": "a medicine that has helped",
                    "medicine_refused": "a medicine not wanted",
                    "ect_refused": "electroconvulsive therapy not wanted",
                    "restraint_and_rapid_tranquillisation": "restraint and rapid tranquillisation",
                    "ward_or_unit": "ward or unit preferences",
                    "practical_matters": "pets, children, home and bills while in hospital",
                    "staff_gender": "gender of staff",
                },
            ),
            "wish": text("What the person wants", 200),
            "made_on": date("Made on"),
            "note": text("Note"),
        },
        ["topic", "wish"],
    ),
    org_type(
        "depot_injection",
        "care_context",
        "Depot or long-acting injection",
        ["care_coordination", "appointment_scheduling"],
        STAFF,
        ["medicine"],
        "Depot {medicine} {dose} every {interval_weeks} weeks[, {site}][, given at {given_at}][; {note}]",
        {
            "medicine": text("Medicine", 80, TERM),
            "dose": text("Dose", 40, TERM),
            "interval_weeks": integer("Every (weeks)", 1, 26),
            "site": enum(
                "Site",
                {
                    "gluteal_alternating": "gluteal, alternating sides",
                    "deltoid_alternating": "deltoid, alternating arms",
                    "deltoid_only": "deltoid only",
                    "gluteal_only": "gluteal only",
                    "abdomen_subcutaneous": "subcutaneous, abdomen",
                },
            ),
            "given_at": enum(
                "Given at",
                {
                    "depot_clinic": "the depot clinic",
                    "home_visit": "home by the community nurse",
                    "gp_surgery": "the GP surgery",
                    "drug_service": "the drug and alcohol service",
                    "ward": "on the ward",
                },
            ),
            "note": text("Note"),
        },
        ["medicine", "dose", "interval_weeks"],
    ),
    org_type(
        "opioid_substitution",
        "care_context",
        "Opioid substitution treatment dispensing",
        ["care_coordination", "appointment_scheduling"],
        STAFF,
        [],
        "{medicine} {daily_dose}[, {supervision}][ at {pharmacy}][; no dispensing on {closed_days}][; {note}]",
        {
            "medicine": enum(
                "Medicine",
                {
                    "methadone_oral_solution": "methadone oral solution 1 mg/ml",
                    "buprenorphine_sublingual": "buprenorphine sublingual tablets",
                    "buprenorphine_oral_lyophilisate": "buprenorphine oral lyophilisate (Espranor)",
                    "buprenorphine_prolonged_release_injection": "buprenorphine prolonged-release injection (Buvidal)",
                },
            ),
            "daily_dose": text("Dose", 40, TERM),
            "supervision": enum(
                "Supervision",
                {
                    "supervised_daily": "supervised consumption every day",
                    "supervised_weekdays": "supervised on weekdays, weekend takeaway",
                    "weekly_collection": "weekly collection, unsupervised",
                    "injection_clinic": "injection at the clinic",
                },
            ),
            "pharmacy": text("Pharmacy", 80, TERM),
            "closed_days": enum_list("Pharmacy closed", DAYS),
            "note": text("Note"),
        },
        ["medicine", "daily_dose"],
    ),
    org_type(
        "clozapine_monitoring",
        "care_context",
        "Clozapine blood monitoring",
        ["care_coordination", "appointment_scheduling"],
        STAFF,
        [],
        "Clozapine bloods {frequency}[ ({sample})][, last result {last_status}][; {note}]",
        {
            "frequency": enum(
                "Blood count frequency",
                {"weekly": "weekly", "fortnightly": "fortnightly", "four_weekly": "every four weeks"},
            ),
            "sample": enum(
                "Sample",
                {
                    "point_of_care_fingerprick": "point-of-care fingerprick in clinic",
                    "venous_clinic": "venous sample at the clozapine clinic",
                    "venous_home": "venous sample taken at home",
                },
            ),
            "last_status": enum(
                "Last result",
                {"green": "green (normal)", "amber": "amber (repeat and watch)", "red": "red (stop clozapine)"},
            ),
            "note": text("Note"),
        },
        ["frequency"],
    ),
    org_type(
        "harm_reduction",
        "care_context",
        "Harm reduction",
        ["care_coordination"],
        STAFF,
        ["item"],
        "Harm reduction: {item}[; {note}]",
        {
            "item": enum(
                "What",
                {
                    "naloxone_nasal": "holds a nasal naloxone kit",
                    "naloxone_injectable": "holds an injectable naloxone kit",
                    "needle_exchange": "uses the needle and syringe programme",
                    "injects_groin": "injects into the groin",
                    "withdrawal_seizures": "has had alcohol withdrawal seizures",
                    "pabrinex_course": "needs thiamine or Pabrinex",
                    "overdose_history": "has overdosed before",
                },
            ),
            "note": text("Note"),
        },
        ["item"],
    ),
    org_type(
        "mental_health_act_status",
        "account_fact",
        "Mental Health Act status",
        ["care_coordination", "appointment_scheduling"],
        STAFF,
        [],
        "Mental Health Act: {status}[ since {since}][; responsible clinician {clinician}][; {conditions}]",
        {
            "status": enum(
                "Status",
                {
                    "informal": "informal (voluntary)",
                    "section_2": "section 2 (assessment)",
                    "section_3": "section 3 (treatment)",
                    "community_treatment_order": "community treatment order",
                    "section_17_leave": "section 17 leave",
                    "guardianship": "guardianship (section 7)",
                    "section_37_41": "hospital order with restrictions (sections 37/41)",
                    "conditional_discharge": "conditionally discharged",
                },
            ),
            "since": date("Since"),
            "clinician": text("Responsible clinician", 80, NAME),
            "conditions": text("Conditions", 200),
        },
        ["status"],
    ),
    org_type(
        "means_safety",
        "care_context",
        "Safety from means of self-harm",
        ["care_coordination"],
        STAFF,
        ["measure"],
        "Safety measure: {measure}[; {detail}]",
        {
            "measure": enum(
                "Measure",
                {
                    "limited_supply": "medicines dispensed in small quantities",
                    "medicines_held_by_family": "medicines kept and given by family",
                    "sharps_removed": "blades and sharps removed or locked away",
                    "ligature_check": "ligature risk, check room and belongings",
                    "no_paracetamol_stock": "no paracetamol kept at home",
                    "car_keys_held": "car keys held by family",
                },
            ),
            "detail": text("Detail", 200),
        },
        ["measure"],
    ),
]

if __name__ == "__main__":
    with open(OUT, "w") as f:
        json.dump(TYPES, f, indent=2)
        f.write("\n")
    print(f"wrote {len(TYPES)} organisation types to {os.path.normpath(OUT)}")
