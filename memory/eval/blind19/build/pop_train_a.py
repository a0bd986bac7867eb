"""Train patients c001-c006 (cancer care and urology)."""

from defs import (
    E,
    Q,
    S,
    allergy,
    carer,
    channel,
    coldcap,
    diet,
    drain,
    earliest,
    fertility,
    fluids,
    followup,
    gene,
    instil,
    lang,
    latest,
    med,
    name,
    no_days,
    observe,
    patient,
    pgx,
    remind,
    rtprep,
    rtskin,
    transport,
    window,
)

# c001 Peggy, 67: left breast cancer, adjuvant radiotherapy with breath hold, anastrozole; chlorhexidine anaphylaxis
patient(
    "c001",
    "train",
    "Peggy, 67",
    {
        "name": name("Peggy", "she/her"),
        "chx": allergy(
            "chlorhexidine",
            "anaphylaxis during surgery",
            "severe",
            "use povidone-iodine for skin prep; no chlorhexidine-impregnated line dressings or Instillagel",
        ),
        "ana": med("anastrozole", "early breast cancer, oestrogen receptor positive", "DEXA scan every 2 years"),
        "alen": med("alendronic acid 70 mg weekly", "bone protection on anastrozole"),
        "den": carer("Dennis Hollis", "spouse_or_partner", ["appointments", "reminders"], "07700 900123"),
        "tpt": transport("hospital_transport", "extra_travel_time"),
        "early": earliest("10:00"),
        "win_q": Q(window("02:00", "03:00")),
        "win": window("09:00", "17:00"),
        "rt": rtprep("left_breast", 15, breath_hold=True, note="arms up on the breast board; three tattoo marks"),
        "skin_old": S(rtskin("left breast and armpit", "none", "Epaderm")),
        "skin": rtskin(
            "left breast and armpit",
            "redness",
            "Epaderm twice a day",
            "perfumed creams, shaving the armpit, hot water bottles",
        ),
        "brca": gene(
            "BRCA2", "uncertain", clinic="Manchester Centre for Genomic Medicine", note="variant to be reviewed in 2027"
        ),
        "fu": followup(
            "breast", "patient_initiated", "yearly mammogram", 12, "2031-06-30", "breast care nurse helpline"
        ),
    },
    [
        ("para", "What does Peggy take for her breast cancer?", ["ana"]),
        ("para", "husband's name and number?", ["den"]),
        ("brand", "pt still on arimidex?", ["ana"]),
        ("brand", "is she taking fosamax every week", ["alen"]),
        ("ind", "Radiotherapy booker: can I put her on the 8.30 machine slot tomorrow?", ["early"]),
        ("ind", "She rang the helpline, the skin under her arm is pink and sore - what can she put on it?", ["skin"]),
        ("ind", "Radiographer asks whether she does the deep breath technique on the couch", ["rt"]),
        ("safe", "OK to use a ChloraPrep stick before her cannula goes in?", ["chx"]),
        ("safe", "GP wants to start HRT patches for her hot flushes - any issue?", ["ana"]),
        ("none", "What was her last DEXA T-score?", []),
        ("none", "Did her sister have breast cancer as well?", []),
        ("other", "Is Peggy booked for a cold cap with her chemo?", "c004:cap"),
        ("other", "Does she have a stent in her kidney?", "c006:stent"),
        ("stale", "Her skin hasn't reacted to the radiotherapy at all, has it?", ["skin"]),
        ("stale", "Transport want to ring her at 2am about the pickup - ok?", ["win"]),
    ],
)

