"""Runs: TREC ``TOPIC Q0 ID RANK SCORE TAG`` files, tree runs, and the entry point.

Evaluation order inside a topic (DESIGN §1.3), ``order="score"`` (default):
SCORE descending, ties broken by ID descending — trec_eval's ``comp_sim_docno``
(``strcmp(docno2, docno1)``).  Two details make this *exactly* trec_eval:

- trec_eval keeps ``sim`` in a C ``float``: scores are compared after
  rounding to single precision (1.0 and 1.00000001 tie), though
  :attr:`RankedTopic.scores` keeps the values as written.
- ``strcmp`` compares bytes; Python compares ``str`` by code point, which is
  the same order for UTF-8.

``order="rank"`` sorts by RANK ascending (as INEX did); lines with equal RANK
are then ordered by the score rule above (SCORE descending, ID descending),
so the result never depends on the order of lines in the file.

A duplicate (TOPIC, ID) is an error naming both lines, unless ``dedup=True``
keeps the first line in file order.  One TAG per file; an empty run is an
error.  Element ids whose XPath has steps without a position
(``doc#/article/sec``, the INEX convention for ``[1]``) are normalised as
INEX XML runs are (``doc#/article[1]/sec[1]``); two lines that become the
same id are a duplicate.  RANK and SCORE are written with ASCII digits (SCORE may be ``inf``,
as trec_eval's ``atof`` reads it).  Fields after the sixth are ignored, as
trec_eval does, with a note in :attr:`Run.notes`.

Reading: one fast pass reads the file into columns with pyarrow's CSV
reader, a block at a time (:func:`read_columns`; about 20 bytes per line
beside the ids' characters, kept as one Arrow column); it takes files whose
lines hold six fields split by single spaces (or single tabs), comment
lines aside, and refuses anything else: other white space (a field pyarrow
would keep whole and Python split), a carriage return not ending a line, a
number written otherwise than the careful pass allows, a duplicate (unless
``dedup``), a second TAG, ids to normalise, tree runs.  A refused file is
read by the careful pass, line by line, which names the line of any problem
(:func:`_parse_careful`).  Both give the same run.

Tree runs (``trees=True``, for SR): all lines of a topic with one RANK form
one tree, trees are ranked by RANK ascending, units inside a tree keep file
order; a unit may appear in several trees, a repeat inside one tree is an
error (``dedup=True`` drops it).

Examples
--------
>>> import tempfile, os
>>> p = os.path.join(tempfile.mkdtemp(), "run")
>>> _ = open(p, "w").write('''1 Q0 a 1 0.5 sys
... 1 Q0 c 2 0.9 sys
... 1 Q0 b 3 0.5 sys
... ''')
>>> run = read_run(p)
>>> run.tag, run.ranked("1")
('sys', ['c', 'b', 'a'])
>>> read_run(p, order="rank").ranked("1")
['a', 'c', 'b']
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Mapping, Sequence

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.csv as pa_csv

from graphprum.errors import InputError, UsageError
from graphprum.io.columns import from_numpy, release, to_numpy
from graphprum.io.inex_run import read_inex_run
from graphprum.io.lines import (
    DECIMAL,
    INTEGER,
    PathArg,
    decode_text,
    expect_count,
    find_line,
    gc_paused,
    is_stream,
    iter_lines,
    parse_float,
    parse_int,
    read_bytes,
    seconds,
    sniff,
)
from graphprum.io.range_runs import (
    LAYOUTS,
    field_text,
    is_range_line,
    range_fields,
    range_lines,
)
from graphprum.io.ranking import (
    ORDERS,
    RANGE_LAYOUTS,
    RankedTopic,
    Run,
    RunColumns,
    TopicTable,
    check_order,
    ordered_table,
    ranked_table,
    ranked_topic,
)
from graphprum.io.xpaths import is_positional_id, normalise_id

__all__ = [
    "ORDERS",
    "RankedTopic",
    "Run",
    "TopicTable",
    "check_order",
    "is_xml",
    "read_columns",
    "read_run",
    "read_trec_run",
    "run_from_columns",
    "run_lines",
    "write_run",
]

_LAYOUT = "TOPIC Q0 ID RANK SCORE TAG"


def read_trec_run(path: PathArg, order: str = "score", dedup: bool = False,
                  trees: bool = False) -> Run:
    """Read a TREC run file (see the module notes for order, duplicates, trees).

    Raises
    ------
    InputError
        A line without 6 fields, a RANK that is not an integer, a SCORE that
        is not a number, a second TAG, a duplicate (TOPIC, ID) (or a repeat
        inside one tree), an empty file; always naming ``file:line``.
    """
    check_order(order)
    if not trees:
        plain = _plain_file(path)
        source: bytes | str
        if plain is not None:
            source, head = plain
        else:
            source = head = read_bytes(path)
        fast = _read_fast(source, order, dedup, _first_is_range(head), head)
        if fast is not None:
            return Run(tag=fast[0], topics=fast[1], path=str(path), ranges=fast[2])
    extra: list[int] = []
    text = decode_text(path, read_bytes(path))
    with gc_paused():
        tag, topics = _parse_careful(path, text, dedup, trees, extra)
    del text
    if tag is None:
        raise InputError(path, None, f"empty run: no result lines {_LAYOUT}")
    run = _finish(path, tag, topics, order, dedup, trees)
    run.path = str(path)
    if extra:
        run.notes.append(f"note: {path}: {extra[1]} line(s) have more than 6 fields; the "
                         f"fields after the 6th are ignored, as trec_eval does (first on "
                         f"line {extra[0]})")
    return run


def _plain_file(path: PathArg) -> tuple[str, bytes] | None:
    """``path`` and its first block of bytes when pyarrow may read it itself
    (a regular file of text with no comment line and no carriage return: one
    pass over its blocks), so that its bytes are never held whole; None for
    anything else (standard input, gzip, a file that cannot be read, a name
    that is not UTF-8, which pyarrow cannot open: :func:`read_bytes` reads
    those)."""
    if is_stream(path):
        return None
    try:
        os.fspath(path).encode("utf-8")  # (a name that is not UTF-8 holds surrogates)
        with open(path, "rb") as f:
            head = block = f.read(1 << 20)
            if head.startswith(b"\x1f\x8b") or head.lstrip(b"\xef\xbb\xbf").startswith(b"#"):
                return None
            while block:
                if b"\r" in block or b"\n#" in block:
                    return None
                more = f.read(1 << 20)
                block = block[-1:] + more if more else b""
    except (OSError, UnicodeEncodeError):
        return None
    return os.fspath(path), head


def _first_is_range(head: bytes) -> bool:
    """Whether the first result line of run text (``head``: its first bytes)
    is a range run's (:func:`graphprum.io.range_runs.is_range_line`)."""
    for line in head[:1 << 16].split(b"\n"):
        fields = line.decode("utf-8", "replace").split()
        if fields and not fields[0].startswith("#"):
            return is_range_line(fields)
    return False


