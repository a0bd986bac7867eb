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
def swallow(food, drink, thickener=None, by=None, note=None):
    return _m(
        "swallow_texture",
        {"food_level": food, "drink_level": drink, "thickener": thickener, "assessed_by": by, "note": note},
    )


def limb(which, avoid, reason, note=None):
    return _m("limb_alert", {"limb": which, "avoid": list(avoid), "reason": reason, "note": note})


def legal(power, holder, relationship=None, seen=None, lst=None, note=None):
    return _m(
        "legal_authority",
        {
            "power": power,
            "holder": holder,
            "relationship": relationship,
            "document_seen": seen,
            "life_sustaining_treatment": lst,
            "note": note,
        },
    )


def settle(calmed_by, detail=None, upset_by=None, when=None, note=None):
    return _m(
        "reassurance_profile",
        {
            "calmed_by": list(calmed_by),
            "detail": detail,
            "upset_by": list(upset_by) if upset_by else None,
            "unsettled_time": when,
            "note": note,
        },
    )


def continence(product, detail=None, supplier=None, brings_own=None, note=None):
    return _m(
        "continence_product",
        {"product": product, "detail": detail, "supplier": supplier, "brings_own": brings_own, "note": note},
    )


def shifts(pattern, asleep_from=None, asleep_until=None, occupation=None, note=None):
    return _m(
        "shift_pattern",
        {
            "pattern": pattern,
            "asleep_from": asleep_from,
            "asleep_until": asleep_until,
            "occupation": occupation,
            "note": note,
        },
    )


def school(setting, setting_name=None, ihp=None, ehcp=None, meds=None, note=None):
    return _m(
        "education_setting",
        {
            "setting": setting,
            "setting_name": setting_name,
            "healthcare_plan": ihp,
            "ehcp": ehcp,
            "medicines_held": list(meds) if meds else None,
            "note": note,
        },
    )


def vaccine(which, stance, reason=None, note=None):
    return _m("vaccine_preference", {"vaccine": which, "stance": stance, "reason": reason, "note": note})


def remote(mode, device=None, helper=None, difficulty=None, note=None):
    return _m(
        "remote_consultation",
        {"mode": mode, "device": device, "helper": helper, "difficulty": difficulty, "note": note},
    )


def fire(hazard, visit=None, note=None):
    return _m("home_fire_risk", {"hazard": hazard, "fire_service_visit": visit, "note": note})


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
