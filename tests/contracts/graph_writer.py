"""The writer port's contract: every adapter folds the same events into the same graph.

One abstract test class that each adapter's test runs (as pyeventsourcing runs one recorder
suite against every recorder): the unit tests on the in-memory graph, the integration tests on
the Neo4j writer. It holds the fold's semantics (one rule per test), the order-insensitivity
property (hypothesis), and the batch rules: exactly once per event_id, offsets only forward.
Everything is read back through the graph view, the canonical form `verify` compares.
"""

from __future__ import annotations

import json
import random
from abc import ABC, abstractmethod
from collections.abc import Sequence
from functools import cached_property
from itertools import permutations
from pathlib import Path
from typing import Any, ClassVar

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from support.ol_chain import Chain
from support.ol_names import aliases
from support.projection_story import Story
from support.projection_workload import Workload

from provgraph.ingest.ports import BatchWriter, GraphView, PartitionOffset
from provgraph.ingest.projection import EventMutations, LogStamp, project_event
from provgraph.ingest.projection.canonical import CanonicalGraph, event_key
from provgraph.ingest.projector.rejections import EventConflict, RejectedEvents
from provgraph.ingest.tools.memory_graph import MemoryGraph
from provgraph.schemas import Event, RunStarted, event_hash, parse_event, run_id
from provgraph.schemas.events.experiment import RunStartedPayload
from provgraph.schemas.graph import METRIC_SERIES_LABEL
from provgraph.schemas.storage import ACCESS, dotted, series_bucket, series_id, series_points

EXAMPLES = Path(__file__).parent.parent / "schemas" / "examples" / "valid"
COMMON = {"id", "project", "first_seen_at", "last_event_at", "placeholder"}


def edges(graph: CanonicalGraph, rel: str) -> list[tuple[str, dict[str, Any], str]]:
    """The `rel` relationships of a canonical graph as (src, props, dst)."""
    found = []
    for line in graph.edges:
        src, _, rest = line.partition(" -[")
        kind, _, rest = rest.partition(" ")
        props, _, dst = rest.rpartition("]-> ")
        if kind == rel:
            found.append((src, json.loads(props), dst))
    return found


@st.composite
def shuffled_workloads(draw: st.DrawFn, project: str) -> tuple[list[Event], list[Event], int]:
    """A workload, the same events in any order with any duplicates, and a batch size."""
    seed = draw(st.integers(0, 10_000))
    runs, datasets = draw(st.integers(1, 4)), draw(st.integers(1, 3))
    events = Workload(project, seed).build(runs=runs, datasets=datasets)
    order = draw(st.permutations(events))
    duplicates = draw(st.lists(st.sampled_from(events), max_size=10))
    mixed = draw(st.permutations([*order, *duplicates]))
    return events, mixed, draw(st.integers(1, 12))


