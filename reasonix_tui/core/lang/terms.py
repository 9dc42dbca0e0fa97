"""Text → matching terms, the one analysis every language-aware channel shares.

A :class:`Term` is a key in one of three spaces, with the surface form it came from:

* ``w:<key>`` — an English word by its stem key (:func:`~.english.en_key`); also the
  segments of code identifiers (``MaxOpenConns`` → ``w:max``, ``w:open``, ``w:conn``);
* ``x:<token>`` — a token written with digits, ``_`` or inner capitals, kept whole
  (``checkout_v2``, ``5433``, ``maxopenconns``);
* ``z:<word>`` — a Chinese word (jieba), or a bigram of a kana/hangul run;
* ``t:<key>`` — an English key reached by translating a Chinese word through CC-CEDICT
  (``translated`` is set and ``source`` names the Chinese word);
* ``f:<word>`` — the first word of a file name (``.nvmrc``, ``tsconfig.json``), which a
  query word may begin (a query alternative ``^f:<word>`` is a prefix search).

Function words (English closed class, Chinese grammatical words) yield no term.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import Any

import regex

from . import chinese
from .english import FUNCTION_WORDS, agent_base, en_key
from .lexicon import BROADER, FORM, SYNONYM, related
from .lexicon import DERIVED as DERIVED_REL
from .prior import COMPOUND_PART_COUNT, COMPOUND_PART_MIN, compound_parts, gloss_count, word_known, word_prior, zipf

__all__ = [
    "Term",
    "analyze",
    "query_units",
    "QueryUnit",
    "gloss_text",
    "identifier_segments",
    "er_base",
    "noun_base",
    "derived_base",
]

_RUNS = regex.compile(
    r"(?P<han>[\p{Han}]+)|(?P<kana>[\p{Hiragana}\p{Katakana}\p{Hangul}ー]+)|(?P<word>[[\p{L}\p{Nd}_]--[\p{Han}\p{Hiragana}\p{Katakana}\p{Hangul}]]+)",
    flags=regex.V1,
)
_SEG = regex.compile(r"\p{Lu}+(?=\p{Lu}\p{Ll})|\p{Lu}?\p{Ll}+|\p{Lu}+|\p{Nd}+|[\p{L}--[\p{Lu}\p{Ll}]]+", flags=regex.V1)


@dataclass(frozen=True, slots=True)
class Term:
    """One matching term."""

    key: str
    """``w:``/``x:``/``z:``/``t:`` + key."""
    source: str
    """The surface form (for a translated term: the Chinese word)."""


def identifier_segments(word: str) -> list[str]:
    """Lowercased segments of a code identifier (``MaxOpenConns`` → max, open, conns), or
    ``[]`` for a plain word."""
    if "_" not in word and (word.islower() or word.isupper()) and not any(c.isdigit() for c in word):
        return []
    parts: list[str] = []
    for piece in word.split("_"):
        parts.extend(_SEG.findall(piece))
    segs = [p.lower() for p in parts if p]
    return segs if len(segs) >= 2 else []


_ACRONYM_PLURAL = regex.compile(r"[A-Z]{2,}s")
"""An acronym's plural (APIs, PRs, ADRs, PDFs): the word as written and its acronym, not an
identifier cut at its inner capital ("ADRs" is no "ad" + "rs")."""


def _acronym(word: str) -> str:
    """The acronym (lowercased) an acronym's plural is written with, or ``""``."""
    return word[:-1].lower() if word[-1:] == "s" and _ACRONYM_PLURAL.fullmatch(word) else ""


def _is_identifier(word: str) -> bool:
    """Written like a code identifier: an underscore, a digit, or an inner capital in a word
    that also has lower-case letters."""
    if word.isalpha() and (word.islower() or word.isupper() or word[1:].islower()):
        return False  # the common case, decided by three C-level scans
    return (
        "_" in word
        or any(c.isdigit() for c in word)
        or any(c.isupper() for c in word[1:])
        and any(c.islower() for c in word)
    )


