"""The agent write policy (store-format §7): which ``remember`` calls may land unasked.

:func:`assess_remember` is Reasonix's ``AssessRememberWrite``: the same name
derivation, the same checks in the same order with the same reason texts. Where
Reasonix stops at the first failing check, we keep going and list every failing
reason in :attr:`Assessment.reasons` (``reason`` is still the first one), so the
Context Center can show all of them. Findings and duplicates are returned too, so the
modal can flag *what* is sensitive and *which* fact it may duplicate.

With ``strict=True`` (the default, what the agent surfaces use) a few extension checks
run after Reasonix's, each only making the policy stricter:

* secrets in ``keywords`` (Reasonix does not look there) count as sensitive;
* the broader detector (:func:`~.secret_detection.detect`: the detect-secrets plugins plus rules
  for Google, Stripe, GitLab, npm, Azure, command-line and stated passwords...) runs over
  every field, the subject key included;
* private key blocks of any type count (Reasonix only matches two spellings);
* an explicit ``activation: pinned`` needs confirmation (a pinned body rides every
  later session's prefix; Reasonix's U2 variant asks for this too);
* ``supersedes`` needs confirmation (it declares another fact replaced).

:func:`assess_remember_skip` is U2's ``AssessRememberSkip`` (the
``auto_confirm_project_remember`` switch), and :func:`assess_forget` says why every
agent ``forget`` needs a person.

The arguments themselves are checked and turned into a save request in
:mod:`.remember_args`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol

from ..compat.gostr import to_lower, trim_space
from ..store.model import (
    Fact,
    InvalidInput,
    Reference,
    normalize_activation,
    normalize_fact_scope,
    normalize_type,
    normalized_phrase,
    parse_reference,
    slug,
)
from .remember_args import parse_remember_arguments, remember_request_name
from .secret_detection import detect
from .secret_kinds import Finding
from .secrets import findings, reasonix_sensitive

__all__ = [
    "MAX_AUTO_BODY_RUNES",
    "Reason",
    "DuplicateMatch",
    "Assessment",
    "ForgetAssessment",
    "FactSource",
    "assess_remember",
    "assess_remember_skip",
    "assess_forget",
    "fact_sensitive_findings",
    "forget_targets",
]

MAX_AUTO_BODY_RUNES = 6000
"""``maxAutoRememberBodyRunes``: the automatic-write budget, counted on the untrimmed body."""


class Reason:
    """Reason texts, verbatim from Reasonix where Reasonix has them."""

    INVALID = "invalid remember request"
    SCOPE_CONFLICT = "memory reference scope conflicts with explicit scope"
    REQUIRED = "description and body are required"
    STORE_UNAVAILABLE = "project memory store is unavailable"
    TYPE = "only explicitly classified project/reference facts are low-risk"
    GLOBAL = "global memory requires confirmation"
    UPDATE = "memory updates require confirmation"
    NO_NAME = "memory name cannot be derived"
    BODY_BUDGET = "memory body exceeds the automatic-write budget"
    SENSITIVE = "memory may contain sensitive information"
    DUPLICATE = "an existing memory may already cover this fact"
    ALLOWED = "new low-risk project fact"
    # U2 AssessRememberSkip
    UNRESOLVED = "the memory this call targets cannot be resolved"
    PINNED_REQUEST = "pinned memory requires confirmation"
    PINNED_TARGET = "a pinned memory requires confirmation"
    DUPLICATE_OTHER = "another memory already covers this fact"
    SKIP_ALLOWED = "a bounded, non-sensitive project fact"
    # reasonix-tui extensions (strict mode) and forget
    SUPERSEDES = "superseding another memory requires confirmation"
    NORMALISED_TARGET = (
        "the requested name is normalised to the name of an existing fact: saving it would update that fact"
    )
    FORGET = "forgetting a memory requires confirmation"


class FactSource(Protocol):
    """What the policy needs from a store: the active facts of both scopes."""

    def list_all(self) -> list[Fact]: ...


@dataclass(frozen=True, slots=True)
class DuplicateMatch:
    """An existing fact the request may duplicate, and which fields matched."""

    fact: Fact
    """The existing active fact."""
    fields: tuple[str, ...]
    """Any of ``name``, ``title``, ``description``."""

    def to_dict(self) -> dict[str, Any]:
        """JSON form for a proposal file."""
        return {"id": self.fact.id, "ref": self.fact.ref, "revision": self.fact.revision, "fields": list(self.fields)}


@dataclass(frozen=True, slots=True)
class Assessment:
    """Whether a ``remember`` call may be written without asking, and why."""

    auto_allow: bool
    """True only when every check passed."""
    reason: str
    """The first failing check's reason (Reasonix's text), or the allow reason."""
    reasons: tuple[str, ...] = ()
    """Every failing check's reason, in check order (empty when allowed)."""
    name: str = ""
    """The derived name (slug) the write would use; may be ``""``."""
    type: str = ""
    """The normalised type."""
    scope: str = "project"
    """The effective scope."""
    sensitive: tuple[Finding, ...] = ()
    """What looks sensitive, with the argument it was found in (``Finding.field``)."""
    duplicates: tuple[DuplicateMatch, ...] = ()
    """Existing facts the request may duplicate."""
    target: Fact | None = None
    """For updates: the stored fact the call would rewrite, when it resolves."""

    def to_dict(self) -> dict[str, Any]:
        """JSON form for a proposal file (findings carry masked previews only)."""
        return {
            "auto_allow": self.auto_allow,
            "reason": self.reason,
            "reasons": list(self.reasons),
            "name": self.name,
            "type": self.type,
            "scope": self.scope,
            "sensitive": [
                {"kind": f.kind, "field": f.field, "span": list(f.span), "preview": f.preview, "label": f.label}
                for f in self.sensitive
            ],
            "duplicates": [d.to_dict() for d in self.duplicates],
            "target": (
                {"id": self.target.id, "ref": self.target.ref, "revision": self.target.revision}
                if self.target is not None
                else None
            ),
        }


