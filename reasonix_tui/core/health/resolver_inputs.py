"""What the resolver reads of each fact, kept with the checker's state by fact key.

The pair checks run the subject/topic resolver (:func:`~reasonix_tui.core.resolve.resolve`)
over the whole store: after a write anywhere a new process must decide the pairs again
(a new fact moves every idf). The resolver reads three things per fact, each through the
recall's per-fact memo (:data:`~reasonix_tui.core.recall.memo.FACT_MEMO`):

* the topic strings (``topic-strings``: terms, label terms, replacement-clause terms,
  whether it states a change);
* the meaning vector (``meaning``), which the near-duplicate search keeps too;
* for a fact that states a change, its meaning read without the replacement words
  (``topic-meaning``: in memory only in the recall, and costly in a new process — the
  Chinese segmenter and the model are loaded to read a few facts again);
* for the two facts of a project/global pair, the names and terms the tool-override test
  reads (``tool-profile``, :func:`~reasonix_tui.core.tool_override.tool_profile`: in
  memory only, and it analyses the whole text again — a Chinese word in any of them loads
  the segmenter, seconds in a new process);
* for the pinned global defaults and their nearest project facts, the role vector the
  tool-override test compares (``role-meaning``,
  :func:`~reasonix_tui.core.tool_override.role_vectors`: a score of short texts embedded
  again in a new process, which reads the model's whole tokenizer and table — 0.1-0.2 s).

:class:`ResolverInputs` keeps all but the second by
:func:`~.state.fact_key` (the second comes from the near-duplicate search's own vector
matrix, by content), and
:meth:`ResolverInputs.seed` hands them over before the resolver runs — the topic ids and
meaning vectors as arrays (:class:`~reasonix_tui.core.resolve.Given`), the change-statement
vectors and tool profiles through the memo — so a new process neither reads the recall's
whole memo from disk nor analyses unchanged facts again. Values are the very ones the memo would give (vectors at the half precision they
are made at), so the answer is the same.
"""

from __future__ import annotations

from array import array
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from ..store.model import Fact

if TYPE_CHECKING:
    from ..resolve import Given
    from .neighbours import MeaningPairs

__all__ = ["ResolverInputs"]

Entry = tuple[bytes, bytes, Any, bool, bytes | None]
"""``(term ids, label term ids, replacement-clause terms, states a change, topic vector as
float16 bytes or None)``; ids index :attr:`ResolverInputs.vocabulary`, packed as unsigned
32-bit arrays (a new process reads them as a few blocks of bytes, not as small ints)."""


