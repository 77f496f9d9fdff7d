"""Readers and writers of the input formats of DESIGN §1.3."""

from graphprum.io.inex_run import normalise_xpath, read_inex_run
from graphprum.io.lines import read_lines
from graphprum.io.navfile import NavTable, Session, estimate_transitions, read_nav, read_nav_log
from graphprum.io.passages import DocAssessment, PassageQrels, merge_ranges, read_passages
from graphprum.io.qrels import Qrels, read_qrels, write_qrels
from graphprum.io.runs import RankedTopic, Run, read_run, read_trec_run, write_run

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
