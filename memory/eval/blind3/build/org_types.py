#!/usr/bin/env python3
"""Writes ../org_types.json: ten organisation-defined memory types in the catalogue format.

None of them repeats the subject of a type of the first or second set (only the names of their organisation
types were read) or of a built-in type. Helpers copied from memory/eval/blind2/build/org_types.py.
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


TYPES = [
    org_type(
        "swallow_texture",
        "care_context",
        "Food and drink textures (IDDSI)",
        ["care_coordination"],
        STAFF,
        [],
        "Swallowing: food at {food_level}, drinks at {drink_level}[; thickener {thickener}][; set by {assessed_by}]"
        "[; {note}]",
        {
            "food_level": enum(
                "Food texture",
                {
                    "iddsi_3_liquidised": "IDDSI level 3, liquidised",
                    "iddsi_4_pureed": "IDDSI level 4, pureed",
                    "iddsi_5_minced_moist": "IDDSI level 5, minced and moist",
                    "iddsi_6_soft_bite_sized": "IDDSI level 6, soft and bite-sized",
                    "iddsi_7_easy_to_chew": "IDDSI level 7, easy to chew",
                    "iddsi_7_regular": "IDDSI level 7, regular",
                    "nil_by_mouth": "nothing by mouth",
                },
            ),
            "drink_level": enum(
                "Drink consistency",
                {
                    "iddsi_0_thin": "IDDSI level 0, thin",
                    "iddsi_1_slightly_thick": "IDDSI level 1, slightly thick",
                    "iddsi_2_mildly_thick": "IDDSI level 2, mildly thick",
                    "iddsi_3_moderately_thick": "IDDSI level 3, moderately thick",
                    "iddsi_4_extremely_thick": "IDDSI level 4, extremely thick",
                    "nil_by_mouth": "nothing by mouth",
                },
            ),
            "thickener": text("Thickener product", 80, TERM),
            "assessed_by": enum(
                "Set by",
                {
                    "speech_and_language_therapist": "a speech and language therapist",
                    "dietitian": "a dietitian",
                    "nurse_screen": "a nurse swallow screen",
                },
            ),
            "note": text("Note"),
        },
        ["food_level", "drink_level"],
    ),
    org_type(
        "limb_alert",
        "care_context",
        "Limb restrictions for procedures",
        ["care_coordination", "appointment_scheduling"],
        STAFF,
        ["limb"],
        "Limb alert: {limb}: avoid {avoid} ({reason})[; {note}]",
        {
            "limb": enum(
                "Limb",
                {
                    "left_arm": "left arm",
                    "right_arm": "right arm",
                    "both_arms": "both arms",
                    "left_leg": "left leg",
                    "right_leg": "right leg",
                },
            ),
            "avoid": enum_list(
                "Avoid on that limb",
                {
                    "blood_pressure_cuff": "blood pressure cuff",
                    "cannula": "cannulas and drips",
                    "blood_taking": "taking blood",
                    "injections": "injections",
                    "tourniquet": "tourniquets",
                },
            ),
            "reason": enum(
                "Reason",
                {
                    "lymph_node_clearance": "after lymph node removal",
                    "lymphoedema": "lymphoedema",
                    "av_fistula": "dialysis fistula",
                    "vein_preservation": "veins kept for a future dialysis fistula",
                    "stroke_weakness": "weakness after a stroke",
                    "vascular_graft": "vascular graft",
                },
            ),
            "note": text("Note"),
        },
        ["limb", "avoid", "reason"],
    ),
    org_type(
        "legal_authority",
        "account_fact",
        "Legal powers over decisions",
        ["care_coordination", "communication"],
        ["staff"],
        ["power"],
        "Legal authority: {power} held by {holder}[ ({relationship})][; document seen{document_seen?}]"
        "[; covers life-sustaining treatment{life_sustaining_treatment?}][; {note}]",
        {
            "power": enum(
                "Power",
                {
                    "lpa_health_welfare": "lasting power of attorney for health and welfare",
                    "lpa_property_finance": "lasting power of attorney for property and financial affairs",
                    "deputy_health_welfare": "Court of Protection deputy for personal welfare",
                    "deputy_property_affairs": "Court of Protection deputy for property and affairs",
                    "special_guardianship": "special guardianship order",
                    "parental_responsibility": "parental responsibility (not a birth parent)",
                },
            ),
            "holder": text("Held by", 80, NAME),
            "relationship": enum(
                "Relationship",
                {
                    "spouse_or_partner": "spouse or partner",
                    "son": "son",
                    "daughter": "daughter",
                    "sibling": "sibling",
                    "grandparent": "grandparent",
                    "other_relative": "relative",
                    "friend": "friend",
                    "solicitor": "solicitor",
                    "local_authority": "local authority",
                },
            ),
            "document_seen": boolean("Registered document or court order seen"),
            "life_sustaining_treatment": boolean("Covers decisions about life-sustaining treatment"),
            "note": text("Note"),
        },
        ["power", "holder"],
    ),
    org_type(
        "reassurance_profile",
        "preference",
        "What helps the patient feel settled",
        ["care_coordination", "appointment_scheduling"],
        ANYONE,
        [],
        "Settles with: {calmed_by}[ ({detail})][; unsettled by {upset_by}][; most unsettled in the {unsettled_time}]"
        "[; {note}]",
        {
            "calmed_by": enum_list(
                "What settles them",
                {
                    "music": "music",
                    "gardening": "talking about gardening",
                    "sport": "talking about sport",
                    "family_photos": "looking at family photographs",
                    "animals": "animals",
                    "prayer": "prayer or religious songs",
                    "baking": "cooking and baking",
                    "former_work": "talking about their working life",
                    "walking": "a walk",
                    "tea_and_chat": "a cup of tea and a chat",
                    "crafts": "knitting or crafts",
                },
            ),
            "detail": text("Detail", 120),
            "upset_by": enum_list(
                "What unsettles them",
                {
                    "being_rushed": "being rushed",
                    "noise_and_crowds": "noise and crowds",
                    "touch_without_warning": "being touched without warning",
                    "mention_of_bereavement": "being reminded of a bereavement",
                    "darkness": "darkness",
                    "being_left_alone": "being left alone",
                    "uniforms": "uniforms",
                },
            ),
            "unsettled_time": enum(
                "Most unsettled",
                {"morning": "morning", "afternoon": "afternoon", "late_afternoon": "late afternoon", "night": "night"},
            ),
            "note": text("Note"),
        },
        ["calmed_by"],
    ),
    org_type(
        "continence_product",
        "account_fact",
        "Continence and stoma products",
        ["care_coordination", "appointment_scheduling"],
        ANYONE,
        ["product"],
        "Continence: {product}[ ({detail})][; supplied through {supplier}][; brings own supplies{brings_own?}]"
        "[; {note}]",
        {
            "product": enum(
                "Product",
                {
                    "pads": "pads",
                    "pull_ups": "pull-up pants",
                    "urinary_sheath": "urinary sheath",
                    "urethral_catheter": "long-term urethral catheter",
                    "suprapubic_catheter": "suprapubic catheter",
                    "self_catheterisation": "intermittent self-catheterisation",
                    "colostomy": "colostomy",
                    "ileostomy": "ileostomy",
                    "urostomy": "urostomy",
                },
            ),
            "detail": text("Make, size or type", 80, TERM),
            "supplier": enum(
                "Supplied through",
                {
                    "continence_service": "the NHS continence service",
                    "home_delivery": "a home delivery company",
                    "gp_prescription": "a GP prescription",
                    "self_funded": "the patient buys their own",
                },
            ),
            "brings_own": boolean("Brings their own supplies to appointments and admissions"),
            "note": text("Note"),
        },
        ["product"],
    ),
    org_type(
        "shift_pattern",
        "preference",
        "Work shifts and sleep times",
        ["appointment_scheduling", "communication"],
        ANYONE,
        [],
        "Work and sleep: {pattern}[; asleep {asleep_from} to {asleep_until}][; works as {occupation}][; {note}]",
        {
            "pattern": enum(
                "Pattern",
                {
                    "regular_nights": "works regular night shifts",
                    "rotating_shifts": "works rotating shifts",
                    "early_shifts": "works early shifts",
                    "late_shifts": "works late shifts",
                    "long_days": "works twelve-hour days",
                    "daytime_sleeper": "sleeps in the daytime",
                },
            ),
            "asleep_from": time("Usually asleep from"),
            "asleep_until": time("Usually asleep until"),
            "occupation": text("Occupation", 80, TERM),
            "note": text("Note"),
        },
        ["pattern"],
    ),
    org_type(
        "education_setting",
        "account_fact",
        "School, nursery or college",
        ALL,
        ["patient", "staff"],
        [],
        "Education: {setting}[ ({setting_name})][; individual healthcare plan{healthcare_plan?}]"
        "[; education, health and care plan{ehcp?}][; medicines kept there: {medicines_held}][; {note}]",
        {
            "setting": enum(
                "Setting",
                {
                    "nursery": "nursery or childminder",
                    "primary_school": "primary school",
                    "secondary_school": "secondary school",
                    "special_school": "special school",
                    "college": "sixth form or college",
                    "university": "university",
                    "home_educated": "educated at home",
                },
            ),
            "setting_name": text("Name of the setting", 80, TERM),
            "healthcare_plan": boolean("Has an individual healthcare plan there"),
            "ehcp": boolean("Has an education, health and care plan"),
            "medicines_held": enum_list(
                "Medicines kept there",
                {
                    "adrenaline_pens": "adrenaline pens",
                    "reliever_inhaler": "reliever inhaler",
                    "insulin": "insulin",
                    "buccal_midazolam": "buccal midazolam",
                    "other": "other medicines",
                },
            ),
            "note": text("Note"),
        },
        ["setting"],
    ),
    org_type(
        "vaccine_preference",
        "preference",
        "Vaccination wishes",
        ALL,
        ANYONE,
        ["vaccine"],
        "Vaccination: {vaccine}: {stance}[ ({reason})][; {note}]",
        {
            "vaccine": enum(
                "Vaccine",
                {
                    "flu": "flu vaccine",
                    "nasal_flu": "nasal flu spray",
                    "covid": "COVID-19 vaccine",
                    "mmr": "MMR",
                    "shingles": "shingles vaccine",
                    "pneumococcal": "pneumococcal vaccine",
                    "hpv": "HPV vaccine",
                    "pertussis_in_pregnancy": "whooping cough vaccine in pregnancy",
                    "rsv": "RSV vaccine",
                    "childhood_schedule": "routine childhood vaccines",
                },
            ),
            "stance": enum(
                "Wish",
                {
                    "declines": "declines it; do not send invitations",
                    "wants_discussion_first": "wants to talk it through with a clinician first",
                    "gelatine_free_only": "accepts only a version without porcine gelatine",
                    "at_home_only": "accepts it only as a home visit",
                    "accepts": "happy to have it",
                },
            ),
            "reason": enum(
                "Reason",
                {
                    "porcine_gelatine": "porcine gelatine",
                    "previous_reaction": "a reaction to an earlier dose",
                    "personal_belief": "personal belief",
                    "wants_more_information": "wants more information",
                    "housebound": "housebound",
                    "not_given": "reason not given",
                },
            ),
            "note": text("Note"),
        },
        ["vaccine", "stance"],
    ),
    org_type(
        "remote_consultation",
        "preference",
        "Phone and video consultations",
        ["appointment_scheduling", "communication"],
        ANYONE,
        [],
        "Remote consultations: {mode}[; device: {device}][; helped by {helper}][; difficulty: {difficulty}][; {note}]",
        {
            "mode": enum(
                "Preferred",
                {
                    "video_preferred": "prefers video calls",
                    "phone_preferred": "prefers a phone call to video",
                    "in_person_only": "wants to be seen in person, not remotely",
                    "video_with_helper": "video calls only with someone to help",
                    "online_form": "prefers an online consultation form",
                },
            ),
            "device": enum(
                "Device",
                {
                    "smartphone": "smartphone",
                    "tablet": "tablet",
                    "laptop": "laptop or computer",
                    "landline_only": "landline only",
                    "no_phone": "no phone of their own",
                },
            ),
            "helper": text("Who helps", 80, NAME),
            "difficulty": enum(
                "Difficulty",
                {
                    "hearing_on_phone": "hard of hearing on the phone",
                    "poor_signal": "poor signal or no internet at home",
                    "no_private_space": "no private space at home",
                    "memory": "memory problems",
                },
            ),
            "note": text("Note"),
        },
        ["mode"],
    ),
    org_type(
        "home_fire_risk",
        "account_fact",
        "Fire risks at home",
        ["care_coordination"],
        ["staff"],
        ["hazard"],
        "Fire risk at home: {hazard}[; fire service safety visit {fire_service_visit}][; {note}]",
        {
            "hazard": enum(
                "Hazard",
                {
                    "oxygen_and_smoking": "smokes while using home oxygen",
                    "home_oxygen": "home oxygen in use",
                    "smokes_in_bed_or_chair": "smokes in bed or in the armchair",
                    "paraffin_emollients": "paraffin-based skin creams soak into clothes and bedding",
                    "e_cigarette_charging": "charges e-cigarettes or mobility scooter batteries overnight",
                    "hoarding": "hoarding",
                    "open_fire_or_heater": "open fire or portable heater",
                },
            ),
            "fire_service_visit": enum(
                "Fire service home safety visit",
                {"done": "done", "referred": "referred", "declined": "declined"},
            ),
            "note": text("Note"),
        },
        ["hazard"],
    ),
]

if __name__ == "__main__":
    with open(OUT, "w") as f:
        json.dump(TYPES, f, indent=2)
        f.write("\n")
    print(f"wrote {len(TYPES)} organisation types to {os.path.normpath(OUT)}")
