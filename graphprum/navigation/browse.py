"""The ``browse`` navigation model: one user walk over the collection's
structure and its links (PRUM §2.1).

From a unit x the user moves, at each step, along one of the graph's own
edges:

*  to one of x's children, each equally likely, with probability C;
*  to x's parent, with probability P;
*  along one of the links x's text holds (the links in x's subtree,
   multiplicity counted: "inversely proportional to the total number of
   hyperlinks in the document", PRUM §1), with probability L;

and stops with the rest, 1 − C − P − L, or when the move drawn does not
exist there (a leaf has no child, a root no parent, a unit may hold no
link).  A link arrives at the target document's root or at the element its
fragment names.  P(x → y) is the probability that this walk, started at x,
reaches y within K moves: the hitting probability (§2.3, Fig. 2), y ending
the walk.  So a user reading a paragraph that holds a link may follow it
(a link move), arrive at the target's root and go down to the section
that answers the topic (child moves), or first go up to the section (a
parent move) and follow a link another paragraph of it holds.  On a
collection of pages (no children, no parents) it is ``links:beta=L``.

Spec: ``browse[:child=C,parent=P,link=L,hops=K]``, defaults C = P = L =
1/3 (no move preferred a priori; the paper gives no numbers) and K = 3
(enough to follow a link and go down two levels); ``hops=inf`` for walks of
any length.  ``browse:log=FILE[,hops=K]`` estimates C, P and L from
observed sessions (``SESSION STEP ID``, as ``log:FILE`` reads them): each
observed step is a child, parent or link move of the store, and C is the
number of child moves over the number of observed positions (steps, and
session ends) at units that have a child — likewise P (units that have a
parent) and L (units that hold a link).  Under the model a user at a unit
where a move exists takes it with exactly its probability, so each ratio
estimates it without bias.  A step that is none of these (to a sibling, a
jump) counts as a stop; the counts are kept in :attr:`BrowseModel.estimate`.

Examples
--------
A document a (children b and c) and a page d; b holds a link to d.  From b:
up to a (1/3), along the link to d (1/3); from a: down to b or c (1/6 each),
along b's link (a holds it too: 1/3).

>>> import numpy as np
>>> from graphprum.store.memory import MemoryStore
>>> from graphprum.units import ParsedDocument, page_units
>>> cols = {"parent": np.array([-1, 0, 0]), "kind": np.zeros(3), "depth": np.array([0, 1, 1]),
...         "post": np.array([2, 0, 1]), "size": np.array([3, 1, 1]), "pos": np.ones(3),
...         "start": np.zeros(3), "length": np.ones(3), "words": np.ones(3)}
>>> store = MemoryStore()
>>> _ = store.load_documents([ParsedDocument("a", "a", 0, ["a", "b", "c"],
...     ["/a", "/a/b", "/a/c"], cols, [(1, "d", "")]), page_units(["d"])])
>>> class Ctx: store = store
>>> from graphprum.navigation.base import parse_model
>>> m = parse_model("browse:hops=1")
>>> m.matrix(["a#/a[1]/b[1]", "a#/a[1]"], ["a#/a[1]", "a#/a[1]/c[1]", "d"],
...          Ctx()).toarray().round(4).tolist()
[[0.3333, 0.0, 0.3333], [1.0, 0.1667, 0.3333]]
>>> m = parse_model("browse:hops=2")  # b -> a -> c: 1/3 · 1/6
>>> m.matrix(["a#/a[1]/b[1]"], ["a#/a[1]/c[1]"], Ctx()).toarray().round(4).tolist()
[[0.0556]]
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np
import scipy.sparse as sp

from graphprum.errors import InputError, UsageError
from graphprum.io.navfile import Session, read_nav_log
from graphprum.navigation.base import parse_hops, parse_options
from graphprum.navigation.links import store_walk, walk_probabilities

if TYPE_CHECKING:
    from graphprum.context import TopicContext
    from graphprum.store.base import LinkWalk, Store

#: The move types, in the order the weights are given.
MOVES = ("child", "parent", "link")
#: Weights of the moves when none is given.
DEFAULT_WEIGHT = 1 / 3
#: Moves when ``hops`` is not given.
DEFAULT_HOPS = 3
#: Weights may sum to this much above 1 (rounding in a spec).
SUM_TOL = 1e-9


def move_transitions(walk: LinkWalk, child: float, parent: float,
                     link: float) -> sp.csr_array:
    """One-step transitions among a structure walk's nodes: C / (children
    of x) to each child, P to the parent, L · (links x holds into z) /
    (links x holds) along links.

    >>> import numpy as np, scipy.sparse as sp
    >>> from graphprum.store.base import LinkWalk
    >>> w = LinkWalk(np.array([0]), np.array([1]), sp.csr_array((3, 3)),
    ...              parents=np.array([-1, 0, 0]), children=np.array([2, 0, 0]))
    >>> move_transitions(w, 0.5, 0.25, 0.25).toarray().tolist()
    [[0.0, 0.25, 0.25], [0.25, 0.0, 0.0], [0.25, 0.0, 0.0]]
    """
    assert walk.parents is not None and walk.children is not None
    m = len(walk.parents)
    kid = np.flatnonzero(walk.parents >= 0)
    up = walk.parents[kid]
    down = child / walk.children[up]
    tree = sp.csr_array((np.concatenate([np.full(len(kid), parent), down]),
                         (np.concatenate([kid, up]), np.concatenate([up, kid]))), shape=(m, m))
    return sp.csr_array(walk.transitions * link + tree)


class BrowseModel:
    """P(x → y): hitting probability of y from x within K moves to a child,
    the parent or along a link (module notes).

    Parameters
    ----------
    spec : str
        The ``--nav`` spec it was built from.
    weights : tuple of float
        C, P, L: the probabilities of a child, parent and link move
        (ignored when ``log`` is given).
    hops : int or None
        K ≥ 1, the longest walk; None for any length.
    log : str, optional
        A navigation log to estimate the weights from.
    """

    needs_store = True
    browses = True

    def __init__(self, spec: str, weights: tuple[float, float, float] = (DEFAULT_WEIGHT,) * 3,
                 hops: int | None = DEFAULT_HOPS, log: str | None = None) -> None:
        for name, w in zip(MOVES, weights, strict=True):
            if not 0.0 <= w <= 1.0:
                raise UsageError(f"--nav {spec!r}: {name} must be in [0, 1], got {w}")
        if sum(weights) > 1.0 + SUM_TOL:
            raise UsageError(f"--nav {spec!r}: child + parent + link must be at most 1 "
                             f"(the rest is the probability of stopping), got {sum(weights):g}")
        self.spec = spec
        self.hops = hops
        self.log = log
        self._weights: tuple[float, float, float] | None = None if log else weights
        #: With ``log``: per move, (moves observed, positions where it existed); ``other``:
        #: steps that are no move of the store.
        self.estimate: dict[str, tuple[int, int]] = {}

    def weights(self, store: Store) -> tuple[float, float, float]:
        """C, P, L (estimated from the log on first use)."""
        if self._weights is None:
            assert self.log is not None
            self.estimate = estimate_moves(read_nav_log(self.log), store, self.log)
            w = [n / seen if seen else 0.0 for n, seen in (self.estimate[m] for m in MOVES)]
            total = sum(w)
            if total > 1.0:  # possible in a small log: keep the proportions
                w = [x / total for x in w]
            self._weights = (w[0], w[1], w[2])
        return self._weights

    def matrix(self, sources: Sequence[str], targets: Sequence[str],
               ctx: TopicContext | None) -> sp.csr_array:
        """P(sources[i] → targets[j]) as a sparse array; 1 where they are one unit."""
        store = getattr(ctx, "store", None)
        if store is None:
            raise UsageError(f"--nav {self.spec}: the browse model needs a store (--store)")
        if not len(sources) or not len(targets):
            return sp.csr_array((len(sources), len(targets)))
        child, parent, link = self.weights(store)
        walk = store_walk(ctx, sources, targets, self.hops, structure=True)
        return walk_probabilities(walk, move_transitions(walk, child, parent, link), self.hops)


def estimate_moves(sessions: Sequence[Session], store: Store,
                   log: str = "navigation log") -> dict[str, tuple[int, int]]:
    """Per move type, how often it was observed and at how many observed
    positions it existed (module notes); ``other``: the steps that are no
    move of the store, and the positions in all.  Units the store does not
    hold are an error naming the ``log`` (a log of another collection)."""
    ids = list(dict.fromkeys(u for s in sessions for u in s.ids))
    missing = [u for u, k in zip(ids, store.kinds(ids).tolist(), strict=True) if k < 0]
    if missing:
        raise InputError(log, None, f"{len(missing)} unit(s) of the log are not in the store "
                                    f"{store.location}, e.g. {missing[0]!r}")
    walk = store.link_walk(ids, ids, 1, structure=True)
    index = dict(zip(ids, walk.sources.tolist(), strict=True))
    assert walk.parents is not None and walk.children is not None and walk.out_links is not None
    links = sp.csr_array(walk.transitions)
    moved = dict.fromkeys(MOVES, 0)
    there = dict.fromkeys(MOVES, 0)
    other = positions = 0
    for session in sessions:
        at = [index[u] for u in session.ids]
        for k, i in enumerate(at):
            positions += 1
            there["child"] += int(walk.children[i] > 0)
            there["parent"] += int(walk.parents[i] != -1)
            there["link"] += int(walk.out_links[i] > 0)
            if k + 1 == len(at):
                continue
            j = at[k + 1]
            if walk.parents[j] == i:
                moved["child"] += 1
            elif walk.parents[i] == j:
                moved["parent"] += 1
            elif links[i, j] > 0:
                moved["link"] += 1
            else:
                other += 1
    out = {m: (moved[m], there[m]) for m in MOVES}
    out["other"] = (other, positions)
    return out


def build(args: str) -> BrowseModel:
    spec = "browse" + (f":{args}" if args else "")
    opts = parse_options(spec, args, {"child": float, "parent": float, "link": float,
                                      "hops": parse_hops, "log": str})
    log = opts.get("log")
    if log is not None and any(m in opts for m in MOVES):
        raise UsageError(f"--nav {spec!r}: give the move probabilities or log=FILE, not both")
    weights = tuple(float(opts.get(m, DEFAULT_WEIGHT)) for m in MOVES)  # type: ignore[arg-type]
    hops = opts.get("hops", DEFAULT_HOPS)
    return BrowseModel(spec, (weights[0], weights[1], weights[2]),
                       hops if hops is None else int(hops),  # type: ignore[call-overload]
                       str(log) if log is not None else None)
