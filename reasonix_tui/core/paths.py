"""Where things live: the state root, the workspace slug and every directory under it.

Spec: store-format §1.1-§1.3, instructions-history-suggestions §0.

Reasonix's own layout::

    <root>/memory/global/                 global facts
    <root>/projects/<slug>/memory/        project facts
    <root>/projects/<slug>/sessions/      desktop sessions of the workspace
    <root>/sessions/                      CLI sessions
    <root>/archive/                       compacted-history archives
    <root>/{REASONIX,AGENTS,CLAUDE}.md    user-level instructions

What reasonix-tui adds (Reasonix ignores all of it)::

    <root>/projects/<slug>/recall/        recall traces (last.json, history.jsonl)
    <root>/approvals/                     durable approval queue
    <root>/reasonix-tui/                  audit log, parse cache, settings, suggestions state
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from .compat.gostr import bound_filename_component
from .state_root import StateRootUnavailable, state_root
from .store.safeio import register_root

__all__ = [
    "resolve_state_root",
    "workspace_slug",
    "abs_clean",
    "Layout",
    "StateRootUnavailable",
]


def resolve_state_root(home: str | os.PathLike[str] | None = None, env: Mapping[str, str] | None = None) -> Path:
    """``--home``, then ``REASONIX_STATE_HOME``, then ``REASONIX_HOME``, then ``~/.reasonix``
    (:func:`~.state_root.state_root` as a :class:`~pathlib.Path`)."""
    return Path(state_root(home, env))


def abs_clean(path: str | os.PathLike[str]) -> str:
    """Go ``filepath.Abs``: join with the cwd when relative, then clean lexically (no symlinks)."""
    return os.path.normpath(os.path.abspath(os.fspath(path)))


def workspace_slug(abs_path: str, windows: bool | None = None) -> str:
    """Reasonix ``WorkspaceSlug`` (spec §1.3).

    On Windows the path is lowercased first. Every separator, ``/``, ``\\`` and ``:``
    becomes ``-`` (no collapsing); then the result is bounded to 255 bytes.
    """
    if windows is None:
        windows = os.name == "nt"
    s = abs_path
    if windows:
        from .compat.gostr import to_lower

        s = to_lower(s)
    for ch in {os.sep, "/", "\\", ":"}:
        s = s.replace(ch, "-")
    return bound_filename_component(s, 255)


@dataclass(frozen=True, slots=True)
class Layout:
    """Every path reasonix-tui reads or writes, for one state root and one workspace."""

    root: Path
    """The Reasonix state root."""
    workspace: Path
    """The absolute, cleaned workspace directory (the agent's cwd)."""

    def __post_init__(self) -> None:
        # Every write below the root goes through folders opened without following
        # symlinks (core/store/safeio.py): a planted symlink cannot send it elsewhere.
        register_root(self.root)

    @classmethod
    def resolve(
        cls,
        home: str | os.PathLike[str] | None = None,
        workspace: str | os.PathLike[str] | None = None,
        env: Mapping[str, str] | None = None,
    ) -> Layout:
        """Build the layout from CLI options and the environment."""
        root = resolve_state_root(home, env)
        ws = abs_clean(workspace if workspace else os.getcwd())
        return cls(root=root, workspace=Path(ws))

    @property
    def slug(self) -> str:
        """The workspace slug used under ``projects/``."""
        return workspace_slug(str(self.workspace))

    @property
    def project_base(self) -> Path:
        """``<root>/projects/<slug>``."""
        return self.root / "projects" / self.slug

    @property
    def project_dir(self) -> Path:
        """Project fact directory."""
        return self.project_base / "memory"

    @property
    def global_dir(self) -> Path:
        """Global fact directory."""
        return self.root / "memory" / "global"

    def dir_for(self, scope: str) -> Path:
        """The fact directory of a scope (``global`` or anything else → project)."""
        return self.global_dir if scope == "global" else self.project_dir

    @property
    def recall_dir(self) -> Path:
        """Recall traces of this workspace."""
        return self.project_base / "recall"

    @property
    def project_sessions_dir(self) -> Path:
        """Desktop sessions of this workspace."""
        return self.project_base / "sessions"

    @property
    def global_sessions_dir(self) -> Path:
        """CLI sessions (``SessionDir``)."""
        return self.root / "sessions"

    @property
    def history_archive_dir(self) -> Path:
        """Compacted-history archives."""
        return self.root / "archive"

    @property
    def approvals_dir(self) -> Path:
        """The durable approval queue."""
        return self.root / "approvals"

    @property
    def tui_dir(self) -> Path:
        """reasonix-tui's own state (audit log, caches, settings)."""
        return self.root / "reasonix-tui"

    @property
    def audit_log(self) -> Path:
        """Append-only audit log of every store mutation and refusal."""
        return self.tui_dir / "audit.jsonl"

    @property
    def cache_dir(self) -> Path:
        """Parse cache."""
        return self.tui_dir / "cache"

    @property
    def settings_file(self) -> Path:
        """User settings (TOML)."""
        return self.tui_dir / "settings.toml"

    @property
    def lock_file(self) -> Path:
        """The cross-process lock held around every read-modify-write of the store."""
        return self.tui_dir / "store.lock"
