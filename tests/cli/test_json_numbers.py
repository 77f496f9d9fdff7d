"""JSON carries numbers as numbers (issue 41): no command's JSON holds a
number spelt as text, and ``info``'s degree distributions are objects of
numbers that say what its table's sentence says."""

from __future__ import annotations

import json
import re
import statistics
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from graphprum.cli import app
from tests.support import EXAMPLES

runner = CliRunner()
NUMBER = re.compile(r"[-+]?(\d[\d,]*(\.\d*)?|\.\d+)([eE][-+]?\d+)?")


def numbers_as_text(value: Any, where: str = "") -> list[str]:
    """Every string in ``value`` that is a number (or starts a sentence of them)."""
    if isinstance(value, dict):
        return [w for k, v in value.items() for w in numbers_as_text(v, f"{where}.{k}")]
    if isinstance(value, list):
        return [w for i, v in enumerate(value) for w in numbers_as_text(v, f"{where}[{i}]")]
    if isinstance(value, str) and (NUMBER.fullmatch(value) or re.match(r"\d[\d,]* units;", value)):
        return [f"{where}: {value!r}"]
    return []


@pytest.fixture(scope="module")
def web(tmp_path_factory) -> Path:
    store = tmp_path_factory.mktemp("json") / "web"
    r = runner.invoke(app, ["--store", str(store), "load", "web", str(EXAMPLES / "web" / "site")])
    assert r.exit_code == 0, r.output
    return store


def test_info_degrees_are_numbers(web: Path) -> None:
    data = json.loads(runner.invoke(app, ["--store", str(web), "info", "-f", "json"]).stdout)
    assert numbers_as_text(data) == []
    table = runner.invoke(app, ["--store", str(web), "info", "-f", "table"]).stdout
    for name, numbers in data["degrees"].items():
        assert set(numbers) == {"units", "mean", "median", "p90", "p99", "max"}
        assert all(isinstance(v, int | float) for v in numbers.values())
        line = next(ln for ln in table.splitlines() if ln.startswith(name))
        # the numbers of the sentence (not the 90 of p90), in order
        said = [float(m.group().replace(",", "")) for m in
                re.finditer(r"(?<![\w.])" + NUMBER.pattern, line.split(None, 1)[1])]
        # the table rounds (the mean to 2 decimals, percentiles to 1); json does not
        shown = {"mean": 2, "median": 1, "p90": 1, "p99": 1}
        assert said == [round(float(v), shown.get(k, 0)) for k, v in numbers.items()]
    assert len(data["degrees"]) == 2
    tsv = runner.invoke(app, ["--store", str(web), "info", "-f", "tsv"]).stdout
    assert f"degrees.out-degree.max\t{data['degrees']['out-degree']['max']}" in tsv.splitlines()


def test_info_degrees_keep_full_precision_in_tsv_and_json(web: Path) -> None:
    """The degrees of ``info -f tsv`` and ``-f json`` are those of the LINK
    edges (a query), unrounded: the mean 19.03174603174603 and p99 250.75
    (the table's 19.03 and 250.8 before, docs/formats.md says tsv and json
    keep full precision)."""
    edges = runner.invoke(app, ["--store", str(web), "query", "-f", "tsv",
                                "MATCH (a:Unit)-[:LINK]->(b:Unit) RETURN a.uid, b.uid"]).stdout
    pairs = [line.split("\t") for line in edges.splitlines()[1:]]
    expected = {}
    for name, end in (("out-degree", 0), ("in-degree", 1)):
        degrees = list(Counter(p[end] for p in pairs).values())
        expected[name] = {"units": len(degrees), "mean": statistics.fmean(degrees),
                          "median": statistics.median(degrees),
                          "p90": statistics.quantiles(degrees, n=10, method="inclusive")[8],
                          "p99": statistics.quantiles(degrees, n=100, method="inclusive")[98],
                          "max": max(degrees)}
    assert expected["in-degree"]["p99"] == 250.75  # the site of examples/web
    data = json.loads(runner.invoke(app, ["--store", str(web), "info", "-f", "json"]).stdout)
    tsv = runner.invoke(app, ["--store", str(web), "info", "-f", "tsv"]).stdout.splitlines()
    for name, numbers in expected.items():
        assert data["degrees"][name] == pytest.approx(numbers, rel=1e-12)
        for k, v in numbers.items():
            field = next(ln for ln in tsv if ln.startswith(f"degrees.{name}.{k}\t"))
            assert float(field.split("\t")[1]) == pytest.approx(v, rel=1e-12)


@pytest.mark.parametrize("argv", [
    ["show", "library/os.path.html", "-f", "json"],
    ["nav", "links", "--from", "index.html", "--to", "library/os.path.html", "-f", "json"],
])
def test_other_json_outputs_hold_no_number_as_text(web: Path, argv: list[str]) -> None:
    r = runner.invoke(app, ["--store", str(web), *argv])
    assert r.exit_code == 0, r.output
    assert numbers_as_text(json.loads(r.stdout)) == []
