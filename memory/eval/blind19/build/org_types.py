#!/usr/bin/env python3
"""Writes ../org_types.json: ten organisation-defined memory types in the catalogue format (cancer care and
urology: radiotherapy preparation, radiotherapy skin care, pharmacogenomic test results such as DPYD, scalp
cooling, fertility preservation, ureteric stents and nephrostomies, bladder instillations, body-fluid and
radiation precautions at home, inherited cancer genes, cancer follow-up pathways).

None of them repeats the subject of an organisation type of earlier sets (as listed by subject in
memory/eval/blind15/README.md and memory/eval/blind16/README.md, plus blind17's and blind18's types) or of a
built-in type. Helpers copied from memory/eval/blind16/build/org_types.py.
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


VARIANT = "^[A-Za-z0-9*.][A-Za-z0-9 ,.()'/*>:+_-]{0,59}$"


def integer(title, minimum, maximum):
    return {"type": "integer", "title": title, "minimum": minimum, "maximum": maximum}


TYPES = [
    org_type(
        "radiotherapy_preparation",
        "account_fact",
        "Getting ready for each radiotherapy session",
        ["appointment_scheduling", "care_coordination", "communication"],
        STAFF,
        [],
        "Radiotherapy to {site}[ in {fractions} fractions][; bladder {bladder}][, drink {drink_ml} ml][ {drink_minutes_before} minutes before][; bowel {bowel}][; breath hold {breath_hold?}][; {note}]",
        {
            "site": enum(
                "Treated area",
                {
                    "prostate": "the prostate",
                    "prostate_bed": "the prostate bed",
                    "bladder": "the bladder",
                    "rectum": "the rectum",
                    "anus": "the anus",
                    "cervix": "the cervix",
                    "endometrium": "the womb (endometrium)",
                    "vulva": "the vulva",
                    "left_breast": "the left breast",
                    "right_breast": "the right breast",
                    "lung": "the lung",
                    "head_and_neck": "the head and neck",
                    "brain": "the brain",
                    "bone": "a bone (palliative)",
                },
            ),
            "fractions": integer("Number of fractions", 1, 45),
            "bladder": enum(
                "Bladder",
                {"comfortably_full": "comfortably full", "empty": "empty", "not_needed": "no bladder preparation"},
            ),
            "drink_ml": integer("Water to drink (ml)", 0, 1500),
            "drink_minutes_before": integer("Minutes before the session", 0, 120),
            "bowel": enum(
                "Bowel",
                {
                    "micro_enema": "a micro-enema before planning and each session",
                    "empty_bowels": "open the bowels before the session",
                    "laxative": "a daily laxative",
                    "none": "no bowel preparation",
                },
            ),
            "breath_hold": boolean("Deep-inspiration breath hold"),
            "note": text("Note"),
        },
        ["site"],
    ),
    org_type(
        "radiation_skin_care",
        "care_context",
        "Skin care in the radiotherapy field",
        ["care_coordination", "communication"],
        STAFF,
        [],
        "Skin in the radiotherapy field ({area}): {reaction}[; use {product}][; avoid {avoid}][; {note}]",
        {
            "area": text("Area", 80, TERM),
            "reaction": enum(
                "Reaction",
                {
                    "none": "no reaction yet",
                    "redness": "redness (grade 1)",
                    "dry_peeling": "dry peeling (grade 2)",
                    "moist_peeling": "moist, weeping skin (grade 3)",
                    "healing": "healing",
                },
            ),
            "product": text("Product to use", 120, TERM),
            "avoid": text("Avoid", 160),
            "note": text("Note"),
        },
        ["area", "reaction"],
    ),
    org_type(
        "pharmacogenomic_result",
        "care_context",
        "Gene test result that changes medicine dosing",
        ["care_coordination", "communication"],
        STAFF,
        ["gene"],
        "{gene} result: {result}[ ({variant})][; affects {affects}][; {action}][; tested {tested}]",
        {
            "gene": enum(
                "Gene",
                {
                    "DPYD": "DPYD (DPD enzyme)",
                    "TPMT": "TPMT",
                    "NUDT15": "NUDT15",
                    "UGT1A1": "UGT1A1",
                    "G6PD": "G6PD",
                    "MT-RNR1": "MT-RNR1 (aminoglycoside hearing loss)",
                },
            ),
            "result": enum(
                "Result",
                {
                    "normal": "normal activity",
                    "intermediate": "intermediate (partial deficiency)",
                    "poor": "poor or no activity",
                    "variant_present": "variant present",
                    "not_detected": "no variant detected",
                    "awaited": "sample sent, result awaited",
                },
            ),
            "variant": text("Variant", 60, VARIANT),
            "affects": text("Medicines affected", 160),
            "action": text("Action", 200),
            "tested": date("Tested"),
        },
        ["gene", "result"],
    ),
    org_type(
        "scalp_cooling",
        "preference",
        "Scalp cooling (cold cap) during chemotherapy",
        ["appointment_scheduling", "care_coordination"],
        ANYONE,
        [],
        "Scalp cooling: {status}[; add {extra_minutes} minutes to the chair time][; {reason}][; {note}]",
        {
            "status": enum(
                "Status",
                {
                    "wanted": "wants it, not started",
                    "using": "using it",
                    "stopped": "stopped",
                    "declined": "declined",
                    "not_suitable": "not suitable",
                },
            ),
            "extra_minutes": integer("Extra chair minutes", 0, 180),
            "reason": text("Reason", 160),
            "note": text("Note"),
        },
        ["status"],
    ),
    org_type(
        "fertility_preservation",
        "account_fact",
        "Fertility preservation before cancer treatment",
        ["care_coordination", "communication"],
        STAFF,
        ["method"],
        "Fertility: {method} {status}[ at {unit}][; storage consent renew by {consent_renewal}][; {note}]",
        {
            "method": enum(
                "Method",
                {
                    "sperm_banking": "sperm banking",
                    "egg_freezing": "egg freezing",
                    "embryo_freezing": "embryo freezing",
                    "ovarian_tissue": "ovarian tissue freezing",
                    "ovarian_suppression": "ovarian suppression injections during chemotherapy",
                },
            ),
            "status": enum(
                "Status",
                {
                    "offered": "offered",
                    "referred": "referred",
                    "stored": "done, samples stored",
                    "declined": "declined",
                    "not_possible": "not possible",
                    "in_progress": "in progress",
                },
            ),
            "unit": text("Unit", 80, TERM),
            "consent_renewal": date("Storage consent renewal"),
            "note": text("Note"),
        },
        ["method", "status"],
    ),
    org_type(
        "upper_tract_drain",
        "care_context",
        "Ureteric stent or nephrostomy",
        ["care_coordination", "appointment_scheduling", "communication"],
        STAFF,
        ["side"],
        "{device} ({side})[ since {inserted}][; change or removal due {change_due}][; by {managed_by}][; {note}]",
        {
            "device": enum(
                "Device",
                {
                    "ureteric_stent": "ureteric (JJ) stent",
                    "nephrostomy": "nephrostomy tube",
                    "nephroureteric_stent": "nephro-ureteric stent",
                    "stent_on_string": "stent on a string",
                },
            ),
            "side": enum("Side", {"left": "left", "right": "right", "both": "both sides"}),
            "inserted": date("Inserted"),
            "change_due": date("Change or removal due"),
            "managed_by": enum(
                "Changed by",
                {
                    "urology": "urology",
                    "interventional_radiology": "interventional radiology",
                    "self_removal": "the patient pulls the string",
                },
            ),
            "note": text("Note"),
        },
        ["device", "side"],
    ),
    org_type(
        "intravesical_therapy",
        "care_context",
        "Bladder instillation course",
        ["appointment_scheduling", "care_coordination", "communication"],
        STAFF,
        ["agent"],
        "Bladder instillations of {agent}: {phase}[; {done} of {planned} given][; hold {hold_minutes} minutes][; {note}]",
        {
            "agent": enum(
                "Agent",
                {
                    "bcg": "BCG",
                    "mitomycin": "mitomycin C",
                    "gemcitabine": "gemcitabine",
                    "gemcitabine_docetaxel": "gemcitabine then docetaxel",
                    "hyaluronic_acid": "hyaluronic acid (bladder lining)",
                },
            ),
            "phase": enum(
                "Phase",
                {
                    "single_dose": "single dose after resection",
                    "induction": "weekly induction",
                    "maintenance": "maintenance",
                    "paused": "paused",
                    "completed": "completed",
                    "stopped": "stopped",
                },
            ),
            "done": integer("Given so far", 0, 40),
            "planned": integer("Planned", 1, 40),
            "hold_minutes": integer("Hold in the bladder (minutes)", 0, 240),
            "note": text("Note"),
        },
        ["agent", "phase"],
    ),
    org_type(
        "body_fluid_precautions",
        "care_context",
        "Body-fluid or radiation precautions after treatment",
        ["care_coordination", "communication"],
        STAFF,
        ["after"],
        "After {after}: precautions for {days} days[ ({precautions})][; waste {waste}][; {note}]",
        {
            "after": enum(
                "After",
                {
                    "iv_chemotherapy": "chemotherapy into a vein",
                    "oral_anticancer": "anti-cancer tablets",
                    "intravesical_bcg": "BCG in the bladder",
                    "intravesical_chemotherapy": "chemotherapy in the bladder",
                    "radioactive_iodine": "radioactive iodine",
                    "radium_223": "radium-223 injections",
                    "lutetium_177": "lutetium-177 treatment",
                    "brachytherapy_seeds": "permanent seed implants",
                },
            ),
            "days": integer("Days", 1, 180),
            "precautions": enum_list(
                "Precautions",
                {
                    "double_flush": "flush twice with the lid down",
                    "sit_to_urinate": "sit down to pass urine",
                    "bleach_toilet": "bleach in the toilet after passing urine",
                    "gloves_for_carers": "carers wear gloves with body fluids",
                    "condoms": "use condoms",
                    "separate_laundry": "wash soiled laundry separately",
                    "distance_from_children_pregnant": "keep apart from children and pregnant women",
                },
            ),
            "waste": enum(
                "Waste",
                {
                    "cytotoxic_bin": "purple-lidded cytotoxic bin, collected",
                    "sealed_bag": "double-bagged with the household rubbish",
                    "return_to_hospital": "returned to the hospital",
                },
            ),
            "note": text("Note"),
        },
        ["after", "days"],
    ),
    org_type(
        "inherited_cancer_gene",
        "account_fact",
        "Inherited cancer gene testing",
        ["care_coordination", "communication"],
        STAFF,
        ["gene"],
        "{gene}: {result}[; relatives {relatives}][; {clinic}][; {note}]",
        {
            "gene": enum(
                "Gene",
                {
                    "BRCA1": "BRCA1",
                    "BRCA2": "BRCA2",
                    "PALB2": "PALB2",
                    "ATM": "ATM",
                    "CHEK2": "CHEK2",
                    "MLH1": "MLH1 (Lynch syndrome)",
                    "MSH2": "MSH2 (Lynch syndrome)",
                    "MSH6": "MSH6 (Lynch syndrome)",
                    "PMS2": "PMS2 (Lynch syndrome)",
                    "TP53": "TP53 (Li-Fraumeni)",
                    "panel": "a gene panel",
                },
            ),
            "result": enum(
                "Result",
                {
                    "pathogenic": "harmful variant found",
                    "uncertain": "variant of uncertain significance",
                    "none_found": "no harmful variant found",
                    "awaited": "test sent, result awaited",
                    "declined": "testing declined",
                },
            ),
            "relatives": enum(
                "Relatives",
                {
                    "letter_given": "family letter given to the patient",
                    "informed": "told by the patient",
                    "not_to_be_told": "patient does not want relatives told yet",
                    "tested": "relatives tested",
                },
            ),
            "clinic": text("Genetics clinic", 80, TERM),
            "note": text("Note"),
        },
        ["gene", "result"],
    ),
    org_type(
        "follow_up_pathway",
        "account_fact",
        "Cancer follow-up arrangement",
        ["appointment_scheduling", "care_coordination", "communication"],
        STAFF,
        ["cancer"],
        "{cancer} cancer follow-up: {pathway}[; {tests}][ every {interval_months} months][ until {until}][; contact {contact}][; {note}]",
        {
            "cancer": enum(
                "Cancer",
                {
                    "breast": "Breast",
                    "prostate": "Prostate",
                    "bowel": "Bowel",
                    "lung": "Lung",
                    "bladder": "Bladder",
                    "kidney": "Kidney",
                    "ovarian": "Ovarian",
                    "womb": "Womb",
                    "cervical": "Cervical",
                    "lymphoma": "Lymphoma",
                    "testicular": "Testicular",
                },
            ),
            "pathway": enum(
                "Pathway",
                {
                    "patient_initiated": "patient-initiated (open access), no routine clinic",
                    "scheduled_clinic": "scheduled clinic visits",
                    "nurse_telephone": "nurse-led telephone clinic",
                    "remote_monitoring": "remote monitoring of results by the team",
                    "gp_led": "the GP",
                    "on_treatment": "on active treatment, follow-up not started",
                },
            ),
            "tests": text("Tests", 120, TERM),
            "interval_months": integer("Interval (months)", 1, 24),
            "until": date("Until"),
            "contact": text("Contact", 80, TERM),
            "note": text("Note"),
        },
        ["cancer", "pathway"],
    ),
]

if __name__ == "__main__":
    with open(OUT, "w") as f:
        json.dump(TYPES, f, indent=2)
        f.write("\n")
    print(f"wrote {len(TYPES)} types to {os.path.normpath(OUT)}")
