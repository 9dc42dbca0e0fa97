"""Property tests (hypothesis): slugs, references and fact-file round trips."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from reasonix_tui.core.gostr import one_line
from reasonix_tui.core.gotime import Timestamp
from reasonix_tui.core.store import yamlv3
from reasonix_tui.core.store.fileformat import flatten_yaml, parse_fact_text, render_fact
from reasonix_tui.core.store.model import Fact, FactId, parse_reference, slug

text = st.text(
    alphabet=st.characters(blacklist_categories=("Cs",), blacklist_characters="\x00"), max_size=80
)


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


@settings(max_examples=150, suppress_health_check=[HealthCheck.too_slow])
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
def test_fact_file_round_trip(name, title, description, keywords, body, type_, scope, activation, subject, rev, ns) -> None:
    ts = Timestamp(ns)
    fact = Fact(
        id=FactId("mem-0123456789abcdef0123456789abcdef"), revision=rev, created_at=ts, updated_at=ts,
        name=slug(name), title=title, description=description, keywords=keywords, activation=activation,
        subject_key=subject, type=type_, scope=scope, body=body,
    )
    text1 = render_fact(fact)
    back = parse_fact_text(text1, dir_scope=scope)
    assert back.parse_error == ""
    assert back.id == fact.id and back.revision == rev and back.name == slug(name)
    assert back.title == one_line(title) and back.description == one_line(description)
    assert back.keywords == one_line(keywords)
    assert (back.type, back.scope, back.activation) == (type_, scope, activation)
    assert back.created_at == ts
    # rendering what was read gives the same bytes (stable)
    assert render_fact(back) == text1
