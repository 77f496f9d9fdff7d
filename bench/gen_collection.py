"""Deterministic synthetic INEX-like (Wikipedia-shaped) XML collection.

Usage::

    python bench/gen_collection.py OUT_DIR --articles N --seed S [--vocab FILE]

Writes ``OUT_DIR/DDD/ID.xml`` (``DDD`` = ``ID // 1000``, zero padded, like the
numbered folders of the INEX Wikipedia collection) and prints one JSON line
``{"files", "elements", "bytes", "seconds", "elements_per_s",
"cpu_elements_per_s"}`` (the last from process time: the machine may be shared).

Each article is ``article/name`` + ``body`` with nested ``section``
(``title``, ``p``, ``list/item``, sub-sections; element depth at most 9) and
``collectionlink`` elements whose ``xlink:href`` is the path of another
article relative to the linking file (``../DDD/ID.xml``). Words are drawn from
a Zipf law (exponent 1.1) over a vocabulary: ``/usr/share/dict/words`` when
present, else the words of the PLOS example articles, else a built-in list.
The output depends only on ``--articles``, ``--seed`` and the vocabulary:
article ``i`` is generated from its own random stream seeded by ``(S, i)``.
"""

from __future__ import annotations

import argparse
import json
import random
import re
import sys
import time
from collections import Counter
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
PLOS = ROOT / "examples" / "plos" / "articles"
MAX_SECTION_DEPTH = 3  # article/body/section/section/section/p/collectionlink = 7 levels
_FALLBACK = """time year people way day man thing woman life child world school state
family student group country problem hand part place case week company system program
question work government number night point home water room mother area money story fact
month lot right study book eye job word business issue side kind head house service friend
father power hour game line end member law car city name"""


def vocabulary(path: Path | None = None) -> tuple[list[str], bool]:
    """Distinct words and whether they are ranked by frequency.

    A word list (``path`` or ``/usr/share/dict/words``) is not ranked: the
    generator gives its words Zipf ranks in a seeded random order. Words of
    the PLOS examples are ranked by their frequency there.
    """
    candidates = [path] if path else [Path("/usr/share/dict/words")]
    for p in candidates:
        if p is not None and p.is_file():
            words = {w.lower() for w in p.read_text(encoding="utf-8", errors="ignore").split()
                     if w.isalpha() and w.isascii()}
            if len(words) > 100:
                return sorted(words), False
    if PLOS.is_dir():
        text = " ".join(f.read_text(encoding="utf-8") for f in sorted(PLOS.glob("*.xml")))
        text = re.sub(r"<[^>]*>", " ", text)
        counts = Counter(w.lower() for w in re.findall(r"[A-Za-z]+", text))
        return [w for w, _ in sorted(counts.items(), key=lambda wc: (-wc[1], wc[0]))], True
    return sorted(set(_FALLBACK.split())), False


class Generator:
    """Writes articles; ``write(i)`` returns (elements, bytes) of article ``i``.

    Words come from one Zipf-distributed stream of ``POOL`` words drawn once
    from the seed; each text takes a run of the stream at a random offset.
    Structure decisions use ``random.Random`` seeded by ``(seed, i)``.
    """

    POOL = 1 << 20

    def __init__(self, out: Path, n: int, seed: int, words: list[str],
                 ranked: bool = True) -> None:
        self.out, self.n, self.seed = out, n, seed
        rng = np.random.default_rng(seed)
        order = np.arange(len(words)) if ranked else rng.permutation(len(words))
        w = 1.0 / np.arange(1, len(words) + 1) ** 1.1
        cdf = np.cumsum(w) / w.sum()
        idx = order[np.minimum(np.searchsorted(cdf, rng.random(self.POOL)), len(words) - 1)]
        pool = np.array(words, dtype=object)[idx].tolist()
        self.stream = " ".join(pool) + " "
        lengths = np.fromiter((len(w) + 1 for w in pool), dtype=np.int64, count=len(pool))
        self.starts: list[int] = np.concatenate(([0], np.cumsum(lengths))).tolist()
        self.dirs: set[Path] = set()

    def path(self, i: int) -> Path:
        return self.out / f"{i // 1000:03d}" / f"{i}.xml"

    def write(self, i: int) -> tuple[int, int]:
        self._r = random.Random(self.seed * 1_000_000_007 + i)
        self._count = 3  # article, name, body
        parts = ['<?xml version="1.0" encoding="UTF-8"?>\n'
                 '<article xmlns:xlink="http://www.w3.org/1999/xlink">\n'
                 f'<name id="{i}">{self._text(1, 5)}</name>\n<body>\n']
        for _ in range(self._r.randrange(1, 7)):
            self._section(parts, 1)
        parts.append("</body>\n</article>\n")
        data = "".join(parts).encode("utf-8")
        p = self.path(i)
        if p.parent not in self.dirs:
            p.parent.mkdir(parents=True, exist_ok=True)
            self.dirs.add(p.parent)
        p.write_bytes(data)
        return self._count, len(data)

    def _text(self, lo: int, hi: int) -> str:
        r = self._r.random
        k = lo + int(r() * (hi - lo))
        a = int(r() * (self.POOL - k))
        return self.stream[self.starts[a]:self.starts[a + k] - 1]

    def _link(self) -> str:
        self._count += 1
        j = int(self._r.random() * self.n)
        return (f'<collectionlink xlink:type="simple" xlink:href="../{j // 1000:03d}/{j}.xml">'
                f"{self._text(1, 4)}</collectionlink>")

    def _para(self) -> str:
        r = self._r.random
        self._count += 1
        chunks = [self._text(5, 40)]
        while r() < 0.45:
            chunks.append(self._link())
            chunks.append(self._text(2, 25))
        return "<p>" + " ".join(chunks) + "</p>\n"

    def _section(self, parts: list[str], depth: int) -> None:
        r = self._r.random
        self._count += 2
        parts.append(f"<section>\n<title>{self._text(1, 6)}</title>\n")
        for _ in range(1 + int(r() * 5)):
            parts.append(self._para())
        if r() < 0.3:
            items = 2 + int(r() * 5)
            self._count += 1 + items
            parts.append("<list>\n")
            for _ in range(items):
                link = " " + self._link() if r() < 0.2 else ""
                parts.append(f"<item>{self._text(2, 12)}{link}</item>\n")
            parts.append("</list>\n")
        if depth < MAX_SECTION_DEPTH:
            while r() < 0.5 / depth:
                self._section(parts, depth + 1)
        parts.append("</section>\n")


def generate(out: Path, n: int, seed: int, vocab: Path | None = None) -> dict[str, float]:
    """Write ``n`` articles into ``out``; return the counts."""
    t0, c0 = time.perf_counter(), time.process_time()
    words, ranked = vocabulary(vocab)
    gen = Generator(out, n, seed, words, ranked)
    elements = size = 0
    for i in range(n):
        e, b = gen.write(i)
        elements += e
        size += b
    dt, cpu = time.perf_counter() - t0, time.process_time() - c0
    return {"files": n, "elements": elements, "bytes": size, "seconds": round(dt, 3),
            "elements_per_s": round(elements / dt) if dt else 0,
            "cpu_elements_per_s": round(elements / cpu) if cpu else 0}


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("out", type=Path)
    ap.add_argument("--articles", type=int, default=1000)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--vocab", type=Path, default=None, help="word list (one word a line)")
    args = ap.parse_args(argv)
    if args.articles < 1:
        sys.exit("gen_collection: --articles must be >= 1")
    print(json.dumps(generate(args.out, args.articles, args.seed, args.vocab)))


if __name__ == "__main__":
    main()
