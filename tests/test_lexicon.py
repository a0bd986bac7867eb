"""The clinical lexicon: shipped as data with its sources, broad, and read the way retrieval needs it."""

from __future__ import annotations

import json

import pytest

from memory.lexicon import LEXICON_FILE, lexicon


def test_lexicon_names_its_sources_and_is_broad():
    data = json.loads(LEXICON_FILE.read_text())
    sources = " ".join(data["sources"])
    for source in ("WHO", "ATC", "BNF", "FDA", "ACAAI"):
        assert source in sources
    terms = sum(len(c["terms"]) + len(c["found_in"]) + len(c["tests"]) for c in data["concepts"].values())
    assert terms >= 300 and len(data["concepts"]) >= 60 and len(data["interactions"]) >= 20


@pytest.mark.parametrize("classes", [
    "penicillins", "cephalosporins", "sulfonamides", "macrolides", "fluoroquinolones", "tetracyclines", "nsaids",
    "opioids", "ace_inhibitors", "statins", "anticonvulsants", "iodinated_contrast", "local_anaesthetics",
    "vaccine_components", "egg", "gelatin", "latex", "warfarin", "doacs", "lithium", "methotrexate", "metformin",
    "insulin", "digoxin", "amiodarone", "levothyroxine", "clozapine"])
def test_common_allergy_classes_and_monitored_drugs_are_covered(classes):
    assert classes in lexicon().concepts


@pytest.mark.parametrize("text, concept", [
    ("Can we give her Bactrim?", "sulfonamides"),
    ("co-trimoxazole", "sulfonamides"),
    ("amoxicillin 500mg", "penicillins"),
    ("Augmentin", "penicillins"),
    ("ibuprofen for pain", "nsaids"),
    ("Nurofen", "nsaids"),
    ("Xarelto", "doacs"),
    ("Tegretol", "anticonvulsants"),
    ("lignocaine", "local_anaesthetics"),
    ("What gloves should the nurse use?", "latex"),
    ("a dental dam", "latex"),
    ("the flu jab", "egg"),
    ("MMR vaccine", "gelatin"),
    ("satay sauce", "peanut"),
    ("is the INR in range?", "warfarin"),
    # the shorthand of wards and prescriptions
    ("IV co-amox for chest sepsis", "penicillins"),
    ("fluclox for the cellulitis", "penicillins"),
    ("pip-taz started overnight", "penicillins"),
    ("ok to start clari?", "cyp3a4_macrolides"),
    ("doxy for the Lyme", "tetracyclines"),
    ("vanc levels due", "glycopeptides"),
    ("trimeth for his UTI", "trimethoprim"),
    ("is she still on pred?", "systemic_corticosteroids"),
    ("tacro level this morning", "calcineurin_inhibitors"),
    ("chlorhex wipes before the line goes in", "chlorhexidine"),
    ("sux for the RSI", "neuromuscular_blockers"),
    ("HCQ eye screening", "hydroxychloroquine"),
    # products that hide a medicine, and chemotherapy by its brand
    ("Can she have Solpadeine for her headaches?", "codeine"),
    ("Can she have Solpadeine for her headaches?", "paracetamol"),
    ("Nurofen Plus", "codeine"),
    ("Nurofen Plus", "nsaids"),
    ("Lemsip for the cold?", "decongestants"),
    ("Anadin Extra", "nsaids"),
    ("taxotere cycle - when?", "taxanes"),
    ("what OST is he on", "opioid_substitution"),
    ("is she on anything to thin the blood?", "anticoagulants"),
    # a name leading a hyphenated word still speaks of it
    ("the lactose-containing syrup", "milk"),
    ("heparin-induced thrombocytopenia", "heparins"),
    ("an iodine-based contrast", "iodinated_contrast"),
    ("dairy-free diet", "milk"),
])
def test_names_brands_and_hiding_places_map_to_their_classes(text, concept):
    assert concept in lexicon().mentions(text)


def test_a_name_ending_a_hyphenated_word_or_running_into_a_number_is_not_read():
    lex = lexicon()
    assert "penicillins" not in lex.mentions("a non-penicillin antibiotic")
    assert lex.mentions("latex-2") == {}


