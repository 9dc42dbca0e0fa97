"""The shared tokenizer and Go lowercasing: fast paths equal the reference transcription."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from reasonix_tui.core.compat.gostr import _lower_char, to_lower
from reasonix_tui.core.compat.tokenize import query_terms, tokens, tokens_reference

TRICKY = list("aZ_9 -.é中文字かなカナ한글İΣσΑßǅⅫ²٣\u00a0\u3000\x1c\t\n")


@settings(max_examples=400, deadline=None)
@given(st.text(alphabet=st.sampled_from(TRICKY), max_size=40))
def test_tokens_fast_path_equals_reference_on_tricky_text(text: str) -> None:
    assert tokens(text) == tokens_reference(text)


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=60))
def test_tokens_fast_path_equals_reference_on_any_text(text: str) -> None:
    assert tokens(text) == tokens_reference(text)


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=40))
def test_to_lower_equals_per_rune_simple_mapping(text: str) -> None:
    assert to_lower(text) == "".join(_lower_char(ch) for ch in text)


def test_spec_table_and_query_terms() -> None:
    assert tokens("BM25 检索 cache-first") == ["bm25", "检索", "cache", "first"]
    assert tokens("数据库迁移") == ["数据", "据库", "库迁", "迁移"]
    assert tokens("库") == ["库"]
    assert tokens("用pnpm装依赖") == ["用", "pnpm", "装依", "依赖"]
    assert tokens("İstanbul ΣΊΣΥΦΟΣ") == ["istanbul", "σίσυφοσ"]  # Go: simple mapping, no final sigma
    assert query_terms("  npm npm NPM install ") == ["npm", "install"]


def test_required_query_terms_refuses_with_reasonix_messages() -> None:
    import pytest

    from reasonix_tui.core.compat.tokenize import required_query_terms

    assert required_query_terms("  Deploy the API ", ValueError) == ("Deploy the API", ["deploy", "the", "api"])
    with pytest.raises(ValueError, match="^query is required$"):
        required_query_terms(" \t", ValueError)
    with pytest.raises(KeyError, match="query must contain at least one letter or number"):
        required_query_terms("?! --", KeyError)
