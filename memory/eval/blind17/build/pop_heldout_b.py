"""Held-out split, patients a017-a020 (neurology, rheumatology and gastroenterology outpatients)."""

from defs import (
    Q,
    S,
    allergy,
    bloods,
    carer,
    channel,
    delivery,
    diet,
    infusion,
    lang,
    med,
    name,
    no_days,
    observe,
    patient,
    ppp,
    remind,
    scope,
    seiz,
    shared,
    steroid,
    stoma,
    timed,
    window,
)

# a017: Han, 22, juvenile myoclonic epilepsy on sodium valproate under pregnancy prevention; lamotrigine rash
patient(
    "a017",
    "heldout",
    "juvenile myoclonic epilepsy",
    {
        "nm": name("Han", "she/her"),
        "vpa": med("sodium valproate", "juvenile myoclonic epilepsy"),
        "ltg": allergy("lamotrigine", "widespread rash at 25 mg", "moderate", "do not rechallenge"),
        "seiz_q": Q(
            seiz("absences", "rectal_diazepam", "10 mg", 2, note="entered from an old school care plan, not confirmed")
        ),
        "seiz": seiz(
            "morning myoclonic jerks, occasional tonic-clonic seizures",
            "buccal_midazolam",
            "10 mg",
            5,
            "still fitting 5 minutes after the midazolam, or not coming round",
            "triggers are lack of sleep, alcohol and flashing lights",
        ),
        "ppp_old": S(ppp("sodium valproate", "form_due", "none")),
        "ppp": ppp(
            "sodium valproate", "in_place", "hormonal_ius", "2026-02-11", "annual form signed with her neurologist"
        ),
        "timed": timed(
            "sodium valproate (Epilim Chrono) 500 mg", "08:00 and 20:00", 60, "IV valproate, ask neurology", True
        ),
        "mum": carer("Catrin Lloyd", "parent", ["appointments", "general_wellbeing"]),
        "wed": no_days("wednesday"),
        "sms": channel("sms"),
        "win_q": Q(window("02:00", "03:00")),
        "rem": remind("sms", 24),
    },
    [
        ("para", "Has Han got anything to give if a fit won't stop?", ["seiz"]),
        ("para", "What sets her seizures off?", ["seiz"]),
        ("brand", "is she on epilim chrono", ["vpa", "timed"]),
        ("brand", "does she have buccolam", ["seiz"]),
        ("ind", "Han's on the ward and her 8pm tablet is late, how much leeway is there?", ["timed"]),
        ("ind", "Her mum's asking how she got on in clinic - can we say?", ["mum"]),
        ("ind", "Valproate review - is her signed form in date?", ["ppp"]),
        ("safe", "meropenum for her pyelo, ok?", ["vpa"]),
        ("safe", "Neuro thinking of adding lamotrigine", ["ltg"]),
        ("safe", "Can she take aspirin for her headaches?", ["vpa"]),
        ("none", "What did her last EEG show?", []),
        ("none", "Is she allowed to drive?", []),
        ("none", "What was her valproate level?", []),
        ("other", "Does she have a steroid emergency card?", "a016:card"),
        ("stale", "What contraception does she use with her valproate - still none?", ["ppp"]),
        ("stale", "Can we text her at 2am?", []),
        ("stale", "is it rectal diazepam if she has an absence?", ["seiz"]),
    ],
)

# a018: Bernie, 74, colostomy after a perforated diverticulum; AF and stroke on apixaban; hydrocolloid allergy
patient(
    "a018",
    "heldout",
    "colostomy; atrial fibrillation after stroke",
    {
        "nm": name("Bernie", "he/him"),
        "apx": med("apixaban", "atrial fibrillation after a stroke"),
        "bis": med("bisoprolol", "atrial fibrillation rate control"),
        "hyd": allergy(
            "hydrocolloid adhesive", "blistered skin around the stoma", "moderate", "silicone adhesive flanges only"
        ),
        "cod": allergy("codeine", "severe constipation and confusion", "moderate"),
        "st_old": S(
            stoma("colostomy", "drainable", "normal", "Bullen Healthcare", "loose output in the weeks after surgery")
        ),
        "st": stoma(
            "colostomy", "closed", "normal", "Bullen Healthcare", "silicone flange and silicone adhesive remover"
        ),
        "scope_old": S(scope("polyps", "stoma_colonoscopy", 12, "hd_white_light", "2026-03")),
        "scope": scope(
            "polyps",
            "stoma_colonoscopy",
            36,
            "hd_white_light",
            "2029-03",
            "hold apixaban as the endoscopy unit advises",
        ),
        "jo": carer("Joanne Quigley", "child", ["everything"], "07700 900321"),
        "ph": channel("phone"),
        "win": window("10:00", "16:00"),
    },
    [
        ("para", "What sort of stoma has Bernie got?", ["st"]),
        ("para", "when is Bernie next due a bowel camera check?", ["scope"]),
        ("brand", "is he on eliquis", ["apx"]),
        ("brand", "Does he take Cardicor?", ["bis"]),
        ("ind", "Stoma nurse visit - what flange and remover should she bring?", ["st", "hyd"]),
        ("ind", "His daughter wants to know what the consultant said - can we tell her?", ["jo"]),
        ("ind", "Booking his scope - anything about his blood thinner?", ["scope", "apx"]),
        ("safe", "He's sore after the scope - can he have co-codamol?", ["cod"]),
        ("safe", "Can he have naproxen for his knee?", ["apx"]),
        ("safe", "He wants to take St John's wort for low mood", ["apx"]),
        ("safe", "Is a standard hydrocolloid stoma bag ok for him?", ["hyd"]),
        ("none", "What's his CHA2DS2-VASc?", []),
        ("none", "Is he having his stoma reversed?", []),
        ("other", "Does Bernie have a steroid emergency card?", "a016:card"),
        ("other", "Is he on the pregnancy prevention programme for mycophenolate?", "a013:ppp"),
        ("stale", "Is he still using drainable bags?", ["st"]),
        ("stale", "Is his colonoscopy yearly?", ["scope"]),
    ],
)

