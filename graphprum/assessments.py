"""INEX passage assessments: the one model (:class:`TopicAssessment`) every
measure reads, and the readers of every assessment layout into it.

Three layouts are recognised by content:

* **passage qrels** (DESIGN §1.3): ``TOPIC DOC START END`` and
  ``TOPIC DOC BEP OFFSET`` lines (parsed by :mod:`graphprum.io.passages`).
* **INEX 2008+ text qrels**:
  ``TOPIC Q0 DOC RELCHARS DOCLENGTH [BEP [OFFSET:LENGTH ...]]`` -- one line
  per assessed document; RELCHARS is checked against the passages.
* **X-Rai assessment XML** (INEX 2005-2007)::

      <assessments topic="289">
        <file file="12345">
          <best-entry-point path="/article[1]/body[1]/section[2]"/>
          <passage start="120" end="180" size="60"/>
          <element path="/article[1]" exhaustivity="2" size="5000" rsize="60"/>
        </file>
      </assessments>

  ``topic`` may also be written ``topic-id``, ``file`` may be ``name``;
  several ``<assessments>`` may sit under one root.  A passage bound is an
  offset (``120``) or an element path with an offset into that element's
  text (``/article[1]/body[1]/p[3].15``; a bare path means its start), which
  needs the collection's table.  A BEP is a ``path`` (the element's start)
  or an ``offset``.  ``<element rsize=..>`` values are kept and compared
  with the rsize recomputed from the passages (:func:`check_consistency`).

Offsets are characters of the document's text content and ends are
exclusive by default (DESIGN §1.2); ``units="bytes"`` reads UTF-8 byte
offsets (converted with the document's text, which must then be supplied)
and ``end="inclusive"`` reads inclusive ends.  Document names follow
:func:`graphprum.io.inex_run.inex_doc` (``.xml`` dropped, ``doc_prefix``).

Examples
--------
>>> import tempfile, os
>>> p = os.path.join(tempfile.mkdtemp(), "qrels2008")
>>> _ = open(p, "w").write("544 Q0 12 30 100 15 10:20 40:10\\n544 Q0 13 0 80\\n")
>>> a = read_assessments(p)
>>> a["544"].ranges["12"].tolist(), a["544"].beps, a["544"].trel("13")
([[10.0, 30.0], [40.0, 50.0]], {'12': 15.0}, 0.0)
"""

from __future__ import annotations

import re
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from graphprum.errors import InputError, UsageError
from graphprum.io.inex_run import inex_doc, normalise_xpath
from graphprum.io.lines import (
    PathArg,
    ascii_integer,
    ascii_number,
    find_line,
    parse_float,
    read_lines,
    sniff,
    xml_source,
)
from graphprum.io.passages import byte_to_char, read_passages
from graphprum.store.base import TABLE, Store
from graphprum.units import KIND_VIDEO, UnitTable

#: What a reader gathers about one assessed document before it becomes a
#: :class:`TopicAssessment` (ranges, lines, BEP, stated rsize values).
Record = dict[str, Any]
#: Records by topic and document.
Raw = dict[str, dict[str, Record]]


def merge_ranges(ranges: Any) -> np.ndarray:
    """Union of half-open ranges as a sorted ``(k, 2)`` float array.

    Touching ranges are joined; empty ranges (``end <= start``) dropped.

    >>> merge_ranges([(5, 8), (0, 3), (3, 4), (7, 10), (20, 20)]).tolist()
    [[0.0, 4.0], [5.0, 10.0]]
    """
    r = np.asarray(ranges, dtype=np.float64).reshape(-1, 2)
    r = r[r[:, 1] > r[:, 0]]
    if len(r) == 0:
        return r
    r = r[np.argsort(r[:, 0], kind="stable")]
    ends = np.maximum.accumulate(r[:, 1])
    # a new block starts where the start lies beyond every earlier end
    new = np.ones(len(r), dtype=bool)
    new[1:] = r[1:, 0] > ends[:-1]
    block = np.cumsum(new) - 1
    starts = r[new, 0]
    block_ends = np.zeros(len(starts))
    np.maximum.at(block_ends, block, ends)
    return np.column_stack([starts, block_ends])