#: What the careful pass splits fields at (Python's white space, ``str.split``)
#: and pyarrow keeps in a field, or an empty field: such an id is read carefully.
_SPACE = (r"^$|[ \t\n\x0b\x0c\r\x1c-\x1f\x{85}\x{a0}\x{1680}\x{2000}-\x{200a}\x{2028}"
          r"\x{2029}\x{202f}\x{205f}\x{3000}]")
_COLUMNS = ["topic", "q0", "id", "rank", "score", "tag"]
_RANGE_COLUMNS = ["first", "second"]
_WORDS = pa.dictionary(pa.int32(), pa.string())
#: The numbers the careful pass takes (:data:`graphprum.io.lines.DECIMAL`, an infinity).
_RANK = f"^{INTEGER.pattern}$"
_SCORE = f"^(?:{DECIMAL.pattern}|(?i:[+-]?inf(?:inity)?))$"
#: The range fields the fast pass takes: numbers (not clock times) >= 0.
_BOUND = r"^\+?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?$"


def read_columns(source: bytes | str, order: str = "score", dedup: bool = False
                 ) -> tuple[str, TopicTable] | None:
    """The TAG and the ranked topics of TREC run text (``source``: its bytes,
    or a plain file's name, :func:`_plain_file`) read in one vectorised pass
    (module notes), or None when the careful pass must read it: the lines
    are split at single spaces (or tabs, when the first line holds one) by
    pyarrow's CSV reader, the numbers checked against the careful pass's
    rules and the other fields for white space; a duplicate (TOPIC, ID) is
    dropped with ``dedup``, the first line in file order kept.

    >>> tag, table = read_columns(b"1 Q0 a 1 0.5 t\\n# a comment\\n1 Q0 b 2 0.75 t\\n")
    >>> tag, table["1"].ids, table["1"].scores.tolist()
    ('t', ['b', 'a'], [0.75, 0.5])
    >>> read_columns(b"1 Q0 a 1 nan t\\n") is None, read_columns(b"1 Q0 a  1 2 t\\n") is None
    (True, True)
    """
    got = _read_fast(source, order, dedup, False)
    return None if got is None else (got[0], got[1])


