"""Which facts are current: the subject resolver and topic supersession.

Pure functions over facts, shared by recall, the session-start pinned block, explicit
search and the Context Center (and memory health).

* :func:`resolve_subjects` — among active facts that share a normalised ``subject_key``
  (in one scope or across scopes), one is current: a project fact over a global one, then
  the newest (``updated_at``, then revision, then id). Every other is superseded.
* :func:`topic_pairs` — pairs of facts about the same thing without a shared key: the
  name/title/description terms of each are covered by the other's text (idf-weighted,
  both ways), or the two mean the same (meaning channel) and share label terms, or the
  newer one *says* the older one's distinctive term was replaced ("X was shut down",
  "switched from X", "不再使用 X", "X 已弃用", "use Y, not X"). The newer fact is current
  (a project fact over a global one: an override). A pair with replacement language is
  ``stated``; a pair found by topic and dates alone is ``possible``.
* :func:`resolve` — both, as one :class:`Resolution` (computed once per snapshot by the
  callers' caches).
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .store.model import Fact, normalize_subject_key
from .topic_search import DECISIONS, IDS, IDS_LOCK, TopicStats, change_pairs, ids_of, intern_sorted

__all__ = ["Supersession", "Resolution", "resolve_subjects", "topic_pairs", "resolve", "TopicEvidence", "Given"]

_NO_TIME = -(1 << 62)


def _newness(f: Fact) -> tuple[int, int, str]:
    return (f.updated_at.ns if f.updated_at is not None else _NO_TIME, f.revision, f.id)


@dataclass(frozen=True, slots=True)
class Supersession:
    """``old`` is not current; ``current`` is."""

    old: Fact
    current: Fact
    kind: str
    """``subject`` (shared subject key), ``override`` (a project fact on the topic of a
    global one) or ``topic`` (same topic, newer fact)."""
    evidence: str
    """One line: why."""
    certain: bool = True
    """``False`` for a topic pair found by overlap and dates alone (``possibly superseded``)."""

    @property
    def label(self) -> str:
        """What a person reads: ``superseded by <id> (<ref>): <evidence>``."""
        lead = "superseded" if self.certain else "possibly superseded"
        return f"{lead} by {self.current.id} ({self.current.ref}): {self.evidence}"


@dataclass(frozen=True)
class Resolution:
    """Every supersession of a snapshot, by the superseded fact."""

    items: tuple[Supersession, ...] = ()
    _by_old: dict[int, Supersession] = field(default_factory=dict, repr=False, compare=False)

    def __post_init__(self) -> None:
        for s in self.items:
            prev = self._by_old.get(id(s.old))
            if (
                prev is None
                or (s.certain and not prev.certain)
                or (s.certain == prev.certain and _newness(s.current) > _newness(prev.current))
            ):
                self._by_old[id(s.old)] = s

    def of(self, fact: Fact) -> Supersession | None:
        """Why ``fact`` is not current, or ``None`` when it is."""
        s = self._by_old.get(id(fact))
        return s if s is not None and s.old is fact else None

    def current(self, fact: Fact) -> Fact:
        """The fact that is current for ``fact``'s subject or topic (following chains)."""
        seen = {id(fact)}
        while True:
            s = self.of(fact)
            if s is None or id(s.current) in seen:
                return fact
            fact = s.current
            seen.add(id(fact))

    def __len__(self) -> int:
        return len(self._by_old)


def resolve_subjects(facts: Sequence[Fact]) -> list[Supersession]:
    """One current fact per normalised subject key (project over global, then newest)."""
    groups: dict[str, list[Fact]] = {}
    for f in facts:
        key = normalize_subject_key(f.subject_key)
        if key:
            groups.setdefault(key, []).append(f)
    out: list[Supersession] = []
    for key, group in groups.items():
        if len(group) < 2:
            continue
        current = max(group, key=lambda f: (f.scope == "project", _newness(f)))
        for f in group:
            if f is current:
                continue
            if f.scope != current.scope:
                why = f"project fact on subject {key} overrides this global one"
            else:
                when = current.updated_at.rfc3339()[:10] if current.updated_at else "later"
                why = f"same subject {key}, newer ({when})"
            out.append(Supersession(f, current, "subject", why))
    return out


