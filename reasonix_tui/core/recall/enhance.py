"""Enhanced recall: extra evidence on top of the Reasonix BM25, each piece switchable.

Every enhancement adds *concepts* a document can match besides the exact query terms;
the strong-match gate counts concepts instead of terms, and each extra match adds a
BM25-shaped contribution (``w · idf · (k1+1) / (1 + norm)``, i.e. tf = 1) to the exact
score. When no enhancement fires, the score, the gate and the order are exactly
Reasonix's.

* ``symbols``: code identifiers match across spellings. ``MaxOpenConns``,
  ``max_open_conns`` and "max open conns" share the segments ``max``/``open``/``conns``.
* ``cjk_keywords``: a short CJK query reaches a fact whose *keywords* (or, for a one-
  or two-concept query, title/name/subject) contain the CJK word, including a
  one-character query against a keyword's characters. Reasonix's bigram gate rejects a
  lone two-character word (fewer than 6 runes, not "distinctive").
* ``lexicon``: a small Chinese/Japanese ↔ English table (:mod:`.lexicon`) lets
  "数据库迁移" reach "database migrations" with no shared word.
* ``supersedes``: a fact whose ``supersedes`` names another removes it from recall;
  when only the old fact matched, the new one takes its place.
* ``replacement_cues``: a newer fact that *says* it replaced something ("moved away
  from npm", "不再使用 Jenkins") outranks an older hit that mentions it, and that hit
  is flagged as possibly outdated.
* ``stale_flags``: stale hits carry a visible marker and rank after current hits.
* ``rivals``: a project hit whose title is a global hit's title plus only scoping words
  ("for payments", "in this repo", the workspace's own name) is the same subject: the
  project fact wins, as it does for identical identity keys.
* ``generic``: acknowledgement-only turns ("ok, continue", "好的，继续下一步") stay silent.
* ``function_words``: a fact is never recalled on function words alone. Reasonix has no
  stopwords, so "what is the staging host" passes the two-term gate for every fact that
  contains "is" and "the"; here such a fact needs at least one other matched term (or
  concept). Scores are unchanged.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, fields, replace
from functools import lru_cache
from typing import Any

import numpy as np
import regex

from ..gostr import to_lower
from ..store.model import Fact
from ..tokenize import CJK_CLASS, is_cjk, tokens
from .index import FACT_MEMO, RecallIndex, recall_text
from .lexicon import LEXICON
from ..gostr import one_line as compact_whitespace

__all__ = [
    "Enhancements",
    "ALL_ENHANCEMENTS",
    "EnhancedIndex",
    "QueryPlan",
    "plan_query",
    "segments",
    "replacement_targets",
    "FUNCTION_WORDS",
]


@dataclass(frozen=True, slots=True)
class Enhancements:
    """Which improvements over Reasonix are on (all by default in ``enhanced`` mode)."""

    symbols: bool = True
    """Match code identifiers across CamelCase / snake_case / spaced spellings."""
    cjk_keywords: bool = True
    """Short CJK queries reach facts with a matching CJK keyword or title."""
    lexicon: bool = True
    """Bridge Chinese/Japanese and English words through a small lexicon."""
    supersedes: bool = True
    """Honour the ``supersedes`` frontmatter extension."""
    replacement_cues: bool = True
    """A newer fact that says it replaced something outranks and flags the older one."""
    stale_flags: bool = True
    """Mark stale hits in the entry and rank them after current hits."""
    rivals: bool = True
    """Project over global also when the project fact's title is the global title scoped to
    this project ("Code review policy" → "Code review policy for payments")."""
    generic: bool = True
    """Acknowledgement-only turns stay silent."""
    function_words: bool = True
    """A fact matched only on function words ("is", "the", "什么") is not recalled."""

    def without(self, name: str) -> Enhancements:
        """A copy with one improvement switched off (for ablations)."""
        return replace(self, **{name: False})

    @classmethod
    def names(cls) -> list[str]:
        """Field names, in declaration order."""
        return [f.name for f in fields(cls)]


ALL_ENHANCEMENTS = Enhancements()

FUNCTION_WORDS = frozenset(
    # English closed-class words: articles, pronouns, auxiliaries, prepositions,
    # conjunctions, question words. Words with a software meaning ("go", "on", "off",
    # "not", "no", "us" as in us-east-1, "use", "make", "run") are deliberately absent.
    "a an the this that these those there here it its i me my we our you your he she they them their "
    "is are was were be been being am do does did have has had will would shall should can could may "
    "might must of to in at by for from with about into onto over than then so as if or and but nor "
    "what which who whom whose when where why how whether please also just any some "
    # Chinese function words (bigrams and the single characters a one-rune run yields)
    "什么 怎么 怎样 如何 为什 我们 你们 他们 这个 那个 这些 那些 一下 是否 可以 应该 的 了 是 在 吗 呢 吧 和 与 "
    # Japanese particles and copulas
    "です ます は が を に で の".split()
)
"""Query terms that are no evidence on their own (``function_words``)."""

W_SYMBOL = 0.9
W_LEXICON = 0.8
W_KEYWORD = 0.5

_WORD = regex.compile(rf"[[\p{{L}}\p{{Nd}}_]--[{CJK_CLASS}]]+", flags=regex.V1)
_W = rf"[[\p{{L}}\p{{Nd}}_]--[{CJK_CLASS}]]"
_COMPOUND = regex.compile(rf"(?<!{_W}){_W}*(?:_|\p{{Nd}}|\p{{Ll}}\p{{Lu}}|\p{{Lu}}\p{{Lu}}\p{{Ll}}){_W}*", flags=regex.V1)
"""Words with identifier structure (``_``, digits, inner capitals): the only ones with segments."""
_CJK_RUN = regex.compile(rf"[{CJK_CLASS}]+", flags=regex.V1)
_SEG = regex.compile(r"\p{Lu}+(?=\p{Lu}\p{Ll})|\p{Lu}?\p{Ll}+|\p{Lu}+|\p{Nd}+|[\p{L}--[\p{Lu}\p{Ll}]]+", flags=regex.V1)
_KW_SPLIT = regex.compile(r"[,;，；、|]+")


def segments(word: str) -> list[str]:
    """Lowercased segments (≥ 2 runes) of a code identifier, or ``[]`` when it has fewer than two.

    ``MaxOpenConns`` → max, open, conns; ``HTTPServer`` → http, server;
    ``ERR_CONN_RESET`` → err, conn, reset.
    """
    if "_" not in word and (word.islower() or word.isupper()) and not any(c.isdigit() for c in word):
        return []
    parts: list[str] = []
    for piece in word.split("_"):
        parts.extend(_SEG.findall(piece))
    segs = [to_lower(p) for p in parts if len(p) > 1]
    return segs if len(segs) >= 2 else []


_COMPOUND_ASCII = re.compile(r"(?<![A-Za-z0-9_])[A-Za-z0-9_]*(?:_|[0-9]|[a-z][A-Z]|[A-Z][A-Z][a-z])[A-Za-z0-9_]*")


def compound_segments(text: str) -> set[str]:
    """Segments of every identifier-like word of ``text``."""
    out: set[str] = set()
    pattern = _COMPOUND_ASCII if text.isascii() else _COMPOUND
    for m in pattern.finditer(text):
        out.update(segments(m.group()))
    return out


def keyword_entries(keywords: str) -> list[str]:
    """Keyword aliases: split on commas/semicolons when present, else on whitespace."""
    text = compact_whitespace(keywords)
    if not text:
        return []
    parts = _KW_SPLIT.split(text) if _KW_SPLIT.search(text) else text.split(" ")
    return [to_lower(p.strip()) for p in parts if p.strip()]


# -- replacement cues ---------------------------------------------------------------
_X = r"(?P<x>[^.;:,()\n]{1,40}?)"
_EN_CUES = [
    regex.compile(
        rf"\b(?:moved|switched|migrated|changed|went|transitioned|converted)\s+(?:away\s+)?from\s+{_X}"
        r"(?=\s+(?:to|onto|in\s+favou?r\s+of)\b|[.;:,()]|$)"
    ),
    regex.compile(rf"\b(?:replac(?:ed|es|ing)|supersed(?:ed|es|ing))\s+(?!by\b|with\b){_X}(?=\s+(?:with|by)\b|[.;:,()]|$)"),
    regex.compile(
        r"(?P<x>\b[\w./@+-]+(?:\s+[\w./@+-]+)?)\s+(?:is|was|has\s+been|have\s+been|are|were|got)\s+"
        r"(?:now\s+)?(?:replaced|superseded|deprecated|retired|dropped|removed|abandoned|gone)\b"
    ),
    regex.compile(
        rf"\bno\s+longer\s+(?:use|uses|using|used|run|runs|need|needs|support|supports|deploy|deploys)\s+{_X}"
        r"(?=[.;:,()]|\s+(?:for|in|because|since|as|anymore)\b|$)"
    ),
    regex.compile(rf"\binstead\s+of\s+{_X}(?=[.;:,()]|\s+(?:for|in|because|since|as)\b|$)"),
    regex.compile(rf"\b(?:deprecated|retired|dropped|abandoned|ditched)\s+{_X}(?=\s+(?:for|in\s+favou?r\s+of)\b|[.;:,()]|$)"),
]
_ZH_X = r"(?P<x>[^，。；、,.;:：()（）\n]{1,16}?)"
_ZH_CUES = [
    regex.compile(r"不再(?:使用|用|需要|支持|部署)?\s*(?P<x>[^，。；、,.;:：()（）\s]{1,12})"),
    regex.compile(rf"(?:从|由){_ZH_X}\s*(?:迁移|切换|改|换|转)(?:到|为|成)"),
    regex.compile(r"(?:弃用|废弃|淘汰|替换|取代|代替|替代)了?\s*(?P<x>[^，。；、,.;:：()（）\s]{1,12})"),
    regex.compile(rf"{_ZH_X}\s*(?:已经|已)?\s*被\s*[^，。；、,.;]{{0,16}}?(?:取代|替换|替代|淘汰)"),
]
SCOPE_WORDS = frozenset("for in this the our repo repository project here local workspace codebase app service".split())
"""Title words that only scope a fact to the project (``rivals``)."""
_CUE_STOP = frozenset(
    "the a an our we us it its this that these those old older previous legacy using use used to of for "
    "and or in on with by from all any some now our your their 我们 们的 的 了 旧 旧的 原来 原来的 之前".split()
)


_CUE_KEYS = (
    "replac", "supersed", "no longer", "instead of", "deprecat", "retired", "dropped", "removed", "abandoned",
    "ditched", "gone", "不再", "弃用", "废弃", "淘汰", "替换", "取代", "代替", "替代",
)
_MOVE_VERBS = ("moved", "switched", "migrated", "changed", "went", "transitioned", "converted")


def _may_have_cue(low: str) -> bool:
    """Cheap substring test before the cue patterns run."""
    if any(k in low for k in _CUE_KEYS):
        return True
    if " from" in low and any(v in low for v in _MOVE_VERBS):
        return True
    return ("从" in low or "由" in low) and any(x in low for x in ("到", "为", "成"))


def replacement_targets(text: str) -> frozenset[tuple[str, ...]]:
    """What ``text`` says was replaced, as token phrases ("moved away from npm" → ``("npm",)``).

    Each phrase keeps up to three content tokens; another fact is about the replaced
    thing only when it contains every token of a phrase.
    """
    compact = compact_whitespace(text)
    if not _may_have_cue(compact.lower()):
        return frozenset()
    low = to_lower(compact)
    out: set[tuple[str, ...]] = set()
    for pattern in _EN_CUES + _ZH_CUES:
        for m in pattern.finditer(low):
            toks = tuple(t for t in tokens(m.group("x")) if t not in _CUE_STOP)[:3]
            if toks:
                out.add(toks)
    return frozenset(out)


# -- the index side -----------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class _Features:
    """What :meth:`EnhancedIndex.build` needs of one fact (memoised per fact object)."""

    segments: frozenset[str]
    labels: frozenset[str]
    keys: frozenset[str]
    may_have_cue: bool
    title_words: frozenset[str]


def _encode_features(f: _Features) -> tuple[Any, ...]:
    return (tuple(sorted(f.segments)), tuple(sorted(f.labels)), tuple(sorted(f.keys)), f.may_have_cue,
            tuple(sorted(f.title_words)))


def _decode_features(v: Any) -> _Features:
    segments, labels, keys, cue, title = v
    return _Features(frozenset(segments), frozenset(labels), frozenset(keys), bool(cue), frozenset(title))


FACT_MEMO.register_codec("enhanced", _encode_features, _decode_features)


def _features(fact: Fact) -> _Features:
    text = recall_text(fact)
    label_text = "\n".join((fact.name, fact.title, fact.keywords, fact.subject_key.replace(".", " ")))
    lab = set(tokens(label_text))
    lab.update(compound_segments(label_text))
    keys: set[str] = set()
    for entry in keyword_entries(fact.keywords):
        keys.add("e:" + entry)
        for t in tokens(entry):
            keys.add("t:" + t)
        for ch in entry:
            if is_cjk(ch):
                keys.add("u:" + ch)
    return _Features(
        segments=frozenset(compound_segments(text)),
        labels=frozenset(lab),
        keys=frozenset(keys),
        may_have_cue=_may_have_cue(" ".join(text.lower().split())),
        title_words=frozenset(t for t in tokens(fact.title or fact.name.replace("-", " ")) if t not in _CUE_STOP),
    )


def _arr(values: list[int]) -> np.ndarray:
    return np.asarray(sorted(set(values)), dtype=np.int64)


@dataclass
class EnhancedIndex:
    """Per-snapshot structures for the enhanced channels."""

    n: int
    seg: dict[str, np.ndarray]
    """Segment → documents having a compound identifier with that segment."""
    label: dict[str, np.ndarray]
    """Token of name/title/keywords/subject → documents."""
    kw: dict[str, np.ndarray]
    """``e:<entry>`` whole keyword, ``t:<token>`` keyword token, ``u:<rune>`` CJK keyword rune."""
    texts: tuple[str, ...]
    """Per document: the recall text (cue phrases are extracted from it on demand)."""
    has_cue: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=bool))
    """Per document: whether the text may state a replacement (cheap substring test)."""
    _cues: dict[int, frozenset[tuple[str, ...]]] = field(default_factory=dict)
    title_words: list[frozenset[str]] = field(default_factory=list)
    """Per document: title tokens without stopwords (for ``rivals``)."""
    superseded_by: dict[int, list[Fact]] = field(default_factory=dict)
    """Document → active facts whose ``supersedes`` names it."""
    doc_of: dict[int, int] = field(default_factory=dict)
    """``id(fact)`` → document number, for pool documents."""

    def cue_targets(self, doc: int) -> frozenset[tuple[str, ...]]:
        """Phrases naming what document ``doc`` says was replaced (computed once, on demand)."""
        if not self.has_cue[doc]:
            return frozenset()
        found = self._cues.get(doc)
        if found is None:
            found = self._cues[doc] = replacement_targets(self.texts[doc])
        return found

    @classmethod
    def build(cls, index: RecallIndex) -> EnhancedIndex:
        seg: dict[str, list[int]] = {}
        label: dict[str, list[int]] = {}
        kw: dict[str, list[int]] = {}
        cues: list[bool] = []
        title_words: list[frozenset[str]] = []
        for i, fact in enumerate(index.docs):
            feats = FACT_MEMO.get(fact, "enhanced", _features)
            for s in feats.segments:
                seg.setdefault(s, []).append(i)
            for t in feats.labels:
                label.setdefault(t, []).append(i)
            for k in feats.keys:
                kw.setdefault(k, []).append(i)
            cues.append(feats.may_have_cue)
            title_words.append(feats.title_words)
        out = cls(
            n=len(index.docs),
            seg={k: _arr(v) for k, v in seg.items()},
            label={k: _arr(v) for k, v in label.items()},
            kw={k: _arr(v) for k, v in kw.items()},
            texts=index.texts,
        )
        out.has_cue = np.fromiter(cues, dtype=bool, count=len(cues))
        out.title_words = title_words
        out.doc_of = {id(f): i for i, f in enumerate(index.docs)}
        for fact in index.all_facts:
            for ref in fact.supersedes:
                target = index.resolve_ref(ref)
                if target is None or target is fact:
                    continue
                doc = out.doc_of.get(id(target))
                if doc is not None:
                    out.superseded_by.setdefault(doc, []).append(fact)
        return out


# -- the query side -----------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class LexConcept:
    """A lexicon group the query mentions."""

    source: str
    """The query's form (``数据库``)."""
    source_terms: tuple[str, ...]
    """Its exact tokens."""
    alternatives: tuple[tuple[str, tuple[str, ...]], ...]
    """Other forms with their exact tokens."""


