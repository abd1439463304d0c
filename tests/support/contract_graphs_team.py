"""The contract graphs of the digest, series and feedback reads: each graph is its events.

A graph is built as the projector builds it: events of the current contract, each projected
with the principal ingest would have stamped, then written by the in-memory writer (what the
fakes read, `tests/unit/query/fakes/stored.py`) or by the Neo4j writer (what the readers read).
So both hold the one stored shape: version stamps, JSON text, downsampled series, the applied
events and every node each one touched.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from neo4j import Driver

from provgraph.ingest.projection import EventMutations, EventRecord, LogStamp, project_event
from provgraph.ingest.projection.ownership import screen
from provgraph.ingest.projector.writer import GraphWriter
from provgraph.ingest.tools.memory_graph import MemoryGraph
from provgraph.query.read.digest_reads import RUN_LIFECYCLE
from provgraph.query.read.model import Scope
from provgraph.schemas.ids import (
    checkpoint_id,
    dataset_version_id,
    deployment_id,
    experiment_id,
    explicit_checkpoint_id,
    model_version_id,
    principal_id,
    run_id,
)
from provgraph.schemas.storage import format_time
from support.stories import story_event

Who = tuple[str, str | None]
"""Who sends an event: the actor it claims and the principal ingest authenticated, named as
issued (`user:alice`); None for an event written straight to the log."""


def instant(text: str) -> datetime:
    """`2026-03-02T10:00` as a UTC time."""
    return datetime.fromisoformat(text).replace(tzinfo=UTC)


def stored(when: datetime) -> str:
    """A time as the graph stores it (fixed-width UTC text)."""
    return format_time(when)


class EventLog:
    """The events of a contract graph in the order they are written."""

    def __init__(self) -> None:
        self.records: list[EventMutations] = []

    def add(
        self, project: str, who: Who, when: datetime, kind: str, /, **payload: Any
    ) -> EventRecord:
        """Append `kind` (its current version) of `project`, sent by `who` at `when`; its
        applied-event record."""
        event = story_event(project, kind, payload, when).model_copy(update={"actor": who[0]})
        stamp = LogStamp(principal=principal_id(who[1]) if who[1] else None)
        change = project_event(event, stamp)
        self.records.append(change)
        return change.record

    def screened(self) -> list[EventMutations]:
        """The events, each one the projector would write: none may change what another
        project owns (`projection.ownership.screen`), so the graph is one production can hold."""
        refused = [v.violation for v in screen(self.records, {}) if v.violation is not None]
        assert not refused, [str(v) for v in refused]
        return self.records

    def memory(self) -> MemoryGraph:
        """The graph folded in memory, with the Neo4j writer's semantics."""
        graph = MemoryGraph()
        graph.write(self.screened())
        return graph


@dataclass
class TwoProjects:
    """A contract graph of projects `a` and `b`: names are parameters, so that a run on
    Neo4j keeps its graph apart from every other test's."""

    a: str
    b: str
    log: EventLog = field(default_factory=EventLog)

    def scopes(self) -> tuple[Scope, Scope]:
        """Project a alone; projects a and b (as good as everything, on this graph alone)."""
        return Scope(frozenset({self.a})), Scope(frozenset({self.a, self.b}))


@contextmanager
def in_neo4j(driver: Driver, graph: TwoProjects) -> Iterator[None]:
    """`graph` written to Neo4j by the projector's writer; every node of its projects
    (applied events and series included) removed afterwards."""
    GraphWriter(driver).write(graph.log.screened())
    try:
        yield
    finally:
        driver.execute_query(
            "MATCH (n) WHERE n.project IN $projects DETACH DELETE n",
            projects=[graph.a, graph.b],
        )


# ---- the digest's graph (tests/contracts/digest_reads.py) -----------------------------------