def _read_fast(source: bytes | str, order: str, dedup: bool, ranges: bool,
               head: bytes | None = None) -> tuple[str, TopicTable, str | None] | None:
    """:func:`read_columns` of TREC text, or with ``ranges`` of a range
    run's (eight fields, the last two plain numbers;
    :mod:`graphprum.io.range_runs`), and the range layout read (None for
    TREC text); ``head``, a plain file's first bytes when read already."""
    if isinstance(source, bytes):
        data = source.removeprefix(b"\xef\xbb\xbf")
        if data.startswith(b"#") or b"\n#" in data:  # comment lines
            data = re.sub(rb"\n#[^\n]*", b"\n", b"\n" + data)
        if data.count(b"\r") != data.count(b"\r\n"):  # a line end pyarrow sees, not Python
            return None
        # a copy Arrow owns: a buffer over Python bytes is freed by the thread
        # that drops it last, and a reading thread of pyarrow's taking the GIL
        # as the interpreter exits aborts the process (1-2 runs in 100 read
        # from standard input or gzip did)
        owned = pa.BufferOutputStream()
        owned.write(data)
        got = _read_text(owned.getvalue(), _first_line(data), ranges)
    else:
        if head is None:
            with open(source, "rb") as f:
                head = f.read(1 << 16)
        # pyarrow's own file: its reading threads need no GIL (a thread of it
        # reading a Python file when the interpreter exits aborts the process)
        with pa.OSFile(source) as native:
            got = _read_text(native, _first_line(head), ranges)
    if got is None:
        return None
    tag, topics, columns, layout = got
    keep = _first_of_each(columns)
    if keep is not None:
        if not dedup:
            return None  # the careful pass names both lines
        columns = RunColumns(columns.codes[keep], pc.filter(columns.ids, from_numpy(keep)),
                             columns.scores[keep], columns.ranks[keep],
                             None if columns.bounds is None else columns.bounds[keep])
    if columns.bounds is None:
        n = len(columns.codes)
        firsts = np.full(len(topics), n)
        np.minimum.at(firsts, columns.codes, np.arange(n))
        if not all(is_positional_id(u) for u in
                   columns.ids.take(from_numpy(firsts)).to_pylist()):
            return None  # ids to normalise: read carefully
    table = ordered_table(topics, columns, order)
    release()  # what the reading took and left
    return tag, table, layout


def _first_line(text: bytes) -> bytes:
    """The first line of run text that is not blank (its first bytes will do)."""
    return text.lstrip(b"\r\n").split(b"\n", 1)[0]


def _read_text(source: pa.Buffer | pa.NativeFile, first: bytes, ranges: bool = False
               ) -> Columns | None:
    """:func:`_read_batches` of pyarrow's CSV reader over ``source``, fields
    split at tabs when the ``first`` line holds one, else at spaces; with
    ``ranges`` eight fields."""
    names = _COLUMNS + _RANGE_COLUMNS if ranges else _COLUMNS
    try:
        batches = pa_csv.open_csv(
            source, read_options=pa_csv.ReadOptions(column_names=names, use_threads=False,
                                                    block_size=BLOCK_BYTES),
            parse_options=pa_csv.ParseOptions(delimiter="\t" if b"\t" in first else " ",
                                              quote_char=False),
            convert_options=pa_csv.ConvertOptions(
                column_types={"topic": _WORDS, "q0": _WORDS, "id": pa.string(),
                              "rank": pa.string(), "score": pa.string(), "tag": _WORDS,
                              **{c: pa.string() for c in _RANGE_COLUMNS if ranges}},
                null_values=[], strings_can_be_null=False))
        # closed however the reading ends: a reader left open keeps a thread
        # reading ahead that aborts the interpreter at exit
        with batches:
            return _read_batches(batches, ranges)
    except pa.ArrowInvalid:  # a line without 6 fields, bytes not UTF-8, a RANK beyond 64 bits
        return None


#: The bytes of a file pyarrow reads at a time (a batch of lines): 1 MB keeps
#: the reader's buffers and a batch's columns small (8 MB raised the peak of
#: a million lines by 30 MB, for no speed measured; bench/run_memory.py).
BLOCK_BYTES = 1 << 20

#: A run file as read: TAG, the topics in order of first appearance, the
#: columns (each line's topic, its index in them), a range run's layout
#: (None for TREC text).
Columns = tuple[str, list[str], RunColumns, str | None]


def _read_batches(batches: pa_csv.CSVStreamingReader, ranges: bool = False) -> Columns | None:
    """The columns of the batches of lines pyarrow reads (a block of the file
    at a time, so that only its numbers and ids are kept), or None when a
    field is not what the careful pass would read the same way (module notes)."""
    topics: dict[str, int] = {}
    tags: set[str] = set()
    codes, ids, scores, ranks, bounds = [], [], [], [], []
    integral = True
    for batch in batches:
        words = [batch.column(name).dictionary.to_pylist() for name in ("topic", "q0", "tag")]
        if not all(v and v.split() == [v] for values in words for v in values):
            return None  # an empty field, or white space pyarrow keeps in one
        tags.update(words[2])
        rank_text, score_text, id_column = (batch.column(name) for name in ("rank", "score", "id"))
        if len(tags) > 1 or not _no_space(id_column) or not _all_ranks(rank_text) \
                or not _all_scores(score_text):
            return None
        if ranges:
            pair = [batch.column(name) for name in _RANGE_COLUMNS]
            if not all(_all_match(c, _BOUND) for c in pair):
                return None  # a clock time, a sign: the careful pass reads it
            integral = integral and all(_all_match(c, _RANK) for c in pair)
            got = np.column_stack([to_numpy(pc.cast(c, pa.float64())) for c in pair])
            if not integral and (got[:, 1] < got[:, 0]).any():
                return None  # an END before its START: the careful pass names the line
            bounds.append(got)
        local = np.array([topics.setdefault(t, len(topics)) for t in words[0]], np.int32)
        codes.append(local[to_numpy(batch.column("topic").indices)])
        ids.append(id_column)
        ranks.append(to_numpy(pc.cast(rank_text, pa.int64())))
        scores.append(to_numpy(pc.cast(score_text, pa.float64())))
        del batch, rank_text, score_text
        release()  # the batch's text
    if not codes:
        return None  # no line: the careful pass says the run is empty
    columns = RunColumns(np.concatenate(codes), pa.concat_arrays(ids), np.concatenate(scores),
                         np.concatenate(ranks), np.concatenate(bounds) if ranges else None)
    del codes, ids, scores, ranks, bounds
    release()  # the columns of the batches
    return (tags.pop(), list(topics), columns,
            None if not ranges else "text|time" if integral else "time")


