"""Retrieval quality suite: seeded stores, a prompt, and what recall must (not) return.

The parts:

* ``realistic`` (``realistic/*.yaml``) — three stores of 30–35 facts each, written the way
  developers tell an agent things (package managers, test and deploy commands, owners,
  ports, env vars, flags, incidents, preferences; English, Chinese and mixed), each with
  its tasks. The queries were written before the mechanisms they exercise were tuned
  (see the git history of these files).
* ``blind`` (``blind/*.yaml``) — a held-out set in the same format as ``realistic``,
  written by someone who had not read the recall code nor the other parts (see
  ``blind/README.md``): an estimate of recall quality on memory nobody tuned it for.
* ``blind2`` (``blind2/*.yaml``) — a second held-out set in the same format, written
  independently of the recall code and of every other part (see ``blind2/README.md``).
* ``regression`` (``tasks/*.yaml``) — the original 48 tasks, one small store each,
  written together with the first enhancements: a regression guard, not an estimate.
* ``memorybench`` (``memorybench/*.yaml``) — the 15 tasks of Reasonix's own
  ``benchmarks/memorybench`` (MIT; see ``memorybench/README.md``), their seeded facts and
  prompts unchanged, their agent-level checks restated as checks on what recall hands the
  model.
* ``realistic2`` (``realistic2/*.yaml``) — two more stores in the format of ``realistic``
  (a Go/Kafka tracking backend, a Chinese-speaking data platform team), written with
  their tasks before the mechanisms of the second round were changed, for the kinds of
  miss the blind part showed: overrides under other wording, Chinese replacement wording,
  Chinese compounds about English facts, paraphrase, morphology beyond Snowball, single
  shared Chinese characters, titles that are the query.
* ``realistic3`` (``realistic3/*.yaml``) — three more stores (a React Native notes app, a
  Chinese-speaking e-commerce backend, a mixed Shanghai/Berlin logistics team), written
  with their tasks before the third (the first two) and fourth (the third) rounds of changes, weighted toward what still failed: paraphrase with no shared word, project
  overrides stated only as "we do X here", Chinese words whose dictionary sense is not the
  developer's, unrelated turns sharing common Chinese words with a fact, titles that are
  the query.
* ``realistic4`` (``realistic4/*.yaml``) — a payments team's store (English and Chinese),
  written with its tasks before the fifth round of changes: overrides naming a different
  tool than the global default, Chinese jargon and everyday words, paraphrase.
* ``zh5`` (``zh5/*.yaml``) — a Chinese-speaking chat-app team's store (Chinese, English,
  mixed), written with its tasks before the sixth round of changes: the team's jargon and
  abbreviations asked across languages, near-miss neighbours, short everyday Chinese turns.
* ``override5`` (``override5/*.yaml``) — two stores (English; Chinese) where project facts
  do a global default's job with another tool or value, facts sharing a word with a
  default that replace nothing, and supersession in plain words.
* ``paraphrase5`` (``paraphrase5/*.yaml``) — a clinic-booking team's store, written with its
  tasks before the sixth round: questions in the asker's own words sharing no content word
  with the fact, near-miss neighbours, generic and unrelated turns that must stay silent.
* ``zh6`` (``zh6/*.yaml``) — a Chinese-speaking smart-home team's store, written with its
  tasks before the seventh round: jargon no dictionary holds, words whose first gloss is not
  the developer's, both languages across, short everyday and unrelated Chinese turns.
* ``precision6`` (``precision6/*.yaml``) — two stores (English; Chinese) written before the
  seventh round: turns made only of everyday words that the stores also hold (must stay
  silent), short real questions in everyday words (must recall), overrides by another tool,
  and supersession with no "replace" verb (turned off, 撤掉, a dated change).
* ``resolve7`` (``resolve7/*.yaml``) — a mixed English/Chinese parcel-tracking team's store,
  written with its tasks before the eighth round: eight overrides by another tool (the
  default never named), five changes stated without a "replace" verb, turns of everyday
  words the store also holds (silent), short real questions (recall).
* ``morph6`` (``morph6/*.yaml``) — an invoicing team's store, written with its tasks before
  the seventh round: tools named by what they do ("the error tracker", "the linter") against
  facts that say what the team does ("we track exceptions", "we lint with"), paraphrase, and
  everyday turns sharing a word with a fact (dock, fold, contain, serve) that must stay silent;
  and a parcel-delivery team's store, written after the -er rule: other derivations
  (notifications / notify, failures / fails, maintain / maintenance) and everyday turns
  holding such a word (a stamp collector, a permission slip).
* ``override8`` (``override8/*.yaml``) — three stores (a Python data platform in English, a
  Chinese-speaking Go payment gateway, a React Native/Next.js app), written with their tasks
  before the override8 round: project facts doing a pinned default's job with another tool of
  the same role or another value (uv / conda, Rollbar / Sentry, just / Makefile, Prometheus /
  Datadog, asdf / gvm, ports, versions, branches, commit prefixes), tools of another role
  beside a default that must stay (a linter beside a formatter, a queue beside a cache), and
  each store's session-start block.
* ``zh7`` (``zh7/*.yaml``) — three stores (a food-delivery backend, a web front-end monorepo, a
  data/ML platform) of facts written in English, asked in Chinese and mixed Chinese/English the
  way Chinese-speaking developers ask (压测, 灰度, 热修, 封版, 排期, 负责人, 联调, 补数, 跑批…),
  written with its tasks before the changes made for it (the zh7 round); everyday and unrelated Chinese turns (silent).
* ``rank8`` (``rank8/*.yaml``) — two stores (a Go freight-tracking backend, a collaborative
  editor), written with their tasks before the rank8 round: turns naming what a fact's title is
  about, questions whose head noun decides between facts on one subject (owner / runtime /
  deploys), quoted literals (env vars, flags, dotted keys, errors, paths, routes, ports) against
  neighbours holding a sibling, and silent generic and irrelevant turns.
* ``paraphrase8`` (``paraphrase8/*.yaml``) — two stores (a hotel-booking platform, a fitness
  app), written with their tasks before the answer-type round: questions asked the way
  developers ask them in chat ("who's the go-to person for …?", "what's the local port for
  …?", "when do … go out?") sharing no content word with the fact, neighbours that hold the
  same kind of answer (two owners, two ports, several schedules), and generic and unrelated
  turns that ask who/when/where/which too and must stay silent.
* ``synonym8`` (``synonym8/*.yaml``) — a freelance marketplace's and a platform team's
  stores, written with their tasks before the lexical-dictionary bridge was built: the
  fact's idea in other words (a synonym, a word of the same family, a broader or narrower
  word), near-miss neighbours, generic and unrelated turns that must stay silent.

Each task sends one prompt through automatic recall over its store, and checks the
result. Three arms run side by side:

* ``off``       — memory hidden (``REASONIX_EXPERIMENT_NO_MEMORY=1``): no pinned block, no recall;
* ``exact``     — ``reasonix-exact``: the Reasonix algorithm alone, byte for byte;
* ``enhanced``  — this project's default, with every improvement on.

``--ablate`` adds one column per improvement (enhanced with that one switched off), so
each improvement's contribution shows as a delta.

Checks (``expect:``): ``select``/``not_select`` (fact ids in the recall block),
``rank_below: [[low, high]]`` (``high`` recalled and ``low`` absent or after it),
``contain``/``not_contain`` (regexes over what the agent sees: pinned block + recall
block), ``flag: {id: word}`` (the entry carries a visible marker with that word; ``not_flag`` the
opposite),
``pinned``/``not_pinned`` (fact ids in the session-start block), ``silent`` (no recall
block), ``no_noise`` (none of the generated noise facts is recalled), ``first`` (that fact
is the block's first entry), ``superseded: {old: new}`` (``new`` recalled; ``old`` absent,
or after ``new`` with a visible superseded/outdated marker), ``ok`` (facts that may be
recalled without counting against precision; not a check).

Besides pass/fail the report gives, per part, class and arm: *irrelevant hits* (recalled
facts that are neither required nor allowed by ``ok``; an old fact shown with its
superseded marker does not count) and *target at #1* (tasks whose ``first`` fact — or
first ``select`` — is the block's first entry). Every task is validated first: a ``not_contain`` pattern that matches one of its
own ``contain`` patterns makes the task unpassable (memorybench's mb-contradiction bug),
and the runner refuses it.

Usage::

    python benchmarks/retrieval/run.py [-v] [--ablate] [--json] [--task SUBSTR] [--summary] [--part realistic|blind|blind2|regression|memorybench|realistic2|realistic3|realistic4|zh5|override5|paraphrase5|zh6|precision6|resolve7|morph6|override8|zh7|rank8|paraphrase8|synonym8]
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import tempfile
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import yaml

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from reasonix_tui.core.compat.gotime import DAY_NS, Timestamp, parse_rfc3339  # noqa: E402
from reasonix_tui.core.paths import Layout  # noqa: E402
from reasonix_tui.core.recall import Enhancements, pinned_report, recall  # noqa: E402
from reasonix_tui.core.settings import Settings  # noqa: E402
from reasonix_tui.core.store.fileformat import render_fact  # noqa: E402
from reasonix_tui.core.store.model import Fact, FactId, slug  # noqa: E402
from reasonix_tui.core.store.store import Store  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent))
from noise import noise_facts  # noqa: E402

TASK_DIR = Path(__file__).resolve().parent / "tasks"
STORE_DIR = Path(__file__).resolve().parent / "realistic"
BLIND_DIR = Path(__file__).resolve().parent / "blind"
STORE2_DIR = Path(__file__).resolve().parent / "realistic2"
STORE3_DIR = Path(__file__).resolve().parent / "realistic3"
STORE4_DIR = Path(__file__).resolve().parent / "realistic4"
STORE5_DIR = Path(__file__).resolve().parent / "zh5"
STORE6_DIR = Path(__file__).resolve().parent / "override5"
PARA5_DIR = Path(__file__).resolve().parent / "paraphrase5"
ZH6_DIR = Path(__file__).resolve().parent / "zh6"
PREC6_DIR = Path(__file__).resolve().parent / "precision6"
RES7_DIR = Path(__file__).resolve().parent / "resolve7"
MORPH6_DIR = Path(__file__).resolve().parent / "morph6"
OVER8_DIR = Path(__file__).resolve().parent / "override8"
ZH7_DIR = Path(__file__).resolve().parent / "zh7"
RANK8_DIR = Path(__file__).resolve().parent / "rank8"
PARA8_DIR = Path(__file__).resolve().parent / "paraphrase8"
SYN8_DIR = Path(__file__).resolve().parent / "synonym8"
BLIND2_DIR = Path(__file__).resolve().parent / "blind2"
MB_DIR = Path(__file__).resolve().parent / "memorybench"
DEFAULT_NOW = "2026-07-27T00:00:00Z"
CLASSES = (
    "contradiction",
    "stale",
    "conflict",
    "update",
    "distractor",
    "pin",
    "paraphrase",
    "exact",
    "symbols",
    "cjk",
    "cjk-short",
    "cross-language",
    "generic",
)
REALISTIC_CLASSES = (
    "same-subject",
    "supersession",
    "override",
    "session-start",
    "zh-segmentation",
    "xlang-zh-en",
    "xlang-en-zh",
    "paraphrase",
    "title-rank",
    "literal",
    "generic",
    "irrelevant",
)
REALISTIC2_CLASSES = (*REALISTIC_CLASSES[:8], "morphology", *REALISTIC_CLASSES[8:])
"""``realistic2`` adds morphology beyond the stemmer (logger / logging)."""
MB_CLASSES = (
    "contradiction",
    "stale",
    "conflict",
    "update",
    "history",
    "distractor",
    "pin",
    "paraphrase",
    "exact",
    "symbol",
    "cjk",
    "generic",
    "v1miss",
)
PARTS = (
    "realistic",
    "blind",
    "blind2",
    "regression",
    "memorybench",
    "realistic2",
    "realistic3",
    "realistic4",
    "zh5",
    "override5",
    "paraphrase5",
    "zh6",
    "precision6",
    "resolve7",
    "morph6",
    "override8",
    "zh7",
    "rank8",
    "paraphrase8",
    "synonym8",
)
STORE_PARTS = tuple(part for part in PARTS if part not in ("regression", "memorybench"))
"""Parts made of stores (one YAML per store, classes from ``REALISTIC_CLASSES``)."""
CHECK_KEYS = {
    "select",
    "not_select",
    "rank_below",
    "contain",
    "not_contain",
    "flag",
    "not_flag",
    "pinned",
    "not_pinned",
    "silent",
    "no_noise",
    "first",
    "superseded",
    "ok",
    "not_current",
}
SUPERSEDED_MARKS = ("supersed", "outdated")
"""A marker with one of these words says an entry is not current."""
NOT_CURRENT_MARKS = (*SUPERSEDED_MARKS, "stale")
"""``not_current``: the fact is absent, or shown with one of these words in its marker."""


@dataclass
class Task:
    """One task file."""

    id: str
    cls: str
    query: str
    facts: list[dict[str, Any]]
    expect: dict[str, Any]
    now: Timestamp
    title: str = ""
    noise: int = 0
    workspace: str = "workspace"
    path: str = ""
    part: str = "regression"
    store: str = ""
    """Realistic part: the store's name (tasks of one store share one built store)."""

    def all_fact_specs(self) -> list[dict[str, Any]]:
        """Seeded facts plus generated noise."""
        return self.facts + (noise_facts(self.noise, self.id) if self.noise else [])


