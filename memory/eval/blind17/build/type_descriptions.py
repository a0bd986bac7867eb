"""Serves phrases for every memory type this set uses (11 built-in + 10 organisation types), written for this
set (blind17) from the schemas. build.py writes them to ../type_descriptions.json."""

DESCRIPTIONS = {
    "preferred_name": [
        "the name the patient likes to be called by",
        "pronouns to use when talking about the patient",
        "how to greet the patient at the desk or on the phone",
    ],
    "care_context": [
        "allergies and adverse reactions to medicines, antiseptics, dressings or contrast",
        "long-term medicines, what they are for and how they are monitored",
        "whether a new prescription, procedure product or dye is safe for this patient",
        "medicine interactions that matter before anything new is prescribed",
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
        "food needs such as halal, kosher, vegetarian, gluten-free or diabetic",
        "what snack or meal can be offered during a long clinic visit",
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
        "adjustments at the clinic building for disability",
    ],
    "seizure_plan": [
        "what a patient's seizures look like and how long they usually last",
        "rescue medicine for a prolonged seizure and the dose to give",
        "when to ring an ambulance during or after a fit",
    ],
    "time_critical_medicines": [
        "medicines whose doses must be given at exact clock times",
        "Parkinson's or myasthenia tablets that cannot wait on a ward round",
        "alternatives when the patient is nil by mouth",
        "whether the patient keeps and takes their own doses in hospital",
    ],
    "infusion_schedule": [
        "biologic or immunosuppressant drips given on a day unit",
        "how often an infusion is due and how long the chair is booked",
        "premedication and observation time around an infusion",
    ],
    "medicine_home_delivery": [
        "which homecare company brings injections or tablets to the door",
        "delivery frequency, fridge storage and sharps bin pick-up",
        "nurse visits to teach self-injection",
    ],
    "blood_monitoring": [
        "regular safety blood tests for a disease-modifying or immunosuppressant drug",
        "how often monitoring bloods are due and where they are taken",
        "who looks at the monitoring results",
    ],
    "shared_care": [
        "whether the GP has taken over prescribing a specialist drug",
        "shared-care agreements requested, agreed, declined or ended",
        "which hospital team keeps responsibility for a specialist medicine",
    ],
    "steroid_card": [
        "steroid emergency cards and adrenal crisis risk",
        "emergency hydrocortisone injection kits",
        "extra steroid doses during illness or before procedures",
    ],
    "pregnancy_prevention": [
        "pregnancy prevention programmes for valproate, topiramate, mycophenolate and similar drugs",
        "contraception used while on a teratogenic medicine",
        "annual risk acknowledgement forms",
    ],
    "stoma_care": [
        "ileostomy, colostomy or jejunostomy and the bags used",
        "high stoma output and what it means for fluids",
        "where stoma supplies come from",
    ],
    "endoscopy_surveillance": [
        "how often a surveillance colonoscopy or gastroscopy is due and why",
        "dye-spray, banding or biopsy technique at endoscopy",
        "when the next surveillance scope falls due",
    ],
}
