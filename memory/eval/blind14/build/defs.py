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
def staying(situation, area=None, since=None, note=None):
    return _m("housing_situation", {"situation": situation, "area": area, "since": since, "note": note})


def post(route, place=None, collect=None, note=None):
    return _m("postal_route", {"route": route, "place": place, "collect_in_person": collect, "note": note})


def via(who, person=None, phone=None, when=None, note=None):
    return _m("go_between", {"via": who, "name": person, "phone": phone, "when": when, "note": note})


def phone(status, app=None, changes=None, note=None):
    return _m("phone_access", {"status": status, "app": app, "number_changes": changes, "note": note})


def doc(document, status, note=None):
    return _m("identity_documents", {"document": document, "status": status, "note": note})


def gp(status, practice=None, note=None):
    return _m("practice_registration", {"status": status, "practice": practice, "note": note})


def trauma(aspect, preference, note=None):
    return _m("trauma_informed_care", {"aspect": aspect, "preference": preference, "note": note})


def clinic(which, place=None, day=None, start=None, end=None, note=None):
    return _m("outreach_clinic", {"clinic": which, "place": place, "day": day, "start": start, "end": end, "note": note})


def custody(status, establishment=None, released=None, licence_end=None, bridging=None, note=None):
    return _m(
        "custody_release",
        {
            "status": status,
            "establishment": establishment,
            "release_date": released,
            "licence_end": licence_end,
            "bridging_days": bridging,
            "note": note,
        },
    )


def charging(category, evidence=None, note=None):
    return _m("charging_exemption", {"category": category, "evidence": evidence, "note": note})


def travel(pattern, away=None, base=None, note=None):
    return _m("travel_pattern", {"pattern": pattern, "away_months": list(away) if away else None, "base": base, "note": note})


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