@lru_cache(maxsize=65536)
def _word_terms(word: str) -> tuple[Term, ...]:
    """The terms of one word (memoised: a store repeats its words)."""
    low = word.lower()
    acronym = _acronym(word)
    if acronym:  # "PRs": the word as written, and "PR"
        return (Term("x:" + low, word), Term("w:" + en_key(acronym), acronym))
    if _is_identifier(word):
        out = [Term("x:" + low, word)]
        for seg in identifier_segments(word):
            if seg not in FUNCTION_WORDS and not seg.isdigit():
                out.append(Term("w:" + en_key(seg), seg))
        return tuple(out)
    if low in FUNCTION_WORDS or len(low) < 2 and not low.isdigit():
        return ()
    return (Term("w:" + en_key(low), low), *(Term("w:" + key, low) for key in word_variants(low)))


_VOWELS_Y = frozenset("aeiouy")

ER_MEANING = 0.40
"""Cosine (shipped meaning model) a word in -er needs with its base to be read as derived
from it: "tracker"/"track" 0.49, "linter"/"lint" 0.46; "docker"/"dock" 0.27,
"folder"/"fold" 0.20."""


def _er_bases(w: str) -> tuple[str, ...]:
    """The bases a word in -er may be spelled from: "track" + er, "parse" − e + er. A
    one-syllable body ending in a single vowel and a single consonant (tim-er, fin-er) lost
    a silent e: English doubles that consonant otherwise (run → runner)."""
    body = w[:-2]
    vowels = [c in _VOWELS_Y for c in body]
    one_syllable = sum(1 for i, v in enumerate(vowels) if v and (i == 0 or not vowels[i - 1])) == 1
    if one_syllable and not vowels[-1] and body[-1] not in "wxy" and vowels[-2] and not vowels[-3]:
        return (body + "e",)
    return (body, body + "e")


@lru_cache(maxsize=65536)
def er_base(word: str) -> str:
    """The word a lowercased word in -er (or -ers) is derived from, where Snowball keeps
    the two apart because the base is short (tracker/track, linter/lint, parser/parse,
    bundler/bundle, seeder/seed; also comparatives: cheaper/cheap, which
    :func:`derived_base` leaves apart), or ``""``.

    Read from shipped resources, not a list: the base is a word CC-CEDICT's English glosses
    use (not a function word); the derived word is not more frequent than its base
    (wordfreq: "number" is not from "numb", "mother" not from "moth"); and the shipped
    meaning model puts the two close (:data:`ER_MEANING`: "docker" is not from
    "dock", "folder" not from "fold"). Measured over every -er word of wordfreq's English
    list (see docs/recall.md)."""
    w = word[:-1] if word.endswith("ers") else word
    if len(w) < 5 or not w.endswith("er") or not w.isalpha() or not w.isascii() or agent_base(w):
        return ""
    key = en_key(w)
    bases = [b for b in _er_bases(w) if len(b) >= 3 and b not in FUNCTION_WORDS and gloss_count(b) and en_key(b) != key]
    if not bases:
        return ""
    near = _closeness(w, bases)
    if near is None:
        return ""  # no meaning model: keep the two apart
    # the more common spelling ("change", not "chang"); between equals, the closer one
    (freq, cos), base = max(((zipf(b), c), b) for c, b in near)
    return base if zipf(w) <= freq and cos >= ER_MEANING else ""


def _closeness(word: str, bases: list[str]) -> list[tuple[float, str]] | None:
    """``(cosine, base)`` of ``word`` with each candidate base in the shipped meaning model
    (each embedded as a lone word), or ``None`` when the model cannot be loaded."""
    try:
        from .meaning import model

        vecs = model().embed([" " + b for b in (word, *bases)])
    except (ImportError, OSError, ValueError):
        return None
    return [(float(vecs[0] @ v), b) for b, v in zip(bases, vecs[1:], strict=True)]


