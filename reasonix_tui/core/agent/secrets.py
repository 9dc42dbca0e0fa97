"""Secret detection and redaction (store-format §7, "Sensitive content").

Two layers:

* :func:`reasonix_redact` is a port of Reasonix's ``secrets.Redact``
  (``internal/base/secrets/redact.go``): URL userinfo, key/value pairs whose key names a
  credential (JSON-quoted keys too), ``Authorization`` headers of every scheme and bare,
  ``Cookie``/``Set-Cookie`` pairs, ``Bearer`` tokens of 16+ characters, and the
  provider token shapes (``sk-``/``rk-``, GitHub, Slack, AWS access key ids, JWTs).
  The write policy's "``Redact`` changes it" test uses exactly this function.
* :func:`findings` reports *what* is sensitive, with spans into the original text
  and a masked preview, so the Context Center can flag it. It covers everything
  :func:`reasonix_redact` changes (the same passes run with span tracking, so the two
  can never disagree), plus e-mail addresses (the policy's exact regex) and private
  key blocks. :func:`redact` masks all of it.

The broader detector (detect-secrets plugins and extra provider rules) is
:mod:`.secret_detection`.

Go semantics are kept by working on UTF-8 bytes: ``\\b``, ``\\s`` and case folding are
ASCII-only as in Go's RE2, lengths for masking are byte lengths, and a mask may cut
through a multi-byte character exactly where Go would (shown as U+FFFD).

Private keys: Reasonix's policy only looks for ``BEGIN PRIVATE KEY`` and ``BEGIN
OPENSSH PRIVATE KEY``; we also flag ``BEGIN RSA/EC/DSA/ENCRYPTED … PRIVATE KEY`` and
PGP private key blocks (the spec asks to treat its list as a floor).

Every pattern is linear in the input: the URL-userinfo and e-mail searches are
anchored on ``://`` and ``@`` instead of scanning from every word boundary.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator

from ..compat.gostr import trim_space
from .secret_kinds import Finding

__all__ = [
    "REDACTED",
    "reasonix_redact",
    "reasonix_sensitive",
    "redact",
    "findings",
    "is_sensitive",
    "mask",
    "EMAIL_PATTERN",
]

REDACTED = "[redacted]"
_REDACTED_B = REDACTED.encode()

# --- Go-compatible building blocks (bytes, ASCII semantics) -----------------------------

_WS = b" \t\n\r\f"  # Go's asciiSpace and RE2's \s
_KEY_BYTES = frozenset(b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-.")
_WORD = frozenset(b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_")
_SCHEME_BYTES = frozenset(b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789+.-")
_LETTERS = frozenset(b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ")
_AUTH_SCHEMES = frozenset({b"bearer", b"basic", b"digest", b"negotiate", b"ntlm", b"token", b"bot", b"apikey"})

_COOKIE = re.compile(
    rb"(?i)\b((?:set-)?cookie)([\t\n\f\r ]*[:=][\t\n\f\r ]*)"
    rb"([^=;\t\n\f\r ]+=[^;\t\n\f\r ]*(?:;[\t\n\f\r ]*[^=;\t\n\f\r ]+(?:=[^;\t\n\f\r ]*)?)*)"
)
_COOKIE_PAIR = re.compile(rb"([^=;\t\n\f\r ]+)=([^;\t\n\f\r ]*)")
_BEARER = re.compile(rb"(?i)\bBearer[\t\n\f\r ]+([A-Za-z0-9._~+/=-]{16,})")
_TOKEN_SHAPES: tuple[tuple[str, re.Pattern[bytes]], ...] = (
    ("openai-key", re.compile(rb"\b((?:sk|rk)-(?:proj-)?[A-Za-z0-9_-]{12,})\b")),
    ("github-token", re.compile(rb"\b(gh[pousr]_[A-Za-z0-9_]{20,}|github_pat_[A-Za-z0-9_]{20,})\b")),
    ("slack-token", re.compile(rb"\b(xox[baprs]-[A-Za-z0-9-]{16,})\b")),
    ("aws-access-key", re.compile(rb"\b(AKIA[0-9A-Z]{16}|ASIA[0-9A-Z]{16})\b")),
    ("jwt", re.compile(rb"\b(eyJ[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+)\b")),
)

_EMAIL_TEXT = (
    r"\b[a-z0-9.!#$%&'*+/=?^_`{|}~-]+@[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?"
    r"(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)+\b"
)
EMAIL_PATTERN = "(?i)" + _EMAIL_TEXT
"""The write policy's e-mail regex, verbatim from Reasonix (Go syntax)."""
_EMAIL_LOCAL = frozenset(b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789.!#$%&'*+/=?^_`{|}~-")
_EMAIL_DOMAIN = re.compile(rb"(?i)[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)+\b")

_PRIVATE_KEY = re.compile(rb"(?i)(-----)?BEGIN ((?:[A-Z0-9]+ )*)PRIVATE KEY( BLOCK)?(-----)?")


def _go_trim(value: bytes) -> bytes:
    return trim_space(value.decode("utf-8", "surrogateescape")).encode("utf-8", "surrogateescape")


def _mask_bytes(value: bytes) -> bytes:
    """Go ``mask``: short values become ``[redacted]``, longer keep 4 (6 for sk-/rk-) + 4 bytes."""
    value = _go_trim(value)
    if not value or len(value) <= 12:
        return _REDACTED_B
    head, tail = 4, 4
    if value.startswith((b"sk-", b"rk-")):
        head = 6
    if len(value) <= head + tail:
        return _REDACTED_B
    return value[:head] + b"*" * (len(value) - head - tail) + value[len(value) - tail :]


def mask(value: str) -> str:
    """Reasonix's ``mask`` on a string (byte lengths, as Go counts them)."""
    return _decode(_mask_bytes(_encode(value)))


def _encode(text: str) -> bytes:
    return text.encode("utf-8", "surrogatepass")


def _decode(data: bytes) -> str:
    return data.decode("utf-8", "replace")


def _is_word(data: bytes, i: int) -> bool:
    return 0 <= i < len(data) and data[i] in _WORD


def _boundary(data: bytes, i: int) -> bool:
    """RE2 ``\\b`` (ASCII) at position ``i``."""
    return _is_word(data, i - 1) != _is_word(data, i)


def _authorization_key(key: bytes) -> bool:
    upper = key.upper()
    return upper == b"AUTHORIZATION" or upper.endswith((b"-AUTHORIZATION", b"_AUTHORIZATION", b".AUTHORIZATION"))


def _credential_key(key: bytes) -> bool:
    upper = key.upper()
    compact = upper.replace(b"_", b"").replace(b"-", b"")
    return (
        _authorization_key(key)
        or b"APIKEY" in compact
        or b"ACCESSKEY" in compact
        or b"PRIVATEKEY" in compact
        or b"SECRET" in upper
        or b"TOKEN" in upper
        or b"PASSWORD" in upper
        or b"PASSWD" in upper
        or b"_PWD" in upper
        or b"-PWD" in upper
    )


# An edit: (start, end, replacement, kind, preview-prefix) in the current bytes.
_Edit = tuple[int, int, bytes, str, bytes]


def _edits_url_userinfo(data: bytes) -> Iterator[_Edit]:
    """``(?i)\\b([a-z][a-z0-9+.-]*://)([^/\\s]+)@`` → ``$1[redacted]@`` (anchored on ``://``)."""
    last = 0
    pos = 0
    n = len(data)
    while True:
        c = data.find(b"://", pos)
        if c < 0:
            return
        pos = c + 1
        if c < last:
            continue
        q = c
        while q > last and data[q - 1] in _SCHEME_BYTES:
            q -= 1
        start = -1
        for p in range(q, c):
            if data[p] in _LETTERS and _boundary(data, p):
                start = p
                break
        if start < 0:
            continue
        e = c + 3
        while e < n and data[e] != 0x2F and data[e] not in _WS:
            e += 1
        at = data.rfind(b"@", c + 4, e)
        if at < 0:
            continue
        yield (c + 3, at, _REDACTED_B, "url-userinfo", data[start : c + 3])
        last = at + 1
        pos = at + 1


def _edits_key_values(data: bytes) -> Iterator[_Edit]:
    """Go ``redactKeyValues``: credential-named keys followed by ``:`` or ``=``."""
    n = len(data)
    sep = 0
    while sep < n:
        b = data[sep]
        if b != 0x3A and b != 0x3D:  # ':' '='
            sep += 1
            continue
        key_end = sep
        while key_end > 0 and data[key_end - 1] in _WS:
            key_end -= 1
        if key_end > 0 and data[key_end - 1] in (0x27, 0x22):
            key_end -= 1
        key_start = key_end
        while key_start > 0 and data[key_start - 1] in _KEY_BYTES:
            key_start -= 1
        key = data[key_start:key_end]
        if not _credential_key(key):
            sep += 1
            continue
        value_start = sep + 1
        while value_start < n and data[value_start] in _WS:
            value_start += 1
        if value_start < n and data[value_start] in (0x27, 0x22):
            value_start += 1
        scheme_start = value_start
        while value_start < n and data[value_start] in _KEY_BYTES:
            value_start += 1
        if value_start < n and data[value_start] in _WS and data[scheme_start:value_start].lower() in _AUTH_SCHEMES:
            while value_start < n and data[value_start] in _WS:
                value_start += 1
            if value_start < n and data[value_start] in (0x27, 0x22):
                value_start += 1
        else:
            value_start = scheme_start
        value_end = value_start
        while value_end < n and data[value_end] not in _WS and data[value_end] not in b"'\",;":
            value_end += 1
        if value_end == value_start:
            sep += 1
            continue
        value = data[value_start:value_end]
        auth = _authorization_key(key)
        if auth:
            repl = _REDACTED_B
        elif value in (b"****", _REDACTED_B):
            repl = value
        else:
            repl = _mask_bytes(value)
        yield (
            value_start,
            value_end,
            repl,
            "authorization" if auth else "secret-assignment",
            data[key_start:value_start],
        )
        sep = value_end


def _edits_cookies(data: bytes) -> Iterator[_Edit]:
    for m in _COOKIE.finditer(data):
        base = m.start(3)
        for pair in _COOKIE_PAIR.finditer(m.group(3)):
            yield (base + pair.start(2), base + pair.end(2), _REDACTED_B, "cookie", pair.group(1) + b"=")


def _edits_bearer(data: bytes) -> Iterator[_Edit]:
    for m in _BEARER.finditer(data):
        match = m.group(0)
        if match.startswith(b"Bearer"):
            repl = b"Bearer " + _mask_bytes(_go_trim(match[len(b"Bearer") :]))
        else:
            # Go's TrimPrefix is case-sensitive: "bearer …" is replaced whole.
            repl = b"Bearer " + _REDACTED_B
        yield (m.start(), m.end(), repl, "bearer-token", b"")


def _shape_pass(kind: str, rx: re.Pattern[bytes]) -> Callable[[bytes], Iterator[_Edit]]:
    def edits(data: bytes) -> Iterator[_Edit]:
        for m in rx.finditer(data):
            yield (m.start(), m.end(), _mask_bytes(m.group(0)), kind, b"")

    return edits


_PASSES: tuple[Callable[[bytes], Iterator[_Edit]], ...] = (
    _edits_url_userinfo,
    _edits_key_values,
    _edits_cookies,
    _edits_bearer,
    *(_shape_pass(kind, rx) for kind, rx in _TOKEN_SHAPES),
)
"""Reasonix's order: userinfo, key/values, cookies, bearer, then each token shape."""


def _run(data: bytes, track: bool) -> tuple[bytes, list[tuple[int, int, str, bytes]]]:
    """Apply every pass in order; with ``track``, return changed spans in original bytes."""
    origin: list[int] | None = list(range(len(data) + 1)) if track else None
    changed: list[tuple[int, int, str, bytes]] = []
    for make_edits in _PASSES:
        edits = list(make_edits(data))
        if not edits:
            continue
        out: list[bytes] = []
        new_origin: list[int] = []
        last = 0
        any_change = False
        for start, end, repl, kind, prefix in edits:
            out.append(data[last:start])
            out.append(repl)
            if repl != data[start:end]:
                any_change = True
                if origin is not None:
                    o_start = origin[start]
                    o_end = origin[end - 1] + 1 if end > start else o_start
                    changed.append((o_start, o_end, kind, prefix + repl))
            if origin is not None:
                new_origin.extend(origin[last:start])
                new_origin.extend([origin[start]] * len(repl))
            last = end
        if not any_change:
            continue
        out.append(data[last:])
        if origin is not None:
            new_origin.extend(origin[last:])
            origin = new_origin
        data = b"".join(out)
    return data, changed


def _reasonix_redact_bytes(data: bytes) -> bytes:
    return _run(data, track=False)[0] if data else data


def reasonix_redact(text: str) -> str:
    """Exactly what Reasonix's ``secrets.Redact`` returns for ``text``."""
    if not text:
        return text
    data = _encode(text)
    out = _reasonix_redact_bytes(data)
    return text if out == data else _decode(out)


# --- e-mail and private keys (the policy's extra checks) -------------------------------


def _email_spans(data: bytes) -> Iterator[tuple[int, int]]:
    """Matches of the policy's e-mail regex, found from each ``@`` (linear time)."""
    last = 0
    pos = 0
    while True:
        at = data.find(b"@", pos)
        if at < 0:
            return
        pos = at + 1
        if at < last:
            continue
        dm = _EMAIL_DOMAIN.match(data, at + 1)
        if dm is None:
            continue
        q = at
        while q > last and data[q - 1] in _EMAIL_LOCAL:
            q -= 1
        start = -1
        for p in range(q, at):
            if _boundary(data, p):
                start = p
                break
        if start < 0:
            continue
        yield start, dm.end()
        last = dm.end()
        pos = last


def _private_key_spans(data: bytes) -> Iterator[tuple[int, int, bytes]]:
    """Private key markers; a ``-----BEGIN …-----`` block runs to its END line (or the text's end)."""
    pos = 0
    while True:
        m = _PRIVATE_KEY.search(data, pos)
        if m is None:
            return
        end = m.end()
        if m.group(1) and m.group(4):
            label = re.escape(b"-----END " + m.group(2) + b"PRIVATE KEY" + (m.group(3) or b"") + b"-----")
            close = re.compile(label, re.IGNORECASE).search(data, end)
            end = close.end() if close else len(data)
        yield m.start(), end, m.group(0)
        pos = max(end, m.start() + 1)


def _mask_email(addr: bytes) -> bytes:
    local, _, domain = addr.partition(b"@")
    return local[:1] + b"***@" + domain


# --- public API -------------------------------------------------------------------------


class _CharIndex:
    """Byte offset → character offset for one UTF-8 text."""

    def __init__(self, data: bytes) -> None:
        self._data = data
        self._ascii = data.isascii()

    def __call__(self, offset: int) -> int:
        if self._ascii:
            return offset
        return sum(1 for b in self._data[:offset] if b & 0xC0 != 0x80)


def findings(text: str) -> list[Finding]:
    """Everything sensitive in ``text``, in order of position.

    Includes each change :func:`reasonix_redact` would make, every e-mail address and
    every private key marker or block. Empty when the text is safe.
    """
    if not text:
        return []
    data = _encode(text)
    idx = _CharIndex(data)
    found: list[Finding] = []
    _, changed = _run(data, track=True)
    for start, end, kind, preview in changed:
        found.append(Finding(kind, (idx(start), idx(end)), _decode(preview)))
    for start, end in _email_spans(data):
        found.append(Finding("email", (idx(start), idx(end)), _decode(_mask_email(data[start:end]))))
    key_spans = list(_private_key_spans(data))
    for start, end, marker in key_spans:
        found.append(Finding("private-key", (idx(start), idx(end)), _decode(marker) + " … " + REDACTED))
    if not key_spans and _go_private_key(text):
        found.append(Finding("private-key", (0, len(text)), "BEGIN PRIVATE KEY … " + REDACTED))
    found.sort(key=lambda f: (f.span, f.kind))
    return found


def _go_private_key(text: str) -> bool:
    upper = text.upper()
    return "BEGIN PRIVATE KEY" in upper or "BEGIN OPENSSH PRIVATE KEY" in upper


_EMAIL_RX = re.compile(_EMAIL_TEXT.encode(), re.IGNORECASE)


def reasonix_sensitive(text: str) -> bool:
    """Reasonix's ``rememberRequestSensitive`` predicate on an already joined text.

    ``Redact`` changes it, or the e-mail regex matches, or the uppercased text contains
    ``BEGIN PRIVATE KEY`` / ``BEGIN OPENSSH PRIVATE KEY``.
    """
    if not text:
        return False
    data = _encode(text)
    if _reasonix_redact_bytes(data) != data:
        return True
    if next(_email_spans(data), None) is not None:
        return True
    return _go_private_key(text)


def is_sensitive(text: str) -> bool:
    """True when :func:`findings` would report anything (a superset of Reasonix's test)."""
    return reasonix_sensitive(text) or bool(findings(text))


def redact(text: str) -> str:
    """Mask every finding: Reasonix's redaction, then e-mail addresses and private keys."""
    if not text:
        return text
    data = _encode(text)
    out = _reasonix_redact_bytes(data)
    spans: list[tuple[int, int, bytes]] = []
    for start, end, marker in _private_key_spans(out):
        spans.append((start, end, marker + b" " + _REDACTED_B))
    for start, end in _email_spans(out):
        if not any(s <= start < e for s, e, _ in spans):
            spans.append((start, end, _mask_email(out[start:end])))
    if spans:
        spans.sort()
        parts: list[bytes] = []
        last = 0
        for start, end, repl in spans:
            if start < last:
                continue
            parts.append(out[last:start])
            parts.append(repl)
            last = end
        parts.append(out[last:])
        out = b"".join(parts)
    return text if out == data else _decode(out)
