#!/usr/bin/env python3
"""Writes ../org_types.json: ten organisation-defined memory types in the catalogue format (blind10: sexual
health, HIV, travel and vaccination clinics, community pharmacy).

None of them repeats the subject of a type of sets blind..blind7 (only the names of their organisation types
were read) or of a built-in type. Helpers copied from memory/eval/blind3/build/org_types.py.
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


def count(title, lo=0, hi=20):
    return {"type": "integer", "title": title, "minimum": lo, "maximum": hi}


INFECTIONS = {
    "chlamydia": "chlamydia",
    "gonorrhoea": "gonorrhoea",
    "syphilis": "syphilis",
    "hiv": "HIV",
    "trichomonas": "trichomonas",
    "mycoplasma_genitalium": "Mycoplasma genitalium",
    "hepatitis_b": "hepatitis B",
    "hepatitis_c": "hepatitis C",
    "mpox": "mpox",
}

TYPES = [
    org_type(
        "result_delivery",
        "preference",
        "How sexual health results are given",
        ["communication", "care_coordination"],
        ANYONE,
        [],
        "Results: negative by {negative_results}, positive by {positive_results}[; texts {sms_wording}]"
        "[; {note}]",
        {
            "negative_results": enum(
                "Negative results",
                {
                    "sms": "a text message",
                    "online_portal": "the online results portal",
                    "phone_call": "a phone call",
                    "no_contact_if_negative": "no contact if all negative",
                    "in_person": "in person at the clinic",
                },
            ),
            "positive_results": enum(
                "Results needing treatment",
                {
                    "phone_call": "a phone call from a health adviser",
                    "sms_asking_to_call": "a text asking them to ring the clinic",
                    "in_person": "in person at the clinic only",
                    "email": "a secure email",
                },
            ),
            "sms_wording": enum(
                "Text wording",
                {
                    "neutral_no_clinic_name": "neutral, without the clinic's name",
                    "clinic_name_ok": "may name the clinic",
                    "first_name_only": "first name only, no service named",
                },
            ),
            "note": text("Note"),
        },
        ["negative_results", "positive_results"],
    ),
    org_type(
        "partner_notification",
        "account_fact",
        "Partner notification",
        ["care_coordination", "communication"],
        STAFF,
        ["infection"],
        "Partner notification for {infection}: {route}[, {partners} partner(s)][, {status}][; {note}]",
        {
            "infection": enum("Infection", INFECTIONS),
            "route": enum(
                "Route",
                {
                    "patient_referral": "the patient tells partners themselves",
                    "provider_referral": "the clinic contacts partners anonymously",
                    "contract_referral": "the patient first, the clinic if not done by an agreed date",
                    "anonymous_text_service": "anonymous notification text sent through the clinic's service",
                    "declined": "declined partner notification",
                },
            ),
            "partners": count("Partners to notify"),
            "status": enum(
                "Status",
                {"outstanding": "outstanding", "in_progress": "in progress", "completed": "completed"},
            ),
            "note": text("Note"),
        },
        ["infection", "route"],
    ),
    org_type(
        "prep_plan",
        "care_context",
        "HIV pre-exposure prophylaxis (PrEP)",
        ["care_coordination", "appointment_scheduling"],
        STAFF,
        [],
        "PrEP: {product}, {dosing}[; kidney checks {renal_checks}][; review every {review_months} months]"
        "[; {note}]",
        {
            "product": enum(
                "Product",
                {
                    "emtricitabine_tenofovir_disoproxil": "emtricitabine/tenofovir disoproxil (generic Truvada)",
                    "emtricitabine_tenofovir_alafenamide": "emtricitabine/tenofovir alafenamide (Descovy)",
                    "cabotegravir_injection": "long-acting cabotegravir injection (Apretude)",
                },
            ),
            "dosing": enum(
                "Dosing",
                {
                    "daily": "daily",
                    "event_based": "event-based (2-1-1)",
                    "paused": "paused",
                    "two_monthly_injection": "an injection every two months",
                },
            ),
            "renal_checks": enum(
                "Kidney checks",
                {"yearly": "yearly", "three_monthly": "every three months", "six_monthly": "every six months"},
            ),
            "review_months": count("Review interval in months", 1, 12),
            "note": text("Note"),
        },
        ["product", "dosing"],
    ),
    org_type(
        "contraception_method",
        "care_context",
        "Current contraception",
        ["care_coordination", "appointment_scheduling"],
        STAFF,
        [],
        "Contraception: {method}[ ({product})][, since {started}][, due for renewal by {renew_by}][, {site}]"
        "[; {note}]",
        {
            "method": enum(
                "Method",
                {
                    "implant": "contraceptive implant",
                    "injection": "progestogen injection",
                    "copper_iud": "copper coil (IUD)",
                    "hormonal_ius": "hormonal coil (IUS)",
                    "combined_pill": "combined pill",
                    "progestogen_only_pill": "progestogen-only pill",
                    "patch": "patch",
                    "vaginal_ring": "vaginal ring",
                    "condoms_only": "condoms only",
                    "none": "no contraception",
                },
            ),
            "product": text("Product", 80, TERM),
            "started": date("Fitted, given or started"),
            "renew_by": date("Due for renewal or removal by"),
            "site": enum("Implant arm", {"left_arm": "left arm", "right_arm": "right arm"}),
            "note": text("Note"),
        },
        ["method"],
    ),
    org_type(
        "travel_plan",
        "account_fact",
        "Planned trip abroad",
        ["appointment_scheduling", "care_coordination"],
        ANYONE,
        ["destination"],
        "Trip to {destination}[ from {depart}][ to {return_date}][; {purpose}][; {style}][; {note}]",
        {
            "destination": text("Destination", 80, TERM),
            "depart": date("Departs"),
            "return_date": date("Returns"),
            "purpose": enum(
                "Purpose",
                {
                    "holiday": "holiday",
                    "visiting_friends_relatives": "visiting friends and relatives",
                    "business": "business",
                    "volunteering": "volunteering or aid work",
                    "pilgrimage": "pilgrimage",
                    "study": "study",
                },
            ),
            "style": enum(
                "Kind of travel",
                {
                    "urban_hotel": "cities and hotels",
                    "rural_backpacking": "rural areas, backpacking",
                    "staying_with_family": "staying in family homes",
                    "safari": "safari",
                    "cruise": "cruise",
                    "high_altitude_trek": "high-altitude trekking",
                },
            ),
            "note": text("Note"),
        },
        ["destination"],
    ),
    org_type(
        "yellow_fever_status",
        "account_fact",
        "Yellow fever certificate or exemption",
        ["care_coordination", "appointment_scheduling"],
        STAFF,
        [],
        "Yellow fever: {status}[, dose given {dose_date}][; exemption because {exemption_reason}][; {note}]",
        {
            "status": enum(
                "Status",
                {
                    "certificate_issued": "vaccinated, certificate (ICVP) issued",
                    "certificate_lost": "vaccinated, certificate lost",
                    "exemption_letter": "medical exemption letter issued",
                    "not_vaccinated": "not vaccinated",
                },
            ),
            "dose_date": date("Dose given"),
            "exemption_reason": enum(
                "Exemption reason",
                {
                    "immunosuppression": "immunosuppression",
                    "hiv_low_cd4": "HIV with a low CD4 count",
                    "egg_allergy": "severe egg allergy",
                    "thymus_disorder": "thymus disorder or thymectomy",
                    "pregnancy": "pregnancy or breastfeeding",
                    "age_over_60_precaution": "aged over 60, risk judged too high",
                },
            ),
            "note": text("Note"),
        },
        ["status"],
    ),
    org_type(
        "malaria_prevention",
        "care_context",
        "Malaria prevention plan",
        ["care_coordination"],
        STAFF,
        [],
        "Malaria tablets: {agent}[; not {unsuitable}][; {note}]",
        {
            "agent": enum(
                "Antimalarial",
                {
                    "atovaquone_proguanil": "atovaquone/proguanil",
                    "doxycycline": "doxycycline",
                    "mefloquine": "mefloquine",
                    "chloroquine_proguanil": "chloroquine with proguanil",
                    "none_needed": "none needed, bite avoidance only",
                },
            ),
            "unsuitable": enum_list(
                "Not suitable",
                {
                    "atovaquone_proguanil": "atovaquone/proguanil",
                    "doxycycline": "doxycycline",
                    "mefloquine": "mefloquine",
                    "chloroquine_proguanil": "chloroquine with proguanil",
                },
            ),
            "note": text("Note"),
        },
        ["agent"],
    ),
    org_type(
        "vaccine_course",
        "account_fact",
        "Vaccine course in progress",
        ["appointment_scheduling", "care_coordination"],
        STAFF,
        ["vaccine"],
        "{vaccine}: {doses_given} of {doses_planned} doses[, last {last_dose}][, next due {next_due}][; {note}]",
        {
            "vaccine": enum(
                "Vaccine",
                {
                    "hepatitis_a": "hepatitis A",
                    "hepatitis_b": "hepatitis B",
                    "hepatitis_a_b_combined": "combined hepatitis A and B",
                    "typhoid": "typhoid",
                    "rabies": "rabies (before travel)",
                    "japanese_encephalitis": "Japanese encephalitis",
                    "tick_borne_encephalitis": "tick-borne encephalitis",
                    "cholera_oral": "oral cholera",
                    "meningococcal_acwy": "meningococcal ACWY",
                    "hpv": "HPV",
                    "mpox": "mpox (MVA-BN)",
                },
            ),
            "doses_given": count("Doses given"),
            "doses_planned": count("Doses planned", 1, 6),
            "last_dose": date("Last dose"),
            "next_due": date("Next dose due"),
            "note": text("Note"),
        },
        ["vaccine", "doses_given", "doses_planned"],
    ),
    org_type(
        "pep_course",
        "care_context",
        "Post-exposure prophylaxis course",
        ["care_coordination", "appointment_scheduling"],
        STAFF,
        [],
        "PEP for {exposure}: {regimen}, started {started}[, {status}][; follow-up test {followup_test}][; {note}]",
        {
            "exposure": enum(
                "Exposure",
                {
                    "sexual": "a sexual exposure",
                    "needlestick": "a needlestick injury",
                    "sexual_assault": "a sexual assault",
                    "bite": "a bite",
                },
            ),
            "regimen": text("Regimen", 80, TERM),
            "started": date("Started"),
            "status": enum(
                "Status",
                {"in_progress": "in progress", "completed": "completed 28 days", "stopped_early": "stopped early"},
            ),
            "followup_test": date("Follow-up HIV test"),
            "note": text("Note"),
        },
        ["exposure", "regimen", "started"],
    ),
    org_type(
        "emergency_contraception",
        "account_fact",
        "Emergency contraception supplied",
        ["care_coordination"],
        STAFF,
        [],
        "Emergency contraception: {option} on {supplied}[ by {supplied_by}][; {note}]",
        {
            "option": enum(
                "Option",
                {
                    "levonorgestrel_1_5": "levonorgestrel 1.5 mg",
                    "levonorgestrel_3_double": "levonorgestrel 3 mg (double dose)",
                    "ulipristal": "ulipristal acetate 30 mg",
                    "copper_iud": "emergency copper coil",
                },
            ),
            "supplied": date("Supplied"),
            "supplied_by": enum(
                "Supplied by",
                {
                    "community_pharmacy": "a community pharmacy",
                    "sexual_health_clinic": "the sexual health clinic",
                    "gp": "the GP",
                    "online": "an online service",
                },
            ),
            "note": text("Note"),
        },
        ["option", "supplied"],
    ),
]

if __name__ == "__main__":
    with open(OUT, "w") as f:
        json.dump(TYPES, f, indent=2)
        f.write("\n")
    print(f"wrote {len(TYPES)} organisation types to {os.path.normpath(OUT)}")
