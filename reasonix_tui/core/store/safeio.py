"""Safe file access inside a state root: never block, never write through a symlink.

Every file this project opens lives under a Reasonix state root that other programs
(and an agent running as the same user) can also write. Two things can go wrong there,
and this module is the one place that prevents both:

* **Blocking.** ``open()`` on a FIFO waits for a writer forever; a device may do anything.
  :func:`open_regular` opens with ``O_NONBLOCK`` and checks the type with ``fstat`` on the
  opened descriptor, so only regular files are ever read; anything else raises
  :class:`NotRegularFile` at once. :func:`read_regular`, :func:`open_read` and
  :func:`read_text` build on it.
* **Writes leaving the root.** A symlink planted at ``.revisions``, ``MEMORY.md``'s folder,
  ``reasonix-tui/cache`` or any other folder would redirect a write to an outside path.
  Writes under a *registered* root (:func:`register_root`; every :class:`~..paths.Layout`
  registers its own) walk from the root one component at a time with
  ``O_NOFOLLOW | O_DIRECTORY`` relative to the parent's descriptor, and create, replace,
  link, append and unlink only relative to the final folder's descriptor. A symlinked
  folder raises :class:`EscapesRoot`; a symlink at the file name itself is replaced (a
  rename never follows it) or refused (appends open with ``O_NOFOLLOW``).

Privacy: folders created under a root are 0700 and every folder walked on the way to a
write is tightened to 0700 when it is ours and more open. Appends
tighten an existing file to the mode asked for.

Temporary files are ``.atomic-<pid>-<hex>.tmp`` (:mod:`.tempfiles`); the first write of a
process into a folder removes temporary files left there by processes that died
(:func:`sweep_temps`). Locks: :mod:`.locks`; open flags: :mod:`.fsflags`.

On a platform without ``dir_fd`` support (Windows) the same functions fall back to path
operations with ``lstat`` checks (best effort; no ``O_NONBLOCK`` is needed there).
"""

from __future__ import annotations

import errno
import os
import stat as stat_mod
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import BinaryIO

from . import tempfiles
from .fsflags import DIRFD, O_BINARY, O_CLOEXEC, O_DIRECTORY, O_NOFOLLOW, O_NONBLOCK
from .tempfiles import TEMP_PREFIX, TEMP_SUFFIX, is_stale_temp, plain_temp

__all__ = [
    "NotRegularFile",
    "EscapesRoot",
    "register_root",
    "root_of",
    "open_regular",
    "read_regular",
    "read_text",
    "open_read",
    "open_dir",
    "write_atomic",
    "create_exclusive",
    "append_bytes",
    "remove",
    "rename",
    "make_dirs",
    "open_parent",
    "open_append",
    "sweep_temps",
    "kind_of",
    "read_fd",
    "read_confined",
    "regular_stat",
]


class NotRegularFile(OSError):
    """A path that is a FIFO, socket, device or folder where a regular file was expected."""

    def __init__(self, path: str, kind: str) -> None:
        super().__init__(errno.EINVAL, f"{path} is a {kind}, not a regular file", path)
        self.path = path
        self.kind = kind

    def __str__(self) -> str:
        return str(self.strerror)


class EscapesRoot(OSError):
    """A write under a state root would go through a symlink (or a non-folder)."""

    def __init__(self, path: str, why: str) -> None:
        super().__init__(errno.ELOOP, f"refusing to write through {path}: {why}", path)
        self.path = path

    def __str__(self) -> str:
        return str(self.strerror)


# --------------------------------------------------------------------------- roots

_ROOTS: set[str] = set()
_ROOTS_GUARD = threading.Lock()


def register_root(root: str | os.PathLike[str]) -> None:
    """Declare ``root`` a confinement root: writes below it never follow a symlinked folder.

    The root itself may be a symlink (a person's own choice); everything below it is checked.
    """
    key = os.path.normpath(os.path.abspath(os.fspath(root)))
    if key not in _ROOTS:
        with _ROOTS_GUARD:
            _ROOTS.add(key)