def load_task(path: Path, part: str = "regression") -> Task:
    """Parse one YAML task."""
    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    now = parse_rfc3339(str(data.get("now") or DEFAULT_NOW))
    assert now is not None, f"{path}: bad now"
    return Task(
        id=str(data["id"]),
        cls=str(data["class"]),
        query=str(data["query"]),
        facts=list(data.get("facts") or []),
        expect=dict(data.get("expect") or {}),
        now=now,
        title=str(data.get("title") or ""),
        noise=int(data.get("noise") or 0),
        path=str(path),
        workspace=str(data.get("workspace") or "workspace"),
        part=part,
    )


def load_tasks(directory: Path = TASK_DIR, part: str = "regression") -> list[Task]:
    """Every task of a one-file-per-task part, sorted by class order then id."""
    tasks = [load_task(p, part) for p in sorted(directory.glob("*.yaml"))]
    order = {c: i for i, c in enumerate(_classes(part))}
    tasks.sort(key=lambda t: (order.get(t.cls, 99), t.id))
    return tasks


def load_store_tasks(directory: Path = STORE_DIR, part: str = "realistic") -> list[Task]:
    """Every task of a store part: one YAML per store (``facts`` + ``tasks``), sorted by class then id."""
    tasks: list[Task] = []
    for path in sorted(directory.glob("*.yaml")):
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
        now = parse_rfc3339(str(data.get("now") or DEFAULT_NOW))
        assert now is not None, f"{path}: bad now"
        facts = list(data.get("facts") or [])
        for t in data.get("tasks") or []:
            tasks.append(
                Task(
                    id=str(t["id"]),
                    cls=str(t["class"]),
                    query=str(t["query"]),
                    facts=facts,
                    expect=dict(t.get("expect") or {}),
                    now=now,
                    title=str(t.get("title") or ""),
                    path=str(path),
                    workspace=str(data.get("workspace") or "workspace"),
                    part=part,
                    store=str(data["store"]),
                )
            )
    order = {c: i for i, c in enumerate(_classes(part))}
    tasks.sort(key=lambda t: (order.get(t.cls, 99), t.id))
    return tasks


