"""What a small ``graphprum eval`` loads (issue 24, start-up).

An eval of a one-line run imports only what its measures need: a PRUM eval
neither pandas, lxml, rich, matplotlib, the neo4j driver nor LadybugDB.  The
commands run as processes (a module imported by the test process itself must
not hide one the command imports) with ``sys.modules`` read at exit.  How
long they take is measured by ``bench/startup.py``, not here.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

#: Libraries no small PRUM eval needs (numpy, scipy, pytrec_eval and
#: ir_measures come with the measures, imported plainly: issue 37).
HEAVY = ("pandas", "matplotlib", "neo4j", "lxml", "ladybug", "rich", "networkx", "pydantic")

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


def loaded_by(args: list[str], cwd: Path) -> list[str]:
    """The heavy modules ``graphprum ARGS`` loads, run in ``cwd``."""
    proc = subprocess.run([sys.executable, "-c", _PROBE.format(heavy=HEAVY), json.dumps(args)],
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


def test_prum_eval_without_store_loads_no_heavy_library(one_line: Path) -> None:
    assert loaded_by(["eval", "run", "--qrels", "qrels", "--no-store"], one_line) == []


def test_prum_eval_with_the_default_store_loads_no_heavy_library(with_store: Path) -> None:
    # the store in the working directory is opened (N of DESIGN §1.4 comes from it)
    assert loaded_by(["eval", "run", "--qrels", "qrels", "-m", "PRUM", "-m", "PRUM@0.5",
                      "-q"], with_store) == []


def test_structural_eval_loads_scipy_not_pandas(with_store: Path) -> None:
    # a navigation matrix is a scipy array; still no DataFrame on the way
    assert loaded_by(["eval", "run", "--qrels", "qrels", "--nav", "structural"],
                     with_store) == []


#: Imports the navigation models (which import scipy), then reports which of
#: numpy's rarely used submodules ran, and uses each of them.
_LAZY_PROBE = """
import json, sys
import graphprum.navigation.structural
ran = [m for m in ("numpy.f2py", "numpy.testing", "numpy.ma", "numpy.polynomial")
       if type(sys.modules.get(m)).__name__ != "_LazyModule"]
import numpy, numpy.testing
numpy.testing.assert_allclose(numpy.ma.masked_array([1.0, 5.0], mask=[0, 1]).sum(), 1.0)
roots = sorted(numpy.polynomial.Polynomial([-1, 0, 1]).roots().tolist())
import pandas
print(json.dumps({"ran": ran, "roots": roots, "frame": int(pandas.DataFrame({"a": [1]}).a[0]),
                  "f2py": hasattr(numpy.f2py, "run_main")}))
"""


def test_scipy_does_not_run_numpy_modules_nobody_uses() -> None:
    """Importing scipy.sparse ran numpy.f2py, numpy.testing, numpy.ma and
    numpy.polynomial (about 60 ms) through scipy's copy of numpy's namespace;
    they stay unloaded until used, and work when they are."""
    proc = subprocess.run([sys.executable, "-c", _LAZY_PROBE], capture_output=True, text=True,
                          timeout=120)
    assert proc.returncode == 0, proc.stderr
    report = json.loads(proc.stdout.strip().splitlines()[-1])
    assert report == {"ran": [], "roots": [-1.0, 1.0], "frame": 1, "f2py": True}


#: Runs the installed script's entry point with a hook that reports the
#: interpreter's teardown (atexit handlers run only on a normal exit).
_SCRIPT_PROBE = """
import atexit, json, sys
atexit.register(lambda: print("TEARDOWN", file=sys.stderr))
sys.argv = ["graphprum", *json.loads(sys.argv[1])]
from graphprum.cli import script
script()
"""


def _script(args: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-c", _SCRIPT_PROBE, json.dumps(args)], cwd=cwd,
                          capture_output=True, text=True, timeout=120)


def test_eval_ends_without_teardown_and_prints_everything(tmp_path: Path) -> None:
    """After ``eval`` has written its table the script leaves at once (no
    atexit handler runs), and the table is whole: every topic's row, as the
    in-process ``main()`` prints it.  An error still leaves the usual way."""
    topics = 40
    with open(tmp_path / "run", "w") as r, open(tmp_path / "qrels", "w") as q:
        for t in range(1, topics + 1):
            for i in range(50):
                r.write(f"{t} Q0 d{t}-{i} {i + 1} {50 - i} sys\n")
            q.write(f"{t} 0 d{t}-{t % 7} 1\n")
    args = ["eval", "run", "--qrels", "qrels", "--no-store", "-m", "PRUM", "-m", "AP", "-q"]
    fast = _script(args, tmp_path)
    assert fast.returncode == 0, fast.stderr
    assert "TEARDOWN" not in fast.stderr
    slow = subprocess.run([sys.executable, "-c", _PROBE.format(heavy=HEAVY), json.dumps(args)],
                          cwd=tmp_path, capture_output=True, text=True, timeout=120)
    table = slow.stdout.strip().splitlines()[:-1]  # the probe's own report is last
    assert fast.stdout.strip().splitlines() == table
    assert len(table) == 2 * (topics + 1)
    bad = _script(["eval", "nosuchrun", "--qrels", "qrels", "--no-store"], tmp_path)
    assert bad.returncode == 2 and "TEARDOWN" in bad.stderr
    assert "nosuchrun" in bad.stderr and "Traceback" not in bad.stderr


#: Runs the command line in this process and prints the graphprum modules it loaded.
_MODULES_PROBE = """
import json, sys
sys.argv = ["graphprum", *json.loads(sys.argv[1])]
from graphprum.cli import main
try:
    main()