def test_words_that_name_nothing_clinical_map_to_nothing():
    for text in ("does the patient own a bicycle?", "how should we send the appointment reminder?",
                 "can she come on Friday after 3?", "which language does he speak?"):
        assert lexicon().mentions(text) == {}, text


def test_relevance_follows_classes_cross_reactions_and_interactions():
    lex = lexicon()
    m = lex.mentions
    assert lex.relevance(m("Bactrim"), m("sulfonamide")) == 1.0
    assert lex.relevance(m("any antibiotic allergy?"), m("penicillin")) > 0.5  # umbrella word
    assert 0 < lex.relevance(m("cefalexin"), m("penicillin")) < 1  # cross-reaction
    assert lex.relevance(m("naproxen"), m("warfarin"), taken=True) > 0  # interaction with what is taken
    assert lex.relevance(m("naproxen"), m("warfarin"), taken=False) == 0  # not with an allergy to it
    assert lex.relevance(m("contrast for the CT"), m("metformin"), taken=True) > 0
    assert lex.mismatch(m("any penicillin allergy?"), m("ciprofloxacin")) == 1.0
    assert lex.mismatch(m("any food allergy?"), m("codeine")) == 1.0
    assert lex.mismatch(m("colonoscopy next week"), m("codeine")) == 0.0  # procedures are never a mismatch


def test_expansion_adds_class_names():
    text = lexicon().expand("Can we give her Bactrim?")
    assert "sulfonamide antibiotics" in text and text.startswith("Can we give her Bactrim?")


