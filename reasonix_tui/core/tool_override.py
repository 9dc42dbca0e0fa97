"""Project facts that do a pinned global default's job with another tool.

"Install JavaScript packages with npm" (global, pinned) and "Packages here come from pnpm"
(project) share no title term and say nothing of each other; the topic resolver
(:mod:`reasonix_tui.core.resolve`) never pairs them. What makes them one job is that they
say the same thing with *another name in the same place*. :func:`tool_overrides` finds such
pairs in three steps:

1. **Neighbours by meaning.** Every pinned global fact is compared by meaning with every
   project fact (one matrix product per block of globals); a pair is a candidate only when
   the project fact is the global's nearest project fact, the cosine reaches
   :data:`MIN_MEANING`, and the global is the project fact's nearest pinned global that no
   other project fact overrides yet (pairs are taken closest first; a project fact does at
   most one default's job). "Biome checks the front end" is nearer to the Jest default
   than to the ESLint one, but Jest is taken by "the Vue app's tests run on Vitest": ESLint
   is the nearest free default, and Biome's.
2. **Another name on each side.** Each fact's *names* are the Latin-script words written
   like a tool or product name: capitalised inside a sentence, rare in written English
   (``wordfreq``), or inside Chinese text and not an everyday English word. Each side must
   name something the other does not mention (npm / pnpm), and the project fact must not
   mention the global's names at all (pytest and Hypothesis used together are no
   replacement; a fact that names the default and rejects it is the topic resolver's).
3. **The same purpose around them.** The project fact's title and the clauses holding its
   own names, with the names left out, must share a content term (a word whose prior
   is at least :data:`PURPOSE_PRIOR`, not one of the names) with the global fact:
   "Packages here come from pnpm" and "Install JavaScript packages with npm" share
   *packages*; "链路追踪用 Jaeger" and "日志统一用 zap" share nothing, though the Jaeger
   fact mentions 日志 in another clause.

Two more ways, for the defaults still in force after those steps:

4. **The role reading.** Among a free default's :data:`ROLE_CANDIDATES` nearest project
   facts by meaning, the one whose *role* (:func:`role_text`: the title and the clauses
   holding its names, the names masked out) the default's role singles out — cosine at
   least :data:`ROLE_MIN`, :data:`ROLE_MARGIN` above the other candidates and above every
   other default's role — is checked with steps 2 and 3. "Services expose /metrics for
   Prometheus" is not the Datadog default's nearest fact by its whole text (a port fact
   that mentions the Datadog agent is), but it is by role.
5. **Another value.** A default's nearest project fact (step 1) that names no other tool
   but writes another number beside one of the default's words ("The app needs Node 20"
   against "Target Node 18 LTS", :func:`value_evidence`) overrides it.

The result is a :class:`~reasonix_tui.core.resolve.Supersession` of kind ``override``
whose evidence names both tools and the shared purpose (or the word and both values).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from .store.model import Fact, normalize_type

__all__ = [
    "tool_overrides",
    "tool_evidence",
    "adds_to",
    "ToolProfile",
    "ToolEvidence",
    "tool_profile",
    "MIN_MEANING",
    "PURPOSE_PRIOR",
]

MIN_MEANING = 0.15
"""The lowest meaning cosine of a candidate pair (a default and its nearest project fact)."""
PURPOSE_PRIOR = 0.4
"""A shared term counts as a purpose only when its prior is at least this (the gate's
content-word line, :data:`~reasonix_tui.core.lang.terms.CONTENT_PRIOR`)."""
RARE_ZIPF = 3.5
"""A lower-case English word at or below this corpus frequency is read as a name (npm,
ruff, nvm; "deploy" is 3.7)."""
HAN_ZIPF = 4.0
"""Inside Chinese text a Latin word is a name unless it is this frequent in English
("review", "key")."""

_WORD = re.compile(r"(?<![A-Za-z0-9_./*<>@#$%&-])[A-Za-z][A-Za-z-]*[A-Za-z](?!\.?[A-Za-z0-9_/*<>@-])")
_CLAUSE = re.compile(r"(?<=[.!?;:])\s+|[;\n。；！？，,()（）—：]")
_STARTS = re.compile(r"(?:^|[.!?;:。；：！？\n]\s*|[—-]\s+)$")
_VALUE = re.compile(r"(?<![\w./<>-])[A-Za-z][\w-]*/[\w<][\w/<>-]*[\w>](?![\w./<>-])|(?<![\w.-])[A-Za-z]+-\d[\w-]*")
"""A value written like a branch or path pattern (``feature/<slug>``) or an issue key with
a slug (``eng-1423-fix``)."""
_HAN = re.compile(r"[\u3400-\u9fff]")
_FILE = re.compile(r"(?<![\w./<>*-])([A-Za-z][A-Za-z-]*[A-Za-z])\.[a-z]{2,4}(?![\w./-])")
"""A file's name and its extension (``Taskfile.yml``, ``Fly.io``)."""
_PROGRAM = re.compile(r"`([a-z][a-z0-9-]*[a-z0-9])(?=[ `])")
"""The program a command in a code span runs: its first word (`` `uv sync` ``)."""


