"""`CompareReads` in memory: an experiment's runs and named runs answered from nodes and edges
as `CompareReader`'s Cypher answers them (tests/contracts/compare_reads.py holds the two to the
same answers)."""

from __future__ import annotations

from collections.abc import ItemsView, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from support.contract_graphs_recipes import ViewGraph, stored

from provgraph.query.read.compare_reads import GATES_KEY, ComparedRuns
from provgraph.query.read.convert import node_view
from provgraph.query.read.model import EdgeView, NodeView, Scope
from provgraph.schemas import parse_id
from provgraph.schemas.graph import Label, Rel
from provgraph.schemas.storage import FIRST_SEEN_AT

Record = dict[str, Any]


def _newest_first(run: NodeView) -> tuple[Any, ...]:
    """The key of the members' order, taken in reverse: highest number, then latest start, then
    highest id (a missing start sorts first, as a null does in Cypher's descending order)."""
    props = stored(run)
    number, started = props.get("run_number"), props.get("started_at")
    started = started if started is not None else props.get(FIRST_SEEN_AT)
    return (number if number is not None else -1, started is None, started or "", run.id)


def _latest_started(run: NodeView) -> tuple[str, str]:
    """The key of `project_runs`' order, taken in reverse: start (else first seen), then id."""
    props = stored(run)
    return str(props.get("started_at") or props.get(FIRST_SEEN_AT) or ""), run.id


class FakeCompareReads:
    """The graph of `nodes` and `edges` (none by default: every experiment and run is
    missing). Every call is kept: `asked` (experiment, ids, limit, scope) and
    `asked_projects` (project, limit, scope)."""

    def __init__(self, nodes: Sequence[NodeView] = (), edges: Sequence[EdgeView] = ()) -> None:
        self.graph = ViewGraph(nodes, edges)
        self.asked: list[tuple[str | None, list[str], int, Scope]] = []
        self.asked_projects: list[tuple[str, int, Scope]] = []

    @classmethod
    def from_records(
        cls, experiments: Mapping[str, Sequence[Record]], runs: Sequence[Record] = ()
    ) -> FakeCompareReads:
        """The graph that the compare records say: each experiment's runs, and `runs` that
        may be named (a node's project is the one its properties store)."""
        graph = _RecordGraph()
        for experiment, members in experiments.items():
            project = parse_id(experiment).project
            graph.node(Label.EXPERIMENT, {"id": experiment, "project": project}, whole=True)
            for record in members:
                graph.run(record, experiment)
        for record in runs:
            graph.run(record, record.get("experiment"))
        return cls(list(graph.nodes.values()), list(graph.edges.values()))

    def compared_runs(
        self, experiment: str | None, ids: Sequence[str], limit: int, scope: Scope
    ) -> ComparedRuns:
        self.asked.append((experiment, list(ids), limit, scope))
        found = self.graph.node(experiment, scope, Label.EXPERIMENT)
        members = self._members(found.id, scope)[:limit] if found is not None else []
        named = (self.graph.node(i, scope, Label.RUN) for i in dict.fromkeys(ids))
        have = {r.id for r in members}
        extra = [r for r in named if r is not None and r.id not in have]
        runs = [self._record(r, scope) for r in members + extra]
        return ComparedRuns(found is not None, len(members), runs)

    def project_runs(self, project: str, limit: int, scope: Scope) -> list[Record]:
        self.asked_projects.append((project, limit, scope))
        runs = [
            n
            for n in self.graph.every(scope, Label.RUN)
            if n.project == project
            and n.deleted_at is None
            and self.graph.targets(n.id, Rel.PART_OF, scope, Label.EXPERIMENT)
        ]
        runs.sort(key=_latest_started, reverse=True)
        return [self._record(r, scope) for r in runs[:limit]]

    def _members(self, experiment: str, scope: Scope) -> list[NodeView]:
        runs = self.graph.sources(experiment, Rel.PART_OF, scope, Label.RUN)
        live = [r for _, r in runs if r.deleted_at is None]
        return sorted(live, key=_newest_first, reverse=True)

    def record(self, run: NodeView, scope: Scope) -> Record:
        """A run and what is one step upstream of it, as `read.compare_reads.compared_run`
        answers it (the scale-up read's fake shares it)."""
        return self._record(run, scope)

    def _record(self, run: NodeView, scope: Scope) -> Record:
        """A run and what is one step upstream of it (lists in no promised order)."""
        graph, r = self.graph, run.id
        experiments = graph.targets(r, Rel.PART_OF, scope, Label.EXPERIMENT)
        used = graph.targets(r, Rel.USED, scope, Label.DATASET_VERSION)
        bases = graph.targets(r, Rel.STARTED_FROM, scope, Label.MODEL_VERSION, Label.CHECKPOINT)
        resumed = graph.targets(r, Rel.RESUMED_FROM, scope, Label.CHECKPOINT)
        return {
            "run": stored(run),
            "experiment": experiments[0][1].id if experiments else None,
            "inputs": [
                {"role": e.props.get("role"), "id": d.id, "gates": stored(d).get(GATES_KEY)}
                for e, d in used
            ],
            "environments": [
                stored(n) for _, n in graph.targets(r, Rel.RAN_IN, scope, Label.ENVIRONMENT)
            ],
            "bases": [{"id": b.id, "type": b.type} for _, b in bases],
            "resumes": [
                {"id": c.id, "step": c.props.get("step"), "run": self._maker(c.id, scope)}
                for _, c in resumed
            ],
        }

    def _maker(self, checkpoint: str, scope: Scope) -> str | None:
        makers = self.graph.targets(checkpoint, Rel.GENERATED_BY, scope, Label.RUN)
        return makers[0][1].id if makers else None


