"""From statements, imports and procedures to the candidates a person reviews.

* **Merging.** Statements (and imported notes) that say the same thing — the same
  concrete things (tools, hosts, paths, inline code, versions) and words, across
  phrasing and language — become one candidate whose evidence lists every occurrence.
* **Against what is already known.** A candidate that an active fact or an instruction
  line already says (its concrete things are all there, or its words are) is not shown;
  one that names a different value of the same kind on a fact's subject (Python 3.12
  where the fact says 3.11), or that says the subject changed, is shown as an update of
  that fact: accepting writes the fact's next revision.
* **Ranking.** Durability score, plus one per further session that said it (at most
  two), plus half when Claude Code's auto-memory also has it; the latest occurrence
  breaks ties.
* **Text.** The description is the whole statement as a clean rule; the title its
  strongest sentence, cut at a clause boundary; the name readable words of the title
  (concrete things for a Chinese rule, never a hash); the body the rule and where it was
  said — no "confirm first" boilerplate.
"""

from __future__ import annotations

import os
import re
from bisect import insort
from collections import Counter, defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from ...compat.gostr import fields, one_line, to_lower, truncate_runes
from ...compat.gotime import Timestamp
from . import language as lang
from .model import Evidence, MemorySuggestion, SkillSuggestion
from .procedures import Procedure, step_words
from .signals import THRESHOLD, entities, has_cjk, title_text

__all__ = [
    "Item",
    "Known",
    "build_memories",
    "cluster_items",
    "prepare_items",
    "build_skills",
    "normalize_key",
    "readable_name",
    "short_title",
    "infer_type",
    "MERGE_SIMILARITY",
]

MERGE_SIMILARITY = 0.5
"""Weighted overlap at which two statements are the same candidate."""
COVER_CONTAINMENT = 0.6
"""Share of a candidate's weighted terms found in a fact for the fact to cover it."""
IMPORT_SCORES = {"claude-memory": 3.5, "agent-notes": 3.0}


def normalize_key(s: str) -> str:
    """Lower-cased, whitespace collapsed (Reasonix's dedup key)."""
    return to_lower(" ".join(fields(s)))


@dataclass(slots=True)
class Item:
    """One statement or imported note, before merging."""

    origin: str
    """``history`` | ``claude-memory`` | ``agent-notes`` | ``memory-wanted``."""
    score: float
    reasons: list[str]
    text: str
    """The statement (description)."""
    core: str
    """Its strongest sentence (title)."""
    at_ns: int
    sources: list[Evidence]
    group: str
    """Where it was said: a session id or a file label (repetition counts distinct groups)."""
    policy: bool = False
    context: str = ""
    name: str = ""
    title: str = ""
    type: str = ""
    body: str = ""
    scope: str = "project"
    needs_edit: bool = False
    id_prefix: str = "memory-"
    terms: dict[str, float] = field(default_factory=dict)
    values: set[str] = field(default_factory=set)
    core_terms: dict[str, float] = field(default_factory=dict)
    words: tuple[str, ...] = ()
    weight: float = 0.0
    """Total weight of :attr:`terms` (set when prepared)."""
    superseded: bool = False
    """A newer statement on the same subject gives another value: kept as evidence only."""
    ref: tuple[str, ...] = ()
    """Where it came from, stable between listings: ``(transcript path, statement number)``
    or ``("import", number)`` (the merge state names members by it)."""

    norm: str = ""
    """:attr:`key`, once computed."""

    @property
    def key(self) -> str:
        """Normalised text (dismissals and exact repeats)."""
        if not self.norm:
            self.norm = normalize_key(self.text)
        return self.norm


@dataclass
class Known:
    """An active fact or an instruction line, as merge terms."""

    ref: str
    """``project/name.md`` for a fact, ``AGENTS.md`` for an instruction line."""
    is_fact: bool
    terms: dict[str, float]
    values: set[str]
    head_values: set[str]
    """Values named in the fact's title and description (its subject's current value)."""
    fact: Any = None


# --------------------------------------------------------------------------------------
# Terms


TERMS_MEMO: dict[str, tuple[tuple[tuple[str, float], ...], tuple[str, ...], tuple[str, ...]]] = {}
"""Merge terms of fact, instruction and imported texts by text (kept with the result cache,
so a recompute does not load the language resources for texts it has seen)."""


def _base_terms(text: str) -> tuple[dict[str, float], set[str], tuple[str, ...]]:
    hit = TERMS_MEMO.get(text)
    if hit is None:
        terms, values, words = lang.merge_terms(text)
        TERMS_MEMO[text] = (tuple(terms.items()), tuple(sorted(values)), words)
        return terms, values, words
    return dict(hit[0]), set(hit[1]), hit[2]


