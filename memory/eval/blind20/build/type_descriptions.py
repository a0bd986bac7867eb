"""Serves phrases for every memory type this set uses (11 built-in + 10 organisation types), written for this
set from the schemas. build.py writes them to ../type_descriptions.json."""

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
    "away_dialysis": [
        "haemodialysis booked at another unit while the patient travels",
        "holiday dialysis requests, host unit screening and dates",
        "what access the visiting unit will needle",
    ],
    "brand_lock": [
        "medicines that must be dispensed as one named brand",
        "whether a pharmacy may substitute a generic or another maker",
        "transplant immunosuppressant brands kept constant",
    ],
    "drug_level_target": [
        "target range for a monitored blood level such as tacrolimus",
        "when the level sample should be drawn relative to the dose",
        "whether a dose waits until after the level is taken",
    ],
    "renal_dose_band": [
        "kidney function category pharmacists use to choose doses",
        "medicines to avoid or reduce at low clearance or on dialysis",
        "body weight used for renal dose calculations",
    ],
    "renal_diet": [
        "potassium and phosphate limits set by the kidney dietitian",
        "phosphate binder and when it is taken with food",
        "which dietitian gives kidney diet advice",
    ],
    "transplant_graft": [
        "organ transplanted, donor kind and date",
        "the transplant centre following the graft and its co-ordinator number",
        "a failed graft and return to dialysis",
    ],
    "glucose_data_sharing": [
        "whether sensor or pump readings reach the clinic online",
        "the upload platform for glucose data",
        "relatives or school staff following the readings",
    ],
    "bolus_settings": [
        "grams of carbohydrate covered by one unit at each meal",
        "correction factor and glucose target for extra insulin",
        "how long mealtime insulin stays active",
    ],
    "warning_signs": [
        "symptoms that mean a medicine may be causing harm",
        "what to do about a sore throat, abdominal pain or ketones on a named drug",
        "red flags patients are told to report",
    ],
    "specialist_contact": [
        "the named specialist team or nurse to ring",
        "phone numbers and opening hours of kidney, transplant, diabetes or endocrine teams",
        "who to call for advice outside clinic",
    ],
}
