"""The summary explorer page (summary show -f html): the data it embeds, recounted.

Expected values come from tests/support/explore_recount.py, which reads the PLOS
articles with lxml and groups elements by the AxPRE definitions in plain
Python; run and qrels files are read with str.split.  The page's script is
exercised in tests/summaries/test_explore_browser.py.
"""

from __future__ import annotations

import re
from collections import Counter

import pytest
from typer.testing import CliRunner

from graphprum.cli import app
from graphprum.loading import load_xml
from graphprum.store.local import LocalStore
from graphprum.summaries.axpre import build_summary
from graphprum.summaries.explore import (
    SAMPLES,
    explorer_data,
    read_embedded,
    render_html,
    unit_ids,
    write_explorer,
)
from graphprum.summaries.stored import build_stored
from graphprum.units import UnitTable
from tests.support import REPO
from tests.support.explore_recount import AXPRES, read_lines, recount

PLOS = REPO / "examples" / "plos"
RUN = PLOS / "run-bm25.txt"
QRELS = PLOS / "qrels.txt"


@pytest.fixture(scope="module")
def counted():
    return recount(PLOS / "articles")


@pytest.fixture(scope="module")
def plos_page(tmp_path_factory):
    """A store holding only the p* summary; the page opens on p*|c (built in memory)."""
    tmp = tmp_path_factory.mktemp("explore")
    store = LocalStore(tmp / "store")
    load_xml(store, [PLOS / "articles"])
    build_stored(store, "p*")
    page = tmp / "explore.html"
    data = write_explorer(store, "p*|c", page, run=RUN, qrels=QRELS)
    return page, data, store


@pytest.fixture(scope="module")
def data(plos_page):
    page, _, _ = plos_page
    return read_embedded(page.read_text(encoding="utf-8"))


def test_page_embeds_every_summary(plos_page, data, counted):
    _, returned, store = plos_page
    assert data == read_embedded(render_html(returned))
    assert list(data["summaries"]) == list(AXPRES)
    assert {n: s["stored"] for n, s in data["summaries"].items()} == \
        {"label": False, "p": False, "p*": True, "c": False, "p*|c": False}
    assert store.summary_names() == ["p*"]  # nothing written to the store
    assert data["first"] == "p*|c"
    assert data["elements"] == len(counted.ids) and data["documents"] == 9
    assert data["store"] == str(store.location)


@pytest.mark.parametrize("axpre", AXPRES)
def test_partitions_edges_pi_recounted(data, counted, axpre):
    s = data["summaries"][axpre]
    keys = s["key"]
    assert len(set(keys)) == len(keys)
    assert dict(zip(keys, s["extent"], strict=True)) == dict(counted.extents(axpre))
    e = s["edges"]
    assert {(keys[a], keys[b]): c for a, b, c in zip(e["src"], e["dst"], e["count"],
                                                     strict=True)} == dict(counted.edges(axpre))
    pi = counted.pi(axpre)
    for key, value in zip(keys, s["pi"], strict=True):
        assert value == pytest.approx(pi[key], rel=1e-9, abs=1e-12)
    assert s["tag"] == [k.split("(")[0].rsplit("/", 1)[-1] for k in keys]


@pytest.mark.parametrize("axpre", AXPRES)
def test_tree_parent_and_depth(data, counted, axpre):
    """Depth: BFS distance from the partitions of root elements; tree parent: the
    in-neighbour one level up with the largest edge count (smallest SID on a tie)."""
    s = data["summaries"][axpre]
    keys = s["key"]
    depth = counted.depths(axpre)
    assert [depth[k] for k in keys] == s["depth"]
    edges = counted.edges(axpre)
    for i, key in enumerate(keys):
        if s["depth"][i] == 0:
            assert s["parent"][i] == -1
            continue
        ups = [(edges[(keys[j], key)], -j) for j in range(len(keys))
               if (keys[j], key) in edges and depth[keys[j]] == depth[key] - 1 and keys[j] != key]
        assert s["parent"][i] == -max(ups)[1]


