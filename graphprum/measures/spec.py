"""The grammar of a measure name: ``NAME(param=value,...)@cutoff`` (ir_measures').

A :class:`MeasureSpec` is a name as written, its parameters and cutoff
still text; a family checks and types them (:meth:`Family.bind
<graphprum.measures.declare.Family.bind>`).

Examples
--------
>>> parse_measure("PRUM(exact=mc,samples=1000)@0.5")
MeasureSpec(name='PRUM', params={'exact': 'mc', 'samples': '1000'}, cutoff='0.5')
>>> str(parse_measure("SRP@10"))
'SRP@10'
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from graphprum.errors import UsageError

_NAME = re.compile(r"^\s*([A-Za-z][A-Za-z0-9_\-]*)\s*(?:\(([^()]*)\))?\s*(?:@\s*([^\s()]+))?\s*$")


@dataclass(frozen=True)
class MeasureSpec:
    """A parsed measure name: ``NAME(params)@cutoff``, the values as typed."""

    name: str
    params: dict[str, str] = field(default_factory=dict)
    cutoff: str | None = None

    def __str__(self) -> str:
        text = self.name
        if self.params:
            text += "(" + ",".join(f"{k}={v}" for k, v in self.params.items()) + ")"
        if self.cutoff is not None:
            text += f"@{self.cutoff}"
        return text

    def __hash__(self) -> int:
        return hash(str(self))

    def param(self, key: str, kind: Callable[[str], Any] = str, default: Any = None) -> Any:
        """A parameter converted with ``kind``; ``default`` when absent.

        Raises UsageError naming the measure when the value does not convert.

        >>> parse_measure("PRUM(samples=500)").param("samples", int, 1000)
        500
        """
        if key not in self.params:
            return default
        try:
            return kind(self.params[key])
        except (TypeError, ValueError):
            raise UsageError(
                f"measure {self}: parameter {key}={self.params[key]!r} is not a valid "
                f"{getattr(kind, '__name__', 'value')}"
            ) from None


def parse_measure(text: str) -> MeasureSpec:
    """Parse ``NAME(param=value,...)@cutoff``; UsageError on a malformed name."""
    m = _NAME.match(text)
    if not m:
        raise UsageError(f"cannot parse measure name {text!r}; "
                         f"expected NAME(param=value,...)@cutoff")
    name, params_text, cutoff = m.groups()
    params: dict[str, str] = {}
    if params_text:
        for item in params_text.split(","):
            if not item.strip():
                continue
            if "=" not in item:
                raise UsageError(f"measure {text!r}: parameter {item.strip()!r} must be key=value")
            k, v = item.split("=", 1)
            params[k.strip()] = v.strip()
    return MeasureSpec(name, params, cutoff)


def is_bare_name(text: str) -> bool:
    """Whether ``text`` is a name alone, without parameters or cutoff.

    >>> is_bare_name("PRUM-success"), is_bare_name("PRUM@0.5"), is_bare_name("2x")
    (True, False, False)
    """
    m = _NAME.match(text)
    return m is not None and m.group(1) == text