NOUN_SUFFIXES = (
    ("ication", "y"),
    ("ision", "ide"),
    ("usion", "ude"),
    ("ension", "end"),
    ("ansion", "and"),
    ("ention", "ain"),
    ("ention", "end"),
    ("ission", "it"),
    ("olution", "olve"),
    ("uction", "uce"),
    ("umption", "ume"),
    ("orption", "orb"),
    ("iption", "ibe"),
    ("eption", "eive"),
    ("enance", "ain"),
)
"""English's Latin noun endings whose verb is spelled otherwise (notification/notify,
decision/decide, extension/extend, permission/permit, resolution/resolve,
reduction/reduce, maintenance/maintain): Snowball keeps such pairs apart, while it gives
the regular ones (deletion, migration, deployment, performance) their verb's stem."""


@lru_cache(maxsize=65536)
def noun_base(word: str) -> str:
    """The verb a lowercased noun (or its plural) in one of :data:`NOUN_SUFFIXES` is
    derived from, or ``""``: the verb is a word CC-CEDICT's glosses use, and the shipped
    meaning model puts the two close (:data:`ER_MEANING`: "decision"/"decide" 0.66,
    "notification"/"notify" 0.71; not "replication"/"reply" 0.19, "contention"/"contain"
    0.23, "commission"/"commit" 0.13, "reception"/"receive" 0.20). Measured over every such
    word of wordfreq's English list (see docs/recall.md).

    Used one way only: a query's noun meets a fact's verb ("what's the retention on scan
    events?" → "retained for 90 days"); a fact's noun is not indexed under its verb, since
    a turn built on a verb is often a request about nothing stored ("you decide" is not
    about the decision log)."""
    w = word[:-1] if word.endswith("s") else word
    if not w.isalpha() or not w.isascii():
        return ""
    key = en_key(w)
    bases = [
        b
        for b in dict.fromkeys(w[: -len(suf)] + rep for suf, rep in NOUN_SUFFIXES if w.endswith(suf))
        if len(b) >= 4 and b not in FUNCTION_WORDS and gloss_count(b) and en_key(b) != key
    ]
    if not bases:
        return ""
    near = _closeness(w, bases)
    if near is None:
        return ""  # no meaning model: keep the two apart
    cos, base = max(near)
    return base if cos >= ER_MEANING else ""


MENT_MEANING = 0.6
"""Cosine (shipped meaning model) a noun in -ment needs with the verb it spells to be read
as derived from it: "payment"/"pay" 0.72, "settlement"/"settle" 0.74, "shipment"/"ship"
0.95, "replacement"/"replace" 0.77; not "basement"/"base" 0.27, "statement"/"state" 0.08,
"placement"/"place" 0.35, "department"/"depart" 0.51, "apartment"/"apart" 0.54."""


@lru_cache(maxsize=65536)
def ment_noun(verb: str) -> str:
    """The key of the noun in -ment a lowercased English verb makes, where Snowball keeps
    the two apart (pay/payment, settle/settlement: the noun's R2 region is too short for it
    to strip -ment), or ``""``: the noun is an English word (wordfreq), and the shipped
    meaning model puts it close to the verb (:data:`MENT_MEANING`).

    Used for a Chinese word's English glosses only (支付 "to pay" meets "the payments
    service", 结算 "to settle" meets "the settlement report"): a translation gives the verb
    where the English fact names the thing done."""
    if len(verb) < 3 or not verb.isalpha() or not verb.isascii() or verb in FUNCTION_WORDS:
        return ""
    noun = verb + "ment"
    key = en_key(noun)
    if key == en_key(verb) or zipf(noun) <= 0:
        return ""
    near = _closeness(noun, [verb])
    return key if near is not None and near[0][0] >= MENT_MEANING else ""


LEXICALISED = 10
"""An agent noun CC-CEDICT's glosses use this often is a word of its own ("letter",
"printer", "server"), not read as derived."""


def comparative(low: str) -> bool:
    """Whether a lowercased word in -er is a comparative: its superlative is a word
    (faster/fastest, bigger/biggest, clearer/clearest in wordfreq or the glosses). Over
    wordfreq's -er words (Zipf ≥ 3) that :func:`derived_base` would join, this picks out the
    41 comparatives and no agent noun (tracker, tester, loader…: no "trackest")."""
    sup = low[:-2] + "est"
    return low.endswith("er") and (zipf(sup) > 0 or gloss_count(sup) > 0)


