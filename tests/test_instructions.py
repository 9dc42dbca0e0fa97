"""Standing instruction resolution (spec instructions-history-suggestions §A)."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from reasonix_tui.core.instructions.documents import BLOCK_PREAMBLE, Resolution
from reasonix_tui.core.instructions.imports import parse_import_target
from reasonix_tui.core.instructions.render import instruction_block, render_report, report_json
from reasonix_tui.core.instructions.resolver import resolve

POLICIES = ["brief", "v2"]


def write(path: Path, text: str | bytes) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(text, bytes):
        path.write_bytes(text)
    else:
        path.write_bytes(text.encode("utf-8"))
    return path


def bodies(res: Resolution) -> list[str]:
    return [d.body for d in res.docs]


def codes(res: Resolution) -> list[str]:
    return [d.code for d in res.diagnostics]


@pytest.fixture
def root(tmp_path: Path) -> Path:
    r = tmp_path / "repo"
    (r / ".git").mkdir(parents=True)
    return r


@pytest.fixture
def user(tmp_path: Path) -> Path:
    u = tmp_path / "user"
    u.mkdir()
    return u


# --------------------------------------------------------------------------- discovery


def test_applies_only_workspace_to_target_ancestor_chain(tmp_path: Path) -> None:
    parent = tmp_path / "parent"
    root = parent / "repo"
    target = root / "services" / "api"
    sibling = root / "services" / "web"
    for d in (target, sibling):
        d.mkdir(parents=True)
    write(parent / "AGENTS.md", "outside workspace")
    write(root / "AGENTS.md", "root rule")
    write(root / "services" / "AGENTS.md", "services rule")
    write(target / "AGENTS.md", "api rule")
    write(sibling / "AGENTS.md", "web rule")

    res = resolve(target, None, workspace_root=root)
    assert bodies(res) == ["root rule", "services rule", "api rule"]
    assert [d.scope for d in res.docs] == ["project", "ancestor", "ancestor"]
    assert [d.depth for d in res.docs] == [0, 1, 2]
    assert [d.priority for d in res.docs] == [10, 12, 14]
    assert [d.directory for d in res.docs] == [str(root), str(root / "services"), str(target)]
    assert res.diagnostics == ()


def test_workspace_root_is_nearest_git_entry_of_any_type(tmp_path: Path) -> None:
    outer = tmp_path / "outer"
    (outer / ".git").mkdir(parents=True)
    inner = outer / "sub"
    target = inner / "pkg"
    target.mkdir(parents=True)
    write(inner / ".git", "gitdir: ../.git/modules/sub\n")  # a submodule's .git file
    write(outer / "AGENTS.md", "outer rule")
    write(inner / "AGENTS.md", "inner rule")
    write(target / "AGENTS.md", "pkg rule")

    res = resolve(target, None)
    assert res.root == str(inner)
    assert bodies(res) == ["inner rule", "pkg rule"]
    assert [d.scope for d in res.docs] == ["project", "ancestor"]


def test_no_git_root_means_target_is_root(tmp_path: Path) -> None:
    target = tmp_path / "a" / "b"
    target.mkdir(parents=True)
    write(tmp_path / "a" / "AGENTS.md", "above")
    write(target / "AGENTS.md", "here")
    res = resolve(target, None)
    assert res.root == str(target)
    assert bodies(res) == ["here"]
    assert res.docs[0].scope == "project"


def test_keeps_distinct_convention_files_in_deterministic_order(root: Path) -> None:
    write(root / "CLAUDE.md", "Claude-compatible rule")
    write(root / "AGENTS.md", "Portable rule")
    write(root / "REASONIX.md", "Reasonix rule")
    res = resolve(root, None, workspace_root=root)
    assert [Path(d.path).name for d in res.docs] == ["REASONIX.md", "AGENTS.md", "CLAUDE.md"]
    assert [d.order for d in res.docs] == [0, 1, 2]


def test_local_variants_follow_normal_files_per_directory(root: Path, user: Path) -> None:
    target = root / "svc"
    target.mkdir()
    write(user / "AGENTS.md", "user rule")
    write(user / "AGENTS.local.md", "never read at user level")
    write(root / "CLAUDE.local.md", "root local claude")
    write(root / "AGENTS.local.md", "root local agents")
    write(root / "REASONIX.md", "root reasonix")
    write(target / "REASONIX.local.md", "svc local")
    write(target / "AGENTS.md", "svc agents")

    res = resolve(target, user)
    assert bodies(res) == [
        "user rule",
        "root reasonix",
        "root local agents",
        "root local claude",
        "svc agents",
        "svc local",
    ]
    assert [d.scope for d in res.docs] == ["user", "project", "local", "local", "ancestor", "local"]
    assert [d.priority for d in res.docs] == [0, 10, 11, 11, 12, 13]
    assert res.docs[0].depth == -1
    assert res.docs[0].directory == str(user)


def test_empty_missing_and_directory_documents_are_skipped_silently(root: Path) -> None:
    write(root / "REASONIX.md", " \n\t\n")
    (root / "AGENTS.md").mkdir()
    write(root / "CLAUDE.md", "\n\n  real rule  \n\n")
    res = resolve(root, None)
    assert bodies(res) == ["real rule"]
    assert res.diagnostics == ()


def test_bom_and_utf16_documents_are_decoded(root: Path) -> None:
    target = root / "a"
    target.mkdir()
    write(root / "REASONIX.md", b"\xef\xbb\xbfUTF-8 BOM rule\n")
    write(root / "AGENTS.md", "\ufeffUTF-16 LE rule \u00e9\n".encode("utf-16-le"))
    write(root / "CLAUDE.md", "\ufeffUTF-16 BE rule\n".encode("utf-16-be"))
    # Same text as the root REASONIX.md, in UTF-16: deduplicated after decoding.
    write(target / "AGENTS.md", "\ufeffUTF-8 BOM rule".encode("utf-16-le"))
    res = resolve(target, None)
    assert bodies(res) == ["UTF-16 LE rule \u00e9", "UTF-16 BE rule", "UTF-8 BOM rule"]
    assert res.docs[-1].path == str(target / "AGENTS.md")


# --------------------------------------------------------------------------- dedup


def test_duplicate_replacement_preserves_precedence_order(root: Path, user: Path) -> None:
    write(user / "REASONIX.md", "duplicate")
    write(user / "AGENTS.md", "unique global")
    write(root / "AGENTS.md", "duplicate")
    write(root / "CLAUDE.md", "unique project")
    res = resolve(root, user, workspace_root=root)
    assert bodies(res) == ["unique global", "duplicate", "unique project"]
    assert [d.order for d in res.docs] == [0, 1, 2]
    assert res.docs[1].path == str(root / "AGENTS.md")
    assert res.docs[1].scope == "project"


def test_keeps_most_specific_source_for_exact_duplicate(root: Path, user: Path) -> None:
    write(user / "AGENTS.md", "Always run tests.")
    write(root / "AGENTS.md", "Always run tests.")
    res = resolve(root, user, workspace_root=root)
    assert len(res.docs) == 1
    assert res.docs[0].scope == "project"
    assert res.docs[0].path == str(root / "AGENTS.md")


def test_equal_priority_duplicates_keep_the_first_name(root: Path) -> None:
    write(root / "REASONIX.md", "same")
    write(root / "AGENTS.md", "same")
    res = resolve(root, None)
    assert [Path(d.path).name for d in res.docs] == ["REASONIX.md"]


def test_deeper_and_local_duplicates_win(root: Path) -> None:
    target = root / "svc"
    target.mkdir()
    write(root / "AGENTS.md", "same")
    write(root / "AGENTS.local.md", "same")
    write(root / "CLAUDE.md", "keep")
    write(target / "CLAUDE.md", "keep")
    res = resolve(target, None)
    assert [(d.scope, d.body) for d in res.docs] == [("local", "same"), ("ancestor", "keep")]


def test_dedup_compares_expanded_bodies(root: Path) -> None:
    target = root / "svc"
    write(root / "x.md", "X")
    write(target / "x.md", "Y")
    write(root / "AGENTS.md", "@x.md")
    write(target / "AGENTS.md", "@x.md")
    res = resolve(target, None)
    assert len(res.docs) == 2  # same text, different expansion


def test_dedup_losers_keep_their_diagnostics(root: Path, user: Path) -> None:
    write(user / "AGENTS.md", "@missing.md")
    write(root / "AGENTS.md", "@missing.md")
    res = resolve(root, user)
    assert len(res.docs) == 1 and res.docs[0].scope == "project"
    assert codes(res) == ["import_unreadable", "import_unreadable"]
    assert [d.path for d in res.diagnostics] == [str(user / "missing.md"), str(root / "missing.md")]


# --------------------------------------------------------------------------- boundaries


def test_direct_symlink_within_boundary_is_loaded(root: Path) -> None:
    target = write(root / "docs" / "agent-rules.md", "Run the focused tests.")
    os.symlink(target, root / "AGENTS.md")
    res = resolve(root, None, workspace_root=root)
    assert bodies(res) == ["Run the focused tests."]
    assert res.docs[0].path == str(root / "AGENTS.md")
    assert res.diagnostics == ()


def test_direct_symlink_outside_boundary_is_rejected(tmp_path: Path, root: Path) -> None:
    outside = write(tmp_path / "outside" / "private.md", "MACHINE-LOCAL SECRET")
    os.symlink(outside, root / "AGENTS.md")
    res = resolve(root, None, workspace_root=root)
    assert res.docs == ()
    assert len(res.diagnostics) == 1
    d = res.diagnostics[0]
    path = str(root / "AGENTS.md")
    assert (d.code, d.path, d.source_path, d.line) == ("document_symlink_escape", path, "", 0)
    assert d.message == f'rejected instruction document "{path}" outside boundary "{root}"'
    assert "SECRET" not in instruction_block(res)


def test_user_document_symlink_outside_user_dir_is_rejected(tmp_path: Path, user: Path, root: Path) -> None:
    outside = write(tmp_path / "elsewhere.md", "ELSEWHERE")
    os.symlink(outside, user / "CLAUDE.md")
    res = resolve(root, user)
    assert res.docs == ()
    assert res.diagnostics[0].message == (
        f'rejected instruction document "{user / "CLAUDE.md"}" outside boundary "{user}"'
    )


def test_dangling_document_symlink_is_skipped_silently(root: Path) -> None:
    os.symlink(root / "nowhere.md", root / "AGENTS.md")
    res = resolve(root, None)
    assert res.docs == () and res.diagnostics == ()


def test_target_outside_workspace(tmp_path: Path, root: Path) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    write(elsewhere / "AGENTS.md", "not applied")
    write(root / "AGENTS.md", "root rule")
    res = resolve(elsewhere, None, workspace_root=root)
    assert res.diagnostics[0].code == "target_outside_workspace"
    assert res.diagnostics[0].path == str(elsewhere)
    assert res.diagnostics[0].message == (f'instruction target "{elsewhere}" is outside workspace "{root}"')
    assert res.target == str(root)
    assert res.requested_target == str(elsewhere)
    assert bodies(res) == ["root rule"]


def test_outside_test_is_lexical_not_a_string_prefix(tmp_path: Path, root: Path) -> None:
    sibling = tmp_path / "repo-other"  # shares the "repo" prefix
    sibling.mkdir()
    res = resolve(sibling, None, workspace_root=root)
    assert codes(res) == ["target_outside_workspace"]


def test_messages_use_go_quoting(tmp_path: Path) -> None:
    root = tmp_path / 'we"ird\u00e9'
    root.mkdir()
    write(tmp_path / "p.md", "x")
    os.symlink(tmp_path / "p.md", root / "AGENTS.md")
    res = resolve(root, None)
    quoted_root = str(root).replace('"', '\\"')
    assert res.diagnostics[0].message.endswith(f'outside boundary "{quoted_root}"')
    assert "\u00e9" in res.diagnostics[0].message  # printable runes are not escaped


# --------------------------------------------------------------------------- imports


def test_import_target_classification() -> None:
    cases = {
        "@docs/setup.md": "docs/setup.md",
        "@./notes.txt": "./notes.txt",
        "@/abs/path.md": "/abs/path.md",
        "  @a\\b  ": "a\\b",
        "@a/b\r": "a/b",
        "@mention": None,
        "@": None,
        "@a/b and more": None,
        "@a/b\tmore": None,
        "plain text": None,
        "see @docs/x.md": None,
    }
    for line, want in cases.items():
        assert parse_import_target(line) == want, line


@pytest.mark.parametrize("policy", POLICIES)
def test_imports_are_provenanced_deduplicated_and_confined(tmp_path: Path, policy: str) -> None:
    root = tmp_path / "root"
    outside = tmp_path / "outside"
    write(root / "shared.md", "SHARED RULE")
    write(root / "a.md", "A\n@shared.md")
    write(root / "b.md", "B\n@shared.md")
    write(outside / "secret.md", "SECRET")
    os.symlink(outside / "secret.md", root / "linked.md")
    agents = write(root / "AGENTS.md", "@a.md\n@b.md\n@../secret.md\n@linked.md")

    res = resolve(root, None, workspace_root=root, policy=policy)
    assert len(res.docs) == 1
    body = res.docs[0].body
    assert body.count("SHARED RULE") == 1
    assert "instruction-import" in body and "a.md" in body and "b.md" in body
    assert "SECRET" not in body
    src = str(agents)
    assert [(d.code, d.path, d.source_path, d.line, d.message) for d in res.diagnostics] == [
        (
            "import_outside_source",
            "../secret.md",
            src,
            3,
            f'rejected instruction import "../secret.md" from "{src}"',
        ),
        (
            "import_symlink_escape",
            "linked.md",
            src,
            4,
            f'rejected instruction import "linked.md" from "{src}"',
        ),
    ]
    assert body == (
        '<instruction-import path="a.md">\n'
        "A\n"
        '<instruction-import path="shared.md">\n'
        "SHARED RULE\n"
        "</instruction-import>\n"
        "</instruction-import>\n"
        '<instruction-import path="b.md">\n'
        "B\n"
        "@shared.md  <!-- skipped: duplicate import -->\n"
        "</instruction-import>\n"
        "@../secret.md  <!-- rejected: import_outside_source -->\n"
        "@linked.md  <!-- rejected: import_symlink_escape -->"
    )
    flat = res.docs[0].flat_imports
    assert [(Path(i.path).name, Path(i.source_path).name) for i in flat] == [
        ("shared.md", "a.md"),
        ("a.md", "AGENTS.md"),
        ("b.md", "AGENTS.md"),
    ]


def test_import_tree_keeps_structure_and_skipped_directives(root: Path) -> None:
    write(root / "shared.md", "S")
    write(root / "a.md", "A\n@shared.md")
    write(root / "b.md", "B\n@shared.md\n@AGENTS.md")
    write(root / "AGENTS.md", "@a.md\n@b.md\n@../x.md\n@gone.md")
    tree = resolve(root, None).docs[0].imports
    assert [(n.target, n.status, n.level, n.line) for n in tree] == [
        ("a.md", "loaded", 1, 1),
        ("b.md", "loaded", 1, 2),
        ("../x.md", "rejected", 1, 3),
        ("gone.md", "unreadable", 1, 4),
    ]
    assert [(n.target, n.status, n.level) for n in tree[0].children] == [("shared.md", "loaded", 2)]
    assert [(n.target, n.status, n.code) for n in tree[1].children] == [
        ("shared.md", "duplicate", ""),
        ("AGENTS.md", "cycle", "import_cycle"),
    ]
    assert tree[2].code == "import_outside_source"
    assert tree[0].label == "a.md" and tree[0].children[0].label == "shared.md"
    assert tree[0].children[0].source_path == str(root / "a.md")


def test_cycle_marker_and_diagnostic(root: Path) -> None:
    a = write(root / "a.md", "A\n@b.md")
    b = write(root / "b.md", "B\n@a.md")
    write(root / "AGENTS.md", "top\n@a.md")
    res = resolve(root, None)
    assert res.docs[0].body == (
        "top\n"
        '<instruction-import path="a.md">\n'
        "A\n"
        '<instruction-import path="b.md">\n'
        "B\n"
        "@a.md  <!-- skipped: import cycle -->\n"
        "</instruction-import>\n"
        "</instruction-import>"
    )
    assert [(d.code, d.path, d.source_path, d.line, d.message) for d in res.diagnostics] == [
        ("import_cycle", str(a), str(b), 2, f'instruction import cycle from "{b}" to "{a}"')
    ]


def test_self_import_of_top_level_document_is_a_cycle(root: Path) -> None:
    agents = write(root / "AGENTS.md", "rule\n@./AGENTS.md")
    res = resolve(root, None)
    assert res.docs[0].body == "rule\n@./AGENTS.md  <!-- skipped: import cycle -->"
    assert res.diagnostics[0].message == f'instruction import cycle from "{agents}" to "{agents}"'


def test_cycle_identity_is_the_realpath(root: Path) -> None:
    write(root / "real.md", "R\n@alias.md")
    os.symlink(root / "real.md", root / "alias.md")
    write(root / "AGENTS.md", "@real.md")
    res = resolve(root, None)
    assert "@alias.md  <!-- skipped: import cycle -->" in res.docs[0].body
    assert codes(res) == ["import_cycle"]


def test_depth_limit_leaves_directive_literal_without_diagnostic(root: Path) -> None:
    for i in range(1, 7):
        write(root / f"l{i}.md", f"level {i}\n@l{i + 1}.md")
    write(root / "AGENTS.md", "top\n@l1.md")
    res = resolve(root, None)
    body = res.docs[0].body
    for i in range(1, 6):
        assert f"level {i}" in body
    assert "level 6" not in body
    assert "\nlevel 5\n@l6.md\n</instruction-import>" in body  # literal, no marker
    assert res.diagnostics == ()
    assert len(res.docs[0].flat_imports) == 5
    assert [Path(i.path).name for i in res.docs[0].flat_imports] == ["l5.md", "l4.md", "l3.md", "l2.md", "l1.md"]
    node = res.docs[0].imports[0]
    levels = []
    while True:
        levels.append(node.level)
        if not node.children:
            break
        node = node.children[0]
    assert levels == [1, 2, 3, 4, 5]


@pytest.mark.parametrize("content", [None, "", "   \n\n", "dir"])
def test_unreadable_or_empty_import_leaves_line_unchanged(root: Path, content: str | None) -> None:
    if content == "dir":
        (root / "x.md").mkdir()
    elif content is not None:
        write(root / "x.md", content)
    agents = write(root / "AGENTS.md", "first\n  @x.md  \nlast")
    res = resolve(root, None)
    assert res.docs[0].body == "first\n  @x.md  \nlast"
    resolved = str(root / "x.md")
    assert [(d.code, d.path, d.source_path, d.line, d.message) for d in res.diagnostics] == [
        ("import_unreadable", resolved, str(agents), 2, f'instruction import "{resolved}" could not be read')
    ]


def test_line_numbers_count_trimmed_text_per_level(root: Path) -> None:
    nested = write(root / "docs" / "n.md", "\n\n\n  one\ntwo\n@../../escape.md\n")
    agents = write(root / "AGENTS.md", "\n\n\nfirst\n\n@docs/n.md\n@nope.md\n")
    res = resolve(root, None)
    assert [(d.source_path, d.line) for d in res.diagnostics] == [(str(nested), 3), (str(agents), 4)]
    assert [d.code for d in res.diagnostics] == ["import_outside_source", "import_unreadable"]


def test_nested_imports_resolve_relative_to_importing_file(root: Path) -> None:
    write(root / "docs" / "a.md", "A\n@sub/b.md")
    write(root / "docs" / "sub" / "b.md", "B")
    write(root / "AGENTS.md", "@docs/a.md")
    res = resolve(root, None)
    assert '<instruction-import path="docs/sub/b.md">\nB\n</instruction-import>' in res.docs[0].body
    assert res.diagnostics == ()


def test_crlf_documents_recognise_directives(root: Path) -> None:
    write(root / "a.md", "A")
    write(root / "AGENTS.md", b"rule\r\n@a.md\r\nend\r\n")
    res = resolve(root, None)
    assert res.docs[0].body == 'rule\r\n<instruction-import path="a.md">\nA\n</instruction-import>\nend'


def test_imported_files_are_decoded_like_documents(root: Path) -> None:
    write(root / "u.md", "\ufeffwide import\n".encode("utf-16-le"))
    write(root / "AGENTS.md", "@u.md")
    assert "\nwide import\n" in resolve(root, None).docs[0].body


def test_import_label_is_html_escaped(root: Path) -> None:
    write(root / "a&b.md", "AMP")
    write(root / "AGENTS.md", "@a&b.md")
    assert '<instruction-import path="a&amp;b.md">' in resolve(root, None).docs[0].body


# --------------------------------------------------------------------------- policies


def test_brief_rejects_absolute_imports_that_v2_allows(root: Path) -> None:
    inside = write(root / "docs" / "x.md", "INSIDE")
    agents = write(root / "AGENTS.md", f"@{inside}")
    brief = resolve(root, None)
    assert "INSIDE" not in brief.docs[0].body
    assert brief.docs[0].body == f"@{inside}  <!-- rejected: import_outside_source -->"
    assert [(d.code, d.path, d.line) for d in brief.diagnostics] == [("import_outside_source", str(inside), 1)]
    assert brief.diagnostics[0].message == f'rejected instruction import "{inside}" from "{agents}"'
    v2 = resolve(root, None, policy="v2")
    assert '<instruction-import path="docs/x.md">\nINSIDE\n</instruction-import>' == v2.docs[0].body
    assert v2.diagnostics == ()


def test_brief_confines_imports_to_the_documents_own_directory(root: Path) -> None:
    target = root / "services"
    write(root / "shared.md", "SHARED")
    write(target / "local-notes.md", "NOTES")
    write(target / "AGENTS.md", "@../shared.md\n@local-notes.md")
    brief = resolve(target, None)
    assert brief.docs[0].body == (
        "@../shared.md  <!-- rejected: import_outside_source -->\n"
        '<instruction-import path="local-notes.md">\nNOTES\n</instruction-import>'
    )
    assert codes(brief) == ["import_outside_source"]
    v2 = resolve(target, None, policy="v2")
    # Upstream: confined to the workspace root, labels relative to it.
    assert v2.docs[0].body == (
        '<instruction-import path="shared.md">\nSHARED\n</instruction-import>\n'
        '<instruction-import path="services/local-notes.md">\nNOTES\n</instruction-import>'
    )
    assert v2.diagnostics == ()


def test_brief_keeps_nested_imports_inside_the_top_level_directory(root: Path) -> None:
    target = root / "services"
    write(root / "top.md", "TOP")
    write(target / "docs" / "a.md", "A\n@../../top.md\n@../b.md")
    write(target / "b.md", "B")
    write(target / "AGENTS.md", "@docs/a.md")
    res = resolve(target, None)
    body = res.docs[0].body
    assert "TOP" not in body
    assert '<instruction-import path="b.md">\nB\n</instruction-import>' in body
    assert [(d.code, d.path, d.line) for d in res.diagnostics] == [("import_outside_source", "../../top.md", 2)]


@pytest.mark.parametrize("policy", POLICIES)
def test_tilde_imports_in_project_documents(tmp_path: Path, isolated_home: Path, policy: str) -> None:
    root = isolated_home / "repo"
    write(isolated_home / ".agents" / "AGENTS.md", "PRIVATE USER RULE")
    write(root / "AGENTS.md", "@~/.agents/AGENTS.md")
    res = resolve(root, None, workspace_root=root, policy=policy)
    assert "PRIVATE USER RULE" not in bodies(res)[0]
    assert [(d.code, d.path) for d in res.diagnostics] == [("import_outside_source", "~/.agents/AGENTS.md")]


@pytest.mark.parametrize("policy", POLICIES)
def test_user_documents_import_trusted_convention_roots(isolated_home: Path, policy: str) -> None:
    user_dir = isolated_home / ".reasonix"
    root = isolated_home / "repo"
    write(isolated_home / ".agents" / "AGENTS.md", "SHARED USER RULE")
    write(user_dir / "REASONIX.md", "@~/.agents/AGENTS.md")
    write(root / "AGENTS.md", "PROJECT RULE")
    res = resolve(root, user_dir, workspace_root=root, policy=policy)
    assert res.diagnostics == ()
    assert res.docs[0].body == '<instruction-import path=".agents/AGENTS.md">\nSHARED USER RULE\n</instruction-import>'
    block = instruction_block(res)
    assert str(isolated_home) not in block
    assert res.docs[0].imports[0].label == ".agents/AGENTS.md"


@pytest.mark.parametrize("policy", POLICIES)
def test_user_documents_reject_arbitrary_home_and_convention_symlink_escape(
    tmp_path: Path, isolated_home: Path, policy: str
) -> None:
    user_dir = isolated_home / ".reasonix"
    write(isolated_home / "secret.md", "HOME SECRET")
    (isolated_home / ".agents").mkdir()
    os.symlink(isolated_home / "secret.md", isolated_home / ".agents" / "linked.md")
    readme = write(user_dir / "REASONIX.md", "@~/secret.md\n@~/.agents/linked.md\n@~other/x.md")
    ws = tmp_path / "ws"
    ws.mkdir()
    res = resolve(ws, user_dir, workspace_root=ws, policy=policy)
    assert "HOME SECRET" not in "\n".join(bodies(res))
    src = str(readme)
    assert [(d.code, d.path, d.line, d.message) for d in res.diagnostics] == [
        ("import_outside_source", "~/secret.md", 1, f'rejected instruction import "~/secret.md" from "{src}"'),
        (
            "import_symlink_escape",
            "~/.agents/linked.md",
            2,
            f'rejected instruction import "~/.agents/linked.md" from "{src}"',
        ),
        ("import_outside_source", "~other/x.md", 3, f'rejected instruction import "~other/x.md" from "{src}"'),
    ]


def test_user_documents_import_relative_to_user_dir_unprefixed(user: Path, root: Path) -> None:
    write(user / "style.md", "STYLE")
    write(user / "AGENTS.md", "@style.md")
    res = resolve(root, user)
    assert res.docs[0].body == '<instruction-import path="style.md">\nSTYLE\n</instruction-import>'


def test_unknown_home_rejects_tilde_imports(monkeypatch: pytest.MonkeyPatch, user: Path, root: Path) -> None:
    monkeypatch.setenv("HOME", "")
    write(user / "AGENTS.md", "@~/x.md")
    res = resolve(root, user)
    assert codes(res) == ["import_outside_source"]


def test_unknown_policy_is_refused(root: Path) -> None:
    with pytest.raises(ValueError, match="policy"):
        resolve(root, None, policy="v3")


# --------------------------------------------------------------------------- block


def _stable_tree(base: Path) -> Resolution:
    root = base / "repo"
    target = root / "services" / "api"
    user = base / "reasonix-home"
    write(user / "AGENTS.md", "Use concise replies.")
    write(root / "AGENTS.md", "Run all tests.")
    write(target / "AGENTS.local.md", "Run API tests first.")
    return resolve(target, user, workspace_root=root)


def test_instruction_block_is_stable_across_workspace_roots(tmp_path: Path) -> None:
    first_base, second_base = tmp_path / "one", tmp_path / "two" / "deeper"
    first = instruction_block(_stable_tree(first_base))
    second = instruction_block(_stable_tree(second_base))
    assert first == second
    assert str(tmp_path) not in first
    assert first == (
        "# Instructions\n\n"
        f"{BLOCK_PREAMBLE}\n\n"
        "## user/AGENTS.md (user)\n\n"
        "Use concise replies.\n\n"
        "## workspace/AGENTS.md (project, applies to workspace)\n\n"
        "Run all tests.\n\n"
        "## workspace/services/api/AGENTS.local.md (local, applies to workspace/services/api)\n\n"
        "Run API tests first."
    )
    assert BLOCK_PREAMBLE == (
        "Standing guidance resolved for this workspace and target path. Later entries are more specific "
        "and take precedence when rules conflict; the current user request still has highest priority."
    )


def test_instruction_block_derives_workspace_root_from_nested_document(tmp_path: Path) -> None:
    root = tmp_path / "r"
    target = root / "services" / "api"
    write(target / "AGENTS.md", "Run API tests first.")
    res = resolve(target, None, workspace_root=root)
    block = instruction_block(res)
    assert "## workspace/services/api/AGENTS.md (ancestor, applies to workspace/services/api)" in block
    assert str(root) not in block
    assert (res.docs[0].label, res.docs[0].dir_label) == ("workspace/services/api/AGENTS.md", "workspace/services/api")


def test_block_is_empty_without_documents(root: Path) -> None:
    assert instruction_block(resolve(root, None)) == ""


def test_diagnostics_never_enter_the_block(root: Path) -> None:
    write(root / "AGENTS.md", "@../x.md")
    block = instruction_block(resolve(root, None))
    assert "import_outside_source -->" in block  # the in-body marker only
    assert "rejected instruction import" not in block


def test_user_only_labels(user: Path, root: Path) -> None:
    write(user / "CLAUDE.md", "c")
    res = resolve(root, user)
    assert instruction_block(res).endswith("## user/CLAUDE.md (user)\n\nc")


# --------------------------------------------------------------------------- report


def test_report_format(tmp_path: Path) -> None:
    root = tmp_path / "my  repo"
    (root / ".git").mkdir(parents=True)
    user = tmp_path / "u"
    write(user / "AGENTS.md", "user")
    a = write(root / "a.md", "A")
    agents = write(root / "AGENTS.md", "@a.md\n@../x.md")
    write(tmp_path / "out.md", "OUT")
    os.symlink(tmp_path / "out.md", root / "CLAUDE.md")
    res = resolve(root, user)
    assert render_report(res) == (
        "instructions (low -> high precedence)\n"
        f"  precedence=1 scope=user path={user / 'AGENTS.md'}\n"
        f"    directory={user}\n"
        f"  precedence=2 scope=project path={agents}\n"
        f"    directory={root}\n"
        f"    import={a} source={agents}\n"
        "diagnostics\n"
        f"  code=import_outside_source source={agents}:2 path=../x.md "
        f'message=rejected instruction import "../x.md" from "{str(agents).replace("  ", " ")}"\n'
        f"  code=document_symlink_escape source={root / 'CLAUDE.md'} path={root / 'CLAUDE.md'} "
        f'message=rejected instruction document "{str(root / "CLAUDE.md").replace("  ", " ")}" '
        f'outside boundary "{str(root).replace("  ", " ")}"'
    )


def test_report_none(root: Path) -> None:
    res = resolve(root, None)
    assert render_report(res) == "instructions: none"
    write(root / "AGENTS.md", "x")
    assert render_report(resolve(root, None), enabled=False) == "instructions: none"


def test_report_with_only_diagnostics(tmp_path: Path, root: Path) -> None:
    res = resolve(tmp_path, None, workspace_root=root)
    assert render_report(res) == (
        "instructions (low -> high precedence)\n"
        "diagnostics\n"
        f"  code=target_outside_workspace source={tmp_path} path={tmp_path} "
        f'message=instruction target "{tmp_path}" is outside workspace "{root}"'
    )


def test_report_json(root: Path, user: Path) -> None:
    write(user / "AGENTS.md", "u")
    write(root / "docs" / "s.md", "S")
    write(root / "docs" / "a.md", "A\n@s.md")
    write(root / "AGENTS.md", "@docs/a.md\n@../up.md")
    res = resolve(root, user)
    data = report_json(res)
    json.dumps(data)  # serialisable
    assert data["block"] == instruction_block(res)
    assert data["policy"] == "brief"
    assert data["root"] == str(root) and data["target"] == str(root) and data["user_dir"] == str(user)
    docs = data["documents"]
    assert [(d["precedence"], d["scope"], d["label"], d["dir_label"]) for d in docs] == [
        (1, "user", "user/AGENTS.md", "user"),
        (2, "project", "workspace/AGENTS.md", "workspace"),
    ]
    assert docs[1]["path"] == str(root / "AGENTS.md") and docs[1]["directory"] == str(root)
    tree = docs[1]["imports"]
    assert [(n["target"], n["status"]) for n in tree] == [("docs/a.md", "loaded"), ("../up.md", "rejected")]
    assert tree[0]["children"][0]["path"] == str(root / "docs" / "s.md")
    assert tree[0]["children"][0]["label"] == "docs/s.md"
    assert [i["path"] for i in docs[1]["flat_imports"]] == [str(root / "docs" / "s.md"), str(root / "docs" / "a.md")]
    assert data["diagnostics"] == [
        {
            "code": "import_outside_source",
            "path": "../up.md",
            "source_path": str(root / "AGENTS.md"),
            "line": 2,
            "message": f'rejected instruction import "../up.md" from "{root / "AGENTS.md"}"',
        }
    ]
    assert report_json(res, enabled=False)["documents"] == []
