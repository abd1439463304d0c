"""`scale-up`: a run beside its pilot, pure: resources and the scale factor, other changes
flagged, and whether the pilot's metric trend held (the definition in recipes/scale_up.py)."""

from __future__ import annotations

from typing import Any

import pytest
from fakes import FakeSeriesReads
from fakes.compare import FakeCompareReads
from fakes.scale_up import FakeScaleUpReads

from provgraph.core.errors import NotFoundError
from provgraph.query.errors import InvalidArgumentError
from provgraph.query.read.model import EdgeView, Scope
from provgraph.query.read.series_reads import MetricSeriesView
from provgraph.query.recipes.comparing import row_of
from provgraph.query.recipes.scale_up import (
    ScaleUps,
    metric_trend,
    overall,
    render_scale_up,
    scale_up_answer,
)
from provgraph.schemas.storage import encode_json

pytestmark = pytest.mark.unit

PILOT_RES = {"num_nodes": 1, "devices_per_node": 8, "accelerator": "H100"}
BIG_RES = {**PILOT_RES, "num_nodes": 8, "parallelism": {"data": 64}}


def _record(run: str, resources: dict[str, Any], **params: Any) -> dict[str, Any]:
    props = {
        "id": f"run:{run}",
        "name": run,
        "status": "completed",
        "project": "p",
        "params_json": encode_json({"lr": 0.0003, **params}),
        "resources_json": encode_json(resources),
    }
    return {
        "run": props,
        "experiment": "experiment:p/scale",
        "inputs": [{"role": "train", "id": "dataset:p/web@v1", "gates": None}],
        "environments": [],
        "bases": [],
        "resumes": [],
    }


def _series(name: str, *points: tuple[int, float]) -> MetricSeriesView:
    return MetricSeriesView(name, tuple(points))


def test_a_loss_that_fell_further_at_scale_held() -> None:
    found = metric_trend("val/loss", [(0, 2.0), (100, 1.5), (200, 1.2)], [(0, 2.0), (200, 1.1)])
    assert found["verdict"] == "held"
    assert found["shared_steps"] == {"start": 0, "end": 200}
    assert found["pilot"]["trend"] == {
        "first": {"step": 0, "value": 2.0},
        "last": {"step": 200, "value": 1.2},
        "change": -0.8,
        "direction": "down",
        "slope_per_1k_steps": -4.0,
    }
    assert found["why"] == "both went down; as good or better at the end (lower is better)"


def test_the_shared_steps_end_where_the_shorter_run_ends() -> None:
    # the scale-up ran 10x longer: only its points up to the pilot's last step count
    pilot = [(10, 3.0), (100, 2.0)]
    big = [(10, 3.0), (50, 2.5), (100, 2.2), (1000, 0.5)]
    found = metric_trend("loss", pilot, big)
    assert found["shared_steps"] == {"start": 10, "end": 100}
    assert found["scale_up"]["final"] == {"step": 1000, "value": 0.5}
    assert found["scale_up"]["trend"]["last"] == {"step": 100, "value": 2.2}
    assert (found["verdict"], found["why"]) == (
        "weaker",
        "both went down; worse at the end (lower is better)",
    )


@pytest.mark.parametrize(
    ("pilot", "big", "verdict"),
    [
        ([(0, 0.5), (100, 0.7)], [(0, 0.5), (100, 0.8)], "held"),  # accuracy: up is better
        ([(0, 0.5), (100, 0.7)], [(0, 0.5), (100, 0.4)], "reversed"),
        ([(0, 1.0), (100, 0.9)], [(0, 1.0), (100, 1.0)], "reversed"),  # did not move
        ([(0, 1.0), (100, 1.0)], [(0, 1.0), (100, 0.5)], "unknown"),  # pilot flat
        ([(0, 1.0)], [(0, 1.0), (100, 0.5)], "unknown"),  # one point
        ([(0, 1.0), (10, 0.5)], [(20, 1.0), (30, 0.5)], "unknown"),  # no shared steps
    ],
)
def test_verdicts(
    pilot: list[tuple[int, float]], big: list[tuple[int, float]], verdict: str
) -> None:
    assert metric_trend("m", pilot, big)["verdict"] == verdict


def test_overall_verdict() -> None:
    def m(verdict: str) -> dict[str, str]:
        return {"verdict": verdict}

    assert overall([m("held"), m("unknown")]) == "held"
    assert overall([m("held"), m("weaker")]) == "not held"
    assert overall([m("unknown")]) == overall([]) == "unknown"


