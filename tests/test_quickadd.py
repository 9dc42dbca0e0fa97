"""Quick-add notes (store-format §10.1) and the ``memory instructions`` / ``memory note`` CLI."""

from __future__ import annotations

import importlib
import json
import os
import stat
import threading
from pathlib import Path

import pytest

from reasonix_tui.core.instructions.quickadd import QuickAddError, append_doc, doc_path, insert_note
from reasonix_tui.core.paths import Layout
from reasonix_tui.integrations import cli

NEW_DOC = "# Project memory\n\n## Notes\n\n- {}\n"


def mode_of(path: Path) -> int:
    return stat.S_IMODE(os.stat(path).st_mode)


# --------------------------------------------------------------------------- doc_path


def test_doc_path_defaults(layout: Layout) -> None:
    assert doc_path("project", layout) == str(layout.workspace / "AGENTS.md")
    assert doc_path("local", layout) == str(layout.workspace / "AGENTS.local.md")
    assert doc_path("user", layout) == str(layout.root / "AGENTS.md")
    assert doc_path("anything-else", layout) == str(layout.workspace / "AGENTS.md")


def test_doc_path_prefers_first_existing_name(layout: Layout) -> None:
    ws = layout.workspace
    (ws / "CLAUDE.md").write_text("c")
    assert doc_path("project", layout) == str(ws / "CLAUDE.md")
    (ws / "REASONIX.md").write_text("r")
    assert doc_path("project", layout) == str(ws / "REASONIX.md")
    (ws / "CLAUDE.local.md").write_text("c")
    assert doc_path("local", layout) == str(ws / "CLAUDE.local.md")
    (layout.root / "REASONIX.md").write_text("u")
    assert doc_path("user", layout) == str(layout.root / "REASONIX.md")


def test_doc_path_ignores_dangling_symlinks(layout: Layout) -> None:
    os.symlink(layout.workspace / "nowhere", layout.workspace / "REASONIX.md")
    assert doc_path("project", layout) == str(layout.workspace / "AGENTS.md")


# --------------------------------------------------------------------------- insert_note


def test_insert_into_existing_notes_section_before_next_heading() -> None:
    body = "# Title\n\nintro\n\n## Notes\n\n- one\n\n\n## Other\n\ntext\n"
    out, placement = insert_note(body, "- two")
    assert placement == "notes-section"
    assert out == "# Title\n\nintro\n\n## Notes\n\n- one\n- two\n\n\n## Other\n\ntext\n"


def test_insert_into_notes_section_at_end_of_file() -> None:
    out, placement = insert_note("## Notes\n\n- a\n", "- b")
    assert (out, placement) == ("## Notes\n\n- a\n- b\n", "notes-section")
    out, _ = insert_note("x\n  ## Notes  \n", "- b")  # heading matched on trimmed text
    assert out == "x\n  ## Notes  \n- b\n"


def test_any_line_starting_with_hash_ends_the_section() -> None:
    out, _ = insert_note("## Notes\n- a\n#tag\n- later\n", "- b")
    assert out == "## Notes\n- a\n- b\n#tag\n- later\n"


def test_mentioned_but_not_a_heading_appends_at_end() -> None:
    out, placement = insert_note("### Notes\n\n- a\n\n\n", "- b")
    assert (out, placement) == ("### Notes\n\n- a\n\n- b\n", "end")


def test_no_notes_section_adds_one() -> None:
    out, placement = insert_note("# Rules\n\n- be nice\n\n\n", "- b")
    assert (out, placement) == ("# Rules\n\n- be nice\n\n## Notes\n\n- b\n", "new-section")


@pytest.mark.parametrize("body", ["", "  \n\t\n"])
def test_blank_document_gets_the_template(body: str) -> None:
    assert insert_note(body, "- n") == (NEW_DOC.format("n"), "new-document")


# --------------------------------------------------------------------------- append_doc


def test_append_creates_file_and_parents(tmp_path: Path) -> None:
    path = tmp_path / "a" / "b" / "AGENTS.md"
    result = append_doc(path, "  use   pnpm\n  not npm ")
    assert path.read_text() == NEW_DOC.format("use pnpm not npm")
    assert (result.created, result.appended, result.note, result.placement) == (
        True,
        True,
        "use pnpm not npm",
        "new-document",
    )
    assert result.path == str(path)
    assert mode_of(path) == 0o644


def test_append_three_cases_in_sequence(tmp_path: Path) -> None:
    path = tmp_path / "AGENTS.md"
    path.write_text("# Build\n\n- run make\n")
    r1 = append_doc(path, "first")
    assert path.read_text() == "# Build\n\n- run make\n\n## Notes\n\n- first\n"
    assert (r1.created, r1.placement) == (False, "new-section")
    r2 = append_doc(path, "second")
    assert path.read_text() == "# Build\n\n- run make\n\n## Notes\n\n- first\n- second\n"
    assert r2.placement == "notes-section"


