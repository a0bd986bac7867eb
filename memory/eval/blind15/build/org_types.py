#!/usr/bin/env python3
"""Writes ../org_types.json: ten organisation-defined memory types in the catalogue format (heart and lung
services: home oxygen, CPAP and home ventilation, anticoagulation clinics, stop-smoking support, heart-failure
nursing, COPD rescue packs, inhalers, cardiac and pulmonary rehabilitation, breathlessness, fitness to drive).

None of them repeats the subject of an organisation type of earlier sets (as listed by name in
memory/eval/blind11/README.md, plus blind11's own ten) or of a built-in type. Helpers copied from
memory/eval/blind11/build/org_types.py.
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
        "home_oxygen",
        "care_context",
        "Home oxygen prescription",
        ["care_coordination", "appointment_scheduling"],
        STAFF,
        ["use"],
        "Home oxygen ({use}): {flow_lpm} L/min[ for {hours_per_day} hours a day][ via {interface}][ from {equipment}][; supplier {supplier}][; {note}]",
        {
            "use": enum(
                "Use",
                {
                    "long_term": "long-term oxygen therapy",
                    "ambulatory": "ambulatory oxygen when out and about",
                    "nocturnal": "overnight oxygen",
                    "short_burst": "short-burst oxygen",
                    "palliative": "palliative oxygen for comfort",
                },
            ),
            "flow_lpm": {"type": "number", "title": "Flow (litres a minute)", "minimum": 0.5, "maximum": 15},
            "hours_per_day": {"type": "integer", "title": "Hours a day", "minimum": 1, "maximum": 24},
            "interface": enum(
                "Interface",
                {"nasal_cannula": "nasal cannula", "venturi_mask": "Venturi mask", "simple_mask": "simple face mask"},
            ),
            "equipment": enum(
                "Equipment",
                {
                    "concentrator": "a static concentrator",
                    "static_cylinders": "static cylinders",
                    "portable_cylinders": "portable cylinders",
                    "portable_concentrator": "a portable concentrator",
                    "liquid_oxygen": "liquid oxygen",
                },
            ),
            "supplier": text("Supplier", 80, TERM),
            "note": text("Note"),
        },
        ["use", "flow_lpm"],
    ),
    org_type(
        "home_ventilation",
        "care_context",
        "CPAP or home ventilation",
        ["care_coordination", "appointment_scheduling"],
        STAFF,
        [],
        "Breathing machine: {device}[, {mask} mask][, {settings}][; humidifier {humidifier?}][; used {used}][; bring it into hospital {bring_in?}][; {note}]",
        {
            "device": enum(
                "Machine",
                {
                    "cpap": "fixed-pressure CPAP",
                    "apap": "auto-adjusting CPAP",
                    "bilevel_niv": "bilevel non-invasive ventilation",
                    "high_flow": "home high-flow humidified air",
                    "tracheostomy_ventilator": "ventilator via tracheostomy",
                },
            ),
            "mask": enum(
                "Mask",
                {
                    "nasal_pillows": "nasal pillows",
                    "nasal": "nasal",
                    "full_face": "full-face",
                    "total_face": "total-face",
                    "none": "no",
                },
            ),
            "settings": text("Settings", 80, TERM),
            "humidifier": boolean("Uses a heated humidifier"),
            "used": enum(
                "When used",
                {
                    "overnight": "overnight",
                    "overnight_and_naps": "overnight and for naps",
                    "night_and_day": "overnight and for hours in the day",
                    "continuous": "nearly all the time",
                },
            ),
            "bring_in": boolean("Brings the machine when admitted"),
            "note": text("Note"),
        },
        ["device"],
    ),
    org_type(
        "anticoagulation_clinic",
        "account_fact",
        "Anticoagulation clinic monitoring",
        ["care_coordination", "appointment_scheduling"],
        ["staff", "ehr_import"],
        [],
        "Anticoagulation clinic: {testing}[; INR target {target_range}][; dosing by {dosing}][ at {clinic}][; {note}]",
        {
            "testing": enum(
                "How it is checked",
                {
                    "clinic_venous": "venous blood test at the clinic",
                    "clinic_fingerprick": "fingerprick INR at the clinic",
                    "home_fingerprick": "fingerprick INR at home by a nurse",
                    "self_testing": "self-testing with a home meter",
                    "doac_review": "yearly DOAC review with kidney function, no INR",
                },
            ),
            "target_range": text("INR target range", 20, "^[0-9](\\.[0-9])? ?- ?[0-9](\\.[0-9])?$"),
            "dosing": enum(
                "Dosing record",
                {
                    "yellow_book": "the yellow book",
                    "dosing_app": "a dosing app",
                    "letter": "a dosing letter",
                    "phone": "a phone call",
                },
            ),
            "clinic": text("Clinic", 80, TERM),
            "note": text("Note"),
        },
        ["testing"],
    ),
    org_type(
        "stop_smoking",
        "account_fact",
        "Tobacco and stop-smoking support",
        ["care_coordination", "communication"],
        ["patient", "staff", "ehr_import"],
        [],
        "Smoking: {status}[; using {aids}][; quit date {quit_date}][; supported by {service}][; {note}]",
        {
            "status": enum(
                "Status",
                {
                    "smokes": "smokes",
                    "quit_attempt": "trying to stop",
                    "stopped": "has stopped",
                    "vapes_only": "vapes, no longer smokes tobacco",
                    "declined_support": "smokes, declined support",
                },
            ),
            "aids": enum_list(
                "Aids",
                {
                    "nicotine_patch": "nicotine patches",
                    "nicotine_gum": "nicotine gum",
                    "nicotine_lozenge": "nicotine lozenges",
                    "nicotine_inhalator": "a nicotine inhalator",
                    "mouth_spray": "nicotine mouth spray",
                    "varenicline": "varenicline",
                    "cytisine": "cytisine",
                    "bupropion": "bupropion",
                    "e_cigarette": "an e-cigarette",
                },
            ),
            "quit_date": date("Quit date"),
            "service": text("Service", 80, TERM),
            "note": text("Note"),
        },
        ["status"],
    ),
    org_type(
        "heart_failure_weights",
        "care_context",
        "Heart failure daily weights and action plan",
        ["care_coordination", "communication"],
        STAFF,
        [],
        "Daily weights: target {target_kg} kg; act if up {gain_kg} kg in {days} days: {action}[; {note}]",
        {
            "target_kg": {"type": "number", "title": "Target (dry) weight, kg", "minimum": 30, "maximum": 250},
            "gain_kg": {"type": "number", "title": "Gain that needs action, kg", "minimum": 0.5, "maximum": 5},
            "days": {"type": "integer", "title": "Over how many days", "minimum": 1, "maximum": 7},
            "action": enum(
                "Action",
                {
                    "call_hf_nurse": "ring the heart failure nurse",
                    "extra_diuretic": "take the extra water tablet dose agreed, then ring the nurse",
                    "call_gp": "ring the GP surgery",
                    "telemonitoring": "readings go to the telemonitoring team, who ring back",
                },
            ),
            "note": text("Note"),
        },
        ["target_kg", "gain_kg", "days", "action"],
    ),
    org_type(
        "copd_rescue_pack",
        "care_context",
        "COPD rescue pack kept at home",
        ["care_coordination", "communication"],
        STAFF,
        [],
        "Rescue pack at home: {antibiotic}[ and {steroid}]; start when {start_when}[; tell {tell}][; {note}]",
        {
            "antibiotic": text("Antibiotic", 80, TERM),
            "steroid": text("Steroid", 80, TERM),
            "start_when": text("When to start", 120, TERM),
            "tell": enum(
                "Who to tell",
                {"copd_nurse": "the COPD nurse", "gp": "the GP", "respiratory_team": "the respiratory team"},
            ),
            "note": text("Note"),
        },
        ["antibiotic", "start_when"],
    ),
    org_type(
        "inhaler_device",
        "account_fact",
        "Inhaler devices and technique",
        ["care_coordination", "communication"],
        ["staff", "ehr_import", "agent_proposal"],
        ["role"],
        "Inhaler ({role}): {device}[; technique {technique}][; {note}]",
        {
            "role": enum(
                "Role",
                {
                    "reliever": "reliever",
                    "preventer": "preventer",
                    "maintenance": "maintenance",
                    "nebulised": "nebulised",
                },
            ),
            "device": enum(
                "Device",
                {
                    "pmdi": "a pressurised metered-dose inhaler",
                    "pmdi_spacer": "a metered-dose inhaler with a spacer",
                    "breath_actuated": "a breath-actuated inhaler",
                    "turbohaler": "a Turbohaler dry-powder inhaler",
                    "accuhaler": "an Accuhaler dry-powder inhaler",
                    "ellipta": "an Ellipta dry-powder inhaler",
                    "respimat": "a Respimat soft-mist inhaler",
                    "handihaler": "a HandiHaler capsule inhaler",
                    "nebuliser": "a nebuliser",
                },
            ),
            "technique": enum(
                "Technique", {"good": "good", "needs_review": "needs review", "cannot_manage": "cannot manage it alone"}
            ),
            "note": text("Note"),
        },
        ["role", "device"],
    ),
    org_type(
        "rehab_programme",
        "account_fact",
        "Cardiac or pulmonary rehabilitation programme",
        ["care_coordination", "appointment_scheduling"],
        ["staff", "ehr_import", "agent_proposal"],
        ["programme"],
        "Rehabilitation: {programme} ({status})[, {format}][ at {venue}][; {note}]",
        {
            "programme": enum(
                "Programme",
                {
                    "cardiac": "cardiac rehabilitation",
                    "pulmonary": "pulmonary rehabilitation",
                    "heart_failure": "heart failure exercise programme",
                },
            ),
            "status": enum(
                "Status",
                {
                    "referred": "referred, waiting for assessment",
                    "attending": "attending",
                    "completed": "completed",
                    "declined": "declined",
                    "discharged_dna": "discharged after missed sessions",
                },
            ),
            "format": enum(
                "Format",
                {
                    "hospital_group": "hospital group classes",
                    "community_group": "community group classes",
                    "home_based": "home-based with a manual and phone calls",
                    "online": "online classes",
                },
            ),
            "venue": text("Venue", 80, TERM),
            "note": text("Note"),
        },
        ["programme", "status"],
    ),
    org_type(
        "breathlessness_plan",
        "preference",
        "How the patient manages breathlessness",
        ["care_coordination", "appointment_scheduling", "communication"],
        ANYONE,
        [],
        "Breathlessness: {techniques}[; needs {recovery_minutes} minutes to recover][; worse with {triggers}][; {note}]",
        {
            "techniques": enum_list(
                "What helps",
                {
                    "pursed_lip": "pursed-lip breathing",
                    "breathing_control": "breathing control",
                    "forward_lean": "sitting leaning forward",
                    "handheld_fan": "a handheld fan",
                    "pacing": "pacing and rests",
                    "window_open": "an open window",
                    "reassurance": "someone staying calm with them",
                },
            ),
            "recovery_minutes": {"type": "integer", "title": "Minutes to recover", "minimum": 1, "maximum": 60},
            "triggers": text("Triggers", 120, TERM),
            "note": text("Note"),
        },
        ["techniques"],
    ),
    org_type(
        "driving_restriction",
        "account_fact",
        "Fitness to drive after a heart or sleep condition",
        ["care_coordination", "appointment_scheduling"],
        ["staff", "ehr_import"],
        ["reason"],
        "Driving ({reason}): {status}[ until {until}][; {note}]",
        {
            "reason": enum(
                "Reason",
                {
                    "sleep_apnoea": "sleepiness from untreated sleep apnoea",
                    "heart_attack": "after a heart attack",
                    "heart_surgery": "after heart surgery",
                    "icd": "defibrillator fitted or shock",
                    "blackout": "unexplained blackout",
                    "heart_failure": "heart failure symptoms",
                },
            ),
            "status": enum(
                "Status",
                {
                    "must_not_drive": "must not drive",
                    "dvla_notified": "DVLA told, awaiting decision",
                    "licence_surrendered": "licence surrendered",
                    "cleared": "cleared to drive",
                },
            ),
            "until": date("Until"),
            "note": text("Note"),
        },
        ["reason", "status"],
    ),
]

if __name__ == "__main__":
    with open(OUT, "w") as f:
        json.dump(TYPES, f, indent=2)
        f.write("\n")
    print(f"wrote {len(TYPES)} types to {os.path.normpath(OUT)}")