# c002 Derek, 72: prostate cancer, radiotherapy with bladder filling and micro-enema, goserelin; warfarin for AF
patient(
    "c002",
    "train",
    "Derek, 72",
    {
        "name": name("Derek", "he/him"),
        "pen": allergy("penicillin", "rash", "mild"),
        "warf": med("warfarin", "atrial fibrillation", "INR at the anticoagulation clinic, target 2.5"),
        "zol": med(
            "goserelin 10.8 mg implant every 12 weeks", "prostate cancer, hormone therapy", "PSA and testosterone"
        ),
        "bica": med("bicalutamide 50 mg", "flare cover for the first goserelin implant"),
        "tams": med("tamsulosin", "urinary symptoms"),
        "sms": channel("sms"),
        "janet": carer("Janet Price", "spouse_or_partner", ["everything"]),
        "nodays": no_days("wednesday"),
        "rt_old": S(rtprep("prostate", 20, "comfortably_full", 500, 45, "micro_enema")),
        "rt": rtprep(
            "prostate", 20, "comfortably_full", 350, 30, "micro_enema", note="gold seed markers in the prostate"
        ),
        "brca": gene("BRCA2", "pathogenic", "letter_given", "Leeds genetics"),
        "fu": followup("prostate", "on_treatment", note="PSA 3 months after radiotherapy"),
    },
    [
        ("para", "How much water does Derek need to drink before his prostate treatment?", ["rt"]),
        ("para", "what is he on for his heart rhythm", ["warf"]),
        ("brand", "Zoladex 10.8 every 12 weeks - is that right for him?", ["zol"]),
        ("brand", "flomax still?", ["tams"]),
        ("ind", "RT reception: he's asking whether to use the enema before today's session", ["rt"]),
        ("ind", "Can I ring his wife Janet with his PSA result?", ["janet"]),
        ("ind", "Booking his 20 daily sessions - is there a weekday he can't do?", ["nodays"]),
        ("safe", "Urology want to give him Augmentin for a UTI", ["pen"]),
        ("safe", "can he take ibuprofen for the hip ache he gets lying on the couch?", ["warf"]),
        ("none", "What was his Gleason score?", []),
        ("none", "latest INR?", []),
        ("other", "Is Derek having BCG into the bladder?", "c005:bcg"),
        ("other", "Has he got a DPD deficiency result?", "c003:dpyd"),
        ("stale", "is it still 500ml of water 45 mins before?", ["rt"]),
        ("stale", "Derek's drinking routine for the bladder - what is it now?", ["rt"]),
    ],
)

# c003 Sunil, 58: colon cancer, adjuvant CAPOX; DPYD intermediate (result came back after an awaited entry); Lynch
# syndrome (MLH1); phenytoin for epilepsy; Punjabi interpreter
patient(
    "c003",
    "train",
    "Sunil, 58",
    {
        "name": name("Sunil", "he/him"),
        "lang": lang("pa", True, "spoken"),
        "cape": med(
            "capecitabine 14 days on, 7 off",
            "adjuvant bowel cancer chemotherapy (CAPOX)",
            "FBC and kidney function before each cycle",
        ),
        "oxa": med("oxaliplatin 3-weekly on the day unit", "adjuvant bowel cancer chemotherapy (CAPOX)"),
        "phen": med("phenytoin", "epilepsy", "phenytoin levels"),
        "ond": allergy(
            "ondansetron", "severe constipation and headache", "moderate", "use cyclizine or olanzapine for sickness"
        ),
        "cod": allergy("codeine", "vomiting and confusion", "moderate"),
        "son": carer("Harpreet Singh", "child", ["everything"]),
        "veg": diet("vegetarian"),
        "dpyd_old": S(pgx("DPYD", "awaited", tested="2026-09-10")),
        "dpyd": pgx(
            "DPYD",
            "intermediate",
            "c.1236G>A (HapB3) heterozygous",
            "capecitabine, 5-fluorouracil",
            "start capecitabine at 50% dose then titrate",
            "2026-09-10",
        ),
        "mlh1": gene("MLH1", "pathogenic", "not_to_be_told", "St Mark's Centre for Familial Intestinal Cancer"),
        "fl": fluids("iv_chemotherapy", 7, ["double_flush", "gloves_for_carers"]),
        "fu": followup("bowel", "on_treatment", note="CT and CEA to start after chemotherapy"),
    },
    [
        ("para", "does he need an interpreter?", ["lang"]),
        ("para", "What tablet chemo is Sunil on?", ["cape"]),
        ("brand", "xeloda dose - full or reduced?", ["cape", "dpyd"]),
        ("brand", "eloxatin every 3 weeks for him?", ["oxa"]),
        ("ind", "Pharmacy screening cycle 1 - any reason not to dispense the full dose?", ["dpyd"]),
        ("ind", "His brother is on the phone asking whether he needs a bowel cancer gene test", ["mlh1"]),
        ("ind", "Wife asks if she has to do anything special in the bathroom after his chemo", ["fl"]),
        ("ind", "Day unit lunch order for Sunil?", ["veg"]),
        ("safe", "GP wants to prescribe Zostex (brivudine) for his shingles", ["cape"]),
        ("safe", "Seizure clinic adjusting his epanutin - anything in his chemo that affects it?", ["phen", "cape"]),
        ("none", "What was his CEA before surgery?", []),
        ("none", "Was his tumour MSI-high?", []),
        ("other", "Has he banked sperm before chemo?", "c007:sperm"),
        ("other", "Does he have a bladder instillation booked?", "c005:bcg"),
        ("stale", "Still waiting on his DPD result?", ["dpyd"]),
        ("stale", "Is the DPYD gene test still pending for Sunil?", ["dpyd"]),
    ],
)

