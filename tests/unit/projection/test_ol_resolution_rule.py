"""The rule that infers which version a run read, and the fold that asks for it."""

from __future__ import annotations

from typing import Any

import pytest

from provgraph.ingest.openlineage import NamespaceMap, wrap
from provgraph.ingest.projection import EdgeUpsert, ResolveReads, project_event
from provgraph.ingest.projection.ownership import footprint
from provgraph.ingest.projection.resolution import (
    Facts,
    InferredUse,
    Read,
    Version,
    plan,
    read_time,
    requests,
    resolve,
)
from provgraph.schemas import DatasetVersionCreated, RunStarted
from provgraph.schemas.events.data import DatasetVersionCreatedPayload
from provgraph.schemas.events.experiment import RunStartedPayload
from provgraph.schemas.graph import Rel

pytestmark = pytest.mark.unit

A, B, C = (
    "2024-05-01T12:00:00.000000Z",
    "2024-05-01T12:05:00.000000Z",
    "2024-05-01T12:09:00.000000Z",
)
RUN = "3f5e9a7c-1d2b-4c8e-9f60-7a1b2c3d4e5f"
NAMES = NamespaceMap({"s3://lake": "llm", "pipelines": "llm", "s3://other": "other"})
PRODUCER = "https://github.com/OpenLineage/OpenLineage/tree/1.54.0/client/python"


# ---- the pure rule -------------------------------------------------------------------------


def test_the_latest_version_created_at_or_before_the_read_is_picked() -> None:
    versions = [("d@v1", A), ("d@v2", B), ("d@v3", C)]
    assert resolve(versions, [("r", B)]) == {"r": "d@v2"}  # exactly at the read time: picked
    assert resolve(versions, [("r", "2024-05-01T12:06:00.000000Z")]) == {"r": "d@v2"}
    assert resolve(versions, [("r", "2024-05-01T12:04:59.999999Z")]) == {"r": "d@v1"}


def test_a_later_version_is_never_picked_and_nothing_before_means_unknown() -> None:
    assert resolve([("d@v9", C)], [("r", B)]) == {"r": None}
    assert resolve([], [("r", B)]) == {"r": None}


def test_ties_in_time_go_to_the_greatest_version_id_in_any_input_order() -> None:
    versions = [("d@b", A), ("d@c", A), ("d@a", A)]
    assert resolve(versions, [("r", B)]) == {"r": "d@c"}
    assert resolve(versions[::-1], [("r", A)]) == {"r": "d@c"}


def test_placeholders_and_runs_without_a_time_resolve_to_nothing() -> None:
    # A version only referenced (never created) has no created_at: never a candidate.
    assert resolve([("d@ref", None)], [("r", C)]) == {"r": None}
    assert resolve([("d@ref", None), ("d@v1", A)], [("r", C), ("q", None)]) == {
        "r": "d@v1",
        "q": None,
    }


def test_a_run_never_reads_what_it_produced() -> None:
    versions = [("d@v1", A), ("d@run-r", B)]
    assert resolve(versions, [("r", B), ("s", B)], {"r": ["d@run-r"]}) == {
        "r": "d@v1",
        "s": "d@run-r",
    }


def test_the_read_time_is_the_start_else_the_end() -> None:
    assert read_time(A, C) == A
    assert read_time(None, C) == C
    assert read_time(None, None) is None


def test_the_plan_writes_the_difference_only_and_never_depends_on_order() -> None:
    facts = Facts(
        "d",
        versions=(Version("d@v1", A), Version("d@v2", B, ("w",))),
        reads=(Read("r", C, None), Read("q", None, None), Read("w", A, C)),
        inferred=(InferredUse("r", "d@v1", C), InferredUse("q", "d@v1", A)),
    )
    change = plan(facts)
    assert change.write == (InferredUse("r", "d@v2", C), InferredUse("w", "d@v1", A))
    assert change.delete == (("q", "d@v1"), ("r", "d@v1"))
    reordered = Facts("d", facts.versions[::-1], facts.reads[::-1], facts.inferred[::-1])
    assert plan(reordered) == change
    settled = Facts("d", facts.versions, facts.reads, change.write)
    assert not plan(settled)


def test_a_changed_read_time_rewrites_the_link_first_seen_at() -> None:
    facts = Facts("d", (Version("d@v1", A),), (Read("r", B, None),), (InferredUse("r", "d@v1", C),))
    assert plan(facts).write == (InferredUse("r", "d@v1", B),)
    assert plan(facts).delete == ()


# ---- the fold asks for it ------------------------------------------------------------------


def _ol(state: str, inputs: list[dict[str, Any]], outputs: list[dict[str, Any]]) -> Any:
    return wrap(
        {
            "eventType": state,
            "eventTime": "2024-05-01T12:00:00Z",
            "producer": PRODUCER,
            "schemaURL": "https://openlineage.io/spec/2-0-2/OpenLineage.json#/$defs/RunEvent",
            "run": {"runId": RUN},
            "job": {"namespace": "pipelines", "name": "prep"},
            "inputs": inputs,
            "outputs": outputs,
        },
        NAMES,
    )


def test_an_input_without_a_version_facet_is_read_and_asks_for_resolution() -> None:
    event = _ol(
        "START",
        [{"namespace": "s3://lake", "name": "raw"}, {"namespace": "s3://other", "name": "x"}],
        [{"namespace": "s3://lake", "name": "clean"}],
    )
    assert [i.version for i in event.payload.inputs] == [None, None]
    change = project_event(event)
    edges = {(m.src, m.rel, m.dst) for m in change.mutations if isinstance(m, EdgeUpsert)}
    me = f"run:{RUN}"
    assert {(me, Rel.READS, "dataset:llm/raw"), (me, Rel.READS, "dataset:other/x")} <= edges
    assert not {e for e in edges if e[1] is Rel.USED}
    assert not {i for i in change.record.touched if "@unversioned" in i}
    asks = [m for m in change.mutations if isinstance(m, ResolveReads)]
    assert asks == [
        ResolveReads("dataset:llm/clean"),  # its output's new version
        ResolveReads("dataset:llm/raw"),
        ResolveReads("dataset:other/x"),
        ResolveReads(me),  # its start time
    ]
    prints = footprint(change.mutations)
    assert "dataset:other/x" in prints.referenced and me in prints.written


def test_an_event_without_time_or_dataset_changes_asks_nothing() -> None:
    change = project_event(_ol("OTHER", [], []))
    assert [m for m in change.mutations if isinstance(m, ResolveReads)] == []


def test_a_provgraph_dataset_version_and_run_start_ask_for_resolution() -> None:
    version = DatasetVersionCreated.create(
        project="llm",
        producer="https://t/1",
        actor="user:t",
        payload=DatasetVersionCreatedPayload(name="raw", version="v1", storage_uri="s3://x"),
    )
    assert ResolveReads("dataset:llm/raw") in project_event(version).mutations
    started = RunStarted.create(
        project="llm",
        producer="https://t/1",
        actor="user:t",
        payload=RunStartedPayload(run_id="r-1"),
    )
    assert requests(project_event(started).mutations) == [ResolveReads("run:r-1")]
