"""Navigation models (DESIGN §1.5): P(y -> x), the probability that a user
shown unit y reaches unit x.

A model is parsed from its spec string (``structural:words``,
``walk:nav.tsv,hops=2``) and asked only for the pairs a measure needs:
``model.matrix(sources, targets, ctx)`` returns a ``scipy.sparse.csr_array``
of shape (len(sources), len(targets)). :func:`combine` merges several models
by noisy-or, P = 1 - prod(1 - P_m), and sets P = 1 on every pair where the
source and the target are the same unit.

Examples
--------
>>> import numpy as np, scipy.sparse as sp
>>> a = sp.csr_array(np.array([[0.4, 0.0], [0.5, 0.0]]))
>>> b = sp.csr_array(np.array([[0.5, 0.0], [0.0, 0.2]]))
>>> noisy_or([a, b]).toarray().round(3).tolist()
[[0.7, 0.0], [0.5, 0.2]]
>>> self_pairs(["a", "b"], ["b", "a", "b"]).toarray().tolist()
[[0.0, 1.0, 0.0], [1.0, 0.0, 1.0]]
"""

from __future__ import annotations

import difflib
import importlib
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Protocol

import numpy as np

from graphprum.errors import UsageError

if TYPE_CHECKING:
    import scipy.sparse as sp

    from graphprum.context import TopicContext


class NavigationModel(Protocol):
    """A navigation model: probabilities for requested (source, target) pairs."""

    #: The spec string the model was built from.
    spec: str
    #: Whether it reads the collection's structure (then a store is required).
    needs_store: bool
    #: Whether a user moves from a unit to others at all (False: only the unit
    #: itself is seen, the classical model; P is then the identity on pairs).
    browses: bool

    def matrix(self, sources: Sequence[str], targets: Sequence[str],
               ctx: TopicContext | None) -> sp.csr_array:
        """P(sources[i] -> targets[j]) as a sparse (len(sources), len(targets)) array."""
        ...


#: Every navigation model: its name (a spec's part before ':') and the
#: function that builds it from the part after ':' (""), as MODULE:FUNCTION
#: of graphprum.navigation.  A module is imported when a spec names one of
#: its models, so scipy, the summaries, ... load only for the models that use them.
MODELS = {
    "classical": "classical:build", "structural": "structural:build",
    "direct": "files:build_direct", "walk": "files:build_walk", "log": "files:build_log",
    "links": "links:build", "browse": "browse:build", "bep": "bep:build",
    "summary": "summary:build", "t2i": "t2i:build",
}

#: How each model of :data:`MODELS` is written, with its parameters and their
#: defaults (docs/measures-prum.md's table says more): ``--help``, errors.
FORMS = {
    "classical": "classical (the default: a unit leads to itself only)",
    "structural": "structural[:words] (inside a document, by length or words)",
    "links": "links[:beta=B,hops=K] (a unit's links, B = 1, K = 1)",
    "browse": "browse[:child=C,parent=P,link=L,hops=K] (1/3 each, K = 3) or browse:log=FILE",
    "walk": "walk:FILE[,hops=K] (transitions FROM TO P; K unbounded)",
    "log": "log:FILE[,hops=K] (transitions from sessions SESSION STEP ID)",
    "direct": "direct:FILE (P as listed FROM TO P)",
    "bep": "bep[:A=0.1] (INEX 2006 eq. 14)",
    "summary": "summary:AXPRE[,weight=count|length|extent] (SR eq. 7)",
    "t2i": "t2i[:tau=T|A-B,init=I,keepsviewing=true|false] (T = 15, I = 0)",
}


def form_of(spec: str) -> str:
    """How the model of ``spec`` is written (:data:`FORMS`), "" for none.

    >>> print(form_of("links:hops=x"))
    links[:beta=B,hops=K] (a unit's links, B = 1, K = 1)
    """
    return FORMS.get(spec.partition(":")[0].strip(), "")


#: P under two models given together for the user who moves by the first and
#: then, or not, by the second: ``term(first, then, sources, targets, ctx)``
#: (it stands for the first model's own matrix in the noisy-or).
Composition = Callable[[NavigationModel, NavigationModel, Sequence[str], Sequence[str],
                        "TopicContext | None"], "sp.csr_array"]
#: The models that :func:`combine` does not simply noisy-or with another:
#: (FIRST, THEN) -> MODULE:FUNCTION of the :data:`Composition` standing for
#: a FIRST model's matrix whenever a THEN model is given with it.
COMPOSITIONS = {("links", "structural"): "links:links_then_structural"}


def _function(where: str) -> Any:
    """The function ``MODULE:FUNCTION`` of graphprum.navigation (the module imported)."""
    module, _, name = where.partition(":")
    return getattr(importlib.import_module(f"graphprum.navigation.{module}"), name)


def family(model: NavigationModel) -> str:
    """The name of a model in :data:`MODELS` (``structural`` of ``structural:words``).

    >>> family(parse_model("classical"))
    'classical'
    """
    return model.spec.partition(":")[0]


