"""What a small ``graphprum eval`` loads, and the command list.

A one-line eval imports the evaluation and what its measures need, and none
of the libraries only other commands use: pandas (the API's DataFrames,
comparisons, summaries), scipy.stats, matplotlib, the neo4j driver,
LadybugDB, networkx, pyarrow.compute's wrappers; and a classical eval (the classical model, measures
without structure) loads no scipy at all (scipy.sparse and scipy.special
cost it more than numpy itself) and no lxml (TREC runs and qrels are
text).  The commands run as processes (a module imported by the test
process itself must not hide one the command imports) with
``sys.modules`` read at exit.  How long they take is measured by
``bench/startup.py``, not here.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

#: Libraries no small eval needs (pyarrow.compute: 50 ms of wrappers, where
#: the run reader calls its kernels through graphprum.arrow_compute).
HEAVY = ("pandas", "scipy.stats", "matplotlib", "neo4j", "ladybug", "networkx", "pydantic",
         "pyarrow.compute")

#: What an eval under the classical model needs neither (its PRUM reads the
#: ranking; lxml reads XML runs, XML documents and X-Rai assessments only).
CLASSICAL_HEAVY = (*HEAVY, "scipy", "lxml")

#: Runs the command line in this process and prints the heavy modules it loaded.
_PROBE = """
import json, sys
heavy = {heavy!r}
sys.argv = ["graphprum", *json.loads(sys.argv[1])]
from graphprum.cli import main
try:
    main()
except SystemExit as exc:
    code = exc.code
print(json.dumps({{"code": code, "loaded": sorted(m for m in heavy if m in sys.modules)}}))
"""

#: The commands and groups of ``graphprum --help``, in order.
COMMANDS = ["info", "show", "nav", "measures", "eval", "compare", "plot", "report", "query",
            "copy", "load", "server", "summary"]


def loaded_by(args: list[str], cwd: Path, heavy: tuple[str, ...] = HEAVY) -> list[str]:
    """The modules of ``heavy`` that ``graphprum ARGS`` loads, run in ``cwd``."""
    proc = subprocess.run([sys.executable, "-c", _PROBE.format(heavy=heavy), json.dumps(args)],
                          cwd=cwd, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    report = json.loads(proc.stdout.strip().splitlines()[-1])
    assert report["code"] in (0, None), proc.stderr
    return report["loaded"]


@pytest.fixture
def one_line(tmp_path: Path) -> Path:
    (tmp_path / "run").write_text("1 Q0 a#/article[1]/p[1] 1 1.0 r\n")
    (tmp_path / "qrels").write_text("1 0 a#/article[1]/p[1] 1\n")
    return tmp_path


@pytest.fixture
def with_store(one_line: Path) -> Path:
    """``one_line`` with the default store (./graphprum-store) holding the run's article."""
    (one_line / "col").mkdir()
    (one_line / "col" / "a.xml").write_text("<article><p>one</p><p>two</p></article>")
    script = Path(sys.executable).parent / "graphprum"
    subprocess.run([str(script), "load", "xml", "col"], cwd=one_line, check=True,
                   capture_output=True, timeout=120)
    assert (one_line / "graphprum-store").is_dir()
    return one_line


def test_prum_eval_without_store_loads_no_library_of_other_commands(one_line: Path) -> None:
    assert loaded_by(["eval", "run", "--qrels", "qrels", "--no-store"], one_line,
                     CLASSICAL_HEAVY) == []


def test_eval_with_the_default_store_loads_no_library_of_other_commands(
        with_store: Path) -> None:
    # the store in the working directory is opened (N of DESIGN §1.4 comes from it)
    assert loaded_by(["eval", "run", "--qrels", "qrels", "-m", "PRUM", "-m", "AP", "-q"],
                     with_store, CLASSICAL_HEAVY) == []


def test_structural_eval_loads_scipy_sparse_not_pandas(with_store: Path) -> None:
    got = loaded_by(["eval", "run", "--qrels", "qrels", "--nav", "structural"], with_store,
                    (*HEAVY, "scipy.sparse"))
    assert got == ["scipy.sparse"]


@pytest.mark.parametrize("args", [["--help"], ["--help", "eval"], ["-s", "x", "--help", "load"]])
def test_the_help_lists_every_command_in_order(args: list[str], tmp_path: Path) -> None:
    script = Path(sys.executable).parent / "graphprum"
    proc = subprocess.run([str(script), *args], cwd=tmp_path, capture_output=True, text=True,
                          timeout=120, env={**os.environ, "COLUMNS": "120"})
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.split("Commands:", 1)[1].splitlines()
    listed = [ln.split()[0] for ln in lines if ln.startswith("  ") and ln.split()]
    assert [w for w in listed if w in COMMANDS] == COMMANDS
