"""A fact's editable fields are declared once (core/store/fields.py) and every surface
that edits a fact follows the declaration."""

from __future__ import annotations

import json
from dataclasses import fields, replace
from pathlib import Path
from typing import Any

import pytest

from reasonix_tui.core.agent.remember_args import (
    REMEMBER_ARGUMENTS,
    REMEMBER_FIELDS,
    TOOL_ARGUMENTS,
    parse_remember_arguments,
    remember_arguments,
)
from reasonix_tui.core.compat.gotime import parse_rfc3339
from reasonix_tui.core.paths import Layout
from reasonix_tui.core.sessions.suggestions.model import SuggestionEdits, suggested_fields
from reasonix_tui.core.store.fields import EDITABLE_FIELDS, EDITABLE_NAMES, FactField, editable_field
from reasonix_tui.core.store.model import Fact, FactId, InvalidInput
from reasonix_tui.core.store.requests import SaveRequest
from reasonix_tui.core.store.store import Store
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


def test_suggestion_edits_take_exactly_the_suggested_fields() -> None:
    suggested = [f.name for f in suggested_fields()]
    assert suggested == ["name", "title", "description", "type", "scope", "body"]  # Reasonix's MemorySuggestion
    edits = SuggestionEdits.from_values(form_from_fact(FACT), body="answer")
    assert dict(edits.values) == {n: getattr(FACT, n) for n in suggested} | {"body": "answer"}
    assert SuggestionEdits(title=None).pick("title", "draft") == "draft" and SuggestionEdits() == SuggestionEdits()
    with pytest.raises(TypeError, match="keywords"):
        SuggestionEdits(keywords="not a suggested field")


def test_a_field_declared_suggested_reaches_suggestion_edits_and_the_saved_fact(
    layout: Layout, monkeypatch: pytest.MonkeyPatch
) -> None:
    from reasonix_tui.core.sessions.suggestions import MemorySuggestion, accept_suggestion
    from reasonix_tui.core.store import fields as declaration

    patched = tuple(replace(f, suggested=True) if f.name == "keywords" else f for f in EDITABLE_FIELDS)
    monkeypatch.setattr(declaration, "EDITABLE_FIELDS", patched)
    edits = SuggestionEdits.from_values(form_from_fact(FACT))
    assert edits.values["keywords"] == "fly ship"
    draft = MemorySuggestion("s1", "deploy", "Deploy", "where we deploy", "project", "project", "Fly.io.", "", ())
    result = accept_suggestion(layout, draft, SuggestionEdits(keywords="fly ship"), store=Store(layout))
    assert result.fact is not None and result.fact.keywords == "fly ship" and result.fact.body == "Fly.io."


MOOD = FactField("mood", "mood", argument="how it felt when it was learnt", argument_rank=2)


def test_remember_arguments_are_the_declared_fields_then_how_the_save_is_made() -> None:
    names = [a.name for a in REMEMBER_ARGUMENTS]
    assert names[:2] == [f.name for f in EDITABLE_FIELDS if f.required] == ["description", "body"]
    assert set(names) == {*EDITABLE_NAMES, *(a.name for a in TOOL_ARGUMENTS)}
    assert all(a.kind == "string" and a.empty == "" for a in REMEMBER_ARGUMENTS if a.name in EDITABLE_NAMES)
    assert parse_remember_arguments({}) == {a.name: a.empty for a in REMEMBER_ARGUMENTS}
    assert REMEMBER_FIELDS == {a.name: a.kind for a in REMEMBER_ARGUMENTS}
    spec = mcp_tools.TOOL_SPECS["remember"][4]
    assert [a[0] for a in spec] == [*names, "wait_seconds"]
    assert [a[2] for a in spec[: len(EDITABLE_FIELDS)]] == [
        editable_field(n).argument for n in names[: len(EDITABLE_FIELDS)]
    ]


