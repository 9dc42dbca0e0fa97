"""The near-duplicate pair search: each text's nearest neighbours by meaning, kept by content.

A pair of texts is a candidate when one is among the other's :data:`PER_FACT` nearest
neighbours (cosine of the meaning vectors at least :data:`MEANING_MIN`). That set is a
function of the texts alone — not of the order they arrived in — and
:class:`MeaningPairs` keeps it exactly while texts come and go:

* a **new** text's row (its nearest neighbours) is computed against every text, and the
  new text is offered to every other row whose last neighbour is less alike than it is
  (one comparison per row, vectorised), so an old text that gains a nearer neighbour has
  it;
* a **removed** text leaves the rows it was in, and those rows (only) are computed again
  (their next-nearest neighbour is not kept);
* from scratch, every pair is computed once (tiles of the upper triangle serve both rows).

Exactness: the vectors are kept at half precision (what the meaning channel stores),
their products are summed in double precision and rounded to single, so a similarity is
the same number whichever tile computed it; ties are broken by content key. A text's
neighbours are therefore the same whether the store was searched from scratch or patched
after any sequence of writes (tested). Memory stays bounded: the vectors are half
precision, a tile is :data:`BLOCK` × :data:`BLOCK`, and a row keeps :data:`PER_FACT`
neighbours.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from typing import Any

import numpy as np

from ..recall.memo import FACT_MEMO
from ..store.model import Fact

__all__ = ["MEANING_MIN", "PER_FACT", "BLOCK", "MeaningPairs", "Verdicts", "meaning_key"]

MEANING_MIN = 0.55
"""Cosine of the meaning vectors at or above which a pair is considered."""
BLOCK = 1024
"""Rows (and columns) of the similarity matrix computed at once."""
PER_FACT = 5
"""Nearest neighbours a text keeps, so a store of look-alike facts (generated, templated)
costs N·5 pairs, not N²."""

_TIE = 2.0**-46
"""Tie-break below single precision: for a similarity in [0.5, 1] (a threshold of at least
0.5) and fewer than 2²¹ texts, ``sim - (rank + 1) · _TIE`` is exact in double precision,
distinct per column and orders like ``(sim, -rank)``."""

_SLACK = 1e-3
"""How far below the threshold a single-precision product may fall for a pair that is at
it (its rounding error is below 1e-5 for unit vectors of a few hundred dimensions)."""

_CHUNK = 4096
"""Candidate pairs whose vectors are multiplied at once (two 8 MB double-precision blocks)."""

Row = tuple[tuple[float, bytes], ...]
"""A text's nearest neighbours: ``(similarity, content key)``, most alike first, ties by key."""


def _meaning_key(fact: Fact) -> bytes:
    from ..recall.fields import meaning_text

    return hashlib.blake2b(meaning_text(fact).encode("utf-8", "surrogatepass"), digest_size=16).digest()


def meaning_key(fact: Fact) -> bytes:
    """A digest of what the meaning channel reads of a fact (title, description, body)."""
    return FACT_MEMO.get(fact, "health-key", _meaning_key)  # type: ignore[no-any-return]  # the memo holds what _meaning_key returns


# a digest is cheaper made than looked up in the recall's memo on disk
FACT_MEMO.register_transient("health-key")


def _pair(a: bytes, b: bytes) -> tuple[bytes, bytes]:
    return (a, b) if a < b else (b, a)


class Verdicts(dict[tuple[bytes, bytes], Any]):
    """What the word test said per content-key pair (either order), knowing which pairs it
    turned down (:attr:`closed`, in sorted order), so a run skips them without a look."""

    def __init__(self, items: Any = ()) -> None:
        super().__init__(items)
        self.closed: set[tuple[bytes, bytes]] = {_pair(*k) for k, v in self.items() if v is None}

    def __setitem__(self, key: tuple[bytes, bytes], value: Any) -> None:
        super().__setitem__(key, value)
        if value is None:
            self.closed.add(_pair(*key))

    def forget(self, pair: tuple[bytes, bytes]) -> None:
        """Drop the verdicts of ``pair`` (sorted), both orders."""
        self.pop(pair, None)
        self.pop((pair[1], pair[0]), None)
        self.closed.discard(pair)


