"""Running the checks: gather the inputs, keep per-fact work between runs, apply dismissals.

:class:`HealthChecker` is what the ``memory health`` command and the Context Center's
worker hold. The expensive part of a run is per fact (the write policy's secret scan,
size, the duplicate digests): it is memoised by fact object and revision, so a run after
one write scans one fact, and (for one-shot processes) on disk by content under the cache
folder, so the next process does not scan again. Everything else is one linear pass.

:func:`gather` reads what the checks need (the store's snapshot, unreadable files, the
recorded recall traces, the instruction resolution); :func:`health_report` is the one
call for a command line.
"""

from __future__ import annotations

import hashlib
import os
import threading
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from ..compat.gostr import trim_space
from ..compat.gotime import Timestamp
from ..paths import Layout
from ..resolve import Resolution, resolve, resolve_subjects
from ..settings import Settings
from ..store.model import Fact
from ..store.sealed import read_sealed, source_stamp, write_sealed
from .base import FactScan, FindingMemo, HealthContext, SecretHit, scan_key
from .dismissals import Dismissals
from .duplicates import check_duplicates, check_near_duplicates, dup_keys
from .files import check_instructions, check_oversized, check_secrets, check_unreadable
from .freshness import check_freshness
from .model import Finding, HealthReport, sort_key
from .pairs import check_overrides, check_subject_conflicts, check_topic_supersessions
from .similar import MeaningPairs, near_duplicates
from .usage import Usage, check_pinned_budget, check_pinned_unused, check_recall_usage, usage_from_traces

if TYPE_CHECKING:
    from ..store.store import Store

__all__ = ["HealthChecker", "gather", "health_report", "run_checks", "scan_fact", "memo_path", "instruction_targets"]

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


def _content_key(fact: Fact) -> bytes:
    text = "\x00".join((fact.name, fact.title, fact.description, fact.body, fact.keywords, fact.subject_key))
    return hashlib.blake2b(text.encode("utf-8", "surrogatepass"), digest_size=16).digest()


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
    runes, hits, keys = value
    return FactScan(tuple(SecretHit(*h) for h in hits), int(runes), tuple((str(k), bytes(d)) for k, d in keys))


def memo_path(layout: Layout) -> str:
    """Where one-shot processes keep scans between runs."""
    return os.path.join(os.fspath(layout.cache_dir), "health-memo.marshal")


_STAMPED = ("base", "duplicates", "files")
"""Modules whose code shapes the memoised scans and pairs."""


def _memo_version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    from ..agent import policy, secrets

    versions = []
    for dist in ("detect-secrets", "wordllama"):
        try:
            versions.append(version(dist))
        except PackageNotFoundError:  # a missing distribution only changes the stamp
            versions.append("?")
    here = os.path.dirname(__file__)
    fields = os.path.join(os.path.dirname(here), "recall", "fields.py")
    stamp = source_stamp(
        secrets.__file__, policy.__file__, os.path.join(here, "py"), os.path.join(here, "similar.py"), fields
    )
    return f"{stamp}:{':'.join(versions)}:2"


