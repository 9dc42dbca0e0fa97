"""The topic resolver's candidate search, bounded in memory and near-linear in time.

:func:`reasonix_tui.core.resolve.topic_pairs` decides, pair by pair, whether two facts are
about one topic. Deciding is Python work per pair, so which pairs reach it is what makes a
store of 100k facts cost seconds or minutes (and megabytes or gigabytes). This module finds
them with array operations only:

* **Candidates** are facts sharing a label term found in at most ``limit`` facts, or a term
  a replacement clause names (found in exactly two). Every pair is encoded as one int64
  (``a * n + b``, ``a < b``), generated term group by term group without a Python loop, in
  blocks of at most :data:`BLOCK_PAIRS` pairs.
* **A cheap bound** then drops, block by block, every pair that :func:`~reasonix_tui.core.
  resolve.decide` cannot accept whatever the dates say: no replacement clause of either
  fact names a term of the other (:meth:`TopicStats.cue_codes`), and the idf-weighted
  cover both ways (vectorised, the same measure as :meth:`TopicStats.cover`) stays under
  :data:`MIN_COVER`, and neither fact states a change with a meaning cosine reaching
  ``CHANGE_MEANING``. ``tests/test_topic_search.py`` checks the bound against ``decide``
  over a grid of evidence, and the survivors against the full pair set of the search before.
* **Change pairs** (a fact that states a change and one sharing its rare term, alike in
  meaning) compare vectors block by block.

Only the survivors — a few per fact — are decided in Python.
"""

from __future__ import annotations

import itertools
import threading
from collections.abc import Callable, Collection, Sequence
from typing import Any

import numpy as np

from . import bm25

__all__ = [
    "TopicStats",
    "DecisionMemo",
    "DECISIONS",
    "change_pairs",
    "BLOCK_PAIRS",
    "MIN_COVER",
    "IDS",
    "IDS_LOCK",
    "ids_of",
    "intern_sorted",
]

BLOCK_PAIRS = 1 << 16
"""Most candidate pairs held (and measured) at once."""
MIN_COVER = 0.3
"""A pair without a replacement clause between them and without a change statement alike
in meaning is decided only when both covers reach this (``decide`` accepts none below it)."""
_EPS = 1e-9
"""The vectorised covers sum in another order than :meth:`TopicStats.cover`: keep pairs
within this of a bound."""

IDS: dict[str, int] = {}
"""This process's term ids (topic terms interned as ints)."""
IDS_LOCK = threading.Lock()


def ids_of(keys: frozenset[str]) -> np.ndarray:
    """The sorted ids of ``keys`` (new terms get new ids)."""
    with IDS_LOCK:
        return np.asarray(sorted(IDS.setdefault(k, len(IDS)) for k in keys), dtype=np.int64)


def intern_sorted(groups: Sequence[Collection[str]], *, sort: bool = True) -> list[np.ndarray]:
    """The ids of many facts' terms at once (each fact's sorted with ``sort``): the strings
    are looked up in C-level passes, not one Python call per term."""
    lens = np.fromiter(map(len, groups), dtype=np.int64, count=len(groups))
    flat = list(itertools.chain.from_iterable(groups))
    with IDS_LOCK:
        for term in set(flat).difference(IDS):
            IDS[term] = len(IDS)
        ids = np.fromiter(map(IDS.__getitem__, flat), dtype=np.int64, count=len(flat))
    if sort and len(ids):
        owner = np.repeat(np.arange(len(groups), dtype=np.int64), lens)
        ids = ids[np.lexsort((ids, owner))]
    return np.split(ids, np.cumsum(lens)[:-1]) if len(groups) else []


def _partners(terms: np.ndarray) -> np.ndarray:
    """For each posting of ``terms`` (sorted), how many postings of the same term follow it."""
    m = len(terms)
    if not m:
        return np.zeros(0, dtype=np.int64)
    starts = np.flatnonzero(np.r_[True, terms[1:] != terms[:-1]])
    ends = np.r_[starts[1:], m]
    return np.repeat(ends, ends - starts) - np.arange(m, dtype=np.int64) - 1


