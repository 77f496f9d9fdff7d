"""Figures: curve measure names, curves drawn from the right numbers, file types."""

from __future__ import annotations

import struct
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from lxml import etree

from graphprum.errors import UsageError
from graphprum.plots import (
    curve_measures,
    figure_svg,
    is_curve,
    plot_curves,
    plot_per_topic,
    save_figure,
)


def curve_frame(runs: dict[str, list[float]], kind: str, ks: list[int] | None = None,
                topics: tuple[str, ...] = ("t1", "t2")) -> pd.DataFrame:
    """Per-topic curves: topic i gets the run's curve times (1 + i) / len(topics)."""
    rows = []
    names = curve_measures(kind, ks)
    for run, curve in runs.items():
        assert len(curve) == len(names)
        per = []
        for i, t in enumerate(topics):
            vals = [v * (1 + i) / len(topics) for v in curve]
            per.append(vals)
            rows += [(run, m, t, v) for m, v in zip(names, vals, strict=True)]
        rows += [(run, m, "all", float(np.mean([p[j] for p in per])))
                 for j, m in enumerate(names)]
    return pd.DataFrame(rows, columns=["run", "measure", "topic", "value"])


def test_curve_measure_names() -> None:
    assert curve_measures("PRUM") == [f"PRUM@{x}" for x in
                                      ("0.0", "0.1", "0.2", "0.3", "0.4", "0.5", "0.6",
                                       "0.7", "0.8", "0.9", "1.0")]
    assert curve_measures("EPRUM(A=0.1)")[5] == "EPRUM(A=0.1)@0.5"
    assert curve_measures("ep")[-1] == "ep@1.0"
    assert curve_measures("nxCG") == [f"nxCG@{k}" for k in range(1, 51)]
    assert curve_measures("gP", ks=[1, 5, 10]) == ["gP@1", "gP@5", "gP@10"]
    assert is_curve("T2I-PR") and not is_curve("AP") and not is_curve("PRUM@0.5")
    with pytest.raises(UsageError, match=r"PRUM@0\.5 has a cutoff, a curve has none: give PRUM"):
        curve_measures("PRUM@0.5")
    with pytest.raises(UsageError, match="no curve for 'MAP'"):
        curve_measures("MAP")
    with pytest.raises(UsageError, match=">= 1"):
        curve_measures("gP", ks=[0, 5])
    # r=K is one point (precision at integer recall K): no curve, and the error says so
    # in the user's words (before: 'measure PRUM(r=3)@0.0: give either r=K or @L')
    assert not is_curve("PRUM(r=3)") and not is_curve("PRUM(exact=enum,r=1)")
    with pytest.raises(UsageError, match=r"^PRUM\(r=3\) has no curve \(r=3 names one point "
                                         r"of it\); use -m PRUM$"):
        curve_measures("PRUM(r=3)")
    with pytest.raises(UsageError, match=r"use -m PRUM\(exact=enum\)$"):
        curve_measures("PRUM(exact=enum,r=1)")
    assert curve_measures("PRUM(exact=enum)") == [f"PRUM(exact=enum)@{i / 10:.1f}"
                                                  for i in range(11)]


