"""The guards' reports (`recipes/guards.py`) over the in-memory reads."""

from __future__ import annotations

import pytest
from contracts.convention_reads import convention_graph
from fakes import FakeConventionReads

from provgraph.core.errors import NotFoundError
from provgraph.query.read.convention_reads import Named, Output
from provgraph.query.read.model import Scope
from provgraph.query.recipes.guards import (
    Guards,
    metric_groups,
    name_breaks,
    out_of_place,
    render_collisions,
    render_lint_metrics,
    render_lint_names,
    shared_uris,
)

EVERYTHING = Scope.everything()


def _guards(max_records: int = 100) -> tuple[Guards, str]:
    g = convention_graph("a", "b")
    return Guards(FakeConventionReads(list(g.nodes.values()), g.edges), max_records), "a"


def test_metric_groups_suggest_the_most_used_spelling_and_honour_declared_ones() -> None:
    names = {"val/loss": 5, "validation/loss": 2, "val_loss": 1, "lr": 4}
    (group,) = metric_groups(names, {})
    assert group["canonical"] == "val/loss" and not group["settled"]
    assert group["undeclared"] == ["val_loss", "validation/loss"]
    (declared,) = metric_groups(
        names, {"val/loss": "validation/loss", "val_loss": "validation/loss"}
    )
    assert declared["canonical"] == "validation/loss" and declared["settled"]
    assert metric_groups({"lr": 1, "loss": 1}, {}) == []


def test_lint_metrics_on_the_graph() -> None:
    guards, project = _guards()
    answer = guards.lint_metrics(project, EVERYTHING)
    assert answer["aliases"] == [{"alias": "validation/loss", "canonical": "val/loss"}]
    (group,) = answer["groups"]
    assert group["canonical"] == "val/loss" and group["undeclared"] == ["val_loss"]
    text = render_lint_metrics(answer)
    assert "--metric-alias val_loss=val/loss" in text


def test_lint_names_names_the_breaks_and_suggests() -> None:
    guards, project = _guards()
    answer = guards.lint_names(project, EVERYTHING)
    (kind,) = answer["kinds"]
    assert (kind["kind"], kind["checked"], kind["truncated"]) == ("run", 3, False)
    breaks = {b["name"]: b for b in kind["breaks"]}
    assert set(breaks) == {"oops", None}
    assert breaks["oops"]["suggestion"] == "dpo-r2"
    assert breaks[None]["suggestion"] is None  # run 3 has no experiment or number
    assert "oops" in render_lint_names(answer)


def test_lint_names_checks_at_most_the_bound() -> None:
    guards, project = _guards(max_records=1)
    (kind,) = guards.lint_names(project, EVERYTHING)["kinds"]
    assert (kind["checked"], kind["truncated"], kind["breaks"]) == (1, True, [])


def test_collisions_on_the_graph() -> None:
    guards, project = _guards()
    answer = guards.collisions(project, EVERYTHING)
    assert answer["enforced"] and answer["storage_roots"] == ["s3://bucket/a"]
    assert [o["uri"] for o in answer["out_of_place"]] == ["file:///home/ann/web"]
    (shared,) = answer["shared"]
    assert shared["uri"] == "s3://bucket/a/ckpt/100" and len(shared["writers"]) == 2
    assert "written by more than one job: 1" in render_collisions(answer)
    assert guards.collisions(project, EVERYTHING) == answer


def test_one_experiments_runs_may_share_a_uri() -> None:
    same = [Output(f"c{i}", "Checkpoint", "s3://b/x", f"r{i}", "x1") for i in range(3)]
    assert shared_uris(same) == []
    alone = [Output("c1", "Checkpoint", "s3://b/x", "r1", None), *same[:1]]
    assert len(shared_uris(alone)) == 1  # a run outside every experiment is its own job
    assert out_of_place(same, ["s3://b"]) == []


def test_name_breaks_over_many_records() -> None:
    records = [Named(f"r{i}", f"x-{i}", None, {"run_number": str(i)}) for i in range(50)]
    assert name_breaks("x-{run_number}", records) == []
    assert len(name_breaks("y-{run_number}", records)) == 50


def test_an_unknown_project_is_not_found() -> None:
    guards, _ = _guards()
    with pytest.raises(NotFoundError):
        guards.lint_names("nowhere", EVERYTHING)
