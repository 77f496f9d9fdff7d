"""Regenerate the PLOS example collection: articles, topics, qrels, runs, navigation.

Usage::

    python examples/plos/make_examples.py [--source DIR | --fetch]

``--source DIR`` copies the chosen articles from an unpacked
``allofplos/starter_corpus`` directory; ``--fetch`` downloads the
``allofplos==0.11.1`` wheel with pip and unpacks the corpus in a temporary
directory. Without either option the articles already in ``articles/`` are
used. Everything else (topics, qrels, runs, navigation file) is recomputed
deterministically from the articles and the judgments written below.

Element ids follow docs/formats.md: ``DOC#XPATH``, DOC the file path relative to
``articles/`` without ``.xml``, XPATH with one positional 1-based step per
element, counted among same-tag siblings; comments and processing
instructions are not counted.

The XML files declare the NLM Journal Publishing DTD by a remote system id.
They are parsed with ``load_dtd=False, no_network=True, resolve_entities=False``;
the nine chosen articles use only the predefined XML entities, so no DTD is
needed (the script checks it).
"""

from __future__ import annotations

import argparse
import math
import re
import shutil
import subprocess
import sys
import tempfile
import zipfile
from collections import Counter, defaultdict
from collections.abc import Iterator
from pathlib import Path

from lxml import etree

HERE = Path(__file__).resolve().parent
ARTICLES_DIR = HERE / "articles"

#: shipped name -> name in allofplos/starter_corpus (without ``.xml``)
ARTICLES: dict[str, str] = {
    "pmed-1001300": "journal.pmed.1001300",
    "pmed-1001418": "journal.pmed.1001418",
    "pone-0016329": "journal.pone.0016329",
    "pone-0046041": "journal.pone.0046041",
    "pone-0047391": "journal.pone.0047391",
    "pone-0052690": "journal.pone.0052690",
    "pone-0078921": "journal.pone.0078921",
    "pone-0108198": "journal.pone.0108198",
    "ppat-1002769": "journal.ppat.1002769",
}

TOPICS: dict[str, str] = {
    "1": "life expectancy and mortality of patients on antiretroviral or tuberculosis treatment",
    "2": "drug resistance and treatment failure",
    "3": "laboratory tests to diagnose disease or monitor treatment",
    "4": "survival and replication of Mycobacterium tuberculosis inside macrophages",
    "5": "proteins binding specific DNA sites in mycobacteria and mycobacteriophages",
}

_A = "/article[1]"
_F = "/article[1]/front[1]/article-meta[1]"
_B = "/article[1]/body[1]"

