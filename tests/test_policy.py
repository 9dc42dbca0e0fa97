"""The agent write policy (store-format §7; Reasonix remember_policy_test.go cases)."""

from __future__ import annotations

import json
from typing import Any

import pytest

from reasonix_tui.core.agent.policy import (
    MAX_AUTO_BODY_RUNES,
    Reason,
    assess_forget,
    assess_remember,
    assess_remember_skip,
)
from reasonix_tui.core.agent.remember_args import InvalidArguments, parse_remember_arguments, remember_request
from reasonix_tui.core.paths import Layout
from reasonix_tui.core.store.model import Fact, FactId, InvalidInput
from reasonix_tui.core.store.requests import SaveRequest
from reasonix_tui.core.store.store import Store

SAFE: dict[str, Any] = {
    "name": "release-target",
    "description": "Release target for this project",
    "type": "project",
    "body": "Release artifacts are published from main-v2.",
}


def with_(**changes: Any) -> dict[str, Any]:
    out = dict(SAFE)
    for key, value in changes.items():
        if value is None:
            out.pop(key, None)
        else:
            out[key] = value
    return out


@pytest.fixture
def store(layout: Layout) -> Store:
    return Store(layout)


class Facts:
    """A store stub: only ``list_all`` (what the policy needs)."""

    def __init__(self, *facts: Fact) -> None:
        self.facts = list(facts)

    def list_all(self) -> list[Fact]:
        return self.facts


def fact(name: str, **kw: Any) -> Fact:
    return Fact(
        id=FactId(kw.pop("id", f"mem-{name}")),
        revision=kw.pop("revision", 1),
        created_at=None,
        updated_at=None,
        name=name,
        **kw,
    )


# --- Reasonix's own cases -----------------------------------------------------------------


def test_safe_project_create_is_allowed(store: Store) -> None:
    a = assess_remember(SAFE, store)
    assert a.auto_allow
    assert a.reason == "new low-risk project fact"
    assert a.reasons == ()
    assert a.name == "release-target" and a.type == "project" and a.scope == "project"


@pytest.mark.parametrize(
    ("args", "reason"),
    [
        ({"name": "release-target", "description": "Release target", "body": "Use main-v2."}, Reason.TYPE),
        (with_(scope="global"), Reason.GLOBAL),
        (with_(name="global/release-target.md"), Reason.GLOBAL),
        (
            {"name": "prefers-go", "description": "Preferred language", "type": "user", "body": "Prefer Go."},
            Reason.TYPE,
        ),
        (
            {"name": "concise", "description": "Response style", "type": "feedback", "body": "Keep answers concise."},
            Reason.TYPE,
        ),
        (
            {
                "id": "mem-existing",
                "expected_revision": 1,
                "description": "Update",
                "type": "project",
                "body": "Updated body.",
            },
            Reason.UPDATE,
        ),
        (with_(name="deploy-key", body="DEPLOY_API_KEY=sk-example-secret-value-123456"), Reason.SENSITIVE),
        (with_(name="release-owner", body="Contact release-owner@example.test."), Reason.SENSITIVE),
    ],
)
def test_reasonix_cases_need_approval(store: Store, args: dict[str, Any], reason: str) -> None:
    a = assess_remember(args, store)
    assert not a.auto_allow
    assert a.reason == reason


def test_conflicting_reference_scope(store: Store) -> None:
    a = assess_remember(with_(name="global/release-target.md", scope="project"), store)
    assert a.reason == "memory reference scope conflicts with explicit scope"


def test_existing_or_semantic_duplicate(store: Store) -> None:
    store.save(
        SaveRequest(
            name="release-target",
            title="Release target",
            description="Current release branch",
            type="project",
            body="Use main-v2.",
        )
    )
    by_name = assess_remember(
        {
            "name": "release-target",
            "description": "Changed release branch",
            "type": "project",
            "body": "Use release-v2.",
        },
        store,
    )
    by_title = assess_remember(
        {
            "name": "another-name",
            "title": "Release target",
            "description": "Current release branch",
            "type": "project",
            "body": "Use main-v2.",
        },
        store,
    )
    assert by_name.reason == by_title.reason == "an existing memory may already cover this fact"
    assert [d.fields for d in by_name.duplicates] == [("name",)]
    assert [d.fields for d in by_title.duplicates] == [("title", "description")]
    assert by_name.duplicates[0].fact.name == "release-target"


# --- every check in order, each failing alone ----------------------------------------------


