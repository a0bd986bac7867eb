"""Serves phrases for every memory type of this set (11 built-in + 10 organisation types), written for blind12
from the catalogue schemas and org_types.py. build.py writes them to ../type_descriptions.json."""

DESCRIPTIONS = {
    "preferred_name": [
        "the name the person wants staff to use",
        "pronouns for addressing the patient",
        "what to call the patient in the waiting area",
    ],
    "care_context": [
        "documented allergies and adverse reactions with their severity",
        "long-term medicines and why they are taken",
        "drugs needing blood-level or clotting monitoring",
        "substances to avoid when prescribing or preparing for a procedure",
    ],
    "caregiver_contact": [
        "family members or carers registered as contacts",
        "which relatives may hear about appointments or results",
        "phone numbers of people supporting the patient",
    ],
    "communication_preference": [
        "preferred route for getting in touch: text, email, phone, portal or post",
        "written language for letters and leaflets",
        "the hours when calls are welcome",
    ],
    "dietary_requirement": [
        "food restrictions for religious, ethical or medical reasons",
        "meal options such as halal, kosher, vegetarian or gluten-free",
        "diet to respect when offering food on the unit",
    ],
    "language_support": [
        "first language and whether an interpreter must be booked",
        "sign language or spoken interpreting needs",
        "language used for conversation with the patient",
    ],
    "observance_preference": [
        "days kept free for faith or cultural observance",
        "religious fasting periods affecting bookings",
        "weekdays to avoid out of respect for belief",
    ],
    "reminder_preference": [
        "how reminders are sent and how many hours ahead",
        "reminder channel chosen by the patient",
        "lead time for appointment prompts",
    ],
    "scheduling_preference": [
        "earliest and latest acceptable appointment times",
        "weekdays or parts of the day the patient cannot attend",
        "booking constraints from work or caring duties",
    ],
    "transport_need": [
        "patient transport and accessible vehicle requirements",
        "someone to accompany the patient on the journey",
        "parking close to the entrance or extra travel time",
    ],
    "accessibility_need": [
        "mobility aids such as wheelchairs, frames or sticks",
        "step-free access to buildings",
        "hearing loops, lip reading, captions or BSL",
        "large print, braille, audio or a sighted guide",
    ],
    "bowel_preparation": [
        "which laxative preparation is prescribed before a colon examination",
        "split dosing and low-residue diet days",
        "how well the bowel cleared on the previous attempt",
    ],
    "procedure_fasting": [
        "hours without food before a sedated test",
        "how late clear drinks are allowed",
        "reasons for an individual fasting plan such as diabetes or slow gastric emptying",
    ],
    "contrast_plan": [
        "agreed approach to iodinated, gadolinium, oral or microbubble contrast",
        "premedication, alternative agents or non-contrast imaging",
        "hydration and radiologist review before contrast scans",
    ],
    "scan_positioning": [
        "table weight limits and wide-bore scanner needs",
        "positions the patient cannot hold, such as flat or prone",
        "how long the patient tolerates the scanner table",
        "hoist transfers and feet-first entry",
    ],
    "endoscopy_sedation": [
        "chosen comfort method for camera tests",
        "throat spray, conscious sedation, Entonox, propofol or general anaesthetic",
        "sedation choice recorded per endoscopic procedure",
    ],
    "sedation_aftercare": [
        "the responsible adult collecting the patient after sedation",
        "whether someone stays overnight and whether the patient lives alone",
        "contact number of the escort home",
    ],
    "radionuclide_precautions": [
        "radiation protection advice after isotope tests or treatments",
        "distance from children or pregnant contacts and breastfeeding pauses",
        "low-iodine diet and airport detector letters",
    ],
    "pregnancy_screen": [
        "pregnancy status checks before radiation or contrast",
        "breastfeeding, contraception or postmenopausal status recorded for imaging",
        "whether a pregnancy test is needed or declined",
    ],
    "surveillance_interval": [
        "interval for repeat colonoscopy, gastroscopy or scans",
        "reason and next due date of surveillance",
        "follow-up imaging schedule",
    ],
    "prior_imaging": [
        "scans done at other hospitals for comparison",
        "whether outside images are requested, imported or unavailable",
        "discs of earlier images held by the patient",
    ],
}
