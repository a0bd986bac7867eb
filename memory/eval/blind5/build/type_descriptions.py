"""Serves phrases for every memory type (built-in and this set's organisation types), written from the schemas
for this set. build.py writes them to ../type_descriptions.json."""

DESCRIPTIONS = {
    "preferred_name": [
        "what name to call the person by",
        "which pronouns to use when talking about them",
        "the name to use in letters, on the ward board and when calling from the waiting area",
    ],
    "care_context": [
        "documented allergies and adverse reactions to medicines, antiseptics, latex, dressings, contrast and foods",
        "how bad a recorded reaction was and what to use instead",
        "regular long-term medicines and the reason they are taken",
        "blood tests, levels or ECGs that a long-term medicine needs",
        "checking a new prescription against allergies and interacting regular medicines",
    ],
    "caregiver_contact": [
        "relatives, friends or paid carers involved in the person's care and their phone numbers",
        "which topics a named carer may be told about",
        "who the next of kin or legal guardian is",
    ],
    "communication_preference": [
        "the channel for getting in touch: text, email, phone, portal or letter",
        "the language for written correspondence",
        "the hours during which the person is happy to take calls",
    ],
    "language_support": [
        "the person's main language and whether an interpreter must be booked",
        "spoken, signed or written language support",
        "booking British Sign Language or community language interpreters",
    ],
    "accessibility_need": [
        "mobility aids and step-free access at the clinic",
        "hearing support such as a loop, lip reading, captions or a BSL interpreter",
        "sight support such as large print, braille, audio or a sighted guide",
    ],
    "dietary_requirement": [
        "food restrictions for meals on the ward: vegetarian, vegan, halal, kosher",
        "gluten-free, lactose-free, nut-free, diabetic, low-salt or soft diets",
        "what to order from the kitchen or offer at a group",
    ],
    "observance_preference": [
        "days of the week kept free for religious or cultural observance",
        "fasting periods to plan around",
        "times of day not to book because of worship",
    ],
    "reminder_preference": [
        "the channel for appointment reminders",
        "how many hours in advance a reminder should be sent",
        "whether reminders go by text, email, phone, portal or post",
    ],
    "scheduling_preference": [
        "the earliest or latest time an appointment can be booked",
        "days of the week the person cannot attend",
        "mornings, afternoons or evenings to avoid when booking",
    ],
    "transport_need": [
        "hospital transport, wheelchair-accessible vehicles and escorts",
        "extra travel time or parking close to the door",
        "arranging how the person gets to the clinic",
    ],
    "relapse_crisis_plan": [
        "the early warning signs that the person is becoming unwell again",
        "who to ring first when things deteriorate: care coordinator, home treatment team or a named trusted person",
        "the relapse signature agreed with the person and their family",
        "what staff should look out for at visits and reviews",
    ],
    "sensory_profile": [
        "sensory sensitivities to noise, light, touch, smell, crowds or textures",
        "adjustments such as a quiet room, ear defenders, dimmed lights or the first slot of the day",
        "how to make a clinic or ward environment bearable for an autistic person",
    ],
    "communication_passport": [
        "how a person with a learning disability or autism communicates: speech, Makaton, PECS, a device or objects",
        "how the person signals yes and no",
        "how the person shows pain or distress when they cannot say so",
    ],
    "advance_statement": [
        "wishes written while well about treatment in a future mental health crisis",
        "medicines that have helped before and medicines or ECT the person does not want",
        "views on restraint, rapid tranquillisation, staff gender and ward choice",
        "practical arrangements for pets, children, home and bills during an admission",
    ],
    "depot_injection": [
        "long-acting antipsychotic injections: medicine, dose and interval",
        "injection site rotation and where the depot is given",
        "when the next long-acting injection is due",
    ],
    "opioid_substitution": [
        "methadone or buprenorphine treatment: medicine and dose",
        "supervised consumption, takeaway doses and the dispensing pharmacy",
        "days the dispensing pharmacy is closed",
        "confirming a dose before any opioid is given in hospital",
    ],
    "clozapine_monitoring": [
        "how often full blood counts are taken for clozapine",
        "whether samples are fingerprick or venous and where",
        "the last traffic-light result from the monitoring service",
    ],
    "harm_reduction": [
        "naloxone kits held for opioid overdose",
        "use of needle and syringe programmes and injecting sites",
        "alcohol withdrawal seizures, thiamine needs and overdose history",
    ],
    "mental_health_act_status": [
        "legal status under the Mental Health Act: informal, detained, community treatment order, guardianship",
        "the responsible clinician and the date the section started",
        "conditions of a community treatment order or conditional discharge",
    ],
    "means_safety": [
        "measures to reduce access to the means of self-harm",
        "medicines dispensed in small amounts or held by family",
        "sharps, ligature risks and car keys",
    ],
}
