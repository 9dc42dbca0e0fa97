"""Per-fact analysis shared by enhanced recall and the subject/topic resolver.

:func:`fact_fields` reads a fact once (memoised per fact object, and on disk for one-shot
processes through :data:`~.memo.FACT_MEMO`) into the terms of its fields (see
:mod:`reasonix_tui.core.lang.terms`):

* ``label`` — name, title, keywords and subject key (what the fact is *about*);
* ``desc`` — description;
* ``body`` — body;
* ``sources`` — for translated keys, the Chinese word each came from (for traces);
* ``cues`` — per clause that states a replacement ("X was shut down", "不再使用 X",
  "switched from X", "not X"), the clause's keys and whether the cue is strong.

:func:`fact_vector` is the fact's meaning vector (float16 on disk), memoised the same way.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

import numpy as np

from ..store.model import Fact
from .memo import FACT_MEMO

__all__ = [
    "FactFields",
    "fact_fields",
    "fact_vector",
    "fact_vectors",
    "topic_vector",
    "zh_cue",
    "ZH_CUE_VERBS",
    "meaning_text",
]

ANALYSED_CHARS = 32_000
"""How much of a description or body the enhanced channels read. A fact is a few hundred
characters, rarely a few thousand; a megabyte body (an approved paste) would otherwise cost
seconds of analysis on every index build while adding nothing a query could use."""

_STRONG_EN = re.compile(
    r"\b(?:replaced|superseded|deprecated|retired|abandoned|migrated|switched|decommissioned|sunset|sunsetted|"
    r"removed|dropped|ditched|swapped|discontinued|phased\s+out|no\s+longer|instead\s+of|in\s+favou?r\s+of|"
    r"moved\s+(?:away\s+)?from|moved\s+(?:[\w./-]+\s+){0,3}(?:to|onto|over\s+to)|shut\s+down|turned\s+off|switched\s+off|is\s+gone|are\s+gone|got\s+rid\s+of|(?<=\bthe\s)(?:old|former|legacy|previous))\b",
    re.I,
)
"""English replacement language: active and passive past forms and fixed phrases ("moved to
X" with or without an object between; "the old / former / legacy X" names the thing
replaced)."""
_CHANGE = re.compile(
    r"\b(?:(?:turned|switched|shut)\s+(?:[\w./-]+\s+){1,2}(?:off|down)|as\s+of|starting\s+(?:with|from))\b"
    r"|\bsince\s+(?=v?\d|(?-i:[A-Z][a-z]+)(?:\s+\d{1,4})?(?:,|$))"
    r"|[自从][^，。；！？\n]{1,8}?(?:开始|起)",
    re.I,
)
"""A change stated without a replacement verb: a separable phrasal verb with its object
between ("turned Celery off"), a date or version from which something holds ("as of the
October upgrade", "starting with v3", "since March," or "since 2.0" — not "since Redis is …", "从十月起", "自 4 月起", "从九月份开始"). What the clause names is kept (it is the thing that
changed), but for the phrase's own words."""
_NEG = re.compile(r"\b(?:not|no|never|don'?t|do\s+not|must\s+not|rather\s+than|avoid)\b", re.I)
"""Words that reject an alternative ("use pnpm, not npm", "no feat: prefixes here", "don't run
the full suite", "black is not installed"): a weak cue. The rejected thing is named in the
clause (before or after the negation)."""
_ZH_REJECT = re.compile(
    r"^(?:don't|do not|must not|need not|should not|by no means|to (?:prohibit|forbid|ban|avoid))\b"
)
"""A Chinese word rejects an alternative when one of its CC-CEDICT senses reads so (别 "don't
...!", 不要 "must not", 不用 "need not", 禁止 "to prohibit", 避免 "to avoid")."""
ZH_CUE_VERBS = frozenset(
    "replac supers deprec retire abando migrat switch decomm discon stop elimin discar exchan offlin substi chang remov".split()
)
"""Keys of the English verbs that make a Chinese word a replacement cue when one of its
CC-CEDICT senses is "to <verb> ..." (弃用 "to stop using", 改用 "to switch to", 下线 "to go
offline", 迁移 "to migrate") or says "no longer" (不再)."""
_CLAUSES = re.compile(r"[.;:!?\n。；：！？，,、()（）]+")


