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


def test_outline_layout_positions_by_hand():
    """The PNG's layout of a two-partition p* summary (/a over /a/b, π ½ each,
    2 element pairs), computed without matplotlib: with a character 0.6 × 9 pt
    = 0.075 in wide, the columns are SID 3, partition 9, extent 6, pairs 5 and
    π 6 characters wide, 3 apart, from 0.3 in; rows 0.25 in apart below the
    heads at 0.75 in."""
    from graphprum.summaries.render import _layout
    from graphprum.units import UnitTable

    s = build_summary(UnitTable.from_tree("d", ["a", "b", "b"], [-1, 0, 0], [4, 1, 3]), "p*")
    lay = _layout(s, 40, None, None)
    assert lay.outline.rows == [0, 1] and lay.outline.parent == [-1, 0]
    assert lay.cells == [["S1", "a", "1", "", "0.5000"], ["S2", "  b", "2", "2", "0.5000"]]
    # left ends of SID and partition; right ends of extent (1.65 + 6 chars), pairs, π
    assert lay.text_x == pytest.approx([0.3, 0.75, 2.1, 2.7, 3.375])
    assert lay.rule_end == pytest.approx(3.45 + 1.6)  # the bars start 1 character after π
    assert lay.width == 7.0  # the least width (the table needs 5.35 in)
    assert lay.head_y == 0.75 and lay.row_y == pytest.approx([1.0, 1.25])
    assert lay.height == pytest.approx(0.75 + 0.25 * 3 + 0.25 + 0.2)  # one note
    # both π are the largest: full 1.6 in bars, 0.6 of a row high, centred on the row
    assert [tuple(b) for b in lay.bars] == [pytest.approx((3.45, 0.925, 1.6, 0.15)),
                                            pytest.approx((3.45, 1.175, 1.6, 0.15))]
    # b's elbow: from under a's row down to b's, half a character left of b's indent
    assert lay.elbows[0] is None
    xs, ys = lay.elbows[1]
    assert xs == pytest.approx([0.7875, 0.7875, 0.8775])
    assert ys == pytest.approx([1.0875, 1.25, 1.25])
    assert lay.title == "p* summary: the 2 partitions of largest π"
    [(note_y, note)] = lay.notes
    assert note_y == pytest.approx(1.95 - 0.25) and note.startswith("π: steady state")