def _any_match(texts: pa.Array, pattern: str) -> bool:
    return bool(pc.any(pc.match_substring_regex(texts, pattern)).as_py())


def _all_match(texts: pa.Array, pattern: str) -> bool:
    return bool(pc.all(pc.match_substring_regex(texts, pattern)).as_py())


# The three checks of every batch (:func:`_read_batches`) first look for
# what nearly every run writes: ids of printable ASCII (in the column's
# bytes), RANKs of ASCII digits and SCOREs of ASCII digits with at most one
# point (pyarrow's plain kernels); these pass without the regular
# expressions (a fifth of their time), which decide the rest as before.

def _text_bytes(texts: pa.StringArray) -> tuple[np.ndarray, np.ndarray]:
    """The lengths of the values of a string column (as pyarrow's CSV reader
    makes it: 32-bit offsets) and their bytes, one after the other."""
    offsets = np.frombuffer(texts.buffers()[1], np.int32, len(texts) + 1, texts.offset * 4)
    data = texts.buffers()[2]
    values = np.frombuffer(data, np.uint8)[offsets[0]:offsets[-1]] if data is not None \
        else np.zeros(0, np.uint8)
    return np.diff(offsets), values


def _no_space(ids: pa.StringArray) -> bool:
    """Whether no id is empty or holds white space (:data:`_SPACE`)."""
    lengths, values = _text_bytes(ids)
    if lengths.all() and ((values - 0x21) < 0x5f).all():  # printable ASCII, not a space
        return True
    return not _any_match(ids, _SPACE)


def _all_ranks(texts: pa.StringArray) -> bool:
    """Whether every RANK is an integer as the careful pass reads them (:data:`_RANK`)."""
    return _all(pc.ascii_is_decimal(texts)) or _all_match(texts, _RANK)


def _all_scores(texts: pa.StringArray) -> bool:
    """Whether every SCORE is a number as the careful pass reads them (:data:`_SCORE`)."""
    digits = pc.ascii_is_decimal(pc.replace_substring(texts, ".", "", max_replacements=1))
    return _all(digits) or _all_match(texts, _SCORE)


def _all(flags: pa.Array) -> bool:
    """Whether every flag holds (``ascii_is_decimal``: a value not empty, of ASCII digits)."""
    return bool(pc.all(flags).as_py())


def _first_of_each(columns: RunColumns) -> np.ndarray | None:
    """None when every (topic, id) (with a range run's range fields) is on
    one line; else which lines to keep (booleans) so that each is kept on
    its first line only."""
    codes, ids, bounds = columns.codes, columns.ids, columns.bounds
    keys = {"topic": from_numpy(codes), "id": ids}
    if bounds is not None:
        keys["first"], keys["second"] = from_numpy(bounds[:, 0]), from_numpy(bounds[:, 1])
    table = pa.Table.from_arrays(list(keys.values()), names=list(keys))
    order = pc.sort_indices(table, sort_keys=[(k, "ascending") for k in keys])
    if len(order) < 2:
        return None
    rows = to_numpy(order)
    sorted_codes = codes[rows]
    sorted_ids = pc.take(ids, order)
    same = (sorted_codes[1:] == sorted_codes[:-1]) & \
        to_numpy(pc.equal(sorted_ids.slice(1), sorted_ids.slice(0, len(rows) - 1)))
    if bounds is not None:
        same &= (bounds[rows[1:]] == bounds[rows[:-1]]).all(axis=1)
    if not same.any():
        return None
    keep = np.ones(len(codes), bool)
    keep[rows[1:][same]] = False  # the sort is stable: the first line of each comes first
    return keep


class _Topic:
    """The fields of one topic's lines while reading, in file order."""

    __slots__ = ("bounds", "ids", "integral", "ranks", "scores", "seen")

    def __init__(self) -> None:
        self.ids: list[str] = []
        self.scores: list[float] = []
        self.ranks: list[int] = []
        self.seen: dict[object, None] = {}
        self.bounds: list[tuple[float, float]] = []  # a range run's range fields
        self.integral = True  # whether they are all written as integers