def _top(best: np.ndarray, best_at: np.ndarray, comp: np.ndarray, cols: np.ndarray) -> None:
    """Merge a dense tile's scores ``comp`` (rows × columns ``cols``) into the rows' best
    ``PER_FACT`` (``best`` scores, ``best_at`` columns; ``-inf``/``-1`` when empty), in place."""
    k = min(PER_FACT, comp.shape[1])
    if k < comp.shape[1]:
        pick = np.argpartition(-comp, k - 1, axis=1)[:, :k]
        vals = np.take_along_axis(comp, pick, axis=1)
        at = cols[pick]
    else:
        vals, at = comp, np.broadcast_to(cols, comp.shape)
    allv = np.concatenate([best, vals], axis=1)
    alla = np.concatenate([best_at, at], axis=1)
    keep = np.argpartition(-allv, PER_FACT - 1, axis=1)[:, :PER_FACT]
    best[:] = np.take_along_axis(allv, keep, axis=1)
    best_at[:] = np.take_along_axis(alla, keep, axis=1)


def _top_sparse(best: np.ndarray, best_at: np.ndarray, rows: np.ndarray, cols: np.ndarray, comp: np.ndarray) -> None:
    """Merge scattered scores (``rows``, ``cols``, ``comp``: global positions) into the
    rows' best ``PER_FACT``, in place."""
    k = PER_FACT
    u, inv = np.unique(rows, return_inverse=True)
    cand_r = np.concatenate([np.repeat(np.arange(len(u)), k), inv])
    cand_c = np.concatenate([best_at[u].ravel(), cols])
    cand_v = np.concatenate([best[u].ravel(), comp])
    order = np.lexsort((-cand_v, cand_r))
    starts = np.searchsorted(cand_r[order], np.arange(len(u)))
    take = order[(starts[:, None] + np.arange(k)).ravel()]
    best[u] = cand_v[take].reshape(-1, k)
    best_at[u] = cand_c[take].reshape(-1, k)


def _merge_tile(
    best: np.ndarray,
    best_at: np.ndarray,
    sims: np.ndarray,
    rows: np.ndarray,
    cols: np.ndarray,
    pen: np.ndarray,
    thr: float,
) -> None:
    """Merge a tile of similarities (``rows`` × ``cols``, global positions) into the rows'
    best: pairs below ``thr`` and a text's own column left out, ties broken by position
    (``pen``). Sparse tiles (the usual case) are merged entry by entry, dense ones by row."""
    mask = sims >= thr
    if rows[0] <= cols[-1] and cols[0] <= rows[-1]:
        mask &= rows[:, None] != cols[None, :]
    r, c = np.nonzero(mask)
    if not len(r):
        return
    if len(r) * 8 > mask.size:
        comp = np.where(mask, sims.astype(np.float64) - pen[cols], -np.inf)
        b, a = best[rows], best_at[rows]
        _top(b, a, comp, cols)
        best[rows], best_at[rows] = b, a
        return
    gc = cols[c]
    _top_sparse(best, best_at, rows[r], gc, sims[r, c].astype(np.float64) - pen[gc])