@pytest.mark.parametrize("text, concept", [
    ("Sinemet 62.5mg four times a day", "levodopa"),
    ("co-careldopa", "levodopa"),
    ("Madopar", "levodopa"),
    ("ropinirole at night", "dopamine_agonists"),
    ("rasagiline", "mao_b_inhibitors"),
    ("Humira fortnightly", "adalimumab"),
    ("infliximab infusion", "infliximab"),
    ("Enbrel", "etanercept"),
    ("any biologic?", "biologics"),
    ("tacrolimus", "calcineurin_inhibitors"),
    ("Neoral", "calcineurin_inhibitors"),
    ("CellCept", "mycophenolate"),
    ("Imuran", "azathioprine"),
    ("Ozempic", "glp1_agonists"),
    ("Wegovy for weight loss", "glp1_agonists"),
    ("Mounjaro", "tirzepatide"),
    ("Forxiga", "sglt2_inhibitors"),
    ("Jardiance", "sglt2_inhibitors"),
    ("Lasix 40mg", "loop_diuretics"),
    ("bendroflumethiazide", "thiazide_diuretics"),
    ("indapamide", "thiazide_diuretics"),
    ("spironolactone", "potassium_sparing_diuretics"),
    ("Lustral", "ssris"),
    ("Prozac", "fluoxetine_paroxetine"),
    ("Cipralex", "citalopram"),
    ("Efexor XL", "snris"),
    ("amitriptyline 10mg", "tcas"),
    ("phenelzine", "maoi_antidepressants"),
    ("Epilim Chrono", "valproate"),
    ("Lamictal", "lamotrigine"),
    ("Epanutin", "phenytoin"),
    ("Uniphyllin", "theophylline"),
    ("Zyloric", "xanthine_oxidase_inhibitors"),
    ("Subutex", "buprenorphine"),
    ("methadone 60ml", "methadone"),
    ("Valium", "benzodiazepines"),
    ("buccal midazolam", "midazolam"),
    ("Plavix", "clopidogrel"),
    ("Brilique", "ticagrelor"),
    ("GTN spray", "nitrates"),
    ("Viagra", "pde5_inhibitors"),
    ("Microgynon", "combined_hormonal_contraceptives"),
    ("Nexplanon", "hormonal_contraceptives"),
    ("Nolvadex", "tamoxifen"),
    ("Arimidex", "aromatase_inhibitors"),
    ("Diflucan", "azole_antifungals"),
    ("itraconazole", "strong_azoles"),
    ("Rifadin", "rifampicin"),
    ("Zyvox", "linezolid"),
    ("Imigran", "triptans"),
    ("Tramacet", "tramadol"),
    ("Maxolon", "metoclopramide"),
    ("Stemetil", "prochlorperazine"),
    ("Motilium", "domperidone"),
    ("Zofran", "ondansetron"),
    ("Norvir", "pharmacokinetic_boosters"),
    ("Paxlovid", "paxlovid"),
    ("Biktarvy", "integrase_inhibitors"),
    ("Klaricid", "cyp3a4_macrolides"),
    ("Flixotide", "inhaled_corticosteroids"),
    ("Kenalog injection", "systemic_corticosteroids"),
    ("ChloraPrep", "chlorhexidine"),
    ("Instillagel", "chlorhexidine"),
    ("Betadine", "iodine_antiseptic"),
    ("Stamaril", "live_vaccines"),
    ("BCG", "live_vaccines"),
    ("Fluenz", "gelatin"),
    ("isosulfan blue", "patent_blue"),
    ("fluorescein angiography", "fluorescein"),
    ("Movicol", "peg"),
    ("Moviprep", "peg"),
    ("latex-free gloves", "latex"),
    ("Micropore tape", "adhesives"),
    ("sentinel node biopsy", "sentinel_node_biopsy"),
    ("Sudafed", "decongestants"),
    ("grapefruit juice", "grapefruit"),
    ("Is Ziagen ok as a switch?", "abacavir"),
    ("Triumeq", "abacavir"),
    ("is she on Kaftrio?", "cftr_modulators"),
    ("any reaction to glycopeptides", "glycopeptides"),
    ("E45 cream", "lanolin"),
    # lexicon-6: what a list of common UK and US brand names found missing (not a brand that is also a first
    # name, Yasmin, or an ordinary phrase, "night nurse")
    ("is he on Antabuse?", "disulfiram"), ("Campral", "alcohol_dependence_medicines"),
    ("Epclusa", "hepatitis_c_antivirals"), ("Maviret", "hepatitis_c_antivirals"), ("Xifaxan", "rifaximin"),
    ("Keytruda", "checkpoint_inhibitors"), ("Herceptin", "her2_therapy"),
    ("Eloine", "combined_hormonal_contraceptives"),
    ("Rapifen", "opioids"), ("Tramal", "tramadol"), ("Salazopyrin", "sulfonamides"),
    ("Kayexalate", "potassium_binders"), ("a Lemsip", "paracetamol"), ("Beechams powders", "paracetamol"),
    # lexicon-7: stress agents, dipyridamole and the antimuscarinics as classes of their own (their interactions are
    # theirs, not every antiplatelet's or antispasmodic's), glycopyrronium by mouth
    ("adenosine stress perfusion scan", "adenosine"), ("Lexiscan", "adenosine"), ("Persantin", "dipyridamole"),
    ("Buscopan", "antimuscarinic_antispasmodics"),
    ("robinul for drooling", "anticholinergics_other"), ("glycopyrrolate", "anticholinergics_other"),
    ("Siklos", "cytotoxic_chemotherapy"), ("hydroxyurea", "cytotoxic_chemotherapy"), ("Monotrim", "trimethoprim"),
    ("second Imvanex dose", "vaccines"), ("Provigil", "modafinil"), ("camzyos", "mavacamten"),
    # lexicon-9
    ("Is he on Tresiba?", "insulin_degludec"), ("NovoRapid pen", "insulin_aspart"), ("Jinarc", "tolvaptan"),
    ("due his Vabysmo", "anti_vegf"), ("Eylea injection", "anti_vegf"), ("Baqsimi", "glucagon"),
    ("Retina want an FFA", "fluorescein"), ("Otomize spray", "aminoglycosides"),
    ("What immunosuppression is he on?", "immunosuppressants"),
    # lexicon-10
    ("ocrevus every 6 months", "ocrelizumab"), ("Entyvio infusion", "vedolizumab"),
    ("Tecfidera", "ms_oral_immunosuppressants"),
    ("Botox for her migraine", "botulinum_toxin"), ("gas and air for the extraction", "nitrous_oxide"),
    ("Benylin Dry Cough", "dextromethorphan"), ("exjade", "iron_chelators"), ("flamazine cream", "sulfonamides"),
    ("ibuprophen", "nsaids"), ("crush her MST", "opioids"), ("Stesolid", "benzodiazepines"),
    # lexicon-11
    ("is she on Xeloda?", "fluoropyrimidines"), ("any chemo?", "cytotoxic_chemotherapy"), ("vepesid", "etoposide"),
    ("Zostex", "brivudine"), ("Tarceva daily", "egfr_inhibitors"), ("lynparza 300 bd", "parp_inhibitors"),
    ("Xofigo", "radium_223"), ("Zytiga", "endocrine_cancer_therapy"), ("Betmiga", "beta3_agonists"),
])
def test_brands_and_generics_of_monitored_and_long_term_medicines_map_to_their_classes(text, concept):
    assert concept in lexicon().mentions(text)


