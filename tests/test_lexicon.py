"""The related channel: English words met through Open English WordNet (lang/lexicon.py)."""

from __future__ import annotations

import gzip
from pathlib import Path

import pytest
from test_recall import NOW, F

from reasonix_tui.core.lang import en_key, query_units
from reasonix_tui.core.lang.lexicon import BROADER, DERIVED, FORM, SYNONYM, TABLE, lemmas_of, related
from reasonix_tui.core.lang.terms import RELATED_WEIGHTS, TRANSLATED
from reasonix_tui.core.recall import Enhancements, recall


def _words(word: str) -> dict[str, str]:
    return {w: rel for _k, w, rel, _cos in related(word)}


def test_the_table_ships_in_the_package_with_its_source_named() -> None:
    assert TABLE.is_file() and TABLE.stat().st_size < 2_000_000
    with gzip.open(TABLE, "rt", encoding="utf-8") as fh:
        header = fh.readline()
    assert "Open English WordNet 2025" in header and "CC BY 4.0" in header
    assert (TABLE.parent / "README.md").is_file()


def test_lemmas_follow_wordnets_detachment_rules() -> None:
    assert lemmas_of("payments") == ("payment",)
    assert lemmas_of("stored") == ("store",)
    assert lemmas_of("stopped") == ("stop",)
    assert "retain" in lemmas_of("retained")
    assert lemmas_of("kubernetes") == ()
    assert lemmas_of("") == () and lemmas_of("a b") == ()


def test_relations_are_synonyms_derivations_forms_and_broader_words() -> None:
    assert _words("bills")["invoice"] == SYNONYM
    assert _words("invoices")["bill"] == SYNONYM
    assert _words("payments")["pay"] == DERIVED
    assert _words("paid")["pay"] == FORM  # an irregular form reaches its lemma
    assert _words("score")["rating"] == BROADER
    # the dictionary's first senses only: "execute" is not "kill" in a coding agent's memory,
    # but the table cannot know that — the meaning channel must agree (below)
    assert "invoice" not in _words("payments")
    # one entry per matching key, never the word's own key
    keys = [k for k, *_ in related("payments")]
    assert len(keys) == len(set(keys)) and en_key("payments") not in keys


def test_query_words_carry_related_alternatives_below_a_real_match() -> None:
    (unit,) = query_units("bills")
    alts = {unit.show(i): (w, ch) for i, (_k, w, ch) in enumerate(unit.alternatives)}
    assert alts["invoice"] == (RELATED_WEIGHTS[SYNONYM], "related")
    assert RELATED_WEIGHTS[SYNONYM] == TRANSLATED and RELATED_WEIGHTS[BROADER] < TRANSLATED
    # a broader word as common as "use" names no particular idea
    (app,) = query_units("application")
    assert "use" not in {app.show(i) for i in range(len(app.alternatives))}


def _store(*facts: object) -> list:
    filler = [
        F(f"mem-{i}", f"note-{i}", f"Note {i}", body=f"Widget number {i} ships with a blue sticker and a manual.")
        for i in range(12)
    ]
    return [*facts, *filler]


PAY = F("mem-pay", "driver-pay", "Driver pay", body="We pay drivers every Friday through Stripe Connect.")


def test_a_turn_meets_a_fact_through_a_related_word_and_the_trace_names_the_channel() -> None:
    r = recall(_store(PAY), "when do driver payments go out?", NOW)
    assert [str(h.fact.id) for h in r.hits] == ["mem-pay"]
    assert "related: payments→pay" in r.hits[0].channels
    off = recall(_store(PAY), "when do driver payments go out?", NOW, enhancements=Enhancements().without("lexicon"))
    assert not any(c.startswith("related") for h in off.hits for c in h.channels)


def test_no_related_match_without_the_meaning_channel() -> None:
    r = recall(_store(PAY), "when do driver payments go out?", NOW, enhancements=Enhancements().without("meaning"))
    assert not any(c.startswith("related") for h in r.hits for c in h.channels)


def test_a_word_the_store_itself_uses_is_not_bridged() -> None:
    """The store writes "cache" in one fact: the turn's "cache" means that, not "store" (a
    broader word WordNet gives) in another fact."""
    cache = F(
        "mem-cache", "redis-cache", "Redis cache", body="The Redis cache times out after 2 seconds on batch jobs."
    )
    store = F(
        "mem-store", "object-store", "Object store", body="Uploads go to the object store on S3 (Redis keeps no copy)."
    )
    r = recall(_store(cache, store), "why does the Redis cache time out?", NOW)
    assert "mem-cache" in [str(h.fact.id) for h in r.hits]
    assert not any(c.startswith("related") for h in r.hits for c in h.channels)


def test_a_related_word_in_a_fact_the_turn_is_not_about_stays_out() -> None:
    """ "tell" is a synonym of "state" in WordNet's first senses; a joke request is not about
    Terraform state (the meaning channel disagrees)."""
    tf = F(
        "mem-tf", "terraform-state", "Terraform state", body="Terraform state lives in S3 with a DynamoDB lock table."
    )
    r = recall(_store(tf), "tell me a joke about programmers", NOW)
    assert r.hits == ()


def test_the_table_is_read_once_and_kept_sealed_in_the_language_cache(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from reasonix_tui.core.lang import chinese, lexicon

    monkeypatch.setattr(chinese, "_CACHE_DIR", str(tmp_path))
    monkeypatch.setattr(lexicon, "_TABLE", [])
    first = lexicon._lines()
    (sealed,) = tmp_path.glob("lang-lexicon-*.marshal")
    monkeypatch.setattr(lexicon, "_TABLE", [])
    monkeypatch.setattr(lexicon, "_parse", lambda: pytest.fail("parsed again"))
    assert lexicon._lines() == first and sealed.is_file()
    assert lexicon._lines() is lexicon._lines()  # once per process


def test_every_word_of_the_table_is_found_by_the_binary_search_and_no_other() -> None:
    from reasonix_tui.core.lang import lexicon

    raw = gzip.decompress(TABLE.read_bytes()).decode("utf-8")
    lines = dict(line.split("\t", 1) for line in raw.split("\n") if "\t" in line and not line.startswith("#"))
    assert all(lexicon._entry(word) == rest for word, rest in lines.items())
    for word in ("", "a", "zzzzz", "paymentz", "aaaa", "~"):
        assert lexicon._entry(word) == lines.get(word)


def test_a_word_whose_relations_were_all_left_out_relates_to_nothing_and_recall_runs() -> None:
    """ "lazy" is in the table with no relation kept (none in common use)."""
    from reasonix_tui.core.lang import lexicon

    assert lexicon._entry("lazy") == ""
    assert related("lazy") == ()
    fact = F("mem-lazy", "lazy-loading", "Lazy loading", body="Images below the fold load lazily.")
    recall(_store(fact), "is lazy loading on for images?", NOW)
