"""Minimal edits to a JSON document: change only what differs, keep the rest byte for byte.

``setup`` merges its entries into files that belong to the person and to other tools
(``.claude/settings.json``, ``~/.claude.json``, ``.mcp.json``, ``hooks.json``…). Parsing
them and dumping the result would re-indent and re-wrap everything. :func:`update`
instead parses the text with the position of every value, compares it with the wanted
document, and splices new text only where values differ:

* unchanged values keep their exact text (spacing, line breaks, number spelling,
  escapes);
* an object keeps the order of its existing keys; new keys are appended, written in the
  file's own indentation (tabs or N spaces, detected) and in the container's style
  (one line or one member per line);
* arrays are diffed item by item (kept items stay, removed ones go with their comma,
  new ones are inserted in place);
* the result is checked to parse to exactly the wanted document.

Strict JSON only (what these clients write). The library for this elsewhere is
Microsoft's ``jsonc-parser`` ``modify``/``applyEdits``; its Python binding needs Node at
run time, hence this small module.
"""

from __future__ import annotations

import difflib
import json
import re
from dataclasses import dataclass, field
from json.decoder import scanstring  # type: ignore[attr-defined]  # public in CPython, absent from typeshed
from typing import Any

__all__ = ["update", "dumps"]

_WS = re.compile(r"[ \t\n\r]*")
_NUMBER = re.compile(r"-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][-+]?[0-9]+)?")
_LITERALS = {"true": True, "false": False, "null": None}


@dataclass
class _Node:
    start: int
    end: int
    value: Any
    members: list[tuple[str, int, _Node]] = field(default_factory=list)
    """Objects: ``(key, key_start, value node)`` in file order."""
    items: list[_Node] = field(default_factory=list)
    """Arrays: the item nodes."""
    kind: str = "scalar"


class _Parser:
    def __init__(self, text: str) -> None:
        self.s = text

    def ws(self, i: int) -> int:
        m = _WS.match(self.s, i)
        return m.end() if m else i

    def value(self, i: int) -> _Node:
        i = self.ws(i)
        c = self.s[i]
        if c == "{":
            return self.obj(i)
        if c == "[":
            return self.arr(i)
        if c == '"':
            val, end = scanstring(self.s, i + 1, True)
            return _Node(i, end, val)
        for word, val in _LITERALS.items():
            if self.s.startswith(word, i):
                return _Node(i, i + len(word), val)
        m = _NUMBER.match(self.s, i)
        if not m:
            raise ValueError(f"unexpected character at {i}")
        return _Node(i, m.end(), json.loads(m.group()))

    def obj(self, i: int) -> _Node:
        node = _Node(i, i, None, kind="object")
        j = self.ws(i + 1)
        out: dict[str, Any] = {}
        if self.s[j] == "}":
            node.end, node.value = j + 1, out
            return node
        while True:
            j = self.ws(j)
            key, after = scanstring(self.s, j + 1, True)
            colon = self.ws(after)
            child = self.value(colon + 1)
            node.members.append((key, j, child))
            out[key] = child.value
            j = self.ws(child.end)
            if self.s[j] == ",":
                j += 1
                continue
            node.end, node.value = j + 1, out
            return node

    def arr(self, i: int) -> _Node:
        node = _Node(i, i, None, kind="array")
        j = self.ws(i + 1)
        if self.s[j] == "]":
            node.end, node.value = j + 1, []
            return node
        while True:
            child = self.value(j)
            node.items.append(child)
            j = self.ws(child.end)
            if self.s[j] == ",":
                j += 1
                continue
            node.end, node.value = j + 1, [n.value for n in node.items]
            return node


def _same(a: Any, b: Any) -> bool:
    """Equal as JSON, including key order and the int/float/bool distinction."""
    return json.dumps(a, ensure_ascii=False) == json.dumps(b, ensure_ascii=False)


def _equal(a: Any, b: Any) -> bool:
    """Equal as JSON documents (object key order aside; ``1``, ``1.0`` and ``true`` differ)."""
    return json.dumps(a, sort_keys=True, ensure_ascii=False) == json.dumps(b, sort_keys=True, ensure_ascii=False)