#: Graded judgments made by reading the articles: topic -> (doc, xpath, rel).
#: 2 = highly relevant, 1 = partly relevant, 0 = judged not relevant.
JUDGMENTS: dict[str, list[tuple[str, str, int]]] = {
    "1": [
        ("pmed-1001418", _A, 1),
        ("pmed-1001418", f"{_F}/abstract[1]/p[1]", 2),
        ("pmed-1001418", f"{_F}/abstract[2]", 2),
        ("pmed-1001418", f"{_F}/abstract[2]/sec[1]/p[1]", 2),
        ("pmed-1001418", f"{_F}/abstract[2]/sec[2]/p[1]", 2),
        ("pmed-1001418", f"{_F}/abstract[2]/sec[3]/p[1]", 2),
        ("pmed-1001418", f"{_F}/abstract[3]/sec[1]/p[1]", 1),
        ("pmed-1001418", f"{_F}/abstract[3]/sec[2]/p[1]", 2),
        ("pmed-1001418", f"{_F}/abstract[3]/sec[3]/p[1]", 1),
        ("pmed-1001418", f"{_F}/abstract[3]/sec[3]/p[2]", 2),
        ("pmed-1001418", f"{_F}/abstract[3]/sec[4]/p[1]", 2),
        ("pmed-1001418", f"{_B}/sec[1]/p[1]", 2),
        ("pmed-1001418", f"{_B}/sec[1]/p[2]", 1),
        ("pmed-1001418", f"{_B}/sec[2]/sec[2]", 1),
        ("pmed-1001418", f"{_B}/sec[2]/sec[3]/p[1]", 1),
        ("pmed-1001418", f"{_B}/sec[2]/sec[3]/p[2]", 1),
        ("pmed-1001418", f"{_B}/sec[2]/sec[4]/p[1]", 1),
        ("pmed-1001418", f"{_B}/sec[3]", 2),
        ("pmed-1001418", f"{_B}/sec[3]/p[1]", 1),
        ("pmed-1001418", f"{_B}/sec[3]/p[2]", 2),
        ("pmed-1001418", f"{_B}/sec[3]/p[3]", 1),
        ("pmed-1001418", f"{_B}/sec[3]/p[4]", 2),
        ("pmed-1001418", f"{_B}/sec[3]/p[5]", 1),
        ("pmed-1001418", f"{_B}/sec[3]/p[6]", 2),
        ("pmed-1001418", f"{_B}/sec[4]", 2),
        ("pmed-1001418", f"{_B}/sec[4]/p[1]", 2),
        ("pmed-1001418", f"{_B}/sec[4]/p[4]", 1),
        ("pmed-1001418", f"{_B}/sec[4]/p[5]", 1),
        ("pmed-1001418", f"{_B}/sec[4]/p[7]", 2),
        ("pmed-1001418", f"{_B}/sec[4]/p[8]", 2),
        ("pmed-1001418", f"{_B}/sec[4]/p[10]", 1),
        ("pmed-1001300", f"{_F}/abstract[2]/sec[3]/p[1]", 1),
        ("pmed-1001300", f"{_F}/abstract[3]/sec[1]/p[1]", 1),
        ("pmed-1001300", f"{_F}/abstract[3]/sec[4]/p[1]", 1),
        ("pmed-1001300", f"{_B}/sec[2]/sec[3]/p[1]", 1),
        ("pmed-1001300", f"{_B}/sec[3]/sec[2]/p[1]", 1),
        ("pmed-1001300", f"{_B}/sec[3]/sec[2]/p[4]", 0),
        ("pone-0047391", f"{_B}/sec[3]/p[1]", 0),
        ("pone-0047391", f"{_B}/sec[4]/p[11]", 1),
        ("pone-0047391", f"{_B}/sec[5]/p[1]", 1),
        ("ppat-1002769", f"{_B}/sec[1]/p[1]", 0),
    ],
    "2": [
        ("pmed-1001300", _A, 2),
        ("pmed-1001300", f"{_F}/abstract[1]/p[1]", 1),
        ("pmed-1001300", f"{_F}/abstract[2]", 2),
        ("pmed-1001300", f"{_F}/abstract[2]/sec[1]/p[1]", 2),
        ("pmed-1001300", f"{_F}/abstract[2]/sec[2]/p[1]", 2),
        ("pmed-1001300", f"{_F}/abstract[2]/sec[3]/p[1]", 2),
        ("pmed-1001300", f"{_F}/abstract[3]/sec[2]/p[1]", 2),
        ("pmed-1001300", f"{_F}/abstract[3]/sec[3]/p[1]", 2),
        ("pmed-1001300", f"{_F}/abstract[3]/sec[4]/p[1]", 2),
        ("pmed-1001300", f"{_B}/sec[1]/p[1]", 2),
        ("pmed-1001300", f"{_B}/sec[1]/p[2]", 1),
        ("pmed-1001300", f"{_B}/sec[2]/sec[3]/p[1]", 1),
        ("pmed-1001300", f"{_B}/sec[2]/sec[3]/p[3]", 1),
        ("pmed-1001300", f"{_B}/sec[3]/sec[2]", 2),
        ("pmed-1001300", f"{_B}/sec[3]/sec[2]/p[1]", 2),
        ("pmed-1001300", f"{_B}/sec[3]/sec[2]/p[2]", 1),
        ("pmed-1001300", f"{_B}/sec[3]/sec[2]/p[3]", 2),
        ("pmed-1001300", f"{_B}/sec[3]/sec[2]/p[4]", 2),
        ("pmed-1001300", f"{_B}/sec[3]/sec[2]/p[5]", 0),
        ("pmed-1001300", f"{_B}/sec[4]", 2),
        ("pmed-1001300", f"{_B}/sec[4]/p[1]", 2),
        ("pmed-1001300", f"{_B}/sec[4]/p[4]", 2),
        ("pmed-1001300", f"{_B}/sec[4]/p[5]", 1),
        ("pmed-1001300", f"{_B}/sec[4]/sec[1]/p[1]", 2),
        ("pone-0047391", _A, 2),
        ("pone-0047391", f"{_F}/abstract[1]/sec[1]/p[1]", 2),
        ("pone-0047391", f"{_F}/abstract[1]/sec[2]/p[1]", 2),
        ("pone-0047391", f"{_F}/abstract[1]/sec[4]/p[1]", 2),
        ("pone-0047391", f"{_F}/abstract[1]/sec[5]/p[1]", 2),
        ("pone-0047391", f"{_B}/sec[1]/p[1]", 2),
        ("pone-0047391", f"{_B}/sec[1]/p[2]", 2),
        ("pone-0047391", f"{_B}/sec[1]/p[6]", 1),
        ("pone-0047391", f"{_B}/sec[2]/sec[6]/p[1]", 1),
        ("pone-0047391", f"{_B}/sec[2]/sec[7]/p[1]", 1),
        ("pone-0047391", f"{_B}/sec[2]/sec[8]/p[1]", 2),
        ("pone-0047391", f"{_B}/sec[3]", 2),
        ("pone-0047391", f"{_B}/sec[3]/p[2]", 1),
        ("pone-0047391", f"{_B}/sec[3]/p[4]", 2),
        ("pone-0047391", f"{_B}/sec[3]/p[5]", 2),
        ("pone-0047391", f"{_B}/sec[3]/p[6]", 2),
        ("pone-0047391", f"{_B}/sec[3]/p[7]", 2),
        ("pone-0047391", f"{_B}/sec[3]/p[9]", 2),
        ("pone-0047391", f"{_B}/sec[3]/p[10]", 1),
        ("pone-0047391", f"{_B}/sec[4]/p[1]", 1),
        ("pone-0047391", f"{_B}/sec[4]/p[2]", 1),
        ("pone-0047391", f"{_B}/sec[4]/p[5]", 2),
        ("pone-0047391", f"{_B}/sec[4]/p[6]", 1),
        ("pone-0047391", f"{_B}/sec[4]/p[7]", 2),
        ("pone-0047391", f"{_B}/sec[4]/p[8]", 2),
        ("pone-0047391", f"{_B}/sec[4]/p[11]", 1),
        ("pmed-1001418", f"{_B}/sec[4]/p[4]", 0),
        ("ppat-1002769", f"{_B}/sec[1]/p[1]", 0),
    ],
    "3": [
        ("pone-0046041", _A, 2),
        ("pone-0046041", f"{_F}/abstract[1]", 2),
        ("pone-0046041", f"{_F}/abstract[1]/sec[1]/p[1]", 2),
        ("pone-0046041", f"{_F}/abstract[1]/sec[2]/p[1]", 1),
        ("pone-0046041", f"{_F}/abstract[1]/sec[3]/p[1]", 1),
        ("pone-0046041", f"{_F}/abstract[1]/sec[4]/p[1]", 2),
        ("pone-0046041", f"{_F}/abstract[1]/sec[5]/p[1]", 2),
        ("pone-0046041", f"{_B}/sec[1]/p[1]", 2),
        ("pone-0046041", f"{_B}/sec[1]/p[2]", 2),
        ("pone-0046041", f"{_B}/sec[2]/sec[2]", 2),
        ("pone-0046041", f"{_B}/sec[2]/sec[2]/p[1]", 2),
        ("pone-0046041", f"{_B}/sec[2]/sec[3]", 2),
        ("pone-0046041", f"{_B}/sec[2]/sec[3]/p[1]", 2),
        ("pone-0046041", f"{_B}/sec[2]/sec[4]", 2),
        ("pone-0046041", f"{_B}/sec[2]/sec[4]/p[1]", 2),
        ("pone-0046041", f"{_B}/sec[2]/sec[6]/p[1]", 1),
        ("pone-0046041", f"{_B}/sec[4]/p[2]", 2),
        ("pone-0046041", f"{_B}/sec[4]/sec[1]/p[1]", 2),
        ("pone-0046041", f"{_B}/sec[5]/p[1]", 2),
        ("pone-0046041", f"{_B}/sec[5]/p[2]", 2),
        ("pone-0046041", f"{_B}/sec[5]/p[4]", 1),
        ("pone-0046041", f"{_B}/sec[5]/sec[1]/p[1]", 1),
        ("pone-0047391", f"{_F}/abstract[1]/sec[1]/p[1]", 1),
        ("pone-0047391", f"{_F}/abstract[1]/sec[3]/p[1]", 2),
        ("pone-0047391", f"{_B}/sec[1]/p[4]", 2),
        ("pone-0047391", f"{_B}/sec[1]/p[5]", 1),
        ("pone-0047391", f"{_B}/sec[1]/p[6]", 2),
        ("pone-0047391", f"{_B}/sec[2]/sec[4]", 2),
        ("pone-0047391", f"{_B}/sec[2]/sec[4]/p[1]", 2),
        ("pone-0047391", f"{_B}/sec[2]/sec[4]/p[2]", 2),
        ("pone-0047391", f"{_B}/sec[2]/sec[4]/p[3]", 1),
        ("pone-0047391", f"{_B}/sec[2]/sec[9]/p[1]", 2),
        ("pone-0047391", f"{_B}/sec[4]/p[3]", 2),
        ("pone-0047391", f"{_B}/sec[4]/p[4]", 2),
        ("pone-0047391", f"{_B}/sec[4]/p[9]", 1),
        ("pone-0047391", f"{_B}/sec[4]/p[11]", 2),
        ("pone-0047391", f"{_B}/sec[4]/p[12]", 2),
        ("pone-0047391", f"{_B}/sec[5]/p[2]", 2),
        ("pone-0078921", _A, 1),
        ("pone-0078921", f"{_F}/abstract[1]/p[1]", 2),
        ("pone-0078921", f"{_B}/sec[1]/p[2]", 2),
        ("pone-0078921", f"{_B}/sec[1]/p[3]", 1),
        ("pone-0078921", f"{_B}/sec[2]/sec[2]/p[1]", 1),
        ("pone-0078921", f"{_B}/sec[3]/p[1]", 2),
        ("pone-0078921", f"{_B}/sec[3]/sec[3]/p[4]", 1),
        ("pone-0078921", f"{_B}/sec[4]/p[1]", 2),
        ("pmed-1001300", f"{_B}/sec[2]/sec[2]/p[2]", 1),
        ("pmed-1001300", f"{_B}/sec[4]/p[4]", 1),
        ("pmed-1001418", f"{_B}/sec[4]/p[1]", 1),
    ],
    "4": [
        ("ppat-1002769", _A, 2),
        ("ppat-1002769", f"{_F}/abstract[1]/p[1]", 2),
        ("ppat-1002769", f"{_F}/abstract[2]/p[1]", 2),
        ("ppat-1002769", f"{_B}/sec[1]/p[1]", 1),
        ("ppat-1002769", f"{_B}/sec[1]/p[2]", 2),
        ("ppat-1002769", f"{_B}/sec[1]/p[3]", 1),
        ("ppat-1002769", f"{_B}/sec[2]/sec[1]", 2),
        ("ppat-1002769", f"{_B}/sec[2]/sec[1]/p[1]", 2),
        ("ppat-1002769", f"{_B}/sec[2]/sec[1]/p[2]", 2),
        ("ppat-1002769", f"{_B}/sec[2]/sec[1]/p[3]", 2),
        ("ppat-1002769", f"{_B}/sec[2]/sec[1]/p[4]", 2),
        ("ppat-1002769", f"{_B}/sec[2]/sec[1]/p[5]", 2),
        ("ppat-1002769", f"{_B}/sec[2]/sec[2]", 2),
        ("ppat-1002769", f"{_B}/sec[2]/sec[2]/p[1]", 1),
        ("ppat-1002769", f"{_B}/sec[2]/sec[2]/p[2]", 2),
        ("ppat-1002769", f"{_B}/sec[2]/sec[2]/p[3]", 2),
        ("ppat-1002769", f"{_B}/sec[2]/sec[3]/p[1]", 1),
        ("ppat-1002769", f"{_B}/sec[2]/sec[4]/p[1]", 2),
        ("ppat-1002769", f"{_B}/sec[2]/sec[4]/sec[1]/p[1]", 1),
        ("ppat-1002769", f"{_B}/sec[2]/sec[4]/sec[2]/p[1]", 1),
        ("ppat-1002769", f"{_B}/sec[2]/sec[5]/sec[1]/p[2]", 1),
        ("ppat-1002769", f"{_B}/sec[2]/sec[5]/sec[2]/p[1]", 1),
        ("ppat-1002769", f"{_B}/sec[2]/sec[5]/sec[3]/p[1]", 1),
        ("ppat-1002769", f"{_B}/sec[2]/sec[7]/p[1]", 2),
        ("ppat-1002769", f"{_B}/sec[2]/sec[7]/p[2]", 1),
        ("ppat-1002769", f"{_B}/sec[2]/sec[7]/p[4]", 1),
        ("ppat-1002769", f"{_B}/sec[3]/sec[2]", 1),
        ("ppat-1002769", f"{_B}/sec[3]/sec[3]/p[1]", 1),
        ("pone-0046041", f"{_B}/sec[5]/p[3]", 1),
        ("pone-0108198", f"{_F}/title-group[1]/article-title[1]", 1),
        ("pone-0108198", f"{_B}/sec[1]/p[1]", 0),
        ("pone-0052690", f"{_B}/sec[1]/p[4]", 0),
    ],
    "5": [
        ("pone-0052690", _A, 2),
        ("pone-0052690", f"{_F}/abstract[1]/p[1]", 2),
        ("pone-0052690", f"{_B}/sec[1]", 2),
        ("pone-0052690", f"{_B}/sec[1]/p[1]", 2),
        ("pone-0052690", f"{_B}/sec[1]/p[2]", 1),
        ("pone-0052690", f"{_B}/sec[1]/p[3]", 2),
        ("pone-0052690", f"{_B}/sec[1]/p[4]", 2),
        ("pone-0052690", f"{_B}/sec[3]/sec[1]/p[1]", 1),
        ("pone-0052690", f"{_B}/sec[3]/sec[2]/p[1]", 2),
        ("pone-0052690", f"{_B}/sec[3]/sec[3]/p[1]", 1),
        ("pone-0052690", f"{_B}/sec[3]/sec[5]/p[1]", 2),
        ("pone-0052690", f"{_B}/sec[4]", 2),
        ("pone-0052690", f"{_B}/sec[4]/p[1]", 2),
        ("pone-0052690", f"{_B}/sec[4]/p[2]", 2),
        ("pone-0052690", f"{_B}/sec[4]/p[3]", 2),
        ("pone-0052690", f"{_B}/sec[4]/p[4]", 2),
        ("pone-0016329", f"{_F}/abstract[1]/p[1]", 0),
        ("pone-0016329", f"{_B}/sec[2]/sec[2]/sec[1]/p[2]", 1),
        ("pone-0016329", f"{_B}/sec[2]/sec[2]/sec[3]", 2),
        ("pone-0016329", f"{_B}/sec[2]/sec[2]/sec[3]/p[1]", 1),
        ("pone-0016329", f"{_B}/sec[2]/sec[2]/sec[3]/p[3]", 1),
        ("pone-0016329", f"{_B}/sec[2]/sec[2]/sec[3]/p[4]", 2),
        ("pone-0016329", f"{_B}/sec[2]/sec[2]/sec[3]/p[5]", 2),
        ("pone-0016329", f"{_B}/sec[2]/sec[2]/sec[3]/p[6]", 2),
        ("pone-0016329", f"{_B}/sec[2]/sec[2]/sec[4]/p[3]", 2),
        ("ppat-1002769", f"{_B}/sec[2]/sec[5]/sec[1]/p[1]", 1),
        ("ppat-1002769", f"{_B}/sec[2]/sec[6]/p[2]", 1),
    ],
}

