"""Automatic recall (store-format §6; Reasonix ``AutoRecall``), exact and enhanced.

:func:`recall` is a pure function of the facts, the query, the clock and the settings.
In ``reasonix-exact`` mode its block is byte-identical to Reasonix's. In ``enhanced``
mode (the default) the improvements of :mod:`.enhance` apply on top; the block keeps
Reasonix's layout.

Besides the block, the result explains itself: every candidate that matched a query
term is listed in :attr:`RecallResult.considered` with the decision taken about it
(selected, weak match, expired, below the floor, over the limit, over the budget,
pinned, suppressed by a project fact, superseded...).
"""

from __future__ import annotations

import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from ..gostr import fields, trim_space
from ..gotime import DAY_NS, Timestamp
from ..settings import Settings
from ..store.model import Fact
from ..tokenize import is_cjk, query_terms, tokens
from .enhance import (
    ALL_ENHANCEMENTS,
    SCOPE_WORDS,
    W_KEYWORD,
    W_LEXICON,
    W_SYMBOL,
    EnhancedIndex,
    Enhancements,
    QueryPlan,
    plan_query,
)
from .generic import is_generic_enhanced, is_generic_exact
from .index import EXPIRED, KP1, LABELS, STALE, RecallIndex, get_index
from .render import Renderable, build_block
from .snippet import make_snippet

__all__ = [
    "recall",
    "RecallResult",
    "RecallHit",
    "Considered",
    "DEFAULT_LIMIT",
    "DEFAULT_CHARS",
    "FLOOR",
    "MODES",
    "strong_term",
    "distinctive_term",
    "SUPPRESSED_GENERIC",
    "SUPPRESSED_EMPTY",
    "SUPPRESSED_NO_TERMS",
    "SUPPRESSED_WEAK",
    "SUPPRESSED_BUDGET",
]

DEFAULT_LIMIT = 4
DEFAULT_CHARS = 2400
FLOOR = 0.24
PROJECT_BOOST = 1.08
STALE_FACTOR = 0.92
MODES = ("enhanced", "reasonix-exact")

SUPPRESSED_GENERIC = "generic user turn"
SUPPRESSED_EMPTY = "memory store is empty"
SUPPRESSED_NO_TERMS = "no searchable terms"
SUPPRESSED_WEAK = "no sufficiently distinctive match"
SUPPRESSED_BUDGET = "matched facts exceeded recall budget"

_TRIM_CUTSET = "#()[]{}<>,;:'\"`!?=+*/\\|"


@dataclass(frozen=True, slots=True)
class RecallHit:
    """One fact in the block."""

    fact: Fact
    """The fact."""
    score: float
    """Score after multipliers (and, in enhanced mode, adjustments)."""
    freshness: str
    """``fresh``, ``current`` or ``stale``."""
    reason: str
    """``matched a, b; project scope`` (enhanced mode may append notes)."""
    snippet: str
    """The excerpt before clipping, redaction and escaping."""
    matched: tuple[str, ...] = ()
    """Query terms (or concepts) the fact matched."""
    markers: tuple[str, ...] = ()
    """Enhanced mode: visible flags put in front of the ``fact:`` line."""
    notes: tuple[str, ...] = ()
    """Enhanced mode: what changed relative to Reasonix for this hit."""
    base_score: float | None = None
    """Enhanced mode: the score before supersession/demotion adjustments."""


@dataclass(frozen=True, slots=True)
class Considered:
    """One candidate and what became of it."""

    fact: Fact
    """The candidate."""
    decision: str
    """``selected``, ``gate``, ``expired``, ``floor``, ``limit``, ``budget``, ``pinned``,
    ``suppressed``, ``superseded`` or ``zero-score``."""
    detail: str
    """Why, in one line."""
    score: float | None = None
    """Score after multipliers, when one was computed."""
    matched: tuple[str, ...] = ()
    """Matched query terms."""
    freshness: str = ""
    """Freshness label, when computed."""
    rank: int | None = None
    """Position in the block (1-based) for selected facts."""


