"""Every benchmark part at a tiny scale, as `make bench` runs it, so a change that breaks a
benchmark fails here and not days later on a quiet machine.

One `python -m benchmarks` process runs all parts against one private Kafka and Neo4j (started
once on free loopback ports, as the benchmarks always do: they empty the database between
sides, so they cannot share the stack the other tests use). The scale is the smallest round one
holding a whole project of the workload (the queries trace its shipped model); one repeat, few
samples, a W1 of 10 runs. No time is asserted: the figures of a loaded test machine mean
nothing. What is asserted is that every part ran its own checks (graph, answers, drawn sets)
and wrote its results with positive figures.
"""

from __future__ import annotations

import json
import math
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]
SCALE = 2000  # the workload's first whole project is 1,683 events (seed 7)
W1_RUNS = 10
FOLD_OF_LOG = "equal to the fold of the log"
FOLD_BUT_NUMBERS = "equal to the fold of the log, numbers apart"
FOLD_OF_EVENTS = "equal to the fold of the events"
# part -> its results file (stem)
FILES = {
    "ingest": "ingest",
    "kafka": "kafka_clients",
    "queries": "queries",
    "explorer": "explorer",
    "replay": "replay",
    "memory": "memory",
    "verify": "verify",
    "mlflow": "mlflow_w1",
    "sdk": "sdk",
    "group": "group",
}
# What each part's graph was checked against (the Kafka-fed sides: the fold of their log).
GRAPH_CHECKS = {
    "ingest": {"ours": FOLD_OF_LOG, "limit": FOLD_OF_EVENTS, "naive": FOLD_OF_EVENTS},
    "replay": {"replay": FOLD_OF_LOG},
    "memory": {"projector": FOLD_OF_LOG},
    "verify": {"verify": "no differences (verify compares the log fold with Neo4j)"},
    "mlflow": {"ours": FOLD_OF_LOG},
    "group": {
        "1 projectors": FOLD_OF_LOG,
        "2 projectors": FOLD_BUT_NUMBERS,  # members number in their own order...
        "3 projectors": FOLD_BUT_NUMBERS,
        "2, exact numbers projectors": FOLD_OF_LOG,  # ... unless told to keep the log's
    },
}
ROWS = {
    "ingest": 3,
    "kafka": 2,
    "queries": 27,  # 10 lineage rows, impact, 16 recipes (effects ... nodes metric among them)
    "explorer": 2,
    "replay": 2,
    "memory": 5,
    "verify": 3,
    "mlflow": 2,
    "sdk": 5,
    "group": 4,
}
# Differences, not figures: zero or below when noise outweighs them at this scale.
SIGNED = {"RSS growth after the first quarter (MB)", "step overhead p50 (%)"}
# A figure too short to mean anything at this scale, written as NaN: the group's settled rate.
UNMEASURED = {"group": "once settled"}

pytestmark = pytest.mark.timeout(900)


def _mlflow_server() -> str:
    path = os.environ.get("PROVGRAPH_BENCH_MLFLOW") or str(ROOT / ".venv-mlflow/bin/mlflow")
    assert Path(path).is_file(), f"no MLflow server at {path}: `make bench-deps` installs it"
    return path


def _bench(out: Path, args: tuple[str, ...], main: str = "") -> tuple[int, str]:
    """`python -m benchmarks` at SCALE with one repeat and `args`, results into out/results
    (`main`: Python run in its place, ending in the benchmarks' main); its exit code and
    output."""
    # As `make bench` runs it: none of the shared stack's PROVGRAPH_* settings leak in.
    env = {k: v for k, v in os.environ.items() if not k.startswith("PROVGRAPH_")}
    env["PROVGRAPH_BENCH_MLFLOW"] = _mlflow_server()
    start = ("-c", main) if main else ("-m", "benchmarks")
    argv = [
        *(sys.executable, *start, "--scale", str(SCALE), "--repeat", "1"),
        *args,
        *("--results", str(out / "results")),
    ]
    log = out / "bench.log"
    with log.open("w") as sink:
        code = subprocess.run(
            argv, cwd=ROOT, env=env, stdout=sink, stderr=subprocess.STDOUT, timeout=840
        ).returncode
    return code, log.read_text()


def _run(out: Path, *args: str) -> Path:
    """`python -m benchmarks` at SCALE with one repeat and `args`; its results folder, or the
    run's output on failure."""
    code, output = _bench(out, args)
    if code != 0:
        tail = "\n".join(output.splitlines()[-40:])
        pytest.fail(f"python -m benchmarks exited {code}:\n{tail}")
    return out / "results"


