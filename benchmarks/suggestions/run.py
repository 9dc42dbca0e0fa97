"""Suggestion quality suite: realistic histories with planted durable things and noise.

Each history (``histories/*.yaml``) is a week of one project: Claude Code transcripts and
Reasonix sessions (rendered by ``render.py`` into the exact files the tools write), Claude
Code auto-memory files, and facts already in the store. User turns that state something
worth a durable memory carry ``plant: <id>``; turns that must not become one carry
``noise: <kind>``. The expected lists (``expected:``) were written with the histories,
before the miner was tuned.

For every history the runner builds an isolated home, asks the product for its
suggestions exactly as ``reasonix-tui suggest`` does (the default list, after dismissals,
cap and merging), and judges each candidate:

* a **memory** candidate is *right* for a planted item when one of its evidence sources
  points at a message (or auto-memory file) planted for that item **and** its title or
  description matches the item's terms (a cut fragment such as ``always`` does not);
  a second candidate for the same item is a *duplicate* (wrong: it should have merged);
* a planted statement that an existing fact already covers must not be shown
  (``covered``); one that contradicts a fact must be shown as an update of that fact
  (``updates``: the candidate names the fact);
* a **skill** candidate is right for a planted procedure when its evidence covers at
  least two of the sessions the procedure was repeated in and its text names the
  procedure's key steps.

Everything else shown is wrong, and is reported by what it came from (the noise kind of
the message its evidence points at, or ``unlabelled``). The runner prints recall per
planted kind and language, precision per candidate kind, and the wrong candidates.

Usage::

    python benchmarks/suggestions/run.py [-v] [--json] [--history NAME] [--export DIR] [--heldout | --fresh]
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import sys
import tempfile
from collections import Counter, defaultdict
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))
HERE = Path(__file__).resolve().parent
if str(HERE) not in sys.path:
    sys.path.insert(0, str(HERE))

from render import render_history  # noqa: E402

HISTORY_DIR = HERE / "histories"
HELDOUT_DIR = HERE / "heldout"
FRESH_DIR = HERE / "fresh"
MEMORY_KINDS = ("fact", "rule", "correction", "preference")


@dataclass
class Verdict:
    """One shown candidate and what the suite makes of it."""

    history: str
    kind: str
    """``memory`` or ``skill``."""
    id: str
    title: str
    description: str
    right: bool
    item: str = ""
    """The planted item it was counted for (when right)."""
    why: str = ""
    """Why it is wrong (noise kind, duplicate, covered, fragment, …)."""


@dataclass
class HistoryResult:
    """Verdicts and planted items of one history."""

    name: str
    verdicts: list[Verdict] = field(default_factory=list)
    found: dict[str, bool] = field(default_factory=dict)
    """Planted item id → found."""
    items: dict[str, dict[str, Any]] = field(default_factory=dict)
    sessions: int = 0


def load_history(path: Path) -> dict[str, Any]:
    """A history script, checked for labels that name no expected item."""
    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    exp = data.get("expected") or {}
    ids = {m["id"] for m in exp.get("memories", [])} | {u["id"] for u in exp.get("updates", [])}
    ids |= set(exp.get("covered", []))
    for sess in data["sessions"]:
        for turn in sess["turns"]:
            if turn.get("plant") and turn["plant"] not in ids:
                raise SystemExit(f"{path.name}: session {sess['key']} plants {turn['plant']!r}, which is not expected")
    return data


@contextmanager
def isolated_env(home: Path) -> Iterator[None]:
    """HOME, the Reasonix roots and Claude's config dir pointed into ``home``."""
    keys = ("HOME", "REASONIX_HOME", "REASONIX_STATE_HOME", "CLAUDE_CONFIG_DIR", "REASONIX_EXPERIMENT_NO_MEMORY")
    saved = {k: os.environ.get(k) for k in keys}
    os.environ["HOME"] = str(home)
    os.environ["REASONIX_HOME"] = str(home / ".reasonix")
    os.environ["CLAUDE_CONFIG_DIR"] = str(home / ".claude")
    os.environ.pop("REASONIX_STATE_HOME", None)
    os.environ.pop("REASONIX_EXPERIMENT_NO_MEMORY", None)
    try:
        yield
    finally:
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v