class ResolverInputs:
    """The resolver's per-fact values by fact key. On disk (:meth:`state`) the terms are
    ids into one vocabulary: a new process reads a few hundred thousand small ints and one
    string per distinct term, not every fact's strings (hashed again into sets)."""

    def __init__(self, state: Any = None) -> None:
        self.vocabulary: list[str] = []
        self.entries: dict[bytes, Entry] = {}
        self.terms: dict[bytes, tuple[Any, ...]] = {}
        """The near-duplicate word test's terms (``health-terms``) of the facts it judged, by
        fact key: ``(word ids, weights, surface ids, states a change)``, the ids (into
        :attr:`vocabulary`) and weights as packed arrays — read whole in a few milliseconds,
        turned back into terms only for a fact a new pair needs (:meth:`kept`)."""
        self.profiles: dict[bytes, tuple[Any, ...]] = {}
        """The tool-override test's per-fact values (:class:`~reasonix_tui.core.tool_override.
        ToolProfile` fields in order) by fact key."""
        self.roles: dict[bytes, bytes] = {}
        """The tool-override test's role vectors (``role-meaning``) by fact key, as the
        float16 bytes the memo keeps on disk (the values it would give back)."""
        self.dirty = False
        if state is not None:
            try:
                vocabulary, entries, profiles, terms, roles = state
                if all(isinstance(x, dict) for x in (entries, profiles, terms, roles)) and isinstance(
                    vocabulary, tuple
                ):
                    self.vocabulary, self.entries, self.profiles, self.terms, self.roles = (
                        list(vocabulary),
                        entries,
                        profiles,
                        terms,
                        roles,
                    )
            except (TypeError, ValueError):
                pass
        self._ids: dict[str, int] | None = None
        self._made: dict[int, tuple[Fact, tuple[Any, ...], Entry]] = {}
        """The topic sets :meth:`seed` made last, by fact object (a long-lived worker makes
        only the written facts')."""
        self._remap: Any = None
        """:attr:`vocabulary` as this process's term ids (it only grows)."""

    def state(self) -> tuple[Any, ...]:
        """What :class:`ResolverInputs` is made from again (marshal-able)."""
        return tuple(self.vocabulary), dict(self.entries), dict(self.profiles), dict(self.terms), dict(self.roles)

    def _encode(self, terms: Any) -> tuple[int, ...]:
        """``terms`` (a set) as ids, in sorted order."""
        return self._encode_list(sorted(terms))

    def missing(self, facts: Sequence[Fact], key: Callable[[Fact], bytes]) -> int:
        """How many of ``facts`` have no values kept."""
        entries = self.entries
        return sum(1 for f in facts if key(f) not in entries)

    def seed(
        self, facts: Sequence[Fact], key: Callable[[Fact], bytes], meaning: MeaningPairs | None
    ) -> tuple[list[Fact], Given]:
        """The kept values of ``facts`` for the resolver: their topic sets and meaning
        vectors (from ``meaning``'s matrix where it holds the text) as arrays
        (:class:`~reasonix_tui.core.resolve.Given`: no fact's string sets are built, no
        memo entry is made for them), and the change-statement vectors and tool-override
        profiles handed to the per-fact memo (in memory, for these fact objects). The
        facts without kept values are returned too (the resolver reads them through the memo)."""
        import numpy as np

        from ..recall.memo import FACT_MEMO
        from ..resolve import Given

        entries, made = self.entries, self._made
        sets: list[tuple[Any, ...] | None] = []
        held: list[Entry | None] = []
        todo: list[tuple[int, Entry]] = []
        fresh: list[Fact] = []  # objects new since the last call (a long-lived worker: the written ones)
        unseeded = []
        for i, f in enumerate(facts):
            hit = made.get(id(f))
            if hit is not None and hit[0] is f:
                sets.append(hit[1])
                held.append(hit[2])
                continue
            fresh.append(f)
            entry = entries.get(key(f))
            held.append(entry)
            sets.append(None)
            if entry is None:
                unseeded.append(f)
                continue
            todo.append((i, entry))
            if entry[4] is not None:
                FACT_MEMO.seed(f, "topic-meaning", np.frombuffer(entry[4], dtype=np.float16).astype(np.float32))
        self._intern(todo, sets)
        self._made = {id(f): (f, x, e) for f, x, e in zip(facts, sets, held) if x is not None and e is not None}
        self._seed_profiles(fresh, key)
        word = self.vocabulary.__getitem__

        def strings(i: int) -> tuple[frozenset[str], frozenset[str]]:
            entry = held[i]
            assert entry is not None  # asked only for a fact ``sets`` holds
            return frozenset(map(word, _unpack("I", entry[0]))), frozenset(map(word, _unpack("I", entry[1])))

        return unseeded, Given(sets, strings, _vectors(facts, meaning))

    def _intern(self, todo: Sequence[tuple[int, Entry]], sets: list[tuple[Any, ...] | None]) -> None:
        """Fill ``sets[i]`` for each ``(i, entry)`` of ``todo``: the resolver's topic sets
        without their strings, the kept ids mapped to this process's term ids (IDS) in
        one array operation instead of every fact's strings hashed again."""
        if not todo:
            return
        import numpy as np

        from ..topic_search import IDS, IDS_LOCK, intern_sorted

        vocabulary = self.vocabulary
        if self._remap is None or len(self._remap) != len(vocabulary):
            with IDS_LOCK:
                fresh = not IDS
                if fresh:  # a new process: the kept vocabulary's order is as good as any
                    IDS.update(zip(vocabulary, range(len(vocabulary))))
                if fresh and len(IDS) == len(vocabulary):  # (no term twice: each id is its position)
                    self._remap = np.arange(len(vocabulary), dtype=np.int64)
                else:
                    for term in set(vocabulary).difference(IDS):
                        IDS[term] = len(IDS)
                    self._remap = np.fromiter(map(IDS.__getitem__, vocabulary), dtype=np.int64, count=len(vocabulary))
        key_ids = _ids_by_fact([e[0] for _, e in todo], self._remap)
        label_ids = _ids_by_fact([e[1] for _, e in todo], self._remap)
        # most facts name no replacement clause: only the others' terms are interned
        stated = [n for n, (_, e) in enumerate(todo) if e[2]]
        cue_ids = [np.zeros(0, dtype=np.int64)] * len(todo)
        for n, ids in zip(stated, intern_sorted([[c[0] for c in todo[n][1][2]] for n in stated], sort=False)):
            cue_ids[n] = ids
        for n, (i, (_, _, cues, strong, _)) in enumerate(todo):
            sets[i] = (None, None, cues, bool(strong), key_ids[n], label_ids[n], cue_ids[n])

    def _seed_profiles(self, facts: Sequence[Fact], key: Callable[[Fact], bytes]) -> None:
        if not self.profiles and not self.roles:
            return
        import numpy as np

        from ..recall.memo import FACT_MEMO
        from ..tool_override import ToolProfile

        FACT_MEMO.register_transient("tool-profile")
        profiles, roles = self.profiles, self.roles
        for f in facts:
            k = key(f)
            kept = profiles.get(k)
            if kept is not None:
                FACT_MEMO.seed(f, "tool-profile", ToolProfile(*kept))
            role = roles.get(k)
            if role is not None:  # what the memo's codec gives back for the same bytes
                FACT_MEMO.seed(f, "role-meaning", np.frombuffer(role, dtype=np.float16).astype(np.float32))

    def _collect_kept(self, fact: Fact, k: bytes) -> None:
        from ..recall.memo import FACT_MEMO

        if k not in self.profiles and FACT_MEMO.peek(fact, "tool-profile"):
            p = FACT_MEMO.get(fact, "tool-profile", _unknown)
            self.profiles[k] = (p.names, p.keys, p.content, p.title, p.clauses)
            self.dirty = True
        if k not in self.terms and FACT_MEMO.peek(fact, "health-terms"):
            words, change = FACT_MEMO.get(fact, "health-terms", _unknown)
            keys = _pack(self._encode_list([w[0] for w in words]))
            surfaces = _pack(self._encode_list([w[2] for w in words]))
            self.terms[k] = (keys, array("d", [w[1] for w in words]).tobytes(), surfaces, bool(change))
            self.dirty = True
        if k not in self.roles and FACT_MEMO.peek(fact, "role-meaning"):
            import numpy as np

            self.roles[k] = np.asarray(FACT_MEMO.get(fact, "role-meaning", _unknown)).astype(np.float16).tobytes()
            self.dirty = True

    def _encode_list(self, terms: Sequence[str]) -> tuple[int, ...]:
        """``terms`` as ids, in their order."""
        if self._ids is None:
            self._ids = {t: i for i, t in enumerate(self.vocabulary)}
        ids, vocabulary = self._ids, self.vocabulary
        out = []
        for t in terms:
            i = ids.get(t)
            if i is None:
                i = ids[t] = len(vocabulary)
                vocabulary.append(t)
            out.append(i)
        return tuple(out)

    def kept(self, key: Callable[[Fact], bytes]) -> Callable[[Fact, str], Any]:
        """``kept(fact, kind)``: the value of ``kind`` kept for ``fact`` (``health-terms``
        only), or ``None`` (for :func:`~.memo_link.attach_on_miss`)."""

        def value(fact: Fact, kind: str) -> Any:
            hit = self.terms.get(key(fact)) if kind == "health-terms" else None
            if hit is None:
                return None
            keys, weights, surfaces, change = (_unpack("I", hit[0]), _unpack("d", hit[1]), _unpack("I", hit[2]), hit[3])
            word = self.vocabulary.__getitem__
            return tuple(zip(map(word, keys), weights, map(word, surfaces))), change

        return value

    def collect(self, facts: Sequence[Fact], key: Callable[[Fact], bytes], *, complete: bool = False) -> None:
        """Keep what the resolver computed for ``facts`` (after it ran), forget facts gone.
        With ``complete`` (a first run: the model and the segmenter are loaded anyway) the
        change-statement vector of every fact that states a change is made and kept too, so
        a later process never loads them for an unchanged fact that a write puts in a new
        candidate pair."""
        import numpy as np

        from ..recall.fields import topic_vector
        from ..recall.memo import FACT_MEMO

        entries = self.entries
        alive: set[bytes] = set()
        for f in facts:
            k = key(f)
            alive.add(k)
            self._collect_kept(f, k)
            hit = entries.get(k)
            # both kinds are the process's own (in memory only): peek never reads the disk
            topic = FACT_MEMO.peek(f, "topic-meaning")
            if hit is not None and (hit[4] is not None or not (topic or (complete and hit[3]))):
                continue
            if hit is None:
                if not FACT_MEMO.peek(f, "topic-sets"):
                    continue  # the resolver did not read it (no language resources): nothing to keep
                keys, labels, cues, strong = FACT_MEMO.get(f, "topic-sets", _unknown)[:4]
                hit = (_pack(self._encode(keys)), _pack(self._encode(labels)), cues, bool(strong), None)
            vec = None
            if topic or (complete and hit[3]):
                vec = np.asarray(topic_vector(f), dtype=np.float32).astype(np.float16).tobytes()
            entries[k] = (*hit[:4], vec)
            self.dirty = True
        for kept in (entries, self.profiles, self.terms, self.roles):
            if len(kept) > len(alive) or (kept is not entries and kept.keys() - alive):
                for gone in [k for k in kept if k not in alive]:
                    del kept[gone]
                self.dirty = True


