"""Checks of the shipped example collections and of the benchmark generators.

Element ids are recomputed here independently of the generating scripts: the
INEX path of an element is built from its ancestors, counting preceding
siblings with the same tag, and ids are also resolved with lxml's XPath
engine (whose ``tag[n]`` predicate has exactly the INEX meaning).
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections import defaultdict
from pathlib import Path
from urllib.parse import urldefrag, urljoin, urlsplit

import pytest
from lxml import etree, html

from tests.support import REPO

PLOS = REPO / "examples" / "plos"
WEB = REPO / "examples" / "web"
NS = {"mml": "http://www.w3.org/1998/Math/MathML", "xlink": "http://www.w3.org/1999/xlink"}


def _parse(path: Path) -> etree._ElementTree:
    return etree.parse(str(path), etree.XMLParser(resolve_entities=False, no_network=True,
                                                  load_dtd=False))


def _inex_path(el: etree._Element) -> str:
    steps = []
    while el is not None:
        n = 1 + sum(1 for s in el.itersiblings(preceding=True) if s.tag == el.tag)
        q = etree.QName(el)
        steps.append(f"{el.prefix + ':' if el.prefix else ''}{q.localname}[{n}]")
        el = el.getparent()
    return "/" + "/".join(reversed(steps))


def _element_ids(directory: Path) -> dict[str, etree._ElementTree]:
    ids: dict[str, etree._ElementTree] = {}
    for f in directory.rglob("*.xml"):
        doc = f.relative_to(directory).with_suffix("").as_posix()
        tree = _parse(f)
        for el in tree.iter(etree.Element):
            ids[f"{doc}#{_inex_path(el)}"] = tree
    return ids


def _data_lines(path: Path) -> list[list[str]]:
    return [ln.split() for ln in path.read_text(encoding="utf-8").splitlines()
            if ln.strip() and not ln.startswith("#")]


def _check_run(path: Path, known: set[str] | None, per_topic: tuple[int, int]) -> None:
    rows = _data_lines(path)
    assert rows
    assert all(len(r) == 6 and r[1] == "Q0" for r in rows), path
    assert len({r[5] for r in rows}) == 1, "one tag per file"
    pairs = [(r[0], r[2]) for r in rows]
    assert len(pairs) == len(set(pairs)), "duplicate (topic, id)"
    by_topic: dict[str, list[list[str]]] = defaultdict(list)
    for r in rows:
        by_topic[r[0]].append(r)
    for rs in by_topic.values():
        assert per_topic[0] <= len(rs) <= per_topic[1]
        ranks = [int(r[3]) for r in rs]
        assert ranks == list(range(1, len(rs) + 1))
        scores = [float(r[4]) for r in rs]
        assert scores == sorted(scores, reverse=True)
    if known is not None:
        missing = [r[2] for r in rows if r[2] not in known]
        assert not missing, missing[:5]


@pytest.fixture(scope="module")
def plos_ids() -> dict[str, etree._ElementTree]:
    return _element_ids(PLOS / "articles")


def test_plos_articles_parse_without_dtd() -> None:
    files = sorted((PLOS / "articles").glob("*.xml"))
    assert 6 <= len(files) <= 10
    assert sum(f.stat().st_size for f in files) < 1_600_000
    for f in files:
        p = etree.XMLParser(resolve_entities=False, no_network=True, load_dtd=False)
        tree = etree.parse(str(f), p)
        assert len(p.error_log) == 0, (f, p.error_log)
        assert not [e for e in tree.iter() if isinstance(e, etree._Entity)]
        assert tree.getroot().tag == "article"


def test_plos_has_namespaced_elements(plos_ids: dict) -> None:
    assert any("/mml:math[1]" in uid for uid in plos_ids)


def test_plos_qrels_ids_exist_and_resolve(plos_ids: dict) -> None:
    rows = _data_lines(PLOS / "qrels.txt")
    topics = {r[0] for r in _data_lines(PLOS / "topics.txt")}
    assert 3 <= len(topics) <= 5
    assert all(len(r) == 4 and r[1] == "0" and r[3] in {"0", "1", "2"} for r in rows)
    pairs = [(r[0], r[2]) for r in rows]
    assert len(pairs) == len(set(pairs))
    assert {r[0] for r in rows} == topics
    for topic, uid, _ in ((r[0], r[2], r[3]) for r in rows):
        assert uid in plos_ids, (topic, uid)
        xpath = uid.split("#", 1)[1]
        found = plos_ids[uid].xpath(xpath, namespaces=NS)
        assert len(found) == 1 and _inex_path(found[0]) == xpath
    for t in topics:  # every topic has relevant elements in two articles or more
        docs = {r[2].split("#")[0] for r in rows if r[0] == t and int(r[3]) > 0}
        assert len(docs) >= 2, t


def test_plos_runs(plos_ids: dict) -> None:
    tags = set()
    for name in ("run-bm25.txt", "run-sections.txt"):
        _check_run(PLOS / name, set(plos_ids), (50, 200))
        tags.add(_data_lines(PLOS / name)[0][5])
    assert len(tags) == 2
    big = {"article", "body", "abstract", "sec"}
    for r in _data_lines(PLOS / "run-sections.txt"):
        assert r[2].rsplit("/", 1)[-1].split("[")[0] in big


def test_plos_navigation(plos_ids: dict) -> None:
    out: dict[str, float] = defaultdict(float)
    lines = (PLOS / "nav.tsv").read_text(encoding="utf-8").splitlines()
    assert lines
    for ln in lines:
        f, t, p = ln.split("\t")
        assert f in plos_ids and t in plos_ids and f != t
        assert 0 < float(p) <= 1
        out[f] += float(p)
    assert max(out.values()) <= 0.5 + 1e-9


def _links(page: Path, site: Path) -> list[str]:
    """Page links as site-relative paths; None for links leaving the site."""
    base = "http://site.invalid/" + page.relative_to(site).as_posix()
    out = []
    for href in html.parse(str(page)).xpath("//a/@href"):
        if href.startswith("/") or urlsplit(href).scheme:
            continue
        url = urldefrag(urljoin(base, href))[0]
        if url.startswith("http://site.invalid/") and url.endswith(".html"):
            out.append(url[len("http://site.invalid/"):])
    return out


def test_web_subset_links_and_ids() -> None:
    site = WEB / "site"
    pages = {p.relative_to(site).as_posix() for p in site.rglob("*.html")}
    assert 100 <= len(pages) <= 300
    assert sum((site / p).stat().st_size for p in pages) < 4_200_000
    inside, dangling = 0, 0
    graph: dict[str, set[str]] = defaultdict(set)
    for p in pages:
        for link in _links(site / p, site):
            if link in pages:
                inside += 1
                graph[p].add(link)
            else:
                dangling += 1
    print(f"web subset: {inside} links inside, {dangling} dangling")
    assert inside > 1000
    linked = set().union(*graph.values())
    assert pages - linked <= {"index.html"}, sorted(pages - linked)[:5]
    reach, todo = {"index.html"}, ["index.html"]
    while todo:
        for q in graph[todo.pop()] - reach:
            reach.add(q)
            todo.append(q)
    qrels = _data_lines(WEB / "qrels.txt")
    assert all(r[2] in pages for r in qrels)
    assert {r[2] for r in qrels if int(r[3]) > 0} <= reach
    for name in ("run-hubs.txt", "run-deep.txt"):
        _check_run(WEB / name, pages, (50, 200))
    # the hub run never returns an answer (the docs say navigation must carry the user)
    answers = {(r[0], r[2]) for r in qrels if int(r[3]) > 0}
    assert not answers & {(r[0], r[2]) for r in _data_lines(WEB / "run-hubs.txt")}


def _gen(out: Path, n: int, seed: int) -> dict:
    res = subprocess.run([sys.executable, str(REPO / "bench" / "gen_collection.py"), str(out),
                          "--articles", str(n), "--seed", str(seed)],
                         check=True, capture_output=True, text=True)
    return json.loads(res.stdout)


def _snapshot(d: Path) -> dict[str, bytes]:
    return {p.relative_to(d).as_posix(): p.read_bytes() for p in sorted(d.rglob("*.xml"))}


def test_generator_deterministic_and_well_formed(tmp_path: Path) -> None:
    a, b, c = tmp_path / "a", tmp_path / "b", tmp_path / "c"
    info = _gen(a, 30, 7)
    _gen(b, 30, 7)
    _gen(c, 30, 8)
    sa = _snapshot(a)
    assert sa == _snapshot(b)
    assert sa != _snapshot(c)
    assert info["files"] == len(sa) == 30
    assert info["bytes"] == sum(len(v) for v in sa.values())
    ids = _element_ids(a)
    assert info["elements"] == len(ids)
    depth = max(uid.count("/") for uid in ids) - 1  # the doc part holds one "/"
    assert 5 <= depth <= 10
    for f in a.rglob("*.xml"):
        for href in _parse(f).xpath("//collectionlink/@xlink:href", namespaces=NS):
            assert (f.parent / href).resolve().is_file()


def test_gen_runs_passages_match_text(tmp_path: Path) -> None:
    coll, out = tmp_path / "coll", tmp_path / "runs"
    _gen(coll, 40, 3)
    cmd = [sys.executable, str(REPO / "bench" / "gen_runs.py"), str(coll), str(out),
           "--topics", "4", "--runs", "2", "--k", "60", "--seed", "5"]
    subprocess.run(cmd, check=True, capture_output=True)
    first = {p.name: p.read_bytes() for p in out.iterdir()}
    subprocess.run(cmd, check=True, capture_output=True)
    assert first == {p.name: p.read_bytes() for p in out.iterdir()}
    ids = _element_ids(coll)
    qrels = _data_lines(out / "qrels.txt")
    assert all(r[2] in ids for r in qrels)
    texts = {}
    for f in coll.rglob("*.xml"):
        root = _parse(f).getroot()
        texts[f.relative_to(coll).with_suffix("").as_posix()] = "".join(root.itertext())
    ideal = defaultdict(set)
    for r in qrels:
        if r[3] == "2":
            doc, xpath = r[2].split("#", 1)
            el = ids[r[2]].xpath(xpath)[0]
            ideal[(r[0], doc)].add("".join(el.itertext()))
    spans = [r for r in _data_lines(out / "passages.txt") if r[2] != "BEP"]
    assert spans
    for t, doc, s, e in spans:
        assert texts[doc][int(s):int(e)] in ideal[(t, doc)]
    for name in ("run-01.txt", "run-02.txt"):
        _check_run(out / name, set(ids), (1, 60))
