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
    "prior_authorisation": [
        "funding approval status for a high-cost drug or treatment",
        "Blueteq forms, individual funding requests, insurer pre-approval",
        "approval expiry dates and reference numbers for funded treatments",
        "whether a treatment can go ahead before funding is agreed",
    ],
    "hypo_plan": [
        "hypoglycaemia awareness and warning signs",
        "first treatment for a low glucose and what the patient carries",
        "glucagon kits kept at home",
    ],
    "sick_day_rules": [
        "medicines to stop temporarily during dehydrating illness",
        "ketone and glucose checks during illness",
        "when paused tablets can restart after recovery",
    ],
    "foot_protection": [
        "diabetic foot risk category and ulcer or Charcot history",
        "podiatry team and review interval",
        "insoles, bespoke footwear or offloading boots",
    ],
    "eye_screening": [
        "diabetic retinopathy screening pathway and recall interval",
        "which dilating drops suit the patient at screening",
        "opting out of or suspension from the screening programme",
    ],
    "eye_injections": [
        "intravitreal anti-VEGF injection courses and their interval",
        "which eye is treated and with which drug",
        "macular degeneration, diabetic macular oedema or retinal vein occlusion treatment",
    ],
    "phototherapy_course": [
        "narrowband UVB, PUVA or photodynamic therapy courses",
        "number of light sessions a week and sessions completed",
        "light treatment paused, planned or finished",
    ],
    "skin_surveillance": [
        "regular skin cancer checks and why they are needed",
        "total body photography or dermoscopy mole mapping",
        "recall interval for the dermatology surveillance clinic",
    ],
    "ear_care": [
        "how ear wax may be removed: microsuction, irrigation or instruments",
        "perforations, grommets or mastoid cavities and water precautions",
        "softening drops before a wax appointment",
    ],
    "test_preparation": [
        "instructions before fasting bloods, glucose tolerance or Synacthen tests",
        "medicines to hold before skin prick, patch or other outpatient tests",
        "24-hour urine collections and early-morning test slots",
    ],
}
