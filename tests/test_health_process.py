"""A new process after a change made elsewhere, and the Context Center's first answer.

``memory health`` in a new process (a pre-commit hook after a write made by the agent) keeps
what the resolver reads of every unchanged fact in its own state: it neither reads the
recall's whole per-fact memo from disk nor analyses an unchanged fact again. The Context
Center's first run answers from the last full run's report when nothing changed. Every
answer equals a run from scratch, field by field, after each kind of change.
"""

from __future__ import annotations

import os

import pytest
from test_health_incremental import _copy_as_new_file, _edit_on_disk, _stem

from reasonix_tui.core import resolve as resolver
from reasonix_tui.core.compat.gotime import DAY_NS, Timestamp
from reasonix_tui.core.health import Dismissals, HealthChecker, gather, health_report, memo_path
from reasonix_tui.core.health import worker as health_worker
from reasonix_tui.core.health.quick import quick_path, quick_report
from reasonix_tui.core.paths import Layout
from reasonix_tui.core.recall import fields, memo
from reasonix_tui.core.recall.memo import FACT_MEMO
from reasonix_tui.core.recall.trace import RecallTrace, TraceStore
from reasonix_tui.core.settings import Settings
from reasonix_tui.core.store.requests import SaveRequest
from reasonix_tui.core.store.store import Store

BUILT = Timestamp(1_785_000_000 * 1_000_000_000)  # the demo's facts are whole days old
NOW = Timestamp(BUILT.ns + 3_600 * 10**9)  # an hour later, far from a freshness boundary
SETTINGS = Settings(pinned_budget_chars=1500)


def _scratch(layout: Layout, settings: Settings = SETTINGS, now: Timestamp = NOW):
    FACT_MEMO.clear()
    return HealthChecker().report(
        gather(layout, settings, Store(layout, settings=settings), now=now), Dismissals(layout).fingerprints()
    )


def _same(a, b, what: str) -> None:
    assert a.findings == b.findings, what
    assert a.dismissed == b.dismissed, what
    assert (a.facts, a.span, a.partial) == (b.facts, b.span, b.partial), what


@pytest.fixture
def demo(tmp_path) -> Layout:
    from reasonix_tui.core.demo import build_demo_home

    home = build_demo_home(tmp_path / "demo", now=BUILT, with_approval=False)
    return Layout.resolve(home=home.root, workspace=home.workspace)