@dataclass(frozen=True, slots=True)
class QueryPlan:
    """What the enhanced channels look for in one query."""

    term_segments: tuple[tuple[str, ...], ...]
    """Per exact query term: its identifier segments (empty when not compound)."""
    cjk_runs: tuple[str, ...]
    """Maximal CJK runs of the query."""
    lex: tuple[LexConcept, ...]
    """Lexicon concepts."""
    size: int
    """Rough word count: Latin words plus half the runes of each CJK run (rounded up)."""


def _lexicon_maps() -> tuple[dict[str, int], dict[str, int], int]:
    cjk: dict[str, int] = {}
    eng: dict[str, int] = {}
    longest = 1
    for gi, (cjk_forms, en_forms) in enumerate(LEXICON):
        for f in cjk_forms:
            if all(is_cjk(c) for c in f):
                cjk.setdefault(f, gi)
                longest = max(longest, len(f))
            else:
                eng.setdefault(to_lower(f), gi)
        for f in en_forms:
            eng.setdefault(to_lower(f), gi)
    return cjk, eng, longest


_LEX_CJK, _LEX_EN, _LEX_LONGEST = _lexicon_maps()


def _group_forms(gi: int) -> list[str]:
    cjk_forms, en_forms = LEXICON[gi]
    return [*cjk_forms, *en_forms]


