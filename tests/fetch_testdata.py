"""Put the real data the tests can use into the cache, with one call.

Run by hand or by ``.ci/run``, never by the test suite (tests do not reach
the network; a test whose data is not cached skips and says how to get it)::

    .venv/bin/python tests/fetch_testdata.py

Each :data:`SOURCES` entry names a package, where it comes from (``pip``: a
source package from the package index, read with ``pip download``;
``apt``: a Debian package, read with ``apt-get download`` and ``dpkg -x``,
which needs the package lists of ``apt-get update``) and the files of it
the tests read, copied into ``$GRAPHPRUM_TESTDATA`` (default
``~/.cache/graphprum-testdata``) under the names the tests look for; a
directory is copied with everything under it.  Adding data is adding an
entry.  What is already cached is not fetched again; a source that cannot
be fetched is reported and the others are still fetched.  The exit status
is 0 when every file is cached.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tarfile
import tempfile
import zipfile
from dataclasses import dataclass
from pathlib import Path

CACHE = Path(os.environ.get("GRAPHPRUM_TESTDATA", Path.home() / ".cache" / "graphprum-testdata"))


@dataclass(frozen=True)
class Source:
    """Files of one package: ``kind`` (``pip`` or ``apt``), the package
    (a pip requirement or a Debian package name), and cache name -> path
    inside the unpacked package."""

    kind: str
    package: str
    files: dict[str, str]


#: Everything the suite can use: the subtitle samples (tests/loaders/test_video.py)
#: and the GNOME help pages, Mallard XML with links between pages, CC-BY-SA 3.0
#: (tests/navigation/test_gnome_help.py).
SOURCES = [
    Source("pip", "pysrt==1.1.2", {"utf-8.srt": "pysrt-1.1.2/tests/static/utf-8.srt"}),
    Source("pip", "webvtt-py==0.6.0", {
        "netflix_chicas_del_cable.vtt":
            "webvtt_py-0.6.0/tests/samples/netflix_chicas_del_cable.vtt"}),
    Source("apt", "gnome-user-docs", {"gnome-help": "usr/share/help/C/gnome-help"}),
]


def unpack(source: Source, into: Path) -> Path:
    """Download ``source``'s package into ``into`` and unpack it there; the
    directory its ``files`` paths are relative to."""
    if source.kind == "pip":
        subprocess.run([sys.executable, "-m", "pip", "download", "--no-deps", "--no-binary",
                        ":all:", "-q", "-d", str(into), source.package], check=True)
        [archive] = [p for p in into.iterdir() if p.suffix in (".gz", ".zip")]
        if archive.suffix == ".zip":
            with zipfile.ZipFile(archive) as z:
                z.extractall(into / "unpacked")
        else:
            with tarfile.open(archive) as tar:
                tar.extractall(into / "unpacked", filter="data")
    elif source.kind == "apt":
        download = ["apt-get", "download", "-q", source.package]
        if subprocess.run(download, cwd=into, capture_output=True).returncode != 0:
            # the package lists may be missing on a fresh machine: read them once
            subprocess.run(["apt-get", "update", "-qq"], capture_output=True, check=False)
            subprocess.run(download, cwd=into, check=True)
        [deb] = into.glob("*.deb")
        subprocess.run(["dpkg-deb", "-x", str(deb), str(into / "unpacked")], check=True)
    else:
        raise ValueError(f"unknown kind of source {source.kind!r}")
    return into / "unpacked"


def fetch(source: Source) -> list[str]:
    """Cache what of ``source`` is missing; the names still missing after."""
    wanted = {name: member for name, member in source.files.items()
              if not (CACHE / name).exists()}
    if not wanted:
        return []
    with tempfile.TemporaryDirectory() as tmp:
        root = unpack(source, Path(tmp))
        for name, member in wanted.items():
            found = root / member
            target = CACHE / name
            if found.is_dir():
                shutil.copytree(found, target)
            elif found.is_file():
                shutil.copyfile(found, target)
            else:
                print(f"{source.package}: no {member}", file=sys.stderr)
                continue
            print(f"{target}: from {source.package}")
    return [name for name in source.files if not (CACHE / name).exists()]


def main() -> int:
    """Fetch what is missing; the exit status says whether everything is cached."""
    CACHE.mkdir(parents=True, exist_ok=True)
    for name in (n for s in SOURCES for n in s.files if (CACHE / n).exists()):
        print(f"{CACHE / name}: already there")
    missing: list[str] = []
    for source in SOURCES:
        try:
            missing += fetch(source)
        except (OSError, subprocess.CalledProcessError, ValueError, tarfile.TarError,
                zipfile.BadZipFile) as exc:
            print(f"{source.package}: not fetched ({exc})", file=sys.stderr)
            missing += [n for n in source.files if not (CACHE / n).exists()]
    if missing:
        print(f"not cached: {', '.join(missing)}", file=sys.stderr)
    return 1 if missing else 0


if __name__ == "__main__":
    sys.exit(main())