@dataclass(frozen=True, slots=True)
class FactFields:
    """The analysed fields of one fact."""

    label: tuple[tuple[str, int], ...]
    desc: tuple[tuple[str, int], ...]
    body: tuple[tuple[str, int], ...]
    sources: tuple[tuple[str, str], ...]
    cues: tuple[tuple[tuple[tuple[str, str], ...], bool], ...]
    """Replacement clauses: their ``(key, surface)`` terms and whether the cue is strong."""
    length: int

    def keys(self) -> set[str]:
        """Every key of every field."""
        return {k for k, _ in self.label} | {k for k, _ in self.desc} | {k for k, _ in self.body}

    def label_keys(self) -> set[str]:
        """Keys of name/title/keywords/subject and description (what the fact is about)."""
        return {k for k, _ in self.label} | {k for k, _ in self.desc}


def _count(terms: Any) -> tuple[tuple[str, int], ...]:
    return tuple(Counter(t.key for t in terms).items())


@lru_cache(maxsize=8192)
def zh_cue(word: str) -> bool:
    """True when a Chinese word states a replacement (see :data:`ZH_CUE_VERBS`)."""
    from ..lang import chinese, en_key

    raw = chinese.load_dictionary().get(word, "")
    if "no longer" in raw or "instead" in raw:
        return True
    for sense in raw.split("/"):
        m = _TO_VERB.match(sense.strip().lower())
        if m and en_key(m.group(1)) in ZH_CUE_VERBS and m.group(2) not in ("on", "off", "up", "in"):
            return True
        if m and m.group(2) and en_key(m.group(2)) == "offlin":  # "to go offline"
            return True
        if m and m.group(1) == "turn" and m.group(2) == "into" and len(word) > 1:  # 改成 "to turn into (sth else)"
            return True
        if m and (m.group(1), m.group(2)) in _RID:  # 撤掉 "to throw out", 干掉 "to get rid of"
            return True
    return False


@lru_cache(maxsize=8192)
def zh_reject(word: str) -> bool:
    """True when a Chinese word rejects an alternative (see :data:`_ZH_REJECT`)."""
    from ..lang import chinese

    raw = chinese.load_dictionary().get(word, "")
    return any(_ZH_REJECT.match(sense.strip().lower()) for sense in raw.split("/"))


_RID = frozenset({("throw", "out"), ("throw", "away"), ("get", "rid"), ("phase", "out"), ("take", "down")})
"""Phrasal senses that remove something (the English side's "got rid of", "phased out")."""
_TO_VERB = re.compile(r"to (?:\([^)]*\) )?([a-z]+)(?: ([a-z]+))?")
_PAREN = re.compile(r"\([^)]*\)")


@lru_cache(maxsize=8192)
def zh_negation(word: str) -> bool:
    """True when a Chinese word rejects (:func:`zh_reject`) or negates: one of its CC-CEDICT
    senses is a short negation (从不 "never", 未 "not yet", 绝不 "in no way"). Such a word is
    the cue of a rejecting clause, never the thing it rejects."""
    from ..lang import chinese

    if zh_reject(word):
        return True
    raw = chinese.load_dictionary().get(word, "")
    for sense in raw.split("/"):
        sense = _PAREN.sub(" ", sense).strip().lower()
        if sense and len(sense.split()) <= 3 and _NEG.search(sense):
            return True
    return False


def _negation_keys(clause: str, words: list[str]) -> set[str]:
    """The keys of a clause's own negation words ("not", "never", "rather than", 从不, 别): a
    rejecting clause's cue, never what it rejects ("never" in "never npm" is not a thing another
    fact can be rejected for)."""
    from ..lang import analyze

    keys = {t.key for m in _NEG.finditer(clause) for t in analyze(m.group(0), index=False)}
    return keys | {"z:" + w for w in words if zh_negation(w)}


