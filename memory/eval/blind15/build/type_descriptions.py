"""Serves phrases for every memory type used by blind15 (11 built-in, 10 organisation-defined), written for this
set from the schemas in memory/catalogue/ and org_types.py.  build.py writes them to ../type_descriptions.json."""

DESCRIPTIONS = {
    # ---------------------------------------------------------------- built-in types
    "preferred_name": [
        "the name a patient wants staff to use",
        "pronouns recorded for the patient",
        "greeting someone correctly at reception or on a call",
    ],
    "care_context": [
        "documented allergies and adverse reactions, with their severity",
        "long-term medicines and the condition each one treats",
        "interaction checks before anything new is prescribed or administered",
        "blood monitoring a regular medicine requires",
    ],
    "language_support": [
        "booking an interpreter and in which language",
        "sign language users such as BSL",
        "spoken versus written use of a first language",
    ],
    "communication_preference": [
        "preferred contact channel: text, email, phone, portal or post",
        "the language written correspondence should use",
        "hours of the day when calls or messages are acceptable",
    ],
    "caregiver_contact": [
        "next of kin, carers and proxies with their phone numbers",
        "what a named relative or carer is allowed to hear",
        "who should be rung about this person",
    ],
    "dietary_requirement": [
        "ward meal orders and snacks during visits",
        "religious, ethical and medical diets such as halal, vegan or low salt",
        "texture-modified food and food intolerances",
    ],
    "accessibility_need": [
        "mobility aids like wheelchairs, frames, sticks and crutches",
        "step-free routes and ground-floor rooms",
        "hearing loops, lip reading, captions, large print or braille",
        "guide dogs and sighted guiding",
    ],
    "observance_preference": [
        "weekdays blocked for faith or cultural reasons",
        "fasting periods that affect appointment timing",
        "prayer times and rest days to respect when booking",
    ],
    "reminder_preference": [
        "channel for appointment reminders",
        "lead time in hours before a booking",
        "setting up reminder messages",
    ],
    "scheduling_preference": [
        "earliest and latest acceptable appointment times",
        "weekdays or parts of the day that are unavailable",
        "choosing slots to offer when rebooking",
    ],
    "transport_need": [
        "hospital transport bookings and wheelchair-accessible vehicles",
        "an escort travelling alongside",
        "parking close to the entrance or extra journey time",
    ],
    # ---------------------------------------------------------------- organisation types
    "home_oxygen": [
        "prescribed oxygen flow rate in litres per minute and daily hours",
        "concentrator, cylinders or liquid oxygen supplied at home",
        "nasal cannula or mask used for oxygen",
        "ambulatory, overnight, short-burst or palliative oxygen orders",
    ],
    "home_ventilation": [
        "CPAP, auto-CPAP, bilevel NIV or high-flow machines used at home",
        "mask interface and pressure settings",
        "heated humidification and hours of use",
        "whether the machine comes in on admission",
    ],
    "anticoagulation_clinic": [
        "INR target range and how INR gets tested",
        "home fingerprick testing, self-testing meters or venous samples",
        "yellow book, app, letter or phone dosing",
        "annual DOAC reviews with kidney function",
    ],
    "stop_smoking": [
        "smoking status: smoking, quitting, stopped or vaping",
        "nicotine replacement, varenicline, cytisine or bupropion in use",
        "quit date and the stop-smoking service involved",
    ],
    "heart_failure_weights": [
        "target dry weight for heart failure",
        "weight gain threshold and number of days that trigger action",
        "agreed response to weight gain: nurse, GP, extra diuretic or telemonitoring",
    ],
    "copd_rescue_pack": [
        "standby antibiotic and steroid tablets stored at home",
        "exacerbation signs that mean starting the pack",
        "which team hears when the pack is started",
    ],
    "inhaler_device": [
        "reliever, preventer, maintenance or nebulised device types",
        "spacers, dry-powder, soft-mist and breath-actuated devices",
        "whether inhaler technique is good or needs review",
    ],
    "rehab_programme": [
        "referral and attendance for cardiac or pulmonary rehabilitation",
        "heart failure exercise classes and their venue",
        "group, home-based or online programme format",
        "programmes completed, declined or stopped after missed sessions",
    ],
    "breathlessness_plan": [
        "techniques that ease breathlessness: pursed lips, leaning forward, a fan",
        "minutes needed to recover after exertion",
        "known triggers for breathlessness",
    ],
    "driving_restriction": [
        "DVLA status after sleep apnoea, heart attack, surgery, ICD or blackout",
        "dates until which driving is not allowed",
        "licence surrendered or cleared to drive again",
    ],
}
