#!/usr/bin/env python3
"""Writes ../org_types.json: ten organisation-defined memory types in the catalogue format (general outpatient
care: diabetes and endocrine, kidney, skin, eye and ear-nose-throat clinics; prior authorisation of treatments,
hypoglycaemia plans, sick-day medicine rules, diabetic foot protection, diabetic eye screening, eye injection
courses, phototherapy courses, skin-cancer surveillance, ear wax care, preparation for outpatient tests).

None of them repeats the subject of an organisation type of earlier sets (as listed by subject in
memory/eval/blind15/README.md, plus blind15's own ten) or of a built-in type. Helpers copied from
memory/eval/blind15/build/org_types.py.
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


TYPES = [
    org_type(
        "prior_authorisation",
        "account_fact",
        "Funding approval for a treatment",
        ["care_coordination", "appointment_scheduling"],
        ["staff", "ehr_import", "agent_proposal"],
        ["treatment"],
        "Funding for {treatment}: {status}[ by {route}][ until {valid_until}][; ref {reference}][; {note}]",
        {
            "treatment": text("Treatment", 80, TERM),
            "status": enum(
                "Status",
                {
                    "not_needed": "no approval needed",
                    "submitted": "request submitted, awaiting decision",
                    "approved": "approved",
                    "declined": "declined",
                    "appeal": "declined, appeal under way",
                },
            ),
            "route": enum(
                "Route",
                {
                    "blueteq": "a Blueteq form",
                    "ifr": "an individual funding request",
                    "insurer": "the private insurer",
                    "trust_panel": "the trust's drugs panel",
                },
            ),
            "valid_until": date("Valid until"),
            "reference": text("Reference", 30, "^[A-Za-z0-9/-]{1,30}$"),
            "note": text("Note"),
        },
        ["treatment", "status"],
    ),
    org_type(
        "hypo_plan",
        "care_context",
        "Low blood sugar (hypo) plan",
        ["care_coordination", "communication"],
        STAFF,
        [],
        "Hypos: awareness {awareness}[; treats with {treatment}][; glucagon at home {glucagon?}][; carries {carries}][; {note}]",
        {
            "awareness": enum(
                "Awareness",
                {"normal": "normal", "reduced": "reduced", "absent": "none (no warning signs)"},
            ),
            "treatment": text("First treatment", 80, TERM),
            "glucagon": boolean("Glucagon kit at home"),
            "carries": text("Carries", 80, TERM),
            "note": text("Note"),
        },
        ["awareness"],
    ),
    org_type(
        "sick_day_rules",
        "care_context",
        "Sick-day rules for medicines",
        ["care_coordination", "communication"],
        STAFF,
        [],
        "When unwell (vomiting, diarrhoea, fever): pause {pause}[; check {check}][; restart after {restart_hours} hours eating and drinking][; {note}]",
        {
            "pause": text("Medicines to pause", 160),
            "check": enum_list(
                "Checks",
                {
                    "ketones": "blood ketones",
                    "glucose": "blood glucose more often",
                    "weight": "weight",
                    "blood_pressure": "blood pressure",
                },
            ),
            "restart_hours": {"type": "integer", "title": "Restart after (hours)", "minimum": 12, "maximum": 72},
            "note": text("Note"),
        },
        ["pause"],
    ),
    org_type(
        "foot_protection",
        "care_context",
        "Diabetic foot risk and podiatry",
        ["care_coordination", "appointment_scheduling"],
        STAFF,
        [],
        "Foot risk {risk}[; podiatry {podiatry}][ every {review_weeks} weeks][; {footwear}][; {note}]",
        {
            "risk": enum(
                "Risk",
                {
                    "low": "low",
                    "moderate": "moderate",
                    "high": "high",
                    "active": "active ulcer or Charcot foot",
                },
            ),
            "podiatry": text("Podiatry service", 80, TERM),
            "review_weeks": {"type": "integer", "title": "Review every (weeks)", "minimum": 1, "maximum": 104},
            "footwear": enum(
                "Footwear",
                {
                    "own_shoes": "own well-fitting shoes",
                    "insoles": "prescribed insoles",
                    "bespoke_shoes": "bespoke surgical shoes",
                    "offloading_boot": "an offloading boot or cast",
                },
            ),
            "note": text("Note"),
        },
        ["risk"],
    ),
    org_type(
        "eye_screening",
        "account_fact",
        "Diabetic eye screening",
        ["appointment_scheduling", "care_coordination"],
        ["staff", "ehr_import"],
        [],
        "Diabetic eye screening: {pathway}[ every {interval_months} months][; dilating drops {dilation}][; {note}]",
        {
            "pathway": enum(
                "Pathway",
                {
                    "routine": "routine screening",
                    "surveillance": "digital surveillance clinic",
                    "referred": "referred to the eye clinic (hospital eye service)",
                    "opted_out": "opted out",
                    "suspended": "suspended while under the eye clinic",
                },
            ),
            "interval_months": {"type": "integer", "title": "Every (months)", "minimum": 3, "maximum": 24},
            "dilation": enum(
                "Dilating drops",
                {
                    "standard": "standard",
                    "no_phenylephrine": "tropicamide only, no phenylephrine",
                    "not_needed": "not needed",
                },
            ),
            "note": text("Note"),
        },
        ["pathway"],
    ),
    org_type(
        "eye_injections",
        "care_context",
        "Eye injection course",
        ["care_coordination", "appointment_scheduling"],
        STAFF,
        ["eye"],
        "Eye injections, {eye} eye: {drug} for {condition}[, every {interval_weeks} weeks][; {note}]",
        {
            "eye": enum("Eye", {"left": "left", "right": "right", "both": "both"}),
            "drug": text("Drug", 80, TERM),
            "condition": enum(
                "Condition",
                {
                    "wet_amd": "wet macular degeneration",
                    "diabetic_macular_oedema": "diabetic macular oedema",
                    "vein_occlusion": "retinal vein occlusion",
                },
            ),
            "interval_weeks": {"type": "integer", "title": "Every (weeks)", "minimum": 4, "maximum": 20},
            "note": text("Note"),
        },
        ["eye", "drug", "condition"],
    ),
    org_type(
        "phototherapy_course",
        "account_fact",
        "Phototherapy (light treatment) course",
        ["appointment_scheduling", "care_coordination"],
        ["staff", "ehr_import"],
        ["therapy"],
        "Phototherapy: {therapy} ({status})[, {sessions_per_week} times a week][; {sessions_done} sessions so far][; {note}]",
        {
            "therapy": enum(
                "Therapy",
                {
                    "nbuvb": "narrowband UVB",
                    "puva": "PUVA (psoralen with UVA)",
                    "hand_foot_puva": "hand and foot PUVA",
                    "pdt": "photodynamic therapy",
                },
            ),
            "status": enum(
                "Status",
                {
                    "planned": "planned",
                    "in_course": "in a course",
                    "paused": "paused",
                    "completed": "completed",
                },
            ),
            "sessions_per_week": {"type": "integer", "title": "Sessions a week", "minimum": 1, "maximum": 5},
            "sessions_done": {"type": "integer", "title": "Sessions so far", "minimum": 0, "maximum": 400},
            "note": text("Note"),
        },
        ["therapy", "status"],
    ),
    org_type(
        "skin_surveillance",
        "account_fact",
        "Skin cancer surveillance",
        ["appointment_scheduling", "care_coordination"],
        ["staff", "ehr_import"],
        [],
        "Skin checks because of {reason}: every {interval_months} months[; photos {photography}][; {note}]",
        {
            "reason": enum(
                "Reason",
                {
                    "transplant": "an organ transplant (immunosuppressed)",
                    "past_melanoma": "a previous melanoma",
                    "many_moles": "many or unusual moles",
                    "past_scc_bcc": "previous squamous or basal cell skin cancers",
                    "genetic": "an inherited skin cancer syndrome",
                },
            ),
            "interval_months": {"type": "integer", "title": "Every (months)", "minimum": 1, "maximum": 24},
            "photography": enum(
                "Photographs",
                {
                    "total_body": "total body photography",
                    "dermoscopy": "dermoscopy images of marked moles",
                    "none": "none",
                },
            ),
            "note": text("Note"),
        },
        ["reason", "interval_months"],
    ),
    org_type(
        "ear_care",
        "care_context",
        "Ear wax removal and water precautions",
        ["care_coordination", "appointment_scheduling"],
        STAFF,
        [],
        "Ears: wax removal by {method}[; {side} ear][; soften with {softening} beforehand][; keep dry {keep_dry?}][; {note}]",
        {
            "method": enum(
                "Method",
                {
                    "microsuction": "microsuction only",
                    "irrigation": "irrigation (syringing) is fine",
                    "instruments": "instruments under the microscope",
                    "ent_only": "ENT clinic only",
                },
            ),
            "side": enum("Side", {"left": "left", "right": "right", "both": "both"}),
            "softening": text("Softening drops", 80, TERM),
            "keep_dry": boolean("Keep the ear dry"),
            "note": text("Note"),
        },
        ["method"],
    ),
    org_type(
        "test_preparation",
        "account_fact",
        "Preparation needed for an outpatient test",
        ["appointment_scheduling", "communication", "care_coordination"],
        ["staff", "ehr_import", "agent_proposal"],
        ["test"],
        "Before {test}: {instruction}[; hold {hold}][; book {slot} slot][; {note}]",
        {
            "test": enum(
                "Test",
                {
                    "fasting_bloods": "fasting blood tests",
                    "glucose_tolerance": "a glucose tolerance test",
                    "synacthen": "a short Synacthen test",
                    "urine_24h": "a 24-hour urine collection",
                    "skin_prick": "allergy skin prick testing",
                    "patch_test": "patch testing",
                    "hearing_test": "a hearing test",
                },
            ),
            "instruction": text("Instruction", 200),
            "hold": text("Medicines to hold", 160),
            "slot": enum("Slot", {"early_morning": "an early-morning", "morning": "a morning", "any": "any"}),
            "note": text("Note"),
        },
        ["test", "instruction"],
    ),
]

if __name__ == "__main__":
    with open(OUT, "w") as f:
        json.dump(TYPES, f, indent=2)
        f.write("\n")
    print(f"wrote {len(TYPES)} types to {os.path.normpath(OUT)}")
