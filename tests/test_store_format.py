"""Fact file format: spec vectors for ids, slugs, YAML quoting, times, reading and rendering."""

from __future__ import annotations

import pytest

from reasonix_tui.core.compat import yamlv3
from reasonix_tui.core.compat.encoding import decode_bytes
from reasonix_tui.core.compat.gostr import bound_filename_component, fnv1a64, go_quote, html_escape, one_line, to_lower
from reasonix_tui.core.compat.gotime import Timestamp, format_archive_stamp, parse_archive_stamp, parse_rfc3339
from reasonix_tui.core.paths import Layout, resolve_state_root, workspace_slug
from reasonix_tui.core.store.fileformat import parse_fact_bytes, parse_fact_text, render_fact, split_frontmatter
from reasonix_tui.core.store.model import (
    Fact,
    FactId,
    legacy_memory_id,
    normalize_subject_key,
    parse_reference,
    resolve_activation,
    routing_type,
    slug,
)

# ---------------------------------------------------------------- ids and slugs


@pytest.mark.parametrize(
    ("name", "scope", "expected"),
    [
        ("legacy-fact", "project", "legacy-0c0ec20229014fe8e310b2e1"),
        ("legacy-fact", "global", "legacy-27efb6a3e08f4d3be39fd60f"),
        ("Prefers Tabs", "global", "legacy-6395e8890356043bb711b59e"),
        ("中文标题", "project", "legacy-70e56ac1bb0a0347599d8624"),
    ],
)
def test_legacy_id_vectors(name: str, scope: str, expected: str) -> None:
    assert legacy_memory_id(name, scope) == expected


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("Prefers Tabs", "prefers-tabs"),
        ("  spaces  ", "spaces"),
        ("hello_world", "hello-world"),
        ("with/slash", "with-slash"),
        ("CamelCase", "camelcase"),
        ("---", ""),
        ("中文标题", "中文标题"),
        ("HÉLLO", "héllo"),
        ("日本語123", "日本語123"),
        ("My Setting: prefer 中文", "my-setting-prefer-中文"),
        ("x²", "x²"),
        ("Ⅻ roman", "ⅻ-roman"),
        ("İstanbul", "istanbul"),  # Go's simple mapping, not Python's two code points
    ],
)
def test_slug_vectors(raw: str, expected: str) -> None:
    assert slug(raw) == expected


def test_slug_bounds_long_names_with_fnv_suffix() -> None:
    name = "abcdefghij" * 44 + "xyz"  # 443 bytes
    assert len(name.encode()) == 443
    s = slug(name)
    assert len(s.encode()) == 252
    assert s[:235] == name[:235]
    assert s[235] == "-"
    assert s[236:] == f"{fnv1a64(name.encode()):016x}"


def test_bound_filename_component_backs_off_to_utf8_boundary() -> None:
    s = "中" * 100  # 300 bytes
    out = bound_filename_component(s, 252)
    assert len(out.encode()) <= 252
    assert out.endswith(f"-{fnv1a64(s.encode()):016x}")
    out.encode("utf-8")  # valid


@pytest.mark.parametrize(
    ("path", "windows", "expected"),
    [
        ("/Users/me/proj", False, "-Users-me-proj"),
        ("/home/me/my project", False, "-home-me-my project"),
        ("C:\\Users\\Me\\Proj", True, "c--users-me-proj"),
        ("\\\\server\\share\\x", True, "--server-share-x"),
    ],
)
def test_workspace_slug_vectors(path: str, windows: bool, expected: str) -> None:
    assert workspace_slug(path, windows=windows) == expected


def test_workspace_slug_is_bounded() -> None:
    long = "/" + "d" * 300
    s = workspace_slug(long, windows=False)
    assert len(s.encode()) == 255
    assert s.endswith(f"{fnv1a64(('-' + 'd' * 300).encode()):016x}")


