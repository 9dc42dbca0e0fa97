"""A one-shot command imports its own area only (process start is most of its cost)."""

from __future__ import annotations

import importlib
import subprocess
import sys

import pytest

from reasonix_tui.integrations import cli


def registered() -> dict[str, str]:
    """Every command each module registers, from the modules themselves."""
    parser = cli._Parser(prog="reasonix-tui")
    top = parser.add_subparsers(dest="command", parser_class=cli._Parser)
    memory_parser = top.add_parser("memory")
    memory = memory_parser.add_subparsers(dest="memory_command", parser_class=cli._Parser)
    reg = cli.Registry(top=top, memory=memory, memory_parser=memory_parser)
    owner: dict[str, str] = {}
    for name in cli.COMMAND_MODULES:
        before_top, before_memory = set(top.choices), set(memory.choices)
        importlib.import_module(name).register(reg)
        owner.update({c: name for c in set(top.choices) - before_top})
        owner.update({f"memory {c}": name for c in set(memory.choices) - before_memory})
    return owner


def test_the_command_table_is_what_the_modules_register() -> None:
    assert cli.COMMANDS == registered()


@pytest.mark.parametrize(
    ("argv", "command"),
    [
        (["--home", "/r", "memory", "search", "deploy"], "memory search"),
        (["--home=/r", "--workspace", "/w", "recall", "x", "--json"], "recall"),
        (["memory", "--json", "list"], "memory list"),
        (["memory"], ""),
        (["--help"], ""),
        (["memory", "search", "--help"], "memory search"),
        ([], ""),
        (["--workspace", "memory", "history", "search", "q"], "history"),
    ],
)
def test_command_of(argv: list[str], command: str) -> None:
    assert cli.command_of(argv) == command


def test_memory_search_does_not_import_other_areas(layout) -> None:  # type: ignore[no-untyped-def]
    code = (
        "import sys\n"
        "from reasonix_tui.integrations.cli import main\n"
        f"main(['--home', {str(layout.root)!r}, '--workspace', {str(layout.workspace)!r}, 'memory', 'search', 'x'])\n"
        "print(' '.join(sorted(m for m in sys.modules if m.startswith('reasonix_tui'))))\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=True)
    loaded = set(proc.stdout.split("\n")[-2].split())
    assert "reasonix_tui.integrations.commands.recall" in loaded
    for other in (
        "core.history",
        "core.suggestions",
        "integrations.setup",
        "integrations.commands.history",
        "core.recall.engine",
        "core.recall.enhance",
        "integrations.commands.suggest",
        "integrations.commands.setup",
    ):
        assert f"reasonix_tui.{other}" not in loaded


def test_help_still_lists_every_command(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        cli.main(["--help"])
    out = capsys.readouterr().out
    for command in {c.split()[0] for c in cli.COMMANDS}:
        assert command in out


def test_recall_modes_offered_by_the_cli_are_the_engines() -> None:
    from reasonix_tui.core.recall.engine import MODES
    from reasonix_tui.integrations.commands import recall

    assert recall.MODES == MODES


def test_one_shot_recall_and_search_read_fact_files_without_pyyaml(layout) -> None:  # type: ignore[no-untyped-def]
    """Fact files this tool writes take the frontmatter's fast path: a one-shot ``recall``
    or ``memory search`` that reads a few of them does not import PyYAML; a file the fast
    path does not cover still parses (through PyYAML, loaded then)."""
    from reasonix_tui.core.store.fileformat import flatten_yaml
    from reasonix_tui.core.store.requests import SaveRequest
    from reasonix_tui.core.store.store import Store

    store = Store(layout)
    for i, word in enumerate(("deploy", "redis", "helm")):
        store.save(SaveRequest(name=f"{word}-{i}", type="project", scope="project", description=word, body=word))
    code = (
        "import sys, io, contextlib\n"
        "from reasonix_tui.integrations.cli import main\n"
        "out = io.StringIO()\n"
        "with contextlib.redirect_stdout(out):\n"
        f"    main(['--home', {str(layout.root)!r}, '--workspace', {str(layout.workspace)!r}, *sys.argv[1:]])\n"
        "print('deploy' in out.getvalue(), 'yaml' in sys.modules)\n"
    )
    for argv in (["recall", "--dry-run", "deploy"], ["memory", "search", "deploy"]):
        for _ in range(2):  # the first run builds the on-disk index, the second answers from it
            proc = subprocess.run(
                [sys.executable, "-c", code, *argv], capture_output=True, text=True, timeout=120, check=True
            )
            assert proc.stdout.split() == ["True", "False"], (argv, proc.stdout, proc.stderr)
    flat, error = flatten_yaml("name: x # a comment\nkeywords:\n  - a\n  - b\n")
    assert not error and flat["name"] == "x" and "a" in flat["keywords"]