def test_a_declared_field_reaches_the_remember_arguments(monkeypatch: pytest.MonkeyPatch) -> None:
    from reasonix_tui.core.agent import remember_args

    arguments = remember_arguments((*EDITABLE_FIELDS, MOOD))
    names = [a.name for a in arguments]
    assert names.index("mood") == names.index("subject_key") + 1  # rank 2, after the declared ones
    monkeypatch.setattr(remember_args, "REMEMBER_ARGUMENTS", arguments)
    monkeypatch.setattr(remember_args, "REMEMBER_FIELDS", {a.name: a.kind for a in arguments})
    assert parse_remember_arguments({"MOOD": "calm"})["mood"] == "calm"
    assert parse_remember_arguments({})["mood"] == ""
    with pytest.raises(InvalidInput, match='"mood" must be a string'):
        parse_remember_arguments({"mood": 3})


async def test_a_declared_field_reaches_the_mcp_tool_and_its_call(
    layout: Layout, monkeypatch: pytest.MonkeyPatch
) -> None:
    from reasonix_tui.integrations import mcp_server

    spec = mcp_tools.TOOL_SPECS["remember"]
    arguments = mcp_tools.remember_tool_arguments(remember_arguments((*EDITABLE_FIELDS, MOOD)))
    monkeypatch.setitem(mcp_tools.TOOL_SPECS, "remember", (*spec[:4], arguments))
    seen: list[dict[str, Any]] = []

    def agent_remember(args: dict[str, Any], *_: Any, **__: Any) -> Any:
        seen.append(args)
        raise InvalidInput("stop here")

    monkeypatch.setattr(mcp_server, "agent_remember", agent_remember)
    server = mcp_server.build_server(str(layout.workspace), str(layout.root))
    listed = {t.name: t.model_dump(by_alias=True, mode="json", exclude_none=True) for t in await server.list_tools()}
    schema = listed["remember"]["inputSchema"]
    assert schema["properties"]["mood"]["description"] == MOOD.argument
    assert list(schema["properties"]) == [a[0] for a in arguments]
    assert listed["remember"] == mcp_tools.tools(("remember",))[0]
    result = await server.call_tool("remember", {"description": "d", "body": "b", "mood": "calm", "verified": False})
    assert result.is_error and seen == [{"description": "d", "body": "b", "mood": "calm"}]


def test_a_declared_field_reaches_the_cli_remember_command(monkeypatch: pytest.MonkeyPatch) -> None:
    import argparse
    from types import SimpleNamespace

    from reasonix_tui.integrations.commands import agent

    monkeypatch.setattr(agent, "REMEMBER_ARGUMENTS", remember_arguments((*EDITABLE_FIELDS, MOOD)))
    parser = argparse.ArgumentParser()
    agent._add_remember_arguments(parser)
    assert "how it felt when it was learnt" in parser.format_help()
    argv = ["--description", "d", "--body", "b", "--mood", "calm", "--supersedes", "x", "y", "--supersedes", "z"]
    args = parser.parse_args(argv)
    args.wait, args.agent, args.session = None, None, None
    seen: list[dict[str, Any]] = []

    def agent_remember(arguments: dict[str, Any], *_: Any, **__: Any) -> Any:
        seen.append(arguments)
        raise InvalidInput("stop here")

    monkeypatch.setattr(agent, "agent_remember", agent_remember)
    with pytest.raises(InvalidInput):
        agent._remember(args, SimpleNamespace(store=None))  # type: ignore[arg-type]  # only .store is read
    assert seen == [{"description": "d", "body": "b", "mood": "calm", "supersedes": ["x", "y", "z"]}]


GOLDEN = Path(__file__).parent / "data" / "mcp_tools_list.json"


def _argument_order(tools: list[dict[str, Any]]) -> list[tuple[str, list[str], list[str]]]:
    return [(t["name"], list(t["inputSchema"]["properties"]), t["inputSchema"].get("required", [])) for t in tools]


async def test_tools_list_is_the_saved_golden(layout: Layout) -> None:
    """What clients have been listed: the static front's bytes, and the SDK server's list
    (its own serialisation aside) with the arguments in the same order."""
    from reasonix_tui.integrations.mcp_server import build_server

    golden = GOLDEN.read_text(encoding="utf-8")
    assert json.dumps(mcp_tools.tools(), indent=1, ensure_ascii=False) + "\n" == golden
    server = build_server(str(layout.workspace), str(layout.root))
    listed = [t.model_dump(by_alias=True, mode="json", exclude_none=True) for t in await server.list_tools()]
    assert listed == json.loads(golden)
    assert _argument_order(listed) == _argument_order(json.loads(golden))


