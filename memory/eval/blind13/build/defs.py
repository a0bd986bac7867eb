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
def prep(mode, product=None, supply=None, review=None, note=None):
    return _m("prep_plan", {"mode": mode, "product": product, "supply": supply, "next_review": review, "note": note})


def hivplan(viral_load, dosing=None, food=None, review_months=None, peer=None, note=None):
    return _m(
        "hiv_care_plan",
        {"viral_load": viral_load, "dosing": dosing, "food": food, "review_months": review_months,
         "peer_support": peer, "note": note},
    )


def pep(started, ends, regimen=None, exposure=None, follow_up=None):
    return _m(
        "pep_course",
        {"started": started, "ends": ends, "regimen": regimen, "exposure": exposure, "follow_up": follow_up},
    )


def pn(infection, partner, method, status, note=None):
    return _m(
        "partner_notification",
        {"infection": infection, "partner": partner, "method": method, "status": status, "note": note},
    )


def testing(route, sites=None, frequency=None, deliver_to=None, note=None):
    return _m(
        "sti_testing_route",
        {"route": route, "sites": list(sites) if sites else None, "frequency": frequency, "deliver_to": deliver_to,
         "note": note},
    )


def hormones(administration, interval=None, bloods=None, due=None, note=None):
    return _m(
        "gender_hormone_plan",
        {"administration": administration, "interval": interval, "bloods": bloods, "next_due": due, "note": note},
    )


def pathway(stage, service=None, surgery=None, next_step=None, note=None):
    return _m(
        "gender_pathway",
        {"stage": stage, "service": service, "surgery": surgery, "next_step": next_step, "note": note},
    )


def organ(which, status, screening=None, note=None):
    return _m("anatomy_screening", {"organ": which, "status": status, "screening": screening, "note": note})


def contra(method, started=None, replace_by=None, note=None):
    return _m("contraception_plan", {"method": method, "started": started, "replace_by": replace_by, "note": note})


def fert(stage, cycle=None, funding=None, medicines=None, next_step=None, note=None):
    return _m(
        "fertility_treatment",
        {"stage": stage, "cycle": cycle, "funding": funding, "medicines": medicines, "next_step": next_step,
         "note": note},
    )


def stored(material, amount=None, reason=None, until=None, note=None):
    return _m(
        "fertility_storage",
        {"material": material, "amount": amount, "reason": reason, "consent_until": until, "note": note},
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
