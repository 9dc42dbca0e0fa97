"""Merging statements that say the same thing into clusters.

Items with the same concrete things and words (across phrasing and language) join one
cluster; a newer statement that gives another value of the same subject supersedes the
older one, which is kept as evidence only.
"""

from __future__ import annotations

from bisect import insort
from collections import Counter, defaultdict
from collections.abc import Sequence

from .items import Item, add_tools, anchor, containment, text_terms, weighted_overlap
from .signals import THRESHOLD

__all__ = ["cluster_items", "prepare_items", "MERGE_SIMILARITY"]


MERGE_SIMILARITY = 0.5
"""Weighted overlap at which two statements are the same candidate."""


def prepare_items(items: Sequence[Item], tools: frozenset[str]) -> None:
    """Merge terms of every item (tool names recognised against the commands the history ran)."""
    for it in items:
        if it.terms:  # computed when the transcript was mined
            add_tools(it.terms, it.values, it.words, tools)
            add_tools(it.core_terms, set(), it.words, tools)
        else:
            it.terms, it.values = text_terms(it.text + " " + it.title, tools)
            it.core_terms, _ = text_terms(it.core or it.text, tools)
        it.weight = sum(it.terms.values())


def rank_key(it: Item) -> tuple[float, int]:
    return (-it.score, -it.at_ns)


def cluster_items(items: Sequence[Item], seed: Sequence[Sequence[Item]] = ()) -> list[list[Item]]:
    """Greedy clusters, strongest item first: the same statement joins at once; otherwise
    an item joins the cluster whose first members (the strongest) it matches best, found
    through the terms they share — a concrete thing counts twice; a term most clusters
    have is not looked up, except an item's rarest terms. Statements under the threshold
    stay alone.

    ``seed``: clusters of an earlier listing (their members prepared); ``items`` are then
    only what is new since, and join those clusters by the same rule (members stay in rank
    order, so a cluster's first members are still its strongest).
    """
    order = sorted(range(len(items)), key=lambda i: (-items[i].score, -items[i].at_ns, i))
    df: Counter[str] = Counter(t for c in seed for it in c for t in it.terms)
    df.update(t for it in items for t in it.terms)
    clusters: list[list[Item]] = []
    index: dict[str, set[int]] = defaultdict(set)
    by_key: dict[str, int] = {}
    for c in seed:
        if not c:
            continue
        clusters.append(sorted(c, key=rank_key))
        ci = len(clusters) - 1
        for it in c:
            if it.score < THRESHOLD:
                continue
            by_key.setdefault(it.key, ci)
            for t in it.terms:
                index[t].add(ci)
    for i in order:
        it = items[i]
        if it.score < THRESHOLD:  # a weak statement never joins (nor props up) a candidate
            clusters.append([it])
            continue
        key = it.key
        if key in by_key:
            insort(clusters[by_key[key]], it, key=rank_key)
            continue
        rare = sorted(it.terms, key=lambda t: (df[t], t))
        hits: Counter[int] = Counter()
        for n, t in enumerate(rare):
            posting = index.get(t)
            if not posting or (n >= 3 and len(posting) > 50) or len(posting) > 400:
                continue
            for cluster_no in posting:
                hits[cluster_no] += 2 if t in it.values else 1
        best, best_sim = -1, 0.0
        for cluster_no, h in hits.most_common(4):
            if h < 2:
                break
            for other in clusters[cluster_no][:3]:
                sim = similar(it, other)
                if (
                    sim >= MERGE_SIMILARITY
                    and sim > best_sim
                    and anchor(it.terms, other.terms)
                    and not clash(it, other)
                    and not other_objects(it, other)
                ):
                    best, best_sim = cluster_no, sim
        if best < 0:
            clusters.append([it])
            best = len(clusters) - 1
        else:
            insort(clusters[best], it, key=rank_key)
        by_key.setdefault(key, best)
        for t in it.terms:
            index[t].add(best)
    return clusters


CLASH_KINDS = frozenset({"host", "ip", "port", "url", "version", "ident", "path", "file", "env", "handle"})


def word_space(terms: dict[str, float]) -> dict[str, float]:
    return {t: w for t, w in terms.items() if t.startswith("w:")}


def similar(a: Item, b: Item) -> float:
    """Weighted overlap over the smaller side; across languages (one side Chinese) in the
    shared English word space, where the Chinese side's dictionary glosses meet the other
    side's words."""
    za = any(t.startswith("z:") for t in a.terms)
    zb = any(t.startswith("z:") for t in b.terms)
    if za != zb:
        wa, wb = word_space(a.terms), word_space(b.terms)
        low = min(sum(wa.values()), sum(wb.values()))
        lexical = weighted_overlap(wa, wb) / low if low else 0.0
        low_all = min(a.weight, b.weight)
        return max(lexical, weighted_overlap(a.terms, b.terms) / low_all if low_all else 0.0)
    low = min(a.weight, b.weight)
    return weighted_overlap(a.terms, b.terms) / low if low else 0.0


