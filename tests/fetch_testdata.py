"""Put the real subtitle samples of tests/loaders/test_video.py into the cache.

Run by hand, never by the test suite (tests do not reach the network)::

    .venv/bin/python tests/fetch_testdata.py

It downloads the pysrt 1.1.2 and webvtt-py 0.6.0 source packages from the
package index with pip and copies one subtitle file out of each into
``$GRAPHPRUM_TESTDATA`` (default ``~/.cache/graphprum-testdata``).
"""

from __future__ import annotations

import os
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
    return 0


if __name__ == "__main__":
    sys.exit(main())
