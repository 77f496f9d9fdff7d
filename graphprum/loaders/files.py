"""Finding a collection's files under a directory, and reading them, safely.

A loaded directory is the root its files' ids are relative to, and only
what lies in it is loaded.  :func:`scan` walks it once, without recursion
(a tree thousands of levels deep is walked like any other) and:

- reads only **regular files**: a FIFO, a device or a socket named like a
  document (``mkfifo d/f.xml``) would block the load, or feed it forever,
  while it holds the store's writer lock; it is skipped with a note;
- follows a **symbolic link to a file** only when its real path stays
  inside the root (or when the user asks, ``follow_symlinks``): a link in a
  downloaded site to ``../private.txt`` or ``/dev/zero`` is skipped with a
  note.  A link inside the root loads as the file it names, under the
  link's own path (its id, and the base of its relative links);
- never descends into a **symbolic link to a directory** (its files, when
  inside the root, are found under their real path; outside, they are
  not the collection's): one leaving the root gets a note.

:func:`open_regular` opens a file only when it is a regular one (without
blocking on a FIFO swapped in since the scan), and :func:`read_bytes`
turns running out of memory into one line naming the file.

Examples
--------
>>> import tempfile
>>> from pathlib import Path
>>> d = Path(tempfile.mkdtemp())
>>> (d / "sub").mkdir()
>>> _ = (d / "sub" / "a.xml").write_text("<a/>")
>>> os.symlink("sub/a.xml", d / "b.xml")
>>> os.symlink("/etc/hostname", d / "c.xml")
>>> os.mkfifo(d / "f.xml")
>>> found = scan(d, lambda name: name.endswith(".xml"))
>>> sorted(found.files)
['b.xml', 'sub/a.xml']
>>> [(Path(s.path).name, s.message) for s in sorted(found.skipped, key=lambda s: s.path)]
... # doctest: +NORMALIZE_WHITESPACE
[('c.xml', 'a symbolic link to a file outside the loaded directory
  (give --follow-symlinks to load it)'), ('f.xml', 'not a regular file (a FIFO)')]
"""

from __future__ import annotations

import os
import stat
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import BinaryIO

from graphprum.errors import InputError
from graphprum.loaders.names import walk_error

#: The note of a file symlink whose real path leaves the loaded directory.
OUTSIDE = ("a symbolic link to a file outside the loaded directory "
           "(give --follow-symlinks to load it)")
#: The note of a directory symlink that leaves it (never followed).
OUTSIDE_DIRECTORY = "a symbolic link to a directory outside the loaded directory: not followed"


@dataclass
class Skipped:
    """A file not loaded, and why: not well-formed (``--skip-bad``, with its
    line), not a regular file, or a symbolic link leaving the loaded
    directory."""

    path: str
    line: int | None
    message: str

    def __str__(self) -> str:
        return f"{self.path}:{self.line}: {self.message}" if self.line else \
            f"{self.path}: {self.message}"


@dataclass
class Listing:
    """What :func:`scan` found under a root (paths relative, ``/``-separated)."""

    #: Regular files (and symbolic links to them that may be loaded).
    files: list[str] = field(default_factory=list)
    #: Directories, symbolic links to directories inside the root included.
    dirs: list[str] = field(default_factory=list)
    #: Wanted entries that are not loaded, with why.
    skipped: list[Skipped] = field(default_factory=list)


def what_it_is(mode: int) -> str:
    """What a file that is not a regular file is, for a note.

    >>> what_it_is(stat.S_IFIFO), what_it_is(stat.S_IFCHR)
    ('a FIFO', 'a character device')
    """
    for test, name in ((stat.S_ISFIFO, "a FIFO"), (stat.S_ISCHR, "a character device"),
                       (stat.S_ISBLK, "a block device"), (stat.S_ISSOCK, "a socket"),
                       (stat.S_ISDIR, "a directory")):
        if test(mode):
            return name
    return "not a regular file"


def _inside(real: str, root: str) -> bool:
    return real == root or real.startswith(root.rstrip(os.sep) + os.sep)