# (question, what the patient takes): each pair interacts; none is the same class or a cross-reaction.
INTERACTING = [
    ("Can we give clarithromycin?", "Long-term simvastatin 40mg at night"),
    ("Can we start Paxlovid?", "Atorvastatin 20mg"),
    ("ritonavir", "Flixotide inhaler twice daily"),
    ("itraconazole", "tacrolimus"),
    ("ketoconazole", "sildenafil"),
    ("cobicistat", "midazolam"),
    ("fluconazole", "warfarin"),
    ("ibuprofen", "furosemide"),
    ("naproxen", "candesartan"),
    ("yellow fever vaccine", "adalimumab"),
    ("MMR", "methotrexate"),
    ("BCG", "prednisolone 40mg daily"),
    ("metoclopramide", "co-careldopa"),
    ("haloperidol", "ropinirole"),
    ("linezolid", "sertraline"),
    ("tramadol", "sertraline"),
    ("sumatriptan", "venlafaxine"),
    ("St John's wort", "citalopram"),
    ("paroxetine", "tamoxifen"),
    ("Is sedation safe for her endoscopy?", "Semaglutide 1mg weekly"),
    ("She is having surgery next week", "Forxiga 10mg"),
    ("rifampicin", "Microgynon"),
    ("rifampicin", "apixaban"),
    ("allopurinol", "azathioprine"),
    ("citalopram", "ondansetron"),
    ("grapefruit juice", "amlodipine"),
    ("trimethoprim", "spironolactone"),
    ("spironolactone", "ramipril"),
    ("sildenafil", "isosorbide mononitrate"),
    ("an epidural", "apixaban"),
    ("Can we give metronidazole for the abscess?", "disulfiram 200 mg"),
    ("amiodarone", "Epclusa"),
    ("carbamazepine", "sofosbuvir"),
    # lexicon-7
    ("Adenosine stress test tomorrow", "Uniphyllin Continus 200 mg"),
    ("regadenoson", "dipyridamole"),
    ("Could she go on propranolol for her migraines?", "Fostair inhaler, formoterol"),
    ("tranexamic acid for heavy periods", "Microgynon 30"),
    ("Can he have a course of prednisolone?", "ritonavir-boosted darunavir"),
    ("fentanyl patch", "cobicistat"),
    ("ritonavir", "warfarin"),
    ("Buscopan during the scope?", "pyridostigmine 60 mg"),
    ("dicycloverine", "donepezil"),
    ("amiodarone", "bisoprolol 2.5 mg"),
    ("clarithromycin", "mavacamten"),
    ("Rigevidon", "modafinil for narcolepsy"),
    ("Is trimethoprim OK for his UTI?", "azathioprine 100 mg"),
    ("fluconazole for thrush", "Tegretol Retard"),
    ("MMR", "hydroxycarbamide for sickle cell disease"),
    ("mum asked if she can take Sudafed for a cold", "methylphenidate XL 36 mg"),
    # lexicon-9
    ("GP wants to give clarithromycin", "tolvaptan for polycystic kidneys"),
    ("Cardiology want to start propranolol", "insulin glargine"),
    ("bisoprolol", "gliclazide 80 mg"),
    # lexicon-10
    ("She's got a UTI, can she have ciprofloxacin?", "pyridostigmine for myasthenia gravis"),
    ("gentamicin prophylaxis for the cystoscopy", "Mestinon 60 mg four times a day"),
    ("Dentist asking about nitrous oxide", "methotrexate 20 mg weekly"),
    ("Can he take Benylin Dry Cough?", "memantine"),
    ("Ibuprofen for his crisis pain", "deferasirox"),
    ("GP wants to start oxybutynin", "donepezil"),
    ("naproxen for his back", "mesalazine"),
    ("Botox injections", "gentamicin"),
    # lexicon-11
    ("GP wants to prescribe Zostex for his shingles", "capecitabine 14 days on, 7 off"),
    ("Can we give 100% oxygen during the operation?", "BEP chemotherapy (bleomycin, etoposide, cisplatin)"),
    ("restart Zytiga", "radium-223 every 4 weeks"),
    ("Chest infection - GP suggests clarithromycin", "olaparib 300 mg twice daily"),
    ("GP wants to start omeprazole", "erlotinib 150 mg daily"),
    ("Urogynae want to start Betmiga", "digoxin"),
    ("capecitabine", "warfarin"),
]


