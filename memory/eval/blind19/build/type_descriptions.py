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
    "radiotherapy_preparation": [
        "bladder filling and bowel preparation before each radiotherapy fraction",
        "how much water to drink and how long before treatment",
        "treated area, number of fractions and breath-hold technique",
    ],
    "radiation_skin_care": [
        "skin reaction grade in the radiotherapy field",
        "moisturisers, films or dressings allowed on treated skin",
        "products and habits to avoid on irradiated skin",
    ],
    "pharmacogenomic_result": [
        "DPYD, TPMT, UGT1A1 or G6PD results that change drug dosing",
        "gene variants that make fluoropyrimidines, thiopurines or aminoglycosides unsafe",
        "dose reductions advised from a pharmacogenomic test",
    ],
    "scalp_cooling": [
        "cold cap use to reduce hair loss during chemotherapy",
        "extra chair time needed for scalp cooling",
        "whether scalp cooling was declined, stopped or unsuitable",
    ],
    "fertility_preservation": [
        "sperm banking, egg or embryo freezing before cancer treatment",
        "ovarian suppression during chemotherapy",
        "storage consent renewal dates and the assisted conception unit",
    ],
    "upper_tract_drain": [
        "ureteric JJ stents and nephrostomy tubes and their side",
        "when a stent or nephrostomy is due to be changed or removed",
        "whether urology or interventional radiology manages the drain",
    ],
    "intravesical_therapy": [
        "BCG, mitomycin or gemcitabine bladder instillation courses",
        "induction and maintenance instillations given and planned",
        "how long the drug is held in the bladder",
    ],
    "body_fluid_precautions": [
        "handling urine, vomit and other body fluids after anti-cancer treatment",
        "radiation protection at home after radioactive iodine, radium or seeds",
        "cytotoxic waste bins and toilet precautions",
    ],
    "inherited_cancer_gene": [
        "BRCA, PALB2, Lynch syndrome or TP53 germline testing",
        "whether relatives have been told about an inherited variant",
        "clinical genetics results and referrals",
    ],
    "follow_up_pathway": [
        "how a cancer is followed up after treatment ends",
        "patient-initiated open access, nurse-led telephone or scheduled clinic follow-up",
        "surveillance tests and their interval, and whom to contact",
    ],
}
