"""Serves phrases for every type (11 built-in + 10 organisation types), written from the schemas for blind10.
build.py writes them to ../type_descriptions.json."""

DESCRIPTIONS = {
    "accessibility_need": [
        "wheelchair, frame, crutches or stick users and step-free entrances",
        "hearing loop, lip reading, captions or a sign language interpreter at a visit",
        "large print, braille, audio or screen-reader friendly documents",
    ],
    "care_context": [
        "drug, antiseptic, latex, dressing, contrast or food allergy and the reaction it caused",
        "medicines taken long term, what they are for and what monitoring they need",
        "whether a prescribed or supplied medicine is safe for this person",
        "interaction risks with regular tablets before anything new is started",
    ],
    "caregiver_contact": [
        "the partner, relative or friend who may be called and their number",
        "what a named carer may hear: appointments, reminders, wellbeing, results",
        "next of kin or support worker details",
    ],
    "communication_preference": [
        "text, email, phone, portal or letter as the way to get in touch",
        "written language for letters and messages",
        "hours of the day when calls are welcome",
    ],
    "dietary_requirement": [
        "vegetarian, vegan, halal, kosher, gluten-free or other diets",
        "food provided during a long stay or a procedure",
        "nut-free, lactose-free, diabetic or low salt eating",
    ],
    "language_support": [
        "spoken or signed language and whether an interpreter should be booked",
        "British Sign Language and other sign languages",
        "language for a consultation held in English or not",
    ],
    "observance_preference": [
        "religious or cultural days to keep free of appointments",
        "fasting periods affecting timing of tablets or visits",
        "mornings, afternoons or evenings avoided for worship",
    ],
    "preferred_name": [
        "the name someone likes to be called by",
        "pronouns to use when speaking about them",
        "how to greet them in the waiting room",
    ],
    "reminder_preference": [
        "how far ahead an appointment reminder goes out",
        "the channel for reminders: text, email, phone, portal, letter",
        "reminder timing in hours before a visit",
    ],
    "scheduling_preference": [
        "earliest or latest clock time a visit can start",
        "weekdays that cannot be booked",
        "mornings, afternoons or evenings that are unavailable",
    ],
    "transport_need": [
        "hospital transport, an accessible vehicle or an escort",
        "parking close to the door and extra travel time",
        "getting to and from the clinic",
    ],
    "result_delivery": [
        "channel for negative and positive sexual health test outcomes",
        "whether a text may name the clinic or must stay neutral",
        "portal, phone call, secure email or in-person results",
        "discreet contact about swab and blood test outcomes",
    ],
    "partner_notification": [
        "contact tracing after an infection is diagnosed",
        "patient, provider or contract referral of sexual contacts",
        "number of contacts still to be informed and progress",
        "whether partner notification was declined",
    ],
    "prep_plan": [
        "HIV prevention tablets or injections taken before exposure",
        "daily versus on-demand dosing and pauses",
        "kidney function checks and review frequency for prevention medicine",
    ],
    "contraception_method": [
        "implant, injection, coil, pill, patch or ring in current use",
        "date a long-acting method must be replaced or removed",
        "which arm an implant sits in",
        "product name of the contraceptive in use",
    ],
    "travel_plan": [
        "destination, departure and return dates of an upcoming journey",
        "reason for going abroad: holiday, family visit, business, aid work",
        "rural backpacking, safari, cruise or trekking at altitude",
    ],
    "yellow_fever_status": [
        "international certificate of vaccination or prophylaxis held",
        "medical exemption letter and the reason for it",
        "date of the yellow fever jab",
    ],
    "malaria_prevention": [
        "antimalarial chosen for a trip",
        "antimalarials ruled out for this traveller",
        "bite avoidance only where no tablets are needed",
    ],
    "vaccine_course": [
        "multi-dose travel or sexual health jabs part way through",
        "doses already given and when the next one falls",
        "hepatitis, rabies, Japanese encephalitis, typhoid, HPV or mpox schedules",
    ],
    "pep_course": [
        "emergency HIV medicine started after a possible exposure",
        "28-day post-exposure regimen, start date and status",
        "follow-up HIV test date after post-exposure treatment",
    ],
    "emergency_contraception": [
        "morning-after pill or emergency coil supplied and when",
        "levonorgestrel, double dose or ulipristal given after unprotected sex",
        "who supplied the emergency method: pharmacy, clinic, GP, online",
    ],
}
