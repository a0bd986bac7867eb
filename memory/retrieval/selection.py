"""Which ranked hits make an answer, and how sure it is.

Two rules come before the score. **Safety**: a question that names something a patient could be given or exposed
to gets every allergy and long-term medicine among the candidates, whatever their score. **No silent empty
answers**: when nothing reaches the fitted threshold, the best few are still answered, marked ``low`` (and with
fewer confident hits than that, the next best come with them, marked ``low``)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from memory.lexicon import lexicon
from memory.retrieval.question import NEGATIVE, Question, detail_held, measure_held, result_words
from memory.retrieval.ranker import ranker
from memory.retrieval.scoring import HIGH, LOW, RELEVANCE, SAFETY_RULE, Hit
from memory.types import type_serves


@dataclass(frozen=True)
class Selection:
    hits: list[Hit]
    over_limit: int  # hits that reached their threshold but not the limit (nor the safety rule): left out


def select_hits(ranked: list[Hit], *, question: Question, limit: int | None = None,
                min_score: float | None = None) -> list[Hit]:
    """The hits :func:`select` answers with."""
    return select(ranked, question=question, limit=limit, min_score=min_score).hits


def select(ranked: list[Hit], *, question: Question, limit: int | None = None,
           min_score: float | None = None) -> Selection:
    """From hits ranked best first: those that reach their type's threshold (``high``; ``min_score``, when given,
    for every type; without it, the best is high exactly when the answerability check passes, and none is when
    it fails), then the next best below it (``low``) up to ``low_limit`` hits in all; then, when the
    question names something a patient could be given or exposed to, every allergy and long-term medicine among
    the candidates, whatever its score (``included_by: safety_rule``). Best first; and how many that reached their
    threshold the limit left out."""
    head = ranker()

    # the answerability check, unless the caller set the bar: when it fails nothing is high, when it passes the
    # best is, whatever its own threshold
    answerable = None if min_score is not None or not ranked else head.answerable(
        np.array([h.score for h in ranked]), np.array([h.features for h in ranked]),
        tuple(h.memory.memory_type for h in ranked))
    if min_score is None and ranked and sum(ch.isalpha() for ch in question.text) < 2:
        # "((((((" or "$1": a question in no words asks nothing a memory could answer, however near its vector
        # (with few candidates, too, where each one's threshold would decide alone)
        answerable = False
    if answerable and lacks_what_is_asked(ranked[0], question):
        answerable = False

    def reaches(h: Hit) -> bool:
        if answerable is not None and (not answerable or h is ranked[0]):
            return answerable
        if h.mismatch >= 1.0:
            # beside the best, a memory clearly about something else (the question names a medicine or substance,
            # the memory another it does not meet: "is she on apixaban?" against her warfarin) is no answer,
            # however close its words; it may still come as a best guess or a safety inclusion, marked low
            return False
        if h.score < (head.threshold_for(h.memory.memory_type) if min_score is None else min_score):
            return False
        # every candidate the caller did not set the bar for is held to what the question asks, not only the best
        # (beside "between 09:00 and 17:00", "contact by text message" does not say what time to phone), and so is
        # each one when there are too few candidates for the check (a patient with little on record, a search
        # limited to a type or two)
        return min_score is not None or not lacks_what_is_asked(h, question)

    chosen = [h for h in ranked if reaches(h)][: (limit or head.limit)]
    for h in chosen:
        h.confidence, h.included_by = HIGH, RELEVANCE
    # the next best few below the threshold, marked low, up to ``low_limit`` hits in all: with no confident
    # answer they are the best guesses, with one they are the alternatives an agent can check it against
    taken = {id(h) for h in chosen}
    room = min(limit or head.low_limit, head.low_limit) - len(chosen)
    guesses = [h for h in ranked if id(h) not in taken][:max(0, room)]
    for h in guesses:
        h.confidence, h.included_by = LOW, RELEVANCE
    chosen = chosen + guesses
    if question.safety_rule:
        # every allergy and long-term medicine, also one already among the low-confidence best guesses: those
        # are left out of context packs, a safety inclusion never is
        taken = {id(h) for h in chosen}
        for h in ranked:
            if not h.safety or (id(h) in taken and h.confidence == HIGH):
                continue
            h.confidence = HIGH if reaches(h) else LOW
            h.included_by = SAFETY_RULE
            if id(h) not in taken:
                chosen.append(h)
    chosen.sort(key=lambda h: (-h.score, h.memory.memory_id))
    taken = {id(h) for h in chosen}
    return Selection(hits=chosen, over_limit=sum(1 for h in ranked if id(h) not in taken and reaches(h)))


def lacks_what_is_asked(hit: Hit, question: Question) -> bool:
    """Whether the hit lacks what the question asks for beside its topic, so it is a best guess, never the answer:
    "what was her last INR?" asks a test's result, which no memory holds (a memory naming the test holds the
    medicine it monitors, a target range or when it is due); "when was his last seizure?" a time his epilepsy
    medicine does not hold (nor a transplant's date how old its donor was, a day what time, "free on Tuesdays"
    which days she cannot come); "what's his eGFR?" a value his dialysis plan does not hold."""
    if question.result_only and not holds_results(hit, question):
        return True
    if not all(holds_detail(hit, detail) for detail in question.details):
        return True
    return bool(question.measures) and not any(holds_measure(hit, m) for m in question.measures)


def holds_results(hit: Hit, question: Question) -> bool:
    """Whether the hit's type says it holds results of the test the question names: an organisation may define
    one (what it serves, in the organisation's wording, names the test and a result, as "latest INR readings"
    does). No built-in type does. (One query, only for a question that asks for a result.)"""
    serves = " ".join(type_serves(org_id=hit.memory.organization_id).get(hit.memory.memory_type, ()))
    tests = question.asked.keys() - question.substances.keys()
    return bool(result_words(serves)) and bool(tests & lexicon().mentions(serves).keys())


def _fact_holds(hit: Hit, held: Callable[[str], bool]) -> bool:
    """Whether ``held`` finds what it looks for in the hit's sentence, or in one of its fields' name and value read
    together (``next_due: 2027-03-15``, ``baseline_hb: 98``)."""
    return held(hit.text) or any(held(f"{key.replace('_', ' ')} {value}") for key, value in (hit.value or {}).items())


def holds_detail(hit: Hit, detail: str) -> bool:
    """Whether the hit's fact holds the kind of detail (``question.DETAILS``) asked for. An allergy or long-term
    medicine says what must not be given, so it holds a negative ("what must he never have?")."""
    if detail == NEGATIVE and hit.safety:
        return True
    return _fact_holds(hit, lambda text: detail_held(detail, text))


def holds_measure(hit: Hit, measure: str) -> bool:
    """Whether the hit's fact holds a value of the measurement: it names it beside a figure ("178 kg")."""
    return _fact_holds(hit, lambda text: measure_held(measure, text))


def confidence_of(hits: list[Hit]) -> str:
    """The answer's band: ``high`` when a hit reached the threshold on relevance, ``low`` when only the best
    guesses (or safety inclusions) are there, ``none`` when the patient has nothing the caller may see."""
    if any(h.confidence == HIGH and h.included_by == RELEVANCE for h in hits):
        return HIGH
    return LOW if hits else "none"
