"""Running the checks: keep the work between runs and between processes, apply dismissals.

:class:`HealthChecker` is what the ``memory health`` command and the Context Center's
worker hold. Work is kept at three levels, each exact (a run returns what a run from
scratch would):

* per fact, by object and revision in memory, by :func:`~.state.fact_key` on disk: the
  write policy's secret scan, size and duplicate digests (:func:`scan_fact`), and the
  per-fact findings with the signature they were built for (freshness, recall usage);
* per store: the findings about pairs and groups of facts (the resolver's supersessions
  and overrides, duplicates, near-duplicates), valid for one **store digest** (every
  fact key in snapshot order), and the pinned-unused findings, valid for one store digest
  and one set of recorded queries;
* the near-duplicate pair search (:class:`~.similar.MeaningPairs`), by content, so after
  a write only the written fact's row is computed.

On disk it is one sealed (checksummed, versioned, 0600) file per workspace under the
cache folder (:func:`memo_path`), so a new process — a one-shot ``memory health``, the
Context Center's first run — starts where the last one stopped. :func:`health_report` is
the one call for a command line.
"""

from __future__ import annotations

import hashlib
import marshal
import os
import threading
import time
from collections.abc import Callable, Iterable, Sequence
from contextlib import nullcontext
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from ..compat.gostr import trim_space
from ..compat.gotime import Timestamp
from ..paths import Layout
from ..resolve import Given, Resolution, resolve, resolve_subjects
from ..settings import Settings
from ..store.model import Fact
from ..store.sealed import collector_paused, read_sealed, write_sealed
from .base import FactScan, FindingMemo, HealthContext, SecretHit, scan_key
from .dismissals import Dismissals
from .duplicates import check_duplicates, check_near_duplicates, dup_keys
from .files import check_instructions, check_oversized, check_secrets, check_unreadable
from .freshness import check_freshness, valid_until
from .inputs import gather
from .memo_link import attach_on_miss, before
from .model import Finding, HealthReport, sort_key
from .pairs import check_overrides, check_subject_conflicts, check_topic_supersessions
from .quick import code_version, quick_path, quick_report, save_quick, state_path, validation_key
from .resolver_inputs import ResolverInputs
from .similar import MeaningPairs, near_duplicates
from .state import Decoder, encode_finding, fact_key, store_digest
from .usage import (
    KeptWords,
    Usage,
    check_pinned_budget,
    check_pinned_unused,
    check_recall_usage,
    pinned_unused_inputs,
    usage_from_traces,
)

if TYPE_CHECKING:
    from ..store.store import Store

__all__ = ["HealthChecker", "health_report", "run_checks", "pair_checks", "scan_fact", "memo_path"]

Progress = Callable[[int, int], None]
"""``progress(done, total)`` while facts are scanned."""


def scan_fact(fact: Fact) -> FactScan:
    """The per-fact part of the checks (the write policy's secret scan, size, digests)."""
    from ..agent.policy import fact_sensitive_findings

    hits = []
    for f in fact_sensitive_findings(fact):
        text = getattr(fact, f.field, "") if f.field else fact.body
        line = text.count("\n", 0, f.span[0]) + 1 if isinstance(text, str) else 1
        hits.append(SecretHit(f.field or "body", f.kind, f.label, line, f.preview))
    return FactScan(tuple(hits), len(trim_space(fact.body)), dup_keys(fact))


def _same_text(a: Fact, b: Fact) -> bool:
    return (
        a.body == b.body
        and a.description == b.description
        and a.title == b.title
        and a.name == b.name
        and a.keywords == b.keywords
        and a.subject_key == b.subject_key
    )


def _encode(scan: FactScan) -> tuple[Any, ...]:
    return (
        scan.body_runes,
        tuple((h.field, h.kind, h.label, h.line, h.preview) for h in scan.secrets),
        tuple(scan.dup_keys),
    )


def _decode(value: Any) -> FactScan:
    # the state is sealed (checksummed) and versioned: its tuples are what _encode made
    runes, hits, keys = value
    return FactScan(tuple(SecretHit(*h) for h in hits) if hits else (), runes, keys)