def load_all(part: str = "") -> list[Task]:
    """The tasks of one part, or of all (realistic, blind, blind2, regression, memorybench)."""
    out: list[Task] = []
    if part in ("", "realistic"):
        out += load_store_tasks()
    if part in ("", "blind"):
        out += load_store_tasks(BLIND_DIR, "blind")
    if part in ("", "blind2"):
        out += load_store_tasks(BLIND2_DIR, "blind2")
    if part in ("", "regression"):
        out += load_tasks()
    if part in ("", "memorybench"):
        out += load_tasks(MB_DIR, "memorybench")
    if part in ("", "realistic2"):
        out += load_store_tasks(STORE2_DIR, "realistic2")
    if part in ("", "realistic3"):
        out += load_store_tasks(STORE3_DIR, "realistic3")
    if part in ("", "realistic4"):
        out += load_store_tasks(STORE4_DIR, "realistic4")
    if part in ("", "zh5"):
        out += load_store_tasks(STORE5_DIR, "zh5")
    if part in ("", "override5"):
        out += load_store_tasks(STORE6_DIR, "override5")
    if part in ("", "paraphrase5"):
        out += load_store_tasks(PARA5_DIR, "paraphrase5")
    if part in ("", "zh6"):
        out += load_store_tasks(ZH6_DIR, "zh6")
    if part in ("", "precision6"):
        out += load_store_tasks(PREC6_DIR, "precision6")
    if part in ("", "resolve7"):
        out += load_store_tasks(RES7_DIR, "resolve7")
    if part in ("", "morph6"):
        out += load_store_tasks(MORPH6_DIR, "morph6")
    if part in ("", "override8"):
        out += load_store_tasks(OVER8_DIR, "override8")
    if part in ("", "zh7"):
        out += load_store_tasks(ZH7_DIR, "zh7")
    if part in ("", "rank8"):
        out += load_store_tasks(RANK8_DIR, "rank8")
    if part in ("", "paraphrase8"):
        out += load_store_tasks(PARA8_DIR, "paraphrase8")
    if part in ("", "synonym8"):
        out += load_store_tasks(SYN8_DIR, "synonym8")
    return out


