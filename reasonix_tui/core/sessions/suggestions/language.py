"""Words of a statement, for merging candidates and naming them.

The language resources are the project's shared ones (:mod:`reasonix_tui.core.lang`:
Snowball stems, jieba segmentation, CC-CEDICT glosses, static embeddings); nothing here
has its own word lists beyond the function words below. Terms are weighted: concrete
things (inline code, hosts, paths, files, identifiers, versions) weigh most, tool names
next, content words least; function words never count.

* English words count by their stem key (``deploys`` meets ``deploy``).
* Chinese counts by jieba's words, and each word's CC-CEDICT glosses count as English
  keys at 0.8 (a translated match weighs less than a real one), so 回答简短 meets
  "keep answers short".
* A Chinese rule is named from the glosses of its words (``reply-brief``), never a hash.

When the shared language package is not installed, English words count by a light stem,
Chinese by character bigrams, and a Chinese rule is named from the concrete things it
names.
"""

from __future__ import annotations

import os
import re
from functools import lru_cache
from types import ModuleType
from typing import Any

from ...compat.tokenize import tokens
from .entities import Entity
from .sentences import has_cjk

__all__ = [
    "STOPWORDS",
    "stem",
    "content_words",
    "cjk_terms",
    "gloss_words",
    "merge_terms",
    "VALUE_WEIGHT",
    "configure",
    "available",
    "name_words",
    "entity_term",
    "save_memo",
    "segment_words",
]

STOPWORDS = frozenset(
    "a an the and or but if then so to of in on at by for with from into onto up out as is are was were be been "
    "being it its it's this that these those there here i you he she we they me my your our their us them do does "
    "did done not no yes can could would should will shall may might must have has had just also only very too "
    "please pls ok okay now than what which who whom whose when where why how all any some each every more most "
    "other such own same let lets get got gets make made need needs want like one two first next new old good "
    "fine sure right well way thing things about after before again over under off via per don't dont doesn't "
    "isn't aren't won't can't cannot always never use uses using used go goes going went anything everything "
    "something nothing whatever still already yet even ever much many lot lots bit really actually basically "
    "just thanks thank hey hi hello heads up fyi remember note reminder".split()
)
"""Function words (and the generic rule words every statement shares): never evidence."""

_ZH_STOP = frozenset(
    "的了是在和与及或也都就还要把被给让用对从到向以后以前我们你们他们这个那个这些那些一下一点什么怎么".replace(
        "", " "
    ).split()
)
_RULE_GLOSSES = frozenset(
    {
        "afterwards",
        "later",
        "after",
        "future",
        "always",
        "never",
        "must",
        "please",
        "bit",
        "little",
        "one",
        "dot",
        "point",
        "need",
        "every",
        "each",
        "all",
        "time",
        "times",
        "use",
        "using",
        "want",
        "hope",
        "again",
        "still",
        "also",
        "just",
        "only",
        "do",
        "make",
        "get",
        "give",
    }
)
"""Glosses that say how a rule is phrased, not what it is about (以后 → later): not name words."""


_CACHE_DIR: list[str] = []


@lru_cache(maxsize=1)
def _lang() -> ModuleType | None:
    """The shared package, imported on first use (it loads numpy; a listing from the result
    cache never needs it)."""
    try:
        from ... import lang
    except ImportError:
        return None
    if _CACHE_DIR:
        lang.configure(_CACHE_DIR[-1])
    return lang


def available() -> bool:  # noqa: D401 - a question
    """True when the shared language package is installed."""
    return _lang() is not None


def configure(cache_dir: str | os.PathLike[str]) -> None:
    """Let the segmenter keep its dictionary cache in ``cache_dir`` (a folder we own), from
    when the package is first used."""
    _CACHE_DIR.append(os.fspath(cache_dir))
    info = getattr(_lang, "cache_info", None)
    if info is not None and info().currsize:  # already imported: tell it now
        lang = _lang()
        if lang is not None:
            lang.configure(cache_dir)


