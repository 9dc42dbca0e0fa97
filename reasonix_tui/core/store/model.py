"""The fact record and the normalisation rules of the Reasonix store (spec §2.5-§4).

Everything here is pure: no file I/O.
"""

from __future__ import annotations

import hashlib
import os
import re
import secrets as _secrets
from dataclasses import dataclass, field
from functools import lru_cache
from typing import NewType

from ..compat.gostr import bound_filename_component, is_digit, is_letter, is_number, one_line, to_lower, trim_space
from ..compat.gotime import Timestamp

__all__ = [
    "FactId",
    "TYPES",
    "SCOPES",
    "ACTIVATIONS",
    "VOLATILITIES",
    "Fact",
    "Reference",
    "normalize_type",
    "normalize_fact_scope",
    "parse_scope_strict",
    "normalize_activation",
    "normalize_volatility",
    "normalize_subject_key",
    "resolve_activation",
    "slug",
    "normalized_phrase",
    "legacy_memory_id",
    "new_memory_id",
    "parse_reference",
    "display_title",
    "routing_type",
    "StoreError",
    "InvalidInput",
    "NotFound",
    "Conflict",
]

FactId = NewType("FactId", str)
"""A fact's immutable id (``mem-…`` or ``legacy-…``)."""

TYPES = ("user", "feedback", "project", "reference")
SCOPES = ("project", "global")
ACTIVATIONS = ("relevant", "pinned")
VOLATILITIES = ("evergreen", "stable", "volatile")


class StoreError(Exception):
    """A store operation failed; ``str(err)`` is the Reasonix-compatible message."""

    exit_code = 1


class InvalidInput(StoreError):
    """The request itself is invalid (CLI exit code 2)."""

    exit_code = 2


class NotFound(StoreError):
    """The referenced fact or revision does not exist."""

    exit_code = 1


class Conflict(StoreError):
    """Expected revision, subject key, name or create-only conflict."""

    exit_code = 1


def normalize_type(value: str | None) -> str:
    """``NormalizeType``: lowercased, trimmed; unknown or empty → ``project``."""
    v = to_lower(trim_space(value or ""))
    return v if v in TYPES else "project"


def normalize_fact_scope(value: str | None) -> str:
    """``NormalizeFactScope``: ``global`` or else ``project``."""
    return "global" if to_lower(trim_space(value or "")) == "global" else "project"


def parse_scope_strict(value: str | None) -> str:
    """The file reader's scope parse: ``project``/``global`` or ``""`` (unset)."""
    v = to_lower(trim_space(value or ""))
    return v if v in SCOPES else ""


def normalize_activation(value: str | None) -> str:
    """``NormalizeActivation``: ``relevant``/``pinned`` or ``""`` (unknown never becomes a value)."""
    v = to_lower(trim_space(value or ""))
    return v if v in ACTIVATIONS else ""


def normalize_volatility(value: str | None) -> str:
    """``evergreen``/``stable``/``volatile`` or ``""``."""
    v = to_lower(trim_space(value or ""))
    return v if v in VOLATILITIES else ""


@lru_cache(maxsize=1 << 14)
def normalize_subject_key(value: str | None) -> str:
    """``NormalizeSubjectKey`` (spec §4). Memoised: a snapshot's checks ask it of every
    fact several times."""
    parts: list[str] = []
    for segment in to_lower(trim_space(value or "")).split("."):
        chars: list[str] = []
        for ch in segment:
            if "a" <= ch <= "z" or "0" <= ch <= "9" or ch == "-":
                chars.append(ch)
            elif ch == " " or ch == "_":
                chars.append("_")
        seg = "".join(chars).strip("_-")
        if seg:
            parts.append(seg)
    return ".".join(parts)


@lru_cache(maxsize=256)
def resolve_activation(activation: str, scope: str, type_: str) -> str:
    """``ResolveActivation``: explicit value, else legacy global user/feedback → pinned.
    Memoised (a few distinct values; ``Fact.pinned`` asks it of every fact several times
    per health run)."""
    act = normalize_activation(activation)
    if act:
        return act
    if normalize_fact_scope(scope) == "global" and type_ in ("user", "feedback"):
        return "pinned"
    return "relevant"


_SLUGGY = re.compile(r"[a-z0-9]+(?:-[a-z0-9]+)*")
_NOT_ASCII_ALNUM = re.compile(r"[^a-z0-9]+")


def slug(value: str) -> str:
    """Reasonix ``slug`` (spec §2.6): letters and numbers kept, other runs → ``-``, bounded."""
    if len(value) <= 252 and _SLUGGY.fullmatch(value):
        return value  # already a slug (the common case: stored names)
    s = to_lower(trim_space(value))
    out: list[str] = []
    pending_dash = False
    for ch in s:
        if is_letter(ch) or is_number(ch):
            if pending_dash and out:
                out.append("-")
            pending_dash = False
            out.append(ch)
        else:
            pending_dash = True
    return bound_filename_component("".join(out), 252)


def normalized_phrase(value: str) -> str:
    """Letters and decimal digits only, lowercased (titles and descriptions compared for dedup)."""
    if value.isascii():
        return _NOT_ASCII_ALNUM.sub("", value.lower())
    return "".join(ch for ch in to_lower(value) if is_letter(ch) or is_digit(ch))


def legacy_memory_id(name: str, scope: str) -> FactId:
    """``legacy-`` + first 12 bytes of SHA-256(``reasonix-memory-v2\\0<scope>\\0<slug(name)>``)."""
    payload = b"reasonix-memory-v2\x00" + normalize_fact_scope(scope).encode() + b"\x00" + slug(name).encode("utf-8")
    return FactId("legacy-" + hashlib.sha256(payload).digest()[:12].hex())