def _classes(part: str) -> tuple[str, ...]:
    if part in ("realistic2", "morph6"):
        return REALISTIC2_CLASSES
    if part in STORE_PARTS:
        return REALISTIC_CLASSES
    return MB_CLASSES if part == "memorybench" else CLASSES


def validate(task: Task) -> list[str]:
    """Problems that make a task meaningless (it could never pass, or checks nothing)."""
    problems: list[str] = []
    e = task.expect
    unknown = set(e) - CHECK_KEYS
    if unknown:
        problems.append(f"unknown checks {sorted(unknown)}")
    if task.cls not in _classes(task.part):
        problems.append(f"unknown class {task.cls!r}")
    if not e:
        problems.append("no checks")
    ids = {str(f["id"]) for f in task.all_fact_specs()}
    must = set(e.get("select") or [])
    must_not = set(e.get("not_select") or [])
    named = must | must_not | set(e.get("pinned") or []) | set(e.get("not_pinned") or [])
    named |= set(e.get("flag") or {}) | set(e.get("not_flag") or {}) | set(e.get("ok") or [])
    named |= set(e.get("not_current") or [])
    sup = e.get("superseded") or {}
    named |= set(sup) | set(sup.values())
    if e.get("first"):
        named.add(e["first"])
    for fid in named:
        if fid not in ids:
            problems.append(f"check names unknown fact {fid}")
    if must & must_not:
        problems.append(f"ids both required and forbidden: {sorted(must & must_not)}")
    for low, high in e.get("rank_below") or []:
        if high in must_not:
            problems.append(f"rank_below needs {high} selected but it is forbidden")
        if low in must:
            pass
    for p in e.get("not_contain") or []:
        for c in e.get("contain") or []:
            if re.search(p, c):
                problems.append(f"not_contain {p!r} matches the required pattern {c!r}: the task can never pass")
    if set(e.get("pinned") or []) & set(e.get("not_pinned") or []):
        problems.append("ids both pinned and not pinned")
    if e.get("silent") and (must or e.get("contain") or sup or e.get("first")):
        problems.append("silent task also requires recall")
    for _old, new in sup.items():
        if new in must_not:
            problems.append(f"superseded: {new} must be recalled but it is forbidden")
    return problems