@pytest.mark.parametrize("axpre", AXPRES)
def test_samples_are_units_of_their_partition(plos_page, data, counted, axpre):
    _, _, store = plos_page
    ids = unit_ids(data["units"])
    s = data["summaries"][axpre]
    keys = counted.keys[axpre]
    every = []
    for i, picks in enumerate(s["samples"]):
        sample = [ids[k] for k in picks]
        assert len(sample) == len(set(sample)) == min(SAMPLES, s["extent"][i])
        assert all(keys[counted.index[uid]] == s["key"][i] for uid in sample)
        every += sample
    assert (store.resolve(every) >= 0).all()  # ids that `graphprum show` accepts


def test_refinements_recounted(data, counted):
    assert [(r["a"], r["b"]) for r in data["refinements"]] == \
        [(a, b) for i, a in enumerate(AXPRES) for b in AXPRES[i + 1:]]
    for r in data["refinements"]:
        ka, kb = data["summaries"][r["a"]]["key"], data["summaries"][r["b"]]["key"]
        got = {(ka[x], kb[y]): n for x, y, n in zip(r["ai"], r["bi"], r["n"], strict=True)}
        assert got == dict(Counter(zip(counted.keys[r["a"]], counted.keys[r["b"]],
                                       strict=True)))
    # p*|c refines p*: every p*|c partition lies in one p* partition
    pair = next(r for r in data["refinements"] if (r["a"], r["b"]) == ("p*", "p*|c"))
    assert len(set(pair["bi"])) == len(pair["bi"])


def test_overlay_units_topics_and_partitions(data, counted):
    ov = data["overlay"]
    assert ov["run"] == str(RUN) and ov["qrels"] == str(QRELS)
    assert ov["run_tag"] == "plos-bm25-elements"
    units = ov["units"]
    run: dict[str, list[tuple[float, str]]] = {}
    for topic, _, uid, _, score, _ in read_lines(RUN):
        run.setdefault(topic, []).append((float(score), uid))
    rel: dict[str, list[list]] = {}
    for topic, _, uid, grade in read_lines(QRELS):
        if float(grade) > 0:
            rel.setdefault(topic, []).append([uid, float(grade)])
    topics = {t["id"]: t for t in ov["topics"]}
    assert set(topics) == set(run) | set(rel)
    for topic, t in topics.items():  # trec_eval order: score, then id, descending
        assert [units[u] for u in t["ret"]] == \
            [uid for _, uid in sorted(run.get(topic, []), reverse=True)]
        assert [[units[u], g] for u, g in t["rel"]] == rel.get(topic, [])
    for axpre in AXPRES:
        keys = data["summaries"][axpre]["key"]
        for uid, m in zip(units, ov["member"][axpre], strict=True):
            assert keys[m] == counted.keys[axpre][counted.index[uid]]
    assert ov["unknown"] == 0


def test_page_is_self_contained(plos_page):
    text = plos_page[0].read_text(encoding="utf-8")
    assert "Content-Security-Policy" in text and "default-src 'none'" in text
    assert not re.search(r"""\b(src|href)\s*=|url\(|@import|https:""", text)
    assert set(re.findall(r"http://[^\s\"']+", text)) == {"http://www.w3.org/2000/svg"}
    assert text.count("</script>") == 2


def test_script_text_in_names_stays_data():
    doc = "x</script><!--y"
    t = UnitTable.from_tree(doc, ["a", "b"], [-1, 0])
    page = render_html(explorer_data(t, {"p*": build_summary(t, "p*")}, "p*"))
    assert page.count("</script>") == 2 and "<!--" not in page
    assert unit_ids(read_embedded(page)["units"]) == [f"{doc}#/a[1]", f"{doc}#/a[1]/b[1]"]


