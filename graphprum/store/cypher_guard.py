"""Which Cypher texts only read: the guard in front of every read query.

``graphprum query`` runs a text without ``--write`` only when every
statement in it is a reading query, and the embedded store's graph runs
nothing else at all (:class:`~graphprum.store.local.graph_reader.GraphReader`
calls :func:`refuse_writes` before the engine sees the text).  The guard
does not rely on a list of dangerous words alone, because an engine keeps
adding statements (LadybugDB's ``COPY … TO`` writes files, ``EXPORT
DATABASE`` writes a directory, ``LOAD EXTENSION`` runs a shared object's
code, ``INSTALL`` downloads one) and accepts prefixes before them
(``PROFILE``, ``EXPLAIN``, ``EXPLAIN LOGICAL``: ``PROFILE COPY …`` runs the
COPY).  Two checks, both on the text with its string literals, quoted names
and comments blanked (so a quote or ``//`` inside them starts nothing):

- **an allowlist of statement starts**: each statement (``;`` separates
  them), after any ``PROFILE``/``EXPLAIN [LOGICAL]``, must begin with
  :data:`READ_STARTS` (``MATCH``, ``OPTIONAL MATCH``, ``UNWIND``, ``WITH``,
  ``RETURN``, ``CALL``, ``SHOW``); anything else, known or not, is refused;
- **writing clauses anywhere** (:data:`_CLAUSE`: ``CREATE``, ``SET``,
  ``DELETE``, ``LOAD FROM`` …) unless the word is a name (a property, a
  label, an alias, a map key), and ``CALL`` of any procedure not known to
  only read (:data:`READ_PROCEDURES`; a LadybugDB setting such as
  ``CALL threads=1`` is a procedure call too).

What the engine runs is what the guard read: :func:`what_runs` gives the
text with its comments taken out (an engine that ends a comment elsewhere,
as LadybugDB does not end ``/* a **/`` at ``**/``, sees no comment at all
to disagree on) and refuses any character outside strings and quoted
names but printable ASCII, tab and line ends (LadybugDB reads U+180E,
U+00A0 or U+2028 as a space where Python's ``\\s`` does not, so
``LOAD``, U+180E, ``FROM`` would pass a pattern).  Every store runs that text.

LadybugDB itself opens the graph read-only, which refuses writes to the
database (``CREATE``, ``SET``, ``ATTACH``, ``CREATE GRAPH``) but not what
reaches outside it: ``COPY … TO``, ``EXPORT DATABASE``, ``LOAD FROM``,
``LOAD EXTENSION`` and ``INSTALL`` all run on a read-only database, and
``CHECKPOINT`` writes ``.wal`` and ``.shadow`` files beside it.  LadybugDB
0.22 has no setting that turns extension loading or file access off, so
this guard is what stops them.

The embedded store also refuses, with the same lexing, one reading shape
LadybugDB 0.22 answers wrongly (:func:`refuse_ungrouped_after_limit`).

Examples
--------
>>> writes("MATCH (n) RETURN n.name")
[]
>>> writes("MATCH (n) WHERE n.x = 'CREATE' DETACH DELETE n")
['DELETE', 'DETACH']
>>> writes("COPY (MATCH (u:Unit) RETURN u.uid) TO '/tmp/out.csv'")
['COPY']
>>> writes("profile COPY (MATCH (u:Unit) RETURN u.uid) TO 'x.csv'")
['COPY']
>>> writes("EXPLAIN LOGICAL LOAD EXTENSION './x.so'")
['LOAD EXTENSION']
>>> writes("MATCH (u:Unit) WHERE u.copy = $set RETURN u.load")
[]
>>> writes("PROFILE MATCH (u:Unit) RETURN count(u)")
[]
"""

from __future__ import annotations

import re
from typing import NamedTuple

from graphprum.errors import UsageError, printable

#: One lexical token that can hide keywords: a quoted parameter name, a
#: quoted name, a string literal, a comment.  Matched left to right in one
#: pass, so a quote or ``//`` inside any of them starts nothing.  (LadybugDB
#: and Neo4j read ``\\'`` inside a string as a quote, end a ``//`` comment at
#: ``\\r`` or ``\\n``, and block comments do not nest: the same as here.)
_TOKEN = re.compile(r"\$`[^`]*`|`[^`]*`|'(?:\\.|[^'\\])*'|\"(?:\\.|[^\"\\])*\""
                    r"|//[^\r\n]*|/\*.*?\*/", re.DOTALL)