def test_check_0_invalid_request(store: Store) -> None:
    for bad in (
        '{"description": ',
        '["x"]',
        {"body": 3},
        {"expected_revision": "3"},
        {"verified": "yes"},
        {"expected_revision": 1.5},
    ):
        a = assess_remember(bad, store)  # type: ignore[arg-type]
        assert (a.auto_allow, a.reason, a.reasons) == (False, "invalid remember request", ("invalid remember request",))


@pytest.mark.parametrize(
    ("args", "reason"),
    [
        (
            with_(name="global/release-target.md", scope="project", type="project"),
            "memory reference scope conflicts with explicit scope",
        ),
        (with_(description="   "), "description and body are required"),
        (with_(body="\n\t "), "description and body are required"),
        (with_(type=None), "only explicitly classified project/reference facts are low-risk"),
        (with_(type="Feedback"), "only explicitly classified project/reference facts are low-risk"),
        (with_(scope="GLOBAL"), "global memory requires confirmation"),
        (with_(id="mem-x", name=None), "memory updates require confirmation"),
        (with_(expected_revision=2), "memory updates require confirmation"),
        (with_(name="!!!", title="", description="***"), "memory name cannot be derived"),
        (with_(body="x" * (MAX_AUTO_BODY_RUNES + 1)), "memory body exceeds the automatic-write budget"),
        (with_(title="Authorization: Basic Zm9vOmJhcg=="), "memory may contain sensitive information"),
    ],
)
def test_each_check_alone(store: Store, args: dict[str, Any], reason: str) -> None:
    a = assess_remember(args, store)
    assert not a.auto_allow
    assert a.reason == reason
    if reason == "memory updates require confirmation" and "id" in args:
        assert a.reasons == (reason, "memory name cannot be derived")  # id and no name: nothing to derive
    elif reason.startswith("memory reference scope"):
        assert a.reasons == (reason, "global memory requires confirmation")  # the reference's scope wins
    else:
        assert a.reasons == (reason,), a.reasons


def test_check_3_store_unavailable() -> None:
    a = assess_remember(SAFE, None)
    assert a.reasons == ("project memory store is unavailable",)


def test_reference_type_and_case_are_fine(store: Store) -> None:
    assert assess_remember(with_(type=" Reference "), store).auto_allow
    assert assess_remember(with_(scope="project"), store).auto_allow
    assert assess_remember(with_(name="project/release-target.md"), store).auto_allow


def test_body_budget_counts_runes_on_the_untrimmed_body(store: Store) -> None:
    exactly = "界" * MAX_AUTO_BODY_RUNES
    assert assess_remember(with_(body=exactly), store).auto_allow
    padded = " " + "界" * (MAX_AUTO_BODY_RUNES - 1) + "\n"  # 6001 runes untrimmed
    assert assess_remember(with_(body=padded), store).reason == "memory body exceeds the automatic-write budget"


def test_all_reasons_in_check_order(store: Store) -> None:
    store.save(SaveRequest(name="dup", description="Dup desc", type="project", body="b"))
    args = {
        "name": "global/dup",
        "scope": "project",
        "description": "Dup desc",
        "type": "user",
        "expected_revision": 3,
        "body": "token: abcdef " + "y" * MAX_AUTO_BODY_RUNES,
    }
    a = assess_remember(args, store)
    assert a.reasons == (
        "memory reference scope conflicts with explicit scope",
        "only explicitly classified project/reference facts are low-risk",
        "global memory requires confirmation",
        "memory updates require confirmation",
        "memory body exceeds the automatic-write budget",
        "memory may contain sensitive information",
        "an existing memory may already cover this fact",
    )
    assert a.reason == a.reasons[0]


# --- name derivation ----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("args", "name"),
    [
        ({"name": "  My Fact  "}, "my-fact"),
        ({"title": "Release Target!", "description": "other"}, "release-target"),
        ({"title": "???", "description": "Use pnpm"}, "use-pnpm"),
        ({"id": "mem-1", "title": "Ignored"}, ""),
        ({"name": "project/Spaced Name.md"}, "spaced-name"),
    ],
)
def test_name_derivation(args: dict[str, Any], name: str) -> None:
    full = {"description": "d", "body": "b", "type": "project", **args}
    assert assess_remember(full, Facts()).name == name


# --- sensitive content ---------------------------------------------------------------------


