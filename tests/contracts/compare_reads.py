"""The `CompareReads` contract: the read of `compare` (an experiment's latest runs and named
runs, each with what is one step upstream of it), every adapter held to the same answers.

`CompareReadsContract` runs against `FakeCompareReads`
(tests/unit/query/test_compare_reads_contract_fake.py) and `CompareReader` over the real Neo4j
(tests/integration/query/test_compare_reads_contract_neo4j.py), each over `compare_graph`: two
projects with edges between them. A run or experiment of an unreadable project is answered like
a missing one, and nothing upstream of a run that the caller may not read is shown. Project
names are parameters; the members' order is computed from the graph (highest number, a missing
number as -1, then latest start, else first seen, then highest id), never written out. What the
port does not order (the named runs after the members, the lists inside a record) is compared
as a collection.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from support.contract_graphs_recipes import KeyedGraph, at

from provgraph.query.read.compare_reads import ComparedRuns, CompareReads
from provgraph.query.read.model import Scope
from provgraph.schemas.graph import Label, Rel
from provgraph.schemas.storage import FIRST_SEEN_AT, encode_json

LIMIT = 3  # the experiment has several times more runs than this
NOWHERE = "run:nowhere-1"
_LISTS = ("inputs", "environments", "bases", "resumes")
_WEB_GATES = encode_json({"checks": [{"name": "dedup", "passed": False, "value": 0.4}]})

# key: (run number, start minute, first-seen minute); first seen runs against the start, so
# that an order by the wrong time is seen. Two pairs tie: on the number, and on number and start.
_MEMBERS: dict[str, tuple[int | None, int | None, int]] = {
    **{f"n{i}": (i, 10 * i, 200 - i) for i in range(1, 10)},
    "n7-later": (7, 75, 100),
    "n3-twin": (3, 30, 150),
    "n5-unstarted": (5, None, 55),  # its first-seen time stands in for its start
    "unnumbered": (None, 500, 300),  # sorts as number -1: last
}


def _members(g: KeyedGraph) -> None:
    g.add("x", Label.EXPERIMENT, "experiment:{a}/sweep", key="sweep", number=1)
    for key, (number, start, seen) in _MEMBERS.items():
        props: dict[str, Any] = {"name": key, "status": "completed"}
        if number is not None:
            props["run_number"] = number
        if start is not None:
            props["started_at"] = at(start)
        g.add(key, Label.RUN, f"run:{{a}}-{key}", at(seen), **props)
        g.link(key, Rel.PART_OF, "x")
    g.add("deleted", Label.RUN, "run:{a}-deleted", run_number=99)
    g.mark("deleted", deleted=at(600))
    g.add("theirs", Label.RUN, "run:{b}-n10", at(1), run_number=10, started_at=at(1))
    for key in ("deleted", "theirs"):  # a deleted member, and a member of project b
        g.link(key, Rel.PART_OF, "x")


def _upstream(g: KeyedGraph) -> None:
    """What is one step upstream of n9 (the top member a reader of `a` sees)."""
    g.add("web1", Label.DATASET_VERSION, "dataset:{a}/web@v1", name="web", version="v1",
          quality_gates_json=_WEB_GATES)  # fmt: skip
    g.add("held", Label.DATASET_VERSION, "dataset:{a}/heldout@v1", name="heldout")
    g.add("secret", Label.DATASET_VERSION, "dataset:{b}/secret@v1", name="secret")
    for dst, role in (("web1", "train"), ("held", "validation"), ("secret", "train")):
        g.link("n9", Rel.USED, dst, role=role)
    packages = {"packages_json": encode_json({"torch": "2.5.1"}), "package.torch": "2.5.1"}
    g.add("env", Label.ENVIRONMENT, "environment:{a}/img", image_name="trainer", **packages)
    g.add("envb", Label.ENVIRONMENT, "environment:{b}/img", image_name="spy")
    g.add("chat", Label.MODEL_VERSION, "model:{a}/chat@1", name="chat", version="1")
    g.add("ckb", Label.CHECKPOINT, "checkpoint:{b}-n10/10", step=10)
    g.add("ck3", Label.CHECKPOINT, "checkpoint:{a}-n3/50", step=50)
    g.add("ckx", Label.CHECKPOINT, "checkpoint:{a}-n8/20", step=20)
    g.add("orphan", Label.CHECKPOINT, "checkpoint:{a}-lost/1")
    g.mark("orphan", placeholder=True)
    g.link("ck3", Rel.GENERATED_BY, "n3")
    g.link("ckb", Rel.GENERATED_BY, "theirs")
    g.link("ckx", Rel.GENERATED_BY, "theirs")  # a's checkpoint, made by b's run
    for key, rel in (
        ("env", Rel.RAN_IN),
        ("envb", Rel.RAN_IN),
        ("chat", Rel.STARTED_FROM),
        ("ckb", Rel.STARTED_FROM),
        ("web1", Rel.STARTED_FROM),  # a dataset version is no base
        ("ck3", Rel.RESUMED_FROM),
        ("ckb", Rel.RESUMED_FROM),
        ("ckx", Rel.RESUMED_FROM),
        ("orphan", Rel.RESUMED_FROM),
    ):
        g.link("n9", rel, key)


def _others(g: KeyedGraph) -> None:
    """Runs outside `x`: one in no experiment, one in b's experiment, b's run there."""
    g.add("xb", Label.EXPERIMENT, "experiment:{b}/spy", key="spy", number=1)
    g.add("lone", Label.RUN, "run:{a}-lone", at(5), name="lone")
    g.add("bx", Label.RUN, "run:{a}-bx", at(6), run_number=1)
    g.add("spy", Label.RUN, "run:{b}-spy", at(7), run_number=1)
    g.link("lone", Rel.USED, "web1", role="train")
    for key in ("bx", "spy"):
        g.link(key, Rel.PART_OF, "xb")


def compare_graph(a: str, b: str) -> KeyedGraph:
    """Project `a`: experiment `x` with thirteen live runs (ties included), a deleted one, and
    runs outside it; project `b`: a run in `x`, its checkpoints, an experiment of its own."""
    graph = KeyedGraph(a, b)
    _members(graph)
    _upstream(graph)
    _others(graph)
    return graph


def _input(graph: KeyedGraph, key: str, role: str = "train") -> dict[str, Any]:
    """The input {role, id, gates} of a run that USED node `key` (web1 alone has gates)."""
    return {"role": role, "id": graph.id(key), "gates": _WEB_GATES if key == "web1" else None}


def _canonical(record: dict[str, Any]) -> dict[str, Any]:
    """The record with each of its lists in one order (the port promises none)."""
    lists = {k: sorted(record[k], key=lambda v: json.dumps(v, sort_keys=True)) for k in _LISTS}
    return {**record, **lists}


def _answer(found: ComparedRuns) -> tuple[bool, int, list[Any], list[Any]]:
    """(found, members, the members' records in order, the named runs' records by id)."""
    members = [_canonical(r) for r in found.runs[: found.members]]
    named = sorted(found.runs[found.members :], key=lambda r: str(r["run"]["id"]))
    return found.experiment_found, found.members, members, [_canonical(r) for r in named]


class CompareReadsContract:
    """What every `CompareReads` adapter answers on `compare_graph`. Subclasses provide
    `graph` (loaded into the adapter under test) and `reads` (the adapter)."""

    @pytest.fixture()
    def graph(self) -> KeyedGraph:
        raise NotImplementedError("each adapter's test class loads the contract graph")

    @pytest.fixture()
    def reads(self, graph: KeyedGraph) -> CompareReads:
        raise NotImplementedError("each adapter's test class provides its reads")

    @staticmethod
    def _newest_first(graph: KeyedGraph, *keys: str) -> list[str]:
        """`keys` in the members' order."""

        def rank(key: str) -> tuple[Any, ...]:
            props = graph.props(key)
            started = props.get("started_at") or props[FIRST_SEEN_AT]
            return props.get("run_number", -1), started, props["id"]

        return sorted(keys, key=rank, reverse=True)

    @staticmethod
    def _bare(graph: KeyedGraph, key: str, experiment: str | None = "x") -> dict[str, Any]:
        """The record of a run with nothing upstream but its experiment."""
        return {
            "run": graph.props(key),
            "experiment": graph.id(experiment) if experiment is not None else None,
            **{k: [] for k in _LISTS},
        }

    def _members(self, graph: KeyedGraph, *, with_b: bool) -> list[str]:
        keys = [*_MEMBERS, "theirs"] if with_b else list(_MEMBERS)
        return self._newest_first(graph, *keys)

    def test_the_latest_runs_highest_number_first_cut_at_the_limit(
        self, reads: CompareReads, graph: KeyedGraph
    ) -> None:
        only_a, both = graph.scopes()
        for scope, with_b in ((only_a, False), (both, True)):
            latest = self._members(graph, with_b=with_b)[:LIMIT]
            found = _answer(reads.compared_runs(graph.id("x"), [], LIMIT, scope))
            assert found[:2] == (True, LIMIT)
            assert [r["run"]["id"] for r in found[2]] == [graph.id(k) for k in latest]
            assert found[3] == []

    def test_every_live_readable_member_in_order(
        self, reads: CompareReads, graph: KeyedGraph
    ) -> None:
        only_a, both = graph.scopes()
        for scope, with_b in ((only_a, False), (both, True)):
            order = self._members(graph, with_b=with_b)
            found = _answer(reads.compared_runs(graph.id("x"), [], 100, scope))
            assert found[:2] == (True, len(order))
            assert [r["run"]["id"] for r in found[2]] == [graph.id(k) for k in order]
        found = _answer(reads.compared_runs(graph.id("x"), [], 1, only_a))
        assert [r["run"]["id"] for r in found[2]] == [graph.id("n9")]

    def test_named_runs_follow_the_members_once(
        self, reads: CompareReads, graph: KeyedGraph
    ) -> None:
        only_a, _ = graph.scopes()
        latest = self._members(graph, with_b=False)[:LIMIT]
        oldest = self._members(graph, with_b=False)[-1]
        named = [graph.id(k) for k in (latest[0], oldest, "lone", "deleted", "theirs", oldest)]
        named += [NOWHERE, graph.id("x"), graph.id("chat")]
        found = _answer(reads.compared_runs(graph.id("x"), named, LIMIT, only_a))
        assert found[:2] == (True, LIMIT)
        assert [r["run"]["id"] for r in found[2]] == [graph.id(k) for k in latest]
        extra = [self._bare(graph, oldest), self._bare(graph, "deleted")]
        extra.append({**self._bare(graph, "lone", None), "inputs": [_input(graph, "web1")]})
        assert found[3] == sorted(extra, key=lambda r: str(r["run"]["id"]))

    def test_without_an_experiment_only_the_named_runs(
        self, reads: CompareReads, graph: KeyedGraph
    ) -> None:
        only_a, both = graph.scopes()
        named = [graph.id(k) for k in ("bx", "spy")]
        assert _answer(reads.compared_runs(None, named, LIMIT, only_a)) == (
            False,
            0,
            [],
            [self._bare(graph, "bx", None)],
        )
        found = _answer(reads.compared_runs(None, named, LIMIT, both))
        pair = [self._bare(graph, "bx", "xb"), self._bare(graph, "spy", "xb")]
        assert found == (False, 0, [], sorted(pair, key=lambda r: str(r["run"]["id"])))
        assert _answer(reads.compared_runs(None, [], LIMIT, both)) == (False, 0, [], [])

    def test_a_missing_or_unreadable_experiment_is_not_found(
        self, reads: CompareReads, graph: KeyedGraph
    ) -> None:
        only_a, both = graph.scopes()
        lone = graph.id("lone")
        assert _answer(reads.compared_runs("experiment:nowhere/x", [], LIMIT, both)) == (
            False,
            0,
            [],
            [],
        )
        found = _answer(reads.compared_runs(graph.id("xb"), [lone], LIMIT, only_a))
        assert found[:3] == (False, 0, [])
        assert [r["run"]["id"] for r in found[3]] == [lone]
        mine = _answer(reads.compared_runs(graph.id("xb"), [], LIMIT, both))
        assert mine[:2] == (True, 2)
        order = self._newest_first(graph, "bx", "spy")
        assert [r["run"]["id"] for r in mine[2]] == [graph.id(k) for k in order]
        nobody = _answer(reads.compared_runs(graph.id("x"), [lone], LIMIT, Scope(frozenset())))
        assert nobody == (False, 0, [], [])

    def test_a_run_with_what_is_one_step_upstream_in_scope(
        self, reads: CompareReads, graph: KeyedGraph
    ) -> None:
        only_a, both = graph.scopes()

        def checkpoint(key: str, run: str | None) -> dict[str, Any]:
            props = graph.props(key)
            maker = graph.id(run) if run is not None else None
            return {"id": props["id"], "step": props.get("step"), "run": maker}

        def base(key: str) -> dict[str, Any]:
            return {"id": graph.id(key), "type": graph.nodes[key].type}

        def env(key: str) -> dict[str, Any]:
            return graph.props(key)

        mine = {
            "run": graph.props("n9"),
            "experiment": graph.id("x"),
            "inputs": [_input(graph, "web1"), _input(graph, "held", "validation")],
            "environments": [env("env")],
            "bases": [base("chat")],
            "resumes": [
                checkpoint("ck3", "n3"),
                checkpoint("ckx", None),
                checkpoint("orphan", None),
            ],
        }
        top = _answer(reads.compared_runs(graph.id("x"), [], 1, only_a))[2]
        assert top == [_canonical(mine)]
        everything = {
            **mine,
            "inputs": [*mine["inputs"], _input(graph, "secret")],
            "environments": [env("env"), env("envb")],
            "bases": [base("chat"), base("ckb")],
            "resumes": [
                checkpoint("ck3", "n3"),
                checkpoint("ckx", "theirs"),
                checkpoint("orphan", None),
                checkpoint("ckb", "theirs"),
            ],
        }
        named = _answer(reads.compared_runs(None, [graph.id("n9")], 1, both))[3]
        assert named == [_canonical(everything)]

    @staticmethod
    def _latest_started(graph: KeyedGraph, *keys: str) -> list[str]:
        """`keys` in `project_runs`' order: latest start (else first seen), then highest id."""

        def rank(key: str) -> tuple[str, str]:
            props = graph.props(key)
            return str(props.get("started_at") or props[FIRST_SEEN_AT]), str(props["id"])

        return sorted(keys, key=rank, reverse=True)

    def test_a_projects_runs_in_experiments_latest_started_first(
        self, reads: CompareReads, graph: KeyedGraph
    ) -> None:
        only_a, both = graph.scopes()
        a, b = graph.a, graph.b
        # lone is in no experiment, deleted is deleted, theirs is b's; bx is a's run in b's
        # experiment, seen only by a caller who may read b.
        for scope, keys in ((only_a, list(_MEMBERS)), (both, [*_MEMBERS, "bx"])):
            order = [graph.id(k) for k in self._latest_started(graph, *keys)]
            found = reads.project_runs(a, 100, scope)
            assert [r["run"]["id"] for r in found] == order
            cut = reads.project_runs(a, LIMIT, scope)
            assert [r["run"]["id"] for r in cut] == order[:LIMIT]
        assert [r["run"]["id"] for r in reads.project_runs(b, 100, both)] == [
            graph.id(k) for k in self._latest_started(graph, "spy", "theirs")
        ]
        assert reads.project_runs(b, 100, only_a) == []
        assert reads.project_runs("nowhere", 100, both) == []

    def test_a_projects_run_is_recorded_as_compare_records_it(
        self, reads: CompareReads, graph: KeyedGraph
    ) -> None:
        only_a, both = graph.scopes()
        for scope in (only_a, both):
            (compared,) = reads.compared_runs(None, [graph.id("n9")], 1, scope).runs
            listed = reads.project_runs(graph.a, 100, scope)
            (mine,) = [r for r in listed if r["run"]["id"] == graph.id("n9")]
            assert _canonical(mine) == _canonical(compared)
