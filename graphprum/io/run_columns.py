"""The fast pass of the TREC run reader: a file read into columns, a block at a time.

pyarrow's CSV reader reads the file in blocks of :data:`BLOCK_BYTES` into an
Arrow column of ids and numpy arrays of scores and ranks (about 20 bytes
per line beside the ids' characters), which :func:`graphprum.io.ranking.ordered_table`
orders as the careful pass would (:mod:`graphprum.io.runs`, module notes).
It takes files whose lines hold six fields split by single spaces (or
single tabs), comment lines aside, or a range run's eight
(:mod:`graphprum.io.range_runs`), and refuses anything else: other white
space (a field pyarrow would keep whole and Python split), a carriage
return not ending a line, a number written otherwise than the careful pass
allows, a duplicate (unless ``dedup``), a second TAG, ids to normalise.  A
refused file (None here) is read by the careful pass
(:mod:`graphprum.io.run_careful`), which names the line of the problem;
both give the same run.

A regular file is handed to pyarrow by name (:func:`_plain_file`), so that
its bytes are never held whole; standard input and gzip are read into
bytes first.

Examples
--------
>>> tag, table = read_columns(b"1 Q0 a 1 0.5 t\\n1 Q0 c 2 0.9 t\\n1 Q0 b 3 0.5 t\\n")
>>> tag, table["1"].ids
('t', ['c', 'b', 'a'])
>>> read_columns(b"1 Q0 a 1 0.5 t\\n1 Q0 a 2 0.9 t\\n") is None  # a duplicate: read carefully
True
"""

from __future__ import annotations

import os
import re

import numpy as np
import pyarrow as pa
import pyarrow.csv as pa_csv

from graphprum import arrow_compute as pc
from graphprum.io.columns import from_numpy, release, to_numpy
from graphprum.io.lines import DECIMAL, INTEGER, PathArg, is_stream, read_bytes
from graphprum.io.range_runs import is_range_line
from graphprum.io.ranking import Run, RunColumns, TopicTable, ordered_table
from graphprum.io.xpaths import is_positional_id

__all__ = ["BLOCK_BYTES", "read_columns", "read_fast_run"]


def read_fast_run(path: PathArg, order: str = "score", dedup: bool = False) -> Run | None:
    """The :class:`~graphprum.io.ranking.Run` of a TREC or range run file read
    in one vectorised pass (module notes), or None when the careful pass
    must read it (:func:`graphprum.io.run_careful.read_careful`).

    >>> import tempfile, os
    >>> p = os.path.join(tempfile.mkdtemp(), "run")
    >>> _ = open(p, "w").write("1 Q0 a 1 0.5 sys\\n1 Q0 b 2 0.9 sys\\n")
    >>> read_fast_run(p).ranked("1")
    ['b', 'a']
    >>> _ = open(p, "w").write("1 Q0 a 1 0.5 sys\\n1 Q0 b 2 0.9 other\\n")
    >>> read_fast_run(p) is None  # a second TAG: the careful pass names its line
    True
    """
    plain = _plain_file(path)
    source: bytes | str
    if plain is not None:
        source, head = plain
    else:
        source = head = read_bytes(path)
    fast = _read_fast(source, order, dedup, _first_is_range(head), head)
    if fast is None:
        return None
    return Run(tag=fast[0], topics=fast[1], path=str(path), ranges=fast[2])


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
                   pc.take(columns.ids, from_numpy(firsts)).to_pylist()):
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