def test_sensitive_findings_name_the_field(store: Store) -> None:
    a = assess_remember(
        with_(description="owner is ops@example.com", body="GH_TOKEN=ghp_abcdefghijklmnopqrstuv"), store
    )
    assert a.reason == Reason.SENSITIVE
    assert [(f.field, f.kind) for f in a.sensitive] == [("description", "email"), ("body", "secret-assignment")]
    desc = with_(description="owner is ops@example.com")["description"]
    f = a.sensitive[0]
    assert desc[f.span[0] : f.span[1]] == "ops@example.com"
    assert "ghp_abcdefghijklmnopqrstuv" not in json.dumps(a.to_dict())


def test_raw_name_is_checked_but_keywords_only_in_strict_mode(store: Store) -> None:
    assert assess_remember(with_(name="contact-me@example.com"), store).reason == Reason.SENSITIVE
    kw = with_(keywords="password=hunter2")
    assert assess_remember(kw, store, strict=False).auto_allow  # Reasonix does not look at keywords
    strict = assess_remember(kw, store)
    assert strict.reason == Reason.SENSITIVE and strict.sensitive[0].field == "keywords"


def test_rsa_private_key_is_sensitive_only_in_strict_mode(store: Store) -> None:
    args = with_(body="-----BEGIN RSA PRIVATE KEY-----\nMIIE\n-----END RSA PRIVATE KEY-----")
    assert assess_remember(args, store, strict=False).auto_allow
    assert assess_remember(args, store).reason == Reason.SENSITIVE


def test_strict_extensions(store: Store) -> None:
    assert assess_remember(with_(activation="pinned"), store, strict=False).auto_allow
    assert assess_remember(with_(activation="pinned"), store).reasons == (Reason.PINNED_REQUEST,)
    assert assess_remember(with_(activation="relevant"), store).auto_allow
    assert assess_remember(with_(supersedes=["project/old.md"]), store).reasons == (Reason.SUPERSEDES,)


# --- duplicates ----------------------------------------------------------------------------


def test_duplicates_use_normalised_phrases_across_scopes() -> None:
    facts = Facts(
        fact("other-a", title="release-target!", scope="global"),
        fact("other-b", description="RELEASE target for THIS project"),
        fact("Release Target", scope="global"),
    )
    a = assess_remember(with_(title="Release target"), facts)
    assert a.reason == Reason.DUPLICATE
    got = {d.fact.name: d.fields for d in a.duplicates}
    assert got == {"other-a": ("title",), "other-b": ("description",), "Release Target": ("name",)}


def test_empty_title_never_matches_untitled_facts() -> None:
    facts = Facts(fact("x", title="", description="something else"))
    assert assess_remember(with_(title=""), facts).auto_allow


# --- argument parsing ------------------------------------------------------------------------


def test_parse_arguments_like_go_unmarshal() -> None:
    got = parse_remember_arguments('{"Name": "x", "name": "y", "BODY": "b", "unknown": 1, "verified": null}')
    assert got["name"] == "y" and got["body"] == "b" and got["verified"] is False
    got = parse_remember_arguments({"name": "exact", "NAME": "folded"})
    assert got["name"] == "exact"
    with pytest.raises(InvalidArguments, match='"expected_revision" must be an integer'):
        parse_remember_arguments({"expected_revision": True})
    with pytest.raises(InvalidArguments, match="expected a JSON object"):
        parse_remember_arguments("[]")
    assert parse_remember_arguments({"supersedes": "a, b"})["supersedes"] == ("a", "b")


@pytest.mark.parametrize(
    ("args", "message"),
    [
        ({"description": "", "body": "b"}, "description and body are required"),
        ({"description": "d", "body": "b", "scope": "team"}, "scope must be one of project, global"),
        ({"description": "d", "body": "b", "activation": "always"}, "activation must be one of relevant, pinned"),
        (
            {"description": "d", "body": "b", "volatility": "fast"},
            "volatility must be one of evergreen, stable, volatile",
        ),
        (
            {"description": "d", "body": "b", "expires_at": "next week"},
            'expires_at must be RFC3339, YYYY-MM-DD, or "never"',
        ),
    ],
)
def test_remember_request_errors(args: dict[str, Any], message: str) -> None:
    with pytest.raises(InvalidInput) as err:
        remember_request(args)
    assert str(err.value) == message
    assert err.value.exit_code == 2


