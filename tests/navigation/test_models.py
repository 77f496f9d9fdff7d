"""Navigation models classical, structural[:words], direct:, walk:, log: (DESIGN §1.5)."""

from __future__ import annotations

import re

import numpy as np
import pandas as pd
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st

from graphprum.context import TopicContext
from graphprum.errors import InputError, UsageError
from graphprum.navigation.base import combine, parse_model
from graphprum.navigation.structural import structural_probabilities
from graphprum.store.memory import MemoryStore
from graphprum.units import UnitTable


def FakeStore(table: UnitTable) -> MemoryStore:  # noqa: N802
    """The reference memory store holding ``table`` (rows keep their numbers)."""
    return MemoryStore.of_table(table)


def fig6() -> tuple[UnitTable, dict[str, str]]:
    # PRUM Fig. 6: a (60 words) > b (40) > c, d, e (10 each); a > f (10).
    # Character lengths are 7 per word here, so both variants give the same ratios.
    words = [60, 40, 10, 10, 10, 10]
    t = UnitTable.from_tree("fig6", ["a", "b", "c", "d", "e", "f"], [-1, 0, 1, 1, 1, 0],
                            lengths=[7 * w for w in words], words=words)
    ids = t.ids()
    return t, dict(zip("abcdef", ids, strict=True))


def ctx_for(table: UnitTable, models=(), topic: str = "1") -> TopicContext:
    return TopicContext(topic=topic, ranked=[], qrels={}, models=list(models),
                        store=FakeStore(table))


# ---------------------------------------------------------------- classical

def test_classical():
    m = parse_model("classical")
    assert m.needs_store is False
    assert m.matrix(["a", "b"], ["a", "c"], None).nnz == 0
    assert combine([m], ["a", "b"], ["a", "c"], None).toarray().tolist() == [[1, 0], [0, 0]]
    with pytest.raises(UsageError):
        parse_model("classical:x")


# ---------------------------------------------------------------- structural

@pytest.mark.parametrize("spec", ["structural", "structural:words"])
def test_structural_fig6(spec):
    table, u = fig6()
    m = parse_model(spec)
    assert m.needs_store
    ctx = ctx_for(table, [m])
    names = "abcdef"
    p = m.matrix([u[n] for n in names], [u[n] for n in names], ctx).toarray()
    prob = {(x, y): p[i, j] for i, x in enumerate(names) for j, y in enumerate(names)}
    # the paper's numbers (§4.2.1): a → c 10/60, b → c 10/40
    assert prob["a", "c"] == pytest.approx(10 / 60)
    assert prob["b", "c"] == pytest.approx(10 / 40)
    # eq. 9 is symmetric: up and down both give inner/outer
    assert prob["c", "a"] == pytest.approx(10 / 60)
    assert prob["c", "b"] == pytest.approx(10 / 40)
    assert prob["a", "b"] == prob["b", "a"] == pytest.approx(40 / 60)
    assert prob["a", "f"] == pytest.approx(10 / 60)
    # not nested: 0
    for x, y in [("c", "d"), ("d", "c"), ("b", "f"), ("f", "c"), ("e", "f")]:
        assert prob[x, y] == 0
    full = combine([m], [u["c"]], [u["c"], u["a"]], ctx).toarray()
    assert full.tolist() == [[1.0, pytest.approx(10 / 60)]]


def test_structural_prum_errata_4():
    # ERRATA PRUM 4: c ideal, structural model with word lengths:
    # list (c, b, a) -> 1.0 at r = 1; list (a, b, c) -> 0.40678
    from graphprum.measures.registry import family, parse_measure

    table, u = fig6()
    m = parse_model("structural:words")
    spec = parse_measure("PRUM(r=1)")
    fam = family(spec.name)
    for order, want in [("cba", 1.0), ("abc", 0.40678)]:
        ctx = TopicContext(topic="1", ranked=[u[n] for n in order], qrels={u["c"]: 1},
                           models=[m], store=FakeStore(table), collection_size=6)
        assert fam.compute(spec, ctx) == pytest.approx(want, abs=5e-6), order


