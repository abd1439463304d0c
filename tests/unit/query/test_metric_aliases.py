"""A project's metric aliases applied to what compare, best and effects read
(`recipes/metric_aliases.py`)."""

from __future__ import annotations

from provgraph.query.recipes.comparing import FINAL, LAST, MetricDef, metrics_of
from provgraph.query.recipes.metric_aliases import (
    canonical_name,
    canonical_props,
    canonical_records,
    spellings,
)
from provgraph.schemas.storage import encode_json, json_key

ALIASES = {"validation/loss": "val/loss", "val_loss": "val/loss"}


def test_spellings_and_names() -> None:
    assert spellings("val_loss", ALIASES) == ["val/loss", "val_loss", "validation/loss"]
    assert spellings("lr", ALIASES) == ["lr"]
    assert canonical_name("final:validation/loss", ALIASES) == "final:val/loss"
    assert canonical_name("val_loss", ALIASES) == "val/loss"
    assert canonical_name("last:lr", ALIASES) == "last:lr"


def test_logged_and_final_metrics_move_to_the_canonical_name() -> None:
    props = {
        "metric.validation/loss": 0.5,
        "metric_step.validation/loss": 10,
        json_key("final_metrics"): encode_json({"validation": {"loss": 0.4}, "acc": 0.9}),
    }
    metrics = metrics_of(canonical_props(props, ALIASES))
    assert metrics[MetricDef(LAST, "val/loss")] == (0.5, 10)
    assert metrics[MetricDef(FINAL, "val/loss")] == (0.4, None)
    assert metrics[MetricDef(FINAL, "acc")] == (0.9, None)
    assert MetricDef(FINAL, "validation/loss") not in metrics


def test_the_canonical_spelling_wins_when_both_are_recorded() -> None:
    props = {"metric.val/loss": 1.0, "metric.val_loss": 2.0}
    out = canonical_props(props, ALIASES)
    assert out["metric.val/loss"] == 1.0 and out["metric.val_loss"] == 2.0
    assert canonical_props(props, {}) is props


def test_records_of_each_project_use_that_projects_aliases() -> None:
    records = [{"run": {"project": "a", "metric.val_loss": 1.0}},
               {"run": {"project": "b", "metric.val_loss": 2.0}}]  # fmt: skip
    out = canonical_records(records, lambda p: ALIASES if p == "a" else {})
    assert out[0]["run"] == {"project": "a", "metric.val/loss": 1.0}
    assert out[1] == records[1]
