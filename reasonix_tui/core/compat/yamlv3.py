"""A string emitter that writes scalars byte-for-byte like gopkg.in/yaml.v3 v3.0.1.

Reasonix renders fact frontmatter with yaml.v3 (indent 2, no line wrapping). PyYAML
does not match it: it treats astral-plane characters as printable, resolves with
different tables and quotes other strings. This module reproduces the three steps of
spec §2.2 for string values in block context:

A. *resolver check* (``encoder.stringv``): a string that would read back as another
   type (null, YAML 1.1 bool, int, float, base-60 float, timestamp) is double-quoted;
B. *emitter analysis* (libyaml ``analyze_scalar``): indicators, leading/trailing
   spaces and ``: `` / `` #`` force single quotes;
C. non-printable characters, tabs, line breaks or runes above U+FFFF force double
   quotes with yaml.v3's escapes.

Only the handful of key shapes a fact file uses are emitted (strings, ints, one nested
mapping), so the emitter is small; everything else of YAML stays with PyYAML on read.
"""

from __future__ import annotations

import re
from datetime import date

__all__ = ["scalar", "plain_int", "emit_mapping"]

_NULLS = {"", "~", "null", "Null", "NULL"}
_BOOLS = {
    "y",
    "Y",
    "yes",
    "Yes",
    "YES",
    "n",
    "N",
    "no",
    "No",
    "NO",
    "true",
    "True",
    "TRUE",
    "false",
    "False",
    "FALSE",
    "on",
    "On",
    "ON",
    "off",
    "Off",
    "OFF",
}
_SPECIAL_FLOATS = {
    ".nan",
    ".NaN",
    ".NAN",
    ".inf",
    ".Inf",
    ".INF",
    "+.inf",
    "+.Inf",
    "+.INF",
    "-.inf",
    "-.Inf",
    "-.INF",
}
_YAML_STYLE_FLOAT = re.compile(r"^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$")
_BASE60 = re.compile(r"^[-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+(?:\.[0-9_]*)?$")
_GO_FLOAT = re.compile(
    r"^[+-]?(?:(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?|inf(?:inity)?|nan)$",
    re.IGNORECASE,
)
_TS_DATE = r"(\d{4})-(\d{1,2})-(\d{1,2})"
_TS_TIME = r"(\d{1,2}):(\d{1,2}):(\d{1,2})(?:\.\d+)?"
_TIMESTAMPS = (
    re.compile(rf"^{_TS_DATE}[Tt]{_TS_TIME}(?:Z|[+-]\d{{2}}:\d{{2}})$"),
    re.compile(rf"^{_TS_DATE} {_TS_TIME}$"),
    re.compile(rf"^{_TS_DATE}$"),
)


def _go_parse_int(text: str) -> bool:
    """``strconv.ParseInt(text, 0, 64)`` or ``ParseUint`` succeeds."""
    s = text
    neg = False
    if s and s[0] in "+-":
        neg = s[0] == "-"
        s = s[1:]
    if not s:
        return False
    base = 10
    digits = s
    low = s.lower()
    if low.startswith("0x"):
        base, digits = 16, s[2:]
    elif low.startswith("0o"):
        base, digits = 8, s[2:]
    elif low.startswith("0b"):
        base, digits = 2, s[2:]
    elif len(s) > 1 and s[0] == "0":
        base, digits = 8, s[1:]
    if not digits:
        return False
    try:
        value = int(digits, base)
    except ValueError:
        return False
    if not digits.isascii() or not all(c.isalnum() for c in digits):
        return False
    limit = 1 << 63 if neg else (1 << 64) - 1
    return value <= limit


def _looks_timestamp(s: str) -> bool:
    """yaml.v3 ``parseTimestamp``: 4 digits then ``-``, then one of four Go layouts."""
    if len(s) < 5 or not s[:4].isdigit() or not s[:4].isascii() or s[4] != "-":
        return False
    for pattern in _TIMESTAMPS:
        m = pattern.match(s)
        if not m:
            continue
        groups = m.groups()
        try:
            date(int(groups[0]), int(groups[1]), int(groups[2]))
        except ValueError:
            continue
        if len(groups) > 3:
            hour, minute, second = (int(g) for g in groups[3:6])
            if hour > 23 or minute > 59 or second > 59:
                continue
        return True
    return False


def _resolves_to_non_string(s: str) -> bool:
    """Step A: would the unquoted string read back as something other than ``!!str``?"""
    if s in _NULLS or s in _BOOLS or s in _SPECIAL_FLOATS:
        return True
    if _BASE60.match(s):
        return True
    first = s[0]
    if first == ".":
        return bool(_GO_FLOAT.match(s))
    if first in "+-" or "0" <= first <= "9":
        if _looks_timestamp(s):
            return True
        plain = s.replace("_", "")
        if not plain:
            return False
        if _go_parse_int(plain):
            return True
        if _YAML_STYLE_FLOAT.match(plain):
            return True
    return False