@dataclass(frozen=True)
class _Said:
    """A node a record says, as the driver hands one to `convert.node_view`."""

    props: Mapping[str, Any]
    labels: frozenset[str]

    def items(self) -> ItemsView[str, Any]:
        return self.props.items()


class _RecordGraph:
    """Nodes and edges gathered from compare records; a node or edge said twice is kept once."""

    def __init__(self) -> None:
        self.nodes: dict[str, NodeView] = {}
        self.edges: dict[tuple[str, str, str, Any], EdgeView] = {}

    def node(self, label: Label, props: Mapping[str, Any], *, whole: bool = False) -> str:
        """The node of `props`; `whole` when they are all its properties (a record's own),
        which then replace what a mere reference to it said."""
        node_id = str(props["id"])
        if whole or node_id not in self.nodes:
            said = _Said(props, frozenset({Label.ENTITY.value, label.value}))
            self.nodes[node_id] = node_view(said)
        return node_id

    def edge(self, src: str, rel: Rel, dst: str, **props: Any) -> None:
        key = (src, rel.value, dst, tuple(sorted(props.items())))
        self.edges.setdefault(key, EdgeView(src, dst, rel.value, props))

    def run(self, record: Mapping[str, Any], experiment: str | None) -> None:
        run = self.node(Label.RUN, record["run"], whole=True)
        if experiment is not None:
            self.edge(run, Rel.PART_OF, self.node(Label.EXPERIMENT, {"id": experiment}))
        for used in record.get("inputs", ()):
            gates = {GATES_KEY: used["gates"]} if used.get("gates") is not None else {}
            version = self.node(Label.DATASET_VERSION, {"id": used["id"], **gates})
            self.edge(run, Rel.USED, version, role=used["role"])
        for environment in record.get("environments", ()):
            self.edge(run, Rel.RAN_IN, self.node(Label.ENVIRONMENT, environment, whole=True))
        for base in record.get("bases", ()):
            self.edge(run, Rel.STARTED_FROM, self.node(Label(base["type"]), {"id": base["id"]}))
        for resume in record.get("resumes", ()):
            step = {"step": resume["step"]} if resume.get("step") is not None else {}
            checkpoint = self.node(Label.CHECKPOINT, {"id": resume["id"], **step})
            self.edge(run, Rel.RESUMED_FROM, checkpoint)
            if resume.get("run") is not None:
                maker = self.node(Label.RUN, {"id": resume["run"]})
                self.edge(checkpoint, Rel.GENERATED_BY, maker)