def _finish(source: PathArg, tag: str, topics: dict[str, _Topic], order: str, dedup: bool,
            trees: bool) -> Run:
    """The :class:`Run` of the lines read: ids normalised, topics ordered (or
    trees built); a range run's layout from its range fields."""
    if any(acc.bounds for acc in topics.values()):
        return _finish_ranges(tag, topics, order)
    _normalise_ids(source, topics, dedup, trees)
    if trees:
        run = Run(tag=tag, trees={})
        ranked: dict[str, RankedTopic] = {}
        assert run.trees is not None
        for topic, acc in topics.items():
            run.trees[topic], ranked[topic] = _build_trees(acc)
            _check_one_document(source, topic, run.trees[topic])
        run.topics = ranked
        return run
    kept = list(topics.items())
    sizes = [len(acc.ids) for _, acc in kept]
    codes = np.repeat(np.arange(len(kept), dtype=np.int32), sizes)
    ids = [u for _, acc in kept for u in acc.ids]
    scores = np.array([s for _, acc in kept for s in acc.scores], np.float64)
    ranks = np.array([r for _, acc in kept for r in acc.ranks], np.int64)
    return Run(tag=tag, topics=ranked_table([t for t, _ in kept], codes, ids, scores, ranks,
                                            order))


def _finish_ranges(tag: str, topics: dict[str, _Topic], order: str) -> Run:
    """The :class:`Run` of a range run's lines (:func:`_finish`)."""
    kept = list(topics.items())
    sizes = [len(acc.ids) for _, acc in kept]
    bounds = np.array([b for _, acc in kept for b in acc.bounds], np.float64).reshape(-1, 2)
    table = ranked_table([t for t, _ in kept], np.repeat(np.arange(len(kept), dtype=np.int32),
                                                         sizes),
                         [u for _, acc in kept for u in acc.ids],
                         np.array([s for _, acc in kept for s in acc.scores], np.float64),
                         np.array([r for _, acc in kept for r in acc.ranks], np.int64), order,
                         bounds)
    integral = all(acc.integral for _, acc in kept)
    return Run(tag=tag, topics=table, ranges="text|time" if integral else "time")


#: Names a result of an in-memory run in error messages, by its position
#: (``lambda i: f"index {labels[i]!r}"``).
Where = Callable[[int], str]


def run_from_columns(source: str, tag: str, topics: Sequence[str], ids: Sequence[str],
                     scores: np.ndarray, ranks: np.ndarray | None, where: Where, *,
                     order: str = "score", dedup: bool = False, trees: bool = False,
                     bounds: np.ndarray | None = None, ranges: str | None = None) -> Run:
    """A :class:`Run` from results held in memory, with the rules of the files.

    The same order (trec_eval's, or RANK with ``order="rank"``), the same
    duplicate rule (an error naming both results, unless ``dedup`` keeps the
    first), the same id normalisation and tree grouping as
    :func:`read_trec_run`.  Without ``ranks`` each result's RANK is its
    position among its topic's results (1, 2, ...); ``order="rank"`` and
    ``trees`` need ranks.  A range run has ``bounds``, the two range fields
    of each result (``(n, 2)``), and their layout ``ranges``
    (:attr:`Run.ranges`); its ids are documents.

    Parameters
    ----------
    source : str
        How errors name the input (``"runs[1] (DataFrame)"``).
    tag : str
        The run's TAG.
    topics, ids : sequence of str
        TOPIC and ID of each result.
    scores : numpy.ndarray of float64
        SCORE of each result (infinities allowed, NaN not).
    ranks : numpy.ndarray of int64, or None
        RANK of each result.
    where : callable
        ``where(i)`` names result ``i`` in error messages.

    Raises
    ------
    InputError
        A NaN SCORE, a duplicate (TOPIC, ID), no results; naming the result.

    Examples
    --------
    >>> run = run_from_columns("demo", "sys", ["1", "1"], ["a", "c"], np.array([0.5, 0.9]),
    ...                        None, lambda i: f"row {i}")
    >>> run.tag, run.ranked("1")
    ('sys', ['c', 'a'])
    >>> run_from_columns("demo", "sys", ["1", "1"], ["a", "a"], np.array([0.5, 0.2]),
    ...                  None, lambda i: f"row {i}")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    graphprum.errors.InputError: demo: row 1: duplicate result 'a' ... (first at row 0); ...
    """
    check_order(order)
    if not len(ids):
        raise InputError(source, None, "empty run: no results")
    bad = np.flatnonzero(np.isnan(scores))
    if len(bad):
        raise InputError(source, None, f"{where(int(bad[0]))}: expected SCORE a number, "
                                       f"got nan")
    if bounds is not None:
        _check_bounds(source, bounds, ranges, where)
        if trees:
            raise UsageError(f"{source}: tree runs use the TREC layout, not ranges")
    if ranks is None and (order == "rank" or trees):
        raise InputError(source, None, "no RANK: " + ("tree runs need" if trees
                                                      else "order='rank' needs")
                         + " a rank for every result")
    positions: dict[str, list[int]] = {}
    for i, topic in enumerate(topics):
        found = positions.get(topic)
        if found is None:
            found = positions[topic] = []
        found.append(i)
    score_list = scores.tolist()
    rank_list = ranks.tolist() if ranks is not None else None
    lines: dict[str, _Topic] = {}
    for topic, rows in positions.items():
        acc = lines[topic] = _Topic()
        acc.ids = [ids[i] for i in rows]
        acc.scores = [score_list[i] for i in rows]
        acc.ranks = [rank_list[i] for i in rows] if rank_list is not None else \
            list(range(1, len(rows) + 1))
        if bounds is not None:
            acc.bounds = [(float(a), float(b)) for a, b in bounds[rows].tolist()]
        keys: list[object] = list(zip(acc.ids, acc.ranks, strict=True)) if trees else \
            list(zip(acc.ids, acc.bounds, strict=True)) if bounds is not None else list(acc.ids)
        if len(set(keys)) < len(keys):
            _in_memory_duplicates(source, topic, rows, keys, acc, where, dedup, trees)
    run = _finish(source, tag, lines, order, dedup, trees)
    if bounds is not None:
        run.ranges = ranges
    return run


