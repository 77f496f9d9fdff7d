"""The explorer page in headless Chromium: a scripted click shows a partition's details.

The page's hash ``#click=SID`` dispatches a real click event on that
partition's node once the page is drawn; ``--dump-dom`` then prints the DOM,
whose side panel is compared with counts made in plain Python from the
PLOS XML files, the run and the qrels (tests/support/explore_recount.py).  Two
screenshots (1400x900 and 820x1000) are written to $GRAPHPRUM_SCREENSHOTS
(default: the test's temporary directory) to be looked at.

Skipped when Chromium is not installed (Debian: ``apt-get install chromium``).
The browser runs with background networking off and every host name mapped
to nothing; the page itself forbids requests with a Content-Security-Policy.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from collections import Counter
from pathlib import Path

import numpy as np
import pytest
from lxml import html

from graphprum.loading import load_xml
from graphprum.store.local import LocalStore
from graphprum.summaries.explore import read_embedded, unit_ids, write_explorer
from tests.support import REPO
from tests.support.explore_recount import read_lines, recount

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
pytestmark = pytest.mark.skipif(
    CHROMIUM is None, reason="chromium is not installed (Debian: apt-get install chromium), "
                             "so the explorer page is not run in a browser")

PLOS = REPO / "examples" / "plos"
RUN = PLOS / "run-bm25.txt"
QRELS = PLOS / "qrels.txt"
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
         "--disable-component-update", "--disable-sync", "--no-first-run",
         "--host-resolver-rules=MAP * ~NOTFOUND", "--enable-logging=stderr", "--v=0"]


@pytest.fixture(scope="module")
def counted():
    return recount(PLOS / "articles")


@pytest.fixture(scope="module")
def page(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("browser")
    store = LocalStore(tmp / "store")
    load_xml(store, [PLOS / "articles"])
    out = tmp / "explore.html"
    write_explorer(store, "p*", out, run=RUN, qrels=QRELS)
    return out


def chromium(page: Path, tmp: Path, hash_: str, *args: str) -> str:
    """Run Chromium on the page; returns stdout, after checking the console stayed clean."""
    profile = tmp / f"profile-{len(list(tmp.glob('profile-*')))}"
    r = subprocess.run([CHROMIUM, *FLAGS, f"--user-data-dir={profile}", *args,
                        page.as_uri() + "#" + hash_],
                       capture_output=True, text=True, timeout=300, check=False)
    # the page's console only: Chromium's own pages (source chrome://...) log too, e.g.
    # "Slow network is detected" when the machine has no network or is busy
    console = [ln for ln in r.stderr.splitlines()
               if (":CONSOLE" in ln and "source: chrome://" not in ln) or "Refused to" in ln]
    assert r.returncode == 0 and not console, (r.returncode, console, r.stderr[-2000:])
    return r.stdout


def clicked(page: Path, tmp: Path, hash_: str) -> html.HtmlElement:
    """The DOM after the hash's clicks; the first click's partition must be selected
    when it is the only click."""
    dom = html.fromstring(chromium(page, tmp, hash_, "--dump-dom"))
    targets = hash_.split("click=")[1].split("&")[0]
    assert dom.xpath("//body/@data-hook") == [f"clicked {targets}"]
    if "," not in targets:
        assert dom.xpath("//aside[@id='panel']/@data-selected") == [targets]
    return dom


def field(dom: html.HtmlElement, name: str) -> str:
    (text,) = dom.xpath(f"//aside[@id='panel']//*[@data-field='{name}']")
    return text.text_content()


def rows(dom: html.HtmlElement, name: str) -> dict[str, int]:
    return {tr.get("data-sid"): int(tr.get("data-count"))
            for tr in dom.xpath(f"//aside[@id='panel']//table[@data-field='{name}']//tr")}


def sid_of(data: dict, axpre: str, key: str) -> str:
    return f"S{data['summaries'][axpre]['key'].index(key) + 1}"


def test_click_shows_partition_details(page, tmp_path, counted):
    data = read_embedded(page.read_text(encoding="utf-8"))
    key = "/article/body/sec/p"
    sid = sid_of(data, "p*", key)
    dom = clicked(page, tmp_path, f"summary=p*&click={sid}")
    assert field(dom, "key") == key
    assert field(dom, "extent") == f"{counted.extents('p*')[key]:,}"
    assert float(field(dom, "pi")) == pytest.approx(counted.pi("p*")[key], abs=5e-5)
    edges = counted.edges("p*")
    keys = data["summaries"]["p*"]["key"]
    named = {sid_: keys[int(sid_[1:]) - 1] for sid_ in rows(dom, "parents") | rows(dom, "children")}
    assert {named[s]: c for s, c in rows(dom, "parents").items()} == \
        {a: c for (a, b), c in edges.items() if b == key}
    children = {b: c for (a, b), c in edges.items() if a == key}
    assert {named[s]: c for s, c in rows(dom, "children").items()} == \
        dict(Counter(children).most_common(40))
    samples = [c.text_content() for c in
               dom.xpath("//aside[@id='panel']//*[@data-field='samples']//code")]
    assert 1 <= len(samples) <= 5 and len(set(samples)) == len(samples)
    assert all(counted.keys["p*"][counted.index[uid]] == key for uid in samples)
    ids = unit_ids(data["units"])
    assert samples == [ids[k] for k in data["summaries"]["p*"]["samples"][int(sid[1:]) - 1]]
    # refinement: the elements of the p* partition spread over p*|c partitions (the
    # summary compared with by default, the next finer one)
    finer = data["summaries"]["p*|c"]["key"]
    pieces = {finer[int(s[1:]) - 1]: n for s, n in rows(dom, "pieces").items()}
    assert pieces == dict(Counter(b for a, b in zip(counted.keys["p*"], counted.keys["p*|c"],
                                                    strict=True) if a == key))


def test_sr_view_counts_topic_top_k(page, tmp_path, counted):
    """Topic 1, top 10: relevant, retrieved and both, for the p*|c partition holding
    most of the topic's relevant units."""
    data = read_embedded(page.read_text(encoding="utf-8"))
    keys = counted.keys["p*|c"]
    relevant = {uid for t, _, uid, g in read_lines(QRELS) if t == "1" and float(g) > 0}
    ranked = sorted(((float(s), uid) for t, _, uid, _, s, _ in read_lines(RUN) if t == "1"),
                    reverse=True)
    top = [uid for _, uid in ranked[:10]]
    rel_by = Counter(keys[counted.index[u]] for u in relevant)
    key = max(sorted(rel_by), key=lambda k: rel_by[k])
    sid = sid_of(data, "p*|c", key)
    dom = clicked(page, tmp_path, f"summary=p*%7Cc&colour=sr&topic=1&depth=10&click={sid}")
    assert dom.xpath("//aside[@id='panel']/@data-summary") == ["p*|c"]
    in_key = [u for u in top if keys[counted.index[u]] == key]
    assert field(dom, "relevant") == str(rel_by[key])
    assert field(dom, "retrieved") == str(len(in_key))
    assert field(dom, "hits") == str(len([u for u in in_key if u in relevant]))
    assert rel_by[key] > 0


