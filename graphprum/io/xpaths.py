"""INEX element paths (DESIGN §1.1): every step positional, ``/tag[N]``.

INEX runs and assessments may write steps without a position (``/article/sec``
means ``/article[1]/sec[1]``); ids in the store are always positional.

>>> normalise_xpath("/article/sec[2]"), normalise_id("doc#/article/sec")
('/article[1]/sec[2]', 'doc#/article[1]/sec[1]')
"""

from __future__ import annotations

import re

_NAME = r"[^\W\d][\w.\-]*(?::[^\W\d][\w.\-]*)?"
_STEP = re.compile(rf"({_NAME})(?:\[\s*([0-9]+)\s*\])?")
#: A path already in normal form (every step ``/tag[N]``, N >= 1).
_NORMAL = re.compile(rf"(?:/{_NAME}\[[1-9][0-9]*\])+")


def normalise_xpath(path: str) -> str:
    """An INEX element path with every step positional: ``/a[1]/b[2]``.

    Steps without a position get ``[1]``; a missing leading ``/`` is added;
    namespace prefixes are kept as written.

    Raises
    ------
    ValueError
        Anything but ``/``-separated element steps ``tag`` or ``tag[N]``,
        N >= 1: empty steps (``//``), ``text()``, ``@attr``, ``*``, predicates.

    Examples
    --------
    >>> normalise_xpath("/article/body[1]/section")
    '/article[1]/body[1]/section[1]'
    >>> normalise_xpath("article[1]/bdy[1]/sec[3]/p")
    '/article[1]/bdy[1]/sec[3]/p[1]'
    >>> normalise_xpath("/dc:record/dc:title")
    '/dc:record[1]/dc:title[1]'
    >>> normalise_xpath("/article[1]//p")
    Traceback (most recent call last):
    ...
    ValueError: empty step in '/article[1]//p'
    >>> normalise_xpath("/article[0]")
    Traceback (most recent call last):
    ...
    ValueError: position 0 in step 'article[0]' (positions start at 1)
    """
    if _NORMAL.fullmatch(path):
        return path
    text = path.strip()
    if not text or text == "/":
        raise ValueError(f"empty path {path!r}")
    if text.startswith("/"):
        text = text[1:]
    out: list[str] = []
    for step in text.split("/"):
        step = step.strip()
        if not step:
            raise ValueError(f"empty step in {path!r}")
        m = _STEP.fullmatch(step)
        if m is None:
            raise ValueError(f"step {step!r} is not an element step tag or tag[N]")
        position = m.group(2)
        if position is None:
            position = "1"
        elif int(position) < 1:
            raise ValueError(f"position {int(position)} in step {step!r} (positions start at 1)")
        out.append(f"{m.group(1)}[{int(position)}]")
    return "/" + "/".join(out)


def is_positional_id(uid: str) -> bool:
    """Whether ``uid`` is not an element id (no ``#/``) or one whose every step
    is positional -- a cheap test, no regular expression.

    >>> is_positional_id("d#/a[1]/b[2]"), is_positional_id("d#/a/b"), is_positional_id("p.html")
    (True, False, True)
    """
    at = uid.find("#/")
    if at < 0:
        return True
    return uid.endswith("]") and uid.count("/", at + 1) == uid.count("]/", at + 1) + 1


def normalise_id(uid: str) -> str:
    """``DOC#XPATH`` with a positional XPath (``uid`` unchanged when it is not
    an element id or its path is not an element path).

    >>> normalise_id("d#/article/p"), normalise_id("d#/a[1]//b"), normalise_id("v#3")
    ('d#/article[1]/p[1]', 'd#/a[1]//b', 'v#3')
    """
    at = uid.find("#/")
    if at < 0:
        return uid
    try:
        return uid[:at + 1] + normalise_xpath(uid[at + 1:])
    except ValueError:
        return uid
