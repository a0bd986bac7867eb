#!/usr/bin/env python3
"""Writes ../org_types.json: twelve organisation-defined memory types in the catalogue format.

None of them repeats a type of the first set (memory/eval/blind/org_types.json, read for its format only) or a
built-in type. Run from anywhere: python3 build/org_types.py"""

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

TYPES = [
    org_type(
        "moving_handling",
        "account_fact",
        "Moving and handling",
        ["care_coordination", "appointment_scheduling"],
        ["staff"],
        [],
        "Moving and handling: {transfer}[; falls risk {falls_risk}][; weight bearing: {weight_bearing}][; {note}]",
        {
            "transfer": enum(
                "Transfers",
                {
                    "independent": "transfers independently",
                    "supervision": "needs supervision to transfer",
                    "one_carer": "needs one person to help with transfers",
                    "two_carers": "needs two people to help with transfers",
                    "stand_aid": "transfers with a standing aid (rotunda or similar)",
                    "slide_board": "transfers with a slide board",
                    "full_hoist": "needs a full hoist for every transfer",
                },
            ),
            "falls_risk": enum("Falls risk", {"low": "low", "medium": "medium", "high": "high"}),
            "weight_bearing": enum(
                "Weight bearing", {"full": "full", "partial": "partial", "non_weight_bearing": "non-weight-bearing"}
            ),
            "note": text("Note"),
        },
        ["transfer"],
    ),
    org_type(
        "family_disclosure",
        "account_fact",
        "What family members may be told",
        ["communication", "care_coordination"],
        ["patient", "staff"],
        ["person"],
        "Family disclosure: {person} ({relationship}) may be told {scope}[; {note}]",
        {
            "person": text("Family member", 80, NAME),
            "relationship": enum(
                "Relationship",
                {
                    "spouse_or_partner": "spouse or partner",
                    "former_partner": "former partner",
                    "parent": "parent",
                    "son": "son",
                    "daughter": "daughter",
                    "sibling": "sibling",
                    "grandchild": "grandchild",
                    "other_relative": "relative",
                },
            ),
            "scope": enum(
                "What they may be told",
                {
                    "everything": "everything, including diagnoses and results",
                    "appointments_only": "appointment dates and times only",
                    "wellbeing_only": "how the patient is in general terms only",
                    "nothing": "nothing at all; do not confirm the patient is known to us",
                },
            ),
            "note": text("Note"),
        },
        ["person", "relationship", "scope"],
    ),
    org_type(
        "spiritual_care",
        "preference",
        "Faith and spiritual care",
        ["care_coordination"],
        ANYONE,
        [],
        "Spiritual care: {tradition}; {visits}[; rites at the end of life wanted{end_of_life_rites?}][; {note}]",
        {
            "tradition": enum(
                "Faith or belief",
                {
                    "none": "no religious faith",
                    "anglican": "Church of England / Anglican",
                    "roman_catholic": "Roman Catholic",
                    "orthodox_christian": "Orthodox Christian",
                    "free_church": "Methodist, Baptist or other free church",
                    "muslim": "Muslim",
                    "jewish": "Jewish",
                    "hindu": "Hindu",
                    "sikh": "Sikh",
                    "buddhist": "Buddhist",
                    "humanist": "humanist",
                    "pagan": "pagan",
                    "other": "other faith or belief",
                },
            ),
            "visits": enum(
                "Visits",
                {
                    "chaplaincy_welcome": "welcomes a hospital chaplain's visit",
                    "own_faith_leader": "would like their own faith leader contacted",
                    "no_visits": "does not want chaplaincy or faith visits",
                },
            ),
            "faith_leader": text("Faith leader or community", 80, TERM),
            "end_of_life_rites": boolean("Wants rites or prayers at the end of life"),
            "note": text("Note"),
        },
        ["tradition", "visits"],
    ),
    org_type(
        "personal_aid",
        "account_fact",
        "Personal aids the patient brings",
        ["care_coordination", "appointment_scheduling"],
        ANYONE,
        ["item"],
        "Personal aid: {item}[; {note}]",
        {
            "item": enum(
                "Aid",
                {
                    "hearing_aid_left": "hearing aid, left ear",
                    "hearing_aid_right": "hearing aid, right ear",
                    "hearing_aids_both": "hearing aids in both ears",
                    "reading_glasses": "reading glasses",
                    "distance_glasses": "glasses for distance",
                    "contact_lenses": "contact lenses",
                    "full_dentures": "full dentures",
                    "partial_denture": "partial denture",
                    "artificial_eye": "artificial eye",
                    "prosthetic_leg": "prosthetic leg",
                    "prosthetic_arm": "prosthetic arm",
                    "communication_aid": "electronic communication aid (AAC)",
                    "wig": "wig or hairpiece",
                },
            ),
            "note": text("Note"),
        },
        ["item"],
    ),
    org_type(
        "dependant_care",
        "account_fact",
        "People the patient cares for",
        ["appointment_scheduling", "care_coordination"],
        ANYONE,
        ["dependant"],
        "Caring responsibility: looks after {dependant}[; {arrangement}][; {note}]",
        {
            "dependant": enum(
                "Who they look after",
                {
                    "young_child": "a young child",
                    "school_age_child": "a school-age child",
                    "disabled_child": "a disabled child",
                    "partner": "their partner",
                    "parent": "a parent",
                    "sibling": "a brother or sister",
                    "grandchild": "a grandchild",
                    "other": "someone else",
                },
            ),
            "arrangement": enum(
                "Arrangement",
                {
                    "sole_carer": "is the only carer",
                    "shares_care": "shares the care with others",
                    "needs_cover_to_attend": "needs someone to cover before they can attend",
                    "brings_dependant": "may have to bring the person they care for along",
                    "respite_needed_if_admitted": "respite care must be arranged before any admission",
                },
            ),
            "note": text("Note"),
        },
        ["dependant"],
    ),
    org_type(
        "learning_support",
        "preference",
        "Understanding health information",
        ALL,
        ANYONE,
        [],
        "Learning support: {supports}[ ({reason})][; {note}]",
        {
            "supports": enum_list(
                "What helps",
                {
                    "plain_words": "plain words, no jargon",
                    "pictures_and_diagrams": "pictures and diagrams",
                    "teach_back": "check understanding by asking them to explain it back",
                    "written_summary": "a written summary to take away",
                    "video_or_demo": "a video or demonstration",
                    "extra_time": "extra time for explanations",
                    "one_thing_at_a_time": "one topic at a time",
                    "read_aloud": "forms and letters read aloud",
                },
            ),
            "reason": enum(
                "Reason",
                {
                    "dyslexia": "dyslexia",
                    "limited_literacy": "limited reading and writing",
                    "learning_disability": "learning disability",
                    "memory_problems": "memory problems",
                    "acquired_brain_injury": "acquired brain injury",
                    "not_given": "reason not given",
                },
            ),
            "note": text("Note"),
        },
        ["supports"],
    ),
    org_type(
        "worn_device",
        "care_context",
        "Devices worn on the body",
        ["care_coordination", "appointment_scheduling"],
        STAFF,
        ["device"],
        "Worn device: {device}[ ({model})][, {site}][; remove before imaging{remove_for_imaging?}][; {note}]",
        {
            "device": enum(
                "Device",
                {
                    "insulin_pump": "insulin pump",
                    "patch_pump": "tubeless patch insulin pump",
                    "continuous_glucose_monitor": "continuous glucose monitor sensor",
                    "flash_glucose_sensor": "flash glucose sensor",
                    "wearable_defibrillator": "wearable defibrillator vest",
                    "ambulatory_ecg": "ambulatory ECG recorder",
                    "tens_unit": "TENS machine",
                    "cochlear_processor": "external cochlear implant sound processor",
                    "medication_patch_pump": "wearable medicine infusion pump",
                    "other": "other worn device",
                },
            ),
            "model": text("Make or model", 80, TERM),
            "site": text("Where it is worn", 80, TERM),
            "remove_for_imaging": boolean("Must come off for MRI, CT or X-ray"),
            "note": text("Note"),
        },
        ["device"],
    ),
    org_type(
        "contact_safety",
        "account_fact",
        "Safe contact restrictions",
        ALL,
        ["staff"],
        ["restriction"],
        "Contact safety: {restriction}[ ({named_person})][; {note}]",
        {
            "restriction": enum(
                "Restriction",
                {
                    "no_disclosure_to_named_person": "never disclose anything to the named person",
                    "no_voicemail": "do not leave voicemail messages",
                    "no_post_home": "do not post letters to the home address",
                    "confidential_address": "address is confidential; never read it out or print it",
                    "code_word_required": "callers must give the agreed code word",
                    "no_home_visits_unannounced": "no unannounced home visits",
                },
            ),
            "named_person": text("Named person", 80, NAME),
            "note": text("Note"),
        },
        ["restriction"],
    ),
    org_type(
        "research_contact",
        "preference",
        "Research contact and participation",
        ["communication", "care_coordination"],
        ANYONE,
        [],
        "Research: {status}[ ({study})][; {note}]",
        {
            "status": enum(
                "Status",
                {
                    "happy_to_be_contacted": "happy to be contacted about research studies",
                    "not_to_be_contacted": "does not want to be contacted about research",
                    "enrolled": "currently taking part in a study",
                    "withdrawn": "has withdrawn from a study and wants no further contact about it",
                },
            ),
            "study": text("Study", 80, TERM),
            "note": text("Note"),
        },
        ["status"],
    ),
    org_type(
        "procedure_support",
        "preference",
        "Support for tests and procedures",
        ["appointment_scheduling", "care_coordination"],
        ANYONE,
        ["concern"],
        "Procedure support: {concern}; helps: {helps}[; {note}]",
        {
            "concern": enum(
                "Concern",
                {
                    "needle_phobia": "fear of needles",
                    "faints_with_needles": "faints during blood tests or injections",
                    "claustrophobia": "claustrophobia",
                    "strong_gag_reflex": "strong gag reflex",
                    "dental_anxiety": "dental anxiety",
                    "difficult_venous_access": "veins that are hard to find",
                    "procedure_pain_anxiety": "anxiety about pain during procedures",
                },
            ),
            "helps": enum_list(
                "What helps",
                {
                    "lie_down": "lying down",
                    "numbing_cream": "numbing cream beforehand",
                    "experienced_staff": "the most experienced member of staff",
                    "ultrasound_guidance": "ultrasound guidance",
                    "open_or_wide_scanner": "an open or wide-bore scanner",
                    "sedation_discussion": "a talk about sedation",
                    "music_or_distraction": "music or distraction",
                    "extra_time": "extra time",
                    "companion_present": "a companion present",
                    "warm_hands_first": "warming the arm first",
                },
            ),
            "note": text("Note"),
        },
        ["concern", "helps"],
    ),
    org_type(
        "sensitive_circumstance",
        "account_fact",
        "Sensitive circumstances for letters and invitations",
        ALL,
        ["staff"],
        ["event"],
        "Sensitive circumstance: {event}; suppress {suppress}[; {note}]",
        {
            "event": enum(
                "Circumstance",
                {
                    "pregnancy_loss": "recent pregnancy loss",
                    "death_of_child": "death of a child",
                    "death_of_partner": "death of a partner",
                    "estranged_from_family": "estranged from family",
                    "gender_transition": "has changed name and gender; old name must not be used",
                    "recently_diagnosed_terminal": "recently told of a terminal diagnosis",
                },
            ),
            "suppress": enum_list(
                "What to hold back",
                {
                    "antenatal_and_baby_invitations": "antenatal and baby clinic invitations",
                    "child_health_invitations": "child health and immunisation invitations",
                    "mail_to_the_deceased": "letters addressed to the person who died",
                    "routine_screening_invitations": "routine screening invitations",
                    "birthday_and_marketing_messages": "birthday and marketing messages",
                    "previous_name": "the previous name on any letter or screen",
                },
            ),
            "note": text("Note"),
        },
        ["event", "suppress"],
    ),
    org_type(
        "assistance_animal",
        "account_fact",
        "Assistance animal",
        ["appointment_scheduling", "care_coordination"],
        ANYONE,
        [],
        "Assistance animal: {animal}[ called {animal_name}][; {note}]",
        {
            "animal": enum(
                "Animal",
                {
                    "guide_dog": "guide dog",
                    "hearing_dog": "hearing dog",
                    "seizure_alert_dog": "seizure alert dog",
                    "diabetes_alert_dog": "diabetes alert dog",
                    "autism_assistance_dog": "autism assistance dog",
                    "mobility_assistance_dog": "mobility assistance dog",
                    "psychiatric_service_dog": "psychiatric service dog",
                },
            ),
            "animal_name": text("Animal's name", 40, NAME),
            "note": text("Note"),
        },
        ["animal"],
    ),
]

if __name__ == "__main__":
    with open(OUT, "w") as f:
        json.dump(TYPES, f, indent=2)
        f.write("\n")
    print(f"wrote {len(TYPES)} organisation types to {os.path.normpath(OUT)}")