def covered_before(ranges: np.ndarray, x: np.ndarray) -> np.ndarray:
    """Highlighted characters in ``[0, x)`` for every offset of ``x``.

    ``ranges`` must be merged (:func:`merge_ranges`).  Linear-time prefix
    sums plus one ``searchsorted``.

    >>> r = merge_ranges([(2, 4), (6, 9)])
    >>> covered_before(r, np.array([0, 3, 5, 7, 100])).tolist()
    [0.0, 1.0, 2.0, 3.0, 5.0]
    """
    x = np.asarray(x, dtype=np.float64)
    if len(ranges) == 0:
        return np.zeros(x.shape)
    lengths = ranges[:, 1] - ranges[:, 0]
    before = np.concatenate([[0.0], np.cumsum(lengths)])
    k = np.searchsorted(ranges[:, 0], x, side="right") - 1
    inside = np.clip(x - ranges[np.maximum(k, 0), 0], 0.0, lengths[np.maximum(k, 0)])
    return np.where(k >= 0, before[np.maximum(k, 0)] + inside, 0.0)


@dataclass
class TopicAssessment:
    """Passage assessments of one topic (the object put in ``ctx.assessments``).

    Attributes
    ----------
    topic : str
        Topic id.
    ranges : dict of str to numpy.ndarray
        DOC -> merged highlighted ranges ``(k, 2)`` in character offsets
        ``[start, end)``; a document assessed without highlight maps to an
        empty array.
    beps : dict of str to float
        DOC -> best entry point offset (characters), when given.
    element_rsize : dict of str to float
        Unit id -> rsize as stated by the assessment file (X-Rai
        ``<element rsize=..>``, INEX 2008 RELCHARS for the root), kept only to
        check consistency (:func:`check_consistency`).
    """

    topic: str
    ranges: dict[str, np.ndarray] = field(default_factory=dict)
    beps: dict[str, float] = field(default_factory=dict)
    element_rsize: dict[str, float] = field(default_factory=dict)

    @property
    def docs(self) -> list[str]:
        """Assessed documents, in file order."""
        return list(dict.fromkeys([*self.ranges, *self.beps]))

    def relevant_docs(self) -> list[str]:
        """Documents with at least one highlighted character."""
        return [d for d, r in self.ranges.items() if len(r) and (r[:, 1] - r[:, 0]).sum() > 0]

    def trel(self, doc: str) -> float:
        """Trel(a): highlighted characters of ``doc`` (INEX 2006 §6.2)."""
        r = self.ranges.get(doc)
        return 0.0 if r is None or len(r) == 0 else float((r[:, 1] - r[:, 0]).sum())



#: DOC -> the document's text content (needed for byte offsets).
DocText = Callable[[str], str]

_UNITS = ("chars", "bytes")
_ENDS = ("exclusive", "inclusive")


class Assessments(dict[str, TopicAssessment]):
    """topic -> :class:`TopicAssessment`, in file order; :attr:`path` is the source."""

    path: str = ""
    #: Consistency problems found while reading (also sent to ``warn``).
    mismatches: list[str]
    #: (document, line) of each document named that the store does not
    #: hold, first line of each (empty without a store).
    unknown: list[tuple[str, int | None]]

    def __repr__(self) -> str:
        return f"Assessments({len(self)} topics)"


