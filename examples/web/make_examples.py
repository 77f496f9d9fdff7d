"""Regenerate the web example: a subset of the Python 3.11 documentation.

Usage::

    python examples/web/make_examples.py [--source HTML_DIR | --fetch]

``--source`` is an unpacked ``usr/share/doc/python3.11/html`` directory of the
Debian package ``python3.11-doc``; ``--fetch`` runs ``apt-get download
python3.11-doc`` and ``dpkg -x`` in a temporary directory. Without either
option the pages already in ``site/`` are used and only topics, qrels and runs
are rewritten.

The subset: the hub pages listed in ``HUBS`` and every page of ``library/`` or
``tutorial/`` they link to that is smaller than ``MAX_PAGE`` bytes (plus
``ALSO``). Pages are copied unchanged, keeping the directory layout, so links
between chosen pages still work; links to pages left out dangle (counted by
``tests/test_examples_data.py``). Page ids are paths relative to ``site/``.
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import tempfile
from pathlib import Path, PurePosixPath
from urllib.parse import urldefrag, urlsplit

from lxml import html

HERE = Path(__file__).resolve().parent
SITE = HERE / "site"
MAX_PAGE = 45_000

HUBS = [
    "index.html",
    "library/index.html",
    "library/filesys.html",
    "library/fileformats.html",
    "library/unix.html",
    "library/crypto.html",
    "library/binary.html",
    "library/i18n.html",
    "library/mm.html",
    "library/custominterp.html",
    "library/distribution.html",
    "library/ipc.html",
    "library/windows.html",
    "library/functional.html",
    "tutorial/index.html",
    "tutorial/stdlib.html",
    "tutorial/stdlib2.html",
]
ALSO = [
    "library/os.path.html", "library/tempfile.html", "library/shutil.html",
    "genindex.html", "search.html", "about.html", "bugs.html", "copyright.html",
]

TOPICS = {
    "1": "match file names against shell-style wildcard patterns",
    "2": "create temporary files and directories safely",
    "3": "look up Unix user accounts, groups and passwords",
    "4": "generate secure random tokens and authenticate messages",
    "5": "read configuration and data file formats such as TOML and plist",
}

#: topic -> (page, rel); judged by reading the pages. 2 = answers the topic,
#: 1 = partly, 0 = judged not relevant (hub pages that only lead to answers).
JUDGMENTS: dict[str, list[tuple[str, int]]] = {
    "1": [("library/fnmatch.html", 2), ("library/glob.html", 2),
          ("tutorial/stdlib.html", 1), ("library/os.path.html", 0),
          ("library/filesys.html", 0)],
    "2": [("library/tempfile.html", 2), ("library/shutil.html", 0),
          ("library/filesys.html", 0), ("library/os.path.html", 0)],
    "3": [("library/pwd.html", 2), ("library/grp.html", 2), ("library/spwd.html", 2),
          ("library/getpass.html", 1), ("library/crypt.html", 1), ("library/unix.html", 0)],
    "4": [("library/secrets.html", 2), ("library/hmac.html", 2),
          ("library/crypto.html", 0), ("library/crypt.html", 0)],
    "5": [("library/tomllib.html", 2), ("library/plistlib.html", 2),
          ("library/netrc.html", 1), ("library/fileformats.html", 0)],
}

#: topic -> the hub pages a user would pass through to reach the answers
HUB_PATHS = {
    "1": ["library/filesys.html", "tutorial/stdlib.html", "library/index.html"],
    "2": ["library/filesys.html", "library/index.html"],
    "3": ["library/unix.html", "library/index.html"],
    "4": ["library/crypto.html", "library/index.html"],
    "5": ["library/fileformats.html", "library/index.html"],
}


def page_links(path: Path, root: Path) -> list[str]:
    """Site-relative paths of the ``.html`` pages that ``path`` links to (docs/formats.md)."""
    doc = html.parse(str(path))
    rel = PurePosixPath(path.relative_to(root).as_posix())
    out = []
    for href in doc.xpath("//a/@href"):
        url, _ = urldefrag(href)
        parts = urlsplit(url)
        if (not url or parts.scheme or parts.netloc or parts.path.startswith("/")
                or not parts.path.endswith(".html")):
            continue  # external, root-absolute (site root unknown) or not a page
        target = rel.parent / parts.path
        norm: list[str] = []
        for seg in target.parts:
            if seg == "..":
                if not norm:
                    break
                norm.pop()
            elif seg != ".":
                norm.append(seg)
        else:
            out.append("/".join(norm))
    return out


def choose(source: Path) -> list[str]:
    """The subset's pages, sorted."""
    chosen = set(HUBS) | set(ALSO)
    for hub in HUBS:
        for link in page_links(source / hub, source):
            if link.split("/")[0] in ("library", "tutorial") and (source / link).is_file() \
                    and (source / link).stat().st_size < MAX_PAGE:
                chosen.add(link)
    return sorted(chosen)


