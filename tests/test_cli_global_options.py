"""The global options: ``--demo <command>`` runs against the demo home (generated once,
then reused), never silently against the real store; a state root that is a file is bad
input, not an internal error."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from reasonix_tui.integrations import open_app
from reasonix_tui.integrations.cli import main


@pytest.fixture
def demo_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    root = tmp_path / "demo"
    monkeypatch.setattr(open_app, "demo_root", lambda: root)
    return root


def test_demo_subcommands_use_the_demo_home(
    demo_dir: Path, state_root: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["--demo", "memory", "list", "--json"]) == 0
    captured = capsys.readouterr()
    facts = json.loads(captured.out)
    assert facts and all(f["path"].startswith(str(demo_dir)) for f in facts)
    assert f"using the demo home at {demo_dir}" in captured.err
    assert not any(state_root.iterdir())  # the real (isolated) store was not touched

    assert main(["--demo", "history", "search", "alembic"]) == 0
    assert "alembic" in capsys.readouterr().out

    assert main(["--demo", "suggest", "--json"]) == 0
    first = json.loads(capsys.readouterr().out)["memories"][0]["id"]
    assert main(["--demo", "suggest", "dismiss", first]) == 0
    capsys.readouterr()
    # the demo home is reused between commands, so the dismissal sticks
    assert main(["--demo", "suggest", "--json"]) == 0
    assert first not in [m["id"] for m in json.loads(capsys.readouterr().out)["memories"]]


def test_demo_with_home_is_refused(demo_dir: Path, state_root: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--demo", "--home", str(state_root), "memory", "list"]) == 2
    assert "--demo cannot be combined with --home or --workspace" in capsys.readouterr().err
    assert not demo_dir.exists()


def test_a_broken_demo_home_is_regenerated(demo_dir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    demo_dir.mkdir()
    (demo_dir / "stray.txt").write_text("not a store")
    assert main(["--demo", "memory", "list", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)
    assert not (demo_dir / "stray.txt").exists()


def test_a_state_root_that_is_a_file_is_bad_input(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    not_a_dir = tmp_path / "file"
    not_a_dir.write_text("x")
    for argv in (["memory", "save", "--name", "a", "--description", "b", "--body", "c"], ["memory", "list"], []):
        assert main(["--home", str(not_a_dir), *argv]) == 2  # [] would open the Context Center
        err = capsys.readouterr().err
        assert err == (
            f"reasonix-tui: the state root {not_a_dir} is not a directory "
            "(check --home, REASONIX_STATE_HOME and REASONIX_HOME)\n"
        )


def test_context_center_without_a_terminal_says_what_to_use(tmp_path, capsys, monkeypatch) -> None:
    """An agent's shell or a pipe has no terminal: no escape codes, no hang, one clear line."""
    import io

    from reasonix_tui.integrations.cli import main

    monkeypatch.setattr("sys.stdin", io.StringIO(""))
    assert main(["--home", str(tmp_path / "home"), "--workspace", str(tmp_path)]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert "needs an interactive terminal" in captured.err and "reasonix-tui memory list" in captured.err


@pytest.mark.parametrize(
    ("argv", "expected"),
    [
        ([], (None, None, 0)),
        (["suggest"], (None, None, 0)),
        (["--home", "H", "--workspace=W", "mcp"], ("H", "W", 3)),
        (["--home=A", "--home", "B", "suggest", "--home", "C"], ("B", None, 3)),
        (["--workspace"], (None, None, 0)),
        (["--home", "--help", "mcp"], ("--help", None, 2)),
    ],
)
def test_leading_globals_reads_both_forms_up_to_the_command(
    argv: list[str], expected: tuple[str | None, str | None, int]
) -> None:
    from reasonix_tui.integrations.fast_args import leading_globals

    assert leading_globals(argv) == expected


def test_a_demo_hook_answers_from_the_demo_home(
    demo_dir: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """``reasonix-tui --demo hook user-prompt-submit`` (the console script's entry, which
    answers hooks on a fast path) recalls from the demo home instead of refusing the option."""
    import io

    from reasonix_tui.__main__ import main as script_main

    payload = {"session_id": "s1", "hook_event_name": "UserPromptSubmit", "prompt": "how do we deploy to production?"}
    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(json.dumps(payload).encode())))  # read as bytes
    assert script_main(["--demo", "hook", "user-prompt-submit"]) == 0
    captured = capsys.readouterr()
    assert "ignoring unexpected hook arguments" not in captured.err
    context = json.loads(captured.out)["hookSpecificOutput"]["additionalContext"]
    assert "<memory-recall>" in context and "Deploy target is Fly.io" in context