def test_the_exact_prum_curve_is_drawn_from_its_own_values(tmp_path: Path) -> None:
    """PRUM(exact=enum), no r: its curve.  Classical matching, by hand: topic 1 has its
    one relevant unit at rank 2 (precision 1/2 at every level); topic 2 ranks a, x, b
    (1 at recall 1/2, 2/3 at recall 1): the mean 3/4 up to level 0.5, then 7/12.  One
    uncertain move c -> a (0.9995) before a, the only relevant unit: E[CL]/E[C] =
    1 / 1.0005 at every level (test_prum_family's hand value)."""
    import graphprum

    (tmp_path / "q").write_text("1 0 a 1\n2 0 a 1\n2 0 b 1\n")
    (tmp_path / "r").write_text("1 Q0 x 1 3 r\n1 Q0 a 2 2 r\n"
                                "2 Q0 a 1 3 r\n2 Q0 x 2 2 r\n2 Q0 b 3 1 r\n")
    fig = graphprum.plot([tmp_path / "r"], tmp_path / "q", "PRUM(exact=enum)")
    (line,) = fig.axes[0].get_lines()
    assert np.allclose(line.get_xdata(), np.arange(11) / 10)
    assert line.get_ydata().tolist() == pytest.approx([3 / 4] * 6 + [7 / 12] * 5, abs=1e-12)
    (tmp_path / "nav").write_text("c\ta\t0.9995\n")
    (tmp_path / "q1").write_text("1 0 a 1\n")
    (tmp_path / "r1").write_text("1 Q0 c 1 2 r\n1 Q0 a 2 1 r\n")
    fig = graphprum.plot([tmp_path / "r1"], tmp_path / "q1", "PRUM(exact=enum)",
                         nav=[f"direct:{tmp_path / 'nav'}"])
    assert fig.axes[0].get_lines()[0].get_ydata().tolist() == pytest.approx(
        [1 / 1.0005] * 11, abs=1e-12)


def test_precision_recall_curves_plot_the_given_values() -> None:
    a = [1.0, 0.9, 0.8, 0.7, 0.6, 0.5, 0.4, 0.3, 0.2, 0.1, 0.0]
    b = [0.5] * 11
    c = [0.9, 0.9, 0.9, 0.5, 0.5, 0.5, 0.5, 0.2, 0.2, 0.2, 0.2]
    fig = plot_curves(curve_frame({"A": a, "B": b, "C": c}, "PRUM"), ["PRUM"])
    (ax,) = fig.axes
    lines = ax.get_lines()
    assert len(lines) == 3
    # mean over topics t1 (x 1/2) and t2 (x 1) = 3/4 of each curve
    for line, curve in zip(lines, (a, b, c), strict=True):
        assert np.allclose(line.get_xdata(), np.arange(11) / 10)
        assert np.allclose(line.get_ydata(), 0.75 * np.array(curve))
    labels = [t.get_text() for t in ax.get_legend().get_texts()]
    assert labels == [f"A (mean {0.75 * np.mean(a):.4f})", f"B (mean {0.375:.4f})",
                      f"C (mean {0.75 * np.mean(c):.4f})"]
    assert ax.get_xlabel() == "recall level" and fig.get_suptitle() == "mean over 2 topics"
    # one topic: that topic's curve
    fig = plot_curves(curve_frame({"A": a, "B": b}, "PRUM"), ["PRUM"], topic="t1",
                      runs=["B", "A"])
    ys = [line.get_ydata() for line in fig.axes[0].get_lines()]
    assert np.allclose(ys[0], 0.25) and np.allclose(ys[1], 0.5 * np.array(a))
    assert fig.get_suptitle() == "topic t1"


def test_gain_curves_over_ranks_and_two_panels() -> None:
    ks = [1, 2, 5, 10, 20, 50]
    gain = curve_frame({"A": [0.1, 0.2, 0.3, 0.4, 0.5, 0.6], "B": [0.2] * 6}, "nxCG", ks)
    pr = curve_frame({"A": [0.3] * 11, "B": [0.4] * 11}, "PRUM")
    fig = plot_curves(pd.concat([gain, pr]), ["nxCG", "PRUM"], ks=ks)
    assert len(fig.axes) == 2
    g, p = fig.axes
    assert [len(ax.get_lines()) for ax in fig.axes] == [2, 2]
    assert list(g.get_lines()[0].get_xdata()) == ks
    assert np.allclose(g.get_lines()[0].get_ydata(), 0.75 * np.array([.1, .2, .3, .4, .5, .6]))
    assert g.get_xlabel() == "rank k" and p.get_xlabel() == "recall level"
    assert [t.get_text() for t in g.get_legend().get_texts()] == ["A", "B"]