def test_the_answer_resources_scale_flag_and_only_metrics_both_logged() -> None:
    pilot = row_of(_record("pilot", PILOT_RES))
    big = row_of(_record("big", BIG_RES, batch_size=512))
    answer = scale_up_answer(
        pilot,
        big,
        [_series("val/loss", (0, 2.0), (100, 1.5)), _series("only/pilot", (0, 1.0), (5, 2.0))],
        [_series("val/loss", (0, 2.0), (100, 1.4)), _series("lr", (0, 1.0), (100, 0.1))],
    )
    assert answer["pilot"]["accelerators"] == 8
    assert answer["scale_up"]["accelerators"] == 64
    assert answer["scale_up"]["resources"] == {**PILOT_RES, "num_nodes": 8, "parallelism.data": 64}
    assert answer["scale"] == {
        "factor": 8.0,
        "changes": [
            {"kind": "resources", "name": "num_nodes", "before": 1, "after": 8},
            {"kind": "resources", "name": "parallelism.data", "before": None, "after": 64},
        ],
    }
    assert answer["other_changes"] == [
        {"kind": "param", "name": "batch_size", "before": None, "after": 512}
    ]
    assert answer["flagged"] is True
    assert answer["flag"] == "a scale-up should change only the scale: 1 other setting(s) differ"
    assert [m["name"] for m in answer["metrics"]] == ["val/loss"]
    assert answer["trend_held"] == "held"
    assert render_scale_up(answer).splitlines() == [
        "pilot   : run:pilot pilot [completed]: 1 x 8 H100 = 8",
        "scale-up: run:big big [completed]: 8 x 8 H100 = 64 (data 64)",
        "scale: x8 accelerators",
        "  resources num_nodes: 1 -> 8",
        "  resources parallelism.data: - -> 64",
        "FLAGGED, a scale-up should change only the scale: 1 other setting(s) differ:",
        "  param batch_size: - -> 512",
        "metric trend: HELD",
        "  val/loss: pilot 1.5 at step 100, scale-up 1.4 at step 100",
        "    steps 0-100: pilot down -0.5, scale-up down -0.6",
        "    HELD: both went down; as good or better at the end (lower is better)",
    ]


def test_a_scale_up_that_changed_only_the_scale_is_not_flagged() -> None:
    pilot, big = row_of(_record("pilot", PILOT_RES)), row_of(_record("big", BIG_RES))
    answer = scale_up_answer(pilot, big, [], [])
    assert (answer["flagged"], answer["flag"], answer["other_changes"]) == (False, None, [])
    assert answer["trend_held"] == "unknown"
    text = render_scale_up(answer)
    assert "no other setting differs" in text and "no metric logged by both runs" in text


def _service(*records: dict[str, Any], pilots: dict[str, str]) -> ScaleUps:
    base = FakeCompareReads.from_records({}, records)
    nodes = list(base.graph.by_id.values())
    edges = [*base.graph.edges]
    edges += [EdgeView(f"run:{a}", f"run:{b}", "SCALED_FROM", {}) for a, b in pilots.items()]
    return ScaleUps(FakeScaleUpReads(nodes, edges), FakeSeriesReads())


def test_errors_name_the_run_and_say_why() -> None:
    everything = Scope(frozenset({"p"}))
    service = _service(
        _record("pilot", PILOT_RES),
        _record("big", BIG_RES),
        _record("early", BIG_RES),
        pilots={"big": "pilot", "early": "unrecorded"},
    )
    assert service.scale_up("run:big", everything)["pilot"]["id"] == "run:pilot"
    with pytest.raises(InvalidArgumentError, match=r"run:pilot is not a scale-up: its run.started"):
        service.scale_up("run:pilot", everything)
    with pytest.raises(NotFoundError, match=r"Not found: run:unrecorded, the pilot run:early"):
        service.scale_up("run:early", everything)
    with pytest.raises(NotFoundError, match=r"Not found: run:ghost\."):
        service.scale_up("run:ghost", everything)
    with pytest.raises(InvalidArgumentError, match=r"scale-up takes a run id, not a"):
        service.scale_up("model:p/m@1", everything)
    with pytest.raises(InvalidArgumentError, match=r"run: "):
        service.scale_up("big", everything)