@dataclass(frozen=True, slots=True)
class ForgetAssessment:
    """Every agent ``forget`` needs a person; this says what it would archive."""

    ref: str
    """The reference as given."""
    targets: tuple[Fact, ...] = ()
    """Active facts the forget would archive (empty: nothing found)."""
    auto_allow: bool = False
    """Always False."""
    reason: str = Reason.FORGET
    reasons: tuple[str, ...] = field(default=(Reason.FORGET,))

    @property
    def found(self) -> bool:
        """True when something would be archived."""
        return bool(self.targets)

    def to_dict(self) -> dict[str, Any]:
        """JSON form for a proposal file."""
        return {
            "auto_allow": False,
            "reason": self.reason,
            "reasons": list(self.reasons),
            "targets": [{"id": f.id, "ref": f.ref, "revision": f.revision} for f in self.targets],
        }


# --------------------------------------------------------------------------- helpers


def _store_available(store: Any) -> bool:
    """Check 3: a project-dir path is configured (the files in it are not looked at)."""
    if store is None:
        return False
    project_dir = getattr(store, "project_dir", None)
    if project_dir is None:
        layout = getattr(store, "layout", None)
        project_dir = getattr(layout, "project_dir", "") if layout is not None else ""
        if layout is None:
            return True
    return bool(str(project_dir or ""))


def _sensitive_findings(args: Mapping[str, Any], strict: bool) -> tuple[bool, list[Finding]]:
    """Reasonix's predicate over name/title/description/body, plus findings by field."""
    parts = [
        ("name", str(args["name"])),
        ("title", str(args["title"])),
        ("description", str(args["description"])),
        ("body", str(args["body"])),
    ]
    text = "\n".join(p for _, p in parts)
    go = reasonix_sensitive(text)
    found: list[Finding] = []
    starts: list[tuple[int, str]] = []
    offset = 0
    for fname, value in parts:
        starts.append((offset, fname))
        offset += len(value) + 1
    for f in findings(text):
        base, fname = next((s, n) for s, n in reversed(starts) if s <= f.span[0])
        found.append(Finding(f.kind, (f.span[0] - base, f.span[1] - base), f.preview, fname))
    if strict:
        for f in findings(str(args["keywords"])):
            found.append(Finding(f.kind, f.span, f.preview, "keywords"))
        # The broader detector (detect-secrets plugins + extra rules) over every field.
        seen = {(f.field, f.span) for f in found}
        for fname in ("name", "title", "description", "body", "keywords", "subject_key"):
            for f in detect(str(args.get(fname) or "")):
                if (fname, f.span) not in seen and not any(
                    g.field == fname and g.span[0] <= f.span[0] and f.span[1] <= g.span[1] for g in found
                ):
                    found.append(Finding(f.kind, f.span, f.preview, fname))
                    seen.add((fname, f.span))
    if go and not found:
        found.append(Finding("secret-assignment", (0, 0), "credential-shaped text", "body"))
    sensitive = go or (strict and bool(found))
    return sensitive, found


def fact_sensitive_findings(fact: Fact) -> list[Finding]:
    """The write policy's sensitive-content scan (strict) over a stored fact's fields:
    what would make an agent's ``remember`` of this text need a person. Spans are offsets
    into :attr:`Finding.field` of ``fact``; previews are masked."""
    args = {
        "name": fact.name,
        "title": fact.title,
        "description": fact.description,
        "body": fact.body,
        "keywords": fact.keywords,
        "subject_key": fact.subject_key,
    }
    return _sensitive_findings(args, True)[1]


