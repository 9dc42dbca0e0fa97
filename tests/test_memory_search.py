"""The explicit ``memory`` tool (store-format §6.8, Reasonix ``recall.go``) and the session-start
pinned block (§10.4, ``BackgroundBlock``), through the core API and the CLI."""

from __future__ import annotations

import json
import math
from collections import Counter

import pytest

from reasonix_tui.core.compat.gotime import DAY_NS, Timestamp, parse_rfc3339
from reasonix_tui.core.compat.retrieval import go_json_quote
from reasonix_tui.core.compat.tokenize import query_terms, tokens
from reasonix_tui.core.paths import Layout
from reasonix_tui.core.recall import MemoryToolError, clear_index_cache, memory_tool_call, pinned_block, search_memories
from reasonix_tui.core.recall.pinned import MEMORY_PROTOCOL, pinned_report
from reasonix_tui.core.recall.term_matrix import search_text
from reasonix_tui.core.settings import Settings
from reasonix_tui.core.store.fileformat import render_fact
from reasonix_tui.core.store.model import Fact, FactId, slug
from reasonix_tui.core.store.store import Store
from reasonix_tui.integrations.cli import main

NOW = parse_rfc3339("2026-07-27T00:00:00Z")
assert NOW is not None


def F(fid: str, name: str, title: str = "", desc: str = "", body: str = "", days: float = 2, **kw: object) -> Fact:
    t = Timestamp(NOW.ns - int(days * DAY_NS))
    return Fact(
        id=FactId(fid),
        revision=int(kw.pop("revision", 1)),
        created_at=t,
        updated_at=t,
        name=name,  # type: ignore[arg-type]
        title=title,
        description=desc,
        body=body,
        **kw,
    )  # type: ignore[arg-type]


def save(layout: Layout, fact: Fact) -> None:
    d = layout.dir_for(fact.scope)
    d.mkdir(parents=True, exist_ok=True)
    (d / f"{slug(fact.name)}.md").write_text(render_fact(fact), encoding="utf-8")


@pytest.fixture(autouse=True)
def _fresh() -> None:
    clear_index_cache()


def bm25(docs: list[list[str]], terms: list[str], i: int) -> float:
    """Reasonix ``BM25Score``, written out independently."""
    n = len(docs)
    avg = sum(len(d) for d in docs) / n
    df = Counter(t for d in docs for t in set(d))
    counts = Counter(docs[i])
    score = 0.0
    for t in terms:
        tf = counts[t]
        if tf and df[t]:
            idf = math.log(1 + (n - df[t] + 0.5) / (df[t] + 0.5))
            score += idf * (tf * 2.2) / (tf + 1.2 * (0.25 + 0.75 * len(docs[i]) / avg))
    return score


FACTS = [
    F(
        "mem-a",
        "deploy-target",
        "Deploy target",
        "Deployment target for payments",
        "Deploy payments to the green cluster.",
    ),
    F("mem-b", "cluster-sizes", "Cluster sizes", "Node counts", "The green cluster has 12 nodes; the blue cluster 6."),
    F("mem-c", "lint", "Lint before commit", "Hook", "Always run make lint.", activation="pinned"),
    F(
        "mem-d",
        "old-promo",
        "Old promo",
        "Expired promo",
        "Promo code WELCOME10 for the cluster launch.",
        expires_at=Timestamp(NOW.ns - DAY_NS),
    ),
    F("mem-e", "style", "Style", "User style", "Terse answers.", scope="global", type="user"),
]


# ----------------------------------------------------------------- search


def test_search_scores_order_floor_and_pool() -> None:
    hits = search_memories(FACTS, "green cluster")
    docs = [tokens(search_text(f)) for f in FACTS]
    terms = query_terms("green cluster")
    want = sorted(
        ((bm25(docs, terms, i), f.name, f.id) for i, f in enumerate(FACTS) if bm25(docs, terms, i) > 0),
        key=lambda p: (-p[0], p[1]),
    )
    top = want[0][0]
    want = [w for j, w in enumerate(want) if j == 0 or w[0] >= 0.15 * top]
    assert [h.fact.id for h in hits] == [w[2] for w in want]
    for h, w in zip(hits, want):
        assert h.score == pytest.approx(w[0], rel=1e-12)
    # expired and pinned facts are searchable
    assert "mem-d" in [h.fact.id for h in search_memories(FACTS, "promo WELCOME10")]
    assert [h.fact.id for h in search_memories(FACTS, "make lint")] == ["mem-c"]


