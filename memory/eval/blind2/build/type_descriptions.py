"""Serves phrases (situations and questions each type answers), written from the schemas for this set."""

DESCRIPTIONS = {
    "preferred_name": [
        "the name the patient likes to be called by staff",
        "addressing an envelope or the greeting line of a letter",
        "calling the patient in from a waiting area",
        "which pronouns to use in notes and conversation",
    ],
    "care_context": [
        "drug, food, antiseptic, contrast or material allergies before anything is prescribed, applied or injected",
        "what happened when the patient reacted before and how serious it was",
        "regular long-term medicines that could interact with a new prescription",
        "the condition a long-term medicine is taken for",
        "blood levels or tests that a long-term medicine needs checked",
        "the care team's instruction on what to use instead of an allergen",
    ],
    "language_support": [
        "booking an interpreter and which language they must speak",
        "whether the patient signs (for example British Sign Language)",
        "the language the patient understands best, spoken or written",
        "whether the patient can manage a consultation in English",
    ],
    "communication_preference": [
        "the way the patient wants to be contacted: text, email, phone, portal or post",
        "the language outgoing messages and letters should be written in",
        "the hours during which calls or messages are acceptable",
        "how to get news of a change or cancellation to the patient",
    ],
    "caregiver_contact": [
        "the named carer, next of kin or proxy and how to reach them",
        "what a carer or relative is allowed to hear: appointments, reminders, results or everything",
        "who to phone if the patient cannot be reached or needs support",
        "a guardian or paid carer who should be involved in decisions or visits",
    ],
    "dietary_requirement": [
        "which meals to order for an inpatient or day case",
        "faith-based food rules such as halal or kosher",
        "gluten, lactose or nut restrictions and diabetic or low-salt diets",
        "whether food needs to be soft",
    ],
    "accessibility_need": [
        "whether the patient uses a wheelchair, frame, stick, crutches or scooter",
        "a room or entrance without steps",
        "hearing support at a visit: loop, signer, lip reading, captions or writing things down",
        "sight support: large print, braille, audio, screen-reader documents, guide dog or sighted guide",
    ],
    "observance_preference": [
        "religious or cultural days on which no appointment should be booked",
        "fasting times that affect when tests, medicines or appointments can happen",
        "parts of the day kept free for prayer or observance",
    ],
    "reminder_preference": [
        "which channel the appointment reminder goes out on",
        "how many hours ahead of an appointment to remind the patient",
        "setting up reminders after booking or moving an appointment",
    ],
    "scheduling_preference": [
        "the earliest or latest appointment time the patient can manage",
        "weekdays the patient is unable to come in",
        "whether mornings, afternoons or evenings must be avoided",
        "choosing slots to offer when booking or rebooking",
    ],
    "transport_need": [
        "whether patient transport has to be arranged",
        "a vehicle that takes a wheelchair",
        "an escort travelling with the patient",
        "parking close to the door or extra time to travel",
    ],
    "moving_handling": [
        "how many staff or what equipment a transfer needs (hoist, slide board, standing aid)",
        "whether the patient can get onto a couch, trolley or scanner table without help",
        "falls risk on the ward or in clinic",
        "weight-bearing restrictions after injury or surgery",
    ],
    "family_disclosure": [
        "a relative asking for news, results or the ward the patient is on",
        "which family members may be told what, and who must be told nothing",
        "whether to confirm to a caller that the patient is known to us",
    ],
    "spiritual_care": [
        "the patient's faith or belief",
        "whether to ask the chaplaincy to visit or to call the patient's own minister, imam, rabbi or priest",
        "prayers, sacraments or rites wanted when the patient is dying",
        "a wish not to be visited by chaplains",
    ],
    "personal_aid": [
        "hearing aids, glasses, contact lenses or dentures to keep with the patient or remove before a procedure",
        "prostheses and artificial eyes to look after on admission or in theatre",
        "an electronic communication aid the patient speaks through",
    ],
    "dependant_care": [
        "a child, partner or parent the patient looks after",
        "whether cover must be found before the patient can attend or be admitted",
        "whether the patient may need to bring the person they care for along",
        "respite arrangements before an admission",
    ],
    "learning_support": [
        "how to explain a diagnosis, procedure or consent form so the patient understands",
        "easy words, pictures, demonstrations or reading forms aloud",
        "checking understanding by asking the patient to repeat it back",
        "dyslexia, limited literacy, learning disability or memory problems affecting written information",
    ],
    "worn_device": [
        "insulin pumps and glucose sensors worn on the body",
        "devices to take off before MRI, CT or X-ray",
        "a wearable defibrillator vest, heart monitor or TENS machine",
        "an external sound processor for a cochlear implant",
    ],
    "contact_safety": [
        "whether a voicemail can be left or a letter sent to the home address",
        "a person who must never be told anything about the patient",
        "a confidential address or a code word for callers",
        "safeguarding limits on home visits",
    ],
    "research_contact": [
        "whether the patient may be approached about a research study",
        "trials the patient is already in or has withdrawn from",
        "a wish not to be contacted about research",
    ],
    "procedure_support": [
        "fear of needles or fainting at blood tests and injections",
        "claustrophobia in a scanner and the need for an open or wide-bore machine",
        "hard-to-find veins and who should take blood",
        "what helps the patient get through a test or procedure",
    ],
    "sensitive_circumstance": [
        "letters or invitations that must not be sent after a loss or bereavement",
        "a former name that must never appear on letters or screens",
        "recent bad news that should change how routine contact is handled",
    ],
    "assistance_animal": [
        "a guide, hearing or medical alert dog coming to appointments or onto a ward",
        "the name and role of the patient's assistance dog",
        "making room for a working dog in clinic",
    ],
}
