#!/usr/bin/env python3
"""Writes ../org_types.json: ten organisation-defined memory types in the catalogue format (older people's care:
care homes, domiciliary care and district nursing, memory clinics, tube feeding, wounds and haematology;
decision-specific capacity and best-interests decisions, covert medicines, Deprivation of Liberty Safeguards,
going-missing (Herbert Protocol) plans, pets at home, care-home placements, wound dressing plans, enteral tube
feeding, sickle cell care plans and intravenous iron).

None of them repeats the subject of an organisation type of earlier sets (as listed by subject in
memory/eval/blind15/README.md and memory/eval/blind16/README.md, plus blind15's and blind16's own ten) or of a
built-in type. Helpers copied from memory/eval/blind16/build/org_types.py.
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


DATE = "^[0-9]{4}-[0-9]{2}-[0-9]{2}$"


def date(title):
    return {"type": "string", "title": title, "format": "date", "maxLength": 10, "pattern": DATE}


def integer(title, lo, hi):
    return {"type": "integer", "title": title, "minimum": lo, "maximum": hi}


TYPES = [
    org_type(
        "capacity_decision",
        "account_fact",
        "Mental capacity for a specific decision and any best-interests decision",
        ["care_coordination", "communication"],
        STAFF,
        ["decision"],
        "Capacity to decide about {decision}: {capacity}[; best-interests decision: {best_interests}][; assessed by "
        "{assessed_by}][ on {assessed_on}][; {note}]",
        {
            "decision": enum(
                "Decision",
                {
                    "medicines": "taking medicines",
                    "place_of_care": "where to live",
                    "personal_care": "personal care",
                    "medical_treatment": "a medical treatment",
                    "tube_feeding": "tube feeding",
                    "vaccination": "vaccination",
                    "blood_transfusion": "a blood transfusion",
                },
            ),
            "capacity": enum(
                "Capacity",
                {
                    "has_capacity": "has capacity",
                    "lacks_capacity": "lacks capacity",
                    "fluctuating": "fluctuating: reassess at the time",
                },
            ),
            "best_interests": text("Best-interests decision", 200),
            "assessed_by": enum(
                "Assessed by",
                {
                    "gp": "the GP",
                    "consultant": "the consultant",
                    "memory_clinic": "the memory clinic",
                    "care_home_manager": "the care home manager",
                    "social_worker": "a social worker",
                    "mdt": "a multidisciplinary meeting",
                },
            ),
            "assessed_on": date("Assessed on"),
            "note": text("Note"),
        },
        ["decision", "capacity"],
    ),
    org_type(
        "covert_medication",
        "care_context",
        "Covert administration of medicines",
        ["care_coordination"],
        STAFF,
        [],
        "Covert medicines: {status}[ for {medicines}][, hidden in {vehicle}][; pharmacist has advised "
        "{pharmacist_advised?}][; review by {review_by}][; {note}]",
        {
            "status": enum(
                "Status",
                {
                    "agreed": "agreed after a best-interests meeting",
                    "not_agreed": "not agreed: offer openly only",
                    "stopped": "stopped: takes medicines openly again",
                },
            ),
            "medicines": text("Medicines", 160),
            "vehicle": text("Hidden in", 80, TERM),
            "pharmacist_advised": boolean("Pharmacist has advised on mixing"),
            "review_by": date("Review by"),
            "note": text("Note"),
        },
        ["status"],
    ),
    org_type(
        "dols_authorisation",
        "account_fact",
        "Deprivation of Liberty Safeguards authorisation",
        ["care_coordination", "communication"],
        STAFF,
        [],
        "DoLS: {status}[; supervisory body {supervisory_body}][; expires {expires}][; representative "
        "{representative}][; conditions: {conditions}]",
        {
            "status": enum(
                "Status",
                {
                    "applied": "applied for, awaiting assessment",
                    "urgent": "urgent authorisation in place",
                    "standard": "standard authorisation granted",
                    "not_granted": "not granted",
                    "ended": "ended",
                },
            ),
            "supervisory_body": text("Supervisory body", 80, TERM),
            "expires": date("Expires"),
            "representative": text("Relevant person's representative", 80, NAME),
            "conditions": text("Conditions", 200),
        },
        ["status"],
    ),
    org_type(
        "missing_person_plan",
        "care_context",
        "Plan if the person goes missing (Herbert Protocol)",
        ["care_coordination", "communication"],
        ["staff", "ehr_import"],
        [],
        "Going missing: risk {risk}[; Herbert Protocol form held by {form_held_by}][; likely to head for "
        "{likely_places}][; recent photo held {photo?}][; {note}]",
        {
            "risk": enum("Risk", {"low": "low", "medium": "medium", "high": "high"}),
            "form_held_by": enum(
                "Herbert Protocol form held by",
                {"family": "the family", "care_home": "the care home", "police": "the police (uploaded)"},
            ),
            "likely_places": text("Likely places", 160),
            "photo": boolean("Recent photo held"),
            "note": text("Note"),
        },
        ["risk"],
    ),
    org_type(
        "pet_at_home",
        "account_fact",
        "Pets at home: visits and cover",
        ["appointment_scheduling", "care_coordination"],
        ANYONE,
        ["animal"],
        "Pet: {animal}[ called {pet_name}][; for home visits: {at_visits}][; if admitted: {if_admitted}][; {note}]",
        {
            "animal": enum(
                "Animal",
                {"dog": "dog", "cat": "cat", "bird": "bird", "rabbit": "rabbit", "other": "other animal"},
            ),
            "pet_name": text("Name", 40, NAME),
            "at_visits": enum(
                "At home visits",
                {
                    "shut_away": "ask for it to be shut in another room",
                    "fine": "friendly, fine loose",
                    "ring_first": "ring ahead so it can be put out",
                },
            ),
            "if_admitted": text("Who looks after it if admitted", 160),
            "note": text("Note"),
        },
        ["animal"],
    ),
    org_type(
        "care_home_placement",
        "account_fact",
        "Care-home placement",
        ["appointment_scheduling", "care_coordination", "communication"],
        STAFF,
        [],
        "Lives at {home} ({placement})[; funded by {funding}][ since {since}][; room {room}][; {note}]",
        {
            "home": text("Care home", 80, TERM),
            "placement": enum(
                "Placement",
                {
                    "residential": "residential",
                    "nursing": "nursing",
                    "dementia_residential": "dementia residential",
                    "dementia_nursing": "dementia nursing",
                    "respite": "respite stay",
                    "discharge_to_assess": "discharge-to-assess bed",
                },
            ),
            "funding": enum(
                "Funding",
                {
                    "self_funded": "self-funded",
                    "local_authority": "the local authority",
                    "chc": "NHS Continuing Healthcare",
                    "fnc": "the resident, with NHS-funded nursing care",
                    "pending": "funding not yet agreed",
                },
            ),
            "since": date("Since"),
            "room": text("Room", 20, TERM),
            "note": text("Note"),
        },
        ["home", "placement"],
    ),
    org_type(
        "wound_dressing",
        "care_context",
        "Wound and dressing plan",
        ["care_coordination", "appointment_scheduling"],
        STAFF,
        ["site"],
        "Wound ({wound}) at {site}: {primary}[ under {secondary}][; compression {compression}][; changed {frequency}]"
        "[ by {changed_by}][; {note}]",
        {
            "site": text("Site", 80, TERM),
            "wound": enum(
                "Wound",
                {
                    "venous_leg_ulcer": "venous leg ulcer",
                    "mixed_leg_ulcer": "mixed arterial and venous leg ulcer",
                    "pressure_ulcer": "pressure ulcer",
                    "skin_tear": "skin tear",
                    "surgical": "surgical wound",
                    "moisture_lesion": "moisture lesion",
                    "gastrostomy_site": "gastrostomy site",
                    "sickle_leg_ulcer": "sickle cell leg ulcer",
                },
            ),
            "primary": text("Primary dressing", 80, TERM),
            "secondary": text("Secondary dressing", 80, TERM),
            "compression": enum(
                "Compression",
                {
                    "none": "none",
                    "reduced": "reduced compression",
                    "full": "full compression bandaging",
                    "hosiery": "compression hosiery or wrap",
                },
            ),
            "frequency": text("How often", 40, TERM),
            "changed_by": enum(
                "Changed by",
                {
                    "district_nurse": "the district nurses",
                    "practice_nurse": "the practice nurse",
                    "care_home_staff": "care home nurses",
                    "tissue_viability": "tissue viability",
                    "self": "the patient or family",
                },
            ),
            "note": text("Note"),
        },
        ["site", "wound", "primary"],
    ),
    org_type(
        "tube_feeding",
        "care_context",
        "Enteral tube and feeding regimen",
        ["care_coordination"],
        STAFF,
        [],
        "Tube feeding via {tube}[ ({size_fr} Fr)][: {feed}][, {regimen}][; water flushes {flushes}][; nil by mouth "
        "{nil_by_mouth?}][; if the tube comes out: {if_dislodged}][; {note}]",
        {
            "tube": enum(
                "Tube",
                {
                    "peg": "PEG",
                    "rig": "RIG (radiologically inserted gastrostomy)",
                    "balloon_gastrostomy": "balloon gastrostomy",
                    "ng": "nasogastric tube",
                    "pej": "PEJ (jejunostomy)",
                },
            ),
            "size_fr": integer("Size (French)", 6, 24),
            "feed": text("Feed", 80, TERM),
            "regimen": text("Regimen", 120),
            "flushes": text("Water flushes", 120),
            "nil_by_mouth": boolean("Nil by mouth"),
            "if_dislodged": text("If the tube comes out", 160),
            "note": text("Note"),
        },
        ["tube"],
    ),
    org_type(
        "sickle_cell_plan",
        "care_context",
        "Sickle cell disease care plan",
        ["care_coordination", "communication"],
        STAFF,
        [],
        "Sickle cell ({genotype})[; baseline Hb {baseline_hb} g/L][; in a crisis give {crisis_analgesia}][; avoid "
        "{avoid}][; transfusion: {transfusion}][; haematology centre {centre}][; {note}]",
        {
            "genotype": enum(
                "Genotype",
                {
                    "hbss": "HbSS",
                    "hbsc": "HbSC",
                    "hbs_beta0": "HbS/beta-zero thalassaemia",
                    "hbs_beta_plus": "HbS/beta-plus thalassaemia",
                },
            ),
            "baseline_hb": integer("Baseline haemoglobin (g/L)", 40, 160),
            "crisis_analgesia": text("First-line crisis pain relief", 160),
            "avoid": text("Avoid", 120),
            "transfusion": enum(
                "Transfusion",
                {
                    "none": "not on a programme",
                    "top_up": "top-up transfusions when needed",
                    "exchange_programme": "regular exchange transfusion programme",
                    "declines": "declines blood",
                },
            ),
            "centre": text("Haematology centre", 80, TERM),
            "note": text("Note"),
        },
        ["genotype"],
    ),
    org_type(
        "iron_infusion",
        "account_fact",
        "Intravenous iron course",
        ["appointment_scheduling", "care_coordination"],
        STAFF,
        [],
        "IV iron: {product}, {status}[; last given {last_given}][; next due {next_due}][ at {unit}][; {note}]",
        {
            "product": enum(
                "Product",
                {
                    "ferric_carboxymaltose": "ferric carboxymaltose (Ferinject)",
                    "ferric_derisomaltose": "ferric derisomaltose (Monofer)",
                    "iron_sucrose": "iron sucrose (Venofer)",
                    "low_molecular_weight_iron_dextran": "iron dextran (CosmoFer)",
                },
            ),
            "status": enum(
                "Status",
                {
                    "referred": "referred, not yet booked",
                    "booked": "booked",
                    "course_complete": "course complete",
                    "repeat_due": "repeat course due",
                    "declined": "declined by the patient",
                },
            ),
            "last_given": date("Last given"),
            "next_due": date("Next due"),
            "unit": text("Unit", 80, TERM),
            "note": text("Note"),
        },
        ["product", "status"],
    ),
]

if __name__ == "__main__":
    with open(OUT, "w") as f:
        json.dump(TYPES, f, indent=2)
        f.write("\n")
    print(f"wrote {len(TYPES)} types to {os.path.normpath(OUT)}")
