"""Deterministic qrels, passage qrels and runs for a generated collection.

Usage::

    python bench/gen_runs.py COLLECTION OUT_DIR [--topics T] [--runs R] [--k K] [--seed S]

For each of ``T`` topics a few documents of ``COLLECTION`` (made by
``bench/gen_collection.py``, or any XML directory) are drawn as relevant. In
each, one or two ``p``/``section``/``item`` elements are the highlighted
passages. Written to ``OUT_DIR``:

- ``qrels.txt``: ``TOPIC 0 ID REL``, REL 2 for the highlighted elements (the
  ideal units: use ``--ideal-min 2``), REL 1 for their parents;
- ``passages.txt``: ``TOPIC DOC START END`` (END exclusive) with the
  highlighted element's character span in the document's text content
  (DESIGN §1.2), and one ``TOPIC DOC BEP OFFSET`` line per document;
- ``run-01.txt`` … ``run-R.txt``: ``K`` results per topic; run ``r`` draws a
  result from the relevant documents with probability decreasing from 0.8
  (run 1) to 0.1 (run R), else from other documents; TAG ``synth-RR``.

Ids follow DESIGN §1.1 (``DOC#/article[1]/body[1]/section[2]/p[1]``). Prints
one JSON line with counts. The output depends only on the collection and
the options.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from pathlib import Path

from lxml import etree

UNIT_TAGS = ("p", "section", "item")


def spans(path: Path) -> list[tuple[str, str, int, int, int]]:
    """``(xpath, tag, start, end, parent_index)`` of every element, document order.

    ``start``/``end`` (end exclusive) are offsets in the document's text
    content: all text and tails in document order, comment and PI text
    excluded (their tails included). The parent index of the root is -1.
    """
    root = etree.parse(str(path), etree.XMLParser(resolve_entities=False, no_network=True,
                                                  load_dtd=False)).getroot()
    out: list[list] = []
    off = 0

    def name(el: etree._Element) -> str:
        local = etree.QName(el).localname
        return f"{el.prefix}:{local}" if el.prefix else local

    def visit(el: etree._Element, xp: str, parent: int) -> None:
        nonlocal off
        idx = len(out)
        out.append([xp, name(el), off, -1, parent])
        off += len(el.text or "")
        counts: dict[str, int] = {}
        for child in el:
            if isinstance(child.tag, str):
                counts[child.tag] = counts.get(child.tag, 0) + 1
                visit(child, f"{xp}/{name(child)}[{counts[child.tag]}]", idx)
            off += len(child.tail or "")
        out[idx][3] = off

    visit(root, f"/{name(root)}[1]", -1)
    return [tuple(u) for u in out]


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("collection", type=Path)
    ap.add_argument("out", type=Path)
    ap.add_argument("--topics", type=int, default=50)
    ap.add_argument("--runs", type=int, default=4)
    ap.add_argument("--k", type=int, default=1500)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--docs-per-topic", type=int, default=8)
    ap.add_argument("--noise-docs", type=int, default=100)
    a = ap.parse_args(argv)
    files = sorted(a.collection.rglob("*.xml"))
    if not files:
        sys.exit(f"gen_runs: no *.xml under {a.collection}")
    docs = [f.relative_to(a.collection).with_suffix("").as_posix() for f in files]
    rng = random.Random(a.seed)
    cache: dict[int, list[tuple[str, str, int, int, int]]] = {}

    def units(d: int) -> list[tuple[str, str, int, int, int]]:
        if d not in cache:
            cache[d] = spans(files[d])
        return cache[d]

    a.out.mkdir(parents=True, exist_ok=True)
    qrels, passages = [], []
    runs: list[list[str]] = [[] for _ in range(a.runs)]
    quality = [0.8 - 0.7 * r / max(a.runs - 1, 1) for r in range(a.runs)]
    for t in range(1, a.topics + 1):
        rel_docs = rng.sample(range(len(docs)), min(a.docs_per_topic, len(docs)))
        judged: dict[str, int] = {}
        for d in sorted(rel_docs):
            us = units(d)
            cand = [i for i, u in enumerate(us) if u[1] in UNIT_TAGS and u[3] > u[2]]
            if not cand:
                continue
            chosen = sorted(rng.sample(cand, min(len(cand), rng.choice((1, 1, 2)))))
            for i in chosen:
                xp, _, s, e, parent = us[i]
                judged[f"{docs[d]}#{xp}"] = 2
                passages.append(f"{t} {docs[d]} {s} {e}")
                if parent >= 0:
                    judged.setdefault(f"{docs[d]}#{us[parent][0]}", 1)
            passages.append(f"{t} {docs[d]} BEP {us[chosen[0]][2]}")
        for uid, rel in judged.items():
            qrels.append(f"{t} 0 {uid} {rel}")
        good = [f"{docs[d]}#{u[0]}" for d in sorted(rel_docs) for u in units(d)]
        others = [d for d in rng.sample(range(len(docs)), min(a.noise_docs, len(docs)))
                  if d not in rel_docs]
        noise = [f"{docs[d]}#{u[0]}" for d in others for u in units(d)]
        for r in range(a.runs):
            g, n = good[:], noise[:]
            rng.shuffle(g)
            rng.shuffle(n)
            seen: set[str] = set()
            ranked: list[str] = []
            while len(ranked) < a.k and (g or n):
                pool = g if (g and (not n or rng.random() < quality[r])) else n
                uid = pool.pop()
                if uid not in seen:
                    seen.add(uid)
                    ranked.append(uid)
            runs[r].extend(f"{t} Q0 {uid} {k} {a.k - k + 1} synth-{r + 1:02d}"
                           for k, uid in enumerate(ranked, 1))
    (a.out / "qrels.txt").write_text("\n".join(qrels) + "\n", encoding="utf-8")
    (a.out / "passages.txt").write_text("\n".join(passages) + "\n", encoding="utf-8")
    for r, lines in enumerate(runs):
        (a.out / f"run-{r + 1:02d}.txt").write_text("\n".join(lines) + "\n", encoding="utf-8")
    print(json.dumps({"topics": a.topics, "qrels": len(qrels), "passages": len(passages),
                      "runs": a.runs, "results": sum(len(x) for x in runs),
                      "parsed_docs": len(cache)}))


if __name__ == "__main__":
    main()
