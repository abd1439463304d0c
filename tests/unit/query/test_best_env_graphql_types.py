"""The GraphQL types of `bestModelVersion`, `environmentDiff` and `runsWithPackage` built from
the pure answers: every value carried over, non-text recorded values shown as JSON text."""

from __future__ import annotations

from provgraph.query.graphql.best_env import BestModelVersion, EnvironmentDiff, RunsWithPackage
from provgraph.query.recipes.best_model import best_answer
from provgraph.query.recipes.env_diff import env_diff_answer, runs_with_answer

M = "model:p/chat"


def _row(n: int, value: float) -> dict[str, object]:
    return {
        "version": f"{M}@{n}",
        "label": str(n),
        "status": "candidate",
        "registered_at": f"2026-01-0{n}T00:00:00.000000Z",
        "evaluation": f"evaluation:{n}",
        "evaluated_at": "2026-02-01T00:00:00.000000Z",
        "suite": "harness",
        "suite_version": "2",
        "datasets": ["dataset:p/eval@v1"],
        "value": value,
    }


def test_best_model_version_of_an_answer() -> None:
    answer = best_answer(M, "acc", [_row(1, 0.5), _row(2, 0.75)], higher_is_better=True)
    answer.update(truncated=False, diff={"kind": "model_version"})
    found = BestModelVersion.of(answer)
    assert found.best is not None and found.best.model_version == f"{M}@2"
    assert found.previous_best is not None and found.previous_best.value == 0.5
    assert found.delta == 0.25 and found.diff == {"kind": "model_version"}
    assert found.evaluation_set is not None and found.evaluation_set.suite_version == "2"
    assert [s.versions for s in found.evaluation_sets] == [2]


def test_environment_diff_of_an_answer_renders_values_as_text() -> None:
    a = {"id": "environment:p/a", "system_json": '{"shm_gb":64}'}
    b = {"id": "environment:p/b", "system_json": '{"shm_gb":128}'}
    found = EnvironmentDiff.of(env_diff_answer(a, b, None))
    [change] = found.changes
    assert (change.section, change.name, change.a, change.b) == ("system", "shm_gb", "64", "128")
    assert found.chain is None and found.related is False


def test_runs_with_package_of_an_answer() -> None:
    row = {
        "run": {"id": "run:r1", "run_number": 3, "status": "failed"},
        "environment": "environment:p/a",
        "hits": [{"key": "compute_lib.cudnn", "version": "9.1"}],
        "experiment": "experiment:p/e",
    }
    found = RunsWithPackage.of(runs_with_answer("cudnn", "9.1", "p", [row], 10))
    [run] = found.runs
    assert (run.id, run.run_number, run.section, run.experiment) == (
        "run:r1",
        3,
        "compute_libs",
        "experiment:p/e",
    )
