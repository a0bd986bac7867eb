"""Serves phrases for every memory type (11 built-in + 11 organisation), written from the schemas for blind13.
build.py writes them to ../type_descriptions.json."""

DESCRIPTIONS = {
    "preferred_name": [
        "the name a person wishes staff and agents to use",
        "pronouns for letters, screens and conversation",
        "addressing someone correctly when greeting or writing",
    ],
    "care_context": [
        "allergies and adverse drug reactions with severity",
        "long-term medicines with indication and monitoring",
        "checking prescribing, skin preparation and procedures for contraindications",
        "interactions between a new drug and existing treatment",
    ],
    "caregiver_contact": [
        "a named relative, partner or friend and their relationship",
        "what a nominated contact may be told about care",
        "a phone number for someone close to the patient",
    ],
    "communication_preference": [
        "preferred channel: text message, email, phone call, portal or letter",
        "written language for correspondence",
        "hours during which contact is welcome",
    ],
    "dietary_requirement": [
        "vegetarian, vegan, halal, kosher and other diets",
        "food allergies and restrictions relevant to meals",
        "refreshments offered during a long visit",
    ],
    "language_support": [
        "spoken or signed language and whether an interpreter must be booked",
        "interpreter bookings for consultations",
        "sign language or written-only communication",
    ],
    "observance_preference": [
        "religious or cultural observance affecting bookings",
        "fasting days that rule out certain slots",
        "weekdays and parts of the day kept free for faith reasons",
    ],
    "reminder_preference": [
        "reminder channel and lead time in hours",
        "how far in advance a reminder should be sent",
        "appointment prompts by text, email, call, portal or post",
    ],
    "scheduling_preference": [
        "earliest and latest acceptable appointment times",
        "weekdays the person cannot attend",
        "mornings, afternoons or evenings that are unavailable",
    ],
    "transport_need": [
        "hospital transport, accessible vehicles and escorts",
        "parking close to the entrance",
        "extra travel time when arranging visits",
    ],
    "accessibility_need": [
        "mobility aids and step-free access",
        "hearing loop, sign language, lip reading or captions",
        "large print, braille, audio or screen-reader documents",
    ],
    "prep_plan": [
        "pre-exposure prophylaxis mode: daily, on demand or long-acting injectable",
        "which PrEP product and where it is supplied from",
        "date of the next PrEP review with kidney and HIV tests",
    ],
    "hiv_care_plan": [
        "viral suppression status under antiretroviral treatment",
        "dose timing and whether a meal is needed",
        "how many months between HIV clinic reviews",
        "whether a peer mentor supports the person",
    ],
    "pep_course": [
        "post-exposure prophylaxis start and finish dates",
        "the PEP regimen and the exposure that prompted it",
        "follow-up HIV testing after post-exposure treatment",
    ],
    "partner_notification": [
        "contact tracing for a sexually transmitted infection",
        "which partners are involved and how they are informed",
        "whether partners were told, tested, treated or could not be reached",
    ],
    "sti_testing_route": [
        "postal self-sampling, express, booked, walk-in or outreach screening",
        "which samples are taken during screening",
        "screening interval and where home kits are delivered",
    ],
    "gender_hormone_plan": [
        "who administers gender-affirming hormones and how often",
        "timing of hormone level blood tests",
        "the date the next dose or monitoring falls due",
    ],
    "gender_pathway": [
        "stage on the gender identity clinic pathway",
        "gender-affirming surgery referred, planned or completed",
        "the identity service involved and the next step",
    ],
    "anatomy_screening": [
        "organs present or removed, independent of recorded gender",
        "cervical, breast and prostate screening eligibility",
        "manual recall where national invitations would be missed",
    ],
    "contraception_plan": [
        "current contraceptive method and start date",
        "when a device or method is due for replacement or review",
        "reasons a method was chosen or changed",
    ],
    "fertility_treatment": [
        "stage of assisted conception from referral to early scans",
        "cycle number, NHS or private funding and medicines",
        "the next planned step in fertility care",
    ],
    "fertility_storage": [
        "cryopreserved eggs, sperm, embryos or tissue and the quantity",
        "why gametes or embryos were frozen",
        "storage consent end date and renewal",
    ],
}