class HealthChecker:
    """Computes a store's findings; keeps per-fact scans between runs.

    Thread-safe for one writer at a time (the Context Center runs it in one worker).
    """

    _MAGIC = b"RXTHLTH1"
    _LIMIT = 200_000

    def __init__(self, memo_file: str | os.PathLike[str] | None = None) -> None:
        self._mem: dict[str, tuple[Fact, FactScan]] = {}
        self._lock = threading.Lock()
        self._disk_path = os.fspath(memo_file) if memo_file else ""
        self._disk: dict[bytes, Any] | None = None
        self._dirty = False
        self._memo = FindingMemo()
        self._meaning = MeaningPairs()
        self._meaning_loaded = False
        self._usage: tuple[tuple[tuple[str, str, int], ...], Usage] | None = None
        self.scanned = 0
        """Facts scanned (not taken from a memo) by the last :meth:`scan_all`."""

    # ------------------------------------------------------------------ per fact

    def _disk_layer(self) -> dict[bytes, Any]:
        if self._disk is None:
            data = read_sealed(self._disk_path, self._MAGIC) if self._disk_path else None
            ok = type(data) is tuple and len(data) == 3 and data[0] == _memo_version() and isinstance(data[1], dict)
            self._disk = data[1] if ok else {}  # type: ignore[index]  # ok: data is a 3-tuple
            if ok and not self._meaning_loaded:
                self._meaning_loaded = self._meaning.restore(data[2])  # type: ignore[index]  # ok: a 3-tuple
        return self._disk

    def cached(self, fact: Fact) -> FactScan | None:
        """The scan of ``fact`` if one is memoised (never scans)."""
        hit = self._mem.get(scan_key(fact))
        if hit is not None and (hit[0] is fact or _same_text(hit[0], fact)):
            if hit[0] is not fact:
                self._mem[scan_key(fact)] = (fact, hit[1])
            return hit[1]
        if self._disk_path:
            stored = self._disk_layer().get(_content_key(fact))
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
        if self._disk_path:
            self._disk_layer()[_content_key(fact)] = _encode(scan)
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

    def save(self) -> bool:
        """Write the disk layer when something new was scanned (best effort)."""
        with self._lock:
            if not self._disk_path or self._disk is None or not (self._dirty or self._meaning.computed):
                return False
            items = list(self._disk.items())[-self._LIMIT :]
            self._dirty = False
        try:
            write_sealed(self._disk_path, self._MAGIC, (_memo_version(), dict(items), self._meaning.state()))
        except (OSError, ValueError):
            return False
        return True

    # ------------------------------------------------------------------ a run

    def usage(self, traces: Sequence[Any]) -> Usage:
        """:func:`~.usage_from_traces`, reused while the traces are the same."""
        sig = tuple((t.at, t.session_id, len(t.hits)) for t in traces)
        if self._usage is None or self._usage[0] != sig:
            self._usage = (sig, usage_from_traces(traces))
        return self._usage[1]

    def report(
        self,
        ctx: HealthContext,
        dismissed: Iterable[str] = (),
        *,
        progress: Progress | None = None,
        budget_s: float | None = None,
    ) -> HealthReport:
        """Every finding of ``ctx`` (its ``scans`` filled in here), dismissed ones apart."""
        scans, left = self.scan_all(ctx.facts, progress, budget_s=budget_s)
        ctx = replace(ctx, scans=scans)
        usage = self.usage(ctx.traces)
        notes: list[str] = []
        if self._disk_path:
            self._disk_layer()  # the near-duplicate pairs a previous process left
        findings = run_checks(ctx, memo=self._memo, usage=usage, meaning=self._meaning, notes=notes)
        self._memo.retain(ctx.facts)
        gone = frozenset(dismissed)
        open_ = sorted((f for f in findings if f.fingerprint not in gone), key=sort_key)
        hidden = sorted((f for f in findings if f.fingerprint in gone), key=sort_key)
        partial = tuple(notes) + (
            (f"secrets: {len(ctx.facts) - left:,}/{len(ctx.facts):,} facts scanned",) if left else ()
        )
        return HealthReport(tuple(open_), tuple(hidden), ctx.now, len(ctx.facts), usage.span, partial)


def _words(fact: Fact) -> frozenset[str]:
    from ..recall.index import _recall_tokens
    from ..recall.memo import FACT_MEMO

    return frozenset(FACT_MEMO.get(fact, "tokens", _recall_tokens))


def _pairs_of(findings: Sequence[Finding]) -> set[frozenset[str]]:
    out: set[frozenset[str]] = set()
    for f in findings:
        ids = [r.id for r in f.facts]
        out.update(frozenset((a, b)) for a in ids for b in ids if a != b)
    return out


def run_checks(
    ctx: HealthContext,
    *,
    memo: FindingMemo | None = None,
    usage: Usage | None = None,
    meaning: MeaningPairs | None = None,
    notes: list[str] | None = None,
) -> list[Finding]:
    """Every check over ``ctx`` (``ctx.scans`` should hold every fact's scan).

    ``memo`` keeps per-fact findings between runs, ``usage`` is the folded traces when
    known, ``meaning`` the near-duplicate pairs kept between runs; a check that could not
    run (a language resource missing) adds a line to ``notes``.
    """
    facts = ctx.facts
    out: list[Finding] = []
    try:
        resolution = resolve(facts)
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
    exact = check_duplicates(facts, ctx.scans, skip, memo)
    dups = _pairs_of(exact)
    try:
        meaning = meaning or MeaningPairs()
        pairs = meaning.update(facts)
        near = check_near_duplicates(
            facts, near_duplicates(facts, pairs, skip | dups, meaning.verdicts, meaning.last_keys), memo
        )
        dups |= _pairs_of(near)
        exact += near
    except (ImportError, OSError, ValueError) as exc:
        if notes is not None:
            notes.append(f"near-duplicates by meaning unavailable ({type(exc).__name__}: {exc})")
    out += claimed + exact + check_topic_supersessions(facts, resolution, dups)
    out += check_secrets(facts, ctx.scans)
    out += check_unreadable(ctx.errors)
    out += check_instructions(ctx.diagnostics, ctx.workspace)
    out += check_pinned_budget(facts, ctx.pinned_budget, ctx.pinned_refused)
    usage = usage if usage is not None else usage_from_traces(ctx.traces)
    out += check_pinned_unused(facts, usage, ctx.words or _words, ctx.function_words)
    out += check_freshness(facts, ctx.now, memo)
    out += check_oversized(facts, ctx.scans)
    out += check_recall_usage(facts, usage, ctx.now, memo)
    return out


