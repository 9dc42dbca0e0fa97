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

from collections.abc import Sequence
from typing import Any

import numpy as np

from ..compat.gostr import trim_space
from ..compat.gotime import DAY_NS, Timestamp
from ..compat.retrieval import make_snippet
from ..compat.tokenize import query_terms
from ..resolve import Resolution, resolve
from ..settings import Settings
from ..store.model import Fact
from .channels import ChannelIndex, ChannelScores, about_fact, score_query, title_keys
from .considered import Explained, Hit, best_first
from .enhance import ALL_ENHANCEMENTS, EnhancedIndex, Enhancements
from .exact_gate import strong_term
from .focus import focus_factor, query_literals
from .generic import is_generic_enhanced, is_generic_exact
from .index import EXPIRED, LABELS, NO_TIME, STALE, RecallIndex, get_index
from .render import Renderable, build_block
from .results import (
    DEFAULT_CHARS,
    DEFAULT_LIMIT,
    SUPPRESSED_BUDGET,
    SUPPRESSED_EMPTY,
    SUPPRESSED_GENERIC,
    SUPPRESSED_NO_TERMS,
    SUPPRESSED_REPLACED,
    SUPPRESSED_WEAK,
    RecallHit,
    RecallResult,
)
from .stored_views import pinned_global

__all__ = ["recall", "FLOOR", "MODES"]

FLOOR = 0.24
PROJECT_BOOST = 1.08
STALE_FACTOR = 0.92
STALE_DEMOTION = 0.7
"""Enhanced mode: a stale fact ranks as if its score were this much lower (and is flagged)."""
STALE_DEMOTION_VOLATILE = 0.4
"""The same for a fact its writer marked ``volatile`` (expected to change soon)."""
MODES = ("enhanced", "reasonix-exact")


def _limit(settings: Settings) -> int:
    return settings.recall_limit if settings.recall_limit > 0 else DEFAULT_LIMIT


def _budget(settings: Settings) -> int:
    return settings.recall_max_chars if settings.recall_max_chars > 0 else DEFAULT_CHARS