def test_search_label_path_in_label_summary(page, tmp_path, counted):
    """A label path typed in the label summary finds, through p*, the label partitions
    of the elements on that path."""
    query = "/article/back/ref-list"
    dom = html.fromstring(chromium(page, tmp_path, f"summary=label&search={query}",
                                   "--dump-dom"))
    expected = {t for t, path in zip(counted.keys["label"], counted.keys["p*"], strict=True)
                if query in path}
    (head,) = dom.xpath("//aside[@id='panel']//*[@data-field='search']/h3")
    assert head.text_content().startswith(f"{len(expected)} partitions match")
    outlined = dom.xpath("//*[@id='scene']//*[contains(concat(' ', @class, ' '), ' match ')]"
                         "/@data-sid")
    data = read_embedded(page.read_text(encoding="utf-8"))
    assert {data["summaries"]["label"]["key"][int(s[1:]) - 1] for s in outlined} == expected


@pytest.mark.parametrize("size", [(1400, 900), (820, 1000)])
def test_screenshots(page, tmp_path, counted, size):
    import matplotlib.image

    data = read_embedded(page.read_text(encoding="utf-8"))
    where = Path(os.environ.get("GRAPHPRUM_SCREENSHOTS") or tmp_path)
    where.mkdir(parents=True, exist_ok=True)
    shot = where / f"explore-{size[0]}x{size[1]}.png"
    sid = sid_of(data, "p*", "/article/body/sec/p")
    chromium(page, tmp_path, f"summary=p*&click={sid}", f"--window-size={size[0]},{size[1]}",
             f"--screenshot={shot}")
    image = matplotlib.image.imread(shot)
    assert image.shape[:2] == (size[1], size[0])
    colours = np.unique((image[..., :3] * 255).astype(np.uint8).reshape(-1, 3), axis=0)
    assert len(colours) > 200  # drawn, not a blank page


