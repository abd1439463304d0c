"""The DigestReads contract: one graph, one set of expected answers, every adapter held to them.

`DigestReadsContract` runs against the in-memory `FakeDigestReads`
(tests/unit/query/test_digest_reads_contract_fake.py) and `DigestReader` over the real Neo4j
(tests/integration/query/test_digest_reads_contract_neo4j.py). Both load `DigestGraph`
(tests/support/contract_graphs_team.py), the events of two projects folded by the projector's
writers, and must answer the digest's runs and items and the checkpoint advice's runs the same
way, above all what the caller's scope hides: a node of an unreadable project is answered like
a missing one, and nothing is reached through it.

Event ids are the events' own (random): orders are computed from the graph, never written out.
"""

from __future__ import annotations

from typing import Any

import pytest
from support.contract_graphs_team import ALICE, BOB, SINCE, UNTIL, WEB2_GATES, DigestGraph

from provgraph.query.read.digest_reads import AdviceRecords, DigestReads, DigestRecords
from provgraph.query.read.model import Scope
from provgraph.schemas.storage import parse_json

# The runs of a in the window: started, ended or resumed in it, or still running.
IN_WINDOW = ("done", "failed", "resumed", "running", "aborted", "forked",
             *(f"s{i}" for i in range(1, 10)))  # fmt: skip
# The items of a in the window, by their events (`web1` came before it, `api-update` at its end).
ITEMS = ("edge", "web2", "m-registered", "m-approved", "api", "api-feedback", "legacy-retired",
         *(f"sweep{i}" for i in range(1, 10)))  # fmt: skip
DIGEST_RUN = {"id", "project", "name", "run_number", "status", "started_at", "ended_at",
              "last_event_at", "conclusion", "error_type", "error_message", "abort_reason",
              "resources", "experiment", "lifecycle", "trained_on"}  # fmt: skip
ADVICE_RUN = {"id", "name", "run_number", "status", "started_at", "ended_at", "last_event_at",
              "resources", "lifecycle", "checkpoints", "resumed_by"}  # fmt: skip
LIMIT = 4  # the bound of the limit tests: a has several times more runs and items


def ids(answered: list[dict[str, Any]]) -> list[str]:
    return [str(run["id"]) for run in answered]


def settled(run: dict[str, Any]) -> dict[str, Any]:
    """`run` with its lifecycle in time order: the order answered is a test of its own
    (`test_a_lifecycle_is_answered_oldest_first`)."""
    return {**run, "lifecycle": sorted(run["lifecycle"], key=lambda e: (e["at"], e["type"]))}


