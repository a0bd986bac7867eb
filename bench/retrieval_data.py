"""The benchmark's realistic facts and questions: allergy substances, long-term medications, everyday
preferences, and the questions asked of them. Plain data for bench.retrieval_api."""

# Allergy substances (drugs, foods, environment) and long-term medications with indication and monitoring.
# Care facts are keyed by substance / medication, so each name gives one current memory.
ALLERGENS = [
    "penicillin", "amoxicillin", "ampicillin", "flucloxacillin", "cephalexin", "cefuroxime", "ceftriaxone",
    "sulfonamide", "co-trimoxazole", "trimethoprim", "erythromycin", "azithromycin", "clarithromycin",
    "doxycycline", "tetracycline", "ciprofloxacin", "levofloxacin", "moxifloxacin", "vancomycin", "clindamycin",
    "metronidazole", "nitrofurantoin", "gentamicin", "teicoplanin", "aspirin", "ibuprofen", "naproxen",
    "diclofenac", "celecoxib", "ketorolac", "mefenamic acid", "codeine", "morphine", "oxycodone", "tramadol",
    "fentanyl", "pethidine", "tapentadol", "lidocaine", "bupivacaine", "propofol", "suxamethonium",
    "rocuronium", "atracurium", "iodinated contrast", "gadolinium contrast", "chlorhexidine", "povidone-iodine",
    "latex", "adhesive dressings", "nickel", "bee venom", "wasp venom", "peanut", "tree nuts", "shellfish",
    "fish", "egg", "cow's milk", "soya", "wheat", "sesame", "kiwi fruit", "strawberries", "celery", "mustard",
    "lupin", "carbamazepine", "phenytoin", "lamotrigine", "allopurinol", "heparin", "enoxaparin",
    "lisinopril", "enalapril", "ramipril", "amiodarone", "quinine", "hydroxychloroquine", "dapsone",
    "isoniazid", "rifampicin", "fluconazole", "terbinafine", "aciclovir", "ondansetron", "metoclopramide",
    "prochlorperazine", "haloperidol", "midazolam", "diazepam", "tetanus vaccine", "influenza vaccine",
    "gelatin", "house dust mite", "grass pollen", "cat dander", "blue dye (patent blue)", "sticking plaster",
]
REACTIONS = ["rash", "hives", "anaphylaxis", "angioedema", "wheeze", "nausea and vomiting", "facial swelling",
             "itching", "bronchospasm", "Stevens-Johnson syndrome", "contact dermatitis", "low blood pressure"]