#: Words a reading statement begins with (after ``PROFILE``/``EXPLAIN``).
READ_STARTS = frozenset({"MATCH", "OPTIONAL", "UNWIND", "WITH", "RETURN", "CALL", "SHOW"})
#: What may stand before a statement without changing what it does:
#: ``PROFILE``, ``EXPLAIN [LOGICAL]``, and ``CYPHER`` with a version or
#: ``name=value`` options (Neo4j's; FalkorDB's parameters travel so).
_PREFIX = re.compile(r"\s*(?:PROFILE|EXPLAIN(?:\s+LOGICAL)?|CYPHER)\b", re.IGNORECASE)
_OPTION = re.compile(r"\s*(?:[0-9][0-9.]*(?![\w=])|[A-Za-z_]\w*\s*=\s*)")
_WORD = re.compile(r"[A-Za-z_]\w*")
#: Writing clauses that may stand anywhere in a query.
_CLAUSE = re.compile(r"\b(CREATE|MERGE|SET|DELETE|DETACH|REMOVE|DROP|FOREACH|ALTER|GRANT|DENY|"
                     r"REVOKE|INSERT|TERMINATE|LOAD\s+(?:CSV|FROM|WITH|EXTENSION))\b",
                     re.IGNORECASE)
#: A procedure's name: words or quoted names joined by dots, spaces around
#: them allowed (``db.labels .foo`` is ``db.labels.foo`` to a parser).
_CALL = re.compile(r"\bCALL\s*((?:`[^`]*`|[A-Za-z_]\w*)(?:\s*\.\s*(?:`[^`]*`|[A-Za-z_]\w*))*)",
                   re.IGNORECASE)
#: Characters a query may hold outside strings, quoted names and comments.
_PLAIN = re.compile(r"[^\t\n\r\x20-\x7e]")
#: Procedures that only read (others may write, so they need ``write=True``).
READ_PROCEDURES = {"db.labels", "db.relationshiptypes", "db.propertykeys", "db.indexes",
                   "db.constraints", "dbms.components", "db.schema.visualization",
                   "db.schema.nodetypeproperties", "db.schema.reltypeproperties"}


class Lexed(NamedTuple):
    """A Cypher text with its tokens (:data:`_TOKEN`) neutralised."""

    #: Where clauses are looked for: quoted names, strings and comments blanked.
    bare: str
    #: Where procedure names are looked for: quoted names kept.
    calls: str
    #: The quoted parameter names, in order (``$_`` in ``bare`` stands for each).
    quoted: list[str]


def lexed(text: str) -> Lexed:
    """``text`` as :class:`Lexed`.

    >>> lexed("RETURN 'a;b' AS `x y`, $`p q` // c").bare
    'RETURN  _  AS  _ ,  $_   '
    """
    bare: list[str] = []
    calls: list[str] = []
    quoted: list[str] = []
    at = 0
    for m in _TOKEN.finditer(text):
        bare.append(text[at:m.start()])
        calls.append(text[at:m.start()])
        token = m.group(0)
        if token.startswith("$"):
            quoted.append(token[2:-1])
            bare.append(" $_ ")
            calls.append(" $_ ")
        elif token.startswith("`"):
            bare.append(" _ ")
            calls.append(token)
        else:
            bare.append(" _ " if token[0] in "'\"" else " ")
            calls.append(" _ " if token[0] in "'\"" else " ")
        at = m.end()
    bare.append(text[at:])
    calls.append(text[at:])
    return Lexed("".join(bare), "".join(calls), quoted)


def what_runs(text: str) -> str:
    """``text`` as a store is given it: its comments replaced by a space
    (strings and quoted names kept as written); UsageError for a character
    outside them that is not printable ASCII, a tab or a line end.

    >>> what_runs("MATCH (u) /* a **/ ' */ RETURN u // the end")
    "MATCH (u)   ' */ RETURN u  "
    >>> what_runs("RETURN 'é' AS `é`")
    "RETURN 'é' AS `é`"
    >>> what_runs("RETURN 1\u180eAS x")
    Traceback (most recent call last):
    ...
    graphprum.errors.UsageError: the query holds U+180E outside strings and quoted names, \
where engines read such characters differently; write it in quotes ('...') or backticks
    """
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as exc:  # bytes that were not UTF-8, read as surrogates
        raise UsageError(f"the query is not UTF-8 text (character {exc.start + 1} is "
                         f"{printable(text[exc.start])})") from None
    out: list[str] = []
    at = 0
    for m in _TOKEN.finditer(text):
        out.append(text[at:m.start()])
        token = m.group(0)
        out.append(" " if token.startswith("/") else token)
        at = m.end()
    out.append(text[at:])
    for part in out[::2]:  # between the tokens
        if bad := _PLAIN.search(part):
            raise UsageError(f"the query holds U+{ord(bad.group(0)):04X} outside strings and "
                             f"quoted names, where engines read such characters differently; "
                             f"write it in quotes ('...') or backticks")
    return "".join(out)