def root_of(path: str | os.PathLike[str]) -> str | None:
    """The innermost registered root that lexically contains ``path`` (or is it)."""
    p = os.path.normpath(os.path.abspath(os.fspath(path)))
    best: str | None = None
    probe = p
    while True:
        if probe in _ROOTS:
            best = probe
            break
        parent = os.path.dirname(probe)
        if parent == probe:
            break
        probe = parent
    return best


# --------------------------------------------------------------------------- reading


_KINDS = (
    (stat_mod.S_ISFIFO, "FIFO"),
    (stat_mod.S_ISSOCK, "socket"),
    (stat_mod.S_ISCHR, "character device"),
    (stat_mod.S_ISBLK, "block device"),
    (stat_mod.S_ISDIR, "folder"),
    (stat_mod.S_ISLNK, "symlink"),
)


def kind_of(mode: int) -> str:
    """A person's word for a file type."""
    return next((word for test, word in _KINDS if test(mode)), "special file")


def open_regular(path: str | os.PathLike[str], *, follow: bool = True) -> int:
    """A read-only descriptor of the regular file at ``path``, opened without blocking.

    ``follow=False`` refuses a symlink at the final component (``ELOOP``). Raises
    :class:`NotRegularFile` for a FIFO, socket, device or folder.
    """
    p = os.fspath(path)
    if not O_NONBLOCK:  # no FIFOs to block on (Windows): a plain open, then the type
        st = os.stat(p) if follow else os.lstat(p)
        if not stat_mod.S_ISREG(st.st_mode):
            raise NotRegularFile(p, kind_of(st.st_mode))
        return os.open(p, os.O_RDONLY | O_BINARY)
    flags = os.O_RDONLY | O_NONBLOCK | O_CLOEXEC | (0 if follow else O_NOFOLLOW)
    fd = os.open(p, flags)
    regular_stat(fd, p)
    return fd


def regular_stat(fd: int, path: str) -> os.stat_result:
    """``fstat`` of an open descriptor; closes it and raises :class:`NotRegularFile`
    unless it is a regular file."""
    try:
        st = os.fstat(fd)
        if not stat_mod.S_ISREG(st.st_mode):
            raise NotRegularFile(path, kind_of(st.st_mode))
    except BaseException:
        os.close(fd)
        raise
    return st


def open_read(path: str | os.PathLike[str], *, follow: bool = True) -> BinaryIO:
    """:func:`open_regular` as a binary file object (``with open_read(p) as fh``)."""
    return os.fdopen(open_regular(path, follow=follow), "rb")


def read_fd(fd: int, limit: int | None = None) -> bytes:
    chunks: list[bytes] = []
    total = 0
    while True:
        want = 1 << 20 if limit is None else min(1 << 20, limit - total + 1)
        if want <= 0:
            break
        chunk = os.read(fd, want)
        if not chunk:
            break
        chunks.append(chunk)
        total += len(chunk)
        if limit is not None and total > limit:
            raise OSError(errno.EFBIG, f"file is larger than {limit} bytes")
    return b"".join(chunks)


def read_regular(path: str | os.PathLike[str], *, follow: bool = True, limit: int | None = None) -> bytes:
    """The bytes of a regular file (see :func:`open_regular`); ``limit`` caps the size."""
    fd = open_regular(path, follow=follow)
    try:
        return read_fd(fd, limit)
    finally:
        os.close(fd)


def read_text(path: str | os.PathLike[str], *, encoding: str = "utf-8", errors: str = "strict") -> str:
    """:func:`read_regular` decoded."""
    return read_regular(path).decode(encoding, errors)


# --------------------------------------------------------------------------- folders

_SWEPT: set[str] = set()
_SWEEP_GUARD = threading.Lock()


def _tighten(fd: int, st: os.stat_result) -> None:
    if st.st_mode & 0o077 and st.st_uid == os.geteuid():
        try:
            os.fchmod(fd, stat_mod.S_IMODE(st.st_mode) & 0o700)
        except OSError:
            pass


