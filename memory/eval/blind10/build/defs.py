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
def results(neg, pos, sms=None, note=None):
    return _m("result_delivery", {"negative_results": neg, "positive_results": pos, "sms_wording": sms, "note": note})


def pn(infection, route, partners=None, status=None, note=None):
    return _m(
        "partner_notification",
        {"infection": infection, "route": route, "partners": partners, "status": status, "note": note},
    )


def prep(product, dosing, renal=None, review=None, note=None):
    return _m(
        "prep_plan", {"product": product, "dosing": dosing, "renal_checks": renal, "review_months": review, "note": note}
    )


def contra(method, product=None, started=None, renew_by=None, site=None, note=None):
    return _m(
        "contraception_method",
        {"method": method, "product": product, "started": started, "renew_by": renew_by, "site": site, "note": note},
    )


def trip(destination, depart=None, ret=None, purpose=None, style=None, note=None):
    return _m(
        "travel_plan",
        {"destination": destination, "depart": depart, "return_date": ret, "purpose": purpose, "style": style,
         "note": note},
    )


def yf(status, dose_date=None, reason=None, note=None):
    return _m("yellow_fever_status", {"status": status, "dose_date": dose_date, "exemption_reason": reason, "note": note})


def malaria(agent, unsuitable=None, note=None):
    return _m(
        "malaria_prevention",
        {"agent": agent, "unsuitable": list(unsuitable) if unsuitable else None, "note": note},
    )


def course(vaccine, given, planned, last=None, nxt=None, note=None):
    return _m(
        "vaccine_course",
        {"vaccine": vaccine, "doses_given": given, "doses_planned": planned, "last_dose": last, "next_due": nxt,
         "note": note},
    )


def pep(exposure, regimen, started, status=None, followup=None, note=None):
    return _m(
        "pep_course",
        {"exposure": exposure, "regimen": regimen, "started": started, "status": status, "followup_test": followup,
         "note": note},
    )


def ehc(option, supplied, by=None, note=None):
    return _m("emergency_contraception", {"option": option, "supplied": supplied, "supplied_by": by, "note": note})


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