def test_search_indexes_type_and_scope_words() -> None:
    assert [h.fact.id for h in search_memories(FACTS, "global")] == ["mem-e"]
    assert {h.fact.id for h in search_memories(FACTS, "user")} == {"mem-e"}


def test_search_filters_limit_and_errors() -> None:
    assert [h.fact.id for h in search_memories(FACTS, "cluster", scope="GLOBAL")] == []
    assert {h.fact.id for h in search_memories(FACTS, "terse answers", type_="user")} == {"mem-e"}
    many = [F(f"mem-{i:02d}", f"fact-{i:02d}", body="shared word here") for i in range(30)]
    assert len(search_memories(many, "shared word")) == 8
    assert len(search_memories(many, "shared word", limit=50)) == 20
    assert len(search_memories(many, "shared word", limit=3)) == 3
    assert [h.fact.name for h in search_memories(many, "shared word", limit=3)] == ["fact-00", "fact-01", "fact-02"]
    with pytest.raises(MemoryToolError, match="^query is required$"):
        search_memories(FACTS, "   ")
    with pytest.raises(MemoryToolError, match="^query must contain at least one letter or number$"):
        search_memories(FACTS, "!!!")
    with pytest.raises(MemoryToolError, match="^type must be one of user, feedback, project, reference$"):
        search_memories(FACTS, "x", type_="note")
    with pytest.raises(MemoryToolError, match="^scope must be one of project, global$"):
        search_memories(FACTS, "x", scope="team")


def test_search_snippet_is_260_runes() -> None:
    fact = F("mem-long", "long", body="filler " * 100 + "needle here " + "tail " * 100)
    [hit] = search_memories([fact], "needle")
    assert len(hit.snippet) == 260 + 6 and hit.snippet.startswith("...") and hit.snippet.endswith("...")
    assert "needle here" in hit.snippet


def test_tool_search_output_format() -> None:
    hits = search_memories(FACTS, "green cluster")
    out = memory_tool_call(None, {"operation": "search", "query": "green cluster"}, facts=FACTS)
    a = hits[0]
    assert out.startswith('Memory search results for "green cluster":\n\n1. score=')
    block = (
        f"1. score={a.score:.3f} id=mem-b revision=1 name=cluster-sizes scope=project type=project title=Cluster sizes\n"
        "   reference: project/cluster-sizes.md\n"
        "   description: Node counts\n"
        f"   snippet: {a.snippet}\n"
    )
    assert a.fact.id == "mem-b" and block in out
    assert out.endswith('\n\nUse operation="read" with a stable memory id to inspect the full saved fact.')


def test_tool_no_match_message_quotes_like_go_json() -> None:
    out = memory_tool_call(None, {"operation": "search", "query": ' zzz <x> & "q" '}, facts=FACTS)
    assert out.splitlines() == [
        'No saved memories matched " zzz \\u003cx\\u003e \\u0026 \\"q\\" ".',
        "",
        "0 results does not prove the fact was never recorded. Try:",
        "1. Retry with 1-3 distinctive terms (function name, task id, rare phrase) instead of a long generic sentence.",
        "2. For exact literals that punctuation splits (URLs, ports, file paths, command flags), search one distinctive token or inspect the memory directory directly.",
        "3. For verbatim original wording or exact command output, use the history tool; saved memories may paraphrase.",
    ]
    assert go_json_quote("a\nb\tc\x01\b\f\u2028é") == '"a\\nb\\tc\\u0001\\b\\f\\u2028é"'