# a019: Aisha, 35, Crohn's colitis on ustekinumab from homecare after anaphylaxis to infliximab; Bengali interpreter
patient(
    "a019",
    "heldout",
    "Crohn's colitis",
    {
        "nm": name("Aisha", "she/her"),
        "ust": med("ustekinumab", "Crohn's disease"),
        "ifx": allergy(
            "infliximab",
            "anaphylaxis during the third infusion",
            "severe",
            "no anti-TNF infusions; ustekinumab tolerated",
        ),
        "metro": allergy("metronidazole", "severe peripheral neuropathy", "moderate"),
        "del_old": S(delivery("ustekinumab", "Alcura", 8, "home", True, "training", True)),
        "del": delivery(
            "ustekinumab", "Alcura", 4, "home", True, "none", True, "dose interval shortened to every 4 weeks"
        ),
        "sc": shared("ustekinumab", "hospital_only", False, "IBD team"),
        "scope": scope("colitis", "colonoscopy", 36, "dye_spray", "2028-06"),
        "fe": infusion("ferric carboxymaltose (Ferinject)", 26, "IBD Day Unit", "maintenance", 45, None, 30),
        "bn": lang("bn", True, "spoken"),
        "jamal": carer("Jamal Rahman", "spouse_or_partner", ["appointments"]),
        "fast": observe("fasting", ["monday", "thursday"]),
        "halal": diet("halal"),
        "ph": channel("phone"),
    },
    [
        ("para", "Who delivers Aisha's injections?", ["del"]),
        ("para", "What biologic is she on?", ["ust"]),
        ("brand", "is she on stelara", ["ust", "del"]),
        ("brand", "How often does she have Ferinject?", ["fe"]),
        ("ind", "Do I need to book an interpreter for her IBD clinic?", ["bn"]),
        ("ind", "She'd like her iron drip on a Monday - any problem?", ["fast"]),
        ("ind", "Ordering her lunch on the day unit", ["halal"]),
        ("ind", "Is her scope due this year?", ["scope"]),
        ("safe", "Consultant thinking about restarting Remicade", ["ifx"]),
        ("safe", "Perianal abscess - can she have Flagyl?", ["metro"]),
        ("none", "What was her last haemoglobin?", []),
        ("none", "Has she had an MR enterography?", []),
        ("none", "Is she planning a pregnancy?", []),
        ("other", "Does Aisha have a colostomy?", "a018:st"),
        ("other", "Is she on rituximab?", "a016:rtx"),
        ("stale", "Does her stelara still come every 8 weeks?", ["del"]),
        ("stale", "is the homecare nurse still coming to train her to inject?", ["del"]),
    ],
)

# a020: Des, 57, autoimmune hepatitis on azathioprine and prednisolone; chlorhexidine anaphylaxis; small varices
patient(
    "a020",
    "heldout",
    "autoimmune hepatitis",
    {
        "nm": name("Des", "he/him"),
        "aza": med("azathioprine", "autoimmune hepatitis", "FBC and LFT"),
        "pred": med("prednisolone", "autoimmune hepatitis, 10 mg daily"),
        "chx": allergy(
            "chlorhexidine", "anaphylaxis", "severe", "use povidone-iodine; no chlorhexidine gel in catheters or lines"
        ),
        "card": steroid(
            "emergency",
            "prednisolone for autoimmune hepatitis",
            True,
            "double the dose when feverish; injection kit at home",
        ),
        "bl": bloods("azathioprine", ["fbc", "lft"], 12, "gp", "specialist_nurse"),
        "sc_old": S(shared("azathioprine", "requested", False, "Hepatology")),
        "sc": shared("azathioprine", "agreed", True, "Hepatology"),
        "scope_old": S(scope("varices", "gastroscopy", 36, None, "2028-11")),
        "scope": scope("varices", "gastroscopy", 24, None, "2027-11", "small varices on the last scope"),
        "linda": carer("Linda Pike", "spouse_or_partner", ["appointments", "test_results"]),
        "thu": no_days("thursday"),
        "em": channel("email"),
        "rem": remind("email", 72),
    },
    [
        ("para", "Who does Des's immunosuppressant prescriptions now?", ["sc"]),
        ("para", "Has he got an emergency hydrocortisone injection at home?", ["card"]),
        ("brand", "is he on imuran", ["aza"]),
        ("brand", "Does he take Deltacortril?", ["pred"]),
        ("ind", "He's having a liver biopsy - what do we clean the skin with?", ["chx"]),
        ("ind", "When does he next need a gastroscopy?", ["scope"]),
        ("ind", "His wife rang for his LFTs - can she have them?", ["linda"]),
        ("safe", "ChloraPrep for his cannula?", ["chx"]),
        ("safe", "GP starting febuxastat for gout, ok?", ["aza"]),
        ("safe", "Catheter with Instillagel - any issue?", ["chx"]),
        ("none", "What's his IgG level?", []),
        ("none", "Has he had a FibroScan?", []),
        ("none", "What's his TPMT result?", []),
        ("other", "Does Des have a seizure plan?", "a017:seiz"),
        ("stale", "Is the shared care for his azathioprine still waiting on the GP?", ["sc"]),
        ("stale", "Is his variceal scope every 3 years?", ["scope"]),
        ("stale", "are his azathioprine scripts still from the hospital?", ["sc"]),
    ],
)