class _Counts:
    """Counts the recall memo's reads from disk, topic-string analyses and topic vectors."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.loads = self.strings = self.vectors = 0
        load, strings, vector = memo._load_memo, resolver._topic_strings, fields._topic_vector

        def counted_load(*args):
            self.loads += 1
            return load(*args)

        def counted_strings(fact):
            self.strings += 1
            return strings(fact)

        def counted_vector(fact):
            self.vectors += 1
            return vector(fact)

        monkeypatch.setattr(memo, "_load_memo", counted_load)
        monkeypatch.setattr(resolver, "_topic_strings", counted_strings)
        monkeypatch.setattr(fields, "_topic_vector", counted_vector)


def test_a_new_process_after_a_change_elsewhere_analyses_only_what_changed(demo: Layout, monkeypatch) -> None:
    start = health_report(demo, SETTINGS, now=NOW)  # a first run: everything analysed
    assert {"topic-supersession", "near-duplicate", "stale", "never-recalled"} <= {f.kind for f in start.findings}
    quiet = next(f for f in start.findings if f.kind == "never-recalled").facts[0]
    topic = next(f for f in start.findings if f.kind == "topic-supersession")
    dup = next(f for f in start.findings if f.kind == "near-duplicate")
    store = Store(demo, settings=SETTINGS)
    changes = {
        "write": (1, lambda: store.save(SaveRequest(name=_stem(quiet.path), description="Rewritten", body="New."))),
        "delete": (0, lambda: store.archive(dup.facts[-1].id)),
        "new file": (1, lambda: _copy_as_new_file(demo, store, topic.facts[0].id)),
        "outside edit": (1, lambda: _edit_on_disk(topic.facts[1].path)),
    }
    for what, (analysed, change) in changes.items():
        change()
        truth = _scratch(demo)
        FACT_MEMO.clear()  # a new process: new fact objects, nothing in memory
        with monkeypatch.context() as m:
            counts = _Counts(m)
            answer = health_report(demo, SETTINGS, now=NOW)
        _same(answer, truth, what)
        # the recall's memo stays on disk; only the changed fact is analysed, and only its
        # change statement (if it makes one) read again: the others are kept with the state
        assert counts.loads == 0, what
        assert counts.strings == analysed, what
        assert counts.vectors <= analysed, what


def test_every_other_change_answers_like_a_run_from_scratch_in_a_new_process(demo: Layout) -> None:
    health_report(demo, SETTINGS, now=NOW)
    TraceStore(demo).record(RecallTrace(query="how do we deploy", at=NOW.rfc3339(), hits=(), terms=("deploy",)))
    FACT_MEMO.clear()
    _same(health_report(demo, SETTINGS, now=NOW), _scratch(demo), "recorded turn")
    other = Settings(pinned_budget_chars=900)
    FACT_MEMO.clear()
    _same(health_report(demo, other, now=NOW), _scratch(demo, other), "settings")
    later = Timestamp(NOW.ns + 40 * DAY_NS)
    FACT_MEMO.clear()
    _same(health_report(demo, SETTINGS, now=later), _scratch(demo, now=later), "clock")


def test_the_workers_first_answer_is_the_last_full_run_and_equals_a_run_from_scratch(demo: Layout) -> None:
    store = Store(demo, settings=SETTINGS)
    assert health_worker.first_answer(demo, SETTINGS, store, now=NOW) is None  # nothing kept yet
    checker = HealthChecker(memo_path(demo))
    report, facts = health_worker.run(checker, demo, SETTINGS, store, now=NOW)
    assert os.path.exists(quick_path(demo)) and len(facts) == report.facts
    _same(report, _scratch(demo), "full run")

    FACT_MEMO.clear()  # the next Context Center: its first answer reads no state, runs no check
    first = health_worker.first_answer(demo, SETTINGS, Store(demo, settings=SETTINGS), now=NOW)
    assert first is not None
    _same(first, _scratch(demo), "first answer")

    # a change made while no Context Center ran: no first answer, the run is exact
    victim = next(f for f in report.findings if f.kind == "stale").facts[0]
    Store(demo, settings=SETTINGS).save(SaveRequest(name=_stem(victim.path), body="Checked again today."))
    assert health_worker.first_answer(demo, SETTINGS, Store(demo, settings=SETTINGS), now=NOW) is None
    FACT_MEMO.clear()
    again, _ = health_worker.run(
        HealthChecker(memo_path(demo)), demo, SETTINGS, Store(demo, settings=SETTINGS), now=NOW
    )
    _same(again, _scratch(demo), "after a change")
    # a run cut short by its time budget is never kept as an answer
    os.unlink(quick_path(demo))
    FACT_MEMO.clear()
    cut, _ = health_worker.run(HealthChecker(), demo, SETTINGS, Store(demo, settings=SETTINGS), now=NOW, budget_s=0.0)
    assert any(p.startswith("secrets:") for p in cut.partial)
    assert not os.path.exists(quick_path(demo))


class _Judged:
    """Counts the near-duplicate word test's analyses, the tool-override profiles and the
    recall memo's reads from disk."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        from reasonix_tui.core import tool_override
        from reasonix_tui.core.health import similar

        self.analysed: list[str] = []
        self.profiled: list[str] = []
        self.loads = 0
        analysed, profile, load = similar._analysed, tool_override._profile, memo._load_memo

        def counted_analysed(fact):
            self.analysed.append(fact.id)
            return analysed(fact)

        def counted_profile(fact):
            self.profiled.append(fact.id)
            return profile(fact)

        def counted_load(*args):
            self.loads += 1
            return load(*args)

        monkeypatch.setattr(similar, "_analysed", counted_analysed)
        monkeypatch.setattr(tool_override, "_profile", counted_profile)
        monkeypatch.setattr(memo, "_load_memo", counted_load)


