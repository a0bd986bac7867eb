#!/usr/bin/env python3
"""Writes ../org_types.json: ten organisation-defined memory types in the catalogue format (imaging,
endoscopy, nuclear medicine and day-case procedures).

None of them repeats the subject of an organisation type of the earlier sets (as listed by name in
memory/eval/blind11/README.md) or of a built-in type. Helpers copied from memory/eval/blind11/build/org_types.py.
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


DATE = {"type": "string", "title": "Date", "format": "date", "maxLength": 10, "pattern": "^[0-9]{4}-[0-9]{2}-[0-9]{2}$"}


TYPES = [
    org_type(
        "bowel_preparation",
        "account_fact",
        "Bowel preparation before colonoscopy or CT colonography",
        ["care_coordination", "appointment_scheduling", "communication"],
        ["staff", "ehr_import"],
        [],
        "Bowel prep: {product}[, split dose{split_dose?}][; low-residue diet for {low_residue_days} days before][; last time: {last_result}][; {note}]",
        {
            "product": enum(
                "Preparation",
                {
                    "moviprep": "Moviprep (macrogol)",
                    "plenvu": "Plenvu (macrogol)",
                    "klean_prep": "Klean-Prep (macrogol)",
                    "picolax": "Picolax (sodium picosulfate)",
                    "citrafleet": "CitraFleet (sodium picosulfate)",
                    "gastrografin": "Gastrografin tagging for CT colonography",
                    "enema_only": "enema on arrival only",
                },
            ),
            "split_dose": boolean("Split over the evening before and the morning"),
            "low_residue_days": {"type": "integer", "title": "Low-residue diet (days)", "minimum": 1, "maximum": 7},
            "last_result": enum(
                "Last time",
                {
                    "good": "good clearance",
                    "poor": "poor clearance, procedure repeated",
                    "vomited": "vomited the preparation",
                    "unable_to_finish": "could not finish the volume",
                },
            ),
            "note": text("Note"),
        },
        ["product"],
    ),
    org_type(
        "procedure_fasting",
        "account_fact",
        "Fasting plan before sedation or a procedure",
        ["appointment_scheduling", "care_coordination", "communication"],
        ["staff", "ehr_import"],
        [],
        "Fasting: no food for {food_hours} hours[; clear fluids until {clear_fluids_minutes} minutes before][; {reason}][; {note}]",
        {
            "food_hours": {"type": "integer", "title": "No food for (hours)", "minimum": 2, "maximum": 24},
            "clear_fluids_minutes": {"type": "integer", "title": "Clear fluids until (minutes before)", "minimum": 0,
                                     "maximum": 480},
            "reason": enum(
                "Why this plan",
                {
                    "standard": "standard plan",
                    "diabetes_first_on_list": "diabetes: first on the morning list",
                    "delayed_gastric_emptying": "delayed stomach emptying, longer fast",
                    "tube_fed": "tube fed: feed stopped in advance",
                    "time_critical_medicine": "time-critical medicine taken with a sip of water",
                },
            ),
            "note": text("Note"),
        },
        ["food_hours"],
    ),
    org_type(
        "contrast_plan",
        "care_context",
        "Contrast agent plan for scans",
        ["care_coordination", "appointment_scheduling"],
        STAFF,
        ["agent"],
        "Contrast: {agent}: {approach}[; {detail}][; {note}]",
        {
            "agent": enum(
                "Agent",
                {
                    "iodinated_iv": "intravenous iodinated contrast (CT)",
                    "gadolinium": "gadolinium (MRI)",
                    "oral_contrast": "oral contrast to drink",
                    "microbubble": "ultrasound microbubble contrast",
                    "barium": "barium",
                },
            ),
            "approach": enum(
                "Approach",
                {
                    "standard": "standard protocol",
                    "premedicate": "steroid and antihistamine premedication first",
                    "alternative_agent": "use a different named agent",
                    "avoid": "do not give; non-contrast or another test",
                    "hydrate": "extra fluids before and after",
                    "radiologist_review": "radiologist to review before booking",
                },
            ),
            "detail": text("Detail", 120, TERM),
            "note": text("Note"),
        },
        ["agent", "approach"],
    ),
    org_type(
        "scan_positioning",
        "account_fact",
        "Positioning and scanner limits",
        ["appointment_scheduling", "care_coordination"],
        ["staff", "ehr_import", "agent_proposal"],
        ["limit"],
        "Scanning: {limit}[ ({detail})][; at most {max_minutes} minutes on the table][; {note}]",
        {
            "limit": enum(
                "Limit",
                {
                    "table_weight": "above the standard table weight limit",
                    "wide_bore": "needs the wide-bore scanner",
                    "cannot_lie_flat": "cannot lie flat",
                    "cannot_lie_prone": "cannot lie face down",
                    "arms_down": "cannot raise the arms above the head",
                    "involuntary_movement": "involuntary movement",
                    "fixed_contracture": "fixed joint contracture",
                    "feet_first": "feet first into the scanner only",
                    "hoist_transfer": "hoist onto the scanner table",
                },
            ),
            "detail": text("Detail", 120, TERM),
            "max_minutes": {"type": "integer", "title": "Longest time on the table (minutes)", "minimum": 5,
                            "maximum": 120},
            "note": text("Note"),
        },
        ["limit"],
    ),
    org_type(
        "endoscopy_sedation",
        "preference",
        "Comfort and sedation choice for endoscopy",
        ["care_coordination", "appointment_scheduling", "communication"],
        ANYONE,
        ["procedure"],
        "Endoscopy comfort ({procedure}): {choice}[; {note}]",
        {
            "procedure": enum(
                "Procedure",
                {
                    "gastroscopy": "gastroscopy",
                    "colonoscopy": "colonoscopy",
                    "flexible_sigmoidoscopy": "flexible sigmoidoscopy",
                    "ercp": "ERCP",
                    "endoscopic_ultrasound": "endoscopic ultrasound",
                    "cystoscopy": "flexible cystoscopy",
                    "bronchoscopy": "bronchoscopy",
                    "any": "any endoscopy",
                },
            ),
            "choice": enum(
                "Choice",
                {
                    "throat_spray": "local anaesthetic throat spray only",
                    "conscious_sedation": "intravenous conscious sedation",
                    "entonox": "gas and air (Entonox)",
                    "propofol": "deep sedation with propofol",
                    "no_sedation": "nothing, fully awake",
                    "general_anaesthetic": "general anaesthetic",
                },
            ),
            "note": text("Note"),
        },
        ["procedure", "choice"],
    ),
    org_type(
        "sedation_aftercare",
        "account_fact",
        "Responsible adult and going home after sedation",
        ["care_coordination", "appointment_scheduling"],
        ["patient", "staff", "agent_proposal"],
        [],
        "After sedation: collected by {collector}[ ({relationship})][, phone {phone}][; an adult stays overnight{overnight_adult?}][; lives alone{lives_alone?}][; {note}]",
        {
            "collector": text("Who collects", 80, NAME),
            "relationship": enum(
                "Relationship",
                {
                    "partner": "partner",
                    "adult_child": "adult son or daughter",
                    "parent": "parent",
                    "sibling": "brother or sister",
                    "friend": "friend",
                    "neighbour": "neighbour",
                    "care_home_staff": "care home staff",
                    "paid_carer": "paid carer",
                },
            ),
            "phone": {"type": "string", "title": "Phone", "maxLength": 20, "pattern": "^\\+?[0-9 ()-]{6,20}$"},
            "overnight_adult": boolean("An adult stays overnight"),
            "lives_alone": boolean("Lives alone"),
            "note": text("Note"),
        },
        ["collector"],
    ),
    org_type(
        "radionuclide_precautions",
        "care_context",
        "Radiation precautions after a nuclear medicine test or treatment",
        ["care_coordination", "communication", "appointment_scheduling"],
        STAFF,
        ["procedure"],
        "Nuclear medicine ({procedure}): {precautions}[ for {days} days][; {note}]",
        {
            "procedure": enum(
                "Test or treatment",
                {
                    "radioiodine_therapy": "radioactive iodine treatment",
                    "thyroid_uptake_scan": "thyroid uptake scan",
                    "bone_scan": "bone scan",
                    "pet_ct": "PET-CT",
                    "lutetium_therapy": "lutetium treatment",
                    "myocardial_perfusion": "heart perfusion scan",
                    "sentinel_node": "sentinel node injection",
                    "renogram": "kidney scan",
                },
            ),
            "precautions": enum_list(
                "Precautions",
                {
                    "avoid_young_children": "keep away from young children",
                    "avoid_pregnant_contacts": "keep away from pregnant people",
                    "stop_breastfeeding": "stop breastfeeding",
                    "sleep_separately": "sleep in a separate bed",
                    "low_iodine_diet": "low-iodine diet beforehand",
                    "carry_travel_letter": "carry a letter for airport radiation detectors",
                    "no_work_with_children": "stay off work with children",
                },
            ),
            "days": {"type": "integer", "title": "For (days)", "minimum": 1, "maximum": 60},
            "note": text("Note"),
        },
        ["procedure", "precautions"],
    ),
    org_type(
        "pregnancy_screen",
        "account_fact",
        "Pregnancy check before radiation or contrast",
        ["care_coordination", "appointment_scheduling"],
        ["staff", "ehr_import"],
        [],
        "Pregnancy check: {status}[; {note}]",
        {
            "status": enum(
                "Status",
                {
                    "not_applicable": "not needed (no uterus)",
                    "check_each_visit": "ask and test at each visit",
                    "pregnant": "pregnant",
                    "breastfeeding": "breastfeeding",
                    "iud_or_implant": "long-acting contraception in place",
                    "postmenopausal": "postmenopausal",
                    "declines_test": "declines a pregnancy test",
                },
            ),
            "note": text("Note"),
        },
        ["status"],
    ),
    org_type(
        "surveillance_interval",
        "account_fact",
        "Repeat scope or scan interval",
        ["appointment_scheduling", "care_coordination"],
        ["staff", "ehr_import"],
        ["procedure"],
        "Surveillance: {procedure} every {every_months} months[ for {reason}][; next due {next_due}][; {note}]",
        {
            "procedure": enum(
                "Procedure",
                {
                    "colonoscopy": "colonoscopy",
                    "gastroscopy": "gastroscopy",
                    "ct": "CT scan",
                    "mri": "MRI scan",
                    "ultrasound": "ultrasound",
                    "mammogram": "mammogram",
                    "dexa": "bone density scan",
                    "cystoscopy": "cystoscopy",
                },
            ),
            "every_months": {"type": "integer", "title": "Every (months)", "minimum": 1, "maximum": 120},
            "reason": text("Reason", 80, TERM),
            "next_due": dict(DATE, title="Next due"),
            "note": text("Note"),
        },
        ["procedure", "every_months"],
    ),
    org_type(
        "prior_imaging",
        "account_fact",
        "Earlier scans held at another hospital",
        ["care_coordination"],
        ["staff", "ehr_import", "agent_proposal"],
        ["modality", "body_part"],
        "Earlier imaging: {modality} {body_part}[ at {hospital}][ ({year})]; {status}[; {note}]",
        {
            "modality": enum(
                "Modality",
                {"ct": "CT", "mri": "MRI", "ultrasound": "ultrasound", "xray": "X-ray", "pet_ct": "PET-CT",
                 "mammogram": "mammogram", "nuclear": "nuclear medicine scan"},
            ),
            "body_part": text("Body part", 60, TERM),
            "hospital": text("Where", 80, TERM),
            "year": {"type": "integer", "title": "Year", "minimum": 1990, "maximum": 2026},
            "status": enum(
                "Images",
                {
                    "requested": "images requested",
                    "imported": "images imported for comparison",
                    "unavailable": "images not available",
                    "patient_has_disc": "patient holds a disc",
                },
            ),
            "note": text("Note"),
        },
        ["modality", "body_part", "status"],
    ),
]

if __name__ == "__main__":
    with open(OUT, "w") as f:
        json.dump(TYPES, f, indent=2)
        f.write("\n")
    print(f"wrote {len(TYPES)} types to {os.path.normpath(OUT)}")
