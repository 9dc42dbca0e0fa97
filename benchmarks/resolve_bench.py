"""The subject/topic resolver over a whole store: CPU time and peak memory of ``resolve()``.

Loads a store (``--store DIR`` holding ``root/`` and ``ws/`` as ``query_cost_bench.py``
builds them, or ``--size N`` generated facts in a scratch folder), prepares every fact's
per-fact values (topic terms from the language analysis, meaning vectors: what the
per-fact memo keeps, timed apart as ``prep``), then times ``resolve()`` itself — the
candidate search, the pair measures, the decisions. Prints wall and CPU seconds beside the
load average, the process's peak RSS before and after ``resolve()`` and the number of
supersessions found (compare it between two codes: ``--code DIR`` runs the package found
in ``DIR`` instead of this checkout, e.g. ``git archive main | tar -x -C /tmp/base``).

``--memo FILE`` keeps the per-fact values on disk between runs (a 100k analysis costs
minutes of CPU); ``--shared-memo`` versions that file by this script only, so two codes
whose per-fact analysis is the same (the resolver changed, the language analysis did not)
share one file. Run one 100k job at a time and cap its memory: ``prlimit --as=8000000000``.

Usage: ``python benchmarks/resolve_bench.py --size 10000 [--memo F] [--code DIR] [--lexical] [--pin N]``
"""

from __future__ import annotations

import argparse
import hashlib
import os
import resource
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent


def _args() -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--store", type=Path, help="a folder holding root/ and ws/")
    p.add_argument("--size", type=int, default=10000, help="generated facts when --store is not given")
    p.add_argument("--memo", type=Path, help="the per-fact memo file to read and write")
    p.add_argument("--shared-memo", action="store_true", help="version the memo by this script only")
    p.add_argument("--code", type=Path, help="run the package in this folder (a baseline)")
    p.add_argument("--lexical", action="store_true", help="the meaning channel off")
    p.add_argument(
        "--synthetic",
        type=int,
        default=0,
        help="N facts with made-up topic terms instead of a store (no language analysis): "
        "six label terms each from a vocabulary of N/4, so label terms are shared by ~24 facts "
        "(the candidate search's worst case); every 50th fact repeats its neighbour's labels",
    )
    p.add_argument(
        "--pin",
        type=int,
        default=0,
        help="mark this many global facts pinned (global defaults: what the other-tool override search compares)",
    )
    p.add_argument("--reps", type=int, default=1, help="resolve() runs (a fresh snapshot cache each)")
    return p.parse_args()


def _rss_mib() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def main() -> None:
    args = _args()
    sys.path.insert(0, str(args.code.resolve() if args.code else HERE.parent))
    sys.path.insert(1, str(HERE))
    from reasonix_tui.core import resolve as R
    from reasonix_tui.core.paths import Layout
    from reasonix_tui.core.recall import memo as M
    from reasonix_tui.core.store.live import LiveStore

    print(f"code {os.path.dirname(os.path.dirname(R.__file__))}, load {os.getloadavg()[0]:.1f}")
    if args.synthetic:
        _synthetic(args.synthetic, R, M)
        return
    if args.store is not None:
        tmp = args.store
    else:
        from query_cost_bench import build

        tmp = Path(tempfile.mkdtemp(prefix="resolve-bench-"))
        build(tmp, args.size)
    layout = Layout.resolve(home=tmp / "root", workspace=tmp / "ws")
    t, c = time.perf_counter(), time.process_time()
    facts = LiveStore(layout, watch=False).snapshot().facts
    print(f"load: {len(facts)} facts, {time.perf_counter() - t:.2f} s wall, {time.process_time() - c:.2f} s CPU")
    if args.pin:
        from dataclasses import replace

        glob = [i for i, f in enumerate(facts) if f.scope == "global"][: args.pin]
        facts = list(facts)
        for i in glob:
            facts[i] = replace(facts[i], activation="pinned")
        print(f"pinned: {len(glob)} global facts")
    if args.memo is not None:
        if args.shared_memo:
            M._MEMO_VERSION = "resolve-bench:1"  # type: ignore[attr-defined]
        M.FACT_MEMO.attach(args.memo)
    t, c = time.perf_counter(), time.process_time()
    M.FACT_MEMO.register_transient("topic-sets")
    for f in facts:
        M.FACT_MEMO.get(f, "topic-sets", R._topic_sets)
    if not args.lexical:
        R._meaning_vectors(facts, True)
    saved = M.FACT_MEMO.save()
    print(
        f"prep (per-fact values{', memo saved' if saved else ''}): "
        f"{time.perf_counter() - t:.2f} s wall, {time.process_time() - c:.2f} s CPU, "
        f"peak RSS {_rss_mib():.0f} MiB"
    )
    for _ in range(args.reps):
        R._CACHE.clear()
        load = os.getloadavg()[0]
        t, c = time.perf_counter(), time.process_time()
        res = R.resolve(facts, meaning=not args.lexical)
        wall, cpu = time.perf_counter() - t, time.process_time() - c
        digest = hashlib.sha256(
            repr(sorted((s.old.id, s.current.id, s.kind, s.evidence, s.certain) for s in res.items)).encode()
        ).hexdigest()[:12]
        kinds: dict[str, int] = {}
        for s in res.items:
            kinds[s.kind] = kinds.get(s.kind, 0) + 1
        print(
            f"resolve(): {wall:.2f} s wall, {cpu:.2f} s CPU at load {load:.1f}; peak RSS {_rss_mib():.0f} MiB; "
            f"{len(res)} superseded {dict(sorted(kinds.items()))}, answer {digest}"
        )
    _after_changes(list(facts), R, not args.lexical)