SEVERITIES = ["mild", "moderate", "severe", "unknown"]
MEDICATIONS = [
    ("warfarin", "atrial fibrillation", "INR"), ("apixaban", "stroke prevention in atrial fibrillation", None),
    ("rivaroxaban", "deep vein thrombosis", "renal function"), ("dabigatran", "pulmonary embolism", None),
    ("metformin", "type 2 diabetes", "HbA1c"), ("insulin glargine", "type 1 diabetes", "blood glucose"),
    ("gliclazide", "type 2 diabetes", "blood glucose"), ("sitagliptin", "type 2 diabetes", None),
    ("empagliflozin", "heart failure", "renal function"), ("levothyroxine", "hypothyroidism", "TSH"),
    ("carbimazole", "hyperthyroidism", "full blood count"), ("lithium", "bipolar disorder", "lithium level"),
    ("sertraline", "depression", None), ("fluoxetine", "obsessive-compulsive disorder", None),
    ("citalopram", "anxiety disorder", "ECG"), ("venlafaxine", "depression", "blood pressure"),
    ("mirtazapine", "depression", None), ("clozapine", "schizophrenia", "full blood count"),
    ("olanzapine", "schizophrenia", "weight and lipids"), ("quetiapine", "bipolar disorder", None),
    ("aripiprazole", "schizophrenia", None), ("methotrexate", "rheumatoid arthritis", "liver function"),
    ("hydroxychloroquine sulfate", "lupus", "eye examination"),
    ("sulfasalazine", "ulcerative colitis", "full blood count"),
    ("azathioprine", "Crohn's disease", "full blood count"), ("mesalazine", "ulcerative colitis", "renal function"),
    ("adalimumab", "psoriatic arthritis", "TB screening"), ("prednisolone", "polymyalgia rheumatica",
                                                            "blood glucose"),
    ("tacrolimus", "kidney transplant", "tacrolimus level"), ("mycophenolate", "kidney transplant",
                                                              "full blood count"),
    ("amiodarone hydrochloride", "ventricular arrhythmia", "thyroid function"),
    ("digoxin", "atrial fibrillation", "digoxin level"), ("bisoprolol", "heart failure", "heart rate"),
    ("atenolol", "hypertension", None), ("amlodipine", "hypertension", "blood pressure"),
    ("ramipril tablets", "hypertension", "renal function"), ("losartan", "diabetic nephropathy", "potassium"),
    ("candesartan", "heart failure", "renal function"), ("spironolactone", "heart failure", "potassium"),
    ("furosemide", "heart failure", "electrolytes"), ("bendroflumethiazide", "hypertension", "sodium"),
    ("atorvastatin", "hypercholesterolaemia", "lipid profile"), ("simvastatin", "hypercholesterolaemia", None),
    ("rosuvastatin", "familial hypercholesterolaemia", "liver function"), ("ezetimibe", "hyperlipidaemia", None),
    ("clopidogrel", "coronary stent", None), ("low-dose aspirin", "secondary prevention of stroke", None),
    ("ticagrelor", "acute coronary syndrome", None), ("isosorbide mononitrate", "angina", None),
    ("sodium valproate", "epilepsy", "liver function"), ("carbamazepine MR", "trigeminal neuralgia", "sodium"),
    ("lamotrigine tablets", "epilepsy", None), ("levetiracetam", "epilepsy", None),
    ("phenytoin sodium", "epilepsy", "phenytoin level"), ("gabapentin", "neuropathic pain", None),
    ("pregabalin", "neuropathic pain", None), ("amitriptyline", "migraine prevention", None),
    ("topiramate", "migraine prevention", None), ("levodopa", "Parkinson's disease", None),
    ("ropinirole", "restless legs syndrome", None), ("donepezil", "Alzheimer's disease", "heart rate"),
    ("memantine", "dementia", None), ("salbutamol", "asthma", "peak flow"),
    ("beclometasone", "asthma", "peak flow"), ("tiotropium", "COPD", "spirometry"),
    ("montelukast", "asthma", None), ("theophylline", "COPD", "theophylline level"),
    ("omeprazole", "gastro-oesophageal reflux", None), ("lansoprazole", "Barrett's oesophagus", None),
    ("alendronic acid", "osteoporosis", "bone density"), ("denosumab", "osteoporosis", "calcium"),
    ("colecalciferol", "vitamin D deficiency", "vitamin D level"), ("allopurinol tablets", "gout", "uric acid"),
    ("colchicine", "familial Mediterranean fever", None), ("febuxostat", "gout", "liver function"),
    ("tamsulosin", "benign prostatic hyperplasia", None), ("finasteride", "benign prostatic hyperplasia", "PSA"),
    ("oxybutynin", "overactive bladder", None), ("mirabegron", "overactive bladder", "blood pressure"),
    ("tamoxifen", "breast cancer", None), ("letrozole", "breast cancer", "bone density"),
    ("anastrozole", "breast cancer", "bone density"), ("goserelin", "prostate cancer", "PSA"),
    ("ferrous sulfate", "iron deficiency anaemia", "haemoglobin"), ("folic acid", "folate deficiency", None),
    ("hydroxocobalamin", "pernicious anaemia", "vitamin B12 level"),
    ("epoetin alfa", "anaemia of chronic kidney disease", "haemoglobin"),
    ("sevelamer", "hyperphosphataemia", "phosphate"), ("hydroxycarbamide", "sickle cell disease",
                                                       "full blood count"),
    ("buprenorphine", "opioid dependence", None), ("methadone", "opioid dependence", "ECG"),
    ("naltrexone", "alcohol dependence", "liver function"), ("disulfiram", "alcohol dependence", None),
    ("tenofovir", "HIV", "viral load"), ("dolutegravir", "HIV", "viral load"),
    ("entecavir", "chronic hepatitis B", "viral load"), ("isotretinoin", "severe acne", "liver function"),
    ("etanercept", "ankylosing spondylitis", "TB screening"),
]
PREFERENCES = [  # (memory_type, purpose, fact): one current value per kind and purpose
    ("scheduling_preference", "appointment_scheduling", {"kind": "earliest_time", "time": "10:00"}),
    ("scheduling_preference", "appointment_scheduling", {"kind": "latest_time", "time": "16:30"}),
    ("scheduling_preference", "appointment_scheduling", {"kind": "excluded_days", "days": ["friday"]}),
    ("scheduling_preference", "appointment_scheduling", {"kind": "excluded_periods", "periods": ["morning"]}),
    ("communication_preference", "communication", {"kind": "channel", "channel": "sms"}),
    ("communication_preference", "communication", {"kind": "language", "language": "pl-PL"}),
    ("communication_preference", "communication", {"kind": "contact_window", "start": "09:00", "end": "17:00"}),
    ("communication_preference", "appointment_scheduling", {"kind": "channel", "channel": "phone"}),
    ("communication_preference", "appointment_scheduling", {"kind": "language", "language": "en-GB"}),
    ("communication_preference", "appointment_scheduling",
     {"kind": "contact_window", "start": "12:00", "end": "14:00"}),
]
# What an agent or a clinician asks before acting (two have nothing relevant on record).
QUESTIONS = [
    "can we prescribe amoxicillin?",
    "does the patient have a penicillin allergy?",
    "is the INR in range?",
    "what time should I book the endocrinology visit?",
    "which days can the patient not come in?",
    "how should we contact the patient?",
    "what language does the patient speak?",
    "should we use latex-free gloves?",
    "is it safe to give ibuprofen for the pain?",
    "is the patient on blood thinners?",
    "does she take metformin for her diabetes?",
    "can we call in the evening?",
    "what is the latest appointment time that works?",
    "any allergy to contrast dye before the CT scan?",
    "what monitoring does the lithium need?",
    "can the patient have the flu vaccine?",
    "any reaction to codeine or morphine after surgery?",
    "which thyroid medication is the patient taking?",
    "does the patient own a bicycle?",
    "what is the patient's favourite football team?",
]


