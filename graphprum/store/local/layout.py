"""The embedded store's directory: what is in it, who may delete what, and
how writers and readers share it.

Layout::

    STORE/
      .graphprum-store      marker written when the store is created (the store
                            never treats a directory without it as its own)
      manifest.json         format, version, engine, current generation, counts,
                            load history, summaries
      lock                  held (flock, exclusive) by the one writer
      gen-000007/           a generation: immutable once committed
        .generation         marker: this directory was written by graphprum
        readers             held (flock, shared) by every process reading it
        ...                 columns, strings, graph (see the store module)

A writer builds ``gen-N.tmp``, reads it back and checks it, renames it to
``gen-N`` and atomically replaces ``manifest.json``.  Superseded generations
are removed only when they carry the ``.generation`` marker, are not current,
and no reader holds their ``readers`` lock; leftovers of interrupted writes
are removed only when they carry the marker too.  A non-empty directory
without the store marker is refused, never cleaned.

Strings (document names and sources, texts, attributes, link targets and
anchors) are string columns (:mod:`graphprum.store.local.strings`), so every
string round-trips exactly, ``\\r``, ``\\n`` and lone surrogates of
undecodable file names included.

Examples
--------
>>> import tempfile, pathlib
>>> d = pathlib.Path(tempfile.mkdtemp()) / "s"
>>> claim(d)
>>> is_store(d), (d / MARKER).exists()
(True, True)
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import json
import os
import re
import shutil
import time
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any, BinaryIO, TextIO

from graphprum.errors import StoreError

#: Marker of a store directory.
MARKER = ".graphprum-store"
#: Marker of a generation directory.
GENERATION_MARKER = ".generation"
#: Lock file inside a generation, held shared by its readers.
READERS = "readers"
MANIFEST = "manifest.json"


def is_store(path: Path) -> bool:
    """Whether ``path`` carries the store marker."""
    return (path / MARKER).is_file()


def claim(path: Path) -> None:
    """Make ``path`` a store directory: create it, or take an existing empty
    directory; a non-empty directory that is not a store is refused."""
    if is_store(path):
        return
    if path.exists():
        if not path.is_dir():
            raise StoreError(f"{path}: store path exists and is not a directory")
        if any(path.iterdir()):
            if (path / MANIFEST).exists():
                raise StoreError(
                    f"{path}: a store written by an older graphprum (format 1); load the "
                    f"collection again into a new store (graphprum --store NEW load ...)")
            raise StoreError(f"{path}: directory is not empty and is not a graphprum store; "
                             f"choose a new or empty directory for --store")
    try:
        path.mkdir(parents=True, exist_ok=True)
        with open(path / MARKER, "x", encoding="utf-8") as f:
            json.dump({"format": "graphprum-local", "created": time.strftime(
                "%Y-%m-%dT%H:%M:%S%z")}, f)
    except FileExistsError:
        pass
    except OSError as exc:
        raise StoreError(f"{path}: cannot create the store: {exc.strerror or exc}") from None


def first_missing(path: Path) -> Path | None:
    """The outermost directory of ``path`` that does not exist yet (None: it exists).

    >>> import tempfile
    >>> d = Path(tempfile.mkdtemp())
    >>> first_missing(d / "a" / "b") == d / "a", first_missing(d)
    (True, None)
    """
    if os.path.lexists(path):
        return None
    top = path
    for parent in path.parents:
        if os.path.lexists(parent):
            return top
        top = parent
    return top


def unclaim(path: Path, created: Path) -> None:
    """Undo :func:`claim` of a directory it created, when nothing but the
    marker and the lock file was written there (a first load that failed),
    and the empty directories made for it up to ``created``; anything else
    is left alone.

    >>> import tempfile
    >>> d = Path(tempfile.mkdtemp())
    >>> p = d / "new" / "s"
    >>> claim(p); (p / "lock").touch(); unclaim(p, d / "new"); sorted(d.iterdir())
    []
    >>> claim(p); (p / "other").touch(); unclaim(p, d / "new"); sorted(x.name for x in p.iterdir())
    ['.graphprum-store', 'other']
    """
    try:
        if {p.name for p in path.iterdir()} <= {MARKER, "lock"}:
            for name in (MARKER, "lock"):
                (path / name).unlink(missing_ok=True)
            path.rmdir()
            for parent in path.parents:
                if not parent.is_relative_to(created):
                    break
                parent.rmdir()  # OSError when not empty: left alone
    except OSError:
        pass


# ------------------------------------------------------------------- json
def write_json(path: Path, value: Any) -> None:
    """Write ``value`` as ASCII JSON (strings round-trip exactly)."""
    with open(path, "w", encoding="ascii") as f:
        json.dump(value, f, ensure_ascii=True, separators=(",", ":"))


def read_json(path: Path) -> Any:
    """Read what :func:`write_json` wrote."""
    with open(path, encoding="ascii") as f:
        return json.load(f)


# ------------------------------------------------------------------ locks
@contextlib.contextmanager
def writer_lock(path: Path, wait: float = 0.0) -> Iterator[None]:
    """Hold the store's writer lock; wait up to ``wait`` seconds for another
    writer to finish (StoreError after that).

    A first load that failed removes the directory it made, lock file
    included (:func:`unclaim`), while it holds the lock; a writer that was
    waiting on that file then holds a lock nobody else can see, so it checks
    that its file is still the store's and otherwise makes the store again
    and locks anew.
    """
    deadline = time.monotonic() + max(wait, 0.0)
    while True:
        try:
            fh = open(path / "lock", "a+")  # noqa: SIM115 - closed below
        except OSError as exc:
            raise StoreError(f"{path}: cannot write to the store: "
                             f"{exc.strerror or exc}") from None
        try:
            while True:
                try:
                    fcntl.flock(fh, fcntl.LOCK_EX | fcntl.LOCK_NB)
                    break
                except BlockingIOError:
                    if time.monotonic() >= deadline:
                        raise StoreError(
                            f"{path}: another graphprum process is writing to this store"
                            + (f" (waited {wait:g} s)" if wait > 0 else
                               "; wait for it, or give --wait SECONDS")) from None
                    time.sleep(0.05)
            if _still_there(fh, path / "lock"):
                try:
                    yield
                finally:
                    fcntl.flock(fh, fcntl.LOCK_UN)
                return
            fcntl.flock(fh, fcntl.LOCK_UN)
        finally:
            fh.close()
        claim(path)  # the store was removed while this writer waited: make it again


def _still_there(fh: TextIO, path: Path) -> bool:
    """Whether the open file ``fh`` is the file at ``path`` (not removed)."""
    try:
        there = os.stat(path)
    except OSError:
        return False
    mine = os.fstat(fh.fileno())
    return (mine.st_dev, mine.st_ino) == (there.st_dev, there.st_ino)


class ReaderLock:
    """A shared lock on one generation, held while a process reads it, so
    that no writer removes the generation under it."""

    def __init__(self, generation: Path) -> None:
        self.generation = generation
        self._fh: BinaryIO | None = None

    def acquire(self) -> bool:
        """Take the lock; False when the generation is gone (or going)."""
        try:
            fh = open(self.generation / READERS, "rb")  # noqa: SIM115 - kept open
        except FileNotFoundError:
            return False
        except OSError:  # e.g. a read-only store without the file: read unprotected
            return True
        fcntl.flock(fh, fcntl.LOCK_SH)
        if os.fstat(fh.fileno()).st_nlink == 0:  # removed before we got the lock
            fh.close()
            return False
        self._fh = fh
        return True

    def release(self) -> None:
        """Let writers remove the generation again."""
        if self._fh is not None:
            self._fh.close()
            self._fh = None


def _unused(generation: Path) -> bool:
    """Whether no reader holds ``generation`` (then it stays locked for us)."""
    try:
        fh = open(generation / READERS, "rb")  # noqa: SIM115 - closed below
    except FileNotFoundError:
        return True
    try:
        fcntl.flock(fh, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        fh.close()
        return False
    # keep it locked while the directory is removed: closed when fh is collected
    _held.append(fh)
    return True


_held: list[Any] = []


def bytes_on_disk(path: Path) -> int:
    """Bytes of the files under ``path`` (0 when it is missing)."""
    return sum(f.stat().st_size for f in path.rglob("*") if f.is_file()) \
        if path.exists() else 0


def remove_superseded(path: Path, current: str | None) -> list[str]:
    """Remove generations (and unfinished ones) graphprum wrote that are not
    ``current`` and that no reader holds; returns the names kept for later."""
    kept = []
    for p in sorted(path.glob("gen-*")):
        if p.name == current or not p.is_dir() or not (p / GENERATION_MARKER).is_file():
            continue
        if p.name.endswith(".tmp") or _unused(p):
            shutil.rmtree(p, ignore_errors=True)
        else:
            kept.append(p.name)
    for fh in _held:
        fh.close()
    _held.clear()
    for p in path.glob(f"{MANIFEST}.tmp*"):
        if p.name[len(MANIFEST) + 4:].isdigit():  # ours: manifest.json.tmp<pid>
            p.unlink(missing_ok=True)
    return kept


# ------------------------------------------------------------ generations
#: A generation's directory name, as :func:`new_generation` makes it.
GENERATION = re.compile(r"gen-[0-9]{6,}")


def new_generation(path: Path, current: str | None) -> tuple[str, Path]:
    """Name and temporary directory of the next generation (marked as ours)."""
    number = int(current.split("-")[1]) + 1 if current else 1
    name = f"gen-{number:06d}"
    tmp = path / f"{name}.tmp"
    if tmp.exists() and (tmp / GENERATION_MARKER).is_file():
        shutil.rmtree(tmp)
    tmp.mkdir()
    (tmp / GENERATION_MARKER).write_text(name, encoding="ascii")
    (tmp / READERS).touch()
    return name, tmp


def commit(path: Path, tmp: Path, name: str, manifest: dict[str, Any]) -> None:
    """Make ``tmp`` the generation ``name``: fsync, rename, swap the manifest."""
    fsync_tree(tmp)
    os.replace(tmp, path / name)
    mtmp = path / f"{MANIFEST}.tmp{os.getpid()}"
    with open(mtmp, "w", encoding="utf-8") as f:
        json.dump(manifest, f, indent=1, ensure_ascii=True)
        f.flush()
        os.fsync(f.fileno())
    os.replace(mtmp, path / MANIFEST)
    fsync_dir(path)


def fsync_tree(root: Path) -> None:
    """fsync every file and directory under ``root``."""
    for dirpath, _, files in os.walk(root):
        for f in files:
            fd = os.open(os.path.join(dirpath, f), os.O_RDONLY)
            try:
                os.fsync(fd)
            finally:
                os.close(fd)
        fsync_dir(Path(dirpath))


def fsync_dir(path: Path) -> None:
    """fsync a directory (its entries)."""
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def link_tree(src: Path, dst: Path, skip: Sequence[Path] = ()) -> None:
    """Hard-link every file of ``src`` into ``dst`` except the subtrees
    ``skip`` and the generation's own markers (copy where linking fails)."""
    for dirpath, _, files in os.walk(src):
        rel = Path(dirpath).relative_to(src)
        if any(rel == s or s in rel.parents for s in skip):
            continue
        (dst / rel).mkdir(parents=True, exist_ok=True)
        for f in files:
            if rel == Path(".") and f in (GENERATION_MARKER, READERS):
                continue
            if any(rel / f == s for s in skip):
                continue
            try:
                os.link(Path(dirpath) / f, dst / rel / f)
            except OSError:
                shutil.copy2(Path(dirpath) / f, dst / rel / f)


def disk_error(exc: OSError, where: Path) -> StoreError:
    """A one-line error for a failed write (disk full, read-only, permissions)."""
    reason = {errno.ENOSPC: "no space left on the device",
              errno.EROFS: "the file system is read-only",
              errno.EACCES: "permission denied", errno.EDQUOT: "disk quota exceeded",
              }.get(exc.errno or 0, exc.strerror or str(exc))
    return StoreError(f"{where}: cannot write the store: {reason}; the store is unchanged")