@lru_cache(maxsize=65536)
def derived_base(low: str) -> str:
    """The key of the word a plain English word (lowercased) is derived from, where
    Snowball keeps them apart (logger → log, tracker → track, linter → lint), or ``""``.
    Not a comparative: "make it faster", "a shorter summary" are not about something
    fast or short (turns asking for a change are usually about the answer)."""
    if gloss_count(low.rstrip("s")) >= LEXICALISED or comparative(low.rstrip("s")):
        return ""
    base = agent_base(low) or er_base(low)
    return en_key(base) if base and en_key(base) != en_key(low) else ""


@lru_cache(maxsize=65536)
def word_variants(low: str) -> tuple[str, ...]:
    """Further keys of a plain English word (lowercased): the verb of an agent noun
    Snowball keeps apart (logger → log, serializer → serial, tracker → track) and the parts of a closed
    compound (deadletter → dead, letter; healthcheck → health, check)."""
    if not low.isalpha():
        return ()
    out: list[str] = []
    base = derived_base(low)
    if base:
        out.append(base)
    out += [en_key(p) for p in compound_parts(low) if p not in FUNCTION_WORDS]
    return tuple(dict.fromkeys(out))


def _han_terms(run: str, out: list[Term], index: bool) -> None:
    words = chinese.segment(run)
    if index:  # the dictionary words inside long words too (数据库 → 数据), never junk pieces (据库)
        whole = set(words)
        words = tuple(w for w in chinese.segment_all(run) if w in whole or chinese.in_dictionary(w))
    for w in words:
        if chinese.is_function_word(w):
            continue
        out.append(Term("z:" + w, w))
        keys, _ = chinese.gloss_keys(w)
        for k in keys:
            out.append(Term("t:" + k, w))


def _file_stem(text: str, m: Any) -> str:
    """The lowercased first word of a file name (``.nvmrc`` → nvmrc, ``tsconfig.json`` →
    tsconfig), or ``""`` when the word at ``m`` does not begin one."""
    start, end = m.span()
    dotfile = start > 0 and text[start - 1] == "." and (start < 2 or not text[start - 2].isalnum())
    named = (
        end + 1 < len(text)
        and text[end] == "."
        and text[end + 1].isalpha()
        and (start == 0 or text[start - 1] not in "./")
    )
    return m.group("word").lower() if dotfile or named else ""


@lru_cache(maxsize=512)
def _analyze(text: str, index: bool) -> tuple[Term, ...]:
    out: list[Term] = []
    for m in _RUNS.finditer(text):
        kind = m.lastgroup
        if kind == "word":
            word = m.group()
            out += _word_terms(word)
            stem_ = _file_stem(text, m) if index else ""
            if len(stem_) >= 3 and stem_.isalpha():
                out.append(Term("f:" + stem_, word))
        elif kind == "han":
            _han_terms(m.group(), out, index)
        else:
            out.extend(Term("z:" + w, w) for w in kana_words(m.group()))
    return tuple(out)


_KANA_PARTS = regex.compile(
    r"(?P<kata>[\p{Katakana}ー]+)|(?P<hira>\p{Hiragana}+)|(?P<other>[^\p{Katakana}\p{Hiragana}ー]+)", flags=regex.V1
)


@lru_cache(maxsize=8192)
def kana_words(run: str) -> tuple[str, ...]:
    """The words of a kana/hangul run. Japanese writes content words in kanji or katakana
    and grammar in hiragana (particles, endings: の, を, します, ください): a katakana run is
    one word (a loanword: デプロイ, サーバー), a hiragana run says nothing. Hangul (no
    dictionary here) falls back to overlapping bigrams."""
    out: list[str] = []
    for m in _KANA_PARTS.finditer(run):
        if m.group("kata") is not None:
            word = m.group("kata")
            if word.strip("ー"):
                out.append(word)
        elif m.group("other") is not None:
            other = m.group("other")
            out.extend([other] if len(other) == 1 else [other[i : i + 2] for i in range(len(other) - 1)])
    return tuple(out)