SINCE, UNTIL = "2026-03-01T12:00:00.000000Z", "2026-03-08T12:00:00.000000Z"  # the window
ALICE: Who = ("alice", "user:alice")  # claims `alice`; ingest stamped her token's principal
BOB: Who = ("user:bob", None)
CAROL: Who = ("user:carol", "user:carol")
_ENDS = ("run.completed", "run.failed", "run.aborted")
_OOM = {"type": "OOM", "message": "cuda"}
# web v2's gates: one check passed, one failed (the digest flags `done`, which trains on it).
WEB2_GATES = {
    "dedup_rate": 0.1,
    "checks": [
        {"name": "dedup", "passed": True},
        {"name": "toxicity", "passed": False, "value": 0.3},
    ],
}


@dataclass
class DigestGraph(TwoProjects):
    """Project a (alice and bob), around the window [SINCE, UNTIL):
    - experiment `exp`: `done` (2 x 8 devices, seven checkpoints, trains on web v2 whose gates
      failed, validates on web v1) runs and completes in the window; `failed` started before
      it and fails in it; `old` ran before it; `resumed` failed before it and resumed in it
      from its own checkpoint; `running` started before it and still runs; `future` starts
      at its end; `deleted` ran in it and was deleted; `forked` started in it from a
      checkpoint of `done`, training on `edge` (no gates recorded);
    - `aborted`, part of b's experiment, started from b's checkpoint of a's `running`;
    - experiment `sweep`: runs s1..s9 in the window; `ghost`, a run only mentioned;
    - items: dataset versions (`edge` at the start of the window, `web1` before it, `web2`,
      sweep1..9), model version m@1 registered and approved, deployment `api` created, with
      feedback, and updated at the end of the window, `legacy` created before it and retired.
    Project b (carol): `spy` of b's experiment, started from a checkpoint of `done`; b's own
    checkpoint of a's `running`; dataset version `leak`."""

    def __post_init__(self) -> None:
        self.starts: dict[str, tuple[str, str]] = {}  # run key: (id, start or first sight)
        self.of_experiment: dict[str, list[str]] = {}
        self.checkpoints: dict[str, list[dict[str, Any]]] = {}  # a's, first saved first
        self.named: dict[str, EventRecord] = {}
        self._experiments()
        self._runs()
        self._items()

    # ---- the story ---------------------------------------------------------------------------

    def _experiments(self) -> None:
        for project, who in ((self.a, ALICE), (self.b, CAROL)):
            for key in ("exp", "sweep"):
                self.add("", project, who, "02-01T00:00", "experiment.created", key=key,
                         goal="lower loss")  # fmt: skip
        self.add("", self.b, CAROL, "03-02T12:00", "checkpoint.saved", run_id=f"{self.a}-running",
                 step=999, checkpoint_id=self.their_checkpoint, uri="s3://b/ck")  # fmt: skip

    def _runs(self) -> None:
        a, two_by_eight = self.a, {"num_nodes": 2, "devices_per_node": 8}
        self.start("done", ALICE, "03-02T10:00", "exp", run_number=1, resources=two_by_eight,
                   inputs=[self.used("web", "v2"),
                           self.used("web", "v1", "validation")])  # fmt: skip
        for i, save in enumerate((60, 90, None, 120, 60, 30, 45), start=1):
            self.save("done", ALICE, f"03-02T{10 + i // 6:02d}:{i % 6 * 10:02d}", 100 * i, save)
        self.end("done", ALICE, "03-02T14:00", "completed", conclusion="lr 3e-4 is better")
        self.start("failed", BOB, "02-20T00:00", "exp")
        self.end("failed", BOB, "03-03T10:00", "failed", error=_OOM,
                 conclusion="Run failed: OOM: cuda")  # fmt: skip
        self.start("old", BOB, "02-10T00:00", "exp")
        self.end("old", BOB, "02-11T00:00", "completed")
        self.start("resumed", ALICE, "02-25T09:00", "exp")
        self.save("resumed", ALICE, "02-25T10:00", 50, 30)
        self.end("resumed", ALICE, "02-26T09:00", "failed", error=_OOM)
        self.end("resumed", ALICE, "03-04T09:00", "resumed",
                 from_checkpoint=checkpoint_id(f"{a}-resumed", 50),
                 interruption_cause="OOM", steps_lost=10)  # fmt: skip
        self.start("running", ALICE, "02-15T00:00", "exp")
        self.add("", a, ALICE, "03-08T08:00", "run.metrics.logged", run_id=f"{a}-running",
                 points=[{"name": "loss", "step": 10, "value": 2.5}])  # fmt: skip
        self.start("future", BOB, "03-08T12:00", "exp")
        self.start("deleted", ALICE, "03-05T09:00", "exp")
        self.add("", a, ALICE, "03-06T09:00", "entity.deleted", entity=self.run("deleted"),
                 reason="a mistake")  # fmt: skip
        self.start("forked", ALICE, "03-02T15:00", "exp", inputs=[self.used("edge", "v1")],
                   resumed_from=checkpoint_id(f"{a}-done", 700))  # fmt: skip
        self.end("forked", ALICE, "03-02T16:00", "completed")
        self.start("aborted", BOB, "03-06T09:00", "exp", self.b,
                   resumed_from=self.their_checkpoint)  # fmt: skip
        self.end("aborted", BOB, "03-06T10:00", "aborted", reason="preempted")
        for i in range(1, 10):
            self.start(f"s{i}", BOB, f"03-07T{i:02d}:00", "sweep")
            self.end(f"s{i}", BOB, f"03-07T{i:02d}:30", "completed")
        self.start("spy", CAROL, "03-03T09:00", "exp", self.b,
                   resumed_from=checkpoint_id(f"{a}-done", 100))  # fmt: skip
        self.end("spy", CAROL, "03-03T10:00", "completed")

    def _items(self) -> None:
        a, version = self.a, self.model_version()
        self.created("edge", ALICE, SINCE[5:16], "edge", "v1")
        self.created("web1", ALICE, "02-20T00:00", "web", "v1")
        self.created("web2", ALICE, "03-02T08:00", "web", "v2", gates=WEB2_GATES)
        for i in range(1, 10):
            self.created(f"sweep{i}", BOB, f"03-07T{i:02d}:15", "sweep", f"v{i}")
        self.created("leak", CAROL, "03-03T08:00", "leak", "v1", self.b)
        self.add("m-registered", a, BOB, "03-04T10:00", "model.version.registered", name="m",
                 version="1", produced_by_run=self.run("ghost"))  # fmt: skip
        self.starts["ghost"] = (self.run("ghost"), self.at("m-registered"))
        self.add("m-approved", a, BOB, "03-05T10:00", "model.version.status.changed",
                 model_version=version, from_status="candidate", to_status="approved")  # fmt: skip
        serves = [{"model_version": version}]
        for name, when in (("api", "03-06T09:00"), ("legacy", "02-01T00:00")):
            self.add(name, a, ALICE, when, "deployment.created", name=name, serves=serves,
                     endpoint=f"https://{name}.test", environment="prod")  # fmt: skip
        self.add("api-feedback", a, BOB, "03-06T10:00", "deployment.feedback.recorded",
                 name="api", model_version=version, metrics={"thumbs_up": 0.8})  # fmt: skip
        self.add("api-update", a, ALICE, UNTIL[5:16], "deployment.updated", name="api",
                 note="at the end of the window")  # fmt: skip
        self.add("legacy-retired", a, ALICE, "03-07T12:00", "deployment.retired", name="legacy",
                 reason="replaced by api")  # fmt: skip

    def add(self, name: str, project: str, who: Who, when: str, kind: str, /, **p: Any) -> None:
        record = self.log.add(project, who, instant(f"2026-{when}"), kind, **p)
        if name:
            self.named[name] = record

    def start(self, key: str, who: Who, when: str, exp: str, owner: str = "", **p: Any) -> None:
        project = self.b if key == "spy" else self.a
        self.add("", project, who, when, "run.started", run_id=f"{project}-{key}", name=key,
                 experiment=self.experiment(exp, owner or project), **p)  # fmt: skip
        self.starts[key] = (self.run(key), stored(instant(f"2026-{when}")))
        if not owner:  # a's experiments
            self.of_experiment.setdefault(exp, []).append(key)

    def end(self, key: str, who: Who, when: str, kind: str, **payload: Any) -> None:
        project = self.b if key == "spy" else self.a
        self.add("", project, who, when, f"run.{kind}", run_id=f"{project}-{key}", **payload)

    def save(self, key: str, who: Who, when: str, step: int, seconds: float | None) -> None:
        extra = {} if seconds is None else {"save_seconds": seconds}
        size = step * 1_000_000  # every checkpoint records its size
        self.add("", self.a, who, when, "checkpoint.saved", run_id=f"{self.a}-{key}", step=step,
                 uri=f"s3://a/{key}/{step}", size_bytes=size, **extra)  # fmt: skip
        saved = {"id": checkpoint_id(f"{self.a}-{key}", step), "step": step,
                 "saved_at": stored(instant(f"2026-{when}")), "save_seconds": seconds,
                 "size_bytes": size}  # fmt: skip
        self.checkpoints.setdefault(key, []).append(saved)

    def created(
        self,
        name: str,
        who: Who,
        when: str,
        dataset: str,
        version: str,
        project: str = "",
        gates: dict[str, Any] | None = None,
    ) -> None:
        self.add(name, project or self.a, who, when, "dataset.version.created", name=dataset,
                 version=version, storage_uri=f"s3://data/{dataset}/{version}/",
                 quality_gates=gates)  # fmt: skip

    def used(self, dataset: str, version: str, role: str = "train") -> dict[str, str]:
        return {"dataset_version": self.dataset_version(dataset, version), "role": role}

    # ---- ids and expected answers ------------------------------------------------------------

    @property
    def their_checkpoint(self) -> str:
        return explicit_checkpoint_id(f"{self.b}-ck")

    def run(self, key: str) -> str:
        return run_id(f"{self.b if key == 'spy' else self.a}-{key}")

    def experiment(self, key: str, project: str = "") -> str:
        return experiment_id(project or self.a, key)

    def model_version(self) -> str:
        return model_version_id(self.a, "m", "1")

    def deployment(self, name: str) -> str:
        return deployment_id(self.a, name)

    def dataset_version(self, name: str, version: str) -> str:
        return dataset_version_id(self.a, name, version)

    def at(self, name: str) -> str:
        return self.named[name].occurred_at

    def latest_first(self, *keys: str) -> list[str]:
        """The ids of runs `keys` by start (or first sight) descending, then by id."""
        runs = sorted(self.starts[k] for k in keys)
        return [i for i, _ in sorted(runs, key=lambda run: run[1], reverse=True)]

    def live_runs(self) -> list[str]:
        """The keys of a's runs, but the deleted one."""
        return [k for k in self.starts if k not in ("spy", "deleted")]

    def item_nodes(self, *names: str) -> list[str]:
        """The node ids of items `names`, oldest first (then by event id)."""
        events = sorted((self.named[n] for n in names), key=lambda e: (e.occurred_at, e.event_id))
        return [e.subject for e in events]

    def item(self, name: str, who: Who) -> dict[str, Any]:
        event = self.named[name]
        return {"event_type": event.event_type, "at": event.occurred_at, "actor": who[0],
                "principal": who[1]}  # fmt: skip

    def _of_run(self, key: str) -> list[EventRecord]:
        """The events of run `key` itself (its subject), oldest first."""
        found = [c.record for c in self.log.records if c.record.subject == self.run(key)]
        return sorted(found, key=lambda e: (e.occurred_at, e.event_id))

    def lifecycle(self, key: str, who: Who) -> list[dict[str, Any]]:
        return [
            {"type": e.event_type, "at": e.occurred_at, "actor": who[0], "principal": who[1]}
            for e in self._of_run(key)
            if e.event_type in RUN_LIFECYCLE
        ]

    def run_fields(self, key: str) -> dict[str, Any]:
        """A run's id, name and times, as its events set them."""
        touching = [
            c.record.occurred_at for c in self.log.records if self.run(key) in c.record.touched
        ]
        ends = [e.occurred_at for e in self._of_run(key) if e.event_type in _ENDS]
        return {"id": self.run(key), "name": key, "started_at": self.starts[key][1],
                "ended_at": max(ends, default=None), "last_event_at": max(touching)}  # fmt: skip

    def live_of(self, experiment: str) -> list[str]:
        """The keys of the runs of a's `experiment`, but the deleted one."""
        return [k for k in self.of_experiment[experiment] if k != "deleted"]