def test_structural_unknown_ids_zero_length_and_no_store():
    table, u = fig6()
    table.columns["words"][[1, 2]] = 0  # b and c without words
    m = parse_model("structural:words")
    p = m.matrix([u["a"], "nope", u["b"], u["c"]], [u["c"], u["b"], "nope"],
                 ctx_for(table)).toarray()
    # 0/0 (b ⊃ c, both empty) is 0, and so is an empty unit against a full one
    assert p.tolist() == [[0, 0, 0], [0, 0, 0], [0, 0, 0], [0, 0, 0]]
    with pytest.raises(UsageError, match="needs a store"):
        m.matrix([u["a"]], [u["c"]], None)
    with pytest.raises(UsageError):
        parse_model("structural:chars")


def concat(*tables: UnitTable) -> UnitTable:
    """Several one-document tables as one collection (rows of a document contiguous)."""
    cols = {k: [] for k in tables[0].columns}
    docs, first = [], 0
    tags = sorted({t for tb in tables for t in tb.tags})
    for d, tb in enumerate(tables):
        for k, v in tb.columns.items():
            v = v.copy()
            if k == "doc":
                v[:] = d
            elif k == "parent":
                v = np.where(v >= 0, v + first, -1).astype(v.dtype)
            elif k == "tag":
                v = np.array([tags.index(tb.tags[i]) for i in v], dtype=v.dtype)
            cols[k].append(v)
        row = next(tb.docs.records())
        row["name"], row["first"] = f"doc{d}", first
        docs.append(row)
        first += len(tb)
    columns = {k: np.concatenate(v) for k, v in cols.items()}
    return UnitTable(columns, tags, [], pd.DataFrame(docs))


@st.composite
def forests(draw):
    tables = []
    for _ in range(draw(st.integers(1, 3))):
        n = draw(st.integers(1, 8))
        parents = [-1]
        for i in range(1, n):  # preorder: the parent is on the path from i - 1 to the root
            chain, r = [], i - 1
            while r >= 0:
                chain.append(r)
                r = parents[r]
            parents.append(draw(st.sampled_from(chain)))
        own = draw(st.lists(st.integers(0, 5), min_size=n, max_size=n))
        length = list(own)
        for i in range(n - 1, 0, -1):  # children come after parents in preorder
            length[parents[i]] += length[i]
        tables.append(UnitTable.from_tree("d", ["x"] * n, parents, lengths=length))
    return concat(*tables)


def ancestors(table: UnitTable, r: int) -> set[int]:
    out = set()
    while r >= 0:
        out.add(r)
        r = int(table.columns["parent"][r])
    return out


@settings(max_examples=80, deadline=None)
@given(forests(), st.data())
def test_structural_against_brute_force(table, data):
    n = len(table)
    rows = st.lists(st.integers(-1, n - 1), max_size=12)
    src, tgt = np.array(data.draw(rows), dtype=np.int64), np.array(data.draw(rows), dtype=np.int64)
    got = structural_probabilities(table, src, tgt).toarray()
    length = table.columns["length"]
    want = np.zeros((len(src), len(tgt)))
    for i, x in enumerate(src):
        for j, y in enumerate(tgt):
            if x < 0 or y < 0:
                continue
            if x in ancestors(table, int(y)):  # x contains y: length(y)/length(x)
                want[i, j] = length[y] / length[x] if length[x] else 0.0
            elif y in ancestors(table, int(x)):  # y contains x: length(x)/length(y)
                want[i, j] = length[x] / length[y] if length[y] else 0.0
    np.testing.assert_allclose(got, want)


# ---------------------------------------------------------------- files

FIG2 = "# PRUM Fig. 2\nx\ty\t.5\nx\tz\t.3\nz\ty\t.12\ny\tz\t.8\n"