def analyze(text: str, *, index: bool = True) -> tuple[Term, ...]:
    """Terms of ``text`` in order, duplicates kept (term frequency). ``index=True`` adds the
    dictionary words inside long Chinese words (jieba search mode)."""
    return _analyze(text, index)


@dataclass(frozen=True, slots=True)
class QueryUnit:
    """One content word of a query, with the keys that count as matching it."""

    label: str
    """The word as written (lowercased)."""
    alternatives: tuple[tuple[str, float, str], ...]
    """``(key, weight, channel)``; channel is ``lexical``, ``translated`` or ``related``
    (an English word through Open English WordNet: :mod:`.lexicon`)."""
    distinctive: bool = False
    """Written like an identifier or a number."""
    prior: float = 1.0
    """How much the word says on its own (:func:`~.prior.word_prior`)."""
    shown: tuple[str, ...] = ()
    """Per alternative, the word a person reads (a gloss for a translated key)."""
    known: bool = False
    """The prior rests on evidence (:func:`~.prior.word_known`), not on the word being unknown."""

    def show(self, i: int) -> str:
        """The word behind alternative ``i``."""
        if i < len(self.shown) and self.shown[i]:
            return self.shown[i]
        return self.alternatives[i][0].lstrip("&")[2:]


@lru_cache(maxsize=1024)
def query_units(query: str) -> tuple[QueryUnit, ...]:
    """The content words of a query and how each may be matched (a word counts once).

    An English word matches its key in a fact (``w:``) or, weaker, an English key
    translated from a fact's Chinese word (``t:``). A Chinese word matches itself (``z:``),
    weaker a dictionary word inside it, and, weaker, its English glosses (``w:``). An
    identifier matches itself whole, or all of its segments.
    """
    units: dict[str, QueryUnit] = {}
    for m in _RUNS.finditer(query):
        han, kana, word = m.group("han"), m.group("kana"), m.group("word")
        if word is not None:
            low = word.lower()
            acronym = _acronym(word)
            if acronym:  # "ADRs" as written, or the acronym ("ADR", "adr"): not "ad" + "rs"
                both = (("x:" + low, 1.0, "lexical"), ("w:" + en_key(acronym), 1.0, "lexical"))
                # written as is, an identifier (a fact saying "PRs" passes as on any name);
                # read as the acronym, the acronym's prior ("IDs" says as little as "id")
                units.setdefault(low, QueryUnit(low, both, True, word_prior(acronym), known=word_known(acronym)))
                continue
            if _is_identifier(word):
                alts: list[tuple[str, float, str]] = [("x:" + low, 1.0, "lexical")]
                segs = [en_key(s) for s in identifier_segments(word) if s not in FUNCTION_WORDS and not s.isdigit()]
                if len(segs) >= 2:  # MaxOpenConns meets max_open_conns and "max open conns"
                    alts.append(("&" + "&".join("w:" + s for s in dict.fromkeys(segs)), 0.9, "lexical"))
                units.setdefault(low, QueryUnit(low, tuple(alts), True, 1.0))
                continue
            if low in FUNCTION_WORDS or len(low) < 2 and not low.isdigit():
                continue
            k = en_key(low)
            alts = [("w:" + k, 1.0, "lexical"), ("t:" + k, TRANSLATED, "translated")]
            base = derived_base(low)
            if base:
                alts.append(("w:" + base, DERIVED, "lexical"))  # logger → log(ging), tracker → track
            noun = noun_base(low)  # a question's noun meets its verb: notifications → "we notify"
            if noun:
                alts.append(("w:" + en_key(noun), NOUN_VERB, "lexical"))
            parts = [en_key(p) for p in compound_parts(low) if p not in FUNCTION_WORDS]
            if len(parts) >= 2:  # deadletter meets "dead letter"
                alts.append(("&" + "&".join("w:" + p for p in parts), DERIVED, "lexical"))
            if len(low) >= 3 and low.isalpha():  # a tool's name begins its files: nvm → .nvmrc
                alts.append(("^f:" + low, FILE_PREFIX, "lexical"))
            words_shown = [""] * len(alts)
            if low.isalpha():  # the same idea in other words: bills → invoice, paid → pay
                taken = {a[0] for a in alts}
                # an everyday word ("keep", "work") has too many senses for its synonyms and
                # broader words; its own forms and derivations stay (ships → shipment)
                everyday = word_prior(low) < CONTENT_PRIOR
                for rk, rword, rel, _cos in related(low)[:MAX_RELATED]:
                    rprior = word_prior(rword)
                    if "w:" + rk in taken or rword in FUNCTION_WORDS or everyday and rel in (SYNONYM, BROADER):
                        continue
                    if rel == BROADER and rprior < CONTENT_PRIOR:
                        continue  # a broader word as common as "use" or "get" names no particular idea
                    taken.add("w:" + rk)
                    alts.append(("w:" + rk, RELATED_WEIGHTS[rel] * min(1.0, rprior / GLOSS_PRIOR), "related"))
                    words_shown.append(rword)
            units.setdefault(
                "w:" + k,
                QueryUnit(
                    low,
                    tuple(alts),
                    low.isdigit(),
                    word_prior(low),
                    tuple(words_shown) if any(words_shown) else (),
                    word_known(low),
                ),
            )
        elif han is not None:
            for w in chinese.segment(han):
                if chinese.is_function_word(w) or chinese.is_question_word(w):
                    continue
                prior = word_prior(w)
                if len(w) == 1 and prior < CONTENT_PRIOR:
                    continue  # a common single character (里, 要, 看) says nothing on its own
                alts = [("z:" + w, 1.0, "lexical")]
                if len(w) > 2:
                    alts += [("z:" + s, 0.7, "lexical") for s in chinese.segment_all(w) if s != w and len(s) > 1]
                keys, direct = chinese.gloss_keys(w)
                if len(w) == 1 and prior < RARE_CHAR and chinese.sense_count(w) != 1:
                    # a single character's senses are too many to translate it alone (慢 "slow" has
                    # one), unless most of them say the same (读 → read)
                    keys = chinese.dominant_keys(w)
                weight = TRANSLATED if direct else TRANSLATED * 0.7
                words = chinese.glosses(w) if direct else ()
                shown = {en_key(g): g for g in reversed(words)}
                # a gloss as common as "time" or "one" carries less than a specific one
                alts += [("w:" + k, weight * min(1.0, word_prior(k) / GLOSS_PRIOR), "translated") for k in keys]
                for g in words:  # 支付 "to pay" → "payment", at a derivation's weight
                    noun = ment_noun(g)
                    if noun:
                        alts.append(("w:" + noun, weight * DERIVED, "translated"))
                        shown[noun] = g + "ment"
                if not direct:  # 单测 → 单元 + 测试: a fact holding a gloss of each part ("unit tests")
                    first, second = chinese.part_keys(w) or ((), ())
                    for a in first:
                        for b in second:
                            if a != b:
                                alts.append((f"&w:{a}&w:{b}", TRANSLATED, "translated"))
                                shown[f"{a}&w:{b}"] = f"{a} {b}"
                for acr in chinese.head_acronyms(w):  # 接口 → API (应用程序接口), weaker
                    alts.append(("w:" + acr, TRANSLATED * 0.7, "translated"))
                    shown[acr] = acr.upper()
                alts = list(dict.fromkeys(alts))
                units.setdefault(
                    "z:" + w,
                    QueryUnit(
                        w,
                        tuple(alts),
                        False,
                        prior * (SINGLE_CHAR if len(w) == 1 else 1.0),
                        tuple(shown.get(a[0][2:], "") for a in alts),
                        word_known(w),
                    ),
                )
        elif kana is not None:
            for g in kana_words(kana):
                units.setdefault("z:" + g, QueryUnit(g, (("z:" + g, 1.0, "lexical"),)))
    return tuple(units.values())