def read_assessments(path: PathArg, store: Store | UnitTable | None = None, *, units: str = "chars",
                     end: str = "exclusive", doc_text: DocText | None = None,
                     doc_prefix: str = "", check: bool = True,
                     warn: Callable[[str], None] | None = None) -> Assessments:
    """Read passage assessments in any of the three layouts (module notes).

    Parameters
    ----------
    path : str or PathLike
        The assessment file.
    store : Store or UnitTable, optional
        The collection: resolves element paths (X-Rai) and enables the
        consistency check.
    units : {"chars", "bytes"}
        What offsets count; ``"bytes"`` needs ``doc_text``.
    end : {"exclusive", "inclusive"}
        Whether END offsets (and X-Rai passage ends) are exclusive.
    doc_text : callable, optional
        DOC -> text content, to convert byte offsets.
    doc_prefix : str
        Prefix of document names (as for INEX XML runs).
    check : bool
        Compare stated rsize / RELCHARS with the recomputed ones; mismatches
        go to ``warn`` (stderr by default) and to ``result.mismatches``.

    Raises
    ------
    InputError
        A malformed line or element, naming file and line.
    UsageError
        Bad ``units``/``end``; byte offsets without ``doc_text``; element
        paths without a store.
    """
    if units not in _UNITS:
        raise UsageError(f"offset units must be one of {', '.join(_UNITS)}, got {units!r}")
    if end not in _ENDS:
        raise UsageError(f"passage ends must be one of {', '.join(_ENDS)}, got {end!r}")
    if units == "bytes" and doc_text is None:
        raise UsageError("byte offsets need the documents' text to convert them to characters")
    table = _table(store, path, doc_prefix)
    head = sniff(path)
    if head.startswith(b"<"):
        raw = _read_xrai(path, table, doc_prefix)
    else:
        raw = _read_text(path, doc_prefix, None if table is None else lambda doc: _is_video(
            table, inex_doc(doc, doc_prefix) if doc_prefix else doc))
    out = Assessments()
    out.path = str(path)
    out.mismatches = []
    out.unknown = []
    seen_unknown: set[str] = set()
    shift = 1.0 if end == "inclusive" else 0.0
    for topic, docs in raw.items():
        ta = TopicAssessment(topic)
        for doc, rec in docs.items():
            ranges = np.asarray(rec["ranges"], dtype=np.float64).reshape(-1, 2)
            video = table is not None and _is_video(table, doc)
            if not video:  # (a video's times are seconds: neither bytes nor inclusive)
                ranges[:, 1] += shift
            bep = rec.get("bep")
            text = None
            if units == "bytes" and not video:
                assert doc_text is not None
                text = doc_text(doc)
            if table is not None and not _holds(table, doc) and doc not in seen_unknown:
                seen_unknown.add(doc)
                out.unknown.append((doc, rec.get("line")))
            _check_inside(path, topic, doc, rec, ranges, bep, table, text)
            if text is not None:
                ranges = byte_to_char(text, ranges.astype(np.int64).ravel()).reshape(-1, 2)
                if bep is not None:
                    bep = float(byte_to_char(text, np.array([int(bep)]))[0])
            ta.ranges[doc] = merge_ranges(ranges)
            if bep is not None:
                ta.beps[doc] = float(bep)
            for where, value in rec.get("stated", []):
                ta.element_rsize[where] = value
            if rec.get("relchars") is not None:
                got = ta.trel(doc)
                stated = rec["relchars"]
                if check and abs(got - stated) > 1e-9:
                    out.mismatches.append(
                        f"{path}:{rec['line']}: topic {topic} document {doc}: RELCHARS "
                        f"{stated:g} but the passages cover {got:g} characters")
        out[topic] = ta
    if check and table is not None:
        out.mismatches.extend(check_consistency(out, table))
    if out.mismatches:
        emit = warn or (lambda m: print(m, file=sys.stderr))
        for m in out.mismatches:
            emit("note: " + m)
    return out


def _is_video(table: UnitTable, doc: str) -> bool:
    """Whether ``doc`` is a video of ``table`` (its offsets are seconds)."""
    try:
        return int(table.docs["kind"][table.doc_index(doc)]) == KIND_VIDEO
    except KeyError:
        return False


def _holds(table: UnitTable, doc: str) -> bool:
    """Whether ``table`` holds a document called ``doc``."""
    return table.doc_rows(doc) is not None