def build(history: dict[str, Any], base: Path) -> tuple[Any, Any, list[Any], dict[tuple[str, int], str]]:
    """Render a history into ``base``: ``(layout, store, sessions, labels)`` where labels map
    ``(session id, message index)`` to ``plant:x`` / ``noise:y``."""
    from reasonix_tui.core.paths import Layout
    from reasonix_tui.core.sessions.transcripts import read_transcript
    from reasonix_tui.core.sessions.user_text import user_message_text
    from reasonix_tui.core.store.requests import SaveRequest
    from reasonix_tui.core.store.store import Store

    home = base / "home"
    (home / ".reasonix").mkdir(parents=True)
    (home / ".claude").mkdir(parents=True)
    ws = base / "work" / history["project"]
    (ws / ".git").mkdir(parents=True)
    for rel, text in (history.get("workspace_files") or {}).items():
        (ws / rel).parent.mkdir(parents=True, exist_ok=True)
        (ws / rel).write_text(text, encoding="utf-8")
    layout = Layout.resolve(home=home / ".reasonix", workspace=ws)
    rendered = render_history(history, home / ".reasonix", home / ".claude", str(ws))
    store = Store(layout, actor="cli")
    for fact in history.get("store") or []:
        store.save(SaveRequest(**fact))
    labels: dict[tuple[str, int], str] = {}
    for r in rendered:
        t = read_transcript(str(r.path), "claude" if r.fmt == "claude" else "reasonix")
        for index, msg in enumerate(t.messages):
            if msg.role != "user":
                continue
            label = r.labels.get(user_message_text(msg)) or r.labels.get(msg.content)
            if label:
                labels[(r.session_id, index)] = label
        missing = set(r.labels.values()) - {labels.get((r.session_id, i)) for i in range(len(t.messages))}
        if missing:
            raise SystemExit(f"{history['project']}/{r.key}: labelled turns not found in the written file: {missing}")
    return layout, store, rendered, labels


def _matches(groups: list[list[str]], text: str) -> bool:
    return all(any(re.search(alt, text, re.I) for alt in group) for group in groups)


def _text(c: Any) -> str:
    return " ".join(str(getattr(c, k, "") or "") for k in ("title", "description"))


def _sources(c: Any) -> list[Any]:
    return list(getattr(c, "sources", ()) or ())