CONTENT_PRIOR = 0.5
"""A single Chinese character below this prior is no query word (里 "inside", 要 "want")."""
RARE_CHAR = 0.9
"""A single character is translated only when it is this rare (码 "code") or has a single
sense (慢 "slow"): a common one has too many senses ("钱" → money, a unit of weight, "one")."""
GLOSS_PRIOR = 0.3
"""A translated alternative weighs its full weight when its English gloss has at least this
prior, proportionally less below (今天 → "time", 钱 → "one" say little)."""
SINGLE_CHAR = 0.5
"""A single character's share of the query: its meaning depends on the words around it."""


TRANSLATED = 0.6
"""Weight of a match through the dictionary, relative to a real word match."""
MAX_RELATED = 24
"""Related words read per query word (synonyms first, then derivations, then broader or
narrower words, the closest by meaning first within each)."""
DERIVED = 0.9
"""Weight of a match through derivation (logger → log) or a compound's parts."""
RELATED_WEIGHTS = {FORM: DERIVED, SYNONYM: TRANSLATED, DERIVED_REL: TRANSLATED, BROADER: TRANSLATED * 0.7}
"""Weight of a match through Open English WordNet (:mod:`.lexicon`), by relation: an
irregular form's lemma (paid → pay) as a derivation Snowball misses; a synonym or a word of
the same family as a translation; a broader or narrower word less (a password is a kind of
secret, not every secret a password)."""
NOUN_VERB = TRANSLATED
"""Weight of a query noun's match through its verb (:func:`noun_base`: "notifications"
meets "we notify"): such a noun often has senses of its own (a screen's resolution, an
application), so it counts as a translation does (at the weight of a real match, "the
resolution of this photo is too low" passed on a fact saying an incident is resolved)."""
FILE_PREFIX = 0.8
"""Weight of a query word that begins a file name of a fact (``^f:nvm`` meets ``.nvmrc``:
configuration files are named after their tool — ``.eslintrc``, ``tsconfig.json``)."""