def _common_char(key: str) -> bool:
    """A common single Chinese character (到 "to", 进 "enter", 用 "use"): grammar around the
    thing a clause replaces, never that thing ("迁移到 Kafka" does not say *to* was replaced) —
    the same rule as for a query's words (:data:`~..lang.terms.CONTENT_PRIOR`)."""
    from ..lang.prior import word_prior
    from ..lang.terms import CONTENT_PRIOR

    return key.startswith("z:") and len(key) == 3 and word_prior(key[2:]) < CONTENT_PRIOR


_NEGATED_EN = re.compile(
    r"\b(?:not|never|cannot|can't|won't|isn't|aren't|wasn't|weren't|hasn't|haven't)\s+(?:be\s+|been\s+|yet\s+)?$", re.I
)


def _negated_cues(clause: str, words: list[str]) -> bool:
    """Whether the clause's replacement cues are all negated: an English replacement phrase
    right after "not" / "never" / "cannot" ("is not deprecated"), a Chinese cue word right
    after a negation (不能代替 "cannot replace", 没有迁移). Such a clause says nothing was
    replaced."""
    en = list(_STRONG_EN.finditer(clause))
    zh = [i for i, w in enumerate(words) if zh_cue(w)]
    if not en and not zh:
        return False
    return all(_NEGATED_EN.search(clause[: m.start()]) for m in en) and all(
        i > 0 and zh_negation(words[i - 1]) for i in zh
    )


def _clause_cues(text: str) -> list[tuple[tuple[tuple[str, str], ...], bool]]:
    from ..lang import analyze, chinese, en_key

    out = []
    for clause in _CLAUSES.split(text):
        clause = clause.strip()
        if not clause:
            continue
        terms = analyze(clause, index=False)
        words = [w for run in chinese.han_runs(clause) for w in chinese.segment(run)]
        cue_words = {"z:" + w for w in words if zh_cue(w)}
        if _negated_cues(clause, words):
            continue  # "这不能代替人工 review", "is not deprecated": no replacement, no rejection
        strong = bool(_STRONG_EN.search(clause)) or bool(cue_words) or bool(_CHANGE.search(clause))
        weak = not strong and (_NEG.search(clause) is not None or any(zh_reject(w) for w in words))
        if strong or weak:
            cue_words |= _negation_keys(clause, words)
            said = {en_key(w.lower()) for w in _STRONG_EN.findall(clause) for w in w.split()}
            said |= {en_key(m.group(0).split()[0].lower()) for m in _CHANGE.finditer(clause) if m.group(0).isascii()}
            said |= {en_key(m.group(0).split()[-1].lower()) for m in _CHANGE.finditer(clause) if m.group(0).isascii()}
            own = tuple(
                {
                    t.key: (t.key, t.source)
                    for t in terms
                    if not t.key.startswith("t:")
                    and t.key not in cue_words
                    and not (t.key.startswith("w:") and t.key[2:] in said)
                    and not _common_char(t.key)
                }.values()
            )
            if own:
                out.append((own, strong))
    return out


def _compute(fact: Fact) -> FactFields:
    from ..lang import analyze

    label_text = "\n".join(
        (fact.name.replace("-", " "), fact.title, fact.keywords, fact.subject_key.replace(".", " ").replace("_", " "))
    )
    desc_text, body_text = fact.description[:ANALYSED_CHARS], fact.body[:ANALYSED_CHARS]
    label = analyze(label_text)
    desc = analyze(desc_text)
    body = analyze(body_text)
    sources: dict[str, str] = {}
    for t in (*label, *desc, *body):
        if t.key.startswith("t:"):
            sources.setdefault(t.key, t.source)
    cues = _clause_cues(desc_text + "\n" + body_text)
    return FactFields(
        label=_count(label),
        desc=_count(desc),
        body=_count(body),
        sources=tuple(sources.items()),
        cues=tuple(cues),
        length=len(label) + len(desc) + len(body),
    )


