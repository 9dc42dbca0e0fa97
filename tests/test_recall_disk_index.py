"""The on-disk recall index of one-shot ``recall`` and the in-process hook: the same
answers as a fresh in-memory index, after any change, and no full load when it can vouch."""

from __future__ import annotations

import os
import random
from pathlib import Path

import pytest

from reasonix_tui.core.compat.gotime import DAY_NS, Timestamp
from reasonix_tui.core.paths import Layout
from reasonix_tui.core.recall import channels, disk_index, disk_rows, service
from reasonix_tui.core.recall.disk_index import Changed, StoredRecallIndex, index_for, index_path
from reasonix_tui.core.recall.engine import MODES, recall
from reasonix_tui.core.recall.index import RecallIndex
from reasonix_tui.core.settings import Settings
from reasonix_tui.core.store.requests import SaveRequest
from reasonix_tui.core.store.store import Store

WORDS = (
    "deploy cache redis helm chart canary retry queue worker lint build pnpm staging token rollout "
    "postgres migration flaky test timeout"
).split()
QUERIES = [
    "how do we deploy with helm",
    "redis cache timeout",
    "which package manager, pnpm or npm",
    "pnpm install",
    "flaky test retry in the queue worker",
    "postgres migration rollout",
    "部署 缓存",
    "canary rollout for staging",
    "CACHE_TIMEOUT_MS",
    "ok thanks",
    "zyxappended redis",
    "legacy build server",
    "the",
    "nothing-matches-this",
    "which nvm version",
    "eslint config",
]
NOW = Timestamp(1_780_000_000 * 1_000_000_000)


def seeded(layout: Layout, n: int = 36, seed: int = 5) -> Store:
    """Facts that exercise the pool (pinned, suppressed), the resolver (subject, topic,
    supersedes), freshness (stale, expired, volatile), Chinese text and a tokenless fact."""
    r = random.Random(seed)
    store = Store(layout)
    for i in range(n):
        store.save(
            SaveRequest(
                name=f"{r.choice(WORDS)}-{i}",
                type=r.choice(("project", "reference", "feedback")),
                scope="global" if i % 5 == 0 else "project",
                volatility="volatile" if i % 7 == 0 else "",
                description=" ".join(r.sample(WORDS, 3)),
                body=" ".join(r.choice(WORDS) for _ in range(r.randint(4, 30))),
            )
        )
    save = store.save
    save(
        SaveRequest(
            name="pkg-manager-global",
            scope="global",
            type="user",
            subject_key="tooling.pkg_manager",
            description="package manager is npm",
            body="use npm install for every repo",
        )
    )
    save(
        SaveRequest(
            name="pkg-manager",
            type="project",
            subject_key="tooling.pkg_manager",
            description="package manager is pnpm",
            body="use pnpm install, never npm",
        )
    )
    save(
        SaveRequest(
            name="deploy-target",
            scope="global",
            type="project",
            description="deploy with helm",
            body="we deploy with helm charts to staging",
        )
    )
    save(
        SaveRequest(
            name="deploy-target",
            type="project",
            description="deploy with helm and canary",
            body="we deploy with helm charts and a canary rollout",
        )
    )
    save(
        SaveRequest(
            name="pinned-rule",
            type="feedback",
            activation="pinned",
            description="always run lint",
            body="run lint before every build and deploy",
        )
    )
    save(
        SaveRequest(
            name="old-build-server",
            type="project",
            description="legacy build server jenkins",
            body="builds run on the legacy jenkins build server",
        )
    )
    save(
        SaveRequest(
            name="new-build-server",
            type="project",
            supersedes=("old-build-server",),
            description="build server is buildkite",
            body="the legacy jenkins build server was replaced by buildkite",
        )
    )
    save(
        SaveRequest(
            name="cache-timeout",
            type="project",
            description="CACHE_TIMEOUT_MS is 300",
            body="redis cache timeout CACHE_TIMEOUT_MS = 300",
            expires_at=Timestamp(NOW.ns - 3 * DAY_NS),
        )
    )
    save(
        SaveRequest(
            name="zh-deploy", type="project", description="部署流程", body="部署 前 先 清理 缓存 然后 发布 到 staging"
        )
    )
    save(SaveRequest(name="punct", type="project", description="...", body="!!! ???"))
    save(
        SaveRequest(
            name="node-version",
            type="project",
            description="node version pinned",
            body="the node version is pinned in .nvmrc at the repo root; lint rules live in .eslintrc.json",
        )
    )
    return store


