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
def away(host, status, frm=None, to=None, access=None, note=None):
    return _m(
        "away_dialysis",
        {"host_unit": host, "status": status, "from_date": frm, "to_date": to, "access": access, "note": note},
    )


def brand(medicine, brand_name, switching, formulation=None, note=None):
    return _m(
        "brand_lock",
        {"medicine": medicine, "brand": brand_name, "formulation": formulation, "switching": switching, "note": note},
    )


def level(drug, low, high, units, timing=None, hold=None, note=None):
    return _m(
        "drug_level_target",
        {"drug": drug, "low": low, "high": high, "units": units, "timing": timing, "hold_dose": hold, "note": note},
    )


def band(b, weight=None, avoid=None, note=None):
    return _m("renal_dose_band", {"band": b, "weight_kg": weight, "avoid": avoid, "note": note})


def rdiet(potassium, phosphate, binder=None, timing=None, dietitian=None, note=None):
    return _m(
        "renal_diet",
        {
            "potassium": potassium,
            "phosphate": phosphate,
            "binder": binder,
            "binder_timing": timing,
            "dietitian": dietitian,
            "note": note,
        },
    )


def graft(organ, donor, centre, date=None, phone=None, note=None):
    return _m(
        "transplant_graft",
        {"organ": organ, "donor": donor, "date": date, "centre": centre, "coordinator_phone": phone, "note": note},
    )


def share(platform, status, also=None, note=None):
    return _m(
        "glucose_data_sharing",
        {"platform": platform, "status": status, "also": list(also) if also else None, "note": note},
    )


def bolus(b, lunch, ev, corr, target, active=None, note=None):
    return _m(
        "bolus_settings",
        {
            "ratio_breakfast": b,
            "ratio_lunch": lunch,
            "ratio_evening": ev,
            "correction": corr,
            "target": target,
            "active_hours": active,
            "note": note,
        },
    )


def warn(medicine, sign, action, note=None):
    return _m("warning_signs", {"medicine": medicine, "sign": sign, "action": action, "note": note})


def contact(team, who, phone=None, hours=None, note=None):
    return _m("specialist_contact", {"team": team, "name": who, "phone": phone, "hours": hours, "note": note})


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
