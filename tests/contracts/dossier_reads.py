"""The DossierReads contract: one graph, one set of expected answers, every adapter held to
them.

`DossierReadsContract` runs against the in-memory `FakeDossierReads`
(tests/unit/query/test_dossier_reads_contract_fake.py) and `DossierReader` over the real
Neo4j (tests/integration/query/test_dossier_reads_contract_neo4j.py). Both load
`DossierGraph`, the events of two projects folded by the projector's writers.

Event ids are the events' own (random): expected answers name events by the story's keys.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pytest
from support.contract_graphs_team import TwoProjects, Who, instant

from provgraph.ingest.projection import EventRecord
from provgraph.query.read.dossier_reads import DossierReads
from provgraph.query.read.model import Scope
from provgraph.schemas.ids import (
    checkpoint_id,
    dataset_version_id,
    deployment_id,
    environment_id,
    evaluation_id,
    experiment_id,
    model_version_id,
    run_id,
)

ANN: Who = ("user:ann", "user:ann")
BOB: Who = ("bob", "user:bob")  # claims `bob`; ingest stamped his token's principal
LOG: Who = ("service:trainer", None)  # written straight to the log
CAROL: Who = ("user:carol", "user:carol")
GATES = {"dedup_rate": 0.1, "checks": [{"name": "lang", "passed": True, "value": 0.98},
                                       {"name": "toxicity", "passed": False}]}  # fmt: skip
EVALUATIONS = {"e1": "0f0f0f0f-0000-4000-8000-000000000001",
               "e2": "0f0f0f0f-0000-4000-8000-000000000002",
               "e3": "0f0f0f0f-0000-4000-8000-000000000003"}  # fmt: skip
SPIES = 2  # b's deployments serving a's version


@dataclass
class DossierGraph(TwoProjects):
    """Project a: experiments `pre` (number 1) and `ft` (number 2); run `pre` (2 x 8 devices)
    saves a checkpoint, is resumed from it after a preemption, completes; `base@1` is its
    model; run `ft` starts from `base@1` and fails; run `bare` has no experiment. `chat@1`,
    produced by `ft`, validated and fit for chat, is approved ("review passed") then delivered
    ("shipped": the reason the version keeps), evaluated on eval@v1 (e1) and on eval@v1 with
    eval@v2 (e2), served by deployment `api` (half the traffic). Dataset `web@v1` has quality
    gates (one failing); `mix@v1` is mixed from web@v1 (0.7) and code@v1 (0.3).
    Project b: evaluation e3 of a's chat@1, deployments `spy-<n>` serving it, dataset
    `leak@v1` mixed from a's web@v1."""

    def __post_init__(self) -> None:
        self.events: dict[str, EventRecord] = {}
        a, b = self.a, self.b
        for key, number, goal in (("pre", 1, "pretrain"), ("ft", 2, "fine-tune")):
            self.add(key, a, ANN, "02-01T00:00", "experiment.created", key=key, number=number,
                     goal=goal)  # fmt: skip
        self.add("env", a, ANN, "02-01T00:00", "environment.snapshot.recorded", key="img",
                 image={"name": "trainer", "tag": "1"})  # fmt: skip
        self._runs()
        self._models()
        self._data()
        self.add("e3", b, CAROL, "03-03T12:00", "model.version.evaluated",
                 evaluation_id=EVALUATIONS["e3"], model_version=self.version("chat"),
                 suite="spy", passed=True)  # fmt: skip
        for i in range(SPIES):
            self.add(f"spy-{i}", b, CAROL, "03-04T09:00", "deployment.created", name=f"spy-{i}",
                     endpoint="https://spy.test", environment="prod",
                     serves=[{"model_version": self.version("chat")}])  # fmt: skip

    def add(self, key: str, project: str, who: Who, when: str, kind: str, /, **p: Any) -> None:
        self.events[key] = self.log.add(project, who, instant(f"2026-{when}"), kind, **p)

    def _runs(self) -> None:
        a = self.a
        self.add("pre-start", a, ANN, "03-01T09:00", "run.started", run_id=f"{a}-pre",
                 experiment=experiment_id(a, "pre"), run_number=1, name="pretrain",
                 environment=environment_id(a, "img"),
                 resources={"num_nodes": 2, "devices_per_node": 8})  # fmt: skip
        self.add("pre-save", a, LOG, "03-01T10:00", "checkpoint.saved", run_id=f"{a}-pre",
                 step=100, uri="s3://a/pre/100")  # fmt: skip
        self.add("pre-resume", a, LOG, "03-01T11:00", "run.resumed", run_id=f"{a}-pre",
                 from_checkpoint=checkpoint_id(f"{a}-pre", 100), interruption_cause="preempted",
                 steps_lost=20, resumed_at_step=100)  # fmt: skip
        self.add("pre-end", a, ANN, "03-01T12:00", "run.completed", run_id=f"{a}-pre",
                 conclusion="base is good")  # fmt: skip
        self.add("base", a, ANN, "03-01T12:30", "model.version.registered", name="base",
                 version="1", produced_by_run=self.run("pre"))  # fmt: skip
        self.add("ft-start", a, BOB, "03-02T09:00", "run.started", run_id=f"{a}-ft",
                 experiment=experiment_id(a, "ft"), base_model=self.version("base"))  # fmt: skip
        self.add("ft-end", a, BOB, "03-02T10:00", "run.failed", run_id=f"{a}-ft",
                 error={"type": "OOM", "message": "CUDA out of memory"})  # fmt: skip
        self.add("bare-start", a, LOG, "03-02T11:00", "run.started", run_id=f"{a}-bare")
        self.add("bare-end", a, LOG, "03-02T12:00", "run.completed", run_id=f"{a}-bare")

    def _models(self) -> None:
        a, chat = self.a, self.version("chat")
        self.add("chat", a, ANN, "03-03T09:00", "model.version.registered", name="chat",
                 version="1", produced_by_run=self.run("ft"), fit_for=["chat"],
                 validation=[{"name": "toxicity", "passed": True, "value": 0.01}])  # fmt: skip
        self.add("approved", a, ANN, "03-03T10:00", "model.version.status.changed",
                 model_version=chat, from_status="candidate", to_status="approved",
                 reason="review passed")  # fmt: skip
        self.add("delivered", a, BOB, "03-03T11:00", "model.version.status.changed",
                 model_version=chat, from_status="approved", to_status="delivered",
                 reason="shipped")  # fmt: skip
        for key, when, sets, passed in (("e1", "03-03T09:30", ["v1"], True),
                                        ("e2", "03-03T09:45", ["v2", "v1"], False)):  # fmt: skip
            self.add(key, a, ANN, when, "model.version.evaluated",
                     evaluation_id=EVALUATIONS[key], model_version=chat, suite="harness",
                     dataset_versions=[self.dataset("eval", v) for v in sets],
                     run=self.run("bare"), metrics={"acc": 0.6}, passed=passed)  # fmt: skip
        self.add("api", a, ANN, "03-04T08:00", "deployment.created", name="api",
                 endpoint="https://api.test", environment="prod",
                 serves=[{"model_version": chat, "traffic_share": 0.5}])  # fmt: skip

    def _data(self) -> None:
        a = self.a
        for name in ("web", "code", "eval"):
            self.add(name, a, ANN, "02-15T00:00", "dataset.version.created", name=name,
                     version="v1", storage_uri=f"s3://d/{name}/v1/",
                     quality_gates=GATES if name == "web" else None)  # fmt: skip
        self.add("eval2", a, ANN, "02-15T00:00", "dataset.version.created", name="eval",
                 version="v2", storage_uri="s3://d/eval/v2/")  # fmt: skip
        mixed = [
            {"dataset_version": self.dataset("web"), "transform": "mix", "weight": 0.7},
            {"dataset_version": self.dataset("code"), "transform": "mix", "weight": 0.3},
        ]
        self.add("mix", a, ANN, "02-16T00:00", "dataset.version.created", name="mix",
                 version="v1", storage_uri="s3://d/mix/v1/", derived_from=mixed)  # fmt: skip
        self.add(
            "leak",
            self.b,
            CAROL,
            "02-17T00:00",
            "dataset.version.created",
            name="leak",
            version="v1",
            storage_uri="s3://b/leak/v1/",
            derived_from=[{"dataset_version": self.dataset("web"), "transform": "copy"}],
        )

    # ---- ids and expected answers ------------------------------------------------------------

    def run(self, key: str) -> str:
        return run_id(f"{self.a}-{key}")

    def version(self, name: str, project: str = "") -> str:
        return model_version_id(project or self.a, name, "1")

    def dataset(self, name: str, version: str = "v1", project: str = "") -> str:
        return dataset_version_id(project or self.a, name, version)

    def event(self, key: str, who: Who, type_: str, reason: str | None = None) -> dict[str, Any]:
        e = self.events[key]
        return {"type": type_, "event_id": e.event_id, "at": e.occurred_at, "actor": who[0],
                "principal": who[1], "reason": reason}  # fmt: skip

    def at(self, key: str) -> str:
        return self.events[key].occurred_at