@lru_cache(maxsize=4096)
def shortened_form(short: str, gloss: str) -> bool:
    """Whether a fact's word ``short`` (lowercased; its matching key) may stand for the
    longer English gloss ``gloss`` it begins: a clipping — a word the dictionary's glosses
    use fewer than :data:`~.prior.COMPOUND_PART_COUNT` times, so not an English word of its
    own ("env" for "environment", "doc" for "document", "prod" for "produce") — or the
    first part of a closed compound whose rest is an English word ("gray" in "grayscale",
    "store" in "storehouse"). A word of its own that merely spells the gloss's beginning
    says something else: "app" is no form of "apple", "new" none of "news", "per" none of
    "period" (the dictionary glosses "app" itself: 应用 → app)."""
    gloss = gloss.lower()
    if len(short) >= len(gloss) or not gloss.startswith(short[:3]):
        return False
    if gloss_count(short) < COMPOUND_PART_COUNT:
        return True
    rest = gloss[len(short) :]
    return (
        gloss.startswith(short)
        and min(len(short), len(rest)) >= COMPOUND_PART_MIN
        and gloss_count(rest) >= COMPOUND_PART_COUNT
    )


def _abbreviated(word: str) -> tuple[str, ...]:
    """The first gloss of each of the two words a word without glosses of its own
    abbreviates (单测 → 单元测试 → "unit", "test"), or of the word itself when it has some
    (联调 → 联调联试 → "debugging"); ``()`` when it abbreviates nothing known."""
    full = chinese.expansion(word)
    if not full:
        return ()
    own = chinese.glosses(full)
    if own:
        return own
    halves = chinese.dictionary_cut(full) or (full[:2], full[2:])
    return tuple(g[0] for g in (chinese.glosses(h) for h in halves) if g)


def gloss_text(text: str, limit: int = 400) -> str:
    """``text`` with every Chinese word replaced by its first English glosses (for the
    meaning channel, whose model reads English)."""
    parts: list[str] = []
    for m in _RUNS.finditer(text):
        han, word = m.group("han"), m.group("word")
        if word is not None:
            parts.append(word)
        elif han is not None:
            for w in chinese.segment(han):
                if chinese.is_function_word(w):
                    continue
                g = chinese.glosses(w) or _abbreviated(w)
                parts.extend(g[:2])
        if len(parts) >= limit:
            break
    return " ".join(parts)
