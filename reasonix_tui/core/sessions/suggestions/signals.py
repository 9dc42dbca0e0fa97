"""Durability signals of one user message, in English and Chinese.

A person's message is cleaned of what they did not write themselves (fenced code, quoted
lines, pasted logs and stack traces), split into sentences, and each sentence is scored:

* **general or future-facing wording** — *always, never, from now on, by default, as
  usual, every time, next time*; 以后, 始终, 一律, 统一, 每次, 默认, 都… (``always`` /
  ``never`` count only where they govern an action or a property — "we never…", "is
  always…", sentence-initial — not in "the badge never updates");
* **a project rule** — an imperative about how things are done (*use, don't, keep, put,
  avoid*; 用, 别, 不要, 统一用) or a convention word (*convention, rule, policy*; 约定, 规则);
* **an environment fact** — hosts, ports, URLs, paths, files, env vars, handles, versions,
  inline code and identifiers, with a verb that states where or what something is
  (*is, lives, goes through, owned by*; 是, 在, 走, 归);
* **a change of state** — *moved to, switched to, no longer*; 改用, 迁移到, 不再;
* **an answer-style preference** — how the assistant should answer (*short, in Chinese,
  no explanations*; 简短, 中文, 不用解释);
* **explicit** — *remember, keep in mind, heads-up, FYI, reminder*; 记住, 记得;
* **a reason** — *because, otherwise*; 因为, 不然, 否则, 之前…出过.

A message that answers the assistant's previous step — a tool call or a claim — with a
correction (*no, stop, that's stale*; 不对, 别…) or that names what the step used while
negating it is a **correction**: its rule sentences gain weight and keep the step as context.

Excluded: questions, one-off scoping (*for now, this time, for this release only, as part
of this*; 这次, 先别, 暂时, 今天), hypotheticals (*might, maybe, if we ever*; 可能, 也许),
quoted material (*the docs say "…"*) and task requests (*add…, fix…*; 帮我…, 把…) without
a rule signal. Idioms that look like rules (*never mind, no worries*; 不要紧, 没关系, 没事,
算了) are removed before scoring.

Everything here is pure text processing; nothing reads files. The prose preparation is in
:mod:`.sentences`, the entities in :mod:`.entities`, and the word lists in
:mod:`.rule_patterns`, :mod:`.exclusion_patterns` and :mod:`.fact_patterns`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from .entities import KIND_LABEL, Entity, entities
from .exclusion_patterns import (
    HYPOTHETICAL,
    ONE_OFF_REF,
    QUESTION_LEAD,
    QUOTED_SPAN,
    REPORTED,
    SCOPING,
    TASK_LEAD,
    ZH_QUESTION,
    ZH_TASK,
)
from .fact_patterns import (
    ASSISTANT_REF,
    CHANGE,
    CONSEQUENCE,
    CONTRAST,
    DEFINITION,
    FACT_VERBS,
    GENERIC_SUBJECT,
    INSTRUMENT,
    NOW_STATE,
    OWNER,
    PROBLEM,
    REASON,
    STYLE,
    TEAM_PRACTICE,
)
from .rule_patterns import (
    ALWAYS_NEVER,
    AN_BEFORE_OK,
    AN_PRONOUN_BEFORE,
    AN_SUBJECT_BEFORE,
    CONDITION_LEAD,
    CONVENTION,
    CORRECTION_LEAD,
    EXPLICIT,
    FILLER_LEAD,
    GENERIC,
    HABIT_MARKERS,
    IDIOMS,
    LABEL_LEAD,
    LEAD_MARKER,
    POLICY_LEAD,
    POLICY_VERBS,
    PRODUCT_CHANGE,
    PROHIBIT_LEAD,
    TRAILING,
    ZH_ALWAYS,
    ZH_POLICY,
    ZH_PROHIBIT,
)
from .sentences import CJK, has_cjk

__all__ = [
    "title_text",
    "SentenceScore",
    "score_sentence",
    "correction_signal",
    "clean_statement",
    "is_question",
    "THRESHOLD",
    "EXTEND_THRESHOLD",
]

THRESHOLD = 3.0
"""A sentence at or above this score is a candidate on its own."""
EXTEND_THRESHOLD = 1.5
"""A neighbouring sentence at or above this score joins the candidate (its reason, its detail)."""


@dataclass
class SentenceScore:
    """How durable one sentence reads."""

    score: float = 0.0
    reasons: list[str] = field(default_factory=list)
    excluded: str = ""
    """Why the sentence can never be a candidate (``question``, ``scoping``…), or ``""``."""
    policy: bool = False
    """It is phrased as a rule (imperative, prohibition, convention)."""
    task: bool = False
    """It reads as a one-off request."""
    entities: list[Entity] = field(default_factory=list)
    text: str = ""
    """The sentence with idioms removed."""

    def add(self, weight: float, reason: str) -> None:
        self.score += weight
        if reason and reason not in self.reasons:
            self.reasons.append(reason)


def is_question(s: str) -> bool:
    """A question (a ``?`` at the end, an interrogative opening, or a Chinese question form)."""
    t = s.strip()
    if not t:
        return False
    if t.endswith(("?", "？")):
        return True
    core = FILLER_LEAD.sub("", t)
    if has_cjk(core):
        return ZH_QUESTION.search(core) is not None and not re.search(r"(?:不管|无论)", core)
    if CONDITION_LEAD.match(core):  # "When you write commit messages, use …" is a rule
        return False
    return QUESTION_LEAD.match(core) is not None


def _always_never_ok(s: str, m: re.Match[str]) -> bool:
    before = s[: m.start()]
    if AN_PRONOUN_BEFORE.search(before):
        return False
    if AN_BEFORE_OK.search(before) or AN_SUBJECT_BEFORE.search(before):
        return True
    after = s[m.end() :].lstrip().lower()
    first = re.match(r"[a-z'-]+", after)
    return (
        first is not None
        and first.group(0) in {v.split()[0] for v in POLICY_VERBS}
        and not re.search(r"\w+s\s*$", before.strip().lower() or "x")
    )


def _exclusion(raw: str, text: str, text_nq: str) -> str:
    """Why a sentence can never be a candidate before it is scored (``""`` when it can)."""
    if not text:
        return "idiom"
    if is_question(raw):
        return "question"
    if REPORTED.search(text):
        return "quoted"
    if SCOPING.search(text_nq):
        return "one-off scoping"
    return ""


def _score_general(sc: SentenceScore, raw: str, text_nq: str) -> None:
    """General or future-facing wording, explicit markers and convention words."""
    for rx, weight, reason in GENERIC:
        m = rx.search(text_nq)
        if m:
            sc.add(weight, f"{reason} ({m.group(0).strip()})")
    for m in ALWAYS_NEVER.finditer(HABIT_MARKERS.sub(" ", text_nq)):
        if _always_never_ok(HABIT_MARKERS.sub(" ", text_nq), m):
            sc.add(2.0, f"general wording ({m.group(1).lower()})")
            break
    always = ZH_ALWAYS.search(text_nq)
    if always and not is_question(raw):
        sc.add(1.5, "general wording (" + always.group(0) + ")")
    m = EXPLICIT.search(text_nq)
    if m:
        sc.add(2.0, f"explicit ({m.group(0).strip()})")
    m = CONVENTION.search(text_nq)
    if m:
        sc.add(2.0, f"convention ({m.group(0).strip()})")
        sc.policy = True


def _score_rule(sc: SentenceScore, core: str, cjk: bool) -> str:
    """Imperative rules and prohibitions (after a leading "from now on", 以后…, a condition
    "when you write commit messages," or a label "Tests:"). Returns the imperative part."""
    imp = LEAD_MARKER.sub("", core)
    cond = CONDITION_LEAD.match(imp)
    if cond:
        imp = imp[cond.end() :]
        sc.add(1.5, f"general condition ({cond.group(0).strip(' ,，')})")
    label = LABEL_LEAD.match(imp)
    if label and not cond:
        imp = imp[label.end() :]
    if PROHIBIT_LEAD.match(imp) or ZH_PROHIBIT.search(imp):
        sc.add(1.5, "project rule (prohibition)")
        sc.policy = True
    elif POLICY_LEAD.match(imp) or (cjk and ZH_POLICY.search(imp)):
        sc.add(1.0, "project rule (imperative)")
        sc.policy = True
    if sc.policy and (cond or label):
        sc.add(1.0, "stated as a rule (" + ("condition" if cond else "label") + ", then what to do)")
    if GENERIC_SUBJECT.search(core):
        sc.add(1.0, "general statement")
    elif TEAM_PRACTICE.search(core):
        sc.add(1.5, "how the team works")
    return imp


def _score_environment(sc: SentenceScore, text: str, text_nq: str, core: str, imp: str) -> None:
    """Environment facts: the entities named, with a verb saying where or what something is."""
    ents = entities(text)
    sc.entities = ents
    kinds = {e.kind for e in ents}
    if ents:
        sc.add(min(1.5, 0.5 * len(kinds)), "names " + ", ".join(sorted(KIND_LABEL.get(k, k) for k in kinds)))
        if FACT_VERBS.search(core):
            sc.add(1.0, "environment fact")
            if (DEFINITION.search(core) or DEFINITION.search(imp)) and not PROBLEM.search(core):
                sc.add(1.5, "says where or what something is")
    elif INSTRUMENT.search(text_nq) and (sc.score > 0 or TEAM_PRACTICE.search(core)):
        sc.add(0.5, "names a tool")
    if PROBLEM.search(CONSEQUENCE.sub("", core)) and not sc.policy:  # "…, or the job fails" is a reason
        sc.add(-1.0, "")
    if PRODUCT_CHANGE.search(core):
        sc.add(-1.5, "")
    if OWNER.search(core):
        sc.add(1.5, "ownership")


def _score_change_and_style(sc: SentenceScore, text_nq: str, core: str) -> None:
    """A change of state, a named alternative, an answer-style preference and a reason."""
    m = CHANGE.search(text_nq)
    if m:
        sc.add(1.5, f"change of state ({m.group(0).strip()})")
    elif NOW_STATE.search(text_nq):
        sc.add(1.0, "change of state (now)")
    if CONTRAST.search(text_nq):
        sc.add(1.5 if sc.policy else 1.0, "names the alternative")
    if STYLE.search(core) and (sc.policy or ASSISTANT_REF.search(core)):
        sc.add(2.0, "answer-style preference")
        sc.policy = True
    if REASON.search(text_nq) and sc.score > 0:
        sc.add(0.5, "gives a reason")


def _score_one_off(sc: SentenceScore, text_nq: str, imp: str, cjk: bool) -> None:
    """One-off requests weigh against a sentence."""
    if (TASK_LEAD.match(imp) or (cjk and ZH_TASK.match(imp))) and not sc.policy:
        sc.task = True
        sc.add(-2.0, "")
    if ONE_OFF_REF.search(text_nq):
        sc.add(-1.5, "")


def score_sentence(sentence: str) -> SentenceScore:
    """Score one sentence (see the module docstring). Correction context is added by the caller."""
    raw = sentence.strip()
    text = IDIOMS.sub(" ", raw).strip(" ,，。.;；")
    sc = SentenceScore(text=text)
    text_nq = QUOTED_SPAN.sub(" ", text)
    sc.excluded = _exclusion(raw, text, text_nq)
    if sc.excluded:
        return sc
    core = CORRECTION_LEAD.sub("", FILLER_LEAD.sub("", text_nq)).strip()
    core = FILLER_LEAD.sub("", core).strip()
    cjk = has_cjk(core)
    words = len(re.findall(r"[A-Za-z0-9_'-]+", core)) + len(CJK.findall(core)) // 2
    if words < 3:
        sc.excluded = "too short"
        return sc
    if HYPOTHETICAL.search(text_nq):
        sc.add(-2.0, "")
    _score_general(sc, raw, text_nq)
    imp = _score_rule(sc, core, cjk)
    _score_environment(sc, text, text_nq, core, imp)
    _score_change_and_style(sc, text_nq, core)
    _score_one_off(sc, text_nq, imp, cjk)
    return sc


_WRONG_CLAUSE = re.compile(
    r"^[^，,。.;；!！?？]{0,40}?(?:不对|错了|有问题|搞错了|\bis wrong\b|\bare wrong\b|\bis incorrect\b|\bisn'?t right\b)\s*[，,。.;；:：!！]"
)


def correction_signal(message: str, previous: str, previous_tokens: frozenset[str]) -> tuple[float, str]:
    """Weight and reason when ``message`` corrects the assistant's previous step.

    ``previous`` describes the step (a tool call, or ``claim: …`` for what the assistant
    said); ``previous_tokens`` are its distinctive tokens. A correction opening (*no, stop,
    that's stale*, 不对, 别…, or a first clause saying something is wrong) counts; naming
    something a tool call used while negating it counts too, and both together count more.
    A claim is only corrected by an explicit opening.
    """
    if not previous:
        return 0.0, ""
    text = FILLER_LEAD.sub("", message.strip())
    lead = (
        CORRECTION_LEAD.match(text) is not None
        or PROHIBIT_LEAD.match(text) is not None
        or _WRONG_CLAUSE.match(text) is not None
        or (has_cjk(text) and re.match(r"^(?:不对|不是|错了|别|不要|不行|应该)", text) is not None)
    )
    if previous.startswith("claim: ") and not lead:
        return 0.0, ""
    negation = re.search(
        r"\b(?:not|don'?t|do not|never|instead|stop|wrong|stale|outdated)\b|不对|不是|别|不要|而不是|不用", text, re.I
    )
    mine = _distinct_tokens(text)
    overlap = sorted(t for t in mine & previous_tokens if t not in _GENERIC_PARTS and len(t) >= 3)
    step = previous.split(": ", 1)[-1].lower()
    head = " ".join(step.split()[:3])
    if not previous.startswith("claim: ") and len(head) >= 5 and head in text.lower():
        overlap.append(head)
    if lead and overlap:
        return 2.0, f"correction of the previous step ({previous})"
    if negation and overlap:
        return 1.5, f"correction of the previous step ({previous})"
    if lead:
        return 1.0, f"answers the previous step ({previous})"
    return 0.0, ""


_STOP = frozenset(
    "a an the and or but if then so to of in on at by for with from into onto up out as is are was were be been "
    "being it its this that these those there here i you he she we they me my your our their us them do does did "
    "done not no yes can could would should will shall may might must have has had just also only very too "
    "please pls ok okay now then than what which who whom whose when where why how all any some each every more "
    "most other such own same let lets get got make made use used run see need want like one two first next new "
    "old good fine sure right well way thing things about after before again over under off via per".split()
)


_GENERIC_PARTS = frozenset(
    "app apps src lib libs internal cmd pkg test tests docs doc main dev api file files code data new tmp bin "
    "build dist out index utils util common core the and".split()
)


def _distinct_tokens(text: str) -> frozenset[str]:
    """Tokens that identify what a step or a statement is about (commands, names, values)."""
    out: set[str] = set()
    for w in re.findall(r"[A-Za-z0-9][\w.:/@-]*[A-Za-z0-9]|[A-Za-z0-9]", text):
        lw = w.lower()
        for part in {lw, *re.split(r"[/:@]", lw)}:
            if len(part) >= 2 and part not in _STOP and not part.isdigit():
                out.add(part)
    return frozenset(out)


distinct_tokens = _distinct_tokens


def clean_statement(s: str) -> str:
    """The sentence as a clean rule: lead-ins (*ok, also, no, stop, heads-up:* 对了, 不对,
    记住), trailing *remember this* / 记住这个 and habit markers removed, first letter
    capitalised."""
    t = s.strip()
    for _ in range(3):
        before = t
        t = FILLER_LEAD.sub("", t)
        t = CORRECTION_LEAD.sub("", t)
        t = re.sub(r"^(?:记住|记得|remember)\s*[,:：，]\s*", "", t, flags=re.I)
        if t == before:
            break
    t = _WRONG_CLAUSE.sub("", t).strip()
    t = TRAILING.sub("", t)
    t = HABIT_MARKERS.sub("", t)
    t = IDIOMS.sub("", t)
    t = re.sub(r"\s+", " ", t).strip(" ,，;；:：-—")
    if t and t[0].isascii() and t[0].islower() and not re.match(r"[a-z]+[A-Z0-9_./-]", t.split(" ")[0]):
        t = t[0].upper() + t[1:]
    return t


_TITLE_LEAD = re.compile(
    r"^(?:(?:remember|note|keep in mind|don'?t forget|for the record|for context|just so you know|"
    r"one thing|and this goes for everything(?: you \w+)?(?: here)?|this goes for everything(?: you \w+)?(?: here)?)"
    r"(?: (?:that|to))?\s*[,:;—–-]*\s+"
    r"|(?:记住|记得|别忘了|不要忘了|注意|提醒一下|请|麻烦你?|帮我)\s*[,:：，]?\s*)",
    re.I,
)
_WE_ADVERB = re.compile(r"^(?:we|you|u)\s+(always|never|usually|only)\s+(?=[a-z])", re.I)


def title_text(s: str) -> str:
    """The rule of a statement for a title: :func:`clean_statement`, then what only leads
    into it — *remember that*, *from now on*, *for context:*, 以后, 记住, 请 — left out, and
    *we always run …* said as the rule (*Always run …*)."""
    t = clean_statement(s)
    for _ in range(4):
        before = t
        t = LEAD_MARKER.sub("", t)
        t = _TITLE_LEAD.sub("", t)
        t = FILLER_LEAD.sub("", t)
        t = _WE_ADVERB.sub(lambda m: m.group(1) + " ", t)
        t = t.strip(" ,，;；:：-—")
        if t == before:
            break
    if not t:
        return clean_statement(s)
    if t[0].isascii() and t[0].islower() and not re.match(r"[a-z]+[A-Z0-9_./-]", t.split(" ")[0]):
        t = t[0].upper() + t[1:]
    return t