def _a_name(bare: str, start: int, end: int) -> bool:
    """Whether the word at ``bare[start:end]`` is a name, not a clause: a
    property (after ``.``), a parameter (after ``$``), a label or type
    (after ``:``), an alias (after ``AS``) or a map key (before ``:``)."""
    before = bare[:start].rstrip()
    if before.endswith((".", "$", ":")) or re.search(r"\bAS$", before, re.IGNORECASE):
        return True
    return bare[end:].lstrip().startswith(":")


def _statement_starts(bare: str) -> list[str]:
    """The beginnings of the statements of ``bare`` that are not reading
    ones (:data:`READ_STARTS`), as written in capitals.

    >>> _statement_starts("PROFILE RETURN 1; explain  copy t TO _ ; LOAD  extension _")
    ['COPY', 'LOAD EXTENSION']
    >>> _statement_starts("RETURN 1;;  (COPY x)")
    ["'('"]
    """
    out = []
    for statement in bare.split(";"):
        rest = _without_prefix(statement).lstrip()
        if not rest:
            continue
        word = _WORD.match(rest)
        if word is None:
            out.append(repr(rest[0]))
            continue
        start = word.group(0).upper()
        if start in READ_STARTS:
            continue
        if start == "LOAD" and (then := _WORD.match(rest[word.end():].lstrip())):
            start = f"LOAD {then.group(0).upper()}"
        out.append(start)
    return out


def _without_prefix(statement: str) -> str:
    """``statement`` without the prefixes (:data:`_PREFIX`) before it; a
    ``CYPHER`` option's value is a word or a bracketed literal (strings
    already blanked).

    >>> _without_prefix("CYPHER 5 runtime=slotted v={k: [1, {a: 2}]} PROFILE MATCH (n)")
    ' MATCH (n)'
    >>> _without_prefix("CYPHER x=1 COPY t")
    ' COPY t'
    """
    while prefix := _PREFIX.match(statement):
        statement = statement[prefix.end():]
        if prefix.group(0).strip().upper() != "CYPHER":
            continue
        while option := _OPTION.match(statement):
            statement = statement[option.end():]
            if option.group(0).rstrip().endswith("="):
                statement = statement[_value_end(statement):]
    return statement


def _value_end(text: str) -> int:
    """Where the literal at the start of ``text`` ends: after its closing
    bracket when it opens one, else at the next space or bracket."""
    depth = 0
    for i, char in enumerate(text):
        if char in "[{(":
            depth += 1
        elif char in "]})":
            depth -= 1
            if depth <= 0:
                return i + 1
        elif depth == 0 and (char.isspace() or char == ";"):
            return i
    return len(text)


def writes(text: str) -> list[str]:
    """What makes ``text`` more than a reading query: statements that do
    not begin as a read does (:func:`_statement_starts`), writing clauses,
    and calls of procedures not known to only read; string literals, quoted
    names, comments, properties, labels, aliases and map keys are not
    clauses.  Empty for a text that only reads."""
    bare, calls, _ = lexed(text)
    found = set(_statement_starts(bare))
    found |= {" ".join(m.group(1).upper().split()) for m in _CLAUSE.finditer(bare)
              if not _a_name(bare, m.start(1), m.end(1))}
    out = sorted(found)
    for m in _CALL.finditer(calls):
        if _a_name(calls, m.start(), m.start() + 4):
            continue
        name = re.sub(r"\s*\.\s*", ".", m.group(1))
        if re.sub(r"[`\s]", "", name).lower() not in READ_PROCEDURES:
            out.append(f"CALL {name}")
    return out


def statement_count(text: str) -> int:
    """How many statements ``text`` holds (``;`` separates them; an empty
    one, such as after a final ``;``, is not counted; a ``;`` inside a
    string, a quoted name or a comment separates nothing).

    >>> statement_count("MATCH (u) RETURN u; ")
    1
    >>> statement_count("RETURN 'a;b' AS `x;y` /* ; */ ; RETURN 2;;")
    2
    """
    return sum(1 for part in lexed(text).bare.split(";") if part.strip())


