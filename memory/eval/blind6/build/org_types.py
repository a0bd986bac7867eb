#!/usr/bin/env python3
"""Writes ../org_types.json: ten organisation-defined memory types for children's, young people's and
maternity services, in the catalogue format.

None of them repeats the subject of an organisation type of the first, second or third set (only the names of
their types were read, plus blind3's own org_types.py, which was given as tooling) or of a built-in type.
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

DATE = "^20[0-9]{2}-(0[1-9]|1[0-2])-(0[1-9]|[12][0-9]|3[01])$"


def date(title):
    return {"type": "string", "title": title, "maxLength": 10, "pattern": DATE, "x-input": "date"}


def integer(title, lo, hi):
    return {"type": "integer", "title": title, "minimum": lo, "maximum": hi}


TYPES = [
    org_type(
        "parental_responsibility",
        "account_fact",
        "Parental responsibility for a child",
        ["care_coordination", "communication"],
        ["staff"],
        ["person"],
        "Parental responsibility: {person} ({relationship}): {status}[; court order seen{order_seen?}][; {note}]",
        {
            "person": text("Adult", 80, NAME),
            "relationship": enum(
                "Relationship to the child",
                {
                    "mother": "mother",
                    "father": "father",
                    "step_parent": "step-parent",
                    "grandparent": "grandparent",
                    "aunt_or_uncle": "aunt or uncle",
                    "foster_carer": "foster carer",
                    "local_authority": "local authority (social worker)",
                    "adoptive_parent": "adoptive parent",
                },
            ),
            "status": enum(
                "Status",
                {
                    "holds_pr": "holds parental responsibility and may consent",
                    "no_pr": "does not hold parental responsibility; cannot consent",
                    "shared_under_care_order": "shares parental responsibility under a care order",
                    "limited_by_court_order": "holds parental responsibility, limited by a court order",
                    "delegated_day_to_day": "day-to-day care delegated; cannot consent to planned treatment",
                },
            ),
            "order_seen": boolean("Court order or certificate seen"),
            "note": text("Note"),
        },
        ["person", "relationship", "status"],
    ),
    org_type(
        "child_collection",
        "account_fact",
        "Who may collect the child",
        ["care_coordination", "appointment_scheduling"],
        ["staff"],
        ["person"],
        "Collection: {person} ({relationship}) {permission}[; password required{password_required?}][; {note}]",
        {
            "person": text("Adult", 80, NAME),
            "relationship": enum(
                "Relationship",
                {
                    "parent": "parent",
                    "grandparent": "grandparent",
                    "sibling_adult": "adult sibling",
                    "family_friend": "family friend",
                    "childminder": "childminder",
                    "foster_carer": "foster carer",
                    "other_relative": "relative",
                },
            ),
            "permission": enum(
                "Permission",
                {
                    "may_collect": "may collect the child",
                    "must_not_collect": "must not collect the child; call the named parent",
                    "supervised_only": "may only be with the child when supervised",
                },
            ),
            "password_required": boolean("Must give the agreed password"),
            "note": text("Note"),
        },
        ["person", "relationship", "permission"],
    ),
    org_type(
        "safeguarding_status",
        "account_fact",
        "Child safeguarding status",
        ["care_coordination"],
        ["staff"],
        [],
        "Safeguarding: {status}[ ({category})][; lead professional {lead}][; {note}]",
        {
            "status": enum(
                "Status",
                {
                    "early_help": "early help plan",
                    "child_in_need": "child in need plan",
                    "child_protection_plan": "child protection plan",
                    "looked_after": "looked-after child (in care)",
                    "unborn_pre_birth_plan": "pre-birth plan for the unborn baby",
                    "closed": "no longer open to children's social care",
                },
            ),
            "category": enum(
                "Category",
                {
                    "neglect": "neglect",
                    "physical": "physical abuse",
                    "emotional": "emotional abuse",
                    "sexual": "sexual abuse",
                    "domestic_abuse_household": "domestic abuse in the household",
                },
            ),
            "lead": text("Lead professional", 80, NAME),
            "note": text("Note"),
        },
        ["status"],
    ),
    org_type(
        "infant_feeding",
        "care_context",
        "How the baby or child is fed",
        ["care_coordination"],
        STAFF,  # lead engineer: care context is written by staff or an EHR import (was ANYONE, refused)
        [],
        "Feeding: {method}[ ({product})][; {frequency}][; {note}]",
        {
            "method": enum(
                "Method",
                {
                    "breastfed": "breastfed",
                    "expressed_breast_milk": "expressed breast milk by bottle",
                    "mixed": "breast and formula",
                    "formula": "formula",
                    "specialist_formula": "specialist (prescribed) formula",
                    "nasogastric_tube": "nasogastric tube",
                    "gastrostomy": "gastrostomy",
                    "weaning": "weaning onto solids",
                },
            ),
            "product": text("Formula or feed", 80, TERM),
            "frequency": text("How often or how much", 80),
            "note": text("Note"),
        },
        ["method"],
    ),
    org_type(
        "growth_monitoring",
        "care_context",
        "Growth and weight monitoring",
        ["care_coordination", "appointment_scheduling"],
        STAFF,
        [],
        "Growth: {concern}; weigh {weigh_every}[; plot on {chart}][; {note}]",
        {
            "concern": enum(
                "Concern",
                {
                    "faltering_growth": "faltering growth",
                    "weight_above_centiles": "weight above the expected centiles",
                    "short_stature": "short stature under review",
                    "head_circumference": "head circumference being watched",
                    "none_routine": "no concern, routine checks",
                },
            ),
            "weigh_every": enum(
                "Weigh",
                {
                    "weekly": "weekly",
                    "fortnightly": "fortnightly",
                    "monthly": "monthly",
                    "at_clinic_only": "at clinic visits only",
                },
            ),
            "chart": enum(
                "Chart",
                {
                    "uk_who": "the UK-WHO chart",
                    "preterm_corrected": "the UK-WHO chart at corrected age",
                    "down_syndrome": "the Down syndrome chart",
                    "turner_syndrome": "the Turner syndrome chart",
                },
            ),
            "note": text("Note"),
        },
        ["concern", "weigh_every"],
    ),
    org_type(
        "neonatal_followup",
        "care_context",
        "Neonatal history and follow-up",
        ["care_coordination", "appointment_scheduling"],
        STAFF,
        ["followup"],
        "Neonatal: born at {gestation_weeks} weeks[, {birth_weight_g} g][, {nicu_days} days in neonatal care]; "
        "follow-up: {followup}[; {note}]",
        {
            "gestation_weeks": integer("Gestation at birth (weeks)", 22, 42),
            "birth_weight_g": integer("Birth weight (grams)", 300, 6000),
            "nicu_days": integer("Days in neonatal care", 0, 365),
            "followup": enum(
                "Follow-up",
                {
                    "developmental_clinic": "neonatal developmental follow-up clinic",
                    "rop_eye_screening": "eye screening for retinopathy of prematurity",
                    "hip_ultrasound": "hip ultrasound",
                    "audiology_rescreen": "hearing re-test at audiology",
                    "home_oxygen_review": "home oxygen review",
                    "cardiology_review": "heart review",
                    "discharged": "discharged from neonatal follow-up",
                },
            ),
            "note": text("Note"),
        },
        ["gestation_weeks", "followup"],
    ),
    org_type(
        "birth_preferences",
        "preference",
        "Birth preferences",
        ["care_coordination"],
        ANYONE,
        [],
        "Birth preferences: {place}[; pain relief {pain_relief}][; baby vitamin K {vitamin_k}][; {note}]",
        {
            "place": enum(
                "Planned place of birth",
                {
                    "home": "home birth",
                    "freestanding_midwife_unit": "freestanding midwife-led unit",
                    "alongside_midwife_unit": "midwife-led unit next to the labour ward",
                    "obstetric_unit": "obstetric-led labour ward",
                    "planned_caesarean": "planned caesarean section",
                },
            ),
            "pain_relief": enum_list(
                "Pain relief",
                {
                    "water": "birth pool",
                    "tens": "TENS machine",
                    "gas_and_air": "gas and air (Entonox)",
                    "opioid_injection": "opioid injection",
                    "epidural": "epidural",
                    "none": "no pain relief",
                },
            ),
            "vitamin_k": enum(
                "Vitamin K for the baby",
                {"injection": "by injection", "oral": "by mouth", "declined": "declined"},
            ),
            "note": text("Note"),
        },
        ["place"],
    ),
    org_type(
        "antenatal_pathway",
        "care_context",
        "Pregnancy care pathway",
        ["care_coordination", "appointment_scheduling"],
        STAFF,
        [],
        "Pregnancy: due {due_date}; {pathway}[; {previous_births} previous births][; {note}]",
        {
            "due_date": date("Estimated due date"),
            "pathway": enum(
                "Pathway",
                {
                    "midwife_led": "midwife-led care",
                    "consultant_led": "consultant-led care",
                    "diabetes_in_pregnancy": "joint diabetes antenatal clinic",
                    "twins": "twin pregnancy clinic",
                    "perinatal_mental_health": "perinatal mental health team",
                    "fetal_medicine": "fetal medicine unit",
                },
            ),
            "previous_births": integer("Previous births", 0, 15),
            "note": text("Note"),
        },
        ["due_date", "pathway"],
    ),
    org_type(
        "transition_plan",
        "account_fact",
        "Move to adult services",
        ["care_coordination", "appointment_scheduling"],
        STAFF,
        [],
        "Transition to adult care: {stage}[; adult service {adult_service}][; key worker {key_worker}][; {note}]",
        {
            "stage": enum(
                "Stage",
                {
                    "not_started": "not started yet",
                    "preparing": "preparing (ready, steady, go)",
                    "joint_clinic": "seen in a joint young adult clinic",
                    "transferred": "transferred to adult services",
                },
            ),
            "adult_service": text("Adult service", 80, TERM),
            "key_worker": text("Key worker", 80, NAME),
            "note": text("Note"),
        },
        ["stage"],
    ),
    org_type(
        "emergency_care_plan",
        "care_context",
        "Individual emergency care plan",
        ["care_coordination"],
        STAFF,
        ["plan"],
        "Emergency plan: {plan}[; copies held by {held_by}][; {note}]",
        {
            "plan": enum(
                "Plan",
                {
                    "seizure_rescue": "seizure rescue medicine plan",
                    "adrenal_crisis": "adrenal crisis plan (emergency hydrocortisone)",
                    "anaphylaxis": "anaphylaxis plan (adrenaline auto-injector)",
                    "hypoglycaemia": "hypoglycaemia plan",
                    "open_access_ward": "open access to the children's ward",
                    "metabolic_emergency": "metabolic emergency regimen",
                    "sickle_crisis": "sickle cell crisis plan",
                },
            ),
            "held_by": enum_list(
                "Copies held by",
                {
                    "parents": "parents",
                    "school_or_nursery": "school or nursery",
                    "ambulance_service": "ambulance service",
                    "children_ward": "the children's ward",
                    "gp": "the GP",
                },
            ),
            "note": text("Note"),
        },
        ["plan"],
    ),
]

if __name__ == "__main__":
    with open(OUT, "w") as f:
        json.dump(TYPES, f, indent=2)
        f.write("\n")
    print(f"wrote {len(TYPES)} organisation types to {os.path.normpath(OUT)}")
