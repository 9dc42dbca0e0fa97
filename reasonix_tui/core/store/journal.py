"""Crash-consistent, all-or-nothing store changes: prepare, journal, commit, log.

A store mutation (a save, a forget, a recover, a migration) is a list of file steps:

* ``put(path, data)`` — replace or create a file (a fact, a revision snapshot, ``MEMORY.md``);
* ``move(src, dst)`` — one rename (archiving, recovering), ``dst`` must not exist;
* ``remove(path)`` — take a file away (a fact renamed to another name).

:meth:`Change.commit` runs them in three phases:

1. **Journal** — the intent (the steps with the names of their temporary files, and the
   audit lines) goes to ``<root>/reasonix-tui/journal/<id>.json``, phase ``prepare``.
2. **Prepare** — every byte is written to a temporary file in the target's folder (the
   only phase that needs free space); the file each ``put`` replaces keeps a hard link.
   Any failure here (a full disk, a read-only root, a planted symlink) removes the
   temporaries: nothing changed. The journal then moves to phase ``commit``.
3. **Commit** — renames only, in order, then the audit lines (``detail.txn`` names the
   change). A failure here undoes the renames already made, from the kept links, so the
   change either landed with its audit line or did not land at all.

A killed process leaves its journal behind, and the next writer (under the store lock,
before its own change) :func:`replay`\\ s it. In phase ``prepare`` nothing landed: the
temporary files are removed. In phase ``commit`` the remaining renames are made (every
temporary exists), a step whose target was changed by someone else since is left alone,
and the audit lines are appended once, marked ``detail.recovered``. Temporary files of a
process that died before its journal was written are removed by
:func:`~.safeio.sweep_temps`.
"""

from __future__ import annotations

import errno
import hashlib
import json
import os
import secrets
import stat as stat_mod
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from . import safeio, tempfiles
from .audit import AuditEntry, AuditLog
from .model import StoreError

__all__ = ["Change", "replay", "describe_os_error", "StorageError", "bump_generation", "generation_path"]

JOURNAL_VERSION = 1


class StorageError(StoreError):
    """A change could not be written (full disk, read-only root, a planted symlink...);
    nothing of it landed."""

    exit_code = 1


def describe_os_error(exc: OSError, path: str = "") -> str:
    """One line a person understands, naming what could not be written."""
    where = path or (exc.filename if isinstance(exc.filename, str) else "") or ""
    suffix = f" ({where})" if where else ""
    if isinstance(exc, (safeio.EscapesRoot, safeio.NotRegularFile)):
        return str(exc)
    if exc.errno in (errno.ENOSPC, getattr(errno, "EDQUOT", -1)):
        return f"no space left on device{suffix}; nothing was changed"
    if exc.errno == errno.EROFS:
        return f"read-only file system{suffix}; nothing was changed"
    if exc.errno in (errno.EACCES, errno.EPERM):
        return f"permission denied{suffix}; nothing was changed"
    return f"cannot write{suffix}: {exc.strerror or exc}; nothing was changed"


@dataclass
class _Step:
    kind: str  # put | move | remove
    path: str  # put/remove: the file; move: the destination
    src: str = ""  # move: the source
    data: bytes = b""
    mode: int = 0o644
    digest: str = ""
    tmp: str = ""  # put: prepared temp (same folder); remove: the aside name
    bak: str = ""  # put: link to the file it replaces
    done: bool = False

    def to_json(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "path": self.path,
            "src": self.src,
            "tmp": self.tmp,
            "bak": self.bak,
            "digest": self.digest,
        }


def _split(path: str) -> tuple[str, str]:
    p = os.path.normpath(os.path.abspath(path))
    return os.path.dirname(p), os.path.basename(p)


def _lstat_in(dfd: int, name: str) -> os.stat_result | None:
    try:
        return os.lstat(name, dir_fd=dfd)
    except FileNotFoundError:
        return None


class _Dirs:
    """Folder descriptors opened once per change (confined to the root)."""

    def __init__(self) -> None:
        self.fds: dict[str, int] = {}

    def get(self, directory: str, create: bool = True) -> int:
        fd = self.fds.get(directory)
        if fd is None:
            fd = safeio.open_dir(directory, create=create, tighten=create)
            self.fds[directory] = fd
            if create:  # the first writer into a folder removes dead processes' temp files
                safeio.sweep_temps(directory)
        return fd

    def close(self) -> None:
        for fd in self.fds.values():
            os.close(fd)
        self.fds.clear()


