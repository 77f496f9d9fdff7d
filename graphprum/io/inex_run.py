"""INEX 2006 XML runs (the ``<inex-submission>`` format) and INEX paths.

The submission format, as used by INEX 2006 participants::

    <inex-submission participant-id="12" run-id="VSM" task="Focused" ...>
      <topic-fields .../> <description>...</description> <collections>...</collections>
      <topic topic-id="289">
        <result><file>12345</file><path>/article[1]/body[1]/section[2]</path>
                <rank>1</rank><rsv>0.93</rsv></result>
        ...
      </topic>
    </inex-submission>

Each ``<result>`` names an element by ``file`` and ``path``; it becomes the
unit id ``DOC#XPATH`` of DESIGN §1.1: DOC is ``doc_prefix`` joined with the
file name (a trailing ``.xml`` dropped) and XPATH is the path with every step
made positional (:func:`normalise_xpath`).  ``rank`` and ``rsv`` are
optional; see :func:`read_inex_run` for the order.  Elements other than
``<topic>`` and ``<result>``'s ``file``/``path``/``rank``/``rsv`` are ignored.

Examples
--------
>>> import tempfile, os
>>> p = os.path.join(tempfile.mkdtemp(), "run.xml")
>>> _ = open(p, "w").write('''<inex-submission participant-id="1" run-id="demo" task="Focused">
... <topic topic-id="7">
...   <result><file>42</file><path>/article/body/sec[2]</path><rank>2</rank></result>
...   <result><file>42.xml</file><path>/article[1]</path><rank>1</rank></result>
... </topic></inex-submission>''')
>>> run = read_inex_run(p, doc_prefix="wiki")
>>> run.tag, run.ranked("7")
('demo', ['wiki/42#/article[1]', 'wiki/42#/article[1]/body[1]/sec[2]'])
"""

from __future__ import annotations

import functools
import math
from typing import TYPE_CHECKING

from graphprum.errors import InputError
from graphprum.io.lines import (
    INTEGER,
    PathArg,
    ascii_integer,
    ascii_number,
    gc_paused,
    xml_source,
)
from graphprum.io.ranking import RankedTopic, Run, ranked_topic
from graphprum.io.xpaths import normalise_xpath

if TYPE_CHECKING:
    from lxml import etree

__all__ = ["inex_doc", "normalise_xpath", "read_inex_run"]

_FIELDS = frozenset(("file", "path", "rank", "rsv"))




def inex_doc(file: str, doc_prefix: str = "") -> str:
    """DOC of DESIGN §1.1 from an INEX ``<file>``: prefix joined, ``.xml`` dropped.

    >>> inex_doc("12345.xml", "wiki"), inex_doc("12345", "wiki/"), inex_doc("a/b")
    ('wiki/12345', 'wiki/12345', 'a/b')
    """
    name = file.strip()
    if name.lower().endswith(".xml"):
        name = name[:-4]
    if doc_prefix:
        return doc_prefix.rstrip("/") + "/" + name.lstrip("/")
    return name


_normalise_cached = functools.lru_cache(maxsize=1 << 16)(normalise_xpath)


def _child_line(result: etree._Element, name: str) -> int | None:
    """Source line of the first child ``name`` of ``result`` (for messages)."""
    line: int | None = result.sourceline
    for child in result:
        if _local(child) == name:
            line = child.sourceline
            break
    return line


def _local(el: etree._Element) -> str:
    tag = el.tag
    if not isinstance(tag, str):
        return ""
    return tag.rsplit("}", 1)[-1]


class _Topic:
    __slots__ = ("ids", "lines", "ranks", "rsvs")

    def __init__(self) -> None:
        self.ids: list[str] = []
        self.ranks: list[int | None] = []
        self.rsvs: list[float] = []
        self.lines: dict[str, int] = {}


def read_inex_run(path: PathArg, dedup: bool = False, doc_prefix: str = "") -> Run:
    """Read an INEX 2006 XML run.

    Order inside a topic: when every result has ``<rank>``, rank ascending
    (equal ranks: ``rsv`` descending, then file order); when none has a rank
    but every result has ``<rsv>``, rsv descending (ties: file order); when
    neither is given, file order.  The run's tag is the ``run-id`` attribute.

    Parameters
    ----------
    path : str or PathLike
        The XML file (its encoding as declared; UTF-8 by default).
    dedup : bool
        Keep the first (in file order) of results naming the same element in
        one topic, instead of failing.
    doc_prefix : str
        Directory joined before each ``<file>`` (DESIGN §1.1 DOC).

    Raises
    ------
    InputError
        Non-well-formed XML, a wrong root, missing ``run-id``/``topic-id``/
        ``file``/``path``, a bad path, rank or rsv, a rank given for only
        some results of a topic, a duplicate, no results; naming the line.
    """
    from lxml import etree  # for INEX XML runs only: an eval of TREC runs goes without it

    parser = etree.XMLParser(resolve_entities=False, no_network=True, huge_tree=True,
                             remove_comments=True, remove_pis=True)
    try:
        # a file's name as bytes (libxml2 takes it as is); a stream's or gzip's bytes
        root = etree.parse(xml_source(path), parser).getroot()
    except etree.XMLSyntaxError as e:
        msg = ((e.msg or str(e)).strip().splitlines() or ["syntax error"])[0]
        msg = msg.rsplit(", line ", 1)[0] if ", line " in msg else msg
        raise InputError(path, e.lineno, f"not well-formed XML: {msg}") from None
    except OSError as e:
        raise InputError(path, None, f"cannot read: {e.strerror or e}") from None
    if _local(root) != "inex-submission":
        raise InputError(path, root.sourceline,
                         f"expected root element <inex-submission>, got <{_local(root)}>")
    tag = root.get("run-id")
    if tag is None or not tag.strip():
        raise InputError(path, root.sourceline,
                         "expected a run-id attribute on <inex-submission>")
    with gc_paused():
        topics = _walk(path, root, dedup, doc_prefix)
    ranked = {topic: _ordered(path, topic, acc) for topic, acc in topics.items() if acc.ids}
    if not ranked:
        raise InputError(path, None, "empty run: no <result> elements")
    return Run(tag=tag.strip(), topics=ranked, path=str(path))