def test_state_root_precedence(tmp_path) -> None:
    env = {
        "REASONIX_STATE_HOME": str(tmp_path / "state"),
        "REASONIX_HOME": str(tmp_path / "home"),
        "HOME": str(tmp_path),
    }
    assert resolve_state_root(tmp_path / "flag", env) == tmp_path / "flag"
    assert resolve_state_root(None, env) == tmp_path / "state"
    env.pop("REASONIX_STATE_HOME")
    assert resolve_state_root(None, env) == tmp_path / "home"
    env.pop("REASONIX_HOME")
    assert resolve_state_root(None, env) == tmp_path / ".reasonix"


def test_layout_dirs(tmp_path) -> None:
    layout = Layout.resolve(home=tmp_path / "root", workspace="/Users/me/proj")
    assert layout.project_dir == tmp_path / "root" / "projects" / "-Users-me-proj" / "memory"
    assert layout.global_dir == tmp_path / "root" / "memory" / "global"


@pytest.mark.parametrize(
    ("ref", "name", "scope"),
    [
        ("project/foo.md", "foo", "project"),
        ("global/likes-go.md", "likes-go", "global"),
        ("global/Likes Go", "likes-go", "global"),
        ("Foo.md", "foo", ""),
        ("project/", "project", ""),
        ("project/a/b.md", "project-a-b", ""),
        ("../outside", "outside", ""),
    ],
)
def test_parse_reference(ref: str, name: str, scope: str) -> None:
    parsed = parse_reference(ref)
    assert (parsed.name, parsed.scope) == (name, scope)


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("project.package_manager", "project.package_manager"),
        (" Project.Package Manager", "project.package_manager"),
        ("project..release-branch", "project.release-branch"),
        ("项目.包管理", ""),
        ("...", ""),
    ],
)
def test_subject_key_vectors(raw: str, expected: str) -> None:
    assert normalize_subject_key(raw) == expected


def test_activation_resolution_legacy_rule() -> None:
    assert resolve_activation("", "global", "user") == "pinned"
    assert resolve_activation("", "global", "feedback") == "pinned"
    assert resolve_activation("", "project", "user") == "relevant"
    assert resolve_activation("relevant", "global", "user") == "relevant"
    assert resolve_activation("bogus", "global", "project") == "relevant"


@pytest.mark.parametrize(
    ("scope", "type_", "route"),
    [
        ("global", "user", "user"),
        ("global", "feedback", "feedback"),
        ("global", "project", "user"),
        ("global", "reference", "user"),
        ("project", "project", "project"),
        ("project", "reference", "reference"),
        ("project", "user", "project"),
        ("project", "feedback", "project"),
    ],
)
def test_routing_type_table(scope: str, type_: str, route: str) -> None:
    assert routing_type(scope, type_) == route


# ---------------------------------------------------------------- YAML quoting (spec §2.2)

DOUBLE = [
    "",
    "~",
    "null",
    "Null",
    "NULL",
    "y",
    "Y",
    "yes",
    "Yes",
    "YES",
    "n",
    "N",
    "no",
    "No",
    "NO",
    "true",
    "True",
    "TRUE",
    "false",
    "False",
    "FALSE",
    "on",
    "On",
    "ON",
    "off",
    "Off",
    "OFF",
    "+1",
    "-1",
    "0",
    "00",
    "012",
    "1_000",
    "20260102",
    "0x1F",
    "0o17",
    "0b101",
    "1.5",
    ".5",
    "1e3",
    ".inf",
    ".nan",
    "12:30",
    "1:00:00",
    "190:20:30",
    "0:0",
    "2026-01-02",
    "2026-1-2",
    "2026-01-02 03:04:05",
    "2026-07-01T00:00:00Z",
    "2026-07-01T08:15:42.123456789Z",
]
PLAIN = [
    "inf",
    "NaN",
    "1st",
    "v1.2",
    "0.1.2",
    "1.2.3",
    "1,000",
    "+",
    "<<",
    "8:00pm",
    "a:b",
    "a, b",
    "?q",
    "-dash",
    "~x",
    "=x",
    "$100",
    "a#b",
    "x#",
    "end.",
    "http://x.y/z",
    "C:\\path",
    "Don't drop this",
    "User's preference",
    'The "golden" path',
    'a"b:c',
    "a\u00a0b",
    "a\u200db",
    "\ue000",
    "\ufffd",
    "依赖 安装 包管理",
]
SINGLE = {
    "---": "'---'",
    "...": "'...'",
    "- looks like a list": "'- looks like a list'",
    "-": "'-'",
    "?": "'?'",
    ":": "':'",
    ": colon": "': colon'",
    "Plan: step one": "'Plan: step one'",
    "type: reference": "'type: reference'",
    "trailing:": "'trailing:'",
    "Ship #42": "'Ship #42'",
    "x # y": "'x # y'",
    "x #": "'x #'",
    " lead": "' lead'",
    "trail ": "'trail '",
    "'quoted'": "'''quoted'''",
    '"dq"': "'\"dq\"'",
    "#hash": "'#hash'",
    "@at": "'@at'",
}
ESCAPED = {
    "emoji 🎉": '"emoji \\U0001F389"',
    "𠀀字": '"\\U00020000字"',
    "\ufeffbom": '"\\uFEFF\\x62\\x6F\\x6D"',
    "tab\there": '"tab\\there"',
    "bell\x07": '"bell\\a"',
    "del\x7f": '"del\\x7F"',
    "nel\x85x": '"nel\\Nx"',
}


