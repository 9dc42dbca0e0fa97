"""The one-shot fast path: an unchanged store answers from the last report.

A one-shot ``memory health`` on a store nobody touched since the last run would otherwise
load the whole snapshot, the checker's state and every per-fact finding only to find
them all unchanged. After every full report :func:`save_quick` keeps, in one small
sealed (checksummed, versioned, 0600) file beside the checker's state, the report's
findings as plain tuples with what they were computed from:

* a **validation key** (:func:`validation_key`): the stat key (size, mtime, inode, ctime —
  what the store's own parse cache trusts) of every fact file of both scopes in listing
  order, the recorded traces' files, the settings the checks read, and the code that
  shapes findings (:func:`code_version`);
* the moment the findings were computed for and the first moment after it at which one
  of them could read differently (:func:`~.freshness.valid_until`: ages, expiries and
  freshness windows move with the clock).

:func:`quick_report` answers when the key is equal and the clock is within that span:
only the instruction findings (the documents are found by a walk of the workspace and
may import files anywhere) and the dismissals are computed again. Anything else — a
missing, damaged or older file, another key — returns ``None``, and the caller runs the
full checks. The answer equals the full run's, field by field (tested).

This module imports nothing heavy (no numpy, no resolver), so the fast path also spares
the imports.
"""

from __future__ import annotations

import hashlib
import os
import struct
from collections.abc import Sequence
from functools import cache
from typing import TYPE_CHECKING, Any

from ..compat.gotime import Timestamp
from ..paths import Layout
from ..settings import Settings
from ..store import safeio
from ..store.atomic import atomic_write
from ..store.sealed import seal, source_stamp, unseal
from .model import Finding, HealthReport, TraceSpan, sort_key
from .state import Decoder, encode_with

if TYPE_CHECKING:
    from ..store.store import Store

__all__ = ["code_version", "validation_key", "state_path", "quick_path", "save_quick", "quick_report", "LIVE_KINDS"]

_MAGIC = b"RXTHLTHQ"
_HEAD = struct.Struct("<20sqq")
"""The validation key, the moment the findings were computed for, the end of their span."""
LIVE_KINDS = frozenset({"instruction"})
"""Kinds computed again on every call (their inputs are not covered by the key)."""

_STAMPED = (
    "base",
    "duplicates",
    "files",
    "freshness",
    "model",
    "neighbours",
    "pairs",
    "similar",
    "state",
    "usage",
    "quick",
    "resolver_inputs",
)
"""Modules of this package whose code shapes findings."""


@cache
def code_version() -> str:
    """A stamp of the code and data that shape findings (sources by content, the secret
    detector's and the meaning model's distributions by version)."""
    from importlib.metadata import PackageNotFoundError, version

    versions = []
    for dist in ("detect-secrets", "wordllama"):
        try:
            versions.append(version(dist))
        except PackageNotFoundError:  # a missing distribution only changes the stamp
            versions.append("?")
    here = os.path.dirname(__file__)
    core = os.path.dirname(here)
    stamp = source_stamp(
        *(os.path.join(core, "agent", f"{m}.py") for m in ("secrets", "secret_kinds", "secret_detection", "policy")),
        os.path.join(core, "resolve.py"),
        os.path.join(core, "topic_search.py"),
        os.path.join(core, "tool_override.py"),
        os.path.join(core, "recall", "fields.py"),
        os.path.join(core, "compat", "tokenize.py"),
        *(
            os.path.join(core, "lang", f"{m}.py")
            for m in ("__init__", "terms", "chinese", "english", "meaning", "prior")
        ),
        os.path.join(core, "store", "freshness.py"),
        os.path.join(core, "store", "model.py"),
        *(os.path.join(here, f"{m}.py") for m in _STAMPED),
    )
    return f"{stamp}:{':'.join(versions)}:3"


def state_path(layout: Layout, suffix: str) -> str:
    """A file of this workspace's health state under the cache folder."""
    tag = hashlib.blake2b(layout.slug.encode("utf-8", "surrogatepass"), digest_size=6).hexdigest()
    return os.path.join(os.fspath(layout.cache_dir), f"health-{tag}{suffix}")


def quick_path(layout: Layout) -> str:
    """Where the last report is kept (beside the checker's state)."""
    return state_path(layout, ".quick")


def _store_dirs(layout: Layout, store: Store | None) -> list[tuple[str, str]]:
    project = os.fspath(store.project_dir if store is not None else layout.project_dir)
    glob = os.fspath(store.global_dir if store is not None else layout.global_dir)
    return [("global", glob), ("project", project)] if glob != project else [("project", project)]


_STAT = struct.Struct("<4q")


