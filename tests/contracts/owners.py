"""The owners lookup's contract (`ports.OwnerLookup` on every `BatchWriter`), and the claim rule
of the writer's fold: the in-memory graph and the Neo4j writer answer the same.

A subclass per adapter gives `fresh()` (an empty graph for its `project` prefix) and `ids`
unique to the test (run ids are global).
"""

from __future__ import annotations

import uuid
from abc import ABC, abstractmethod
from typing import Any

from provgraph.ingest.ports import BatchWriter, GraphView
from provgraph.ingest.projection import project_event
from provgraph.ingest.projection.ownership import Owner
from provgraph.ingest.screening import owned, screen_batch
from provgraph.ingest.tools.memory_graph import MemoryGraph
from provgraph.schemas import (
    CheckpointSaved,
    DatasetVersionCreated,
    Event,
    RunCompleted,
    RunStarted,
)
from provgraph.schemas.events.checkpoint import CheckpointSavedPayload
from provgraph.schemas.events.data import DatasetVersionCreatedPayload
from provgraph.schemas.events.experiment import RunStartedPayload
from provgraph.schemas.events.run import RunCompletedPayload


def _event(cls: type[Event], project: str, payload: Any) -> Event:
    return cls.create(project=project, producer="https://t/1", actor="user:t", payload=payload)


class OwnersContract(ABC):
    """What every writer answers about owners, and how its fold keeps a claimed project."""

    project: str  # a prefix for this test's projects: `<project>a`, `<project>b`

    @abstractmethod
    def fresh(self) -> tuple[BatchWriter, GraphView]:
        """An empty graph for this test's projects."""

    # -- events ---------------------------------------------------------------------------------

    def setup_ids(self) -> None:
        self.key = f"own-{uuid.uuid4().hex[:12]}"
        self.run, self.checkpoint = f"run:{self.key}", f"checkpoint:{self.key}/5"
        self.a, self.b = f"{self.project}a", f"{self.project}b"

    def started(self, project: str) -> Event:
        return _event(RunStarted, project, RunStartedPayload(run_id=self.key, params={"lr": 1}))

    def completed(self, project: str, conclusion: str) -> Event:
        payload = RunCompletedPayload(run_id=self.key, conclusion=conclusion)
        return _event(RunCompleted, project, payload)

    def checkpoint_saved(self, project: str) -> Event:
        payload = CheckpointSavedPayload(run_id=self.key, step=5, uri=f"s3://{project}/c")
        return _event(CheckpointSaved, project, payload)

    def produced_by(self, project: str) -> Event:
        payload = DatasetVersionCreatedPayload(
            name="d", version="v1", storage_uri="s3://x/d", produced_by_run=self.run
        )
        return _event(DatasetVersionCreated, project, payload)

    def write(self, writer: BatchWriter, *events: Event) -> None:
        for event in events:  # one batch each: the fold's rule, not the screen, is under test
            writer.write([project_event(event)])

    # -- the lookup -----------------------------------------------------------------------------

    def test_unknown_ids_are_absent(self) -> None:
        self.setup_ids()
        writer, _ = self.fresh()
        assert writer.owners([self.run, self.checkpoint]) == {}
        assert writer.owners([]) == {}

    def test_a_written_run_is_claimed_and_a_referenced_one_is_free(self) -> None:
        self.setup_ids()
        writer, _ = self.fresh()
        self.write(writer, self.checkpoint_saved(self.b))
        assert writer.owners([self.run, self.checkpoint]) == {
            self.run: Owner(self.b, False),  # only the checkpoint's reference
            self.checkpoint: Owner(self.b, True),
        }

    def test_a_reference_never_claims_and_the_first_write_does(self) -> None:
        self.setup_ids()
        writer, _ = self.fresh()
        self.write(writer, self.produced_by(self.a), self.completed(self.b, "done"))
        assert writer.owners([self.run]) == {self.run: Owner(self.b, True)}
        self.write(writer, self.produced_by(self.a))
        assert writer.owners([self.run]) == {self.run: Owner(self.b, True)}

    # -- the fold keeps a claimed project -------------------------------------------------------

    def test_an_unscreened_foreign_write_changes_neither_project_nor_properties(self) -> None:
        self.setup_ids()
        writer, view = self.fresh()
        self.write(writer, self.started(self.b), self.completed(self.b, "mine"))
        before = view.canonical(self.b).nodes[self.run]["props"]
        self.write(writer, self.completed(self.a, "forced"), self.started(self.a))
        after = view.canonical(self.b).nodes[self.run]["props"]
        assert writer.owners([self.run]) == {self.run: Owner(self.b, True)}
        assert after["conclusion"] == "mine"
        assert {k: v for k, v in after.items() if k != "last_event_at"} == {
            k: v for k, v in before.items() if k != "last_event_at"
        }

    def test_the_fold_equals_the_in_memory_reference(self) -> None:
        self.setup_ids()
        events = [
            self.produced_by(self.a),
            self.completed(self.b, "early"),
            self.started(self.a),  # foreign, unscreened: folds in as a reference
            self.checkpoint_saved(self.b),
            self.started(self.b),
        ]
        writer, view = self.fresh()
        self.write(writer, *events)
        reference = MemoryGraph()
        self.write(reference, *events)
        for project in (self.a, self.b):
            assert view.canonical(project) == reference.canonical(project)

    # -- the screen against the store -----------------------------------------------------------

    def test_the_screen_reads_the_store_and_claims_within_the_batch(self) -> None:
        self.setup_ids()
        writer, _ = self.fresh()
        self.write(writer, self.started(self.b))
        batch = [project_event(self.completed(self.a, "x")), project_event(self.started(self.b))]
        errors = screen_batch(writer, batch)
        assert errors[1] is None
        assert errors[0] is not None and self.b in str(errors[0]) and self.run in str(errors[0])
        fresh_key = self.key
        self.setup_ids()  # a run nobody has seen: the first of the batch claims it
        assert self.key != fresh_key
        batch = [project_event(self.started(self.a)), project_event(self.checkpoint_saved(self.b))]
        assert [e is None for e in screen_batch(writer, batch)] == [True, False]
        assert owned(writer, batch) == batch[:1]
