"""Serves phrases for every memory type (11 built-in, 10 organisation-defined), written from the schemas for blind7.
build.py writes them to ../type_descriptions.json. check.py refuses a question repeating five consecutive words."""

DESCRIPTIONS = {
    "preferred_name": [
        "the name a patient wants staff to call them",
        "how to address someone on a ward board or when calling them in",
        "which pronouns to use for this person",
    ],
    "care_context": [
        "documented allergies and adverse drug reactions with the reaction and its severity",
        "long-term medicines, why they are taken and what monitoring they need",
        "whether a drug, skin preparation, glove, dressing or contrast agent is safe to give or use",
        "interaction risks between a new prescription and a monitored regular medicine",
    ],
    "caregiver_contact": [
        "next of kin or carer details and their telephone number",
        "who may be told about results, appointments or general progress",
        "the relationship of a relative or friend involved in care",
    ],
    "communication_preference": [
        "the channel a patient prefers for contact (text, email, call, portal, post)",
        "the language written correspondence should use",
        "the hours during which the patient is happy to be phoned",
    ],
    "dietary_requirement": [
        "meal orders on the ward: vegetarian, vegan, halal, kosher, gluten-free and similar diets",
        "food restrictions for religious, ethical or medical reasons",
        "what the kitchen should send up for this patient",
    ],
    "language_support": [
        "the main language spoken and whether an interpreter must be booked",
        "sign language or written support instead of speech",
        "consent conversations that need someone translating",
    ],
    "observance_preference": [
        "days or parts of the day kept free for religious or cultural practice",
        "fasting periods when appointments should be avoided",
        "sabbath or prayer times that affect booking",
    ],
    "reminder_preference": [
        "how far ahead and by which route appointment reminders go out",
        "text, email, call or letter reminders before a visit",
        "reminder lead time in hours",
    ],
    "scheduling_preference": [
        "earliest or latest appointment times that suit the patient",
        "weekdays or parts of the day the patient cannot come in",
        "booking clinic slots around other commitments",
    ],
    "transport_need": [
        "hospital transport and wheelchair-accessible vehicles for attendances",
        "an escort for the journey or parking near the entrance",
        "extra travel time needed to reach the hospital",
    ],
    "accessibility_need": [
        "wheelchair, frame, crutches or stick and step-free access",
        "hearing support such as a loop, lip reading or a signer",
        "sight support such as large print, braille or audio",
    ],
    "dialysis_schedule": [
        "which kind of dialysis the patient has: unit haemodialysis, home haemodialysis or peritoneal",
        "the weekdays and session of regular haemodialysis and which renal unit",
        "avoiding clashes between clinic bookings and dialysis sessions",
        "overnight cycler or bag exchanges at home for peritoneal patients",
    ],
    "venous_access_line": [
        "a PICC, Hickman, midline or tunnelled catheter currently in place and where it sits",
        "the lock solution and flush interval for a long line",
        "who can access an existing line for bloods or infusions",
    ],
    "preop_medicine_plan": [
        "what to do with each regular medicine ahead of an operation",
        "anticoagulant and antiplatelet stopping dates and heparin bridging",
        "insulin and diabetes tablets on the day of a procedure",
        "medicines to keep taking with a sip of water when fasting",
    ],
    "oncology_treatment": [
        "the current chemotherapy, immunotherapy, targeted, hormone or radiotherapy course",
        "cycle length and regimen of systemic anticancer therapy",
        "neutropenic sepsis and immune toxicity warnings for someone on treatment",
        "the acute oncology number to ring and cytotoxic handling of body fluids",
    ],
    "fluid_restriction": [
        "the daily drinking allowance in millilitres and the reason for it",
        "fluid balance and daily weights for renal or heart failure patients",
        "potassium, phosphate or salt limits alongside the fluid allowance",
    ],
    "anaesthetic_alert": [
        "problems with previous anaesthetics: airway difficulty, sickness, awareness",
        "suxamethonium apnoea and malignant hyperthermia susceptibility",
        "sleep apnoea and CPAP relevant to sedation and recovery",
        "what the anaesthetist must know at pre-assessment",
    ],
    "discharge_plan": [
        "where the patient is going after the hospital stay and who takes them",
        "care calls per day and restarting a package of care",
        "tasks to finish first such as district nurse referral or telling the renal unit",
    ],
    "pressure_area_care": [
        "pressure ulcer risk score and existing skin damage",
        "which mattress and how often to turn the patient",
        "heel, sacrum and other vulnerable sites to protect",
    ],
    "transplant_listing": [
        "kidney, pancreas, heart or liver transplant waiting list status",
        "whether the patient may be called in for an organ offer",
        "the transplant centre responsible and any suspension from the list",
    ],
    "crossmatch_alert": [
        "red cell antibodies found on previous group and screen samples",
        "how long the lab needs to find compatible units before a transfusion",
        "antibody cards carried by the patient",
    ],
}