PARSER_OPTIONS = {"resolve_entities": False, "no_network": True, "load_dtd": False}
_STOP = frozenset((
    "a", "an", "and", "are", "as", "at", "be", "by", "for", "from", "in", "into", "is",
    "it", "of", "on", "or", "the", "to", "with",
))
_TOKEN = re.compile(r"[^\W_]+")


def parser() -> etree.XMLParser:
    """Return an lxml parser that never loads a DTD nor touches the network."""
    return etree.XMLParser(**PARSER_OPTIONS)


def step_name(el: etree._Element) -> str:
    """Return the tag of ``el`` as written: ``prefix:local`` or ``local``."""
    local = etree.QName(el).localname
    return f"{el.prefix}:{local}" if el.prefix else local


def walk(root: etree._Element) -> Iterator[tuple[etree._Element, str]]:
    """Yield ``(element, xpath)`` in document order, INEX positional paths."""
    stack: list[tuple[etree._Element, str]] = [(root, f"/{step_name(root)}[1]")]
    while stack:
        el, path = stack.pop()
        yield el, path
        counts: Counter[str] = Counter()
        kids = []
        for child in el:
            if not isinstance(child.tag, str):
                continue  # comments, PIs, entities are not units
            counts[child.tag] += 1
            kids.append((child, f"{path}/{step_name(child)}[{counts[child.tag]}]"))
        stack.extend(reversed(kids))


