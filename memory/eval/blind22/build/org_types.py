#!/usr/bin/env python3
"""Writes ../org_types.json: ten organisation-defined memory types in the catalogue format (community pharmacy,
pain clinics, allergy and immunology: medicine collection and controlled-drug handover, Pharmacy First
consultations, travel health, opioid tapering, interventional pain procedures, allergy testing and de-labelling,
allergen immunotherapy, adrenaline auto-injectors, home immunoglobulin replacement, hereditary angioedema plans).

None of them repeats the subject of an organisation type of earlier sets (as listed in memory/eval/blind15/README.md
and memory/eval/blind16/README.md, plus blind16-19's own types), of blind20 or blind21, or of a built-in type.
Helpers copied from memory/eval/blind16/build/org_types.py.
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
        "medicine_collection",
        "account_fact",
        "How dispensed medicines reach the patient",
        ["care_coordination", "communication"],
        ANYONE,
        [],
        "Medicines from {pharmacy}: {method}[; may collect: {collector}][; controlled drugs: {cd_rule}][; {day}][; {note}]",
        {
            "pharmacy": text("Pharmacy", 80, TERM),
            "method": enum(
                "Method",
                {
                    "collects": "collects in person",
                    "representative": "a named representative collects",
                    "delivery": "the pharmacy's driver delivers",
                    "locker": "collects from a prescription locker",
                },
            ),
            "collector": text("Who may collect", 80, NAME),
            "cd_rule": enum(
                "Controlled drugs",
                {
                    "patient_only": "handed to the patient only, with photo ID",
                    "rep_with_id": "a named representative with photo ID may collect",
                    "signed_delivery": "delivered only into a named adult's hands, signed for",
                    "none": "no controlled drugs",
                },
            ),
            "day": text("Day or slot", 80, TERM),
            "note": text("Note"),
        },
        ["pharmacy", "method"],
    ),
    org_type(
        "pharmacy_first",
        "account_fact",
        "Pharmacy First consultation",
        ["care_coordination"],
        ["staff", "ehr_import"],
        ["condition"],
        "Pharmacy First for {condition}: {outcome}[ ({supplied})][ on {date}][; {note}]",
        {
            "condition": enum(
                "Condition",
                {
                    "uti": "uncomplicated urinary tract infection",
                    "sore_throat": "acute sore throat",
                    "sinusitis": "acute sinusitis",
                    "otitis_media": "acute otitis media",
                    "impetigo": "impetigo",
                    "insect_bite": "infected insect bite",
                    "shingles": "shingles",
                },
            ),
            "outcome": enum(
                "Outcome",
                {
                    "supplied": "medicine supplied",
                    "advice": "advice only",
                    "gp": "referred to the GP",
                    "urgent": "sent for urgent care",
                    "excluded": "not eligible for the pathway",
                },
            ),
            "supplied": text("Supplied", 80, TERM),
            "date": date("Date"),
            "note": text("Note"),
        },
        ["condition", "outcome"],
    ),
    org_type(
        "travel_health",
        "account_fact",
        "Travel health consultation",
        ["care_coordination", "appointment_scheduling"],
        ["staff", "ehr_import"],
        [],
        "Travel to {destination}[ from {departs}]: malaria tablets {malaria}[; yellow fever {yellow_fever}][; {note}]",
        {
            "destination": text("Destination", 80, TERM),
            "departs": date("Departs"),
            "malaria": enum(
                "Malaria tablets",
                {
                    "atovaquone_proguanil": "atovaquone-proguanil",
                    "doxycycline": "doxycycline",
                    "mefloquine": "mefloquine",
                    "not_needed": "not needed",
                    "unsuitable_all": "none suitable, bite avoidance only",
                },
            ),
            "yellow_fever": enum(
                "Yellow fever",
                {"given": "vaccine given", "exemption": "exemption letter issued", "not_needed": "not needed"},
            ),
            "note": text("Note"),
        },
        ["destination", "malaria"],
    ),
    org_type(
        "opioid_taper",
        "care_context",
        "Opioid tapering plan",
        ["care_coordination", "communication"],
        STAFF,
        ["medicine"],
        "Tapering {medicine} ({status}): now {current}[, down by {step} every {every_weeks} weeks][; target {target}][; prescriber {prescriber}][; {note}]",
        {
            "medicine": text("Medicine", 80, TERM),
            "status": enum(
                "Status",
                {
                    "planned": "planned",
                    "tapering": "reducing",
                    "paused": "paused",
                    "completed": "completed",
                },
            ),
            "current": text("Current daily dose", 80, TERM),
            "step": text("Reduction step", 80, TERM),
            "every_weeks": integer("Every (weeks)", 1, 12),
            "target": text("Target", 80, TERM),
            "prescriber": text("Single prescriber", 80, TERM),
            "note": text("Note"),
        },
        ["medicine", "status", "current"],
    ),
    org_type(
        "pain_procedure",
        "account_fact",
        "Interventional pain procedure",
        ["appointment_scheduling", "care_coordination"],
        ["staff", "ehr_import"],
        ["procedure"],
        "{procedure}[ ({side})]: {status}[; {relief_percent} per cent relief][ for {relief_weeks} weeks][; {note}]",
        {
            "procedure": enum(
                "Procedure",
                {
                    "occipital_block": "greater occipital nerve block",
                    "medial_branch_block": "lumbar medial branch block",
                    "rf_denervation": "radiofrequency denervation",
                    "caudal_epidural": "caudal epidural steroid injection",
                    "genicular_block": "genicular nerve block",
                    "suprascapular_block": "suprascapular nerve block",
                    "trigger_point": "trigger point injections",
                    "lidocaine_infusion": "intravenous lidocaine infusion",
                },
            ),
            "side": enum("Side", {"left": "left", "right": "right", "both": "both", "midline": "midline"}),
            "status": enum(
                "Status",
                {
                    "listed": "on the waiting list",
                    "booked": "booked",
                    "done": "done",
                    "repeat_due": "repeat due",
                    "not_helpful": "did not help, not to be repeated",
                    "declined": "declined",
                },
            ),
            "relief_percent": integer("Relief (per cent)", 0, 100),
            "relief_weeks": integer("Relief lasted (weeks)", 0, 104),
            "note": text("Note"),
        },
        ["procedure", "status"],
    ),
    org_type(
        "allergy_testing",
        "account_fact",
        "Allergy test and de-labelling outcome",
        ["care_coordination", "appointment_scheduling"],
        ["staff", "ehr_import"],
        ["allergen"],
        "Allergy testing for {allergen}: {test}, {outcome}[ on {date}][; {note}]",
        {
            "allergen": text("Allergen", 80, TERM),
            "test": enum(
                "Test",
                {
                    "direct_oral_challenge": "direct oral challenge",
                    "skin_then_challenge": "skin tests then oral challenge",
                    "specific_ige": "specific IgE blood test",
                    "skin_prick": "skin prick test",
                    "food_challenge": "supervised food challenge",
                    "drug_provocation": "drug provocation test",
                },
            ),
            "outcome": enum(
                "Outcome",
                {
                    "referred": "referred, not yet tested",
                    "booked": "booked",
                    "negative_delabelled": "negative, allergy label removed",
                    "confirmed": "positive, allergy confirmed",
                    "tolerated_partial": "tolerated a partial dose only",
                    "inconclusive": "inconclusive",
                },
            ),
            "date": date("Date"),
            "note": text("Note"),
        },
        ["allergen", "test", "outcome"],
    ),
    org_type(
        "immunotherapy_course",
        "care_context",
        "Allergen immunotherapy (desensitisation) course",
        ["care_coordination", "appointment_scheduling"],
        STAFF,
        ["allergen"],
        "Immunotherapy for {allergen}[ with {product}]: {phase}[; {dose}][ every {interval_weeks} weeks][ at {where}][; wait {observe_minutes} minutes afterwards][; {note}]",
        {
            "allergen": enum(
                "Allergen",
                {
                    "peanut": "peanut (oral immunotherapy)",
                    "bee_venom": "honey bee venom",
                    "wasp_venom": "wasp venom",
                    "grass_pollen": "grass pollen",
                    "tree_pollen": "tree pollen",
                    "house_dust_mite": "house dust mite",
                    "milk": "cow's milk (oral immunotherapy)",
                },
            ),
            "product": text("Product", 80, TERM),
            "phase": enum(
                "Phase",
                {
                    "updosing": "up-dosing",
                    "maintenance": "maintenance",
                    "paused": "paused",
                    "completed": "completed",
                    "stopped": "stopped",
                },
            ),
            "dose": text("Dose", 80, TERM),
            "interval_weeks": integer("Every (weeks)", 1, 12),
            "where": text("Where given", 80, TERM),
            "observe_minutes": integer("Observation (minutes)", 0, 180),
            "note": text("Note"),
        },
        ["allergen", "phase"],
    ),
    org_type(
        "adrenaline_pen",
        "care_context",
        "Adrenaline auto-injectors",
        ["care_coordination", "communication"],
        STAFF,
        [],
        "Adrenaline pens: {brand} {dose_mcg} micrograms[, carries {number}][; expire {expires}][; trained {trained?}][; {note}]",
        {
            "brand": enum("Brand", {"epipen": "EpiPen", "jext": "Jext", "emerade": "Emerade", "neffy": "EURneffy nasal spray"}),
            "dose_mcg": {"enum": [150, 300, 500, 2000], "title": "Dose (micrograms)", "x-labels": {"150": "150", "300": "300", "500": "500", "2000": "2 mg nasal"}},
            "number": integer("Number carried", 1, 4),
            "expires": date("Expires"),
            "trained": boolean("Trained to use them"),
            "note": text("Note"),
        },
        ["brand", "dose_mcg"],
    ),
    org_type(
        "immunoglobulin_therapy",
        "care_context",
        "Immunoglobulin replacement",
        ["care_coordination", "appointment_scheduling"],
        STAFF,
        [],
        "Immunoglobulin replacement: {route}[ {product}][ {dose}][ every {interval_days} days][; given by {given_by}][; {note}]",
        {
            "route": enum(
                "Route",
                {
                    "scig": "subcutaneous (SCIg)",
                    "fscig": "facilitated subcutaneous with hyaluronidase",
                    "ivig_home": "intravenous at home",
                    "ivig_hospital": "intravenous in hospital",
                },
            ),
            "product": text("Product", 80, TERM),
            "dose": text("Dose", 80, TERM),
            "interval_days": integer("Every (days)", 1, 42),
            "given_by": enum(
                "Given by",
                {
                    "self": "the patient",
                    "family": "a trained family member",
                    "homecare_nurse": "a homecare nurse",
                    "hospital": "the immunology day unit",
                },
            ),
            "note": text("Note"),
        },
        ["route"],
    ),
    org_type(
        "angioedema_plan",
        "care_context",
        "Hereditary or acquired angioedema plan",
        ["care_coordination", "communication"],
        STAFF,
        [],
        "Angioedema ({form}): on-demand {on_demand}[; prophylaxis {prophylaxis}][; avoid {avoid}][; {note}]",
        {
            "form": enum(
                "Form",
                {
                    "hae_type1": "hereditary angioedema type 1",
                    "hae_type2": "hereditary angioedema type 2",
                    "acquired": "acquired C1-inhibitor deficiency",
                    "ace_inhibitor": "after an ACE inhibitor",
                },
            ),
            "on_demand": text("On-demand treatment", 80, TERM),
            "prophylaxis": text("Prophylaxis", 80, TERM),
            "avoid": text("Avoid", 160),
            "note": text("Note"),
        },
        ["form", "on_demand"],
    ),
]

if __name__ == "__main__":
    with open(OUT, "w") as f:
        json.dump(TYPES, f, indent=2)
        f.write("\n")
    print(f"wrote {len(TYPES)} types to {os.path.normpath(OUT)}")
