"""examples/video: the shipped trailer subtitles, qrels and run, evaluated
end to end; expected values worked out by hand in examples/video/README.md."""

from __future__ import annotations

import pytest

import graphprum
from graphprum.loading import load_video
from graphprum.store import open_store
from tests.support import REPO

EXAMPLE = REPO / "examples" / "video"


def test_video_example(tmp_path):
    store = open_store(tmp_path / "store")
    load_video(store, [EXAMPLE / "bbb_trailer.srt"])
    table = store.table()
    assert len(table) == 11 and table.ids([0, 10]) == ["bbb_trailer", "bbb_trailer#10"]
    df = graphprum.evaluate([EXAMPLE / "run.txt"], EXAMPLE / "qrels.txt",
                            ["T2I-P(tau=5,T=20)", "ESL(tau=5,S=1)", "ESL(tau=5,S=2)",
                             "ESL(tau=5)"], nav=["t2i"], store=store)
    got = {(r.measure, r.topic): r.value for r in df.itertuples()}
    assert got["T2I-P(tau=5,T=20)", "1"] == pytest.approx((1 / 2 + 2 / 4 + 2 / 5 + 2 / 6) / 4)
    assert got["T2I-P(tau=5,T=20)", "2"] == pytest.approx((2 / 3 + 2 / 4 + 2 / 5 + 2 / 6) / 4)
    assert got["ESL(tau=5,S=1)", "1"] == 1.0 and got["ESL(tau=5,S=2)", "1"] == 2.0
    assert got["ESL(tau=5)", "2"] == pytest.approx(1.5 + 4.0)
