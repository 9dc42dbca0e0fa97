"""Enhanced recall: what it adds to Reasonix, each piece switchable (:class:`Enhancements`).

Scoring and the gate are :mod:`.channels` (BM25F by field; lexical, translated and
meaning channels; an idf-weighted gate). On top of the ranked matches:

* ``subjects``: among facts that share a ``subject_key`` only the current one is shown
  (project over global, then newest; :func:`reasonix_tui.core.resolve.resolve_subjects`);
  a match on a superseded one brings the current one instead.
* ``topics``: facts about the same thing without a shared key
  (:func:`reasonix_tui.core.resolve.topic_pairs`): a project fact on the topic of a global
  default shadows it; an older fact on the topic of a newer one is marked
  ``[possibly superseded by …]`` and ranked after it (the newer one is brought in when only
  the older matched).
* ``supersedes``: a fact whose ``supersedes`` names another removes it from recall;
  when only the old fact matched, the new one takes its place.
* ``stale_flags``: stale hits carry a visible marker and rank after current hits.
* ``generic``: acknowledgement-only turns ("ok, continue", "好的，继续下一步") stay silent.
* ``focus``: among the facts shown, one holding the turn's quoted literal verbatim comes
  first, and one whose title the turn covers only in part (another aspect of the turn's
  subject) weighs less (:mod:`.focus`).
* ``dictionary`` / ``meaning`` / ``lexicon``: the translated, meaning and related channels
  of :mod:`.channels`.
* ``answers``: the meaning channel's answer-type route (:mod:`.answer_types`).
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields, replace

from ..store.model import Fact
from .index import RecallIndex

__all__ = ["Enhancements", "ALL_ENHANCEMENTS", "EnhancedIndex"]


@dataclass(frozen=True, slots=True)
class Enhancements:
    """Which improvements over Reasonix are on (all by default in ``enhanced`` mode)."""

    dictionary: bool = True
    """Translated channel: Chinese ↔ English through CC-CEDICT."""
    meaning: bool = True
    """Meaning channel: static embeddings shipped in a wheel."""
    answers: bool = True
    """The meaning channel's answer-type route: a question sharing no word with the store
    recalls the nearest fact holding the type of answer it asks for (needs ``meaning``)."""
    lexicon: bool = True
    """Related channel: English synonyms, derivations and one-step broader/narrower words
    through Open English WordNet (:mod:`reasonix_tui.core.lang.lexicon`)."""
    subjects: bool = True
    """One current fact per subject key."""
    topics: bool = True
    """Topic supersession and project-over-global overrides without shared keys."""
    supersedes: bool = True
    """Honour the ``supersedes`` frontmatter extension."""
    stale_flags: bool = True
    """Mark stale hits in the entry and rank them after current hits."""
    generic: bool = True
    """Acknowledgement-only turns stay silent."""
    focus: bool = True
    """Order among passed facts: a quoted literal held verbatim first, a partly matched
    title's uncovered share weighs a fact down (:mod:`.focus`)."""

    def without(self, name: str) -> Enhancements:
        """A copy with one improvement switched off (for ablations)."""
        return replace(self, **{name: False})

    @classmethod
    def names(cls) -> list[str]:
        """Field names, in declaration order."""
        return [f.name for f in fields(cls)]


ALL_ENHANCEMENTS = Enhancements()


@dataclass
class EnhancedIndex:
    """Per-snapshot structures for the adjustments (built once per index)."""

    superseded_by: dict[int, list[Fact]] = field(default_factory=dict)
    """Document → active facts whose ``supersedes`` names it."""
    doc_of: dict[int, int] = field(default_factory=dict)
    """``id(fact)`` → document number, for pool documents."""

    @classmethod
    def build(cls, index: RecallIndex) -> EnhancedIndex:
        out = cls()
        out.doc_of = {id(f): i for i, f in enumerate(index.docs)}
        for fact in index.all_facts:
            for ref in fact.supersedes:
                target = index.resolve_ref(ref)
                if target is None or target is fact:
                    continue
                doc = out.doc_of.get(id(target))
                if doc is not None:
                    out.superseded_by.setdefault(doc, []).append(fact)
        return out