def validation_key(layout: Layout, settings: Settings, store: Store | None = None) -> bytes:
    """A digest of everything the findings (but the instruction ones) are computed from:
    each fact file's name and stat key, the recorded traces' files, the settings read."""
    from ..recall.trace import TraceStore
    from ..store.cache import stat_key
    from ..store.scan import fact_entries

    h = hashlib.blake2b(digest_size=20)
    h.update(f"{code_version()}\0{settings.pinned_budget_chars}\0{settings.pinned_ceiling > 0}".encode())
    for scope, directory in _store_dirs(layout, store):
        h.update(f"\1{scope}\0{directory}\0".encode("utf-8", "surrogatepass"))
        for _, name, st, error in fact_entries(directory):
            h.update(name.encode("utf-8", "surrogatepass") + b"\0")
            h.update(_STAT.pack(*stat_key(st)) if st is not None else b"!" + error.encode("utf-8", "surrogatepass"))
    traces = TraceStore(layout)
    for path in (traces.last_path, traces.history_path):
        try:
            st = os.stat(path)
        except OSError:
            h.update(b"\2-")
            continue
        h.update(b"\2" + _STAT.pack(*stat_key(st)))
    return h.digest()


def _span(span: TraceSpan) -> tuple[Any, ...]:
    return (span.turns, None if span.first is None else span.first.ns, None if span.last is None else span.last.ns)


def save_quick(
    path: str,
    key: bytes,
    findings: Sequence[Finding],
    report: HealthReport,
    valid_until: int,
    encoded: dict[int, tuple[Finding, Any]] | None = None,
) -> bool:
    """Keep ``findings`` (every finding of the run, in the run's order, dismissed ones
    too) for :func:`quick_report` (best effort; ``encoded``: values already encoded,
    :func:`~.state.encode_with`)."""
    if report.generated_at is None or valid_until <= report.generated_at.ns:
        _drop(path)
        return False
    at = next((i for i, f in enumerate(findings) if f.kind in LIVE_KINDS), None)
    kept = [encode_with(f, encoded) for f in findings if f.kind not in LIVE_KINDS]
    live_at = len(kept) if at is None else sum(1 for f in findings[:at] if f.kind not in LIVE_KINDS)
    value = (
        code_version(),
        key,
        report.generated_at.ns,
        valid_until,
        report.facts,
        _span(report.span),
        tuple(report.partial),
        live_at,
        tuple(kept),
    )
    try:
        # the key and the span first, outside the seal: a call on a changed store reads
        # only them (the sealed value repeats them, and is checked against them)
        atomic_write(
            path, _HEAD.pack(key, report.generated_at.ns, valid_until) + seal(_MAGIC, value), 0o600, durable=False
        )
    except (OSError, ValueError):
        return False
    return True


def _drop(path: str) -> None:
    try:
        os.unlink(path)
    except OSError:
        pass


def quick_report(
    layout: Layout,
    settings: Settings,
    store: Store | None = None,
    *,
    now: Timestamp | None = None,
    key: bytes | None = None,
) -> HealthReport | None:
    """The report of an unchanged store from the last run's findings, or ``None`` when
    the store, the traces, the settings or the code changed, or the clock moved past
    what the findings hold for."""
    if now is None:
        now = store.clock() if store is not None else Timestamp.now()
    key = key if key is not None else validation_key(layout, settings, store)
    try:
        fd = safeio.open_regular(quick_path(layout))
    except OSError:
        return None
    try:
        head = os.read(fd, _HEAD.size)
        if len(head) != _HEAD.size:
            return None
        saved_key, built, until = _HEAD.unpack(head)
        if saved_key != key or not built <= now.ns < until:
            return None
        blob = safeio.read_fd(fd, None)
    except OSError:
        return None
    finally:
        os.close(fd)
    data = unseal(_MAGIC, blob)
    if type(data) is not tuple or len(data) != 9 or data[0] != code_version():
        return None
    _, sealed_key, sealed_built, sealed_until, facts, span, partial, live_at, kept = data
    if (sealed_key, sealed_built, sealed_until) != (saved_key, built, until):
        return None
    from .dismissals import Dismissals
    from .files import check_instructions
    from .inputs import instruction_diagnostics

    try:
        decoder = Decoder()
        found = [decoder.finding(v) for v in kept]
        turns, first, last = span
        trace_span = TraceSpan(
            turns, None if first is None else Timestamp(first), None if last is None else Timestamp(last)
        )
    except (TypeError, ValueError):
        return None
    found[live_at:live_at] = check_instructions(instruction_diagnostics(layout), str(layout.workspace))
    gone = Dismissals(layout).fingerprints()
    open_ = sorted((f for f in found if f.fingerprint not in gone), key=sort_key)
    hidden = sorted((f for f in found if f.fingerprint in gone), key=sort_key)
    return HealthReport(tuple(open_), tuple(hidden), now, int(facts), trace_span, tuple(partial))