def _vectors(facts: Sequence[Fact], meaning: MeaningPairs | None) -> Any:
    """Every fact's meaning vector at single precision, from ``meaning``'s matrix (the
    half-precision values the memo would give), the texts it lacks embedded (and memoised)
    as the resolver would; ``None`` when there is no matrix or the model is missing."""
    import numpy as np

    from .neighbours import meaning_key

    rows = meaning.rows() if meaning is not None else None
    if rows is None:
        return None
    at, matrix = rows
    idx = np.fromiter((at.get(meaning_key(f), -1) for f in facts), dtype=np.int64, count=len(facts))
    out = matrix[np.maximum(idx, 0)].astype(np.float32)
    missing = np.flatnonzero(idx < 0)
    if len(missing):
        from ..recall.fields import fact_vectors

        try:
            out[missing] = fact_vectors([facts[i] for i in missing.tolist()])
        except (ImportError, OSError, ValueError):
            return None
    out.flags.writeable = False
    return out


def _ids_by_fact(blobs: Sequence[bytes], remap: Any) -> list[Any]:
    """Each packed array of vocabulary ids as this process's term ids, sorted (what
    :func:`~reasonix_tui.core.topic_search.intern_sorted` gives for the same terms)."""
    import numpy as np

    size = array("I").itemsize
    lens = np.fromiter((len(b) // size for b in blobs), dtype=np.int64, count=len(blobs))
    ids = remap[np.frombuffer(b"".join(blobs), dtype=np.dtype(f"=u{size}"))]
    if not len(ids):
        return [ids[:0] for _ in blobs]
    # sorted within each fact: one sort of (fact, id) packed in one integer
    span = int(ids.max()) + 1
    owner = np.repeat(np.arange(len(blobs), dtype=np.int64), lens)
    ids = np.sort(owner * span + ids) - owner * span
    ends = np.cumsum(lens).tolist()
    return [ids[a:b] for a, b in zip([0, *ends[:-1]], ends)]


def _pack(ids: Sequence[int]) -> bytes:
    return array("I", ids).tobytes()


def _unpack(code: str, data: bytes) -> list[Any]:
    values = array(code)
    values.frombytes(data)
    return values.tolist()


def _unknown(fact: Fact) -> Any:
    raise ValueError(f"no resolver values for {fact.id}")  # never: peeked first
