"""Enhanced recall's channel scoring follows the query words' postings (only the facts that
hold a query word are touched); it must say exactly what the dense computation over every
fact said: the same candidates, scores, gate, evidence, channels, matched words, meaning
similarities and vetoes, value for value."""

from __future__ import annotations

import dataclasses
import random

import numpy as np
import pytest
from dense_channels import dense_scores
from script_modules import bench

from reasonix_tui.core.recall import get_index
from reasonix_tui.core.recall.channel_hits import positions
from reasonix_tui.core.recall.channels import ChannelIndex, score_query
from reasonix_tui.core.store.model import FactId


def _bench() -> object:
    return bench("recall_bench")


_SPECIAL = [
    "MaxOpenConns timeout",  # an identifier's segments (a conjunction of keys)
    "how do I use nvm",  # a file-name prefix
    "数据库迁移怎么做",  # Chinese words, their segments and their glosses
    "部署流程 deploy 缓存失效 redis",
    "what is CACHE_TIMEOUT_MS",
    "pnpm-lock.yaml conflict after make migrate",
    "Deploy Release Branch",  # a title the query spells out
    "retries",
    "bump the version of the canary rollout",
    "payroll of the guitar teacher",  # one rare word in an unrelated turn: vetoed
    "any update on the deploy?",  # everyday words holding the whole turn (the gate's ``firm``)
    "回头再说",  # two words glossed to one word ("later"): counted once
    "有什么进展吗",  # one everyday Chinese word found as written: only the cosine itself carries it
]


@pytest.fixture(scope="module")
def store() -> tuple[ChannelIndex, list[str]]:
    rb = _bench()
    facts = rb.make_facts(400, seed=3)  # type: ignore[attr-defined]
    freeze = dataclasses.replace(  # one rare word shared with an unrelated turn: the meaning channel's veto
        facts[0],
        id=FactId("mem-freeze"),
        name="release-freeze",
        title="Release freeze",
        description="",
        keywords="",
        body="No deploys during the quarter-end freeze while the payroll batch runs.",
    )
    facts = (*facts, freeze)
    rng = random.Random(5)
    words = [w for f in facts for w in f.body.rstrip(".").split()]
    queries = [*rb.make_queries(40, seed=9), *_SPECIAL]  # type: ignore[attr-defined]
    queries += [" ".join(rng.sample(words, rng.randint(1, 5))) for _ in range(40)]
    return get_index(facts).extra("channels", ChannelIndex.build), queries


@pytest.mark.parametrize("dictionary, meaning", [(True, True), (False, True), (True, False)])
def test_sparse_scoring_equals_the_dense_computation(
    store: tuple[ChannelIndex, list[str]], dictionary: bool, meaning: bool
) -> None:
    cidx, queries = store
    every = list(range(cidx.n))
    vetoed = passed = 0
    for q in queries:
        cs = score_query(cidx, q, dictionary=dictionary, meaning=meaning)
        ref = dense_scores(cidx, q, dictionary=dictionary, meaning=meaning)
        hit = np.flatnonzero(np.any([w >= 0 for w in ref.which], axis=0)) if ref.which else np.zeros(0, int)
        hit = np.union1d(hit, [ref.alone] if ref.alone >= 0 else []).astype(int)
        assert cs.alone == ref.alone, q
        assert cs.docs.tolist() == hit.tolist(), q  # the facts some query word matched (and meaning alone's)
        at = cs.docs
        for name in ("score", "candidates", "passed", "evidence", "coverage"):
            dense = getattr(ref, name)
            assert np.array_equal(getattr(cs, name), dense[at]), (q, name)  # equal, not close
            outside = np.delete(dense, at)
            assert not outside.any(), (q, name)  # nothing outside the matched facts
        docs, scores, ok = cs.chosen()
        assert np.array_equal(docs, np.flatnonzero(ref.candidates)) and np.array_equal(scores, ref.score[docs])
        assert np.array_equal(ok, ref.passed[docs])
        assert cs.vetoed == ref.vetoed, q
        assert dict(zip(cs.sims.docs.tolist(), cs.sims.values.tolist())) == ref.sims, q
        assert cs.channels_of(cidx, every) == [ref.channels(cidx, cs.units, d) for d in every], q
        assert cs.matched_of(every) == [ref.matched(cs.units, d) for d in every], q
        assert [words for _, words in cs.explain_of(cidx, every)] == cs.matched_of(every)
        assert [cs.gate_figures(d) for d in every] == list(zip(ref.evidence.tolist(), ref.coverage.tolist()))
        vetoed += len(cs.vetoed)
        passed += int(cs.passed.sum())
    assert passed > 0  # the queries exercise the gate
    if meaning:
        assert vetoed > 0  # ... and the meaning channel's veto


def test_positions_by_sorting_and_by_marking_agree() -> None:
    rng = np.random.default_rng(1)
    for n, k in ((1000, 20), (1000, 900), (50, 0), (10, 200)):
        docs = rng.integers(0, n, size=k)
        few, few_at = positions(n * 100, docs)  # few documents for the store's size: sorted
        many, many_at = positions(n, docs)  # many: marked
        assert few.tolist() == many.tolist() == sorted(set(docs.tolist()))
        assert few_at.tolist() == many_at.tolist() and (few[few_at] == docs).all()
