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
* ``rivals``: a project hit whose title is a global hit's title plus only scoping words
  ("for payments", "in this repo", the workspace's own name) is the same subject.
* ``generic``: acknowledgement-only turns ("ok, continue", "好的，继续下一步") stay silent.
* ``dictionary`` / ``meaning``: the translated and meaning channels of :mod:`.channels`.
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields, replace

from ..store.model import Fact
from ..tokenize import tokens
from .index import RecallIndex

__all__ = ["Enhancements", "ALL_ENHANCEMENTS", "EnhancedIndex", "SCOPE_WORDS"]


@dataclass(frozen=True, slots=True)
class Enhancements:
    """Which improvements over Reasonix are on (all by default in ``enhanced`` mode)."""

    dictionary: bool = True
    """Translated channel: Chinese ↔ English through CC-CEDICT."""
    meaning: bool = True
    """Meaning channel: static embeddings shipped in a wheel."""
    subjects: bool = True
    """One current fact per subject key."""
    topics: bool = True
    """Topic supersession and project-over-global overrides without shared keys."""
    supersedes: bool = True
    """Honour the ``supersedes`` frontmatter extension."""
    stale_flags: bool = True
    """Mark stale hits in the entry and rank them after current hits."""
    rivals: bool = True
    """Project over global also when the project fact's title is the global title scoped to
    this project ("Code review policy" → "Code review policy for payments")."""
    generic: bool = True
    """Acknowledgement-only turns stay silent."""

    def without(self, name: str) -> Enhancements:
        """A copy with one improvement switched off (for ablations)."""
        return replace(self, **{name: False})

    @classmethod
    def names(cls) -> list[str]:
        """Field names, in declaration order."""
        return [f.name for f in fields(cls)]


ALL_ENHANCEMENTS = Enhancements()

SCOPE_WORDS = frozenset("for in this the our repo repository project here local workspace codebase app service".split())
"""Title words that only scope a fact to the project (``rivals``)."""
_TITLE_STOP = frozenset("the a an our we us it its this that these those of for and or in on with by from".split())


@dataclass
class EnhancedIndex:
    """Per-snapshot structures for the adjustments (built once per index)."""

    title_words: list[frozenset[str]] = field(default_factory=list)
    """Per document: title tokens without stopwords (for ``rivals``)."""
    superseded_by: dict[int, list[Fact]] = field(default_factory=dict)
    """Document → active facts whose ``supersedes`` names it."""
    doc_of: dict[int, int] = field(default_factory=dict)
    """``id(fact)`` → document number, for pool documents."""

    @classmethod
    def build(cls, index: RecallIndex) -> EnhancedIndex:
        out = cls()
        out.title_words = [
            frozenset(t for t in tokens(f.title or f.name.replace("-", " ")) if t not in _TITLE_STOP) for f in index.docs
        ]
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