def test_tool_list_and_read(layout: Layout) -> None:
    for f in FACTS:
        save(layout, f)
    store = Store(layout, settings=Settings())
    out = memory_tool_call(store, {"operation": "list", "limit": 2})
    assert out == (
        "Saved memories:\n"
        "- [Cluster sizes](cluster-sizes.md) reference=project/cluster-sizes.md id=mem-b revision=1 scope=project "
        "type=project - Node counts\n"
        "- [Deploy target](deploy-target.md) reference=project/deploy-target.md id=mem-a revision=1 scope=project "
        "type=project - Deployment target for payments"
    )
    assert memory_tool_call(store, {"operation": "list", "type": "user"}) == (
        "Saved memories:\n- [Style](style.md) reference=global/style.md id=mem-e revision=1 scope=global type=user - User style"
    )
    assert "id=mem-e" in memory_tool_call(store, {"operation": "list", "scope": "global"})
    read = memory_tool_call(store, {"operation": "read", "name": "project/deploy-target.md"})
    assert read == (
        "Memory deploy-target\nid: mem-a\nrevision: 1\ntitle: Deploy target\nscope: project\ntype: project\n"
        "description: Deployment target for payments\nreference: project/deploy-target.md\n\n"
        "Deploy payments to the green cluster."
    )
    assert memory_tool_call(store, {"operation": "read", "name": "mem-e"}).startswith("Memory style\nid: mem-e")
    with pytest.raises(MemoryToolError, match='^memory "no-such-thing" not found$'):
        memory_tool_call(store, {"operation": "read", "name": "No Such Thing"})
    with pytest.raises(MemoryToolError, match="^operation is required$"):
        memory_tool_call(store, {"operation": "  "})
    with pytest.raises(MemoryToolError, match='^unknown operation "delete"$'):
        memory_tool_call(store, {"operation": "delete"})
    with pytest.raises(MemoryToolError, match="invalid arguments: limit must be an integer"):
        memory_tool_call(store, {"operation": "list", "limit": "3"})
    with pytest.raises(MemoryToolError, match="invalid arguments"):
        memory_tool_call(store, "{not json")
    assert memory_tool_call(store, '{"operation": "list", "limit": 1}').count("\n") == 1
    assert memory_tool_call(Store(layout, settings=Settings(no_memory=True)), {"operation": "list"}) == (
        "Memory store is unavailable."
    )
    empty = Store(Layout.resolve(home=layout.root / "elsewhere", workspace=layout.workspace), settings=Settings())
    assert memory_tool_call(empty, {"operation": "list"}) == "No saved memories found."


# ----------------------------------------------------------------- pinned block (§10.4)


def test_pinned_block_protocol_only() -> None:
    assert pinned_block(facts=[], settings=Settings()) == "# Memory\n\n" + MEMORY_PROTOCOL
    assert pinned_block(facts=FACTS, settings=Settings(no_memory=True)) == ""


def test_pinned_block_exact_text_and_order() -> None:
    facts = [
        F("mem-old", "zeta", "Zeta rule", body="  Old pinned body.  ", activation="pinned", days=10),
        F("mem-new", "alpha", "", body="New pinned body.", activation="pinned", days=1),
        F("mem-tie", "beta", "Beta", body="Tie body.", activation="pinned", days=10),
        F("mem-empty", "empty", "Empty", body="   ", activation="pinned"),
        F("mem-legacy", "tabs", "Prefers tabs", body="Indent with tabs.", scope="global", type="user", days=3),
        F("mem-rel", "relevant", "Relevant", body="not pinned"),
    ]
    assert pinned_block(facts=facts) == (
        "# Memory\n\n" + MEMORY_PROTOCOL + "\n\n"
        "## Pinned preferences and feedback\n\n"
        "Facts the user pinned to be always available. Apply them when relevant. The current user request and more "
        "specific standing instructions take precedence, and factual details may be stale.\n"
        "\n### alpha (project/project)\n\nNew pinned body.\n"
        "\n### Prefers tabs (global/user)\n\nIndent with tabs.\n"
        "\n### Beta (project/project)\n\nTie body.\n"
        "\n### Zeta rule (project/project)\n\nOld pinned body."
    )
    report = pinned_report(facts=facts)
    assert report.chars == len("New pinned body.") + len("Indent with tabs.") + len("Tie body.") + len(
        "Old pinned body."
    )


