"""Serves phrases for every memory type (built-in and this set's organisation types), written from the schemas
for this set. build.py writes them to ../type_descriptions.json."""

DESCRIPTIONS = {
    "preferred_name": [
        "the name the person wants to be called by",
        "pronouns to use when speaking about the person",
        "how to address or greet the patient",
    ],
    "care_context": [
        "documented allergies and adverse reactions with their severity",
        "long-term medicines, what they treat and the monitoring they need",
        "checking whether a drug, product or material is safe to give",
        "interactions with a regular monitored medicine",
    ],
    "caregiver_contact": [
        "relatives, partners and friends named as contacts with their phone numbers",
        "what a named contact is allowed to be told",
        "who can be rung about appointments or results",
    ],
    "communication_preference": [
        "the channel the patient prefers for contact: text, email, call, portal or letter",
        "the language written communication should be in",
        "the hours during which the patient may be contacted",
    ],
    "language_support": [
        "the language the patient speaks and whether an interpreter must be booked",
        "spoken, signed or written language support",
        "which interpreter language to arrange",
    ],
    "dietary_requirement": [
        "food requirements such as halal, kosher, vegetarian, vegan or gluten-free",
        "meals, snacks and food offered during a visit",
        "diabetic, low salt or soft food diets",
    ],
    "accessibility_need": [
        "mobility aids such as wheelchairs, crutches, frames or sticks",
        "step-free access to buildings and rooms",
        "hearing and sight support such as loops, captions, large print or a sighted guide",
    ],
    "observance_preference": [
        "religious or cultural observance days to avoid for appointments",
        "fasting periods when bookings should not be made",
        "days of worship and festivals that rule out a slot",
    ],
    "reminder_preference": [
        "how the patient wants appointment reminders sent",
        "how many hours ahead a reminder is wanted",
        "reminder by text, email, phone, portal or post",
    ],
    "scheduling_preference": [
        "earliest and latest appointment times the patient can manage",
        "weekdays the patient cannot attend",
        "mornings, afternoons or evenings that are unavailable",
    ],
    "transport_need": [
        "hospital transport and wheelchair-accessible vehicles",
        "an escort to travel with the patient",
        "parking close to the entrance or extra travel time",
    ],
    "housing_situation": [
        "current accommodation such as rough sleeping, hostel, shelter or sofa surfing",
        "asylum hotels, dispersal housing and probation hostels",
        "roadside encampments, Traveller sites and council temporary accommodation",
        "the area someone is staying in and since when",
    ],
    "postal_route": [
        "a safe care-of address for appointment letters",
        "post held at the surgery, day centre, hostel office or solicitor",
        "whether someone picks up their mail in person",
    ],
    "go_between": [
        "the worker who can pass on a message when there is no fixed address",
        "outreach, hostel, probation, liaison or caseworker contact details",
        "when and how to try the intermediary",
    ],
    "phone_access": [
        "whether the person owns, shares or lacks a mobile",
        "phones lost, stolen, out of credit or working only on wifi",
        "WhatsApp, text or voice as the best route",
    ],
    "identity_documents": [
        "passport, biometric residence permit, ARC card or Home Office letter",
        "who holds the documents and whether they are lost or expired",
        "ID and discharge papers for registration and prescriptions",
    ],
    "practice_registration": [
        "general practice registration using the surgery address for people of no fixed abode",
        "temporary resident or specialist homeless practice registration",
        "registration refused or not yet done",
    ],
    "trauma_informed_care": [
        "clinician gender, rooms, doors and seating after trauma",
        "how examinations, touch and questioning should be handled",
        "uniforms, security staff, crowded waiting areas and interpreter choice",
    ],
    "outreach_clinic": [
        "drop-in, van, hostel in-reach or site visit clinics the person uses",
        "the day and hours a street or shelter clinic runs",
        "where a needle exchange or probation hub clinic is held",
    ],
    "custody_release": [
        "release date from prison or immigration removal centre",
        "licence conditions, recall and licence end",
        "days of medication supplied on leaving custody",
    ],
    "charging_exemption": [
        "overseas visitor charging category for hospital care",
        "exemptions for asylum seekers, refugees and trafficking victims",
        "evidence supporting free NHS treatment",
    ],
    "travel_pattern": [
        "months a Gypsy, Roma or Traveller family is on the road",
        "winter base or site they return to",
        "settled, seasonal or year-round travelling and evictions",
    ],
}