def _open_child_dir(parent: int, name: str, shown: str, create: bool, mode: int) -> int:
    flags = os.O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC
    for _ in range(3):
        try:
            return os.open(name, flags, dir_fd=parent)
        except FileNotFoundError:
            if not create:
                raise
            try:
                os.mkdir(name, mode, dir_fd=parent)
            except FileExistsError:
                pass
        except OSError as exc:
            if exc.errno in (errno.ELOOP, errno.ENOTDIR, errno.EMLINK):
                try:
                    st = os.lstat(name, dir_fd=parent)
                except OSError:
                    raise exc from None
                if stat_mod.S_ISLNK(st.st_mode):
                    raise EscapesRoot(shown, "it is a symlink") from None
                raise EscapesRoot(shown, f"it is a {kind_of(st.st_mode)}, not a folder") from None
            raise
    return os.open(name, flags, dir_fd=parent)


def _open_root(root: str, create: bool, mode: int) -> int:
    flags = os.O_RDONLY | O_DIRECTORY | O_CLOEXEC
    try:
        return os.open(root, flags)
    except FileNotFoundError:
        if not create:
            raise
        os.makedirs(root, mode=mode, exist_ok=True)
        return os.open(root, flags)


def open_dir(path: str | os.PathLike[str], *, create: bool = False, mode: int = 0o700, tighten: bool = False) -> int:
    """A descriptor of the folder ``path``.

    Under a registered root every component below the root is opened with ``O_NOFOLLOW``
    relative to its parent (missing ones created with ``mode`` when ``create``), so the
    descriptor is inside the root whatever symlinks were planted; ``tighten`` makes each
    folder on the way 0700 when it is ours and more open. Raises :class:`EscapesRoot`.
    """
    p = os.path.normpath(os.path.abspath(os.fspath(path)))
    root = root_of(p) if DIRFD else None
    if root is None:
        if create:
            os.makedirs(p, mode=mode, exist_ok=True)
        return os.open(p, os.O_RDONLY | O_DIRECTORY | O_CLOEXEC)
    fd = _open_root(root, create, mode)
    try:
        if tighten:
            _tighten(fd, os.fstat(fd))
        rel = os.path.relpath(p, root)
        shown = root
        for part in [] if rel == "." else rel.split(os.sep):
            shown = os.path.join(shown, part)
            child = _open_child_dir(fd, part, shown, create, mode)
            os.close(fd)
            fd = child
            if tighten:
                _tighten(fd, os.fstat(fd))
    except BaseException:
        os.close(fd)
        raise
    return fd


def make_dirs(path: str | os.PathLike[str], mode: int = 0o700) -> None:
    """``mkdir -p`` that never follows a symlinked folder under a registered root."""
    os.close(open_dir(path, create=True, mode=mode, tighten=True))


@contextmanager
def open_parent(path: str | os.PathLike[str], create: bool = True, mode: int = 0o700) -> Iterator[tuple[int, str]]:
    """``(descriptor of the folder of path, the file's name)`` for a folder-relative call
    (the folder opened as :func:`open_dir` does, created and tightened when ``create``)."""
    p = os.path.normpath(os.path.abspath(os.fspath(path)))
    fd = open_dir(os.path.dirname(p), create=create, mode=mode, tighten=create)
    try:
        yield fd, os.path.basename(p)
    finally:
        os.close(fd)


# --------------------------------------------------------------------------- temp files


def sweep_temps(directory: str | os.PathLike[str], *, force: bool = False) -> list[str]:
    """Remove stale temporary files from ``directory`` (once per process unless ``force``).

    Returns the names removed. Never raises.
    """
    key = os.path.normpath(os.path.abspath(os.fspath(directory)))
    with _SWEEP_GUARD:
        if key in _SWEPT and not force:
            return []
        _SWEPT.add(key)
    removed: list[str] = []
    try:
        fd = open_dir(key)
    except OSError:
        return removed
    try:
        now = time.time()
        for name in os.listdir(fd) if DIRFD else os.listdir(key):
            if not (name.startswith(TEMP_PREFIX) and name.endswith(TEMP_SUFFIX)):
                continue
            try:
                st = os.lstat(name, dir_fd=fd) if DIRFD else os.lstat(os.path.join(key, name))
                if not stat_mod.S_ISREG(st.st_mode) or not is_stale_temp(name, st, now):
                    continue
                if DIRFD:
                    os.unlink(name, dir_fd=fd)
                else:
                    os.unlink(os.path.join(key, name))
                removed.append(name)
            except OSError:
                continue
    finally:
        os.close(fd)
    return removed