def _encode(f: FactFields) -> tuple[Any, ...]:
    return (f.label, f.desc, f.body, f.sources, f.cues, f.length)


def _decode(v: Any) -> FactFields:
    label, desc, body, sources, cues, length = v
    return FactFields(
        tuple(map(tuple, label)),
        tuple(map(tuple, desc)),
        tuple(map(tuple, body)),
        tuple(map(tuple, sources)),
        tuple((tuple(map(tuple, k)), bool(s)) for k, s in cues),
        int(length),
    )


FACT_MEMO.register_codec("fields", _encode, _decode)
FACT_MEMO.register_codec(
    "meaning", lambda v: v.astype(np.float16).tobytes(), lambda b: np.frombuffer(b, dtype=np.float16).astype(np.float32)
)
# in memory only: a few change statements per store, embedded in microseconds; a patched
# one-shot index never reads the memo on disk for them
FACT_MEMO.register_transient("topic-meaning")


def fact_fields(fact: Fact) -> FactFields:
    """The analysed fields of ``fact`` (memoised)."""
    return FACT_MEMO.get(fact, "fields", _compute)  # type: ignore[no-any-return]  # the memo holds what _compute returns


def meaning_text(fact: Fact) -> str:
    """What the meaning channel reads of a fact: title, description and body (bounded; the
    model reads only its first tokens anyway)."""
    return "\n".join(
        (fact.title or fact.name.replace("-", " "), fact.description[:ANALYSED_CHARS], fact.body[:ANALYSED_CHARS])
    )


def _half(v: np.ndarray) -> np.ndarray:
    """Vectors at the precision they are kept on disk, so a memoised and a fresh vector agree."""
    return v.astype(np.float16).astype(np.float32)


def _vector(fact: Fact) -> np.ndarray:
    from ..lang import embed

    return _half(embed([meaning_text(fact)])[0])


def fact_vector(fact: Fact) -> np.ndarray:
    """The fact's meaning vector (unit length, float32; memoised)."""
    return FACT_MEMO.get(fact, "meaning", _vector)  # type: ignore[no-any-return]  # the memo holds what _vector returns


def fact_vectors(facts: list[Fact]) -> np.ndarray:
    """Vectors of many facts; the ones not memoised yet are embedded in one batch."""
    from ..lang import embed

    missing = [f for f in facts if not FACT_MEMO.peek(f, "meaning")]
    if missing:
        vecs = _half(embed([meaning_text(f) for f in missing]))
        for f, v in zip(missing, vecs):
            FACT_MEMO.put(f, "meaning", v)
    if not facts:
        return np.zeros((0, 256), dtype=np.float32)
    return np.stack([fact_vector(f) for f in facts]).astype(np.float32)


def _without_cues(text: str) -> str:
    """``text`` without its replacement words (the verb of each English replacement phrase,
    each Chinese cue word): what it is about, not that it changed."""
    from ..lang import chinese

    text = _STRONG_EN.sub(lambda m: " ".join(m.group(0).split()[1:]), text)
    out = []
    for piece in re.split(r"([\u3400-\u9fff]+)", text):
        if chinese.han_runs(piece) == [piece]:
            piece = " ".join(w for w in chinese.segment(piece) if not zh_cue(w))
        out.append(piece)
    return "".join(out)


def _topic_vector(fact: Fact) -> np.ndarray:
    from ..lang import embed

    return _half(embed([_without_cues(meaning_text(fact))])[0])


def topic_vector(fact: Fact) -> np.ndarray:
    """The meaning vector of a fact that states a change, read without its replacement words
    ("迁移到 Kafka" glossed as "migrate … Kafka" is otherwise close to any fact about
    migrations; memoised). The caller knows which facts state one (it does not analyse the
    fact again: a rebuild after one edit analyses that fact only)."""
    return FACT_MEMO.get(fact, "topic-meaning", _topic_vector)  # type: ignore[no-any-return]  # the memo holds what _topic_vector returns