@pytest.mark.parametrize("value", DOUBLE)
def test_yaml_resolver_values_are_double_quoted(value: str) -> None:
    assert yamlv3.scalar(value) == f'"{value}"'


@pytest.mark.parametrize("value", PLAIN)
def test_yaml_plain_values(value: str) -> None:
    assert yamlv3.scalar(value) == value


@pytest.mark.parametrize(("value", "expected"), sorted(SINGLE.items()))
def test_yaml_single_quoted(value: str, expected: str) -> None:
    assert yamlv3.scalar(value) == expected


@pytest.mark.parametrize(("value", "expected"), sorted(ESCAPED.items()))
def test_yaml_double_quoted_escapes(value: str, expected: str) -> None:
    assert yamlv3.scalar(value) == expected


def test_yaml_never_folds_long_values() -> None:
    long = "word " * 80 + "end"
    assert "\n" not in yamlv3.scalar(long)


# ---------------------------------------------------------------- times


def test_rfc3339nano_formatting() -> None:
    assert parse_rfc3339("2026-07-01T00:00:00Z").rfc3339() == "2026-07-01T00:00:00Z"
    assert parse_rfc3339("2026-07-01T10:00:00.500Z").rfc3339() == "2026-07-01T10:00:00.5Z"
    assert parse_rfc3339("2026-07-01T08:15:42.123456789Z").rfc3339() == "2026-07-01T08:15:42.123456789Z"
    assert parse_rfc3339("2026-07-01T10:00:00+02:00").rfc3339() == "2026-07-01T08:00:00Z"
    assert parse_rfc3339("garbage") is None
    assert parse_rfc3339("") is None


def test_archive_stamp_truncates_milliseconds() -> None:
    ts = parse_rfc3339("2026-07-01T10:20:30.123999Z")
    assert format_archive_stamp(ts) == "20260701-102030.123"
    back = parse_archive_stamp("20260701-102030.123-name.md")
    assert back is not None and back.rfc3339() == "2026-07-01T10:20:30.123Z"
    assert parse_archive_stamp("short.md") is None
    assert parse_archive_stamp("2026070x-102030.123-name.md") is None


# ---------------------------------------------------------------- rendering

PNPM = (
    "---\n"
    "id: mem-3f2a9c0d4b1e8f7a6c5d4e3f2a1b0c9d\n"
    "revision: 1\n"
    'created_at: "2026-07-01T08:15:42.123456789Z"\n'
    'updated_at: "2026-07-01T08:15:42.123456789Z"\n'
    "name: package-manager\n"
    "title: Package manager is pnpm\n"
    "description: The project migrated from npm to pnpm\n"
    "keywords: 依赖 安装 包管理 install dependencies\n"
    "subject_key: project.package_manager\n"
    "metadata:\n"
    "  type: project\n"
    "  scope: project\n"
    "---\n"
    "\n"
    "Use pnpm for every workspace task.\n"
)

