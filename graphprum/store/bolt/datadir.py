"""The data directory of a FalkorDB server that graphprum starts: whose it
is, who may write to it, and how graphprum writes files into it.

A store deletes only what it can prove it wrote, so a data directory is
graphprum's when it carries the marker :data:`MARKER` (written by the first
``server start`` there, as the embedded store marks its directories), or,
for a directory an older graphprum started, when it holds the preload
library that graphprum writes, byte for byte (:func:`is_ours`).  ``server
start`` refuses a non-empty directory that is neither (another program's
data: Redis would serve them and rewrite them), and a directory that other
users may write to (they could plant a symbolic link where graphprum writes
the library that ``redis-server`` preloads; :func:`check_private`).  Files
are written through a new temporary file renamed over the old one
(:func:`write_file`), so a planted link is replaced, never followed.

Examples
--------
>>> import tempfile
>>> d = Path(tempfile.mkdtemp())
>>> claim(d); is_ours(d), sorted(p.name for p in d.iterdir())
(True, ['.graphprum-server'])
"""

from __future__ import annotations

import json
import os
import secrets
import stat
import time
from collections.abc import Callable
from pathlib import Path

from graphprum.errors import UsageError

#: The marker of a data directory graphprum's ``server start`` made its own.
MARKER = ".graphprum-server"
FORMAT = "graphprum-server"


def write_file(path: Path, data: bytes, mode: int = 0o600) -> None:
    """Write ``data`` as ``path``: a new file next to it (``O_EXCL``,
    ``O_NOFOLLOW``) renamed over it, so a symbolic link at ``path`` is
    replaced, not followed.

    >>> import tempfile
    >>> d = Path(tempfile.mkdtemp()); (d / "victim").write_text("v")
    1
    >>> (d / "f").symlink_to(d / "victim"); write_file(d / "f", b"new")
    >>> (d / "victim").read_text(), (d / "f").is_symlink(), (d / "f").read_bytes()
    ('v', False, b'new')
    """
    tmp = path.with_name(f".{path.name}.{secrets.token_hex(6)}.tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, mode)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise


def check_private(data_dir: Path) -> None:
    """UsageError unless ``data_dir`` is a directory of this user that no
    other user may write to."""
    st = os.lstat(data_dir)
    if not stat.S_ISDIR(st.st_mode):
        raise UsageError(f"{data_dir}: the server's data directory is not a directory")
    if st.st_uid != os.geteuid():
        raise UsageError(f"{data_dir}: the server's data directory belongs to user id "
                         f"{st.st_uid}, not to you ({os.geteuid()}): refused (its owner "
                         f"could replace the library redis-server preloads); use a "
                         f"directory of your own")
    if st.st_mode & 0o022:
        raise UsageError(f"{data_dir}: the server's data directory is writable by other "
                         f"users (mode {stat.S_IMODE(st.st_mode):o}): refused (they could "
                         f"replace the library redis-server preloads); chmod go-w it, or "
                         f"use a directory of your own")


def is_ours(data_dir: Path, library: Callable[[], bytes] | None = None) -> bool:
    """Whether ``data_dir`` carries graphprum's marker, or (a directory an
    older graphprum started) the preload library exactly as ``library()``
    makes it."""
    if (data_dir / MARKER).is_file() and not (data_dir / MARKER).is_symlink():
        return True
    lib = data_dir / "libgraphprum-loopback.so"
    if library is None or lib.is_symlink() or not lib.is_file():
        return False
    try:
        want = library()
        return bool(want) and lib.read_bytes() == want
    except OSError:
        return False


def claim(data_dir: Path, library: Callable[[], bytes] | None = None) -> None:
    """Make ``data_dir`` graphprum's: create it (mode 700), or take it when it
    is empty or already graphprum's (:func:`is_ours`), and mark it; refuse a
    non-empty directory of another program and one other users may write to."""
    if os.path.lexists(data_dir) and not data_dir.is_dir():
        raise UsageError(f"{data_dir}: the server's data directory exists and is not "
                         f"a directory")
    data_dir.mkdir(mode=0o700, parents=True, exist_ok=True)
    check_private(data_dir)
    if is_ours(data_dir, library):
        if not (data_dir / MARKER).is_file():
            _mark(data_dir)
        return
    if any(data_dir.iterdir()):
        raise UsageError(f"{data_dir}: directory is not empty and is not a graphprum server "
                         f"directory (no {MARKER}): refused, its files are left alone; "
                         f"choose a new or empty directory for --data-dir")
    _mark(data_dir)


def _mark(data_dir: Path) -> None:
    text = json.dumps({"format": FORMAT, "created": time.strftime("%Y-%m-%dT%H:%M:%S%z")})
    write_file(data_dir / MARKER, text.encode("utf-8"), mode=0o644)