def memo_path(layout: Layout) -> str:
    """Where a workspace's health work is kept between processes (the cache folder)."""
    return state_path(layout, ".marshal")


def _usage_digest(usage: Usage, function_words: frozenset[str]) -> bytes:
    terms = tuple((t, tuple(sorted(words))) for t, words in usage.terms)
    blob = marshal.dumps((usage.span.turns, terms, tuple(sorted(function_words))), 0)
    return hashlib.blake2b(blob, digest_size=20).digest()


class HealthChecker:
    """Computes a store's findings; keeps the work between runs (and, with ``memo_file``,
    between processes).

    Thread-safe for one writer at a time (the Context Center runs it in one worker).
    """

    _MAGIC = b"RXTHLTH2"

    def __init__(self, memo_file: str | os.PathLike[str] | None = None) -> None:
        self._mem: dict[str, tuple[Fact, FactScan]] = {}
        self._keys: dict[int, tuple[Fact, bytes]] = {}
        self._lock = threading.Lock()
        self._disk_path = os.fspath(memo_file) if memo_file else ""
        self._loaded = not self._disk_path
        self._scans: dict[bytes, Any] = {}
        self._dirty = False
        self.encoded: dict[int, tuple[Finding, Any]] = {}
        """The last run's findings by object with their encoded values (as decoded from
        the state, or as encoded for it), so the last report is kept without encoding
        every finding again (:func:`~.quick.save_quick`)."""
        self._memo = FindingMemo(self.key, self.encoded)
        self._meaning_pairs = MeaningPairs()
        self._meaning_state: Any = None
        self._inputs = ResolverInputs()
        self._words = KeptWords()
        self._stored: dict[str, tuple[bytes, tuple[Any, ...], tuple[str, ...]]] = {}
        self._results: dict[str, tuple[bytes, tuple[Finding, ...], tuple[str, ...]]] = {}
        self._usage: tuple[tuple[tuple[str, str, int], ...], Usage] | None = None
        self.scanned = 0
        """Facts scanned (not taken from a memo) by the last :meth:`scan_all`."""
        self.reused: tuple[str, ...] = ()
        """Store-level results (``pairs``, ``pinned-unused``) the last run took as they were."""
        self.last_findings: tuple[Finding, ...] = ()
        """Every finding of the last run in the checks' order, dismissed ones too."""

    def key(self, fact: Fact) -> bytes:
        """:func:`~.state.fact_key` of ``fact`` (memoised by object)."""
        hit = self._keys.get(id(fact))
        if hit is not None and hit[0] is fact:
            return hit[1]
        k = fact_key(fact)
        self._keys[id(fact)] = (fact, k)
        return k

    def _load(self) -> None:
        """Take what an earlier process left (once; a missing, damaged or older file is ignored)."""
        if self._loaded:
            return
        self._loaded = True
        data = read_sealed(self._disk_path, self._MAGIC)
        if type(data) is not tuple or len(data) != 7 or data[0] != code_version():
            return
        _, scans, meaning, findings, stored, inputs, words = data
        if not all(isinstance(x, dict) for x in (scans, findings, stored)):
            return
        self._inputs = ResolverInputs(inputs)
        self._words = KeptWords(words)
        self._scans = scans
        self._meaning_state = meaning  # taken when the pairs are searched (an unchanged store never is)
        self._memo.disk = findings
        self._stored = stored

    def _meaning(self) -> MeaningPairs:
        """The near-duplicate pair search, with the saved state taken on first use."""
        if self._meaning_state is not None:
            self._meaning_pairs.restore(self._meaning_state)
            self._meaning_state = None
        return self._meaning_pairs

    # ------------------------------------------------------------------ per fact

    def cached(self, fact: Fact) -> FactScan | None:
        """The scan of ``fact`` if one is memoised (never scans)."""
        hit = self._mem.get(scan_key(fact))
        if hit is not None and (hit[0] is fact or _same_text(hit[0], fact)):
            if hit[0] is not fact:
                self._mem[scan_key(fact)] = (fact, hit[1])
            return hit[1]
        self._load()
        stored = self._scans.get(self.key(fact))
        if stored is not None:
            try:
                scan = _decode(stored)
            except (TypeError, ValueError):
                return None
            self._mem[scan_key(fact)] = (fact, scan)
            return scan
        return None

    def scan(self, fact: Fact) -> FactScan:
        """The scan of ``fact`` (memoised)."""
        scan = self.cached(fact)
        if scan is not None:
            return scan
        scan = scan_fact(fact)
        self.scanned += 1
        self._mem[scan_key(fact)] = (fact, scan)
        self._scans[self.key(fact)] = _encode(scan)
        self._dirty = True
        return scan

    def scan_all(
        self, facts: Sequence[Fact], progress: Progress | None = None, *, budget_s: float | None = None
    ) -> tuple[dict[str, FactScan], int]:
        """Scans of ``facts`` by id, and how many were left unscanned (only with
        ``budget_s``: scanning stops after that many seconds; ``progress`` is called
        about every 200 facts scanned)."""
        with self._lock:
            self.scanned = 0
            out: dict[str, FactScan] = {}
            todo: list[Fact] = []
            for f in facts:
                scan = self.cached(f)
                if scan is None:
                    todo.append(f)
                else:
                    out[scan_key(f)] = scan
            deadline = None if budget_s is None else time.monotonic() + budget_s
            left = 0
            for i, f in enumerate(todo):
                if deadline is not None and time.monotonic() > deadline:
                    left = len(todo) - i
                    break
                out[scan_key(f)] = self.scan(f)
                if progress is not None and i % 200 == 199:
                    progress(len(out), len(facts))
            self._retain(facts)
            return out, left

    def _retain(self, facts: Sequence[Fact]) -> None:
        if len(self._mem) > 2 * len(facts) + 1000:
            alive = {scan_key(f) for f in facts}
            for k in [k for k in self._mem if k not in alive]:
                del self._mem[k]
        if len(self._keys) > 2 * len(facts) + 1000:
            ids = {id(f) for f in facts}
            for i in [i for i in self._keys if i not in ids]:
                del self._keys[i]
        if len(self._scans) > len(facts):
            keys = {self.key(f) for f in facts}
            for dead in [k for k in self._scans if k not in keys]:
                del self._scans[dead]

    def save(self) -> bool:
        """Write what a new process starts from, when something new was computed (best effort)."""
        with self._lock:
            if not self._disk_path or not self._loaded:
                return False
            if not (self._dirty or self._memo.dirty or self._inputs.dirty or self._words.dirty):
                return False
            state = (
                code_version(),
                dict(self._scans),
                self._meaning_state if self._meaning_state is not None else self._meaning_pairs.state(),
                dict(self._memo.disk),
                dict(self._stored),
                self._inputs.state(),
                self._words.state(),
            )
            self._dirty = self._memo.dirty = self._inputs.dirty = self._words.dirty = False
        try:
            write_sealed(self._disk_path, self._MAGIC, state)
        except (OSError, ValueError):
            return False
        return True

    # ------------------------------------------------------------------ a run

    def usage(self, traces: Sequence[Any]) -> Usage:
        """:func:`~.usage.usage_from_traces`, reused while the traces are the same."""
        sig = tuple((t.at, t.session_id, len(t.hits)) for t in traces)
        if self._usage is None or self._usage[0] != sig:
            self._usage = (sig, usage_from_traces(traces))
        return self._usage[1]

    def _per_store(
        self, name: str, digest: bytes, compute: Callable[[list[str]], list[Finding]], notes: list[str]
    ) -> list[Finding]:
        """``compute(notes)``, or what it gave for the same ``digest`` (in memory, else on disk)."""
        hit = self._results.get(name)
        if hit is None or hit[0] != digest:
            raw = self._stored.get(name)
            hit = None
            if raw is not None and raw[0] == digest:
                try:
                    decoder = Decoder(self.encoded)
                    hit = (digest, tuple(decoder.finding(v) for v in raw[1]), tuple(str(n) for n in raw[2]))
                except (TypeError, ValueError):
                    hit = None
        if hit is not None:
            self._results[name] = hit
            self.reused += (name,)
            notes.extend(hit[2])
            return list(hit[1])
        mine: list[str] = []
        found = compute(mine)
        notes.extend(mine)
        self._results[name] = (digest, tuple(found), tuple(mine))
        encoded = self.encoded
        for f in found:
            encoded[id(f)] = (f, encode_finding(f))
        self._stored[name] = (digest, tuple(encoded[id(f)][1] for f in found), tuple(mine))
        self._dirty = True
        return found

    def report(
        self,
        ctx: HealthContext,
        dismissed: Iterable[str] = (),
        *,
        progress: Progress | None = None,
        budget_s: float | None = None,
    ) -> HealthReport:
        """Every finding of ``ctx`` (its ``scans`` filled in here), dismissed ones apart."""
        # A run builds (or decodes) tens of thousands of small findings at 10k facts: a
        # collection pass in between walks every object alive for nothing (about a fifth of
        # the run), and a run makes no reference cycles worth collecting.
        with collector_paused():
            return self._report(ctx, dismissed, progress, budget_s)

    def _report(
        self, ctx: HealthContext, dismissed: Iterable[str], progress: Progress | None, budget_s: float | None
    ) -> HealthReport:
        scans, left = self.scan_all(ctx.facts, progress, budget_s=budget_s)
        ctx = replace(ctx, scans=scans)
        usage = self.usage(ctx.traces)
        self._load()
        self.reused = ()
        notes: list[str] = []
        facts = ctx.facts
        digest = store_digest(self.key(f) for f in facts)
        pairs = self._per_store("pairs", digest, lambda n: self._pair_checks(facts, scans, n), notes)
        unused = None
        if ctx.words is None:
            pinned, sample = pinned_unused_inputs(facts)
            keys = [b"pinned", *map(self.key, pinned), b"sample", *map(self.key, sample)]
            unused_digest = store_digest((*keys, _usage_digest(usage, ctx.function_words)))
            unused = self._per_store(
                "pinned-unused",
                unused_digest,
                lambda n: check_pinned_unused(
                    facts, usage, self._words.reader(pinned, usage, self.key, _words), ctx.function_words
                ),
                notes,
            )
            self._words.retain(pinned, sample, self.key)
        findings = run_checks(ctx, memo=self._memo, usage=usage, notes=notes, pairs=pairs, pinned_unused=unused)
        self._memo.retain(facts)
        self.last_findings = tuple(findings)
        kept = [(id(f), e) for f in findings if (e := self.encoded.get(id(f))) is not None and e[0] is f]
        self.encoded.clear()
        self.encoded.update(kept)
        gone = frozenset(dismissed)
        open_ = sorted((f for f in findings if f.fingerprint not in gone), key=sort_key)
        hidden = sorted((f for f in findings if f.fingerprint in gone), key=sort_key)
        partial = tuple(notes) + ((f"secrets: {len(facts) - left:,}/{len(facts):,} facts scanned",) if left else ())
        return HealthReport(tuple(open_), tuple(hidden), ctx.now, len(facts), usage.span, partial)

    def _pair_checks(self, facts: Sequence[Fact], scans: dict[str, FactScan], notes: list[str] | None) -> list[Finding]:
        """:func:`pair_checks` with the resolver's per-fact values kept between processes."""
        meaning = self._meaning()
        unseeded, given = self._inputs.seed(facts, self.key, meaning)
        before(unseeded, "topic-strings")
        found = pair_checks(facts, scans, memo=self._memo, meaning=meaning, notes=notes, given=given)
        complete = len(unseeded) > RECALL_MEMO_AFTER or len(unseeded) == len(facts) > 0  # a first run
        self._inputs.collect(facts, self.key, complete=complete)
        return found

    def kept_values(self) -> Callable[[Fact, str], Any]:
        """Per-fact values of the recall's memo that the saved state keeps
        (:meth:`~.resolver_inputs.ResolverInputs.kept`)."""
        with self._lock:
            self._load()
        return self._inputs.kept(self.key)

    def uncovered(self, facts: Sequence[Fact]) -> int:
        """How many of ``facts`` the saved state holds no resolver values for (the caller
        attaches the recall's memo on disk when many are new to it)."""
        with self._lock:
            self._load()
            return self._inputs.missing(facts, self.key)

    def prime(self, facts: Sequence[Fact]) -> bool:
        """Compute in memory what the last :meth:`report` took from the disk state (the
        resolver's topic pairs, every fact's meaning vector and analysis), so the next run
        after a write redoes only what the write changed. The Context Center's worker calls
        it after the report is shown; ``False`` when there was nothing to do."""
        if "pairs" not in self.reused:
            return False
        with self._lock:
            scans = {scan_key(f): s for f in facts if (s := self.cached(f)) is not None}
            self._pair_checks(facts, scans, None)
            self.reused = tuple(r for r in self.reused if r != "pairs")
        return True