@dataclass(frozen=True, slots=True)
class ToolProfile:
    """What :func:`tool_overrides` reads of one fact."""

    names: tuple[tuple[str, frozenset[str], bool], ...]
    """Lower-cased names (see the module docstring), each with its keys and whether it is
    strong (see :func:`_names`)."""
    keys: frozenset[str]
    """Keys of the whole fact (what it mentions)."""
    content: tuple[tuple[str, str], ...]
    """Its content terms (prior at least :data:`PURPOSE_PRIOR`): ``(key, surface)``."""
    title: frozenset[str]
    """Content keys of the title (or name)."""
    clauses: tuple[tuple[frozenset[str], frozenset[str]], ...]
    """Per clause holding a name: its names and its content keys."""


def _zipf(word: str) -> float:
    """A word's corpus frequency; a hyphenated compound's is its rarest part's ("type-check"
    is made of two everyday words, "e2e-tests" is not)."""
    from .lang.prior import _freq_table

    table = _freq_table()
    if "-" in word and word.strip("-"):
        return min(table.get(part, 0.0) for part in word.split("-") if part)
    return table.get(word, 0.0)


def _known(word: str) -> bool:
    """Whether the dictionary's glosses use ``word`` (every part of a hyphenated compound)."""
    from .lang.prior import word_known

    return all(word_known(part) for part in word.split("-") if part)


def _inflected(word: str) -> bool:
    """Whether a rare lower-case word is an inflection of an everyday one ("clashed",
    "formatted": the Snowball stem, a word above :data:`RARE_ZIPF`): a verb of the prose,
    not a name."""
    from .lang.english import stem

    base = stem(word)
    return word.endswith(("ed", "ing", "s")) and base != word and _zipf(base) > RARE_ZIPF


def _names(text: str) -> dict[str, bool]:
    """The names of ``text``, each with whether it is *strong*: capitalised inside a
    sentence, unknown to the dictionary's glosses, or inside Chinese text — a weak name is
    only a rare word (ruff; not an inflection of an everyday word: "clashed"), a value
    written like a path or an identifier (``feature/<slug>``, ``eng-1423-fix``), or the
    program a command in a code span runs (`` `uv sync` ``, `` `task test` ``). A file's
    name is read as a word (``Taskfile.yml``: "Taskfile")."""
    out: dict[str, bool] = {}
    for clause in _CLAUSE.split(text):
        han = bool(_HAN.search(clause))
        words = [(m.group(0), m.start()) for m in _WORD.finditer(clause)]
        words += [(m.group(1), m.start()) for m in _FILE.finditer(clause)]
        for word, start in words:
            low = word.lower()
            initial = bool(_STARTS.search(clause[:start]))
            if any(c.isupper() for c in word[1:]):
                out[low] = True
            elif word[0].isupper() and not initial:
                if not _inflected(low):
                    out[low] = True
            elif (han and _zipf(low) <= HAN_ZIPF) or (_zipf(low) <= RARE_ZIPF and not _known(low)):
                out[low] = True
            elif _zipf(low) <= RARE_ZIPF and not _inflected(low):
                out.setdefault(low, False)
        for token in _VALUE.findall(clause):
            out.setdefault(token.lower().strip(".-"), False)
    for program in _PROGRAM.findall(text):
        out.setdefault(program, False)
    return out


def _norm(key: str) -> str:
    return "w:" + key[2:] if key.startswith("t:") else key


def _terms(text: str) -> list[tuple[str, str, bool]]:
    """``(key, surface, content)`` of every term of ``text``: a content term is an English or
    Chinese word (a translated one by its Chinese word) whose prior reaches PURPOSE_PRIOR."""
    from .lang import analyze
    from .lang.prior import word_prior

    out = []
    for t in analyze(text, index=False):
        surface = t.source.lower()
        content = t.key.startswith(("w:", "z:", "t:")) and word_prior(surface) >= PURPOSE_PRIOR
        out.append((_norm(t.key), t.source, content))
    return out