@dataclass(frozen=True, slots=True)
class RecallResult:
    """``RecallResult`` plus the explanation the Context Center shows."""

    query: str
    """The trimmed query."""
    mode: str
    """``enhanced`` or ``reasonix-exact``."""
    hits: tuple[RecallHit, ...] = ()
    """Facts in the block, in order."""
    block: str = ""
    """The provider-visible text (empty when nothing was recalled)."""
    suppressed: str = ""
    """Why nothing was recalled, or ``""``."""
    omitted_by_limit: int = 0
    """Hits cut by the per-turn limit."""
    omitted_by_budget: int = 0
    """Hits cut by the character budget."""
    char_budget: int = DEFAULT_CHARS
    """The budget in runes."""
    used_chars: int = 0
    """Runes in the block."""
    limit: int = DEFAULT_LIMIT
    """The per-turn hit limit."""
    terms: tuple[str, ...] = ()
    """Query terms."""
    considered: tuple[Considered, ...] = ()
    """Candidates and decisions (capped; selected facts first)."""
    considered_total: int = 0
    """How many candidates there were before the cap."""
    pool_size: int = 0
    """Facts in the recall pool."""
    notes: tuple[str, ...] = ()
    """Enhanced mode: improvements that changed this result."""

    @property
    def omitted(self) -> int:
        """Hits omitted for either reason."""
        return self.omitted_by_limit + self.omitted_by_budget


def _simple_fold(ch: str) -> str:
    up = ch.upper()
    if len(up) == 1:
        low = up.lower()
        return low if len(low) == 1 else ch
    low = ch.lower()
    return low if len(low) == 1 else ch


def _equal_fold(a: str, b: str) -> bool:
    if a == b:
        return True
    if len(a) != len(b):
        return False
    return all(x == y or _simple_fold(x) == _simple_fold(y) for x, y in zip(a, b))


def _is_upper(ch: str) -> bool:
    return unicodedata.category(ch) == "Lu"


def distinctive_term(query: str, term: str) -> bool:
    """``distinctiveQueryTerm``: the query spells ``term`` with a digit, ``_`` or inner capital,
    or writes ``#term`` / ``term.``."""
    for fld in fields(query):
        trimmed = fld.strip(_TRIM_CUTSET)
        if not _equal_fold(trimmed, term):
            continue
        if any(unicodedata.category(c) == "Nd" for c in trimmed) or "_" in trimmed:
            return True
        if any(_is_upper(c) for c in trimmed[1:]):
            return True
    return ("#" + term) in query or (term + ".") in query


def strong_term(query: str, terms: Sequence[str], term: str) -> bool:
    """Whether one matched term alone passes ``strongRecallMatch``."""
    if len(terms) <= 2 and len(term) >= 6:
        return True
    return distinctive_term(query, term)


def _limit(settings: Settings) -> int:
    return settings.recall_limit if settings.recall_limit > 0 else DEFAULT_LIMIT


def _budget(settings: Settings) -> int:
    return settings.recall_max_chars if settings.recall_max_chars > 0 else DEFAULT_CHARS


@dataclass
class _Hit:
    doc: int
    fact: Fact
    score: float
    code: int
    matched: list[str]
    notes: list[str] = field(default_factory=list)
    markers: list[str] = field(default_factory=list)
    base: float = 0.0


