#!/usr/bin/env python3
"""Writes ../org_types.json: ten organisation-defined memory types in the catalogue format (rehabilitation,
therapies, audiology, optometry, dental).

None of them repeats the subject of an organisation type of sets blind to blind7 (only the names of their
organisation types were read) or of a built-in type. Helpers copied from memory/eval/blind3/build/org_types.py.
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
        "equipment_loan",
        "account_fact",
        "Rehabilitation equipment on loan",
        ["care_coordination", "appointment_scheduling"],
        ["staff", "ehr_import", "agent_proposal"],
        ["item"],
        "On loan: {item}[ ({detail})][ from {store}][; collect by {return_due}][; {note}]",
        {
            "item": enum(
                "Item",
                {
                    "rollator": "a four-wheeled rollator",
                    "zimmer_frame": "a pick-up walking frame",
                    "perching_stool": "a perching stool",
                    "raised_toilet_seat": "a raised toilet seat",
                    "toilet_frame": "a toilet frame",
                    "bath_board": "a bath board",
                    "shower_chair": "a shower chair",
                    "profiling_bed": "a profiling bed",
                    "commode": "a commode",
                    "manual_wheelchair": "a manual wheelchair",
                    "riser_recliner": "a riser-recliner chair",
                    "helping_hand": "a long-handled reacher",
                },
            ),
            "detail": text("Detail", 120, TERM),
            "store": text("Equipment store", 80, TERM),
            "return_due": {"type": "string", "title": "Return due", "format": "date", "maxLength": 10,
                           "pattern": "^[0-9]{4}-[0-9]{2}-[0-9]{2}$"},
            "note": text("Note"),
        },
        ["item"],
    ),
    org_type(
        "home_adaptation",
        "account_fact",
        "Adaptations at home",
        ["care_coordination", "appointment_scheduling"],
        ["staff", "ehr_import", "agent_proposal"],
        ["adaptation"],
        "Home adaptation: {adaptation} ({status})[; {detail}][; {note}]",
        {
            "adaptation": enum(
                "Adaptation",
                {
                    "grab_rails": "grab rails",
                    "stair_rail": "a second stair rail",
                    "stairlift": "a stairlift",
                    "through_floor_lift": "a through-floor lift",
                    "ramp": "a ramp at the entrance",
                    "level_access_shower": "a level-access shower",
                    "key_safe": "a key safe",
                    "door_widening": "widened doors",
                    "ceiling_hoist": "a ceiling track hoist",
                    "downstairs_living": "living downstairs",
                },
            ),
            "status": enum(
                "Status",
                {
                    "installed": "installed",
                    "awaiting_install": "awaiting installation",
                    "assessed": "assessed, not yet approved",
                    "declined": "declined by the patient",
                },
            ),
            "detail": text("Detail", 120, TERM),
            "note": text("Note"),
        },
        ["adaptation", "status"],
    ),
    org_type(
        "hearing_aid_fitting",
        "account_fact",
        "Audiology fitting and hearing aid settings",
        ["care_coordination", "communication", "appointment_scheduling"],
        ["staff", "ehr_import"],
        ["ear"],
        "Hearing: {ear}: {loss} loss[, {aid_style} aid][ {model}][, battery size {battery}][; {note}]",
        {
            "ear": enum("Ear", {"left": "left ear", "right": "right ear", "both": "both ears"}),
            "loss": enum(
                "Hearing loss",
                {
                    "mild": "mild",
                    "moderate": "moderate",
                    "severe": "severe",
                    "profound": "profound",
                    "single_sided_deafness": "single-sided deafness",
                },
            ),
            "aid_style": enum(
                "Aid",
                {
                    "behind_the_ear": "behind-the-ear",
                    "receiver_in_canal": "receiver-in-canal",
                    "in_the_ear": "in-the-ear",
                    "cros": "CROS",
                    "bone_conduction": "bone-conduction",
                    "none": "no",
                },
            ),
            "model": text("Model", 80, TERM),
            "battery": enum("Battery size", {"10": "10 (yellow)", "312": "312 (brown)", "13": "13 (orange)",
                                              "675": "675 (blue)", "rechargeable": "rechargeable"}),
            "note": text("Note"),
        },
        ["ear"],
    ),
    org_type(
        "optical_record",
        "account_fact",
        "Sight test, glasses and low-vision aids",
        ["care_coordination", "communication", "appointment_scheduling"],
        ["staff", "ehr_import"],
        ["aspect"],
        "Eyes: {aspect}: {value}[; {detail}][; {note}]",
        {
            "aspect": enum(
                "Aspect",
                {
                    "spectacles": "spectacles",
                    "low_vision_aid": "low-vision aid",
                    "registration": "sight impairment registration",
                    "dilation": "dilating drops",
                    "eye_condition": "eye condition",
                },
            ),
            "value": text("What", 80, TERM),
            "detail": text("Detail", 120, TERM),
            "note": text("Note"),
        },
        ["aspect"],
    ),
    org_type(
        "dental_sedation_plan",
        "care_context",
        "Dental anxiety and sedation plan",
        ["care_coordination", "appointment_scheduling"],
        STAFF,
        [],
        "Dental: anxiety {anxiety}; {method}[; escort home needed {escort?}][; {fasting}][; {note}]",
        {
            "anxiety": enum("Anxiety", {"none": "none", "mild": "mild", "moderate": "moderate",
                                        "severe": "severe", "phobic": "dental phobia"}),
            "method": enum(
                "Approach",
                {
                    "local_only": "local anaesthetic only",
                    "inhalation_sedation": "inhalation sedation (nitrous oxide)",
                    "iv_sedation": "intravenous sedation",
                    "oral_sedation": "oral sedation",
                    "general_anaesthetic_referral": "referred for general anaesthetic",
                    "cbt_first": "behavioural therapy before treatment",
                },
            ),
            "escort": boolean("Needs an adult escort home"),
            "fasting": text("Eating and drinking before", 120, TERM),
            "note": text("Note"),
        },
        ["anxiety", "method"],
    ),
    org_type(
        "pain_management_plan",
        "care_context",
        "Pain management plan for therapy",
        ["care_coordination", "appointment_scheduling"],
        STAFF,
        [],
        "Pain plan: {condition}[; {strategies}][; take pain relief {premed_minutes} minutes before sessions][; {note}]",
        {
            "condition": text("Pain condition", 80, TERM),
            "strategies": enum_list(
                "Strategies",
                {
                    "pacing": "activity pacing",
                    "heat": "heat",
                    "ice": "ice",
                    "tens": "TENS",
                    "hydrotherapy": "hydrotherapy",
                    "graded_exposure": "graded exposure",
                    "relaxation": "relaxation and breathing",
                    "acupuncture": "acupuncture",
                },
            ),
            "premed_minutes": {"type": "integer", "title": "Minutes before sessions", "minimum": 5, "maximum": 180},
            "note": text("Note"),
        },
        ["condition"],
    ),
    org_type(
        "rehab_goal",
        "preference",
        "Goals agreed with the patient",
        ["care_coordination", "communication"],
        ANYONE,
        ["domain"],
        "Goal ({domain}): {goal}[ by {target_date}][; {status}]",
        {
            "domain": enum(
                "Area",
                {
                    "walking": "walking",
                    "stairs": "stairs",
                    "self_care": "washing and dressing",
                    "kitchen": "cooking and kitchen tasks",
                    "work": "return to work",
                    "leisure": "hobbies and leisure",
                    "driving": "driving",
                    "eating": "eating and chewing",
                    "communication": "hearing and conversation",
                    "reading": "reading and close work",
                },
            ),
            "goal": text("Goal in the patient's words", 160),
            "target_date": {"type": "string", "title": "Target date", "maxLength": 10,
                            "pattern": "^[0-9]{4}-[0-9]{2}-[0-9]{2}$"},
            "status": enum("Status", {"active": "active", "achieved": "achieved", "revised": "revised"}),
        },
        ["domain", "goal"],
    ),
    org_type(
        "home_exercise_programme",
        "account_fact",
        "Home exercise programme",
        ["care_coordination", "communication"],
        ["staff", "ehr_import", "agent_proposal"],
        [],
        "Home exercises: {programme}, {frequency}[, given as {format}][; {note}]",
        {
            "programme": text("Programme", 120, TERM),
            "frequency": enum("How often", {"daily": "daily", "twice_daily": "twice a day",
                                            "three_times_weekly": "three times a week", "weekly": "weekly"}),
            "format": enum("Format", {"printed_sheet": "a printed sheet", "large_print": "a large-print sheet",
                                      "video": "a video link", "app": "an app", "demonstration_only": "demonstration only"}),
            "note": text("Note"),
        },
        ["programme", "frequency"],
    ),
    org_type(
        "orthotic_device",
        "account_fact",
        "Splints, braces, insoles and supports",
        ["care_coordination", "appointment_scheduling"],
        ["staff", "ehr_import"],
        ["device", "side"],
        "Orthotic: {device} ({side})[, {wear}][; {note}]",
        {
            "device": enum(
                "Device",
                {
                    "ankle_foot_orthosis": "ankle-foot orthosis",
                    "insoles": "custom insoles",
                    "knee_brace": "knee brace",
                    "wrist_splint": "wrist splint",
                    "resting_hand_splint": "resting hand splint",
                    "cervical_collar": "cervical collar",
                    "compression_garment": "compression garment",
                    "spinal_brace": "spinal brace",
                },
            ),
            "side": enum("Side", {"left": "left", "right": "right", "both": "both", "midline": "midline"}),
            "wear": text("When worn", 80, TERM),
            "note": text("Note"),
        },
        ["device", "side"],
    ),
    org_type(
        "session_tolerance",
        "preference",
        "How much therapy the patient manages in one go",
        ["appointment_scheduling", "care_coordination"],
        ANYONE,
        [],
        "Sessions: at most {max_minutes} minutes[, rest every {rest_every_minutes} minutes][; best in the {best_time}][; {limit}][; {note}]",
        {
            "max_minutes": {"type": "integer", "title": "Longest session (minutes)", "minimum": 10, "maximum": 180},
            "rest_every_minutes": {"type": "integer", "title": "Rest every (minutes)", "minimum": 5, "maximum": 60},
            "best_time": enum("Best time", {"morning": "morning", "afternoon": "afternoon", "evening": "evening"}),
            "limit": enum("What limits it", {"fatigue": "fatigue", "breathlessness": "breathlessness",
                                             "pain": "pain", "dizziness": "dizziness", "concentration": "concentration"}),
            "note": text("Note"),
        },
        ["max_minutes"],
    ),
]

if __name__ == "__main__":
    with open(OUT, "w") as f:
        json.dump(TYPES, f, indent=2)
        f.write("\n")
    print(f"wrote {len(TYPES)} types to {os.path.normpath(OUT)}")
