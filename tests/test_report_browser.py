"""The HTML report in headless Chromium: it opens with a clean console (no
request, no script error), and the browser lays out every section and
draws every figure (inline SVG), for the bundled PLOS runs.

Skipped when Chromium is not installed (Debian: ``apt-get install chromium``;
``.ci/run`` installs it when it runs as root)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from lxml import html

import graphprum
from tests.summaries.test_explore_browser import CHROMIUM, chromium
from tests.support import PLOS

pytestmark = pytest.mark.skipif(
    CHROMIUM is None, reason="chromium is not installed (Debian: apt-get install chromium), "
                             "so the report is not opened in a browser")


@pytest.fixture(scope="module")
def report(tmp_path_factory) -> Path:
    tmp = tmp_path_factory.mktemp("report")
    store = graphprum.open_store(tmp / "store")
    store.load_xml(PLOS / "articles")
    out = tmp / "report.html"
    graphprum.report([PLOS / "run-bm25.txt", PLOS / "run-sections.txt"], PLOS / "qrels.txt",
                     ["PRUM", "AP"], output=out, nav="structural", store=store)
    return out


def test_the_report_opens_and_draws_its_figures(report, tmp_path) -> None:
    dom = html.fromstring(chromium(report, tmp_path, "", "--dump-dom"))
    sections = dom.xpath("//section/@id")
    assert {"significance"} <= set(sections) and len(sections) >= 3
    figures = dom.xpath("//figure//svg")
    assert figures and all(f.xpath(".//*[local-name()='path']") for f in figures)
    assert "plos-bm25-elements" in dom.text_content() and "plos-sections" in dom.text_content()


def test_the_report_screenshot_is_drawn(report, tmp_path) -> None:
    import matplotlib.image

    shot = tmp_path / "report.png"
    chromium(report, tmp_path, "", "--window-size=1200,1600", f"--screenshot={shot}")
    image = matplotlib.image.imread(shot)
    assert image.shape[:2] == (1600, 1200)
    colours = np.unique((image[..., :3] * 255).astype(np.uint8).reshape(-1, 3), axis=0)
    assert len(colours) > 100  # text and curves, not a blank page
