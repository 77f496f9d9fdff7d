"""Families describe themselves: the index of family modules, the generic
checks of names, cutoff kinds, help texts, and the classical provider's
answers."""

from __future__ import annotations

import ast
import sys
import types
from fractions import Fraction
from pathlib import Path

import pytest

from graphprum.errors import UsageError
from graphprum.measures import classical_names, names, registry
from graphprum.measures.declare import Curve, Family, Param, Value
from graphprum.measures.registry import families, family
from graphprum.measures.spec import MeasureSpec, parse_measure

MEASURES = Path(registry.__file__).parent


def declared_in_source() -> dict[str, str]:
    """Family names per module, read from the source text (not imported):
    every ``Family("NAME", ...)`` call of a module of the package (its
    subpackages included) that defines FAMILIES; a subpackage's families
    are its own (graphprum.measures.prum hands on prum.family's)."""
    out: dict[str, str] = {}
    for path in sorted(MEASURES.rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        assigns = {t.id for node in ast.walk(tree) if isinstance(node, ast.Assign)
                   for t in node.targets if isinstance(t, ast.Name)}
        if "FAMILIES" not in assigns:
            continue
        parts = path.relative_to(MEASURES.parent.parent).with_suffix("").parts
        module = ".".join(parts[:3])  # graphprum.measures.NAME
        for node in ast.walk(tree):
            if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "Family":
                out[node.args[0].value] = module
    return out


def test_the_index_lists_every_module_that_declares_families():
    """A family module missing from registry.MODULES is named here."""
    found = families()
    assert {n: f.module for n, f in found.items()} == declared_in_source()
    assert len(found) >= 19
    for f in found.values():
        assert f.description  # from the module docstring
        first = sys.modules[f.module].__doc__.strip().split("\n\n")[0].split()[0]
        assert f.description.split()[0] == first.replace("``", "")
    assert registry.family_names() == list(found)


def test_each_family_function_is_named_after_the_family():
    """One naming scheme: the function of family NAME is compute_<name>
    (lower case, '-' as '_'), defined in the module that declares it."""
    for name, f in families().items():
        assert f.function.__name__ == "compute_" + name.lower().replace("-", "_"), name
        assert f.function.__module__ in (f.module, f.module + ".family"), name


def test_the_index_of_some_modules():
    one = types.ModuleType("one", "Two fake families.\n\nMore text.")
    one.FAMILIES = (Family("Fake2", lambda m, ctx: 2.0, "two", description="own"),
                    Family("fake1", lambda m, ctx: 1.0, "one"))
    found = registry.index([one])
    assert list(found) == ["fake1", "Fake2"]  # by name, case aside
    assert found["fake1"].description == "Two fake families."
    assert found["Fake2"].description == "own"
    assert found["fake1"].module == "one"
    two = types.ModuleType("two")
    two.FAMILIES = (Family("fake1", lambda m, ctx: 1.0, "again"),)
    with pytest.raises(ValueError, match=r"fake1 is declared by both one and two"):
        registry.index([one, two])
    bad = types.ModuleType("bad")
    bad.FAMILIES = ("PRUM",)
    with pytest.raises(TypeError, match=r"bad.FAMILIES holds 'PRUM', not a Family"):
        registry.index([bad])


@pytest.mark.parametrize("name, message", [
    ("PRUM(k=1)", "unknown parameter(s) k; PRUM takes r, exact, samples, seed"),
    ("SR(task=focused)@5", "unknown parameter(s) task; SR takes no parameters"),
    ("PRUM(samples=5)", "samples only goes with exact=mc"),
    ("PRUM(exact=foo)", "exact must be enum or mc, got 'foo'"),
    ("PRUM(r=0)", "r must be >= 1, got 0"),
    ("PRUM(r=x)", "parameter r='x' is not an integer"),
    ("PRUM(r=1)@0.5", "give either r=K or @L, not both"),
    ("PRUM@1.5", "the recall level @1.5 is outside [0, 1]"),
    ("PRUM@abc", "must be a recall level"),
    ("BEPD(A=0)", "A must be > 0, got 0"),
    ("BEPD(A=inf)", "is not a finite number"),
    ("xCG(alpha=2)@5", "alpha must be in [0, 1], got 2"),
    ("xCG(size=words)@5", "size only goes with alpha"),
    ("nxCG(task=both)@5", "task must be thorough or focused"),
    ("MAep@5", "MAep takes no @cutoff"),
    ("SRP@0.5", "the cutoff @0.5 must be a rank, an integer >= 1"),
    ("SR@0", "must be a rank"),
    ("EPRUM@0", "must be a rank"),
    ("ep@2", "outside [0, 1]"),
    ("GRPng(value=f1)", "value must be precision or recall"),
    ("T2I-P(tau=15,T=20)", "T must be a positive multiple of tau=15"),
    ("T2I-P(tau=5,T=5e9)", "T / tau = 1,000,000,000 steps; at most 10,000,000"),
    ("T2I-P(keepsviewing=maybe)", "is not true or false"),
    ("ESL(S=0)", "S must be >= 1 or R | all, got 0"),
    ("ESL(S=some)", "is not an integer (or R | all)"),
    ("ESL(D=-1)", "D must be >= 0"),
])
def test_names_are_checked_before_anything_is_computed(name, message):
    """resolve() is what every entry point calls first; no TopicContext exists here."""
    with pytest.raises(UsageError) as err:
        names.resolve(name)
    assert message in str(err.value)
    assert str(err.value).startswith("measure ")


def test_checked_values_are_typed_with_defaults():
    m = family("PRUM").bind(parse_measure("PRUM(exact=mc)@0.25"))
    assert (m["exact"], m["samples"], m["seed"], m["r"]) == ("mc", 1000, 0, None)
    assert m.level == Fraction(1, 4) and m.rank is None and str(m) == "PRUM(exact=mc)@0.25"
    assert m.given("exact") and not m.given("samples")
    t = family("T2I-P").bind(parse_measure("T2I-P(tau=10,keepsviewing=off,T=30)"))
    assert (t["tau"], t["init"], t["keepsviewing"], t["T"]) == (10.0, 0.0, False, 30.0)
    e = family("ESL").bind(parse_measure("ESL(S=all)"))
    assert e["S"] == "all"
    assert family("ESL").bind(parse_measure("ESL(S=3)"))["S"] == 3


@pytest.mark.parametrize("cutoff, rank, level", [
    ("1", 1, None), ("10", 10, None), ("1.0", None, Fraction(1)), ("0.5", None, Fraction(1, 2)),
    ("1e-1", None, Fraction(1, 10)), ("1/4", None, Fraction(1, 4)),
])
def test_eprum_cutoff_is_a_rank_or_a_level_by_its_spelling(cutoff, rank, level):
    m = family("EPRUM").bind(MeasureSpec("EPRUM", {}, cutoff))
    assert (m.rank, m.level) == (rank, level)


def test_declarations_are_consistent_with_what_they_say():
    for name, f in families().items():
        assert f.cutoff in registry.CUTOFF_KINDS and f.aggregate in registry.AGGREGATES
        for example, meaning in f.examples:  # every example is a valid name of the family
            for spec in names.resolve(example):
                assert spec.name == name and meaning
        for c in f.expands_to:  # what a bare name stands for is valid
            f.bind(MeasureSpec(name, {}, c))
        if f.curve is not None:  # the points of its curve are valid cutoffs
            points = registry.CURVE_LEVELS if f.curve.axis == "level" else ("1", "50")
            for c in points:
                f.bind(MeasureSpec(name, {}, c))
        assert f.needs_store == ("store" in f.needs)


def test_help_says_what_the_declaration_says():
    for name, f in families().items():
        text = f.help()
        assert text.startswith(f"{name}: ")
        flat = " ".join(text.split())
        assert " ".join(f.summary.split()) in flat and " ".join(f.description.split()) in flat
        for key, p in f.params.items():
            assert f"  {key}=" in text and " ".join(p.desc.split()) in flat
        for example, _ in f.examples:
            assert example in text
        assert f"-m '{f.example}'" in text
        assert names.describe(name) == text == names.describe(name.lower())
        assert max(len(line) for line in text.splitlines()) <= 78 or any(
            len(e) > 70 for e, _ in f.examples)


def test_a_family_may_return_a_value_with_its_stderr():
    fam = Family("Twice", lambda m, ctx: Value(2.0 * m["x"], 0.5, "a note"), "twice x",
                 params={"x": Param(float, 1.0, "x", minimum=0)})
    got = fam.evaluate(parse_measure("Twice(x=3)"), None)
    assert (got.value, got.stderr, got.note) == (6.0, 0.5, "a note")
    assert fam.compute(parse_measure("Twice"), None) == 2.0
    plain = Family("One", lambda m, ctx: 1, "one")
    assert plain.evaluate(parse_measure("One"), None) == Value(1.0)
    with pytest.raises(UsageError, match="x must be >= 0"):
        fam.compute(parse_measure("Twice(x=-1)"), None)


@pytest.mark.parametrize("bad", [
    dict(aggregate="median"), dict(cutoff="decile"), dict(needs=("gpu",)),
    dict(expands_to=("5",)), dict(better="smaller"),
])
def test_bad_declarations_are_refused(bad):
    with pytest.raises(ValueError):
        Family("X", lambda m, ctx: 0.0, "x", **bad)
    with pytest.raises(ValueError):
        Curve("time", "x")


def test_providers_answer_the_same_questions():
    fams = list(families())
    for name in fams:
        assert registry.FAMILY_MEASURES.supports(name)
        assert not classical_names.CLASSICAL.supports(name)  # no name is both
        assert names.provider(name) is registry.FAMILY_MEASURES
    for name in ("map", "P_10", "iprec_at_recall_0.10", "num_rel_ret", "all_trec", "AP",
                 "nDCG", "NumRelRet"):
        assert classical_names.CLASSICAL.supports(name)
        assert not registry.FAMILY_MEASURES.supports(name)
    # aggregation: trec_eval's for classical names, the declaration for families
    assert [names.aggregation(s) for s in names.resolve("num_rel_ret") + names.resolve("gm_map")
            + names.resolve("PRUM")] == ["sum", "gmean", "mean"]
    assert names.describe("nDCG").startswith("nDCG: ir_measures' ")
    assert "ranking cutoff threshold" in names.describe("nDCG")  # ir_measures' ParamInfo
    assert names.describe("map_cut_10").startswith("map_cut: trec_eval's map_cut")
    assert "num_q num_ret" in names.describe("official")


def test_plot_curves_come_from_the_declarations():
    from graphprum.plots import curve_measures, is_curve

    with_curve = [n for n, f in families().items() if f.curve is not None]
    assert set(names.curve_names()) == {*with_curve, "P", "R", "nDCG"}
    for n in with_curve:
        assert is_curve(n)
        first = curve_measures(n, ks=[1, 2])[0]
        assert first == (f"{n}@0.0" if families()[n].curve.axis == "level" else f"{n}@1")
    assert not any(is_curve(n) for n, f in families().items() if f.curve is None)


def test_the_listing_has_every_name_m_takes_each_once_in_its_section():
    """``graphprum measures`` (names.catalog): the families, then trec_eval's
    names and sets, then ir_measures' names (issue 41 item 6); every name
    listed is one -m takes, and goes to the source the listing names."""
    rows = names.catalog()
    sources = [r["source"] for r in rows]
    assert sources == sorted(sources, key=["graphprum", "trec_eval", "ir_measures"].index)
    listed = {s: [r["name"] for r in rows if r["source"] == s] for s in dict.fromkeys(sources)}
    assert listed["graphprum"] == list(families())
    assert listed["trec_eval"] == [*classical_names.TREC_MEASURES, *classical_names.TREC_SETS]
    ir = listed["ir_measures"]
    assert "AP" in ir and "nDCG" in ir and "MAP" in ir  # aliases too
    assert set(ir) == {n for n in classical_names.ir_measure_names() if n.isascii()}
    for r in rows:
        assert set(r) == {"name", "source", "cutoff", "aggregate", "needs", "curve", "summary"}
        assert r["summary"], r["name"]
        name = r["name"]
        want = registry.FAMILY_MEASURES if r["source"] == "graphprum" else classical_names.CLASSICAL
        assert names.provider(name) is want
        if r["source"] != "ir_measures":
            assert names.resolve(name)  # a family, a trec_eval name or set, bare
    # ir_measures' names as -m takes them: with their cutoff, through ir_measures
    assert [str(s) for s in names.resolve("nDCG@10") + names.resolve("P_IA@5")] == \
        ["nDCG@10", "P_IA@5"]
    p = next(r for r in rows if r["name"] == "P" and r["source"] == "trec_eval")
    assert p["cutoff"] == "rank" and "P_10, P.5,10" in p["summary"]
    assert next(r for r in rows if r["name"] == "MAP")["summary"].endswith(
        "(= AP); parameters: rel, judged_only")


def test_only_esl_is_better_lower_and_counts_have_no_best():
    """ESL counts give-ups (docs/measures-t2i.md), every other family is a
    score; trec_eval's and ir_measures' counts (summed over topics) have no best."""
    assert [n for n in families() if family(n).better != "higher"] == ["ESL"]
    assert family("ESL").better == "lower"
    assert [names.better_of(n) for n in ("ESL(tau=5,S=1)", "ESLRF(tau=5)", "num_q", "num_ret",
                                         "NumRet(rel=1)", "map", "nDCG@10", "AP stderr")] == [
        "lower", "higher", None, None, None, "higher", "higher", None]