def new_memory_id() -> FactId:
    """``mem-`` + 32 random lowercase hex digits."""
    return FactId("mem-" + _secrets.token_bytes(16).hex())


@dataclass(frozen=True, slots=True)
class Reference:
    """A parsed reference string (spec §2.7)."""

    raw: str
    """The trimmed input."""
    name: str
    """The slugged name part."""
    scope: str
    """``project``/``global`` when qualified, else ``""``."""

    @property
    def qualified(self) -> bool:
        """True for ``project/<name>`` or ``global/<name>``."""
        return bool(self.scope)


def _strip_md(value: str) -> str:
    return value[:-3] if value.endswith(".md") else value


def parse_reference(ref: str) -> Reference:
    """``parseMemoryReference``."""
    raw = trim_space(ref)
    for prefix in ("project/", "global/"):
        if raw.startswith(prefix):
            rest = raw[len(prefix) :]
            if rest and "/" not in rest and "\\" not in rest:
                return Reference(raw=raw, name=slug(_strip_md(rest)), scope=prefix[:-1])
    return Reference(raw=raw, name=slug(_strip_md(raw)), scope="")


def name_was_normalised(requested: str) -> bool:
    """True when a requested name or ref is stored under another spelling (slug rules:
    ``a\\b`` → ``a-b``, ``NUL`` → ``nul``, ``../seed-0`` → ``seed-0``)."""
    raw = trim_space(requested)
    if not raw:
        return False
    ref = parse_reference(raw)
    plain = {ref.name, ref.name + ".md"}
    if ref.scope:
        plain |= {f"{ref.scope}/{ref.name}", f"{ref.scope}/{ref.name}.md"}
    return raw not in plain


def normalisation_note(requested: str, stored_ref: str) -> str:
    """``"saved as project/a-b.md (from `a\\b`)"`` when the name was normalised, else ``""``."""
    if not name_was_normalised(requested):
        return ""
    return f"saved as {stored_ref} (from `{trim_space(requested)}`)"


def display_title(title: str, name: str) -> str:
    """The one-lined title, or the name with ``-`` turned into spaces."""
    t = one_line(title)
    return t if t else name.replace("-", " ")


def routing_type(scope: str, type_: str) -> str:
    """``metadata.type`` for older clients that routed files by type (spec §3.5)."""
    if scope == "global":
        return type_ if type_ in ("user", "feedback") else "user"
    return type_ if type_ in ("project", "reference") else "project"


@dataclass(frozen=True, slots=True)
class Fact:
    """One active (or archived, or historical) fact, as read from its file."""

    id: FactId
    """Immutable id."""
    revision: int
    """Monotonic revision, at least 1."""
    created_at: Timestamp | None
    """Creation time (file mtime when missing)."""
    updated_at: Timestamp | None
    """Last update time (file mtime when missing)."""
    name: str
    """The stored name (normally the slug / file stem)."""
    title: str = ""
    """Human title (may be empty)."""
    description: str = ""
    """One-line description."""
    keywords: str = ""
    """Space-separated search aliases."""
    activation: str = ""
    """Normalised explicit activation (``""`` when unset)."""
    volatility: str = ""
    """Normalised volatility (``""`` when unset)."""
    subject_key: str = ""
    """Normalised subject key."""
    expires_at: Timestamp | None = None
    """Hard expiry."""
    last_verified_at: Timestamp | None = None
    """Last explicit verification."""
    type: str = "project"
    """Actual type."""
    scope: str = "project"
    """Effective scope (the file's, else the directory's)."""
    body: str = ""
    """Trimmed Markdown body."""
    file_scope: str = ""
    """The scope written in the file (``""`` when absent or invalid)."""
    supersedes: tuple[str, ...] = ()
    """reasonix-tui extension: ids or refs of facts this one replaced."""
    extra: tuple[tuple[str, str], ...] = ()
    """Unknown scalar top-level frontmatter keys, preserved on rewrite."""
    path: str = ""
    """Absolute file path ("" for facts not read from disk)."""
    raw_times: tuple[tuple[str, str], ...] = field(default=(), compare=False)
    """Raw timestamp texts as read (kept for diagnostics)."""
    parse_error: str = ""
    """Why the frontmatter could not be parsed (the body was still read)."""
    encoding: str = "utf-8"
    """How the file's bytes were decoded."""

    @property
    def ref(self) -> str:
        """Provider-visible reference ``<scope>/<slug(name)>.md``."""
        return f"{self.scope}/{slug(self.name) or self.name}.md"

    @property
    def stem(self) -> str:
        """The file stem."""
        return os.path.splitext(os.path.basename(self.path))[0] if self.path else slug(self.name)

    @property
    def resolved_activation(self) -> str:
        """``pinned`` or ``relevant`` after the legacy rule."""
        return resolve_activation(self.activation, self.scope, self.type)

    @property
    def pinned(self) -> bool:
        """True when the fact resolves to pinned."""
        return self.resolved_activation == "pinned"

    @property
    def display_title(self) -> str:
        """Title for lists and blocks."""
        return display_title(self.title, self.name)

    @property
    def clock_start(self) -> Timestamp | None:
        """The freshness clock's start (updated, else created, renewed by verification)."""
        start = self.updated_at or self.created_at
        if self.last_verified_at is not None and (start is None or self.last_verified_at > start):
            return self.last_verified_at
        return start
