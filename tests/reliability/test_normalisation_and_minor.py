"""Say what slug normalisation did, and the minor points: a normalised name that lands on
another fact is never a silent agent update; forget of a path outside the store is logged
ok:false; restore of the active revision says nothing was restored."""

from __future__ import annotations

import json

from reasonix_tui.core.agent.policy import Reason, assess_remember_skip
from reasonix_tui.core.agent.proposals import Requester
from reasonix_tui.core.agent.writes import agent_remember
from reasonix_tui.core.paths import Layout
from reasonix_tui.core.settings import load_settings
from reasonix_tui.core.store.store import Store

from .support import run_main, seeded


def test_save_says_what_the_name_became(layout: Layout) -> None:
    code, out, _ = run_main(layout, "memory", "save", "--name", "a\\b", "--description", "d", "--body", "b")
    assert code == 0
    assert "saved as project/a-b.md (from `a\\b`)" in out
    _, out, _ = run_main(layout, "memory", "save", "--name", "NUL", "--description", "d", "--body", "b")
    assert "saved as project/nul.md (from `NUL`)" in out
    _, out, _ = run_main(layout, "memory", "save", "--name", "plain", "--description", "d", "--body", "b")
    assert "from" not in out


def test_forget_says_how_the_ref_was_read(layout: Layout) -> None:
    seeded(layout, "seed-0")
    code, out, _ = run_main(layout, "memory", "forget", "../seed-0")
    assert code == 0
    assert "`../seed-0` was read as project/seed-0.md" in out


def test_agent_remember_landing_on_another_fact_by_normalisation_asks(layout: Layout) -> None:
    store = seeded(layout, "a-b")
    # Even where updates of project facts may land unasked, a normalised name never updates silently.
    layout.settings_file.parent.mkdir(parents=True, exist_ok=True)
    layout.settings_file.write_text("[memory]\nauto_confirm_project_remember = true\n")
    store = Store(layout, settings=load_settings(layout.root))
    args = {"name": "a\\b", "description": "new text", "body": "replacement", "type": "project"}
    assessment = assess_remember_skip(args, store)
    assert not assessment.auto_allow and Reason.NORMALISED_TARGET in assessment.reasons
    outcome = agent_remember(args, store, requester=Requester.current(source="cli"), wait=0)
    assert outcome.status == "pending", outcome.message
    assert store.get("a-b").revision == 1  # unchanged until a person approves


def test_agent_remember_saved_under_a_new_normalised_name_says_so(layout: Layout) -> None:
    store = Store(layout)
    outcome = agent_remember(
        {"name": "Deploy Notes", "description": "how we deploy", "body": "via CI", "type": "project"},
        store,
        requester=Requester.current(source="cli"),
        wait=0,
    )
    assert outcome.status == "saved"
    assert "saved as project/deploy-notes.md (from `Deploy Notes`)" in outcome.message


def test_forget_outside_path_is_logged_not_ok(layout: Layout) -> None:
    seeded(layout, "billing")
    code, _, _ = run_main(layout, "memory", "forget", "/etc/passwd")
    assert code == 1
    last = json.loads(layout.audit_log.read_text().splitlines()[-1])
    assert last["op"] == "forget" and last["ok"] is False and last["reason"] == "not found"


def test_restore_of_the_active_revision_says_so(layout: Layout) -> None:
    seeded(layout, "billing")
    code, out, _ = run_main(layout, "memory", "restore", "billing", "1")
    assert code == 0
    assert "already at revision 1; nothing restored" in out and "restored billing as" not in out