@pytest.mark.parametrize("question, taken", INTERACTING)
def test_interactions_concern_what_the_patient_takes(question, taken):
    lex = lexicon()
    assert lex.relevance(lex.mentions(question), lex.mentions(taken), taken=True) > 0


@pytest.mark.parametrize("question, allergy", INTERACTING)
def test_interactions_do_not_concern_an_allergy(question, allergy):
    lex = lexicon()
    assert lex.relevance(lex.mentions(question), lex.mentions(allergy), taken=False) == 0


def test_a_brand_names_its_own_insulin_before_the_patient_s_other_one():
    """Basal and mealtime insulin together are the rule in type 1 diabetes: Tresiba is the degludec, not the
    aspart, though both are insulin; a question about insulin concerns both alike."""
    lex = lexicon()
    m = lex.mentions
    degludec, aspart = m("insulin degludec (basal)"), m("insulin aspart (mealtimes)")
    assert lex.relevance(m("Is he on Tresiba?"), degludec) > lex.relevance(m("Is he on Tresiba?"), aspart) > 0
    assert lex.relevance(m("any insulin?"), degludec) == lex.relevance(m("any insulin?"), aspart) == 1.0


def test_mirabegron_is_not_an_antimuscarinic():
    """Betmiga is a beta-3 agonist: it does not oppose a cholinesterase inhibitor as oxybutynin does."""
    lex = lexicon()
    m = lex.mentions
    assert lex.relevance(m("start Betmiga"), m("donepezil"), taken=True) == 0
    assert lex.relevance(m("start oxybutynin"), m("donepezil"), taken=True) > 0


def test_a_brand_names_its_own_biologic_before_the_patient_s_other_one():
    """A patient on two biologics over the years (Humira stopped, vedolizumab now) is told apart by name; "any
    biologic?" concerns both alike."""
    lex = lexicon()
    m = lex.mentions
    adalimumab, vedolizumab = m("adalimumab for Crohn's"), m("vedolizumab infusions")
    assert lex.relevance(m("Is he on Humira?"), adalimumab) > lex.relevance(m("Is he on Humira?"), vedolizumab)
    assert lex.relevance(m("any biologic?"), adalimumab) == lex.relevance(m("any biologic?"), vedolizumab) > 0


def test_an_antispasmodic_that_is_not_antimuscarinic_does_not_meet_pyridostigmine():
    """Mebeverine and peppermint oil relax the gut without opposing acetylcholine; Buscopan does."""
    lex = lexicon()
    taken = lex.mentions("Long-term pyridostigmine for myasthenia gravis")
    assert lex.relevance(lex.mentions("mebeverine"), taken, taken=True) == 0
    assert lex.relevance(lex.mentions("peppermint oil capsules"), taken, taken=True) == 0
    assert lex.relevance(lex.mentions("Buscopan"), taken, taken=True) > 0


def test_a_severe_interaction_concerns_a_medicine_more_than_a_moderate_one():
    lex = lexicon()
    m = lex.mentions
    data = json.loads(LEXICON_FILE.read_text())
    assert {pair["severity"] for pair in data["interactions"]} == {"severe", "moderate"}
    amiodarone = m("Cardiology want to load him with amiodarone")
    digoxin = lex.relevance(amiodarone, m("Long-term digoxin therapy"), taken=True)  # BNF: severe
    apixaban = lex.relevance(amiodarone, m("Long-term apixaban therapy"), taken=True)  # BNF: moderate
    assert digoxin > apixaban > 0
    # a cross-reaction is never weakened by a grade: grades belong to interactions
    assert lex.relevance(m("cefalexin"), m("penicillin")) == lex.relevance(m("cefalexin"), m("penicillin"), taken=True)