@lru_cache(maxsize=512)
def plan_query(query: str, terms: tuple[str, ...]) -> QueryPlan:
    """Analyse a query once (cached)."""
    seg_of: dict[str, tuple[str, ...]] = {}
    latin_words: list[str] = []
    for m in _WORD.finditer(query):
        word = m.group()
        low = to_lower(word)
        latin_words.append(low)
        seg_of.setdefault(low, tuple(segments(word)))
    term_segments = tuple(seg_of.get(t, ()) for t in terms)
    runs = tuple(m.group() for m in _CJK_RUN.finditer(query))

    found: dict[int, str] = {}
    for run in runs:
        i = 0
        while i < len(run):
            for size in range(min(_LEX_LONGEST, len(run) - i), 0, -1):
                gi = _LEX_CJK.get(run[i : i + size])
                if gi is not None and size >= 1:
                    found.setdefault(gi, run[i : i + size])
                    i += size
                    break
            else:
                i += 1
    i = 0
    while i < len(latin_words):
        if i + 1 < len(latin_words):
            pair = f"{latin_words[i]} {latin_words[i + 1]}"
            gi = _LEX_EN.get(pair)
            if gi is not None:
                found.setdefault(gi, pair)
                i += 2
                continue
        gi = _LEX_EN.get(latin_words[i])
        if gi is not None:
            found.setdefault(gi, latin_words[i])
        i += 1
    lex: list[LexConcept] = []
    for gi, src in found.items():
        src_terms = tuple(dict.fromkeys(tokens(src)))
        alts = []
        for form in _group_forms(gi):
            if to_lower(form) == src:
                continue
            toks = tuple(dict.fromkeys(tokens(form)))
            if toks and toks != src_terms:
                alts.append((form, toks))
        if alts:
            lex.append(LexConcept(src, src_terms, tuple(alts)))
    size = len(latin_words) + sum((len(r) + 1) // 2 for r in runs)
    return QueryPlan(term_segments=term_segments, cjk_runs=runs, lex=tuple(lex), size=size)