def _check_inside(path: PathArg, topic: str, doc: str, rec: Record, ranges: np.ndarray,
                  bep: float | None, table: UnitTable | None, text: str | None) -> None:
    """InputError naming the line of a passage or BEP past the end of its document.

    The end is the document's length in characters (``text``'s length in
    UTF-8 bytes for byte offsets); documents the store lacks are not checked.
    """
    if text is not None:
        limit = float(len(text.encode("utf-8")))
    else:
        if table is None:
            return
        try:
            i = table.doc_index(doc)
        except KeyError:
            return
        root = int(table.docs["first"][i])
        limit = float(table.columns["start"][root] + table.columns["length"][root])
    over = np.flatnonzero(ranges[:, 1] > limit) if len(ranges) else np.zeros(0, np.int64)
    unit = "bytes" if text is not None else \
        "s" if table is not None and _is_video(table, doc) else "characters"
    if len(over):
        k = int(over[0])
        a, b = ranges[k]
        line = _range_line(path, rec, k, limit)
        raise InputError(path, line, f"passage {a:g}-{b:g} of document {doc!r} (topic "
                                     f"{topic!r}) ends past the document's end ({limit:g} "
                                     f"{unit})")
    if bep is not None and bep > limit:
        raise InputError(path, rec.get("bep_line") or doc_line(path, rec, bep=True),
                         f"best entry point {bep:g} of document {doc!r} (topic {topic!r}) is "
                         f"past the document's end ({limit:g} {unit})")


def doc_line(path: PathArg, rec: Record, bep: bool = False) -> int | None:
    """The line of the document of ``rec`` (of its BEP line with ``bep``):
    as read, or found again in a ``TOPIC DOC START END`` file (whose reader
    keeps no line numbers)."""
    if rec.get("line"):
        return int(rec["line"])
    name = rec.get("name")
    if name is None:
        return None
    found = find_line(path, lambda f: len(f) == 4 and f[1] == name
                      and (f[2] == "BEP") == bep)
    return found or None


def _range_line(path: PathArg, rec: Record, k: int, limit: float) -> int | None:
    """The line of the k-th range of ``rec``, or of the first range line past ``limit``."""
    lines = rec.get("range_lines")
    if lines and k < len(lines) and lines[k]:
        return int(lines[k])
    name = rec.get("name")
    if name is None:
        return rec.get("line") or None

    def past(f: list[str]) -> bool:
        end = ascii_integer(f[3]) if len(f) == 4 and f[1] == name and f[2] != "BEP" else None
        return end is not None and end > limit

    return find_line(path, past) or None


def check_consistency(assessments: dict[str, TopicAssessment], table: UnitTable) -> list[str]:
    """Stated element rsize values that differ from those recomputed from passages.

    Returns one message per mismatch (or per stated element the table lacks).
    """
    out = []
    for topic, ta in assessments.items():
        for unit, stated in ta.element_rsize.items():
            doc, _, xpath = unit.partition("#")
            row = _find_row(table, doc, xpath)
            if row is None:
                out.append(f"topic {topic}: assessed element {unit} is not in the store")
                continue
            s = table.columns["start"][row]
            e = s + table.columns["length"][row]
            r = ta.ranges.get(doc, np.zeros((0, 2)))
            got = float(covered_before(r, np.array([e]))[0] - covered_before(r, np.array([s]))[0])
            if abs(got - stated) > 1e-9:
                out.append(f"topic {topic}: element {unit} has rsize {stated:g} in the "
                           f"assessments but the passages cover {got:g} characters of it")
    return out


def _table(store: Store | UnitTable | None, path: PathArg | None = None,
           doc_prefix: str = "") -> UnitTable | None:
    """The units the assessments of ``path`` may name: the whole collection
    of a store that holds it as rows, else (a server) the assessed documents."""
    if store is None:
        return None
    if isinstance(store, UnitTable):
        return store
    if path is None or TABLE in store.capabilities:
        return store.table()
    return store.view([], sorted(_assessed_documents(path, doc_prefix))).table


