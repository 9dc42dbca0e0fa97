"""Reading and writing fact files (spec §2.1-§2.4).

Reading: bytes → text (:mod:`..compat.encoding`) → fence split → YAML node tree (PyYAML's
``compose`` with the C loader, so scalars stay raw text: ``007`` stays ``"007"`` and
timestamps stay strings) → the "legacy flat view" (nested mappings collapsed onto
their leaf keys, sequences joined with ``", "``, last write wins) → :class:`Fact`.

Writing: :class:`Fact` → fixed key order → :mod:`..compat.yamlv3` scalars →
``---\\n<yaml>---\\n\\n<trimmed body>\\n``, byte-identical to Reasonix's Go ``render``.
(python-frontmatter is not used here: it would add nothing to a fixed layout. It reads
and writes the documents that need no Go compatibility: :mod:`reasonix_tui.core.markdown`.)

A YAML error never loses the body: the frontmatter is treated as empty (as Reasonix
does) and :attr:`Fact.parse_error` says why, so the UI can show an error row.
"""

from __future__ import annotations

import json
import os
import re
from typing import TYPE_CHECKING, Any

from ..compat import yamlv3
from ..compat.encoding import decode_bytes
from ..compat.gostr import to_lower, trim_space
from ..compat.gotime import Timestamp, parse_rfc3339
from .fields import EDITABLE_FIELDS
from .model import (
    TYPES,
    Fact,
    FactId,
    legacy_memory_id,
    normalize_fact_scope,
    normalize_type,
    parse_scope_strict,
    routing_type,
)

__all__ = [
    "split_frontmatter",
    "flatten_yaml",
    "parse_fact_text",
    "fact_from_flat",
    "render_fact",
    "KNOWN_FLAT_KEYS",
]

if TYPE_CHECKING:
    import yaml

_LOADER: list[Any] = []


def _loader() -> Any:
    """PyYAML and the loader, on first use: most fact files take the fast path below, so a
    one-shot command that reads a few of them does not import PyYAML (about 20 ms)."""
    if not _LOADER:
        import yaml

        base: Any = getattr(yaml, "CSafeLoader", yaml.SafeLoader)

        class _RawLoader(base):  # type: ignore[misc]  # yaml's C loader is untyped
            """Compose-only loader that skips implicit tag resolution: we only want raw
            scalar text (Reasonix's flat view never resolves types), and PyYAML's resolver
            regexes are the single biggest cost of reading a fact file."""

            _TAGS = {
                yaml.ScalarNode: "tag:yaml.org,2002:str",
                yaml.SequenceNode: "tag:yaml.org,2002:seq",
                yaml.MappingNode: "tag:yaml.org,2002:map",
            }

            def resolve(self, kind: type, value: Any, implicit: Any) -> str:
                return self._TAGS[kind]

        _LOADER.append(_RawLoader)
    return _LOADER[0]


_ASCII_WS = " \t\n\v\f\r"


def _trim(s: str) -> str:
    return s.strip(_ASCII_WS) if s.isascii() else trim_space(s)


def _key(s: str) -> str:
    return s.strip(_ASCII_WS).lower() if s.isascii() else to_lower(trim_space(s))


KNOWN_FLAT_KEYS = frozenset(
    {
        "id",
        "revision",
        "created_at",
        "updated_at",
        "last_verified_at",
        "type",
        "fact_type",
        "scope",
        "metadata",
        "supersedes",
        *(f.name for f in EDITABLE_FIELDS if f.to_text is not None),  # name, title, description, keywords, ...
    }
)
"""The frontmatter keys a fact file's fields come from (every other key is kept as extra)."""


def split_frontmatter(text: str) -> tuple[str | None, str]:
    """Reasonix's fence split: ``(raw_yaml or None, body)``.

    ``\\r\\n`` becomes ``\\n``; the first line (TrimSpace) must be ``---`` and the next
    line that trims to ``---`` closes the block. Otherwise the whole text is the body.
    """
    text = text.replace("\r\n", "\n")
    lines = text.split("\n")
    if not lines or trim_space(lines[0]) != "---":
        return None, text
    for i in range(1, len(lines)):
        if trim_space(lines[i]) == "---":
            return "\n".join(lines[1:i]), "\n".join(lines[i + 1 :])
    return None, text


