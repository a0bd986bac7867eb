"""Serves phrases for every type (11 built-in, 10 organisation), written from the schemas for this set."""

DESCRIPTIONS = {
    "preferred_name": [
        "the name the patient likes to be called by",
        "pronouns to use when speaking about the patient",
        "how to greet the patient on a visit or on the telephone",
    ],
    "care_context": [
        "documented allergies and adverse reactions to check before any drug, dressing or skin preparation",
        "the severity and nature of a previous allergic reaction",
        "the care team's advice on an alternative to an allergen",
        "regular long-term medicines that may interact with something newly prescribed",
        "the reason a long-term medicine is taken and any blood monitoring it requires",
    ],
    "language_support": [
        "booking an interpreter for a home visit or a consultation",
        "the language or sign language in which the patient communicates",
        "whether information should be spoken or written in the patient's language",
    ],
    "communication_preference": [
        "the channel through which the patient prefers to be contacted",
        "the language in which to send written information",
        "hours of the day within which contact is acceptable",
    ],
    "caregiver_contact": [
        "the next of kin, carer or proxy and their telephone number",
        "which relatives or carers may receive information and of what kind",
        "whom to telephone about the patient",
    ],
    "dietary_requirement": [
        "religious, ethical or medical diets such as halal, kosher, vegetarian or gluten-free",
        "meals and snacks to provide on an admission or in a day unit",
        "texture-modified or soft diets and intolerances",
    ],
    "accessibility_need": [
        "mobility aids such as a wheelchair, frame or stick",
        "step-free access to a building or room",
        "hearing and sight support such as a loop, lip reading, large print or braille",
    ],
    "observance_preference": [
        "days and times to avoid for religious or cultural observance",
        "fasting periods to plan visits and medicines around",
        "clashes between an appointment and a day of worship or rest",
    ],
    "reminder_preference": [
        "the channel used for appointment reminders",
        "how many hours in advance a reminder is sent",
        "setting up reminders for a newly booked visit",
    ],
    "scheduling_preference": [
        "the earliest and latest acceptable appointment times",
        "weekdays on which the patient is unavailable",
        "mornings, afternoons or evenings that are excluded",
    ],
    "transport_need": [
        "arranging patient transport or a wheelchair-accessible vehicle",
        "an escort to accompany the patient to a clinic",
        "parking close to the entrance and extra journey time",
    ],
    "anticipatory_medicines": [
        "injectable medicines kept in the home in case symptoms arise in the last days",
        "where the anticipatory medicine box is stored in the house",
        "whether a signed administration chart is present for visiting nurses",
        "whether the patient has declined or not yet collected anticipatory drugs",
    ],
    "symptom_plan": [
        "the agreed first response to a particular symptom such as pain, breathlessness or agitation",
        "which team to escalate to when a symptom is not controlled",
        "individual plans for secretions, seizures, vomiting or a catastrophic bleed",
    ],
    "assisted_hydration": [
        "decisions about subcutaneous or intravenous fluids near the end of life",
        "whether tube feeding continues or stops as the patient deteriorates",
        "comfort eating and drinking and who took part in the decision",
    ],
    "place_of_death_preference": [
        "where the patient wishes to be cared for and where they wish to die",
        "a named hospice or care home chosen by the patient",
        "the second choice of place if the first is not possible",
    ],
    "ooh_call_plan": [
        "the service to telephone first at night or at weekends",
        "services that should not be contacted out of hours",
        "the number and contact name for urgent advice",
    ],
    "after_death_arrangements": [
        "verification of an expected death by a registered nurse",
        "the chosen funeral director and who is telephoned first after the death",
        "faith requirements for prompt release of the body and care of the body",
        "likely coroner involvement and tissue or body donation",
    ],
    "loaned_equipment": [
        "community equipment delivered to the home, such as a profiling bed or commode",
        "equipment that is on order or waiting to be collected",
        "the equipment service that supplied an item",
    ],
    "bereavement_support": [
        "family members at particular risk in bereavement",
        "children who need to be prepared for a death",
        "referrals to family support or children's bereavement services",
    ],
    "prognosis_conversation": [
        "how much the patient wishes to know about their prognosis",
        "whether the patient understands that they are dying",
        "whether information should go through a nominated relative",
    ],
    "bedside_wishes": [
        "who the patient wants present in the final days and who not",
        "music, pets, lighting and the room as death approaches",
        "personal care wishes and not being left on their own",
    ],
}