@dataclass(frozen=True, slots=True)
class TopicEvidence:
    """How strongly two facts are about the same thing (for calibration and traces)."""

    cover_old: float
    """idf-weighted share of the older (or global) fact's label terms found in the other."""
    cover_new: float
    """The same, the other way."""
    meaning: float
    """Cosine of the two meaning vectors (0 when the meaning channel is off)."""
    stated: str
    """The older fact's term a replacement clause of the newer one names (``""``: none)."""
    strong: bool
    """The clause says replaced/removed/switched (not only "not X")."""
    changed: bool = False
    """The newer fact states a replacement somewhere (naming nothing of the older one)."""
    has_meaning: bool = True
    """Whether :attr:`meaning` was measured (``False``: the meaning channel is off)."""
    core: float | None = None
    """The cosine with a fact that states a change read without its replacement words
    (:func:`~.recall.fields.topic_vector`; ``None``: neither states one, the same as
    :attr:`meaning`). A replacement verb pulls a fact toward anything about that verb
    ("迁移到 Kafka" glossed "migrate" toward an Alembic rule), and reading without it pulls
    it toward anything sharing the object ("switched from the old build cache" toward a
    build rule): a clause that names what it replaced is corroborated by either, meaning
    alone must hold with both."""

    adds_to: bool = False
    """Across scopes: the project fact names every strong name of the global one (its
    tools, :func:`~.tool_override.adds_to`) and no clause of it rejects one — it uses the
    default and adds to it ("Hypothesis tests run in the normal pytest run" beside "Python
    tests use pytest"), it does not replace it."""

    rejects_name: bool = True
    """Across scopes, for a rejection: the rejected word is one of the global fact's names
    (:func:`~.tool_override.names_term`: "npm", "black", "feat"), not a word of its prose —
    "built from changesets, not from commit messages" rejects a source of the changelog, not
    the commit-message rule."""

    def meaning_high(self) -> float:
        """The higher of the two cosines."""
        return self.meaning if self.core is None else max(self.meaning, self.core)

    def meaning_low(self) -> float:
        """The lower of the two cosines."""
        return self.meaning if self.core is None else min(self.meaning, self.core)


def _norm(key: str) -> str:
    return "w:" + key[2:] if key.startswith("t:") else key


def _topic_strings(fact: Fact) -> tuple[frozenset[str], frozenset[str], tuple[tuple[str, str, bool], ...], bool]:
    """``(keys, label keys, replacement-clause terms, states a change)`` of one fact: plain
    strings, so one-shot processes keep them in the per-fact memo on disk."""
    from .recall.fields import fact_fields

    ff = fact_fields(fact)
    cues = tuple((_norm(k), surface, strong) for clause, strong in ff.cues for k, surface in clause)
    keys = frozenset(_norm(k) for k in ff.keys())
    labels = frozenset(_norm(k) for k in ff.label_keys())
    return keys, labels, cues, any(strong for _, strong in ff.cues)


def _topic_sets(fact: Fact) -> tuple[Any, ...]:
    """``(keys, label keys, replacement-clause terms, states a change, key ids, label ids)``
    of one fact (memoised per fact object, so a snapshot after one write recomputes one;
    the ids are this process's own)."""
    from .recall.memo import FACT_MEMO

    keys, labels, cues, strong = FACT_MEMO.get_durable(fact, "topic-strings", _topic_strings)
    keys, labels = frozenset(keys), frozenset(labels)
    with IDS_LOCK:
        cue_ids = np.asarray([IDS.setdefault(c[0], len(IDS)) for c in cues], dtype=np.int64)
    return keys, labels, cues, bool(strong), ids_of(keys), ids_of(labels), cue_ids


def _meaning_vectors(facts: Sequence[Fact], meaning: bool, given: Given | None = None) -> np.ndarray | None:
    """The facts' meaning vectors (``given``'s when it holds them), or ``None`` when the
    channel is off or its model is missing."""
    if not meaning:
        return None
    if given is not None and given.vectors is not None:
        return given.vectors
    from .recall.fields import fact_vectors

    try:
        return fact_vectors(list(facts))
    except (ImportError, OSError, ValueError):
        return None


