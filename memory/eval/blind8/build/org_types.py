#!/usr/bin/env python3
"""Writes ../org_types.json: ten organisation-defined memory types for palliative and end-of-life care in the
catalogue format. None repeats the subject of a built-in type or of another set's organisation type (only the
names of those types were read). Helpers copied from memory/eval/blind3/build/org_types.py.
Run from anywhere: python3 build/org_types.py"""

import json
import os

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "org_types.json")
SCHEMA = "https://json-schema.org/draft/2020-12/schema"
LINE = "^[^\\n\\r\\t]*$"
TERM = "^[A-Za-z0-9][A-Za-z0-9 ,.()'/&-]{0,79}$"
NAME = "^[^\\n\\r\\t0-9]+$"
PHONE = "^\\+?[0-9 ()-]{6,20}$"


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


def phone(title):
    return {"type": "string", "title": title, "maxLength": 20, "pattern": PHONE}


TYPES = [
    org_type(
        "anticipatory_medicines",
        "care_context",
        "Anticipatory (just-in-case) medicines at home",
        ["care_coordination"],
        STAFF,
        [],
        "Anticipatory medicines: {status}[: {drugs}][; kept {location}][; authorisation chart in the home{chart_in_home?}]"
        "[; {note}]",
        {
            "status": enum(
                "Status",
                {
                    "in_home": "in the home",
                    "prescribed_not_collected": "prescribed, not yet collected",
                    "requested": "requested from the GP",
                    "declined": "declined by the patient",
                    "removed_after_death": "returned to pharmacy",
                },
            ),
            "drugs": enum_list(
                "Drugs in the box",
                {
                    "morphine": "morphine sulfate injection",
                    "oxycodone": "oxycodone injection",
                    "alfentanil": "alfentanil injection",
                    "midazolam": "midazolam injection",
                    "haloperidol": "haloperidol injection",
                    "levomepromazine": "levomepromazine injection",
                    "cyclizine": "cyclizine injection",
                    "glycopyrronium": "glycopyrronium injection",
                    "hyoscine_butylbromide": "hyoscine butylbromide injection",
                    "water_for_injection": "water for injection",
                },
            ),
            "location": text("Where the box is kept", 120),
            "chart_in_home": boolean("Signed authorisation chart in the home"),
            "note": text("Note"),
        },
        ["status"],
    ),
    org_type(
        "symptom_plan",
        "care_context",
        "Individual symptom plan",
        ["care_coordination"],
        STAFF,
        ["symptom"],
        "Symptom plan for {symptom}: {first_step}[; call {escalate_to} if not settled][; {note}]",
        {
            "symptom": enum(
                "Symptom",
                {
                    "breakthrough_pain": "breakthrough pain",
                    "breathlessness": "breathlessness",
                    "nausea_vomiting": "nausea and vomiting",
                    "terminal_agitation": "restlessness or agitation",
                    "respiratory_secretions": "noisy chest secretions",
                    "seizures": "seizures",
                    "major_bleed": "risk of a major bleed",
                    "constipation": "constipation",
                },
            ),
            "first_step": text("First thing to do", 160),
            "escalate_to": enum(
                "If not settled",
                {
                    "hospice_advice_line": "the hospice advice line",
                    "community_palliative_nurse": "the community palliative nurse",
                    "ooh_gp": "the out-of-hours GP",
                    "district_nurse": "the district nurse",
                    "999": "999",
                },
            ),
            "note": text("Note"),
        },
        ["symptom", "first_step"],
    ),
    org_type(
        "assisted_hydration",
        "care_context",
        "Clinically assisted hydration and feeding decision",
        ["care_coordination"],
        STAFF,
        ["route"],
        "Assisted hydration and feeding: {route}: {decision}[; decided with {decided_with}][; {note}]",
        {
            "route": enum(
                "Route",
                {
                    "subcutaneous_fluids": "fluids under the skin",
                    "intravenous_fluids": "drip fluids",
                    "feeding_tube": "tube feeds (PEG or NG)",
                    "oral_comfort": "eating and drinking for comfort",
                },
            ),
            "decision": enum(
                "Decision",
                {
                    "continue": "continue",
                    "trial_then_review": "a time-limited trial, then review",
                    "stop_when_dying": "stop when the patient is dying",
                    "not_to_start": "not to be started",
                    "as_patient_wishes": "whatever the patient wants at the time",
                },
            ),
            "decided_with": enum(
                "Decided with",
                {"patient": "the patient", "family": "the family", "best_interests": "a best-interests meeting"},
            ),
            "note": text("Note"),
        },
        ["route", "decision"],
    ),
    org_type(
        "place_of_death_preference",
        "preference",
        "Preferred place of care and death",
        ["care_coordination", "communication"],
        ANYONE,
        ["stage"],
        "Preferred place {stage}: {place}[ ({place_name})][; second choice {fallback}][; {note}]",
        {
            "stage": enum("For", {"care": "of care", "death": "of death"}),
            "place": enum(
                "Place",
                {
                    "home": "home",
                    "hospice": "a hospice",
                    "care_home": "a care home",
                    "hospital": "hospital",
                    "relative_home": "a relative's home",
                    "undecided": "not decided",
                },
            ),
            "place_name": text("Name of the place", 80, TERM),
            "fallback": enum(
                "Second choice",
                {"hospice": "a hospice", "hospital": "hospital", "care_home": "a care home", "home": "home"},
            ),
            "note": text("Note"),
        },
        ["stage", "place"],
    ),
    org_type(
        "ooh_call_plan",
        "account_fact",
        "Who to call out of hours",
        ["care_coordination", "communication"],
        STAFF,
        ["order"],
        "Out of hours, call {order}: {service}[ ({contact_name})][ on {phone}][; {note}]",
        {
            "order": enum("Order", {"first": "first", "second": "second", "avoid": "never"}),
            "service": enum(
                "Service",
                {
                    "hospice_advice_line": "the hospice 24-hour advice line",
                    "hospice_at_home": "the hospice at home team",
                    "community_palliative_team": "the community palliative care team",
                    "district_nursing_ooh": "the out-of-hours district nurses",
                    "ooh_gp": "the out-of-hours GP",
                    "nhs_111": "NHS 111",
                    "999": "999",
                    "family_member": "a family member",
                },
            ),
            "contact_name": text("Name", 80, NAME),
            "phone": phone("Phone"),
            "note": text("Note"),
        },
        ["order", "service"],
    ),
    org_type(
        "after_death_arrangements",
        "account_fact",
        "Arrangements for after an expected death",
        ["care_coordination", "communication"],
        STAFF,
        ["arrangement"],
        "After death: {arrangement}[: {detail}][; {note}]",
        {
            "arrangement": enum(
                "Arrangement",
                {
                    "nurse_verification_agreed": "a nurse may verify the death",
                    "funeral_director": "the funeral director chosen",
                    "urgent_release": "the body to be released quickly (faith)",
                    "coroner_likely": "likely referral to the coroner",
                    "tissue_donation": "tissue or body donation",
                    "first_to_call": "the first person to ring",
                    "body_care": "care of the body",
                },
            ),
            "detail": text("Detail", 160),
            "note": text("Note"),
        },
        ["arrangement"],
    ),
    org_type(
        "loaned_equipment",
        "account_fact",
        "Equipment on loan at home",
        ["care_coordination", "appointment_scheduling"],
        ["patient", "staff", "agent_proposal"],
        ["item"],
        "Loan equipment: {item} ({status})[ from {supplier}][; {note}]",
        {
            "item": enum(
                "Item",
                {
                    "profiling_bed": "a profiling bed",
                    "commode": "a commode",
                    "riser_recliner": "a riser-recliner chair",
                    "suction_machine": "a suction machine",
                    "nebuliser": "a nebuliser",
                    "wheelchair": "a wheelchair",
                    "bed_table": "an over-bed table",
                    "shower_chair": "a shower chair",
                    "urinal_bottles": "urinal bottles",
                },
            ),
            "status": enum(
                "Status",
                {
                    "delivered": "delivered",
                    "ordered": "ordered",
                    "awaiting_collection": "waiting to be collected",
                },
            ),
            "supplier": text("Supplier", 80, TERM),
            "note": text("Note"),
        },
        ["item", "status"],
    ),
    org_type(
        "bereavement_support",
        "account_fact",
        "Family members who may need bereavement support",
        ["care_coordination", "communication"],
        STAFF,
        ["person"],
        "Bereavement support: {person} ({relationship}): {concern}[; {support}][; {note}]",
        {
            "person": text("Name", 80, NAME),
            "relationship": enum(
                "Relationship",
                {
                    "spouse_or_partner": "spouse or partner",
                    "child_under_18": "child under 18",
                    "adult_child": "adult child",
                    "parent": "parent",
                    "sibling": "sibling",
                    "friend": "friend",
                },
            ),
            "concern": enum(
                "Concern",
                {
                    "young_child_to_prepare": "a young child to be prepared",
                    "previous_loss": "a recent previous loss",
                    "own_ill_health": "their own poor health",
                    "learning_disability": "a learning disability",
                    "isolated": "will be on their own",
                    "mental_health": "mental health history",
                },
            ),
            "support": enum(
                "Support",
                {
                    "hospice_family_team": "hospice family support team",
                    "childrens_bereavement_service": "children's bereavement service",
                    "gp_aware": "their GP is aware",
                    "declined": "support declined",
                },
            ),
            "note": text("Note"),
        },
        ["person", "relationship", "concern"],
    ),
    org_type(
        "prognosis_conversation",
        "preference",
        "What the patient wants to know about their illness",
        ["communication", "care_coordination"],
        ["patient", "staff"],
        [],
        "Prognosis conversations: {wants}[; {aware?}aware that they are dying][; {note}]",
        {
            "wants": enum(
                "Wants",
                {
                    "full_detail": "to be told everything, including time frames",
                    "no_time_frames": "honest information but no time frames",
                    "little_detail": "to know only the essentials",
                    "through_family": "information given through a named relative",
                    "not_to_discuss": "not to talk about dying",
                },
            ),
            "aware": boolean("Aware that they are dying"),
            "note": text("Note"),
        },
        ["wants"],
    ),
    org_type(
        "bedside_wishes",
        "preference",
        "Wishes for the last days at the bedside",
        ["care_coordination"],
        ANYONE,
        ["wish"],
        "Last-days wish: {wish}[: {detail}][; {note}]",
        {
            "wish": enum(
                "Wish",
                {
                    "people_present": "who to have at the bedside",
                    "not_alone": "not to be left alone",
                    "music": "music",
                    "pet_present": "a pet nearby",
                    "environment": "the room",
                    "personal_care": "personal care",
                    "not_present": "who should not be at the bedside",
                },
            ),
            "detail": text("Detail", 160),
            "note": text("Note"),
        },
        ["wish", "detail"],
    ),
]

if __name__ == "__main__":
    with open(OUT, "w") as f:
        json.dump(TYPES, f, indent=2)
        f.write("\n")
    print(f"wrote {len(TYPES)} organisation types to {os.path.normpath(OUT)}")
