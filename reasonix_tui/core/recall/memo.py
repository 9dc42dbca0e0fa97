"""Per-fact derived data kept while the same fact object lives, and on disk for one-shot
processes: :data:`FACT_MEMO`, which every index build and enhanced channel goes through.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import threading
import time
from collections.abc import Sequence
from typing import Any

from ..compat import tokenize as _tokenize
from ..store.model import Fact
from ..store.sealed import read_sealed, source_stamp, write_sealed

__all__ = ["FACT_MEMO", "FactMemo", "memo_path", "recall_text"]


def recall_text(fact: Fact) -> str:
    """The recall document: name, title, description, keywords and body joined by ``\\n``."""
    return "\n".join((fact.name, fact.title, fact.description, fact.keywords, fact.body))


class FactMemo:
    """Per-fact derived data (tokens, enhanced-channel features), reused across index
    builds while the *same* fact object is alive.

    A store keeps unchanged facts as the same frozen objects from one snapshot to the
    next (its parse cache), so after one write the next index build tokenizes one fact,
    not all of them. Entries hold their fact, so an ``id`` is never reused while cached;
    :meth:`retain` drops the facts of older snapshots.

    One-shot processes (``reasonix-tui recall``, a hook answered in-process) get new fact
    objects every time, so :meth:`attach` adds a disk layer keyed by the fact's *content*
    (its recall text and subject key): :meth:`save` writes what was computed, and the next
    process reads it instead of tokenizing again. A missing, corrupt or foreign file is
    ignored.

    The disk layer is a base file and **segments** beside it (``<file>.seg-<time>-<pid>``),
    each sealed and versioned like the base (magic, SHA-256, 0600): :meth:`save` writes
    only the entries computed since the layer was read, as a new segment; the base is
    written whole (the segments folded in, then removed) only once the segments hold many
    entries or are many files (:data:`SEGMENT_FILES`, :data:`SEGMENT_SHARE`). So a process
    that analysed one edited fact writes a few kilobytes, not the store's memo.
    """

    _MAGIC = b"RXTMEMO1"
    _LIMIT = 200_000
    """Most entries kept on disk (the newest)."""
    SEGMENT_FILES = 16
    """Fold the segments into the base once there would be more than this many."""
    SEGMENT_SHARE = 0.25
    """... or once they would hold more entries than this share of the base (at least 1,000)."""

    def __init__(self) -> None:
        self._data: dict[int, tuple[Fact, dict[str, Any]]] = {}
        """``id(fact)`` → (the fact, its values by kind)."""
        self._lock = threading.Lock()
        self._codecs: dict[str, tuple[Any, Any]] = {}
        self._disk_path = ""
        self._disk: dict[tuple[str, bytes], Any] = {}
        self._disk_dirty = False
        self._disk_loaded = True
        self._transient: set[str] = set()
        self._disk_new: dict[tuple[str, bytes], Any] = {}
        """Entries computed since the disk layer was read (the next segment)."""
        self._segments: list[str] = []
        """The segment files the disk layer was read from (and the entries they hold)."""
        self._segment_entries = 0
        self._base_entries = 0

    def register_codec(self, kind: str, encode: Any, decode: Any) -> None:
        """How values of ``kind`` go to disk (marshal-able) and back; kinds without a
        codec are stored as they are."""
        self._codecs[kind] = (encode, decode)

    def register_transient(self, kind: str) -> None:
        """Values of ``kind`` are kept in memory only (process-specific: interned ids...)."""
        self._transient.add(kind)

    def attach(self, path: str | os.PathLike[str]) -> None:
        """Use ``path`` as the disk layer (read once per path, on first use: a one-shot
        process that answers from the on-disk recall index never reads it)."""
        path = os.fspath(path)
        with self._lock:
            if path == self._disk_path:
                return
            self._disk_path, self._disk, self._disk_dirty, self._disk_loaded = path, {}, False, False
            self._disk_new, self._segments = {}, []

    def _disk_layer(self) -> dict[tuple[str, bytes], Any]:
        if not self._disk_loaded:
            with self._lock:
                if not self._disk_loaded and self._disk_path:
                    self._disk = _load_memo(self._disk_path, self._MAGIC)
                    self._base_entries = len(self._disk)
                    self._segments, self._segment_entries = _load_segments(self._disk_path, self._MAGIC, self._disk)
                self._disk_loaded = True
        return self._disk

    def get(self, fact: Fact, kind: str, compute: Any) -> Any:
        """``compute(fact)``, or what it returned for this very fact object (or, with a
        disk layer, for a fact with the same content) before."""
        hit = self._data.get(id(fact))
        if hit is not None and hit[0] is fact and kind in hit[1]:
            return hit[1][kind]
        codec = self._codecs.get(kind)
        disk_key = None
        value: Any = None
        if self._disk_path and kind not in self._transient:
            disk_key = (kind, _content_key(fact))
            stored = self._disk_layer().get(disk_key)
            if stored is not None:
                try:
                    value = codec[1](stored) if codec else stored
                except (TypeError, ValueError):
                    value = None
        if value is None:
            value = compute(fact)
            if disk_key is not None:
                try:
                    encoded = codec[0](value) if codec else value
                except (TypeError, ValueError):
                    encoded = None
                if encoded is not None:
                    with self._lock:
                        self._disk[disk_key] = self._disk_new[disk_key] = encoded
                        self._disk_dirty = True
        with self._lock:
            entry = self._data.get(id(fact))
            if entry is None or entry[0] is not fact:
                entry = self._data[id(fact)] = (fact, {})
            entry[1][kind] = value
        return value

    def get_durable(self, fact: Fact, kind: str, compute: Any) -> Any:
        """``compute(fact)`` through the disk layer only (by content), not kept in memory:
        plain values that process-local ones are derived from (those are memoised with
        :meth:`get`). Without a disk layer, just ``compute(fact)``."""
        hit = self._data.get(id(fact))
        if hit is not None and hit[0] is fact and kind in hit[1]:
            return hit[1][kind]  # seeded (:meth:`seed`)
        if not self._disk_path:
            return compute(fact)
        disk_key = (kind, _content_key(fact))
        stored = self._disk_layer().get(disk_key)
        if stored is not None:
            return stored
        value = compute(fact)
        with self._lock:
            self._disk[disk_key] = self._disk_new[disk_key] = value
            self._disk_dirty = True
        return value

    def peek(self, fact: Fact, kind: str) -> bool:
        """Whether a value of ``kind`` for ``fact`` is memoised (in memory or on disk)."""
        hit = self._data.get(id(fact))
        if hit is not None and hit[0] is fact and kind in hit[1]:
            return True
        if not self._disk_path or kind in self._transient:
            return False
        return (kind, _content_key(fact)) in self._disk_layer()

    def seed(self, fact: Fact, kind: str, value: Any) -> None:
        """Hold ``value`` as ``kind`` of this fact object, in memory only (neither the disk
        layer nor :meth:`save` sees it): values a patched on-disk index already keeps."""
        with self._lock:
            entry = self._data.get(id(fact))
            if entry is None or entry[0] is not fact:
                entry = self._data[id(fact)] = (fact, {})
            entry[1][kind] = value

    def put(self, fact: Fact, kind: str, value: Any) -> None:
        """Memoise ``value`` as ``kind`` of ``fact`` (computed in a batch elsewhere)."""
        self.get(fact, kind, lambda _f: value)

    def save(self) -> bool:
        """Write what was computed since the disk layer was read, as a new segment (or the
        whole layer, segments folded in, when they grew large); best effort."""
        with self._lock:
            if not self._disk_path or not self._disk_dirty:
                return False
            path = self._disk_path
            segments = len(self._segments) + 1
            entries = self._segment_entries + len(self._disk_new)
            whole = (
                not self._base_entries
                or segments > self.SEGMENT_FILES
                or entries > max(1000, self.SEGMENT_SHARE * self._base_entries)
            )
            if not whole and not self._disk_new:
                self._disk_dirty = False
                return False
            if whole:
                items: dict[tuple[str, bytes], Any] = dict(list(self._disk.items())[-self._LIMIT :])
                done = list(self._segments)
            else:
                items, done = dict(self._disk_new), []
            self._disk_dirty = False
        try:
            if whole:
                _save_memo(path, self._MAGIC, items)
                for seg in done:
                    with contextlib.suppress(OSError):
                        os.unlink(seg)
            else:
                seg = f"{path}{_SEGMENT}{time.time_ns():020d}-{os.getpid()}"
                _save_memo(seg, self._MAGIC, items)
        except (OSError, ValueError):
            return False
        with self._lock:
            for key in items:
                self._disk_new.pop(key, None)
            if whole:
                self._segments, self._segment_entries, self._base_entries = [], 0, len(items)
            else:
                self._segments.append(seg)
                self._segment_entries += len(items)
        return True

    def retain(self, snapshots: Sequence[Sequence[Fact]]) -> None:
        """Forget every fact that none of ``snapshots`` (the cached indexes) holds."""
        alive: dict[int, Fact] = {}
        for facts in snapshots:
            for f in facts:
                alive[id(f)] = f
        with self._lock:
            for key, (fact, _) in list(self._data.items()):
                if alive.get(key) is not fact:
                    del self._data[key]

    def __len__(self) -> int:
        """Facts with at least one memoised value."""
        return len(self._data)

    def clear(self) -> None:
        """Forget everything in memory and detach the disk layer."""
        with self._lock:
            self._data.clear()
            self._disk_path, self._disk, self._disk_dirty, self._disk_loaded = "", {}, False, True
            self._disk_new, self._segments = {}, []


def _content_key(fact: Fact) -> bytes:
    text = recall_text(fact) + "\x00" + fact.subject_key
    return hashlib.blake2b(text.encode("utf-8", "surrogatepass"), digest_size=16).digest()


def _load_memo(path: str, magic: bytes) -> dict[tuple[str, bytes], Any]:
    data = read_sealed(path, magic)
    if type(data) is not tuple or len(data) != 2 or data[0] != _MEMO_VERSION or not isinstance(data[1], dict):
        return {}
    return data[1]


def _save_memo(path: str, magic: bytes, data: dict[tuple[str, bytes], Any]) -> None:
    write_sealed(path, magic, (_MEMO_VERSION, data))


_SEGMENT = ".seg-"


def _load_segments(path: str, magic: bytes, into: dict[tuple[str, bytes], Any]) -> tuple[list[str], int]:
    """Read the segments beside ``path`` into ``into`` (oldest first, a later entry wins);
    every segment found is returned (a foreign or damaged one is removed at the next fold),
    with the number of entries read."""
    folder, base = os.path.split(path)
    try:
        names = sorted(n for n in os.listdir(folder or ".") if n.startswith(base + _SEGMENT))
    except OSError:
        return [], 0
    found, entries = [], 0
    for name in names:
        seg = os.path.join(folder, name)
        found.append(seg)
        data = _load_memo(seg, magic)
        into.update(data)
        entries += len(data)
    return found, entries


_LANG_DIR = os.path.join(os.path.dirname(os.path.dirname(__file__)), "lang")
_MEMO_VERSION = (
    source_stamp(
        _tokenize.__file__,
        os.path.join(os.path.dirname(__file__), "enhance.py"),
        os.path.join(os.path.dirname(__file__), "fields.py"),
        os.path.join(os.path.dirname(__file__), "channels.py"),
        os.path.join(os.path.dirname(__file__), "answer_types.py"),
        os.path.join(os.path.dirname(os.path.dirname(__file__)), "tool_override.py"),
        os.path.join(os.path.dirname(os.path.dirname(__file__)), "resolve.py"),
        os.path.join(_LANG_DIR, "terms.py"),
        os.path.join(_LANG_DIR, "chinese.py"),
        os.path.join(_LANG_DIR, "english.py"),
        os.path.join(_LANG_DIR, "meaning.py"),
    )
    + ":2"
)
"""Cached tokens and features are only as good as the code that made them: the
tokenizer's and the enhanced channels' source is part of the version."""


def memo_path(cache_dir: str | os.PathLike[str]) -> str:
    """Where one-shot processes keep the disk layer of :data:`FACT_MEMO`."""
    return os.path.join(os.fspath(cache_dir), "recall-memo.marshal")


FACT_MEMO = FactMemo()
"""The process-wide memo every index build goes through."""