def _ts(now: Timestamp, days: float | None) -> Timestamp | None:
    if days is None:
        return None
    return Timestamp(now.ns - int(float(days) * DAY_NS))


def build_facts(task: Task, root: Path) -> tuple[Layout, list[Fact]]:
    """Write the task's facts as Reasonix files under ``root`` and load them through the store."""
    ws = root / task.workspace
    ws.mkdir(parents=True, exist_ok=True)
    layout = Layout.resolve(home=root / "state", workspace=ws)
    for spec in task.all_fact_specs():
        scope = spec.get("scope", "project")
        updated = _ts(task.now, spec.get("age_days", 1))
        fact = Fact(
            id=FactId(spec["id"]),
            revision=int(spec.get("revision", 1)),
            created_at=_ts(task.now, spec.get("created_days", spec.get("age_days", 1))),
            updated_at=updated,
            name=spec["name"],
            title=spec.get("title", ""),
            description=spec.get("description", ""),
            keywords=spec.get("keywords", ""),
            activation=spec.get("activation", ""),
            volatility=spec.get("volatility", ""),
            subject_key=spec.get("subject_key", ""),
            expires_at=(
                Timestamp(task.now.ns + int(float(spec["expires_in_days"]) * DAY_NS))
                if "expires_in_days" in spec
                else None
            ),
            last_verified_at=_ts(task.now, spec.get("verified_days_ago")),
            type=spec.get("type", "project"),
            scope=scope,
            body=str(spec.get("body", "")).strip(),
            file_scope=scope,
            supersedes=tuple(spec.get("supersedes") or ()),
        )
        directory = layout.dir_for(scope)
        directory.mkdir(parents=True, exist_ok=True)
        (directory / f"{slug(fact.name)}.md").write_text(render_fact(fact), encoding="utf-8")
        for old in spec.get("revisions") or ():
            rev_dir = directory / ".revisions" / fact.id
            rev_dir.mkdir(parents=True, exist_ok=True)
            old_fact = replace(fact, revision=int(old["revision"]), body=str(old["body"]).strip())
            (rev_dir / f"{old_fact.revision}.md").write_text(render_fact(old_fact), encoding="utf-8")
    store = Store(layout, settings=Settings(), actor="cli", clock=lambda: task.now, use_cache=False)
    return layout, list(store.snapshot().facts)