# --------------------------------------------------------------------------- writing


def _payload(data: bytes | str) -> bytes:
    return data.encode("utf-8") if isinstance(data, str) else data


def write_atomic(
    target: str | os.PathLike[str],
    data: bytes | str,
    mode: int = 0o600,
    durable: bool = True,
    dir_mode: int = 0o700,
) -> None:
    """Replace ``target`` atomically (temp file + fsync + rename) without leaving its root.

    Outside a registered root (an agent's settings file, a workspace document) folders
    are created 0755 for a file other users may read, as before."""
    payload = _payload(data)
    if not DIRFD or root_of(target) is None:
        _write_atomic_plain(os.fspath(target), payload, mode, durable, 0o755 if mode & 0o077 else dir_mode)
        return
    with open_parent(target, mode=dir_mode) as (dfd, name):
        sweep_temps(os.path.dirname(os.path.abspath(os.fspath(target))))
        tmp = tempfiles.prepare_temp(dfd, payload, mode, durable)
        try:
            os.replace(tmp, name, src_dir_fd=dfd, dst_dir_fd=dfd)
        except BaseException:
            try:
                os.unlink(tmp, dir_fd=dfd)
            except OSError:
                pass
            raise


def create_exclusive(
    target: str | os.PathLike[str],
    data: bytes | str,
    mode: int = 0o600,
    dir_mode: int = 0o700,
) -> None:
    """Create ``target`` with ``data`` (temp file + hard link); :class:`FileExistsError` if it exists."""
    payload = _payload(data)
    if not DIRFD or root_of(target) is None:
        _create_plain(os.fspath(target), payload, mode, dir_mode)
        return
    with open_parent(target, mode=dir_mode) as (dfd, name):
        tmp = tempfiles.prepare_temp(dfd, payload, mode)
        try:
            os.link(tmp, name, src_dir_fd=dfd, dst_dir_fd=dfd, follow_symlinks=False)
        finally:
            try:
                os.unlink(tmp, dir_fd=dfd)
            except OSError:
                pass


def append_bytes(path: str | os.PathLike[str], data: bytes, mode: int = 0o600, dir_mode: int = 0o700) -> int:
    """Append ``data`` with one ``write`` on an ``O_APPEND`` descriptor; the file's new size.

    Refuses a symlink or a non-regular file at ``path`` (never blocks on a FIFO) and
    tightens an existing file to ``mode``.
    """
    flags = os.O_WRONLY | os.O_APPEND | os.O_CREAT | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC | O_BINARY
    p = os.fspath(path)
    if DIRFD and root_of(p) is not None:
        with open_parent(p, mode=dir_mode) as (dfd, name):
            fd = open_append(name, flags, mode, p, dfd)
    else:
        parent = os.path.dirname(os.path.abspath(p))
        os.makedirs(parent, mode=dir_mode, exist_ok=True)
        fd = open_append(p, flags, mode, p, None)
    try:
        st = os.fstat(fd)
        if not stat_mod.S_ISREG(st.st_mode):
            raise NotRegularFile(p, kind_of(st.st_mode))
        if stat_mod.S_IMODE(st.st_mode) & ~mode & 0o777 and st.st_uid == os.geteuid() and hasattr(os, "fchmod"):
            os.fchmod(fd, stat_mod.S_IMODE(st.st_mode) & mode)
        view = memoryview(data)
        while view:
            n = os.write(fd, view)
            view = view[n:]
        return os.fstat(fd).st_size
    finally:
        os.close(fd)


