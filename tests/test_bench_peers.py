"""The "Peers" table of ``bench/run_all.py`` (issue 24): each row sets
graphprum's time next to a peer's, with their ratio, from the JSON lines the
benchmark scripts print."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parents[1] / "bench"


@pytest.fixture(scope="module")
def run_all():
    sys.path.insert(0, str(BENCH))
    try:
        import run_all
        yield run_all
    finally:  # run_all puts bench/ on the path too: take every copy off
        sys.path[:] = [p for p in sys.path if p != str(BENCH)]


def cells(table: list[str]) -> list[list[str]]:
    return [[c.strip() for c in line.strip("|").split(" | ")] for line in table[2:]]


LINES = [
    {"_script": "query", "bench": "query_bolt", "query": "count", "units": 100,
     "collection": "c", "embedded_s": 0.5, "falkordb_s": 2.0, "same_rows": False,
     "timing": "whole processes, best of 1"},
    {"_script": "trec_eval", "bench": "peer_eval", "topics": 3, "results": 10,
     "measures": "AP, P@10, nDCG@10", "peer": "ranx", "graphprum_s": 1.0, "peer_s": None,
     "note": "ranx not installed", "timing": "whole processes, best of 1"},
    {"_script": "trec_eval", "bench": "peer_eval", "topics": 3, "results": 10,
     "measures": "AP, P@10, nDCG@10", "peer": "pytrec_eval", "graphprum_s": 1.2,
     "peer_s": 0.4, "timing": "whole processes, best of 1", "date": "2001-02-03"},
    {"_script": "bolt", "bench": "bolt_load", "way": "bulk", "collection": "c",
     "backend": "falkordb", "elements": 10, "seconds": 1.0},
    {"_script": "bolt", "bench": "bolt_load", "way": "merge-bolt", "collection": "c",
     "backend": "falkordb", "elements": 10, "seconds": 4.0},
    {"_script": "bench", "bench": "unrelated", "seconds": 9.0},
]


def test_ratio_is_graphprum_over_peer(run_all):
    rows = cells(run_all.peers(LINES, "2000-01-01"))
    pytrec = next(r for r in rows if r[3].startswith("pytrec_eval"))
    assert pytrec[2:6] == ["1.20 s", "pytrec_eval (`python -c` script)", "0.400 s", "3.00×"]
    assert pytrec[7] == "2001-02-03"  # the line's own date
    bolt = next(r for r in rows if "MERGE" in r[3])
    assert bolt[2] == "1.00 s" and bolt[4] == "4.00 s" and bolt[5] == "0.250×"
    assert "over Bolt" in bolt[3]


def test_missing_peer_and_differing_rows_are_said(run_all):
    rows = cells(run_all.peers(LINES, "2000-01-01"))
    ranx = next(r for r in rows if r[3].startswith("ranx"))
    assert "ranx not installed" in ranx[3] and ranx[4:6] == ["—", "—"]
    assert ranx[7] == "2000-01-01"  # no date in the line: the run's
    query = next(r for r in rows if r[0].startswith("`graphprum query`"))
    assert "rows differ" in query[3] and query[5] == "0.250×"


def test_rows_grouped_by_kind_and_nothing_without_peers(run_all):
    rows = cells(run_all.peers(LINES, "2000-01-01"))
    kinds = ["eval" if "eval" in r[0] else "bolt" if "Bolt" in r[0] else "query"
             for r in rows]
    assert kinds == ["eval", "eval", "bolt", "query"]
    assert run_all.peers([LINES[-1]], "2000-01-01") == []