TABS = (
    "---\n"
    "name: prefers-tabs\n"
    "title: Prefers tabs\n"
    "description: User prefers tabs over spaces\n"
    "metadata:\n"
    "  type: project\n"
    "  fact_type: user\n"
    "  scope: project\n"
    "---\n"
    "\n"
    "Always indent with tabs.\n"
)


def test_render_matches_spec_example() -> None:
    ts = parse_rfc3339("2026-07-01T08:15:42.123456789Z")
    fact = Fact(
        id=FactId("mem-3f2a9c0d4b1e8f7a6c5d4e3f2a1b0c9d"),
        revision=1,
        created_at=ts,
        updated_at=ts,
        name="package-manager",
        title="Package manager is pnpm",
        description="The project migrated from npm to pnpm",
        keywords="依赖 安装 包管理 install dependencies",
        subject_key="project.package_manager",
        type="project",
        scope="project",
        body="\n  Use pnpm for every workspace task.  \n",
    )
    assert render_fact(fact) == PNPM


def test_render_previous_release_routing_type_vector() -> None:
    fact = Fact(
        id=FactId(""),
        revision=0,
        created_at=None,
        updated_at=None,
        name="prefers-tabs",
        title="Prefers tabs",
        description="User prefers tabs over spaces",
        type="user",
        scope="project",
        body="Always indent with tabs.",
    )
    assert render_fact(fact) == TABS


def test_render_empty_body_and_description() -> None:
    fact = Fact(id=FactId(""), revision=0, created_at=None, updated_at=None, name="x", type="project", scope="global")
    assert render_fact(fact) == (
        '---\nname: x\ndescription: ""\nmetadata:\n  type: user\n  fact_type: project\n  scope: global\n---\n\n\n'
    )


def test_reasonix_written_file_round_trips_byte_for_byte() -> None:
    for text in (PNPM,):
        fact = parse_fact_text(text)
        assert render_fact(fact) == text


def test_one_lining_of_title_description_keywords() -> None:
    fact = Fact(
        id=FactId("mem-1"),
        revision=2,
        created_at=None,
        updated_at=None,
        name="n",
        title="a\tb\u2028c",
        description="line one\nline\u00a0two",
        keywords=" k1 \n k2 ",
        type="project",
        scope="project",
        body="b",
    )
    out = render_fact(fact)
    assert "title: a b c\n" in out
    assert "description: line one line two\n" in out
    assert "keywords: k1 k2\n" in out


# ---------------------------------------------------------------- reading


def test_fence_split_rules() -> None:
    assert split_frontmatter("---\na: 1\n---\nbody") == ("a: 1", "body")
    assert split_frontmatter("  ---  \r\na: 1\r\n ---\r\nbody") == ("a: 1", "body")
    assert split_frontmatter("---\na: 1\nno close") == (None, "---\na: 1\nno close")
    assert split_frontmatter("\n---\na: 1\n---\nb")[0] is None
    assert split_frontmatter("\ufeff---\na: 1\n---\nb")[0] is None


def test_bad_yaml_keeps_body_and_reports_error() -> None:
    text = "---\ntitle: My plan: step one\ndescription: d\n---\n\nThe body survives.\n"
    fact = parse_fact_text(text, path="/x/my-plan.md")
    assert fact.body == "The body survives."
    assert fact.title == "" and fact.description == ""
    assert fact.name == "my-plan"
    assert fact.type == "project"
    # positions are the file's (the frontmatter starts on line 2), not PyYAML's "<unicode string>"
    assert fact.parse_error == "line 2, column 15: mapping values are not allowed in this context"


def test_yaml_error_names_where_the_construct_started() -> None:
    fact = parse_fact_text("---\nname: x\nkeywords: [a, b\n---\nbody\n", path="/x/x.md")
    assert fact.parse_error == (
        "line 4, column 1: did not find expected ',' or ']' (while parsing a flow sequence started on line 3)"
    )
    assert "unicode string" not in fact.parse_error


def test_tab_indented_yaml_loses_metadata_not_body() -> None:
    fact = parse_fact_text("---\nname: a\nmetadata:\n\ttype: user\n---\nbody", path="/x/a.md")
    assert fact.body == "body" and fact.parse_error