def _pair_ids(report, kinds=("near-duplicate", "duplicate")) -> list[frozenset[str]]:
    return [frozenset(r.id for r in f.facts) for f in report.findings if f.kind in kinds]


def test_a_new_process_judges_a_changed_facts_pairs_from_the_partners_kept_values(demo: Layout, monkeypatch) -> None:
    """A finding that goes and one that comes because of the changed fact's partner: the
    word-test terms and tool profiles of the facts an earlier run read come from the
    checker's state (none analysed again, the recall memo not read), and the answer
    equals a run from scratch."""
    FACT_MEMO.clear()
    with monkeypatch.context() as m:
        first = _Judged(m)
        start = health_report(demo, SETTINGS, now=NOW)
    assert first.analysed and first.profiled  # the demo has pairs judged and project/global pairs
    dup = next(f for f in start.findings if f.kind == "near-duplicate")
    gone, partner = dup.facts[0], dup.facts[1]
    store = Store(demo, settings=SETTINGS)
    # the pair goes: one of its facts now says something else
    store.save(SaveRequest(name=_stem(gone.path), description="Rewritten", body="Nothing of the kind."))
    truth = _scratch(demo)
    FACT_MEMO.clear()
    with monkeypatch.context() as m:
        counts = _Judged(m)
        answer = health_report(demo, SETTINGS, now=NOW)
    _same(answer, truth, "a pair gone")
    assert frozenset((gone.id, partner.id)) not in _pair_ids(answer)
    assert counts.loads == 0
    assert set(counts.analysed) & set(first.analysed) <= {gone.id}
    assert set(counts.profiled) & set(first.profiled) <= {gone.id}
    read = set(first.analysed + counts.analysed), set(first.profiled + counts.profiled)

    # a pair comes: another fact rewritten to say what the partner says
    quiet = next(f for f in answer.findings if f.kind == "never-recalled" and partner.id not in {r.id for r in f.facts})
    said = Store(demo, settings=SETTINGS).get(partner.id)
    store = Store(demo, settings=SETTINGS)
    # (other words: an exact copy of a field would be a duplicate, judged by digests alone)
    store.save(
        SaveRequest(
            name=_stem(quiet.facts[0].path), description=f"Also: {said.description}", body=f"{said.body} Still so."
        )
    )
    truth = _scratch(demo)
    FACT_MEMO.clear()
    with monkeypatch.context() as m:
        counts = _Judged(m)
        answer = health_report(demo, SETTINGS, now=NOW)
    _same(answer, truth, "a pair new")
    assert frozenset((quiet.facts[0].id, partner.id)) in _pair_ids(answer, ("near-duplicate",))
    assert counts.loads == 0
    assert set(counts.analysed) & read[0] <= {quiet.facts[0].id}
    assert set(counts.profiled) & read[1] <= {quiet.facts[0].id}


def test_a_first_run_keeps_the_change_statement_vector_of_every_fact_that_states_a_change(demo: Layout) -> None:
    """A write can put an unchanged fact that states a change in a new candidate pair: its
    vector then comes from the state, so a new process does not load the model for it."""
    # a fact that states a change in words no other fact uses: in no candidate pair
    Store(demo, settings=SETTINGS).save(
        SaveRequest(
            name="quokka-lanterns",
            description="Quokka lanterns on the pier",
            body="We replaced the quokka lanterns with wombat lamps along the pier.",
        )
    )
    health_report(demo, SETTINGS, now=NOW)
    checker = HealthChecker(memo_path(demo))
    facts = Store(demo, settings=SETTINGS).snapshot().facts
    assert checker.uncovered(facts) == 0
    entries = checker._inputs.entries
    changed = [k for k, e in entries.items() if e[3]]
    assert changed  # the demo has facts that state a change
    assert all(entries[k][4] is not None for k in changed)