@lru_cache(maxsize=8192)
def stem(word: str) -> str:
    """The matching key of an English word (Snowball stem; a light stem without it)."""
    lang = _lang()
    w = word.lower()
    if lang is not None:
        return str(lang.en_key(w))
    if len(w) <= 3 or not w.isalpha():
        return w
    for suffix, repl in (("ies", "y"), ("ing", ""), ("ed", ""), ("es", ""), ("s", "")):
        if w.endswith(suffix) and len(w) - len(suffix) >= 3:
            if suffix == "s" and w.endswith("ss"):
                return w
            return w[: -len(suffix)] + repl
    return w


_ASCII_WORD = re.compile(r"[A-Za-z][A-Za-z0-9]+")


def content_words(text: str) -> list[str]:
    """Stemmed English content words, in order."""
    out = []
    for w in _ASCII_WORD.findall(text):
        lw = w.lower()
        if lw in STOPWORDS or len(lw) < 2:
            continue
        out.append(stem(lw))
    return out


_HAN_RUN = re.compile(r"[\u3400-\u9fff\uf900-\ufaff]+")
_ZH_MAGIC = b"RXTSUGZ1"
_ZH_VERSION = 1
_ZH: dict[str, Any] = {"memo": None, "dirty": False, "path": ""}
"""What Chinese runs were found to say, kept between listings: run → ``((word, function word,
glosses, prior), …)``. A listing after new sessions then loads jieba and the dictionary
(about a second) only when a statement says something in Chinese no earlier one said."""


def _zh_stamp() -> tuple[Any, ...]:
    from ...store.sealed import source_stamp

    core = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    lang_dir = os.path.join(core, "lang")
    try:
        files = sorted(os.path.join(lang_dir, n) for n in os.listdir(lang_dir) if n.endswith(".py"))
    except OSError:
        files = []
    return (_ZH_VERSION, source_stamp(os.path.abspath(__file__), *files))


def _zh_memo() -> dict[str, tuple[tuple[str, bool, tuple[str, ...], float], ...]]:
    memo = _ZH["memo"]
    if memo is None:
        memo = {}
        if _CACHE_DIR:
            from ...store.sealed import read_sealed

            _ZH["path"] = os.path.join(_CACHE_DIR[-1], "suggestions-zh.marshal")
            data = read_sealed(_ZH["path"], _ZH_MAGIC)
            if type(data) is tuple and len(data) == 2 and data[0] == _zh_stamp() and isinstance(data[1], dict):
                memo = data[1]
        _ZH["memo"] = memo
    return memo  # type: ignore[no-any-return]  # the memo holds this mapping


def save_memo() -> None:
    """Write the Chinese analysis memo when this process added to it (sealed, 0600)."""
    if not _ZH["dirty"] or not _ZH["path"]:
        return
    from ...store.sealed import write_sealed

    try:
        write_sealed(_ZH["path"], _ZH_MAGIC, (_zh_stamp(), _ZH["memo"]))
        _ZH["dirty"] = False
    except (OSError, ValueError):
        pass


def _zh_run(run: str) -> tuple[tuple[str, bool, tuple[str, ...], float], ...]:
    """The words of a Han run with what the dictionary says of each (memoised on disk)."""
    memo = _zh_memo()
    hit = memo.get(run)
    if hit is not None:
        return hit
    lang = _lang()
    try:
        from ...lang.prior import word_prior
    except ImportError:  # an older package without priors
        word_prior = None  # type: ignore[assignment]  # optional in an older package
    out = []
    assert lang is not None  # callers ask only when the language resources load
    for w in lang.segment(run):
        fn = bool(lang.is_chinese_function_word(w))
        gl = () if fn else tuple(lang.glosses(w))
        prior = float(word_prior(w)) if word_prior is not None and len(w) >= 2 and not fn else 1.0
        out.append((w, fn, gl, prior))
    hit = tuple(out)
    if len(memo) < 200_000:
        memo[run] = hit
        _ZH["dirty"] = True
    return hit