def _pairs_from(firsts: np.ndarray, partners: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The posting positions ``(p, q)`` of every pair whose first posting is in ``firsts``
    (``q`` a later posting of the same term; no Python loop)."""
    counts = partners[firsts]
    total = int(counts.sum())
    first = np.repeat(firsts, counts)
    offset = np.arange(total, dtype=np.int64) - np.repeat(np.cumsum(counts) - counts, counts)
    return first, first + 1 + offset


def _group_pairs(terms: np.ndarray, owners: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Every pair ``(a, b)`` of owners sharing a term, ``a`` before ``b`` in the input
    order: ``terms`` sorted, owners ascending within a term."""
    partners = _partners(terms)
    first, second = _pairs_from(np.arange(len(terms), dtype=np.int64), partners)
    return owners[first], owners[second]


class TopicStats:
    """Document frequencies of one snapshot's topic terms, counted over per-fact arrays (the
    cost of a snapshot is a sort), and the pair measures built on them."""

    def __init__(
        self,
        sets: Sequence[tuple[Any, ...]],
        strings: Callable[[int], tuple[frozenset[str], frozenset[str]]] | None = None,
    ) -> None:
        """``sets[i]``: fact ``i``'s ``(terms, label terms, replacement-clause terms, states
        a change, term ids, label term ids, clause term ids)``. The two string sets may be
        ``None`` when ``strings(i)`` gives them: only the candidate pairs' facts read them."""
        n = len(sets)
        self.n = n
        self.sets = sets
        self._strings = strings
        self._made: dict[int, tuple[frozenset[str], frozenset[str]]] = {}
        key_ids = [x[4] for x in sets]
        lens = np.fromiter((len(a) for a in key_ids), dtype=np.int64, count=n)
        self.all_ids = np.concatenate(key_ids) if n else np.zeros(0, dtype=np.int64)
        self.owner = np.repeat(np.arange(n, dtype=np.int64), lens)
        self.uniq, self.counts = np.unique(self.all_ids, return_counts=True)
        lab_ids = [x[5] for x in sets]
        self.lab_len = np.fromiter((len(a) for a in lab_ids), dtype=np.int64, count=n)
        self.lab_all = np.concatenate(lab_ids) if n else np.zeros(0, dtype=np.int64)
        self.lab_start = np.cumsum(self.lab_len) - self.lab_len
        lab_owner = np.repeat(np.arange(n, dtype=np.int64), self.lab_len)
        self.lab_df = self.df_of(self.lab_all)
        self.lab_w = np.log(1.0 + (n - self.lab_df + 0.5) / (self.lab_df + 0.5))
        self.label_mass = np.bincount(lab_owner, weights=self.lab_w, minlength=n)
        # (owner, term) of every key posting as one sorted int64: owner-major, ids sorted per fact
        self._span = int(self.all_ids.max()) + 1 if len(self.all_ids) else 1
        self._key_codes = self.owner * self._span + self.all_ids
        # the replacement-clause terms found in exactly two facts (the only ones pairs are drawn from)
        cue_ids = [x[6] for x in sets]
        self._cue_len = np.fromiter((len(a) for a in cue_ids), dtype=np.int64, count=n)
        self._cue_start = np.cumsum(self._cue_len) - self._cue_len
        cue_all = np.concatenate(cue_ids) if n else np.zeros(0, dtype=np.int64)
        self._cue_owner = np.repeat(np.arange(n, dtype=np.int64), self._cue_len)
        if len(self.uniq) and len(cue_all):
            pos = np.minimum(self.uniq.searchsorted(cue_all), len(self.uniq) - 1)
            self._cue_two = (self.uniq[pos] == cue_all) & (self.counts[pos] == 2)
        else:
            self._cue_two = np.zeros(len(cue_all), dtype=bool)
        self._cue_all = cue_all

    def terms(self, i: int) -> tuple[frozenset[str], frozenset[str]]:
        """Fact ``i``'s terms and label terms (strings)."""
        x = self.sets[i]
        if x[0] is not None or self._strings is None:
            return x[0], x[1]
        made = self._made.get(i)
        if made is None:
            made = self._made[i] = self._strings(i)
        return made

    def df_of(self, ids: np.ndarray) -> np.ndarray:
        """Document frequencies of term ids present in the snapshot."""
        return self.counts[self.uniq.searchsorted(ids)]

    def weight(self, key: str) -> float:
        """The idf of a term in the snapshot (0 when unknown)."""
        kid = IDS.get(key)
        if kid is None:
            return 0.0
        pos = int(self.uniq.searchsorted(kid))
        d = int(self.counts[pos]) if pos < len(self.uniq) and int(self.uniq[pos]) == kid else 0
        return bm25.idf(self.n, d)

    def _pair_terms(self, max_df: float, max_postings: int) -> tuple[np.ndarray, np.ndarray]:
        """The terms pairs are drawn from, and the ``(fact, cue term)`` entries a replacement
        clause names (found in exactly two facts)."""
        limit = max(3, min(int(max_df * self.n), max_postings))
        lab_df = self.lab_df
        label_terms = self.lab_all[(lab_df >= 2) & (lab_df <= limit)]
        two = self._cue_two
        cues = self._cue_all[two]
        terms = np.unique(np.concatenate([label_terms, cues]))
        return terms, np.stack([self._cue_owner[two], cues])

    def cues(self, i: int) -> list[tuple[str, str, bool]]:
        """Fact ``i``'s replacement-clause terms found in exactly two facts."""
        start, count = int(self._cue_start[i]), int(self._cue_len[i])
        keep = self._cue_two[start : start + count].tolist()
        return [c for c, k in zip(self.sets[i][2], keep) if k]

    def candidates(
        self,
        max_df: float,
        max_postings: int,
        *,
        changed: np.ndarray | None = None,
        vecs: np.ndarray | None = None,
        change_meaning: float = 1.0,
        keep_all: bool = False,
    ) -> np.ndarray:
        """The candidate pairs as sorted codes ``a * n + b`` (``a < b``): facts sharing a label
        term that is not common in the store, or a term a replacement clause names; only
        those the cheap bound cannot rule out (all of them with ``keep_all``)."""
        terms, cue_entries = self._pair_terms(max_df, max_postings)
        if not len(terms):
            return np.zeros(0, dtype=np.int64)
        sel = np.isin(self.all_ids, terms)
        k_sel, f_sel = self.all_ids[sel], self.owner[sel]
        order = np.argsort(k_sel, kind="stable")
        k_sel, f_sel = k_sel[order], f_sel[order]
        cue_codes = self.cue_codes(cue_entries, k_sel, f_sel)
        df = self.df_of(k_sel)
        w_sel = np.log(1.0 + (self.n - df + 0.5) / (df + 0.5))
        # the label mass of each fact's label terms too common to be drawn from
        limit = max(3, min(int(max_df * self.n), max_postings))
        common = self.lab_df > limit
        self._common_mass = np.bincount(
            np.repeat(np.arange(self.n, dtype=np.int64), self.lab_len)[common],
            weights=self.lab_w[common],
            minlength=self.n,
        )
        # blocks of facts (every pair whose first fact is in the block, with all the terms
        # the two share), each at most about BLOCK_PAIRS pairs
        partners = _partners(k_sel)
        per_fact = np.cumsum(np.bincount(f_sel, weights=partners, minlength=self.n))
        kept: list[np.ndarray] = []
        lo = 0
        while lo < self.n:
            done = per_fact[lo - 1] if lo else 0.0
            hi = max(int(np.searchsorted(per_fact, done + BLOCK_PAIRS, side="right")), lo + 1)
            firsts = np.flatnonzero((f_sel >= lo) & (f_sel < hi) & (partners > 0))
            lo = hi
            if not len(firsts):
                continue
            p, q = _pairs_from(firsts, partners)
            codes, inverse = np.unique(f_sel[p] * self.n + f_sel[q], return_inverse=True)
            if not keep_all:
                shared = np.bincount(inverse.ravel(), weights=w_sel[p], minlength=len(codes))
                codes = self._bound(codes, shared, cue_codes, changed, vecs, change_meaning)
            kept.append(codes)
        return np.concatenate(kept) if kept else np.zeros(0, dtype=np.int64)

    def cue_codes(self, entries: np.ndarray, k_sel: np.ndarray, f_sel: np.ndarray) -> np.ndarray:
        """Codes of the pairs ``(fact, other holder)`` of every cue term: the only pairs
        :meth:`stated` can find a replacement clause in."""
        if not entries.shape[1]:
            return np.zeros(0, dtype=np.int64)
        fact, term = entries
        pos = np.searchsorted(k_sel, term)
        a = np.concatenate([fact, fact])
        b = np.concatenate([f_sel[pos], f_sel[pos + 1]])
        other = a != b
        a, b = a[other], b[other]
        return np.unique(np.minimum(a, b) * self.n + np.maximum(a, b))

    def covers(self, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        """:meth:`cover` of many pairs at once (the same terms and weights, summed in
        another order)."""
        if not len(a):
            return np.zeros(0)
        counts = self.lab_len[a]
        total = int(counts.sum())
        pair = np.repeat(np.arange(len(a), dtype=np.int64), counts)
        at = np.repeat(self.lab_start[a], counts) + (
            np.arange(total, dtype=np.int64) - np.repeat(np.cumsum(counts) - counts, counts)
        )
        probe = b[pair] * self._span + self.lab_all[at]
        pos = np.minimum(np.searchsorted(self._key_codes, probe), max(len(self._key_codes) - 1, 0))
        hit = self._key_codes[pos] == probe if len(self._key_codes) else np.zeros(total, dtype=bool)
        sums = np.bincount(pair[hit], weights=self.lab_w[at[hit]], minlength=len(a))
        mass = self.label_mass[a]
        out = np.zeros(len(a))
        np.divide(sums, mass, out=out, where=mass > 0)
        return out

    def _upper(self, a: np.ndarray, shared: np.ndarray) -> np.ndarray:
        """An upper bound of :meth:`cover` of ``(a, b)`` from the weight of the drawn terms
        the two share: only those and ``a``'s label terms too common to be drawn from can
        be found in ``b``."""
        mass = self.label_mass[a]
        out = np.zeros(len(a))
        np.divide(shared + self._common_mass[a], mass, out=out, where=mass > 0)
        return out

    def _bound(
        self,
        codes: np.ndarray,
        shared: np.ndarray,
        cue_codes: np.ndarray,
        changed: np.ndarray | None,
        vecs: np.ndarray | None,
        change_meaning: float,
    ) -> np.ndarray:
        """The pairs of ``codes`` that ``decide`` may accept (see the module docstring)."""
        a, b = codes // self.n, codes % self.n
        keep = np.isin(codes, cue_codes)
        rest = ~keep
        ra, rb = a[rest], b[rest]
        # the exact covers only where the cheap upper bound allows both to reach MIN_COVER
        ok = np.minimum(self._upper(ra, shared[rest]), self._upper(rb, shared[rest])) >= MIN_COVER - _EPS
        near = np.flatnonzero(ok)
        ok[near] = np.minimum(self.covers(ra[near], rb[near]), self.covers(rb[near], ra[near])) >= MIN_COVER - _EPS
        if changed is not None and vecs is not None:
            either = (changed[ra] | changed[rb]) & ~ok
            if either.any():
                ia, ib = ra[either], rb[either]
                sims = np.einsum("ij,ij->i", vecs[ia], vecs[ib])
                ok[np.flatnonzero(either)[sims >= change_meaning - 1e-6]] = True
        keep[np.flatnonzero(rest)[ok]] = True
        return codes[keep]

    def cover(self, a: int, b: int) -> float:
        """idf-weighted share of fact ``a``'s label terms found in fact ``b``."""
        total = float(self.label_mass[a])
        return sum(self.weight(k) for k in self.terms(a)[1] & self.terms(b)[0]) / total if total else 0.0

    def stated(self, new: int, old: int) -> tuple[str, bool]:
        """The older fact's term that a replacement clause of the newer one names — one of
        its label terms first, then the rarest ("the old Jenkins job": jenkins, not job) —
        (for a replacement verb, a term the newer fact is not itself about: "Build cache: we
        switched from the old build cache" does not say building was replaced; a rejection,
        "use pnpm, not npm", may name the term in the newer fact's description)."""
        cues = self.cues(new)
        if not cues:
            return "", False
        (old_keys, old_labels), new_labels = self.terms(old), self.terms(new)[1]
        found = [
            (strong, k in old_labels, self.weight(k), surface)
            for k, surface, strong in cues
            if k in old_keys and not (strong and k in new_labels)
        ]
        if not found:
            return "", False
        best = max(found)  # a strong cue first, then a term the older fact is about, then the rarest
        return best[3], best[0]


def change_pairs(
    changed: np.ndarray,
    all_ids: np.ndarray,
    owner: np.ndarray,
    df_of: Callable[[np.ndarray], np.ndarray],
    vecs: np.ndarray,
    *,
    max_df: int,
    meaning: float,
) -> np.ndarray:
    """Codes of the pairs of a fact that states a change ("we migrated to pnpm" — it may
    name only the new thing) with another sharing one of its rare terms (in any field, found
    in at most ``max_df`` facts) whose meaning cosine reaches ``meaning``. Vectorised;
    vectors are compared :data:`BLOCK_PAIRS` pairs at a time."""
    n = len(vecs)
    mine = np.unique(all_ids[changed[owner]])
    dfs = df_of(mine)
    keys = mine[(dfs >= 2) & (dfs <= max_df)]
    if not len(keys):
        return np.zeros(0, dtype=np.int64)
    sel = np.isin(all_ids, keys)
    k_sel, f_sel = all_ids[sel], owner[sel]
    order = np.lexsort((f_sel, k_sel))
    a, b = _group_pairs(k_sel[order], f_sel[order])
    keep = changed[a] | changed[b]
    code = np.unique(a[keep] * n + b[keep])
    out: list[np.ndarray] = []
    for s in range(0, len(code), BLOCK_PAIRS):
        block = code[s : s + BLOCK_PAIRS]
        lo, hi = block // n, block % n
        sims = np.einsum("ij,ij->i", vecs[lo], vecs[hi])
        out.append(block[sims >= meaning])
    return np.concatenate(out) if out else np.zeros(0, dtype=np.int64)


class DecisionMemo:
    """The pair decisions of the last snapshot resolved (per ``key``: meaning on or off, the
    rules in force), reused for a pair of the next snapshot only when nothing its evidence is
    made of can have moved.

    A pair's evidence depends on its two facts (their terms, dates, scope, meaning vector:
    the same fact object, the same values), on the number of facts (every idf) and on the
    document frequencies of the two facts' label and replacement-clause terms. So after a
    snapshot change a fact is *dirty* when it is new, or when the frequency of one of those
    terms moved; every pair with a dirty fact is decided again, every other pair's decision
    is reused. A change in the number of facts (a fact added or removed) moves every idf:
    then every pair is decided again (the candidate search itself is array work, the
    deciding is Python work per candidate pair).
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._last: dict[Any, tuple[int, dict[int, Any], np.ndarray, np.ndarray, dict[tuple[int, int], Any]]] = {}
        self.reused = 0
        """Decisions reused by the last call of :meth:`decide_all` (for tests and benchmarks)."""

    def decide_all(
        self,
        key: Any,
        facts: Sequence[Any],
        stats: TopicStats,
        codes: np.ndarray,
        decide: Callable[[int, int], Any],
    ) -> list[Any]:
        """``decide(i, j)`` of every pair code that is not ``None``, in code order; reusing
        the previous snapshot's decisions where they cannot have changed."""
        n = len(facts)
        with self._lock:
            last = self._last.get(key)
        dirty = self._dirty(last, facts, stats) if last is not None else None
        before = last[4] if last is not None else {}
        decisions: dict[tuple[int, int], Any] = {}
        out: list[Any] = []
        reused = 0
        for code in codes.tolist():
            i, j = code // n, code % n
            pair = (id(facts[i]), id(facts[j]))
            if dirty is not None and not dirty[i] and not dirty[j] and pair in before:
                result = before[pair]
                reused += 1
            else:
                result = decide(i, j)
            decisions[pair] = result
            if result is not None:
                out.append(result)
        with self._lock:
            self._last[key] = (n, {id(f): f for f in facts}, stats.uniq, stats.counts, decisions)
            while len(self._last) > 4:
                self._last.pop(next(iter(self._last)))
        self.reused = reused
        return out

    @staticmethod
    def _dirty(last: Any, facts: Sequence[Any], stats: TopicStats) -> np.ndarray | None:
        n, objects, uniq, counts, _ = last
        if n != len(facts):
            return None
        terms = np.union1d(uniq, stats.uniq)
        moved = terms[_df_at(uniq, counts, terms) != _df_at(stats.uniq, stats.counts, terms)]
        dirty = np.fromiter((objects.get(id(f)) is not f for f in facts), dtype=bool, count=len(facts))
        if len(moved):
            lab = np.isin(stats.lab_all, moved)
            dirty[np.repeat(np.arange(len(facts)), stats.lab_len)[lab]] = True
            dirty[stats._cue_owner[np.isin(stats._cue_all, moved)]] = True
        return dirty


def _df_at(uniq: np.ndarray, counts: np.ndarray, terms: np.ndarray) -> np.ndarray:
    """The document frequency of each of ``terms`` (0 for a term not in ``uniq``)."""
    if not len(uniq):
        return np.zeros(len(terms), dtype=np.int64)
    pos = np.minimum(uniq.searchsorted(terms), len(uniq) - 1)
    return np.where(uniq[pos] == terms, counts[pos], 0)


DECISIONS = DecisionMemo()
"""The process's pair decisions of the last snapshots."""