# c004 Chloe, 34: BRCA1 triple-negative breast cancer, neoadjuvant paclitaxel and pembrolizumab; scalp cooling
# (wanted, now using); eggs frozen, goserelin for ovarian protection; penicillin anaphylaxis, metoclopramide dystonia
patient(
    "c004",
    "train",
    "Chloe, 34",
    {
        "name": name("Chloe", "she/her"),
        "pen": allergy("penicillin", "anaphylaxis", "severe", "use the penicillin-allergy neutropenic sepsis protocol"),
        "meto": allergy("metoclopramide", "acute dystonia (jaw spasm)", "moderate"),
        "pac": med(
            "paclitaxel weekly for 12 weeks", "neoadjuvant triple-negative breast cancer", "FBC before each dose"
        ),
        "pem": med(
            "pembrolizumab 3-weekly", "neoadjuvant triple-negative breast cancer", "thyroid and liver tests each cycle"
        ),
        "sert": med("sertraline", "anxiety"),
        "mum": carer("Linda Walsh", "parent", ["appointments", "general_wellbeing"]),
        "email": channel("email"),
        "late": latest("15:00"),
        "cap_old": S(coldcap("wanted")),
        "cap": coldcap("using", 60, note="cap fitted 30 minutes before paclitaxel"),
        "eggs": fertility("egg_freezing", "stored", "CARE Fertility Manchester", "2036-05-01"),
        "supp": fertility("ovarian_suppression", "in_progress", note="goserelin monthly on the day unit"),
        "brca1": gene(
            "BRCA1", "pathogenic", "informed", "Manchester genetics", "risk-reducing surgery to discuss after treatment"
        ),
    },
    [
        ("para", "Does Chloe want the cold cap?", ["cap"]),
        ("para", "how does she like to be contacted, email?", ["email"]),
        ("brand", "keytruda every 3 weeks - is she on it?", ["pem"]),
        ("brand", "taxol weekly for chloe?", ["pac"]),
        ("brand", "lustral?", ["sert"]),
        ("ind", "Chemo booker: how long a chair slot does she need on Thursday?", ["cap"]),
        ("ind", "Can I book her last appt at 4pm?", ["late"]),
        ("ind", "She's worried about her frozen eggs - where are they kept?", ["eggs"]),
        ("ind", "Does she still need the monthly injection to protect her ovaries?", ["supp"]),
        ("safe", "Pyrexial on the unit, 38.4 - start Tazocin?", ["pen"]),
        ("safe", "Feeling sick after chemo - can we give Maxolon?", ["meto"]),
        ("none", "What is her Ki-67?", []),
        ("none", "Has her sister been tested for BRCA?", []),
        ("other", "Does Chloe need a full bladder for her treatment?", "c002:rt"),
        ("other", "Does Chloe have a DPYD result?", "c003:dpyd"),
        ("stale", "Is she still just thinking about scalp cooling?", ["cap"]),
        ("stale", "She said she wanted to try the cold cap - did she actually start?", ["cap"]),
    ],
)

