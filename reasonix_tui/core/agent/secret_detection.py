"""Broader secret detection, beyond Reasonix's predicate (:mod:`.secrets`).

Reasonix's predicate decides what Reasonix itself would refuse; it misses many provider
token shapes (Google API keys, Stripe, GitLab, npm, Azure storage keys...). The write
policy and the recall traces also run :func:`detect`: the detect-secrets plugins (Yelp's
maintained detector set; the entropy and public-IP plugins are left out, they flag hashes
and addresses) plus :data:`~.secret_kinds.EXTRA_RULES` for shapes those plugins do not
cover. A cheap prefilter keeps ordinary text from importing detect-secrets at all.
"""

from __future__ import annotations

import importlib
import re
import sys
import types
from collections.abc import Iterator
from typing import Any

from .secret_kinds import EXTRA_RULES, Finding
from .secrets import REDACTED, findings, mask, redact

__all__ = ["detect", "redact_detected"]


_PREFILTER = re.compile(
    r"[A-Za-z0-9_\-+/=.:]{16,}" r"|(?i:pass|pwd|secret|token|key|auth|cred|bearer|://|-p\S|\s-a\s|private|api)"
)
"""Text that cannot hold any secret shape detected below (no long token, no credential
word) skips the detect-secrets import."""


_PLUGINS: list[Any] | None = None


_SKIPPED_PLUGINS = {"Base64HighEntropyString", "HexHighEntropyString", "IPPublicDetector"}


class _RequestsOnUse(types.ModuleType):
    """``requests`` as detect-secrets' plugin modules see it while they are imported: every
    plugin module imports it (about 0.1 s: urllib3, charset detection, certificates) for its
    ``verify`` — network checks this code never asks for. Any attribute loads the real
    module and hands out its value (a verification, or an exception class, gets the real
    thing); only ``Response``, read by two return annotations while the modules are
    imported, is a placeholder during that window."""

    importing = True

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__"):
            raise AttributeError(name)
        if _RequestsOnUse.importing and name == "Response":
            return _AnnotationOnly
        real = sys.modules.get("requests")
        if real is self or real is None:
            sys.modules.pop("requests", None)
            real = importlib.import_module("requests")
        return getattr(real, name)


class _AnnotationOnly:
    """Stands for ``requests.Response`` in annotations evaluated at import."""


def _plugin_mapping() -> dict[str, Any]:
    """detect-secrets' plugin classes, imported with ``requests`` loaded only on use."""
    stub = None
    if "requests" not in sys.modules:
        stub = sys.modules["requests"] = _RequestsOnUse("requests")
    try:
        from detect_secrets.core.plugins.util import get_mapping_from_secret_type_to_class

        mapping: dict[str, Any] = get_mapping_from_secret_type_to_class()
    finally:
        if stub is not None:
            _RequestsOnUse.importing = False
            if sys.modules.get("requests") is stub:
                del sys.modules["requests"]  # a later ``import requests`` gets the real module
    return mapping


def _plugins() -> list[Any]:
    global _PLUGINS
    if _PLUGINS is None:
        mapping = _plugin_mapping()
        plugins: list[Any] = []
        for cls in mapping.values():
            if cls.__name__ in _SKIPPED_PLUGINS:
                continue
            try:
                plugins.append(cls())
            except Exception:  # noqa: BLE001 - a plugin that needs configuration is skipped
                continue
        _PLUGINS = plugins
    return _PLUGINS


def _line_spans(text: str) -> Iterator[tuple[int, str]]:
    start = 0
    for line in text.split("\n"):
        yield start, line
        start += len(line) + 1


def _plugin_findings(text: str) -> Iterator[tuple[int, int, str]]:
    for offset, line in _line_spans(text):
        if not line.strip() or not _PREFILTER.search(line):
            continue
        for plugin in _plugins():
            try:
                found = plugin.analyze_line(filename="memory.yaml", line=line, line_number=1)
            except Exception:  # noqa: BLE001 - a plugin bug never breaks a save
                continue
            for secret in found:
                value = secret.secret_value or ""
                at = line.find(value) if value else -1
                start, end = (offset + at, offset + at + len(value)) if at >= 0 else (offset, offset + len(line))
                yield start, end, "detect-secrets:" + str(secret.type)


def _rule_findings(text: str) -> Iterator[tuple[int, int, str]]:
    for kind, _, rx in EXTRA_RULES:
        for m in rx.finditer(text):
            groups = [i for i in range(1, (rx.groups or 0) + 1) if m.group(i)]
            start, end = (m.start(groups[0]), m.end(groups[0])) if groups else m.span()
            yield start, end, kind


def _joined(text: str) -> tuple[str, list[int]]:
    """``text`` with line breaks (and the spaces around them) removed, and for each
    character its offset in ``text``: finds a key split over two lines."""
    out: list[str] = []
    where: list[int] = []
    for m in re.finditer(r"[^\n]+", text):
        line = m.group(0)
        left = len(line) - len(line.lstrip())
        right = len(line.rstrip())
        for i in range(left if out else 0, right):
            out.append(line[i])
            where.append(m.start() + i)
    return "".join(out), where


def detect(text: str) -> list[Finding]:
    """Every secret :func:`findings` reports, plus what the detect-secrets plugins and the
    extra rules find (also across a line break). Masked previews only."""
    if not text:
        return []
    found = list(findings(text))
    if not _PREFILTER.search(text):
        return found
    spans: set[tuple[int, int, str]] = set(_rule_findings(text)) | set(_plugin_findings(text))
    if "\n" in text:
        joined, where = _joined(text)
        for start, end, kind in _rule_findings(joined):
            if end > start and where[end - 1] - where[start] >= end - start:  # it spans a break
                spans.add((where[start], where[end - 1] + 1, kind))
    taken = [f.span for f in found]
    for start, end, kind in sorted(spans):
        if any(s <= start and end <= e for s, e in taken):
            continue
        taken.append((start, end))
        found.append(Finding(kind, (start, end), mask(text[start:end])))
    found.sort(key=lambda f: (f.span, f.kind))
    return found


def redact_detected(text: str) -> str:
    """``text`` with everything :func:`detect` finds masked (for prompts kept on disk):
    :func:`redact` first, then every remaining detected span becomes ``[redacted]``."""
    if not text:
        return text
    out = redact(text)
    spans = [f.span for f in detect(out) if f.kind not in ("email",)]
    if not spans:
        return out
    parts: list[str] = []
    last = 0
    for start, end in sorted(spans):
        if start < last:
            continue
        if out[start:end] == REDACTED:
            continue
        parts.append(out[last:start])
        parts.append(REDACTED)
        last = end
    parts.append(out[last:])
    return "".join(parts)