@dataclass
class Outcome:
    """What one arm produced for one task."""

    hits: list[str]
    markers: dict[str, str]
    recall_block: str
    pinned_ids: list[str]
    pinned_block: str
    suppressed: str
    failures: list[str] = field(default_factory=list)

    @property
    def passed(self) -> bool:
        return not self.failures

    @property
    def context(self) -> str:
        return self.pinned_block + "\n" + self.recall_block


def run_arm(task: Task, facts: list[Fact], arm: str, enhancements: Enhancements | None = None) -> Outcome:
    """Run one arm: ``off``, ``exact`` or ``enhanced``."""
    if arm == "off":
        settings = Settings(no_memory=True)
        res = recall(facts, task.query, task.now, settings)
        pin = pinned_report(facts=facts, settings=settings)
    else:
        mode = "reasonix-exact" if arm == "exact" else "enhanced"
        settings = Settings(recall_mode=mode)
        res = recall(
            facts, task.query, task.now, settings, mode=mode, enhancements=enhancements, workspace=task.workspace
        )
        pin = pinned_report(facts=facts, settings=settings)
    out = Outcome(
        hits=[str(h.fact.id) for h in res.hits],
        markers={str(h.fact.id): " ".join(h.markers).lower() for h in res.hits},
        recall_block=res.block,
        pinned_ids=[str(f.id) for f in pin.guidance.facts] if pin.block else [],
        pinned_block=pin.block,
        suppressed=res.suppressed,
    )
    out.failures = check(task, out)
    return out


def check(task: Task, o: Outcome) -> list[str]:
    """Failed checks, as short sentences."""
    e = task.expect
    fails: list[str] = []
    for fid in e.get("select") or []:
        if fid not in o.hits:
            fails.append(f"{fid} not recalled")
    for fid in e.get("not_select") or []:
        if fid in o.hits:
            fails.append(f"{fid} recalled")
    for low, high in e.get("rank_below") or []:
        if high not in o.hits:
            fails.append(f"{high} not recalled (should outrank {low})")
        elif low in o.hits and o.hits.index(low) < o.hits.index(high):
            fails.append(f"{low} ranked above {high}")
    for p in e.get("contain") or []:
        if not re.search(p, o.context):
            fails.append(f"missing /{p}/")
    for p in e.get("not_contain") or []:
        if re.search(p, o.context):
            fails.append(f"shows /{p}/")
    for fid, word in (e.get("flag") or {}).items():
        if fid in o.hits and str(word).lower() not in o.markers.get(fid, ""):
            fails.append(f"{fid} not flagged {word}")
        elif fid not in o.hits:
            fails.append(f"{fid} not recalled (to be flagged {word})")
    for fid, word in (e.get("not_flag") or {}).items():
        if str(word).lower() in o.markers.get(fid, ""):
            fails.append(f"{fid} wrongly flagged {word}")
    for fid in e.get("pinned") or []:
        if fid not in o.pinned_ids:
            fails.append(f"{fid} not in the pinned block")
    for fid in e.get("not_pinned") or []:
        if fid in o.pinned_ids:
            fails.append(f"{fid} in the pinned block")
    if e.get("no_noise"):
        noisy = [h for h in o.hits if h.startswith("mem-noise-")]
        if noisy:
            fails.append(f"recalled noise {', '.join(noisy)}")
    if e.get("silent") and o.recall_block:
        fails.append(f"recalled {', '.join(o.hits)} on a turn that should stay silent")
    for fid in e.get("not_current") or []:
        if fid in o.hits and not any(w in o.markers.get(fid, "") for w in NOT_CURRENT_MARKS):
            fails.append(f"{fid} shown as current")
    first = e.get("first")
    if first and (not o.hits or o.hits[0] != first):
        fails.append(f"{first} not first (got {o.hits[0] if o.hits else 'nothing'})")
    for old, new in (e.get("superseded") or {}).items():
        if new not in o.hits:
            fails.append(f"{new} not recalled (it replaces {old})")
        elif old in o.hits and (o.hits.index(old) < o.hits.index(new) or not _marked_superseded(o, old)):
            fails.append(f"{old} shown as current beside {new}")
    return fails


