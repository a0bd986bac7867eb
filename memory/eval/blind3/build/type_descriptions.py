"""'Serves' phrases for every type of this set (11 built-in, 10 organisation-defined), written from the schemas
for blind3. check.py refuses a question that repeats five consecutive words of any of these."""

DESCRIPTIONS = {
    "preferred_name": [
        "the name the patient likes to be called by staff",
        "pronouns to use when speaking or writing about the patient",
        "the form of address for letters, screens and the waiting room call",
        "a nickname or shortened name the patient answers to",
    ],
    "care_context": [
        "a documented allergy or adverse reaction to a drug, antiseptic, dressing, contrast agent or food",
        "whether a medicine, glove, skin preparation or dye is safe to use given a recorded allergy",
        "the severity and nature of a previous allergic reaction and the care team's advice on alternatives",
        "regular long-term medicines that may interact with a new prescription or vaccine",
        "the condition a long-term medicine is prescribed for",
        "blood level or other monitoring attached to a long-term medicine",
    ],
    "caregiver_contact": [
        "next of kin, carer or proxy and how to reach them",
        "what a named carer or relative is permitted to hear about appointments, results or wellbeing",
        "the telephone number of a relative or carer who helps the patient",
        "a guardian or paid carer involved in looking after the patient",
    ],
    "communication_preference": [
        "the channel the patient wants for contact: SMS, email, a call, the portal or post",
        "the written or spoken language for messages to the patient",
        "the hours in which the patient is happy to be phoned or messaged",
        "how to let the patient know about a cancelled or moved appointment",
    ],
    "dietary_requirement": [
        "meals and snacks that suit the patient's diet during a stay or long clinic visit",
        "faith-based food rules such as halal or kosher meals",
        "intolerances and restricted diets, for instance coeliac, lactose, nut, diabetic or low salt",
        "whether soft food should be ordered from the kitchen",
    ],
    "language_support": [
        "booking an interpreter and the language they must speak",
        "sign language users, such as people who use BSL",
        "the language for leaflets, letters and consent forms",
        "whether the patient prefers their language spoken or in writing",
    ],
    "observance_preference": [
        "weekdays that are off limits because of faith or culture",
        "parts of the day to avoid during a fast",
        "clashes between a booking and a sabbath, festival or prayer time",
        "timing tests and treatment around a religious fast",
    ],
    "reminder_preference": [
        "the channel used to remind the patient about a booking",
        "how many hours ahead of an appointment a reminder should go out",
        "reminders the day before versus a week in advance",
    ],
    "scheduling_preference": [
        "the first and last appointment times the patient can manage",
        "weekdays on which the patient is unable to come in",
        "mornings, afternoons or evenings ruled out for bookings",
        "choosing slots to offer at booking or rebooking",
    ],
    "transport_need": [
        "arranging patient transport to and from a hospital or clinic appointment",
        "a vehicle that takes a wheelchair, or an escort on the journey",
        "parking close to the door and extra time allowed for the journey",
    ],
    "accessibility_need": [
        "wheelchairs, frames, sticks, crutches or scooters the patient relies on",
        "rooms that avoid stairs: lifts, ramps, ground-floor clinics",
        "loop systems, BSL, lip reading or captions for hearing loss",
        "large print, braille, audio or screen-reader formats for sight loss",
    ],
    "swallow_texture": [
        "the IDDSI food texture level for meals and snacks",
        "how thick drinks must be and which thickener to use",
        "whether the patient is nil by mouth or on a modified diet after a swallow assessment",
        "what consistency tablets, jelly or sip feeds must be given in",
    ],
    "limb_alert": [
        "which arm or leg must not be used for blood pressure, cannulas, injections or venepuncture",
        "protecting a fistula, lymphoedema or post-surgical limb during routine procedures",
        "choosing a site for phlebotomy or an intravenous line",
        "veins preserved for future dialysis access",
    ],
    "legal_authority": [
        "who holds lasting power of attorney for health and welfare or for finances",
        "a Court of Protection deputy or special guardian who decides for the patient",
        "whether a named person may consent or refuse on the patient's behalf",
        "whether the paperwork has been seen and whether it covers life-sustaining treatment",
    ],
    "reassurance_profile": [
        "topics, activities and music that settle a patient with dementia or distress",
        "things that upset the patient and should be avoided by staff",
        "the time of day the patient tends to become agitated or confused",
        "personal background that helps staff make conversation",
    ],
    "continence_product": [
        "pads, pull-ups, sheaths and catheters the patient uses and their sizes",
        "stoma type and appliance supplies",
        "where continence or stoma supplies come from and whether they are brought in",
        "catheter care to plan for a visit, scan or admission",
    ],
    "shift_pattern": [
        "night, early, late or rotating work shifts the patient does",
        "the hours the patient is asleep during the day",
        "the patient's job and working pattern when timing calls and visits",
    ],
    "education_setting": [
        "the nursery, school, college or university a child or young person attends",
        "whether there is an individual healthcare plan or EHCP in place",
        "rescue medicines kept at school such as adrenaline pens, inhalers or midazolam",
        "home education and who to liaise with about a pupil's health",
    ],
    "vaccine_preference": [
        "vaccines the patient has declined or wants to discuss before agreeing",
        "whether to send invitations for flu, COVID, MMR, shingles or other vaccines",
        "objections to porcine gelatine and acceptable alternative products",
        "vaccinations that must be given at home",
    ],
    "remote_consultation": [
        "whether the patient can do a video appointment or prefers the phone",
        "the device the patient has for online consultations",
        "someone who helps set up a video call",
        "difficulties with remote appointments such as hearing, signal or privacy",
    ],
    "home_fire_risk": [
        "fire hazards in the home: oxygen, smoking, emollients, heaters, hoarding or battery charging",
        "whether a fire service safe and well visit has been done or offered",
        "risks to tell prescribers of oxygen or paraffin-based creams",
    ],
}
