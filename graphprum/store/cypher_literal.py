"""Parameter values as Cypher literals, for FalkorDB's Bolt port.

FalkorDB 4.16 does not keep Bolt parameters apart from the query: it prints
them into the query text as ``CYPHER k=v k=v ... QUERY`` (``get_query`` and
``write_value`` in its ``src/bolt/bolt_api.c``), strings between quotes as
they are (a ``'`` ends the string), map keys bare (any text goes, so a key
can close the map and append clauses: Cypher injection), floats with ``%f``
(``1e-7`` becomes ``0.000000``), into a 4,096-byte buffer it does not check.

So the Bolt store sends FalkorDB no parameters at all: :func:`splice`
writes that same ``CYPHER k=v ...`` prefix itself, every value through
:func:`cypher_literal`, the one encoder of this project, and FalkorDB's own
parser reads the literals back.  Values round-trip exactly (the tests send
random values, hostile keys and strings included, through a real server as
``RETURN $v``):

=========  ================================================================
type       literal
=========  ================================================================
None       ``null``
bool       ``true`` / ``false``
int        decimal; outside 64 bits (FalkorDB's integers) refused
float      shortest repr that reads back to the same double (``1e-07``,
           ``1e300``); NaN and infinities refused (Cypher has no literal)
str        ``'...'`` with ``\\`` and ``'`` escaped, everything else as is
           (UTF-8, newlines, control characters); NUL refused (FalkorDB's
           strings end at NUL)
list       ``[a, b]`` (tuples too)
dict       ``{key: v}``, the key bare when it is a plain name
           (``[A-Za-z_][A-Za-z0-9_]*``), else between backquotes; keys
           holding a backquote or NUL refused (FalkorDB reads no escape
           inside backquotes)
=========  ================================================================

Parameter *names* must be plain names.  Anything else (bytes, dates,
nodes ...) is refused.  Refusals are :class:`~graphprum.errors.UsageError`
naming the parameter and where in it (``$v.k[2]``).

Examples
--------
>>> cypher_literal({"a: 1} CREATE (:Pwn) RETURN 1 AS v //": "x'y"})
"{`a: 1} CREATE (:Pwn) RETURN 1 AS v //`: 'x\\\\'y'}"
>>> cypher_literal([1e-7, 2.0, -0.0, None, True])
'[1e-07, 2.0, -0.0, null, true]'
>>> splice("RETURN $v AS v", {"v": "it's"})
"CYPHER v='it\\\\'s' RETURN $v AS v"
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping

from graphprum.errors import UsageError

#: The range of FalkorDB's (and Neo4j's) integers.
INT_MIN, INT_MAX = -(2**63), 2**63 - 1
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")


def is_plain_name(name: str) -> bool:
    """Whether ``name`` can stand bare as a parameter name or map key.

    >>> is_plain_name("doc_1"), is_plain_name("1a"), is_plain_name("é")
    (True, False, False)
    """
    return _NAME.match(name) is not None


def _refuse(where: str, why: str) -> UsageError:
    return UsageError(f"parameter {where}: {why}")


def _string(text: str, where: str) -> str:
    if "\0" in text:
        raise _refuse(where, "a string holding NUL (FalkorDB's strings end there)")
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        raise _refuse(where, "a string that is not valid Unicode (a lone surrogate)") from None
    return "'" + text.replace("\\", "\\\\").replace("'", "\\'") + "'"


def _key(key: object, where: str) -> str:
    if not isinstance(key, str):
        raise _refuse(where, f"map key {key!r} is not a string")
    if is_plain_name(key):
        return key
    if "`" in key or "\0" in key:
        raise _refuse(where, f"map key {key!r} holds a backquote or NUL, which FalkorDB "
                             f"cannot read back")
    try:
        key.encode("utf-8")
    except UnicodeEncodeError:
        raise _refuse(where, "a map key that is not valid Unicode") from None
    return f"`{key}`"


def _float(value: float, where: str) -> str:
    if not math.isfinite(value):
        raise _refuse(where, f"{value} has no Cypher literal")
    text = repr(value)  # the shortest text that reads back to the same double
    return text.replace("e+", "e")  # Cypher's exponent takes no '+'


def cypher_literal(value: object, where: str = "$v") -> str:
    """``value`` as a Cypher literal that FalkorDB reads back as ``value``
    (see the module docstring); UsageError naming ``where`` otherwise.

    >>> cypher_literal(2**63)
    Traceback (most recent call last):
    ...
    graphprum.errors.UsageError: parameter $v: integer 9223372036854775808 is outside 64 bits
    """
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        if not INT_MIN <= value <= INT_MAX:
            raise _refuse(where, f"integer {value} is outside 64 bits")
        return str(int(value))
    if isinstance(value, float):
        return _float(value, where)
    if isinstance(value, str):
        return _string(value, where)
    if isinstance(value, list | tuple):
        return "[" + ", ".join(cypher_literal(v, f"{where}[{i}]")
                               for i, v in enumerate(value)) + "]"
    if isinstance(value, Mapping):
        return "{" + ", ".join(f"{_key(k, where)}: {cypher_literal(v, f'{where}.{k}')}"
                               for k, v in value.items()) + "}"
    raise _refuse(where, f"a {type(value).__name__} has no Cypher literal here")


def check_integers(value: object, where: str = "$") -> None:
    """UsageError for an integer anywhere in ``value`` outside 64 bits (what
    Neo4j, which takes parameters as they are, cannot hold either).

    >>> check_integers({"n": [1, 2**64]})
    Traceback (most recent call last):
    ...
    graphprum.errors.UsageError: parameter $n[1]: integer 18446744073709551616 is outside 64 bits
    """
    if isinstance(value, bool):
        return
    if isinstance(value, int):
        if not INT_MIN <= value <= INT_MAX:
            raise _refuse(where, f"integer {value} is outside 64 bits")
    elif isinstance(value, list | tuple):
        for i, v in enumerate(value):
            check_integers(v, f"{where}[{i}]")
    elif isinstance(value, Mapping):
        for k, v in value.items():
            check_integers(v, f"{where}{k}" if where == "$" else f"{where}.{k}")


def literal_size(value: object) -> int:
    """Bytes of ``cypher_literal(value)`` in UTF-8.

    >>> literal_size(["ab", 12, None, {"k": 1.5}])  # ['ab', 12, null, {k: 1.5}]
    26
    """
    return len(cypher_literal(value).encode("utf-8"))


def parameter_prefix(params: Mapping[str, object]) -> str:
    """``CYPHER k=v k=v `` for ``params`` (empty without parameters).

    >>> parameter_prefix({"a": 1, "b": [True]})
    'CYPHER a=1 b=[true] '
    >>> parameter_prefix({"a b": 1})
    Traceback (most recent call last):
    ...
    graphprum.errors.UsageError: parameter name 'a b': use letters, digits and _ (not first a digit)
    """
    if not params:
        return ""
    parts = []
    for name, value in params.items():
        if not isinstance(name, str) or not is_plain_name(name):
            raise UsageError(f"parameter name {name!r}: use letters, digits and _ "
                             f"(not first a digit)")
        parts.append(f"{name}={cypher_literal(value, '$' + name)}")
    return "CYPHER " + " ".join(parts) + " "


def splice(text: str, params: Mapping[str, object]) -> str:
    """The query ``text`` with ``params`` given in a ``CYPHER`` prefix of
    literals (what FalkorDB would build, but encoded safely)."""
    return parameter_prefix(params) + text