def test_one_shot_runs_after_a_create_an_edit_an_archive_and_a_deletion_equal_a_full_recompute(
    demo: Layout, monkeypatch
) -> None:
    """On a big store a one-shot run after a few writes elsewhere does not write the checker's
    state back (each later process redoes the few facts new to it): every answer still equals
    a run from scratch, on a store holding every finding kind, and only the facts changed
    since the state was written are analysed; past KEEP_STATE_AFTER new facts it is written."""
    from reasonix_tui.core.health import checker as checker_module
    from reasonix_tui.core.health.model import KINDS

    monkeypatch.setattr(checker_module, "KEEP_STATE_FACTS", 0)  # the demo's 22 facts count as big
    start = health_report(demo, SETTINGS, now=NOW)  # a first run: everything new, the state written
    assert {f.kind for f in start.findings} == set(KINDS)
    state = memo_path(demo)
    written = os.stat(state).st_mtime_ns
    quiet = next(f for f in start.findings if f.kind == "never-recalled").facts[0]
    dup = next(f for f in start.findings if f.kind == "near-duplicate")
    topic = next(f for f in start.findings if f.kind == "topic-supersession")
    store = Store(demo, settings=SETTINGS)
    changes = {
        "create": lambda: store.save(
            SaveRequest(name="quokka-lamps", description="Quokka lamps", body="The pier uses quokka lamps.")
        ),
        "edit": lambda: store.save(SaveRequest(name=_stem(quiet.path), description="Rewritten", body="New.")),
        "archive": lambda: store.archive(dup.facts[-1].id),
        "deletion": lambda: os.unlink(topic.facts[0].path),
    }
    changed = 0  # facts new to the state written by the first run
    for what, change in changes.items():
        change()
        changed += what in ("create", "edit")
        truth = _scratch(demo)
        FACT_MEMO.clear()  # a new process
        with monkeypatch.context() as m:
            counts = _Counts(m)
            answer = health_report(demo, SETTINGS, now=NOW)
        _same(answer, truth, what)
        kept = quick_report(demo, SETTINGS, now=NOW)  # the report kept (findings taken as decoded, not re-encoded)
        assert kept is not None, what
        _same(kept, truth, f"{what}, the kept report")
        assert os.stat(state).st_mtime_ns == written, what  # a few new facts: the state is kept as it was
        assert counts.loads == 0 and counts.strings == changed, what
        assert what != "deletion" or topic.facts[0].id not in {r.id for f in answer.findings for r in f.facts}

    monkeypatch.setattr(checker_module, "KEEP_STATE_AFTER", 1)  # more new facts than that: written
    FACT_MEMO.clear()
    os.unlink(quick_path(demo))
    _same(health_report(demo, SETTINGS, now=NOW), _scratch(demo), "written")
    assert os.stat(state).st_mtime_ns != written
    truth = _scratch(demo)
    FACT_MEMO.clear()
    os.unlink(quick_path(demo))
    with monkeypatch.context() as m:
        counts = _Counts(m)
        answer = health_report(demo, SETTINGS, now=NOW)
    _same(answer, truth, "from the written state")
    assert counts.strings == 0


def test_a_write_to_a_fact_of_the_sample_reads_only_that_facts_words(demo: Layout, monkeypatch) -> None:
    """The pinned-unused check counts document frequencies over a sample of the store (the
    whole demo): a new process after a write to one fact reads the others' words from the
    checker's state (each fact's words among the candidates), not from the recall's memo.
    A change of the candidates (a recorded turn asks about other words of a pinned fact)
    makes the kept words useless: they are read again, and the answer is still exact."""
    from reasonix_tui.core.health import checker as checker_module

    start = health_report(demo, SETTINGS, now=NOW)
    assert any(f.kind == "pinned-unused" for f in start.findings)
    quiet = next(f for f in start.findings if f.kind == "never-recalled").facts[0]
    Store(demo, settings=SETTINGS).save(SaveRequest(name=_stem(quiet.path), description="Rewritten", body="New."))
    words, read = checker_module._words, []

    def counted(fact):
        read.append(fact.id)
        return words(fact)

    truth = _scratch(demo)
    FACT_MEMO.clear()
    with monkeypatch.context() as m:
        m.setattr(checker_module, "_words", counted)
        counts = _Counts(m)
        answer = health_report(demo, SETTINGS, now=NOW)
    _same(answer, truth, "a write to a fact of the sample")
    assert read == [quiet.id] and counts.loads == 0

    # other words of a pinned fact asked: other candidates, every fact's words read again
    facts = Store(demo, settings=SETTINGS).snapshot().facts
    pinned = next(f for f in facts if f.pinned)
    asked = tuple(sorted(words(pinned)))
    TraceStore(demo).record(RecallTrace(query=" ".join(asked), at=NOW.rfc3339(), hits=(), terms=asked))
    truth = _scratch(demo)
    FACT_MEMO.clear()
    read.clear()
    with monkeypatch.context() as m:
        m.setattr(checker_module, "_words", counted)
        answer = health_report(demo, SETTINGS, now=NOW)
    _same(answer, truth, "other candidates")
    assert set(read) == {f.id for f in facts if not f.pinned}  # (the pinned facts' words are kept whole)