except SystemExit as exc:
    pass
print(json.dumps(sorted(m for m in sys.modules if m.startswith("graphprum."))))
"""


def modules_of(args: list[str], cwd: Path) -> list[str]:
    proc = subprocess.run([sys.executable, "-c", _MODULES_PROBE, json.dumps(args)],
                          cwd=cwd, capture_output=True, text=True, timeout=120)
    return json.loads(proc.stdout.strip().splitlines()[-1])


def test_a_command_imports_its_own_module_of_commands_only(one_line: Path) -> None:
    from graphprum.cli import COMMANDS

    loaded = modules_of(["eval", "run", "--qrels", "qrels", "--no-store", "-m", "AP"], one_line)
    commands = sorted(m for m in loaded if m.removeprefix("graphprum.cli.") in COMMANDS.values())
    # eval's help lists the measures (graphprum.cli.measures)
    assert commands == ["graphprum.cli.evaluate", "graphprum.cli.measures"]
    # global options and their values before the command are skipped
    loaded = modules_of(["--store", "eval", "-q", "info"], one_line)
    assert [m for m in loaded if m.removeprefix("graphprum.cli.") in COMMANDS.values()] == \
        ["graphprum.cli.browse"]


def test_the_index_of_commands_is_what_the_modules_add() -> None:
    """COMMANDS names every command and group the modules register, each
    with its module; ``graphprum --help`` lists them in that order, even
    in a process that imported one of the modules first."""
    probe = ("import json, importlib; import graphprum.cli.query; from graphprum.cli import app; "
             "import typer.main; "
             "found = [(c.name or c.callback.__name__, c.callback.__module__) "
             "for c in app.registered_commands]; "
             "found += [(g.name, g.typer_instance.registered_commands[0].callback.__module__) "
             "for g in app.registered_groups]; "
             "print(json.dumps([found, list(typer.main.get_group(app).list_commands(None))]))")
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                         check=True, timeout=120).stdout
    found, listed = json.loads(out)
    from graphprum.cli import COMMANDS

    assert [[n, f"graphprum.cli.{m}"] for n, m in COMMANDS.items()] == found
    assert listed == list(COMMANDS)


@pytest.mark.parametrize("args", [["--help"], ["--help", "eval"], ["-s", "x", "--help", "load"]])
def test_the_help_lists_every_command(args: list[str], tmp_path: Path) -> None:
    from graphprum.cli import COMMANDS

    proc = subprocess.run([sys.executable, "-c", _SCRIPT_PROBE, json.dumps(args)], cwd=tmp_path,
                          capture_output=True, text=True, timeout=120,
                          env={**os.environ, "COLUMNS": "120"})
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.split("Commands:", 1)[1].splitlines()
    listed = [ln.split()[0] for ln in lines if ln.startswith("  ") and ln.split()]
    assert [w for w in listed if w in COMMANDS] == list(COMMANDS)