def open_append(name: str, flags: int, mode: int, shown: str, dfd: int | None) -> int:
    """``os.open`` of ``name`` (relative to ``dfd`` when given) for appending or locking; a
    symlink raises :class:`EscapesRoot`, a FIFO without a reader :class:`NotRegularFile`."""
    try:
        return os.open(name, flags, mode) if dfd is None else os.open(name, flags, mode, dir_fd=dfd)
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise EscapesRoot(shown, "it is a symlink") from None
        if exc.errno == errno.ENXIO:  # a FIFO without a reader
            raise NotRegularFile(shown, "FIFO") from None
        raise


def remove(path: str | os.PathLike[str], *, missing_ok: bool = True) -> bool:
    """Unlink ``path`` (never through a symlinked folder); True when something was removed."""
    p = os.fspath(path)
    try:
        if DIRFD and root_of(p) is not None:
            with open_parent(p, create=False) as (dfd, name):
                os.unlink(name, dir_fd=dfd)
        else:
            os.unlink(p)
    except FileNotFoundError:
        if not missing_ok:
            raise
        return False
    return True


def rename(src: str | os.PathLike[str], dst: str | os.PathLike[str], *, replace: bool = True) -> None:
    """Rename within a root, relative to both folders' descriptors (one atomic step).

    ``replace=False`` raises :class:`FileExistsError` when ``dst`` exists (checked just
    before; callers hold the store lock).
    """
    s, d = os.fspath(src), os.fspath(dst)
    if not (DIRFD and root_of(s) is not None and root_of(d) is not None):
        if not replace and os.path.lexists(d):
            raise FileExistsError(errno.EEXIST, "file exists", d)
        os.replace(s, d)
        return
    with open_parent(s, create=False) as (sfd, sname), open_parent(d) as (dfd, dname):
        if not replace:
            try:
                os.lstat(dname, dir_fd=dfd)
            except FileNotFoundError:
                pass
            else:
                raise FileExistsError(errno.EEXIST, "file exists", d)
        os.rename(sname, dname, src_dir_fd=sfd, dst_dir_fd=dfd)


# --------------------------------------------------------------------------- fallbacks (no dir_fd)


def _write_atomic_plain(target: str, payload: bytes, mode: int, durable: bool, dir_mode: int) -> None:
    directory = os.path.dirname(os.path.abspath(target)) or "."
    os.makedirs(directory, mode=dir_mode, exist_ok=True)
    tmp = plain_temp(directory, payload, mode, durable)
    try:
        for attempt in range(13):
            try:
                os.replace(tmp, target)
                return
            except PermissionError:  # Windows: the target is transiently open elsewhere
                if attempt == 12:
                    raise
                time.sleep(0.02 * (attempt + 1))
    finally:
        if os.path.exists(tmp):
            try:
                os.unlink(tmp)
            except OSError:
                pass


def _create_plain(target: str, payload: bytes, mode: int, dir_mode: int) -> None:
    directory = os.path.dirname(os.path.abspath(target)) or "."
    os.makedirs(directory, mode=dir_mode, exist_ok=True)
    tmp = plain_temp(directory, payload, mode, True)
    try:
        os.link(tmp, target)
    finally:
        try:
            os.unlink(tmp)
        except OSError:
            pass


def read_confined(path: str | os.PathLike[str], *, limit: int | None = None) -> tuple[bytes, os.stat_result]:
    """Bytes and stat of the regular file at ``path``, read through the descriptor that was
    checked: the folder is opened without following symlinks below its root and the file
    with ``O_NOFOLLOW | O_NONBLOCK`` relative to it (no check-then-open race)."""
    p = os.path.normpath(os.path.abspath(os.fspath(path)))
    if not DIRFD or root_of(p) is None:
        fd = open_regular(p, follow=False)
    else:
        dfd = open_dir(os.path.dirname(p))
        try:
            try:
                fd = os.open(os.path.basename(p), os.O_RDONLY | O_NONBLOCK | O_NOFOLLOW | O_CLOEXEC, dir_fd=dfd)
            except OSError as exc:
                if exc.errno == errno.ELOOP:
                    raise NotRegularFile(p, "symlink") from None
                raise
        finally:
            os.close(dfd)
    st = regular_stat(fd, p)
    try:
        return read_fd(fd, limit), st
    finally:
        os.close(fd)
