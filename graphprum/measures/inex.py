"""The INEX 2006 measures and PRUM appendix C measures (DESIGN §1.6): where they
are declared, the task presets of ``--task`` and the rules a task sets a run.

=================  ==========================================  ===============
name               meaning                                     module
=================  ==========================================  ===============
``xCG@k``          cumulated gain (focused: eq. 8 gains);      :mod:`.xcg`
                   with ``alpha=`` PRUM app. C.3 instead       :mod:`.grp`
``nxCG@k``         normalised cumulated gain (eq. 7)           :mod:`.xcg`
``ep@L``           interpolated effort-precision (eqs. 5-6)    :mod:`.xcg`
``MAep``           mean average effort-precision               :mod:`.xcg`
``gP@k``/``gR@k``  generalized precision / recall (12-13)      :mod:`.ric`
``AgP``            average generalized precision (MAgP)        :mod:`.ric`
``BEPD(A=..)``     best in context distance (eq. 14)           :mod:`.bic`
``EPRUM``          eqs. 15-16 with the ``bep`` model           :mod:`.bic`
``GRP``/``GRPng``  PRUM app. C.1 / C.2                         :mod:`.grp`
=================  ==========================================  ===============

Common parameters: ``task=thorough|focused`` (XCG family), ``ignore=t1|t2``
(tags too small to count, §8.1), ``A=`` and ``L=`` (BEPD, EPRUM).

Bare names expand to the values INEX 2006 reported: ``nxCG`` -> ``nxCG@5,
10, 25, 50``, ``gP`` -> ``gP@5, 10, 25, 50``, ``ep`` -> ``ep@0.0 ... 1.0``.

Examples
--------
>>> from graphprum.measures.registry import family, parse_measure
>>> [str(s) for s in family("nxCG").expand(parse_measure("nxCG(task=focused)"))]
['nxCG(task=focused)@5', 'nxCG(task=focused)@10', 'nxCG(task=focused)@25', 'nxCG(task=focused)@50']
"""

from __future__ import annotations

import itertools

from graphprum.errors import UsageError

#: The measures INEX 2006 reported per task (§4.3, 5.3, 6.3, 7.3), for a
#: ``--task`` option: ``-m`` names each preset stands for.
TASK_PRESETS: dict[str, list[str]] = {
    "thorough": ["MAep", "ep"],
    "focused": ["nxCG"],
    "ric": ["AgP", "gP"],
    "bic": ["BEPD(A=0.01)", "BEPD(A=0.1)", "BEPD(A=1)", "BEPD(A=10)", "BEPD(A=100)",
            "EPRUM(A=0.1)"],
}
#: Long names of the tasks, accepted as well.
TASK_ALIASES = {"relevant-in-context": "ric", "best-in-context": "bic"}


def task_measures(task: str) -> list[str]:
    """Measure names of an INEX 2006 task preset (UsageError for an unknown task).

    >>> task_measures("focused")
    ['nxCG']
    """
    task = TASK_ALIASES.get(task, task)
    if task not in TASK_PRESETS:
        raise UsageError(f"unknown INEX task {task!r}; known: {', '.join(TASK_PRESETS)}")
    return list(TASK_PRESETS[task])


#: What each task asks of a run (INEX 2006 §2): focused -- no two results
#: overlap (§5: "without returning overlapping elements"); relevant in
#: context -- the results of one article come together and do not overlap
#: (§6: "a set of elements ... should not contain overlapping elements",
#: articles ranked); best in context -- one element per article (§2: "a
#: single best entry point ... per relevant document").  Thorough: nothing.
TASK_RULES: dict[str, tuple[str, ...]] = {
    "thorough": (),
    "focused": ("no-overlap",),
    "ric": ("no-overlap", "grouped"),
    "bic": ("one-per-document",),
}


def task_violations(task: str, ranked: list[str]) -> list[str]:
    """What in one topic's ranking breaks the rules of ``task`` (:data:`TASK_RULES`).

    Returns one message per violation, naming the ids and their ranks
    (1-based).  Overlap is read from the ids (an XPath prefix within one
    document); ids without ``#`` are whole documents.

    >>> task_violations("focused", ["d#/a[1]/b[1]", "e#/a[1]", "d#/a[1]"])
    ['d#/a[1] (rank 3) contains d#/a[1]/b[1] (rank 1)']
    >>> task_violations("ric", ["d#/a[1]/b[1]", "e#/a[1]", "d#/a[1]/c[1]"])
    ['d#/a[1]/c[1] (rank 3): document d comes back after e#/a[1] (rank 2)']
    >>> task_violations("bic", ["d#/a[1]/b[1]", "d#/a[1]/c[1]"])
    ['d#/a[1]/c[1] (rank 2): a second element of document d (first: d#/a[1]/b[1], rank 1)']
    """
    task = TASK_ALIASES.get(task, task)
    rules = TASK_RULES.get(task)
    if rules is None:
        task_measures(task)  # the UsageError naming the known tasks
        return []
    out: list[str] = []
    by_doc: dict[str, list[int]] = {}
    for i, u in enumerate(ranked):
        by_doc.setdefault(u.partition("#")[0], []).append(i)
    if "one-per-document" in rules:
        for doc, ranks in by_doc.items():
            out.extend(f"{ranked[i]} (rank {i + 1}): a second element of document {doc} "
                       f"(first: {ranked[ranks[0]]}, rank {ranks[0] + 1})" for i in ranks[1:])
    if "grouped" in rules:
        for doc, ranks in by_doc.items():
            for a, b in itertools.pairwise(ranks):
                if b != a + 1:
                    out.append(f"{ranked[b]} (rank {b + 1}): document {doc} comes back after "
                               f"{ranked[a + 1]} (rank {a + 2})")
    if "no-overlap" in rules:
        for ranks in by_doc.values():
            if len(ranks) < 2:
                continue
            rank_of = {ranked[i]: i for i in ranks}
            for i in ranks:
                u = ranked[i]
                doc, sep, path = u.partition("#")
                steps = path.split("/")
                for k in range(2, len(steps)):  # proper ancestors /s1, /s1/s2, ...
                    outer = doc + sep + "/".join(steps[:k])
                    j = rank_of.get(outer)
                    if j is not None:
                        out.append(f"{outer} (rank {j + 1}) contains {u} (rank {i + 1})")
    return out
