"""``reasonix-tui remember`` / ``forget`` / ``approval-status``: exit codes, output, end to end."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from reasonix_tui.core.agent.approvals import ApprovalQueue
from reasonix_tui.core.agent.presence import PresenceMarker
from reasonix_tui.core.paths import Layout
from reasonix_tui.core.store.requests import SaveRequest
from reasonix_tui.core.store.store import Store
from reasonix_tui.integrations.cli import main

LOW_RISK = [
    "remember",
    "--name",
    "release-target",
    "--description",
    "Release target for this project",
    "--type",
    "project",
    "--body",
    "Release artifacts are published from main-v2.",
]
NEEDS_PERSON = [
    "remember",
    "--name",
    "prefers-tabs",
    "--description",
    "Indentation preference",
    "--type",
    "user",
    "--body",
    "Use tabs.",
]


def run(layout: Layout, *argv: str) -> int:
    return main(["--home", str(layout.root), "--workspace", str(layout.workspace), *argv])


@pytest.fixture
def presence(layout: Layout) -> Any:
    marker = PresenceMarker(layout).start()
    yield marker
    marker.stop()


# --- in-process --------------------------------------------------------------------------------


def test_low_risk_write_lands_at_once(layout: Layout, capsys: pytest.CaptureFixture[str]) -> None:
    assert run(layout, *LOW_RISK) == 0
    out = capsys.readouterr().out.strip()
    fact = Store(layout).get("release-target")
    assert out == (
        f"Saved memory id={fact.id} revision=1 (project background) as project/release-target.md "
        "(it applies now and its derived index loads automatically in future sessions)."
    )
    assert Store(layout).audit.read()[0].actor == "agent-auto"
    records = ApprovalQueue(layout).auto_writes()
    assert [(r.fact_id, r.revision) for r in records] == [(fact.id, 1)]
    assert ApprovalQueue(layout).pending() == []


def test_low_risk_json(layout: Layout, capsys: pytest.CaptureFixture[str]) -> None:
    assert run(layout, *LOW_RISK, "--json") == 0
    data = json.loads(capsys.readouterr().out)
    assert data["status"] == "saved" and data["exit_code"] == 0
    assert data["ref"] == "project/release-target.md" and data["revision"] == 1
    assert data["reason"] == "new low-risk project fact"
    assert data["auto_write"].startswith("a-")


def test_create_only_race_is_a_conflict(
    layout: Layout, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    from reasonix_tui.core.agent import writes as agent_writes

    real = agent_writes.assess_remember

    def assess_then_race(args: Any, store: Any) -> Any:
        result = real(args, store)
        Store(layout).save(SaveRequest(name="release-target", description="person", type="project", body="keep"))
        return result

    monkeypatch.setattr(agent_writes, "assess_remember", assess_then_race)
    assert run(layout, *LOW_RISK) == 1
    assert "already exists; automatic writes are create-only" in capsys.readouterr().err
    assert Store(layout).get("release-target").body == "keep"


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["--scope", "team"], "scope must be one of project, global"),
        (["--activation", "always"], "activation must be one of relevant, pinned"),
        (["--volatility", "fast"], "volatility must be one of evergreen, stable, volatile"),
        (["--expires-at", "soon"], 'expires_at must be RFC3339, YYYY-MM-DD, or "never"'),
    ],
)
def test_invalid_input_exit_2(
    layout: Layout, capsys: pytest.CaptureFixture[str], extra: list[str], message: str
) -> None:
    assert run(layout, *LOW_RISK, *extra) == 2
    assert capsys.readouterr().err.strip() == f"reasonix-tui: {message}"
    assert Store(layout).list_all() == []
    assert ApprovalQueue(layout).pending() == []


def test_blank_body_exit_2(layout: Layout, capsys: pytest.CaptureFixture[str]) -> None:
    assert run(layout, "remember", "--description", "d", "--body", "  ") == 2
    assert "description and body are required" in capsys.readouterr().err


def test_no_context_center_says_so_at_once(layout: Layout, capsys: pytest.CaptureFixture[str]) -> None:
    started = time.monotonic()
    assert run(layout, *NEEDS_PERSON, "--wait", "60") == 4
    assert time.monotonic() - started < 30  # returned without waiting out the 60 s
    out = capsys.readouterr().out
    assert out.startswith("No Context Center is open")
    [proposal] = ApprovalQueue(layout).pending()
    assert proposal.id in out and "is queued and nothing is changed yet" in out
    assert "only explicitly classified project/reference facts are low-risk" in out
    assert Store(layout).list_all() == []


def test_headless_refuses_at_once(
    layout: Layout, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, presence: Any
) -> None:
    for var in ("REASONIX_TUI_HEADLESS", "REASONIX_TUI_SUBAGENT"):
        monkeypatch.setenv(var, "1")
        assert run(layout, *NEEDS_PERSON) == 3
        out = capsys.readouterr().out
        assert out.startswith("Not changed: this memory write needs a person's approval")
        assert ApprovalQueue(layout).pending() == []
        monkeypatch.delenv(var)
    refusal = Store(layout).audit.read()[0]
    assert refusal.ok is False and refusal.reason.startswith("headless: ")
    # Low-risk writes still land in a headless run.
    monkeypatch.setenv("REASONIX_TUI_HEADLESS", "1")
    assert run(layout, *LOW_RISK) == 0
    capsys.readouterr()
    assert run(layout, "forget", "release-target") == 3


def test_forget_unknown_ref(layout: Layout, capsys: pytest.CaptureFixture[str]) -> None:
    assert run(layout, "forget", "nothing-here") == 1
    assert 'memory "nothing-here" not found; nothing to forget' in capsys.readouterr().err


def test_pending_timeout_in_process(layout: Layout, capsys: pytest.CaptureFixture[str], presence: Any) -> None:
    assert run(layout, *NEEDS_PERSON, "--wait", "0.2", "--json") == 4
    data = json.loads(capsys.readouterr().out)
    assert data["status"] == "pending" and data["context_center_open"] is True
    assert data["proposal_id"] in data["message"] and "stays queued" in data["message"]
    assert [p.id for p in ApprovalQueue(layout).pending()] == [data["proposal_id"]]
    # approval-status reports the same proposal, then its decision.
    assert run(layout, "approval-status", data["proposal_id"], "--wait", "0") == 4
    capsys.readouterr()
    ApprovalQueue(layout).apply(data["proposal_id"], "approve")
    assert run(layout, "approval-status", data["proposal_id"], "--wait", "1") == 0
    assert "Saved memory id=" in capsys.readouterr().out
    assert run(layout, "approval-status", "p-unknown") == 1
    assert run(layout, "approval-status", "../etc") == 2


# --- end to end: a background process waits while the test decides -----------------------------


def spawn(layout: Layout, *argv: str) -> subprocess.Popen[str]:
    cmd = [
        sys.executable,
        "-m",
        "reasonix_tui",
        "--home",
        str(layout.root),
        "--workspace",
        str(layout.workspace),
        *argv,
    ]
    return subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def wait_for_proposal(queue: ApprovalQueue, proc: subprocess.Popen[str]) -> Any:
    for _ in range(600):
        pending = queue.pending()
        if pending:
            return pending[0]
        if proc.poll() is not None:
            raise AssertionError(f"process exited early: {proc.returncode} {proc.communicate()}")
        time.sleep(0.05)
    raise AssertionError("no proposal appeared")


def test_e2e_approve(layout: Layout, presence: Any) -> None:
    queue = ApprovalQueue(layout)
    proc = spawn(layout, *NEEDS_PERSON, "--wait", "60")
    proposal = wait_for_proposal(queue, proc)
    assert proposal.requester.source == "cli" and proposal.requester.pid == proc.pid
    result = queue.apply(proposal, "approve", store=Store(layout))
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 0, err
    fact = Store(layout).get("prefers-tabs")
    assert (fact.id, fact.revision) == (result.fact_id, 1)
    assert out.strip() == (
        f"Saved memory id={fact.id} revision=1 (project background) as project/prefers-tabs.md "
        "(it applies now and its derived index loads automatically in future sessions). The user approved it."
    )


def test_e2e_deny(layout: Layout, presence: Any) -> None:
    queue = ApprovalQueue(layout)
    proc = spawn(layout, *NEEDS_PERSON, "--wait", "60")
    proposal = wait_for_proposal(queue, proc)
    queue.apply(proposal, "deny", note="keep it out")
    out, _ = proc.communicate(timeout=60)
    assert proc.returncode == 3
    assert "denied" in out and "keep it out" in out
    assert Store(layout).list_all() == []


def test_e2e_timeout(layout: Layout, presence: Any) -> None:
    queue = ApprovalQueue(layout)
    proc = spawn(layout, *NEEDS_PERSON, "--wait", "0.5")
    out, _ = proc.communicate(timeout=60)
    assert proc.returncode == 4
    [proposal] = queue.pending()
    assert proposal.id in out and "stays queued" in out
    assert Store(layout).list_all() == []


def test_e2e_forged_approval_is_not_reported_as_written(layout: Layout, presence: Any) -> None:
    queue = ApprovalQueue(layout)
    proc = spawn(layout, *NEEDS_PERSON, "--wait", "2")
    proposal = wait_for_proposal(queue, proc)
    results = layout.approvals_dir / "results"
    results.mkdir(parents=True, exist_ok=True)
    (results / f"{proposal.id}.json").write_text(
        json.dumps(
            {
                "id": proposal.id,
                "tool": "remember",
                "state": "approved",
                "fact_id": "mem-forged",
                "ref": "project/prefers-tabs.md",
                "revision": 1,
                "message": "Saved memory id=mem-forged revision=1",
            }
        )
    )
    out, _ = proc.communicate(timeout=60)
    assert proc.returncode == 4
    assert "Saved memory" not in out and "could not be verified" in out
    assert Store(layout).list_all() == []
    assert [p.id for p in queue.pending()] == [proposal.id]


def test_e2e_forget_approve(layout: Layout, presence: Any) -> None:
    fact = Store(layout).save(SaveRequest(name="old-branch", description="Old branch", type="project", body="b")).fact
    queue = ApprovalQueue(layout)
    proc = spawn(layout, "forget", "old-branch", "--wait", "60")
    proposal = wait_for_proposal(queue, proc)
    assert proposal.tool == "forget"
    queue.apply(proposal, "approve")
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 0, err
    assert out.strip().startswith('Forgot memory "old-branch" (it no longer applies')
    assert Store(layout).find_by_id(fact.id) is None


def test_e2e_conflict_exit_1(layout: Layout, presence: Any) -> None:
    v1 = Store(layout).save(SaveRequest(name="x", description="X", type="project", body="1")).fact
    queue = ApprovalQueue(layout)
    proc = spawn(
        layout, "remember", "--id", v1.id, "--description", "X", "--type", "project", "--body", "2", "--wait", "60"
    )
    proposal = wait_for_proposal(queue, proc)
    Store(layout).save(SaveRequest(id=v1.id, description="X", type="project", body="person"))
    queue.apply(proposal, "approve")
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 1
    assert "memory revision conflict: expected 1, found 2" in err
    assert Store(layout).get(v1.id).body == "person"


def test_help_lists_exit_codes(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    with pytest.raises(SystemExit):
        main(["remember", "--help"])
    assert "4 still pending" in capsys.readouterr().out


# --- auto_confirm_project_remember (Reasonix's AssessRememberSkip) -------------------------------

UPDATE = [
    "remember",
    "--name",
    "release-target",
    "--description",
    "Release target for this project",
    "--type",
    "project",
    "--body",
    "Release artifacts are published from main-v3.",
]


def test_updates_ask_unless_reasonix_config_allows_them(layout: Layout, capsys: pytest.CaptureFixture[str]) -> None:
    assert run(layout, *LOW_RISK) == 0
    # Off (the default): an update is a proposal; no Context Center is open, so it stays pending.
    assert run(layout, *UPDATE, "--wait", "0") == 4
    assert len(ApprovalQueue(layout).pending()) == 1
    assert Store(layout).get("release-target").revision == 1
    capsys.readouterr()
    # On, as a Reasonix user sets it in config.toml: the update lands at once, with undo.
    (layout.root / "config.toml").write_text("[memory]\nauto_confirm_project_remember = true\n")
    assert run(layout, *UPDATE, "--json") == 0
    data = json.loads(capsys.readouterr().out)
    assert data["status"] == "saved" and data["revision"] == 2
    assert data["reason"] == "a bounded, non-sensitive project fact"
    fact = Store(layout).get("release-target")
    assert fact.revision == 2 and "main-v3" in fact.body
    queue = ApprovalQueue(layout)
    record = next(r for r in queue.auto_writes() if r.id == data["auto_write"])
    assert (record.revision, record.previous_revision, record.is_update) == (2, 1, True)
    # Undo brings revision 1's content back as revision 3 (an update is never archived).
    queue.undo_auto_write(record, Store(layout))
    fact = Store(layout).get("release-target")
    assert fact.revision == 3 and "main-v2" in fact.body


def test_auto_confirm_still_asks_for_global_pinned_and_activation(layout: Layout) -> None:
    (layout.root / "config.toml").write_text("[memory]\nauto_confirm_project_remember = true\n")
    store = Store(layout)
    store.save(SaveRequest(name="style", description="Code style", body="black", type="project"))
    store.save(
        SaveRequest(name="pinned-rule", description="A pinned rule", body="x", type="project", activation="pinned")
    )
    assert (
        run(
            layout,
            "remember",
            "--name",
            "style",
            "--description",
            "Code style",
            "--type",
            "project",
            "--activation",
            "pinned",
            "--body",
            "ruff format",
            "--wait",
            "0",
        )
        == 4
    )
    assert (
        run(
            layout,
            "remember",
            "--name",
            "pinned-rule",
            "--description",
            "A pinned rule",
            "--type",
            "project",
            "--body",
            "y",
            "--wait",
            "0",
        )
        == 4
    )
    assert (
        run(
            layout,
            "remember",
            "--name",
            "tabs",
            "--description",
            "Tabs",
            "--type",
            "user",
            "--scope",
            "global",
            "--body",
            "Use tabs.",
            "--wait",
            "0",
        )
        == 4
    )
    reasons = sorted(r for p in ApprovalQueue(layout).pending() for r in p.reasons)
    assert "pinned memory requires confirmation" in reasons
    assert "a pinned memory requires confirmation" in reasons
    assert "global memory requires confirmation" in reasons
    assert Store(layout).get("style").body == "black" and Store(layout).get("pinned-rule").body == "x"
