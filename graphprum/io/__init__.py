"""Readers and writers of the input formats of DESIGN §1.3.

The names below are imported from their modules on first use, so that
reading a TREC run or qrels loads neither lxml (INEX XML runs,
:mod:`~graphprum.io.inex_run`) nor the navigation-log readers.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from graphprum.io.inex_run import normalise_xpath, read_inex_run
    from graphprum.io.lines import read_lines
    from graphprum.io.navfile import (
        NavTable,
        Session,
        estimate_transitions,
        read_nav,
        read_nav_log,
    )
    from graphprum.io.passages import DocAssessment, PassageQrels, merge_ranges, read_passages
    from graphprum.io.qrels import Qrels, read_qrels, write_qrels
    from graphprum.io.runs import RankedTopic, Run, read_run, read_trec_run, write_run

_WHERE = {
    "normalise_xpath": "inex_run", "read_inex_run": "inex_run", "read_lines": "lines",
    "NavTable": "navfile", "Session": "navfile", "estimate_transitions": "navfile",
    "read_nav": "navfile", "read_nav_log": "navfile", "DocAssessment": "passages",
    "PassageQrels": "passages", "merge_ranges": "passages", "read_passages": "passages",
    "Qrels": "qrels", "read_qrels": "qrels", "write_qrels": "qrels", "RankedTopic": "runs",
    "Run": "runs", "read_run": "runs", "read_trec_run": "runs", "write_run": "runs",
}

__all__ = [
    "DocAssessment",
    "NavTable",
    "PassageQrels",
    "Qrels",
    "RankedTopic",
    "Run",
    "Session",
    "estimate_transitions",
    "merge_ranges",
    "normalise_xpath",
    "read_inex_run",
    "read_lines",
    "read_nav",
    "read_nav_log",
    "read_passages",
    "read_qrels",
    "read_run",
    "read_trec_run",
    "write_qrels",
    "write_run",
]


def __getattr__(name: str) -> object:
    if name not in _WHERE:
        raise AttributeError(f"module 'graphprum.io' has no attribute {name!r}")
    return getattr(importlib.import_module(f"graphprum.io.{_WHERE[name]}"), name)