def _words(fact: Fact) -> frozenset[str]:
    from ..recall.index import _recall_tokens
    from ..recall.memo import FACT_MEMO
    from .memo_link import before

    before((fact,), "tokens")

    return frozenset(FACT_MEMO.get(fact, "tokens", _recall_tokens))


def _pairs_of(findings: Sequence[Finding]) -> set[frozenset[str]]:
    out: set[frozenset[str]] = set()
    for f in findings:
        ids = [r.id for r in f.facts]
        out.update(frozenset((a, b)) for a in ids for b in ids if a != b)
    return out


def pair_checks(
    facts: Sequence[Fact],
    scans: dict[str, FactScan] | None = None,
    *,
    memo: FindingMemo | None = None,
    meaning: MeaningPairs | None = None,
    notes: list[str] | None = None,
    given: Given | None = None,
) -> list[Finding]:
    """The findings about pairs and groups of facts, from the facts alone: same-subject
    conflicts and overrides (the resolver's view), duplicates, near-duplicates by meaning,
    topic supersessions (pairs already reported as something else left out). ``given``:
    the resolver's per-fact values as kept (:meth:`~.resolver_inputs.ResolverInputs.seed`)."""
    try:
        resolution = resolve(facts, given=given)
    except (ImportError, OSError, ValueError) as exc:  # the topic pairs need the language resources
        resolution = Resolution(tuple(resolve_subjects(facts)))
        if notes is not None:
            notes.append(f"topic pairs unavailable ({type(exc).__name__}: {exc}); subject keys only")
    claimed = check_subject_conflicts(facts, resolution)
    claimed += check_overrides(facts, resolution)
    # a pair the topic resolver only *guesses* is a replacement (same topic, newer) is a
    # near-duplicate when the two say the same thing; a stated replacement never is
    skip = _pairs_of(claimed) | {
        frozenset((str(s.old.id), str(s.current.id))) for s in resolution.items if s.kind != "topic" or s.certain
    }
    exact = check_duplicates(facts, scans, skip, memo)
    dups = _pairs_of(exact)
    try:
        meaning = meaning or MeaningPairs()
        pairs = meaning.update(facts, open_only=True)
        near = check_near_duplicates(
            facts, near_duplicates(facts, pairs, skip | dups, meaning.verdicts, meaning.last_keys), memo
        )
        dups |= _pairs_of(near)
        exact += near
    except (ImportError, OSError, ValueError) as exc:
        if notes is not None:
            notes.append(f"near-duplicates by meaning unavailable ({type(exc).__name__}: {exc})")
    return claimed + exact + check_topic_supersessions(facts, resolution, dups)


