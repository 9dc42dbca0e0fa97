"""The meaning channel: static word embeddings shipped inside a wheel, no download, no GPU.

The model is WordLlama's ``l2_supercat`` 256-d token-embedding table and its tokenizer,
both inside the ``wordllama`` wheel (``weights/l2_supercat_256.safetensors``,
``tokenizers/l2_supercat_tokenizer_config.json``). They are read by path with
``safetensors`` and ``tokenizers``; WordLlama's own loader is not used (it looks for the
tokenizer in the wrong folder and falls back to downloading), so nothing here can reach
the network. A text's vector is the mean of its token vectors, L2-normalised; cosine
similarity is a dot product.

Loaded lazily, once per process (about 0.1-0.3 s, 32 MB as float32); a query's few texts
read only their tokens' rows.
"""

from __future__ import annotations

import importlib.util
import threading
from pathlib import Path
from typing import Any

import numpy as np

__all__ = ["MeaningModel", "model", "model_files", "DIM"]

DIM = 256
_LOCK = threading.Lock()
_MODEL: MeaningModel | None = None


def model_files() -> tuple[Path, Path]:
    """``(weights, tokenizer)`` inside the installed ``wordllama`` package (not imported)."""
    spec = importlib.util.find_spec("wordllama")
    if spec is None or not spec.submodule_search_locations:
        raise FileNotFoundError("wordllama is not installed")
    base = Path(list(spec.submodule_search_locations)[0])
    return base / "weights" / "l2_supercat_256.safetensors", base / "tokenizers" / "l2_supercat_tokenizer_config.json"


class MeaningModel:
    """Token-embedding table + tokenizer; :meth:`embed` gives unit vectors.

    The table is read whole (float32) on first use by a batch; the first few texts of a
    process (a one-shot command's query) read only their tokens' rows from the file, widened
    exactly as the whole table is."""

    FEW_TEXTS = 8
    """Texts a process embeds from rows before it reads the whole table."""

    SMALL_CHARS = 600
    """Characters a process tokenizes with cut-down tokenizers before it reads the whole
    one: a cut-down tokenizer costs about 7 ms per 100 characters and is built per call,
    the whole one about 70 ms once (a fact's text of 2,000 characters: 120 ms per call)."""

    def __init__(self, weights: Path, tokenizer: Path) -> None:
        from safetensors import safe_open

        self._weights = weights
        self._table: np.ndarray | None = None
        self._row_texts = 0
        self._small_chars = 0
        self._file: Any = safe_open(str(weights), framework="numpy")
        self._slice: Any = self._file.get_slice("embedding.weight")
        rows, dim = self._slice.get_shape()
        self.shape: tuple[int, int] = (int(rows), int(dim))
        """Vocabulary × :data:`DIM`."""
        self._tokenizer_file = tokenizer
        self._tokenizer: Any = None

    @property
    def tokenizer(self) -> Any:
        """The whole tokenizer (``tokenizers.Tokenizer``), read on first use."""
        if self._tokenizer is None:
            with _LOCK:
                if self._tokenizer is None:
                    from tokenizers import Tokenizer

                    tok = Tokenizer.from_file(str(self._tokenizer_file))
                    tok.no_padding()
                    tok.no_truncation()
                    self._tokenizer = tok
        return self._tokenizer

    def _encoder(self, texts: list[str]) -> Any:
        """A tokenizer for ``texts``: the whole one once it is loaded or when the texts are
        long, else one cut down to the tokens and merges the texts can use (see
        :func:`~.query_tokens.small_tokenizer`: the same tokens, without reading 32k
        tokens and 61k merges for a one-shot query) while the texts cut for are short in all."""
        chars = sum(map(len, texts))
        if (
            self._tokenizer is None
            and self._row_texts <= self.FEW_TEXTS
            and self._small_chars + chars <= self.SMALL_CHARS
        ):
            from .query_tokens import small_tokenizer

            self._small_chars += chars
            small = small_tokenizer(self._tokenizer_file, texts)
            if small is not None:
                return small
        return self.tokenizer

    @property
    def table(self) -> np.ndarray:
        """Vocabulary × :data:`DIM` token vectors (float32), read on first use."""
        if self._table is None:
            with _LOCK:
                if self._table is None:
                    from safetensors.numpy import load_file

                    table = load_file(str(self._weights))["embedding.weight"]
                    self._table = np.asarray(table, dtype=np.float32)
        return self._table

    def _rows(self, ids: np.ndarray) -> np.ndarray:
        if self._table is not None:
            whole: np.ndarray = self._table[ids]
            return whole
        with _LOCK:
            rows = [self._slice[int(i) : int(i) + 1] for i in ids]
        return np.asarray(np.concatenate(rows), dtype=np.float32)

    def embed(self, texts: list[str], max_tokens: int = 256) -> np.ndarray:
        """One L2-normalised float32 row per text (zeros for a text with no tokens)."""
        out = np.zeros((len(texts), self.shape[1]), dtype=np.float32)
        if not texts:
            return out
        vocab = self.shape[0]
        self._row_texts += len(texts)
        if self._row_texts > self.FEW_TEXTS:
            self.table  # noqa: B018 - past a few texts, the whole table once
        # Only the first ``max_tokens`` tokens count: tokenize a prefix that holds them (a
        # token is far shorter than 64 characters), not a whole megabyte paste.
        texts = [t[: max_tokens * 64] for t in texts]
        for i, enc in enumerate(self._encoder(texts).encode_batch(texts, add_special_tokens=False)):
            ids = np.asarray(enc.ids[:max_tokens], dtype=np.int64)
            ids = ids[(ids >= 0) & (ids < vocab)]
            if not len(ids):
                continue
            v = self._rows(ids).mean(axis=0)
            n = float(np.linalg.norm(v))
            if n > 0:
                out[i] = v / n
        return out


def model() -> MeaningModel:
    """The process-wide model, loaded on first use."""
    global _MODEL
    if _MODEL is None:
        with _LOCK:
            if _MODEL is None:
                _MODEL = MeaningModel(*model_files())
    return _MODEL
