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
def drops(eye, condition, what, times=None, pf=None, by=None, note=None):
    return _m(
        "eye_drop_regimen",
        {"eye": eye, "condition": condition, "drops": what, "times_a_day": times, "preservative_free": pf,
         "instilled_by": by, "note": note},
    )


def cataract(eye, stage, anaesthesia=None, lie_flat=None, ifis=None, note=None):
    return _m(
        "cataract_surgery",
        {"eye": eye, "stage": stage, "anaesthesia": anaesthesia, "lie_flat": lie_flat, "floppy_iris_risk": ifis,
         "note": note},
    )


def lowvision(cert, clinic=None, rehab=None, aids=None, note=None):
    return _m(
        "low_vision_support",
        {"certification": cert, "low_vision_clinic": clinic, "rehabilitation": rehab, "aids": aids, "note": note},
    )


def eyecas(condition, route, phone=None, signs=None, note=None):
    return _m(
        "eye_casualty_access",
        {"condition": condition, "route": route, "phone": phone, "warning_signs": signs, "note": note},
    )


def ears(side, level, loss=None, tinnitus=None, hyperacusis=None, note=None):
    return _m(
        "hearing_profile",
        {"side": side, "level": level, "loss_type": loss, "tinnitus": tinnitus, "hyperacusis": hyperacusis,
         "note": note},
    )


def dentbleed(anticoag, plan, inr_max=None, local=None, per_visit=None, note=None):
    return _m(
        "dental_bleeding_plan",
        {"anticoagulant": anticoag, "plan": plan, "inr_max": inr_max, "haemostasis": local, "per_visit": per_visit,
         "note": note},
    )


def jaw(risk, drugs, before=None, note=None):
    return _m("jaw_osteonecrosis_risk", {"risk": risk, "drugs": drugs, "before_dental": before, "note": note})


def dentset(setting, reason=None, escort=None, note=None):
    return _m("dental_care_setting", {"setting": setting, "reason": reason, "escort": escort, "note": note})


def patch(allergen, result, relevance=None, avoid=None, tested=None):
    return _m(
        "patch_test_result",
        {"allergen": allergen, "result": result, "relevance": relevance, "avoid": avoid, "tested": tested},
    )


def skinsurg(site, procedure, status, thinners=None, note=None):
    return _m(
        "skin_surgery",
        {"site": site, "procedure": procedure, "status": status, "blood_thinner": thinners, "note": note},
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