def run_checks(
    ctx: HealthContext,
    *,
    memo: FindingMemo | None = None,
    usage: Usage | None = None,
    meaning: MeaningPairs | None = None,
    notes: list[str] | None = None,
    pairs: Sequence[Finding] | None = None,
    pinned_unused: Sequence[Finding] | None = None,
) -> list[Finding]:
    """Every check over ``ctx`` (``ctx.scans`` should hold every fact's scan).

    ``memo`` keeps per-fact findings between runs, ``usage`` is the folded traces when
    known, ``meaning`` the near-duplicate pairs kept between runs, ``pairs`` and
    ``pinned_unused`` what :func:`pair_checks` and the pinned-unused check gave for these
    very facts; a check that could not run (a language resource missing) adds a line to
    ``notes``.
    """
    facts = ctx.facts
    out = (
        list(pairs)
        if pairs is not None
        else pair_checks(facts, dict(ctx.scans), memo=memo, meaning=meaning, notes=notes)
    )
    out += check_secrets(facts, ctx.scans)
    out += check_unreadable(ctx.errors)
    out += check_instructions(ctx.diagnostics, ctx.workspace)
    out += check_pinned_budget(facts, ctx.pinned_budget, ctx.pinned_refused)
    usage = usage if usage is not None else usage_from_traces(ctx.traces)
    if pinned_unused is None:
        pinned_unused = check_pinned_unused(facts, usage, ctx.words or _words, ctx.function_words)
    out += pinned_unused
    out += check_freshness(facts, ctx.now, memo)
    out += check_oversized(facts, ctx.scans)
    out += check_recall_usage(facts, usage, ctx.now, memo)
    return out


