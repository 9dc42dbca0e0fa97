"""Minimal JSON edits (``integrations/jsonedit.py``): the result always parses to the wanted
document; unchanged documents and unchanged parts keep their exact text; adding then
removing restores the original bytes."""

from __future__ import annotations

import json
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from reasonix_tui.integrations.jsonedit import update

KEYS = st.text(alphabet='abcdefgh_"\\é/', min_size=1, max_size=6)
SCALARS = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-(10**6), 10**6),
    st.floats(allow_nan=False, allow_infinity=False, width=32),
    st.text(max_size=8),
)
VALUES = st.recursive(
    SCALARS,
    lambda inner: st.one_of(st.lists(inner, max_size=4), st.dictionaries(KEYS, inner, max_size=4)),
    max_leaves=12,
)
DOCS = st.dictionaries(KEYS, VALUES, max_size=5)
STYLES = st.sampled_from([None, 2, 4, "\t", "compact"])


def render(doc: Any, style: Any) -> str:
    if style == "compact":
        return json.dumps(doc, separators=(",", ":"))
    return json.dumps(doc, indent=style, ensure_ascii=False) + "\n"


def same(a: Any, b: Any) -> bool:
    return json.dumps(a) == json.dumps(b)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(DOCS, DOCS, STYLES)
def test_result_parses_to_the_wanted_document(old: dict[str, Any], new: dict[str, Any], style: Any) -> None:
    text = render(old, style)
    out = update(text, new)
    assert json.loads(out) == new or same(json.loads(out), new)
    assert update(text, json.loads(text)) == text


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(DOCS, st.dictionaries(KEYS, VALUES, min_size=1, max_size=3), STYLES)
def test_adding_then_removing_restores_the_bytes(old: dict[str, Any], extra: dict[str, Any], style: Any) -> None:
    text = render(old, style)
    extra = {f"zz{k}": v for k, v in extra.items() if f"zz{k}" not in old}
    added = update(text, {**old, **extra})
    assert update(added, old) == text
    # the original members keep their text: the old document is a prefix, up to the closing brace
    if old and style != "compact":
        body = text.rstrip().rstrip("}").rstrip()
        assert added.startswith(body)


def test_style_of_the_file_is_followed() -> None:
    tabs = '{\n\t"a": [\n\t\t1\n\t]\n}\n'
    assert update(tabs, {"a": [1, 2]}) == '{\n\t"a": [\n\t\t1,\n\t\t2\n\t]\n}\n'
    four = '{\n    "a": {}\n}'
    assert update(four, {"a": {"b": True}}) == '{\n    "a": {\n        "b": true\n    }\n}'
    one_line = '{"a": [1], "b": 2}'
    assert update(one_line, {"a": [1, 3], "b": 2, "c": None}) == '{"a": [1, 3], "b": 2, "c": null}'
    # numbers and escapes of untouched values keep their spelling
    odd = '{"n": 1.50, "s": "\\u00e9", "x": 1}'
    assert update(odd, {"n": 1.5, "s": "é", "x": 2}) == '{"n": 1.50, "s": "\\u00e9", "x": 2}'


def test_removing_middle_and_last_entries_keeps_the_commas_right() -> None:
    text = '{\n  "a": 1,\n  "b": 2,\n  "c": 3\n}\n'
    assert update(text, {"a": 1, "c": 3}) == '{\n  "a": 1,\n  "c": 3\n}\n'
    assert update(text, {"a": 1, "b": 2}) == '{\n  "a": 1,\n  "b": 2\n}\n'
    assert update(text, {"b": 2, "c": 3}) == '{\n  "b": 2,\n  "c": 3\n}\n'
    assert update(text, {}) == "{}\n"
    arr = '{"deny": ["x", "ours", "y", "ours2"]}'
    assert update(arr, {"deny": ["x", "y"]}) == '{"deny": ["x", "y"]}'


def test_windows_line_endings_are_kept() -> None:
    crlf = '{\r\n  "a": 1\r\n}\r\n'
    assert update(crlf, {"a": 1, "b": [2]}) == '{\r\n  "a": 1,\r\n  "b": [\r\n    2\r\n  ]\r\n}\r\n'


def test_a_new_file() -> None:
    assert update(None, {"a": 1}) == '{\n  "a": 1\n}\n'
    assert update("  \n", {"a": 1}) == '{\n  "a": 1\n}\n'
