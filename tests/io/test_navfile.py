"""Navigation files, navigation logs and transition estimates (DESIGN §1.3, §1.5)."""

from __future__ import annotations

import random

import pytest

from graphprum.errors import InputError
from graphprum.io import NavTable, Session, estimate_transitions, read_nav, read_nav_log


def write(tmp_path, text: str, name: str = "nav.tsv"):
    p = tmp_path / name
    p.write_text(text, encoding="utf-8")
    return p


def error(path, read=read_nav) -> str:
    with pytest.raises(InputError) as info:
        read(path)
    return str(info.value)


def test_prum_fig2_file(tmp_path):
    # PRUM Fig. 2 one-step transitions (ERRATA PRUM item 7)
    p = write(tmp_path, "# PRUM fig 2\nx\ty\t.5\nx\tz\t0.3\n\nz\ty\t0.12\ny\tz\t0.8\n")
    nav = read_nav(p)
    assert isinstance(nav, NavTable) and nav.topics is None
    assert nav.pairs == {("x", "y"): 0.5, ("x", "z"): 0.3, ("z", "y"): 0.12, ("y", "z"): 0.8}
    assert nav.for_topic("any") is nav.pairs
    assert len(nav) == 4


def test_ids_with_spaces_and_topic_column(tmp_path):
    p = write(tmp_path, "1\tmy page.html\tother page.html\t1\n1\ta\tb\t0\n2\ta\tb\t0.25\n")
    nav = read_nav(p)
    assert nav.pairs == {}
    assert nav.topics == {"1": {("my page.html", "other page.html"): 1.0, ("a", "b"): 0.0},
                          "2": {("a", "b"): 0.25}}
    assert nav.for_topic("2") == {("a", "b"): 0.25}
    assert nav.for_topic("3") == {}
    assert len(nav) == 3


@pytest.mark.parametrize(("text", "line", "expected"), [
    ("a\tb\t0.5\na\tc\t1.5\n", 2, "expected P a probability in [0, 1], got '1.5'"),
    ("a\tb\t0.5\na\tc\t-0.1\n", 2, "expected P a probability in [0, 1], got '-0.1'"),
    ("a\tb\t0.5\na\tc\tnan\n", 2, "expected P a probability in [0, 1], got 'nan'"),
    ("a\tb\t0.5\na\tc\thalf\n", 2, "expected P a probability in [0, 1], got 'half'"),
    ("a\tb\t0.5\na\tc\t0_5\n", 2, "expected P a probability in [0, 1], got '0_5'"),
    ("a\tb\t0.5\na\tc\t١\n", 2, "expected P a probability in [0, 1], got '١'"),
    ("#\na b 0.5\n", 2, "expected 3 tab-separated fields FROM TO P, or 4 TOPIC FROM TO P, "
                        "got 1 (fields must be separated by tabs)"),
    ("a\tb\t0.5\n1\ta\tc\t0.5\n", 2, "expected 3 tab-separated fields FROM TO P as on line 1, "
                                     "got 4"),
    ("1\ta\tb\t0.5\n\na\tc\t0.5\n", 3, "expected 4 tab-separated fields TOPIC FROM TO P as on "
                                       "line 1, got 3"),
    ("a\t\t0.5\n", 1, "expected non-empty ids"),
    ("a\tb\t0.5\nc\td\t0.1\na\tb\t0.5\n", 3, "duplicate pair 'a' -> 'b' (first on line 1)"),
    ("1\ta\tb\t0.5\n2\ta\tb\t0.1\n#\n2\ta\tb\t0.5\n", 4,
     "duplicate pair 'a' -> 'b' of topic '2' (first on line 2)"),
])
def test_malformed_nav_lines(tmp_path, text, line, expected):
    p = write(tmp_path, text)
    assert error(p) == f"{p}:{line}: {expected}"


def test_empty_nav_file(tmp_path):
    p = write(tmp_path, "# nothing\n")
    assert error(p) == f"{p}: empty navigation file: no FROM TO P lines"


# --- navigation logs -----------------------------------------------------------

def test_log_sessions_ordered_by_step(tmp_path):
    p = write(tmp_path, "s1 3 c\ns2 1 x\n# c\ns1 1 a\ns1 2 b\ns2\t-4\tpage one.html\n", "log")
    assert read_nav_log(p) == [Session("s1", ("a", "b", "c")),
                               Session("s2", ("page one.html", "x"))]


@pytest.mark.parametrize(("text", "line", "expected"), [
    ("s 1 a\ns 2\n", 2, "expected 3 fields SESSION STEP ID, got 2"),
    ("s 1 a\ns x b\n", 2, "expected STEP an integer, got 'x'"),
    ("s 1 a\ns 1.5 b\n", 2, "expected STEP an integer, got '1.5'"),
    ("s 1 a\ns 1_0 b\n", 2, "expected STEP an integer (ASCII digits), got '1_0'"),
    ("s 1 a\ns ٢ b\n", 2, "expected STEP an integer (ASCII digits), got '٢'"),
    ("s 1 a\nt 1 a\n\ns 1 b\n", 4, "duplicate STEP 1 in session 's' (first on line 1)"),
])
def test_malformed_log_lines(tmp_path, text, line, expected):
    p = write(tmp_path, text, "log")
    assert error(p, read_nav_log) == f"{p}:{line}: {expected}"


def test_empty_log(tmp_path):
    p = write(tmp_path, "\n", "log")
    assert error(p, read_nav_log) == f"{p}: empty navigation log: no SESSION STEP ID lines"


def test_estimate_by_hand():
    sessions = [Session("1", ("a", "b", "c")), ["a", "c"], ["a"], ["b", "b", "c", "a"]]
    # visits: a 4 (in every session; two of them end a session), b 2 (the reload b, b is
    # one visit), c 3 (two end a session); moves: a->b 1, b->c 2, a->c 1, c->a 1
    p = estimate_transitions(sessions)
    assert p == {("a", "b"): 1 / 4, ("b", "c"): 2 / 2, ("a", "c"): 1 / 4, ("c", "a"): 1 / 3}


def test_estimate_recovers_a_known_chain_with_stops():
    # Simulate users on a chain with explicit stop probabilities; the estimate
    # must approach the true one-step probabilities (stop mass = 1 - row sum).
    true = {"x": {"y": 0.5, "z": 0.3}, "y": {"z": 0.8}, "z": {"y": 0.12}}
    rng = random.Random(7)
    sessions = []
    for _ in range(20000):
        unit, visit = "x", ["x"]
        while True:
            u, acc = rng.random(), 0.0
            for target, prob in true[unit].items():
                acc += prob
                if u < acc:
                    unit = target
                    visit.append(unit)
                    break
            else:
                break
        sessions.append(visit)
    est = estimate_transitions(sessions)
    assert set(est) == {(a, b) for a in true for b in true[a]}
    for a in true:
        for b, prob in true[a].items():
            assert est[(a, b)] == pytest.approx(prob, abs=0.015)