def _duplicates(
    store: FactSource, args: Mapping[str, Any], name: str, *, exclude_name: bool = False
) -> list[DuplicateMatch]:
    want_title = normalized_phrase(str(args["title"])) if args["title"] else ""
    want_desc = normalized_phrase(str(args["description"])) if args["description"] else ""
    out: list[DuplicateMatch] = []
    for existing in store.list_all():
        fields: list[str] = []
        same_name = bool(name) and slug(existing.name) == name
        if same_name:
            if exclude_name:
                continue
            fields.append("name")
        if args["title"] and normalized_phrase(existing.title) == want_title:
            fields.append("title")
        if args["description"] and normalized_phrase(existing.description) == want_desc:
            fields.append("description")
        if fields:
            out.append(DuplicateMatch(existing, tuple(fields)))
    return out


def _stored_target(store: FactSource, args: Mapping[str, Any], ref_name: str) -> Fact | None:
    """``rememberStoredFact``: by stable id, else by the addressed name."""
    fact_id = trim_space(str(args["id"]))
    if fact_id:
        return next((f for f in store.list_all() if f.id == fact_id), None)
    if ref_name:
        return next((f for f in store.list_all() if slug(f.name) == ref_name), None)
    return None


# --------------------------------------------------------------------------- assessments


def _request_checks(a: Mapping[str, Any], available: bool, reasons: list[str]) -> None:
    """Checks both assessments run in this order: description and body given, a project
    store, an explicit project/reference type."""
    if not trim_space(a["description"]) or not trim_space(a["body"]):
        reasons.append(Reason.REQUIRED)
    if not available:
        reasons.append(Reason.STORE_UNAVAILABLE)
    if to_lower(trim_space(a["type"])) not in ("project", "reference"):
        reasons.append(Reason.TYPE)


def _content_checks(a: Mapping[str, Any], name: str, strict: bool, reasons: list[str]) -> list[Finding]:
    """Checks both assessments run in this order: a name, the body budget (untrimmed),
    sensitive content. Returns the findings."""
    if not name:
        reasons.append(Reason.NO_NAME)
    if len(a["body"]) > MAX_AUTO_BODY_RUNES:
        reasons.append(Reason.BODY_BUDGET)
    sensitive, found = _sensitive_findings(a, strict)
    if sensitive:
        reasons.append(Reason.SENSITIVE)
    return found


def _parse_request(args: Mapping[str, Any] | str | bytes) -> tuple[dict[str, Any], Reference, str] | None:
    """What both assessments read first: the parsed remember arguments, the reference their
    request name makes and the normalised type; ``None`` for arguments that do not parse."""
    try:
        a = parse_remember_arguments(args)
    except InvalidInput:
        return None
    return a, parse_reference(remember_request_name(a)), normalize_type(a["type"])


def assess_remember(
    args: Mapping[str, Any] | str | bytes, store: FactSource | None, *, strict: bool = True
) -> Assessment:
    """``AssessRememberWrite`` (spec §7), every failing reason listed in order."""
    parsed = _parse_request(args)
    if parsed is None:
        return Assessment(False, Reason.INVALID, (Reason.INVALID,))
    a, ref, type_ = parsed
    name = ref.name
    scope = normalize_fact_scope(a["scope"])
    reasons: list[str] = []
    # 1. qualified reference vs explicit scope
    if ref.qualified:
        if trim_space(a["scope"]) and scope != ref.scope:
            reasons.append(Reason.SCOPE_CONFLICT)
        scope = ref.scope
    # 2. description and body, 3. project store, 4. explicit project/reference type
    available = _store_available(store)
    _request_checks(a, available, reasons)
    # 5. project scope
    if scope != "project":
        reasons.append(Reason.GLOBAL)
    # 6. updates
    if trim_space(a["id"]) or a["expected_revision"] > 0:
        reasons.append(Reason.UPDATE)
    # 7. name, 8. body budget (untrimmed), 9. sensitive content
    found = _content_checks(a, name, strict, reasons)
    # 10. duplicates
    dups = _duplicates(store, a, name) if (available and store is not None) else []
    if dups:
        reasons.append(Reason.DUPLICATE)
    # reasonix-tui extensions
    if strict:
        if _normalised_hit(store if available else None, a, name):
            reasons.append(Reason.NORMALISED_TARGET)
        if normalize_activation(a["activation"]) == "pinned":
            reasons.append(Reason.PINNED_REQUEST)
        if a["supersedes"]:
            reasons.append(Reason.SUPERSEDES)
    target = _stored_target(store, a, name) if (available and store is not None) else None
    if reasons:
        return Assessment(False, reasons[0], tuple(reasons), name, type_, scope, tuple(found), tuple(dups), target)
    return Assessment(True, Reason.ALLOWED, (), name, type_, scope, tuple(found), (), target)