def test_folded_node_unfolds_its_largest(page, tmp_path):
    """Clicking a "+ N more" node shows min(25, N) more partitions, all children (in the
    drawing's tree) of the partition it hangs under."""
    data = read_embedded(page.read_text(encoding="utf-8"))
    tree_parent = data["summaries"]["p*"]["parent"]

    def drawn(dom):
        nodes = {s: None for s in dom.xpath("//*[@id='scene']//*[@data-sid]/@data-sid")}
        folds = {g.get("data-fold"): int(re.sub(r"\D", "", g.xpath(".//text")[0].text_content()))
                 for g in dom.xpath("//*[@id='scene']//*[@data-fold]")}
        return set(nodes), folds

    before, folds = drawn(html.fromstring(chromium(page, tmp_path, "summary=p*", "--dump-dom")))
    under, hidden = max(((s, n) for s, n in folds.items() if s != "roots"),
                        key=lambda x: (x[1], x[0]))
    dom = html.fromstring(chromium(page, tmp_path, f"summary=p*&click=more:{under}",
                                   "--dump-dom"))
    assert dom.xpath("//body/@data-hook") == [f"clicked more:{under}"]
    after, folds_after = drawn(dom)
    new = after - before
    assert before <= after and len(new) == min(25, hidden)
    assert all(tree_parent[int(s[1:]) - 1] == int(under[1:]) - 1 for s in new)
    assert folds_after.get(under, 0) == hidden - len(new)


def test_panel_links_select_parent_and_switch_summary(page, tmp_path, counted):
    data = read_embedded(page.read_text(encoding="utf-8"))
    sid = sid_of(data, "p*", "/article/body/sec/p")
    parent = sid_of(data, "p*", "/article/body/sec")
    dom = clicked(page, tmp_path, f"summary=p*&click={sid},parent:{parent}")
    assert dom.xpath("//aside[@id='panel']/@data-selected") == [parent]
    assert field(dom, "key") == "/article/body/sec"
    # the largest p*|c piece of /article/body/sec/p: a link that switches summary
    pieces = Counter(b for a, b in zip(counted.keys["p*"], counted.keys["p*|c"], strict=True)
                     if a == "/article/body/sec/p")
    key, _ = max(pieces.items(), key=lambda kv: (kv[1], kv[0]))
    piece = sid_of(data, "p*|c", key)
    dom = clicked(page, tmp_path, f"summary=p*&click={sid},piece:{piece}")
    assert dom.xpath("//aside[@id='panel']/@data-summary") == ["p*|c"]
    assert dom.xpath("//aside[@id='panel']/@data-selected") == [piece]
    assert field(dom, "key") == key
    assert field(dom, "extent") == f"{counted.extents('p*|c')[key]:,}"


def _inside(box: list[int], outer: list[int]) -> bool:
    return outer[0] <= box[0] and outer[1] <= box[1] and box[2] <= outer[2] and box[3] <= outer[3]


def _overlap(a: list[int], b: list[int]) -> bool:
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]


@pytest.mark.parametrize("size", [(1400, 900), (820, 1000)])
def test_a_click_keeps_the_root_and_the_partition_in_view(page, tmp_path, size):
    """Opened with click=SID, the page shows the clicked partition and the
    summary's root, neither under the legend nor the status line (issue 41:
    the root sat behind the legend): the boxes the browser laid out."""
    import json

    data = read_embedded(page.read_text(encoding="utf-8"))
    sid = sid_of(data, "p*", "/article/body/sec/p")
    root = sid_of(data, "p*", "/article")
    dom = html.fromstring(chromium(page, tmp_path, f"summary=p*&click={sid}", "--dump-dom",
                                   f"--window-size={size[0]},{size[1]}"))
    boxes = json.loads(dom.xpath("//body/@data-boxes")[0])
    for s in (root, sid):
        box = boxes["nodes"][s]
        assert _inside(box, boxes["svg"]), (s, box, boxes["svg"])
        assert not _overlap(box, boxes["legend"]) and not _overlap(box, boxes["status"]), \
            (s, box, boxes["legend"], boxes["status"])