_INWORD = frozenset("abcdefghijklmnopqrstuvwxyz0123456789-")


def stands_alone(name: str, text: str) -> bool:
    """Whether ``name`` occurs in ``text`` with no ``[a-z0-9-]`` on either side: what
    ``re.search(r"(?<![a-z0-9-])" + re.escape(name) + r"(?![a-z0-9-])", text)`` says, without
    compiling a pattern per name (a fact's profile tests each of its names in each clause)."""
    i = text.find(name)
    while i >= 0:
        j = i + len(name)
        if (i == 0 or text[i - 1] not in _INWORD) and (j == len(text) or text[j] not in _INWORD):
            return True
        i = text.find(name, i + 1)
    return False


def _masked(name: str, text: str) -> str:
    """``text`` with each occurrence of ``name`` that :func:`stands_alone` replaced by a space
    (what ``re.sub`` with that function's pattern does, without compiling one per name)."""
    out, last = [], 0
    i = text.find(name)
    while i >= 0:
        j = i + len(name)
        if (i == 0 or text[i - 1] not in _INWORD) and (j == len(text) or text[j] not in _INWORD):
            out += [text[last:i], " "]
            last = j
            i = text.find(name, j)
        else:
            i = text.find(name, i + 1)
    return "".join(out) + text[last:] if out else text


def _name_keys(name: str) -> frozenset[str]:
    """The keys of a name: the whole word's key, not the parts a closed compound splits into
    ("buildkite" is no mention of "build"); a hyphenated name keeps every part's."""
    keys = [k for k, _, _ in _terms(name)]
    if not keys:
        # a name that is a function word of English ("just", the task runner): the word itself
        return frozenset({"n:" + name})
    return frozenset(keys if "-" in name else keys[:1])


def _profile(fact: Fact) -> ToolProfile:
    from .recall.fields import meaning_text

    text = meaning_text(fact)
    title = fact.title or fact.name.replace("-", " ")
    names = _names(text)
    terms = _terms(text)
    clauses = []
    for clause in _CLAUSE.split(text):
        low = clause.lower()
        held = frozenset(n for n in names if stands_alone(n, low))
        if held:
            # the clause's words around its names: the parts of a hyphenated name are no
            # role ("just dag-check" says nothing about checking)
            own = frozenset().union(*(k for k in map(_name_keys, held) if len(k) > 1))
            clauses.append((held, frozenset(k for k, _, c in _terms(clause) if c and k not in own)))
    named = tuple((n, _name_keys(n), strong) for n, strong in sorted(names.items()))
    return ToolProfile(
        names=named,
        keys=frozenset(k for k, _, _ in terms).union(*(keys for _, keys, _ in named)),
        content=tuple({k: s for k, s, c in terms if c}.items()),
        title=frozenset(k for k, _, c in _terms(title) if c),
        clauses=tuple(clauses),
    )


def tool_profile(fact: Fact) -> ToolProfile:
    """The fact's :class:`ToolProfile` (memoised per fact object, in memory only)."""
    from .recall.memo import FACT_MEMO

    FACT_MEMO.register_transient("tool-profile")
    return FACT_MEMO.get(fact, "tool-profile", _profile)  # type: ignore[no-any-return]  # the memo holds what _profile returns


@dataclass(frozen=True, slots=True)
class ToolEvidence:
    """Why a project fact does a global default's job (for the decision and the trace)."""

    meaning: float
    old_names: tuple[str, ...]
    """Names only the global fact has."""
    new_names: tuple[str, ...]
    """Names only the project fact has."""
    purpose: tuple[str, ...]
    """Content words the project fact's clauses around its names share with the global fact."""


def _only(a: ToolProfile, b: ToolProfile) -> list[tuple[str, frozenset[str]]]:
    """``a``'s names none of whose keys ``b`` mentions."""
    return [(n, keys) for n, keys, _ in a.names if keys and not keys & b.keys]