# Question templates for "cold" searches: every question distinct (none repeats, so none is answered from the query
# vector cache), a mix of kinds like an agent's or a clinician's day. Workload only: ranking is never tuned on them.
_MEDICINE_ASKS = ["can we prescribe {}?", "is it safe to give {} today?", "any allergy to {}?",
                  "is the patient still taking {}?", "can she have {} before the procedure?",
                  "what do we need to check before starting {}?"]
_CLINICS = ["cardiology", "diabetes", "dermatology", "physiotherapy", "blood test", "eye clinic", "dental",
            "orthopaedic", "asthma review", "smear test"]
_SCHEDULING_ASKS = ["can we book the {} appointment on a {}?", "is a {} slot on {} ok for the patient?",
                    "what time suits the patient for the {} visit on {}?"]
_DAYS = ["monday", "tuesday", "wednesday", "thursday", "friday", "saturday"]
_TIMES = ["8am", "9:30", "noon", "2pm", "4:45pm", "early morning", "late afternoon"]
_CONTACT_ASKS = ["how should we send the {} reminder?", "can we phone about the {} results at {}?",
                 "which language should the {} letter be in?"]
_NO_ANSWER = {"does the patient own a {}?": ["dog", "bicycle", "piano", "caravan", "boat", "motorbike", "cat"],
              "has the patient ever been to {}?": ["Lisbon", "Norway", "Japan", "the opera", "a football match"],
              "does the patient enjoy {}?": ["jazz", "gardening", "chess", "crosswords", "hiking", "baking"]}


def fresh_questions(count: int, seed: int = 7) -> list[str]:
    """count distinct questions: about 45% medicines, 25% scheduling, 20% contact, 10% with no answer on record."""
    import random

    rng = random.Random(seed)
    medicines = ALLERGENS + [m for m, _, _ in MEDICATIONS]
    out: dict[str, None] = {}
    kinds = ["medicine"] * 9 + ["scheduling"] * 5 + ["contact"] * 4 + ["none"] * 2
    tries = 0
    while len(out) < count and tries < count * 50:
        tries += 1
        kind = rng.choice(kinds)
        if kind == "medicine":
            q = rng.choice(_MEDICINE_ASKS).format(rng.choice(medicines))
        elif kind == "scheduling":
            template = rng.choice(_SCHEDULING_ASKS)
            q = template.format(rng.choice(_CLINICS) if "{} appointment" in template or "{} visit" in template
                                else rng.choice(_TIMES), rng.choice(_DAYS))
        elif kind == "contact":
            q = rng.choice(_CONTACT_ASKS).format(rng.choice(_CLINICS), rng.choice(_TIMES))
        else:
            template = rng.choice(list(_NO_ANSWER))
            q = template.format(rng.choice(_NO_ANSWER[template]))
        out.setdefault(q, None)
    if len(out) < count:
        raise ValueError(f"only {len(out)} distinct questions")
    return list(out)
