"""A fact's editable fields are declared once (core/store/fields.py) and every surface
that edits a fact follows the declaration."""

from __future__ import annotations

from dataclasses import fields, replace

from reasonix_tui.core.compat.gotime import parse_rfc3339
from reasonix_tui.core.sessions.suggestions.model import SuggestionEdits
from reasonix_tui.core.store.fields import EDITABLE_FIELDS, EDITABLE_NAMES, editable_field
from reasonix_tui.core.store.model import Fact, FactId
from reasonix_tui.core.store.requests import SaveRequest
from reasonix_tui.integrations import mcp_tools
from reasonix_tui.tui.writes import FactFormValues, form_from_fact

FACT = Fact(
    id=FactId("mem-1"),
    revision=3,
    created_at=parse_rfc3339("2026-01-01T00:00:00Z"),
    updated_at=parse_rfc3339("2026-01-01T00:00:00Z"),
    name="deploy-target",
    title="Deploy target",
    description="where we deploy",
    keywords="fly ship",
    activation="pinned",
    volatility="stable",
    subject_key="project.deploy",
    expires_at=parse_rfc3339("2027-01-02T03:04:05Z"),
    type="project",
    scope="project",
    body="Fly.io, ams.",
)


def test_every_editable_field_is_a_fact_and_a_save_request_field() -> None:
    assert EDITABLE_NAMES[0] == "name" and EDITABLE_NAMES[-1] == "body"
    fact_fields = {f.name for f in fields(Fact)}
    request_fields = {f.name for f in fields(SaveRequest)}
    assert set(EDITABLE_NAMES) <= fact_fields and set(EDITABLE_NAMES) <= request_fields
    assert editable_field("type").choices and editable_field("activation").blank == "(default)"


def test_save_request_from_fact_copies_every_editable_field() -> None:
    req = SaveRequest.from_fact(FACT)
    assert all(getattr(req, name) == getattr(FACT, name) for name in EDITABLE_NAMES)
    assert req.id == FACT.id


def test_the_form_has_exactly_the_editable_fields() -> None:
    assert {f.name for f in fields(FactFormValues)} == {*EDITABLE_NAMES, "verified"}
    values = form_from_fact(FACT)
    assert values.expires_at == "2027-01-02T03:04:05Z" and values.subject_key == "project.deploy"
    assert all(isinstance(getattr(values, f.name), str) for f in EDITABLE_FIELDS)


def test_suggestion_edits_and_remember_arguments_name_only_editable_fields() -> None:
    assert {f.name for f in fields(SuggestionEdits)} <= set(EDITABLE_NAMES)
    remember = {arg[0] for arg in mcp_tools.TOOL_SPECS["remember"][4]}
    assert set(EDITABLE_NAMES) <= remember


def test_reading_a_fact_file_follows_each_fields_from_text() -> None:
    from reasonix_tui.core.store.fileformat import fact_from_flat

    flat = {
        "title": " A title ",
        "description": "what",
        "keywords": "k1 k2",
        "activation": " PINNED ",
        "volatility": "Stable",
        "subject_key": "Project.Deploy Target",
        "expires_at": "2027-01-02T03:04:05Z",
    }
    read = [f for f in EDITABLE_FIELDS if f.from_text is not None]
    assert {f.name for f in read} == set(flat)
    fact = fact_from_flat(flat, "body", path="/s/x.md")
    for f in read:
        assert f.from_text is not None and getattr(fact, f.name) == f.from_text(flat[f.name]), f.name
    assert fact.activation == "pinned" and fact.subject_key == "project.deploy_target"
    assert fact.expires_at == parse_rfc3339("2027-01-02T03:04:05Z")


def test_a_save_keeps_exactly_the_fields_declared_inherit() -> None:
    from reasonix_tui.core.store.requests import inherit_fact

    now = parse_rfc3339("2026-06-01T00:00:00Z")
    assert now is not None
    empty = SaveRequest(id=FACT.id)
    fact = inherit_fact(empty, FACT, now=now, name=FACT.name, parsed=None, clear_expiry=False, new_id=FACT.id)
    inherited = {f.name for f in EDITABLE_FIELDS if f.inherit}
    assert inherited == {"keywords", "scope", "activation", "volatility", "subject_key", "expires_at"}
    for name in inherited:
        assert getattr(fact, name) == getattr(FACT, name), name
    assert fact.title == "" and fact.description == "" and fact.body == "" and fact.type == "project"
    assert fact.revision == FACT.revision + 1
    asked = SaveRequest(id=FACT.id, body="  new body\n", type="USER", activation="relevant", keywords=" x ")
    fact = inherit_fact(asked, FACT, now=now, name=FACT.name, parsed=None, clear_expiry=True, new_id=FACT.id)
    assert (fact.body, fact.type, fact.activation, fact.keywords) == ("new body", "user", "relevant", " x ")
    assert fact.expires_at is None and fact.volatility == "stable"


def test_remember_arguments_outside_a_strict_fields_choices_are_refused_by_the_declaration() -> None:
    import pytest

    from reasonix_tui.core.store.model import InvalidInput
    from reasonix_tui.core.store.requests import build_save_request

    strict = [f for f in EDITABLE_FIELDS if f.strict]
    assert [f.name for f in strict] == ["scope", "activation", "volatility"]
    for f in strict:
        with pytest.raises(InvalidInput, match=f"^{f.name} must be one of {', '.join(f.choices)}$"):
            build_save_request({"description": "d", "body": "b", f.name: "nonsense"})
        ok = build_save_request({"description": "d", "body": "b", f.name: f" {f.choices[-1].upper()} "})
        assert getattr(ok.request, f.name) == f" {f.choices[-1].upper()} ".strip()
    assert build_save_request({"description": "d", "body": "b", "type": "nonsense"}).request.type == "nonsense"


def test_writing_a_fact_file_follows_each_fields_to_text_in_declaration_order() -> None:
    from reasonix_tui.core.store.fileformat import render_fact

    written = [f.name for f in EDITABLE_FIELDS if f.to_text is not None]
    assert written == [
        "name",
        "title",
        "description",
        "keywords",
        "activation",
        "volatility",
        "subject_key",
        "expires_at",
    ]
    keys = [line.split(":", 1)[0] for line in render_fact(FACT).split("---\n")[1].splitlines()]
    assert keys[keys.index("name") : keys.index("name") + len(written)] == written
    bare = render_fact(replace(FACT, title="", keywords="", description="", expires_at=None))
    assert "\ntitle:" not in bare and "\nkeywords:" not in bare and "\nexpires_at:" not in bare
    assert '\ndescription: ""\n' in bare