def _marked_superseded(o: Outcome, fid: str) -> bool:
    marks = o.markers.get(fid, "")
    return any(w in marks for w in SUPERSEDED_MARKS)


def irrelevant_hits(task: Task, o: Outcome) -> list[str]:
    """Recalled facts that the task neither requires nor allows (precision)."""
    e = task.expect
    relevant = set(e.get("select") or []) | set(e.get("ok") or []) | set((e.get("superseded") or {}).values())
    if e.get("first"):
        relevant.add(e["first"])
    out = []
    for fid in o.hits:
        if fid in relevant:
            continue
        if fid in (e.get("superseded") or {}) and _marked_superseded(o, fid):
            continue
        out.append(fid)
    return out


def target_first(task: Task, o: Outcome) -> bool | None:
    """Whether the task's target is the first entry (``None`` when the task names no target)."""
    e = task.expect
    target = e.get("first") or ((e.get("select") or [None])[0])
    if not target:
        return None
    return bool(o.hits) and o.hits[0] == target


def run_suite(tasks: list[Task], ablate: bool = False) -> list[dict[str, Any]]:
    """Every task through every arm."""
    arms: list[tuple[str, str, Enhancements | None]] = [
        ("off", "off", None),
        ("exact", "exact", None),
        ("enhanced", "enhanced", None),
    ]
    if ablate:
        for name in Enhancements.names():
            arms.append((f"-{name}", "enhanced", Enhancements().without(name)))
    rows = []
    built: dict[str, list[Fact]] = {}
    with tempfile.TemporaryDirectory(prefix="rx-bench-") as tmp:
        for i, task in enumerate(tasks):
            if task.store:
                key = f"{task.part}-{task.store}"  # two parts may name a store alike
                facts = built.get(key)
                if facts is None:
                    _, facts = build_facts(task, Path(tmp) / f"store-{key}")
                    built[key] = facts
            else:
                _, facts = build_facts(task, Path(tmp) / f"task-{i}")
            results = {label: run_arm(task, facts, arm, enh) for label, arm, enh in arms}
            rows.append({"task": task, "results": results})
    return rows


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("-v", "--verbose", action="store_true", help="print why each failing arm failed")
    parser.add_argument("--ablate", action="store_true", help="add one enhanced-minus-X column per improvement")
    parser.add_argument("--json", action="store_true", help="machine-readable results")
    parser.add_argument("--task", help="only tasks whose id contains this")
    parser.add_argument("--part", choices=PARTS, help="only one part (default: all)")
    parser.add_argument(
        "--summary",
        action="store_true",
        help="totals per class and arm only: no task ids (for held-out parts nobody may tune on)",
    )
    args = parser.parse_args(argv)

    tasks = load_all(args.part or "")
    if args.task:
        tasks = [t for t in tasks if args.task in t.id]
    bad = {t.id: validate(t) for t in tasks}
    bad = {k: v for k, v in bad.items() if v}
    if bad:
        for tid, problems in bad.items():
            for p in problems:
                print(f"INVALID {tid}: {p}", file=sys.stderr)
        return 2
    rows = run_suite(tasks, ablate=args.ablate)
    labels = list(rows[0]["results"]) if rows else []
    if args.json:
        print(
            json.dumps(
                [
                    {
                        "id": r["task"].id,
                        "part": r["task"].part,
                        "class": r["task"].cls,
                        "arms": {
                            k: {
                                "passed": v.passed,
                                "failures": v.failures,
                                "hits": v.hits,
                                "irrelevant": irrelevant_hits(r["task"], v),
                                "first": target_first(r["task"], v),
                            }
                            for k, v in r["results"].items()
                        },
                    }
                    for r in rows
                ],
                ensure_ascii=False,
                indent=2,
            )
        )
        return 0
    for part in PARTS:
        sub = [r for r in rows if r["task"].part == part]
        if sub:
            print_part(part, sub, labels, args.verbose, summary=args.summary)
    return 0


