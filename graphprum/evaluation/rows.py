"""The result of an evaluation as plain rows: :class:`ResultRows`.

:func:`~graphprum.evaluation.core.run_evaluation` builds the rows; the
Python API turns them into a pandas DataFrame (:meth:`ResultRows.to_frame`),
the command line writes them as they are (:mod:`graphprum.results`), so an
``eval`` never loads pandas (half a second of import: the one import made
where it is used, in the functions that make a DataFrame).

Examples
--------
>>> nan = float("nan")
>>> res = ResultRows([("r", "AP", "all", 0.5, nan),
...                   ("r", "PRUM(exact=mc)", "1", 0.25, 0.01),
...                   ("r", "PRUM(exact=mc)", "all", 0.25, 0.01)], simulated=True)
>>> [m for _, m, _, _ in res.printed()]
['AP', 'PRUM(exact=mc)', 'PRUM(exact=mc)', 'PRUM(exact=mc) stderr', 'PRUM(exact=mc) stderr']
>>> len(res.without_summary())
1
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import pandas as pd

#: Columns of the result (and ``stderr`` when a measure has one).
COLUMNS = ["run", "measure", "topic", "value"]
#: One row: run, measure, topic, value, standard error (NaN where there is none).
Row = tuple[str, str, str, float, float]
#: Where the results ``unknown="skip"`` dropped per run are told: the
#: DataFrame's ``attrs`` key, and the name in the output's metadata.
SKIPPED = "unknown_skipped"
#: A row as printed: run, measure, topic, value.
PrintedRow = tuple[str, str, str, float]


def stderr_name(spec: object) -> str:
    """How the command line names the standard error of a simulated measure:
    ``NAME(...) stderr``."""
    return f"{spec} stderr"


@dataclass(frozen=True)
class ResultRows:
    """One row per run, measure and topic (topic ``all``: the aggregate).

    Attributes
    ----------
    rows : list of (run, measure, topic, value, stderr)
        In the order of the result: per run, per measure, the topics then ``all``.
    simulated : bool
        Whether a measure is simulated (``PRUM(exact=mc)``): the DataFrame
        then has a ``stderr`` column, and printed results ``NAME stderr`` rows.
    absent : frozenset of (run, topic)
        The topics a run lacks, evaluated on an empty ranking (trec_eval -c).
    skipped : dict of str to int, or None
        With ``unknown="skip"``: per run, the results dropped because the
        store does not hold their ids (None otherwise).
    """

    rows: list[Row]
    simulated: bool = False
    absent: frozenset[tuple[str, str]] = frozenset()
    skipped: Mapping[str, int] | None = None

    def __len__(self) -> int:
        return len(self.rows)

    def without_summary(self) -> ResultRows:
        """The rows of single topics only (no ``all`` rows; trec_eval -n)."""
        return dataclasses.replace(self, rows=[r for r in self.rows if r[2] != "all"])

    def without_absent(self) -> ResultRows:
        """Without the rows of topics a run lacks (their values still count in
        ``all``): trec_eval prints none for them."""
        return dataclasses.replace(self, rows=[r for r in self.rows
                                               if (r[0], r[2]) not in self.absent])

    def printed(self) -> list[PrintedRow]:
        """The rows as the command line prints them: after the rows of a
        simulated measure, rows ``NAME stderr`` with its standard errors."""
        return printed_rows(self.rows)

    def to_frame(self) -> pd.DataFrame:
        """A pandas DataFrame: :data:`COLUMNS`, and ``stderr`` when a measure is
        simulated; ``attrs[SKIPPED]`` holds :attr:`skipped` when there is one."""
        import pandas as pd  # only for a DataFrame (module notes)

        if self.simulated:
            df = pd.DataFrame(self.rows, columns=[*COLUMNS, "stderr"])
        else:
            df = pd.DataFrame([r[:4] for r in self.rows], columns=COLUMNS)
        if self.skipped is not None:
            df.attrs[SKIPPED] = dict(self.skipped)
        return df


def printed_rows(rows: Sequence[tuple[object, ...]]) -> list[PrintedRow]:
    """Rows of (run, measure, topic, value[, stderr]) as printed: a measure's
    standard errors (where not NaN) follow its rows as ``NAME stderr`` rows."""
    out: list[PrintedRow] = []
    pending: list[PrintedRow] = []
    group: tuple[object, object] | None = None
    for row in rows:
        run, measure, topic, value = row[:4]
        if (run, measure) != group:
            out.extend(pending)
            pending, group = [], (run, measure)
        out.append((run, measure, topic, value))  # type: ignore[arg-type]
        err = row[4] if len(row) > 4 else math.nan
        if err == err:  # not NaN
            pending.append((run, stderr_name(measure), topic, err))  # type: ignore[arg-type]
    out.extend(pending)
    return out