class DigestReadsContract:
    """What every DigestReads adapter answers on the contract graph. Subclasses provide
    `graph` (loaded into the adapter under test) and `reads` (the adapter)."""

    @pytest.fixture()
    def graph(self) -> DigestGraph:
        raise NotImplementedError("each adapter's test class loads the contract graph")

    @pytest.fixture()
    def reads(self, graph: DigestGraph) -> DigestReads:
        raise NotImplementedError("each adapter's test class provides its reads")

    # ---- the digest ----------------------------------------------------------------------------

    def test_the_runs_of_the_window_latest_first_and_its_items_oldest_first(
        self, reads: DigestReads, graph: DigestGraph
    ) -> None:
        only_a, _ = graph.scopes()
        found = reads.digest([graph.a], SINCE, UNTIL, 50, only_a)
        assert ids(found.runs) == graph.latest_first(*IN_WINDOW)
        assert [i["node"]["id"] for i in found.items] == graph.item_nodes(*ITEMS)
        assert [i["at"] for i in found.items] == sorted(i["at"] for i in found.items)
        assert found.truncated is False

    def test_a_run_with_its_lifecycle_resources_and_experiment(
        self, reads: DigestReads, graph: DigestGraph
    ) -> None:
        only_a, both = graph.scopes()
        found = reads.digest([graph.a], SINCE, UNTIL, 50, only_a)
        runs = {r["id"]: settled(r) for r in found.runs}
        done = runs[graph.run("done")]
        assert set(done) == DIGEST_RUN
        assert {k: done["resources"][k] for k in ("num_nodes", "devices_per_node")} == {
            "num_nodes": 2,
            "devices_per_node": 8,
        }
        assert done == {
            **graph.run_fields("done"),
            "status": "completed",
            "project": graph.a,
            "run_number": 1,
            "conclusion": "lr 3e-4 is better",
            **dict.fromkeys(("error_type", "error_message", "abort_reason")),
            "resources": done["resources"],
            "experiment": {"id": graph.experiment("exp"), "key": "exp"},
            "lifecycle": graph.lifecycle("done", ALICE),
            # web v1 is its validation set, not what it trains on
            "trained_on": [
                {
                    "role": "train",
                    "id": graph.dataset_version("web", "v2"),
                    "gates": done["trained_on"][0]["gates"],
                },
            ],
        }
        stored_gates = parse_json(done["trained_on"][0]["gates"])
        assert {k: stored_gates[k] for k in WEB2_GATES} == WEB2_GATES
        assert runs[graph.run("forked")]["trained_on"] == [
            {"role": "train", "id": graph.dataset_version("edge", "v1"), "gates": None}
        ]
        assert runs[graph.run("failed")]["trained_on"] == []
        failed = runs[graph.run("failed")]
        assert (failed["status"], failed["error_type"], failed["error_message"]) == (
            "failed", "OOM", "cuda",
        )  # fmt: skip
        assert failed["lifecycle"] == graph.lifecycle("failed", BOB)
        assert failed["resources"] is None and failed["conclusion"] == "Run failed: OOM: cuda"
        resumed = runs[graph.run("resumed")]  # ended before the window, resumed in it
        assert [e["type"] for e in resumed["lifecycle"]] == [
            "run.started", "run.failed", "run.resumed",
        ]  # fmt: skip
        aborted = runs[graph.run("aborted")]  # part of b's experiment
        assert (aborted["abort_reason"], aborted["experiment"]) == ("preempted", None)
        theirs = {r["id"]: r for r in reads.digest([graph.a], SINCE, UNTIL, 50, both).runs}
        assert theirs[graph.run("aborted")]["experiment"] == {
            "id": graph.experiment("exp", graph.b),
            "key": "exp",
        }

    def test_a_lifecycle_is_answered_oldest_first(
        self, reads: DigestReads, graph: DigestGraph
    ) -> None:
        only_a, _ = graph.scopes()
        keys = ("done", "failed", "resumed", "aborted")
        runs = {r["id"]: r for r in reads.digest([graph.a], SINCE, UNTIL, 50, only_a).runs}
        for key, who in zip(keys, (ALICE, BOB, ALICE, BOB), strict=True):
            assert runs[graph.run(key)]["lifecycle"] == graph.lifecycle(key, who), key
        for key in keys:
            [advised] = reads.advice_runs("run", graph.run(key), 1, 1, only_a).runs
            assert advised["lifecycle"] == runs[graph.run(key)]["lifecycle"], key

    def test_an_item_with_its_node_and_status_times(
        self, reads: DigestReads, graph: DigestGraph
    ) -> None:
        only_a, _ = graph.scopes()
        items = reads.digest([graph.a], SINCE, UNTIL, 50, only_a).items
        by_event = {(i["event_type"], i["node"]["id"]): i for i in items}
        version = graph.model_version()
        approved = by_event["model.version.status.changed", version]
        assert approved == {
            **graph.item("m-approved", BOB),
            "node": {"id": version, "name": "m", "version": "1", "status": "approved",
                     "feedback_model_version": None},
            "status_at": {"approved": graph.at("m-approved")},
        }  # fmt: skip
        feedback = by_event["deployment.feedback.recorded", graph.deployment("api")]
        assert feedback["node"]["feedback_model_version"] == version
        assert (feedback["node"]["name"], feedback["node"]["status"]) == ("api", "active")
        web2 = by_event["dataset.version.created", graph.dataset_version("web", "v2")]
        assert web2 == {
            **graph.item("web2", ALICE),
            "node": {"id": graph.dataset_version("web", "v2"), "name": "web", "version": "v2",
                     "status": None, "feedback_model_version": None},
            "status_at": {},
        }  # fmt: skip

    def test_runs_and_items_of_unreadable_projects_are_missing(
        self, reads: DigestReads, graph: DigestGraph
    ) -> None:
        only_a, both = graph.scopes()
        mine = reads.digest([graph.a], SINCE, UNTIL, 50, only_a)
        assert reads.digest([graph.a, graph.b], SINCE, UNTIL, 50, only_a) == mine
        assert reads.digest([graph.b], SINCE, UNTIL, 50, only_a) == DigestRecords([], [], False)
        assert reads.digest([graph.a], SINCE, UNTIL, 50, Scope(frozenset())).runs == []
        every = reads.digest([graph.a, graph.b], SINCE, UNTIL, 50, both)
        assert ids(every.runs) == graph.latest_first(*IN_WINDOW, "spy")
        assert [i["node"]["id"] for i in every.items] == graph.item_nodes(*ITEMS, "leak")

    def test_limits_cap_runs_and_items_and_say_truncated(
        self, reads: DigestReads, graph: DigestGraph
    ) -> None:
        only_a, _ = graph.scopes()
        every = reads.digest([graph.a], SINCE, UNTIL, 50, only_a)
        capped = reads.digest([graph.a], SINCE, UNTIL, LIMIT, only_a)
        assert min(len(every.runs), len(every.items)) >= 3 * LIMIT
        assert (capped.runs, capped.items) == (every.runs[:LIMIT], every.items[:LIMIT])
        assert capped.truncated is True
        runs_only = reads.digest([graph.a], SINCE, UNTIL, len(every.runs), only_a)
        assert (len(runs_only.items), runs_only.truncated) == (len(every.runs), True)
        exact = reads.digest([graph.a], SINCE, UNTIL, len(every.items), only_a)
        assert (exact.runs, exact.items, exact.truncated) == (every.runs, every.items, False)

    def test_an_empty_window_keeps_the_runs_still_running(
        self, reads: DigestReads, graph: DigestGraph
    ) -> None:
        only_a, _ = graph.scopes()
        # `future` is running too, but starts at the end of the window.
        found = reads.digest([graph.a], UNTIL, UNTIL, 50, only_a)
        assert (ids(found.runs), found.items) == ([graph.run("running")], [])

    # ---- the checkpoint advice -----------------------------------------------------------------

    def test_advice_for_a_run_with_its_checkpoints_and_resumptions(
        self, reads: DigestReads, graph: DigestGraph
    ) -> None:
        only_a, both = graph.scopes()
        found = reads.advice_runs("run", graph.run("done"), 10, 3, only_a)
        assert (found.found, ids(found.runs), found.truncated) == (True, [graph.run("done")], False)
        done = settled(found.runs[0])
        assert set(done) == ADVICE_RUN
        assert {k: done[k] for k in ADVICE_RUN - {"resources", "checkpoints", "resumed_by"}} == {
            **graph.run_fields("done"),
            "status": "completed",
            "run_number": 1,
            "lifecycle": graph.lifecycle("done", ALICE),
        }
        assert done["checkpoints"] == graph.checkpoints["done"][:3]
        assert done["resumed_by"] == [graph.run("forked")]
        [theirs] = reads.advice_runs("run", graph.run("done"), 10, 3, both).runs
        assert theirs["resumed_by"] == sorted([graph.run("forked"), graph.run("spy")])
        [resumed] = reads.advice_runs("run", graph.run("resumed"), 10, 3, only_a).runs
        assert resumed["resumed_by"] == [graph.run("resumed")]  # from its own checkpoint

    def test_checkpoints_are_the_first_saved_and_of_readable_projects(
        self, reads: DigestReads, graph: DigestGraph
    ) -> None:
        only_a, both = graph.scopes()
        for cap in (1, 2, 50):
            [done] = reads.advice_runs("run", graph.run("done"), 10, cap, only_a).runs
            assert done["checkpoints"] == graph.checkpoints["done"][:cap]
        [mine] = reads.advice_runs("run", graph.run("running"), 10, 50, only_a).runs
        [every] = reads.advice_runs("run", graph.run("running"), 10, 50, both).runs
        assert [c["id"] for c in mine["checkpoints"]] == []
        assert [c["id"] for c in every["checkpoints"]] == [graph.their_checkpoint]

    def test_advice_for_an_experiment_or_a_project_latest_runs_first(
        self, reads: DigestReads, graph: DigestGraph
    ) -> None:
        only_a, both = graph.scopes()
        sweep = graph.latest_first(*(f"s{i}" for i in range(1, 10)))
        found = reads.advice_runs("experiment", graph.experiment("sweep"), LIMIT, 1, only_a)
        assert (found.found, ids(found.runs), found.truncated) == (True, sweep[:LIMIT], True)
        found = reads.advice_runs("experiment", graph.experiment("sweep"), 9, 1, only_a)
        assert (ids(found.runs), found.truncated) == (sweep, False)
        found = reads.advice_runs("experiment", graph.experiment("exp"), 50, 1, both)
        assert ids(found.runs) == graph.latest_first(*graph.live_of("exp"))  # not `deleted`
        project = graph.latest_first(*graph.live_runs())  # the mentioned `ghost` too
        found = reads.advice_runs("project", graph.a, 50, 1, only_a)
        assert (found.found, ids(found.runs), found.truncated) == (True, project, False)
        found = reads.advice_runs("project", graph.a, LIMIT, 1, only_a)
        assert (ids(found.runs), found.truncated) == (project[:LIMIT], True)

    def test_advice_for_missing_unreadable_and_deleted_targets(
        self, reads: DigestReads, graph: DigestGraph
    ) -> None:
        only_a, both = graph.scopes()
        nothing = AdviceRecords(False, [], False)
        for kind, target in (
            ("run", "run:nowhere"),
            ("run", graph.run("spy")),
            ("experiment", graph.experiment("nope")),
            ("project", graph.b),
            ("project", "nowhere"),
        ):
            assert reads.advice_runs(kind, target, 10, 1, only_a) == nothing, (kind, target)
        assert ids(reads.advice_runs("run", graph.run("spy"), 10, 1, both).runs) == [
            graph.run("spy")
        ]
        assert ids(reads.advice_runs("project", graph.b, 10, 1, both).runs) == [graph.run("spy")]
        # A deleted run is found, and answers no run.
        assert reads.advice_runs("run", graph.run("deleted"), 10, 1, only_a) == AdviceRecords(
            True, [], False
        )
        with pytest.raises(ValueError, match="kind"):
            reads.advice_runs("dataset", graph.run("done"), 10, 1, only_a)

    def test_advice_never_walks_through_an_unreadable_experiment(
        self, reads: DigestReads, graph: DigestGraph
    ) -> None:
        only_a, both = graph.scopes()
        theirs = graph.experiment("exp", graph.b)  # a's `aborted` is part of it
        assert reads.advice_runs("experiment", theirs, 10, 1, only_a) == AdviceRecords(
            False, [], False
        )
        found = reads.advice_runs("experiment", theirs, 10, 1, both)
        assert (found.found, ids(found.runs)) == (True, graph.latest_first("aborted", "spy"))

    def test_resumptions_are_never_reached_through_an_unreadable_checkpoint(
        self, reads: DigestReads, graph: DigestGraph
    ) -> None:
        only_a, both = graph.scopes()
        # b's checkpoint of a's `running`, from which a's `aborted` resumed.
        [mine] = reads.advice_runs("run", graph.run("running"), 10, 50, only_a).runs
        [every] = reads.advice_runs("run", graph.run("running"), 10, 50, both).runs
        assert (mine["resumed_by"], every["resumed_by"]) == ([], [graph.run("aborted")])