class _Writer:
    def __init__(self, text: str, pretty: bool) -> None:
        self.s = text
        self.pretty = pretty
        """The document spans several lines (new containers are written one entry a line)."""
        self.unit = _indent_unit(text) or ("  " if pretty else "")
        self.nl = "\r\n" if "\r\n" in text else "\n"
        """The file's line ending (new lines use it too)."""

    def line_indent(self, pos: int) -> str:
        start = self.s.rfind("\n", 0, pos) + 1
        m = re.match(r"[ \t]*", self.s[start:pos])
        return m.group() if m else ""

    def fresh(self, value: Any, indent: str, multiline: bool) -> str:
        if not multiline:
            return json.dumps(value, ensure_ascii=False, separators=(", ", ": "))
        text = json.dumps(value, ensure_ascii=False, indent=self.unit)
        return text.replace("\n", self.nl + indent)

    def render(self, node: _Node, new: Any) -> str:
        if _same(node.value, new):
            return self.s[node.start : node.end]
        if node.kind == "object" and isinstance(new, dict):
            return self.render_object(node, new)
        if node.kind == "array" and isinstance(new, list):
            return self.render_array(node, new)
        return self.fresh(new, self.line_indent(node.start), self.pretty)

    def _layout(self, node: _Node, starts: list[int], ends: list[int]) -> tuple[str, str, str, bool]:
        """``(lead, separator, trail, multiline)`` of a container: the whitespace after the
        opening bracket, between two entries (comma included) and before the closing one."""
        inner = self.s[node.start + 1 : node.end - 1]
        own = self.line_indent(node.start)
        if starts:
            lead = self.s[node.start + 1 : starts[0]]
            trail = self.s[ends[-1] : node.end - 1]
            sep = self.s[ends[0] : starts[1]] if len(starts) > 1 else ""
            multiline = "\n" in lead or "\n" in trail or "\n" in sep
            if not sep:
                sep = "," + self.nl + lead.rsplit("\n", 1)[-1] if multiline else ", "
            return lead, sep, trail, multiline
        if "\n" in inner or self.pretty:
            child = own + self.unit
            return self.nl + child, "," + self.nl + child, self.nl + own, True
        return "", ", ", "", False

    def _assemble(
        self,
        node: _Node,
        pieces: list[tuple[str, int | None]],
        starts: list[int],
        ends: list[int],
        open_: str,
        close: str,
    ) -> str:
        """``pieces``: the new entries' text with the index of the original entry each one
        keeps (``None`` for a new one); original separators are reused between entries
        that were neighbours."""
        if not pieces:
            return open_ + close
        lead, sep, trail, _ = self._layout(node, starts, ends)
        out = [open_, lead]
        for n, (text, orig) in enumerate(pieces):
            if n:
                prev = pieces[n - 1][1]
                if prev is not None and orig is not None and orig == prev + 1:
                    out.append(self.s[ends[prev] : starts[orig]])
                else:
                    out.append(sep)
            out.append(text)
        out += [trail, close]
        return "".join(out)

    def render_object(self, node: _Node, new: dict[str, Any]) -> str:
        starts = [k for _, k, _ in node.members]
        ends = [child.end for _, _, child in node.members]
        _, sep, _, multiline = self._layout(node, starts, ends)
        indent = sep.rsplit("\n", 1)[-1] if multiline else ""
        colon = ": "
        if node.members:
            key, kstart, child = node.members[0]
            _, after = scanstring(self.s, kstart + 1, True)
            colon = self.s[after : child.start]
        pieces: list[tuple[str, int | None]] = []
        seen = set()
        for n, (key, kstart, child) in enumerate(node.members):
            if key in seen or key not in new:
                continue
            seen.add(key)
            head = self.s[kstart : child.start]
            pieces.append((head + self.render(child, new[key]), n))
        for key, value in new.items():
            if key not in seen:
                pieces.append(
                    (json.dumps(key, ensure_ascii=False) + colon + self.fresh(value, indent, multiline), None)
                )
        return self._assemble(node, pieces, starts, ends, "{", "}")

    def render_array(self, node: _Node, new: list[Any]) -> str:
        starts = [child.start for child in node.items]
        ends = [child.end for child in node.items]
        _, sep, _, multiline = self._layout(node, starts, ends)
        indent = sep.rsplit("\n", 1)[-1] if multiline else ""
        old_keys = [json.dumps(child.value, ensure_ascii=False) for child in node.items]
        new_keys = [json.dumps(v, ensure_ascii=False) for v in new]
        pieces: list[tuple[str, int | None]] = []
        matcher = difflib.SequenceMatcher(a=old_keys, b=new_keys, autojunk=False)
        for op, a0, a1, b0, b1 in matcher.get_opcodes():
            if op == "equal":
                pieces += [(self.s[starts[i] : ends[i]], i) for i in range(a0, a1)]
            elif op in ("replace", "insert", "delete"):
                paired = min(a1 - a0, b1 - b0) if op == "replace" else 0
                for k in range(paired):
                    pieces.append((self.render(node.items[a0 + k], new[b0 + k]), a0 + k))
                for k in range(b0 + paired, b1):
                    pieces.append((self.fresh(new[k], indent, multiline), None))
        return self._assemble(node, pieces, starts, ends, "[", "]")


def _indent_unit(text: str) -> str:
    """The file's indentation step: a tab, or the smallest number of leading spaces ("" for
    one-line documents)."""
    widths = []
    for line in text.splitlines()[1:]:
        stripped = line.lstrip(" \t")
        if not stripped:
            continue
        lead = line[: len(line) - len(stripped)]
        if lead.startswith("\t"):
            return "\t"
        if lead:
            widths.append(len(lead))
    return " " * min(widths) if widths else ("  " if "\n" in text.strip() else "")


def dumps(value: Any) -> str:
    """A new file's text: two-space indentation and a final newline."""
    return json.dumps(value, indent=2, ensure_ascii=False) + "\n"


def update(text: str | None, new: Any) -> str:
    """``text`` rewritten so that it parses to ``new``, changing only what differs
    (:func:`dumps` when there is no text yet)."""
    if text is None or not text.strip():
        return dumps(new)
    root = _Parser(text).value(0)
    writer = _Writer(text, "\n" in text[root.start : root.end])
    out = text[: root.start] + writer.render(root, new) + text[root.end :]
    if not _equal(json.loads(out), new):  # a bug here must never cost the person their file
        return dumps(new)
    return out