def test_remember_request_builds_save_request() -> None:
    r = remember_request(
        {
            "title": "Use PNPM",
            "description": "d",
            "body": "b",
            "expires_at": "2030-01-02",
            "subject_key": " Project.Package Manager",
            "expected_revision": 0,
        }
    )
    assert r.request.name == "use-pnpm"
    assert r.request.subject_key == "project.package_manager"
    assert r.request.expires_at is not None and r.request.expires_at.rfc3339() == "2030-01-02T00:00:00Z"
    assert r.expected_revision is None and not r.clear_expiry
    for never in ("never", "NONE"):
        assert remember_request({"description": "d", "body": "b", "expires_at": never}).clear_expiry
    r = remember_request({"id": "mem-1", "description": "d", "body": "b", "expected_revision": 4})
    assert r.expected_revision == 4 and r.request.id == "mem-1"


# --- U2 AssessRememberSkip ----------------------------------------------------------------------


def test_skip_allows_bounded_project_updates(store: Store) -> None:
    saved = store.save(SaveRequest(name="release-target", description="Release target", type="project", body="v1")).fact
    upd = {"id": saved.id, "expected_revision": 1, "description": "Release target", "type": "project", "body": "v2"}
    assert assess_remember(upd, store).reason == Reason.UPDATE
    a = assess_remember_skip(upd, store)
    assert a.auto_allow and a.reason == "a bounded, non-sensitive project fact"
    assert a.name == "release-target" and a.target is not None and a.target.id == saved.id


def test_skip_keeps_asking(store: Store) -> None:
    g = store.save(SaveRequest(name="g", description="Global thing", type="project", scope="global", body="x")).fact
    p = store.save(
        SaveRequest(name="pinned-one", description="Pinned", type="project", activation="pinned", body="x")
    ).fact
    store.save(SaveRequest(name="other", title="Shared title", description="other desc", type="project", body="x"))
    cases = [
        ({"id": "mem-missing", "description": "d", "type": "project", "body": "b"}, Reason.UNRESOLVED),
        ({"id": g.id, "description": "d", "type": "project", "body": "b"}, Reason.GLOBAL),
        ({"name": "global/g", "description": "d", "type": "project", "body": "b"}, Reason.GLOBAL),
        ({"name": "g", "scope": "project", "description": "d", "type": "project", "body": "b"}, Reason.UNRESOLVED),
        (
            {"name": "new-one", "activation": "relevant", "description": "d", "type": "project", "body": "b"},
            Reason.PINNED_REQUEST,
        ),
        ({"id": p.id, "description": "Pinned", "type": "project", "body": "y"}, Reason.PINNED_TARGET),
        (
            {"name": "fresh", "title": "shared-title", "description": "d", "type": "project", "body": "b"},
            Reason.DUPLICATE_OTHER,
        ),
        ({"name": "fresh", "description": "d", "type": "user", "body": "b"}, Reason.TYPE),
    ]
    for args, reason in cases:
        a = assess_remember_skip(args, store)
        assert not a.auto_allow
        assert a.reason == reason, (args, a.reasons)


def test_skip_unresolved_when_the_stored_fact_has_no_scope(layout: Layout) -> None:
    layout.project_dir.mkdir(parents=True)
    (layout.project_dir / "legacy.md").write_text("---\nname: legacy\ndescription: old\n---\n\nbody\n")
    store = Store(layout)
    a = assess_remember_skip({"name": "legacy", "description": "d", "type": "project", "body": "b"}, store)
    assert a.reason == Reason.UNRESOLVED


# --- forget -------------------------------------------------------------------------------------


def test_every_forget_needs_approval(store: Store) -> None:
    p = store.save(SaveRequest(name="shared", description="d", type="project", body="p")).fact
    g = store.save(SaveRequest(name="global/shared", description="d", type="project", body="g")).fact
    by_id = assess_forget(p.id, store)
    assert not by_id.auto_allow and by_id.reason == "forgetting a memory requires confirmation"
    assert [f.id for f in by_id.targets] == [p.id]
    assert [f.id for f in assess_forget("global/shared", store).targets] == [g.id]
    assert {f.id for f in assess_forget("shared", store).targets} == {p.id, g.id}
    missing = assess_forget("nothing-here", store)
    assert not missing.found and not missing.auto_allow


def test_tool_arguments_are_a_json_object_or_refused_with_reasonix_messages() -> None:
    from reasonix_tui.core.compat.jsonargs import json_object

    assert json_object('{"name": "x"}', ValueError) == {"name": "x"}
    assert json_object(b'{"a": 1}', ValueError) == {"a": 1}
    with pytest.raises(ValueError, match="^invalid arguments: expected a JSON object$"):
        json_object("[1, 2]", ValueError)
    with pytest.raises(KeyError, match="invalid arguments: Expecting value"):
        json_object("not json", KeyError)
