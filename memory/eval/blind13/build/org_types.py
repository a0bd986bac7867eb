#!/usr/bin/env python3
"""Writes ../org_types.json: eleven organisation-defined memory types in the catalogue format (sexual health, HIV
care, gender identity services, fertility clinics).

None of them repeats the subject of an organisation type named in memory/eval/blind11/README.md (sets blind to
blind7 and blind11) or of a built-in type. Helpers copied from memory/eval/blind11/build/org_types.py.
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


def date(title):
    return dict(DATE, title=title)


TYPES = [
    org_type(
        "prep_plan",
        "care_context",
        "HIV pre-exposure prophylaxis (PrEP)",
        ["care_coordination", "appointment_scheduling"],
        STAFF,
        [],
        "PrEP: {mode}[ with {product}][; supplied {supply}][; next review {next_review}][; {note}]",
        {
            "mode": enum(
                "How PrEP is taken",
                {
                    "daily_oral": "one tablet every day",
                    "event_based": "event-based dosing (2-1-1)",
                    "long_acting_injection": "long-acting injection every two months",
                    "paused": "paused for now",
                    "stopped": "stopped",
                },
            ),
            "product": text("Product", 80, TERM),
            "supply": enum("Supply", {"clinic": "by the sexual health clinic", "pharmacy": "via a pharmacy",
                                      "online": "bought online by the patient", "study": "through a study"}),
            "next_review": date("Next review with tests"),
            "note": text("Note"),
        },
        ["mode"],
    ),
    org_type(
        "hiv_care_plan",
        "care_context",
        "HIV care plan",
        ["care_coordination", "appointment_scheduling"],
        STAFF,
        [],
        "HIV care: viral load {viral_load}[; doses {dosing}][; {food}][; clinic review every {review_months} months]"
        "[; peer support {peer_support?}][; {note}]",
        {
            "viral_load": enum(
                "Viral load",
                {
                    "undetectable": "undetectable (U=U)",
                    "low_level": "low-level, being watched",
                    "detectable": "detectable",
                    "not_yet_suppressed": "newly started, not yet suppressed",
                },
            ),
            "dosing": enum("Dosing", {"morning": "in the morning", "evening": "in the evening",
                                      "bedtime": "at bedtime", "twice_daily": "twice a day",
                                      "clinic_injection": "by injection at the clinic"}),
            "food": enum("Food", {"with_food": "must be taken with a meal", "empty_stomach": "on an empty stomach",
                                  "either": "with or without food"}),
            "review_months": {"type": "integer", "title": "Review every (months)", "minimum": 1, "maximum": 12},
            "peer_support": boolean("Has an HIV peer mentor"),
            "note": text("Note"),
        },
        ["viral_load"],
    ),
    org_type(
        "pep_course",
        "care_context",
        "Post-exposure prophylaxis (PEP) course",
        ["care_coordination", "appointment_scheduling"],
        STAFF,
        [],
        "PEP from {started} to {ends}[: {regimen}][ after {exposure}][; follow-up: {follow_up}]",
        {
            "started": date("Started"),
            "ends": date("Last dose"),
            "regimen": text("Regimen", 120, TERM),
            "exposure": enum("Exposure", {"sexual": "a sexual exposure", "condom_failure": "a condom failure",
                                          "sexual_assault": "a sexual assault", "needlestick": "a needlestick injury",
                                          "other": "another exposure"}),
            "follow_up": text("Follow-up", 120, TERM),
        },
        ["started", "ends"],
    ),
    org_type(
        "partner_notification",
        "account_fact",
        "Partner notification",
        ["care_coordination", "communication"],
        ["staff", "ehr_import", "agent_proposal"],
        ["infection", "partner"],
        "Partner notification for {infection}: {partner}; {method}; {status}[; {note}]",
        {
            "infection": enum(
                "Infection",
                {
                    "chlamydia": "chlamydia",
                    "gonorrhoea": "gonorrhoea",
                    "syphilis": "syphilis",
                    "hiv": "HIV",
                    "trichomonas": "trichomonas",
                    "mycoplasma_genitalium": "Mycoplasma genitalium",
                    "hepatitis_b": "hepatitis B",
                    "hepatitis_c": "hepatitis C",
                },
            ),
            "partner": text("Partner or contacts", 80, TERM),
            "method": enum(
                "How",
                {
                    "patient_referral": "the patient tells the partner",
                    "provider_referral": "a health adviser contacts the partner",
                    "anonymous_text": "anonymous text from the clinic",
                    "contract_referral": "the patient first, the clinic after two weeks",
                },
            ),
            "status": enum("Status", {"pending": "not yet done", "notified": "partner told",
                                      "tested": "partner tested", "treated": "partner treated",
                                      "declined": "patient declined", "not_contactable": "partner not contactable"}),
            "note": text("Note"),
        },
        ["infection", "partner", "method", "status"],
    ),
    org_type(
        "sti_testing_route",
        "preference",
        "How the patient tests for sexually transmitted infections",
        ["appointment_scheduling", "care_coordination", "communication"],
        ANYONE,
        [],
        "STI testing: {route}[; samples {sites}][; {frequency}][; kits sent to {deliver_to}][; {note}]",
        {
            "route": enum(
                "Route",
                {
                    "postal_kit": "postal self-sampling kit",
                    "express_clinic": "test-only express clinic",
                    "booked_clinic": "booked clinic appointment",
                    "walk_in": "walk-in clinic",
                    "outreach": "community outreach testing",
                },
            ),
            "sites": enum_list("Samples", {"urine": "urine", "vaginal_swab": "vaginal swab", "throat": "throat swab",
                                           "rectal": "rectal swab", "blood": "finger-prick or venous blood"}),
            "frequency": enum("How often", {"three_monthly": "every three months", "six_monthly": "every six months",
                                            "yearly": "once a year", "with_symptoms": "only with symptoms"}),
            "deliver_to": text("Kits delivered to", 80, TERM),
            "note": text("Note"),
        },
        ["route"],
    ),
    org_type(
        "gender_hormone_plan",
        "account_fact",
        "How gender-affirming hormones are given and monitored",
        ["care_coordination", "appointment_scheduling"],
        STAFF,
        [],
        "Hormones: {administration}[ {interval}][; bloods {bloods}][; next due {next_due}][; {note}]",
        {
            "administration": enum(
                "Given by",
                {
                    "self_applied": "applied by the patient (gel, spray or patch)",
                    "tablets": "taken as tablets",
                    "self_injects": "injected by the patient",
                    "practice_nurse": "injection by the practice nurse",
                    "clinic_nurse": "injection by the clinic nurse",
                    "partner_injects": "injection by the partner",
                },
            ),
            "interval": text("How often", 80, TERM),
            "bloods": text("Blood test timing", 120, TERM),
            "next_due": date("Next dose or bloods due"),
            "note": text("Note"),
        },
        ["administration"],
    ),
    org_type(
        "gender_pathway",
        "account_fact",
        "Gender identity service pathway",
        ["care_coordination", "appointment_scheduling"],
        ["staff", "ehr_import", "agent_proposal"],
        [],
        "Gender service: {stage}[ at {service}][; surgery: {surgery}][; next: {next_step}][; {note}]",
        {
            "stage": enum(
                "Stage",
                {
                    "waiting_list": "on the waiting list",
                    "assessment": "being assessed",
                    "hormones_started": "hormones started, under the clinic",
                    "surgery_referral": "referred for surgery",
                    "post_surgery": "recovering after surgery",
                    "discharged_to_gp": "discharged to GP care",
                },
            ),
            "service": text("Service", 80, TERM),
            "surgery": enum(
                "Surgery",
                {
                    "none_planned": "none planned",
                    "chest_reconstruction": "chest reconstruction",
                    "breast_augmentation": "breast augmentation",
                    "vaginoplasty": "vaginoplasty",
                    "phalloplasty": "phalloplasty",
                    "metoidioplasty": "metoidioplasty",
                    "orchidectomy": "orchidectomy",
                    "hysterectomy": "hysterectomy",
                    "facial": "facial surgery",
                },
            ),
            "next_step": text("Next step", 120, TERM),
            "note": text("Note"),
        },
        ["stage"],
    ),
    org_type(
        "anatomy_screening",
        "account_fact",
        "Organs present and the screening they need",
        ["care_coordination", "appointment_scheduling", "communication"],
        STAFF,
        ["organ"],
        "{organ}: {status}[; screening: {screening}][; {note}]",
        {
            "organ": enum("Organ", {"cervix": "cervix", "breast_tissue": "breast or chest tissue",
                                    "prostate": "prostate", "uterus": "uterus", "ovaries": "ovaries",
                                    "testes": "testes"}),
            "status": enum("Status", {"present": "present", "removed": "removed", "partly_removed": "partly removed"}),
            "screening": enum("Screening", {"invite": "invite as usual", "manual_recall": "invite by manual recall",
                                            "not_needed": "not needed", "opted_out": "patient opted out"}),
            "note": text("Note"),
        },
        ["organ", "status"],
    ),
    org_type(
        "contraception_plan",
        "account_fact",
        "Contraception",
        ["care_coordination", "appointment_scheduling"],
        ["patient", "staff", "ehr_import"],
        [],
        "Contraception: {method}[ since {started}][; change or review by {replace_by}][; {note}]",
        {
            "method": enum(
                "Method",
                {
                    "combined_pill": "combined pill",
                    "progestogen_pill": "progestogen-only pill",
                    "implant": "implant in the arm",
                    "hormonal_coil": "hormonal coil (IUS)",
                    "copper_coil": "copper coil (IUD)",
                    "injection": "contraceptive injection",
                    "patch": "patch",
                    "ring": "vaginal ring",
                    "condoms": "condoms only",
                    "none": "none",
                    "sterilisation": "sterilisation",
                },
            ),
            "started": date("Started"),
            "replace_by": date("Change or review by"),
            "note": text("Note"),
        },
        ["method"],
    ),
    org_type(
        "fertility_treatment",
        "care_context",
        "Fertility treatment",
        ["care_coordination", "appointment_scheduling"],
        STAFF,
        [],
        "Fertility: {stage}[, cycle {cycle}][; {funding}][; medicines: {medicines}][; next: {next_step}][; {note}]",
        {
            "stage": enum(
                "Stage",
                {
                    "referral": "referred",
                    "investigations": "having investigations",
                    "ovulation_induction": "ovulation induction",
                    "iui": "intrauterine insemination",
                    "ivf_stimulation": "IVF ovarian stimulation",
                    "egg_collection": "egg collection",
                    "embryo_transfer": "fresh embryo transfer",
                    "frozen_transfer": "frozen embryo transfer",
                    "two_week_wait": "waiting for the pregnancy test",
                    "donor_insemination": "donor insemination",
                    "paused": "treatment paused",
                    "pregnancy_confirmed": "pregnancy confirmed, early scans",
                },
            ),
            "cycle": {"type": "integer", "title": "Cycle", "minimum": 1, "maximum": 10},
            "funding": enum("Funding", {"nhs": "NHS-funded", "self_funded": "self-funded", "mixed": "part-funded"}),
            "medicines": text("Medicines", 120, TERM),
            "next_step": text("Next step", 120, TERM),
            "note": text("Note"),
        },
        ["stage"],
    ),
    org_type(
        "fertility_storage",
        "account_fact",
        "Stored eggs, sperm, embryos or tissue",
        ["care_coordination", "communication"],
        STAFF,
        ["material"],
        "Stored {material}[: {amount}][ ({reason})][; storage consent until {consent_until}][; {note}]",
        {
            "material": enum("Material", {"eggs": "eggs", "sperm": "sperm", "embryos": "embryos",
                                          "ovarian_tissue": "ovarian tissue", "testicular_tissue": "testicular tissue"}),
            "amount": text("Amount", 80, TERM),
            "reason": enum("Reason", {"before_cancer_treatment": "before cancer treatment",
                                      "before_gender_affirming_treatment": "before gender-affirming treatment",
                                      "elective": "elective", "surplus_from_ivf": "left over from IVF",
                                      "before_surgery": "before surgery"}),
            "consent_until": date("Storage consent until"),
            "note": text("Note"),
        },
        ["material"],
    ),
]

if __name__ == "__main__":
    with open(OUT, "w") as f:
        json.dump(TYPES, f, indent=2)
        f.write("\n")
    print(f"wrote {len(TYPES)} types to {os.path.normpath(OUT)}")
