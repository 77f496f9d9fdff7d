"""Put the real test data the suite reads, when cached, into the cache.

Run by hand, never by the test suite (tests do not reach the network)::

    .venv/bin/python tests/fetch_testdata.py

It downloads the pysrt 1.1.2 and webvtt-py 0.6.0 source packages from the
package index with pip and copies one subtitle file out of each
(tests/loaders/test_video.py), and the Debian package gnome-user-docs with
``apt-get download`` and copies its GNOME help pages
(``usr/share/help/C/gnome-help/*.page``, Mallard XML with links between
pages, CC-BY-SA 3.0; tests/navigation/test_gnome_help.py), into
``$GRAPHPRUM_TESTDATA`` (default ``~/.cache/graphprum-testdata``).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path

CACHE = Path(os.environ.get("GRAPHPRUM_TESTDATA", Path.home() / ".cache" / "graphprum-testdata"))
SAMPLES = {
    "utf-8.srt": ("pysrt==1.1.2", "pysrt-1.1.2/tests/static/utf-8.srt"),
    "netflix_chicas_del_cable.vtt": ("webvtt-py==0.6.0",
                                     "webvtt_py-0.6.0/tests/samples/netflix_chicas_del_cable.vtt"),
}


def main() -> int:
    """Fetch what is missing; the exit status says whether all samples are there."""
    CACHE.mkdir(parents=True, exist_ok=True)
    for name, (requirement, member) in SAMPLES.items():
        target = CACHE / name
        if target.exists():
            print(f"{target}: already there")
            continue
        with tempfile.TemporaryDirectory() as tmp:
            subprocess.run([sys.executable, "-m", "pip", "download", "--no-deps",
                            "--no-binary", ":all:", "-q", "-d", tmp, requirement], check=True)
            [archive] = Path(tmp).glob("*.tar.gz")
            with tarfile.open(archive) as tar:
                data = tar.extractfile(member)
                assert data is not None, f"{member} not in {archive.name}"
                target.write_bytes(data.read())
        print(f"{target}: from {requirement}")
    fetch_gnome_help()
    return 0


#: The GNOME help pages: directory in the cache, Debian package, path inside it.
GNOME_HELP = ("gnome-help", "gnome-user-docs", "usr/share/help/C/gnome-help")


def fetch_gnome_help() -> None:
    """``apt-get download gnome-user-docs`` and its ``*.page`` files into the cache."""
    name, package, inside = GNOME_HELP
    target = CACHE / name
    if target.is_dir():
        print(f"{target}: already there")
        return
    with tempfile.TemporaryDirectory() as tmp:
        done = subprocess.run(["apt-get", "download", package], cwd=tmp, capture_output=True)
        if done.returncode != 0:  # the package lists may be missing: update once
            subprocess.run(["apt-get", "update", "-qq"], capture_output=True, check=False)
            subprocess.run(["apt-get", "download", package], cwd=tmp, check=True)
        [deb] = Path(tmp).glob(f"{package}_*.deb")
        subprocess.run(["dpkg", "-x", str(deb), str(Path(tmp) / "x")], check=True)
        pages = sorted((Path(tmp) / "x" / inside).glob("*.page"))
        part = target.with_name(name + ".tmp")
        shutil.rmtree(part, ignore_errors=True)
        part.mkdir(parents=True)
        for page in pages:
            shutil.copyfile(page, part / page.name)
        part.rename(target)
    print(f"{target}: {len(pages)} pages from {deb.name}")


if __name__ == "__main__":
    sys.exit(main())
