"""Shorthand constructors for memories and patients (authoring only; build.py turns them into JSON).
Copied from memory/eval/blind3/build/defs.py; the organisation-type constructors are this set's own."""

PATIENTS = []


def _m(memory_type, fact, version=None):
    m = {"memory_type": memory_type, "fact": {k: v for k, v in fact.items() if v is not None}}
    if version is not None:
        m["version"] = version
    return m


def stale(how, memory):
    return dict(memory, stale=how)


def S(memory):  # an older version, replaced by a current memory of the same attribute
    return stale("superseded", memory)


def E(memory):  # a time-limited fact whose validity has lapsed
    return stale("expired", memory)


def Q(memory):  # an unverified or implausible entry held back
    return stale("quarantined", memory)


# ---------------------------------------------------------------- built-in types
def name(preferred, pronouns=None):
    return _m("preferred_name", {"preferred_name": preferred, "pronouns": pronouns})


def allergy(substance, reaction=None, severity=None, note=None):
    return _m(
        "care_context",
        {"kind": "allergy", "substance": substance, "reaction": reaction, "severity": severity, "note": note},
        2,
    )


def med(medication, indication, monitoring=None):
    return _m(
        "care_context",
        {"kind": "long_term_indication", "medication": medication, "indication": indication, "monitoring": monitoring},
        2,
    )


def lang(tag, interpreter, modality=None):
    return _m("language_support", {"language": tag, "interpreter_needed": interpreter, "modality": modality})


def channel(ch):
    return _m("communication_preference", {"kind": "channel", "channel": ch})


def write_in(tag):
    return _m("communication_preference", {"kind": "language", "language": tag})


def window(start, end):
    return _m("communication_preference", {"kind": "contact_window", "start": start, "end": end})


def carer(person, relationship, told, phone=None):
    return _m(
        "caregiver_contact", {"name": person, "relationship": relationship, "phone": phone, "may_be_told": list(told)}
    )


def diet(*diets):
    return _m("dietary_requirement", {"diets": list(diets)})


def mobility(aid, step_free=None):
    return _m("accessibility_need", {"kind": "mobility", "aid": aid, "step_free_access": step_free})


def step_free():
    return _m("accessibility_need", {"kind": "step_free_access"})


def hearing(*support):
    return _m("accessibility_need", {"kind": "hearing", "support": list(support)})


def sight(*support):
    return _m("accessibility_need", {"kind": "sight", "support": list(support)})


def observe(practice, days, periods=None):
    return _m(
        "observance_preference",
        {"practice": practice, "days": list(days), "periods": list(periods) if periods else None},
    )


def remind(ch, hours):
    return _m("reminder_preference", {"channel": ch, "lead_time_hours": hours})


def earliest(t):
    return _m("scheduling_preference", {"kind": "earliest_time", "time": t})


def latest(t):
    return _m("scheduling_preference", {"kind": "latest_time", "time": t})


def no_days(*days):
    return _m("scheduling_preference", {"kind": "excluded_days", "days": list(days)})


def no_periods(*periods):
    return _m("scheduling_preference", {"kind": "excluded_periods", "periods": list(periods)})


def transport(*needs):
    return _m("transport_need", {"needs": list(needs)})


# ---------------------------------------------------------------- organisation types (org_types.py)
def jic(status, drugs=None, location=None, chart=None, note=None):
    return _m(
        "anticipatory_medicines",
        {"status": status, "drugs": list(drugs) if drugs else None, "location": location, "chart_in_home": chart,
         "note": note},
    )


def symptom(which, first_step, escalate=None, note=None):
    return _m("symptom_plan", {"symptom": which, "first_step": first_step, "escalate_to": escalate, "note": note})


def hydration(route, decision, decided_with=None, note=None):
    return _m("assisted_hydration", {"route": route, "decision": decision, "decided_with": decided_with, "note": note})


def place(stage, where, place_name=None, fallback=None, note=None):
    return _m(
        "place_of_death_preference",
        {"stage": stage, "place": where, "place_name": place_name, "fallback": fallback, "note": note},
    )


def ooh(order, service, contact=None, phone=None, note=None):
    return _m("ooh_call_plan", {"order": order, "service": service, "contact_name": contact, "phone": phone,
                                "note": note})


def after(arrangement, detail=None, note=None):
    return _m("after_death_arrangements", {"arrangement": arrangement, "detail": detail, "note": note})


def loan(item, status, supplier=None, note=None):
    return _m("loaned_equipment", {"item": item, "status": status, "supplier": supplier, "note": note})


def bereave(person, relationship, concern, support=None, note=None):
    return _m(
        "bereavement_support",
        {"person": person, "relationship": relationship, "concern": concern, "support": support, "note": note},
    )


def prognosis(wants, aware=None, note=None):
    return _m("prognosis_conversation", {"wants": wants, "aware": aware, "note": note})


def bedside(wish, detail=None, note=None):
    return _m("bedside_wishes", {"wish": wish, "detail": detail, "note": note})


# ---------------------------------------------------------------- patients and questions
KIND = {
    "para": "paraphrase",
    "brand": "brand_name",
    "ind": "indirect",
    "safe": "safety_critical",
    "none": "no_answer",
    "other": "other_patient",
    "stale": "stale_decoy",
}


def patient(pid, split, note, memories, questions):
    """memories: alias -> memory, in the order written (older versions before their replacements).
    questions: (kind shorthand, text, expected) where expected is a list of aliases, or for other_patient the
    "pid:alias" of the patient who does hold the fact."""
    PATIENTS.append({"pid": pid, "split": split, "note": note, "memories": memories, "questions": questions})