def tool_evidence(default: Fact, local: Fact, meaning: float) -> ToolEvidence | None:
    """The evidence of one candidate pair, or ``None`` when it is no other-tool override."""
    if normalize_type(local.type) == "reference":
        return None  # a pointer to a document says where to read, not what to do instead
    g, p = tool_profile(default), tool_profile(local)
    old, new = _only(g, p), _only(p, g)
    if not old or not new:
        return None
    new_names = {n for n, _ in new}
    # the clauses where a new name stands in a role: among at most ROLE_NAMES names (a
    # clause listing a dozen names is a list, not "X for Y")
    roles = [keys for held, keys in p.clauses if held & new_names and len(held) <= ROLE_NAMES]
    if not roles:
        return None
    around = set(p.title).union(*roles)
    distinct = {k for _, keys in old + new for k in keys}
    purpose = [s for k, s in g.content if k in around and k not in distinct]
    # a strong name both mention ("Docker", "Node") is what both use or are about, not
    # what they do: the purpose needs another word
    strong = {k for x in (g, p) for _, keys, is_strong in x.names if is_strong for k in keys}
    if not [k for k, _ in g.content if k in around and k not in distinct and k not in strong]:
        return None
    return ToolEvidence(meaning, _shown(g, old), _shown(p, new), tuple(dict.fromkeys(purpose)))


_VALUE_TOKEN = re.compile(r"\d+(?:\.\d+)*[a-z]?|[A-Za-z][A-Za-z0-9_-]*|[\u3400-\u9fff]+|[^\sA-Za-z0-9\u3400-\u9fff]")
_NUMBER = re.compile(r"\d+(?:\.\d+)*[a-z]?")


def _slots(text: str) -> frozenset[tuple[str, str]]:
    """``(word key, number)`` for each number of ``text`` written right beside a content word
    ("Node 18", "port 8080", "监听 8080 端口", "Python 3.12"): the value a fact gives that
    word. A punctuation mark or a function word between them breaks the bond."""
    from .lang import segment
    from .lang.english import FUNCTION_WORDS

    tokens: list[str] = []
    for tok in _VALUE_TOKEN.findall(text):
        tokens.extend(segment(tok) if _HAN.match(tok) else (tok,))
    out = set()
    for i, tok in enumerate(tokens):
        if not _NUMBER.fullmatch(tok):
            continue
        for j in (i - 1, i + 1):
            if 0 <= j < len(tokens) and tokens[j].lower() not in FUNCTION_WORDS:
                keys = [k for k, _, c in _terms(tokens[j]) if c or _HAN.match(tokens[j]) is None]
                if keys:
                    out.add((keys[0], tok))
    return frozenset(out)


def value_evidence(default: Fact, local: Fact) -> tuple[str, str, str] | None:
    """``(word, new value, old value)`` when ``local`` gives a word of ``default`` another
    number ("The app needs Node 20" against "Target Node 18 LTS"), and gives it none of the
    default's numbers; ``None`` otherwise."""
    from .recall.fields import meaning_text

    if normalize_type(local.type) == "reference":
        return None
    old, new = _slots(meaning_text(default)), _slots(meaning_text(local))
    old_by: dict[str, set[str]] = {}
    for k, v in old:
        old_by.setdefault(k, set()).add(v)
    for k, v in sorted(new):
        if k in old_by and v not in old_by[k] and not any((k, o) in new for o in old_by[k]):
            return k.split(":", 1)[-1], v, sorted(old_by[k])[0]
    return None


def _shown(profile: ToolProfile, names: list[tuple[str, frozenset[str]]]) -> tuple[str, ...]:
    """At most three of ``names`` for a person: the strong ones first."""
    strong = {n for n, _, is_strong in profile.names if is_strong}
    return tuple(sorted((n for n, _ in names), key=lambda n: (n not in strong, n))[:3])


def names_term(fact: Fact, word: str) -> bool:
    """Whether ``word`` is one of ``fact``'s names, or a Latin word written inside its
    Chinese text ("用 black 格式化"): a thing the fact prescribes, not a word of its prose."""
    low = word.lower()
    if low in {n for n, _, _ in tool_profile(fact).names}:
        return True
    from .recall.fields import meaning_text

    pattern = re.compile(r"(?<![a-z0-9-])" + re.escape(low) + r"(?![a-z0-9-])")
    return any(_HAN.search(c) and pattern.search(c.lower()) for c in _CLAUSE.split(meaning_text(fact)))


def adds_to(default: Fact, local: Fact) -> bool:
    """Whether ``local`` mentions every strong name of ``default`` (it has at least one): the
    project fact uses the default's tools, so it adds to the default rather than replacing it."""
    g, p = tool_profile(default), tool_profile(local)
    strong = [keys for _, keys, is_strong in g.names if is_strong and keys]
    return bool(strong) and all(keys <= p.keys for keys in strong)


ROLE_NAMES = 3
"""Most names in a clause where a project fact's own name stands in a role."""
BLOCK = 256
"""Pinned globals compared with every project fact at once."""