def refuse_writes(text: str) -> None:
    """Raise UsageError naming what in ``text`` is more than a read (see
    :func:`writes`); nothing when it only reads.

    >>> refuse_writes("PROFILE MATCH (u:Unit) RETURN count(u)")
    >>> try:
    ...     refuse_writes("PROFILE INSTALL json")
    ... except UsageError as exc:
    ...     print(str(exc)[:56])
    the query does more than read (INSTALL): without --write
    """
    found = writes(text)
    if found:
        raise UsageError(f"the query does more than read ({', '.join(found)}): without "
                         f"--write only queries that start with MATCH, OPTIONAL MATCH, UNWIND, "
                         f"WITH, RETURN, SHOW or a CALL of a read-only procedure and write "
                         f"nothing run (--write works on a Bolt store; the embedded store's "
                         f"graph is read-only)")


#: The clauses a statement is cut at, and the aggregate functions.
_CLAUSES = re.compile(r"\b(OPTIONAL\s+MATCH|MATCH|UNWIND|WITH|RETURN|CALL|WHERE|ORDER\s+BY|SKIP|"
                      r"LIMIT|UNION)\b", re.IGNORECASE)
_AGGREGATE = re.compile(r"\b(?:count|sum|avg|min|max|collect|histogram|stdevp?|"
                        r"percentile(?:cont|disc))\s*\(", re.IGNORECASE)
#: ``STARTS WITH`` and ``ENDS WITH`` are operators, not clauses.
_OPERATOR_BEFORE = re.compile(r"\b(?:STARTS|ENDS)\s*$", re.IGNORECASE)


def refuse_ungrouped_after_limit(text: str) -> None:
    """UsageError for a query LadybugDB 0.22 answers wrongly: an aggregate
    without a grouping key after ``WITH … ORDER BY … SKIP/LIMIT`` sees the
    first rows in storage order, not in the order asked for (so ``WITH u
    ORDER BY u.length DESC LIMIT 3 RETURN sum(u.length)`` sums three
    arbitrary lengths; even a count can be wrong, after a ``WHERE`` or of
    distinct values).  With a constant key (``RETURN 1 AS g, sum(u.length)``)
    the engine answers right, and the message says so.

    >>> refuse_ungrouped_after_limit("MATCH (u) WITH u ORDER BY u.n LIMIT 3 RETURN u.n, count(*)")
    >>> refuse_ungrouped_after_limit("MATCH (u) WITH u ORDER BY u.n LIMIT 3 RETURN sum(u.n)")
    Traceback (most recent call last):
    ...
    graphprum.errors.UsageError: the embedded store's engine (LadybugDB 0.22) ...
    """
    for statement in lexed(text).bare.split(";"):
        _refuse_in_statement(statement)


def _refuse_in_statement(bare: str) -> None:
    cuts = [m for m in _CLAUSES.finditer(bare)
            if _depth(bare, m.start()) == 0 and not _a_name(bare, m.start(), m.end())
            and not (m.group(1).upper() == "WITH" and _OPERATOR_BEFORE.search(bare[:m.start()]))]
    clauses = [(m.group(1).split()[0].upper(), bare[m.end():end.start() if end else len(bare)])
               for m, end in zip(cuts, [*cuts[1:], None][:len(cuts)], strict=True)]
    last: str | None = None  # the last WITH or RETURN
    ordered = limited = False  # its ORDER BY; a WITH ... ORDER BY ... SKIP/LIMIT came before
    for word, body in clauses:
        if word == "UNION":
            last, ordered, limited = None, False, False
        elif word == "ORDER":
            ordered = last == "WITH"
        elif word in ("SKIP", "LIMIT"):
            limited = limited or ordered
        elif word in ("WITH", "RETURN"):
            items = [item for item in _top_level_items(body) if item.strip()]
            aggregates = [bool(_AGGREGATE.search(item)) for item in items]
            if limited and aggregates and all(aggregates):
                raise UsageError(
                    "the embedded store's engine (LadybugDB 0.22) gives a wrong answer to an "
                    "aggregate without a grouping key after WITH ... ORDER BY ... SKIP/LIMIT: "
                    "it ignores the ORDER BY. Give the aggregate a constant key "
                    "(RETURN 1 AS g, sum(...)), or return the rows (docs/query.md)")
            if any(aggregates):  # grouped by a key: rows of its own, answered right
                limited = False
            last, ordered = word, False


def _depth(text: str, at: int) -> int:
    """How many brackets are open at ``text[at]``."""
    head = text[:at]
    return sum(head.count(o) - head.count(c) for o, c in ("()", "[]", "{}"))


def _top_level_items(body: str) -> list[str]:
    """``body`` cut at the commas outside brackets."""
    items, depth, start = [], 0, 0
    for i, ch in enumerate(body):
        depth += (ch in "([{") - (ch in ")]}")
        if ch == "," and depth == 0:
            items.append(body[start:i])
            start = i + 1
    items.append(body[start:])
    return items
