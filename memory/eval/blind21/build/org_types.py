#!/usr/bin/env python3
"""Writes ../org_types.json: ten organisation-defined memory types in the catalogue format (eyes, ears, teeth
and skin: eye drop regimens, cataract surgery, low-vision support and sight certification, direct access to eye
casualty, hearing levels with tinnitus and hyperacusis, dental bleeding plans on anticoagulants, jaw
osteonecrosis risk, where dental care is given, patch test results, skin surgery).

None of them repeats the subject of an organisation type of earlier sets (as listed by subject in
memory/eval/blind15/README.md and blind16/README.md, plus blind17-19's own ten), of the sets written at the same
time (blind20, blind22, by their briefs' themes) or of a built-in type. Helpers copied from
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


PHONE = "^\\+?[0-9 ()-]{6,20}$"


def phone(title):
    return {"type": "string", "title": title, "maxLength": 20, "pattern": PHONE}


def integer(title, lo, hi):
    return {"type": "integer", "title": title, "minimum": lo, "maximum": hi}


EYE = {"left": "left", "right": "right", "both": "both"}

TYPES = [
    org_type(
        "eye_drop_regimen",
        "care_context",
        "Eye drop regimen",
        ["care_coordination", "communication"],
        STAFF,
        ["eye"],
        "Eye drops ({condition}) {eye} eye: {drops}[, {times_a_day} times a day][; preservative-free {preservative_free?}][; put in by {instilled_by}][; {note}]",
        {
            "eye": enum("Eye", EYE),
            "condition": enum(
                "Condition",
                {
                    "glaucoma": "glaucoma",
                    "ocular_hypertension": "raised eye pressure",
                    "angle_closure": "angle closure",
                    "dry_eye": "dry eye",
                    "uveitis": "uveitis",
                    "corneal_graft": "corneal graft",
                    "allergic_eye": "allergic eye disease",
                },
            ),
            "drops": text("Drops", 160),
            "times_a_day": integer("Times a day", 1, 24),
            "preservative_free": boolean("Preservative-free only"),
            "instilled_by": enum(
                "Put in by",
                {
                    "self": "the patient",
                    "family": "a partner or family member",
                    "carer": "a paid carer",
                    "district_nurse": "district nurses",
                },
            ),
            "note": text("Note"),
        },
        ["eye", "condition", "drops"],
    ),
    org_type(
        "cataract_surgery",
        "account_fact",
        "Cataract surgery pathway",
        ["appointment_scheduling", "care_coordination"],
        STAFF,
        ["eye"],
        "Cataract {eye} eye: {stage}[; anaesthetic {anaesthesia}][; can lie flat {lie_flat?}][; floppy iris risk {floppy_iris_risk?}][; {note}]",
        {
            "eye": enum("Eye", {"left": "left", "right": "right"}),
            "stage": enum(
                "Stage",
                {
                    "referred": "referred, awaiting assessment",
                    "listed": "listed for surgery",
                    "completed": "operated",
                    "deferred": "surgery deferred",
                },
            ),
            "anaesthesia": enum(
                "Anaesthetic",
                {
                    "topical": "drops only",
                    "sub_tenon": "sub-Tenon block",
                    "peribulbar": "peribulbar block",
                    "general": "general anaesthetic",
                },
            ),
            "lie_flat": boolean("Can lie flat for 20 minutes"),
            "floppy_iris_risk": boolean("Floppy iris risk"),
            "note": text("Note"),
        },
        ["eye", "stage"],
    ),
    org_type(
        "low_vision_support",
        "account_fact",
        "Sight certification and low-vision services",
        ["communication", "care_coordination"],
        STAFF,
        [],
        "Sight: {certification}[; low-vision clinic {low_vision_clinic?}][; rehabilitation {rehabilitation}][; aids {aids}][; {note}]",
        {
            "certification": enum(
                "Certification (CVI)",
                {
                    "not_certified": "not certified",
                    "referred": "certificate of vision impairment being completed",
                    "sight_impaired": "certified sight impaired (partially sighted)",
                    "severely_sight_impaired": "certified severely sight impaired (blind)",
                },
            ),
            "low_vision_clinic": boolean("Seen in a low-vision clinic"),
            "rehabilitation": text("Rehabilitation or sensory team", 80, TERM),
            "aids": text("Low-vision aids", 160),
            "note": text("Note"),
        },
        ["certification"],
    ),
    org_type(
        "eye_casualty_access",
        "care_context",
        "Direct access to eye casualty",
        ["care_coordination", "communication"],
        STAFF,
        ["condition"],
        "Eye emergencies ({condition}): {route}[; phone {phone}][; warning signs: {warning_signs}][; {note}]",
        {
            "condition": enum(
                "Condition",
                {
                    "uveitis": "uveitis",
                    "corneal_graft": "corneal graft",
                    "angle_closure_risk": "risk of acute angle closure",
                    "macular_treatment": "on macular treatment",
                    "recent_eye_surgery": "recent eye surgery",
                    "retinal_detachment_risk": "risk of retinal detachment",
                },
            ),
            "route": enum(
                "Route",
                {
                    "open_access": "may attend eye casualty directly",
                    "phone_triage": "phone the eye triage line first",
                    "same_day_clinic": "same-day slot in the specialist clinic",
                    "gp_first": "GP or optometrist first",
                },
            ),
            "phone": phone("Phone"),
            "warning_signs": text("Warning signs", 160),
            "note": text("Note"),
        },
        ["condition", "route"],
    ),
    org_type(
        "hearing_profile",
        "account_fact",
        "Hearing level, tinnitus and sound sensitivity",
        ["communication", "appointment_scheduling"],
        STAFF,
        ["side"],
        "Hearing {side}: {level}[ {loss_type} loss][; tinnitus {tinnitus?}][; sound sensitivity {hyperacusis?}][; {note}]",
        {
            "side": enum("Ear", EYE),
            "level": enum(
                "Level",
                {
                    "normal": "normal",
                    "mild": "mild",
                    "moderate": "moderate",
                    "severe": "severe",
                    "profound": "profound",
                },
            ),
            "loss_type": enum(
                "Type", {"sensorineural": "sensorineural", "conductive": "conductive", "mixed": "mixed"}
            ),
            "tinnitus": boolean("Tinnitus"),
            "hyperacusis": boolean("Hyperacusis (sound sensitivity)"),
            "note": text("Note"),
        },
        ["side", "level"],
    ),
    org_type(
        "dental_bleeding_plan",
        "care_context",
        "Dental extractions on anticoagulants",
        ["care_coordination", "appointment_scheduling"],
        STAFF,
        [],
        "Dental bleeding plan on {anticoagulant}: {plan}[; INR at most {inr_max}][; {haemostasis}][; up to {per_visit} extractions a visit][; {note}]",
        {
            "anticoagulant": text("Anticoagulant or antiplatelet", 80, TERM),
            "plan": enum(
                "Plan",
                {
                    "continue_as_normal": "carry on as normal",
                    "delay_morning_dose": "delay the morning dose until after treatment",
                    "omit_one_dose": "miss one dose",
                    "inr_within_72h": "INR check within 72 hours before",
                    "hospital_only": "treat in hospital only",
                },
            ),
            "inr_max": {"type": "number", "title": "Highest INR", "minimum": 1.5, "maximum": 5},
            "haemostasis": text("Local measures", 160),
            "per_visit": integer("Extractions per visit", 1, 10),
            "note": text("Note"),
        },
        ["anticoagulant", "plan"],
    ),
    org_type(
        "jaw_osteonecrosis_risk",
        "care_context",
        "Jaw osteonecrosis (MRONJ) risk",
        ["care_coordination"],
        STAFF,
        [],
        "Jaw osteonecrosis risk {risk}: {drugs}[; before dental work: {before_dental}][; {note}]",
        {
            "risk": enum("Risk", {"low": "low", "high": "high", "established": "established osteonecrosis"}),
            "drugs": text("Bone or anti-angiogenic medicines", 160),
            "before_dental": text("Before dental treatment", 200),
            "note": text("Note"),
        },
        ["risk", "drugs"],
    ),
    org_type(
        "dental_care_setting",
        "account_fact",
        "Where dental care is given",
        ["appointment_scheduling", "care_coordination"],
        ["staff", "ehr_import", "agent_proposal"],
        [],
        "Dental care: {setting}[; why: {reason}][; comes with {escort}][; {note}]",
        {
            "setting": enum(
                "Setting",
                {
                    "general_practice": "general dental practice",
                    "community_special_care": "community special care dental service",
                    "hospital_dental": "hospital dental or oral surgery department",
                    "domiciliary": "home visits by a domiciliary dentist",
                    "general_anaesthetic_list": "general anaesthetic list",
                },
            ),
            "reason": text("Reason", 160),
            "escort": text("Escort", 80, TERM),
            "note": text("Note"),
        },
        ["setting"],
    ),
    org_type(
        "patch_test_result",
        "care_context",
        "Patch test result",
        ["care_coordination", "communication"],
        STAFF,
        ["allergen"],
        "Patch test {allergen}: {result}[, relevance {relevance}][; avoid {avoid}][; tested {tested}]",
        {
            "allergen": text("Allergen", 80, TERM),
            "result": enum(
                "Result",
                {"positive": "positive", "doubtful": "doubtful", "irritant": "irritant reaction", "negative": "negative"},
            ),
            "relevance": enum("Relevance", {"current": "current", "past": "past", "unknown": "unknown"}),
            "avoid": text("Avoid", 200),
            "tested": date("Tested"),
        },
        ["allergen", "result"],
    ),
    org_type(
        "skin_surgery",
        "account_fact",
        "Skin surgery",
        ["appointment_scheduling", "care_coordination"],
        STAFF,
        ["site"],
        "Skin surgery {site}: {procedure}, {status}[; blood thinners: {blood_thinner}][; {note}]",
        {
            "site": text("Site", 80, TERM),
            "procedure": enum(
                "Procedure",
                {
                    "excision": "excision",
                    "wide_local_excision": "wide local excision",
                    "mohs": "Mohs micrographic surgery",
                    "curettage": "curettage and cautery",
                    "shave": "shave excision",
                    "punch_biopsy": "punch biopsy",
                    "excision_with_graft": "excision with skin graft or flap",
                    "deroofing": "deroofing",
                },
            ),
            "status": enum(
                "Status",
                {"listed": "on the waiting list", "booked": "date booked", "done": "done", "cancelled": "cancelled"},
            ),
            "blood_thinner": text("Blood thinners", 160),
            "note": text("Note"),
        },
        ["site", "procedure", "status"],
    ),
]

if __name__ == "__main__":
    with open(OUT, "w") as f:
        json.dump(TYPES, f, indent=2)
        f.write("\n")
    print(f"wrote {len(TYPES)} types to {os.path.normpath(OUT)}")