def _evaluations(found: dict[str, Any]) -> list[tuple[Any, ...]]:
    return [(e["props"]["id"], e["props"]["suite"], e["props"]["passed"],
             e["props"]["evaluated_at"], e["datasets"], e["runs"])
            for e in found["evaluations"]]  # fmt: skip


class DossierReadsContract:
    """What every DossierReads adapter answers on the contract graph. Subclasses provide
    `graph` (loaded into the adapter under test) and `reads` (the adapter)."""

    @pytest.fixture()
    def graph(self) -> DossierGraph:
        raise NotImplementedError("each adapter's test class loads the contract graph")

    @pytest.fixture()
    def reads(self, graph: DossierGraph) -> DossierReads:
        raise NotImplementedError("each adapter's test class provides its reads")

    def test_a_version_with_its_registration_and_status_changes(
        self, reads: DossierReads, graph: DossierGraph
    ) -> None:
        only_a, _ = graph.scopes()
        found = reads.model_version(graph.version("chat"), only_a)
        assert found is not None
        version = found["version"]
        assert (version["id"], version["fit_for"], version["validation_passed"]) == (
            graph.version("chat"), ["chat"], True)  # fmt: skip
        assert version["status"] == "delivered"
        assert version["status_at.approved"] == graph.at("approved")
        assert not [k for k in version if k.startswith("_v")]
        assert found["model"] == {"id": f"model:{graph.a}/chat", "name": "chat"}
        # Only the change whose reason the version still holds is answered with it.
        assert found["events"] == [
            graph.event("chat", ANN, "model.version.registered"),
            graph.event("approved", ANN, "model.version.status.changed"),
            graph.event("delivered", BOB, "model.version.status.changed", "shipped"),
        ]

    def test_evaluations_oldest_first_with_their_sets_in_the_caller_s_scope(
        self, reads: DossierReads, graph: DossierGraph
    ) -> None:
        only_a, both = graph.scopes()
        e1, e2, e3 = (evaluation_id(EVALUATIONS[k]) for k in ("e1", "e2", "e3"))
        mine = [
            (e1, "harness", True, graph.at("e1"), [graph.dataset("eval")], [graph.run("bare")]),
            (e2, "harness", False, graph.at("e2"),
             [graph.dataset("eval"), graph.dataset("eval", "v2")], [graph.run("bare")]),
        ]  # fmt: skip
        found = reads.model_version(graph.version("chat"), only_a)
        assert found is not None and _evaluations(dict(found)) == mine
        found = reads.model_version(graph.version("chat"), both)
        assert found is not None
        assert _evaluations(dict(found)) == [*mine, (e3, "spy", True, graph.at("e3"), [], [])]

    def test_deployments_serving_it_with_their_share(
        self, reads: DossierReads, graph: DossierGraph
    ) -> None:
        only_a, both = graph.scopes()
        found = reads.model_version(graph.version("chat"), only_a)
        assert found is not None
        served = [(d["props"]["id"], d["traffic_share"]) for d in found["deployments"]]
        assert served == [(deployment_id(graph.a, "api"), 0.5)]
        found = reads.model_version(graph.version("chat"), both)
        assert found is not None
        spies = sorted(deployment_id(graph.b, f"spy-{i}") for i in range(SPIES))
        assert [d["props"]["id"] for d in found["deployments"]] == sorted(
            [deployment_id(graph.a, "api"), *spies]
        )
        assert found["deployments"][0]["props"]["endpoint"] == "https://api.test"

    def test_a_missing_unreadable_or_other_node_is_no_version(
        self, reads: DossierReads, graph: DossierGraph
    ) -> None:
        only_a, _ = graph.scopes()
        for other in ("model:nowhere/m@1", graph.run("pre"), f"model:{graph.a}/chat"):
            assert reads.model_version(other, only_a) is None
        assert reads.model_version(graph.version("chat"), Scope(frozenset({graph.b}))) is None

    def test_runs_with_their_experiment_and_lifecycle_in_the_order_asked(
        self, reads: DossierReads, graph: DossierGraph
    ) -> None:
        only_a, _ = graph.scopes()
        ids = [graph.run("ft"), "run:nowhere", graph.run("pre"), graph.run("bare")]
        ft, missing, pre, bare = reads.runs(ids, only_a)
        assert missing is None and pre is not None and ft is not None and bare is not None
        assert (pre["id"], pre["project"], pre["name"], pre["run_number"], pre["status"]) == (
            graph.run("pre"), graph.a, "pretrain", 1, "completed")  # fmt: skip
        assert (pre["started_at"], pre["ended_at"], pre["conclusion"]) == (
            graph.at("pre-start"), graph.at("pre-end"), "base is good")  # fmt: skip
        assert (pre["interruption_cause"], pre["steps_lost"], pre["resumed_at_step"]) == (
            "preempted", 20, 100)  # fmt: skip
        assert {k: pre["resources"][k] for k in ("num_nodes", "devices_per_node")} == {
            "num_nodes": 2, "devices_per_node": 8}  # fmt: skip
        assert pre["experiment"] == {"id": experiment_id(graph.a, "pre"), "key": "pre",
                                     "number": 1, "code_name": None, "goal": "pretrain",
                                     "description": None}  # fmt: skip
        lifecycle = [(e["type"], e["event_id"], e["at"], e["actor"], e["principal"])
                     for e in pre["lifecycle"]]  # fmt: skip
        assert lifecycle == [
            ("run.started", graph.events["pre-start"].event_id, graph.at("pre-start"), *ANN),
            ("run.resumed", graph.events["pre-resume"].event_id, graph.at("pre-resume"), *LOG),
            ("run.completed", graph.events["pre-end"].event_id, graph.at("pre-end"), *ANN),
        ]
        assert (ft["status"], ft["error_type"], ft["error_message"]) == (
            "failed", "OOM", "CUDA out of memory")  # fmt: skip
        assert [e["type"] for e in ft["lifecycle"]] == ["run.started", "run.failed"]
        assert (bare["experiment"], bare["resources"], bare["conclusion"]) == (None, None, None)
        assert reads.runs([], only_a) == []
        assert reads.runs([graph.run("pre")], Scope(frozenset({graph.b}))) == [None]

    def test_dataset_versions_with_their_gates_and_mix(
        self, reads: DossierReads, graph: DossierGraph
    ) -> None:
        only_a, both = graph.scopes()
        leak = graph.dataset("leak", project=graph.b)
        ids = [graph.dataset("mix"), graph.dataset("web"), leak, "dataset:nowhere/x@v1"]
        mix, web, unreadable, missing = reads.dataset_versions(ids, only_a)
        assert (unreadable, missing) == (None, None)
        assert mix == {"id": graph.dataset("mix"), "quality_gates": None, "mix": [
            {"dataset_version": graph.dataset("code"), "transform": "mix", "weight": 0.3},
            {"dataset_version": graph.dataset("web"), "transform": "mix", "weight": 0.7},
        ]}  # fmt: skip
        assert web == {"id": graph.dataset("web"), "mix": [],
                       "quality_gates": {**GATES, "mix_ratio": {}}}  # fmt: skip
        [theirs] = reads.dataset_versions([leak], both)
        assert theirs is not None
        assert theirs["mix"] == [
            {"dataset_version": graph.dataset("web"), "transform": "copy", "weight": None}
        ]
