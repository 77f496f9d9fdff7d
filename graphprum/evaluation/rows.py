"""The result of an evaluation as plain rows: :class:`ResultRows`, built by :func:`result_rows`.

:func:`result_rows` makes the table of a job once its topics are
evaluated: per run, per measure, the topics' values, then the ``all`` row
aggregated as the measure declares
(:func:`graphprum.measures.names.aggregation`), the topics' values added in
trec_eval's order (topic ids sorted as C strings); a simulated measure's
rows carry standard errors.  :func:`grouped_notes` folds the per-topic
notes of a measure into a few lines.  The Python API turns the rows into
a pandas DataFrame (:meth:`ResultRows.to_frame`), the command line writes
them as they are (:mod:`graphprum.results`), so an ``eval`` never loads
pandas (half a second of import: the one import made where it is used, in
the functions that make a DataFrame).

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
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from graphprum.evaluation.job import Job
from graphprum.evaluation.topics import ClassicalValues, TopicOutput
from graphprum.measures.names import aggregation
from graphprum.measures.registry import MeasureSpec, aggregate

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


def is_simulated(spec: MeasureSpec) -> bool:
    """Whether ``spec`` is simulated (``exact=mc``) and so has a standard error."""
    return spec.params.get("exact") == "mc"


#: A per-topic note: ``note: run R: MEASURE: topic T: what``.
_TOPIC_NOTE = re.compile(r"(note: run .+?: \S+): topic (\S+): (.*)", re.DOTALL)
#: Per-topic notes of one run and measure shown in full before the rest are summed up.
NOTES_SHOWN = 2


def grouped_notes(notes: Sequence[str]) -> list[str]:
    """``notes`` with the per-topic notes of one run and measure beyond the
    first :data:`NOTES_SHOWN` folded into one line naming their topics (a
    simulated measure can note every topic of every run).

    >>> notes = [f"note: run r: PRUM(x): topic {t}: spread {t}" for t in "1234"]
    >>> for line in grouped_notes([*notes, "note: other"]):
    ...     print(line)
    note: run r: PRUM(x): topic 1: spread 1
    note: run r: PRUM(x): topic 2: spread 2
    note: run r: PRUM(x): a like note for 2 more topics: 3, 4
    note: other
    """
    groups: dict[str, list[tuple[str, str]]] = {}  # head -> (topic, note)
    out: list[str | tuple[str, list[tuple[str, str]]]] = []
    for note in notes:
        m = _TOPIC_NOTE.fullmatch(note)
        if m is None:
            out.append(note)
            continue
        members = groups.get(m.group(1))
        if members is None:
            members = groups[m.group(1)] = []
            out.append((m.group(1), members))
        members.append((m.group(2), note))
    lines: list[str] = []
    for item in out:
        if isinstance(item, str):
            lines.append(item)
            continue
        head, members = item
        lines.extend(note for _, note in members[:NOTES_SHOWN])
        rest = [topic for topic, _ in members[NOTES_SHOWN:]]
        if rest:
            more = f"{len(rest)} more topic{'s' if len(rest) > 1 else ''}"
            lines.append(f"{head}: a like note for {more}: {', '.join(rest[:20])}"
                         + (" ..." if len(rest) > 20 else ""))
    return lines


def result_rows(job: Job, per_topic_out: Sequence[TopicOutput],
                classical_values: ClassicalValues, per_topic: bool) -> ResultRows:
    """The result rows: per run, per measure, the topics' values (with
    ``per_topic``) and their aggregate; ``per_topic_out`` holds the job's
    topics in order (none when no topic was evaluated one by one),
    ``classical_values`` the classical measures' values per run."""
    topics, opts = job.topics, job.options
    rows: list[Row] = []
    for ri, run in enumerate(job.runs):
        values: dict[str, dict[str, float]] = {str(s): {} for s in job.specs}
        errors: dict[str, dict[str, float]] = {}
        for topic, out in zip(topics, per_topic_out, strict=False):
            for name, value in out.values[ri].items():
                values.setdefault(name, {})[topic] = value
            for name, err in out.stderr[ri].items():
                errors.setdefault(name, {})[topic] = err
        run_topics = topics if opts.complete else [t for t in topics if t in run.topics]
        if classical_values:
            values.update(classical_values[ri])
        for s in job.specs:
            rows.extend(_measure_rows(job, run.tag, s, values[str(s)], errors.get(str(s), {}),
                                      run_topics, per_topic))
    absent = frozenset((run.tag, t) for run in job.runs for t in topics
                       if opts.complete and t not in run.topics)
    skipped = {run.tag: len(gone) for run, gone in zip(job.runs, job.skipped, strict=True)} \
        if job.skipped else None
    return ResultRows(rows, any(is_simulated(s) for s in job.specs), absent, skipped)


def _measure_rows(job: Job, tag: str, spec: MeasureSpec, per: Mapping[str, float],
                  errors: Mapping[str, float], run_topics: Sequence[str], per_topic: bool
                  ) -> list[Row]:
    """The rows of one measure of one run: its topics (with ``per_topic``), then ``all``."""
    name = str(spec)
    vals = [per.get(t, 0.0) for t in run_topics]
    # a topic that scores 0 without simulation (missing from the run) has error 0
    errs = [errors.get(t, 0.0) for t in run_topics] if is_simulated(spec) else None
    rows = [(tag, name, t, v, e) for t, v, e in
            zip(run_topics, vals, errs or [math.nan] * len(vals), strict=True)] \
        if per_topic else []
    # added in trec_eval's order, topic ids sorted as C strings
    total = aggregate([per.get(t, 0.0) for t in sorted(run_topics, key=_c_order)],
                      aggregation(spec))
    if name == "num_rel" and job.options.complete:
        # trec_eval -c (m_num_rel.c): every judgement with REL > 0 of the
        # qrels, whatever -l, -J or -M
        total = float(sum(1 for judged in job.qrels.values() for rel in judged.values()
                          if rel > 0))
    rows.append((tag, name, "all", total, _mean_error(errs) if errs is not None else math.nan))
    return rows


def _c_order(topic: str) -> bytes:
    """A topic id's sort key as C's strcmp compares it (trec_eval's order)."""
    return topic.encode("utf-8", "surrogateescape")


def _mean_error(errs: Sequence[float]) -> float:
    """Standard error of the mean over topics of a simulated measure.

    Topics are simulated independently, so the standard error of the mean
    over n topics is sqrt(sum of squared per-topic errors) / n.

    >>> _mean_error([0.3, 0.4])
    0.25
    """
    return float(np.sqrt(np.sum(np.square(errs))) / len(errs)) if errs else 0.0