def _check_bounds(source: str, bounds: np.ndarray, ranges: str | None, where: Where) -> None:
    """InputError naming the first result whose range fields break the
    rules of the files (:func:`graphprum.io.range_runs.range_fields`)."""
    if ranges not in RANGE_LAYOUTS:
        raise UsageError(f"{source}: range layout {ranges!r}; expected one of "
                         f"{', '.join(RANGE_LAYOUTS)}")
    finite = np.isfinite(bounds).all(axis=1) & (bounds >= 0).all(axis=1)
    rules = [(~finite, "a range needs finite numbers >= 0")]
    if ranges == "time":
        rules.append((bounds[:, 1] < bounds[:, 0], "END before START"))
    if ranges == "text":
        rules.append(((bounds != np.floor(bounds)).any(axis=1),
                      "OFFSET and LENGTH count characters: integers"))
    for bad, what in rules:
        if bad.any():
            k = int(np.flatnonzero(bad)[0])
            a, b = bounds[k].tolist()
            raise InputError(source, None, f"{where(k)}: {what}, got {a:g} {b:g}")


def _in_memory_duplicates(source: str, topic: str, rows: list[int], keys: list[object],
                          acc: _Topic, where: Where, dedup: bool, trees: bool) -> None:
    """Keep the first of repeated results of ``topic`` (``dedup``), or raise the
    duplicate error naming both."""
    first: dict[object, int] = {}
    keep: list[int] = []
    for k, key in enumerate(keys):
        if key not in first:
            first[key] = k
            keep.append(k)
            continue
        if dedup:
            continue
        unit = acc.ids[k]
        what = (f"unit {unit!r} repeated inside the tree of RANK {acc.ranks[k]} of topic "
                f"{topic!r}" if trees else f"duplicate range {field_text(acc.bounds[k][0])} "
                f"{field_text(acc.bounds[k][1])} of {unit!r} for topic {topic!r}" if acc.bounds
                else f"duplicate result {unit!r} for topic {topic!r}")
        raise InputError(source, None, f"{where(rows[k])}: {what} (first at "
                                       f"{where(rows[first[key]])})"
                         + ("" if trees else "; use dedup=True to keep the first"))
    acc.ids = [acc.ids[k] for k in keep]
    acc.scores = [acc.scores[k] for k in keep]
    acc.ranks = [acc.ranks[k] for k in keep]
    if acc.bounds:
        acc.bounds = [acc.bounds[k] for k in keep]


