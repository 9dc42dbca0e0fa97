"""Open flags of this platform (0 where it lacks one) and whether folder-relative calls work.

Shared by the safe file access (:mod:`.safeio`), its temporary files (:mod:`.tempfiles`)
and the store's locks (:mod:`.locks`).
"""

from __future__ import annotations

import os

__all__ = ["O_NOFOLLOW", "O_NONBLOCK", "O_DIRECTORY", "O_CLOEXEC", "O_BINARY", "DIRFD"]

O_NOFOLLOW: int = getattr(os, "O_NOFOLLOW", 0)
O_NONBLOCK: int = getattr(os, "O_NONBLOCK", 0)
O_DIRECTORY: int = getattr(os, "O_DIRECTORY", 0)
O_CLOEXEC: int = getattr(os, "O_CLOEXEC", 0)
O_BINARY: int = getattr(os, "O_BINARY", 0)
DIRFD = (
    os.name == "posix"
    and os.open in os.supports_dir_fd
    and os.mkdir in os.supports_dir_fd
    and os.rename in os.supports_dir_fd
    and os.unlink in os.supports_dir_fd
    and bool(O_NOFOLLOW and O_DIRECTORY)
)
"""Folder-relative (``dir_fd``) open, mkdir, rename and unlink, with ``O_NOFOLLOW`` and
``O_DIRECTORY``: writes under a root walk it one component at a time."""