def _nearest(vecs: np.ndarray, defaults: np.ndarray, locals_: np.ndarray) -> list[tuple[int, int, float]]:
    """Each pinned global's nearest project fact by meaning, ``(default, local, cosine)``
    with cosine ≥ MIN_MEANING, the closest pairs first."""
    best_local = np.zeros(len(defaults), dtype=np.int64)
    best_local_sim = np.full(len(defaults), -2.0)
    lv = vecs[locals_]
    for s in range(0, len(defaults), BLOCK):
        sims = vecs[defaults[s : s + BLOCK]] @ lv.T
        arg = sims.argmax(axis=1)
        best_local[s : s + BLOCK], best_local_sim[s : s + BLOCK] = arg, sims[np.arange(sims.shape[0]), arg]
    order = np.argsort(-best_local_sim, kind="stable")
    return [
        (int(defaults[gi]), int(locals_[best_local[gi]]), float(best_local_sim[gi]))
        for gi in order.tolist()
        if best_local_sim[gi] >= MIN_MEANING
    ]


def _free_before(vecs: np.ndarray, defaults: np.ndarray, gi: int, li: int, sim: float, busy: set[int]) -> bool:
    """Whether every default nearer to project fact ``li`` than ``gi`` is already overridden
    (``busy``): the project fact's nearest default that is still free is ``gi``."""
    nearer = defaults[(vecs[defaults] @ vecs[li]) > sim]
    return all(int(g) in busy for g in nearer.tolist() if int(g) != gi)


def role_text(fact: Fact) -> str:
    """What a fact says its tools are *for*: its title and the clauses holding one of its
    names, with every name masked out ("Crash alerts. crashes in the payment workers go to ."
    for "Crash alerts: Crashes in the payment workers go to Rollbar."; a rare word is a name
    too, see :func:`_names`). Two facts that name different tools for one job read alike here,
    whatever the tools are called; the names themselves carry no role a static meaning
    model knows (Sentry and Rollbar: cosine -0.04)."""
    from .recall.fields import meaning_text

    title = fact.title or fact.name.replace("-", " ")
    text = meaning_text(fact)[len(title) :]
    names = sorted(_names(text), key=len, reverse=True)
    held = []
    for clause in _CLAUSE.split(text):
        low = clause.lower()
        if not any(stands_alone(n, low) for n in names):
            continue
        for n in names:
            low = _masked(n, low)
        held.append(" ".join(low.split()))
    return ". ".join([title, *held]) if held else ""


def _half(v: np.ndarray) -> np.ndarray:
    """A role vector at the precision the memo keeps on disk (a memoised and a fresh vector agree)."""
    return v.astype(np.float16).astype(np.float32)


def _role_vector(fact: Fact) -> np.ndarray:
    """The embedded :func:`role_text`; an empty vector for a fact that names nothing."""
    from .lang import embed

    text = role_text(fact)
    return _half(embed([text])[0]) if text else np.zeros(0, dtype=np.float32)


def role_vectors(facts: Sequence[Fact], rows: np.ndarray) -> np.ndarray:
    """The role vectors (:func:`role_text`, embedded) of ``facts[rows]``, memoised by fact
    content (in memory and in the memo on disk: a new process after one write embeds one
    fact). A fact that names nothing has the zero vector (it is nobody's nearest by role)."""
    from .recall.memo import FACT_MEMO

    missing = [facts[i] for i in rows.tolist() if not FACT_MEMO.peek(facts[i], "role-meaning")]
    if missing:
        from .lang import embed

        texts = [role_text(f) for f in missing]
        todo = [t for t in texts if t]
        vecs = iter(_half(embed(todo))) if todo else iter(())
        for f, t in zip(missing, texts):
            FACT_MEMO.put(f, "role-meaning", next(vecs) if t else np.zeros(0, dtype=np.float32))
    found = {i: FACT_MEMO.get(facts[i], "role-meaning", _role_vector) for i in rows.tolist()}
    dim = next((len(v) for v in found.values() if len(v)), 1)
    out = np.zeros((len(facts), dim), dtype=np.float32)
    for i, v in found.items():
        if len(v):
            out[i] = v
    return out


def _register_role_codec() -> None:
    from .recall.memo import FACT_MEMO

    FACT_MEMO.register_codec(
        "role-meaning",
        lambda v: v.astype(np.float16).tobytes(),
        lambda b: np.frombuffer(b, dtype=np.float16).astype(np.float32),
    )