# --------------------------------------------------------------------------- inputs


def _signature(path: str) -> str:
    try:
        st = os.lstat(path)
    except OSError:
        return "missing"
    return f"{st.st_size}:{st.st_mtime_ns}"


def gather(
    layout: Layout,
    settings: Settings,
    store: Store | None = None,
    *,
    now: Timestamp | None = None,
    facts: Sequence[Fact] | None = None,
    errors: Sequence[tuple[str, str, str]] | None = None,
) -> HealthContext:
    """Read what the checks need: the store's active facts and unreadable files (unless
    given), the recorded recall traces and the instruction diagnostics of the workspace."""
    from ..instructions.resolver import resolve
    from ..recall.trace import TraceStore

    if facts is None or errors is None:
        from ..store.store import Store

        snap = (store or Store(layout, settings=settings, actor="cli")).snapshot()
        facts = snap.facts if facts is None else facts
        errors = [(e.path, e.scope, e.message) for e in snap.errors] if errors is None else errors
        now = now or snap.loaded_at
    now = now or Timestamp.now()
    traces = TraceStore(layout).history(100_000)
    diagnostics: dict[tuple[str, str, str, int], Any] = {}
    for target in instruction_targets(str(layout.workspace)):
        try:
            found = resolve(target, str(layout.root), str(layout.workspace)).diagnostics
        except (OSError, ValueError):
            continue
        for d in found:
            if d.code == "target_outside_workspace" and target != str(layout.workspace):
                continue
            diagnostics.setdefault((d.code, d.path, d.source_path, d.line), d)
    return HealthContext(
        facts=facts,
        scans={},
        now=now,
        pinned_budget=settings.pinned_budget_chars,
        pinned_refused=settings.pinned_ceiling > 0,
        errors=[(p, s, m, _signature(p)) for p, s, m in errors],
        traces=traces,
        diagnostics=tuple(diagnostics.values()),
        workspace=str(layout.workspace),
        function_words=function_words(),
    )


INSTRUCTION_WALK_LIMIT = 2000
"""Folders of the workspace looked at for instruction documents below the root."""
_SKIP_DIRS = frozenset({"node_modules", "__pycache__", "target", "dist", "build"})


def instruction_targets(workspace: str, limit: int = INSTRUCTION_WALK_LIMIT) -> list[str]:
    """The workspace root and every folder below it that holds an instruction document
    (hidden folders and dependency or build folders skipped; at most ``limit`` folders
    walked), so imports rejected or missing in a sub-folder's ``AGENTS.md`` are found too."""
    from ..instructions.documents import DOCUMENT_NAMES, LOCAL_DOCUMENT_NAMES

    names = frozenset(DOCUMENT_NAMES + LOCAL_DOCUMENT_NAMES)
    out = [workspace]
    seen = 0
    for here, dirs, files in os.walk(workspace):
        seen += 1
        if seen > limit:
            break
        dirs[:] = sorted(d for d in dirs if not d.startswith(".") and d not in _SKIP_DIRS)
        if here != workspace and names.intersection(files):
            out.append(here)
    return out


def function_words() -> frozenset[str]:
    """Words that are never evidence of a topic (the language package's English closed class)."""
    try:
        from ..lang import FUNCTION_WORDS
    except ImportError:
        return frozenset()
    return frozenset(FUNCTION_WORDS)


def health_report(
    layout: Layout,
    settings: Settings,
    store: Store | None = None,
    *,
    now: Timestamp | None = None,
    checker: HealthChecker | None = None,
) -> HealthReport:
    """Findings of the workspace's store with the dismissals of its state root applied
    (scans are memoised on disk under the cache folder)."""
    from ..recall.memo import FACT_MEMO
    from ..recall.memo import memo_path as recall_memo_path

    checker = checker or HealthChecker(memo_path(layout))
    # a one-shot process: analysed fields and meaning vectors of unchanged facts come from the last run
    FACT_MEMO.attach(recall_memo_path(layout.cache_dir))
    ctx = gather(layout, settings, store, now=now)
    report = checker.report(ctx, Dismissals(layout).fingerprints())
    checker.save()
    FACT_MEMO.save()
    return report