def _parse_careful(path: PathArg, text: str, dedup: bool, trees: bool,
                   extra: list[int]) -> tuple[str | None, dict[str, _Topic]]:
    """Line-by-line parse: raises InputError naming the line, applies ``dedup``.

    Lines with more than 6 fields are read from their first 6; ``extra``
    receives the first such line and their count.  A first line of eight
    fields ending in two numbers makes a range run
    (:mod:`graphprum.io.range_runs`), every line of which has eight fields.
    """
    topics: dict[str, _Topic] = {}
    tag: str | None = None
    tag_line = 0
    ranges: bool | None = None  # the first line decides
    first = 0
    bounds = (0.0, 0.0)
    for line, fields in iter_lines(text):
        if ranges is None:
            ranges, first = is_range_line(fields), line
            if ranges and trees:
                raise UsageError(f"{path}: tree runs (--trees) use the TREC layout {_LAYOUT}, "
                                 f"not a range run's")
        if ranges:
            if len(fields) != 8:
                raise InputError(path, line, f"expected 8 fields {LAYOUTS} as on line {first} "
                                             f"(a run holds one layout), got {len(fields)}")
            a, b, integral = range_fields(path, line, fields)
            bounds = (a, b)
        elif len(fields) != 6:
            if len(fields) < 6:
                expect_count(path, line, fields, 6, _LAYOUT)
            if is_range_line(fields):
                raise InputError(path, line, f"a range line ({LAYOUTS}) in a run of TREC lines "
                                             f"{_LAYOUT} (line {first}): a run holds one layout")
            if not extra:
                extra.extend((line, 0))
            extra[1] += 1
        topic, _, unit, rank_text, score_text, line_tag = fields[:6]
        if line_tag != tag:
            if tag is not None:
                raise InputError(path, line, f"expected one TAG per file ({tag!r} on line "
                                             f"{tag_line}), got {line_tag!r}")
            tag, tag_line = line_tag, line
        rank = parse_int(path, line, rank_text, "RANK an integer")
        score = parse_float(path, line, score_text, "SCORE a number", allow_inf=True)
        acc = topics.get(topic)
        if acc is None:
            acc = topics[topic] = _Topic()
        key = (unit, *bounds) if ranges else (unit, rank) if trees else unit
        if key in acc.seen:
            if dedup:
                continue
            if ranges:
                _duplicate_range(path, line, topic, unit, bounds)
            _duplicate(path, line, topic, unit, rank if trees else None)
        acc.seen[key] = None
        acc.ids.append(unit)
        acc.scores.append(score)
        acc.ranks.append(rank)
        if ranges:
            acc.bounds.append(bounds)
            acc.integral = acc.integral and integral
    return tag, topics


def _duplicate_range(path: PathArg, line: int, topic: str, doc: str,
                     bounds: tuple[float, float]) -> None:
    """Raise the duplicate error of a range run, naming the first line."""
    first = find_line(path, lambda f: len(f) == 8 and f[0] == topic and f[2] == doc
                      and (seconds(f[6]), seconds(f[7])) == bounds)
    raise InputError(path, line, f"duplicate range {field_text(bounds[0])} "
                                 f"{field_text(bounds[1])} of {doc!r} for "
                                 f"topic {topic!r} (first on line {first}); use --dedup to keep "
                                 f"the first")


def _normalise_ids(path: PathArg, topics: dict[str, _Topic], dedup: bool, trees: bool) -> None:
    """Positional XPaths in element ids, when the run writes them otherwise.

    Runs use one convention throughout, so only the first id of each topic
    is tested; when one of them is not positional every id is normalised.
    """
    if all(not acc.ids or is_positional_id(acc.ids[0]) for acc in topics.values()):
        return
    for topic, acc in topics.items():
        ids = [normalise_id(u) for u in acc.ids]
        keys = list(zip(ids, acc.ranks, strict=True)) if trees else ids
        if len(set(keys)) < len(keys):
            first: dict[object, int] = {}
            keep = []
            for i, k in enumerate(keys):
                if k in first:
                    if not dedup:
                        raise InputError(path, None, f"topic {topic!r}: "
                                                     f"{acc.ids[first[k]]!r} and {acc.ids[i]!r} "
                                                     f"are the same element {ids[i]!r}; use "
                                                     f"--dedup to keep the first")
                    continue
                first[k] = i
                keep.append(i)
            acc.scores = [acc.scores[i] for i in keep]
            acc.ranks = [acc.ranks[i] for i in keep]
            ids = [ids[i] for i in keep]
        acc.ids = ids


def _duplicate(path: PathArg, line: int, topic: str, unit: str, rank: int | None) -> None:
    """Raise the duplicate error, naming the first line."""

    def same(f: list[str]) -> bool:
        if len(f) < 6 or f[0] != topic or f[2] != unit:
            return False
        try:
            return rank is None or int(f[3]) == rank
        except ValueError:
            return False

    first = find_line(path, same)
    if rank is None:
        raise InputError(path, line, f"duplicate result {unit!r} for topic {topic!r} "
                                     f"(first on line {first}); use --dedup to keep the first")
    raise InputError(path, line, f"unit {unit!r} repeated inside the tree of RANK {rank} "
                                 f"of topic {topic!r} (first on line {first})")


def _check_one_document(source: PathArg, topic: str, trees: list[list[str]]) -> None:
    """InputError when a tree holds elements (ids ``DOC#/XPATH``) of two
    documents: a tree is a set of units of one document (DESIGN §1.3).
    Names the line of the first element of another document when
    ``source`` is a file."""
    for k, tree in enumerate(trees):
        elements = [u for u in tree if "#/" in u]  # element ids DOC#/XPATH
        if len(elements) < 2:
            continue
        doc = elements[0].split("#", 1)[0]
        other = next((u for u in elements if u.split("#", 1)[0] != doc), None)
        if other is None:
            continue
        raise InputError(source, _unit_line(source, topic, other),
                         f"tree {k + 1} of topic {topic!r} holds units of two documents "
                         f"({elements[0]!r} and {other!r}); a tree is units of one document")