def parse_model(spec: str) -> NavigationModel:
    """Build the model named by ``spec`` (``NAME`` or ``NAME:ARGS``).

    Raises UsageError for an unknown model (naming the closest known one)
    or malformed arguments.

    >>> parse_model("structurl")
    Traceback (most recent call last):
    ...
    graphprum.errors.UsageError: unknown navigation model 'structurl' in --nav 'structurl'; \
did you mean 'structural'? known: bep, browse, classical, direct, links, log, structural, \
summary, t2i, walk (their parameters: graphprum nav --help)
    """
    name, _, args = spec.partition(":")
    where = MODELS.get(name.strip())
    if where is None:
        close = difflib.get_close_matches(name.strip(), sorted(MODELS), n=1)
        raise UsageError(f"unknown navigation model {name!r} in --nav {spec!r}; "
                         + (f"did you mean {close[0]!r}? " if close else "")
                         + f"known: {', '.join(sorted(MODELS))} (their parameters: "
                         f"graphprum nav --help)")
    build: Callable[[str], NavigationModel] = _function(where)
    return build(args.strip())


def parse_options(spec: str, args: str, allowed: Mapping[str, Callable[[str], object]],
                  positional: str | None = None) -> dict[str, object]:
    """Parse ``key=value,key=value`` model arguments.

    A first item without ``=`` is taken as the ``positional`` key (a file
    name, say).  Unknown keys and bad values raise UsageError naming ``spec``.

    >>> parse_options("walk:f,hops=2", "f,hops=2", {"hops": int}, positional="file")
    {'file': 'f', 'hops': 2}
    """
    out: dict[str, object] = {}
    for i, item in enumerate(a for a in args.split(",") if a.strip()):
        key, eq, value = item.partition("=")
        key, value = key.strip(), value.strip()
        if not eq:
            if i == 0 and positional is not None:
                out[positional] = key
                continue
            raise UsageError(f"--nav {spec!r}: argument {item!r} must be key=value; "
                             f"{form_of(spec)}")
        if key not in allowed:
            raise UsageError(f"--nav {spec!r}: unknown argument {key!r}; {form_of(spec)}")
        if key in out:
            raise UsageError(f"--nav {spec!r}: {key} given twice")
        try:
            out[key] = allowed[key](value)
        except (TypeError, ValueError):
            raise UsageError(f"--nav {spec!r}: bad value {value!r} for {key}; "
                             f"{form_of(spec)}") from None
    return out


def parse_hops(value: str) -> int | None:
    """The ``hops`` option of walk models: an integer K >= 1, or ``inf`` (also
    ``none``, ``unbounded``) for walks of any length.

    >>> parse_hops("2"), parse_hops("inf")
    (2, None)
    """
    if value.strip().lower() in ("inf", "none", "unbounded"):
        return None
    k = int(value)
    if k < 1:
        raise ValueError(value)
    return k


def noisy_or(mats: Sequence[sp.csr_array]) -> sp.csr_array:
    """Noisy-or of same-shape probability arrays: 1 - prod(1 - P_m), folded
    as ``a + b - a b``, so that a pair only one array holds keeps its P
    exactly (``-expm1(log1p(-p))`` turned 0.25 into 0.24999999999999997).

    >>> import scipy.sparse as sp
    >>> noisy_or([sp.csr_array([[0.25, 0.0]]), sp.csr_array([[0.0, 0.1]])]).toarray().tolist()
    [[0.25, 0.1]]
    """
    import scipy.sparse as sp  # ~80 ms of import: browsing models only

    out = sp.csr_array(mats[0])
    for m in mats[1:]:
        m = sp.csr_array(m)
        out = sp.csr_array(out + m - out.multiply(m))
    out.eliminate_zeros()
    return out


def self_pairs(sources: Sequence[str], targets: Sequence[str]) -> sp.csr_array:
    """Indicator array of pairs where source and target are the same id."""
    import scipy.sparse as sp  # ~80 ms of import: browsing models only

    shape = (len(sources), len(targets))
    where = dict(zip(targets, range(len(targets)), strict=True))
    if len(where) == len(targets):  # distinct targets: one column per source at most
        cols = np.array([where.get(s, -1) for s in sources], dtype=np.int64)
        rows = np.flatnonzero(cols >= 0)
        return sp.csr_array((np.ones(len(rows)), (rows, cols[rows])), shape=shape)
    columns: dict[str, list[int]] = {}
    for j, t in enumerate(targets):
        columns.setdefault(t, []).append(j)
    pairs = [(i, j) for i, s in enumerate(sources) for j in columns.get(s, ())]
    r = np.array([i for i, _ in pairs], dtype=np.int64)
    c = np.array([j for _, j in pairs], dtype=np.int64)
    return sp.csr_array((np.ones(len(pairs)), (r, c)), shape=shape)


def combine(models: Sequence[NavigationModel], sources: Sequence[str],
            targets: Sequence[str], ctx: TopicContext | None) -> sp.csr_array:
    """Noisy-or of every model's matrix (a model followed by another given
    with it: :data:`COMPOSITIONS`), with P = 1 where source == target."""
    mats = []
    for m in models:
        followers: list[tuple[Composition, NavigationModel]] = [
            (_function(term), b) for (first, then), term in COMPOSITIONS.items()
            if first == family(m) for b in models if family(b) == then]
        mats += [term(m, b, sources, targets, ctx) for term, b in followers] if followers \
            else [m.matrix(sources, targets, ctx)]
    mats.append(self_pairs(sources, targets))
    out = noisy_or(mats)
    out.data = np.minimum(out.data, 1.0)
    return out
