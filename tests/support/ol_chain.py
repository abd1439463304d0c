"""A three-task OpenLineage pipeline whose inputs carry no version facet, for the tests of the
inferred inputs (`provgraph.ingest.projection.resolution`), in memory and on Neo4j.

raw (provgraph `dataset.version.created`: v1 at minute 0, v2 at minute 40)
  -> task1 (START 10, COMPLETE 15) -> clean@run-<r1>
  -> task2 (START 20, COMPLETE 25) -> features@run-<r2>
  -> task3 (START 30, COMPLETE 35) -> shards@run-<r3>

Every input is named without a version facet, every output without one too (versioned by the
run). The inferred links: r1 used raw@v1 (v2 came later), r2 clean@run-r1, r3
features@run-r2.
"""

from __future__ import annotations

import random
import uuid
from datetime import UTC, datetime, timedelta
from typing import Any

from provgraph.ingest.openlineage import NamespaceMap, wrap
from provgraph.schemas import DatasetVersionCreated, Event
from provgraph.schemas.events.data import DatasetVersionCreatedPayload

PRODUCER = "https://github.com/OpenLineage/OpenLineage/tree/1.54.0/client/python"
T0 = datetime(2024, 5, 1, 12, tzinfo=UTC)


class Chain:
    """The pipeline's events in one project (run ids derived from it: tests stay apart)."""

    def __init__(self, project: str) -> None:
        self.project = project
        self.names = NamespaceMap({"s3://lake": project, "pipelines": project})
        self.runs = [str(uuid.uuid5(uuid.NAMESPACE_URL, f"{project}/task{i}")) for i in (1, 2, 3)]

    def run(self, task: int) -> str:
        return f"run:{self.runs[task - 1]}"

    def dataset(self, name: str) -> str:
        return f"dataset:{self.project}/{name}"

    def output(self, task: int) -> str:
        name = ("clean", "features", "shards")[task - 1]
        return f"{self.dataset(name)}@run-{self.runs[task - 1]}"

    def expected_used(self) -> set[tuple[str, str]]:
        """(run, version) of every inferred USED relationship once all events are in."""
        return {
            (self.run(1), f"{self.dataset('raw')}@v1"),
            (self.run(2), self.output(1)),
            (self.run(3), self.output(2)),
        }

    def events(self) -> list[Event]:
        """Every event, in pipeline order."""
        out = [self._raw("v1", 0)]
        for task, (source, target) in enumerate(
            (("raw", "clean"), ("clean", "features"), ("features", "shards")), start=1
        ):
            start = 10 * task
            out.append(self._ol(task, "START", start, inputs=[source]))
            out.append(self._ol(task, "COMPLETE", start + 5, inputs=[source], outputs=[target]))
        out.append(self._raw("v2", 40))
        return out

    def orders(self, seeds: int = 6) -> list[list[Event]]:
        """The events in pipeline order, reversed (every reader before its writer), and
        shuffled by a few seeds."""
        events = self.events()
        orders = [events, events[::-1]]
        for seed in range(seeds):
            shuffled = list(events)
            random.Random(seed).shuffle(shuffled)
            orders.append(shuffled)
        return orders

    def _ol(
        self,
        task: int,
        state: str,
        minute: int,
        inputs: list[str],
        outputs: list[str] | None = None,
    ) -> Event:
        def ds(name: str) -> dict[str, Any]:
            return {"namespace": "s3://lake", "name": name}

        event = {
            "eventType": state,
            "eventTime": (T0 + timedelta(minutes=minute)).isoformat(),
            "producer": PRODUCER,
            "schemaURL": "https://openlineage.io/spec/2-0-2/OpenLineage.json#/$defs/RunEvent",
            "run": {"runId": self.runs[task - 1]},
            "job": {"namespace": "pipelines", "name": f"task{task}"},
            "inputs": [ds(n) for n in inputs],
            "outputs": [ds(n) for n in outputs or ()],
        }
        return wrap(event, self.names)

    def _raw(self, version: str, minute: int) -> Event:
        payload = DatasetVersionCreatedPayload(
            name="raw", version=version, storage_uri=f"s3://lake/raw/{version}"
        )
        return DatasetVersionCreated.create(
            project=self.project,
            producer="https://t/1",
            actor="user:t",
            payload=payload,
            occurred_at=T0 + timedelta(minutes=minute),
            event_id=uuid.uuid5(uuid.NAMESPACE_URL, f"{self.project}/raw/{version}"),
        )
