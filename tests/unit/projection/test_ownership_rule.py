"""Ownership, the pure rule: what an event writes, what it only references, and the screen.

Events are the contract's valid examples moved into projects "a" (the attacker) and "b" (the
victim), with a run id of the test's own, so every event type is tried with its real payload.
"""

from __future__ import annotations

import itertools
import uuid
from pathlib import Path
from typing import Any

import pytest

from provgraph.ingest.openlineage import NamespaceMap, wrap
from provgraph.ingest.projection import LogStamp, project_event
from provgraph.ingest.projection.mutations import EventMutations
from provgraph.ingest.projection.ownership import (
    Owner,
    StampedRights,
    Verdict,
    footprint,
    lookup_ids,
    screen,
)
from provgraph.ingest.tools.memory_graph import MemoryGraph
from provgraph.schemas import Event, parse_event

pytestmark = pytest.mark.unit

EXAMPLES = Path(__file__).parents[3] / "schemas" / "examples" / "valid"
EXAMPLE_RUN = "0b9d6f3e-3c41-4c1a-9c57-2f0d7c1e5a10"
EXAMPLE_EVALUATION = "7c0e5b2a-1d2f-4e3a-9b8c-6d5e4f3a2b1c"
RUN = "r-victim"
EVALUATION = "11111111-2222-4333-8444-555555555555"


def example(name: str, project: str, run: str = RUN, **payload: Any) -> Event:
    """The contract's example `name` in `project`, about run `run`, with a fresh event id."""
    text = (EXAMPLES / f"{name}.json").read_text()
    text = text.replace("llm-pretrain", project).replace(EXAMPLE_RUN, run)
    text = text.replace(EXAMPLE_EVALUATION, EVALUATION)
    event = parse_event(text)
    data = event.model_dump(mode="json", exclude_none=True)
    data["event_id"] = str(uuid.uuid4())
    data["payload"].update(payload)
    data["subject"] = type(event.payload).model_validate(data["payload"]).subject(project)
    return parse_event(data)


def change(event: Event, principal: str | None = None) -> EventMutations:
    return project_event(event, LogStamp(principal=principal))


def judge(
    events: list[Event], owners: dict[str, Owner] | None = None, principal: str | None = None
) -> list[Verdict]:
    return screen([change(e, principal) for e in events], owners or {}, StampedRights())


def refused(verdicts: list[Verdict]) -> list[int]:
    return [i for i, v in enumerate(verdicts) if v.violation is not None]


def victim() -> list[Event]:
    """Project b's run, its checkpoint and its evaluation."""
    return [
        example("run.started", "b"),
        example("checkpoint.saved", "b"),
        example("model.version.evaluated", "b"),
    ]


def owners_after(events: list[Event]) -> dict[str, Owner]:
    graph = MemoryGraph()
    for e in events:
        graph.apply(change(e))
    return graph.owners(lookup_ids([change(e) for e in events]) | {f"run:{RUN}"})


# ---- what an event writes -------------------------------------------------------------------


def test_a_run_start_writes_its_run_and_only_references_its_inputs() -> None:
    prints = footprint(change(example("run.started", "a")).mutations)
    assert prints.written == {f"run:{RUN}"}
    assert "dataset:a/web-crawl@v3" in prints.referenced
    assert f"run:{RUN}" not in prints.referenced


def test_a_checkpoint_writes_itself_and_references_its_run() -> None:
    prints = footprint(change(example("checkpoint.saved", "a")).mutations)
    assert prints.written == {f"checkpoint:{RUN}/12000"}
    assert prints.referenced == {f"run:{RUN}"}


def test_an_evaluation_writes_itself_and_references_model_run_and_data() -> None:
    prints = footprint(change(example("model.version.evaluated", "a")).mutations)
    assert prints.written == {f"evaluation:{EVALUATION}"}
    assert "model:a/assistant-1b@1.0.0" in prints.referenced


def test_a_checkpoint_evaluation_writes_itself_and_references_checkpoint_and_data() -> None:
    prints = footprint(change(example("checkpoint.evaluated", "a")).mutations)
    assert prints.written == {f"evaluation:{EVALUATION}"}
    assert f"checkpoint:{RUN}/12000" in prints.referenced
    assert "dataset:a/mmlu@2024-01" in prints.referenced


def test_a_model_version_references_the_checkpoint_it_was_exported_from() -> None:
    prints = footprint(change(example("model.version.registered", "a")).mutations)
    assert {f"checkpoint:{RUN}/50000", f"run:{RUN}"} <= prints.referenced
    assert prints.written == {"model:a/assistant-1b@1.0.0", "model:a/assistant-1b"}


@pytest.mark.parametrize("name", sorted(p.stem for p in EXAMPLES.glob("*.json")))
def test_every_example_in_its_own_project_is_accepted_on_an_empty_graph(name: str) -> None:
    event = parse_event((EXAMPLES / f"{name}.json").read_text())
    assert refused(judge([event], principal="principal:user:alice")) == []


# ---- takeovers: an event of project a naming project b's run, checkpoint, evaluation --------