def test_a_state_file_of_the_format_before_is_refused_and_rebuilt(demo: Layout) -> None:
    """A sealed state of another shape (the format before the kept words: six parts) is
    not trusted: the run starts from nothing, answers exactly, and writes the state again."""
    from reasonix_tui.core.health.checker import HealthChecker as Checker
    from reasonix_tui.core.health.quick import code_version
    from reasonix_tui.core.store.sealed import read_sealed, write_sealed

    health_report(demo, SETTINGS, now=NOW)
    path = memo_path(demo)
    state = read_sealed(path, Checker._MAGIC)
    assert type(state) is tuple and len(state) == 7 and state[0] == code_version()
    write_sealed(path, Checker._MAGIC, state[:6])
    FACT_MEMO.clear()
    checker = Checker(path)
    answer = checker.report(
        gather(demo, SETTINGS, Store(demo, settings=SETTINGS), now=NOW), Dismissals(demo).fingerprints()
    )
    _same(answer, _scratch(demo), "a state of the format before")
    assert checker.scanned == answer.facts and checker.reused == ()
    assert checker.save() and len(read_sealed(path, Checker._MAGIC)) == 7


def test_the_resolver_fed_the_kept_arrays_answers_as_through_the_memo(demo: Layout) -> None:
    """A new process hands the resolver every kept fact's topic ids and meaning vector as
    arrays (:class:`~reasonix_tui.core.resolve.Given`): the resolution is the one the
    per-fact memo gives, and only the facts of candidate pairs have their strings made."""
    health_report(demo, SETTINGS, now=NOW)
    facts = Store(demo, settings=SETTINGS).snapshot().facts
    FACT_MEMO.clear()
    checker = HealthChecker(memo_path(demo))
    checker._load()
    unseeded, given = checker._inputs.seed(facts, checker.key, checker._meaning())
    assert not unseeded and all(x is not None and x[0] is None for x in given.sets)
    assert given.vectors is not None and given.vectors.shape[0] == len(facts)
    made: list[int] = []
    strings = given.strings

    def counted(i: int):
        made.append(i)
        return strings(i)

    resolver._CACHE.clear()
    fed = resolver.resolve(facts, given=resolver.Given(given.sets, counted, given.vectors))
    FACT_MEMO.clear()
    resolver._CACHE.clear()
    plain = resolver.resolve(facts)

    def items(resolution):
        return [(s.old.id, s.current.id, s.kind, s.evidence, s.certain) for s in resolution.items]

    assert items(fed) == items(plain) and any(s.kind == "topic" for s in plain.items)
    assert made and len(set(made)) < len(facts)


