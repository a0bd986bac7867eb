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
def rtprep(site, fractions=None, bladder=None, drink=None, mins=None, bowel=None, breath_hold=None, note=None):
    return _m(
        "radiotherapy_preparation",
        {
            "site": site,
            "fractions": fractions,
            "bladder": bladder,
            "drink_ml": drink,
            "drink_minutes_before": mins,
            "bowel": bowel,
            "breath_hold": breath_hold,
            "note": note,
        },
    )


def rtskin(area, reaction, product=None, avoid=None, note=None):
    return _m(
        "radiation_skin_care", {"area": area, "reaction": reaction, "product": product, "avoid": avoid, "note": note}
    )


def pgx(gene, result, variant=None, affects=None, action=None, tested=None):
    return _m(
        "pharmacogenomic_result",
        {"gene": gene, "result": result, "variant": variant, "affects": affects, "action": action, "tested": tested},
    )


def coldcap(status, extra=None, reason=None, note=None):
    return _m("scalp_cooling", {"status": status, "extra_minutes": extra, "reason": reason, "note": note})


def fertility(method, status, unit=None, renew=None, note=None):
    return _m(
        "fertility_preservation",
        {"method": method, "status": status, "unit": unit, "consent_renewal": renew, "note": note},
    )


def drain(device, side, inserted=None, due=None, by=None, note=None):
    return _m(
        "upper_tract_drain",
        {"device": device, "side": side, "inserted": inserted, "change_due": due, "managed_by": by, "note": note},
    )


def instil(agent, phase, done=None, planned=None, hold=None, note=None):
    return _m(
        "intravesical_therapy",
        {"agent": agent, "phase": phase, "done": done, "planned": planned, "hold_minutes": hold, "note": note},
    )


def fluids(after, days, precautions=None, waste=None, note=None):
    return _m(
        "body_fluid_precautions",
        {
            "after": after,
            "days": days,
            "precautions": list(precautions) if precautions else None,
            "waste": waste,
            "note": note,
        },
    )


def gene(g, result, relatives=None, clinic=None, note=None):
    return _m(
        "inherited_cancer_gene", {"gene": g, "result": result, "relatives": relatives, "clinic": clinic, "note": note}
    )


def followup(cancer, pathway, tests=None, months=None, until=None, contact=None, note=None):
    return _m(
        "follow_up_pathway",
        {
            "cancer": cancer,
            "pathway": pathway,
            "tests": tests,
            "interval_months": months,
            "until": until,
            "contact": contact,
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
