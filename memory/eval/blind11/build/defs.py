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
def loan(item, detail=None, store=None, due=None, note=None):
    return _m("equipment_loan", {"item": item, "detail": detail, "store": store, "return_due": due, "note": note})


def adapt(adaptation, status, detail=None, note=None):
    return _m("home_adaptation", {"adaptation": adaptation, "status": status, "detail": detail, "note": note})


def aid(ear, loss, style=None, model=None, battery=None, note=None):
    return _m(
        "hearing_aid_fitting",
        {"ear": ear, "loss": loss, "aid_style": style, "model": model, "battery": battery, "note": note},
    )


def eyes(aspect, value, detail=None, note=None):
    return _m("optical_record", {"aspect": aspect, "value": value, "detail": detail, "note": note})


def dental(anxiety, method, escort=None, fasting=None, note=None):
    return _m(
        "dental_sedation_plan",
        {"anxiety": anxiety, "method": method, "escort": escort, "fasting": fasting, "note": note},
    )


def pain(condition, strategies=None, premed=None, note=None):
    return _m(
        "pain_management_plan",
        {
            "condition": condition,
            "strategies": list(strategies) if strategies else None,
            "premed_minutes": premed,
            "note": note,
        },
    )


def goal(domain, text, by=None, status=None):
    return _m("rehab_goal", {"domain": domain, "goal": text, "target_date": by, "status": status})


def hep(programme, frequency, fmt=None, note=None):
    return _m("home_exercise_programme", {"programme": programme, "frequency": frequency, "format": fmt, "note": note})


def ortho(device, side, wear=None, note=None):
    return _m("orthotic_device", {"device": device, "side": side, "wear": wear, "note": note})


def tolerance(minutes, rest=None, best=None, limit=None, note=None):
    return _m(
        "session_tolerance",
        {"max_minutes": minutes, "rest_every_minutes": rest, "best_time": best, "limit": limit, "note": note},
    )


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
