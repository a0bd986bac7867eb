"""Serves phrases for every type (11 built-in + 10 organisation), written for blind4 from the schemas only."""

DESCRIPTIONS = {
    "preferred_name": [
        "the name a person wants staff to call them by",
        "how to greet or address someone at reception or on a visit",
        "which pronouns to use when talking about them",
    ],
    "care_context": [
        "recorded allergies and adverse drug reactions with their severity",
        "whether a medicine, antiseptic, dressing or glove material is safe to use",
        "regular medicines taken long term and why they are prescribed",
        "medicines that need blood monitoring or interact with new prescriptions",
    ],
    "language_support": [
        "the language someone speaks and understands best",
        "whether a professional interpreter must be booked, and spoken or signed",
        "consultations with people who do not speak English",
    ],
    "communication_preference": [
        "the channel to use when getting in touch: text, email, phone call, portal or letter",
        "which language written messages should be sent in",
        "the hours during the day when contact is welcome",
    ],
    "caregiver_contact": [
        "next of kin, relatives and paid carers involved in someone's care",
        "a phone number for a family member",
        "what information a relative or carer is allowed to receive",
    ],
    "dietary_requirement": [
        "food restrictions for meals on a ward or in a home",
        "religious, ethical or medical diets such as halal, vegan or diabetic",
        "what may be served at lunch or offered as a snack",
    ],
    "accessibility_need": [
        "walking aids and wheelchairs, and whether a building must be step free",
        "support for deaf or hard of hearing people such as loops or lip reading",
        "formats for people with poor sight such as large print or audio",
    ],
    "observance_preference": [
        "days of worship or fasting when appointments should be avoided",
        "religious or cultural observance affecting when someone can attend",
        "periods of the day kept free for prayer or rest",
    ],
    "reminder_preference": [
        "how an appointment reminder should be sent",
        "how many hours ahead a reminder is wanted",
        "text, email, call, portal or letter reminders",
    ],
    "scheduling_preference": [
        "the earliest and latest times someone can be booked",
        "weekdays that cannot be offered for appointments",
        "mornings, afternoons or evenings that are unavailable",
    ],
    "transport_need": [
        "patient transport services and wheelchair accessible vehicles",
        "an escort or extra travel time for getting to clinic",
        "parking close to the entrance",
    ],
    "compliance_aid": [
        "monitored dosage systems, blister packs and dosette boxes",
        "whether tablets come loose in boxes or sealed in trays",
        "who fills the weekly tray and how often it is dispensed",
        "adding a new medicine to a pre-packed tray",
    ],
    "repeat_ordering": [
        "who requests the regular prescriptions and by what route",
        "how many days of supply each repeat covers",
        "when the annual medication review falls due",
        "managed repeat services and batch electronic dispensing",
    ],
    "medicines_support": [
        "how much help someone needs to take their tablets",
        "whether carers prompt, assist with or give medicines",
        "hidden medicines in food under a best interests decision",
        "who gives the doses at home or in the home",
    ],
    "homecare_package": [
        "the number and timing of domiciliary care visits each day",
        "which agency provides the care package and who pays for it",
        "when a carer will be in the house",
        "continuing healthcare or council funded care",
    ],
    "district_nursing": [
        "community nursing tasks done at home and how often",
        "wound, ulcer and bandaging visits",
        "insulin, injections, catheters or home bloods done by nurses",
        "housebound patients on the community nursing caseload",
    ],
    "pressure_area_care": [
        "risk of pressure sores and existing skin damage",
        "specialist mattresses and seat cushions",
        "how often someone must be turned or repositioned",
    ],
    "frailty_score": [
        "how frail an older person is on the clinical frailty scale",
        "fitness for treatment decisions and proactive care planning",
        "frailty category from fit to severe",
    ],
    "cognitive_impairment": [
        "a dementia diagnosis, its type and stage",
        "memory problems and the aids that help at home",
        "whether someone may forget instructions or appointments",
    ],
    "telecare": [
        "personal alarms, falls detectors and sensors in the home",
        "who is called out when an alarm goes off",
        "monitoring for people who wander or live alone",
    ],
    "nutrition_support": [
        "malnutrition screening score and weight checks",
        "oral nutritional supplement drinks prescribed each day",
        "people losing weight or eating poorly",
    ],
}