@pytest.fixture(scope="module")
def results(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The results folder of one run of every part."""
    return _run(
        tmp_path_factory.mktemp("bench"),
        *("--samples", "2", "--warm-up-s", "0", "--page-loads", "1", "--w1-runs", str(W1_RUNS)),
    )


def _load(results: Path, part: str) -> dict[str, Any]:
    path = results / f"{FILES[part]}.json"
    assert path.is_file(), f"{part}: no {path.name} in {sorted(p.name for p in results.iterdir())}"
    assert (results / f"{FILES[part]}.md").is_file(), f"{part}: no Markdown table"
    body: dict[str, Any] = json.loads(path.read_text())
    return body


def _figures(part: str, row: list[Any]) -> list[float]:
    """The row's numbers; a query row without a hand-written side has no figure there."""
    cells = row
    if part == "queries" and row[-1] == "-":
        cells = row[:7]
    if part == "group":  # the settled rate (column 3) needs a backlog longer than this one
        cells = [*row[:3], *row[4:]]
    return [float(v) for v in cells if isinstance(v, int | float) and not isinstance(v, bool)]


@pytest.mark.parametrize("part", list(FILES))
def test_every_part_checks_and_writes_positive_figures(results: Path, part: str) -> None:
    body = _load(results, part)
    assert body["meta"]["scale"] == SCALE and body["meta"]["repeat"] == 1
    rows = body["rows"]
    assert len(rows) == ROWS[part], f"{part}: rows {rows}"
    for row in rows:
        figures = _figures(part, row)
        assert figures, f"{part}: no figure in {row}"
        assert all(math.isfinite(v) and v > 0 for v in figures), f"{part}: {row}"
    unmeasured = UNMEASURED.get(part)
    ratios = {
        k: v
        for k, v in body["ratios"].items()
        if k not in SIGNED and not (unmeasured and unmeasured in k)
    }
    assert all(math.isfinite(v) and v > 0 for v in ratios.values()), f"{part}: {ratios}"


@pytest.mark.parametrize("part", list(GRAPH_CHECKS))
def test_graph_checks_compare_each_side_with_its_own_inputs(results: Path, part: str) -> None:
    body = _load(results, part)
    assert body["graph_checks"] == GRAPH_CHECKS[part]
    if part == "ingest":
        assert [row[-1] for row in body["rows"]] == [FOLD_OF_LOG, FOLD_OF_EVENTS, FOLD_OF_EVENTS]


def test_answers_and_drawn_sets_were_checked(results: Path) -> None:
    mlflow = _load(results, "mlflow")
    assert f"W1 ({W1_RUNS} runs," in mlflow["title"]
    assert [row[-1] for row in mlflow["rows"]] == ["100 checked", "100 checked"]
    queries = _load(results, "queries")
    lineage = [row for row in queries["rows"] if str(row[0]).startswith("lineage")]
    assert len(lineage) == 10 and all(row[1] >= 1 for row in lineage)
    explorer = _load(results, "explorer")
    # The ~1,000-node case is the wide project's answer at depth 2: 1 + 2 x 500 nodes.
    assert [row[2] for row in explorer["rows"]][1] == 1001


def test_memory_alone_folds_the_log_beside_the_projector(tmp_path: Path) -> None:
    """Without ingest or replay before it, the memory part folds its reference while the
    projector works (what makes it fit at 10M), and still checks the graph against it."""
    body = _load(_run(tmp_path, "--only", "memory"), "memory")
    assert body["graph_checks"] == GRAPH_CHECKS["memory"]
    assert len(body["rows"]) == ROWS["memory"]
    assert body["rows"][1][0].endswith("(the log folded beside it)"), body["rows"]


def test_replay_alone_folds_the_log_beside_its_process(tmp_path: Path) -> None:
    """Without ingest or memory before it, the replay part folds its reference while
    `provgraph replay` works in a process of its own (what makes it fit at 10M), checks the
    graph against it, and shows no live ingest to compare with."""
    body = _load(_run(tmp_path, "--only", "replay"), "replay")
    assert body["graph_checks"] == GRAPH_CHECKS["replay"]
    assert [row[0] for row in body["rows"]] == [
        "replay (provgraph replay, the log folded beside it)"
    ]
    assert body["rows"][0][1] > 0 and body["ratios"] == {}
    assert len(body["seconds"]) == len(body["rss_peak_mb"]) == 1 and body["rss_peak_mb"][0] > 0


# The memory part with a fault injected (`fault`), then the benchmarks' main.
_FAULTY = """
import benchmarks.bench_replay as part
from benchmarks.__main__ import main

def check_graph(*_):
    raise RuntimeError("the graph differs from the fold of its log (injected)")

{fault}
main()
"""
FAULTS = {
    # The check, not the projector, is broken.
    "graph check": ("part.check_graph = check_graph", "the graph differs from the fold"),
    # The projector process gets no time (it stops after its first step).
    "projector": ("part.projector_timeout_s = lambda n: -1.0", "projector failed (1)"),
}


@pytest.mark.parametrize("fault", list(FAULTS))
def test_a_failed_memory_part_fails_the_run_and_keeps_what_was_measured(
    tmp_path: Path, fault: str
) -> None:
    """At 10M the memory part samples for an hour before its end: a projector that fails, or a
    graph check that does, fails the run, and the samples are still written, marked failed."""
    inject, said = FAULTS[fault]
    code, output = _bench(tmp_path, ("--only", "memory"), main=_FAULTY.format(fault=inject))
    assert code != 0, output
    assert f"FAILED: memory: {said}" in output, output[-3000:]
    body = _load(tmp_path / "results", "memory")
    assert said in body["meta"]["failed"]
    assert "graph_checks" not in body, "a failed part must not be written as checked"
    assert len(body["rss_mb"]) == len(body["t_s"]) > 0
    assert len(body["rows"]) == ROWS["memory"] and body["rows"][0][1] > 0
    rate = body["rows"][1][1]
    # A projector that failed has no rate: it did not apply the whole backlog.
    assert math.isnan(rate) if fault == "projector" else rate > 0