def _flatten_node(node: yaml.Node, out: dict[str, str], order: list[str], top: list[str] | None = None) -> None:
    import yaml

    if not isinstance(node, yaml.MappingNode):
        return
    for key_node, value_node in node.value:
        if not isinstance(key_node, yaml.ScalarNode):
            continue
        key = _key(str(key_node.value))
        if isinstance(value_node, yaml.MappingNode):
            _flatten_node(value_node, out, order)
            continue
        if top is not None and isinstance(value_node, yaml.ScalarNode):
            top.append(key)
        if isinstance(value_node, yaml.SequenceNode):
            items = [_trim(str(item.value)) for item in value_node.value if isinstance(item, yaml.ScalarNode)]
            value = ", ".join(i for i in items if i)
        elif isinstance(value_node, yaml.ScalarNode):
            value = _trim(str(value_node.value))
        else:
            continue
        if not value:
            continue
        if key in out:
            order.remove(key)
        out[key] = value
        order.append(key)


def yaml_error_text(exc: yaml.YAMLError) -> str:
    """One line a person can act on, with positions counted in the *file*.

    The frontmatter starts on the file's second line (after ``---``), so YAML line ``n``
    (0-based) is file line ``n + 2``. PyYAML's own text names ``"<unicode string>"``.
    """
    import yaml

    if isinstance(exc, yaml.MarkedYAMLError) and exc.problem_mark is not None:
        mark = exc.problem_mark
        text = f"line {mark.line + 2}, column {mark.column + 1}: {exc.problem or 'invalid YAML'}"
        if exc.context:
            where = f" started on line {exc.context_mark.line + 2}" if exc.context_mark is not None else ""
            text += f" ({exc.context}{where})"
        return " ".join(text.split())
    return " ".join(str(exc).split())


# ----------------------------------------------------------------------------- fast path
#
# Nearly every fact file on disk is what Reasonix or this tool wrote: ``key: scalar`` lines,
# maybe one ``metadata:`` block of the same. ``_fast_flatten`` reads exactly that subset
# line by line (about 5x faster than composing with libyaml and walking the nodes) and
# returns ``None`` the moment a line is anything else (comments, sequences, block or
# multi-line scalars, anchors, tags, odd escapes, characters YAML treats specially), so
# the YAML parser decides every case the subset does not cover. A differential property
# test holds the two to the same answer.

_FAST_KEY = re.compile(r"([A-Za-z_][A-Za-z0-9_-]*):(?: +(.*))?")
_FAST_CHILD = re.compile(r"( +)([A-Za-z_][A-Za-z0-9_-]*):(?: +(.*))?")
# Anything YAML's reader rejects or treats as a line break (libyaml also rejects U+FEFF
# inside the stream), tabs (indentation and separation rules), and the backslash escapes
# beyond JSON's: the YAML parser handles those.
_FAST_BAIL = re.compile("[^\n\x20-\x7e\xa0-\u2027\u202a-\ud7ff\ue000-\ufefe\uff00-\ufffd\U00010000-\U0010ffff]")
_PLAIN_FIRST_BAD = frozenset("-?:,[]{}#&*!|>'\"%@`")
_JSON_ESCAPES = frozenset('"\\/bfnrt')


def _fast_scalar(text: str | None) -> str | None:
    """The raw value of a one-line scalar in the subset, or ``None`` to fall back."""
    if text is None:
        return ""
    text = text.rstrip(" ")
    if not text:
        return ""
    first = text[0]
    if first == '"':
        if len(text) < 2 or text[-1] != '"':
            return None
        inner = text[1:-1]
        i = inner.find("\\")
        while i != -1:
            if i + 1 >= len(inner) or inner[i + 1] not in _JSON_ESCAPES:
                return None
            i = inner.find("\\", i + 2)
        try:
            value = json.loads(text)
        except ValueError:
            return None
        return value if isinstance(value, str) else None
    if first == "'":
        if len(text) < 2 or text[-1] != "'":
            return None
        inner = text[1:-1]
        if inner.replace("''", "").find("'") != -1:
            return None
        return inner.replace("''", "'")
    if first in _PLAIN_FIRST_BAD or ": " in text or " #" in text or text.endswith(":"):
        return None
    return text


