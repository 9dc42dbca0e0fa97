"""From statements, imports and procedures to the candidates a person reviews.

* **Merging** (:mod:`.clustering`, over the terms of :mod:`.items`). Statements (and
  imported notes) that say the same thing — the same concrete things (tools, hosts, paths,
  inline code, versions) and words, across phrasing and language — become one candidate
  whose evidence lists every occurrence.
* **Against what is already known** (:mod:`.known`). A candidate that an active fact or an instruction
  line already says (its concrete things are all there, or its words are) is not shown;
  one that names a different value of the same kind on a fact's subject (Python 3.12
  where the fact says 3.11), or that says the subject changed, is shown as an update of
  that fact: accepting writes the fact's next revision.
* **Ranking.** Durability score, plus one per further session that said it (at most
  two), plus half when Claude Code's auto-memory also has it; the latest occurrence
  breaks ties.
* **Text** (titles and names in :mod:`.titles`). The description is the whole statement as a clean rule; the title its
  strongest sentence, cut at a clause boundary; the name readable words of the title
  (concrete things for a Chinese rule, never a hash); the body the rule and where it was
  said — no "confirm first" boilerplate.
"""

from __future__ import annotations

import os
import re
from collections import Counter, defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, replace

from ...compat.gostr import one_line, truncate_runes
from ...compat.gotime import Timestamp
from . import language as lang
from .clustering import cluster_items, fold_superseded, prepare_items
from .items import Item, Known
from .known import against_known
from .model import Evidence, MemorySuggestion, SkillSuggestion
from .procedures import Procedure, step_words
from .signals import THRESHOLD
from .titles import readable_name, short_title

__all__ = [
    "build_memories",
    "build_skills",
    "infer_type",
]


# --------------------------------------------------------------------------------------
# Terms


# --------------------------------------------------------------------------------------
# Text


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
    clusters = fold_superseded(clusters)
    clusters.sort(key=lambda ms: -max(m.score for m in ms))
    for members in clusters:
        verdict, kn = against_known(members, known, kindex)
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
    score, reasons = _merged_score(members, rep, imports, said, current)
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
    name = _unique_name(prefix, name, names)
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


def _merged_score(
    members: Sequence[Item], rep: Item, imports: Sequence[Item], said: Sequence[Item], current: Sequence[Item]
) -> tuple[float, list[str]]:
    """A candidate's score and reasons: its best current statement's, plus repetition across
    sessions and an auto-memory or notes file that also has it; superseded statements named."""
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
    return score, reasons


def _unique_name(prefix: str, name: str, names: set[str]) -> str:
    """``name``, or ``name-2``, ``name-3``… when the id is taken; the id is then taken."""
    base = name
    n = 2
    while prefix + name in names:
        name = f"{base}-{n}"
        n += 1
    names.add(prefix + name)
    return name


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
