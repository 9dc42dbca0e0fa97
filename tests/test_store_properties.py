"""Property tests (hypothesis): slugs, references and fact-file round trips."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from reasonix_tui.core.compat import yamlv3
from reasonix_tui.core.compat.gostr import one_line
from reasonix_tui.core.compat.gotime import Timestamp
from reasonix_tui.core.store.fileformat import flatten_yaml, parse_fact_text, render_fact
from reasonix_tui.core.store.model import Fact, FactId, parse_reference, slug

text = st.text(alphabet=st.characters(blacklist_categories=("Cs",), blacklist_characters="\x00"), max_size=80)


@given(text)
def test_slug_is_idempotent_bounded_and_clean(s: str) -> None:
    out = slug(s)
    assert slug(out) == out
    assert len(out.encode("utf-8")) <= 252
    assert not out.startswith("-") and not out.endswith("-")
    assert "--" not in out or len(s.encode()) > 252  # runs collapse (the FNV suffix may follow a dash)


@given(text)
def test_slug_never_contains_path_characters(s: str) -> None:
    out = slug(s)
    assert "/" not in out and "\\" not in out and ".." not in out


@given(st.sampled_from(["project", "global"]), text)
def test_qualified_reference_round_trip(scope: str, name: str) -> None:
    s = slug(name)
    if not s:
        return
    parsed = parse_reference(f"{scope}/{s}.md")
    assert (parsed.scope, parsed.name) == (scope, s)


@given(text)
def test_yaml_scalar_reads_back_as_the_same_string(value: str) -> None:
    value = one_line(value)  # fact fields are one-lined before they reach the emitter
    emitted = yamlv3.scalar(value)
    flat, error = flatten_yaml(f"k: {emitted}\n")
    assert error == ""
    assert flat.get("k", "") == value


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    name=text.filter(lambda s: bool(slug(s))),
    title=text,
    description=text,
    keywords=text,
    body=st.text(max_size=300),
    type_=st.sampled_from(["user", "feedback", "project", "reference"]),
    scope=st.sampled_from(["project", "global"]),
    activation=st.sampled_from(["", "relevant", "pinned"]),
    subject=st.from_regex(r"[a-z0-9_.-]{0,20}", fullmatch=True),
    rev=st.integers(min_value=1, max_value=10**6),
    ns=st.integers(min_value=0, max_value=4_000_000_000 * 10**9),
)
def test_fact_file_round_trip(
    name, title, description, keywords, body, type_, scope, activation, subject, rev, ns
) -> None:
    ts = Timestamp(ns)
    fact = Fact(
        id=FactId("mem-0123456789abcdef0123456789abcdef"),
        revision=rev,
        created_at=ts,
        updated_at=ts,
        name=slug(name),
        title=title,
        description=description,
        keywords=keywords,
        activation=activation,
        subject_key=subject,
        type=type_,
        scope=scope,
        body=body,
    )
    text1 = render_fact(fact)
    back = parse_fact_text(text1, dir_scope=scope)
    assert back.parse_error == ""
    assert back.id == fact.id and back.revision == rev and back.name == slug(name)
    assert back.title == one_line(title) and back.description == one_line(description)
    assert back.keywords == one_line(keywords)
    assert (back.type, back.scope, back.activation) == (type_, scope, activation)
    assert back.created_at == ts
    # rendering what was read gives the same bytes (stable), except that reading turns the
    # body's CRLF line ends into LF, as Reasonix's reader does
    assert render_fact(back) == text1.replace("\r\n", "\n")


# --------------------------------------------------------------------------- fast path
# ``flatten_yaml`` reads the common ``key: scalar`` subset without the YAML parser. Where
# the fast path answers, it must give exactly the parser's answer; where it is unsure it
# must step aside. The strategies below aim at the edges of that subset.

from reasonix_tui.core.store.fileformat import _fast_flatten, _flatten_parsed  # noqa: E402

_TRICKY = "aZ0 _-:#'\"\\/,[]{}|>&*!%@`?~=.\xa0中文é😀n"
_BAILS = "\t\x7f\x85\u2028\ufeff"  # characters the fast path always leaves to the parser
_value_text = st.text(alphabet=st.sampled_from(list(_TRICKY)), max_size=14) | st.text(
    alphabet=st.sampled_from(list(_TRICKY + _BAILS)), max_size=6
)
_escape = st.sampled_from(["\\\\", '\\"', "\\n", "\\t", "\\/", "\\b", "\\u00e9", "\\x41", "\\e", "\\ "])


@st.composite
def _scalar(draw: st.DrawFn) -> str:
    style = draw(st.sampled_from(["plain"] * 4 + ["single", "double", "double", "double-esc", "empty", "raw"]))
    v = draw(_value_text)
    if style == "plain":
        return v
    if style == "single":
        return "'" + v.replace("'", draw(st.sampled_from(["''", "'"]))) + "'"
    if style == "double":
        return '"' + v.replace("\\", "\\\\").replace('"', draw(st.sampled_from(['\\"', '"']))) + '"'
    if style == "double-esc":
        return '"' + draw(_value_text).replace("\\", "").replace('"', "") + draw(_escape) + '"'
    if style == "empty":
        return ""
    return v + draw(st.sampled_from(["", " ", "  # c", ":", ": x"]))


_key = st.sampled_from(
    ["id", "name", "Name", "title", "type", "scope", "metadata", "x-extra", "k_1", "A", "1bad", "ke y"]
)


@st.composite
def _frontmatter(draw: st.DrawFn) -> str:
    lines: list[str] = []
    for _ in range(draw(st.integers(0, 6))):
        shape = draw(st.sampled_from(["kv"] * 6 + ["nested"] * 2 + ["blank", "indented", "comment", "seq"]))
        key = draw(_key)
        if shape == "kv":
            sep = draw(st.sampled_from([": "] * 6 + [":  ", ":", " : "]))
            lines.append(f"{key}{sep}{draw(_scalar())}".rstrip() if sep == ":" else f"{key}{sep}{draw(_scalar())}")
        elif shape == "nested":
            lines.append(f"{key}:")
            indent = draw(st.sampled_from(["  ", "    ", " "]))
            for _ in range(draw(st.integers(0, 3))):
                child_indent = draw(st.sampled_from([indent] * 4 + [indent + " "]))
                lines.append(f"{child_indent}{draw(_key)}: {draw(_scalar())}")
        elif shape == "blank":
            lines.append(draw(st.sampled_from(["", "  ", "\t"])))
        elif shape == "indented":
            lines.append("  " + draw(_scalar()))
        elif shape == "comment":
            lines.append("# " + draw(_value_text))
        else:
            lines.append(f"- {draw(_scalar())}")
    return "\n".join(lines) + draw(st.sampled_from(["", "\n", "\n\n"]))


@settings(max_examples=1500, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_frontmatter())
def test_fast_flatten_agrees_with_the_yaml_parser(raw: str) -> None:
    fast = _fast_flatten(raw)
    if fast is not None:
        assert (fast, "") == _flatten_parsed(raw)


def test_fast_flatten_takes_what_we_and_reasonix_write() -> None:
    """The files the store writes (and Reasonix's own shape) never need the parser."""
    ts = Timestamp(1_785_000_000_123_456_789)
    fact = Fact(
        id=FactId("mem-0123456789abcdef0123456789abcdef"),
        revision=4,
        created_at=ts,
        updated_at=ts,
        name="deploy-target",
        title='Deploy: "Fly.io" #1',
        description="It's where prod runs — 中文 too",
        keywords="deploy, fly",
        activation="pinned",
        subject_key="project.deploy_target",
        type="project",
        scope="project",
        body="Body: with *markdown*.",
    )
    raw = render_fact(fact).split("---\n")[1]
    assert _fast_flatten(raw) is not None
    reasonix = 'name: "x"\ndescription: "y"\nmetadata:\n  type: "feedback"\n  scope: "global"\n'
    assert _fast_flatten(reasonix) == _flatten_parsed(reasonix)[0]


@settings(max_examples=300, deadline=None)
@given(title=text, description=text, keywords=text)
def test_rendered_fields_take_the_fast_path_or_agree(title: str, description: str, keywords: str) -> None:
    ts = Timestamp(1_785_000_000 * 10**9)
    fact = Fact(
        id=FactId("mem-0123456789abcdef0123456789abcdef"),
        revision=1,
        created_at=ts,
        updated_at=ts,
        name="n",
        title=title,
        description=description,
        keywords=keywords,
        type="project",
        scope="project",
        body="b",
    )
    raw = render_fact(fact).split("\n---\n")[0].removeprefix("---\n")
    fast = _fast_flatten(raw)
    if fast is not None:
        assert (fast, "") == _flatten_parsed(raw)