def _journal_dir(root: Path) -> Path:
    return root / "reasonix-tui" / "journal"


class Change:
    """One all-or-nothing store change (see the module docstring)."""

    def __init__(self, root: Path, audit: AuditLog) -> None:
        self.root = Path(root)
        self.audit = audit
        self.id = f"txn-{os.getpid()}-{secrets.token_hex(6)}"
        self.steps: list[_Step] = []
        self.entries: list[AuditEntry] = []

    # ------------------------------------------------------------------ building

    def put(self, path: str | os.PathLike[str], data: bytes | str, mode: int = 0o644) -> None:
        """Replace or create ``path`` with ``data``."""
        payload = data.encode("utf-8") if isinstance(data, str) else data
        self.steps.append(
            _Step(
                "put",
                os.path.abspath(os.fspath(path)),
                data=payload,
                mode=mode,
                digest=hashlib.sha256(payload).hexdigest(),
            )
        )

    def move(self, src: str | os.PathLike[str], dst: str | os.PathLike[str]) -> None:
        """Rename ``src`` to ``dst`` (which must not exist)."""
        self.steps.append(_Step("move", os.path.abspath(os.fspath(dst)), src=os.path.abspath(os.fspath(src))))

    def remove(self, path: str | os.PathLike[str]) -> None:
        """Take ``path`` away (kept aside until the change is logged, so it can be undone)."""
        self.steps.append(_Step("remove", os.path.abspath(os.fspath(path))))

    def log(self, entry: AuditEntry) -> None:
        """An audit line written as part of the change."""
        self.entries.append(entry)

    def __bool__(self) -> bool:
        return bool(self.steps)

    # ------------------------------------------------------------------ running

    def commit(self) -> None:
        """Prepare, journal, commit and log; :class:`StorageError` (nothing landed) on failure."""
        dirs = _Dirs()
        journal: Path | None = None
        failed_at = ""
        for step in self.steps:  # named first, so a crash while preparing can be cleaned up
            if step.kind in ("put", "remove"):
                step.tmp = tempfiles.temp_name()
            if step.kind == "put":
                step.bak = tempfiles.temp_name()
        try:
            try:
                failed_at = str(_journal_dir(self.root))
                journal = self._write_journal("prepare")
                for step in self.steps:
                    failed_at = step.path
                    self._prepare(step, dirs)
                failed_at = str(_journal_dir(self.root))
                self._write_journal("commit")
                for step in self.steps:
                    failed_at = step.path
                    self._apply(step, dirs)
                    step.done = True
                failed_at = str(self.audit.path)
                for entry in self.entries:
                    self.audit.append_strict(_with_txn(entry, self.id))
            except OSError as exc:
                self._undo(dirs)
                if journal is not None:
                    safeio.remove(journal)
                raise StorageError(describe_os_error(exc, failed_at)) from exc
            except BaseException:
                self._undo(dirs)
                if journal is not None:
                    safeio.remove(journal)
                raise
            self._finish(dirs)
            if journal is not None:
                safeio.remove(journal)
            bump_generation(self.root)
        finally:
            dirs.close()

    def _prepare(self, step: _Step, dirs: _Dirs) -> None:
        directory, name = _split(step.path)
        dfd = dirs.get(directory)
        if step.kind == "put":
            wanted, step.tmp = step.tmp, ""
            step.tmp = tempfiles.prepare_temp(dfd, step.data, step.mode, name=wanted)
            st = _lstat_in(dfd, name)
            if st is not None and not stat_mod.S_ISDIR(st.st_mode):
                os.link(name, step.bak, src_dir_fd=dfd, dst_dir_fd=dfd, follow_symlinks=False)
            else:
                step.bak = ""
        elif step.kind == "move":
            sdir, sname = _split(step.src)
            sfd = dirs.get(sdir, create=False)
            if _lstat_in(sfd, sname) is None:
                raise FileNotFoundError(errno.ENOENT, "no such file", step.src)
            if _lstat_in(dfd, name) is not None:
                raise FileExistsError(errno.EEXIST, "file exists", step.path)

    def _write_journal(self, phase: str) -> Path:
        path = _journal_dir(self.root) / f"{self.id}.json"
        data = {
            "version": JOURNAL_VERSION,
            "txn": self.id,
            "phase": phase,
            "pid": os.getpid(),
            "steps": [s.to_json() for s in self.steps],
            "audit": [json.loads(_with_txn(e, self.id).to_json()) for e in self.entries],
        }
        safeio.write_atomic(path, json.dumps(data, ensure_ascii=False), 0o600, durable=False)
        return path

    def _apply(self, step: _Step, dirs: _Dirs) -> None:
        directory, name = _split(step.path)
        dfd = dirs.get(directory)
        if step.kind == "put":
            os.replace(step.tmp, name, src_dir_fd=dfd, dst_dir_fd=dfd)
        elif step.kind == "move":
            sdir, sname = _split(step.src)
            sfd = dirs.get(sdir, create=False)
            if _lstat_in(dfd, name) is not None:
                raise FileExistsError(errno.EEXIST, "file exists", step.path)
            os.rename(sname, name, src_dir_fd=sfd, dst_dir_fd=dfd)
        elif step.kind == "remove":
            try:
                os.rename(name, step.tmp, src_dir_fd=dfd, dst_dir_fd=dfd)
            except FileNotFoundError:
                step.tmp = ""

    def _undo(self, dirs: _Dirs) -> None:
        for step in reversed(self.steps):
            try:
                directory, name = _split(step.path)
                dfd = dirs.fds.get(directory)
                if dfd is None:
                    continue  # never opened: nothing was prepared there
                if step.done:
                    if step.kind == "put":
                        if step.bak:
                            os.replace(step.bak, name, src_dir_fd=dfd, dst_dir_fd=dfd)
                            step.bak = ""
                        else:
                            os.unlink(name, dir_fd=dfd)
                    elif step.kind == "move":
                        sdir, sname = _split(step.src)
                        os.rename(name, sname, src_dir_fd=dfd, dst_dir_fd=dirs.get(sdir, create=False))
                    elif step.kind == "remove" and step.tmp:
                        os.rename(step.tmp, name, src_dir_fd=dfd, dst_dir_fd=dfd)
                        step.tmp = ""
                for leftover in (step.tmp if step.kind == "put" else "", step.bak):
                    if leftover:
                        try:
                            os.unlink(leftover, dir_fd=dfd)
                        except FileNotFoundError:
                            pass
            except OSError:
                continue

    def _finish(self, dirs: _Dirs) -> None:
        for step in self.steps:
            directory, _ = _split(step.path)
            try:
                dfd = dirs.get(directory, create=False)
                for leftover in (step.bak, step.tmp if step.kind == "remove" else ""):
                    if leftover:
                        os.unlink(leftover, dir_fd=dfd)
            except OSError:
                continue