def test_project_fact_shadows_global_pinned() -> None:
    facts = [
        F("mem-g", "response-style", "Response style", body="One paragraph.", scope="global", type="feedback"),
        F("mem-p", "response-style", "Response style", body="Long-form is fine here.", activation="relevant"),
        F("mem-g2", "indent", "Indentation", body="Tabs.", scope="global", type="user", subject_key="code.indent"),
        F("mem-p2", "indent-here", "Indent here", body="Spaces here.", subject_key="code.indent", activation="pinned"),
        F("mem-g3", "other", "Other", body="Kept.", scope="global", activation="pinned"),
    ]
    report = pinned_report(facts=facts)
    kept = [f.id for f in report.guidance.facts]
    assert kept == ["mem-p2", "mem-g3"]  # same updated_at: by name
    assert {(e.fact.id, e.by.id, e.key) for e in report.guidance.suppressed if e.by} == {
        ("mem-g", "mem-p", "name:response-style"),
        ("mem-g2", "mem-p2", "subject:code.indent"),
    }
    assert "One paragraph." not in report.block and "Spaces here." in report.block


def test_keys_ending_in_colon_are_ignored_for_pinned() -> None:
    facts = [
        F("mem-g", "!!!", body="Global pinned.", scope="global", type="feedback"),
        F("mem-p", "???", body="project fact with an empty slug"),
    ]
    assert [f.id for f in pinned_report(facts=facts).guidance.facts] == ["mem-g"]


# ----------------------------------------------------------------- CLI


def test_cli_memory_search_and_pinned(layout: Layout, capsys: pytest.CaptureFixture[str]) -> None:
    for f in FACTS:
        save(layout, f)
    base = ["--home", str(layout.root), "--workspace", str(layout.workspace)]
    assert main([*base, "memory", "search", "green", "cluster"]) == 0
    out = capsys.readouterr().out
    assert out.startswith('Memory search results for "green cluster":\n\n1. score=')
    assert out.endswith("\n\nRead a whole fact with: reasonix-tui memory show ID\n") and "operation=" not in out
    assert main([*base, "memory", "search", "zzzz"]) == 0
    assert "use `reasonix-tui history search`; saved memories may paraphrase" in capsys.readouterr().out
    assert main([*base, "memory", "search", "cluster", "--scope", "project", "--limit", "1", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["query"] == "cluster" and len(data["hits"]) == 1 and data["hits"][0]["scope"] == "project"
    assert main([*base, "memory", "search", "x", "--type", "note"]) == 2
    assert "type must be one of" in capsys.readouterr().err
    assert main([*base, "memory", "pinned"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("# Memory\n\n## Background memory") and "### Lint before commit (project/project)" in out
    assert "### Style (global/user)" in out
    assert main([*base, "memory", "pinned", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert [f["id"] for f in data["facts"]] == ["mem-c", "mem-e"]
    assert data["chars"] == len("Always run make lint.") + len("Terse answers.") and data["suppressed"] == []


def test_search_labels_a_superseded_fact_and_lists_the_current_one_first() -> None:
    from reasonix_tui.core.store.model import Fact, FactId

    def fact(fid: str, name: str, body: str, days: int) -> Fact:
        ts = Timestamp(NOW.ns - days * DAY_NS)
        return Fact(
            id=FactId(fid),
            revision=1,
            created_at=ts,
            updated_at=ts,
            name=name,
            title=name.replace("-", " "),
            body=body,
            subject_key="runtime.node",
        )

    old = fact("mem-old", "node-version", "Use Node 20 for this repo; node 20 everywhere.", 90)
    new = fact("mem-new", "node-runtime", "Node 22 now.", 1)
    plain = search_memories([old, new], "node 20 version")
    assert [h.fact.id for h in plain][0] == "mem-old" and not plain[0].superseded
    hits = search_memories([old, new], "node 20 version", resolved=True)
    assert [h.fact.id for h in hits] == ["mem-new", "mem-old"]
    assert hits[1].superseded.startswith("superseded by mem-new")
    text = memory_tool_call(None, {"operation": "search", "query": "node 20 version"}, facts=[old, new])
    assert "note: superseded by mem-new" in text
    exact = memory_tool_call(
        None,
        {"operation": "search", "query": "node 20 version"},
        facts=[old, new],
        settings=Settings(recall_mode="reasonix-exact"),
    )
    assert "note:" not in exact
