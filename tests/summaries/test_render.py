"""Summary views: rows, JSON, DOT, PNG (SR Fig. 2 p* summary)."""

from __future__ import annotations

import json
import re

import numpy as np
import pytest

from graphprum.loading import load_xml
from graphprum.summaries.axpre import build_summary
from graphprum.summaries.render import outline_figure, table_rows, to_dot, to_json, to_png
from tests.support import REPO
from tests.support.summaries import book_table


@pytest.fixture(scope="module")
def plos_table(tmp_path_factory):
    from graphprum.store.local import LocalStore

    store = LocalStore(tmp_path_factory.mktemp("plos") / "s")
    load_xml(store, [REPO / "examples" / "plos" / "articles"])
    return store.table()


@pytest.fixture(scope="module")
def pstar():
    return build_summary(book_table(), "p*", "count")


def test_rows(pstar):
    rows = table_rows(pstar)
    assert [r["sid"] for r in rows] == [f"S{i}" for i in range(1, 8)]
    assert [r["extent"] for r in rows] == [1, 1, 3, 6, 2, 1, 3]
    assert rows[3]["key"] == "/book/fm/description/name"
    assert sum(r["pi"] for r in rows) == pytest.approx(1.0)
    assert rows[2]["pi"] == pytest.approx(11 / 32)


def test_json(pstar):
    data = json.loads(to_json(pstar))
    assert data["axpre"] == "p*" and data["weight"] == "count"
    assert len(data["partitions"]) == 7
    pairs = {(e["src"], e["dst"]): e["count"] for e in data["edges"]}
    assert pairs == {("S1", "S2"): 1, ("S2", "S3"): 3, ("S3", "S4"): 6, ("S3", "S5"): 2,
                     ("S1", "S6"): 1, ("S6", "S7"): 3}


def test_dot(pstar):
    dot = to_dot(pstar)
    assert dot.startswith('digraph "p*" {') and dot.rstrip().endswith("}")
    assert set(re.findall(r"^\s+(S\d+) \[label=", dot, re.M)) == {f"S{i}" for i in range(1, 8)}
    assert len(re.findall(r"->", dot)) == 6
    assert 'S3 -> S4 [label="6", penwidth=6.00]' in dot
    # quotes and backslashes in keys are escaped
    s = build_summary(book_table(), "c")
    s.partitions.loc[0, "key"] = 'a"b\\c'
    assert 'a\\"b\\\\c' in to_dot(s)


def test_png(pstar, tmp_path):
    import matplotlib.image

    out = tmp_path / "s.png"
    assert to_png(pstar, out) == [f"S{i}" for i in range(1, 8)]
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    image = matplotlib.image.imread(out)
    assert image.shape[0] > 300 and image.shape[1] > 300
    assert np.unique(image.reshape(-1, image.shape[2]), axis=0).shape[0] > 10  # not blank
    drawn = to_png(pstar, tmp_path / "top.png", max_nodes=3)
    # π = (2, 4, 11, 6, 2, 4, 3)/32: S3, S4, then the first of the tie S2/S6; with S1, the
    # ancestor of S2 (SR Fig. 5: /bk -> /bk/fm -> /bk/fm/d -> /bk/fm/d/n), in tree order
    assert drawn == ["S1", "S2", "S3", "S4"]


def _boxes_disjoint(fig, texts):
    """Pixel boxes of the non-empty texts; asserts none overlaps another or leaves the figure."""
    renderer = fig.canvas.get_renderer()
    boxes = [t.get_window_extent(renderer) for t in texts if t.get_text()]
    width, height = fig.get_size_inches() * fig.dpi
    for b in boxes:
        assert b.x0 >= 0 and b.y0 >= 0 and b.x1 <= width and b.y1 <= height, b
    for i, a in enumerate(boxes):
        for b in boxes[i + 1:]:
            overlap_x = min(a.x1, b.x1) - max(a.x0, b.x0)
            overlap_y = min(a.y1, b.y1) - max(a.y0, b.y0)
            assert overlap_x <= 0.5 or overlap_y <= 0.5, (a, b)
    return boxes


@pytest.mark.parametrize("axpre", ["label", "p*|c"])
def test_png_outline_plos_readable(axpre, plos_table):
    """The default PNG of a real collection: the 40 partitions of largest π (checked by a
    plain sort of π), each on its own row under its tree parent, no text overlapping."""
    import matplotlib.pyplot as plt

    s = build_summary(plos_table, axpre)
    fig, texts, o = outline_figure(s)
    try:
        pi = s.pi.tolist()
        largest = sorted(range(len(pi)), key=lambda i: (-pi[i], i))[:40]
        assert o.top == set(largest)
        assert set(largest) <= set(o.rows) and len(set(o.rows)) == len(o.rows)
        edges = {(int(a), int(b)) for a, b in s.edges[["src", "dst"]].itertuples(index=False)}
        for row, parent, depth in zip(o.rows, o.parent, o.depth, strict=True):
            if parent >= 0:  # drawn under a real parent partition, one level deeper
                assert (parent, row) in edges and parent in o.rows
                assert o.depth[o.rows.index(parent)] == depth - 1
                assert o.rows.index(parent) < o.rows.index(row)
        boxes = _boxes_disjoint(fig, texts)
        assert len(boxes) >= 5 * len(o.rows)  # SID, label, extent, π (+ pairs) per row
        keys = s.partitions["key"].tolist()
        shown = {t.get_text().strip() for t in texts}
        for n in largest:  # labels fit: a key of up to 48 characters is shown whole
            short = keys[n].rsplit("/", 1)[-1] if axpre == "p*" else keys[n]
            if axpre == "p*|c":
                path, _, rest = keys[n].partition("(")
                short = path.rsplit("/", 1)[-1] + "(" + rest
            assert short in shown or len(short) > 48
    finally:
        plt.close(fig)