def judge(
    name: str, history: dict[str, Any], view: Any, labels: dict[tuple[str, int], str], rendered: list[Any]
) -> HistoryResult:
    """Verdicts for every shown candidate of one history."""
    exp = history.get("expected") or {}
    items: dict[str, dict[str, Any]] = {}
    for m in exp.get("memories", []):
        items[m["id"]] = {**m, "group": "memory"}
    for u in exp.get("updates", []):
        items[u["id"]] = {**u, "group": "update", "kind": "update"}
    for s in exp.get("skills", []):
        items[s["id"]] = {**s, "group": "skill", "kind": "procedure"}
    covered = set(exp.get("covered", []))
    key_to_sid = {r.key: r.session_id for r in rendered}
    res = HistoryResult(name=name, items=items, found={k: False for k in items}, sessions=len(rendered))

    for c in view.memories:
        srcs = _sources(c)
        hit_labels = [labels.get((s.label, s.line)) for s in srcs if s.source in ("session", "claude-session")]
        hit_labels = [h for h in hit_labels if h]
        planted = [h[6:] for h in hit_labels if h.startswith("plant:")]
        files = {os.path.basename(s.path) for s in srcs if s.source == "claude-memory"}
        for iid, item in items.items():
            if item["group"] != "memory" or not item.get("memory_file"):
                continue
            if item["memory_file"] in files:
                planted.append(iid)
        v = Verdict(name, "memory", c.id, c.title, c.description, False)
        candidates = [p for p in dict.fromkeys(planted) if p in items or p in covered]
        if not candidates:
            noise = [h[6:] for h in hit_labels if h.startswith("noise:")]
            v.why = "noise:" + noise[0] if noise else ("unlabelled:" + (srcs[0].source if srcs else "?"))
            res.verdicts.append(v)
            continue
        reason = ""
        for iid in candidates:
            if iid in covered:
                reason = reason or "covered by an existing fact"
                continue
            item = items[iid]
            if not _matches(item.get("match", []), _text(c)):
                reason = reason or f"fragment of {iid}"
                continue
            updates = str(getattr(c, "updates", "") or "")
            if item["group"] == "update":
                if item.get("fact") and item["fact"] not in updates:
                    reason = reason or f"{iid} not shown as an update of {item['fact']}"
                    continue
            elif updates:
                reason = reason or f"{iid} wrongly shown as an update of {updates}"
                continue
            if res.found[iid]:
                reason = reason or f"duplicate of {iid}"
                continue
            res.found[iid] = True
            v.right, v.item = True, iid
            break
        if not v.right:
            v.why = reason
        res.verdicts.append(v)

    for s in view.skills:
        sess = {e.label for e in _sources(s)}
        text = " ".join((s.name, s.description, s.body))
        v = Verdict(name, "skill", s.id, s.name, s.description, False)
        for iid, item in items.items():
            if item["group"] != "skill":
                continue
            planted = {key_to_sid[k] for k in item["sessions"]}
            if len(sess & planted) >= 2 and _matches(item.get("match", []), text):
                if res.found[iid]:
                    v.why = f"duplicate of {iid}"
                    break
                res.found[iid] = True
                v.right, v.item = True, iid
                break
        else:
            v.why = "no planted procedure"
        res.verdicts.append(v)
    return res


def run_history(path: Path, export: Path | None = None) -> HistoryResult:
    """Render one history in a temporary home and judge the product's suggestions."""
    history = load_history(path)
    tmp = Path(tempfile.mkdtemp(prefix="sugg-suite-"))
    try:
        with isolated_env(tmp / "home"):
            from reasonix_tui.core.sessions.suggestions import list_suggestions

            layout, store, rendered, labels = build(history, tmp)
            view = list_suggestions(layout, store)
            res = judge(path.stem, history, view, labels, rendered)
        if export is not None:
            dest = export / path.stem
            if dest.exists():
                shutil.rmtree(dest)
            shutil.copytree(tmp, dest, symlinks=True)
        return res
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def _ratio(a: int, b: int) -> str:
    return f"{a}/{b} ({100.0 * a / b:.0f}%)" if b else "0/0 (n/a)"


def summarize(results: list[HistoryResult]) -> dict[str, Any]:
    """Totals: recall per planted kind and language, precision per candidate kind."""
    recall_kind: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    recall_lang: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    prec: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    wrong: Counter[str] = Counter()
    for r in results:
        for iid, item in r.items.items():
            for table, key in ((recall_kind, item.get("kind", "?")), (recall_lang, item.get("lang", "en"))):
                table[key][1] += 1
                table[key][0] += int(r.found[iid])
        for v in r.verdicts:
            prec[v.kind][1] += 1
            prec[v.kind][0] += int(v.right)
            if not v.right:
                wrong[v.why.split(" of ")[0] if v.why.startswith(("duplicate", "fragment")) else v.why] += 1
    planted = sum(len(r.items) for r in results)
    found = sum(sum(r.found.values()) for r in results)
    shown = sum(len(r.verdicts) for r in results)
    right = sum(v.right for r in results for v in r.verdicts)
    memory_items = [(r, i) for r in results for i, it in r.items.items() if it["group"] != "skill"]
    skill_items = [(r, i) for r in results for i, it in r.items.items() if it["group"] == "skill"]
    return {
        "recall": [found, planted],
        "precision": [right, shown],
        "recall_memories": [sum(r.found[i] for r, i in memory_items), len(memory_items)],
        "recall_skills": [sum(r.found[i] for r, i in skill_items), len(skill_items)],
        "recall_by_kind": dict(recall_kind),
        "recall_by_language": dict(recall_lang),
        "precision_by_kind": dict(prec),
        "wrong_by_cause": dict(wrong.most_common()),
    }


