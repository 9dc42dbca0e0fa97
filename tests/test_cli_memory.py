"""``reasonix-tui memory …`` end to end, on a store written the way Reasonix writes it."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from reasonix_tui.core.compat.gotime import Timestamp
from reasonix_tui.core.paths import Layout
from reasonix_tui.integrations.cli import main

REASONIX_FACT = """---
id: mem-3f2a9c0d4b1e8f7a6c5d4e3f2a1b0c9d
revision: 4
created_at: "2026-07-01T08:15:42.123456789Z"
updated_at: "2026-11-20T08:15:42Z"
name: package-manager
title: Package manager is pnpm
description: The project migrated from npm to pnpm
keywords: 依赖 安装 包管理 install dependencies
subject_key: project.package_manager
metadata:
  type: project
  scope: project
---

Use pnpm for every workspace task.
"""

LEGACY_GLOBAL = """---
name: Prefers Tabs
description: User prefers tabs over spaces
metadata:
  type: user
---

Always indent with tabs.
"""

EXPIRED = """---
id: mem-00000000000000000000000000000001
revision: 2
created_at: "2026-01-01T00:00:00Z"
updated_at: "2026-01-01T00:00:00Z"
name: release-branch
description: Release branch is release/0.9
volatility: volatile
expires_at: "2026-02-01T00:00:00Z"
metadata:
  type: project
  scope: project
---

