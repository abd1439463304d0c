"""W1 in projects of its own (the mlflow part's rounds, each beside the earlier ones): the same
work, and nothing one round writes names what another round wrote."""

from __future__ import annotations

from benchmarks.w1 import PROJECT, W1
from provgraph.ingest.tools.memory_graph import MemoryGraph
from provgraph.ingest.tools.verify import summary_of


def _node_ids(w1: W1) -> set[str]:
    return set(MemoryGraph().fold(w1.events()).nodes)


def test_rounds_in_projects_of_their_own_share_no_event_and_no_node() -> None:
    first, second = W1.make(runs=10, project="w1-r0"), W1.make(runs=10, project="w1-r1")
    a, b = first.events(), second.events()
    assert len(a) == len(b) > 10
    assert {e.project for e in a} == {"w1-r0"} and {e.project for e in b} == {"w1-r1"}
    assert not {e.event_id for e in a} & {e.event_id for e in b}
    assert not _node_ids(first) & _node_ids(second)  # run keys are global: renamed too
    # The same work: params, metrics, inputs and the models' runs in the same places.
    for x, y in zip(first.runs, second.runs, strict=True):
        assert (x.params, x.metrics, x.train, x.validation) == (
            y.params,
            y.metrics,
            y.train,
            y.validation,
        )
    assert [n for n, _ in first.models] == [n for n, _ in second.models]


def test_the_answers_name_the_rounds_own_nodes() -> None:
    w1 = W1.make(runs=10, project="w1-r3")
    nodes = _node_ids(w1)
    number, key = w1.models[0]
    run, params, inputs = w1.model_answer(number)
    assert run == key and key.startswith("w1-r3-") and f"run:{key}" in nodes
    assert params == next(r.params for r in w1.runs if r.key == key)
    assert {i.split(":", 1)[1] for i in inputs} <= nodes
    assert w1.mv_id(number) in nodes
    dataset = w1.runs[0].train
    assert w1.dv_id(dataset) in nodes
    assert w1.runs[0].key in w1.used_for_training(dataset)


def test_w1_itself_is_unchanged_by_the_project_parameter() -> None:
    """The default project keeps W1's own ids and its seeded event ids, run after run."""
    w1 = W1.make(runs=10)
    assert w1.project == PROJECT and w1.runs[0].key == "w1-run-000"
    again = W1.make(runs=10)
    assert (
        summary_of(MemoryGraph().fold(w1.events())).digest()
        == summary_of(MemoryGraph().fold(again.events())).digest()
    )
    assert [e.event_id for e in w1.events()] == [e.event_id for e in again.events()]