def _terms(text: str, tools: frozenset[str]) -> tuple[dict[str, float], set[str]]:
    terms, values, words = _base_terms(text)
    _add_tools(terms, values, words, tools)
    return terms, values


def _add_tools(terms: dict[str, float], values: set[str], words: Iterable[str], tools: frozenset[str]) -> None:
    """Words that name a command the history ran (``yarn``, ``alembic``) are tools: concrete."""
    for w in words:
        if w in tools:
            terms.pop("w:" + lang.stem(w), None)
            terms["tool:" + w] = 2.0
            values.add("tool:" + w)
    for t in [t for t in values if t.startswith("code:")]:
        head = t[5:].split(" ", 1)[0]
        if head in tools:
            terms["tool:" + head] = 2.0
            values.add("tool:" + head)


def _overlap(a: dict[str, float], b: dict[str, float]) -> float:
    if len(a) > len(b):
        a, b = b, a
    return sum(min(w, b[t]) for t, w in a.items() if t in b)


def _anchor(a: dict[str, float], b: dict[str, float]) -> bool:
    shared = a.keys() & b.keys()
    if any(not t.startswith(("w:", "z:")) for t in shared):
        return True
    return sum(1 for t in shared if t.startswith("w:")) >= 2 or sum(1 for t in shared if t.startswith("z:")) >= 3


def similarity(a: dict[str, float], b: dict[str, float]) -> float:
    """Weighted overlap over the smaller side (0..1)."""
    wa, wb = sum(a.values()), sum(b.values())
    if not wa or not wb:
        return 0.0
    return _overlap(a, b) / min(wa, wb)


def containment(a: dict[str, float], b: dict[str, float]) -> float:
    """Share of ``a``'s weight found in ``b``."""
    wa = sum(a.values())
    return _overlap(a, b) / wa if wa else 0.0


# --------------------------------------------------------------------------------------
# Text


_CLAUSE = re.compile(r"(?:[,;:](?=\s)|\s[—–-]\s|[，；：、]|\s\(|（)")
_SENTENCE_END = re.compile(r"(?<=[\w)`'\"][.!?])(?<!e\.g\.)(?<!i\.e\.)(?<!vs\.)(?<!etc\.)\s+(?=[\w`])|(?<=[。！？])")
TITLE_CELLS = 44
"""A title fits in this many terminal cells (a Han character takes two): the list row of
the Suggestions pane shows it whole."""


def cells(s: str) -> int:
    """Terminal cells ``s`` takes (wide and full-width characters count two)."""
    import unicodedata

    return sum(2 if unicodedata.east_asian_width(ch) in "WF" else 1 for ch in s)


_PHRASE_BREAK = frozenset(
    "for in on at of by with from into under over and or but so because since when whenever "
    "before after unless until while where which that if as than via per".split()
)