@dataclass(frozen=True)
class Given:
    """What a caller already holds of a snapshot's facts, handed to :func:`resolve` as
    arrays instead of through the per-fact memo (the health checker's kept values: a new
    process would otherwise build every fact's string sets and memo entries). The values
    are the very ones the memo would give, so the answer is the same."""

    sets: Sequence[tuple[Any, ...] | None]
    """Per fact (snapshot order), its :func:`_topic_sets` with the two string sets ``None``
    (made by :attr:`strings` for the few facts of candidate pairs), or ``None`` for a fact
    not held (the memo's path)."""
    strings: Callable[[int], tuple[frozenset[str], frozenset[str]]]
    """Fact ``i``'s terms and label terms, for a fact :attr:`sets` holds."""
    vectors: np.ndarray | None = None
    """Every fact's meaning vector (single precision, snapshot order), or ``None``."""


def _all_topic_sets(facts: Sequence[Fact], given: Given | None = None) -> list[tuple[Any, ...]]:
    """:func:`_topic_sets` of every fact (``given``'s where it holds them); the facts not
    memoised yet are interned in one batch (their strings from the per-fact memo on disk
    when it holds them)."""
    from .recall.memo import FACT_MEMO

    held = given.sets if given is not None else [None] * len(facts)
    missing = [f for f, x in zip(facts, held) if x is None and not FACT_MEMO.peek(f, "topic-sets")]
    if missing:
        strings = [FACT_MEMO.get_durable(f, "topic-strings", _topic_strings) for f in missing]
        keys = [frozenset(x[0]) for x in strings]
        labels = [frozenset(x[1]) for x in strings]
        key_ids = intern_sorted(keys)
        label_ids = intern_sorted(labels)
        cue_ids = intern_sorted([[c[0] for c in x[2]] for x in strings], sort=False)
        for i, (f, x) in enumerate(zip(missing, strings)):
            FACT_MEMO.put(f, "topic-sets", (keys[i], labels[i], x[2], bool(x[3]), key_ids[i], label_ids[i], cue_ids[i]))
    return [x if x is not None else FACT_MEMO.get(f, "topic-sets", _topic_sets) for f, x in zip(facts, held)]