def test_walk_fig2(write):
    p = write("fig2.tsv", FIG2)
    m = parse_model(f"walk:{p}")
    assert m.needs_store is False
    got = combine([m], ["x", "y", "z"], ["x", "y", "z", "w"], None).toarray()
    # ERRATA PRUM 7; y → z .8 directly, z → y .12 directly; nothing leads to x
    want = [[1, .536, .7, 0], [0, 1, .8, 0], [0, .12, 1, 0]]
    np.testing.assert_allclose(got, want)
    one = parse_model(f"walk:{p},hops=1").matrix(["x"], ["y", "z"], None).toarray()
    np.testing.assert_allclose(one, [[.5, .3]])
    two = parse_model(f"walk:{p},hops=2").matrix(["x"], ["y", "z"], None).toarray()
    np.testing.assert_allclose(two, [[.536, .7]])


def test_direct_and_noisy_or_with_structural(write):
    table, u = fig6()
    # direct: d leads to c with .25 (a guess of the file's author)
    p = write("direct.tsv", f"{u['d']}\t{u['c']}\t0.25\n{u['a']}\t{u['c']}\t0.5\n")
    direct, structural = parse_model(f"direct:{p}"), parse_model("structural:words")
    ctx = ctx_for(table, [structural, direct])
    got = ctx.nav([u["a"], u["b"], u["d"], u["c"]], [u["c"]]).toarray().ravel()
    # noisy-or: a: 1 - (1 - 1/6)(1 - .5); b: 1/4 (structural only); d: .25; c: itself
    np.testing.assert_allclose(got, [1 - (5 / 6) * .5, .25, .25, 1])
    # a pair only the file gives keeps its P as written, to the last bit
    # (DESIGN 1.5; old code: 0.25 -> 0.24999999999999997 through log1p/expm1)
    assert got[2] == 0.25
    assert direct.matrix([u["c"]], [u["d"]], ctx).nnz == 0  # pairs not listed: 0


def test_topic_column(write):
    p = write("topics.tsv", "1\ta\tb\t.5\n2\ta\tb\t.25\n2\tb\tc\t1\n")
    m = parse_model(f"direct:{p}")
    get = lambda topic: m.matrix(["a", "b"], ["b", "c"], ctx_for(fig6()[0], topic=topic))  # noqa: E731
    np.testing.assert_allclose(get("1").toarray(), [[.5, 0], [0, 0]])
    np.testing.assert_allclose(get("2").toarray(), [[.25, 0], [0, 1]])
    assert get("3").nnz == 0
    with pytest.raises(UsageError, match="TOPIC column"):
        m.matrix(["a"], ["b"], None)
    w = parse_model(f"walk:{p}")
    walk2 = w.matrix(["a"], ["c"], ctx_for(fig6()[0], topic="2")).toarray()
    np.testing.assert_allclose(walk2, [[.25]])


def test_log_transitions(write):
    # sessions: a b c | a c | a  -> a visited 3 times: a→b 1/3, a→c 1/3, b→c 1
    p = write("log.txt", "s1 1 a\ns1 2 b\ns1 3 c\ns2 1 a\ns2 2 c\ns3 1 a\n")
    got = parse_model(f"log:{p}").matrix(["a", "b"], ["b", "c"], None).toarray()
    # a reaches c directly (1/3) or through b (1/3 × 1)
    np.testing.assert_allclose(got, [[1 / 3, 2 / 3], [1, 1]])  # b is b
    one = parse_model(f"log:{p},hops=1").matrix(["a"], ["c"], None).toarray()
    np.testing.assert_allclose(one, [[1 / 3]])


@pytest.mark.parametrize(("text", "line", "message"), [
    ("x\ty\t.5\nx\tz\t1.3\n", 2, "expected P a probability in [0, 1], got '1.3'"),
    ("x\ty\t.5\nx y .3\n", 2, "got 1"),
    ("x\ty\t.5\tmore\textra\n", 1, "got 5"),
])
def test_file_errors_name_file_and_line(write, text, line, message):
    p = write("bad.tsv", text)
    for kind in ("direct", "walk"):
        with pytest.raises(InputError) as info:
            parse_model(f"{kind}:{p}").matrix(["x"], ["y"], None)
        assert str(info.value).startswith(f"{p}:{line}: ")
        assert message in str(info.value)