def _after_changes(facts: list[Any], R: Any, meaning: bool) -> None:
    """``resolve()`` of the next snapshot after one edited fact (the same number of facts)
    and after one new fact, each timed right after the previous snapshot was resolved."""
    from dataclasses import replace

    edited = list(facts)
    edited[len(facts) // 2] = replace(facts[len(facts) // 2], body=facts[len(facts) // 2].body + " Edited later.")
    added = [*facts, replace(facts[7], id=facts[7].id + "x", name=facts[7].name + "-copy", body="A new fact.")]
    from reasonix_tui.core.recall.memo import FACT_MEMO

    for fact in (edited[len(facts) // 2], added[-1]):  # analysed apart (the language models load once)
        FACT_MEMO.get(fact, "topic-sets", R._topic_sets)
        R._meaning_vectors([fact], meaning)
    for label, snapshot in (("after one edit", edited), ("after one new fact", added)):
        R._CACHE.clear()
        R.resolve(facts, meaning=meaning)
        load = os.getloadavg()[0]
        t, c = time.perf_counter(), time.process_time()
        res = R.resolve(snapshot, meaning=meaning)
        wall, cpu = time.perf_counter() - t, time.process_time() - c
        reused = getattr(getattr(R, "DECISIONS", None), "reused", "-")
        print(
            f"resolve() {label}: {wall:.2f} s wall, {cpu:.2f} s CPU at load {load:.1f}; {len(res)} superseded, decisions reused {reused}"
        )


def synthetic_facts(n: int, R: Any, M: Any) -> list[Any]:
    """``n`` facts whose topic terms are made up (memoised as their topic sets): six label
    terms each from a vocabulary of ``n/4`` (shared by ~24 facts), twenty keys from a
    long-tailed common vocabulary; every 50th fact repeats its neighbour's labels."""
    import random

    import numpy as np

    from reasonix_tui.core.compat.gotime import Timestamp
    from reasonix_tui.core.store.model import Fact, FactId

    rng = random.Random(n)
    vocab, common = max(n // 4, 10), 2000
    labels: list[list[str]] = []
    for i in range(n):
        labels.append(list(labels[-1]) if i % 50 == 49 else [f"w:l{rng.randrange(vocab)}" for _ in range(6)])
    M.FACT_MEMO.register_transient("topic-sets")
    facts, ids = [], {}
    for i in range(n):
        lab = frozenset(labels[i])
        keys = lab | {f"w:c{int(rng.paretovariate(1.2)) % common}" for _ in range(20)}
        fact = Fact(
            id=FactId(f"mem-{i:06d}"),
            revision=1,
            created_at=None,
            updated_at=Timestamp(1_700_000_000_000_000_000 + i * 1_000_000_000),
            name=f"fact-{i}",
            scope="project" if i % 3 else "global",
        )
        key_ids = np.asarray(sorted(ids.setdefault(k, len(ids)) for k in keys), dtype=np.int64)
        lab_ids = np.asarray(sorted(ids[k] for k in lab), dtype=np.int64)
        M.FACT_MEMO.put(fact, "topic-sets", (keys, lab, (), False, key_ids, lab_ids, np.zeros(0, np.int64)))
        facts.append(fact)
    ids_table = getattr(R, "_IDS", None)
    if ids_table is None:
        from reasonix_tui.core.topic_search import IDS as ids_table
    ids_table.update(ids)
    return facts


def _synthetic(n: int, R: Any, M: Any) -> None:
    """``topic_pairs`` (lexical) over ``n`` facts whose topic terms are made up."""
    facts = synthetic_facts(n, R, M)
    print(f"synthetic: {n} facts, peak RSS {_rss_mib():.0f} MiB")
    load = os.getloadavg()[0]
    t, c = time.perf_counter(), time.process_time()
    found = R.topic_pairs(facts, meaning=False)
    wall, cpu = time.perf_counter() - t, time.process_time() - c
    digest = hashlib.sha256(repr([(s.old.id, s.current.id, s.kind, s.evidence) for s in found]).encode()).hexdigest()
    print(
        f"topic_pairs(): {wall:.2f} s wall, {cpu:.2f} s CPU at load {load:.1f}; peak RSS {_rss_mib():.0f} MiB; "
        f"{len(found)} pairs, answer {digest[:12]}"
    )


if __name__ == "__main__":
    main()
