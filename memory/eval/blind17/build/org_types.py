#!/usr/bin/env python3
"""Writes ../org_types.json: ten organisation-defined memory types in the catalogue format (neurology,
rheumatology and gastroenterology outpatients: seizure plans, time-critical medicine doses, infusion-unit
schedules, home delivery of specialist medicines, drug-monitoring blood tests, shared-care agreements, steroid
cards, pregnancy prevention for teratogenic medicines, stoma care, endoscopy surveillance).

None of them repeats the subject of an organisation type of earlier sets (as listed by subject in
memory/eval/blind15/README.md and memory/eval/blind16/README.md, plus blind16's own ten), of the set written at
the same time (blind18: older people's care) or of a built-in type. Helpers copied from
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


MONTH = "^[0-9]{4}-(0[1-9]|1[0-2])$"


def month(title):
    return {"type": "string", "title": title, "maxLength": 7, "pattern": MONTH}


def integer(title, lo, hi):
    return {"type": "integer", "title": title, "minimum": lo, "maximum": hi}


TYPES = [
    org_type(
        "seizure_plan",
        "care_context",
        "Seizure care plan and rescue medicine",
        ["care_coordination", "communication"],
        STAFF,
        [],
        "Seizures: {seizures}[; rescue {rescue}][ {dose}][ after {give_after_minutes} minutes]"
        "[; call 999 if {call_999_if}][; {note}]",
        {
            "seizures": text("What the seizures look like", 120, TERM),
            "rescue": enum(
                "Rescue medicine",
                {
                    "buccal_midazolam": "buccal midazolam",
                    "intranasal_midazolam": "intranasal midazolam",
                    "rectal_diazepam": "rectal diazepam",
                    "none": "none prescribed",
                },
            ),
            "dose": text("Dose", 40, TERM),
            "give_after_minutes": integer("Give after (minutes)", 1, 30),
            "call_999_if": text("Call 999 if", 160),
            "note": text("Note"),
        },
        ["seizures"],
    ),
    org_type(
        "time_critical_medicines",
        "care_context",
        "Time-critical medicine doses",
        ["care_coordination", "appointment_scheduling"],
        STAFF,
        [],
        "Time-critical: {medicines} at {dose_times}[, within {window_minutes} minutes]"
        "[; if nil by mouth: {nil_by_mouth}][; gives own doses {self_administers?}][; {note}]",
        {
            "medicines": text("Medicines", 160),
            "dose_times": text("Dose times", 80, "^[0-9:, and]{4,80}$"),
            "window_minutes": integer("Give within (minutes)", 0, 60),
            "nil_by_mouth": text("If nil by mouth", 160),
            "self_administers": boolean("Gives own doses on the ward"),
            "note": text("Note"),
        },
        ["medicines", "dose_times"],
    ),
    org_type(
        "infusion_schedule",
        "account_fact",
        "Day-unit infusion schedule",
        ["appointment_scheduling", "care_coordination"],
        ["staff", "ehr_import"],
        ["drug"],
        "Infusion: {drug} every {interval_weeks} weeks at {unit}[ ({phase})]"
        "[; chair time {chair_minutes} minutes][; premedication {premedication}]"
        "[; observe {observe_minutes} minutes after][; {note}]",
        {
            "drug": text("Drug", 80, TERM),
            "interval_weeks": integer("Every (weeks)", 1, 52),
            "unit": text("Infusion unit", 80, TERM),
            "phase": enum(
                "Phase",
                {
                    "induction": "induction doses",
                    "maintenance": "maintenance",
                    "paused": "paused",
                    "stopping": "last doses",
                },
            ),
            "chair_minutes": integer("Chair time (minutes)", 15, 600),
            "premedication": text("Premedication", 160),
            "observe_minutes": integer("Observation afterwards (minutes)", 0, 240),
            "note": text("Note"),
        },
        ["drug", "interval_weeks", "unit"],
    ),
    org_type(
        "medicine_home_delivery",
        "account_fact",
        "Home delivery of a specialist medicine",
        ["appointment_scheduling", "communication", "care_coordination"],
        ["staff", "ehr_import", "agent_proposal"],
        ["medicine"],
        "Home delivery: {medicine} from {provider}[ every {every_weeks} weeks][ to {deliver_to}]"
        "[; fridge {fridge?}][; nurse {nurse_visits}][; sharps bin collected {sharps_collection?}]"
        "[; {note}]",
        {
            "medicine": text("Medicine", 80, TERM),
            "provider": text("Delivery company", 80, TERM),
            "every_weeks": integer("Every (weeks)", 1, 26),
            "deliver_to": enum(
                "Deliver to",
                {"home": "home", "work": "work", "neighbour": "a named neighbour", "collect": "collection point"},
            ),
            "fridge": boolean("Needs a fridge"),
            "nurse_visits": enum(
                "Nurse visits",
                {"none": "none", "training": "injection training only", "every_dose": "gives every dose"},
            ),
            "sharps_collection": boolean("Sharps bin collected"),
            "note": text("Note"),
        },
        ["medicine", "provider"],
    ),
    org_type(
        "blood_monitoring",
        "account_fact",
        "Blood monitoring schedule for a medicine",
        ["appointment_scheduling", "care_coordination"],
        ["staff", "ehr_import"],
        ["medicine"],
        "Monitoring for {medicine}: {tests} every {every_weeks} weeks[ at {where}]"
        "[; results reviewed by {reviewed_by}][; {note}]",
        {
            "medicine": text("Medicine", 80, TERM),
            "tests": enum_list(
                "Tests",
                {
                    "fbc": "full blood count",
                    "lft": "liver function",
                    "renal": "kidney function (U&E)",
                    "crp": "CRP",
                    "lipids": "lipids",
                    "immunoglobulins": "immunoglobulins",
                    "urate": "urate",
                    "urine": "urine dipstick",
                    "blood_pressure": "blood pressure",
                },
            ),
            "every_weeks": integer("Every (weeks)", 1, 52),
            "where": enum(
                "Where",
                {
                    "gp": "the GP surgery",
                    "hospital": "hospital phlebotomy",
                    "home": "at home by the delivery nurse",
                    "community": "a community clinic",
                },
            ),
            "reviewed_by": enum(
                "Reviewed by",
                {
                    "gp": "the GP",
                    "specialist_nurse": "the specialist nurse",
                    "pharmacist": "the clinic pharmacist",
                    "consultant": "the consultant",
                },
            ),
            "note": text("Note"),
        },
        ["medicine", "tests", "every_weeks"],
    ),
    org_type(
        "shared_care",
        "account_fact",
        "Shared-care agreement with the GP",
        ["care_coordination"],
        ["staff", "ehr_import"],
        ["medicine"],
        "Shared care for {medicine}: {status}[; GP prescribes {gp_prescribes?}][; specialist team {team}][; {note}]",
        {
            "medicine": text("Medicine", 80, TERM),
            "status": enum(
                "Status",
                {
                    "agreed": "agreement in place",
                    "requested": "requested, GP not yet replied",
                    "declined": "declined by the GP",
                    "hospital_only": "hospital prescribing only",
                    "ended": "ended",
                },
            ),
            "gp_prescribes": boolean("GP prescribes"),
            "team": text("Specialist team", 80, TERM),
            "note": text("Note"),
        },
        ["medicine", "status"],
    ),
    org_type(
        "steroid_card",
        "care_context",
        "Steroid card and adrenal crisis risk",
        ["care_coordination", "communication"],
        STAFF,
        [],
        "Steroids: carries {card} ({reason})[; hydrocortisone injection kit {injection_kit?}]"
        "[; if unwell: {if_unwell}][; {note}]",
        {
            "card": enum(
                "Card",
                {
                    "emergency": "the NHS Steroid Emergency Card",
                    "treatment": "a blue steroid treatment card",
                    "both": "both the emergency card and a blue treatment card",
                },
            ),
            "reason": text("Why", 80, TERM),
            "injection_kit": boolean("Hydrocortisone injection kit"),
            "if_unwell": text("If unwell", 160),
            "note": text("Note"),
        },
        ["card", "reason"],
    ),
    org_type(
        "pregnancy_prevention",
        "care_context",
        "Pregnancy prevention for a medicine that harms an unborn baby",
        ["care_coordination", "communication"],
        STAFF,
        ["medicine"],
        "Pregnancy prevention for {medicine}: {status}[; contraception {contraception}]"
        "[; form signed {form_signed}][; {note}]",
        {
            "medicine": text("Medicine", 80, TERM),
            "status": enum(
                "Status",
                {
                    "in_place": "programme in place",
                    "form_due": "annual risk form due",
                    "not_applicable": "not applicable (cannot become pregnant)",
                    "planning": "planning pregnancy, switch under way",
                },
            ),
            "contraception": enum(
                "Contraception",
                {
                    "copper_iud": "copper coil (IUD)",
                    "hormonal_ius": "hormonal coil (IUS)",
                    "implant": "implant",
                    "injection": "injection",
                    "pill_plus_condoms": "pill and condoms",
                    "sterilised": "sterilisation",
                    "none": "none",
                },
            ),
            "form_signed": date("Risk acknowledgement form signed"),
            "note": text("Note"),
        },
        ["medicine", "status"],
    ),
    org_type(
        "stoma_care",
        "care_context",
        "Stoma and stoma supplies",
        ["care_coordination", "appointment_scheduling"],
        STAFF,
        [],
        "Stoma: {stoma} with {appliance} bags[; output {output}][; supplies from {supplier}][; {note}]",
        {
            "stoma": enum(
                "Stoma",
                {
                    "ileostomy": "ileostomy",
                    "colostomy": "colostomy",
                    "jejunostomy": "jejunostomy",
                    "mucous_fistula": "mucous fistula",
                },
            ),
            "appliance": enum(
                "Bags",
                {
                    "drainable": "drainable",
                    "closed": "closed",
                    "convex_drainable": "convex drainable",
                    "high_output": "high-output",
                },
            ),
            "output": enum("Output", {"normal": "normal", "high": "high (over 1.5 litres a day)", "low": "low"}),
            "supplier": text("Supplier", 80, TERM),
            "note": text("Note"),
        },
        ["stoma", "appliance"],
    ),
    org_type(
        "endoscopy_surveillance",
        "account_fact",
        "Endoscopy surveillance programme",
        ["appointment_scheduling", "care_coordination"],
        ["staff", "ehr_import"],
        [],
        "Endoscopy surveillance for {reason}: {procedure} every {interval_months} months[; {technique}]"
        "[; next due {next_due}][; {note}]",
        {
            "reason": enum(
                "Reason",
                {
                    "colitis": "long-standing colitis",
                    "psc_colitis": "colitis with primary sclerosing cholangitis",
                    "varices": "oesophageal varices",
                    "barretts": "Barrett's oesophagus",
                    "polyps": "previous polyps",
                    "coeliac": "coeliac disease not settling",
                },
            ),
            "procedure": enum(
                "Procedure",
                {
                    "colonoscopy": "colonoscopy",
                    "gastroscopy": "gastroscopy",
                    "pouchoscopy": "pouchoscopy",
                    "stoma_colonoscopy": "colonoscopy through the stoma",
                },
            ),
            "interval_months": integer("Every (months)", 1, 60),
            "technique": enum(
                "Technique",
                {
                    "dye_spray": "dye-spray chromoendoscopy",
                    "hd_white_light": "high-definition white light",
                    "banding": "band ligation",
                    "biopsies": "biopsies",
                },
            ),
            "next_due": month("Next due (year-month)"),
            "note": text("Note"),
        },
        ["reason", "procedure", "interval_months"],
    ),
]

if __name__ == "__main__":
    with open(OUT, "w") as f:
        json.dump(TYPES, f, indent=2)
        f.write("\n")
    print(f"wrote {len(TYPES)} types to {os.path.normpath(OUT)}")
