"""The retention advice on the contract graph (`contracts.retention_reads.RetentionGraph`), read
through the in-memory fake: what is kept and why, what may go, the bytes, the periods."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from contracts.retention_reads import ANN, SWEEP_CHECKPOINTS, RetentionGraph
from fakes import FakeRetentionReads

from provgraph.cli.main import main
from provgraph.query.errors import InvalidArgumentError, LimitExceededError
from provgraph.query.recipes.retention import parse_period, retention_advice
from provgraph.query.recipes.retention_render import render_retention, size_text

NOW = datetime(2026, 6, 1, tzinfo=UTC)


class SweepDone(RetentionGraph):
    """The contract graph, with runs `prep` and `sweep` completed: of the runs, only `ft`
    still runs."""

    def __post_init__(self) -> None:
        super().__post_init__()
        self.add(self.a, ANN, "01-01T05:00", "run.completed", run_id=f"{self.a}-prep")
        self.add(self.a, ANN, "08-03T00:00", "run.completed", run_id=f"{self.a}-sweep")


@pytest.fixture()
def graph() -> SweepDone:
    return SweepDone("a", "b")


def advice(graph: RetentionGraph, period: str = "180d", **kw: Any) -> dict[str, Any]:
    reads = FakeRetentionReads(graph.log.memory())
    _, both = graph.scopes()
    return retention_advice(reads, graph.a, both, now=NOW, period=period, **kw)


def why(answer: dict[str, Any]) -> dict[str, list[tuple[str, str | None]]]:
    return {row["id"]: [(r["rule"], r["by"]) for r in row["reasons"]] for row in answer["keep"]}


def test_kept_for_themselves_and_for_what_stands_on_them(graph: SweepDone) -> None:
    answer = advice(graph)
    api, mirror = graph.deployment("api"), graph.deployment("mirror", graph.b)
    assert why(answer) == {
        graph.ck("train", 100): [("upstream_of_kept", graph.run("ft"))],  # ft resumed from it
        graph.ck("train", 200): [("upstream_of_kept", graph.mv())],  # m@1 exported from it
        graph.dv("bench"): [("upstream_of_kept", graph.mv())],  # an evaluation of m@1 used it
        graph.dv("clean"): [("upstream_of_kept", graph.mv())],  # m@1's run used it
        graph.dv("raw"): [("used_by_another_project", graph.b),
                          ("upstream_of_kept", graph.mv())],  # clean derived from it
        graph.mv(): [("in_service", api), ("used_by_another_project", graph.b),
                     ("upstream_of_kept", graph.run("ft"))],  # retired a year ago, yet served
    }  # fmt: skip
    assert api in answer["keep"][-1]["reasons"][0]["text"]
    assert mirror in answer["keep"][-1]["reasons"][0]["text"]


def test_the_rest_is_deletable_and_sizes_not_recorded_are_not_counted(graph: SweepDone) -> None:
    answer = advice(graph)
    sweep = sorted(graph.ck("sweep", s) for s in range(1, SWEEP_CHECKPOINTS + 1))
    assert [row["id"] for row in answer["deletable"]] == sweep
    assert {row["frees_bytes"] for row in answer["deletable"]} == {None}
    assert (answer["bytes_freed"], answer["sizes_unknown"]) == (0, SWEEP_CHECKPOINTS)
    assert [(d["id"], d["reason"]) for d in answer["already_deleted"]] == [
        (graph.dv("nosize"), "a mistake")
    ]
    text = render_retention(answer)
    assert f"DELETABLE ({SWEEP_CHECKPOINTS})" in text and "ALREADY DELETED (1)" in text
    assert f"{SWEEP_CHECKPOINTS} with no recorded size, not counted" in text


def test_a_running_run_keeps_what_it_produced() -> None:
    answer = advice(RetentionGraph("a", "b"))  # sweep never ended
    graph = RetentionGraph("a", "b")
    assert answer["deletable"] == []
    kept = why(answer)
    assert kept[graph.ck("sweep", 1)] == [("produced_by_running_run", graph.run("sweep"))]


def test_a_longer_period_keeps_the_retired_model_and_what_is_recent(graph: SweepDone) -> None:
    answer = advice(graph, "104w")  # two years: from 2024-06-03
    rules = {node: [rule for rule, _ in reasons] for node, reasons in why(answer).items()}
    assert "retired_within_period" in rules[graph.mv()]
    assert rules[graph.ck("sweep", 3)] == ["recorded_within_period"]
    assert answer["deletable"] == []
    assert answer["retired_before"] == "2024-06-03T00:00:00.000000Z"


def test_every_read_is_one_bounded_page(graph: SweepDone) -> None:
    reads = FakeRetentionReads(graph.log.memory())
    _, both = graph.scopes()
    paged = retention_advice(reads, graph.a, both, now=NOW, period="180d", page=4)
    assert paged == advice(graph)
    artefact_pages = [first for method, first in reads.calls if method == "artefacts"]
    assert artefact_pages == [4] * 5  # 19 artefacts: four full pages and a short one
    with pytest.raises(LimitExceededError):
        advice(graph, max_nodes=10)


@pytest.mark.parametrize(("text", "days"), [("180d", 180), ("26w", 182), ("72h", 3), ("1d", 1)])
def test_periods_in_days_weeks_and_hours(text: str, days: int) -> None:
    assert parse_period(text) == timedelta(days=days)


@pytest.mark.parametrize("text", ["180", "1y", "0d", "-1d", "1.5d", "d", "30m", ""])
def test_other_periods_are_refused_clearly(text: str) -> None:
    with pytest.raises(InvalidArgumentError, match="is not a period such as 180d"):
        parse_period(text)


def test_sizes_read_for_people() -> None:
    assert [size_text(n) for n in (None, 512, 1536, 50 * 1024**2, 3 * 1024**4)] == [
        "unknown", "512 B", "1.5 KiB", "50.0 MiB", "3.0 TiB"]  # fmt: skip


@pytest.mark.parametrize(
    ("argv", "said"),
    [
        (["--keep-after-retire", "6m"], "is not a period such as 180d"),
        (["--keep-after-retire", "180d", "--apply"], "--apply sends what --emit prints"),
        (["--keep-after-retire", "180d", "--now", "soon"], "--now: 'soon' is not an ISO 8601"),
    ],
)
def test_arguments_refused_before_anything_is_read(
    argv: list[str], said: str, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PROVGRAPH_NEO4J_URI", "bolt://127.0.0.1:1")  # nothing answers there
    assert main(["retention", "--project", "p", *argv]) == 2
    assert said in capsys.readouterr().err
