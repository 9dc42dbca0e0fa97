"""Order among the facts that passed the gate: what the turn is about comes first.

Two kinds of evidence that BM25F's term counts do not see, used only to order facts that
already passed (the gate, the floor and the limit's candidates are unchanged):

* **a quoted literal held verbatim** (:func:`query_literals`, :func:`holds_literal`) — the
  turn quotes something written as code: a backtick span, a flag (``-u``, ``--retries=2``),
  a dotted or snake/kebab identifier, an env var, a path or route, a ``host:port``. The
  tokenizer splits or drops parts of these (a one-letter flag, ``--``, ``{id}``), so two
  facts holding sibling literals (``billing.retry.max_attempts`` /
  ``tracking.ingest.max_attempts``, ``-u`` / ``--project``) score alike on the words. A fact
  holding the literal exactly as written weighs :data:`LITERAL_FACTOR` more.
* **the title's focus** (:func:`title_focus`) — a fact's title names what the fact is
  about. When the turn's words cover part of a title and leave another part out ("who
  owns the Spark jobs?" against "Spark jobs runtime"), the fact is about another aspect of
  the turn's subject than the one asked; a fact whose title the words cover whole
  ("Owners", "Tracking API owner") is about what is asked. The uncovered share of a partly
  covered title weighs the fact down by up to :data:`TITLE_PENALTY`. A title the turn does
  not touch says nothing either way (factor 1).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from functools import lru_cache

__all__ = [
    "LITERAL_FACTOR",
    "TITLE_PENALTY",
    "TITLE_BOOST",
    "query_literals",
    "holds_literal",
    "title_focus",
    "focus_factor",
]

LITERAL_FACTOR = 1.5
"""Order weight of a fact that holds every quoted literal of the turn verbatim (pro rata
for some of them)."""
TITLE_PENALTY = 0.2
"""Order weight lost by a fact whose title the turn's words cover in part, times the
uncovered share of the title's keys."""
TITLE_BOOST = 0.3
"""Order weight gained by a current fact whose title the turn's words cover whole (a stale
one keeps its place: the stale rule wins)."""

_BACKTICK = re.compile(r"`([^`\n]{2,80})`")
_TOKEN = re.compile(r"[^\s`\"'“”‘’()\[\],;!?]+")
_EDGE = ".:;,!?)(\"'"
_WORDISH = re.compile(r"[A-Za-z0-9]")


def _literal_token(tok: str) -> bool:
    """A token written as code: a flag, or letters/digits joined by ``. _ / - = :``
    (identifiers, env vars, paths, routes, ``host:port``), or an all-caps name with an
    underscore. Plain words, hyphenated prose words and bare numbers are not literals (the
    words channel already matches them)."""
    if len(tok) < 2 or not _WORDISH.search(tok):
        return False
    if tok.startswith("-"):
        return bool(re.fullmatch(r"--?[A-Za-z][A-Za-z0-9_.=:/-]*", tok))
    if "_" in tok or "/" in tok or "=" in tok:
        return True
    if "." in tok.strip("."):
        # a dotted name (billing.retry.max_attempts, doc.getText), not a version number or
        # a sentence's full stop
        parts = tok.split(".")
        return len(parts) >= 2 and all(parts) and any(p[:1].isalpha() and len(p) >= 2 for p in parts)
    if ":" in tok:
        head, _, tail = tok.partition(":")
        return bool(head) and tail.isdigit()
    return False


@lru_cache(maxsize=512)
def query_literals(query: str) -> tuple[str, ...]:
    """The literals a turn quotes, in order, without repeats: backtick spans, then tokens
    written as code (:func:`_literal_token`), trailing sentence punctuation stripped."""
    out: list[str] = []
    for m in _BACKTICK.finditer(query):
        span = m.group(1).strip()
        if len(span) >= 2 and _WORDISH.search(span):
            out.append(span)
    rest = _BACKTICK.sub(" ", query)
    for m in _TOKEN.finditer(rest):
        tok = m.group(0).rstrip(_EDGE)
        if tok.endswith("?"):
            tok = tok[:-1]
        if _literal_token(tok):
            out.append(tok)
    return tuple(dict.fromkeys(out))


def holds_literal(text: str, literal: str) -> bool:
    """``literal`` occurs in ``text`` as written (case-sensitive), not inside a longer
    identifier: no letter, digit or underscore right before or after it."""
    start = 0
    n = len(literal)
    while True:
        i = text.find(literal, start)
        if i < 0:
            return False
        before = text[i - 1] if i > 0 else " "
        after = text[i + n] if i + n < len(text) else " "
        if not _ident_char(before) and not _ident_char(after):
            return True
        start = i + 1


def _ident_char(c: str) -> bool:
    return c.isalnum() or c == "_"


_DERIVED = ("er", "or", "r")
"""What an English title key may add to a matched key and still be covered by it: an agent
noun of the verb the turn used (a query's "owns" → own covers a title's "Owners")."""


def _covers(matched: set[str], key: str) -> bool:
    if key in matched:
        return True
    if not key.startswith("w:"):
        return False
    return any(key[: -len(end)] in matched for end in _DERIVED if key.endswith(end) and len(key) - len(end) >= 5)


def title_focus(title_keys: frozenset[str], matched_keys: Iterable[str]) -> float:
    """The share of a title's keys the turn's words matched (1.0 for no title)."""
    if not title_keys:
        return 1.0
    matched = set(matched_keys)
    return sum(_covers(matched, k) for k in title_keys) / len(title_keys)


def focus_factor(
    literals: Sequence[str], text: str, title_keys: frozenset[str], matched_keys: Iterable[str], stale: bool = False
) -> float:
    """The order weight of one passed fact (1.0: neither kind of evidence)."""
    factor = 1.0
    if literals:
        held = sum(holds_literal(text, lit) for lit in literals)
        factor *= 1.0 + (LITERAL_FACTOR - 1.0) * held / len(literals)
    share = title_focus(title_keys, matched_keys)
    if 0.0 < share < 1.0:
        factor *= 1.0 - TITLE_PENALTY * (1.0 - share)
    elif share == 1.0 and title_keys and not stale:
        factor *= 1.0 + TITLE_BOOST
    return factor