def scan(root: str | os.PathLike[str], wanted: Callable[[str], bool],
         follow_symlinks: bool = False) -> Listing:
    """Walk ``root`` (see the module notes); ``wanted(name)`` says which
    file names are documents: only those get a note when skipped.

    Raises InputError naming a directory that cannot be read.
    """
    top = os.fspath(root)
    real_root = os.path.realpath(top)
    out = Listing()
    pending = [(top, "")]
    while pending:
        directory, rel = pending.pop()
        try:
            with os.scandir(directory) as it:
                entries = sorted(it, key=lambda e: e.name)
        except OSError as exc:
            walk_error(exc)
        subdirs = []
        for entry in entries:
            path, name = entry.path, entry.name
            relative = rel + name
            try:
                link = entry.is_symlink()
                mode = entry.stat(follow_symlinks=False).st_mode if not link else 0
            except OSError as exc:
                _note(out, wanted(name), path, f"cannot read: {exc.strerror or exc}")
                continue
            if link:
                inside = _inside(os.path.realpath(path), real_root)
                try:
                    mode = os.stat(path).st_mode
                except OSError:
                    _note(out, wanted(name), path, "a broken symbolic link")
                    continue
                if stat.S_ISDIR(mode):
                    if inside:
                        out.dirs.append(relative)
                    else:
                        _note(out, True, path, OUTSIDE_DIRECTORY)
                    continue
                if not inside and not follow_symlinks:
                    _note(out, wanted(name), path, OUTSIDE)
                    continue
            if stat.S_ISDIR(mode):
                out.dirs.append(relative)
                subdirs.append((path, relative + "/"))
            elif stat.S_ISREG(mode):
                out.files.append(relative)
            else:
                _note(out, wanted(name), path, f"not a regular file ({what_it_is(mode)})")
        pending.extend(reversed(subdirs))  # depth first, in name order
    return out


def _note(out: Listing, wanted: bool, path: str, message: str) -> None:
    if wanted:
        out.skipped.append(Skipped(path, None, message))


def open_regular(path: str | os.PathLike[str]) -> BinaryIO:
    """``path`` opened for reading in binary, when it is a regular file.

    Opened without blocking (a FIFO opens at once then), checked on the
    open file (so a file swapped since it was listed cannot slip in), and
    only then read as usual.  Raises InputError otherwise.

    >>> import tempfile
    >>> fifo = os.path.join(tempfile.mkdtemp(), "f.xml")
    >>> os.mkfifo(fifo)
    >>> try:
    ...     open_regular(fifo)
    ... except InputError as exc:
    ...     print(exc.message)
    not a regular file (a FIFO)
    """
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError as exc:
        raise InputError(path, None, f"cannot read: {exc.strerror or exc}") from None
    mode = os.fstat(fd).st_mode
    if not stat.S_ISREG(mode):
        os.close(fd)
        raise InputError(path, None, f"not a regular file ({what_it_is(mode)})")
    os.set_blocking(fd, True)
    return os.fdopen(fd, "rb")


def read_bytes(path: str | os.PathLike[str]) -> bytes:
    """The bytes of a regular file (:func:`open_regular`); InputError when
    they do not fit in memory or cannot be read."""
    with open_regular(path) as f:
        try:
            return f.read()
        except MemoryError:
            raise too_big(path) from None
        except OSError as exc:
            raise InputError(path, None, f"cannot read: {exc.strerror or exc}") from None


def size_of(path: str | os.PathLike[str]) -> int:
    """A file's size in bytes (0 when it cannot be told)."""
    try:
        return os.stat(path).st_size
    except OSError:
        return 0


def too_big(path: str | os.PathLike[str]) -> InputError:
    """The error of a file that did not fit in memory (MemoryError while it
    was read, parsed or made into columns)."""
    return InputError(path, None, f"too large to load: ran out of memory with this file of "
                                  f"{size_of(path):,} bytes (a document is held in memory "
                                  f"while it is loaded)")
