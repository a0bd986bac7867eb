"""'Serves' phrases for every type of this set (11 built-in, 10 organisation-defined), written from the schemas
for blind9. check.py refuses a question that repeats five consecutive words of any of these."""

DESCRIPTIONS = {
    "preferred_name": [
        "the name the patient likes to be called",
        "pronouns to use for the patient",
        "how to greet or address the patient at the door or in the cubicle",
    ],
    "care_context": [
        "a recorded allergy or adverse reaction to a medicine, antiseptic, dressing, contrast or food",
        "whether a drug, glove, skin prep or dressing is safe to use given a recorded allergy",
        "long-term medicines that could interact with something given in an emergency",
        "the condition a regular medicine treats and the blood monitoring it needs",
    ],
    "caregiver_contact": [
        "next of kin or carer and their phone number",
        "what a named relative or carer is allowed to be told",
        "who to ring to update family after an attendance",
    ],
    "communication_preference": [
        "how the patient wants follow-up contact: text, email, phone, portal or letter",
        "the language for written messages",
        "the hours when calls or messages are welcome",
    ],
    "language_support": [
        "the language the patient speaks and whether an interpreter is required",
        "spoken, signed or written language support",
        "booking a telephone or video interpreter for the consultation",
    ],
    "accessibility_need": [
        "mobility aids the patient uses and step-free access",
        "hearing support such as lip reading, a loop or a sign language interpreter",
        "sight support such as large print or a guide dog",
    ],
    "dietary_requirement": [
        "diets to respect when offering food or drink in the department",
        "religious, ethical or medical diets such as halal, vegan or gluten-free",
        "food the patient cannot eat during a long wait or admission",
    ],
    "observance_preference": [
        "days or times kept free for religious or cultural observance",
        "fasting periods that affect appointments or medicines",
        "when not to book a follow-up because of faith practice",
    ],
    "reminder_preference": [
        "how and how long beforehand to send appointment reminders",
        "reminder channel and lead time for a follow-up clinic",
        "a text or call the day before a fracture clinic or wound check",
    ],
    "scheduling_preference": [
        "earliest or latest times the patient can attend",
        "days or parts of the day the patient cannot come in",
        "booking a same-day or follow-up slot the patient can make",
    ],
    "transport_need": [
        "hospital transport, an escort or a wheelchair-accessible vehicle for getting home",
        "parking near the entrance or extra travel time",
        "arranging transport after discharge from the department",
    ],
    "crew_safety_alert": [
        "warnings for ambulance crews before attending an address",
        "violence, aggression, weapons, dogs or sharps at the property",
        "precautions such as police attendance or a rendezvous point",
        "whether a lone responder may go in",
    ],
    "emergency_entry": [
        "how crews get into the home if the patient cannot answer the door",
        "key safe location and who holds a spare key",
        "whether forced entry by police would be needed",
    ],
    "conveyance_preference": [
        "which hospital the patient prefers or wishes to avoid",
        "direct admission to a specialist unit instead of the emergency department",
        "treating at home rather than conveying to hospital",
        "a history of declining to be taken to hospital",
    ],
    "clinical_baseline": [
        "the patient's normal observations to compare against when unwell",
        "target oxygen saturation range for chronic lung disease",
        "usual confusion, speech or mobility before this episode",
        "usual heart rhythm or blood pressure recorded by a clinician",
    ],
    "bleeding_risk": [
        "anticoagulation or a clotting disorder that matters after a fall or head injury",
        "reversal agent or clotting factor agreed for serious bleeding",
        "whether the patient carries an anticoagulant or bleeding disorder card",
    ],
    "sepsis_risk": [
        "a reason the patient is at raised risk of serious infection",
        "neutropenia, asplenia, immunosuppression or a long line as a sepsis flag",
        "the agreed action such as antibiotics within the hour or the oncology hotline",
    ],
    "rescue_medication": [
        "emergency medicines the patient keeps at home or carries",
        "buccal midazolam, hydrocortisone injection, adrenaline pen, glucagon or GTN and the dose",
        "where the rescue medicine is kept",
    ],
    "frequent_attender_plan": [
        "an agreed multi-agency plan for a patient who calls or attends very often",
        "the usual presentation and the response the team agreed",
        "the lead team and review date for the plan",
    ],
    "emergency_call_access": [
        "how a deaf or speech-impaired patient contacts emergency services",
        "text relay, emergency text registration or a sign language video relay",
        "whether someone else usually makes the emergency call",
    ],
    "pet_arrangement": [
        "who looks after the animals if the patient is admitted",
        "pets left alone at the address when the patient is taken to hospital",
        "the name and number of the person taking over the animals",
    ],
}