def topic_pairs(
    facts: Sequence[Fact],
    *,
    meaning: bool = True,
    max_df: float = 0.2,
    max_postings: int = 50,
    given: Given | None = None,
) -> list[Supersession]:
    """Pairs of facts about the same topic; the newer (or the project) one is current.

    Candidates share a name/title/description term found in at most ``max_postings`` facts
    (and ``max_df`` of the store), or a term a replacement clause names; document
    frequencies are counted over per-fact arrays, so the cost of a snapshot is a sort.
    """
    from .recall.memo import FACT_MEMO

    if len(facts) < 2:
        return []
    # process-specific (interned ids, arrays): never to the disk layer, even in a process
    # that resolves without the recall channels loaded (``memory health``)
    FACT_MEMO.register_transient("topic-sets")
    sets = _all_topic_sets(facts, given)
    stats = TopicStats(sets, given.strings if given is not None else None)
    changed = np.asarray([bool(x[3]) for x in sets], dtype=bool)
    vecs = _meaning_vectors(facts, meaning, given)
    cand = stats.candidates(
        max_df, max_postings, changed=changed, vecs=vecs, change_meaning=CHANGE_MEANING, keep_all=DEBUG is not None
    )
    if vecs is not None and changed.any():
        found = change_pairs(
            changed, stats.all_ids, stats.owner, stats.df_of, vecs, max_df=CHANGE_MAX_DF, meaning=CHANGE_MEANING
        )
        cand = np.union1d(cand, found)
    flags = changed.tolist()

    def one(i: int, j: int) -> Supersession | None:
        return _topic_pair(facts, i, j, stats, vecs, flags)

    if DEBUG is not None:
        return [s for s in (one(c // len(facts), c % len(facts)) for c in cand.tolist()) if s is not None]
    rules: tuple[Any, ...] = (decide, SAME_TOPIC, CHANGE_MEANING, REJECTION_MEANING, OVERRIDE_COVER, OVERRIDE_MEANING)
    rules += (OVERRIDE_REJECT_COVER, OVERRIDE_REJECT_MEANING, max_df, max_postings)
    return DECISIONS.decide_all((vecs is not None, rules), facts, stats, cand, one)


def _topic_pair(
    facts: Sequence[Fact], i: int, j: int, stats: TopicStats, vecs: np.ndarray | None, changed: list[bool]
) -> Supersession | None:
    """Decide one candidate pair: which fact is older (or global), and whether the evidence
    says the newer one replaces it."""
    fact_i, fact_j = facts[i], facts[j]
    if fact_i.scope != fact_j.scope:
        old, new = (i, j) if fact_i.scope == "global" else (j, i)
        kind = "override"
    else:
        na, nb = _newness(fact_i)[:2], _newness(fact_j)[:2]
        if na == nb and changed[i] != changed[j]:
            # written at the same time (or undated): the fact that states a change is the later word
            old, new = (j, i) if changed[i] else (i, j)
        else:
            old, new = (i, j) if _newness(fact_i) < _newness(fact_j) else (j, i)
        kind = "topic"
    said, strong = stats.stated(new, old)
    ev = TopicEvidence(
        cover_old=stats.cover(old, new),
        cover_new=stats.cover(new, old),
        meaning=float(vecs[old] @ vecs[new]) if vecs is not None else 0.0,
        stated=said,
        strong=strong,
        changed=changed[new],
        has_meaning=vecs is not None,
        core=_core_meaning(facts, old, new, vecs, changed),
        adds_to=kind == "override" and not said and _adds_to(facts[old], facts[new]),
        rejects_name=not (kind == "override" and said and not strong) or _names_term(facts[old], said),
    )
    if DEBUG is not None:
        DEBUG.append((facts[old].id, facts[new].id, ev))
    decided = decide(ev, override=kind == "override")
    if decided is None:
        return None
    certain, why = decided
    if kind == "override":
        certain = True
        why = "a project fact on the same topic overrides this global default: " + why
    return Supersession(facts[old], facts[new], kind, why, certain)


def _names_term(fact: Fact, word: str) -> bool:
    from .tool_override import names_term

    return names_term(fact, word)


def _adds_to(default: Fact, local: Fact) -> bool:
    from .tool_override import adds_to

    return adds_to(default, local)


def _core_meaning(facts: Sequence[Fact], a: int, b: int, vecs: np.ndarray | None, changed: list[bool]) -> float | None:
    """:attr:`TopicEvidence.core` of a pair (``None`` when neither fact states a change)."""
    if vecs is None or not (changed[a] or changed[b]):
        return None
    from .recall.fields import topic_vector

    va = topic_vector(facts[a]) if changed[a] else vecs[a]
    vb = topic_vector(facts[b]) if changed[b] else vecs[b]
    return float(va @ vb)


DEBUG: list[tuple[str, str, TopicEvidence]] | None = None
"""Set to a list to collect every candidate pair's evidence (calibration)."""

SAME_TOPIC = 0.7
"""Both facts' label terms covered by the other at least this much (idf-weighted): one topic."""
CHANGE_MAX_DF = 3
"""The shared term of a change pair is found in at most this many facts."""
CHANGE_MEANING = 0.5
"""A fact that states a change ("we migrated to pnpm") possibly supersedes an older (or
equally dated) fact of the same scope that shares one of its terms when their meaning cosine
reaches this, whatever their labels say."""
REJECTION_MEANING = 0.4
"""A newer fact of the same scope that only *rejects* a word of the older one ("not X", "no
X", 别用 X) replaces it only when the two also mean something alike (meaning cosine at least
this, when the channel is on): rules are full of negations, and the rejected word may be
incidental to the older fact ("Logs carry no personal data" in a review checklist against
release notes that "log more context"). Calibration: "use pnpm, not npm", "black is not
installed", "don't run the full suite", "never deploy on Fridays" against the rule each
replaces score 0.51-0.81; unrelated rules of the demo home sharing a rejected word
0.22-0.27. A replacement verb ("was replaced", "switched from") needs nothing more."""
OVERRIDE_COVER = 0.35
OVERRIDE_MEANING = 0.5
"""A project fact overrides a global one when both covers reach ``OVERRIDE_COVER`` and the
meaning cosine reaches ``OVERRIDE_MEANING``."""
OVERRIDE_REJECT_COVER = 0.15
OVERRIDE_REJECT_MEANING = 0.3
"""A project fact that rejects a term only it and a global fact name overrides that global
fact when one cover reaches ``OVERRIDE_REJECT_COVER`` or the meaning cosine
``OVERRIDE_REJECT_MEANING`` (a rejection inside one scope needs 0.4 / 0.5)."""


def decide(ev: TopicEvidence, *, override: bool = False) -> tuple[bool, str] | None:
    """``(stated, why)`` when the evidence says the two facts are on one topic, else ``None``.

    ``stated`` is ``True`` when the newer fact's own words say the older one was replaced.
    """
    lo, hi = min(ev.cover_old, ev.cover_new), max(ev.cover_old, ev.cover_new)
    if ev.stated and ev.strong and (hi >= 0.15 or ev.meaning_high() >= 0.4):
        return True, f"it says {ev.stated} was replaced"
    if (
        ev.stated
        and not ev.strong
        and (hi >= 0.4 or ev.meaning >= 0.5)
        and (ev.meaning >= REJECTION_MEANING or not ev.has_meaning)
    ):
        return True, f"it says not {ev.stated}"
    if (
        override
        and ev.stated
        and not ev.strong
        and (
            (hi >= OVERRIDE_REJECT_COVER and (ev.rejects_name or ev.cover_new > 0))
            or ev.meaning >= OVERRIDE_REJECT_MEANING
        )
    ):
        # a project fact that rejects what only it and a global default name ("no feat:
        # prefixes in this repo", "别用 pip") is that default's local exception
        return True, f"it says not {ev.stated}"
    if override and ev.adds_to:
        return None
    if ev.changed and ev.cover_old >= 0.8 and ev.cover_new >= 0.3:
        return False, f"same topic (covers {ev.cover_old:.2f} of this fact's terms) and it states a change"
    if lo >= SAME_TOPIC:
        return False, f"same topic (term overlap {lo:.2f} both ways)"
    if ev.changed and not override and ev.meaning_low() >= CHANGE_MEANING:
        return False, f"same topic (meaning {ev.meaning_low():.2f}) and it states a change"
    if override and lo >= OVERRIDE_COVER and ev.meaning >= OVERRIDE_MEANING:
        return False, f"same topic (term overlap {lo:.2f}, meaning {ev.meaning:.2f})"
    return None


_CACHE: dict[tuple[tuple[int, ...], bool], tuple[tuple[Fact, ...], Resolution]] = {}
_CACHE_LOCK = threading.Lock()


def resolve(facts: Sequence[Fact], *, meaning: bool = True, given: Given | None = None) -> Resolution:
    """Subject resolution and topic pairs of one snapshot (the last few snapshots are
    cached by the identity of their fact objects, which are immutable). ``given``: what
    the caller holds of the facts (the same values, handed over as arrays)."""
    held = tuple(facts)
    key = (tuple(map(id, held)), meaning)
    with _CACHE_LOCK:
        hit = _CACHE.get(key)
    if hit is not None:
        return hit[1]
    items = resolve_subjects(held)
    settled = {id(s.old) for s in items}
    items += [s for s in topic_pairs(held, meaning=meaning, given=given) if id(s.old) not in settled]
    if meaning:
        from .tool_override import tool_overrides

        settled = {id(s.old) for s in items}
        found = tool_overrides(held, _meaning_vectors(held, meaning, given), settled)
        items += [Supersession(old, new, "override", why) for old, new, why in found]
    out = Resolution(tuple(items))
    with _CACHE_LOCK:
        _CACHE[key] = (held, out)
        while len(_CACHE) > 4:
            _CACHE.pop(next(iter(_CACHE)))
    return out
