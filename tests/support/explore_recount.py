"""Summaries of XML files recounted with lxml and plain Python, for the explorer tests.

Nothing here uses graphprum: elements come straight from the files, ids are
INEX paths built from preceding siblings, and the partition keys follow the
AxPRE definitions of DESIGN §1.7 (label, p, p*, c, p*|c).
"""

from __future__ import annotations

from collections import Counter, deque
from dataclasses import dataclass, field
from pathlib import Path

from lxml import etree

AXPRES = ("label", "p", "p*", "c", "p*|c")


def _name(el: etree._Element) -> str:
    q = etree.QName(el)
    return f"{el.prefix}:{q.localname}" if el.prefix else q.localname


@dataclass
class Recount:
    ids: list[str] = field(default_factory=list)
    tags: list[str] = field(default_factory=list)
    parent: list[int] = field(default_factory=list)  # index of the parent element, -1 for a root
    keys: dict[str, list[str]] = field(default_factory=dict)  # per AxPRE, one key per element
    index: dict[str, int] = field(default_factory=dict)  # id -> element

    def extents(self, axpre: str) -> Counter:
        return Counter(self.keys[axpre])

    def edges(self, axpre: str) -> Counter:
        k = self.keys[axpre]
        return Counter((k[p], k[i]) for i, p in enumerate(self.parent) if p >= 0)

    def pi(self, axpre: str) -> dict[str, float]:
        """SR eq. 8 with count weights, each used in both directions."""
        total = 0.0
        out: Counter = Counter()
        for (a, b), c in self.edges(axpre).items():
            out[a] += c
            out[b] += c
            total += 2 * c
        return {key: out[key] / total for key in self.extents(axpre)}

    def depths(self, axpre: str) -> dict[str, int]:
        """Breadth-first distance from the partitions of root elements."""
        k = self.keys[axpre]
        succ: dict[str, set[str]] = {}
        for a, b in self.edges(axpre):
            if a != b:
                succ.setdefault(a, set()).add(b)
        depth = {k[i]: 0 for i, p in enumerate(self.parent) if p < 0}
        queue = deque(depth)
        while queue:
            a = queue.popleft()
            for b in succ.get(a, ()):
                if b not in depth:
                    depth[b] = depth[a] + 1
                    queue.append(b)
        return depth


def recount(directory: Path) -> Recount:
    r = Recount()
    for f in sorted(directory.glob("*.xml")):
        tree = etree.parse(str(f), etree.XMLParser(resolve_entities=False, no_network=True,
                                                   load_dtd=False))
        base = len(r.ids)
        elements = list(tree.iter(etree.Element))
        where = {el: base + i for i, el in enumerate(elements)}
        for el in elements:
            up = el.getparent()
            same = sum(1 for s in el.itersiblings(preceding=True) if s.tag == el.tag)
            parent = where[up] if up is not None else -1
            step = f"{_name(el)}[{same + 1}]"
            r.ids.append((r.ids[parent] + "/" + step) if parent >= 0 else f"{f.stem}#/{step}")
            r.tags.append(_name(el))
            r.parent.append(parent)
    n = len(r.ids)
    kids: list[list[str]] = [[] for _ in range(n)]
    for i, p in enumerate(r.parent):
        if p >= 0:
            kids[p].append(r.tags[i])
    path: list[str] = []
    for i in range(n):  # parents come before children
        p = r.parent[i]
        path.append((path[p] if p >= 0 else "") + "/" + r.tags[i])
    child_set = [f"({','.join(sorted(set(k)))})" for k in kids]
    r.keys = {
        "label": list(r.tags),
        "p": [(r.tags[p] + "/" if p >= 0 else "/") + r.tags[i] for i, p in enumerate(r.parent)],
        "p*": path,
        "c": [r.tags[i] + child_set[i] for i in range(n)],
        "p*|c": [path[i] + child_set[i] for i in range(n)],
    }
    r.index = {uid: i for i, uid in enumerate(r.ids)}
    return r


def read_lines(path: Path) -> list[list[str]]:
    return [ln.split() for ln in path.read_text(encoding="utf-8").splitlines()
            if ln.strip() and not ln.startswith("#")]