def _refused_with_interaction(tmp_path, monkeypatch, pair: dict, match: str) -> None:
    """A lexicon with one more interaction (``pair``) is refused at load with an error naming ``match``."""
    import memory.lexicon as module

    data = json.loads(LEXICON_FILE.read_text())
    path = tmp_path / "lexicon.json"
    path.write_text(json.dumps(dict(data, interactions=data["interactions"] + [pair])))
    monkeypatch.setattr(module, "LEXICON_FILE", path)
    module.lexicon.cache_clear()
    try:
        with pytest.raises(ValueError, match=match):
            module.lexicon()
    finally:
        monkeypatch.undo()
        module.lexicon.cache_clear()


def test_an_ungraded_interaction_is_refused(tmp_path, monkeypatch):
    _refused_with_interaction(tmp_path, monkeypatch, {"classes": ["warfarin", "nsaids"], "severity": "mild",
                                                      "note": "x"}, "mild")


def test_heparin_and_milk_hide_where_people_do_not_name_them():
    """A bypass circuit and dialysis are anticoagulated with heparin; infant formula is cow's milk."""
    lex = lexicon()
    heparin_allergy = lex.mentions("Documented heparin allergy (heparin-induced thrombocytopenia)")
    milk_allergy = lex.mentions("Documented cow's milk protein allergy")
    assert lex.relevance(lex.mentions("The bypass circuit needs anticoagulating"), heparin_allergy) > 0
    assert lex.relevance(lex.mentions("starting haemodialysis next week"), heparin_allergy) > 0
    assert lex.relevance(lex.mentions("Can he go back on the Aptamil?"), milk_allergy) > 0


def test_exposures_concern_an_allergy_through_where_the_substance_hides():
    lex = lexicon()
    m = lex.mentions
    for question, allergy in [("Can we do a sentinel node biopsy?", "patent blue dye allergy"),
                              ("Instillagel before the catheter", "chlorhexidine allergy"),
                              ("catheterisation", "latex allergy"),
                              ("an ECG", "allergic to adhesive tape"),
                              ("covid vaccine", "polyethylene glycol allergy"),
                              ("Fluenz", "gelatin allergy")]:
        assert lex.relevance(m(question), m(allergy)) > 0, question


@pytest.mark.parametrize(("question", "allergy"), [
    # lexicon-13: skin antisepsis before a cannula, line, culture or operation is chlorhexidine in alcohol (epic3,
    # NICE CG139), povidone-iodine where chlorhexidine cannot be used; BIPP and Whitehead's varnish are iodine
    ("Can we prep her skin with the usual wipe before the cannula?", "chlorhexidine allergy"),
    ("Can we clean his skin before the blood cultures?", "chlorhexidine allergy"),
    ("theatre will prep the skin first", "povidone-iodine allergy"),
    ("ENT want to pack the nose with BIPP", "povidone-iodine allergy"),
    ("iodoform gauze in the socket", "Betadine allergy"),
])
def test_skin_antisepsis_and_iodine_packs_concern_the_antiseptic_allergy(question, allergy):
    lex = lexicon()
    assert lex.relevance(lex.mentions(question), lex.mentions(allergy)) >= 0.85, question


def test_a_question_about_a_member_concerns_a_memory_about_its_class():
    lex = lexicon()
    m = lex.mentions
    for question, memory in [("Can she have gadolinium for the MRI?", "Reaction to contrast dye in 2015"),
                             ("Can we give amoxicillin?", "beta-lactam allergy"),
                             ("sertraline", "intolerant of antidepressants"),
                             ("clarithromycin", "ECG shows prolonged QT")]:
        assert lex.relevance(m(question), m(memory)) > 0, question
        assert lex.mismatch(m(question), m(memory)) == 0.0, question
    # an umbrella word in a memory ("medication review") is no class of the question
    assert lex.relevance(m("sertraline"), m("medication review due")) == 0


