"""The trace names the gate rule that kept a candidate out: the tests of a turn's everyday
words (:mod:`reasonix_tui.core.recall.gate`) say so, with the words, their priors and the
meaning cosine against its line; an ordinary weak match keeps its evidence/coverage wording."""

from __future__ import annotations

import re

from test_recall import F, _office  # tests/ is on sys.path

from reasonix_tui.core.compat.gotime import parse_rfc3339
from reasonix_tui.core.recall import recall
from reasonix_tui.core.store.model import Fact

NOW = parse_rfc3339("2026-07-27T00:00:00Z")
assert NOW is not None

NUM = r"\d+\.\d\d"


def _why(facts: list[Fact], turn: str, fid: str) -> str:
    r = recall(facts, turn, NOW)
    assert [h.fact.id for h in r.hits] == [], turn
    c = next(c for c in r.considered if c.fact.id == fid)
    assert c.decision == "gate", (turn, c.decision, c.detail)
    return c.detail


RETRY = F(
    "mem-retry",
    "webhook-retries",
    "Webhook retries",
    body="Failed webhook deliveries are retried after 1, 5 and 30 minutes, then parked.",
)
LABELS = F(
    "mem-labels",
    "shipping-labels",
    "Shipping labels",
    body="Shipping labels are rendered by label-svc; a label takes about a minute, so the dashboard polls.",
)
STATUS = F(
    "mem-status",
    "status-page",
    "Status page",
    body="The public status page is status.example.events; post an update there during an outage.",
)
ONE_THING = F(
    "mem-one",
    "one-thing-per-pr",
    "One thing per PR",
    body="Each PR should do one thing; refactors go in their own PR, never mixed with features.",
)
FRIDAY = F(
    "mem-fri",
    "friday-deploys",
    "Friday deploys",
    body="No production deploys after 16:00 on Friday; anything later waits until Monday.",
)
FACTS = [RETRY, LABELS, STATUS, ONE_THING, FRIDAY, *_office(8)]


def test_a_lone_everyday_word_names_the_everyday_turn_rule_not_the_evidence_line() -> None:
    """ "give me a minute": the labels fact holds "minute" only, and its figures meet the
    evidence line (E ≥ 0.8 with ≥ 40 % of the turn) — the trace says the turn is made of
    everyday words (each word's prior), that the fact does not write the word as a name and
    that the meaning cosine is under 0.45, not that the evidence was too little."""
    facts = [LABELS, STATUS, *_office(8)]
    for turn in ("give me a minute",):
        detail = _why(facts, turn, "mem-labels")
        assert re.fullmatch(
            rf"everyday-words turn \(give {NUM}, minute {NUM}; all under 0\.7\): only minute found, not written "
            rf"as a name, and meaning {NUM} is under 0\.45 \(the words met the line: \d+% of the query's words, "
            rf"evidence {NUM}\)",
            detail,
        ), detail
        assert "needs evidence" not in detail
    detail = _why(facts, "sounds good, ship it", "mem-labels")
    assert detail.startswith("everyday-words turn (sounds ") and "only ship found, not written as a name" in detail


def test_everyday_words_holding_the_turn_name_their_information_against_its_line() -> None:
    """ "any update?" and "one more thing": the words found hold the whole turn and carry too
    little information (one word under 0.7, two under 0.6) — the trace says so."""
    detail = _why(FACTS, "any update?", "mem-status")
    assert re.fullmatch(
        rf"everyday words: update {NUM} holds 100% of the query's words but carries {NUM} of information, "
        rf"under 0\.7 for one word \(evidence {NUM}\)",
        detail,
    ), detail
    detail = _why(FACTS, "one more thing", "mem-one")
    assert re.fullmatch(
        rf"everyday words: one {NUM}, thing {NUM} hold 100% of the query's words but carry {NUM} of "
        rf"information, under 0\.6 for two or more \(evidence {NUM}\)",
        detail,
    ), detail


def test_an_ordinary_weak_match_keeps_its_evidence_wording() -> None:
    """A fact that misses the evidence/coverage line is explained as before: in a turn about
    something else, and in a turn of everyday words whose one word two facts hold ("minute"
    in the retry and the labels facts: evidence under 0.8), since the line decided it."""
    detail = _why(FACTS, "any ideas for a Friday night dinner with friends?", "mem-fri")
    assert re.fullmatch(
        r"weak match: friday matched \(\d+% of the query's words, evidence \d\.\d\d\); needs evidence 1\.6, "
        r"or 0\.8 with 40% of the words, or a whole identifier",
        detail,
    ), detail
    for fid in ("mem-retry", "mem-labels"):
        detail = _why(FACTS, "give me a minute", fid)
        assert re.fullmatch(
            r"weak match: minute matched \(\d+% of the query's words, evidence 0\.[0-7]\d\); needs evidence 1\.6, "
            r"or 0\.8 with 40% of the words, or a whole identifier",
            detail,
        ), detail


def test_a_meaning_pass_taken_back_by_the_everyday_words_test_says_so() -> None:
    """ "what about the release?": the meaning channel finds the turn about the release-branch
    fact (cosine over 0.45) but "release" alone carries too little information and misses the
    evidence line; the trace names both (the meaning channel does not carry a turn of everyday
    words)."""
    branch = F(
        "mem-branch",
        "release-branch",
        "Release branch",
        body="Releases are cut from release/* branches; the current one is release/2026-07.",
    )
    notes = F("mem-notes", "release-notes", "Release notes", body="Release notes are drafted in docs/releases.")
    detail = _why([branch, notes, *_office(8)], "what about the release?", "mem-branch")
    assert re.fullmatch(
        rf"everyday words: release {NUM} holds 100% of the query's words but carries {NUM} of information, "
        rf"under 0\.7 for one word; the meaning channel does not carry a turn of everyday words \(meaning {NUM}\), "
        rf"and the words miss the line \(100% of the query's words, evidence {NUM}\)",
        detail,
    ), detail


def test_without_the_meaning_channel_the_lone_word_rule_says_no_cosine_reaches_its_line() -> None:
    """With the meaning channel off, a lone everyday word of an everyday turn never passes:
    the trace says no cosine reaches 0.45."""
    from reasonix_tui.core.recall import Enhancements

    r = recall([LABELS, STATUS, *_office(8)], "give me a minute", NOW, enhancements=Enhancements().without("meaning"))
    assert [h.fact.id for h in r.hits] == []
    detail = next(c.detail for c in r.considered if c.fact.id == "mem-labels")
    assert re.fullmatch(
        rf"everyday-words turn \(give {NUM}, minute {NUM}; all under 0\.7\): only minute found, not written "
        rf"as a name, and no meaning cosine reaches 0\.45 \(the words met the line: \d+% of the query's words, "
        rf"evidence {NUM}\)",
        detail,
    ), detail