def tokens(text: str) -> list[str]:
    """Lower-cased word tokens without stop words."""
    return [t for t in _TOKEN.findall(text.lower()) if t not in _STOP]


def fetch_corpus(dest: Path) -> Path:
    """Download allofplos 0.11.1 with pip and unpack its starter corpus into ``dest``."""
    subprocess.run(
        [sys.executable, "-m", "pip", "download", "--no-deps", "allofplos==0.11.1",
         "-d", str(dest)],
        check=True,
    )
    wheel = next(dest.glob("allofplos-0.11.1-*.whl"))
    with zipfile.ZipFile(wheel) as zf:
        for name in zf.namelist():
            if name.startswith("allofplos/starter_corpus/") and name.endswith(".xml"):
                zf.extract(name, dest)
    return dest / "allofplos" / "starter_corpus"


def copy_articles(source: Path) -> None:
    """Copy the chosen articles byte for byte into ``articles/``."""
    ARTICLES_DIR.mkdir(exist_ok=True)
    for name, original in ARTICLES.items():
        shutil.copyfile(source / f"{original}.xml", ARTICLES_DIR / f"{name}.xml")


class Collection:
    """The parsed articles: element ids, texts, and the xref graph."""

    def __init__(self, directory: Path) -> None:
        self.ids: list[str] = []
        self.tags: list[str] = []
        self.texts: list[str] = []
        self.elements: dict[str, etree._Element] = {}
        self.trees: dict[str, etree._ElementTree] = {}
        self.id_of: dict[etree._Element, str] = {}
        for path in sorted(directory.rglob("*.xml")):
            doc = path.relative_to(directory).with_suffix("").as_posix()
            p = parser()
            tree = etree.parse(str(path), p)
            if len(p.error_log):
                raise SystemExit(f"{path}: parser messages: {p.error_log}")
            if any(isinstance(e, etree._Entity) for e in tree.iter()):
                raise SystemExit(f"{path}: unresolved entity references")
            self.trees[doc] = tree
            for el, xpath in walk(tree.getroot()):
                uid = f"{doc}#{xpath}"
                self.ids.append(uid)
                self.tags.append(step_name(el))
                self.texts.append("".join(el.itertext()))
                self.elements[uid] = el
                self.id_of[el] = uid


