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
def capacity(decision, cap, best=None, by=None, on=None, note=None):
    return _m(
        "capacity_decision",
        {
            "decision": decision,
            "capacity": cap,
            "best_interests": best,
            "assessed_by": by,
            "assessed_on": on,
            "note": note,
        },
    )


def covert(status, medicines=None, vehicle=None, pharmacist=None, review=None, note=None):
    return _m(
        "covert_medication",
        {
            "status": status,
            "medicines": medicines,
            "vehicle": vehicle,
            "pharmacist_advised": pharmacist,
            "review_by": review,
            "note": note,
        },
    )


def dols(status, body=None, expires=None, rpr=None, conditions=None):
    return _m(
        "dols_authorisation",
        {
            "status": status,
            "supervisory_body": body,
            "expires": expires,
            "representative": rpr,
            "conditions": conditions,
        },
    )


def missing(risk, form=None, places=None, photo=None, note=None):
    return _m(
        "missing_person_plan",
        {"risk": risk, "form_held_by": form, "likely_places": places, "photo": photo, "note": note},
    )


def pet(animal, pname=None, visits=None, admitted=None, note=None):
    return _m(
        "pet_at_home", {"animal": animal, "pet_name": pname, "at_visits": visits, "if_admitted": admitted, "note": note}
    )


def home(name_, placement, funding=None, since=None, room=None, note=None):
    return _m(
        "care_home_placement",
        {"home": name_, "placement": placement, "funding": funding, "since": since, "room": room, "note": note},
    )


def wound(site, kind, primary, secondary=None, compression=None, freq=None, by=None, note=None):
    return _m(
        "wound_dressing",
        {
            "site": site,
            "wound": kind,
            "primary": primary,
            "secondary": secondary,
            "compression": compression,
            "frequency": freq,
            "changed_by": by,
            "note": note,
        },
    )


def tube(kind, size=None, feed=None, regimen=None, flushes=None, nbm=None, dislodged=None, note=None):
    return _m(
        "tube_feeding",
        {
            "tube": kind,
            "size_fr": size,
            "feed": feed,
            "regimen": regimen,
            "flushes": flushes,
            "nil_by_mouth": nbm,
            "if_dislodged": dislodged,
            "note": note,
        },
    )


def sickle(genotype, hb=None, crisis=None, avoid=None, transfusion=None, centre=None, note=None):
    return _m(
        "sickle_cell_plan",
        {
            "genotype": genotype,
            "baseline_hb": hb,
            "crisis_analgesia": crisis,
            "avoid": avoid,
            "transfusion": transfusion,
            "centre": centre,
            "note": note,
        },
    )


def iron(product, status, last=None, due=None, unit=None, note=None):
    return _m(
        "iron_infusion",
        {"product": product, "status": status, "last_given": last, "next_due": due, "unit": unit, "note": note},
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
