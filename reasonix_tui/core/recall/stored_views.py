"""Read-on-use views of a stored recall index (:mod:`.disk_index`): facts, texts,
exclusions, the pool, BM25 over the stored term matrix, the enhanced index's mappings and
half-precision meaning vectors. A fact is read from its file only when a view hands it out.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING, Any, Protocol

import numpy as np

from ..store.precedence import Exclusion
from .memo import recall_text

if TYPE_CHECKING:
    from ..store.model import Fact
    from .term_matrix import TermMatrix

__all__ = [
    "FactLoader",
    "LazyFacts",
    "LazyTexts",
    "LazyExclusions",
    "StoredPool",
    "DocFreqs",
    "StoredBM25",
    "DocOf",
    "Successors",
    "HalfRows",
    "pinned_global",
]


class FactLoader(Protocol):
    """Facts by file number, read on first use."""

    def fact(self, f: int) -> Fact:
        """The fact of file ``f`` (the same object every time)."""
        ...

    def file_of_id(self, key: int) -> int | None:
        """The file number of a fact already read, by ``id(fact)``."""
        ...


class LazyFacts(Sequence["Fact"]):
    """Facts by position, read from their files on first use."""

    def __init__(self, loader: FactLoader, files: Sequence[int]) -> None:
        self._loader, self._files = loader, files

    def __len__(self) -> int:
        return len(self._files)

    def __getitem__(self, i: Any) -> Any:
        if isinstance(i, slice):
            return [self._loader.fact(f) for f in self._files[i]]
        return self._loader.fact(self._files[i])

    def __iter__(self) -> Iterator[Fact]:
        return (self._loader.fact(f) for f in self._files)


class LazyTexts(Sequence[str]):
    def __init__(self, docs: LazyFacts) -> None:
        self._docs = docs

    def __len__(self) -> int:
        return len(self._docs)

    def __getitem__(self, i: Any) -> Any:
        if isinstance(i, slice):
            return [recall_text(f) for f in self._docs[i]]
        return recall_text(self._docs[i])


class LazyExclusions(Sequence[Exclusion]):
    def __init__(self, loader: FactLoader, rows: list[tuple[int, str, int, str]]) -> None:
        self._loader, self._rows = loader, rows
        self._made: dict[int, Exclusion] = {}

    def __len__(self) -> int:
        return len(self._rows)

    def __getitem__(self, i: Any) -> Any:
        if isinstance(i, slice):
            return [self[j] for j in range(len(self._rows))[i]]
        got = self._made.get(i)
        if got is None:
            f, kind, by, key = self._rows[i]
            got = self._made[i] = Exclusion(self._loader.fact(f), kind, self._loader.fact(by) if by >= 0 else None, key)
        return got

    def pinned_global(self) -> list[Fact]:
        """As :func:`pinned_global`: only the pinned facts' files are read."""
        out = []
        for f, kind, _by, _key in self._rows:
            if kind == "pinned":
                fact = self._loader.fact(f)
                if fact.scope == "global":
                    out.append(fact)
        return out


def pinned_global(excluded: Sequence[Exclusion]) -> list[Fact]:
    """The pinned global facts among a pool's exclusions, in order. A stored index reads
    only those facts (not every left-out fact and the fact that shadows it: at 100k facts
    thousands of files)."""
    fast = getattr(excluded, "pinned_global", None)
    if fast is not None:
        return fast()  # type: ignore[no-any-return]  # LazyExclusions.pinned_global
    return [ex.fact for ex in excluded if ex.kind == "pinned" and ex.fact.scope == "global"]


class StoredPool:
    """:class:`~.pool.Pool`'s shape over lazily read facts."""

    def __init__(self, facts: LazyFacts, excluded: LazyExclusions) -> None:
        self.facts, self.excluded = facts, excluded


class DocFreqs:
    """``doc_freqs[doc]`` (rank-bm25's per-document term counts) from the CSR matrix."""

    def __init__(self, matrix: TermMatrix) -> None:
        self._m = matrix

    def __getitem__(self, doc: int) -> dict[str, int]:
        m = self._m
        a, b = int(m.offsets[doc]), int(m.offsets[doc + 1])
        return {m.terms[int(t)]: int(c) for t, c in zip(m.term_ids[a:b], m.counts[a:b])}


class StoredBM25:
    """The parts of :class:`~.index.PoolBM25` a recall uses, over a :class:`TermMatrix`
    (the same scores, in the same floating-point order)."""

    def __init__(self, matrix: TermMatrix) -> None:
        self._m = matrix
        self.size = len(matrix.names)
        self._freqs = DocFreqs(matrix)

    def matched_terms(self, doc: int, terms: Sequence[str]) -> list[str]:
        """As :meth:`~reasonix_tui.core.bm25.BM25Index.matched_terms`."""
        freqs = self._freqs[doc]
        return [t for t in terms if freqs.get(t, 0) > 0]

    def accumulate(self, terms: Sequence[str]) -> tuple[np.ndarray, np.ndarray, list[np.ndarray | None]]:
        """As :meth:`PoolBM25.accumulate`."""
        from .term_matrix import accumulated

        return accumulated(self.size, terms, self._m._contributions)  # noqa: SLF001


class DocOf:
    """``id(fact) → document`` for facts read through the loader."""

    def __init__(self, loader: FactLoader, doc_files: Sequence[int]) -> None:
        self._loader = loader
        self._doc_files = doc_files
        self._by_file: np.ndarray | None = None

    def get(self, key: int, default: Any = None) -> Any:
        f = self._loader.file_of_id(key)
        if f is None:
            return default
        if self._by_file is None:
            whole = getattr(self._doc_files, "array", None)  # a file list read from disk
            files = np.asarray(whole() if whole is not None else self._doc_files, dtype=np.int64)
            by_file = np.full(int(files.max()) + 1 if len(files) else 0, -1, dtype=np.int64)
            by_file[files] = np.arange(len(files), dtype=np.int64)
            self._by_file = by_file
        d = int(self._by_file[f]) if 0 <= f < len(self._by_file) else -1
        return d if d >= 0 else default


class Successors:
    """``document → facts whose supersedes names it`` (read on use)."""

    def __init__(self, loader: FactLoader, rows: dict[int, list[int]]) -> None:
        self._loader, self._rows = loader, rows

    def __len__(self) -> int:
        return len(self._rows)

    def get(self, doc: int, default: Any = None) -> Any:
        files = self._rows.get(doc)
        return default if files is None else [self._loader.fact(f) for f in files]


class HalfRows:
    """Meaning vectors kept at their disk precision (float16); rows are widened to float32
    when taken (the same values as widening every row first)."""

    def __init__(self, half: np.ndarray) -> None:
        self._half = half
        self.shape = half.shape

    def __len__(self) -> int:
        return len(self._half)

    def __getitem__(self, rows: Any) -> np.ndarray:
        return self._half[rows].astype(np.float32)  # type: ignore[no-any-return]  # numpy types astype loosely

    def __array__(self, dtype: Any = None, copy: Any = None) -> np.ndarray:
        return self._half.astype(dtype or np.float32)
