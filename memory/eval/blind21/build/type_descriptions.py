"""Serves phrases for every memory type this set uses (11 built-in + 10 organisation types), written for this set
from the schemas (the built-in phrases adapted from blind16's). build.py writes them to ../type_descriptions.json."""

DESCRIPTIONS = {
    "preferred_name": [
        "the name the patient likes to be called by",
        "pronouns to use when talking about the patient",
        "how to greet the patient at the desk or on the phone",
    ],
    "care_context": [
        "allergies and adverse reactions to medicines, antiseptics, dressings or contrast",
        "long-term medicines, what they are for and how they are monitored",
        "whether a new prescription, eye drop, dental anaesthetic or skin product is safe for this patient",
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
    "eye_drop_regimen": [
        "which eye drops go in which eye and how often",
        "glaucoma, dry eye, uveitis or graft drops and preservative-free needs",
        "who instils the drops at home",
    ],
    "cataract_surgery": [
        "cataract listing, stage and the eye to be operated on",
        "anaesthetic plan, lying flat and floppy iris risk for cataract surgery",
        "deferred or completed cataract operations",
    ],
    "low_vision_support": [
        "certificate of vision impairment: sight impaired or severely sight impaired",
        "low-vision clinic, magnifiers and sensory rehabilitation",
        "registration as blind or partially sighted",
    ],
    "eye_casualty_access": [
        "where to go with an urgent eye problem and the triage number",
        "open access to eye casualty for uveitis, grafts or angle closure",
        "warning symptoms that need same-day eye care",
    ],
    "hearing_profile": [
        "audiogram hearing level for each ear and type of loss",
        "tinnitus and sensitivity to loud sounds",
        "deafness, cochlear implants and hearing in one ear",
    ],
    "dental_bleeding_plan": [
        "managing anticoagulants and antiplatelets around dental extractions",
        "INR limits, missed doses and local haemostatic measures for tooth removal",
        "how many teeth may be taken out at one visit",
    ],
    "jaw_osteonecrosis_risk": [
        "medication-related osteonecrosis of the jaw risk from bisphosphonates or denosumab",
        "dental precautions before extractions for patients on bone-strengthening drugs",
        "low or high MRONJ risk category",
    ],
    "dental_care_setting": [
        "whether dental treatment is given in a practice, community special care, hospital or at home",
        "special care dentistry and general anaesthetic dental lists",
        "who accompanies the patient to dental appointments",
    ],
    "patch_test_result": [
        "contact allergens found on patch testing",
        "ingredients, metals, dyes, preservatives or steroids to avoid on the skin",
        "relevance and date of patch test readings",
    ],
    "skin_surgery": [
        "skin cancer operations, biopsies and Mohs surgery by body site",
        "waiting list or booked status of a dermatology procedure",
        "blood thinner advice before skin surgery",
    ],
}
