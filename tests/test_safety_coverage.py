"""Safety-critical questions by class: a medicine proposed for a patient on a monitored long-term medicine it
interacts with, and an antiseptic, dressing, contrast agent or material the patient is allergic to. Asked as staff
ask them (generic names, brand names and situations), each must put the memory it concerns first and answer it with
high confidence: a confident wrong fact, or a right one marked low, is what an agent must never get here.

The questions were written by class, from clinical knowledge (BNF interaction and MHRA safety advice; the antiseptics
and materials that hide a known allergen), before the lexicon's rules were read; the lexicon learns classes from
them, never the questions' words. Real model, real PostgreSQL, through the API as a clinician."""

from __future__ import annotations

import pytest

from tests.conftest import memory_body

pytestmark = pytest.mark.django_db


def _medicine(medication: str, indication: str, monitoring: str) -> dict:
    return {"kind": "long_term_indication", "medication": medication, "indication": indication,
            "monitoring": monitoring}


def _allergy(substance: str, reaction: str, severity: str = "moderate") -> dict:
    return {"kind": "allergy", "substance": substance, "reaction": reaction, "severity": severity}


# Each clinic: the patient's care context (key -> fact), and questions with the keys of the memories that answer
# them (more than one where each is a right first answer). Every clinic also has a medicine that answers none of its
# questions and a scheduling preference, so the right answer competes with neighbours.
CLINICS = {
    "statin_lithium_antiseptic": (
        {"statin": _medicine("simvastatin", "hypercholesterolaemia", "liver function tests"),
         "lithium": _medicine("lithium", "bipolar disorder", "serum lithium levels"),
         "thyroxine": _medicine("levothyroxine", "hypothyroidism", "thyroid function tests"),
         "chlorhex": _allergy("chlorhexidine", "anaphylaxis", "severe"),
         "plaster": _allergy("adhesive plasters", "blistering of the skin")},
        [("Can we start clarithromycin for his chest infection?", {"statin"}),
         ("Is it OK to add Klaricid?", {"statin"}),
         ("Cardiology want to load him with amiodarone for the AF", {"statin"}),
         ("Can we give naproxen for his knee?", {"lithium"}),
         ("GP wants to start ramipril for his blood pressure", {"lithium"}),
         ("Bendroflumethiazide for his swollen ankles - safe?", {"lithium"}),
         ("Is Hibiscrub OK for his pre-op shower?", {"chlorhex"}),
         ("Can we use Instillagel for the catheter?", {"chlorhex"}),
         ("Can we prep his skin with the usual wipe before the cannula goes in?", {"chlorhex"}),
         ("Can we put a plaster on after his blood test?", {"plaster"}),
         ("Can we clean his skin before the blood cultures?", {"chlorhex"}),
         ("Fusidic acid tablets for the skin infection?", {"statin"}),
         ("Can we give him a water tablet for the fluid?", {"lithium"}),
         ("Is it safe to start him on anti-inflammatories?", {"lithium"}),
         ("Can we put Savlon on the graze?", {"chlorhex"}),
         ("We're sticking ECG electrodes on him for the trace", {"plaster"})],
    ),
    "warfarin_iodine_latex": (
        {"warfarin": _medicine("warfarin", "atrial fibrillation", "INR"),
         "thyroxine": _medicine("levothyroxine", "hypothyroidism", "thyroid function tests"),
         "iodine": _allergy("povidone-iodine", "blistering rash"),
         "latex": _allergy("latex", "urticaria and wheeze", "severe")},
        [("Co-trimoxazole for her UTI?", {"warfarin"}),
         ("Fluconazole for the thrush - anything to check?", {"warfarin"}),
         ("Daktarin oral gel for her sore mouth?", {"warfarin"}),
         ("Can she take Voltarol?", {"warfarin"}),
         ("Betadine skin prep before the procedure?", {"iodine"}),
         ("Can we clean the wound with iodine?", {"iodine"}),
         ("Theatre will prep her skin before the hip - anything to know?", {"iodine", "latex"}),
         ("Which gloves should theatre use?", {"latex"}),
         ("We're putting a Foley catheter in this afternoon", {"latex"}),
         ("Is Septrin ok for her?", {"warfarin"}),
         ("Can she drink cranberry juice for her bladder?", {"warfarin"}),
         ("Can ENT pack her nose with BIPP after the surgery?", {"iodine"}),
         ("Can we use a tourniquet to take her bloods?", {"latex"}),
         ("The grandchildren want to bring balloons to the ward", {"latex"})],
    ),
    "doac_methotrexate_ssri_contrast": (
        {"doac": _medicine("apixaban", "stroke prevention in atrial fibrillation", "renal function"),
         "mtx": _medicine("methotrexate", "psoriasis", "full blood count and liver function"),
         "ssri": _medicine("sertraline", "depression", "mood review"),
         "contrast": _allergy("iodinated contrast media", "urticaria", "moderate"),
         "gado": _allergy("gadolinium contrast", "facial swelling", "severe"),
         "nickel": _allergy("nickel", "contact dermatitis", "mild")},
        [("Can she have trimethoprim for her UTI?", {"mtx"}),
         ("Tramadol for her pain after the fall?", {"ssri"}),
         ("Sumatriptan for her migraines - ok?", {"ssri"}),
         ("Itraconazole for her nail infection?", {"doac"}),
         ("Rifampicin has been suggested - any problem?", {"doac"}),
         ("She's booked for a CT with contrast - anything to flag?", {"contrast"}),
         ("Is Omnipaque ok for her angiogram?", {"contrast"}),
         ("MRI with dye next week, anything we should know?", {"gado"}),
         ("Any metal allergy before her knee replacement?", {"nickel"}),
         ("Can she have ibuprofen for the pain?", {"doac", "mtx"}),
         ("Is Tramacet ok for her?", {"ssri"}),
         ("Can she take Maxalt for migraine?", {"ssri"}),
         ("Linezolid for the MRSA?", {"ssri"}),
         ("CTPA tonight to rule out a clot - anything to flag?", {"contrast"}),
         ("Is Gadovist ok for the MRI?", {"gado"}),
         ("Is a stainless steel plate ok for the fracture fixation?", {"nickel"}),
         ("She wants her ears pierced - any allergy?", {"nickel"})],
    ),
    "tacrolimus_maoi": (
        {"tac": _medicine("tacrolimus", "kidney transplant", "tacrolimus trough levels"),
         "maoi": _medicine("phenelzine", "treatment-resistant depression", "blood pressure"),
         "thyroxine": _medicine("levothyroxine", "hypothyroidism", "thyroid function tests"),
         "swab": _allergy("isopropyl alcohol swabs", "skin irritation", "mild")},
        [("Clarithromycin for his pneumonia?", {"tac"}),
         ("Diflucan for the oral thrush?", {"tac"}),
         ("Can he take Sudafed for his cold?", {"maoi"}),
         ("Pethidine for the pain?", {"maoi"}),
         ("Can I use an alcohol wipe before his insulin injection?", {"swab"}),
         ("Can we clean the skin with a Steret?", {"swab"}),
         ("Is posaconazole ok for him?", {"tac"}),
         ("Grapefruit juice with breakfast - any problem?", {"tac"}),
         ("Can he have Zostavax?", {"tac"}),
         ("Yellow fever jab before his trip?", {"tac"}),
         ("Is Lemsip ok for his cold?", {"maoi"}),
         ("Robitussin for his dry cough?", {"maoi"})],
    ),
}