TAKEOVERS = {
    "run.started": lambda: example("run.started", "a"),
    "run.completed": lambda: example("run.completed", "a"),
    "run.failed": lambda: example("run.failed", "a"),
    "run.aborted": lambda: example("run.aborted", "a"),
    "run.resumed": lambda: example("run.resumed", "a"),
    "run.metrics.logged": lambda: example("run.metrics.logged", "a"),
    "checkpoint.saved": lambda: example("checkpoint.saved", "a"),
    "checkpoint.saved.new-step": lambda: example("checkpoint.saved", "a", step=99),
    "checkpoint.saved.v1": lambda: example("checkpoint.saved.v1", "a"),
    "checkpoint.deleted": lambda: example("checkpoint.deleted", "a"),
    "model.version.evaluated": lambda: example("model.version.evaluated", "a"),
    "checkpoint.evaluated": lambda: example("checkpoint.evaluated", "a"),
    "entity.deleted.run": lambda: example("entity.deleted", "a", entity=f"run:{RUN}"),
    "entity.deleted.checkpoint": lambda: example(
        "entity.deleted", "a", entity=f"checkpoint:{RUN}/12000"
    ),
    "entity.deleted.evaluation": lambda: example(
        "entity.deleted", "a", entity=f"evaluation:{EVALUATION}"
    ),
}


@pytest.mark.parametrize("kind", sorted(TAKEOVERS))
def test_an_event_of_another_project_may_not_write_the_victims_entities(kind: str) -> None:
    owners = owners_after(victim())
    (verdict,) = judge([TAKEOVERS[kind]()], owners)
    assert verdict.violation is not None
    assert verdict.violation.owner == "b"
    assert verdict.violation.project == "a"
    assert "'b'" in str(verdict.violation)


@pytest.mark.parametrize("kind", sorted(TAKEOVERS))
def test_the_same_takeover_inside_one_batch_is_refused_too(kind: str) -> None:
    verdicts = judge([*victim(), TAKEOVERS[kind]()])
    assert refused(verdicts) == [3]


def test_a_new_checkpoint_of_anothers_run_belongs_to_the_runs_owner() -> None:
    owners = owners_after([example("run.started", "b")])
    (verdict,) = judge([example("checkpoint.saved", "a", step=7)], owners)
    assert verdict.violation is not None
    assert verdict.violation.via == f"run:{RUN}"
    assert "through its run" in str(verdict.violation)


def test_the_owner_may_delete_its_own_entities() -> None:
    deletions = [
        example("entity.deleted", "b", entity=entity)
        for entity in (f"run:{RUN}", f"checkpoint:{RUN}/12000", f"evaluation:{EVALUATION}")
    ]
    assert refused(judge(deletions, owners_after(victim()))) == []


def test_a_refused_event_claims_nothing() -> None:
    # a's checkpoint of b's run is refused: the free checkpoint id stays free for b.
    verdicts = judge(
        [
            example("run.started", "b"),
            example("checkpoint.saved", "a", step=7),
            example("checkpoint.saved", "b", step=7),
        ]
    )
    assert refused(verdicts) == [1]


# ---- references never claim -----------------------------------------------------------------


def test_a_reference_leaves_the_entity_free_for_its_real_owner() -> None:
    references = [
        example("dataset.version.created", "a", produced_by_run=f"run:{RUN}"),
        example("model.version.registered", "a", checkpoint=f"checkpoint:{RUN}/12000"),
        example("run.resumed", "a", run="r-a", from_checkpoint=f"checkpoint:{RUN}/12000"),
    ]
    verdicts = judge([*references, *victim()])
    assert refused(verdicts) == []
    owners = owners_after([*references, *victim()])
    assert owners[f"run:{RUN}"] == Owner("b", True)


def test_references_report_who_owns_what_they_name() -> None:
    owners = owners_after(victim())
    (verdict,) = judge([example("run.started", "a", run="r-a", resumed_from=None)], owners)
    assert verdict.violation is None
    uses = example(
        "model.version.registered",
        "a",
        checkpoint=f"checkpoint:{RUN}/12000",
        produced_by_run=f"run:{RUN}",
    )
    (verdict,) = judge([uses], owners)
    assert verdict.violation is None
    assert verdict.references[f"run:{RUN}"] == "b"
    assert verdict.references[f"checkpoint:{RUN}/12000"] == "b"


# ---- the legitimate single-project story, in any order ---------------------------------------


STORY = [
    "run.started",
    "run.metrics.logged",
    "checkpoint.saved",
    "run.resumed",
    "checkpoint.deleted",
    "run.failed",
    "run.completed",
    "model.version.registered",
    "model.version.evaluated",
    "checkpoint.evaluated",
]


def test_a_projects_own_events_in_any_order_are_all_accepted() -> None:
    events = [example(name, "b") for name in STORY]
    for order in itertools.islice(itertools.permutations(events), 0, None, 4999):
        assert refused(judge(list(order))) == []