class MeaningPairs:
    """Pairs of texts where one is among the other's nearest neighbours by meaning (at
    least :data:`MEANING_MIN` alike), kept by content key."""

    def __init__(self, threshold: float = MEANING_MIN) -> None:
        self.threshold = threshold
        """The cosine a pair needs."""
        self.known: frozenset[bytes] = frozenset()
        """Content keys whose rows are known."""
        self.pairs: dict[tuple[bytes, bytes], float] = {}
        """``(key, key)`` (sorted) → cosine."""
        self.verdicts = Verdicts()
        """Content-key pair → what the word test said (see :func:`~.similar.near_duplicates`)."""
        self.computed = 0
        """Rows of new texts computed by the last :meth:`update`."""
        self.redone = 0
        """Rows of other texts computed again by the last :meth:`update` (they lost a neighbour)."""
        self.last_keys: list[bytes] = []
        """The content keys of the facts of the last :meth:`update`, in their order."""
        self._keys: list[bytes] = []
        self._at: dict[bytes, int] = {}
        self._matrix: np.ndarray | None = None
        self._rows: dict[bytes, Row] = {}
        self._refs: dict[tuple[bytes, bytes], int] = {}
        self._within: dict[bytes, set[bytes]] = {}

    # ------------------------------------------------------------------ rows and pairs

    def _set_row(self, key: bytes, row: Row) -> None:
        """Make ``row`` the neighbours of ``key``, keeping :attr:`pairs` the union of rows."""
        old = self._rows.get(key, ())
        if old == row:
            self._rows[key] = row
            return
        now = {k for _, k in row}
        for _, k in old:
            if k in now:
                continue
            self._within.get(k, set()).discard(key)
            p = _pair(key, k)
            n = self._refs.get(p, 0) - 1
            if n > 0:
                self._refs[p] = n
            else:
                self._refs.pop(p, None)
                self.pairs.pop(p, None)
                self.verdicts.forget(p)
        was = {k for _, k in old}
        for sim, k in row:
            if k in was:
                continue
            self._within.setdefault(k, set()).add(key)
            p = _pair(key, k)
            self._refs[p] = self._refs.get(p, 0) + 1
            self.pairs[p] = sim
        self._rows[key] = row

    def update(
        self, facts: Sequence[Fact], keys: Sequence[bytes] | None = None, *, open_only: bool = False
    ) -> list[tuple[int, int, float]]:
        """Pairs ``(i, j, cosine)`` of ``facts`` (``i < j``), computing rows only for texts
        new since the last update (and for the rows a removed text was in). With
        ``open_only``, only the pairs the word test did not turn down already."""
        keys = list(keys) if keys is not None else [meaning_key(f) for f in facts]
        self.last_keys = keys
        first: dict[bytes, int] = {}
        for i, k in enumerate(keys):
            first.setdefault(k, i)
        gone = [k for k in self._rows if k not in first]
        new = [k for k in first if k not in self._rows]
        redo: set[bytes] = set()
        for g in gone:
            for r in list(self._within.get(g, ())):
                if r in first:
                    self._set_row(r, tuple(x for x in self._rows[r] if x[1] != g))
                    redo.add(r)
            self._set_row(g, ())
            del self._rows[g]
            self._within.pop(g, None)
        self.computed, self.redone = len(new), len(redo)
        if new or gone:
            self._place(facts, first, new)
        if new or redo:
            self._compute(set(new), redo)
        self.known = frozenset(self._rows)
        return self._fact_pairs(keys, open_only)

    def rows(self) -> tuple[dict[bytes, int], np.ndarray] | None:
        """The vector matrix (half precision, the precision vectors are made at) and the
        row of each text by content key; ``None`` before any search."""
        if self._matrix is None or not self._keys:
            return None
        return self._at, self._matrix

    def _fact_pairs(self, keys: list[bytes], open_only: bool) -> list[tuple[int, int, float]]:
        where: dict[bytes, list[int]] = {}
        for i, k in enumerate(keys):
            where.setdefault(k, []).append(i)
        pairs = self.pairs
        out = []
        for ka, kb in pairs.keys() - self.verdicts.closed if open_only else pairs.keys():
            cos = pairs[(ka, kb)]
            for i in where.get(ka, ()):
                for j in where.get(kb, ()):
                    out.append((min(i, j), max(i, j), cos))
        out.sort()
        return out

    def _vectors(self, facts: Sequence[Fact], keys: Sequence[bytes]) -> np.ndarray:
        """The meaning vectors of ``facts`` (whose content keys are ``keys``)."""
        from ..recall.fields import fact_vectors

        return fact_vectors(list(facts))

    def _place(self, facts: Sequence[Fact], first: dict[bytes, int], new: list[bytes]) -> None:
        """The vector matrix of the current texts in key order: rows of texts kept are
        taken from the last one, only new texts are looked up."""
        keys = sorted(first)
        fresh = self._vectors([facts[first[k]] for k in new], new) if new else None
        dim = fresh.shape[1] if fresh is not None else (self._matrix.shape[1] if self._matrix is not None else 0)
        matrix = np.zeros((len(keys), dim), dtype=np.float16)
        at = {k: i for i, k in enumerate(keys)}
        if self._matrix is not None and self._keys:
            old = [(at[k], i) for i, k in enumerate(self._keys) if k in at]
            if old:
                to, frm = np.asarray(old, dtype=np.int64).T
                matrix[to] = self._matrix[frm]
        if fresh is not None and len(new):
            matrix[np.asarray([at[k] for k in new], dtype=np.int64)] = np.asarray(fresh, dtype=np.float32)
        self._keys, self._matrix, self._at = keys, matrix, at

    def _compute(self, new: set[bytes], redo: set[bytes]) -> None:
        """Compute the rows of ``new`` and ``redo`` texts, and offer each new text to the
        rows kept (where it is nearer than their last neighbour)."""
        keys, matrix = self._keys, self._matrix
        assert matrix is not None
        todo = np.asarray(sorted(self._at[k] for k in (*new, *redo)), dtype=np.int64)
        n = len(keys)
        pen = (np.arange(n, dtype=np.float64) + 1.0) * _TIE
        thr = self.threshold
        best = np.full((n, PER_FACT), -np.inf)
        best_at = np.full((n, PER_FACT), -1, dtype=np.int64)
        offers: dict[int, list[tuple[float, bytes]]] = {}
        if len(todo) == n:
            self._triangle(matrix, pen, best, best_at)
        else:
            # the rows kept take a new text nearer than their last neighbour
            rows_of, full = self._rows, PER_FACT
            kth = np.fromiter(
                (nb[-1][0] if len(nb := rows_of.get(k, ())) >= full else thr for k in keys), dtype=np.float64, count=n
            )
            kth[todo] = np.inf
            is_new = np.zeros(n, dtype=bool)
            is_new[[self._at[k] for k in new]] = True
            for s in range(0, len(todo), BLOCK):
                rows = todo[s : s + BLOCK]
                a = matrix[rows].astype(np.float64)
                for c in range(0, n, BLOCK):
                    cols = np.arange(c, min(c + BLOCK, n))
                    sims = (a @ matrix[c : c + BLOCK].astype(np.float64).T).astype(np.float32)
                    hit_r, hit_c = np.nonzero((sims >= kth[c : c + BLOCK]) & is_new[rows][:, None])
                    for r, col in zip(hit_r.tolist(), hit_c.tolist()):
                        offers.setdefault(c + col, []).append((float(sims[r, col]), keys[int(rows[r])]))
                    _merge_tile(best, best_at, sims, rows, cols, pen, thr)
        if len(todo) == n:
            self._build(dict(zip(keys, self._rows_from(best, best_at, pen, todo))))
        else:
            for i, row in zip(todo.tolist(), self._rows_from(best, best_at, pen, todo)):
                self._set_row(keys[i], row)
        for i, extra in offers.items():
            merged = sorted((*self._rows[keys[i]], *extra), key=lambda x: (-x[0], x[1]))[:PER_FACT]
            self._set_row(keys[i], tuple(merged))

    def _triangle(self, matrix: np.ndarray, pen: np.ndarray, best: np.ndarray, best_at: np.ndarray) -> None:
        """Every row from scratch: each tile of the upper triangle serves its rows and,
        transposed, its columns. A single-precision product finds the candidates; their
        similarities are then computed as everywhere else (double precision, rounded)."""
        n, thr = len(matrix), self.threshold
        for r0 in range(0, n, BLOCK):
            rows = np.arange(r0, min(r0 + BLOCK, n))
            a32 = matrix[r0 : r0 + BLOCK].astype(np.float32)
            a64 = a32.astype(np.float64)
            for c0 in range(r0, n, BLOCK):
                cols = np.arange(c0, min(c0 + BLOCK, n))
                b32 = matrix[c0 : c0 + BLOCK].astype(np.float32)
                r, c = np.nonzero(a32 @ b32.T >= thr - _SLACK)
                if not len(r):
                    continue
                if len(r) * 8 > len(rows) * len(cols):  # dense: the whole tile at once
                    sims = (a64 @ b32.astype(np.float64).T).astype(np.float32)
                    _merge_tile(best, best_at, sims, rows, cols, pen, thr)
                    if c0 != r0:
                        _merge_tile(best, best_at, sims.T, cols, rows, pen, thr)
                    continue
                exact = np.concatenate(
                    [
                        np.einsum("ij,ij->i", a64[r[i : i + _CHUNK]], b32[c[i : i + _CHUNK]].astype(np.float64))
                        for i in range(0, len(r), _CHUNK)
                    ]
                ).astype(np.float32)
                gr, gc = rows[r], cols[c]
                keep = (exact >= thr) & (gr != gc)
                gr, gc, near = gr[keep], gc[keep], exact[keep].astype(np.float64)
                if len(gr):
                    _top_sparse(best, best_at, gr, gc, near - pen[gc])
                    if c0 != r0:
                        _top_sparse(best, best_at, gc, gr, near - pen[gr])

    def _rows_from(self, best: np.ndarray, best_at: np.ndarray, pen: np.ndarray, idx: np.ndarray) -> list[Row]:
        """The rows at ``idx`` as ``(similarity, key)`` tuples, most alike first (ties by key)."""
        b, a = best[idx], best_at[idx]
        order = np.argsort(-b, axis=1, kind="stable")
        b, a = np.take_along_axis(b, order, axis=1), np.take_along_axis(a, order, axis=1)
        sims = (b + pen[np.maximum(a, 0)]).astype(np.float32)
        keys = self._keys
        return [
            tuple((s, keys[j]) for s, j in zip(srow, arow) if j >= 0) for srow, arow in zip(sims.tolist(), a.tolist())
        ]

    def _build(self, table: dict[bytes, Row]) -> None:
        """Take ``table`` (every text's row) and derive the pairs from it at once."""
        refs: dict[tuple[bytes, bytes], int] = {}
        pairs: dict[tuple[bytes, bytes], float] = {}
        within: dict[bytes, set[bytes]] = {}
        for key, row in table.items():
            for sim, k in row:
                within.setdefault(k, set()).add(key)
                p = (key, k) if key < k else (k, key)
                refs[p] = refs.get(p, 0) + 1
                pairs[p] = sim
        for p in [p for p in self.verdicts if _pair(*p) not in pairs]:
            self.verdicts.forget(_pair(*p))
        self._rows, self._refs, self._within, self.pairs = table, refs, within, pairs

    # ------------------------------------------------------------------ saved state

    def state(self) -> tuple[Any, ...]:
        """What :meth:`restore` takes (marshal-able): the content keys in order, the vectors
        at half precision, each text's neighbours by position, the word test's verdicts."""
        keys = self._keys
        at = {k: i for i, k in enumerate(keys)}
        rows = tuple(tuple((s, at[k]) for s, k in self._rows.get(key, ())) for key in keys)
        matrix = self._matrix if self._matrix is not None else np.zeros((0, 0), dtype=np.float16)
        return (
            self.threshold,
            tuple(keys),
            int(matrix.shape[1]),
            matrix.astype(np.float16).tobytes(),
            rows,
            tuple((a, b, v) for (a, b), v in self.verdicts.items()),
        )

    def restore(self, state: Any) -> bool:
        """Take the state a previous process saved; False (and nothing taken) when it is
        not one or was made with another threshold."""
        try:
            threshold, keys, dim, blob, rows, verdicts = state
            if float(threshold) != self.threshold or len(rows) != len(keys):
                return False
            keys = [bytes(k) for k in keys]
            matrix = np.frombuffer(blob, dtype=np.float16).reshape(len(keys), int(dim))
            table = {key: tuple((float(s), keys[i]) for s, i in row) for key, row in zip(keys, rows)}
            judged = Verdicts(((bytes(a), bytes(b)), v) for a, b, v in verdicts)
        except (TypeError, ValueError, IndexError):
            return False
        self._keys, self._matrix, self._at = keys, matrix, {k: i for i, k in enumerate(keys)}
        self.verdicts = judged
        self._build(table)
        self.known = frozenset(table)
        return True