def _unit_line(source: PathArg, topic: str, unit: str) -> int | None:
    """The first line of ``source`` (a file) naming ``unit`` for ``topic``."""
    if not (isinstance(source, str | os.PathLike) and os.path.isfile(source)):
        return None

    def names_it(f: list[str]) -> bool:
        return len(f) >= 3 and f[0] == topic and f[2] == unit

    return find_line(source, names_it) or None


def _build_trees(acc: _Topic) -> tuple[list[list[str]], RankedTopic]:
    """Group one topic's lines into trees by RANK; also its distinct units."""
    by_rank: dict[int, list[int]] = {}
    for i, rank in enumerate(acc.ranks):
        members = by_rank.get(rank)
        if members is None:
            members = by_rank[rank] = []
        members.append(i)
    ids = acc.ids
    groups = [by_rank[rank] for rank in sorted(by_rank)]
    trees = [[ids[i] for i in members] for members in groups]
    first: dict[str, int] = {}
    for members in groups:
        for i in members:
            first.setdefault(ids[i], i)
    return trees, ranked_topic(ids, acc.scores, acc.ranks, list(first.values()))


def is_xml(path: PathArg) -> bool:
    """Whether the file's first non-blank character is ``<`` (an INEX XML run)."""
    return sniff(path, 64).startswith(b"<")


def read_run(path: PathArg, order: str = "score", dedup: bool = False, trees: bool = False,
             doc_prefix: str = "") -> Run:
    """Read a run, TREC text or INEX 2006 XML, told apart by content.

    Parameters
    ----------
    path : str or PathLike
        The run file.
    order : {"score", "rank"}
        TREC runs: trec_eval's order (default) or RANK ascending.  INEX XML
        runs are always ordered by ``rank`` ascending, else ``rsv``
        descending (see :func:`graphprum.io.inex_run.read_inex_run`).
    dedup : bool
        Keep the first of duplicate (TOPIC, ID) lines instead of failing.
    trees : bool
        Read a tree run (TREC layout only).
    doc_prefix : str
        INEX XML runs: directory prepended to each ``<file>`` to form DOC.

    Raises
    ------
    InputError
        Malformed input (see the format readers); UsageError for a bad
        ``order`` or ``trees`` with an XML run.
    """
    check_order(order)
    if is_xml(path):
        if trees:
            raise UsageError(f"{path}: tree runs (--trees) must use the TREC layout, "
                             "not INEX XML")
        return read_inex_run(path, dedup=dedup, doc_prefix=doc_prefix)
    return read_trec_run(path, order=order, dedup=dedup, trees=trees)


def write_run(run: Run | Mapping[str, Sequence[str]], path: PathArg,
              tag: str | None = None) -> None:
    """Write a run in the TREC layout (a range run in its own, eight fields).

    A :class:`Run` is written with its RANK and SCORE as kept (tree runs: one
    line per unit of each tree, RANK the tree's rank), so reading the file
    back gives the same run; a plain mapping topic -> ids (best first) gets
    RANK 1, 2, ... and SCORE n, n-1, ..., 1.  ``tag`` overrides the run's tag
    (default ``"graphprum"`` for mappings).

    >>> import tempfile, os
    >>> p = os.path.join(tempfile.mkdtemp(), "r")
    >>> write_run({"7": ["x", "y"]}, p, tag="t")
    >>> open(p).read()
    '7 Q0 x 1 2 t\\n7 Q0 y 2 1 t\\n'
    >>> read_run(p).ranked("7")
    ['x', 'y']
    """
    lines = run_lines(run, tag)
    with open(path, "w", encoding="utf-8") as f:
        f.writelines(lines)


def run_lines(run: Run | Mapping[str, Sequence[str]], tag: str | None = None) -> list[str]:
    """The lines :func:`write_run` writes (each ending in a newline).

    >>> run_lines({"7": ["x"]}, tag="t")
    ['7 Q0 x 1 1 t\\n']
    """
    lines: list[str] = []
    if isinstance(run, Run) and run.ranges is not None:
        return list(range_lines(run, tag))
    if isinstance(run, Run):
        name = tag or run.tag
        if run.trees is not None:
            for topic, topic_trees in run.trees.items():
                for rank, tree in enumerate(topic_trees, 1):
                    n = len(topic_trees)
                    lines.extend(f"{topic} Q0 {u} {rank} {n - rank + 1} {name}\n" for u in tree)
        else:
            for topic, ranked in run.topics.items():
                n = len(ranked)
                for i, (unit, rank, score) in enumerate(zip(ranked.ids, ranked.ranks.tolist(),
                                                            ranked.scores.tolist(), strict=True)):
                    value = repr(score) if score == score else str(n - i)  # NaN: no rsv
                    lines.append(f"{topic} Q0 {unit} {rank} {value} {name}\n")
    else:
        name = tag or "graphprum"
        for topic, ids in run.items():
            n = len(ids)
            lines.extend(f"{topic} Q0 {u} {i} {n - i + 1} {name}\n" for i, u in enumerate(ids, 1))
    return lines