def bm25(
    coll: Collection, query: str, keep: list[int], k1: float = 1.2, b: float = 0.75
) -> dict[int, float]:
    """BM25 scores of the units ``keep`` (indices into ``coll.ids``) for ``query``."""
    q = set(tokens(query))
    tfs = {i: Counter(t for t in tokens(coll.texts[i]) if t in q) for i in keep}
    lengths = {i: len(coll.texts[i].split()) for i in keep}
    avgdl = sum(lengths.values()) / len(keep)
    df = Counter(t for c in tfs.values() for t in c)
    n = len(keep)
    scores: dict[int, float] = {}
    for i, tf in tfs.items():
        s = 0.0
        for t, f in tf.items():
            idf = math.log(1 + (n - df[t] + 0.5) / (df[t] + 0.5))
            s += idf * f * (k1 + 1) / (f + k1 * (1 - b + b * lengths[i] / avgdl))
        if s > 0:
            scores[i] = s
    return scores


def run_lines(coll: Collection, scores: dict[int, float], topic: str, k: int, tag: str,
              fill: list[int] | None = None) -> list[str]:
    """Top ``k`` lines in trec_eval order (score desc, id desc), optional zero fill."""
    rounded = {i: round(s, 6) for i, s in scores.items()}
    for i in fill or []:
        if len(rounded) >= k:
            break
        rounded.setdefault(i, 0.0)
    order = sorted(rounded, key=lambda i: (-rounded[i], _desc(coll.ids[i])))[:k]
    return [f"{topic} Q0 {coll.ids[i]} {r} {rounded[i]:.6f} {tag}"
            for r, i in enumerate(order, 1)]