def test_a_one_shot_call_lists_each_store_folder_once(demo: Layout, monkeypatch) -> None:
    """The last report's validation key and the snapshot read one listing of each folder
    (10k stats once at 10k facts); a later call lists the folders again."""
    from reasonix_tui.core.store import scan

    health_report(demo, SETTINGS, now=NOW)
    Store(demo, settings=SETTINGS).save(
        SaveRequest(name="quokka-lamps", description="Quokka lamps", body="The pier uses quokka lamps.")
    )
    listed: list[str] = []
    entries = scan._fact_entries

    def counted(directory):
        listed.append(str(directory))
        return entries(directory)

    truth = _scratch(demo)
    for _ in range(2):
        FACT_MEMO.clear()
        listed.clear()
        with monkeypatch.context() as m:
            m.setattr(scan, "_fact_entries", counted)
            answer = health_report(demo, SETTINGS, now=NOW)
        _same(answer, truth, "listed once")
        assert sorted(listed) == sorted({str(demo.project_dir), str(demo.global_dir)})
    with scan.listings_kept():
        rows = list(scan.fact_entries(demo.project_dir))
        (demo.project_dir / "late-fact.md").write_text("---\nname: late\n---\nLate.\n")
        assert list(scan.fact_entries(demo.project_dir)) == rows  # the listing the block began with
    assert len(list(scan.fact_entries(demo.project_dir))) == len(rows) + 1


def test_a_new_process_embeds_no_unchanged_facts_role_text(demo: Layout, monkeypatch) -> None:
    """The tool-override test's role vectors (pinned global defaults and their nearest
    project facts) are kept in the checker's state by fact key: after a write elsewhere a
    new process embeds the role text of no unchanged fact, the kept vectors are the ones
    the test would make again, and the answer equals a run from scratch."""
    import numpy as np

    from reasonix_tui.core import tool_override
    from reasonix_tui.core.health.checker import HealthChecker as Checker
    from reasonix_tui.core.health.state import fact_key
    from reasonix_tui.core.store.sealed import read_sealed

    roled: list[str] = []
    role_text = tool_override.role_text

    def counted(fact):
        roled.append(fact.id)
        return role_text(fact)

    monkeypatch.setattr(tool_override, "role_text", counted)
    FACT_MEMO.clear()
    health_report(demo, SETTINGS, now=NOW)
    assert roled  # the demo has a pinned global default with project facts near it
    state = read_sealed(memo_path(demo), Checker._MAGIC)
    roles = state[5][4]
    store = Store(demo, settings=SETTINGS)
    facts = {fact_key(f): f for f in store.snapshot().facts}
    assert roles and set(roles) <= set(facts)
    for k, kept in roles.items():  # what the test makes again for the same fact
        again = tool_override._role_vector(facts[k])
        assert np.array_equal(np.frombuffer(kept, dtype=np.float16).astype(np.float32), again)
    first = set(roled)
    quiet = next(f for f in store.snapshot().facts if f.id not in first and not f.pinned)
    store.save(SaveRequest(name=_stem(quiet.path), description="Changed elsewhere", body="Another text."))
    truth = _scratch(demo)
    FACT_MEMO.clear()
    roled.clear()
    answer = health_report(demo, SETTINGS, now=NOW)
    _same(answer, truth, "a write elsewhere")
    assert not set(roled) & first


def test_resolver_inputs_of_the_format_before_the_role_vectors_are_refused(demo: Layout) -> None:
    """Kept resolver inputs of the shape before the role vectors (four parts) are not
    trusted: the run reads every fact again and answers like a run from scratch."""
    from reasonix_tui.core.health.checker import HealthChecker as Checker
    from reasonix_tui.core.health.resolver_inputs import ResolverInputs
    from reasonix_tui.core.store.sealed import read_sealed, write_sealed

    health_report(demo, SETTINGS, now=NOW)
    path = memo_path(demo)
    state = read_sealed(path, Checker._MAGIC)
    assert len(state[5]) == 5 and state[5][4]
    assert not ResolverInputs(state[5][:4]).entries
    write_sealed(path, Checker._MAGIC, (*state[:5], state[5][:4], state[6]))
    os.unlink(quick_path(demo))
    store = Store(demo, settings=SETTINGS)
    quiet = next(f for f in store.snapshot().facts if not f.pinned)
    store.save(SaveRequest(name=_stem(quiet.path), description="Changed elsewhere", body="Another text."))
    truth = _scratch(demo)
    FACT_MEMO.clear()
    answer = health_report(demo, SETTINGS, now=NOW)
    _same(answer, truth, "resolver inputs of the format before")
    assert len(read_sealed(path, Checker._MAGIC)[5]) == 5
