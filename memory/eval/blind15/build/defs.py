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
def oxygen(use, flow, hours=None, interface=None, equipment=None, supplier=None, note=None):
    return _m(
        "home_oxygen",
        {
            "use": use,
            "flow_lpm": flow,
            "hours_per_day": hours,
            "interface": interface,
            "equipment": equipment,
            "supplier": supplier,
            "note": note,
        },
    )


def vent(device, mask=None, settings=None, humidifier=None, used=None, bring_in=None, note=None):
    return _m(
        "home_ventilation",
        {
            "device": device,
            "mask": mask,
            "settings": settings,
            "humidifier": humidifier,
            "used": used,
            "bring_in": bring_in,
            "note": note,
        },
    )


def acclinic(testing, target=None, dosing=None, clinic=None, note=None):
    return _m(
        "anticoagulation_clinic",
        {"testing": testing, "target_range": target, "dosing": dosing, "clinic": clinic, "note": note},
    )


def smoking(status, aids=None, quit_date=None, service=None, note=None):
    return _m(
        "stop_smoking",
        {
            "status": status,
            "aids": list(aids) if aids else None,
            "quit_date": quit_date,
            "service": service,
            "note": note,
        },
    )


def weights(target, gain, days, action, note=None):
    return _m(
        "heart_failure_weights", {"target_kg": target, "gain_kg": gain, "days": days, "action": action, "note": note}
    )


def rescue(antibiotic, start_when, steroid=None, tell=None, note=None):
    return _m(
        "copd_rescue_pack",
        {"antibiotic": antibiotic, "steroid": steroid, "start_when": start_when, "tell": tell, "note": note},
    )


def inhaler(role, device, technique=None, note=None):
    return _m("inhaler_device", {"role": role, "device": device, "technique": technique, "note": note})


def rehab(programme, status, fmt=None, venue=None, note=None):
    return _m(
        "rehab_programme", {"programme": programme, "status": status, "format": fmt, "venue": venue, "note": note}
    )


def breathless(techniques, recovery=None, triggers=None, note=None):
    return _m(
        "breathlessness_plan",
        {"techniques": list(techniques), "recovery_minutes": recovery, "triggers": triggers, "note": note},
    )


def driving(reason, status, until=None, note=None):
    return _m("driving_restriction", {"reason": reason, "status": status, "until": until, "note": note})


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
