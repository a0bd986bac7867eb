#!/usr/bin/env python3
"""Writes ../org_types.json: eleven organisation-defined memory types in the catalogue format (inclusion health:
homelessness, people seeking asylum and refugees, people leaving prison, Gypsy, Roma and Traveller communities).

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


def date(title):
    return {"type": "string", "title": title, "format": "date", "maxLength": 10, "pattern": "^[0-9]{4}-[0-9]{2}-[0-9]{2}$"}


PHONE = {"type": "string", "title": "Phone", "maxLength": 20, "pattern": "^\\+?[0-9 ()-]{6,20}$"}
DAYS = {d: d.title() for d in ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")}
MONTHS = {
    m.lower(): m
    for m in ("January", "February", "March", "April", "May", "June", "July", "August", "September", "October",
              "November", "December")
}

TYPES = [
    org_type(
        "housing_situation",
        "account_fact",
        "Where the person is staying now",
        ALL,
        ["staff", "ehr_import", "agent_proposal"],
        [],
        "Staying: {situation}[ ({area})][ since {since}][; {note}]",
        {
            "situation": enum(
                "Situation",
                {
                    "rough_sleeping": "sleeping rough",
                    "night_shelter": "a night shelter",
                    "hostel": "a hostel",
                    "sofa_surfing": "sofa surfing with friends",
                    "temporary_accommodation": "council temporary accommodation",
                    "asylum_initial_accommodation": "asylum initial accommodation (hotel or barracks)",
                    "asylum_dispersal": "asylum dispersal housing",
                    "approved_premises": "approved premises (probation hostel)",
                    "roadside_encampment": "a roadside encampment",
                    "authorised_site": "an authorised Traveller site",
                    "settled_tenancy": "a settled tenancy",
                },
            ),
            "area": text("Where", 80, TERM),
            "since": date("Since"),
            "note": text("Note"),
        },
        ["situation"],
    ),
    org_type(
        "postal_route",
        "account_fact",
        "Where letters can safely be sent",
        ["communication", "appointment_scheduling"],
        ANYONE,
        [],
        "Post: {route}[ - {place}][; collects in person{collect_in_person?}][; {note}]",
        {
            "route": enum(
                "Send letters",
                {
                    "home_address": "to the home address",
                    "care_of_day_centre": "care of a day centre",
                    "care_of_hostel": "care of the hostel office",
                    "hold_at_practice": "held at the GP practice",
                    "care_of_solicitor": "care of the solicitor",
                    "care_of_friend": "care of a friend or relative",
                    "care_of_site_office": "care of the site office",
                    "care_of_approved_premises": "care of the approved premises",
                    "no_letters": "no letters: hand over in person",
                },
            ),
            "place": text("Address or place", 120, TERM),
            "collect_in_person": boolean("Collects post in person"),
            "note": text("Note"),
        },
        ["route"],
    ),
    org_type(
        "go_between",
        "account_fact",
        "A worker who can get a message to the person",
        ALL,
        ["staff", "ehr_import", "agent_proposal"],
        ["via"],
        "Reach through {via}[ {name}][, phone {phone}][ ({when})][; {note}]",
        {
            "via": enum(
                "Worker",
                {
                    "street_outreach_worker": "the street outreach worker",
                    "hostel_keyworker": "the hostel keyworker",
                    "probation_officer": "the probation officer",
                    "day_centre_staff": "day centre staff",
                    "traveller_liaison": "the Gypsy and Traveller liaison worker",
                    "asylum_caseworker": "the asylum support caseworker",
                    "peer_advocate": "a peer advocate",
                    "drug_service_keyworker": "the drug and alcohol service keyworker",
                },
            ),
            "name": text("Name", 80, NAME),
            "phone": PHONE,
            "when": text("When to try", 80, TERM),
            "note": text("Note"),
        },
        ["via"],
    ),
    org_type(
        "phone_access",
        "account_fact",
        "Whether and how the person can be phoned",
        ["communication", "appointment_scheduling"],
        ANYONE,
        [],
        "Phone: {status}[; best by {app}][; number changes often{number_changes?}][; {note}]",
        {
            "status": enum(
                "Phone",
                {
                    "own_phone": "has own mobile",
                    "shared_phone": "shares a phone",
                    "no_phone": "no phone",
                    "often_lost": "phone often lost, stolen or sold",
                    "no_credit": "usually no credit (can receive, cannot call out)",
                    "wifi_only": "works only on wifi",
                },
            ),
            "app": enum("Best way", {"voice_call": "a voice call", "sms": "text message", "whatsapp": "WhatsApp",
                                     "none": "none"}),
            "number_changes": boolean("Number changes often"),
            "note": text("Note"),
        },
        ["status"],
    ),
    org_type(
        "identity_documents",
        "account_fact",
        "Identity and immigration documents",
        ["care_coordination", "appointment_scheduling"],
        ["staff", "ehr_import", "agent_proposal"],
        ["document"],
        "Document: {document} ({status})[; {note}]",
        {
            "document": enum(
                "Document",
                {
                    "passport": "passport",
                    "biometric_residence_permit": "biometric residence permit",
                    "application_registration_card": "application registration card (ARC)",
                    "home_office_letter": "Home Office letter",
                    "prison_discharge_papers": "prison discharge papers",
                    "birth_certificate": "birth certificate",
                    "photo_id": "photo ID card",
                    "none": "no documents",
                },
            ),
            "status": enum(
                "Status",
                {
                    "held": "held by the person",
                    "with_home_office": "held by the Home Office",
                    "with_solicitor": "held by the solicitor",
                    "lost": "lost",
                    "stolen": "stolen",
                    "in_prison_property": "left in prison property",
                    "expired": "expired",
                },
            ),
            "note": text("Note"),
        },
        ["document", "status"],
    ),
    org_type(
        "practice_registration",
        "account_fact",
        "GP registration route",
        ["care_coordination", "appointment_scheduling"],
        ["staff", "ehr_import"],
        [],
        "GP registration: {status}[ at {practice}][; {note}]",
        {
            "status": enum(
                "Status",
                {
                    "practice_address": "registered using the practice address (no fixed abode)",
                    "home_address": "registered at a home address",
                    "temporary_resident": "temporary resident",
                    "specialist_homeless_practice": "registered with the specialist homeless practice",
                    "not_registered": "not registered",
                    "refused": "registration refused, advocacy needed",
                },
            ),
            "practice": text("Practice", 80, TERM),
            "note": text("Note"),
        },
        ["status"],
    ),
    org_type(
        "trauma_informed_care",
        "preference",
        "What makes care feel safe after trauma",
        ["care_coordination", "appointment_scheduling", "communication"],
        ANYONE,
        ["aspect"],
        "Trauma-informed ({aspect}): {preference}[; {note}]",
        {
            "aspect": enum(
                "Aspect",
                {
                    "clinician_gender": "gender of clinician",
                    "room": "room, door and seating",
                    "examination": "physical examination",
                    "questions": "questions and history",
                    "uniforms": "uniforms, security and police",
                    "interpreter_choice": "choice of interpreter",
                    "waiting": "waiting and crowds",
                    "touch": "touch",
                },
            ),
            "preference": text("Preference in the person's words", 160),
            "note": text("Note"),
        },
        ["aspect", "preference"],
    ),
    org_type(
        "outreach_clinic",
        "preference",
        "Outreach or drop-in clinic the person uses",
        ["appointment_scheduling", "care_coordination"],
        ANYONE,
        ["clinic"],
        "Clinic: {clinic}[ at {place}][ on {day}][ {start}-{end}][; {note}]",
        {
            "clinic": enum(
                "Clinic",
                {
                    "day_centre_drop_in": "the day centre drop-in",
                    "outreach_van": "the outreach health van",
                    "hostel_in_reach": "the hostel in-reach clinic",
                    "asylum_hotel_clinic": "the asylum hotel clinic",
                    "traveller_site_visit": "the Traveller site health visit",
                    "probation_hub": "the probation hub clinic",
                    "needle_exchange": "the needle exchange clinic",
                    "night_shelter_clinic": "the night shelter clinic",
                },
            ),
            "place": text("Place", 80, TERM),
            "day": enum("Day", DAYS),
            "start": time("From"),
            "end": time("Until"),
            "note": text("Note"),
        },
        ["clinic"],
    ),
    org_type(
        "custody_release",
        "account_fact",
        "Release from prison or immigration detention",
        ["care_coordination", "appointment_scheduling"],
        ["staff", "ehr_import"],
        [],
        "Custody: {status}[ from {establishment}][ on {release_date}][; licence until {licence_end}]"
        "[; {bridging_days} days of medicines given on release][; {note}]",
        {
            "status": enum(
                "Status",
                {
                    "awaiting_release": "awaiting release",
                    "released_on_licence": "released on licence",
                    "released_no_licence": "released without licence",
                    "recalled": "recalled to prison",
                    "released_from_detention": "released from immigration detention",
                    "licence_ended": "licence ended",
                },
            ),
            "establishment": text("Prison or centre", 80, TERM),
            "release_date": date("Release date"),
            "licence_end": date("Licence end"),
            "bridging_days": {"type": "integer", "title": "Days of medicines given on release", "minimum": 1,
                              "maximum": 56},
            "note": text("Note"),
        },
        ["status"],
    ),
    org_type(
        "charging_exemption",
        "account_fact",
        "NHS charging category and evidence",
        ["care_coordination", "appointment_scheduling"],
        ["staff", "ehr_import"],
        [],
        "NHS charging: {category}[; evidence: {evidence}][; {note}]",
        {
            "category": enum(
                "Category",
                {
                    "asylum_seeker": "exempt: asylum seeker",
                    "refugee": "exempt: refugee status",
                    "refused_supported": "exempt: refused asylum seeker on Home Office support",
                    "trafficking_victim": "exempt: suspected victim of trafficking",
                    "humanitarian_scheme": "exempt: humanitarian visa scheme",
                    "ordinarily_resident": "ordinarily resident",
                    "chargeable_review": "possibly chargeable: under review",
                },
            ),
            "evidence": text("Evidence", 120, TERM),
            "note": text("Note"),
        },
        ["category"],
    ),
    org_type(
        "travel_pattern",
        "account_fact",
        "Travelling pattern through the year",
        ["appointment_scheduling", "care_coordination"],
        ANYONE,
        [],
        "Travelling: {pattern}[; away in {away_months}][; base {base}][; {note}]",
        {
            "pattern": enum(
                "Pattern",
                {
                    "seasonal": "travels part of the year",
                    "year_round": "travels all year",
                    "settled_on_site": "settled on a site",
                    "settled_in_house": "settled in a house",
                    "moved_on_often": "moved on by evictions",
                },
            ),
            "away_months": enum_list("Months away", MONTHS),
            "base": text("Winter base or site", 80, TERM),
            "note": text("Note"),
        },
        ["pattern"],
    ),
]

if __name__ == "__main__":
    with open(OUT, "w") as f:
        json.dump(TYPES, f, indent=2)
        f.write("\n")
    print(f"wrote {len(TYPES)} types to {os.path.normpath(OUT)}")