@pytest.mark.parametrize("half", [0, 1])
@pytest.mark.parametrize("clinic", sorted(CLINICS))
def test_a_safety_critical_question_puts_what_it_concerns_first_with_high_confidence(world, clinic, half):
    """Every question of the clinic gets, first, a memory it concerns, marked high (misses are listed together;
    each half of a clinic's questions is a test of its own, to keep each one short)."""
    facts, questions = CLINICS[clinic][0], CLINICS[clinic][1][half::2]
    world.grant(world.patient_a, "clinician", "care_coordination")
    world.grant(world.patient_a, "clinician", "appointment_scheduling")
    nurse = world.staff("clinician")
    ids = {}
    for key, fact in facts.items():
        r = nurse.post(f"/v1/patients/{world.patient_a}/memories",
                       {"memory_type": "care_context", "consent_purpose": "care_coordination", "fact": fact,
                        "review_by": "2031-01-01T00:00:00Z", "source": "ehr_import", "source_ref": f"ehr:{key}"})
        assert r.status_code == 201, r.content
        ids[r.json()["memory_id"]] = key
    r = world.patient(world.patient_a).post(f"/v1/patients/{world.patient_a}/memories",
                                            memory_body(world.consent(world.patient_a)))
    assert r.status_code == 201, r.content
    misses = []
    for question, answers in questions:
        body = nurse.get(f"/v1/patients/{world.patient_a}/memories/search", {"q": question}).json()
        first = body["items"][0] if body["items"] else None
        got = (ids.get(first["memory"]["memory_id"], "other"), first["confidence"], round(first["score"], 3)) \
            if first else None
        if not first or got[0] not in answers or first["confidence"] != "high":
            misses.append((question, sorted(answers), got))
    assert not misses, "\n".join(map(str, misses))