RECALL_MEMO_AFTER = 100
"""A one-shot run reads the recall's per-fact memo from disk only when more facts than this
are new to the checker's saved state (each of the others costs one analysis)."""


KEEP_STATE_AFTER = 16
KEEP_STATE_FACTS = 2000
"""A one-shot run over a store of at least :data:`KEEP_STATE_FACTS` facts writes the
checker's state back (tens of megabytes at 10k facts: a third of a second of CPU) only when
more than :data:`KEEP_STATE_AFTER` facts were new to it: after a few writes elsewhere the
next process redoes those few facts' analysis (the recall's memo keeps its result, the last
report is kept for an unchanged store), which costs less than writing every unchanged fact's
values again. The answer is the same either way (the state is a cache by fact key)."""


def health_report(
    layout: Layout,
    settings: Settings,
    store: Store | None = None,
    *,
    now: Timestamp | None = None,
    checker: HealthChecker | None = None,
    quick_key: bytes | None = None,
) -> HealthReport:
    """Findings of the workspace's store with the dismissals of its state root applied
    (what was computed is kept under the cache folder for the next process). Without a
    ``checker`` (a one-shot call) an unchanged store answers from the last report
    (:mod:`.quick`) unless ``quick_key`` (its :func:`~.quick.validation_key`) says the
    caller tried that already."""
    from ..recall.memo import FACT_MEMO
    from ..recall.memo import memo_path as recall_memo_path
    from ..store.scan import listings_kept

    # a one-shot call lists the store once: its key and its snapshot read the same stats
    with collector_paused(), listings_kept() if checker is None else nullcontext():
        key = quick_key
        if checker is None and key is None:  # a one-shot call: an unchanged store answers from the last report
            key = validation_key(layout, settings, store)
            quick = quick_report(layout, settings, store, now=now, key=key)
            if quick is not None:
                return quick
        one_shot = checker is None
        checker = checker or HealthChecker(memo_path(layout))
        ctx = gather(layout, settings, store, now=now)
        recall_memo = recall_memo_path(layout.cache_dir)
        new = checker.uncovered(ctx.facts)
        if new > RECALL_MEMO_AFTER:
            # many facts new to the saved state (a first run, a pull): their analysed fields
            # and meaning vectors may be in the recall's memo on disk (read whole)
            FACT_MEMO.attach(recall_memo)
        with attach_on_miss(recall_memo, checker.kept_values()):
            report = checker.report(ctx, Dismissals(layout).fingerprints())
        if not (one_shot and 0 < new <= KEEP_STATE_AFTER and len(ctx.facts) >= KEEP_STATE_FACTS):
            checker.save()
        FACT_MEMO.save()
        if key is not None:
            until = valid_until(ctx.facts, ctx.now)
            save_quick(quick_path(layout), key, checker.last_findings, report, until, checker.encoded)
        return report