def main(argv: list[str] | None = None) -> int:
    """Run the suite and print the figures."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("-v", "--verbose", action="store_true", help="every candidate with its verdict")
    ap.add_argument("--json", action="store_true", help="machine-readable figures")
    ap.add_argument("--history", help="run only histories whose name contains this")
    ap.add_argument("--export", type=Path, help="copy each rendered home (transcripts as written) here")
    ap.add_argument(
        "--build",
        type=Path,
        metavar="DIR",
        help="only render each history into DIR/<name>/ (home/.reasonix, home/.claude, work/<project>) "
        "to try the CLI or the Context Center on it; prints the commands",
    )
    ap.add_argument(
        "--heldout",
        action="store_true",
        help="run the held-out histories (written after the miner's first version) instead",
    )
    ap.add_argument(
        "--fresh",
        action="store_true",
        help="run the fresh histories (written after the miner was finished, expected lists committed "
        "before their first run) instead",
    )
    args = ap.parse_args(argv)
    folder = FRESH_DIR if args.fresh else HELDOUT_DIR if args.heldout else HISTORY_DIR
    paths = sorted(p for p in folder.glob("*.yaml") if not args.history or args.history in p.stem)
    if not paths:
        print("no history matches", file=sys.stderr)
        return 2
    if args.build is not None:
        for p in paths:
            base = (args.build / p.stem).resolve()
            if base.exists():
                shutil.rmtree(base)
            with isolated_env(base / "home"):
                build(load_history(p), base)
            print(
                f"HOME={base / 'home'} CLAUDE_CONFIG_DIR={base / 'home' / '.claude'} reasonix-tui "
                f"--home {base / 'home' / '.reasonix'} --workspace {base / 'work' / load_history(p)['project']} suggest"
            )
        return 0
    results = [run_history(p, args.export) for p in paths]
    s = summarize(results)
    if args.json:
        out = {
            **s,
            "histories": [
                {"name": r.name, "sessions": r.sessions, "found": r.found, "verdicts": [v.__dict__ for v in r.verdicts]}
                for r in results
            ],
        }
        print(json.dumps(out, ensure_ascii=False, indent=2))
        return 0
    for r in results:
        right = sum(v.right for v in r.verdicts)
        print(
            f"{r.name}: {r.sessions} sessions · shown {len(r.verdicts)}, right {right} · "
            f"found {sum(r.found.values())}/{len(r.items)}"
        )
        if args.verbose:
            for v in r.verdicts:
                mark = "✓" if v.right else "✗"
                print(f"  {mark} [{v.kind}] {v.title[:70]!r}" + (f"  → {v.item}" if v.right else f"  ({v.why})"))
            missed = [i for i, ok in r.found.items() if not ok]
            if missed:
                print("  missed: " + ", ".join(missed))
    print()
    print(
        f"recall    {_ratio(*s['recall'])}   (memories {_ratio(*s['recall_memories'])}, "
        f"skills {_ratio(*s['recall_skills'])})"
    )
    print(f"precision {_ratio(*s['precision'])}")
    print("recall by kind:      " + "  ".join(f"{k} {_ratio(*v)}" for k, v in sorted(s["recall_by_kind"].items())))
    print("recall by language:  " + "  ".join(f"{k} {_ratio(*v)}" for k, v in sorted(s["recall_by_language"].items())))
    print("precision by kind:   " + "  ".join(f"{k} {_ratio(*v)}" for k, v in sorted(s["precision_by_kind"].items())))
    if s["wrong_by_cause"]:
        print("wrong candidates:    " + ", ".join(f"{k} ×{n}" for k, n in s["wrong_by_cause"].items()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