def _target_scope(store: FactSource, a: Mapping[str, Any], ref: Any) -> tuple[str, bool, Fact | None]:
    """``rememberTargetScope``: the stored fact speaks first; a restated different scope is unresolved."""

    def stored_scope(stored: Fact) -> tuple[str, bool, Fact | None]:
        raw = trim_space(stored.file_scope)
        if not raw:
            return "project", False, stored
        scope = normalize_fact_scope(raw)
        if ref.qualified and ref.scope != scope:
            return "project", False, stored
        asked = trim_space(a["scope"])
        if asked and normalize_fact_scope(asked) != scope:
            return "project", False, stored
        return scope, True, stored

    fact_id = trim_space(a["id"])
    if fact_id:
        for stored in store.list_all():
            if stored.id == fact_id:
                return stored_scope(stored)
        return "project", False, None
    if ref.name:
        for stored in store.list_all():
            if slug(stored.name) == ref.name:
                return stored_scope(stored)
    if ref.qualified:
        return ref.scope, True, None
    if trim_space(a["scope"]):
        return normalize_fact_scope(a["scope"]), True, None
    return "project", True, None


def assess_remember_skip(
    args: Mapping[str, Any] | str | bytes, store: FactSource | None, *, strict: bool = True
) -> Assessment:
    """U2's ``AssessRememberSkip``: like :func:`assess_remember`, but updates of an
    existing project fact may pass (the ``auto_confirm_project_remember`` switch)."""
    parsed = _parse_request(args)
    if parsed is None:
        return Assessment(False, Reason.INVALID, (Reason.INVALID,))
    a, ref, type_ = parsed
    name = ref.name
    available = _store_available(store)
    facts_store: FactSource = store if (available and store is not None) else _Empty()
    reasons: list[str] = []
    scope, resolved, stored = _target_scope(facts_store, a, ref)
    if not resolved:
        reasons.append(Reason.UNRESOLVED)
    if scope != "project":
        reasons.append(Reason.GLOBAL)
    if not name and trim_space(a["id"]):
        stored_by_id = next((f for f in facts_store.list_all() if f.id == trim_space(a["id"])), None)
        if stored_by_id is not None:
            name = stored_by_id.name
    _request_checks(a, available, reasons)
    found = _content_checks(a, name, strict, reasons)
    if trim_space(a["activation"]):
        reasons.append(Reason.PINNED_REQUEST)
    target = _stored_target(facts_store, a, ref.name)
    if target is not None and target.pinned:
        reasons.append(Reason.PINNED_TARGET)
    dups = _duplicates(facts_store, a, name, exclude_name=True)
    if dups:
        reasons.append(Reason.DUPLICATE_OTHER)
    if strict and a["supersedes"]:
        reasons.append(Reason.SUPERSEDES)
    if strict and _normalised_hit(facts_store, a, ref.name):
        reasons.append(Reason.NORMALISED_TARGET)
    if reasons:
        return Assessment(False, reasons[0], tuple(reasons), name, type_, scope, tuple(found), tuple(dups), target)
    return Assessment(True, Reason.SKIP_ALLOWED, (), name, type_, scope, tuple(found), (), target)


def _normalised_hit(store: FactSource | None, a: Mapping[str, Any], name: str) -> bool:
    """A requested name that is stored under another spelling lands on an existing fact
    (``a\\b`` → the fact ``a-b``): never a silent update."""
    from ..store.model import name_was_normalised

    requested = trim_space(str(a.get("name") or ""))
    if store is None or not name or not requested or not name_was_normalised(requested):
        return False
    fact_id = trim_space(str(a.get("id") or ""))
    return any(slug(f.name) == name and f.id != fact_id for f in store.list_all())


class _Empty:
    def list_all(self) -> list[Fact]:
        return []


def forget_targets(ref: str, store: Any) -> tuple[Fact, ...]:
    """The active facts ``store.archive(ref)`` would move (spec §8.1 target rules)."""
    parsed = parse_reference(ref)
    if not parsed.raw:
        return ()
    fact = store.find(ref)
    if fact is None:
        return ()
    if fact.id == trim_space(ref) or parsed.qualified:
        return (fact,)
    name = slug(fact.name)
    return tuple(f for f in store.list_all() if slug(f.name) == name)


def assess_forget(ref: str, store: Any) -> ForgetAssessment:
    """Every agent forget needs a person; report what it would archive."""
    return ForgetAssessment(ref=ref, targets=forget_targets(ref, store))