def _is_printable(ch: str) -> bool:
    """libyaml ``is_printable`` (yaml.v3 with unicode output enabled)."""
    cp = ord(ch)
    return cp == 0x0A or 0x20 <= cp <= 0x7E or 0xA0 <= cp <= 0xD7FF or (0xE000 <= cp <= 0xFFFD and cp != 0xFEFF)


_BREAKS = "\r\n\x85\u2028\u2029"


def _plain_or_single(s: str) -> str:
    """Step B/C: ``plain``, ``single`` or ``double`` per libyaml's analysis."""
    block_indicators = False
    line_breaks = special = tabs = False
    leading_space = leading_break = trailing_space = trailing_break = False
    break_space = space_break = False
    previous_space = previous_break = False
    if s.startswith(("---", "...")):
        block_indicators = True
    preceded_by_ws = True
    n = len(s)
    for i, ch in enumerate(s):
        followed_by_ws = i + 1 >= n or s[i + 1] in " \t"
        if i == 0:
            if ch in "#,[]{}&*!|>'\"%@`":
                block_indicators = True
            elif ch in "?:":
                if followed_by_ws:
                    block_indicators = True
            elif ch == "-":
                if followed_by_ws:
                    block_indicators = True
        else:
            if ch == ":" and followed_by_ws:
                block_indicators = True
            elif ch == "#" and preceded_by_ws:
                block_indicators = True
        if ch == "\t":
            tabs = True
        elif not _is_printable(ch):
            special = True
        if ch == " ":
            if i == 0:
                leading_space = True
            if i == n - 1:
                trailing_space = True
            if previous_break:
                break_space = True
            previous_space, previous_break = True, False
        elif ch in _BREAKS:
            line_breaks = True
            if i == 0:
                leading_break = True
            if i == n - 1:
                trailing_break = True
            if previous_space:
                space_break = True
            previous_space, previous_break = False, True
        else:
            previous_space = previous_break = False
        preceded_by_ws = ch in " \t" or ch in _BREAKS or ch == "\x00"
    block_plain = True
    single = True
    if leading_space or leading_break or trailing_space or trailing_break:
        block_plain = False
    if break_space:
        block_plain = single = False
    if space_break or tabs or special:
        block_plain = single = False
    if line_breaks:
        block_plain = False
        # yaml.v3 would pick a literal block here; fact fields are one-lined before
        # rendering, so no line break reaches the emitter. Double quotes read back
        # identically and keep the frontmatter flat.
        single = False
    if block_indicators:
        block_plain = False
    if block_plain:
        return "plain"
    return "single" if single else "double"


_DQ_NAMED = {
    0x00: "\\0",
    0x07: "\\a",
    0x08: "\\b",
    0x09: "\\t",
    0x0A: "\\n",
    0x0B: "\\v",
    0x0C: "\\f",
    0x0D: "\\r",
    0x1B: "\\e",
    0x22: '\\"',
    0x5C: "\\\\",
    0x85: "\\N",
    0xA0: "\\_",
    0x2028: "\\L",
    0x2029: "\\P",
}


def _double_quoted(s: str) -> str:
    # libyaml's is_bom() looks at the first bytes of the whole value, not at the
    # current position, so a value that starts with U+FEFF has *every* rune escaped
    # (spec §2.2: "\uFEFFbom" is written "\uFEFF\x62\x6F\x6D").
    escape_all = s.startswith("\ufeff")
    out = ['"']
    for ch in s:
        cp = ord(ch)
        if escape_all or not _is_printable(ch) or ch in _BREAKS or ch == '"' or ch == "\\":
            named = _DQ_NAMED.get(cp)
            if named is not None:
                out.append(named)
            elif cp <= 0xFF:
                out.append(f"\\x{cp:02X}")
            elif cp <= 0xFFFF:
                out.append(f"\\u{cp:04X}")
            else:
                out.append(f"\\U{cp:08X}")
        else:
            out.append(ch)
    out.append('"')
    return "".join(out)


def scalar(value: str) -> str:
    """The text yaml.v3 writes for a string mapping value."""
    if _resolves_to_non_string(value):
        return _double_quoted(value)
    style = _plain_or_single(value)
    if style == "plain":
        return value
    if style == "single":
        return "'" + value.replace("'", "''") + "'"
    return _double_quoted(value)


def plain_int(value: int) -> str:
    """An int as yaml.v3 writes it."""
    return str(int(value))


def emit_mapping(pairs: list[tuple[str, object]], indent: int = 0) -> str:
    """Emit ``key: value`` lines; a value that is a list of pairs becomes a nested block."""
    pad = " " * indent
    lines: list[str] = []
    for key, value in pairs:
        if isinstance(value, list):
            lines.append(f"{pad}{key}:\n")
            lines.append(emit_mapping(value, indent + 2))
        elif isinstance(value, bool):
            lines.append(f"{pad}{key}: {'true' if value else 'false'}\n")
        elif isinstance(value, int):
            lines.append(f"{pad}{key}: {plain_int(value)}\n")
        else:
            lines.append(f"{pad}{key}: {scalar(str(value))}\n")
    return "".join(lines)