def _fast_flatten(raw_yaml: str) -> dict[str, str] | None:
    """:func:`flatten_yaml`'s answer for the common subset, or ``None`` (use the parser)."""
    if _FAST_BAIL.search(raw_yaml) is not None:
        return None
    items: list[tuple[str, str, bool]] = []  # (key, raw value, top-level scalar)
    lines = raw_yaml.split("\n")
    n = len(lines)
    i = 0
    seen = False
    while i < n:
        line = lines[i]
        i += 1
        if not line.strip(" "):
            continue
        m = _FAST_KEY.fullmatch(line)
        if m is None or len(m.group(1)) > 128:
            return None
        seen = True
        key = m.group(1).lower()
        rest = m.group(2)
        # Indented lines after this one: a nested mapping (only after an empty value).
        j = i
        while j < n and not lines[j].strip(" "):
            j += 1
        nested = j < n and lines[j].startswith(" ")
        if not nested:
            value = _fast_scalar(rest)
            if value is None:
                return None
            items.append((key, value, True))
            continue
        if rest is not None and rest.rstrip(" "):
            return None  # a multi-line scalar (or worse)
        indent = ""
        while i < n:
            child = lines[i]
            if not child.strip(" "):
                i += 1
                continue
            if not child.startswith(" "):
                break
            c = _FAST_CHILD.fullmatch(child)
            if c is None or (indent and c.group(1) != indent) or len(c.group(2)) > 128:
                return None
            indent = c.group(1)
            value = _fast_scalar(c.group(3))
            if value is None:
                return None
            items.append((c.group(2).lower(), value, False))
            i += 1
    if not seen:
        return {}
    out: dict[str, str] = {}
    top: list[str] = []
    for key, raw, is_top in items:
        if is_top:
            top.append(key)
        value = _trim(raw)
        if not value:
            continue
        out.pop(key, None)  # a repeated key moves to the end, as in the node walk
        out[key] = value
    out["__top__"] = " ".join(top)
    return out


def flatten_yaml(raw_yaml: str) -> tuple[dict[str, str], str]:
    """Parse raw frontmatter into the flat key → raw text view; ``({}, error)`` on failure.

    The returned dict's ``__top__`` entry (when present) lists, space-separated, the
    top-level keys whose values are plain scalars: only those are preserved as extras.
    """
    fast = _fast_flatten(raw_yaml)
    if fast is not None:
        return fast, ""
    return _flatten_parsed(raw_yaml)


def _flatten_parsed(raw_yaml: str) -> tuple[dict[str, str], str]:
    """:func:`flatten_yaml` through the YAML parser (every case)."""
    import yaml

    try:
        node = yaml.compose(raw_yaml, Loader=_loader())
    except yaml.YAMLError as exc:
        return {}, yaml_error_text(exc)
    except (ValueError, RecursionError) as exc:  # pragma: no cover - exotic input
        return {}, str(exc)
    if node is None:
        return {}, ""
    if not isinstance(node, yaml.MappingNode):
        return {}, "frontmatter is not a mapping"
    flat: dict[str, str] = {}
    order: list[str] = []
    top: list[str] = []
    _flatten_node(node, flat, order, top)
    result = {k: flat[k] for k in order}
    result["__top__"] = " ".join(top)
    return result, ""


def _atoi_revision(value: str) -> int:
    v = trim_space(value)
    sign = 1
    if v and v[0] in "+-":
        sign = -1 if v[0] == "-" else 1
        v = v[1:]
    if not v or not v.isascii() or not v.isdigit():
        return 0
    n = sign * int(v)
    return n if n >= 1 else 0


def _safe_extra_key(key: str) -> bool:
    return bool(key) and all(c.isalnum() or c in "_-" for c in key) and key.isascii()