def _zh_analysis(text: str) -> list[tuple[str, bool, tuple[str, ...], float]]:
    return [x for run in _HAN_RUN.findall(text) for x in _zh_run(run)]


def segment_words(text: str) -> list[str]:
    """The words of a Chinese text in order, function words included (characters without
    the package)."""
    if _lang() is None:
        return list(text)
    out: list[str] = []
    for piece in re.findall(r"[\u3400-\u9fff\uf900-\ufaff]+|[^\u3400-\u9fff\uf900-\ufaff]+", text):
        out += [w for w, _fn, _gl, _p in _zh_run(piece)] if _HAN_RUN.fullmatch(piece) else [piece]
    return out


def _zh_words(text: str) -> list[str]:
    return [w for w, fn, _gl, _prior in _zh_analysis(text) if not fn]


def cjk_terms(text: str) -> list[str]:
    """Chinese terms: jieba's words (without the package: overlapping character bigrams),
    function words left out."""
    if not has_cjk(text):
        return []
    if _lang() is not None:
        return [w for w in _zh_words(text) if not (set(w) <= _ZH_STOP)]
    out = []
    for t in tokens(text):
        if has_cjk(t) and not (set(t) <= _ZH_STOP) and not (len(t) == 2 and (t[0] in _ZH_STOP and t[1] in _ZH_STOP)):
            out.append(t)
    return out


def gloss_words(text: str) -> list[str]:
    """English words for the Chinese in ``text`` (CC-CEDICT; none without the package)."""
    if not has_cjk(text) or _lang() is None:
        return []
    out: list[str] = []
    for _w, fn, gl, _prior in _zh_analysis(text):
        if not fn:
            out.extend(gl[:4])
    return out


def name_words(text: str, limit: int = 3) -> list[str]:
    """English words that name a Chinese statement: in order, the first usable gloss of
    each content word of two or more characters that says something on its own (jieba's
    idf prior; 所有 "all", 时间 "time" are too common), phrasing words such as 以后
    "later" left out. Empty without the package."""
    if not has_cjk(text) or _lang() is None:
        return []
    out: list[str] = []
    for w, fn, gl, prior in _zh_analysis(text):
        if fn or len(w) < 2 or prior < 0.45:
            continue
        for g in gl:
            if g not in _RULE_GLOSSES and g not in STOPWORDS and g not in out:
                out.append(g)
                break
        if len(out) >= limit:
            break
    return out


VALUE_WEIGHT = {"version": 2.0, "port": 2.0, "name": 2.0}
"""Entity kinds that weigh less than the default 3 (a version or a port alone is weak evidence)."""
_WORDS = re.compile(r"(?<![\w.-])[a-z][\w-]*(?![\w-])")


def entity_term(e: Entity) -> str:
    """The merge term of an entity."""
    return f"{e.kind}:{e.value}"


def merge_terms(text: str) -> tuple[dict[str, float], set[str], tuple[str, ...]]:
    """``(terms, values, words)`` of a statement: weighted merge terms, the concrete things
    among them, and its lower-cased words (tool names are recognised later, against the
    commands the history ran)."""
    from .entities import entities

    terms: dict[str, float] = {}
    values: set[str] = set()
    for e in entities(text):
        t = entity_term(e)
        terms[t] = max(terms.get(t, 0.0), VALUE_WEIGHT.get(e.kind, 3.0))
        values.add(t)
    for w in content_words(text):  # a proper name (Chinese, ArgoCD) counts as its word too
        terms.setdefault("w:" + w, 1.0)
    if _lang() is not None:
        for z in cjk_terms(text):
            terms.setdefault("z:" + z, 1.0)
        for g in gloss_words(text):
            if g not in STOPWORDS:
                terms.setdefault("w:" + stem(g), 0.8)
    else:
        for z in cjk_terms(text):
            terms.setdefault("z:" + z, 0.5)
    words = tuple(sorted(set(_WORDS.findall(text.lower()))))
    return terms, values, words