def test_ordinary_sentences_name_no_medicine_vaccine_contrast_or_material():
    lex = lexicon()
    plain = ["Preferred name: Maggie; pronouns she/her",
             "Her daughters Grace, Stella, Yasmin and Katya visit on Sundays with Tom, Jack and Oliver",
             "Needs a Polish interpreter; his wife interprets informally",
             "Book a BSL interpreter for the next consultation",
             "Takes the bus to clinic and needs hospital transport home",
             "Patient transport booked for Tuesday at 10am; parking permit requested",
             "Prefers morning appointments and text reminders two days before",
             "Lives alone with a cat; neighbour has a key",
             "Prefers letters in large print and to be addressed as Mr Jones",
             "Can we rebook the follow-up for next month?",
             "Speaks Urdu and some English; son translates",
             "Works as a teacher; enjoys gardening, swimming and ballroom dancing"]
    for text in plain:
        assert lex.mentions(text) == {}, text
    for text in ("Vegetarian diet, no pork for religious reasons", "Follows a halal diet; prefers fish on Fridays",
                 "Vegan; avoids honey and dairy", "Low-salt diabetic diet, small portions"):
        named = {c for c in lex.mentions(text)
                 if lex.concepts[c].category in {"drug", "vaccine", "contrast", "material"}}
        assert not named, text


@pytest.mark.parametrize(("text", "concept"), [
    ("is she on epilum", "valproate"),  # a letter changed
    ("which diruetics is she on", "diuretics"),  # two letters swapped
    ("Any problem with methodone?", "methadone"),
    ("penicilin allergy?", "penicillins"),  # a letter missing
    ("can we give parcetamol", "paracetamol"),
    ("she takes warfarine", "warfarin"),  # a letter added
])
def test_a_name_one_slip_away_counts_as_that_name_slightly_less(text, concept):
    named = lexicon().mentions(text)
    assert named.get(concept) == pytest.approx(0.9), named


@pytest.mark.parametrize("text", [
    "ask at the nurses station",  # a real word one slip from "statin"
    "the batches of letters went out",  # another first letter ("patches")
    "Lanolin in the cream?",  # a substance of its own, one slip from "lanoxin"
    "a prescription for the pharmacy",  # spelt right: the name itself, in full
])
def test_real_words_and_other_first_letters_are_never_read_as_a_misspelt_name(text):
    named = lexicon().mentions(text)
    assert all(weight == 1.0 or weight == pytest.approx(0.85) for weight in named.values()), named
    assert "statins" not in named and "adhesives" not in named and "digoxin" not in named, named


def test_every_class_a_lexicon_refers_to_exists(tmp_path, monkeypatch):
    data = json.loads(LEXICON_FILE.read_text())
    named = set(data["concepts"])
    for concept in data["concepts"].values():
        assert set(concept["parents"]) | set(concept["related"]) <= named
    for pair in data["interactions"]:
        assert len(pair["classes"]) == 2 and set(pair["classes"]) <= named and pair["note"]
    _refused_with_interaction(tmp_path, monkeypatch, {"classes": ["warfarin", "no_such_class"],
                                                      "severity": "severe", "note": "x"}, "no_such_class")


def test_a_term_names_one_class_unless_it_genuinely_names_two():
    data = json.loads(LEXICON_FILE.read_text())
    owners: dict[str, set[str]] = {}
    for cid, concept in data["concepts"].items():
        for term in concept["terms"]:
            owners.setdefault(term.casefold(), set()).add(cid)
    shared = {term for term, cids in owners.items() if len(cids) > 1}
    assert shared == {
        # umbrella words shared with their procedure (lexicon-2)
        "biopsy", "injection", "operation", "surgery", "general anaesthetic", "sedation", "jab", "ct scan",
        "fish oil", "omega-3",
        # combination products, and what is both a procedure and an anaesthetic
        "co-amilofruse", "co-amilozide", "juluca", "synjardy", "xigduo", "triumeq", "epidural", "spinal anaesthetic",
        # lexicon-2 named carbamazepine as an anticonvulsant; it still does, and now has its own class
        "carbamazepine", "tegretol"}
