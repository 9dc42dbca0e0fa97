"""Recall traces: ``TraceStore`` (last.json + bounded history.jsonl), the ``/memory recall``
rendering, ``run_recall``/``try_recall``, and the CLI round trip
(``recall "…" --json`` then ``memory recall --json``)."""

from __future__ import annotations

import gc
import json
import threading
from pathlib import Path

import pytest
from sectioned_probe import run_reporting_freeze

from reasonix_tui.core.compat.gotime import DAY_NS, Timestamp, parse_rfc3339
from reasonix_tui.core.paths import Layout
from reasonix_tui.core.recall import (
    RecallTrace,
    TraceStore,
    clear_index_cache,
    recall,
    render_history_text,
    render_recall_text,
    run_recall,
    try_recall,
)
from reasonix_tui.core.settings import Settings
from reasonix_tui.core.store.fileformat import render_fact
from reasonix_tui.core.store.model import Fact, FactId, slug
from reasonix_tui.integrations.cli import main

NOW = parse_rfc3339("2026-07-27T00:00:00Z")
assert NOW is not None


def write(layout: Layout, fid: str, name: str, body: str, scope: str = "project", **kw: object) -> Fact:
    updated = kw.pop("updated", Timestamp(NOW.ns - 2 * DAY_NS))
    fact = Fact(
        id=FactId(fid),
        revision=int(kw.pop("revision", 1)),
        created_at=updated,
        updated_at=updated,  # type: ignore[arg-type]
        name=name,
        title=str(kw.pop("title", "")),
        description=str(kw.pop("description", "")),
        body=body,
        scope=scope,
        file_scope=scope,
        **kw,
    )  # type: ignore[arg-type]
    d = layout.dir_for(scope)
    d.mkdir(parents=True, exist_ok=True)
    (d / f"{slug(name)}.md").write_text(render_fact(fact), encoding="utf-8")
    return fact


@pytest.fixture
def seeded(layout: Layout) -> Layout:
    clear_index_cache()
    write(
        layout,
        "mem-deploy",
        "deploy-target",
        "Deploy payments to the green cluster.",
        title="Deploy target",
        description="Deployment target for payments",
    )
    write(
        layout,
        "mem-gdeploy",
        "deploy-target",
        "Deploy payments to the legacy cluster.",
        scope="global",
        title="Deploy target",
    )
    write(layout, "mem-lint", "lint", "Always run make lint before committing.", activation="pinned", title="Lint")
    return layout


def cli(layout: Layout, *args: str) -> list[str]:
    return ["--home", str(layout.root), "--workspace", str(layout.workspace), *args]


# ----------------------------------------------------------------- TraceStore


def _trace(query: str, **kw: object) -> RecallTrace:
    facts = [
        Fact(
            id=FactId("mem-1"),
            revision=2,
            created_at=NOW,
            updated_at=NOW,
            name="redis-cache",
            title="Redis cache",
            body="redis cache timeout 250 ms",
        )
    ]
    result = recall(facts, query, NOW)
    return RecallTrace.from_result(result, at=NOW, **kw)  # type: ignore[arg-type]


def test_round_trip_last_and_history(layout: Layout) -> None:
    store = TraceStore(layout)
    assert store.last() is None and store.history(5) == []
    a = _trace("redis cache timeout", source="hook", session_id="s-1")
    b = _trace("continue", source="cli")
    store.record(a)
    store.record(b)
    assert store.last() == b
    assert store.history(5) == [b, a]
    assert store.history(1) == [b]
    assert (layout.recall_dir / "last.json").is_file() and (layout.recall_dir / "history.jsonl").is_file()
    data = json.loads((layout.recall_dir / "last.json").read_text())
    assert data["query"] == "continue" and data["suppressed"] == "generic user turn"
    back = RecallTrace.from_json(a.to_json())
    assert back == a and back.hits[0].id == "mem-1" and back.hits[0].revision == 2