def fact_from_flat(
    flat: dict[str, str],
    body: str,
    *,
    path: str = "",
    dir_scope: str = "project",
    mtime: Timestamp | None = None,
    parse_error: str = "",
    encoding: str = "utf-8",
) -> Fact:
    """``loadMemory``: map the flat keys onto a :class:`Fact` (spec §2.4 step 5-6)."""
    stem = os.path.splitext(os.path.basename(path))[0] if path else ""
    name = flat.get("name", "") or stem
    fact_type_raw = to_lower(trim_space(flat.get("fact_type", "")))
    type_ = fact_type_raw if fact_type_raw in TYPES else normalize_type(flat.get("type", ""))
    file_scope = parse_scope_strict(flat.get("scope", ""))
    scope = file_scope or dir_scope
    fact_id = flat.get("id", "")
    if not trim_space(fact_id):
        identity_scope = file_scope or ("global" if type_ in ("user", "feedback") else "project")
        fact_id = legacy_memory_id(name, identity_scope)
    revision = _atoi_revision(flat.get("revision", "")) or 1
    created = parse_rfc3339(flat.get("created_at")) or mtime
    updated = parse_rfc3339(flat.get("updated_at")) or mtime
    supersedes = tuple(s for s in (trim_space(p) for p in flat.get("supersedes", "").replace(",", " ").split()) if s)
    top_level = set(flat.get("__top__", "").split())
    extra = tuple(
        (k, v)
        for k, v in flat.items()
        if k not in KNOWN_FLAT_KEYS and k != "__top__" and k in top_level and _safe_extra_key(k)
    )
    raw_times = tuple((k, flat[k]) for k in ("created_at", "updated_at", "expires_at", "last_verified_at") if k in flat)
    # Every editable field read from its own key (title, description, keywords, activation,
    # volatility, subject key, expiry), as its declaration says.
    values = {f.name: f.from_text(flat.get(f.name, "")) for f in EDITABLE_FIELDS if f.from_text is not None}
    return Fact(
        id=FactId(fact_id),
        revision=revision,
        created_at=created,
        updated_at=updated,
        name=name,
        **values,
        last_verified_at=parse_rfc3339(flat.get("last_verified_at")),
        type=type_,
        scope=scope,
        body=trim_space(body),
        file_scope=file_scope,
        supersedes=supersedes,
        extra=extra,
        path=path,
        raw_times=raw_times,
        parse_error=parse_error,
        encoding=encoding,
    )


def parse_fact_bytes(
    data: bytes, *, path: str = "", dir_scope: str = "project", mtime: Timestamp | None = None
) -> Fact:
    """Decode and parse a fact file's bytes."""
    decoded = decode_bytes(data)
    return parse_fact_text(decoded.text, path=path, dir_scope=dir_scope, mtime=mtime, encoding=decoded.encoding)


def parse_fact_text(
    text: str,
    *,
    path: str = "",
    dir_scope: str = "project",
    mtime: Timestamp | None = None,
    encoding: str = "utf-8",
) -> Fact:
    """Parse decoded text into a :class:`Fact`."""
    raw_yaml, body = split_frontmatter(text)
    flat: dict[str, str] = {}
    error = ""
    if raw_yaml is not None:
        flat, error = flatten_yaml(raw_yaml)
    return fact_from_flat(flat, body, path=path, dir_scope=dir_scope, mtime=mtime, parse_error=error, encoding=encoding)


def _pairs_for(fact: Fact) -> list[tuple[str, object]]:
    pairs: list[tuple[str, object]] = []
    if fact.id:
        pairs.append(("id", str(fact.id)))
    if fact.revision >= 1:
        pairs.append(("revision", int(fact.revision)))
    if fact.created_at is not None:
        pairs.append(("created_at", fact.created_at.rfc3339()))
    if fact.updated_at is not None:
        pairs.append(("updated_at", fact.updated_at.rfc3339()))
    # Reasonix's keys from name to expires_at, in declaration order (see fields.FactField.to_text).
    for f in EDITABLE_FIELDS:
        if f.to_text is not None:
            text = f.to_text(getattr(fact, f.name))
            if text or f.always:
                pairs.append((f.name, text))
    if fact.last_verified_at is not None:
        pairs.append(("last_verified_at", fact.last_verified_at.rfc3339()))
    type_ = normalize_type(fact.type)
    scope = normalize_fact_scope(fact.scope)
    route = routing_type(scope, type_)
    meta: list[tuple[str, object]] = [("type", route)]
    if route != type_:
        meta.append(("fact_type", type_))
    meta.append(("scope", scope))
    pairs.append(("metadata", meta))
    # reasonix-tui extensions come after Reasonix's own keys, so an ordinary fact is
    # byte-identical to what Reasonix writes and Reasonix ignores these on read.
    if fact.supersedes:
        pairs.append(("supersedes", " ".join(fact.supersedes)))
    for key, value in fact.extra:
        if key not in KNOWN_FLAT_KEYS and value:
            pairs.append((key, value))
    return pairs


def render_fact(fact: Fact) -> str:
    """The exact text Reasonix's ``render`` writes for this fact."""
    return f"---\n{yamlv3.emit_mapping(_pairs_for(fact))}---\n\n{trim_space(fact.body)}\n"
