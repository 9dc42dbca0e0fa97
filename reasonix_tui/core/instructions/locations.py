"""Where instruction documents live: Go path semantics, the directory chain, confined reads.

Go's ``filepath`` (Clean, Join, Rel, IsLocal, EvalSymlinks) and Reasonix's path helpers
(``absolutePath``, ``pathWithin``, ``realDirectory``, ``physicalIdentity``), the nearest
git root, the chain of directories from the workspace root to a target, and reading a
document only when its real location is inside a boundary.
"""

from __future__ import annotations

import os

from ..compat.encoding import decode_bytes
from ..compat.gostr import trim_space
from ..store.safeio import read_regular

__all__ = ["nearest_git_root"]


def go_clean(path: str) -> str:
    """Go ``filepath.Clean`` for an already joined path."""
    cleaned = os.path.normpath(path)
    if os.sep == "/" and cleaned.startswith("//"):
        cleaned = "/" + cleaned.lstrip("/")
    return cleaned


def absolute_path(path: str | os.PathLike[str] | None) -> str:
    """Reasonix ``absolutePath``: "" for blank input, else absolute and cleaned."""
    if path is None:
        return ""
    text = os.fspath(path)
    if trim_space(text) == "":
        return ""
    return go_clean(os.path.abspath(text))


def go_join(*parts: str) -> str:
    """Go ``filepath.Join``: skip empty parts, join with the separator, clean."""
    kept = [p for p in parts if p]
    if not kept:
        return ""
    return go_clean(os.sep.join(kept))


def go_rel(base: str, target: str) -> str | None:
    """Go ``filepath.Rel`` (lexical); None when no relative path exists."""
    try:
        return os.path.relpath(target, base)
    except ValueError:
        return None


def path_within(path: str, root: str) -> bool:
    """Reasonix ``pathWithin``: lexical, no symlinks."""
    path, root = absolute_path(path), absolute_path(root)
    if not path or not root:
        return False
    rel = go_rel(root, path)
    return rel is not None and rel != ".." and not rel.startswith(".." + os.sep)


def is_local_path(rel: str) -> bool:
    """Go ``filepath.IsLocal`` for a relative path."""
    if not rel or os.path.isabs(rel):
        return False
    cleaned = go_clean(rel)
    return cleaned != ".." and not cleaned.startswith(".." + os.sep)


def eval_symlinks(path: str) -> str | None:
    """Go ``filepath.EvalSymlinks``: the realpath, or None when any part is missing."""
    try:
        return os.path.realpath(path, strict=True)
    except (OSError, RuntimeError, ValueError):
        return None


def real_dir(path: str) -> str:
    """Reasonix ``realDirectory``."""
    real = eval_symlinks(path)
    return real if real is not None else absolute_path(path)


def physical_identity(path: str) -> str:
    """Reasonix ``physicalIdentity``: the realpath, else the absolute path."""
    real = eval_symlinks(path)
    return absolute_path(real) if real is not None else absolute_path(path)


def to_slash(path: str) -> str:
    return path.replace(os.sep, "/") if os.sep != "/" else path


def from_slash(path: str) -> str:
    return path.replace("/", os.sep) if os.sep != "/" else path


def user_home() -> str:
    """Go ``os.UserHomeDir`` ("" when unknown)."""
    if os.name == "nt":
        return os.environ.get("USERPROFILE", "")
    return os.environ.get("HOME", "")


def nearest_git_root(directory: str | os.PathLike[str]) -> str:
    """The nearest ancestor of ``directory`` (inclusive) holding a ``.git`` entry; "" if none."""
    current = absolute_path(directory)
    while current:
        if os.path.exists(os.path.join(current, ".git")):
            return current
        parent = os.path.dirname(current)
        if parent == current:
            return ""
        current = parent
    return ""


def directory_chain(root: str, target: str) -> list[str]:
    if not path_within(target, root):
        return [root]
    rel = go_rel(root, target)
    if rel is None or rel == ".":
        return [root]
    chain = [root]
    current = root
    for part in rel.split(os.sep):
        if part in ("", "."):
            continue
        current = go_join(current, part)
        chain.append(current)
    return chain


ESCAPED = "escaped"


def read_confined(path: str, boundary: str) -> tuple[str | None, str]:
    """Read ``path`` if its realpath lies inside ``realpath(boundary)``.

    Returns ``(body, "")`` for a readable non-empty file, ``(None, "")`` when the file is
    missing, unreadable or empty, and ``(None, "escaped")`` when it resolves outside the
    boundary (Reasonix opens through an ``os.Root`` bound to the boundary; the effect is the
    same: only files whose real location is inside can be read).
    """
    real_boundary = real_dir(boundary)
    real = eval_symlinks(path)
    if real is None:
        return None, ""
    if not path_within(real, real_boundary):
        return None, ESCAPED
    try:
        data = read_regular(real)  # a FIFO named like an instruction file never blocks
    except (OSError, ValueError):
        return None, ""
    body = trim_space(decode_bytes(data).text)
    return (body or None), ""
