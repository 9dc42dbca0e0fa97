"""Documents that are not Reasonix fact files go through python-frontmatter
(:mod:`reasonix_tui.core.markdown`); fact files never do."""

from __future__ import annotations

import ast
from pathlib import Path

import frontmatter

from reasonix_tui.core import markdown
from reasonix_tui.core.markdown import read_markdown, write_markdown
from reasonix_tui.core.sessions.suggestions.accept import render_skill_file


def test_read_splits_metadata_and_body_with_its_first_line() -> None:
    doc = read_markdown("---\r\nname: Deploy target\r\ntype: project\r\n---\r\n\r\nWe deploy to Fly.\r\nAlways.\r\n")
    assert dict(doc.metadata) == {"name": "Deploy target", "type": "project"}
    assert doc.body == "We deploy to Fly.\nAlways." and doc.body_line == 6


def test_a_frontmatter_that_does_not_parse_keeps_the_body() -> None:
    doc = read_markdown("---\nname: [unclosed\n---\nthe body\n")
    assert dict(doc.metadata) == {} and doc.body == "the body" and doc.body_line == 4
    listed = read_markdown("---\n- a\n- b\n---\nbody\n")  # YAML, but not a mapping
    assert dict(listed.metadata) == {} and listed.body == "body"
    plain = read_markdown("no frontmatter\n- a rule\n")
    assert dict(plain.metadata) == {} and plain.body == "no frontmatter\n- a rule" and plain.body_line == 1


def test_write_keeps_key_order_and_reads_back() -> None:
    text = write_markdown(
        {"name": "release", "description": "Cut a release: yes, on Fridays"}, "## Steps\n\n1. tag\n\n"
    )
    assert text == "---\nname: release\ndescription: 'Cut a release: yes, on Fridays'\n---\n\n## Steps\n\n1. tag\n"
    post = frontmatter.loads(text)
    assert post.metadata == {"name": "release", "description": "Cut a release: yes, on Fridays"}


def test_skill_files_are_written_through_python_frontmatter() -> None:
    long = "x" * 200  # never wrapped
    text = render_skill_file("release", long, "body")
    assert frontmatter.loads(text).metadata == {"name": "release", "description": long}
    assert text.endswith("---\n\nbody\n")


def test_fact_files_do_not_go_through_python_frontmatter() -> None:
    source = Path(markdown.__file__).parent / "store" / "fileformat.py"
    imported = {a.name for n in ast.walk(ast.parse(source.read_text())) if isinstance(n, ast.Import) for a in n.names}
    imported |= {n.module or "" for n in ast.walk(ast.parse(source.read_text())) if isinstance(n, ast.ImportFrom)}
    assert not any(m.startswith("frontmatter") for m in imported)