def test_walk_rows_above_one(write):
    p = write("bad.tsv", "# c\nz\ty\t.1\nx\ty\t.6\nx\tz\t.5\n")
    with pytest.raises(InputError) as info:
        parse_model(f"walk:{p}").matrix(["x"], ["y"], None)
    assert str(info.value).startswith(f"{p}:3: one-step probabilities from 'x' sum to 1.1 > 1")
    # the same file is fine as direct probabilities
    assert parse_model(f"direct:{p}").matrix(["x"], ["y"], None).toarray()[0, 0] == .6


def test_bad_specs_and_missing_file(tmp_path):
    for spec in ("walk:", "walk:f,hops=0", "walk:f,hops=x", "direct:f,hops=2", "log:f,beta=1"):
        with pytest.raises(UsageError):
            parse_model(spec)
    m = parse_model(f"walk:{tmp_path / 'absent.tsv'},hops=inf")
    assert m.hops is None
    with pytest.raises(InputError, match="cannot read"):
        m.matrix(["x"], ["y"], None)


def test_file_read_once(write, monkeypatch):
    import graphprum.navigation.files as files

    p = write("fig2.tsv", FIG2)
    calls = []
    real = files.read_nav
    monkeypatch.setattr(files, "read_nav", lambda path: calls.append(path) or real(path))
    m = parse_model(f"walk:{p}")
    for topic in ("1", "2", "3"):
        m.matrix(["x"], ["y"], ctx_for(fig6()[0], topic=topic))
    assert len(calls) == 1


def test_sparse_result_types(write):
    p = write("fig2.tsv", FIG2)
    for spec in (f"walk:{p}", f"direct:{p}", "classical"):
        out = parse_model(spec).matrix(["x", "q"], ["y"], None)
        assert isinstance(out, sp.csr_array) and out.shape == (2, 1)


def test_the_table_names_every_model_and_imports_only_the_one_named():
    """navigation.base.MODELS is the one list of models: each entry builds a
    model of its own name; a spec imports its model's module, no other
    (bep is the BiC measure's, imported with the measures)."""
    import subprocess
    import sys

    from graphprum.navigation.base import COMPOSITIONS, MODELS, _function, family

    args = {"direct": "f", "walk": "f", "log": "f", "summary": "p", "t2i": ""}
    for name, where in MODELS.items():
        assert family(_function(where)(args.get(name, ""))) == name
    assert all(callable(_function(where)) for where in COMPOSITIONS.values())
    code = ("import sys; from graphprum.navigation.base import parse_model; "
            "parse_model('classical'); print(' '.join(m for m in sys.modules "
            "if m.startswith('graphprum.navigation.')))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout
    loaded = {m.rpartition(".")[2] for m in out.split()}
    assert "classical" in loaded
    assert not loaded & {"structural", "files", "links", "browse", "summary", "t2i"}


def test_every_model_says_how_it_is_written() -> None:
    """Each model's form and parameters (FORMS) are in ``nav --help`` and
    in the error for a malformed argument (before: "argument 'help' must be
    key=value", the parameters only in docs/measures-prum.md, whose table
    names the same parameters)."""
    from typer.testing import CliRunner

    from graphprum.cli import app
    from graphprum.errors import UsageError
    from graphprum.navigation.base import FORMS, MODELS, parse_model
    from tests.support import REPO

    assert set(FORMS) == set(MODELS)
    shown = " ".join(CliRunner().invoke(app, ["nav", "--help"], env={"COLUMNS": "200"})
                     .stdout.split())
    table = (REPO / "docs" / "measures-prum.md").read_text(encoding="utf-8")
    for name, form in FORMS.items():
        assert " ".join(form.split()) in shown
        spec = form.split(" ")[0]
        for parameter in re.findall(r"(\w+)=", spec):
            assert re.search(rf"`{name}[^`]*\b{parameter}=", table), (name, parameter)
    for spec in ("links:help", "browse:walk=2", "bep:A=x", "t2i:keepsviewing=maybe"):
        with pytest.raises(UsageError) as caught:
            parse_model(spec)
        assert str(caught.value).endswith(FORMS[spec.split(":")[0]])
