"""Serves phrases for every type (11 built-in + 10 organisation), written from the schemas for this set.
build.py writes them to ../type_descriptions.json; check.py refuses a question repeating five words of one."""

DESCRIPTIONS = {
    "accessibility_need": [
        "mobility aids such as a wheelchair, walking frame or crutches",
        "whether a room or entrance without steps is needed",
        "hearing support: loop, lip reading, captions, BSL interpreter",
        "sight support: large print, braille, audio, guide dog",
    ],
    "care_context": [
        "drug, food, skin preparation or material allergies and the reaction they cause",
        "whether a medicine, dressing or product is safe to give or use",
        "regular long-term medicines, why they are taken and how they are monitored",
        "interactions between a new prescription and a medicine already taken",
    ],
    "caregiver_contact": [
        "the name and phone number of a relative or carer",
        "who may be told about appointments, results or wellbeing",
        "next of kin and family members to involve",
    ],
    "communication_preference": [
        "preferred way of being contacted: text, email, call, portal or post",
        "the language written correspondence should be in",
        "hours of the day when contact is welcome",
    ],
    "dietary_requirement": [
        "meal restrictions: vegetarian, vegan, halal, kosher",
        "gluten-free, lactose-free or nut-free meals",
        "what food to order for a ward stay or a day case",
    ],
    "language_support": [
        "the main language spoken and whether an interpreter must be booked",
        "sign language or written language support",
        "which interpreter to arrange for a visit or a phone call",
    ],
    "observance_preference": [
        "days avoided for religious or cultural reasons",
        "fasting periods that affect booking",
        "sabbath or holy days when appointments cannot be offered",
    ],
    "preferred_name": [
        "what the person likes to be called",
        "pronouns to use",
        "the name to call out in a waiting room",
    ],
    "reminder_preference": [
        "how appointment reminders are sent",
        "how many hours before an appointment a reminder goes out",
        "text, email, call, portal or letter reminders",
    ],
    "scheduling_preference": [
        "earliest or latest appointment time that suits",
        "weekdays that cannot be booked",
        "mornings, afternoons or evenings to avoid",
    ],
    "transport_need": [
        "hospital transport and wheelchair-accessible vehicles",
        "an escort for the journey",
        "parking close to the entrance or extra travel time",
    ],
    "parental_responsibility": [
        "which adults hold parental responsibility for a child",
        "who can give consent for treatment of a child",
        "care orders and court orders that limit a parent's decisions",
        "adults who look after a child day to day without being able to consent",
    ],
    "child_collection": [
        "adults allowed to take a child home from clinic, ward or nursery",
        "people barred from collecting a child",
        "collection passwords and supervised contact",
    ],
    "safeguarding_status": [
        "early help, child in need or child protection plans",
        "looked-after children and pre-birth plans",
        "the lead social worker or professional for a family",
        "category of concern recorded by children's social care",
    ],
    "infant_feeding": [
        "breast, bottle, formula or mixed feeding",
        "prescribed or specialist formula and tube feeds",
        "feed volumes and timings, weaning",
    ],
    "growth_monitoring": [
        "weight and height concerns such as faltering growth",
        "how often a child is weighed",
        "which centile chart to plot measurements on",
    ],
    "neonatal_followup": [
        "prematurity, birth weight and time on the neonatal unit",
        "follow-up after neonatal care: development, eyes, hips, hearing",
        "corrected age and discharge from neonatal clinics",
    ],
    "birth_preferences": [
        "planned place of birth: home, midwife unit, labour ward or caesarean",
        "choices of pain relief in labour",
        "vitamin K for the newborn: injection, oral or declined",
    ],
    "antenatal_pathway": [
        "estimated due date and number of previous births",
        "midwife-led or consultant-led pregnancy care",
        "specialist antenatal clinics: diabetes, twins, fetal medicine, perinatal mental health",
    ],
    "transition_plan": [
        "moving from children's to adult services",
        "the adult team taking over and the key worker",
        "joint young adult clinics and readiness programmes",
    ],
    "emergency_care_plan": [
        "individual emergency plans for seizures, adrenal crisis, anaphylaxis or low blood sugar",
        "open access to the children's ward",
        "who holds copies of the emergency plan",
    ],
}