_register_role_codec()


def tool_overrides(facts: Sequence[Fact], vecs: np.ndarray | None, settled: set[int]) -> list[tuple[Fact, Fact, str]]:
    """``(default, project fact, why)`` for each pinned global fact whose job a project fact
    does with another tool or value (see the module docstring); ``settled`` holds the
    ``id()`` of facts already superseded."""
    if vecs is None or not len(facts):
        return []
    scope = np.fromiter((f.scope == "global" for f in facts), dtype=bool, count=len(facts))
    pinned = np.fromiter((f.activation == "pinned" for f in facts), dtype=bool, count=len(facts))
    defaults = np.flatnonzero(scope & pinned)
    locals_ = np.flatnonzero(~scope)
    if not len(defaults) or not len(locals_):
        return []
    out = []
    taken: set[int] = set()
    busy = {int(g) for g in defaults.tolist() if id(facts[g]) in settled}

    def take(gi: int, li: int, how: str, values: bool = False) -> bool:
        ev = tool_evidence(facts[gi], facts[li], float(vecs[gi] @ vecs[li]))
        if ev is not None:
            why = (
                f"a project fact does this global default's job with another tool: {', '.join(ev.new_names)} "
                f"instead of {', '.join(ev.old_names)} (both about {', '.join(ev.purpose)}; {how})"
            )
        elif values and (val := value_evidence(facts[gi], facts[li])) is not None:
            why = f"a project fact gives this global default's {val[0]} another value: {val[1]} instead of {val[2]} ({how})"
        else:
            return False
        taken.add(li)
        busy.add(gi)
        out.append((facts[gi], facts[li], why))
        return True

    for gi, li, sim in _nearest(vecs, defaults, locals_):
        if gi in busy or li in taken or not _free_before(vecs, defaults, gi, li, sim, busy):
            continue
        take(gi, li, f"meaning {sim:.2f}", values=True)
    # then by role: among a free default's nearest project facts by meaning, the one the
    # role reading singles out, both ways
    free = np.asarray([g for g in defaults.tolist() if g not in busy], dtype=np.int64)
    if not len(free):
        return out
    near = _candidates(vecs, free, locals_)
    role = role_vectors(facts, np.union1d(defaults, near.ravel()))
    for gi, li, sim in _decisive(role, free, near, defaults):
        if gi not in busy and li not in taken:
            take(gi, li, f"role {sim:.2f}, meaning {float(vecs[gi] @ vecs[li]):.2f}")
    return out


ROLE_CANDIDATES = 5
"""A free default's nearest project facts by meaning that the role reading compares."""


def _candidates(vecs: np.ndarray, free: np.ndarray, locals_: np.ndarray) -> np.ndarray:
    """Per free default (rows), its :data:`ROLE_CANDIDATES` nearest project facts by meaning."""
    k = min(ROLE_CANDIDATES, len(locals_))
    out = np.zeros((len(free), k), dtype=np.int64)
    lv = vecs[locals_]
    for s in range(0, len(free), BLOCK):
        sims = vecs[free[s : s + BLOCK]] @ lv.T
        top = np.argpartition(-sims, k - 1, axis=1)[:, :k]
        out[s : s + BLOCK] = locals_[top]
    return out


ROLE_MIN = 0.35
"""The lowest role cosine of a pair found by role (:func:`role_text`)."""
ROLE_MARGIN = 0.1
"""A pair found by role must stand this far above the default's other candidates and every
other default (role cosines, both ways): the role reading singles it out."""


def _decisive(
    role: np.ndarray, free: np.ndarray, near: np.ndarray, defaults: np.ndarray
) -> list[tuple[int, int, float]]:
    """``(default, local, role cosine)`` for each free default whose candidate nearest by role
    (:func:`role_text`) reaches :data:`ROLE_MIN` and is nearer by :data:`ROLE_MARGIN` than its
    other candidates, and to which no other default is within the same margin; closest first."""
    out = []
    for a, gi in enumerate(free.tolist()):
        sims = role[near[a]] @ role[gi]
        b = int(sims.argmax())
        best, li = float(sims[b]), int(near[a, b])
        if best < ROLE_MIN or (len(sims) > 1 and np.delete(sims, b).max() > best - ROLE_MARGIN):
            continue
        back = role[defaults] @ role[li]
        others = back[defaults != gi]
        if len(others) and others.max() > best - ROLE_MARGIN:
            continue
        out.append((gi, li, best))
    return sorted(out, key=lambda x: -x[2])