def _walk(path: PathArg, root: etree._Element, dedup: bool,
          doc_prefix: str) -> dict[str, _Topic]:
    """The results of every ``<topic>``, in file order."""
    topics: dict[str, _Topic] = {}
    for topic_el in root:
        if _local(topic_el) != "topic":
            continue
        topic = (topic_el.get("topic-id") or "").strip()
        if not topic:
            raise InputError(path, topic_el.sourceline, "expected a topic-id attribute on <topic>")
        acc = topics.setdefault(topic, _Topic())
        for result in topic_el:
            if _local(result) == "result":
                _read_result(path, result, topic, acc, dedup, doc_prefix)
    return topics


def _read_result(path: PathArg, result: etree._Element, topic: str, acc: _Topic,
                 dedup: bool, doc_prefix: str) -> None:
    """Append one ``<result>`` to its topic."""
    texts: dict[str, str] = {}
    for child in result:
        name = child.tag
        if name.__class__ is not str:  # entity references
            continue
        if "}" in name:
            name = name.rpartition("}")[2]
        if name in _FIELDS and name not in texts:
            texts[name] = child.text or ""
    file = texts.get("file", "").strip()
    xpath = texts.get("path", "").strip()
    if not file:
        raise InputError(path, result.sourceline, "expected <file> in <result>")
    if not xpath:
        raise InputError(path, result.sourceline, "expected <path> in <result> (passage results "
                                                  "such as <fol> or <passage> are not supported)")
    try:
        unit = inex_doc(file, doc_prefix) + "#" + _normalise_cached(xpath)
    except ValueError as e:
        raise InputError(path, _child_line(result, "path"),
                         f"expected an element path like /article[1]/body[1]: {e}") from None
    rank: int | None = None
    rsv = math.nan
    if "rank" in texts:
        text = texts["rank"].strip()
        rank = ascii_integer(text)
        if rank is None:
            raise InputError(path, _child_line(result, "rank"),
                             f"expected <rank> an integer"
                             f"{' of at most 64 bits' if INTEGER.fullmatch(text) else ''}, "
                             f"got {text[:40]!r}")
    if "rsv" in texts:
        text = texts["rsv"].strip()
        value = ascii_number(text, allow_inf=True)
        rsv = math.nan if value is None else value
        if math.isnan(rsv):
            raise InputError(path, _child_line(result, "rsv"),
                             f"expected <rsv> a number, got {text!r}")
    first = acc.lines.get(unit)
    if first is not None:
        if dedup:
            return
        raise InputError(path, result.sourceline, f"duplicate result {unit!r} for topic {topic!r} "
                                     f"(first on line {first}); use --dedup to keep the first")
    acc.lines[unit] = result.sourceline or 0
    acc.ids.append(unit)
    acc.ranks.append(rank)
    acc.rsvs.append(rsv)


def _ordered(path: PathArg, topic: str, acc: _Topic) -> RankedTopic:
    """The topic's results in INEX order (see :func:`read_inex_run`)."""
    n = len(acc.ids)
    with_rank = [r is not None for r in acc.ranks]
    with_rsv = [not math.isnan(s) for s in acc.rsvs]
    positions = list(range(n))
    if all(with_rank):
        ranks = [r for r in acc.ranks if r is not None]
        key_rsv = [-s if ok else math.inf for s, ok in zip(acc.rsvs, with_rsv, strict=True)]
        positions.sort(key=lambda i: (ranks[i], key_rsv[i]))
    elif any(with_rank):
        # name the first result that differs from the topic's first result
        i = with_rank.index(False) if with_rank[0] else with_rank.index(True)
        raise InputError(path, acc.lines[acc.ids[i]],
                         f"expected <rank> in every result of topic {topic!r} or in none")
    elif all(with_rsv):
        positions.sort(key=lambda i: -acc.rsvs[i])
    elif any(with_rsv):
        i = with_rsv.index(False) if with_rsv[0] else with_rsv.index(True)
        raise InputError(path, acc.lines[acc.ids[i]],
                         f"expected <rsv> in every result of topic {topic!r} or in none "
                         "(when no result has a <rank>)")
    ranks_kept = [r if r is not None else k + 1 for k, r in enumerate(acc.ranks)]
    if not all(with_rank):
        # No ranks given: keep the evaluation position as rank.
        for place, i in enumerate(positions, 1):
            ranks_kept[i] = place
    return ranked_topic(acc.ids, acc.rsvs, ranks_kept, positions)
