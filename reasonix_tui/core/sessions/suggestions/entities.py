"""Entities: the concrete things an environment fact names.

Hosts, IPs, ports, URLs, paths, files, inline code, env vars, handles, versions,
identifiers and product or person names, found by pattern in one sentence.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

__all__ = ["Entity", "entities"]


@dataclass(frozen=True, slots=True)
class Entity:
    """A concrete thing named in a statement."""

    kind: str
    """``url`` ``host`` ``ip`` ``port`` ``path`` ``file`` ``code`` ``env`` ``handle`` ``version`` ``ident``
    ``name`` (a product or person: ``ArgoCD``, ``Lina``)."""
    value: str
    """Lower-cased value."""


FILE_EXT = (
    "ts|tsx|js|jsx|mjs|cjs|py|pyi|go|rs|java|kt|kts|rb|php|cs|c|h|cc|cpp|hpp|swift|m|md|mdx|json|yaml|yml|"
    "toml|ini|cfg|conf|lock|sql|sh|bash|zsh|ps1|env|txt|csv|css|scss|less|html|vue|svelte|xml|gradle|proto|tf|"
    "ipynb|png|jpg|jpeg|gif|svg|pdf|log|bak|tmp|dockerfile"
)


RE_URL = re.compile(r"https?://[^\s)\]>'\"`，。]+", re.I)


RE_IP = re.compile(r"\b\d{1,3}(?:\.\d{1,3}){3}(?::\d{2,5})?\b")


RE_HOST = re.compile(
    r"(?<![\w/.@-])(?:[a-z0-9](?:[a-z0-9-]*[a-z0-9])?\.)+[a-z][a-z0-9-]{1,20}(?::\d{2,5})?(?![\w/-])", re.I
)


RE_FILE = re.compile(rf"(?<![\w/.-])\.?[\w-]+(?:\.[\w-]+)*\.(?:{FILE_EXT})\b|(?<![\w/])\.env(?:\.[\w-]+)?\b", re.I)


RE_PATH = re.compile(r"(?<![\w`])(?:~|\.{1,2})?/?[\w.@-]+(?:/[\w.@*-]+)+/?|(?<![\w])(?:~|\.)/[\w.@*-]+")


RE_DIR = re.compile(r"(?<![\w/.@-])([\w.@-]{2,40})/(?![\w/])")


NOT_DIRS = frozenset(
    {
        "and",
        "or",
        "w",
        "i",
        "o",
        "n",
        "a",
        "y",
        "yes",
        "no",
        "on",
        "off",
        "true",
        "false",
        "read",
        "write",
        "input",
        "output",
        "km",
        "h",
        "s",
        "ms",
    }
)


RE_CODE = re.compile(r"`([^`\n]{1,100})`")


RE_ENV = re.compile(r"\b[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+\b")


RE_HANDLE = re.compile(r"(?<![\w.])@[A-Za-z][\w-]{1,38}")


RE_VERSION = re.compile(r"(?<![\w.])v?\d+\.\d+(?:\.\d+)*(?![\w.])")


RE_PORT = re.compile(
    r"(?:\bports?\s+|端口\s*|(?<=[a-z0-9]):|\b(?:listen|serve|bind|expose)[a-z]*\s+(?:[a-z-]+\s+){0,2}on\s+(?:port\s+)?)(\d{2,5})\b",
    re.I,
)


RE_IDENT = re.compile(
    r"(?<![\w./-])(?:[a-z][a-z0-9]*(?:[-_][a-z0-9]+)+|[a-z]+[A-Z][A-Za-z0-9]+|[a-z]+[0-9]+[a-z0-9]*)(?![\w/-])"
)


RE_NAME = re.compile(
    r"(?<=[\w,;:)\]]\s)(?<!\. )([A-Z][a-z0-9]+(?:[A-Z][A-Za-z0-9]*)+|[A-Z][a-z][a-z0-9]{1,20})(?![\w'-])"
    r"|(?<![\w-])([A-Z][a-z0-9]+[A-Z][A-Za-z0-9]*)(?![\w-])"
)


NOT_NAMES = frozenset(
    "I I'm I'll I've I'd OK Ok Okay Yes No Not The This That These Those It Its We You They He She "
    "Please Thanks Also And But So Then Now Here There What When Where Why How Which Who Do Don't "
    "Monday Tuesday Wednesday Thursday Friday Saturday Sunday January February March April May June "
    "July August September October November December".split()
)


KIND_LABEL = {
    "code": "inline code",
    "env": "env var",
    "ident": "identifier",
    "name": "proper name",
    "url": "URL",
    "ip": "IP address",
}


NOT_HOSTS = re.compile(rf"\.(?:{FILE_EXT})$|^(?:e\.g|i\.e|etc|vs|a\.m|p\.m)\b", re.I)


def entities(text: str) -> list[Entity]:
    """Concrete things named in ``text`` (deduplicated, in order)."""
    out: dict[tuple[str, str], Entity] = {}

    def add(kind: str, value: str) -> None:
        v = value.strip().strip(".,;:()[]").lower()
        if len(v) >= 2 and (kind, v) not in out:
            out[(kind, v)] = Entity(kind, v)

    spans = [m.group(1) for m in RE_CODE.finditer(text)]
    for s in spans:
        add("code", s)
    bare = RE_CODE.sub(lambda m: " " + m.group(1) + " ", text)
    for m in RE_URL.finditer(bare):
        add("url", m.group(0))
    bare_nourl = RE_URL.sub(" ", bare)
    for m in RE_IP.finditer(bare_nourl):
        add("ip", m.group(0))
    for m in RE_HOST.finditer(bare_nourl):
        host = m.group(0)
        if not NOT_HOSTS.search(host.split(":")[0]) and not RE_VERSION.fullmatch(host) and "." in host:
            add("host", host)
    for m in RE_FILE.finditer(bare_nourl):
        add("file", m.group(0))
    for m in RE_PATH.finditer(bare_nourl):
        p = m.group(0)
        if "/" in p and not p.startswith("//") and not re.fullmatch(r"[\d/]+", p) and len(p) > 2:
            add("path", p)
    for m in RE_DIR.finditer(bare_nourl):
        if m.group(1).lower() not in NOT_DIRS and not any(m.group(1).lower() in e.value for e in out.values()):
            add("path", m.group(1) + "/")
    for m in RE_PORT.finditer(bare_nourl):
        add("port", m.group(1))
    for m in RE_ENV.finditer(bare_nourl):
        add("env", m.group(0))
    for m in RE_HANDLE.finditer(bare_nourl):
        add("handle", m.group(0))
    for m in RE_VERSION.finditer(bare_nourl):
        add("version", m.group(0).lstrip("v"))
    for m in RE_IDENT.finditer(bare_nourl):
        w = m.group(0)
        if not any(w.lower() in e.value for e in out.values()):
            add("ident", w)
    for m in RE_NAME.finditer(bare_nourl):
        w = m.group(1) or m.group(2)
        if w and w not in NOT_NAMES and not any(w.lower() in e.value for e in out.values()):
            add("name", w)
    return list(out.values())
