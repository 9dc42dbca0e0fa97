"""Candidates against what is already known: active facts and instruction lines.

A candidate an active fact or an instruction line already says is covered (not shown);
one that names a different value of the same kind on a fact's subject, or says the
subject changed, is an update of that fact.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Sequence
from typing import Any

from . import language as lang
from .items import Item, Known, containment, text_terms

COVER_CONTAINMENT = 0.6
"""Share of a candidate's weighted terms found in a fact for the fact to cover it."""


GENERIC_VALUE_KINDS = ("tool:", "name:", "version:")


def covered(it: Item, known: Known) -> bool:
    """A fact or an instruction line already says it: every concrete thing the candidate
    names is there (a tool or product name alone also needs a shared word: "basic Python"
    is not covered by a fact about the Python version), or its words are."""
    if it.values and it.values <= known.values and not any(r.startswith("change of state") for r in it.reasons):
        specific = any(not v.startswith(GENERIC_VALUE_KINDS) for v in it.values)
        named = {"w:" + lang.stem(v.split(":", 1)[1]) for v in it.values if v.startswith(("tool:", "name:"))}
        own = {t for t in it.terms if t.startswith("w:")} - named
        if specific or own & known.terms.keys() or not own:  # no words of its own to compare (记得提交前跑 ruff)
            return True
    for terms in (it.core_terms, it.terms):
        if terms and containment(terms, known.terms) >= COVER_CONTAINMENT and (it.values - known.values) == set():
            return True
    return False


def free_words(text: str, values: Iterable[str]) -> set[str]:
    """``w:`` terms of the words ``text`` says outside the concrete things it names."""
    for v in sorted(values, key=len, reverse=True):
        if v.startswith(("name:", "tool:")):  # a proper name or a tool is a word too
            continue
        surface = v.split(":", 1)[-1]
        if len(surface) >= 2:
            text = re.sub(re.escape(surface), " ", text, flags=re.I)
    return {"w:" + w for w in lang.content_words(text)}


def conflicts(it: Item, known: Known) -> bool:
    if not known.is_fact:
        return False
    new = {v for v in it.values if v not in known.head_values}
    if not new:
        return False
    shared = it.terms.keys() & known.terms.keys()
    shared_values = {t for t in shared if t in it.values and t in known.head_values}
    # Words both say outright: not only inside a path or name (src in src/views/pay), and a
    # Chinese word once, not once per English gloss (改: alter, change, correct…).
    fact = known.fact
    fact_text = " ".join((fact.title, fact.description, fact.body)) if fact is not None else ""
    free = free_words(it.text, it.values) & free_words(fact_text, known.values)
    shared_words = {
        t for t in shared if t.startswith("z:") or (t in free and it.terms[t] >= 1.0 and known.terms[t] >= 1.0)
    }
    if not shared_values and len(shared_words) < 2 and containment(it.terms, known.terms) < 0.3:
        return False
    head_kinds = {v.split(":", 1)[0] for v in known.head_values}
    changed = any(r.startswith("change of state") for r in it.reasons)
    return any(v.split(":", 1)[0] in head_kinds for v in new) or (changed and bool(head_kinds))


def against_known(
    members: Sequence[Item], known: Sequence[Known], index: dict[str, set[int]]
) -> tuple[str, Known | None]:
    """``("covered", k)``, ``("update", k)`` or ``("", None)``."""
    cands: Counter[int] = Counter()
    members = members[:6]
    for it in members:
        for t in it.terms:
            for k in index.get(t, ()):
                cands[k] += 1
    update: Known | None = None
    for k, _n in cands.most_common(20):
        kn = known[k]
        for it in members:
            if covered(it, kn):
                return "covered", kn
            if update is None and conflicts(it, kn):
                update = kn
    return ("update", update) if update is not None else ("", None)


PROVENANCE = re.compile(r"^Said in session .*$", re.M)
"""The line an accepted candidate's body ends with: where it was said, not what it says."""


def known_entries(
    facts: Sequence[Any], instruction_docs: Sequence[tuple[str, str]], tools: frozenset[str]
) -> list[Known]:
    """Active facts (both scopes) and instruction lines, as merge terms."""
    out: list[Known] = []
    for f in facts:
        head = " ".join((f.name.replace("-", " "), f.title, f.description))
        body = PROVENANCE.sub("", f.body)
        terms, values = text_terms(head + " " + body, tools)
        _ht, head_values = text_terms(head, tools)
        if not head_values:
            head_values = values
        out.append(Known(f.ref, True, terms, values, head_values, f))
    for label, body in instruction_docs:
        for line in re.split(r"\n+", body):
            line = re.sub(r"^\s*(?:[-*+]|\d+[.)])\s+", "", line).strip()
            if len(line) < 8 or line.startswith(("#", "<!--", "```")):
                continue
            terms, values = text_terms(line, tools)
            out.append(Known(label, False, terms, values, values))
    return out