def copy_site(source: Path) -> None:
    """Replace ``site/`` by the chosen pages of ``source``."""
    if SITE.exists():
        shutil.rmtree(SITE)
    for page in choose(source):
        dest = SITE / page
        dest.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(source / page, dest)


def fetch(tmp: Path) -> Path:
    """Download and unpack python3.11-doc with apt-get and dpkg."""
    subprocess.run(["apt-get", "download", "python3.11-doc"], cwd=tmp, check=True)
    deb = next(tmp.glob("python3.11-doc_*.deb"))
    subprocess.run(["dpkg", "-x", str(deb), str(tmp / "x")], check=True)
    return tmp / "x" / "usr/share/doc/python3.11/html"


def pages() -> list[str]:
    """Site-relative paths of every page in ``site/``, sorted."""
    return sorted(p.relative_to(SITE).as_posix() for p in SITE.rglob("*.html"))


def write_runs(all_pages: list[str]) -> None:
    """Two runs: hub pages first (``web-hubs``) and answers deep down (``web-deep``)."""
    with open(HERE / "run-hubs.txt", "w", encoding="utf-8") as hubs, \
            open(HERE / "run-deep.txt", "w", encoding="utf-8") as deep:
        for t in TOPICS:
            answers = [p for p, r in JUDGMENTS[t] if r > 0]
            rest = [p for p in all_pages if p not in answers and p not in HUB_PATHS[t]]
            # hubs: the topic's hub pages, then the other pages, answers never
            # (a hub judged relevant, tutorial/stdlib.html for topic 1, left out)
            ranked = [h for h in HUB_PATHS[t] if h not in answers] + rest
            _write(hubs, t, ranked, "web-hubs")
            # deep: unrelated pages first, each answer at rank 20, 40, ...
            ranked = list(rest[:100])
            for k, a in enumerate(answers):
                ranked.insert(min(19 + 20 * k, len(ranked)), a)
            _write(deep, t, ranked, "web-deep")


def _write(out, topic: str, ranked: list[str], tag: str) -> None:
    n = len(ranked)
    for r, p in enumerate(ranked, 1):
        out.write(f"{topic} Q0 {p} {r} {n - r + 1} {tag}\n")


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    g = ap.add_mutually_exclusive_group()
    g.add_argument("--source", type=Path)
    g.add_argument("--fetch", action="store_true")
    args = ap.parse_args(argv)
    if args.fetch:
        with tempfile.TemporaryDirectory() as tmp:
            copy_site(fetch(Path(tmp)))
    elif args.source:
        copy_site(args.source)
    all_pages = pages()
    known = set(all_pages)
    with open(HERE / "topics.txt", "w", encoding="utf-8") as out:
        out.write("# TOPIC<TAB>title\n")
        for t, title in TOPICS.items():
            out.write(f"{t}\t{title}\n")
    with open(HERE / "qrels.txt", "w", encoding="utf-8") as out:
        for t, judged in JUDGMENTS.items():
            for p, rel in judged:
                if p not in known:
                    raise SystemExit(f"topic {t}: page {p} not in the subset")
                out.write(f"{t} 0 {p} {rel}\n")
    write_runs(all_pages)


if __name__ == "__main__":
    main()