class GraphWriterContract(ABC):
    """What every `BatchWriter` (with its `GraphView`) must do; subclass it once per adapter."""

    # Hypothesis examples per property; an adapter with a real database lowers them.
    ORDER_EXAMPLES: ClassVar[int] = 150
    TWICE_EXAMPLES: ClassVar[int] = 50

    project: str  # set by the subclass, one per test

    @abstractmethod
    def fresh(self) -> tuple[BatchWriter, GraphView]:
        """An empty graph for `self.project` (what an earlier `fresh` wrote is gone)."""

    # -- helpers ------------------------------------------------------------------------------

    @cached_property
    def story(self) -> Story:
        """This test's run story, in `self.project`."""
        return Story(self.project)

    def fold(self, *events: Event, batch: int = 1) -> CanonicalGraph:
        """Write `events` in order, `batch` per write, into a fresh graph; read it back."""
        writer, view = self.fresh()
        changes = [project_event(e) for e in events]
        for at in range(0, len(changes), batch):
            writer.write(changes[at : at + batch])
        return view.canonical(self.project)

    def logged(self, event: Event, minute: int, principal: str | None = None) -> EventMutations:
        """`event` as the projector folds it from a record logged at T0 + `minute`."""
        at = f"2024-05-01T{minute // 60:02d}:{minute % 60:02d}:00.000000Z"
        return project_event(event, LogStamp(logged_at=at, principal=principal))

    def node(self, graph: CanonicalGraph, node_id: str) -> dict[str, Any]:
        props: dict[str, Any] = graph.nodes[node_id]["props"]
        return props

    def reference(self, events: Sequence[Event]) -> CanonicalGraph:
        """The in-memory fold `verify` compares with: the graph every adapter must build."""
        return MemoryGraph().fold(events).canonical(self.project)

    def examples(self) -> list[Event]:
        texts = [p.read_text() for p in sorted(EXAMPLES.glob("*.json"))]
        return [parse_event(text.replace("llm-pretrain", self.project)) for text in texts]

    # -- the fold's semantics -----------------------------------------------------------------

    def test_every_example_projects_and_every_node_carries_the_common_properties(self) -> None:
        events = self.examples()
        writer, view = self.fresh()
        writer.write([project_event(e) for e in events])
        # Token events belong to the system project: read every project the examples name.
        graphs = [view.canonical(p) for p in sorted({e.project for e in events})]
        nodes = {key: node for graph in graphs for key, node in graph.nodes.items()}
        for key, node in nodes.items():
            if "Entity" in node["labels"]:
                assert node["props"].keys() >= COMMON, key
        ids = {event_key(str(e.event_id)) for e in events}
        assert len(ids) == len(events)
        assert ids <= nodes.keys()

    def test_the_same_event_twice_is_a_no_op(self) -> None:
        s = self.story
        once = self.fold(s.started(), s.completed(5, 2))
        assert self.fold(s.started(), s.completed(5, 2), s.started()) == once
        writer, _ = self.fresh()
        assert writer.write([project_event(s.started())]) == 1
        assert writer.write([project_event(s.started())]) == 0

    def test_completed_before_started_gives_the_same_graph(self) -> None:
        s = self.story
        assert self.fold(s.started(), s.completed(5, 2)) == self.fold(
            s.completed(5, 2), s.started()
        )

    def test_status_only_moves_forward_and_end_is_the_latest(self) -> None:
        s = self.story
        run = self.node(self.fold(s.completed(9, 3), s.failed(5, 2), s.started()), s.run)
        assert run["status"] == "completed"
        assert run["ended_at"].startswith("2024-05-01T00:09")
        assert run["started_at"].startswith("2024-05-01T00:00")

    def test_start_is_the_earliest_of_duplicated_starts(self) -> None:
        s = self.story
        run = self.node(self.fold(s.started(7, 1), s.started(3, 2)), s.run)
        assert run["started_at"].startswith("2024-05-01T00:03")

    def test_last_writer_wins_by_time_then_event_id(self) -> None:
        s = self.story
        older, newer = s.completed(5, 2), s.completed(6, 3)
        assert self.node(self.fold(newer, older), s.run)["conclusion"] == "c3"
        tie_a, tie_b = s.completed(5, 7), s.completed(5, 8)  # same time: the larger id wins
        assert self.node(self.fold(tie_b, tie_a), s.run)["conclusion"] == "c8"

    def test_checkpoint_before_its_run_makes_a_placeholder_run_filled_in_later(self) -> None:
        s = self.story
        saved = s.checkpoint_saved(1, 5)
        graph = self.fold(saved)
        assert self.node(graph, s.run)["placeholder"] is True
        assert self.node(graph, s.checkpoint)["placeholder"] is False
        filled = self.fold(saved, s.started())
        assert self.node(filled, s.run)["placeholder"] is False
        assert filled == self.fold(s.started(), saved)

    def test_a_scale_up_before_its_pilot_links_a_placeholder_run_filled_in_later(self) -> None:
        s = self.story
        pilot_key = f"{self.project}-pilot"
        payload = RunStartedPayload(run_id=s.run_key, scaled_from=run_id(pilot_key))
        scale_up = s.ev(RunStarted, payload, 2, 2)
        pilot = s.ev(RunStarted, RunStartedPayload(run_id=pilot_key), 1, 3)
        graph = self.fold(scale_up)
        assert edges(graph, "SCALED_FROM") == [
            (s.run, {"first_seen_at": "2024-05-01T00:02:00.000000Z"}, run_id(pilot_key))
        ]
        placeholder = graph.nodes[run_id(pilot_key)]
        assert (placeholder["labels"], placeholder["props"]["placeholder"]) == (
            ["Entity", "Run"],
            True,
        )
        filled = self.fold(scale_up, pilot)
        assert self.node(filled, run_id(pilot_key))["placeholder"] is False
        assert filled == self.fold(pilot, scale_up)

    def test_a_referenced_dataset_version_is_a_placeholder_with_its_label_and_project(
        self,
    ) -> None:
        s = self.story
        graph = self.fold(s.started())
        props = self.node(graph, s.dv)
        assert graph.nodes[s.dv]["labels"] == ["DatasetVersion", "Entity"]
        assert (props["placeholder"], props["project"]) == (True, self.project)
        used = [(src, p["role"], dst) for src, p, dst in edges(graph, "USED")]
        assert used == [(s.run, "train", s.dv)]

    def test_delete_is_soft_and_later_events_do_not_bring_the_entity_back(self) -> None:
        s = self.story
        graph = self.fold(s.started(), s.deleted(5, 9), s.completed(8, 2))
        run = self.node(graph, s.run)
        assert run["deleted_at"].startswith("2024-05-01T00:05")
        assert run["conclusion"] == "c2"  # folded, recorded in history ...
        touched = (event_key(str(s.event_id(2))), {}, s.run)
        assert touched in edges(graph, "TOUCHED")  # ... and traceable to its event

    def test_params_are_json_plus_flattened_scalars(self) -> None:
        run = self.node(self.fold(self.story.started()), self.story.run)
        assert run["params_json"] == '{"lr":0.1,"opt":{"name":"adam"}}'
        assert (run["param.lr"], run["param.opt.name"]) == (0.1, "adam")

    def test_metrics_keep_the_last_value_per_metric_by_step(self) -> None:
        s = self.story
        run = self.node(self.fold(s.logged(200, 0.5, 1), s.logged(100, 0.9, 2)), s.run)
        assert (run["metric.loss"], run["metric_step.loss"]) == (0.5, 200)

    def series(self, graph: CanonicalGraph, name: str = "loss") -> list[tuple[int, float]]:
        """The stored points of the story run's series `name`, read back by their decoder."""
        node = graph.nodes[series_id(self.story.run, name)]
        assert node["labels"] == [METRIC_SERIES_LABEL]
        assert (node["props"]["run"], node["props"]["name"]) == (self.story.run, name)
        return series_points(node["props"])

    def test_a_metric_series_keeps_the_highest_step_of_each_log_spaced_bucket(self) -> None:
        s = self.story
        # Buckets (16 per doubling): 0 -> 0, 1 -> 16; 990, 1000 and 1010 share 159; 1023 -> 160.
        first = s.series(1, 2, ("loss", 0, 4.0), ("loss", 1, 3.5), ("loss", 990, 1.2),
                         ("loss", 1010, 1.1))  # fmt: skip
        second = s.series(2, 3, ("loss", 1000, 1.15), ("loss", 1023, 1.0), ("acc", 1023, 0.7))
        graph = self.fold(s.started(), first, second)
        assert self.series(graph) == [(0, 4.0), (1, 3.5), (1010, 1.1), (1023, 1.0)]
        assert self.series(graph, "acc") == [(1023, 0.7)]
        run = self.node(graph, s.run)
        assert (run["metric.loss"], run["metric_step.loss"]) == (1.0, 1023)
        assert not [k for k in run if k.startswith(("step.", "value."))]  # the run stays small
        assert graph == self.fold(second, first, s.started())

    def test_a_series_point_goes_to_the_later_event_on_the_same_step_never_to_a_lower_step(
        self,
    ) -> None:
        s = self.story
        tie_a, tie_b = s.series(5, 7, ("loss", 7, 0.5)), s.series(5, 8, ("loss", 7, 0.4))
        assert self.series(self.fold(tie_b, tie_a)) == [(7, 0.4)]  # same time: the larger id
        higher, later_lower = s.series(1, 2, ("loss", 1010, 1.1)), s.series(9, 3, ("loss", 990, 9))
        for order in ((higher, later_lower), (later_lower, higher)):
            assert self.series(self.fold(*order)) == [(1010, 1.1)]

    def test_every_order_of_a_few_metric_batches_folds_to_the_same_graph(self) -> None:
        s = self.story
        events = [
            s.series(3, 2, ("loss", 0, 4.0), ("loss", 500, 2.0), ("loss", 1010, 1.1)),
            s.series(3, 3, ("loss", 1000, 1.3), ("loss", 500, 2.1)),  # same time, larger id
            s.series(1, 4, ("loss", 990, 1.2), ("loss", 2, 3.0)),  # earlier, larger id
            s.started(),
        ]
        graphs = {self.fold(*order).digest() for order in permutations(events)}
        assert len(graphs) == 1
        assert self.series(self.fold(*events)) == [(0, 4.0), (2, 3.0), (500, 2.1), (1010, 1.1)]

    def test_a_long_series_logged_over_many_events_keeps_each_buckets_highest_step(self) -> None:
        # Six events of 720 points each, their steps interleaved: 170 of the 201 buckets are
        # written by several events, and every event but the first meets stored points.
        s = self.story
        steps = [[*range(i, 2000, 6), *range(2000 + i, 60_000, 150)] for i in range(6)]
        events = [
            s.series(1 + i, 2 + i, *[("loss", n, n / 1000) for n in steps[i]]) for i in range(6)
        ]
        highest: dict[int, int] = {}
        for n in (n for some in steps for n in some):
            highest[series_bucket(n)] = max(n, highest.get(series_bucket(n), n))
        expected = sorted((n, n / 1000) for n in highest.values())
        graph = self.fold(s.started(), *events)
        assert self.series(graph) == expected and len(expected) == 201
        assert graph == self.fold(*reversed(events), s.started(), batch=4)

    def test_an_older_serves_set_does_not_replace_a_newer_one(self) -> None:
        s = self.story
        created, newer = s.deployment_created(1, 1), s.deployment_updated(5, 2)
        for order in ((created, newer), (newer, created)):
            lines = [e for e in self.fold(*order).edges if "SERVES" in e]
            assert lines == [
                f'{s.deployment} -[SERVES {{"first_seen_at":"2024-05-01T00:05:00.000000Z",'
                f'"traffic_share":1.0}}]-> {s.mv2}'
            ]

    def test_an_edge_is_first_seen_at_its_earliest_statement_in_any_order(self) -> None:
        s = self.story
        early, late = s.started(3, 1, params=False), s.started(9, 2, params=False)
        for order in ((early, late), (late, early)):
            used = edges(self.fold(*order), "USED")
            assert [props["first_seen_at"] for _, props, _ in used] == [
                "2024-05-01T00:03:00.000000Z"
            ]

    def test_an_input_read_without_a_version_uses_the_latest_at_the_run_start_in_any_order(
        self,
    ) -> None:
        chain = Chain(self.project)
        events = chain.events()
        expected = self.fold(*events)
        inferred = {
            (src, dst)
            for src, props, dst in edges(expected, "USED")
            if props.get("inferred") == "latest_version_at_run_start"
        }
        assert inferred == chain.expected_used()
        assert self.fold(*events[::-1], batch=3) == expected  # readers before their writers

    def test_a_dataset_named_by_references_keeps_the_names_its_writer_gave_in_any_order(
        self,
    ) -> None:
        events = aliases(self.project)
        expected = self.fold(*events)
        assert all(self.fold(*order) == expected for order in permutations(events))
        corpus = self.node(expected, f"dataset:{self.project}/corpus")
        assert corpus["marquez_id"] == "dataset:lake:corpus"  # a later reference said lake-alias
        source = self.node(expected, f"dataset:{self.project}/src")
        assert (source["marquez_id"], source["placeholder"]) == ("dataset:lake:src", True)

    # -- the log's word: its time and principal ------------------------------------------------

    def test_an_applied_event_keeps_its_payload_hash_log_time_and_principal(self) -> None:
        s = self.story
        writer, view = self.fresh()
        writer.write(
            [self.logged(s.started(), 7, "principal:user:alice"), project_event(s.completed(5, 2))]
        )
        graph = view.canonical(self.project)
        stamped = graph.nodes[event_key(str(s.event_id(1)))]["props"]
        assert stamped["payload_hash"] == event_hash(s.started())
        assert (stamped["logged_at"], stamped["principal"]) == (
            "2024-05-01T00:07:00.000000Z",
            "principal:user:alice",
        )
        plain = graph.nodes[event_key(str(s.event_id(2)))]["props"]
        assert "logged_at" not in plain and "principal" not in plain  # folded without a log

    def test_grants_and_revocations_are_ordered_by_the_log_never_by_occurred_at(self) -> None:
        s = self.story
        # A grant claiming a far-future time, logged first; a revoke claiming the past, later.
        grant = self.logged(s.granted(60 * 20, 1), 1)
        revoke = self.logged(s.revoked(0, 2), 2)
        key = dotted(ACCESS, "user:carol", "reader")
        for order in ((grant, revoke), (revoke, grant)):
            writer, view = self.fresh()
            for change in order:
                writer.write([change])
            project = self.node(view.canonical(self.project), f"project:{self.project}")
            assert project[key] == "revoked", order

    def test_a_delete_is_dated_by_the_log(self) -> None:
        s = self.story
        writer, view = self.fresh()
        writer.write([self.logged(s.started(), 1), self.logged(s.deleted(60 * 20, 9), 3)])
        run = self.node(view.canonical(self.project), s.run)
        assert run["deleted_at"] == "2024-05-01T00:03:00.000000Z"

    # -- integrity: one event_id, one payload ---------------------------------------------------

    def test_another_payload_under_an_applied_event_id_is_refused_and_the_first_stays(
        self,
    ) -> None:
        s = self.story
        first = s.completed(5, 2)
        other = first.model_copy(update={"actor": "user:mallory"})
        writer, view = self.fresh()
        assert writer.write([project_event(first)]) == 1
        before = view.canonical(self.project)
        with pytest.raises(RejectedEvents) as refused:
            writer.write([project_event(s.started()), project_event(other)])
        assert list(refused.value.errors) == [(str(first.event_id), event_hash(other))]
        assert isinstance(
            refused.value.errors[(str(first.event_id), event_hash(other))], EventConflict
        )
        assert view.canonical(self.project) == before  # nothing of that batch was applied
        assert writer.write([project_event(first)]) == 0  # the same payload: a silent no-op
        applied = before.nodes[event_key(str(first.event_id))]["props"]
        assert (applied["payload_hash"], applied["actor"]) == (event_hash(first), "user:t")

    def test_in_one_batch_the_first_copy_wins_and_a_later_other_payload_is_refused(
        self,
    ) -> None:
        s = self.story
        first = s.completed(5, 2)
        other = first.model_copy(update={"actor": "user:mallory"})
        writer, view = self.fresh()
        with pytest.raises(RejectedEvents) as refused:
            writer.write([project_event(first), project_event(first), project_event(other)])
        assert list(refused.value.errors) == [(str(first.event_id), event_hash(other))]
        assert writer.write([project_event(first), project_event(first)]) == 1
        applied = view.canonical(self.project).nodes[event_key(str(first.event_id))]["props"]
        assert applied["payload_hash"] == event_hash(first)

    # -- order-insensitivity (property) -------------------------------------------------------

    def test_any_order_with_duplicates_and_any_batching_folds_to_the_same_graph(self) -> None:
        @settings(
            max_examples=self.ORDER_EXAMPLES,
            deadline=None,
            suppress_health_check=[HealthCheck.too_slow],
        )
        @given(shuffled_workloads(self.project))
        def check(case: tuple[list[Event], list[Event], int]) -> None:
            in_order, shuffled, batch = case
            expected = self.fold(*in_order)
            assert self.fold(*shuffled, batch=batch) == expected

        check()

    def test_folding_twice_changes_nothing(self) -> None:
        @settings(max_examples=self.TWICE_EXAMPLES, deadline=None)
        @given(st.integers(0, 10_000), st.integers(1, 5))
        def check(seed: int, runs: int) -> None:
            events = Workload(self.project, seed).build(runs=runs)
            once = self.fold(*events)
            assert self.fold(*events, *events) == once

        check()

    # -- batches ------------------------------------------------------------------------------

    def test_any_order_and_batching_builds_the_reference_graph(self) -> None:
        for seed in (1, 2, 3):
            events = Workload(self.project, seed).build(runs=5, datasets=3)
            rng = random.Random(seed)
            shuffled = [*events, *rng.sample(events, 8)]
            rng.shuffle(shuffled)
            graph = self.fold(*shuffled, batch=rng.randint(1, 12))
            assert graph == self.reference(events), seed

    def test_a_batch_written_twice_applies_once_and_offsets_only_move_forward(self) -> None:
        changes = [project_event(e) for e in Workload(self.project, 7).build(runs=2)]
        writer, view = self.fresh()
        topic = self.offsets_topic
        assert writer.write(changes, [PartitionOffset(topic, 0, 41)]) == len(changes)
        first = view.canonical(self.project)
        assert writer.write(changes, [PartitionOffset(topic, 0, 12)]) == 0
        assert view.canonical(self.project) == first
        writer.write([], [PartitionOffset(topic, 1, 3)])
        assert writer.read_offsets(topic) == {0: 41, 1: 3}
        assert writer.read_offsets(f"{topic}-other") == {}

    def test_every_example_event_type_written_in_one_batch_builds_the_reference_graph(
        self,
    ) -> None:
        events = self.examples()
        writer, view = self.fresh()
        writer.write([project_event(e) for e in events[::-1]])
        assert view.canonical(self.project) == self.reference(events)

    @property
    def offsets_topic(self) -> str:
        """The topic the offset tests store under (an adapter with a database removes it)."""
        return f"offsets-{self.project}"