def recall(
    facts: Sequence[Fact],
    query: str,
    now: Timestamp | None = None,
    settings: Settings | None = None,
    *,
    mode: str | None = None,
    enhancements: Enhancements | None = None,
    index: RecallIndex | None = None,
    max_considered: int = 64,
    workspace: str = "",
) -> RecallResult:
    """Automatic recall for one user turn.

    ``facts`` are the active facts of both scopes (any order; ``ListAll`` order is
    restored). ``now`` defaults to the current time. ``mode`` overrides
    ``settings.recall_mode``; ``enhancements`` picks improvements in enhanced mode.
    A warm index for the same fact objects is reused across calls. ``workspace`` (the
    workspace directory's name) lets enhanced mode recognise project-scoped titles.
    """
    settings = settings or Settings()
    mode = mode or settings.recall_mode
    if mode not in MODES:
        raise ValueError(f"recall mode must be one of {', '.join(MODES)}")
    enh = None if mode == "reasonix-exact" else (enhancements or ALL_ENHANCEMENTS)
    now = now or Timestamp.now()
    q = trim_space(query)
    limit = _limit(settings)
    budget = _budget(settings)
    base = {"query": q, "mode": mode, "char_budget": budget, "limit": limit}

    if is_generic_exact(q):
        return RecallResult(suppressed=SUPPRESSED_GENERIC, **base)  # type: ignore[arg-type]
    if enh is not None and enh.generic and is_generic_enhanced(q):
        return RecallResult(
            suppressed=SUPPRESSED_GENERIC,
            notes=("enhanced: acknowledgement-only turn",),
            **base,  # type: ignore[arg-type]
        )
    if settings.no_memory:
        return RecallResult(suppressed=SUPPRESSED_EMPTY, **base)  # type: ignore[arg-type]
    idx = index if index is not None else get_index(facts)
    if not idx.pool.facts:
        return RecallResult(suppressed=SUPPRESSED_EMPTY, **base)  # type: ignore[arg-type]
    terms = tuple(query_terms(q))
    base["pool_size"] = len(idx.pool.facts)
    if not terms:
        return RecallResult(suppressed=SUPPRESSED_NO_TERMS, **base)  # type: ignore[arg-type]
    base["terms"] = terms
    bm = idx.bm25
    if bm is None:
        return RecallResult(suppressed=SUPPRESSED_EMPTY, **base)  # type: ignore[arg-type]
    run = _Run(idx, q, terms, now, limit, budget, enh, max_considered)
    run.workspace = workspace
    return run.run(base)