def _fit_words(t: str, limit: int) -> str:
    """The longest head of ``t`` within ``limit`` cells that is a whole phrase (English: the
    words before a preposition or conjunction, at least half the room), else that ends at a
    word (jieba's words for Chinese), with ``…``."""
    if has_cjk(t):
        pieces = re.findall(r"[\u3400-\u9fff\uf900-\ufaff]+|[^\u3400-\u9fff\uf900-\ufaff]+", t)
        words: list[str] = []
        for p in pieces:
            words += lang.segment_words(p) if has_cjk(p) else re.findall(r"\S+\s*", p)
    else:
        words = re.findall(r"\S+\s*", t)
        head = ""
        phrase = ""
        for w in words:  # a whole phrase: the head before a preposition or conjunction that fits
            if cells(head) > limit:
                break
            if head and w.strip().lower() in _PHRASE_BREAK and cells(head.rstrip()) >= limit // 2:
                phrase = head
            head += w
        if phrase:
            return phrase.rstrip(" ,;:-—")
    out = ""
    for w in words:
        if cells(out + w) > limit - 1:
            break
        out += w
    out = out.rstrip(" ,;:，；：、(（-—")
    return (out or t[: max(1, (limit - 1) // 2)]) + "…"


def short_title(text: str, limit: int = TITLE_CELLS) -> str:
    """A title from a statement: its rule (:func:`.signals.title_text`) whole when it fits in
    ``limit`` cells, else its first sentence or the clauses that fit (never mid-word; a cut
    inside a clause, marked ``…``, only when not even the first clause fits)."""
    t = one_line(title_text(text)).rstrip("。.!！ ")
    if cells(t) <= limit:
        return t
    first = _SENTENCE_END.split(t, maxsplit=1)[0].rstrip("。.!！ ")
    if cells(first) <= limit:
        return first
    t = first
    cut = -1
    for m in _CLAUSE.finditer(t):
        if cells(t[: m.start()]) > limit:
            break
        if cells(t[: m.start()]) >= 10:
            cut = m.start()
    if cut > 0:
        return t[:cut].rstrip(" ,;:，；：、(（")
    return _fit_words(t, limit)


_NAME_DROP = lang.STOPWORDS | {"this", "that", "our", "repo", "we", "us", "dev", "anything", "everything"}


_SLUG_SEP = re.compile(r"[^a-z0-9]+")
_EN_NAME_WORD = re.compile(r"[A-Za-z][A-Za-z0-9._:-]*[A-Za-z0-9]|[A-Za-z]")
_ASCII_IN_CJK = re.compile(r"[A-Za-z][A-Za-z0-9._-]*[A-Za-z0-9]")


def readable_name(title: str, text: str, fallback: str) -> str:
    """A readable slug: content words of the title (English), the dictionary gloss of a
    Chinese rule when a dictionary is available, else the concrete things it names;
    ``fallback`` when nothing readable is left. Never a hash."""
    words: list[str] = []

    def add(ws: Iterable[str]) -> None:
        for w in ws:
            w = _SLUG_SEP.sub("-", w.lower()).strip("-")
            have = {p for x in words for p in x.split("-")}
            if w and w not in _NAME_DROP and len(w) <= 24 and not set(w.split("-")) <= have:
                words.append(w)
            if len(words) >= 8:
                return

    if has_cjk(title):  # the concrete things it names first, then the dictionary's words for the rest
        add(e.value for e in entities(title) if e.kind in ("code", "host", "path", "file", "ident", "env", "handle"))
        add(_ASCII_IN_CJK.findall(title))
        add(lang.name_words(title, 3 if len(words) < 2 else 1))
        if not words:
            add(e.value for e in entities(text) if e.kind in ("code", "host", "path", "file", "ident", "env", "handle"))
    else:
        add(_EN_NAME_WORD.findall(title.replace("`", "").replace("'", "").replace("’", "")))
    out = ""
    for w in words:
        nxt = f"{out}-{w}" if out else w
        if len(nxt) > 48:
            break
        out = nxt
    return out or fallback


_USER_SELF = re.compile(r"^(?:i am|i'm|i work|my |i prefer|我是|我的|我习惯|我喜欢)", re.I)


def infer_type(item: Item) -> str:
    """``feedback`` (how to work: rules, corrections, answer style), ``project`` (facts
    about the environment), ``user`` (about the person), ``reference`` (where to look)."""
    text = item.text
    if _USER_SELF.match(text):
        return "user"
    if any(v.startswith("url:") for v in item.values) and not item.policy:
        return "reference"
    if item.policy or any(r.startswith(("answer-style", "correction", "project rule")) for r in item.reasons):
        return "feedback"
    return "project"


def _date(ns: int) -> str:
    import time

    return time.strftime("%Y-%m-%d", time.gmtime(ns / 1e9)) if ns > 0 else "unknown date"


def _evidence_line(ev: Evidence) -> str:
    where = ev.label + (f":{ev.line}" if ev.source in ("claude-memory", "agent-notes") and ev.line else "")
    return where + ": " + truncate_runes(one_line(ev.text), 160, 159, "...")


def _history_body(rep: Item, members: Sequence[Item]) -> str:
    lines = [rep.text.strip()]
    said = [m for m in members if m.origin == "history"]
    if said:
        first = min(said, key=lambda m: m.at_ns)
        where = f"Said in session {first.group} on {_date(first.at_ns)}"
        if first.context:
            where += f", correcting `{first.context.split(': ', 1)[-1]}`"
        others = len({m.group for m in said}) - 1
        if others > 0:
            where += f"; repeated in {others} more session{'s' if others > 1 else ''}"
        lines += ["", where + "."]
    return "\n".join(lines) + "\n"


# --------------------------------------------------------------------------------------
# Memories


def prepare_items(items: Sequence[Item], tools: frozenset[str]) -> None:
    """Merge terms of every item (tool names recognised against the commands the history ran)."""
    for it in items:
        if it.terms:  # computed when the transcript was mined
            _add_tools(it.terms, it.values, it.words, tools)
            _add_tools(it.core_terms, set(), it.words, tools)
        else:
            it.terms, it.values = _terms(it.text + " " + it.title, tools)
            it.core_terms, _ = _terms(it.core or it.text, tools)
        it.weight = sum(it.terms.values())


def _rank(it: Item) -> tuple[float, int]:
    return (-it.score, -it.at_ns)


def cluster_items(items: Sequence[Item], seed: Sequence[Sequence[Item]] = ()) -> list[list[Item]]:
    """Greedy clusters, strongest item first: the same statement joins at once; otherwise
    an item joins the cluster whose first members (the strongest) it matches best, found
    through the terms they share — a concrete thing counts twice; a term most clusters
    have is not looked up, except an item's rarest terms. Statements under the threshold
    stay alone.

    ``seed``: clusters of an earlier listing (their members prepared); ``items`` are then
    only what is new since, and join those clusters by the same rule (members stay in rank
    order, so a cluster's first members are still its strongest).
    """
    order = sorted(range(len(items)), key=lambda i: (-items[i].score, -items[i].at_ns, i))
    df: Counter[str] = Counter(t for c in seed for it in c for t in it.terms)
    df.update(t for it in items for t in it.terms)
    clusters: list[list[Item]] = []
    index: dict[str, set[int]] = defaultdict(set)
    by_key: dict[str, int] = {}
    for c in seed:
        if not c:
            continue
        clusters.append(sorted(c, key=_rank))
        ci = len(clusters) - 1
        for it in c:
            if it.score < THRESHOLD:
                continue
            by_key.setdefault(it.key, ci)
            for t in it.terms:
                index[t].add(ci)
    for i in order:
        it = items[i]
        if it.score < THRESHOLD:  # a weak statement never joins (nor props up) a candidate
            clusters.append([it])
            continue
        key = it.key
        if key in by_key:
            insort(clusters[by_key[key]], it, key=_rank)
            continue
        rare = sorted(it.terms, key=lambda t: (df[t], t))
        hits: Counter[int] = Counter()
        for n, t in enumerate(rare):
            posting = index.get(t)
            if not posting or (n >= 3 and len(posting) > 50) or len(posting) > 400:
                continue
            for cluster_no in posting:
                hits[cluster_no] += 2 if t in it.values else 1
        best, best_sim = -1, 0.0
        for cluster_no, h in hits.most_common(4):
            if h < 2:
                break
            for other in clusters[cluster_no][:3]:
                sim = _similar(it, other)
                if (
                    sim >= MERGE_SIMILARITY
                    and sim > best_sim
                    and _anchor(it.terms, other.terms)
                    and not _clash(it, other)
                    and not _other_objects(it, other)
                ):
                    best, best_sim = cluster_no, sim
        if best < 0:
            clusters.append([it])
            best = len(clusters) - 1
        else:
            insort(clusters[best], it, key=_rank)
        by_key.setdefault(key, best)
        for t in it.terms:
            index[t].add(best)
    return clusters


_CLASH_KINDS = frozenset({"host", "ip", "port", "url", "version", "ident", "path", "file", "env", "handle"})


def _word_space(terms: dict[str, float]) -> dict[str, float]:
    return {t: w for t, w in terms.items() if t.startswith("w:")}


def _similar(a: Item, b: Item) -> float:
    """Weighted overlap over the smaller side; across languages (one side Chinese) in the
    shared English word space, where the Chinese side's dictionary glosses meet the other
    side's words."""
    za = any(t.startswith("z:") for t in a.terms)
    zb = any(t.startswith("z:") for t in b.terms)
    if za != zb:
        wa, wb = _word_space(a.terms), _word_space(b.terms)
        low = min(sum(wa.values()), sum(wb.values()))
        lexical = _overlap(wa, wb) / low if low else 0.0
        low_all = min(a.weight, b.weight)
        return max(lexical, _overlap(a.terms, b.terms) / low_all if low_all else 0.0)
    low = min(a.weight, b.weight)
    return _overlap(a.terms, b.terms) / low if low else 0.0


def _other_objects(a: Item, b: Item) -> bool:
    """Sharing no concrete thing and fewer than three words, each names something the other
    does not ("run lint before committing" / "run the tests before committing")."""
    if a.values & b.values:
        return False
    wa = {t for t in a.terms if t.startswith(("w:", "z:"))}
    wb = {t for t in b.terms if t.startswith(("w:", "z:"))}
    shared = wa & wb
    za = any(t.startswith("z:") for t in wa)
    zb = any(t.startswith("z:") for t in wb)
    if za != zb:  # across languages only the English side's words must all be there
        english = wa if not za else wb
        return bool(english - shared) and len(shared) < 3
    return len(shared) < 3 and bool(wa - shared) and bool(wb - shared)


def _clash(a: Item, b: Item) -> bool:
    """Both name a concrete thing of one kind and none in common (two hosts, two ports):
    not the same statement (one may supersede the other, which is decided later)."""
    ka: dict[str, set[str]] = defaultdict(set)
    for v in a.values:
        ka[v.split(":", 1)[0]].add(v)
    for kind in ka.keys() & _CLASH_KINDS:
        theirs = {v for v in b.values if v.startswith(kind + ":")}
        if theirs and not (theirs & ka[kind]):
            return True
    return False


def _subject_terms(it: Item) -> dict[str, float]:
    return {t: w for t, w in it.terms.items() if t not in it.values}


def _supersedes(new: Item, old: Item) -> bool:
    """``new`` gives another value of the same kind on ``old``'s subject (a host, a port,
    a version where the older statement named a different one) and says it changed (or
    corrects the assistant) — two statements that merely differ may be about two subjects."""
    if not any(r.startswith(("change of state", "correction")) for r in new.reasons):
        return False
    kinds_new: dict[str, set[str]] = defaultdict(set)
    kinds_old: dict[str, set[str]] = defaultdict(set)
    for v in new.values:
        kinds_new[v.split(":", 1)[0]].add(v)
    for v in old.values:
        kinds_old[v.split(":", 1)[0]].add(v)
    differs = any(
        kinds_new[k] - kinds_old[k] and kinds_old[k] - kinds_new[k]
        for k in kinds_new.keys() & kinds_old.keys()
        if k not in ("tool", "name")
    )
    if not differs:
        return False
    a, b = _subject_terms(new), _subject_terms(old)
    shared = sum(1 for t in a.keys() & b.keys() if t.startswith(("w:", "z:")))
    # The older statement's subject must be in the newer one: "the orders service talks
    # to …" is not superseded by "the invoices service talks to …".
    return shared >= 2 and containment(b, a) >= 0.9


def _fold_superseded(clusters: list[list[Item]]) -> list[list[Item]]:
    """An older cluster whose statement a newer one supersedes joins the newer cluster
    (its items marked superseded: evidence of what was said before, never the title)."""
    latest = [max(m.at_ns for m in c) for c in clusters]
    order = sorted(range(len(clusters)), key=lambda i: -latest[i])
    subjects = [_subject_terms(c[0]) for c in clusters]
    df: Counter[str] = Counter(t for subj in subjects for t in subj)
    index: dict[str, list[int]] = defaultdict(list)
    into: dict[int, int] = {}
    for i in order:
        head = clusters[i][0]
        if head.origin != "history" or not head.values or head.score < THRESHOLD:
            continue
        changer = _CHANGED(head)
        if sum(1 for t in subjects[i] if t in index) < 2:  # no newer statement can supersede it
            if changer:
                for t in subjects[i]:
                    index[t].append(i)
            continue
        subject = sorted(subjects[i], key=lambda t: (df[t], t))
        hits: Counter[int] = Counter()
        for n, t in enumerate(subject):
            posting = index.get(t, ())
            if (n >= 3 and len(posting) > 50) or len(posting) > 400:
                continue
            for j in posting:
                hits[j] += 1
        target = next((j for j, h in hits.most_common(6) if h >= 2 and _supersedes(clusters[j][0], head)), -1)
        if target >= 0:
            while target in into:
                target = into[target]
            into[i] = target
            for m in clusters[i]:
                m.superseded = True
            continue
        if changer:  # only a statement that says something changed can supersede another
            for t in subject:
                index[t].append(i)
    for i, target in into.items():
        clusters[target].extend(clusters[i])
    out = [c for i, c in enumerate(clusters) if i not in into]
    for c in out:  # inside a cluster too: an older member a newer one supersedes
        said = sorted((m for m in c if m.origin == "history" and m.values), key=lambda m: -m.at_ns)
        changers: list[Item] = []  # newer members that say something changed, one per set of values
        seen_values: set[frozenset[str]] = set()
        for older in said:
            if not older.superseded and any(
                n.at_ns > older.at_ns and n.values != older.values and _supersedes(n, older) for n in changers
            ):
                older.superseded = True
            elif _CHANGED(older) and frozenset(older.values) not in seen_values:
                seen_values.add(frozenset(older.values))
                changers.append(older)
    return out


def _CHANGED(it: Item) -> bool:  # noqa: N802 - reads as a predicate
    return any(r.startswith(("change of state", "correction")) for r in it.reasons)


_GENERIC_VALUE_KINDS = ("tool:", "name:", "version:")


def _covered(it: Item, known: Known) -> bool:
    """A fact or an instruction line already says it: every concrete thing the candidate
    names is there (a tool or product name alone also needs a shared word: "basic Python"
    is not covered by a fact about the Python version), or its words are."""
    if it.values and it.values <= known.values and not any(r.startswith("change of state") for r in it.reasons):
        specific = any(not v.startswith(_GENERIC_VALUE_KINDS) for v in it.values)
        named = {"w:" + lang.stem(v.split(":", 1)[1]) for v in it.values if v.startswith(("tool:", "name:"))}
        own = {t for t in it.terms if t.startswith("w:")} - named
        if specific or own & known.terms.keys() or not own:  # no words of its own to compare (记得提交前跑 ruff)
            return True
    for terms in (it.core_terms, it.terms):
        if terms and containment(terms, known.terms) >= COVER_CONTAINMENT and (it.values - known.values) == set():
            return True
    return False


def _free_words(text: str, values: Iterable[str]) -> set[str]:
    """``w:`` terms of the words ``text`` says outside the concrete things it names."""
    for v in sorted(values, key=len, reverse=True):
        if v.startswith(("name:", "tool:")):  # a proper name or a tool is a word too
            continue
        surface = v.split(":", 1)[-1]
        if len(surface) >= 2:
            text = re.sub(re.escape(surface), " ", text, flags=re.I)
    return {"w:" + w for w in lang.content_words(text)}


def _conflicts(it: Item, known: Known) -> bool:
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
    free = _free_words(it.text, it.values) & _free_words(fact_text, known.values)
    shared_words = {
        t for t in shared if t.startswith("z:") or (t in free and it.terms[t] >= 1.0 and known.terms[t] >= 1.0)
    }
    if not shared_values and len(shared_words) < 2 and containment(it.terms, known.terms) < 0.3:
        return False
    head_kinds = {v.split(":", 1)[0] for v in known.head_values}
    changed = any(r.startswith("change of state") for r in it.reasons)
    return any(v.split(":", 1)[0] in head_kinds for v in new) or (changed and bool(head_kinds))


def _against_known(
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
            if _covered(it, kn):
                return "covered", kn
            if update is None and _conflicts(it, kn):
                update = kn
    return ("update", update) if update is not None else ("", None)


_PROVENANCE = re.compile(r"^Said in session .*$", re.M)
"""The line an accepted candidate's body ends with: where it was said, not what it says."""


def known_entries(
    facts: Sequence[Any], instruction_docs: Sequence[tuple[str, str]], tools: frozenset[str]
) -> list[Known]:
    """Active facts (both scopes) and instruction lines, as merge terms."""
    out: list[Known] = []
    for f in facts:
        head = " ".join((f.name.replace("-", " "), f.title, f.description))
        body = _PROVENANCE.sub("", f.body)
        terms, values = _terms(head + " " + body, tools)
        _ht, head_values = _terms(head, tools)
        if not head_values:
            head_values = values
        out.append(Known(f.ref, True, terms, values, head_values, f))
    for label, body in instruction_docs:
        for line in re.split(r"\n+", body):
            line = re.sub(r"^\s*(?:[-*+]|\d+[.)])\s+", "", line).strip()
            if len(line) < 8 or line.startswith(("#", "<!--", "```")):
                continue
            terms, values = _terms(line, tools)
            out.append(Known(label, False, terms, values, values))
    return out


def build_memories(
    items: Sequence[Item],
    known: Sequence[Known],
    tools: frozenset[str],
    taken: set[str] | None = None,
    clusters: list[list[Item]] | None = None,
) -> tuple[list[MemorySuggestion], int]:
    """Merged, scored candidates (every one, ranked) and how many existing facts or
    instructions already cover. ``clusters``: the items already prepared and clustered
    (:func:`cluster_items`; their lists are extended in place)."""
    if clusters is None:
        prepare_items(items, tools)
        clusters = cluster_items(items)
    kindex: dict[str, set[int]] = defaultdict(set)
    for i, k in enumerate(known):
        for t in k.terms:
            kindex[t].add(i)
    covered = 0
    out: list[MemorySuggestion] = []
    names = taken if taken is not None else set()
    updated: set[str] = set()
    clusters = _fold_superseded(clusters)
    clusters.sort(key=lambda ms: -max(m.score for m in ms))
    for members in clusters:
        verdict, kn = _against_known(members, known, kindex)
        if verdict == "covered":
            covered += 1
            continue
        if verdict == "update" and kn is not None and kn.ref in updated:
            kn = None
        if verdict == "update" and kn is not None:
            updated.add(kn.ref)
        out.append(_memory(members, kn if verdict == "update" else None, names))
    out.sort(key=lambda m: (-m.score, -max((s.at.ns for s in m.sources if s.at), default=0), m.id))
    return out, covered


def _memory(members: Sequence[Item], update: Known | None, names: set[str]) -> MemorySuggestion:
    imports = [m for m in members if m.origin in ("claude-memory", "agent-notes")]
    said = [m for m in members if m.origin == "history"]
    current = [m for m in members if not m.superseded] or list(members)
    rep = (
        max(imports, key=lambda m: (m.origin == "claude-memory", m.score))
        if imports
        else max(current, key=lambda m: (m.score, m.policy, m.at_ns))
    )
    groups = {m.group for m in said if not m.superseded}
    score = max(m.score for m in current)
    reasons = list(rep.reasons)
    for m in members:
        for r in m.reasons:
            if r not in reasons:
                reasons.append(r)
    if len(groups) > 1:
        score += min(2.0, 1.0 * (len(groups) - 1))
        reasons.append(f"said in {len(groups)} sessions")
    old = [m for m in members if m.superseded]
    if old:
        reasons.append(
            "replaces what was said before ("
            + "; ".join(truncate_runes(one_line(m.core or m.text), 60, 59, "…") for m in old[:2])
            + ")"
        )
    if imports and said:
        score += 0.5
        reasons.append(
            "also in "
            + (
                "Claude Code auto-memory"
                if any(m.origin == "claude-memory" for m in imports)
                else os.path.basename(imports[0].group)
            )
        )
    title = rep.title or short_title(rep.core or rep.text)
    description = one_line(rep.core if rep.origin == "claude-memory" and rep.body else rep.text)
    ttype = rep.type or infer_type(rep)
    if update is not None:
        fact = update.fact
        name, scope = fact.name, fact.scope
        reasons.insert(0, f"updates {fact.ref} (it says: {truncate_runes(one_line(fact.description), 80, 79, '…')})")
        ttype = rep.type or fact.type or ttype
        prefix = "update-"
    else:
        fallback = {
            "feedback": "working-rule",
            "project": "project-fact",
            "user": "about-me",
            "reference": "reference",
        }.get(ttype, "note")
        name = rep.name or readable_name(title, rep.text, fallback)
        scope = rep.scope
        prefix = rep.id_prefix
    base = name
    n = 2
    while prefix + name in names:
        name = f"{base}-{n}"
        n += 1
    names.add(prefix + name)
    body = rep.body if rep.body else _history_body(rep, members)
    sources: list[Evidence] = []
    for m in sorted(members, key=lambda m: (m.origin != "history", m.at_ns)):
        sources.extend(m.sources)
    keys = tuple(dict.fromkeys(m.key for m in members))
    return MemorySuggestion(
        id=prefix + name,
        name=name,
        title=title,
        description=description,
        type=ttype,
        scope=scope,
        body=body,
        reason="; ".join(reasons[:3]),
        evidence=tuple(_evidence_line(e) for e in sources),
        origin=rep.origin,
        sources=tuple(sources),
        needs_edit=rep.needs_edit,
        score=round(score, 2),
        reasons=tuple(reasons),
        updates=update.ref if update is not None else "",
        keys=keys,
    )


# --------------------------------------------------------------------------------------
# Skills


@dataclass(frozen=True, slots=True)
class SessionRef:
    """What a skill needs to know about a session."""

    id: str
    path: str
    source: str
    at_ns: int
    triggers: dict[int, str]
    """Message index → the person's request text."""


_GENERIC_STEP_WORDS = frozenset(
    "edit run git make go npm yarn pnpm uv pip python node bash sh test tests build install "
    "add commit push pull checkout main md py ts go".split()
)


def _skill_name(proc: Procedure, sessions: Sequence[SessionRef]) -> tuple[str, str]:
    """``(name, head word)``: a step word the person used when asking, else the distinctive
    steps' tool and subcommands."""
    triggers = " ".join(sessions[o.session].triggers.get(o.steps[0].trigger, "") for o in proc.occurrences if o.steps)
    said = set(lang.content_words(triggers))  # already stem keys
    heads_all = {k.split(" ")[0] for k in proc.keys}
    for key in proc.keys:
        for w in step_words(key):
            if w not in _GENERIC_STEP_WORDS and w not in heads_all and lang.stem(w) in said:
                return w, w
    ran: Counter[str] = Counter()
    surface: dict[str, str] = {}
    for o in proc.occurrences:
        for w in {w.lower() for st in o.steps for w in re.findall(r"[A-Za-z][\w.-]*", st.display) if w.isalpha()}:
            k = lang.stem(w)
            if k in said:
                ran[k] += 1
                surface.setdefault(k, w)
    for k, n in ran.most_common():
        w = surface[k]
        if n >= 2 and w not in _GENERIC_STEP_WORDS and w not in heads_all and len(w) >= 4:
            return w, w
    heads = Counter(k.split(" ")[0] for k in proc.distinctive if not k.startswith("edit "))
    words: list[str] = []
    if heads:
        head, n = heads.most_common(1)[0]
        if n >= 2 and head not in _GENERIC_STEP_WORDS:
            words.append(head)
        for k in proc.distinctive:
            if k.startswith(head + " "):
                words += [w for w in step_words(k)[1:] if w not in words]
    if len(words) < 2:
        for k in proc.distinctive:
            words += [w for w in step_words(k) if w not in words and w not in _GENERIC_STEP_WORDS]
    name = "-".join(words[:3]) or "repeated-procedure"
    return name, words[0] if words else "procedure"


def _step_line(proc: Procedure, key: str) -> str:
    displays = proc.displays(key)
    common = Counter(displays).most_common()
    shown = common[0][0] if common else key
    if key.startswith("edit "):
        text = "Edit `" + key[5:] + "`"
    else:
        text = "`" + shown + "`"
    variants = [d for d, _ in common[1:4] if d != shown]
    if variants and not key.startswith("edit "):
        text += " (also: " + ", ".join("`" + v + "`" for v in variants) + ")"
    return text


def build_skills(
    procedures: Sequence[Procedure], sessions: Sequence[SessionRef], scope: str, existing: set[str]
) -> list[SkillSuggestion]:
    """One skill candidate per repeated procedure (not for names an existing skill has)."""
    out: list[SkillSuggestion] = []
    used: set[str] = set()
    for proc in procedures:
        proc = replace(proc, occurrences=tuple(sorted(proc.occurrences, key=lambda o: sessions[o.session].at_ns)))
        name, head = _skill_name(proc, sessions)
        if name in existing or name in used:
            continue
        used.add(name)
        n = len(proc.occurrences)
        steps = tuple(_step_line(proc, k) for k in proc.keys)
        sources: list[Evidence] = []
        evidence: list[str] = []
        for o in proc.occurrences:
            s = sessions[o.session]
            first = o.steps[0]
            trigger = s.triggers.get(first.trigger, "")
            ran = ", ".join(
                d for i, d in enumerate(st.display for st in o.steps[:8]) if i == 0 or d != o.steps[i - 1].display
            )
            text = (trigger + " → " if trigger else "") + ran
            line = first.trigger if first.trigger >= 0 and trigger else first.index
            sources.append(
                Evidence(
                    "claude-session" if s.source == "claude-session" else "session",
                    s.id,
                    one_line(text),
                    Timestamp(s.at_ns) if s.at_ns else None,
                    s.path,
                    line,
                )
            )
            evidence.append(s.id + ": " + truncate_runes(one_line(text), 160, 159, "..."))
        title = head.replace("-", " ").capitalize() if head != name else name.replace("-", " ").capitalize()
        plain = [re.sub(r"`", "", st) for st in steps]
        description = f"{title} as done in {n} sessions: " + ", ".join(plain)
        description = truncate_runes(description, 240, 239, "…")
        body = f"# {title}\n\nThe steps repeated in {n} sessions ({', '.join(sessions[o.session].id for o in proc.occurrences)}).\n\n"
        body += "## Steps\n\n" + "".join(f"{i}. {st}\n" for i, st in enumerate(steps, 1))
        body += "\n## Evidence\n\n" + "".join(f"- {e}\n" for e in evidence)
        score = THRESHOLD + 0.5 * min(n - 2, 4) + 0.25 * min(len(proc.distinctive), 4)
        reasons = (
            f"the same {len(proc.keys)} steps in {n} sessions",
            "distinctive steps: " + ", ".join(proc.distinctive[:5]),
        )
        out.append(
            SkillSuggestion(
                id="skill-" + name,
                name=name,
                description=description,
                scope=scope,
                body=body,
                reason=reasons[0],
                evidence=tuple(evidence),
                sources=tuple(sources),
                score=round(score, 2),
                reasons=reasons,
                steps=steps,
                keys=tuple(proc.keys),
            )
        )
    return out