def other_objects(a: Item, b: Item) -> bool:
    """Sharing no concrete thing and fewer than three words, each names something the other
    does not ("run lint before committing" / "run the tests before committing")."""
    if a.values & b.values:
        return False
    wa = {t for t in a.terms if t.startswith(("w:", "z:"))}
    wb = {t for t in b.terms if t.startswith(("w:", "z:"))}
    shared = wa & wb
    za = any(t.startswith("z:") for t in wa)
    zb = any(t.startswith("z:") for t in wb)
    if za != zb:  # across languages only the English side's words must all be there
        english = wa if not za else wb
        return bool(english - shared) and len(shared) < 3
    return len(shared) < 3 and bool(wa - shared) and bool(wb - shared)


def clash(a: Item, b: Item) -> bool:
    """Both name a concrete thing of one kind and none in common (two hosts, two ports):
    not the same statement (one may supersede the other, which is decided later)."""
    ka: dict[str, set[str]] = defaultdict(set)
    for v in a.values:
        ka[v.split(":", 1)[0]].add(v)
    for kind in ka.keys() & CLASH_KINDS:
        theirs = {v for v in b.values if v.startswith(kind + ":")}
        if theirs and not (theirs & ka[kind]):
            return True
    return False


def subject_terms(it: Item) -> dict[str, float]:
    return {t: w for t, w in it.terms.items() if t not in it.values}


def supersedes(new: Item, old: Item) -> bool:
    """``new`` gives another value of the same kind on ``old``'s subject (a host, a port,
    a version where the older statement named a different one) and says it changed (or
    corrects the assistant) — two statements that merely differ may be about two subjects."""
    if not any(r.startswith(("change of state", "correction")) for r in new.reasons):
        return False
    kinds_new: dict[str, set[str]] = defaultdict(set)
    kinds_old: dict[str, set[str]] = defaultdict(set)
    for v in new.values:
        kinds_new[v.split(":", 1)[0]].add(v)
    for v in old.values:
        kinds_old[v.split(":", 1)[0]].add(v)
    differs = any(
        kinds_new[k] - kinds_old[k] and kinds_old[k] - kinds_new[k]
        for k in kinds_new.keys() & kinds_old.keys()
        if k not in ("tool", "name")
    )
    if not differs:
        return False
    a, b = subject_terms(new), subject_terms(old)
    shared = sum(1 for t in a.keys() & b.keys() if t.startswith(("w:", "z:")))
    # The older statement's subject must be in the newer one: "the orders service talks
    # to …" is not superseded by "the invoices service talks to …".
    return shared >= 2 and containment(b, a) >= 0.9


def fold_superseded(clusters: list[list[Item]]) -> list[list[Item]]:
    """An older cluster whose statement a newer one supersedes joins the newer cluster
    (its items marked superseded: evidence of what was said before, never the title)."""
    latest = [max(m.at_ns for m in c) for c in clusters]
    order = sorted(range(len(clusters)), key=lambda i: -latest[i])
    subjects = [subject_terms(c[0]) for c in clusters]
    df: Counter[str] = Counter(t for subj in subjects for t in subj)
    index: dict[str, list[int]] = defaultdict(list)
    into: dict[int, int] = {}
    for i in order:
        head = clusters[i][0]
        if head.origin != "history" or not head.values or head.score < THRESHOLD:
            continue
        changer = says_changed(head)
        if sum(1 for t in subjects[i] if t in index) < 2:  # no newer statement can supersede it
            if changer:
                for t in subjects[i]:
                    index[t].append(i)
            continue
        subject = sorted(subjects[i], key=lambda t: (df[t], t))
        hits: Counter[int] = Counter()
        for n, t in enumerate(subject):
            posting = index.get(t, ())
            if (n >= 3 and len(posting) > 50) or len(posting) > 400:
                continue
            for j in posting:
                hits[j] += 1
        target = next((j for j, h in hits.most_common(6) if h >= 2 and supersedes(clusters[j][0], head)), -1)
        if target >= 0:
            while target in into:
                target = into[target]
            into[i] = target
            for m in clusters[i]:
                m.superseded = True
            continue
        if changer:  # only a statement that says something changed can supersede another
            for t in subject:
                index[t].append(i)
    for i, target in into.items():
        clusters[target].extend(clusters[i])
    out = [c for i, c in enumerate(clusters) if i not in into]
    for c in out:  # inside a cluster too: an older member a newer one supersedes
        said = sorted((m for m in c if m.origin == "history" and m.values), key=lambda m: -m.at_ns)
        changers: list[Item] = []  # newer members that say something changed, one per set of values
        seen_values: set[frozenset[str]] = set()
        for older in said:
            if not older.superseded and any(
                n.at_ns > older.at_ns and n.values != older.values and supersedes(n, older) for n in changers
            ):
                older.superseded = True
            elif says_changed(older) and frozenset(older.values) not in seen_values:
                seen_values.add(frozenset(older.values))
                changers.append(older)
    return out


def says_changed(it: Item) -> bool:
    return any(r.startswith(("change of state", "correction")) for r in it.reasons)