def test_trace_fields(layout: Layout) -> None:
    t = _trace("redis cache timeout", source="hook", session_id="s-9")
    d = t.to_json()
    for key in (
        "query",
        "at",
        "source",
        "session_id",
        "hits",
        "considered",
        "suppressed",
        "used_chars",
        "char_budget",
        "omitted_by_limit",
        "omitted_by_budget",
        "block",
        "mode",
    ):
        assert key in d
    hit = d["hits"][0]
    for key in ("id", "ref", "name", "revision", "scope", "type", "freshness", "score", "reason", "snippet"):
        assert key in hit
    assert hit["ref"] == "project/redis-cache.md"
    cand = d["considered"][0]
    assert cand["selected"] is True and cand["why"].startswith("selected:")
    assert d["at"] == "2026-07-27T00:00:00Z" and d["used_chars"] == len(d["block"])


def test_history_is_bounded(layout: Layout) -> None:
    store = TraceStore(layout, keep=5, rotate_bytes=4096)
    for i in range(40):
        store.record(_trace(f"redis cache timeout {i}"))
    lines = store.history_path.read_text().splitlines()
    assert len(lines) <= 40 and store.history_path.stat().st_size <= 4096 + 4096
    newest = store.history(100)
    assert newest[0].query == "redis cache timeout 39"
    assert len(newest) < 40  # rotated
    assert [t.query for t in newest] == sorted((t.query for t in newest), key=lambda q: -int(q.split()[-1]))


def test_unreadable_traces_are_skipped(layout: Layout) -> None:
    store = TraceStore(layout)
    store.record(_trace("redis cache timeout"))
    with open(store.history_path, "a") as fh:
        fh.write("{not json\n[1,2]\n")
    assert [t.query for t in store.history(10)] == ["redis cache timeout"]
    store.last_path.write_text("garbage")
    assert store.last() is None


