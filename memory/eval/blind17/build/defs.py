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
def seiz(seizures, rescue=None, dose=None, after=None, call=None, note=None):
    return _m(
        "seizure_plan",
        {
            "seizures": seizures,
            "rescue": rescue,
            "dose": dose,
            "give_after_minutes": after,
            "call_999_if": call,
            "note": note,
        },
    )


def timed(medicines, times, window=None, nbm=None, self_admin=None, note=None):
    return _m(
        "time_critical_medicines",
        {
            "medicines": medicines,
            "dose_times": times,
            "window_minutes": window,
            "nil_by_mouth": nbm,
            "self_administers": self_admin,
            "note": note,
        },
    )


def infusion(drug, weeks, unit, phase=None, chair=None, premed=None, observe=None, note=None):
    return _m(
        "infusion_schedule",
        {
            "drug": drug,
            "interval_weeks": weeks,
            "unit": unit,
            "phase": phase,
            "chair_minutes": chair,
            "premedication": premed,
            "observe_minutes": observe,
            "note": note,
        },
    )


def delivery(medicine, provider, weeks=None, to=None, fridge=None, nurse=None, sharps=None, note=None):
    return _m(
        "medicine_home_delivery",
        {
            "medicine": medicine,
            "provider": provider,
            "every_weeks": weeks,
            "deliver_to": to,
            "fridge": fridge,
            "nurse_visits": nurse,
            "sharps_collection": sharps,
            "note": note,
        },
    )


def bloods(medicine, tests, weeks, where=None, reviewed=None, note=None):
    return _m(
        "blood_monitoring",
        {
            "medicine": medicine,
            "tests": list(tests),
            "every_weeks": weeks,
            "where": where,
            "reviewed_by": reviewed,
            "note": note,
        },
    )


def shared(medicine, status, gp=None, team=None, note=None):
    return _m("shared_care", {"medicine": medicine, "status": status, "gp_prescribes": gp, "team": team, "note": note})


def steroid(card, reason, kit=None, unwell=None, note=None):
    return _m("steroid_card", {"card": card, "reason": reason, "injection_kit": kit, "if_unwell": unwell, "note": note})


def ppp(medicine, status, contraception=None, signed=None, note=None):
    return _m(
        "pregnancy_prevention",
        {"medicine": medicine, "status": status, "contraception": contraception, "form_signed": signed, "note": note},
    )


def stoma(kind, appliance, output=None, supplier=None, note=None):
    return _m(
        "stoma_care", {"stoma": kind, "appliance": appliance, "output": output, "supplier": supplier, "note": note}
    )


def scope(reason, procedure, months, technique=None, due=None, note=None):
    return _m(
        "endoscopy_surveillance",
        {
            "reason": reason,
            "procedure": procedure,
            "interval_months": months,
            "technique": technique,
            "next_due": due,
            "note": note,
        },
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
