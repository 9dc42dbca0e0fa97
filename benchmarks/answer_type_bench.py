"""What the answer-type route of the meaning channel costs (``recall/answer_types.py``,
``meaning_alone.best_by_answer``).

* **build** — reading a fact's answer types (:func:`fact_types`), per fact, beside the
  per-fact analysis the index build already does (:func:`fact_fields`), on the generated
  facts of ``recall_bench.py``;
* **the route** — :func:`best_by_answer` itself over the ``--size`` facts' meaning vectors
  and answer types (one embedding of the turn's topic, one matrix-vector product, the
  nearest ``ANSWER_POOL`` facts), for typed turns, best of ``--reps`` runs each;
* **query** — warm enhanced recall at ``--size`` facts of those typed turns, with the
  route on and off (its cosine line set out of reach), interleaved turn by turn, best of
  ``--reps`` runs each; the median and p95 in ms. On the generated store the turns share
  everyday words with many facts, so this mostly shows that the route adds nothing to a
  turn that passes on words.

Usage::

    python benchmarks/answer_type_bench.py [--size 10000] [--reps 5]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

from recall_bench import NOW, make_facts, warm_enhanced  # noqa: E402

from reasonix_tui.core import lang  # noqa: E402
from reasonix_tui.core.lang import query_units  # noqa: E402
from reasonix_tui.core.recall import get_index, recall  # noqa: E402
from reasonix_tui.core.recall import meaning_alone as ma  # noqa: E402
from reasonix_tui.core.recall.answer_types import fact_types, question_types  # noqa: E402
from reasonix_tui.core.recall.channels import ChannelIndex  # noqa: E402
from reasonix_tui.core.recall.fields import fact_fields  # noqa: E402
from reasonix_tui.core.settings import Settings  # noqa: E402

TURNS = (
    "who's the go-to person for the checkout money flow?",
    "what's the local port for the backend?",
    "when do hotels receive their statements from us?",
    "where do I read the server's output when something errors?",
    "which library shows remote pictures in the apps?",
    "at what hour are people nudged to exercise?",
    "how far back could we restore if someone wiped a table?",
    "what manages paid plans and renewals?",
)


def _ms(samples: list[float]) -> tuple[float, float]:
    s = sorted(samples)
    return statistics.median(s) * 1e3, s[min(len(s) - 1, int(0.95 * len(s)))] * 1e3


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--size", type=int, default=10000)
    ap.add_argument("--reps", type=int, default=5)
    args = ap.parse_args(argv)
    assert all(question_types(t) for t in TURNS)
    lang.warm()
    sample = make_facts(1000, seed=3)
    t0 = time.process_time()
    for f in sample:
        fact_types(f)
    types_us = (time.process_time() - t0) / len(sample) * 1e6
    t0 = time.process_time()
    for f in sample[:200]:
        fact_fields(f)
    fields_us = (time.process_time() - t0) / 200 * 1e6
    print(f"build, CPU per fact: answer types {types_us:.0f} µs; the fields analysis beside it {fields_us:.0f} µs")

    facts = tuple(make_facts(args.size))
    index = get_index(facts)
    warm_enhanced(index)
    cidx = index.extra("channels", ChannelIndex.build)
    route: list[float] = []
    for turn in TURNS * 3:
        units = query_units(turn)
        best = float("inf")
        for _ in range(args.reps):
            t = time.perf_counter()
            ma.best_by_answer(cidx.vectors(), cidx.n, units, turn, cidx.answer_types)
            best = min(best, time.perf_counter() - t)
        route.append(best)
    med, p95 = _ms(route)
    print(f"the route at {args.size} facts (ms, median / p95): {med:.2f} / {p95:.2f}")
    settings = Settings()
    for t in TURNS:
        recall(facts, t, NOW, settings)
    arms = {"route on": ma.ANSWER_SIM, "route off": 9.0}
    wall: dict[str, list[float]] = {a: [] for a in arms}
    for turn in TURNS * 3:
        for arm, line in arms.items():
            ma.ANSWER_SIM = line
            best = float("inf")
            for _ in range(args.reps):
                t = time.perf_counter()
                recall(facts, turn, NOW, settings)
                best = min(best, time.perf_counter() - t)
            wall[arm].append(best)
    ma.ANSWER_SIM = arms["route on"]
    print(f"warm enhanced recall at {args.size} facts, typed turns sharing no word (ms, median / p95):")
    for arm in arms:
        med, p95 = _ms(wall[arm])
        print(f"  {arm:10} {med:7.2f} / {p95:7.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
