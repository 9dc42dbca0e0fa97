"""A tokenizer cut down to a few short texts: the meaning model's tokens for a one-shot
query without building the whole tokenizer (32k tokens and 61k merges: about 65 ms).

The model's tokenizer (:mod:`.meaning`) is a byte-pair encoder over the whole text with
no pre-tokenizer: it prepends ``▁``, turns spaces into ``▁``, starts from single
characters (unknown ones as their UTF-8 bytes, ``<0x..>``) and applies merges in rank
order. Every symbol it can form is a substring of the normalised text, so a tokenizer
whose vocabulary keeps the tokens that are substrings of the texts (with their ids), the
byte tokens and the special tokens, and whose merges keep those that form such a
substring (in the same relative order), encodes those texts to exactly the same ids
(``tests/test_one_shot_loads.py`` compares them with the whole tokenizer).

The parts it is cut from — the configuration, and the vocabulary with the merges indexed
by the token they form — are derived once from the tokenizer file and kept sealed in the
language cache folder (:func:`.chinese.cache_dir`); without that folder they are derived
in the process (the whole tokenizer is then no slower). The vocabulary and merges are kept
in :data:`BUCKETS` buckets by a CRC-32 of the text, each marshalled apart: a query
unpacks only the buckets its substrings fall in (a few hundred small ones), not 32k
tokens and 61k merges (about 50 ms).
"""

from __future__ import annotations

import json
import marshal
import os
import threading
import zlib
from pathlib import Path
from typing import Any

from . import chinese

__all__ = ["small_tokenizer", "MAX_CHARS", "BUCKETS"]

MAX_CHARS = 2000
"""Texts longer than this in all (after normalising) use the whole tokenizer."""

_MAGIC = b"RXTTOKENS"
_VOCAB, _MERGES = "\u0000vocab", "\u0000merges"
_LOCK = threading.Lock()
_PARTS: dict[str, Any] = {}

BUCKETS = 4096
"""Buckets the vocabulary and the merges are kept in (by CRC-32 of the text)."""


def _bucket(text: str) -> int:
    return zlib.crc32(text.encode("utf-8", "surrogatepass")) % BUCKETS


def _buckets(vocab: dict[str, int], merges: list[str]) -> list[bytes]:
    """Per bucket, marshalled: text → (its id, or -1 when it is no token; the merges that
    form it, as ``(rank, "left right")``)."""
    table: dict[str, tuple[int, list[tuple[int, str]]]] = {t: (i, []) for t, i in vocab.items()}
    for rank, m in enumerate(merges):
        table.setdefault(m.replace(" ", ""), (-1, []))[1].append((rank, m))
    parts: list[dict[str, tuple[int, tuple[tuple[int, str], ...]]]] = [{} for _ in range(BUCKETS)]
    for text, (tid, formed) in table.items():
        parts[_bucket(text)][text] = (tid, tuple(formed))
    return [marshal.dumps(p, 4) for p in parts]


def _derive(tokenizer: Path) -> tuple[str, list[bytes], int, dict[str, int], list[str]]:
    """(the configuration as JSON with placeholders for the vocabulary and the merges, the
    vocabulary and merges in buckets (:func:`_buckets`), the longest token, the tokens
    always kept, the special tokens' texts)"""
    config = json.loads(tokenizer.read_text(encoding="utf-8"))
    model = config["model"]
    if model.get("type") != "BPE" or config.get("pre_tokenizer") is not None or model.get("dropout"):
        raise ValueError("not a plain byte-pair tokenizer")
    vocab: dict[str, int] = model["vocab"]
    if not all(isinstance(m, str) and m.count(" ") == 1 for m in model["merges"]):
        raise ValueError("merges not as 'left right' texts")
    buckets = _buckets(vocab, model["merges"])
    keep = {t: i for t, i in vocab.items() if t.startswith("<0x") and len(t) == 6}
    added = {t["content"]: t["id"] for t in config.get("added_tokens", [])}
    keep.update(added)
    longest = max(map(len, vocab))
    model["vocab"], model["merges"] = _VOCAB, _MERGES
    return json.dumps(config), buckets, longest, keep, sorted(added)


def _parts(tokenizer: Path) -> Any:
    key = str(tokenizer)
    got = _PARTS.get(key)
    if got is not None:
        return got
    with _LOCK:
        got = _PARTS.get(key)
        if got is None:
            from ..store.sealed import read_sealed, resource_stamp, source_stamp, write_sealed

            folder = chinese.cache_dir()
            stamp = source_stamp(__file__) + resource_stamp(key)
            path = os.path.join(folder, f"lang-tokens-{stamp}.marshal") if folder else ""
            got = read_sealed(path, _MAGIC) if path else None
            if got is None:
                try:
                    got = _derive(tokenizer)
                except (OSError, ValueError, KeyError, TypeError):
                    got = ()
                if path:
                    try:
                        write_sealed(path, _MAGIC, got)
                    except (OSError, ValueError):
                        pass
            _PARTS[key] = got
    return got


def small_tokenizer(tokenizer: Path, texts: list[str]) -> Any | None:
    """A ``tokenizers.Tokenizer`` that encodes ``texts`` as the one in ``tokenizer`` does,
    or ``None`` (long texts, a special token's text inside, parts not derivable)."""
    parts = _parts(tokenizer)
    if not parts:
        return None
    config, buckets, longest, keep, specials = parts
    norm = ["\u2581" + t.replace(" ", "\u2581") for t in texts if t]
    if sum(map(len, norm)) > MAX_CHARS or any(s in t for t in texts for s in specials):
        return None  # long texts; a special token's text splits a text before it is normalised
    seen: set[str] = set()
    for t in norm:
        n = len(t)
        for i in range(n):
            seen.update(t[i:j] for j in range(i + 1, min(n, i + longest) + 1))
    opened: dict[int, dict[str, tuple[int, tuple[tuple[int, str], ...]]]] = {}

    def entry(text: str) -> tuple[int, tuple[tuple[int, str], ...]] | None:
        b = _bucket(text)
        got = opened.get(b)
        if got is None:
            got = opened[b] = marshal.loads(buckets[b])
        return got.get(text)

    small = dict(keep)
    for piece in seen:
        found = entry(piece)
        if found is not None and found[0] >= 0:
            small[piece] = found[0]
    merges: list[tuple[int, str]] = []
    for piece in small:  # the merges that form a kept token (from two of its substrings)
        found = entry(piece)
        if found is not None:
            merges.extend(found[1])
    merges.sort()
    text = config.replace(json.dumps(_VOCAB), json.dumps(small)).replace(
        json.dumps(_MERGES), json.dumps([m for _r, m in merges])
    )
    from tokenizers import Tokenizer

    tok = Tokenizer.from_str(text)
    tok.no_padding()
    tok.no_truncation()
    return tok
