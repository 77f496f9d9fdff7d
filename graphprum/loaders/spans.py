"""Per-unit arithmetic on a document's text and tree, vectorised over a
batch: a unit's position among same-tag siblings, its snippet, its word
count.  Shared by the XML and web loaders (a page's elements are counted
as an XML document's are).

>>> import numpy as np
>>> word_counts("one two  three", np.array([0, 4]), np.array([14, 3])).tolist()
[3, 1]
"""

from __future__ import annotations

import numpy as np

from graphprum.units import SNIPPET_CHARS

#: Lookup table: is code point c whitespace for ``str.split()``? (none above U+3000)
IS_SPACE = np.array([chr(c).isspace() for c in range(0x3002)], dtype=bool)


def sibling_positions(parent: np.ndarray, tag_codes: np.ndarray) -> np.ndarray:
    """1-based position of every element among its same-tag siblings.

    >>> sibling_positions(np.array([-1, 0, 0, 0]), np.array([0, 1, 2, 1])).tolist()
    [1, 1, 1, 2]
    """
    n = len(tag_codes)
    if n == 1:
        return np.ones(1, dtype=np.int32)
    tag_codes = np.asarray(tag_codes, dtype=np.int64)
    order = np.lexsort((np.arange(n), tag_codes, parent))  # by parent, tag, preorder
    key_p = parent[order]
    key_t = tag_codes[order]
    new_group = np.ones(n, dtype=bool)
    new_group[1:] = (key_p[1:] != key_p[:-1]) | (key_t[1:] != key_t[:-1])
    idx = np.arange(n)
    group_start = np.maximum.accumulate(np.where(new_group, idx, 0))
    pos = np.empty(n, dtype=np.int32)
    pos[order] = idx - group_start + 1
    return pos


def snippets(text: str, start: np.ndarray, length: np.ndarray) -> list[str]:
    """:func:`~graphprum.units.text_snippet` of every unit's span of ``text``.

    ``text_snippet`` collapses the first ``4 * SNIPPET_CHARS + 64``
    characters of a span; collapsing a shorter prefix of the span gives a
    prefix of that, so when the prefix already yields ``SNIPPET_CHARS``
    characters it is the snippet.  Only spans whose first
    :data:`SNIPPET_PREFIX` characters are mostly whitespace are collapsed
    again from their full cut.

    >>> snippets("a  b c", np.array([0, 3]), np.array([6, 0]))
    ['a b c', '']
    >>> text = "x" + " " * 200 + "y" * 300
    >>> [(s[:3], len(s)) for s in snippets(text, np.array([0, 150]), np.array([501, 351]))]
    [('x y', 100), ('yyy', 100)]
    """
    limit, cut, prefix = SNIPPET_CHARS, 4 * SNIPPET_CHARS + 64, SNIPPET_PREFIX
    begins, lengths = start.tolist(), length.tolist()
    out = [" ".join(text[b:b + (n if n < prefix else prefix)].split())[:limit]
           for b, n in zip(begins, lengths, strict=True)]
    short = np.fromiter(map(len, out), dtype=np.int64, count=len(out)) < limit
    for k in np.flatnonzero(short & (np.asarray(length) > prefix)).tolist():
        b = begins[k]
        out[k] = " ".join(text[b:b + min(lengths[k], cut)].split())[:limit]
    return out


#: Characters of a span collapsed first for its snippet (see :func:`snippets`).
SNIPPET_PREFIX = SNIPPET_CHARS + 28


def word_counts(text: str, start: np.ndarray, length: np.ndarray) -> np.ndarray:
    """Whitespace-separated tokens of ``text[start:start+length]`` for every span.

    About 10 bytes of temporary memory per character of ``text``.

    >>> word_counts("ab cd  e", np.array([0, 1, 3, 5]), np.array([8, 3, 2, 3])).tolist()
    [3, 2, 1, 1]
    """
    if not text:
        return np.zeros(len(start), dtype=np.int32)
    codes = np.frombuffer(text.encode("utf-32-le"), dtype=np.uint32)
    space = IS_SPACE.take(codes, mode="clip")  # code points past the table are not spaces
    del codes
    token_start = ~space
    token_start[1:] &= space[:-1]
    starts_before = np.cumsum(token_start, dtype=np.int64 if len(text) >= 2**31 else np.int32)
    del token_start

    def tokens_before(k: np.ndarray) -> np.ndarray:  # token starts in text[:k]
        return np.where(k > 0, starts_before[np.maximum(k - 1, 0)], 0)

    end = start + length
    counts: np.ndarray = (tokens_before(end) - tokens_before(start)).astype(np.int64)
    # a token that began before the span but continues into it counts once more
    inside = (length > 0) & (start > 0)
    s = start[inside]
    cont = ~space[s] & ~space[s - 1]
    counts[np.flatnonzero(inside)[cont]] += 1
    return counts.astype(np.int32)
