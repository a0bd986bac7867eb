"""How much of what a question asks about a candidate's own words cover.

A memory can be close to a question in meaning and still not hold what it asks: "What's his target dry weight?"
lands near the fluid restriction, "Which surgeon is doing his bypass?" near the plan for his medicines before
surgery. Such a memory is on the question's topic, so its cosine and its type's intent are high, and a threshold
cannot tell it from an answer. What tells them apart is the question's own words: most of them ("dry", "weight",
"surgeon") are nowhere in the memory's text or in what its type says it serves.

:func:`question_stems` reads the question's content words once (stop words and the patient's own name left out,
every word cut to a stem); :meth:`Coverage.uncovered` is the share of them a candidate leaves uncovered, by its
expanded text (the lexicon's class names included) and its type's words (its serves phrases and its name). The
scoring head learns what that share is worth, and what it is worth beside the best-covered candidate's.

Stems are cut by a few English endings, the same on both sides: "nurses", "nursing" and "nurse" meet, and so do
"therapy" and "therapies". A candidate's text is searched for the question's stems with one pattern, never split
into words itself: a search meets 200 texts and has a few milliseconds for all of them.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

# Words that say nothing about which fact is asked for: function words, the question's frame ("can", "need",
# "know"), the ways agents and staff name the patient.
STOP_WORDS = frozenset("""
a about above after again all also am an and any anyone anything are as at be been before being both but by can
could currently did do does doing done during each either else ever for from get gets getting go going got had has
have having he her here hers herself him himself his how i if in into is it its itself just know let like may me
might mine more most much must my myself need needed needs no nor not now of off ok okay on once one only or other
our ours out over own please pt patient patients person people re right said say see shall she should so some
someone something still such tell than that the their theirs them themselves then there these they this those
through to today too under until up us very want wanted wants was way we were what whatever when where whether
which while who whom whose why will with would yes yet you your yours
ca wo sha ai
""".split())  # the last line: what "can't", "won't", "shan't" and "ain't" leave once "n't" is taken off

_WORD = re.compile(r"[a-z][a-z0-9-]*")
# A possessive or contraction goes with its word ("he's", "Dennis's", "what're", "isn't"), typed with either
# apostrophe: "he" and "is" are stop words.
_CLITIC = re.compile(r"n['\u2019]t\b|['\u2019](?:s|re|ve|ll|d|m)\b")
_ENDING = re.compile(r"(?:ies|ied|es|ed|ing|s|e|y)$")
# The endings a stem may meet in a text ("nurs" meets "nurse", "nurses", "nursing"); none runs into a longer word.
_TEXT_ENDINGS = r"(?:ies|ied|es|ed|ing|s|e|y)?"
_MIN_STEM = 3


def stem(word: str) -> str:
    """``word`` without its ending, when at least three letters are left."""
    cut = _ENDING.sub("", word)
    return cut if len(cut) >= _MIN_STEM else word


def words_of(text: str) -> list[str]:
    """The lower-case words of ``text``, possessives and contractions taken off."""
    return _WORD.findall(_CLITIC.sub(" ", text.lower()))


def question_stems(text: str, *, names: Iterable[str] = ()) -> frozenset[str]:
    """The stems of the question's content words, without stop words, one-letter words and ``names`` (the
    patient's own name: "Does Stan have a fistula?" is about the fistula)."""
    left_out = {stem(w) for name in names for w in words_of(name)}
    return frozenset(stem(w) for w in words_of(text) if len(w) > 1 and w not in STOP_WORDS) - left_out


class Coverage:
    """A question's stems, and which of them a text holds."""

    def __init__(self, stems: frozenset[str]) -> None:
        self.stems = stems
        self._pattern = re.compile(
            r"(?<![a-z0-9])(" + "|".join(sorted((re.escape(s) for s in stems), key=len, reverse=True))
            + r")" + _TEXT_ENDINGS + r"(?![a-z0-9])") if stems else None

    def found(self, text: str) -> frozenset[str]:
        """The question's stems that ``text`` holds."""
        if self._pattern is None:
            return frozenset()
        return frozenset(self._pattern.findall(text.lower()))

    def uncovered(self, found: frozenset[str]) -> float:
        """The share of the question's stems not among ``found`` (0 for a question without content words)."""
        if not self.stems:
            return 0.0
        return len(self.stems - found) / len(self.stems)
