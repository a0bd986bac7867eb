#!/usr/bin/env python3
"""Writes ../org_types.json: ten organisation-defined memory types in the catalogue format (blind7).

Theme: acute hospital, surgery, oncology, renal and dialysis, cardiology. None of them repeats the subject of an
organisation type of the first three sets (only the names of their types were read) or of a built-in type.
Helpers copied from memory/eval/blind3/build/org_types.py.
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


DAYS = {d: d.title() for d in ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")}
CARE = ["care_coordination"]

TYPES = [
    org_type(
        "dialysis_schedule",
        "account_fact",
        "Dialysis modality and sessions",
        ["care_coordination", "appointment_scheduling"],
        STAFF,
        [],
        "Dialysis: {modality}[ on {days}][, {session} session][ at {unit}][; {note}]",
        {
            "modality": enum(
                "Modality",
                {
                    "in_centre_hd": "haemodialysis in a hospital unit",
                    "satellite_hd": "haemodialysis in a satellite unit",
                    "home_hd": "home haemodialysis",
                    "capd": "continuous ambulatory peritoneal dialysis (CAPD)",
                    "apd": "automated overnight peritoneal dialysis (APD)",
                },
            ),
            "days": enum_list("Days", DAYS),
            "session": enum(
                "Session",
                {"morning": "morning", "afternoon": "afternoon", "twilight": "twilight", "overnight": "overnight"},
            ),
            "unit": text("Unit", 80, TERM),
            "note": text("Note"),
        },
        ["modality"],
    ),
    org_type(
        "venous_access_line",
        "care_context",
        "Central and long venous lines",
        CARE,
        STAFF,
        ["line"],
        "Venous line: {line}[ ({site})][; locked with {lock}][; flush every {flush_every_days} days][; {note}]",
        {
            "line": enum(
                "Line",
                {
                    "picc": "PICC line",
                    "hickman": "Hickman line",
                    "tunnelled_dialysis_catheter": "tunnelled dialysis catheter",
                    "midline": "midline",
                    "non_tunnelled_cvc": "non-tunnelled central line",
                },
            ),
            "site": enum(
                "Site",
                {
                    "left_arm": "left arm",
                    "right_arm": "right arm",
                    "left_chest": "left chest",
                    "right_chest": "right chest",
                    "left_neck": "left internal jugular",
                    "right_neck": "right internal jugular",
                    "femoral": "groin",
                },
            ),
            "lock": enum(
                "Lock solution",
                {
                    "heparin": "heparin lock",
                    "taurolidine": "taurolidine lock (TauroLock)",
                    "citrate": "citrate lock",
                    "saline_only": "saline flush only",
                },
            ),
            "flush_every_days": integer("Flush interval (days)", 1, 28),
            "note": text("Note"),
        },
        ["line"],
    ),
    org_type(
        "preop_medicine_plan",
        "care_context",
        "Medicine instructions before surgery",
        CARE,
        STAFF,
        ["medicine"],
        "Before surgery: {medicine}: {action}[ ({days_before} days before)][ for {procedure}][; {note}]",
        {
            "medicine": text("Medicine", 80, TERM),
            "action": enum(
                "Instruction",
                {
                    "stop_days_before": "stop beforehand",
                    "omit_on_day": "omit on the day of surgery",
                    "continue": "continue as normal, including the day of surgery",
                    "bridge_lmwh": "stop and cover with low molecular weight heparin",
                    "halve_dose": "halve the dose the evening before",
                    "variable_rate_insulin": "replace with a variable rate insulin infusion",
                },
            ),
            "days_before": integer("Days before", 1, 14),
            "procedure": text("Procedure", 80, TERM),
            "note": text("Note"),
        },
        ["medicine", "action"],
    ),
    org_type(
        "oncology_treatment",
        "care_context",
        "Current cancer treatment",
        CARE,
        STAFF,
        ["treatment"],
        "Cancer treatment: {treatment}[ ({regimen})][, {cycle_length_days}-day cycles][; alerts: {alerts}]"
        "[; acute oncology line {helpline}][; {note}]",
        {
            "treatment": enum(
                "Treatment",
                {
                    "chemotherapy": "chemotherapy",
                    "immunotherapy": "immunotherapy",
                    "targeted_therapy": "targeted therapy",
                    "radiotherapy": "radiotherapy",
                    "hormone_therapy": "hormone therapy",
                },
            ),
            "regimen": text("Regimen", 80, TERM),
            "cycle_length_days": integer("Cycle length (days)", 1, 42),
            "alerts": enum_list(
                "Alerts",
                {
                    "neutropenic_sepsis_risk": "risk of neutropenic sepsis: treat a fever within the hour",
                    "immune_related_toxicity": "immune-related side effects (colitis, pneumonitis, hormone problems)",
                    "cytotoxic_waste": "body fluids handled as cytotoxic for 7 days after treatment",
                    "carries_alert_card": "carries a treatment alert card",
                },
            ),
            "helpline": {"type": "string", "title": "Acute oncology helpline", "maxLength": 20,
                         "pattern": "^\\+?[0-9 ()-]{6,20}$"},
            "note": text("Note"),
        },
        ["treatment"],
    ),
    org_type(
        "fluid_restriction",
        "care_context",
        "Daily fluid limit",
        CARE,
        STAFF,
        [],
        "Fluid limit: {limit_ml} ml a day ({reason})[; weigh daily{daily_weights?}][; also limit {also_limit}][; {note}]",
        {
            "limit_ml": integer("Limit (ml a day)", 300, 3000),
            "reason": enum(
                "Reason",
                {
                    "dialysis": "on dialysis",
                    "heart_failure": "heart failure",
                    "hyponatraemia": "low sodium",
                    "ascites": "ascites",
                },
            ),
            "daily_weights": boolean("Weigh every day"),
            "also_limit": enum_list("Also limit", {"potassium": "potassium", "phosphate": "phosphate", "salt": "salt"}),
            "note": text("Note"),
        },
        ["limit_ml", "reason"],
    ),
    org_type(
        "anaesthetic_alert",
        "care_context",
        "Anaesthetic alerts",
        CARE,
        STAFF,
        ["alert"],
        "Anaesthetic alert: {alert}[ (known from {source})][; {note}]",
        {
            "alert": enum(
                "Alert",
                {
                    "difficult_intubation": "difficult intubation",
                    "difficult_mask_ventilation": "difficult mask ventilation",
                    "suxamethonium_apnoea": "suxamethonium apnoea (pseudocholinesterase deficiency)",
                    "malignant_hyperthermia": "malignant hyperthermia susceptibility",
                    "severe_ponv": "severe sickness after anaesthetics",
                    "sleep_apnoea_cpap": "obstructive sleep apnoea on CPAP",
                    "awareness": "awareness under a previous anaesthetic",
                },
            ),
            "source": enum(
                "Known from",
                {
                    "previous_anaesthetic": "a previous anaesthetic",
                    "family_history": "family history",
                    "genetic_test": "a genetic or blood test",
                    "pre_assessment": "pre-operative assessment",
                },
            ),
            "note": text("Note"),
        },
        ["alert"],
    ),
    org_type(
        "discharge_plan",
        "account_fact",
        "Discharge arrangements",
        ["care_coordination", "communication"],
        ["staff", "agent_proposal"],
        [],
        "Discharge: {destination}[; {care_calls_per_day} care calls a day][; collected by {collected_by}]"
        "[; before leaving: {before_leaving}][; {note}]",
        {
            "destination": enum(
                "Going to",
                {
                    "home_alone": "home, lives alone",
                    "home_with_family": "home with family",
                    "home_with_care_package": "home with a care package",
                    "reablement": "home with reablement",
                    "step_down_bed": "a step-down or intermediate care bed",
                    "care_home": "a care home",
                    "hospice": "a hospice",
                },
            ),
            "care_calls_per_day": integer("Care calls a day", 1, 4),
            "collected_by": text("Collected by", 80, NAME),
            "before_leaving": enum_list(
                "Needed before leaving",
                {
                    "restart_care_package": "restart the care package",
                    "district_nurse_referral": "district nurse referral",
                    "tell_dialysis_unit": "tell the dialysis unit",
                    "line_care_arranged": "line care arranged in the community",
                    "medicines_delivered": "discharge medicines delivered home",
                    "heating_and_food": "heating on and food in at home",
                },
            ),
            "note": text("Note"),
        },
        ["destination"],
    ),
    org_type(
        "pressure_area_care",
        "care_context",
        "Pressure ulcer risk and care",
        CARE,
        STAFF,
        [],
        "Pressure areas: {risk} risk[; {mattress}][; reposition every {reposition_hours} hours][; skin: {damage}]"
        "[ at {site}][; {note}]",
        {
            "risk": enum("Risk", {"low": "low", "medium": "medium", "high": "high", "very_high": "very high"}),
            "mattress": enum(
                "Mattress",
                {
                    "standard_foam": "standard foam mattress",
                    "hybrid": "hybrid mattress",
                    "alternating_air": "alternating air mattress",
                    "low_air_loss": "low air loss mattress",
                },
            ),
            "reposition_hours": integer("Reposition every (hours)", 1, 6),
            "damage": enum(
                "Existing damage",
                {
                    "none": "intact",
                    "category_1": "category 1 pressure ulcer",
                    "category_2": "category 2 pressure ulcer",
                    "category_3": "category 3 pressure ulcer",
                    "category_4": "category 4 pressure ulcer",
                    "deep_tissue_injury": "suspected deep tissue injury",
                },
            ),
            "site": text("Site", 80, TERM),
            "note": text("Note"),
        },
        ["risk"],
    ),
    org_type(
        "transplant_listing",
        "account_fact",
        "Transplant waiting list",
        ["care_coordination", "communication"],
        STAFF,
        ["organ"],
        "Transplant: {organ}: {status}[ at {centre}][; {note}]",
        {
            "organ": enum(
                "Organ",
                {"kidney": "kidney", "kidney_pancreas": "kidney and pancreas", "heart": "heart", "liver": "liver"},
            ),
            "status": enum(
                "Status",
                {
                    "active": "active on the list, may be called at any time",
                    "suspended": "suspended from the list",
                    "in_workup": "being assessed for listing",
                    "living_donor_planned": "living donor transplant planned",
                    "transplanted": "transplanted, graft working",
                },
            ),
            "centre": text("Transplant centre", 80, TERM),
            "note": text("Note"),
        },
        ["organ", "status"],
    ),
    org_type(
        "crossmatch_alert",
        "care_context",
        "Red cell antibodies and crossmatch",
        CARE,
        STAFF,
        [],
        "Crossmatch: red cell antibodies {antibodies}[; allow {lead_time_hours} hours for compatible blood]"
        "[; carries an antibody card{card_held?}][; {note}]",
        {
            "antibodies": enum_list(
                "Antibodies",
                {
                    "anti_k": "anti-K (Kell)",
                    "anti_e": "anti-E",
                    "anti_c": "anti-c",
                    "anti_d": "anti-D",
                    "anti_fya": "anti-Fy(a) (Duffy)",
                    "anti_jka": "anti-Jk(a) (Kidd)",
                    "warm_autoantibody": "warm autoantibody",
                },
            ),
            "lead_time_hours": integer("Time needed (hours)", 1, 96),
            "card_held": boolean("Carries an antibody card"),
            "note": text("Note"),
        },
        ["antibodies"],
    ),
]

if __name__ == "__main__":
    with open(OUT, "w") as f:
        json.dump(TYPES, f, indent=2)
        f.write("\n")
    print(f"wrote {len(TYPES)} organisation types to {os.path.normpath(OUT)}")
