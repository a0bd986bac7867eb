"""Retrieval by meaning: embeddings as representations of memories, deterministic filters first, then exact
ranking of the candidates by a learned scoring head over their cosine similarity, PostgreSQL full-text rank, the
clinical lexicon's concept match and the question's intent for their type; context packs for prompts, each
recorded as a release.

Two rules come before ranking. **Safety**: a question that names a medicine, vaccine, contrast agent, food,
material or procedure (the lexicon decides) gets every current allergy, intolerance and long-term medicine the
caller may see, flagged ``fetch_live``, whatever their score. **No silent empty answers**: hits carry a confidence
band; when nothing reaches the calibrated threshold, search still answers its best few, marked ``low``.

Where things live, in the order a search runs:

- ``vectors``: what a memory is embedded as, the thread that writes new memories' vectors, re-indexing, and the
  deletion handler for vectors (the only module the write path imports);
- ``question``: :func:`understand` reads a question once into a :class:`Question` (lexicon concepts, expanded text,
  what it is about, whether the safety rule applies);
- ``candidates``: the deterministic filters and the candidate rows;
- ``intent``: which types could answer the question, from the phrases each type says it serves;
- ``scoring``: cosine and text rank (pipelined SQL), the lexicon's concept match, the intent, the scoring head;
- ``ranker``: the scoring head (a logistic regression) and its confidence thresholds, as trained;
- ``training``: how ``manage.py train_ranker`` fits them on the blind set's calibration split;
- ``selection``: which hits make the answer (threshold, best guesses, the safety rule) and its confidence;
- ``search``: :func:`memory_search`, returning one :class:`SearchResult`;
- ``context``: :func:`context_pack`, returning one :class:`ContextPack`, and the deletion handler for releases.
"""

# Importing any module of the package imports these, so the deletion handlers of both kinds of copy retrieval
# makes (vectors, releases) are registered wherever a memory can be deleted.
from memory.retrieval.context import ContextPack, context_pack
from memory.retrieval.search import SearchResult, memory_search

__all__ = ["ContextPack", "SearchResult", "context_pack", "memory_search"]