def test_plot_errors() -> None:
    df = curve_frame({"A": [0.3] * 11}, "PRUM")
    with pytest.raises(UsageError, match="topic 'nope' is not in the results; topics: t1, t2"):
        plot_curves(df, ["PRUM"], topic="nope")
    with pytest.raises(UsageError, match="no value of nxCG@1"):
        plot_curves(df, ["nxCG"])
    with pytest.raises(UsageError, match="no curve to plot"):
        plot_curves(df, [])


def png_size(path: Path) -> tuple[int, int]:
    data = path.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n" and data[12:16] == b"IHDR"
    return struct.unpack(">II", data[16:24])


def test_saved_files_have_the_right_type_and_size(tmp_path: Path) -> None:
    df = curve_frame({"A": [0.3] * 11, "B": [0.5] * 11}, "PRUM")
    fig = plot_curves(df, ["PRUM"])
    save_figure(fig, tmp_path / "f.png")
    w, h = png_size(tmp_path / "f.png")
    assert (w, h) == (round(6.4 * 150), round(4.8 * 150))  # 6.4 x 4.8 in at 150 dpi
    save_figure(fig, tmp_path / "f.svg")
    root = etree.parse(str(tmp_path / "f.svg")).getroot()
    assert root.tag == "{http://www.w3.org/2000/svg}svg"
    assert root.get("width") == "460.8pt" and root.get("height") == "345.6pt"
    save_figure(fig, tmp_path / "f.pdf")
    pdf = (tmp_path / "f.pdf").read_bytes()
    assert pdf.startswith(b"%PDF-") and pdf.rstrip().endswith(b"%%EOF")
    assert b"/MediaBox [ 0 0 460.8 345.6 ]" in pdf
    with pytest.raises(UsageError, match=r"figure type '\.jpg' unknown"):
        save_figure(fig, tmp_path / "f.jpg")
    with pytest.raises(UsageError, match="cannot write"):
        save_figure(fig, tmp_path / "no" / "dir" / "f.png")


def test_per_topic_figure_and_inline_svg() -> None:
    df = pd.DataFrame([("a", "AP", "q1", .2), ("a", "AP", "q2", .6), ("a", "AP", "q3", .4),
                       ("b", "AP", "q1", .4), ("b", "AP", "q2", .1), ("b", "AP", "q3", .3),
                       ("a", "AP", "all", .4), ("b", "AP", "all", .8 / 3)],
                      columns=["run", "measure", "topic", "value"])
    fig = plot_per_topic(df, "AP")
    ax = fig.axes[0]
    assert [t.get_text() for t in ax.get_xticklabels()] == ["q2", "q3", "q1"]
    a, b = ax.get_lines()
    assert list(a.get_ydata()) == [.6, .4, .2] and list(b.get_ydata()) == [.1, .3, .4]
    svg = figure_svg(fig)
    root = etree.fromstring(svg.encode())
    assert root.tag == "{http://www.w3.org/2000/svg}svg"
    texts = "".join(root.itertext())
    assert "AP per topic" in texts and "q2" in texts  # text kept as text
    assert "http://purl.org" not in svg and "<!DOCTYPE" not in svg
    with pytest.raises(UsageError, match="no per-topic values of P@5"):
        plot_per_topic(df, "P@5")


def test_titles_name_the_navigation_model() -> None:
    a = [1.0 - i / 10 for i in range(11)]
    df = curve_frame({"A": a}, "PRUM")
    fig = plot_curves(df, ["PRUM"], nav=["structural"])
    assert fig.get_suptitle() == "mean over 2 topics; navigation: structural"
    fig = plot_curves(df, ["PRUM"], topic="t1", nav=["links:hops=2", "bep"])
    assert fig.get_suptitle() == "topic t1; navigation: links:hops=2 + bep (noisy-or)"
    assert plot_curves(df, ["PRUM"], nav=["t2i"], title="mine").get_suptitle() == "mine"
    per = pd.DataFrame([("A", "AP", "q1", 0.5), ("A", "AP", "q2", 0.2)],
                       columns=["run", "measure", "topic", "value"])
    assert plot_per_topic(per, "AP", nav=["classical"]).axes[0].get_title() == \
        "AP per topic (navigation: classical)"