def _assessed_documents(path: PathArg, doc_prefix: str) -> set[str]:
    """The document names an assessment file names (without resolving paths)."""
    if not sniff(path).startswith(b"<"):
        return {doc for docs in _read_text(path, doc_prefix, lambda doc: True).values()
                for doc in docs}  # (times let through: only the names are read here)
    from lxml import etree  # about 40 ms, for X-Rai assessment files only

    try:
        tree = etree.parse(xml_source(path))
    except (etree.XMLSyntaxError, OSError):
        return set()  # the reader itself reports it
    return {inex_doc(name, doc_prefix) for el in tree.getroot().iter()
            if isinstance(el.tag, str) and _local(el) == "file"
            and (name := el.get("file") or el.get("name"))}


def _find_row(table: UnitTable, doc: str, xpath: str) -> int | None:
    """Row of ``doc``'s element at ``xpath`` (positional), walking the doc's rows."""
    rows = table.doc_rows(doc)
    if rows is None:
        return None
    cache: dict[str, dict[str, int]] = table.__dict__.setdefault("_inex_xpaths", {})
    paths = cache.get(doc)
    if paths is None:
        paths = {table.xpath(r): r for r in rows}
        cache[doc] = paths
    return paths.get(xpath)


def _record(raw: Raw, topic: str, doc: str, line: int) -> Record:
    return raw.setdefault(topic, {}).setdefault(doc, {"ranges": [], "line": line})


def _read_text(path: PathArg, doc_prefix: str,
               timed: Callable[[str], bool] | None = None) -> Raw:
    lines = read_lines(path)
    first = next(lines, None)
    if first is None:
        raise InputError(path, None, "empty assessment file")
    if len(first[1]) >= 2 and first[1][1] == "Q0":
        return _read_2008(path, doc_prefix)
    raw: Raw = {}
    for topic, docs in read_passages(path, timed).items():
        for doc, a in docs.items():
            rec = _record(raw, topic, inex_doc(doc, doc_prefix) if doc_prefix else doc, 0)
            rec["name"] = doc
            rec["ranges"] = [list(r) for r in a.ranges]
            if a.bep is not None:
                rec["bep"] = float(a.bep)
    return raw


_LAYOUT_2008 = "TOPIC Q0 DOC RELCHARS DOCLENGTH [BEP [OFFSET:LENGTH ...]]"


def _read_2008(path: PathArg, doc_prefix: str) -> Raw:
    raw: Raw = {}
    for line, f in read_lines(path):
        if len(f) < 5 or f[1] != "Q0":
            raise InputError(path, line, f"expected {_LAYOUT_2008}")
        topic, doc = f[0], inex_doc(f[2], doc_prefix)
        if doc in raw.get(topic, {}):
            raise InputError(path, line, f"second line for document {f[2]!r} of topic {topic!r}")
        relchars = parse_float(path, line, f[3], "RELCHARS a number of characters >= 0")
        doclen = parse_float(path, line, f[4], "DOCLENGTH a number of characters >= 0")
        if relchars < 0 or doclen < 0:
            raise InputError(path, line, "expected RELCHARS and DOCLENGTH >= 0")
        rec = _record(raw, topic, doc, line)
        rec["relchars"] = relchars
        if len(f) >= 6:
            bep = parse_float(path, line, f[5], "BEP an offset >= 0")
            if bep >= 0:  # -1 is sometimes written for "no BEP"
                rec["bep"] = bep
        for item in f[6:]:
            off, colon, length = item.partition(":")
            a = ascii_integer(off)
            n = ascii_integer(length)
            if a is None or n is None:
                a, n = -1, -1
            if not colon or a < 0 or n < 0:
                raise InputError(path, line, f"expected a passage OFFSET:LENGTH, got {item!r}")
            rec["ranges"].append([a, a + n])
            rec.setdefault("range_lines", []).append(line)
        if relchars > 0 and not rec["ranges"]:
            raise InputError(path, line, f"RELCHARS {f[3]} but no OFFSET:LENGTH passages")
    return raw