def test_completed_before_started_claims_the_run_for_the_same_project() -> None:
    done, started = example("run.completed", "b"), example("run.started", "b")
    assert refused(judge([done, started])) == []
    owners = owners_after([done])
    assert owners[f"run:{RUN}"] == Owner("b", True)
    assert refused(judge([started], owners)) == []
    assert refused(judge([example("run.started", "a")], owners)) == [0]


def test_the_screened_fold_equals_the_plain_fold_for_one_project() -> None:
    events = [example(name, "b") for name in STORY]
    assert refused(judge(events[::-1])) == []
    plain = MemoryGraph().fold(events)
    reverse = MemoryGraph().fold(events[::-1])
    assert plain.canonical() == reverse.canonical()


# ---- the fold itself: a claimed project never changes ---------------------------------------


def test_an_unscreened_foreign_write_lands_nowhere_in_the_fold() -> None:
    graph = MemoryGraph()
    for e in victim():
        graph.apply(change(e))
    before = dict(graph.nodes[f"run:{RUN}"][1])
    graph.apply(change(example("run.completed", "a", conclusion="forced")))
    after = graph.nodes[f"run:{RUN}"][1]
    assert after["project"] == "b"
    assert "conclusion" not in after
    assert {k: v for k, v in after.items() if k != "last_event_at"} == {
        k: v for k, v in before.items() if k != "last_event_at"
    }


def test_a_placeholder_takes_the_least_mentioning_project_until_claimed() -> None:
    graph = MemoryGraph()
    graph.apply(change(example("dataset.version.created", "z", produced_by_run=f"run:{RUN}")))
    graph.apply(change(example("dataset.version.created", "c", produced_by_run=f"run:{RUN}")))
    assert graph.owners([f"run:{RUN}"]) == {f"run:{RUN}": Owner("c", False)}
    graph.apply(change(example("run.completed", "y")))
    graph.apply(change(example("dataset.version.created", "a", produced_by_run=f"run:{RUN}")))
    assert graph.owners([f"run:{RUN}"]) == {f"run:{RUN}": Owner("y", True)}


# ---- OpenLineage: outputs are writes, inputs of other namespaces references --------------------


NAMES = NamespaceMap({"ns-a": "a", "ns-b": "b"})
PRODUCER = "https://github.com/OpenLineage/OpenLineage/tree/1.54.0/client/python"


def openlineage(inputs: list[str], outputs: list[str]) -> Event:
    def dataset(namespace: str) -> dict[str, Any]:
        doc = {
            "_producer": PRODUCER,
            "_schemaURL": "https://openlineage.io/spec/facets/1-0-0/DocumentationDatasetFacet.json",
            "description": "rewritten",
        }
        return {"namespace": namespace, "name": "corpus", "facets": {"documentation": doc}}

    return wrap(
        {
            "eventType": "COMPLETE",
            "eventTime": "2024-05-01T12:00:00Z",
            "run": {"runId": "3f5e9a7c-1d2b-4c8e-9f60-7a1b2c3d4e5f"},
            "job": {"namespace": "ns-a", "name": "etl"},
            "inputs": [dataset(ns) for ns in inputs],
            "outputs": [dataset(ns) for ns in outputs],
            "producer": PRODUCER,
            "schemaURL": "https://openlineage.io/spec/2-0-2/OpenLineage.json#/$defs/RunEvent",
        },
        NAMES,
    )


def test_an_openlineage_input_of_another_project_is_only_referenced() -> None:
    event = openlineage(["ns-b"], [])
    prints = footprint(change(event).mutations)
    # Read without a version facet: (Run)-[:READS]->(Dataset), the dataset only referenced.
    assert "dataset:b/corpus" in prints.referenced
    assert not {i for i in prints.referenced if i.startswith("dataset:b/corpus@")}
    assert not {i for i in prints.written if i.startswith("dataset:b/")}
    assert refused(judge([event])) == []
    node = MemoryGraph().fold([event]).nodes["dataset:b/corpus"][1]
    assert "description" not in node


def test_an_openlineage_input_of_its_own_project_keeps_its_facets() -> None:
    event = openlineage(["ns-a"], [])
    node = MemoryGraph().fold([event]).nodes["dataset:a/corpus"][1]
    assert node["description"] == "rewritten"


def test_an_openlineage_output_of_another_project_needs_a_stamped_principal() -> None:
    event = openlineage(["ns-a"], ["ns-a", "ns-b"])
    (verdict,) = judge([event])
    assert verdict.violation is not None
    assert verdict.violation.entity.startswith("dataset:b/corpus")
    assert refused(judge([event], principal="principal:user:pipeline")) == []
    assert refused(screen([change(event, "principal:user:x")], {})) == [0]  # no rights: refused


def test_the_openlineage_exception_covers_datasets_only() -> None:
    owners = owners_after([example("run.started", "b", run="3f5e9a7c-1d2b-4c8e-9f60-7a1b2c3d4e5f")])
    (verdict,) = judge([openlineage([], [])], owners, principal="principal:user:pipeline")
    assert verdict.violation is not None
    assert verdict.violation.entity == "run:3f5e9a7c-1d2b-4c8e-9f60-7a1b2c3d4e5f"
