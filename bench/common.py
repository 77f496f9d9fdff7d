"""What several benchmark scripts share: timing a call, writing a random TREC run and qrels."""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Sequence
from pathlib import Path


def best(fn: Callable[[], object], repeat: int) -> float:
    """The shortest of ``repeat`` timings of ``fn()``, in seconds."""
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return min(times)


def write_trec_files(dirpath: Path, topics: int, results: int, seed: int,
                     grades: Sequence[int] = (0, 1, 1, 2, 3)) -> tuple[Path, Path]:
    """``run.txt`` (``results`` per topic, scores falling) and ``qrels.txt``
    (60 judged ids per topic, REL drawn from ``grades``) in ``dirpath``."""
    rng = random.Random(seed)
    run, qrels = dirpath / "run.txt", dirpath / "qrels.txt"
    with open(run, "w") as r, open(qrels, "w") as q:
        for t in range(topics):
            docs = [f"d{t}-{i}" for i in range(results * 2)]
            for i, d in enumerate(rng.sample(docs, results)):
                r.write(f"{t} Q0 {d} {i + 1} {results - i + rng.random():.6f} bench\n")
            for d in rng.sample(docs, 60):
                q.write(f"{t} 0 {d} {rng.choice(list(grades))}\n")
    return run, qrels


#: trec_eval's source: the git directory ``fetch github:usnistgov/trec_eval``
#: makes (or ``$TREC_EVAL_SRC``, a git directory or a source tree), built at
#: the tag graphprum's output matches byte for byte.
TREC_EVAL_GIT = Path("/work/.mirror/usnistgov+trec_eval/repo")
TREC_EVAL_TAG = "v9.0.8"
OUT = Path(__file__).resolve().parent / "out"


def trec_eval_binary() -> Path | None:
    """trec_eval's C binary: ``$TREC_EVAL``, or built once into
    ``bench/out/trec_eval-9.0.8`` from its source (``make``); None when
    neither is there."""
    import os
    import shutil
    import subprocess

    given = os.environ.get("TREC_EVAL")
    if given:
        return Path(given)
    built = OUT / f"trec_eval-{TREC_EVAL_TAG.lstrip('v')}"
    if (built / "trec_eval").exists():
        return built / "trec_eval"
    src = Path(os.environ.get("TREC_EVAL_SRC", TREC_EVAL_GIT))
    if not src.exists() or shutil.which("make") is None:
        return None
    shutil.rmtree(built, ignore_errors=True)
    built.mkdir(parents=True)
    if (src / "Makefile").exists():  # a source tree
        shutil.copytree(src, built, dirs_exist_ok=True)
    else:  # a git directory
        archive = subprocess.run(["git", f"--git-dir={src}", "archive", TREC_EVAL_TAG],
                                 capture_output=True, check=True).stdout
        subprocess.run(["tar", "-x", "-C", str(built)], input=archive, check=True)
    subprocess.run(["make", "-C", str(built)], check=True, capture_output=True)
    return built / "trec_eval"


def thread_ticks(pid: int) -> dict[str, tuple[str, int, int]]:
    """Per thread of ``pid`` (by thread id): its name, user and system
    clock ticks so far (``/proc/PID/task/*/stat``; threads that ended are
    left out)."""
    out = {}
    for task in Path(f"/proc/{pid}/task").iterdir():
        try:
            stat = (task / "stat").read_text()
        except OSError:
            continue
        fields = stat.rsplit(")", 1)[1].split()
        out[task.name] = (stat[stat.index("(") + 1:stat.rindex(")")], int(fields[11]),
                          int(fields[12]))
    return out
