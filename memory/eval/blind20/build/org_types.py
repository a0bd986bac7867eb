#!/usr/bin/env python3
"""Writes ../org_types.json: ten organisation-defined memory types in the catalogue format (kidney, transplant,
diabetes and endocrine care: away-from-base dialysis bookings, brand-locked medicines, drug-level targets,
prescribing kidney-function bands, renal dietitian potassium and phosphate advice, transplant grafts, glucose
data sharing, insulin bolus settings, medicine warning signs, specialist team contacts).

None of them repeats the subject of an organisation type of earlier sets (blind16's list, blind16 to blind19's own
types), of blind21/blind22 (written at the same time) or of a built-in type. Helpers copied from
memory/eval/blind16/build/org_types.py.
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


NUM = "^[0-9]+(\\.[0-9]+)?$"
PHONE = "^\\+?[0-9 ()-]{6,20}$"


def number(title, minimum, maximum, integer=False):
    return {"type": "integer" if integer else "number", "title": title, "minimum": minimum, "maximum": maximum}


TYPES = [
    org_type(
        "away_dialysis",
        "account_fact",
        "Haemodialysis away from the base unit (holiday or visiting)",
        ["appointment_scheduling", "care_coordination"],
        ["staff", "ehr_import", "agent_proposal"],
        ["host_unit"],
        "Away dialysis at {host_unit}: {status}[ from {from_date}][ to {to_date}][; access {access}][; {note}]",
        {
            "host_unit": text("Host unit", 80, TERM),
            "status": enum(
                "Status",
                {
                    "requested": "requested, awaiting the host unit",
                    "screening_needed": "host unit needs virology and MRSA screens first",
                    "confirmed": "confirmed",
                    "declined": "declined by the host unit",
                    "cancelled": "cancelled",
                    "completed": "completed",
                },
            ),
            "from_date": date("From"),
            "to_date": date("To"),
            "access": enum(
                "Access for the host unit",
                {
                    "left_avf": "left arm fistula",
                    "right_avf": "right arm fistula",
                    "left_avg": "left arm graft",
                    "right_avg": "right arm graft",
                    "tunnelled_line": "tunnelled neck line",
                },
            ),
            "note": text("Note"),
        },
        ["host_unit", "status"],
    ),
    org_type(
        "brand_lock",
        "care_context",
        "Medicine that must stay on one brand",
        ["care_coordination", "communication"],
        STAFF,
        ["medicine"],
        "Keep {medicine} on {brand}[ ({formulation})]: {switching}[; {note}]",
        {
            "medicine": text("Medicine", 80, TERM),
            "brand": text("Brand", 80, TERM),
            "formulation": enum(
                "Formulation",
                {
                    "twice_daily": "twice-daily capsules",
                    "once_daily_prolonged": "once-daily prolonged-release",
                    "once_daily_envarsus": "once-daily prolonged-release tablets",
                    "liquid": "liquid",
                    "tablet": "tablets",
                },
            ),
            "switching": enum(
                "Switching",
                {
                    "never": "never switch brand, not even for stock",
                    "team_only": "switch only on the specialist team's instruction with extra levels",
                    "same_family": "a generic of the same release type only with pharmacist sign-off",
                },
            ),
            "note": text("Note"),
        },
        ["medicine", "brand", "switching"],
    ),
    org_type(
        "drug_level_target",
        "care_context",
        "Target blood level for a monitored medicine",
        ["care_coordination"],
        STAFF,
        ["drug"],
        "{drug} target {low}-{high} {units}[; sample {timing}][; hold the morning dose until bled{hold_dose?}][; {note}]",
        {
            "drug": text("Drug", 80, TERM),
            "low": number("Lowest", 0, 1000),
            "high": number("Highest", 0, 1000),
            "units": enum(
                "Units", {"ug_per_l": "micrograms/L", "ng_per_ml": "ng/mL", "mg_per_l": "mg/L", "mmol_per_l": "mmol/L"}
            ),
            "timing": enum(
                "Sample timing",
                {
                    "trough_12h": "12 hours after the evening dose (trough)",
                    "trough_24h": "24 hours after the once-daily dose (trough)",
                    "pre_dialysis": "before dialysis",
                    "post_dose_2h": "2 hours after the dose",
                },
            ),
            "hold_dose": boolean("Hold the morning dose until the blood is taken"),
            "note": text("Note"),
        },
        ["drug", "low", "high", "units"],
    ),
    org_type(
        "renal_dose_band",
        "care_context",
        "Kidney-function band for prescribing",
        ["care_coordination", "communication"],
        STAFF,
        [],
        "Prescribe for {band}[; weight for dosing {weight_kg} kg][; avoid {avoid}][; {note}]",
        {
            "band": enum(
                "Band",
                {
                    "crcl_30_50": "creatinine clearance 30-50 mL/min",
                    "crcl_15_30": "creatinine clearance 15-30 mL/min",
                    "crcl_under_15": "creatinine clearance under 15 mL/min, not on dialysis",
                    "haemodialysis": "haemodialysis (dose as for dialysis, give after the session)",
                    "peritoneal_dialysis": "peritoneal dialysis",
                    "transplant_stable": "a functioning transplant, creatinine clearance 30-60 mL/min",
                },
            ),
            "weight_kg": number("Weight used for dosing (kg)", 20, 250),
            "avoid": text("Avoid", 160),
            "note": text("Note"),
        },
        ["band"],
    ),
    org_type(
        "renal_diet",
        "care_context",
        "Renal dietitian advice on potassium, phosphate and binders",
        ["care_coordination", "communication"],
        STAFF,
        [],
        "Renal diet: potassium {potassium}, phosphate {phosphate}[; binder {binder} {binder_timing}][; dietitian {dietitian}][; {note}]",
        {
            "potassium": enum(
                "Potassium",
                {
                    "none": "no restriction",
                    "moderate": "moderate restriction",
                    "strict": "strict restriction (high potassium)",
                    "increase": "eat more potassium (low levels)",
                },
            ),
            "phosphate": enum(
                "Phosphate",
                {"none": "no restriction", "moderate": "moderate restriction", "strict": "strict restriction"},
            ),
            "binder": text("Phosphate binder", 80, TERM),
            "binder_timing": enum(
                "Binder timing",
                {
                    "with_meals": "with meals",
                    "with_meals_and_snacks": "with meals and snacks",
                    "not_with_iron": "with meals, apart from iron",
                },
            ),
            "dietitian": text("Renal dietitian", 80, NAME),
            "note": text("Note"),
        },
        ["potassium", "phosphate"],
    ),
    org_type(
        "transplant_graft",
        "care_context",
        "Transplanted organ and the centre that follows it",
        ["care_coordination", "communication"],
        STAFF,
        ["organ"],
        "Transplant: {organ} from a {donor} donor[ on {date}] at {centre}[; co-ordinator line {coordinator_phone}][; {note}]",
        {
            "organ": enum(
                "Organ",
                {
                    "kidney": "kidney",
                    "pancreas": "pancreas",
                    "kidney_pancreas": "simultaneous kidney and pancreas",
                    "islets": "islet cells",
                    "failed_kidney": "kidney (graft failed, back on dialysis)",
                },
            ),
            "donor": enum(
                "Donor",
                {"living": "living", "dbd": "deceased (brain-stem death)", "dcd": "deceased (circulatory death)"},
            ),
            "date": date("Date"),
            "centre": text("Transplant centre", 80, TERM),
            "coordinator_phone": text("Co-ordinator line", 20, PHONE),
            "note": text("Note"),
        },
        ["organ", "donor", "centre"],
    ),
    org_type(
        "glucose_data_sharing",
        "preference",
        "Sharing glucose and pump data with the clinic",
        ["care_coordination", "communication", "appointment_scheduling"],
        ANYONE,
        ["platform"],
        "Glucose data on {platform}: {status}[; also shared with {also}][; {note}]",
        {
            "platform": enum(
                "Platform",
                {
                    "libreview": "LibreView",
                    "dexcom_clarity": "Dexcom Clarity",
                    "glooko": "Glooko",
                    "carelink": "CareLink",
                    "tidepool": "Tidepool",
                    "camaps_cloud": "CamAPS / Glooko cloud",
                },
            ),
            "status": enum(
                "Status",
                {
                    "linked": "linked to the clinic",
                    "invite_sent": "clinic invite sent, not yet accepted",
                    "declined": "declines to share; bring readings to clinic",
                    "unlinked": "unlinked by the patient",
                },
            ),
            "also": enum_list(
                "Also shared with",
                {"partner": "a partner", "parent": "a parent", "school": "the school", "carer": "a carer"},
            ),
            "note": text("Note"),
        },
        ["platform", "status"],
    ),
    org_type(
        "bolus_settings",
        "care_context",
        "Insulin-to-carbohydrate ratios and correction settings",
        ["care_coordination"],
        STAFF,
        [],
        "Bolus: {ratio_breakfast} g/unit breakfast, {ratio_lunch} lunch, {ratio_evening} evening; 1 unit lowers {correction} mmol/L; target {target} mmol/L[; insulin active {active_hours} h][; {note}]",
        {
            "ratio_breakfast": number("Grams of carbohydrate per unit at breakfast", 1, 50),
            "ratio_lunch": number("At lunch", 1, 50),
            "ratio_evening": number("In the evening", 1, 50),
            "correction": number("mmol/L lowered by one unit", 0.5, 10),
            "target": number("Target glucose (mmol/L)", 4, 10),
            "active_hours": number("Active insulin time (hours)", 2, 8),
            "note": text("Note"),
        },
        ["ratio_breakfast", "ratio_lunch", "ratio_evening", "correction", "target"],
    ),
    org_type(
        "warning_signs",
        "care_context",
        "Warning signs a medicine gives and what to do",
        ["care_coordination", "communication"],
        STAFF,
        ["medicine"],
        "On {medicine}: if {sign}, {action}[; {note}]",
        {
            "medicine": text("Medicine", 80, TERM),
            "sign": text("Warning sign", 160),
            "action": enum(
                "Action",
                {
                    "urgent_fbc": "stop it and get a same-day full blood count",
                    "check_ketones": "check blood ketones even if glucose is normal and seek urgent help",
                    "same_day_review": "same-day review by the team",
                    "ae_now": "go to A&E now",
                    "call_team": "ring the specialist team before the next dose",
                },
            ),
            "note": text("Note"),
        },
        ["medicine", "sign", "action"],
    ),
    org_type(
        "specialist_contact",
        "account_fact",
        "Which specialist team to call",
        ["care_coordination", "communication", "appointment_scheduling"],
        ["staff", "ehr_import", "agent_proposal"],
        ["team"],
        "{team}: {name}[, {phone}][ ({hours})][; {note}]",
        {
            "team": enum(
                "Team",
                {
                    "haemodialysis_unit": "haemodialysis unit",
                    "home_therapies": "home and peritoneal dialysis nurses",
                    "transplant_coordinators": "transplant co-ordinators",
                    "diabetes_nurses": "diabetes specialist nurses",
                    "endocrine_nurses": "endocrine specialist nurses",
                    "renal_pharmacist": "renal pharmacist",
                    "low_clearance": "low-clearance (pre-dialysis) clinic",
                },
            ),
            "name": text("Named contact or unit", 80, TERM),
            "phone": text("Phone", 20, PHONE),
            "hours": text("Hours", 60),
            "note": text("Note"),
        },
        ["team", "name"],
    ),
]

if __name__ == "__main__":
    with open(OUT, "w") as f:
        json.dump(TYPES, f, indent=2)
        f.write("\n")
    print(f"wrote {len(TYPES)} types to {os.path.normpath(OUT)}")
