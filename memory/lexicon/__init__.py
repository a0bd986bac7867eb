"""The clinical lexicon (``clinical_lexicon.json``, sources named in the file): the names people use for
medicines, vaccines, contrast agents, foods, materials and procedures, mapped to the classes that matter for
allergies, intolerances and long-term medicines, with cross-reactions, interactions and where a substance hides.

Retrieval uses it three ways: to expand the text a memory is embedded and searched as and the question (class
names a model may not know a brand belongs to), to score how directly a question concerns a memory (a question
about Bactrim concerns a sulfonamide allergy; one about ibuprofen concerns long-term warfarin), and to decide
when the safety rule applies (any mention of something a patient could be given or exposed to)."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

LEXICON_FILE = Path(__file__).with_name("clinical_lexicon.json")
# Umbrella words ("medication", "procedure") say little about which memory is meant: they trigger the safety
# rule but weigh less in ranking than a named class.
BROAD = {"drugs": 0.35, "foods": 0.5, "materials": 0.5, "procedures": 0.35}
FOUND_IN_WEIGHT = 0.85  # "gloves" concerns latex nearly as much as "latex" does
ANCESTOR_WEIGHT = 0.8  # "any antibiotic allergy?" concerns a penicillin allergy
RELATED_WEIGHT = 0.7  # cross-reactions and interactions
# What a patient can be given or exposed to: a question naming one of these is about that thing, not another.
SUBSTANCES = {"drug", "vaccine", "contrast", "food", "material"}


@dataclass(frozen=True)
class Concept:
    concept_id: str
    category: str
    label: str
    parents: tuple[str, ...]
    related: tuple[str, ...]


@dataclass(frozen=True)
class Lexicon:
    version: str
    concepts: dict[str, Concept]
    pattern: re.Pattern
    by_term: dict[str, tuple[tuple[str, float], ...]]
    test_terms: frozenset[str]
    ancestors: dict[str, frozenset[str]]
    related: dict[str, frozenset[str]]  # cross-reactions and where a substance hides, both directions
    interacts: dict[str, frozenset[str]]  # interactions with what a patient takes, both directions

    def mentions(self, text: str, *, tests: bool = True) -> dict[str, float]:
        """Concepts a text names, each with how directly (1.0 its own name, less for a product it hides in).
        An umbrella word ("medication") counts only when nothing more specific of its kind is named.
        ``tests=False`` leaves out monitoring tests (INR, TSH), which point at a medicine without naming it."""
        return self._named((m.group(0) for m in self.pattern.finditer(_normal(text))), tests=tests)

    def mentions_both(self, text: str) -> tuple[dict[str, float], dict[str, float]]:
        """``mentions(text)`` and ``mentions(text, tests=False)`` from one reading of the text (a question needs
        both: what it asks about, and the substances it names)."""
        terms = [m.group(0) for m in self.pattern.finditer(_normal(text))]
        return self._named(terms, tests=True), self._named(terms, tests=False)

    def _named(self, terms, *, tests: bool) -> dict[str, float]:
        found: dict[str, float] = {}
        for term in terms:
            if not tests and term in self.test_terms:
                continue
            for concept_id, weight in self.by_term[term]:
                found[concept_id] = max(found.get(concept_id, 0.0), weight)
        specific = {self.concepts[c].category for c in found if c not in BROAD}
        return {c: w for c, w in found.items() if c not in BROAD or self.concepts[c].category not in specific}

    def closure(self, concept_ids) -> set[str]:
        out: set[str] = set()
        for c in concept_ids:
            out |= self.ancestors.get(c, frozenset())
        return out

    def relevance(self, question: dict[str, float], memory: dict[str, float], *, taken: bool = False) -> float:
        """How directly a question's concepts concern a memory's (0-1): the strongest link, plus a quarter of the
        others (ibuprofen after an operation concerns lithium twice: NSAIDs and surgery). A class concerns its
        members both ways ("any antibiotic allergy?" a penicillin allergy; "gadolinium?" a reaction to contrast),
        except through an umbrella word in the memory ("medication"). Interactions count for what the patient
        takes (``taken``: a long-term medicine), not for an allergy to it."""
        if not question or not memory:
            return 0.0
        own = set(memory)
        wider = self.closure(own)
        classes = own - BROAD.keys()
        maps = (self.related, self.interacts) if taken else (self.related,)
        scores = []
        for q, weight in question.items():
            mine = self.ancestors.get(q, frozenset({q}))
            if q in own:
                score = weight
            elif q in wider or mine & classes:
                score = weight * ANCESTOR_WEIGHT
            elif any(mine & links.get(m, frozenset()) for links in maps for m in wider):
                score = weight * RELATED_WEIGHT
            else:
                continue
            scores.append(score * BROAD.get(q, 1.0))
        if not scores:
            return 0.0
        scores.sort(reverse=True)
        return min(1.0, scores[0] + 0.25 * sum(scores[1:]))

    def mismatch(self, question: dict[str, float], memory: dict[str, float], *, taken: bool = False) -> float:
        """1 when a question is clearly about something else: it names a substance or class (a medicine, vaccine,
        contrast agent, food, material), the memory names one too, and they do not meet ("any penicillin
        allergy?" against a ciprofloxacin allergy; "any food allergy?" against a codeine one). The similarity of
        the other words ("allergy") then says nothing. Procedures and tests never count as a mismatch."""
        if not memory or not any(self.concepts[q].category in SUBSTANCES for q in question if question[q] > 0):
            return 0.0
        return 0.0 if self.relevance(question, memory, taken=taken) > 0 else 1.0

    def expansion(self, text: str, mentioned: dict[str, float] | None = None) -> str:
        """The class names of what a text mentions (and of their broader groups), to append to it.
        ``mentioned``: ``self.mentions(text)``, when the caller has it already."""
        found = self.mentions(text) if mentioned is None else mentioned
        labels = dict.fromkeys(self.concepts[c].label for c in sorted(self.closure(found)) if c not in BROAD)
        return "; ".join(labels)

    def expand(self, text: str, mentioned: dict[str, float] | None = None) -> str:
        extra = self.expansion(text, mentioned)
        return f"{text} ({extra})" if extra else text


def _normal(text: str) -> str:
    return re.sub(r"\s+", " ", text.casefold().replace("\u2019", "'")).strip()


def _trie_pattern(terms) -> str:
    """One regular expression for all terms, as a trie of characters: at each position it tries the longest term
    first and falls back to shorter ones, exactly as an alternation of the terms sorted longest first would (the
    boundary check after it decides between them in the same order), without trying a thousand alternatives at
    every character of a text."""
    trie: dict = {}
    for term in terms:
        node = trie
        for ch in term:
            node = node.setdefault(ch, {})
        node[""] = {}

    def build(node: dict) -> str:
        ends = "" in node
        branches = [re.escape(ch) + build(child) for ch, child in sorted(node.items()) if ch]
        if not branches:
            return ""
        body = branches[0] if len(branches) == 1 else "(?:" + "|".join(branches) + ")"
        return f"(?:{body})?" if ends else body

    return "(?:" + build(trie) + ")"


@lru_cache(maxsize=1)
def lexicon() -> Lexicon:
    data = json.loads(LEXICON_FILE.read_text())
    concepts: dict[str, Concept] = {}
    by_term: dict[str, dict[str, float]] = {}
    for cid, spec in data["concepts"].items():
        concepts[cid] = Concept(cid, spec["category"], spec["label"], tuple(spec["parents"]), tuple(spec["related"]))
        for term in spec["terms"]:
            by_term.setdefault(_normal(term), {})[cid] = 1.0
        for term in spec.get("tests", ()):
            by_term.setdefault(_normal(term), {})[cid] = 1.0
        for term in spec["found_in"]:
            slot = by_term.setdefault(_normal(term), {})
            slot[cid] = max(slot.get(cid, 0.0), FOUND_IN_WEIGHT)
    unknown = {p for c in concepts.values() for p in c.parents + c.related if p not in concepts}
    unknown |= {c for pair in data["interactions"] for c in pair["classes"] if c not in concepts}
    if unknown:
        raise ValueError(f"lexicon refers to unknown concepts: {sorted(unknown)}")

    def ancestors_of(cid: str, seen=()) -> frozenset[str]:
        out = {cid}
        for p in concepts[cid].parents:
            if p not in seen:
                out |= ancestors_of(p, seen + (cid,))
        return frozenset(out)

    ancestors = {cid: ancestors_of(cid) for cid in concepts}
    def both_ways(pairs) -> dict[str, frozenset[str]]:
        out: dict[str, set[str]] = {cid: set() for cid in concepts}
        for a, b in pairs:
            out[a].add(b)
            out[b].add(a)
        return {k: frozenset(v) for k, v in out.items()}

    related = both_ways((c.concept_id, r) for c in concepts.values() for r in c.related)
    interacts = both_ways(tuple(i["classes"]) for i in data["interactions"])
    pattern = re.compile(r"(?<![\w-])" + _trie_pattern(by_term) + r"(?![\w-])")
    test_terms = frozenset(_normal(t) for spec in data["concepts"].values() for t in spec.get("tests", ()))
    return Lexicon(version=data["version"], concepts=concepts, pattern=pattern, test_terms=test_terms,
                   by_term={t: tuple(v.items()) for t, v in by_term.items()}, ancestors=ancestors,
                   related=related, interacts=interacts)
