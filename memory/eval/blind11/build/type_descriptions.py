"""'Serves' phrases for every type (built-in and this set's organisation types), written from the schemas for
this set. build.py writes them to ../type_descriptions.json."""

DESCRIPTIONS = {
    "preferred_name": [
        "what name to call the patient by",
        "which pronouns the patient uses",
        "how to greet the patient at reception",
    ],
    "care_context": [
        "allergies and reactions to medicines, antiseptics, latex, dressings or foods",
        "how severe a recorded reaction was and what to use instead",
        "long-term medicines, what they are taken for and how they are monitored",
        "whether a drug could clash with a regular monitored medicine",
    ],
    "language_support": [
        "which language the patient speaks and whether an interpreter is needed",
        "sign language or written language support",
        "booking an interpreter for an appointment",
    ],
    "communication_preference": [
        "how the patient wants to be contacted: text, email, phone, portal or letter",
        "which language written messages should be in",
        "hours of the day when the patient may be called",
    ],
    "caregiver_contact": [
        "the carer or relative to contact and their phone number",
        "what a named carer or relative may be told",
        "who looks after the patient at home",
    ],
    "dietary_requirement": [
        "diet the patient follows such as halal, kosher, vegetarian or gluten-free",
        "food to offer or avoid during a long appointment",
        "soft food, low salt or diabetic diet",
    ],
    "accessibility_need": [
        "wheelchair, walking frame, crutches or stick used to get about",
        "step-free access to the building or room",
        "hearing loop, lip reading, captions or written notes",
        "large print, braille or guiding for sight loss",
    ],
    "observance_preference": [
        "religious or cultural days and times to keep free",
        "fasting periods when appointments should be avoided",
        "days of observance for booking",
    ],
    "reminder_preference": [
        "how and how long ahead to send appointment reminders",
        "text, email, phone or letter reminders",
        "reminder lead time in hours",
    ],
    "scheduling_preference": [
        "earliest or latest appointment time the patient can manage",
        "weekdays the patient cannot attend",
        "mornings, afternoons or evenings to avoid",
    ],
    "transport_need": [
        "hospital transport or a wheelchair-accessible vehicle",
        "someone to accompany the patient on the journey",
        "parking near the entrance or extra travel time",
    ],
    "equipment_loan": [
        "rehabilitation equipment lent from the community store",
        "walking frames, rollators, commodes, bath boards and beds issued",
        "when loaned equipment is due to be returned or collected",
    ],
    "home_adaptation": [
        "rails, ramps, stairlifts, level-access showers and key safes at home",
        "adaptations installed, awaited, assessed or declined",
        "getting into the house and around it on a home visit",
    ],
    "hearing_aid_fitting": [
        "degree of hearing loss in each ear",
        "style and model of hearing aid fitted and its battery size",
        "audiology fitting notes for follow-up and repairs",
    ],
    "optical_record": [
        "glasses the patient wears for distance, reading or both",
        "magnifiers and other low-vision aids",
        "registration as sight impaired or severely sight impaired",
        "eye conditions and whether dilating drops can be used",
    ],
    "dental_sedation_plan": [
        "level of dental anxiety or phobia",
        "sedation or anaesthetic approach for dental treatment",
        "escort home and eating or drinking rules before sedation",
    ],
    "pain_management_plan": [
        "the pain condition therapy has to work around",
        "pacing, heat, TENS and other strategies agreed for pain",
        "timing of pain relief before a therapy session",
    ],
    "rehab_goal": [
        "goals the patient has agreed with therapists",
        "target dates and progress of rehabilitation aims",
        "what the patient wants to be able to do again",
    ],
    "home_exercise_programme": [
        "exercises the patient does at home between sessions",
        "how often the home programme is done and in what format",
        "sheets, videos or apps given to practise with",
    ],
    "orthotic_device": [
        "splints, braces, insoles, collars and compression garments",
        "which side an orthosis is worn on and for how long",
        "supports to bring to or wear at appointments",
    ],
    "session_tolerance": [
        "how long a therapy session can last before the patient tires",
        "rest breaks needed within a session",
        "best time of day for therapy and what limits it",
    ],
}
