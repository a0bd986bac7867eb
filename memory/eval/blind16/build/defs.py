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
def funding(treatment, status, route=None, until=None, ref=None, note=None):
    return _m(
        "prior_authorisation",
        {"treatment": treatment, "status": status, "route": route, "valid_until": until, "reference": ref, "note": note},
    )


def hypo(awareness, treatment=None, glucagon=None, carries=None, note=None):
    return _m(
        "hypo_plan",
        {"awareness": awareness, "treatment": treatment, "glucagon": glucagon, "carries": carries, "note": note},
    )


def sickday(pause, check=None, restart=None, note=None):
    return _m(
        "sick_day_rules",
        {"pause": pause, "check": list(check) if check else None, "restart_hours": restart, "note": note},
    )


def foot(risk, podiatry=None, weeks=None, footwear=None, note=None):
    return _m(
        "foot_protection",
        {"risk": risk, "podiatry": podiatry, "review_weeks": weeks, "footwear": footwear, "note": note},
    )


def screening(pathway, months=None, dilation=None, note=None):
    return _m("eye_screening", {"pathway": pathway, "interval_months": months, "dilation": dilation, "note": note})


def injections(eye, drug, condition, weeks=None, note=None):
    return _m(
        "eye_injections",
        {"eye": eye, "drug": drug, "condition": condition, "interval_weeks": weeks, "note": note},
    )


def photo(therapy, status, per_week=None, done=None, note=None):
    return _m(
        "phototherapy_course",
        {"therapy": therapy, "status": status, "sessions_per_week": per_week, "sessions_done": done, "note": note},
    )


def skincheck(reason, months, photography=None, note=None):
    return _m(
        "skin_surveillance", {"reason": reason, "interval_months": months, "photography": photography, "note": note}
    )


def ears(method, side=None, softening=None, keep_dry=None, note=None):
    return _m("ear_care", {"method": method, "side": side, "softening": softening, "keep_dry": keep_dry, "note": note})


def testprep(test, instruction, hold=None, slot=None, note=None):
    return _m("test_preparation", {"test": test, "instruction": instruction, "hold": hold, "slot": slot, "note": note})


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