def test_cli_html(tmp_path):
    runner = CliRunner()
    store = tmp_path / "s"
    assert runner.invoke(app, ["--store", str(store), "load", "xml",
                               str(PLOS / "articles")]).exit_code == 0
    out = tmp_path / "e.html"
    r = runner.invoke(app, ["--store", str(store), "summary", "show", "c", "-f", "html", "-o",
                            str(out), "--qrels", str(QRELS)])
    assert r.exit_code == 0, r.output
    assert r.output.strip() == (f"wrote {out}: summaries label, p, p*, c, p*|c "
                                "(label, p, p*, c, p*|c built for the page)")
    data = read_embedded(out.read_text(encoding="utf-8"))
    assert data["first"] == "c" and data["overlay"]["run"] == ""
    for args, message in (
            (["-f", "html"], "--format html needs --output FILE.html"),
            (["-f", "png", "-o", str(tmp_path / "x.png"), "--run", str(RUN)],
             "--run and --qrels go with --format html"),
            (["-f", "html", "-o", str(tmp_path / "y.html"), "--run", str(QRELS)],
             f"{QRELS}:1: ")):
        r = runner.invoke(app, ["--store", str(store), "summary", "show", "p*", *args])
        assert r.exit_code == 2 and len(r.output.strip().splitlines()) == 1, r.output
        assert message in r.output and "Traceback" not in r.output
    assert not (tmp_path / "y.html").exists()


def test_a_weights_file_weights_the_summary_it_names_only(plos_page, tmp_path):
    """A weights file names partitions of one summary (S1, S2 ... of p*); the
    page applied it to every summary (an error naming another summary's
    partitions, or partitions of other summaries silently reweighted)."""
    from graphprum.summaries.explore import collect_summaries

    _, _, store = plos_page
    pstar = build_summary(store.table(), "p*")
    weights = tmp_path / "pstar-w.txt"
    weights.write_text("".join(f"S{a + 1} S{b + 1} {c}\nS{b + 1} S{a + 1} {c}\n"
                               for a, b, c in zip(pstar.edges["src"], pstar.edges["dst"],
                                                  pstar.edges["count"], strict=True)))
    got, _ = collect_summaries(store, str(weights), ("p*", "label", "c"), "p*")
    assert got["p*"].weight == str(weights)
    assert got["p*"].pi == pytest.approx(pstar.reweighted(str(weights), store.table()).pi)
    assert {got[n].weight for n in got if n != "p*"} == {"count"}
    assert got["label"].pi == pytest.approx(build_summary(store.table(), "label").pi)


def test_a_run_of_another_collection_is_refused_and_some_unknown_ids_noted(
        plos_page, tmp_path) -> None:
    """A run of web pages over the PLOS store: before, a page showing
    nothing retrieved, exit 0; now refused as eval refuses it, the page not
    written.  A run with one id of three unknown gets the page and a note."""
    _, _, store = plos_page
    other = tmp_path / "web.run"
    other.write_text("t1 Q0 a.html 1 1 r\nt1 Q0 b.html 2 0.5 r\n")
    page = tmp_path / "page.html"
    runner = CliRunner()
    args = ["--store", str(store.location), "summary", "show", "p*", "-f", "html",
            "-o", str(page), "--run"]
    r = runner.invoke(app, [*args, str(other)])
    assert r.exit_code == 2 and not page.exists()
    assert r.stderr == (f"graphprum: error: {other}: 2 of 2 ids of the run and qrels are not "
                        f"in the store {store.location} (e.g. 'a.html', 'b.html'): overlay the "
                        f"run and qrels of the collection the store holds\n")
    doc = read_lines(RUN)[0][2].split("#")[0]
    mixed = tmp_path / "mixed.run"
    mixed.write_text(f"1 Q0 {doc}#/article[1] 1 1 r\n1 Q0 x.html 2 0.5 r\n"
                     f"1 Q0 {doc}#/article[1]/body[1] 3 0.4 r\n")
    r = runner.invoke(app, [*args, str(mixed)])
    assert r.exit_code == 0 and page.exists()
    assert "note: 1 of 3 ids of the run and qrels are not in the store" in r.stderr