class _Run:
    """One recall over a warm index."""

    def __init__(
        self,
        idx: RecallIndex,
        query: str,
        terms: tuple[str, ...],
        now: Timestamp,
        limit: int,
        budget: int,
        enh: Enhancements | None,
        max_considered: int,
    ) -> None:
        self.idx = idx
        self.bm = idx.bm25
        assert self.bm is not None
        self.query = query
        self.terms = terms
        self.now = now
        self.limit = limit
        self.budget = budget
        self.enh = enh
        self.max_considered = max_considered
        self.considered: dict[int, Considered] = {}
        self.notes: list[str] = []
        self.workspace = ""
        self.concept_labels: list[tuple[str, np.ndarray]] = []
        self.concept_notes: list[tuple[str, np.ndarray]] = []

    # -- scoring ---------------------------------------------------------------------
    def _exact(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        assert self.bm is not None
        score, count, per_term = self.bm.accumulate(self.terms)
        single_strong = np.zeros(self.bm.size, dtype=bool)
        for term, docs in zip(self.terms, per_term):
            if docs is not None and strong_term(self.query, self.terms, term):
                single_strong[docs] = True
        passed = (count >= 2) | ((count == 1) & single_strong)
        self.per_term = per_term
        return score, count, passed

    def _enhanced(
        self, score: np.ndarray, count: np.ndarray, passed: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Add the enhanced channels' concepts to the exact arrays.

        Returns ``(scores, candidate mask, gate mask)``.
        """
        enh = self.enh
        assert enh is not None and self.bm is not None
        if not (enh.symbols or enh.cjk_keywords or enh.lexicon):
            return score, count > 0, passed
        eidx: EnhancedIndex = self.idx.extra("enhanced", EnhancedIndex.build)
        plan: QueryPlan = plan_query(self.query, self.terms)
        bm = self.bm
        n = bm.size
        norm_part = KP1 / (1.0 + bm.norm)

        def term_mask(term: str) -> np.ndarray:
            m = np.zeros(n, dtype=bool)
            post = bm.postings(term)
            if post is not None:
                m[post[0]] = True
            return m

        def idf(mask: np.ndarray) -> float:
            df = int(mask.sum())
            return float(np.log(1.0 + (n - df + 0.5) / (df + 0.5))) if df else 0.0

        concepts = np.zeros(n, dtype=np.int32)
        strong = np.zeros(n, dtype=bool)
        always = np.zeros(n, dtype=bool)
        extra = np.zeros(n)
        short = plan.size <= 3

        # 1. exact terms, also reachable through identifier segments
        for qi, term in enumerate(self.terms):
            docs = self.per_term[qi]
            present = np.zeros(n, dtype=bool)
            if docs is not None:
                present[docs] = True
            if enh.symbols:
                segs = plan.term_segments[qi]
                via: np.ndarray | None = None
                if segs:
                    via = np.ones(n, dtype=bool)
                    for s in segs:
                        via &= eidx.mask(eidx.seg, s) | term_mask(s)
                elif len(term) > 1 and not is_cjk(term[0]):
                    via = eidx.mask(eidx.seg, term)
                if via is not None:
                    only = via & ~present
                    if only.any():
                        extra[only] += W_SYMBOL * idf(present | via) * norm_part[only]
                        self.concept_labels.append((term, only))
                        self.concept_notes.append((f"identifier segments of {term}", only))
                        present |= via
                        if segs:
                            strong |= only
            concepts += present
            if strong_term(self.query, self.terms, term):
                strong |= present
        # 2. CJK words in keywords (and, for short queries, in title/name/subject)
        if enh.cjk_keywords:
            for run in plan.cjk_runs:
                if len(run) == 1:
                    if not short:
                        continue
                    hit = eidx.mask(eidx.kw, "u:" + run)
                    concepts[hit & (concepts == 0)] += 1
                else:
                    kw = np.ones(n, dtype=bool)
                    lab = np.ones(n, dtype=bool)
                    for i in range(len(run) - 1):
                        kw &= eidx.mask(eidx.kw, "t:" + run[i : i + 2])
                        lab &= eidx.mask(eidx.label, run[i : i + 2])
                    hit = kw | lab if short else kw
                if hit.any():
                    always |= hit
                    extra[hit] += W_KEYWORD * idf(hit) * norm_part[hit]
                    self.concept_notes.append((f"keyword {run}", hit))
            if short:
                for term in self.terms:
                    hit = eidx.mask(eidx.kw, "e:" + term)
                    if is_cjk(term[0]):
                        hit |= eidx.mask(eidx.kw, "t:" + term)
                    hit &= ~always
                    if hit.any():
                        always |= hit
                        extra[hit] += W_KEYWORD * idf(hit) * norm_part[hit]
                        self.concept_notes.append((f"keyword {term}", hit))
        # 3. lexicon concepts
        if enh.lexicon:
            for lc in plan.lex:
                via = np.zeros(n, dtype=bool)
                label_via = np.zeros(n, dtype=bool)
                which: list[tuple[str, np.ndarray]] = []
                for form, toks in lc.alternatives:
                    m = np.ones(n, dtype=bool)
                    lm = np.ones(n, dtype=bool)
                    for t in toks:
                        m &= term_mask(t)
                        lm &= eidx.mask(eidx.label, t)
                    if m.any():
                        which.append((form, m & ~via))
                    via |= m
                    label_via |= lm & m
                covered = np.ones(n, dtype=bool)
                for t in lc.source_terms:
                    covered &= term_mask(t)
                only = via & ~covered
                if not only.any():
                    continue
                concepts += only
                extra[only] += W_LEXICON * idf(via) * norm_part[only]
                if short:
                    strong |= label_via & only
                for form, m in which:
                    mm = m & only
                    if mm.any():
                        self.concept_labels.append((f"{lc.source}→{form}", mm))
                        self.concept_notes.append((f"translated {lc.source}→{form}", mm))
        passed2 = (concepts >= 2) | ((concepts == 1) & strong) | always
        if (passed2 & ~passed).any():
            self.notes.append("enhanced: extra evidence admitted facts the exact gate rejected")
        return score + extra, (count > 0) | (concepts > 0) | always, passed | passed2

    # -- the pipeline ----------------------------------------------------------------------
    def run(self, base: dict) -> RecallResult:  # type: ignore[type-arg]
        idx, bm = self.idx, self.bm
        assert bm is not None
        score, count, passed = self._exact()
        if self.enh is not None:
            score, cand_mask, passed = self._enhanced(score, count, passed)
        else:
            cand_mask = count > 0
        cand = np.flatnonzero(cand_mask)
        cand_scores = score[cand]
        raw_positive = cand_scores > 0
        cand_scores = np.where(idx.is_project[cand], cand_scores * PROJECT_BOOST, cand_scores)
        codes = idx.freshness_codes(cand, self.now.ns)
        cand_scores = np.where(codes == STALE, cand_scores * STALE_FACTOR, cand_scores)
        ok = passed[cand] & raw_positive & (codes != EXPIRED)
        self._cand = (cand, cand_scores, codes, ok, passed[cand], raw_positive)
        sel = cand[ok]
        sel_scores = cand_scores[ok]
        sel_codes = codes[ok]

        if len(sel) == 0:
            self._explain_rejected(set())
            return RecallResult(
                suppressed=SUPPRESSED_WEAK,
                considered=self._considered_list(),
                considered_total=self._considered_total(),
                notes=tuple(dict.fromkeys(self.notes)),
                **base,
            )
        order = np.lexsort((idx.id_rank[sel], -idx.updated[sel], -sel_scores))
        sel, sel_scores, sel_codes = sel[order], sel_scores[order], sel_codes[order]
        top = float(sel_scores[0])
        keep = np.ones(len(sel), dtype=bool)
        if top > 0:
            keep = sel_scores >= top * FLOOR
            keep[0] = True
        hits = [
            _Hit(int(d), idx.docs[int(d)], float(s), int(c), [], base=float(s))
            for d, s, c in zip(sel[keep], sel_scores[keep], sel_codes[keep])
        ]
        cut = np.flatnonzero(~keep)
        self._floor_total = len(cut)
        for i in cut[: self.max_considered]:
            self._consider(
                int(sel[i]), "floor", f"score {sel_scores[i]:.3f} below {FLOOR} × top score {top:.3f}",
                float(sel_scores[i]), code=int(sel_codes[i]),
            )

        if self.enh is not None:
            weak = ~ok & (codes != EXPIRED)
            hits = self._adjust(
                hits,
                np.concatenate((sel[~keep], cand[weak])),
                np.concatenate((sel_scores[~keep], cand_scores[weak])),
            )

        omitted_by_limit = max(len(hits) - self.limit, 0)
        for h in hits[self.limit :][: self.max_considered]:
            self._consider(h.doc, "limit", f"over the limit of {self.limit} facts per turn", h.score, h)
        hits = hits[: self.limit]

        snippet_runes = self.budget // self.limit
        renderables: list[Renderable] = []
        for h in hits:
            h.matched = self._matched(h.doc)
            if self.enh is not None and h.code == STALE and self.enh.stale_flags:
                h.markers.append(self._stale_marker(h.fact))
            renderables.append(
                Renderable(
                    fact=h.fact,
                    score=h.score,
                    freshness=LABELS[h.code],
                    reason=self._reason(h),
                    snippet=make_snippet(idx.texts[h.doc], self.query, self.terms, snippet_runes),
                    marker="".join(f"[{m}] " for m in h.markers),
                )
            )
        chosen, block, omitted_by_budget = build_block(renderables, self.budget, omitted_by_limit)
        chosen_set = set(chosen)
        out_hits: list[RecallHit] = []
        for i, (h, r) in enumerate(zip(hits, renderables)):
            if i not in chosen_set:
                self._consider(h.doc, "budget", f"did not fit the {self.budget}-rune budget", h.score, h)
                continue
            out_hits.append(
                RecallHit(
                    fact=h.fact,
                    score=h.score,
                    freshness=r.freshness,
                    reason=r.reason,
                    snippet=r.snippet,
                    matched=tuple(h.matched),
                    markers=tuple(h.markers),
                    notes=tuple(h.notes),
                    base_score=h.base if self.enh is not None else None,
                )
            )
            detail = "in the block"
            if h.notes:
                detail += "; " + "; ".join(h.notes)
            self._consider(h.doc, "selected", detail, h.score, h, rank=len(out_hits))
        self._explain_rejected({h.doc for h in hits})
        return RecallResult(
            hits=tuple(out_hits),
            block=block,
            omitted_by_limit=omitted_by_limit,
            omitted_by_budget=omitted_by_budget,
            used_chars=len(block),
            suppressed="" if out_hits else SUPPRESSED_BUDGET,
            considered=self._considered_list(),
            considered_total=self._considered_total(),
            notes=tuple(dict.fromkeys(self.notes)),
            **base,
        )

    # -- enhanced adjustments ------------------------------------------------------------
    def _adjust(self, hits: list[_Hit], rejected: np.ndarray, rejected_scores: np.ndarray) -> list[_Hit]:
        enh = self.enh
        assert enh is not None
        idx = self.idx
        if enh.supersedes or enh.replacement_cues or enh.rivals:
            eidx: EnhancedIndex = idx.extra("enhanced", EnhancedIndex.build)
        if enh.supersedes and eidx.superseded_by:
            for _ in range(5):
                changed = False
                by_doc = {h.doc: h for h in hits}
                out: list[_Hit] = []
                for h in hits:
                    sups = eidx.superseded_by.get(h.doc)
                    if not sups:
                        out.append(h)
                        continue
                    newest = max(sups, key=lambda f: (f.updated_at.ns if f.updated_at else 0, f.id))
                    changed = True
                    self.notes.append("enhanced: superseded facts replaced by their successors")
                    self._consider(h.doc, "superseded", f"superseded by {newest.id} ({newest.ref})", h.score, h)
                    sdoc = eidx.doc_of.get(id(newest))
                    if sdoc is None:
                        continue  # the successor is pinned or shadowed: nothing to add
                    succ_code = int(idx.freshness_codes(np.asarray([sdoc]), self.now.ns)[0])
                    if succ_code == EXPIRED:
                        continue
                    existing = by_doc.get(sdoc)
                    if existing is not None:
                        existing.score = max(existing.score, h.score)
                        existing.notes.append(f"replaces {h.fact.name}")
                    else:
                        new = _Hit(sdoc, newest, h.score, succ_code, [], [f"replaces {h.fact.name}"], base=h.score)
                        by_doc[sdoc] = new
                        out.append(new)
                hits = out
                if not changed:
                    break
        if enh.rivals and len(hits) > 1:
            hits = self._rivals(hits, eidx)
        if enh.replacement_cues and hits:
            hits = self._replacement_cues(hits, eidx, rejected, rejected_scores)
        hits.sort(key=lambda h: (-h.score, -(h.fact.updated_at.ns if h.fact.updated_at else -(1 << 62)), h.fact.id))
        if enh.stale_flags and any(h.code == STALE for h in hits) and any(h.code != STALE for h in hits):
            before = [h.doc for h in hits]
            hits.sort(key=lambda h: h.code == STALE)
            if [h.doc for h in hits] != before:
                self.notes.append("enhanced: stale facts ranked after current ones")
                for h in hits:
                    if h.code == STALE:
                        h.notes.append("ranked after current facts because it is stale")
        return hits

    def _rivals(self, hits: list[_Hit], eidx: EnhancedIndex) -> list[_Hit]:
        """Drop a global hit when a project hit's title is its title plus scoping words only."""
        scoping = SCOPE_WORDS | frozenset(tokens(self.workspace))
        projects = [h for h in hits if h.fact.scope == "project"]
        out = []
        for h in hits:
            holder = None
            if h.fact.scope == "global":
                gw = eidx.title_words[h.doc]
                for p in projects:
                    pw = eidx.title_words[p.doc]
                    if len(gw) >= 2 and gw <= pw and (pw - gw) <= scoping:
                        holder = p
                        break
            if holder is None:
                out.append(h)
                continue
            words = ", ".join(sorted(eidx.title_words[h.doc]))
            self._consider(
                h.doc, "suppressed",
                f"same subject as project fact {holder.fact.id} ({holder.fact.ref}): title words {words}",
                h.score, h,
            )
            self.notes.append("enhanced: a project fact scoping a global title suppressed the global fact")
        return out

    def _replacement_cues(
        self, hits: list[_Hit], eidx: EnhancedIndex, rejected: np.ndarray, rejected_scores: np.ndarray
    ) -> list[_Hit]:
        """A newer fact that says it replaced what an older hit mentions outranks (and flags) it.

        The newer fact may come from the weak-match candidates: it matched a query term
        but not enough to pass the gate on its own.
        """
        assert self.bm is not None and self.bm._bm25 is not None
        freqs = self.bm._bm25.doc_freqs
        pool = list(hits)
        in_hits = {h.doc for h in hits}
        if len(rejected):
            for d, sc in zip(rejected[eidx.has_cue[rejected]], rejected_scores[eidx.has_cue[rejected]]):
                d = int(d)
                if d not in in_hits:
                    code = int(self.idx.freshness_codes(np.asarray([d]), self.now.ns)[0])
                    pool.append(_Hit(d, self.idx.docs[d], float(sc), code, [], base=float(sc)))

        def t_of(h: _Hit) -> int:
            return h.fact.updated_at.ns if h.fact.updated_at else 0

        added: dict[int, _Hit] = {}
        for a in pool:
            targets = eidx.cue_targets[a.doc]
            if not targets:
                continue
            for b in hits:
                if b.doc == a.doc:
                    continue
                phrases = [ph for ph in targets if all(t in freqs[b.doc] for t in ph)]
                if not phrases:
                    continue
                mutual = any(all(t in freqs[a.doc] for t in ph) for ph in eidx.cue_targets[b.doc])
                if t_of(a) < t_of(b) or (t_of(a) == t_of(b) and mutual):
                    continue
                what = ", ".join(sorted(" ".join(ph) for ph in phrases)[:3])
                if a.doc not in in_hits and a.doc not in added:
                    a.score = max(a.score, b.score * 1.001)
                    a.notes.append(f"says {what} in {b.fact.name} was replaced")
                    added[a.doc] = a
                elif a.score <= b.score:
                    if a.doc in added:
                        a.score = b.score * 1.001
                    else:
                        b.score = a.score * 0.999
                b.markers.append(f"possibly outdated: newer fact {a.fact.id} says {what} was replaced")
                b.notes.append(f"newer fact {a.fact.name} says {what} was replaced")
                self.notes.append("enhanced: a fact that says it replaced another now outranks it")
        return hits + list(added.values())

    def _stale_marker(self, fact: Fact) -> str:
        start = fact.clock_start
        if start is None:
            return "stale: verify before relying on it"
        days = (self.now.ns - start.ns) // DAY_NS
        return f"stale: last updated {start.rfc3339()[:10]}, {days} days ago; verify before relying on it"

    # -- explanation -------------------------------------------------------------------
    def _matched(self, doc: int) -> list[str]:
        assert self.bm is not None and self.bm._bm25 is not None
        freqs = self.bm._bm25.doc_freqs[doc]
        out = [t for t in self.terms if t in freqs]
        for label, mask in self.concept_labels:
            if mask[doc] and label not in out:
                out.append(label)
        return out

    def _reason(self, h: _Hit) -> str:
        matched = h.matched[:4]
        reason = "matched " + ", ".join(matched) + "; " + h.fact.scope + " scope"
        if self.enh is None:
            return reason
        extra = [note for note, mask in self.concept_notes if mask[h.doc]]
        extra += h.notes
        if extra:
            reason += "; " + "; ".join(dict.fromkeys(extra))
        return reason

    def _consider(
        self,
        doc: int,
        decision: str,
        detail: str,
        score: float | None,
        hit: _Hit | None = None,
        rank: int | None = None,
        code: int | None = None,
    ) -> None:
        fact = hit.fact if hit is not None else self.idx.docs[doc]
        key = id(fact)
        if decision != "selected" and key in self.considered and self.considered[key].decision == "superseded":
            return
        if hit is not None:
            code = hit.code
        self.considered[key] = Considered(
            fact=fact,
            decision=decision,
            detail=detail,
            score=score,
            matched=tuple(hit.matched) if hit is not None and hit.matched else tuple(self._matched(doc)),
            freshness=LABELS[code] if code is not None else "",
            rank=rank,
        )

    def _explain_rejected(self, handled: set[int]) -> None:
        """Record the best rejected candidates (weak match, expired) and matching excluded facts."""
        cand, scores, codes, ok, gate, positive = self._cand
        rejected = np.flatnonzero(~ok)
        self._rejected_total = len(rejected)
        room = max(self.max_considered - len(self.considered), 0)
        if len(rejected) > room:
            part = np.argpartition(-scores[rejected], room - 1)[:room] if room else rejected[:0]
            rejected = rejected[part]
        rejected = rejected[np.argsort(-scores[rejected], kind="stable")]
        for i in rejected:
            doc = int(cand[i])
            fact = self.idx.docs[doc]
            if doc in handled or id(fact) in self.considered:
                continue
            matched = self._matched(doc)
            if codes[i] == EXPIRED:
                exp = fact.expires_at
                decision, detail = "expired", (f"expired at {exp.rfc3339()}" if exp else "expired")
            elif not positive[i]:
                decision, detail = "zero-score", "score 0"
            else:
                decision = "gate"
                detail = (
                    f"weak match: only {', '.join(matched) or 'nothing'} matched; needs 2 terms, "
                    "a long term in a short query, or a distinctive term"
                )
            self.considered[id(fact)] = Considered(
                fact=fact, decision=decision, detail=detail, score=float(scores[i]),
                matched=tuple(matched), freshness=LABELS[int(codes[i])],
            )
        self._excluded = self.idx.excluded_matches(self.terms)
        for ex, matched in self._excluded[: max(self.max_considered - len(self.considered), 0)]:
            self.considered.setdefault(
                id(ex.fact),
                Considered(fact=ex.fact, decision=ex.kind, detail=ex.explanation, matched=tuple(matched)),
            )

    def _considered_total(self) -> int:
        return len(self._cand[0]) + len(getattr(self, "_excluded", ()))

    def _considered_list(self) -> tuple[Considered, ...]:
        order = {"selected": 0, "budget": 1, "limit": 2, "superseded": 3, "floor": 4, "expired": 5, "gate": 6,
                 "zero-score": 7, "pinned": 8, "suppressed": 9}
        items = sorted(
            self.considered.values(),
            key=lambda c: (order.get(c.decision, 10), c.rank or 0, -(c.score or 0.0)),
        )
        return tuple(items[: self.max_considered] if self.max_considered > 0 else items)


