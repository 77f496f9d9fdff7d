"""``graphprum runs``: tools that read a run and write another, or check one.

``runs focus RUN`` writes RUN without overlapping results, as INEX
participants made focused runs (:func:`graphprum.focus.focus_run`);
``runs check RUN... --task T`` lists what breaks an INEX task's rules
(:func:`graphprum.focus.check_run`); ``runs to-ranges RUN`` writes RUN as a
range run, each unit its span (:func:`graphprum.ranges.to_ranges`).  Every
tool of the group reads runs as ``eval`` does (TREC or INEX XML,
``--order``, ``--dedup``: :data:`Order`, :data:`Dedup`), takes runs of
units (:func:`read_units`) and writes a run to standard output or ``-o FILE``
(:data:`Output`, :func:`write_run_to`).
"""

import sys
from pathlib import Path
from typing import Annotated, Any

import typer

from graphprum.cli.shared import (
    TABLE_FORMATS,
    Format,
    choose_format,
    note,
    store_from_options,
    sub_app,
    user_errors,
)
from graphprum.errors import UsageError
from graphprum.evaluation.options import TASKS, EvalOptions
from graphprum.focus import check_run, focus_run
from graphprum.io.ranking import Run
from graphprum.io.runs import read_run, run_lines, write_run
from graphprum.measures.inex import task_measures
from graphprum.ranges import to_ranges
from graphprum.tabular import write_rows

runs_app = sub_app("runs", "Tools for run files: remove overlapping results (focus), check "
                           "a run against an INEX task's rules (check), turn units into "
                           "ranges (to-ranges).",
                  short_help="Tools for run files: focus, check, to-ranges.")


def _eval_option(name: str) -> Any:
    """The option ``name`` as ``eval`` declares it (flags and help of EvalOptions)."""
    declared = EvalOptions.help(name)
    return typer.Option(*declared.flags, help=declared.text)


#: How runs are read: as ``eval`` reads them.
Order = Annotated[str, _eval_option("order")]
Dedup = Annotated[bool, _eval_option("dedup")]
#: Where a tool writes the run it makes.
Output = Annotated[Path | None, typer.Option(
    "--output", "-o", help="Write the run to this file (default: standard output).")]
Tag = Annotated[str | None, typer.Option(help="TAG of the written run (default: the run's).")]
RunFile = Annotated[Path, typer.Argument(metavar="RUN", help="A run file (TREC or INEX XML).")]


def read_units(path: Path, order: str, dedup: bool) -> Run:
    """The run of ``path``, which must be a run of units (a tool of units)."""
    run = read_run(path, order=order, dedup=dedup)
    if run.ranges is not None:
        raise UsageError(f"{path}: a range run (passages or clips): this tool works on runs "
                         f"of units")
    return run


def write_run_to(run: Run, output: Path | None) -> None:
    """Write ``run`` in the TREC layout to ``output``, or to standard output."""
    if output is None:
        sys.stdout.writelines(run_lines(run))
    else:
        write_run(run, output)


@runs_app.command("focus", short_help="Write RUN without overlapping results.")
@user_errors
def focus_command(run: RunFile, output: Output = None, tag: Tag = None,
                  order: Order = "score", dedup: Dedup = False) -> None:
    """Write RUN without overlapping results: each topic's results top-down,
    a result dropped when it contains, or is inside, one kept above it (the
    higher-ranked stays, as INEX participants made focused runs).

    Overlap is read from the store (--store), which must hold every result.
    The kept results keep their SCORE and get RANK 1, 2, ..., so the run
    reads back in the same order by score or by rank. How many results were
    removed (and three of them) goes to stderr.

    Example: graphprum runs focus thorough.txt -o focused.txt
    """
    store = store_from_options(create=False)
    focused = focus_run(read_units(run, order, dedup), store, tag=tag)
    write_run_to(focused.run, output)
    kept = sum(len(t) for t in focused.run.topics.values())
    removed = focused.removed
    topics = len({r.topic for r in removed})
    note(f"run {focused.run.tag}: removed {len(removed):,} overlapping result(s) of "
         f"{kept + len(removed):,} in {topics} of {len(focused.run.topics)} topic(s)"
         + (": " + "; ".join(map(str, removed[:3])) + ("; ..." if len(removed) > 3 else "")
            if removed else ""))


@runs_app.command("check", short_help="The results that break an INEX task's rules.")
@user_errors
def check_command(
    runs: Annotated[list[Path], typer.Argument(metavar="RUN...", help="Run files.")],
    task: Annotated[str, typer.Option(
        help=f"INEX 2006 task whose rules are checked: {', '.join(TASKS)} (focused: no "
             "overlap; ric: no overlap, each article's results together; bic: one result "
             "per article).")],
    fmt: Format = None,
    order: Order = "score",
    dedup: Dedup = False,
) -> None:
    """List the results that break an INEX task's rules, one line each:
    RUN TOPIC VIOLATION (the check of 'eval --task', overlap read from the
    ids). Exit status 1 when any result breaks them, 0 when none does, as a
    linter's.

    Example: graphprum runs check focused.txt --task focused
    """
    fmt = choose_format(fmt, TABLE_FORMATS)
    task_measures(task)  # an unknown task: the error naming the known ones, before reading
    rows: list[list[str]] = []
    for path in runs:
        run = read_units(path, order, dedup)
        found = check_run(run, task)
        rows += [[run.tag, v.topic, v.message] for v in found]
        note(f"run {run.tag}: {len(found):,} violation(s) of the rules of the {task} task"
             + (f" in {len({v.topic for v in found})} of {len(run.topics)} topic(s)"
                if found else ""))
    write_rows(["run", "topic", "violation"], rows, fmt, sys.stdout)
    if rows:
        raise typer.Exit(1)


@runs_app.command("to-ranges", short_help="Write RUN as a range run (spans of units).")
@user_errors
def to_ranges_command(run: RunFile, output: Output = None, tag: Tag = None,
                      order: Order = "score", dedup: Dedup = False) -> None:
    """Write RUN as a range run: each unit replaced by its span, an element
    by DOC OFFSET LENGTH (characters of its document's text), a video
    segment by VIDEO START END (seconds), so that a run of units can be
    compared with runs of passages or clips (docs/formats.md, Range runs).

    The spans are read from the store (--store), which must hold every
    result. Results keep their order (RANK 1, 2, ...) and SCORE; when tied
    scores would read back in another order (ranges break ties by DOC,
    then OFFSET) a note says so: evaluate with --order rank.

    Example: graphprum runs to-ranges elements.txt -o passages.txt
    """
    ranges = to_ranges(read_units(run, order, dedup), store_from_options(create=False), tag=tag)
    write_run_to(ranges, output)
    for message in ranges.notes:
        note(message)
    note(f"run {ranges.tag}: {sum(len(t) for t in ranges.topics.values()):,} result(s) in "
         f"{len(ranges.topics)} topic(s) written as {ranges.ranges} ranges")