def print_part(part: str, rows: list[dict[str, Any]], labels: list[str], verbose: bool, summary: bool = False) -> None:
    """One part's task table, per-class totals, precision and target-at-#1 (``summary``:
    no task table and no task ids)."""
    print(f"\n=== {part} part: {len(rows)} tasks ===\n")
    width = max([len(r["task"].id) for r in rows] + [4])
    head = f"{'task':<{width}}  {'class':<16}" + "".join(f" {lab:>10}" for lab in labels)
    print(head)
    print("-" * len(head))
    for r in [] if summary else rows:
        t = r["task"]
        cells = "".join(f" {'PASS' if r['results'][lab].passed else 'fail':>10}" for lab in labels)
        print(f"{t.id:<{width}}  {t.cls:<16}{cells}")
        if verbose:
            for lab in labels:
                res = r["results"][lab]
                if not res.passed:
                    print(f"{'':<{width}}    {lab}: " + "; ".join(res.failures))
    print("-" * len(head))
    classes = _classes(part)
    print(f"\n{part}: passed / tasks by class")
    print(f"{'class':<16}" + "".join(f" {lab:>10}" for lab in labels))
    for cls in classes:
        sub = [r for r in rows if r["task"].cls == cls]
        if not sub:
            continue
        print(
            f"{cls:<16}" + "".join(f" {sum(r['results'][lab].passed for r in sub):>5}/{len(sub):<4}" for lab in labels)
        )
    print(
        f"{'TOTAL':<16}"
        + "".join(f" {sum(r['results'][lab].passed for r in rows):>5}/{len(rows):<4}" for lab in labels)
    )
    print(
        f"{'percent':<16}"
        + "".join(f" {100.0 * sum(r['results'][lab].passed for r in rows) / len(rows):>9.1f}%" for lab in labels)
    )
    # precision and target at #1
    print(f"\n{part}: recalled facts that are not relevant (hits) / target first (tasks with a target)")
    print(f"{'class':<16}" + "".join(f" {lab:>14}" for lab in labels))
    for cls in (*classes, "TOTAL"):
        sub = [r for r in rows if cls == "TOTAL" or r["task"].cls == cls]
        if not sub:
            continue
        cells = []
        for lab in labels:
            irr = sum(len(irrelevant_hits(r["task"], r["results"][lab])) for r in sub)
            hits = sum(len(r["results"][lab].hits) for r in sub)
            firsts = [target_first(r["task"], r["results"][lab]) for r in sub]
            firsts = [f for f in firsts if f is not None]
            top = f"{sum(firsts)}/{len(firsts)}" if firsts else "-"
            cells.append(f"{irr:>3}/{hits:<3} {top:>6}")
        print(f"{cls:<16}" + "".join(f" {c:>14}" for c in cells))
    if "exact" in labels and "enhanced" in labels:
        fixed = [r["task"].id for r in rows if r["results"]["enhanced"].passed and not r["results"]["exact"].passed]
        broke = [r["task"].id for r in rows if not r["results"]["enhanced"].passed and r["results"]["exact"].passed]
        helped = [r["task"].id for r in rows if r["results"]["exact"].passed and not r["results"]["off"].passed]
        hurt = [r["task"].id for r in rows if not r["results"]["exact"].passed and r["results"]["off"].passed]
        print(
            f"\nmemory (exact) vs off: helped {len(helped)}, hurt {len(hurt)}"
            + (f" ({', '.join(hurt)})" if hurt and not summary else "")
        )
        print(
            f"enhanced vs exact: fixed {len(fixed)}, regressed {len(broke)}"
            + (f" ({', '.join(broke)})" if broke and not summary else "")
        )


if __name__ == "__main__":
    raise SystemExit(main())