def test_flattening_duplicate_keys_sequences_and_comments() -> None:
    text = (
        "---\nname: first\nname: second\ntype: feedback\nmetadata:\n  type: reference\n"
        "keywords: [alpha, '', beta]\ndescription: #comment\nrevision: 007\ntitle: >\n  folded\n  text\n---\nb"
    )
    fact = parse_fact_text(text, path="/x/second.md")
    assert fact.name == "second"
    assert fact.type == "reference"  # metadata.type came later and won
    assert fact.keywords == "alpha, beta"
    assert fact.description == ""
    assert fact.revision == 7
    assert fact.title == "folded text"


def test_fact_type_wins_over_routing_type() -> None:
    text = "---\nname: x\nmetadata:\n  type: user\n  fact_type: reference\n  scope: global\n---\nb"
    fact = parse_fact_text(text, dir_scope="global")
    assert (fact.type, fact.scope) == ("reference", "global")


def test_unknown_scope_falls_back_to_directory() -> None:
    fact = parse_fact_text("---\nname: x\nscope: galaxy\n---\nb", dir_scope="global")
    assert fact.scope == "global" and fact.file_scope == ""


def test_legacy_id_uses_type_scope_not_directory() -> None:
    # A scope-less legacy feedback fact in the project dir: id salted with "global".
    fact = parse_fact_text("---\nname: legacy-fact\nmetadata:\n  type: feedback\n---\nb", dir_scope="project")
    assert fact.id == legacy_memory_id("legacy-fact", "global")
    assert fact.scope == "project"


def test_missing_times_fall_back_to_mtime_and_revision_to_one() -> None:
    mtime = Timestamp(1_780_000_000_123_456_789)
    fact = parse_fact_text("---\nname: x\nrevision: 2.0\n---\nb", mtime=mtime)
    assert fact.created_at == mtime and fact.updated_at == mtime
    assert fact.revision == 1


def test_no_frontmatter_whole_text_is_body() -> None:
    fact = parse_fact_text("just text\n", path="/d/note.md")
    assert fact.body == "just text" and fact.name == "note"


@pytest.mark.parametrize(
    ("data", "encoding"),
    [
        (b"\xef\xbb\xbf---\nname: bom\n---\nbody", "utf-8-sig"),
        ("\ufeff---\nname: le\n---\nbody".encode("utf-16-le"), "utf-16-le"),
        ("\ufeff---\nname: be\n---\nbody".encode("utf-16-be"), "utf-16-be"),
        ("---\nname: nobom\n---\nbody text here".encode("utf-16-le"), "utf-16-le"),
        ("---\nname: gbk\n---\n中文正文，包管理".encode("gbk"), "gb18030"),
    ],
)
def test_encodings_are_read_losslessly(data: bytes, encoding: str) -> None:
    decoded = decode_bytes(data)
    assert decoded.encoding == encoding
    fact = parse_fact_bytes(data, path="/d/f.md")
    assert fact.name in ("bom", "le", "be", "nobom", "gbk")
    assert fact.body


def test_invalid_bytes_are_read_lossy_and_flagged() -> None:
    fact = parse_fact_bytes(b"---\nname: x\n---\n\xff\xfe\xfa body", path="/d/x.md")
    assert fact.encoding in ("lossy-utf-8", "gb18030", "gbk")
    assert "body" in fact.body


def test_unknown_top_level_scalars_survive_a_rewrite() -> None:
    text = PNPM.replace("metadata:\n", "source: hand-written\nmetadata:\n")
    fact = parse_fact_text(text)
    assert ("source", "hand-written") in fact.extra
    assert "source: hand-written\n" in render_fact(fact)


def test_go_helpers() -> None:
    assert go_quote('a"b\\c\n\u00a0é') == '"a\\"b\\\\c\\n\\u00a0é"'
    assert html_escape("<a href='x'>&\"</a>") == "&lt;a href=&#39;x&#39;&gt;&amp;&#34;&lt;/a&gt;"
    assert one_line(" a\t b\x1c c ") == "a b\x1c c"
    assert to_lower("ΣİX") == "σix"
