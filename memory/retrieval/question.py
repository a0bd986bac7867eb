"""A question as search understands it: everything derived from its text, read once per search and handed down,
so ranking, selection and context packs never read the raw text again."""

from __future__ import annotations

import re
from dataclasses import dataclass

from memory.lexicon import lexicon

_ALLERGY_WORDS = re.compile(r"\b(?:allerg\w*|intoleran\w*|react\w*|sensitiv\w*|anaphyla\w*|hypersensitiv\w*)",
                            re.IGNORECASE)
_TAKING_WORDS = re.compile(r"\b(?:is|are|he's|she's|they're|currently|still|been)\s+(?:\w+\s+){0,2}on\b"
                           r"|\b(?:taking|take|takes|took|prescribed|using|uses|therapy|treated|treatment|"
                           r"regular|long-term|maintenance|anticoagulated|dose|doses|dosing|level|levels|monitoring)\b",
                           re.IGNORECASE)


@dataclass(frozen=True)
class Question:
    """What the lexicon and the question's own words say about it."""
    text: str
    expanded: str  # the question plus the class names of what it names: what is embedded and text-ranked
    asked: dict[str, float]  # concepts named, monitoring tests included
    substances: dict[str, float]  # concepts named, without monitoring tests
    about_allergy: bool
    about_taking: bool  # "is she on blood thinners?": about a medicine taken, not an allergy to it

    @property
    def safety_rule(self) -> bool:
        """The question names something a patient could be given or exposed to (lexicon: medicines and their
        classes, vaccines, contrast agents, foods, materials, procedures, and the products they hide in), so every
        allergy and long-term medicine the caller may see must be part of the answer."""
        return bool(self.asked)


def understand(question: str) -> Question:
    """The question read once: its lexicon concepts, the expanded text and the words that say what it is about."""
    lex = lexicon()
    asked, substances = lex.mentions_both(question)
    return Question(text=question, expanded=lex.expand(question, mentioned=asked), asked=asked,
                    substances=substances, about_allergy=bool(_ALLERGY_WORDS.search(question)),
                    about_taking=bool(_TAKING_WORDS.search(question)))