def test_whitespace_only_file_is_replaced_by_template(tmp_path: Path) -> None:
    path = tmp_path / "AGENTS.md"
    path.write_text("\n   \n")
    result = append_doc(path, "n")
    assert path.read_text() == NEW_DOC.format("n")
    assert result.created is False


def test_empty_note_does_nothing(tmp_path: Path) -> None:
    path = tmp_path / "x" / "AGENTS.md"
    result = append_doc(path, " \n\t ")
    assert result.appended is False and result.placement == "none"
    assert not path.exists() and not path.parent.exists()


def test_existing_file_is_decoded_and_rewritten_as_utf8(tmp_path: Path) -> None:
    path = tmp_path / "AGENTS.md"
    path.write_bytes("\ufeff# R\u00e8gles\n".encode("utf-16-le"))
    append_doc(path, "n")
    assert path.read_bytes() == "# R\u00e8gles\n\n## Notes\n\n- n\n".encode()


def test_mode_is_0644_and_no_temp_files_remain(tmp_path: Path) -> None:
    folder = tmp_path / "d"
    folder.mkdir()
    path = folder / "AGENTS.md"
    path.write_text("x\n")
    os.chmod(path, 0o600)
    old = os.umask(0o077)
    try:
        append_doc(path, "n")
    finally:
        os.umask(old)
    assert mode_of(path) == 0o644
    assert sorted(p.name for p in folder.iterdir()) == ["AGENTS.md"]


def test_refuses_final_symlink(tmp_path: Path) -> None:
    real = tmp_path / "real.md"
    real.write_text("keep\n")
    link = tmp_path / "AGENTS.md"
    os.symlink(real, link)
    with pytest.raises(QuickAddError) as err:
        append_doc(link, "n")
    assert str(err.value) == f'refusing to write "{link}" through a symlink'
    assert real.read_text() == "keep\n" and link.is_symlink()


def test_refuses_dangling_symlink(tmp_path: Path) -> None:
    link = tmp_path / "AGENTS.md"
    os.symlink(tmp_path / "missing.md", link)
    with pytest.raises(QuickAddError, match="through a symlink"):
        append_doc(link, "n")
    assert not (tmp_path / "missing.md").exists()


def test_symlinked_parent_directory_is_allowed(tmp_path: Path) -> None:
    real = tmp_path / "real"
    real.mkdir()
    os.symlink(real, tmp_path / "alias")
    append_doc(tmp_path / "alias" / "AGENTS.md", "n")
    assert (real / "AGENTS.md").read_text() == NEW_DOC.format("n")


def test_unreadable_file_is_an_error_not_empty(tmp_path: Path) -> None:
    path = tmp_path / "AGENTS.md"
    path.mkdir()  # exists, cannot be read as a file (works even as root)
    with pytest.raises(QuickAddError) as err:
        append_doc(path, "n")
    assert str(err.value).startswith(f'read "{path}" before appending: ')
    assert path.is_dir() and list(path.iterdir()) == []


