"""What the store's operations return, and a snapshot of the store (frozen data the UI shows)."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from ..compat.gotime import Timestamp
from .model import Fact

__all__ = [
    "SaveResult",
    "ArchiveResult",
    "ArchivedFact",
    "FileError",
    "Snapshot",
    "MigrationResult",
    "ActivationResult",
]


@dataclass(frozen=True, slots=True)
class SaveResult:
    """The outcome of a save, restore, recover, pin, unpin or verify."""

    fact: Fact
    """The fact as written."""
    previous: Fact | None = None
    """The active fact before the write (None for a create)."""
    created: bool = False
    """True when a new fact was created."""
    warnings: tuple[str, ...] = ()
    """Things a person should see (e.g. the superseded-value guard)."""
    archived: tuple[str, ...] = ()
    """Archive paths written on the way (single-active-copy rule)."""
    message: str = ""
    """A one-line human summary."""
    changed: bool = True
    """False when nothing was written (e.g. restoring the revision that is already active)."""


@dataclass(frozen=True, slots=True)
class ActivationResult:
    """Outcome of pin/unpin: ``changed`` False means it already had that activation."""

    fact: Fact
    changed: bool
    message: str
    result: SaveResult | None = None


@dataclass(frozen=True, slots=True)
class ArchiveResult:
    """Outcome of a forget."""

    path: str
    """The last archive path written, or ``""`` when nothing was archived."""
    fact: Fact | None
    """The fact that was active, when it could be read first."""
    paths: tuple[str, ...] = ()
    """Every archive path written."""
    message: str = ""


@dataclass(frozen=True, slots=True)
class ArchivedFact:
    """A fact in some ``.archive/``."""

    path: str
    fact: Fact
    archived_at: Timestamp | None
    scope: str


@dataclass(frozen=True, slots=True)
class FileError:
    """A file in a store directory that could not be read as a fact."""

    path: str
    scope: str
    message: str


@dataclass(frozen=True, slots=True)
class Snapshot:
    """An immutable view of the store at one moment."""

    facts: tuple[Fact, ...]
    """Active facts of both scopes, sorted by (name, scope, id)."""
    errors: tuple[FileError, ...] = ()
    """Unreadable files (shown as error rows)."""
    loaded_at: Timestamp | None = None
    by_id: dict[str, Fact] = field(default_factory=dict, compare=False)

    @classmethod
    def build(cls, facts: Iterable[Fact], errors: Iterable[FileError], loaded_at: Timestamp) -> Snapshot:
        fs = tuple(facts)
        return cls(facts=fs, errors=tuple(errors), loaded_at=loaded_at, by_id={f.id: f for f in fs})


@dataclass(frozen=True, slots=True)
class MigrationResult:
    """Outcome of ``migrate``."""

    migrated: int
    paths: tuple[str, ...] = ()
    backups: tuple[str, ...] = ()