def _with_txn(entry: AuditEntry, txn: str) -> AuditEntry:
    return replace(entry, detail={**entry.detail, "txn": txn})


# --------------------------------------------------------------------------- replay


def pending(root: Path) -> list[Path]:
    """Journals left by interrupted changes (oldest name first)."""
    directory = _journal_dir(Path(root))
    try:
        names = sorted(n for n in os.listdir(directory) if n.startswith("txn-") and n.endswith(".json"))
    except OSError:
        return []
    return [directory / n for n in names]


def replay(root: Path, audit: AuditLog) -> list[str]:
    """Finish every interrupted change under ``root``.

    Call it with the store lock held and before making a change of one's own: every
    change commits inside the lock, so any journal found then was left by a process that
    stopped. Returns one line per change finished or abandoned; never raises.
    """
    out: list[str] = []
    for path in pending(root):
        try:
            data = json.loads(safeio.read_regular(path, follow=False, limit=1 << 24))
        except (OSError, ValueError):
            safeio.remove(path)
            continue
        if not isinstance(data, dict) or data.get("version") != JOURNAL_VERSION:
            safeio.remove(path)
            continue
        try:
            out.append(_replay_one(data, audit))
        except OSError as exc:
            out.append(f"could not finish interrupted change {data.get('txn')}: {describe_os_error(exc)}")
            continue
        safeio.remove(path)
    if out:
        bump_generation(root)
    return out