def test_concurrent_records_keep_every_line(layout: Layout) -> None:
    store = TraceStore(layout)
    threads = [threading.Thread(target=lambda i=i: store.record(_trace(f"redis cache {i}"))) for i in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(store.history(100)) == 8 and store.last() is not None


# ----------------------------------------------------------------- /memory recall text (§D.2)


def test_render_recall_text() -> None:
    assert render_recall_text(None) == "last memory recall: none"
    t = _trace("  redis\n cache   timeout ")
    hit = t.hits[0]
    assert render_recall_text(t) == (
        "last memory recall\n"
        "  query=redis cache timeout\n"
        f"  budget={t.used_chars}/2400 omitted=0\n"
        f"  id=mem-1 revision=2 scope=project type=project freshness=fresh score={hit.score:.3f}\n"
        f"    name=redis-cache reason={hit.reason}"
    )
    g = _trace("continue")
    assert render_recall_text(g) == (
        "last memory recall\n  query=continue\n  budget=0/2400 omitted=0 suppressed=generic user turn"
    )
    text = render_history_text([g, t])
    assert text.startswith("memory recall #1 at=2026-07-27T00:00:00Z source=cli mode=enhanced\n  query=continue")
    assert "\n\nmemory recall #2 " in text


# ----------------------------------------------------------------- service


def test_run_recall_records_and_try_recall_does_not(seeded: Layout) -> None:
    store = TraceStore(seeded)
    r = try_recall(seeded, Settings(), "deploy payments target cluster", now=NOW)
    assert [h.fact.id for h in r.hits] == ["mem-deploy"] and store.last() is None
    t = run_recall(
        seeded, "deploy payments target cluster", settings=Settings(), source="hook", session_id="abc", now=NOW
    )
    assert store.last() == t and t.source == "hook" and t.session_id == "abc"
    assert t.workspace == str(seeded.workspace)
    decisions = {c.id: c.decision for c in t.considered}
    assert decisions == {"mem-deploy": "selected", "mem-gdeploy": "suppressed"}
    assert "legacy" not in t.block


def test_run_recall_survives_an_unwritable_trace_dir(seeded: Layout) -> None:
    seeded.recall_dir.parent.mkdir(parents=True, exist_ok=True)
    seeded.recall_dir.write_text("a file where the directory should be")
    t = run_recall(seeded, "deploy payments target cluster", settings=Settings(), now=NOW)
    assert t.hits and any(n.startswith("trace not recorded") for n in t.notes)


def test_no_memory_hides_recall(seeded: Layout) -> None:
    t = run_recall(seeded, "deploy payments target cluster", settings=Settings(no_memory=True), now=NOW)
    assert t.block == "" and t.suppressed == "memory store is empty"


# ----------------------------------------------------------------- CLI


def test_cli_recall_json_then_memory_recall_json(seeded: Layout, capsys: pytest.CaptureFixture[str]) -> None:
    assert (
        main(
            cli(
                seeded, "recall", "deploy payments target cluster", "--json", "--source", "hook", "--session-id", "s-42"
            )
        )
        == 0
    )
    recorded = json.loads(capsys.readouterr().out)
    assert recorded["hits"][0]["id"] == "mem-deploy" and recorded["session_id"] == "s-42"
    assert main(cli(seeded, "memory", "recall", "--json")) == 0
    shown = json.loads(capsys.readouterr().out)
    assert shown == recorded


def test_cli_recall_prints_the_block_and_memory_recall_text(seeded: Layout, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(cli(seeded, "recall", "deploy", "payments", "target", "cluster")) == 0
    out = capsys.readouterr().out
    assert out.startswith("<memory-recall>\n") and out.endswith("</memory-recall>\n") and "green cluster" in out
    assert main(cli(seeded, "memory", "recall")) == 0
    text = capsys.readouterr().out
    assert text.startswith("last memory recall\n  query=deploy payments target cluster\n  budget=")
    assert "  id=mem-deploy revision=1 scope=project type=project freshness=" in text


def test_cli_recall_puts_the_cycle_collector_back(seeded: Layout, capsys: pytest.CaptureFixture[str]) -> None:
    # the one-shot command pauses the collector for its run only; driven in-process (not the
    # process's own entry) it freezes nothing
    try:
        assert gc.isenabled()
        frozen = gc.get_freeze_count()
        assert main(cli(seeded, "recall", "deploy payments target cluster")) == 0
        assert gc.isenabled() and "green cluster" in capsys.readouterr().out
        assert gc.get_freeze_count() == frozen
        gc.disable()
        assert main(cli(seeded, "recall", "deploy payments target cluster", "--dry-run")) == 0
        assert not gc.isenabled()
    finally:
        gc.enable()
        gc.unfreeze()


def test_recall_freezes_only_in_a_process_started_for_it(seeded: Layout) -> None:
    # `reasonix-tui recall` (main() with this process's own arguments) freezes what it made
    # before exit; the same command driven in-process (above) does not
    done = run_reporting_freeze(cli(seeded, "recall", "deploy payments target cluster", "--dry-run"))
    assert "frozen True 0" in done.stderr and "green cluster" in done.stdout


def test_cli_recall_suppressed_and_dry_run(seeded: Layout, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(cli(seeded, "recall", "continue")) == 0
    captured = capsys.readouterr()
    assert captured.out == "" and "nothing recalled (generic user turn)" in captured.err
    assert main(cli(seeded, "recall", "deploy payments target cluster", "--dry-run")) == 0
    capsys.readouterr()
    assert TraceStore(seeded).last().query == "continue"  # type: ignore[union-attr]
    assert main(cli(seeded, "recall", "MaxOpenConns", "--mode", "reasonix-exact", "--json")) == 0
    assert json.loads(capsys.readouterr().out)["mode"] == "reasonix-exact"


def test_cli_memory_recall_history(seeded: Layout, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(cli(seeded, "memory", "recall")) == 0
    assert capsys.readouterr().out == "last memory recall: none\n"
    for q in ("deploy payments target cluster", "continue", "make lint"):
        main(cli(seeded, "recall", q))
    capsys.readouterr()
    assert main(cli(seeded, "memory", "recall", "--history", "2", "--json")) == 0
    items = json.loads(capsys.readouterr().out)
    assert [t["query"] for t in items] == ["make lint", "continue"]
    assert main(cli(seeded, "memory", "recall", "--history", "3")) == 0
    out = capsys.readouterr().out
    assert out.count("memory recall #") == 3
    # the pinned fact is explained, not recalled
    last = TraceStore(seeded).last()
    assert last is not None and {c.id: c.decision for c in last.considered}.get("mem-lint") == "pinned"
    lint = next(c for c in last.considered if c.id == "mem-lint")
    assert lint.why == "pinned: its body rides the pinned channel, so recall skips it"  # said once
    assert main(cli(seeded, "memory", "recall", "--history", "0")) == 2
    assert "at least 1" in capsys.readouterr().err


def test_trace_directory_is_per_workspace(seeded: Layout, tmp_path: Path) -> None:
    other_ws = tmp_path / "other"
    other_ws.mkdir()
    other = Layout.resolve(home=seeded.root, workspace=other_ws)
    run_recall(seeded, "deploy payments target cluster", settings=Settings(), now=NOW)
    assert TraceStore(other).last() is None and TraceStore(seeded).last() is not None


def test_trace_names_the_channels_of_hits_and_candidates(layout: Layout) -> None:
    """Each hit and each losing candidate says which channel contributed (lexical,
    translated, meaning, supersession, subject), and the trace keeps it through JSON."""
    write(
        layout,
        "mem-old",
        "node-version",
        "Use Node 20 (see .nvmrc).",
        title="Node version",
        subject_key="runtime.node",
        updated=Timestamp(NOW.ns - 90 * DAY_NS),
    )
    write(
        layout,
        "mem-new",
        "node-runtime",
        "Node 22 LTS now; .nvmrc says 22.",
        title="Node runtime",
        subject_key="runtime.node",
    )
    write(layout, "mem-zh", "fly-notes", "部署用 fly deploy，生产环境在 fly.production.toml。", title="部署")
    trace = run_recall(layout, "which node version do we use?", now=NOW)
    assert [h.id for h in trace.hits] == ["mem-new"]
    assert any(ch.startswith("lexical: ") for ch in trace.hits[0].channels)
    old = {c.id: c for c in trace.considered}["mem-old"]
    assert old.decision == "superseded" and any(ch.startswith("subject: superseded by mem-new") for ch in old.channels)
    again = TraceStore(layout).last()
    assert again is not None and again.hits[0].channels == trace.hits[0].channels
    assert {c.id: c.channels for c in again.considered}["mem-old"] == old.channels
    zh = run_recall(layout, "how do we deploy to production?", now=NOW)
    assert "mem-zh" in [h.id for h in zh.hits]
    assert any(ch.startswith("translated: deploy→部署") for ch in zh.hits[0].channels)


def test_channel_lists_in_one_batch_equal_one_by_one() -> None:
    """The trace's batch of channel lists and matched words (one gather per query word) says
    exactly what the per-fact lookups say, including meaning similarities and facts the
    meaning channel did not score."""
    import numpy as np

    from reasonix_tui.core.recall import get_index
    from reasonix_tui.core.recall.channels import ChannelIndex, Similarities, score_query

    facts = tuple(
        Fact(
            id=FactId(f"mem-{i}"),
            revision=1,
            created_at=NOW,
            updated_at=NOW,
            name=f"fact-{i}",
            title=title,
            description="",
            body=body,
            scope="project",
        )
        for i, (title, body) in enumerate(
            [
                ("Deploy", "deploy with make release after the canary passes"),
                ("Redis cache", "the redis cache timeout is 30 s; retries use RetryPolicy"),
                ("Lint", "run ruff before every commit"),
                ("数据库迁移", "迁移前先备份数据库"),
            ]
        )
    )
    cidx = get_index(facts).extra("channels", ChannelIndex.build)
    cs = score_query(cidx, "how do we deploy the redis cache? 数据库迁移")
    docs = list(range(cidx.n))
    assert cs.channels_of(cidx, docs) == [cs.channels(cidx, d) for d in docs]
    assert cs.matched_of(docs) == [cs.matched(d) for d in docs]
    assert any(any(c.startswith("lexical: ") for c in chans) for chans in cs.channels_of(cidx, docs))
    sims = Similarities(np.asarray([1, 3]), np.asarray([0.5, 0.25], dtype=np.float32))
    assert sims.get_many(np.asarray([0, 1, 2, 3, 4])) == [None, 0.5, None, 0.25, None] and len(sims) == 2
    assert Similarities().get(0) is None
