"""Navigation files ``FROM TO P`` and navigation logs ``SESSION STEP ID`` (DESIGN §1.3).

A navigation file gives one-step transition probabilities (``walk:``) or
direct probabilities (``direct:``): tab-separated ``FROM TO P`` lines with P
in [0, 1], or ``TOPIC FROM TO P`` lines for topic-specific models (every line
of a file has the same number of columns).  A pair listed twice (for the same
topic) is an error.

A navigation log lists observed sessions, one visited unit per line:
``SESSION STEP ID`` (tab separated when the line holds a tab, else
whitespace separated).  STEP is an integer; a session's units are taken in
STEP order, and a STEP repeated inside one session is an error.
:func:`estimate_transitions` turns sessions into one-step probabilities.

Examples
--------
>>> import tempfile, os
>>> p = os.path.join(tempfile.mkdtemp(), "nav.tsv")
>>> _ = open(p, "w").write("x\\ty\\t0.5\\nx\\tz\\t0.3\\nz\\ty\\t0.12\\ny\\tz\\t0.8\\n")
>>> nav = read_nav(p)
>>> nav.pairs[("x", "y")], len(nav), nav.topics is None
(0.5, 4, True)
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from graphprum.errors import InputError
from graphprum.io.lines import (
    PathArg,
    ascii_number,
    find_line,
    parse_int,
    read_lines,
    read_text,
    starts_with,
)

Pair = tuple[str, str]


@dataclass
class NavTable:
    """Probabilities of (FROM, TO) pairs, global or per topic.

    Attributes
    ----------
    pairs : dict of (str, str) to float
        The pairs of a file without a TOPIC column (empty otherwise).
    topics : dict of str to dict of (str, str) to float, or None
        Per topic pairs, for a file with a leading TOPIC column.
    path : str
        The file read.
    """

    pairs: dict[Pair, float] = field(default_factory=dict)
    topics: dict[str, dict[Pair, float]] | None = None
    path: str = ""

    def for_topic(self, topic: str | None) -> dict[Pair, float]:
        """The pairs that apply to ``topic``: its own (per-topic file), else the global ones."""
        if self.topics is None:
            return self.pairs
        return self.topics.get(topic or "", {})

    def __len__(self) -> int:
        if self.topics is None:
            return len(self.pairs)
        return sum(len(p) for p in self.topics.values())


def parse_probability(path: PathArg, line: int, text: str) -> float:
    """P as a float in [0, 1], or InputError naming the line.

    >>> parse_probability("nav", 4, "1.2")
    Traceback (most recent call last):
    ...
    graphprum.errors.InputError: nav:4: expected P a probability in [0, 1], got '1.2'
    """
    p = ascii_number(text)
    if p is None or not 0.0 <= p <= 1.0:
        raise InputError(path, line, f"expected P a probability in [0, 1], got {text!r}")
    return p


def read_nav(path: PathArg) -> NavTable:
    """Read a navigation file (``FROM TO P`` or ``TOPIC FROM TO P``, tab separated).

    Raises
    ------
    InputError
        A line with other than 3 or 4 tab-separated fields (or a different
        count from the first line), an empty id, P not in [0, 1], a
        duplicate pair, a file with no pairs; naming ``file:line``.
    """
    table = NavTable(path=str(path))
    width = 0
    first_line = 0
    for line, fields in read_lines(path, sep="\t"):
        n = len(fields)
        if width == 0:
            if n not in (3, 4):
                hint = " (fields must be separated by tabs)" if n == 1 else ""
                raise InputError(path, line, "expected 3 tab-separated fields FROM TO P, or 4 "
                                             f"TOPIC FROM TO P, got {n}{hint}")
            width, first_line = n, line
            if n == 4:
                table.topics = {}
        elif n != width:
            layout = "FROM TO P" if width == 3 else "TOPIC FROM TO P"
            raise InputError(path, line, f"expected {width} tab-separated fields {layout} "
                                         f"as on line {first_line}, got {n}")
        if width == 4:
            topic, source, target, p_text = fields
            assert table.topics is not None
            pairs = table.topics.setdefault(topic, {})
        else:
            topic = ""
            source, target, p_text = fields
            pairs = table.pairs
        if not source or not target or (width == 4 and not topic):
            raise InputError(path, line, "expected non-empty ids")
        p = parse_probability(path, line, p_text)
        if (source, target) in pairs:
            key = [topic, source, target] if width == 4 else [source, target]
            first = find_line(path, starts_with(key), sep="\t")
            where = f" of topic {topic!r}" if width == 4 else ""
            raise InputError(path, line, f"duplicate pair {source!r} -> {target!r}{where} "
                                         f"(first on line {first})")
        pairs[(source, target)] = p
    if width == 0:
        raise InputError(path, None, "empty navigation file: no FROM TO P lines")
    return table


@dataclass(frozen=True)
class Session:
    """One observed session: its name and the units visited, in STEP order."""

    name: str
    ids: tuple[str, ...]


def read_nav_log(path: PathArg) -> list[Session]:
    """Read a navigation log of ``SESSION STEP ID`` lines.

    Sessions come in order of first appearance in the file, each with its
    units sorted by STEP (lines of a session need not be contiguous).

    Raises
    ------
    InputError
        A line without 3 fields, a STEP that is not an integer, a STEP
        repeated in one session (naming both lines), an empty log.

    Examples
    --------
    >>> import tempfile, os
    >>> p = os.path.join(tempfile.mkdtemp(), "log")
    >>> _ = open(p, "w").write("s1 2 b\\ns1 1 a\\ns2 1 a\\n")
    >>> [(s.name, s.ids) for s in read_nav_log(p)]
    [('s1', ('a', 'b')), ('s2', ('a',))]
    """
    sessions: dict[str, dict[int, tuple[str, int]]] = {}
    text = read_text(path)
    for line, raw in enumerate(text.split("\n"), 1):
        stripped = raw.strip()
        if not stripped or stripped[0] == "#":
            continue
        fields = [f.strip() for f in stripped.split("\t")] if "\t" in stripped else stripped.split()
        if len(fields) != 3:
            raise InputError(path, line, f"expected 3 fields SESSION STEP ID, got {len(fields)}")
        name, step_text, unit = fields
        step = parse_int(path, line, step_text, "STEP an integer")
        steps = sessions.setdefault(name, {})
        if step in steps:
            raise InputError(path, line, f"duplicate STEP {step} in session {name!r} "
                                         f"(first on line {steps[step][1]})")
        steps[step] = (unit, line)
    if not sessions:
        raise InputError(path, None, "empty navigation log: no SESSION STEP ID lines")
    return [Session(name, tuple(steps[k][0] for k in sorted(steps)))
            for name, steps in sessions.items()]


def estimate_transitions(sessions: Iterable[Session | Sequence[str]]) -> dict[Pair, float]:
    """Maximum-likelihood one-step transition probabilities from sessions.

    P(x -> y) = (number of times y directly follows x)
    / (number of visits to x), where a visit that ends its session counts in
    the denominator too: the user *stopped* there.  So for every x,
    ``1 - sum_y P(x -> y)`` is the observed probability of stopping at x, and
    the result is a sub-stochastic matrix fit for hitting probabilities.
    Consecutive repeats of one unit (a reload) are merged into one visit
    first: staying is not a move.

    Parameters
    ----------
    sessions : iterable of Session or of sequences of ids
        Visits in order.

    Returns
    -------
    dict of (str, str) to float
        Pairs observed at least once, in order of first observation.

    Examples
    --------
    >>> estimate_transitions([["a", "b", "c"], ["a", "c"], ["a"], ["b", "b", "c"]])
    {('a', 'b'): 0.3333333333333333, ('b', 'c'): 1.0, ('a', 'c'): 0.3333333333333333}

    Here a is visited 3 times (once ending a session): P(stop | a) = 1/3.
    """
    moves: Counter[Pair] = Counter()
    visits: Counter[str] = Counter()
    for session in sessions:
        ids = session.ids if isinstance(session, Session) else session
        previous: str | None = None
        for unit in ids:
            if unit == previous:
                continue
            visits[unit] += 1
            if previous is not None:
                moves[(previous, unit)] += 1
            previous = unit
    return {pair: count / visits[pair[0]] for pair, count in moves.items()}
