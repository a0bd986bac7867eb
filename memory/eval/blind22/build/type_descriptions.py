"""Serves phrases for every memory type this set uses (11 built-in + 10 organisation types), written for this
set from the schemas. build.py writes them to ../type_descriptions.json."""

DESCRIPTIONS = {
    "preferred_name": [
        "the name the patient likes to be called by",
        "pronouns to use when talking about the patient",
        "how to greet the patient at the counter or on the phone",
    ],
    "care_context": [
        "allergies and adverse reactions to medicines, foods, antiseptics or materials",
        "long-term medicines, what they are for and how they are monitored",
        "whether a new supply, vaccine or over-the-counter product is safe for this patient",
        "interactions that matter before anything new is dispensed",
    ],
    "caregiver_contact": [
        "relatives, friends or carers and their phone numbers",
        "what a named family member or carer is allowed to hear",
        "who else to ring about appointments or reminders",
    ],
    "communication_preference": [
        "the channel the patient wants contact through: text, email, phone, portal or post",
        "the written language for letters and messages",
        "the hours of the day when contact is welcome",
    ],
    "dietary_requirement": [
        "food needs such as halal, kosher, vegetarian, gluten-free or nut-free",
        "what snack can be offered during a long clinic visit",
        "diet rules to respect when food is provided",
    ],
    "language_support": [
        "the patient's main language and whether an interpreter must be booked",
        "spoken, written or sign language support",
        "interpreter bookings for consultations",
    ],
    "observance_preference": [
        "religious or cultural days to keep clear of appointments",
        "fasting periods that affect booking",
        "days and times of worship to avoid",
    ],
    "reminder_preference": [
        "how appointment reminders are sent",
        "how many hours ahead a reminder goes out",
        "reminder channel chosen by the patient",
    ],
    "scheduling_preference": [
        "earliest and latest times the patient can attend",
        "weekdays or parts of the day the patient cannot come in",
        "booking constraints from work or school",
    ],
    "transport_need": [
        "hospital transport eligibility and wheelchair-accessible vehicles",
        "escort, parking close to the door or extra travel time",
        "getting the patient to and from clinic",
    ],
    "accessibility_need": [
        "mobility aids and step-free routes",
        "hearing support such as a loop, lip reading or a BSL interpreter",
        "sight support such as large print, braille or audio",
    ],
    "medicine_collection": [
        "which community pharmacy dispenses and how items are handed over",
        "named representatives allowed to pick up a prescription",
        "photo ID and signature rules for Schedule 2 and 3 controlled drugs",
        "delivery round day and locker collection",
    ],
    "pharmacy_first": [
        "minor illness consultations under the Pharmacy First service",
        "outcome of a pharmacist consultation: supply, advice or referral",
        "antibiotic or antiviral supplied by a pharmacist under a patient group direction",
    ],
    "travel_health": [
        "trips abroad, destinations and departure dates",
        "antimalarial prophylaxis choice for a journey",
        "yellow fever certificate or exemption",
    ],
    "opioid_taper": [
        "gradual dose reduction of an opioid analgesic",
        "current strength, reduction steps and target of a taper",
        "the single prescriber responsible for a reducing regimen",
    ],
    "pain_procedure": [
        "nerve blocks, epidural injections and radiofrequency denervation",
        "how much relief an injection gave and for how long",
        "waiting list or repeat status of a pain clinic procedure",
    ],
    "allergy_testing": [
        "penicillin allergy de-labelling and oral challenge results",
        "skin prick, specific IgE and food challenge outcomes",
        "whether an allergy label was confirmed or removed after testing",
    ],
    "immunotherapy_course": [
        "desensitisation for venom, pollen, mite or food allergy",
        "up-dosing or maintenance phase and interval between doses",
        "observation period after each allergen dose",
    ],
    "adrenaline_pen": [
        "auto-injector brand, strength and how many are carried",
        "expiry of emergency adrenaline devices",
        "training in using an adrenaline device",
    ],
    "immunoglobulin_therapy": [
        "antibody replacement for primary or secondary immunodeficiency",
        "subcutaneous or intravenous infusions at home and how often",
        "who gives the infusion and which product is used",
    ],
    "angioedema_plan": [
        "hereditary angioedema swelling attacks and C1-inhibitor treatment",
        "on-demand icatibant or C1-inhibitor and long-term prophylaxis",
        "medicines and triggers that bring on swelling",
    ],
}