def test_the_parse_cache_row_holds_every_declared_field() -> None:
    """The parse cache's row (core/store/cache.py) is written out by hand for decoding speed
    and is a versioned on-disk format: every declared field survives it, and a row layout
    that changed has a new ``CACHE_VERSION``."""
    from reasonix_tui.core.store import cache

    samples = {"choice": lambda f: f.choices[-1], "time": lambda f: parse_rfc3339("2031-02-03T04:05:06Z")}
    fact = replace(FACT, **{f.name: samples.get(f.kind, lambda f: f"{f.name} text")(f) for f in EDITABLE_FIELDS})
    back = cache.fact_from_row(cache.fact_to_row(fact))
    assert all(getattr(back, n) == getattr(fact, n) for n in EDITABLE_NAMES)
    assert set(EDITABLE_NAMES) <= set(cache._FIELDS)
    if cache.CACHE_VERSION in CACHE_LAYOUTS:
        assert cache._FIELDS == CACHE_LAYOUTS[cache.CACHE_VERSION], "the row changed: bump CACHE_VERSION"


_LAYOUT_6 = (
    "id",
    "revision",
    "created_at",
    "updated_at",
    "name",
    "title",
    "description",
    "keywords",
    "activation",
    "volatility",
    "subject_key",
    "expires_at",
    "last_verified_at",
    "type",
    "scope",
    "body",
    "file_scope",
    "supersedes",
    "extra",
    "path",
    "raw_times",
    "parse_error",
    "encoding",
)
CACHE_LAYOUTS = {6: _LAYOUT_6, 7: _LAYOUT_6}  # 7: the same names, rows as tuples
"""The parse cache's row layout at each version (a new declared field needs a new version)."""


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
    from reasonix_tui.core.store.requests import build_save_request

    strict = [f for f in EDITABLE_FIELDS if f.strict]
    assert [f.name for f in strict] == ["scope", "activation", "volatility"]
    for f in strict:
        with pytest.raises(InvalidInput, match=f"^{f.name} must be one of {', '.join(f.choices)}$"):
            build_save_request({"description": "d", "body": "b", f.name: "nonsense"})
        ok = build_save_request({"description": "d", "body": "b", f.name: f" {f.choices[-1].upper()} "})
        assert getattr(ok.request, f.name) == f" {f.choices[-1].upper()} ".strip()
    assert build_save_request({"description": "d", "body": "b", "type": "nonsense"}).request.type == "nonsense"


def test_a_save_request_from_remember_arguments_takes_every_declared_field() -> None:
    from reasonix_tui.core.store.requests import build_save_request

    given = {f.name: f" {f.choices[-1].upper()} " if f.choices else f"{f.name} Text" for f in EDITABLE_FIELDS}
    request = build_save_request(given | {"expires_at": "2031-02-03T04:05:06Z"}).request
    expected = {f.name: given[f.name].strip() if f.strict else given[f.name] for f in EDITABLE_FIELDS}
    expected |= {"subject_key": "subject_key_text", "expires_at": parse_rfc3339("2031-02-03T04:05:06Z")}
    assert {n: getattr(request, n) for n in EDITABLE_NAMES} == expected


def test_writing_a_fact_file_follows_each_fields_to_text_in_declaration_order() -> None:
    from reasonix_tui.core.store.fileformat import KNOWN_FLAT_KEYS, render_fact

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
    assert set(written) <= KNOWN_FLAT_KEYS  # read back as the field, never also kept as an extra key
    keys = [line.split(":", 1)[0] for line in render_fact(FACT).split("---\n")[1].splitlines()]
    assert keys[keys.index("name") : keys.index("name") + len(written)] == written
    bare = render_fact(replace(FACT, title="", keywords="", description="", expires_at=None))
    assert "\ntitle:" not in bare and "\nkeywords:" not in bare and "\nexpires_at:" not in bare
    assert '\ndescription: ""\n' in bare