def generation_path(root: str | os.PathLike[str]) -> str:
    """``<root>/reasonix-tui/generation``: replaced after every committed change."""
    return os.path.join(os.fspath(root), "reasonix-tui", "generation")


def bump_generation(root: str | os.PathLike[str]) -> None:
    """Replace the generation file after a committed change (best effort, under the store
    lock). Long-lived readers (:class:`~.live.LiveStore`) ``stat`` it as part of their
    cheap consistency check: a new inode means one of our writers changed the store, even
    when its file-system events were lost or share a folder timestamp with an earlier one."""
    path = generation_path(root)
    try:
        value = int(safeio.read_regular(path, follow=False, limit=32) or b"0")
    except (OSError, ValueError):
        value = 0
    try:
        safeio.write_atomic(path, str(value + 1).encode(), 0o600, durable=False)
    except OSError:
        pass


def _drop_prepared(data: dict[str, Any]) -> None:
    """Remove the temporary files of a change that stopped before committing."""
    for raw in data.get("steps") or []:
        if not isinstance(raw, dict):
            continue
        directory, _ = _split(str(raw.get("path")))
        for leftover in (str(raw.get("tmp") or ""), str(raw.get("bak") or "")):
            if leftover.startswith(tempfiles.TEMP_PREFIX):
                safeio.remove(os.path.join(directory, leftover))


def _replay_one(data: dict[str, Any], audit: AuditLog) -> str:
    txn = str(data.get("txn", ""))
    if data.get("phase") == "prepare":
        _drop_prepared(data)
        return f"dropped interrupted change {txn} (nothing of it had landed)"
    dirs = _Dirs()
    abandoned: list[str] = []
    try:
        for raw in data.get("steps") or []:
            if not isinstance(raw, dict):
                continue
            kind, path = str(raw.get("kind")), str(raw.get("path"))
            tmp, bak = str(raw.get("tmp") or ""), str(raw.get("bak") or "")
            directory, name = _split(path)
            try:
                dfd = dirs.get(directory, create=False)
            except OSError:
                abandoned.append(path)
                continue
            if kind == "put":
                if tmp and _lstat_in(dfd, tmp) is not None:
                    current = _lstat_in(dfd, name)
                    kept = _lstat_in(dfd, bak) if bak else None
                    unchanged = (current is None and not bak) or (
                        current is not None and kept is not None and current.st_ino == kept.st_ino
                    )
                    if unchanged:
                        os.replace(tmp, name, src_dir_fd=dfd, dst_dir_fd=dfd)
                    else:
                        os.unlink(tmp, dir_fd=dfd)
                        abandoned.append(path)
                if bak and _lstat_in(dfd, bak) is not None:
                    os.unlink(bak, dir_fd=dfd)
            elif kind == "move":
                sdir, sname = _split(str(raw.get("src")))
                try:
                    sfd = dirs.get(sdir, create=False)
                except OSError:
                    continue
                if _lstat_in(sfd, sname) is not None and _lstat_in(dfd, name) is None:
                    os.rename(sname, name, src_dir_fd=sfd, dst_dir_fd=dfd)
            elif kind == "remove":
                if tmp and _lstat_in(dfd, tmp) is not None:
                    os.unlink(tmp, dir_fd=dfd)
                elif tmp and _lstat_in(dfd, name) is not None:
                    os.unlink(name, dir_fd=dfd)
    finally:
        dirs.close()
    entries = [e for e in data.get("audit") or [] if isinstance(e, dict)]
    if entries and not audit.tail_mentions(f'"txn":"{txn}"'):
        for raw_entry in entries:
            entry = AuditEntry.from_dict(raw_entry)
            detail = dict(entry.detail)
            detail["recovered"] = True
            if abandoned:
                detail["abandoned"] = abandoned
            reason = entry.reason or (
                "recovered: the writing process stopped before logging; finished by the next writer"
            )
            audit.append_strict(replace(entry, detail=detail, reason=reason))
    if abandoned:
        return f"interrupted change {txn}: left {', '.join(abandoned)} alone (changed since)"
    return f"finished interrupted change {txn}"