def _desc(s: str) -> tuple[int, ...]:
    """Sort key giving descending string order."""
    return (*tuple(-ord(c) for c in s), 1)


def navigation(coll: Collection, follow: float = 0.5) -> list[tuple[str, str, float]]:
    """One-step transitions from the ``xref`` links inside the articles.

    From the paragraph (or title, table cell) holding an ``<xref rid=..>`` the
    user follows one of its links with total probability ``follow``, split in
    proportion to the link kind's weight (figure, table 3; supplementary
    material 2; bibliographic reference 1; anything else 0.5). From a cited
    figure or table the user goes back to one of the paragraphs citing it
    with total probability ``follow``. Out-probabilities of a unit therefore
    sum to at most ``follow``.
    """
    weights = {"fig": 3.0, "table": 3.0, "supplementary-material": 2.0, "bibr": 1.0}
    out: dict[str, dict[str, float]] = defaultdict(dict)
    citers: dict[str, dict[str, None]] = defaultdict(dict)
    for tree in coll.trees.values():
        by_id = {e.get("id"): e for e in tree.iter() if isinstance(e.tag, str) and e.get("id")}
        for x in tree.iter("xref"):
            kind = x.get("ref-type", "")
            source = next((a for a in x.iterancestors() if a.tag in ("p", "title", "td", "th")),
                          x.getparent())
            src = coll.id_of[source]
            for rid in (x.get("rid") or "").split():
                target = by_id.get(rid)
                if target is None or target is source:
                    continue
                dst = coll.id_of[target]
                out[src].setdefault(dst, weights.get(kind, 0.5))
                if kind in ("fig", "table"):
                    citers[dst][src] = None
    edges: dict[tuple[str, str], float] = {}
    for src, targets in out.items():
        total = sum(targets.values())
        for dst, w in targets.items():
            edges[(src, dst)] = follow * w / total
    for dst, srcs in citers.items():
        for src in srcs:
            edges[(dst, src)] = follow / len(srcs)
    return sorted((f, t, p) for (f, t), p in edges.items())


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    g = ap.add_mutually_exclusive_group()
    g.add_argument("--source", type=Path, help="unpacked allofplos/starter_corpus directory")
    g.add_argument("--fetch", action="store_true", help="download allofplos 0.11.1 with pip")
    args = ap.parse_args(argv)
    if args.fetch:
        with tempfile.TemporaryDirectory() as tmp:
            copy_articles(fetch_corpus(Path(tmp)))
    elif args.source:
        copy_articles(args.source)
    coll = Collection(ARTICLES_DIR)

    with open(HERE / "topics.txt", "w", encoding="utf-8") as out:
        out.write("# TOPIC<TAB>title\n")
        for t, title in TOPICS.items():
            out.write(f"{t}\t{title}\n")

    with open(HERE / "qrels.txt", "w", encoding="utf-8") as out:
        for t, judged in JUDGMENTS.items():
            seen = set()
            for doc, xpath, rel in judged:
                uid = f"{doc}#{xpath}"
                if uid not in coll.elements:
                    raise SystemExit(f"topic {t}: no element {uid}")
                if uid in seen:
                    raise SystemExit(f"topic {t}: duplicate judgment {uid}")
                seen.add(uid)
                out.write(f"{t} 0 {uid} {rel}\n")

    min_words = 3
    every = [i for i, s in enumerate(coll.texts) if len(s.split()) >= min_words]
    large = [i for i, tag in enumerate(coll.tags)
             if tag in ("article", "body", "abstract", "sec")]
    with open(HERE / "run-bm25.txt", "w", encoding="utf-8") as out:
        for t, title in TOPICS.items():
            for line in run_lines(coll, bm25(coll, title, every), t, 150, "plos-bm25-elements"):
                out.write(line + "\n")
    with open(HERE / "run-sections.txt", "w", encoding="utf-8") as out:
        for t, title in TOPICS.items():
            scores = bm25(coll, title, large, k1=2.0, b=0.2)
            for line in run_lines(coll, scores, t, 80, "plos-sections", fill=large):
                out.write(line + "\n")

    with open(HERE / "nav.tsv", "w", encoding="utf-8") as out:
        for f, t, p in navigation(coll):
            out.write(f"{f}\t{t}\t{p:.10g}\n")


if __name__ == "__main__":
    main()