Cut releases from release/0.9.
"""


@pytest.fixture
def seeded(layout: Layout) -> Layout:
    layout.project_dir.mkdir(parents=True)
    layout.global_dir.mkdir(parents=True)
    (layout.project_dir / "package-manager.md").write_text(REASONIX_FACT)
    (layout.project_dir / "release-branch.md").write_text(EXPIRED)
    legacy = layout.global_dir / "prefers-tabs.md"
    legacy.write_text(LEGACY_GLOBAL)
    os.utime(legacy, (1_767_225_600, 1_767_225_600))  # 2026-01-01
    return layout


def run(layout: Layout, *args: str) -> list[str]:
    return ["--home", str(layout.root), "--workspace", str(layout.workspace), *args]


def test_list_json_shows_what_reasonix_sees(seeded: Layout, capsys) -> None:
    assert main(run(seeded, "memory", "list", "--json")) == 0
    facts = {f["name"]: f for f in json.loads(capsys.readouterr().out)}
    pm = facts["package-manager"]
    assert pm["id"] == "mem-3f2a9c0d4b1e8f7a6c5d4e3f2a1b0c9d" and pm["revision"] == 4
    assert (pm["scope"], pm["type"], pm["activation"]) == ("project", "project", "relevant")
    assert pm["subject_key"] == "project.package_manager" and pm["ref"] == "project/package-manager.md"
    tabs = facts["Prefers Tabs"]
    assert tabs["id"] == "legacy-6395e8890356043bb711b59e"
    assert (tabs["scope"], tabs["type"], tabs["activation"], tabs["revision"]) == ("global", "user", "pinned", 1)
    assert tabs["created_at"] == "2026-01-01T00:00:00Z"
    assert facts["release-branch"]["freshness"] == "expired"
    for f in facts.values():
        assert {
            "id",
            "ref",
            "name",
            "title",
            "description",
            "type",
            "scope",
            "activation",
            "volatility",
            "subject_key",
            "revision",
            "freshness",
            "created_at",
            "updated_at",
            "path",
        } <= set(f)
    # reading did not rewrite anything
    assert (seeded.project_dir / "package-manager.md").read_text() == REASONIX_FACT


def test_list_text_and_show(seeded: Layout, capsys) -> None:
    assert main(run(seeded, "memory", "list")) == 0
    out = capsys.readouterr().out
    assert "  [Package manager is pnpm](package-manager.md)\n    id=mem-3f2a9c0d4b1e8f7a6c5d4e3f2a1b0c9d\n" in out
    assert "revision=1 scope=global type=user freshness=" in out and "activation=pinned" in out
    assert main(run(seeded, "memory", "show", "project/package-manager.md")) == 0
    out = capsys.readouterr().out
    assert "Use pnpm for every workspace task." in out and "subject_key=project.package_manager" in out


def test_save_update_restore_cycle(seeded: Layout, capsys) -> None:
    assert (
        main(
            run(
                seeded,
                "memory",
                "save",
                "--name",
                "package-manager",
                "--description",
                "now bun",
                "--body",
                "Use bun.",
                "--expected-revision",
                "4",
            )
        )
        == 0
    )
    assert "updated project/package-manager.md" in capsys.readouterr().out
    assert main(run(seeded, "memory", "revisions", "package-manager")) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0] == "memory revisions id=mem-3f2a9c0d4b1e8f7a6c5d4e3f2a1b0c9d name=package-manager"
    assert out[1].startswith("  revision=5 active updated=") and out[2].startswith("  revision=4 history updated=")
    assert main(run(seeded, "memory", "restore", "package-manager", "4")) == 0
    captured = capsys.readouterr()
    assert (
        captured.out.strip()
        == "restored package-manager as revision=6 id=mem-3f2a9c0d4b1e8f7a6c5d4e3f2a1b0c9d scope=project"
    )
    assert "superseded" in captured.err  # the subject got back a value revision 5 replaced
    # the snapshot of revision 4 is the original Reasonix bytes
    snap = seeded.project_dir / ".revisions" / "mem-3f2a9c0d4b1e8f7a6c5d4e3f2a1b0c9d" / "000000004.md"
    assert snap.read_text() == REASONIX_FACT


def test_stale_expected_revision_is_refused(seeded: Layout, capsys) -> None:
    code = main(
        run(
            seeded,
            "memory",
            "save",
            "--name",
            "package-manager",
            "--description",
            "x",
            "--body",
            "y",
            "--expected-revision",
            "2",
        )
    )
    err = capsys.readouterr().err
    assert code == 1 and err == "reasonix-tui: memory revision conflict: expected 2, found 4\n"


def test_pin_unpin_verify_subjects(seeded: Layout, capsys) -> None:
    assert main(run(seeded, "memory", "unpin", "global/prefers-tabs.md")) == 0
    assert capsys.readouterr().out.startswith("prefers-tabs is now relevant")
    assert main(run(seeded, "memory", "verify", "package-manager")) == 0
    assert "verified; freshness clock renewed (revision 4 -> 5)" in capsys.readouterr().out
    assert main(run(seeded, "memory", "subjects")) == 0
    assert (
        "  project.package_manager -> id=mem-3f2a9c0d4b1e8f7a6c5d4e3f2a1b0c9d scope=project name=package-manager"
        in capsys.readouterr().out
    )


def test_forget_archived_recover(seeded: Layout, capsys) -> None:
    assert main(run(seeded, "memory", "forget", "release-branch")) == 0
    assert "archived from project/release-branch.md" in capsys.readouterr().out
    assert main(run(seeded, "memory", "archived", "--json")) == 0
    items = json.loads(capsys.readouterr().out)
    assert len(items) == 1 and items[0]["name"] == "release-branch"
    assert main(run(seeded, "memory", "recover", items[0]["archive_path"])) == 0
    assert capsys.readouterr().out.startswith("recovered release-branch as revision=3 ")
    assert main(run(seeded, "memory", "recover", items[0]["archive_path"])) == 1
    assert capsys.readouterr().err == "reasonix-tui: memory recover: archived memory not found\n"


def test_errors_are_one_line_with_exit_codes(seeded: Layout, capsys) -> None:
    assert main(run(seeded, "memory", "show", "../../etc/passwd")) == 1
    assert capsys.readouterr().err == 'reasonix-tui: memory "../../etc/passwd" not found\n'
    assert main(run(seeded, "memory", "save", "--name", "x", "--body", "b")) == 2
    assert capsys.readouterr().err == "reasonix-tui: description and body are required\n"
    assert (
        main(run(seeded, "memory", "save", "--name", "x", "--description", "d", "--body", "b", "--expires-at", "soon"))
        == 2
    )
    assert 'expires_at must be RFC3339, YYYY-MM-DD, or "never"' in capsys.readouterr().err
    with pytest.raises(SystemExit) as exc:
        main(run(seeded, "memory", "restore", "x", "notanumber"))
    assert exc.value.code == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "invalid int value" in err


def test_migrate_then_list(seeded: Layout, capsys) -> None:
    assert main(run(seeded, "memory", "migrate")) == 0
    assert capsys.readouterr().out.startswith("migrated 1 fact file(s)")
    text = (seeded.global_dir / "prefers-tabs.md").read_text()
    assert text.startswith("---\nid: legacy-6395e8890356043bb711b59e\nrevision: 1\n")


def test_console_script_reports_no_traceback(seeded: Layout) -> None:
    (seeded.project_dir / "MEMORY.md").mkdir()
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "reasonix_tui",
            *run(seeded, "memory", "save", "--name", "n", "--description", "d", "--body", "b"),
        ],
        capture_output=True,
        text=True,
        env={**os.environ, "REASONIX_TUI_DEBUG": ""},
    )
    assert proc.returncode == 1
    assert "Traceback" not in proc.stderr and proc.stderr.count("\n") == 1
    assert "unreadable" in proc.stderr
    assert Timestamp.now()


def test_bare_memory_prints_the_summary(seeded: Layout, capsys) -> None:
    (seeded.workspace / "AGENTS.md").write_text("# Rules\n\n- run the tests\n")
    assert main(run(seeded, "memory")) == 0
    out = capsys.readouterr().out
    assert out.startswith("memory\n\ninstructions (low -> high precedence)\n  precedence=1 scope=project path=")
    assert "\nsaved memories\n  [Prefers Tabs](Prefers Tabs.md)\n" in out  # ListAll order: name bytes
    assert "  [Package manager is pnpm](package-manager.md)\n    id=mem-3f2a9c0d4b1e8f7a6c5d4e3f2a1b0c9d\n" in out
    assert f"  stored under {seeded.project_dir}\n" in out
    assert out.rstrip("\n").endswith("|archived|recover <archive-path>|instructions]")


def test_bare_memory_takes_json_too(seeded: Layout, capsys) -> None:
    assert main(run(seeded, "memory", "--json")) == 0
    bare = json.loads(capsys.readouterr().out)
    assert main(run(seeded, "memory", "summary", "--json")) == 0
    assert json.loads(capsys.readouterr().out) == bare
    # before or after the subcommand, --json means the same
    assert main(run(seeded, "memory", "--json", "list")) == 0
    before = json.loads(capsys.readouterr().out)
    assert main(run(seeded, "memory", "list", "--json")) == 0
    assert json.loads(capsys.readouterr().out) == before and isinstance(before, list)


def test_bare_memory_on_an_empty_home(layout: Layout, capsys) -> None:
    assert main(run(layout, "memory")) == 0
    assert capsys.readouterr().out == "memory: none — add with “/remember <note>” or run /init to generate AGENTS.md\n"