def recall(
    facts: Sequence[Fact],
    query: str,
    now: Timestamp | None = None,
    settings: Settings | None = None,
    *,
    mode: str | None = None,
    enhancements: Enhancements | None = None,
    index: RecallIndex | None = None,
    max_considered: int = 32,
    workspace: str = "",
) -> RecallResult:
    """Automatic recall for one user turn.

    ``facts`` are the active facts of both scopes (any order; ``ListAll`` order is
    restored). ``now`` defaults to the current time. ``mode`` overrides
    ``settings.recall_mode``; ``enhancements`` picks improvements in enhanced mode.
    A warm index for the same fact objects is reused across calls. ``workspace`` (the
    workspace directory's name) is accepted for callers; recall does not use it.
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
        return RecallResult(suppressed=SUPPRESSED_GENERIC, **base)  # type: ignore[arg-type]  # base holds RecallResult fields
    if enh is not None and enh.generic and is_generic_enhanced(q):
        return RecallResult(
            suppressed=SUPPRESSED_GENERIC,
            notes=("enhanced: acknowledgement-only turn",),
            **base,  # type: ignore[arg-type]  # base holds RecallResult fields
        )
    if settings.no_memory:
        return RecallResult(suppressed=SUPPRESSED_EMPTY, **base)  # type: ignore[arg-type]  # base holds RecallResult fields
    idx = index if index is not None else get_index(facts)
    if not idx.pool.facts:
        return RecallResult(suppressed=SUPPRESSED_EMPTY, **base)  # type: ignore[arg-type]  # base holds RecallResult fields
    terms = tuple(query_terms(q))
    base["pool_size"] = len(idx.pool.facts)
    if not terms:
        return RecallResult(suppressed=SUPPRESSED_NO_TERMS, **base)  # type: ignore[arg-type]  # base holds RecallResult fields
    base["terms"] = terms
    bm = idx.bm25
    if bm is None:
        return RecallResult(suppressed=SUPPRESSED_EMPTY, **base)  # type: ignore[arg-type]  # base holds RecallResult fields
    run = _Run(idx, q, terms, now, limit, budget, enh, max_considered)
    run.workspace = workspace
    return run.run(base)


class _Run(Explained):
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
        self.considered: dict[int, tuple[Any, ...]] = {}
        self.notes: list[str] = []
        self.workspace = ""
        self.cs: ChannelScores | None = None
        self.cidx: ChannelIndex | None = None
        self._override_notes: dict[int, str] = {}
        self._resolution: Resolution | None = None
        self._channel_cache: dict[int, list[str]] = {}
        self._matched_cache: dict[int, list[str]] = {}

    # -- scoring ---------------------------------------------------------------------
    def _exact(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Reasonix's scoring and gate: ``(candidates, their scores, passed the gate)``."""
        assert self.bm is not None
        score, count, per_term = self.bm.accumulate(self.terms)
        self.per_term = per_term
        single_strong = np.zeros(self.bm.size, dtype=bool)
        for term, docs in zip(self.terms, per_term):
            # a term's strength matters only where it is the document's one match
            if docs is None:
                continue
            if (count[docs] == 1).any() and strong_term(self.query, self.terms, term):
                single_strong[docs] = True
        passed = (count >= 2) | ((count == 1) & single_strong)
        cand = np.flatnonzero(count > 0)
        return cand, score[cand], passed[cand]

    def _channels(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Enhanced scoring: BM25F over the lexical, translated and meaning channels."""
        assert self.enh is not None
        self.cidx = self.idx.extra("channels", ChannelIndex.build)
        assert self.cidx is not None
        self.cs = score_query(
            self.cidx,
            self.query,
            dictionary=self.enh.dictionary,
            meaning=self.enh.meaning,
            answers=self.enh.answers,
            lexicon=self.enh.lexicon,
        )
        return self.cs.chosen()

    # -- the pipeline ----------------------------------------------------------------------
    def run(self, base: dict) -> RecallResult:  # type: ignore[type-arg]  # RecallResult fields
        sel, sel_scores, sel_codes = self._gate()
        if len(sel) == 0:
            return self._nothing(SUPPRESSED_WEAK, base)
        # Relative floor on the best score, then only the top window is put in order.
        top = float(sel_scores.max())
        kept = sel_scores >= top * FLOOR if top > 0 else np.ones(len(sel), dtype=bool)
        self._floor_cut = (sel[~kept], sel_scores[~kept], sel_codes[~kept])
        k_docs, k_scores, k_codes = sel[kept], sel_scores[kept], sel_codes[kept]
        n_kept = len(k_docs)
        # exact: the first ``limit`` facts are shown; enhanced: a few more, because its
        # adjustments may drop or reorder facts. The rest of the window is only explained.
        shown = self.limit if self.enh is None else 4 * self.limit + 8
        order = self._window_order(k_docs, k_scores, k_codes, max(shown, self.limit + self.max_considered))
        top_window = order[:shown]
        docs = self.idx.docs
        notes = self._override_notes
        hits = [
            Hit(doc, docs[doc], score, code, [], base=score, notes=[notes[doc]] if doc in notes else [])
            for doc, score, code in zip(
                k_docs[top_window].tolist(), k_scores[top_window].tolist(), k_codes[top_window].tolist()
            )
        ]
        if self.enh is not None:
            hits = self._adjust(hits)
            if not hits:
                return self._nothing(SUPPRESSED_REPLACED, base)
        omitted_by_limit = n_kept - min(shown, n_kept) + max(len(hits) - self.limit, 0)
        self._explain_cut(hits, (k_docs, k_scores, k_codes), order[shown:], (sel, sel_scores, sel_codes, kept, top))
        return self._block(hits[: self.limit], omitted_by_limit, base)

    def _gate(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Candidates that pass the gate, with multipliers and freshness (Go's order);
        the weak and expired ones are kept for the explanation."""
        idx = self.idx
        # the candidates (every fact that matched a query word, by document number), their
        # scores and whether they passed the gate
        cand, raw, passed = self._exact() if self.enh is None else self._channels()
        gate_ok = passed & (raw > 0)
        p_docs = cand[gate_ok]
        p_scores = raw[gate_ok]
        p_scores = np.where(idx.is_project[p_docs], p_scores * PROJECT_BOOST, p_scores)
        p_codes = idx.freshness_codes(p_docs, self.now.ns)
        p_scores = np.where(p_codes == STALE, p_scores * STALE_FACTOR, p_scores)
        alive = p_codes != EXPIRED
        self._weak = (cand[~gate_ok], raw[~gate_ok])
        self._expired = (p_docs[~alive], p_scores[~alive])
        self._n_candidates = len(cand)
        if self.enh is not None and self.enh.topics:
            return self._with_overrides(p_docs[alive], p_scores[alive], p_codes[alive])
        return p_docs[alive], p_scores[alive], p_codes[alive]

    def _with_overrides(
        self, sel: np.ndarray, scores: np.ndarray, codes: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """A pinned global default that a project fact overrides is left out of the pinned
        block; when the turn is about that default (two of its content words, or nearly all
        of the turn's words), the project fact is recalled in its place, first."""
        pinned = pinned_global(self.idx.pool.excluded)
        if not pinned:
            return sel, scores, codes
        res = self.resolution()
        eidx: EnhancedIndex = self.idx.extra("enhanced", EnhancedIndex.build)
        top = float(scores.max()) if len(scores) else 1.0
        found: dict[int, str] = {}
        for fact in pinned:
            sup = res.of(fact)
            if sup is None or sup.kind != "override" or not about_fact(self.query, fact):
                continue
            cdoc = eidx.doc_of.get(id(res.current(fact)))
            if cdoc is not None and self._code(cdoc) != EXPIRED:
                found.setdefault(cdoc, fact.name)
        if not found:
            return sel, scores, codes
        scores = scores.copy()
        extra = []
        for cdoc, name in found.items():
            self._override_notes[cdoc] = f"replaces {name} (override)"
            at = np.flatnonzero(sel == cdoc)
            if len(at):
                scores[at] = np.maximum(scores[at], top)
            else:
                extra.append(cdoc)
        if extra:
            add = np.asarray(extra, dtype=sel.dtype)
            sel = np.concatenate((sel, add))
            scores = np.concatenate((scores, np.full(len(add), top)))
            codes = np.concatenate((codes, self.idx.freshness_codes(add, self.now.ns)))
        self.notes.append("enhanced: a project fact that overrides a pinned global default was recalled for it")
        return sel, scores, codes

    def _window_order(self, k_docs: np.ndarray, k_scores: np.ndarray, k_codes: np.ndarray, window: int) -> np.ndarray:
        """Positions of the best ``window`` kept facts, in order. Sorting thousands of
        common-word matches would be wasted work; ties at the window edge are kept, so the
        first ``limit`` facts are exactly those of a full stable sort."""
        idx = self.idx
        primary = k_scores
        if self.enh is not None and self.enh.stale_flags:
            demote = np.where(idx.volatile[k_docs], STALE_DEMOTION_VOLATILE, STALE_DEMOTION)
            primary = np.where(k_codes == STALE, k_scores * demote, k_scores)  # stale weigh less
        n_kept = len(k_docs)
        if n_kept > window:
            kth = np.partition(-primary, window - 1)[window - 1]
            part = np.flatnonzero(-primary <= kth)
        else:
            part = np.arange(n_kept)
        return part[np.lexsort((idx.id_rank[k_docs[part]], -idx.updated[k_docs[part]], -primary[part]))]

    def _explain_cut(
        self,
        hits: list[Hit],
        kept_arrays: tuple[np.ndarray, np.ndarray, np.ndarray],
        rest: np.ndarray,
        selected: tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, float],
    ) -> None:
        """Explain the facts over the limit and below the floor, most interesting first, only
        as many as the trace keeps."""
        k_docs, k_scores, k_codes = kept_arrays
        sel, sel_scores, sel_codes, kept, top = selected
        over = f"over the limit of {self.limit} facts per turn"
        room = max(self.max_considered - self.limit - len(self.considered), 0)
        for h in hits[self.limit :][:room]:
            self._consider(h.doc, "limit", over, h.score, h)
        room = max(self.max_considered - self.limit - len(self.considered), 0)
        for i in rest[:room]:
            self._consider(int(k_docs[i]), "limit", over, float(k_scores[i]), code=int(k_codes[i]))
        room = max(self.max_considered - self.limit - len(self.considered), 0)
        if room:
            cut = np.flatnonzero(~kept)
            for i in best_first(cut, sel_scores[cut], room):
                self._consider(
                    int(sel[i]),
                    "floor",
                    f"score {sel_scores[i]:.3f} below {FLOOR} × top score {top:.3f}",
                    float(sel_scores[i]),
                    code=int(sel_codes[i]),
                )

    def _nothing(self, suppressed: str, base: dict) -> RecallResult:  # type: ignore[type-arg]  # RecallResult fields
        """A result with no block, explained."""
        self._explain_rejected()
        return RecallResult(
            suppressed=suppressed,
            considered=self._considered_list(),
            considered_total=self._considered_total(),
            notes=tuple(dict.fromkeys(self.notes)),
            **base,
        )

    def _block(self, hits: list[Hit], omitted_by_limit: int, base: dict) -> RecallResult:  # type: ignore[type-arg]  # RecallResult fields
        """Render the hits into the block within the budget and build the result."""
        snippet_runes = self.budget // self.limit
        if self.cs is not None and hits:
            self._channels_of(list(dict.fromkeys(h.doc for h in hits if h.doc not in self._channel_cache)))
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
                    snippet=make_snippet(self.idx.texts[h.doc], self.query, self.terms, snippet_runes),
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
                    channels=tuple(self._channel_list(h.doc, h)),
                )
            )
            detail = "in the block" + ("; " + "; ".join(h.notes) if h.notes else "")
            self._consider(h.doc, "selected", detail, h.score, h, rank=len(out_hits))
        self._explain_rejected()
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
    def _adjust(self, hits: list[Hit]) -> list[Hit]:
        """Supersession, subjects and topics, then the final order."""
        enh = self.enh
        assert enh is not None
        eidx: EnhancedIndex = self.idx.extra("enhanced", EnhancedIndex.build)
        if enh.focus:  # before supersession: a replaced fact still ranks after its replacement
            for h, factor in zip(hits, self._focus(hits)):
                h.score *= factor
        if enh.supersedes and eidx.superseded_by:
            hits = self._supersede(hits, eidx)
        if (enh.subjects or enh.topics) and hits:
            hits = self._resolved(hits, eidx)

        def rank(h: Hit) -> float:
            if not (enh.stale_flags and h.code == STALE):
                return h.score
            return h.score * (STALE_DEMOTION_VOLATILE if h.fact.volatility == "volatile" else STALE_DEMOTION)

        before = sorted(
            hits, key=lambda h: (-h.score, -(h.fact.updated_at.ns if h.fact.updated_at else NO_TIME), h.fact.id)
        )
        hits = sorted(before, key=lambda h: -rank(h))
        if [h.doc for h in hits] != [h.doc for h in before]:
            self.notes.append("enhanced: stale facts ranked after current ones")
            for i, h in enumerate(hits):
                if h.code == STALE and before.index(h) < i:
                    h.notes.append("ranked lower because it is stale")
        return hits

    def _focus(self, hits: list[Hit]) -> list[float]:
        """The order weight of each hit (:mod:`.focus`): a quoted literal held verbatim, how
        much of its title the turn's words cover (1.0 where it matched no word)."""
        if self.cs is None or not hits:
            return [1.0] * len(hits)
        units = self.cs.units
        literals = query_literals(self.query)
        out: list[float] = []
        for h, row in zip(hits, self.cs.alternatives_of(np.asarray([h.doc for h in hits], dtype=np.int64))):
            matched = {units[u].alternatives[a][0] for u, a in enumerate(row) if a >= 0}
            if not matched:
                out.append(1.0)
                continue
            f = h.fact
            text = "\n".join((f.title, f.description, f.keywords, f.body)) if literals else ""
            out.append(focus_factor(literals, text, title_keys(f), matched, stale=h.code == STALE))
        if any(x != 1.0 for x in out):
            self.notes.append("enhanced: ordered by quoted literals held verbatim and by title focus")
        return out

    def resolution(self) -> Resolution:
        """The snapshot's subject and topic resolution (computed once per index)."""
        if self._resolution is None:
            assert self.enh is not None
            meaning = self.enh.meaning
            self._resolution = self.idx.extra(
                "resolution" if meaning else "resolution-lexical", lambda idx: resolve(idx.all_facts, meaning=meaning)
            )
        return self._resolution

    def _resolved(self, hits: list[Hit], eidx: EnhancedIndex) -> list[Hit]:
        """Apply the resolver: a fact superseded on its subject (or shadowed by a project fact
        on its topic) gives way to the current one; an older fact on a newer one's topic is
        flagged and ranked after it."""
        assert self.enh is not None
        res = self.resolution()
        if not len(res):
            return hits
        by_doc = {h.doc: h for h in hits}
        out: list[Hit] = []
        for h in hits:
            sup = res.of(h.fact)
            if (
                sup is None
                or (sup.kind == "subject" and not self.enh.subjects)
                or (sup.kind != "subject" and not self.enh.topics)
            ):
                out.append(h)
                continue
            cur = res.current(h.fact)
            cdoc = eidx.doc_of.get(id(cur))
            alive = cdoc is not None and self._code(cdoc) != EXPIRED
            if sup.kind in ("subject", "override"):
                self._consider(h.doc, "superseded", sup.label, h.score, h)
                self.notes.append("enhanced: a superseded fact gave way to the current one on its subject")
                if alive:
                    assert cdoc is not None
                    existing = by_doc.get(cdoc)
                    if existing is not None:
                        existing.score = max(existing.score, h.score)
                        existing.notes.append(f"current for {h.fact.name}")
                    else:
                        new = Hit(
                            cdoc,
                            cur,
                            h.score,
                            self._code(cdoc),
                            [],
                            [f"replaces {h.fact.name} ({sup.kind})"],
                            base=h.score,
                        )
                        by_doc[cdoc] = new
                        out.append(new)
                continue
            lead = "outdated" if sup.certain else "possibly outdated"
            h.markers.append(f"{lead}: superseded by {cur.id} ({sup.evidence})")
            h.notes.append(sup.label)
            self.notes.append("enhanced: an older fact on the topic of a newer one was flagged and ranked after it")
            if alive:
                assert cdoc is not None
                existing = by_doc.get(cdoc)
                if existing is None:
                    new = Hit(
                        cdoc, cur, h.score * 1.001, self._code(cdoc), [], [f"newer than {h.fact.name}"], base=h.score
                    )
                    by_doc[cdoc] = new
                    out.append(new)
                elif existing.score <= h.score:
                    existing.score = h.score * 1.001
            out.append(h)
        return out

    def _code(self, doc: int) -> int:
        return self.idx.freshness_code(doc, self.now.ns)

    def _supersede(self, hits: list[Hit], eidx: EnhancedIndex) -> list[Hit]:
        """Replace every hit whose fact another fact ``supersedes`` by its newest successor."""
        for _ in range(5):
            changed = False
            by_doc = {h.doc: h for h in hits}
            out: list[Hit] = []
            for h in hits:
                sups = eidx.superseded_by.get(h.doc)
                if not sups:
                    out.append(h)
                    continue
                changed = True
                newest = max(sups, key=lambda f: (f.updated_at.ns if f.updated_at else 0, f.id))
                self.notes.append("enhanced: superseded facts replaced by their successors")
                self._consider(h.doc, "superseded", f"superseded by {newest.id} ({newest.ref})", h.score, h)
                sdoc = eidx.doc_of.get(id(newest))
                if sdoc is None or self._code(sdoc) == EXPIRED:
                    continue  # the successor is pinned, shadowed or expired: nothing to add
                existing = by_doc.get(sdoc)
                if existing is not None:
                    existing.score = max(existing.score, h.score)
                    existing.notes.append(f"replaces {h.fact.name}")
                else:
                    new = Hit(sdoc, newest, h.score, self._code(sdoc), [], [f"replaces {h.fact.name}"], base=h.score)
                    by_doc[sdoc] = new
                    out.append(new)
            hits = out
            if not changed:
                break
        return hits

    def _stale_marker(self, fact: Fact) -> str:
        start = fact.clock_start
        if start is None:
            return "stale: verify before relying on it"
        days = (self.now.ns - start.ns) // DAY_NS
        return f"stale: last updated {start.rfc3339()[:10]}, {days} days ago; verify before relying on it"

    # -- explanation -------------------------------------------------------------------
    def _matched(self, doc: int) -> list[str]:
        if self.cs is not None:
            if doc not in self._matched_cache:
                self._channels_of(self._explained_docs(doc))
            return list(self._matched_cache[doc])
        assert self.bm is not None
        return self.bm.matched_terms(doc, self.terms)

    def _reason(self, h: Hit) -> str:
        reason = "matched " + ", ".join(list(h.matched)[:4]) + "; " + h.fact.scope + " scope"
        if self.enh is None:
            return reason
        if not h.matched and self.cs is not None and h.doc == self.cs.alone:
            # no word matched: the meaning channel admitted it (by the turn's answer type or alone)
            how = f"answer type {self.cs.answer}" if self.cs.answer else "meaning alone"
            reason = f"{how}, no shared word; {h.fact.scope} scope"
        if h.notes:
            reason += "; " + "; ".join(dict.fromkeys(h.notes))
        return reason

    def _explained_docs(self, doc: int) -> list[int]:
        """``doc`` and the other documents the trace explains so far whose channel lists are
        not built yet (built together: one array gather per query word for all of them)."""
        docs = dict.fromkeys([doc, *(item[3] for item in self.considered.values() if item[3] is not None)])
        return [d for d in docs if d not in self._channel_cache]

    def _channels_of(self, docs: list[int]) -> None:
        """Build the channel lists and matched words of ``docs`` (enhanced mode)."""
        assert self.cs is not None and self.cidx is not None
        for doc, (chans, words) in zip(docs, self.cs.explain_of(self.cidx, docs)):
            self._channel_cache[doc] = chans
            self._matched_cache[doc] = words

    def _channel_list(self, doc: int | None, hit: Hit | None = None, fact: Fact | None = None) -> list[str]:
        """Enhanced mode: the channels behind a hit or candidate (lexical, translated, meaning,
        supersession, subject)."""
        if self.enh is None:
            return []
        out: list[str] = []
        if self.cs is not None and self.cidx is not None and doc is not None:
            if doc not in self._channel_cache:
                self._channels_of(self._explained_docs(doc))
            out = list(self._channel_cache[doc])
        fact = fact or (hit.fact if hit is not None else (self.idx.docs[doc] if doc is not None else None))
        if fact is not None and (self.enh.subjects or self.enh.topics):
            sup = self.resolution().of(fact)
            if sup is not None:
                out.append(("subject: " if sup.kind == "subject" else "supersession: ") + sup.label)
        if hit is not None:
            for note in hit.notes:
                if note.startswith(("replaces ", "newer than ", "current for ")):
                    out.append("supersession: " + note)
        return out
