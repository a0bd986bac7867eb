"""Serves phrases for every memory type this set uses (11 built-in + 10 organisation types), written for this
set from the schemas. build.py writes them to ../type_descriptions.json."""

DESCRIPTIONS = {
    "preferred_name": [
        "the name the person likes to be called by",
        "pronouns to use when talking about the person",
        "how to greet the resident or patient",
    ],
    "care_context": [
        "allergies and adverse reactions to medicines, antiseptics, dressings, catheters or feeds",
        "long-term medicines, what they are for and how they are monitored",
        "whether a new prescription, wound product or supplement is safe for this person",
        "medicine interactions that matter before anything new is prescribed",
    ],
    "caregiver_contact": [
        "relatives, friends or carers and their phone numbers",
        "what a named family member or carer is allowed to hear",
        "who else to ring about visits, appointments or reminders",
    ],
    "communication_preference": [
        "the channel the person wants contact through: text, email, phone, portal or post",
        "the written language for letters and messages",
        "the hours of the day when contact is welcome",
    ],
    "dietary_requirement": [
        "food needs such as halal, kosher, vegetarian, gluten-free, diabetic or soft food",
        "what meal can be offered at a day centre or day unit",
        "diet rules to respect when food is provided",
    ],
    "language_support": [
        "the person's main language and whether an interpreter must be booked",
        "spoken, written or sign language support",
        "interpreter bookings for visits and consultations",
    ],
    "observance_preference": [
        "religious or cultural days to keep clear of appointments",
        "fasting periods that affect booking",
        "days and times of worship to avoid",
    ],
    "reminder_preference": [
        "how appointment reminders are sent",
        "how many hours ahead a reminder goes out",
        "reminder channel chosen by the person or family",
    ],
    "scheduling_preference": [
        "earliest and latest times the person can be seen",
        "weekdays or parts of the day that do not suit",
        "booking constraints from care calls, day centres or routines",
    ],
    "transport_need": [
        "hospital transport eligibility and wheelchair-accessible vehicles",
        "escort, parking close to the door or extra travel time",
        "getting the person to and from hospital or clinic",
    ],
    "accessibility_need": [
        "walking frames, sticks, wheelchairs and step-free routes",
        "hearing support such as a loop, lip reading or written notes",
        "sight support such as large print, braille or audio",
    ],
    "capacity_decision": [
        "decision-specific mental capacity assessments and their outcome",
        "best-interests decisions made for a person who lacks capacity",
        "who assessed capacity and when it should be reassessed",
    ],
    "covert_medication": [
        "agreement to give medicines hidden in food or drink",
        "which medicines may be disguised and in what",
        "pharmacist advice on mixing tablets with food",
    ],
    "dols_authorisation": [
        "Deprivation of Liberty Safeguards applications and authorisations",
        "the supervisory body, expiry date and conditions of a DoLS",
        "the relevant person's representative under the safeguards",
    ],
    "missing_person_plan": [
        "Herbert Protocol forms for people with dementia at risk of going missing",
        "places a person may head for if they walk out",
        "risk of leaving the home unnoticed and who holds a photo",
    ],
    "pet_at_home": [
        "dogs, cats or other animals in the home",
        "whether an animal must be shut away before a home visit",
        "who feeds or walks the animal if the person goes into hospital",
    ],
    "care_home_placement": [
        "which care home a person lives in and the type of bed",
        "residential, nursing, dementia, respite or discharge-to-assess placements",
        "self-funding, council funding or NHS Continuing Healthcare for the placement",
    ],
    "wound_dressing": [
        "leg ulcers, pressure ulcers, skin tears and surgical wounds being dressed",
        "primary and secondary dressings and compression bandaging",
        "how often dressings are changed and which nurses do it",
    ],
    "tube_feeding": [
        "PEG, RIG, gastrostomy or nasogastric tubes",
        "enteral feed, pump rate and water flushes",
        "what to do when a feeding tube falls out",
    ],
    "sickle_cell_plan": [
        "sickle cell genotype and baseline haemoglobin",
        "individual pain crisis plan and medicines to avoid",
        "exchange or top-up transfusion programmes and the haemoglobinopathy centre",
    ],
    "iron_infusion": [
        "intravenous iron products such as Ferinject, Monofer or Venofer",
        "when the last iron infusion was given and when the next is due",
        "the day unit that gives iron infusions",
    ],
}