_BOUND = re.compile(r"^\s*(/[^.]*?)(?:\.([0-9]+))?\s*$")


def _read_xrai(path: PathArg, table: UnitTable | None, doc_prefix: str) -> Raw:
    from lxml import etree  # about 40 ms, for X-Rai assessment files only

    try:
        tree = etree.parse(xml_source(path))
    except etree.XMLSyntaxError as e:
        line = e.position[0] if e.position else None
        raise InputError(path, line, f"not well-formed XML: {e.msg}") from None
    except OSError as e:
        raise InputError(path, None, f"cannot read: {e}") from None
    root = tree.getroot()
    blocks = [root] if _local(root) == "assessments" else [
        el for el in root.iter() if isinstance(el.tag, str) and _local(el) == "assessments"]
    if not blocks:
        raise InputError(path, root.sourceline, "expected <assessments topic=..> elements")
    raw: Raw = {}
    for block in blocks:
        topic = block.get("topic") or block.get("topic-id")
        if not topic:
            raise InputError(path, block.sourceline, "<assessments> without a topic attribute")
        for file_el in block.iter():
            if not isinstance(file_el.tag, str) or _local(file_el) != "file":
                continue
            name = file_el.get("file") or file_el.get("name")
            if not name:
                raise InputError(path, file_el.sourceline, "<file> without a file attribute")
            doc = inex_doc(name, doc_prefix)
            rec = _record(raw, topic, doc, file_el.sourceline or 0)
            for el in file_el:
                if not isinstance(el.tag, str):
                    continue
                _xrai_child(path, el, doc, rec, table)
    return raw


def _xrai_child(path: PathArg, el: Any, doc: str, rec: Record, table: UnitTable | None) -> None:
    kind = _local(el)
    line = el.sourceline
    if kind == "passage":
        a = _bound(path, line, el.get("start"), doc, table, "start")
        b = _bound(path, line, el.get("end"), doc, table, "end")
        if b < a:
            raise InputError(path, line, f"passage end {el.get('end')!r} before its start")
        rec["ranges"].append([a, b])
        rec.setdefault("range_lines", []).append(line)
    elif kind == "best-entry-point":
        rec["bep_line"] = line
        if el.get("offset") is not None:
            rec["bep"] = _bound(path, line, el.get("offset"), doc, table, "offset")
        else:
            rec["bep"] = _bound(path, line, el.get("path"), doc, table, "path")
    elif kind == "element":
        xp = el.get("path")
        rs = el.get("rsize")
        if xp is None:
            raise InputError(path, line, "<element> without a path attribute")
        if rs is not None:
            try:
                xpath = normalise_xpath(xp)
            except ValueError as e:
                raise InputError(path, line, f"bad element path: {e}") from None
            value = parse_float(path, line, rs, "rsize a number of characters")
            rec.setdefault("stated", []).append((f"{doc}#{xpath}", value))


def _bound(path: PathArg, line: int | None, text: str | None, doc: str,
           table: UnitTable | None, what: str) -> float:
    if text is None:
        raise InputError(path, line, f"missing {what} attribute")
    text = text.strip()
    value = ascii_number(text)
    if value is not None:
        if value < 0:
            raise InputError(path, line, f"expected {what} an offset >= 0, got {text!r}")
        return value
    m = _BOUND.match(text)
    if not m:
        raise InputError(path, line, f"expected {what} an offset or PATH[.OFFSET], got {text!r}")
    if table is None:
        raise UsageError(f"{path}:{line}: element paths in assessments need the collection "
                         "(--store)")
    try:
        xpath = normalise_xpath(m.group(1))
    except ValueError as e:
        raise InputError(path, line, f"bad path in {what}: {e}") from None
    row = _find_row(table, doc, xpath)
    if row is None:
        raise InputError(path, line, f"{doc}#{xpath} is not in the store")
    return float(table.columns["start"][row]) + float(m.group(2) or 0)


def _local(el: Any) -> str:
    tag = el.tag
    return tag.rsplit("}", 1)[-1] if isinstance(tag, str) else ""