def fresh(layout: Layout, q: str, mode: str) -> object:
    facts = Store(layout).snapshot().facts
    return recall(facts, q, NOW, Settings(), mode=mode, index=RecallIndex(facts))


def from_disk(layout: Layout, q: str, mode: str) -> object:
    # as a new process: no file name seen yet (the channels' prefix search over file names)
    saved = list(channels._FILE_KEYS)
    channels._FILE_KEYS.clear()
    try:
        return service.try_recall(layout, Settings(), q, now=NOW, mode=mode, store=Store(layout))
    finally:
        channels._FILE_KEYS[:] = sorted(set(saved) | set(channels._FILE_KEYS))


@pytest.fixture
def disk(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(service, "_DISK", True)


def same_answers(layout: Layout) -> None:
    shown = 0
    for mode in MODES:
        for q in QUERIES:
            want = fresh(layout, q, mode)
            got = from_disk(layout, q, mode)
            assert got == want, (mode, q)
            shown += len(got.hits)  # type: ignore[attr-defined]
    assert shown


def refuse_full_load(monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(self: Store) -> None:
        raise AssertionError("loaded every fact")

    monkeypatch.setattr(Store, "snapshot", refuse)


def test_same_answers_from_disk_and_no_full_load(layout: Layout, disk: None, monkeypatch: pytest.MonkeyPatch) -> None:
    store = seeded(layout)
    index_for(store)  # builds the file
    path = Path(index_path(store))
    assert oct(path.stat().st_mode & 0o777) == "0o600"
    assert isinstance(index_for(Store(layout)), StoredRecallIndex)
    want = {(m, q): fresh(layout, q, m) for m in MODES for q in QUERIES}
    assert any(r.hits and any(h.markers or h.notes for h in r.hits) for r in want.values())  # the resolver spoke
    refuse_full_load(monkeypatch)
    for (m, q), w in want.items():
        assert from_disk(layout, q, m) == w, (m, q)


def test_edits_deletions_new_files_and_renames_reach_the_disk_index(layout: Layout, disk: None) -> None:
    store = seeded(layout)
    same_answers(layout)
    files = sorted(p for p in layout.project_dir.glob("*.md") if p.name not in ("MEMORY.md",))
    with open(files[0], "a", encoding="utf-8") as fh:  # in place, same second
        fh.write("zyxappended redis\n")
    files[1].unlink()
    os.rename(files[2], layout.project_dir / "renamed-by-hand.md")
    store.save(
        SaveRequest(
            name="fresh-fact",
            type="project",
            description="redis cache timeout raised",
            body="redis cache timeout is 900 now, replaced the 300 setting",
        )
    )
    store.archive("pkg-manager")
    same_answers(layout)
    assert "zyxappended" in str(from_disk(layout, "zyxappended redis", "enhanced"))


def test_damaged_or_foreign_index_is_rebuilt(layout: Layout, disk: None, monkeypatch: pytest.MonkeyPatch) -> None:
    store = seeded(layout)
    index_for(store)
    path = Path(index_path(store))
    blob = bytearray(path.read_bytes())
    blob[len(blob) // 2] ^= 0xFF
    path.write_bytes(bytes(blob))
    same_answers(layout)
    assert isinstance(index_for(Store(layout)), StoredRecallIndex)  # written again
    monkeypatch.setattr(disk_index, "VERSION", "other-code")  # a code change discards it
    assert not isinstance(index_for(Store(layout)), StoredRecallIndex)
    same_answers(layout)


def test_a_file_changed_while_answering_falls_back_to_the_store(
    layout: Layout, disk: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = seeded(layout)
    index_for(store)
    stale = index_for(Store(layout))
    assert isinstance(stale, StoredRecallIndex)
    for p in layout.project_dir.glob("*.md"):
        if p.name != "MEMORY.md":
            p.write_text(p.read_text(encoding="utf-8") + "\nedited after the check\n", encoding="utf-8")
    with pytest.raises(Changed):
        recall((), "how do we deploy with helm", NOW, Settings(), index=stale)
    monkeypatch.setattr(disk_index, "index_for", lambda _store: stale)
    monkeypatch.setattr(service, "_DISK", True)
    got = service.try_recall(layout, Settings(), "how do we deploy with helm", now=NOW, store=Store(layout))
    assert got == fresh(layout, "how do we deploy with helm", "enhanced")


def test_in_process_hook_answers_from_disk_and_sees_changes(
    layout: Layout, disk: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    from reasonix_tui.integrations import hook_answers
    from reasonix_tui.integrations.hook_payload import HookInput

    seeded(layout)
    prompt = HookInput(event="UserPromptSubmit", session_id="s1", prompt="which package manager, pnpm or npm")
    first = hook_answers.user_prompt_submit(prompt, layout, Settings())  # builds the index
    assert "pkg-manager" in first
    monkeypatch.setattr(service, "_DISK", False)
    assert hook_answers.user_prompt_submit(prompt, layout, Settings()) == first  # the same from a full load
    monkeypatch.setattr(service, "_DISK", True)
    with monkeypatch.context() as m:
        refuse_full_load(m)
        assert hook_answers.user_prompt_submit(prompt, layout, Settings()) == first
    Store(layout).save(
        SaveRequest(
            name="pkg-manager",
            type="project",
            subject_key="tooling.pkg_manager",
            description="package manager is bun",
            body="use bun install, never npm or pnpm",
        )
    )
    after = hook_answers.user_prompt_submit(prompt, layout, Settings())
    assert "<memory-update>" in after and "bun" in after  # the shown fact changed: retraction note, new text


def test_cli_recall_writes_and_uses_the_disk_index(
    layout: Layout, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from reasonix_tui.integrations import cli

    store = seeded(layout)
    argv = [
        "--home",
        str(layout.root),
        "--workspace",
        str(layout.workspace),
        "recall",
        "--dry-run",
        "--json",
        "how do we deploy with helm",
    ]
    assert cli.main(argv) == 0
    first = capsys.readouterr().out
    assert Path(index_path(store)).exists()
    with monkeypatch.context() as m:
        refuse_full_load(m)
        assert cli.main(argv) == 0
    second = capsys.readouterr().out
    strip = lambda out: [ln for ln in out.splitlines() if '"at"' not in ln]  # noqa: E731 - the trace's clock
    assert strip(second) == strip(first) and "deploy-target" in second
    assert service._DISK is False  # the switch does not outlive the command


def test_a_rebuild_after_an_edit_analyses_only_the_changed_fact(
    layout: Layout, disk: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A one-shot process finds every unchanged fact's channel terms and topic sets in the
    per-fact memo on disk (plain strings, interned on load): only the edited fact is
    analysed again, and the answers are a fresh build's."""
    from reasonix_tui.core.recall import fields
    from reasonix_tui.core.recall.memo import FACT_MEMO, memo_path

    store = seeded(layout)
    FACT_MEMO.clear()
    FACT_MEMO.attach(memo_path(layout.cache_dir))
    index_for(store)
    assert FACT_MEMO.save()
    edited = next(Path(f.path) for f in Store(layout).snapshot().facts if "canary" in f.description)
    with open(edited, "a", encoding="utf-8") as fh:
        fh.write("\nzyxappended redis sentinel failover\n")
    os.unlink(disk_rows.rows_path(index_path(store)))  # no rows to patch from: a full build
    FACT_MEMO.clear()  # as a new process: nothing in memory, the memo on disk
    FACT_MEMO.attach(memo_path(layout.cache_dir))
    analysed: list[str] = []
    real = fields._compute  # the analysis itself (a memo hit does not call it)

    def counting(fact: object) -> object:
        analysed.append(fact.path)  # type: ignore[attr-defined]
        return real(fact)  # type: ignore[arg-type]

    monkeypatch.setattr(fields, "_compute", counting)
    try:
        assert not isinstance(index_for(Store(layout)), StoredRecallIndex)  # built again
    finally:
        monkeypatch.undo()
        FACT_MEMO.clear()
    assert analysed and set(analysed) == {str(edited)}
    monkeypatch.setattr(service, "_DISK", True)
    same_answers(layout)