@pytest.mark.parametrize("with_file_lock", [False, True])
def test_concurrent_appends_keep_every_note(tmp_path: Path, with_file_lock: bool) -> None:
    path = tmp_path / "AGENTS.md"
    lock = tmp_path / "lock" / "instructions.lock" if with_file_lock else None

    def worker(n: int) -> None:
        for i in range(10):
            append_doc(path, f"note {n}-{i}", lock_path=lock)

    threads = [threading.Thread(target=worker, args=(n,)) for n in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    text = path.read_text()
    for n in range(4):
        for i in range(10):
            assert f"- note {n}-{i}\n" in text
    assert text.count("## Notes") == 1


# --------------------------------------------------------------------------- CLI


@pytest.fixture
def run(monkeypatch: pytest.MonkeyPatch, state_root: Path, workspace: Path, capsys: pytest.CaptureFixture[str]):
    """Run the CLI with --home/--workspace under tmp_path; returns (code, stdout, stderr)."""
    importable = []
    for name in cli.COMMAND_MODULES:
        try:
            importlib.import_module(name)
        except ModuleNotFoundError:
            continue  # another area's module not written yet
        importable.append(name)
    assert "reasonix_tui.integrations.commands.instructions" in importable
    monkeypatch.setattr(cli, "COMMAND_MODULES", importable)

    def _run(*argv: str) -> tuple[int, str, str]:
        try:
            code = cli.main(["--home", str(state_root), "--workspace", str(workspace), *argv])
        except SystemExit as exc:  # argparse usage errors
            code = int(exc.code or 0)
        out, err = capsys.readouterr()
        return code, out, err

    return _run


def test_cli_instructions_text(run, state_root: Path, workspace: Path) -> None:
    (state_root / "AGENTS.md").write_text("user rule\n")
    (workspace / "docs").mkdir()
    (workspace / "docs" / "t.md").write_text("T")
    (workspace / "AGENTS.md").write_text("@docs/t.md\n@/etc/hosts\n")
    code, out, err = run("memory", "instructions")
    assert (code, err) == (0, "")
    agents = workspace / "AGENTS.md"
    assert out == (
        "instructions (low -> high precedence)\n"
        f"  precedence=1 scope=user path={state_root / 'AGENTS.md'}\n"
        f"    directory={state_root}\n"
        f"  precedence=2 scope=project path={agents}\n"
        f"    directory={workspace}\n"
        f"    import={workspace / 'docs' / 't.md'} source={agents}\n"
        "diagnostics\n"
        f"  code=import_outside_source source={agents}:2 path=/etc/hosts "
        f'message=rejected instruction import "/etc/hosts" from "{agents}"\n'
    )


def test_cli_instructions_none(run) -> None:
    assert run("memory", "instructions") == (0, "instructions: none\n", "")


def test_cli_instructions_survive_no_memory_experiment(run, workspace: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("REASONIX_EXPERIMENT_NO_MEMORY", "1")
    (workspace / "AGENTS.md").write_text("rule")
    code, out, _ = run("memory", "instructions")
    assert code == 0 and "scope=project" in out


def test_cli_instructions_json_with_target(run, state_root: Path, workspace: Path) -> None:
    api = workspace / "services" / "api"
    api.mkdir(parents=True)
    (state_root / "AGENTS.md").write_text("Use concise replies.")
    (workspace / "AGENTS.md").write_text("Run all tests.")
    (api / "AGENTS.local.md").write_text("Run API tests first.\n@notes.md")
    (api / "notes.md").write_text("N")
    code, out, err = run("memory", "instructions", "--target", "services/api", "--json")
    assert (code, err) == (0, "")
    data = json.loads(out)
    assert data["target"] == str(api) and data["root"] == str(workspace)
    assert [(d["precedence"], d["scope"], d["label"]) for d in data["documents"]] == [
        (1, "user", "user/AGENTS.md"),
        (2, "project", "workspace/AGENTS.md"),
        (3, "local", "workspace/services/api/AGENTS.local.md"),
    ]
    assert data["documents"][2]["directory"] == str(api)
    assert data["documents"][2]["imports"][0]["label"] == "notes.md"
    assert "## workspace/services/api/AGENTS.local.md (local, applies to workspace/services/api)" in data["block"]
    assert str(workspace) not in data["block"]
    assert data["diagnostics"] == []


def test_cli_instructions_target_outside_workspace(run, tmp_path: Path, workspace: Path) -> None:
    other = tmp_path / "other"
    other.mkdir()
    code, out, _ = run("memory", "instructions", "--target", str(other))
    assert code == 0
    assert out == (
        "instructions (low -> high precedence)\n"
        "diagnostics\n"
        f"  code=target_outside_workspace source={other} path={other} "
        f'message=instruction target "{other}" is outside workspace "{workspace}"\n'
    )


def test_cli_instructions_missing_target_is_bad_input(run) -> None:
    code, out, err = run("memory", "instructions", "--target", "no/such/dir")
    assert code == 2 and out == ""
    assert "no/such/dir" in err and "not a directory" in err


def test_cli_note_project_local_user(run, state_root: Path, workspace: Path) -> None:
    code, out, err = run("memory", "note", "use", "pnpm,", "not npm")
    assert (code, err) == (0, "")
    path = workspace / "AGENTS.md"
    assert path.read_text() == NEW_DOC.format("use pnpm, not npm")
    assert out.startswith(f"created {path}: - use pnpm, not npm\n")

    code, out, _ = run("memory", "note", "second")
    assert code == 0 and out.startswith(f"updated {path}: - second\n")
    assert path.read_text().endswith("- use pnpm, not npm\n- second\n")

    assert run("memory", "note", "mine", "--local")[0] == 0
    assert (workspace / "AGENTS.local.md").read_text() == NEW_DOC.format("mine")

    assert run("memory", "note", "--user", "everywhere")[0] == 0
    assert (state_root / "AGENTS.md").read_text() == NEW_DOC.format("everywhere")


def test_cli_note_json(run, workspace: Path) -> None:
    (workspace / "CLAUDE.md").write_text("# C\n")
    code, out, _ = run("memory", "note", "hello\nworld", "--json")
    assert code == 0
    assert json.loads(out) == {
        "path": str(workspace / "CLAUDE.md"),
        "scope": "project",
        "note": "hello world",
        "created": False,
        "placement": "new-section",
    }


def test_cli_note_errors(run, tmp_path: Path, workspace: Path) -> None:
    code, _, err = run("memory", "note", "  ")
    assert code == 2 and "empty" in err
    assert not (workspace / "AGENTS.md").exists()

    code, _, err = run("memory", "note", "x", "--local", "--user")
    assert code == 2 and "not allowed with" in err

    real = tmp_path / "real.md"
    real.write_text("keep")
    os.symlink(real, workspace / "AGENTS.md")
    code, _, err = run("memory", "note", "x")
    assert code == 1
    assert err == f'reasonix-tui: refusing to write "{workspace / "AGENTS.md"}" through a symlink\n'
    assert real.read_text() == "keep"
