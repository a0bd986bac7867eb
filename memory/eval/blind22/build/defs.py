"""Shorthand constructors for memories and patients (authoring only; build.py turns them into JSON)."""

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
def collect(pharmacy, method, collector=None, cd=None, day=None, note=None):
    return _m(
        "medicine_collection",
        {"pharmacy": pharmacy, "method": method, "collector": collector, "cd_rule": cd, "day": day, "note": note},
    )


def pf(condition, outcome, supplied=None, date=None, note=None):
    return _m("pharmacy_first", {"condition": condition, "outcome": outcome, "supplied": supplied, "date": date, "note": note})


def travel(destination, malaria, departs=None, yf=None, note=None):
    return _m(
        "travel_health",
        {"destination": destination, "departs": departs, "malaria": malaria, "yellow_fever": yf, "note": note},
    )


def taper(medicine, status, current, step=None, weeks=None, target=None, prescriber=None, note=None):
    return _m(
        "opioid_taper",
        {"medicine": medicine, "status": status, "current": current, "step": step, "every_weeks": weeks,
         "target": target, "prescriber": prescriber, "note": note},
    )


def proc(procedure, status, side=None, relief=None, weeks=None, note=None):
    return _m(
        "pain_procedure",
        {"procedure": procedure, "side": side, "status": status, "relief_percent": relief, "relief_weeks": weeks,
         "note": note},
    )


def atest(allergen, test, outcome, date=None, note=None):
    return _m("allergy_testing", {"allergen": allergen, "test": test, "outcome": outcome, "date": date, "note": note})


def immuno(allergen, phase, product=None, dose=None, weeks=None, where=None, observe=None, note=None):
    return _m(
        "immunotherapy_course",
        {"allergen": allergen, "product": product, "phase": phase, "dose": dose, "interval_weeks": weeks,
         "where": where, "observe_minutes": observe, "note": note},
    )


def pen(brand, dose, number=None, expires=None, trained=None, note=None):
    return _m(
        "adrenaline_pen",
        {"brand": brand, "dose_mcg": dose, "number": number, "expires": expires, "trained": trained, "note": note},
    )


def ig(route, product=None, dose=None, days=None, by=None, note=None):
    return _m(
        "immunoglobulin_therapy",
        {"route": route, "product": product, "dose": dose, "interval_days": days, "given_by": by, "note": note},
    )


def hae(form, on_demand, prophylaxis=None, avoid=None, note=None):
    return _m("angioedema_plan", {"form": form, "on_demand": on_demand, "prophylaxis": prophylaxis, "avoid": avoid, "note": note})


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