# c005 Frank, 70: high-grade non-muscle-invasive bladder cancer, BCG induction done, now maintenance; latex allergy;
# trimethoprim rash; apixaban; metformin
patient(
    "c005",
    "train",
    "Frank, 70",
    {
        "name": name("Frank", "he/him"),
        "latex": allergy("latex", "urticaria and wheeze", "severe", "use silicone catheters and latex-free gloves"),
        "tmp": allergy("trimethoprim", "widespread rash", "moderate"),
        "apix": med("apixaban", "atrial fibrillation"),
        "metf": med("metformin", "type 2 diabetes"),
        "wife": carer("Maureen O'Neill", "spouse_or_partner", ["everything"]),
        "tpt": transport("parking_near_entrance"),
        "remind": remind("phone", 48),
        "fl_mmc": E(
            fluids("intravesical_chemotherapy", 1, ["sit_to_urinate"], note="after the single mitomycin dose at TURBT")
        ),
        "bcg_old": S(instil("bcg", "induction", 6, 6, 120)),
        "bcg": instil(
            "bcg", "maintenance", 3, 15, 120, "no fluids for 4 hours before; sit down to pass urine afterwards"
        ),
        "fl": fluids(
            "intravesical_bcg",
            1,
            ["sit_to_urinate", "bleach_toilet"],
            note="two cups of bleach in the toilet for 15 minutes after voiding, for 6 hours",
        ),
        "fu": followup("bladder", "scheduled_clinic", "flexible cystoscopy", 3, contact="urology CNS"),
        "diet": diet("diabetic"),
        "window": window("09:00", "12:00"),
    },
    [
        ("para", "Is he still having BCG into his bladder?", ["bcg"]),
        ("para", "Where is Frank up to with his bladder treatment - how many done?", ["bcg"]),
        ("brand", "eliquis - is frank on it", ["apix"]),
        ("brand", "Glucophage?", ["metf"]),
        ("ind", "He's asking why he can't have his cup of tea before coming in for the instillation", ["bcg"]),
        ("ind", "Wife asks what to do with the toilet when he gets home", ["fl"]),
        ("ind", "When's his next camera test due roughly?", ["fu"]),
        ("ind", "Best time to phone him about the maintenance dates?", ["window"]),
        ("safe", "Nurse is about to catheterise him for the instillation - standard catheter OK?", ["latex"]),
        ("safe", "GP thinking trimethoprim for cystitis symptoms after BCG", ["tmp"]),
        ("none", "What grade and stage was his tumour?", []),
        ("none", "last HbA1c?", []),
        ("other", "Does Frank have a kidney stent?", "c006:stent"),
        ("other", "Is he having radiotherapy?", "c002:rt"),
        ("stale", "Is he still on the weekly induction BCG?", ["bcg"]),
        ("stale", "6 weekly BCG doses and then stop - right?", ["bcg"]),
        ("stale", "Is he still on the toilet precautions from the mitomycin dose after his operation?", ["fl"]),
    ],
)

# c006 Amina, 44: cervical cancer, chemoradiation with weekly cisplatin; left nephrostomy replaced by a ureteric
# stent; iodinated contrast reaction; Arabic interpreter, halal, Friday prayers
patient(
    "c006",
    "train",
    "Amina, 44",
    {
        "name": name("Amina", "she/her"),
        "lang": lang("ar", True, "spoken"),
        "halal": diet("halal"),
        "contrast": allergy(
            "iodinated contrast",
            "hives and facial swelling",
            "moderate",
            "steroid and antihistamine premedication per radiology protocol",
        ),
        "cis": med(
            "cisplatin weekly", "cervical cancer, with radiotherapy", "kidney function and magnesium before each dose"
        ),
        "lanso": med("lansoprazole", "indigestion"),
        "nephro_old": S(
            drain(
                "nephrostomy",
                "left",
                "2026-10-02",
                by="interventional_radiology",
                note="bag changed weekly by district nurses",
            )
        ),
        "stent": drain("ureteric_stent", "left", "2026-11-12", "2027-05-12", "urology"),
        "rt": rtprep(
            "cervix", 25, "comfortably_full", 500, 30, "empty_bowels", note="brachytherapy to follow in 3 weeks"
        ),
        "fert": fertility("egg_freezing", "declined", note="does not want to delay treatment"),
        "fu": followup("cervical", "on_treatment", contact="gynae-oncology CNS"),
        "yusuf": carer("Yusuf Hassan", "spouse_or_partner", ["appointments"]),
        "obs": observe("religious_observance", ["friday"], ["afternoon"]),
    },
    [
        ("para", "Which side is her stent?", ["stent"]),
        ("para", "Does Amina need an Arabic interpreter?", ["lang"]),
        ("brand", "Is she on zoton?", ["lanso"]),
        ("ind", "When does urology need to change the tube in her kidney?", ["stent"]),
        ("ind", "Radiotherapy booker: can she come Friday at 1.30?", ["obs"]),
        ("ind", "What lunch can we order for her on the day unit?", ["halal"]),
        ("ind", "Planning CT tomorrow: does she come in with a full bladder?", ["rt"]),
        ("safe", "CT with contrast to look at the kidney - anything to flag?", ["contrast"]),
        ("safe", "Can she have gentamicin for a kidney infection while on her chemo?", ["cis"]),
        ("none", "What is her eGFR today?", []),
        ("none", "Has she had the HPV vaccine?", []),
        ("other", "Does Amina have a BRCA result?", "c004:brca1"),
        ("other", "Is she using a cold cap?", "c004:cap"),
        ("stale", "Is her nephrostomy bag still changed by the district nurses?", ["stent"]),
        ("stale", "Does she still have a nephrostomy on the left?", ["stent"]),
    ],
)
