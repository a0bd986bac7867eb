#!/usr/bin/env python3
"""Writes ../org_types.json: ten organisation-defined memory types in the catalogue format (blind4: primary and
community care).

None of them repeats the subject of a type of the first, second or third set (only the names of their organisation
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




def integer(title, minimum, maximum):
    return {"type": "integer", "title": title, "minimum": minimum, "maximum": maximum}


TYPES = [
    org_type(
        "compliance_aid",
        "account_fact",
        "Medicine packaging (blister, dosette)",
        ["care_coordination"],
        STAFF,
        [],
        "Medicines packed in {aid}[, filled by {filled_by}][, {cycle} supply][; {note}]",
        {
            "aid": enum(
                "Packaging",
                {
                    "pharmacy_blister_pack": "a pharmacy-filled blister pack (MDS)",
                    "dosette_box": "a dosette box",
                    "original_packs": "original packs only",
                    "original_packs_with_mar": "original packs with a MAR chart",
                    "pouch_system": "sachet pouches on a roll",
                },
            ),
            "filled_by": enum(
                "Filled by",
                {
                    "pharmacy": "the pharmacy",
                    "family": "family",
                    "carer_agency": "the care agency",
                    "patient": "the patient",
                },
            ),
            "cycle": enum("Supply", {"weekly": "weekly", "fortnightly": "fortnightly", "monthly": "28-day"}),
            "note": text("Note"),
        },
        ["aid"],
    ),
    org_type(
        "repeat_ordering",
        "account_fact",
        "Repeat prescription ordering",
        ["care_coordination", "communication"],
        ANYONE,
        [],
        "Repeats ordered by {ordered_by}[ every {interval_days} days][; medication review due {review_due}][; {note}]",
        {
            "ordered_by": enum(
                "Ordered by",
                {
                    "patient_online": "the patient online (NHS App)",
                    "patient_paper_slip": "the patient with the paper slip",
                    "pharmacy_managed": "the pharmacy (managed repeats)",
                    "care_home": "the care home",
                    "family_member": "a family member",
                    "electronic_repeat_dispensing": "electronic repeat dispensing (batch)",
                },
            ),
            "interval_days": integer("Every (days)", 7, 84),
            "review_due": text("Medication review due", 20, "^[A-Za-z0-9 -]{1,20}$"),
            "note": text("Note"),
        },
        ["ordered_by"],
    ),
    org_type(
        "medicines_support",
        "care_context",
        "Help needed to take medicines",
        ["care_coordination"],
        STAFF,
        [],
        "Medicines: {level}[ by {given_by}][; {note}]",
        {
            "level": enum(
                "Help needed",
                {
                    "self_managed": "manages own medicines",
                    "prompt_only": "a prompt or reminder only",
                    "assist": "help to open packs and take them",
                    "administer": "given by a carer or nurse",
                    "covert_agreed": "given covertly (best-interests decision recorded)",
                },
            ),
            "given_by": enum(
                "Given by",
                {
                    "home_care_agency": "the home-care agency",
                    "family": "family",
                    "care_home_staff": "care-home staff",
                    "district_nurse": "the district nurses",
                },
            ),
            "note": text("Note"),
        },
        ["level"],
    ),
    org_type(
        "homecare_package",
        "account_fact",
        "Home-care calls",
        ["care_coordination", "appointment_scheduling"],
        STAFF,
        [],
        "Home care: {calls_per_day} call(s) a day ({slots})[ from {provider}][, funded by {funding}][; {note}]",
        {
            "calls_per_day": integer("Calls a day", 1, 4),
            "slots": enum_list(
                "Call times",
                {"morning": "morning", "lunch": "lunchtime", "tea": "teatime", "bed": "bedtime"},
            ),
            "provider": text("Provider", 80, TERM),
            "funding": enum(
                "Funded by",
                {
                    "self_funded": "the patient (self-funded)",
                    "local_authority": "the council",
                    "direct_payment": "a direct payment",
                    "nhs_chc": "NHS Continuing Healthcare",
                },
            ),
            "note": text("Note"),
        },
        ["calls_per_day", "slots"],
    ),
    org_type(
        "district_nursing",
        "care_context",
        "District nursing visits",
        ["care_coordination", "appointment_scheduling"],
        STAFF,
        ["task"],
        "District nurses: {task}, {frequency}[; {note}]",
        {
            "task": enum(
                "Task",
                {
                    "insulin_administration": "insulin injections",
                    "leg_ulcer_dressing": "leg ulcer dressings",
                    "compression_bandaging": "compression bandaging",
                    "pressure_ulcer_dressing": "pressure ulcer dressings",
                    "catheter_care": "catheter changes and care",
                    "b12_injection": "vitamin B12 injections",
                    "home_bloods": "blood tests at home",
                    "eye_drops": "eye drops",
                    "anticoagulant_injection": "anticoagulant injections",
                },
            ),
            "frequency": enum(
                "How often",
                {
                    "twice_daily": "twice a day",
                    "daily": "daily",
                    "three_times_weekly": "three times a week",
                    "twice_weekly": "twice a week",
                    "weekly": "weekly",
                    "monthly": "monthly",
                    "three_monthly": "every three months",
                },
            ),
            "note": text("Note"),
        },
        ["task", "frequency"],
    ),
    org_type(
        "pressure_area_care",
        "care_context",
        "Pressure area care",
        ["care_coordination"],
        STAFF,
        [],
        "Pressure areas: {risk} risk[; mattress {mattress}][; cushion {cushion}][; reposition every {turn_hours} h]"
        "[; current damage: {current_damage}][; {note}]",
        {
            "risk": enum("Risk", {"low": "low", "at_risk": "at risk", "high": "high", "very_high": "very high"}),
            "mattress": enum(
                "Mattress",
                {
                    "standard": "standard",
                    "high_spec_foam": "high-specification foam",
                    "hybrid": "hybrid",
                    "alternating_air": "alternating air",
                },
            ),
            "cushion": boolean("Pressure-relieving cushion"),
            "turn_hours": integer("Reposition every (hours)", 1, 8),
            "current_damage": text("Current damage", 80, TERM),
            "note": text("Note"),
        },
        ["risk"],
    ),
    org_type(
        "frailty_score",
        "care_context",
        "Frailty score",
        ["care_coordination"],
        STAFF,
        [],
        "Clinical Frailty Scale {cfs}[ ({category})][; {note}]",
        {
            "cfs": integer("Clinical Frailty Scale", 1, 9),
            "category": enum(
                "Category",
                {"fit": "fit", "mild": "mild frailty", "moderate": "moderate frailty", "severe": "severe frailty",
                 "terminally_ill": "terminally ill"},
            ),
            "note": text("Note"),
        },
        ["cfs"],
    ),
    org_type(
        "cognitive_impairment",
        "care_context",
        "Dementia or memory problems",
        ["care_coordination", "communication"],
        STAFF,
        [],
        "Memory: {condition}[, {stage}][; aids: {aids}][; {note}]",
        {
            "condition": enum(
                "Condition",
                {
                    "alzheimers": "Alzheimer's disease",
                    "vascular_dementia": "vascular dementia",
                    "mixed_dementia": "mixed dementia",
                    "lewy_body_dementia": "dementia with Lewy bodies",
                    "frontotemporal_dementia": "frontotemporal dementia",
                    "parkinsons_dementia": "Parkinson's disease dementia",
                    "mild_cognitive_impairment": "mild cognitive impairment",
                    "under_assessment": "memory problems under assessment",
                },
            ),
            "stage": enum("Stage", {"mild": "mild", "moderate": "moderate", "severe": "severe"}),
            "aids": enum_list(
                "Memory aids",
                {
                    "day_clock": "a day-and-date clock",
                    "whiteboard": "a whiteboard or calendar",
                    "pill_alarm": "an automatic pill dispenser or alarm",
                    "phone_reminders": "phone reminders",
                    "photo_labels": "photo labels on cupboards and doors",
                },
            ),
            "note": text("Note"),
        },
        ["condition"],
    ),
    org_type(
        "telecare",
        "account_fact",
        "Telecare and alarms",
        ["care_coordination", "communication"],
        ANYONE,
        ["device"],
        "Telecare: {device}[; responder {responder}][; {note}]",
        {
            "device": enum(
                "Device",
                {
                    "pendant_alarm": "a pendant alarm",
                    "falls_detector": "an automatic falls detector",
                    "bed_sensor": "a bed-occupancy sensor",
                    "door_exit_sensor": "a door-exit sensor",
                    "smart_watch_gps": "a GPS watch",
                    "smoke_linked": "linked smoke alarms",
                },
            ),
            "responder": enum(
                "Who responds",
                {
                    "family": "family",
                    "neighbour": "a neighbour",
                    "warden": "the warden",
                    "mobile_response_team": "the council's mobile response team",
                    "ambulance_only": "nobody local; monitoring centre calls 999",
                },
            ),
            "note": text("Note"),
        },
        ["device"],
    ),
    org_type(
        "nutrition_support",
        "care_context",
        "Nutrition screening and supplements",
        ["care_coordination"],
        STAFF,
        [],
        "Nutrition: MUST {must_score}[; supplement {supplement}][ {per_day} a day][; weigh {weigh}][; {note}]",
        {
            "must_score": integer("MUST score", 0, 6),
            "supplement": text("Supplement", 80, TERM),
            "per_day": integer("Supplements a day", 1, 4),
            "weigh": enum("Weigh", {"weekly": "weekly", "monthly": "monthly", "not_weighable": "not possible"}),
            "note": text("Note"),
        },
        ["must_score"],
    ),
]

if __name__ == "__main__":
    with open(OUT, "w") as f:
        json.dump(TYPES, f, indent=2)
        f.write("\n")
    print(f"wrote {len(TYPES)} organisation types to {os.path.normpath(OUT)}")
