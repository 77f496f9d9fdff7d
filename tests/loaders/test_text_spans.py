"""The loader's vectorised text statistics of element spans (snippets and
word counts) against their definitions applied to each span on its own:
``text_snippet`` (split and join) and ``len(span.split())``."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from graphprum.loaders.spans import snippets, word_counts
from graphprum.units import SNIPPET_CHARS, text_snippet

# whitespace of str.split() beyond ASCII, and characters that are not
# whitespace although they look alike or sit past the lookup table
ALPHABET = "ab \t\n\r\x0b\x0c\x1c\x1f\x85\xa0\u1680\u2000\u2028\u3000\u200b\ufeff\u3001" \
           "\U0001F600é"


@st.composite
def texts_and_spans(draw: st.DrawFn) -> tuple[str, list[tuple[int, int]]]:
    words = draw(st.lists(st.text(ALPHABET, max_size=40), max_size=60))
    # long runs of one character make spans longer than the snippet's cut
    runs = draw(st.lists(st.tuples(st.sampled_from(" a\u3000"), st.integers(0, 600)),
                         max_size=3))
    text = "".join(words) + "".join(c * k for c, k in runs) + "".join(words[:3])
    n = len(text)
    spans = draw(st.lists(st.tuples(st.integers(0, n), st.integers(0, n)), max_size=30))
    return text, [(min(a, b), abs(a - b)) for a, b in spans]


@settings(max_examples=300, deadline=None)
@given(texts_and_spans())
def test_snippets_and_words_equal_their_definitions(case) -> None:
    text, spans = case
    start = np.array([b for b, _ in spans], dtype=np.int64)
    length = np.array([n for _, n in spans], dtype=np.int64)
    expected = [text_snippet(text[b:b + n]) for b, n in spans]
    assert snippets(text, start, length) == expected
    assert word_counts(text, start, length).tolist() == \
        [len(text[b:b + n].split()) for b, n in spans]


def test_long_span_is_cut_like_text_snippet() -> None:
    """A span whose first 464 characters are mostly spaces: the snippet is
    taken from the cut span, as ``text_snippet`` does, not the whole span."""
    text = "x" + " " * 500 + "y" * 200
    cut = 4 * SNIPPET_CHARS + 64
    assert snippets(text, np.array([0]), np.array([len(text)])) == \
        [text_snippet(text)] == [" ".join(text[:cut].split())[:SNIPPET_CHARS]] == ["x"]
    # from row 40: 461 spaces, then the cut leaves 3 of the 200 y
    assert snippets(text, np.array([40]), np.array([len(text) - 40])) == \
        [text_snippet(text[40:])] == ["yyy"]
