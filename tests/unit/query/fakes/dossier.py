"""`DossierReads` in memory, over the graph as the writer stores it (`fakes.stored`)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from fakes.stored import StoredGraph, StoredNode, visible
from provgraph.ingest.projection import EventRecord
from provgraph.ingest.tools.memory_graph import MemoryGraph
from provgraph.query.read.digest_reads import RUN_LIFECYCLE, digest_run
from provgraph.query.read.dossier_reads import (
    MAX_DEPLOYMENTS,
    MAX_EVALUATIONS,
    REGISTERED_EVENT,
    STATUS_EVENT,
    Record,
    dataset_record,
)
from provgraph.query.read.model import Scope
from provgraph.schemas import issued_name
from provgraph.schemas.graph import Label, Rel
from provgraph.schemas.storage import (
    FIRST_SEEN_AT,
    LAST_EVENT_AT,
    PROJECT,
    json_key,
    public,
    version_key,
)

_RUN = ("id", PROJECT, "name", "run_number", "status", "started_at", "ended_at", LAST_EVENT_AT,
        FIRST_SEEN_AT, "conclusion", "error_type", "error_message", "abort_reason",
        "interruption_cause", "steps_lost", "resumed_at_step", "resumed_at",
        "final_step")  # fmt: skip
_EXPERIMENT = ("id", "key", "number", "code_name", "goal", "description")


class FakeDossierReads:
    """The dossier's reads matched as `dossier_reads`' Cypher matches them
    (tests/contracts/dossier_reads.py holds both to the same answers)."""

    def __init__(self, graph: MemoryGraph | None = None) -> None:
        self.graph = StoredGraph(graph)

    def _node(self, node_id: str, label: Label, scope: Scope) -> StoredNode | None:
        node = self.graph.node(node_id, label)
        return node if node is not None and visible(node, scope) else None

    def _events(self, node: StoredNode, kinds: Sequence[str], scope: Scope) -> list[Any]:
        found = [
            e
            for e in self.graph.touching(node.id)
            if e.subject == node.id and e.event_type in kinds and scope.allows(e.project)
        ]
        found.sort(key=lambda e: (e.occurred_at, e.event_id))
        return [self._event(e, node) for e in found]

    @staticmethod
    def _event(event: EventRecord, node: StoredNode) -> dict[str, Any]:
        held = str(node.get(version_key("status_reason")) or "").endswith(f"|{event.event_id}")
        return {"type": event.event_type, "event_id": event.event_id, "at": event.occurred_at,
                "actor": event.actor, "principal": issued_name(event.principal),
                "reason": node.get("status_reason") if held else None}  # fmt: skip

    def model_version(self, version_id: str, scope: Scope) -> Record | None:
        version = self._node(version_id, Label.MODEL_VERSION, scope)
        if version is None:
            return None
        models = [m for m in self.graph.targets(version.id, Rel.VERSION_OF, Label.MODEL)
                  if visible(m, scope)]  # fmt: skip
        return {
            "version": public(version),
            "model": {"id": models[0].id, "name": models[0].get("name")} if models else None,
            "events": self._events(version, (REGISTERED_EVENT, STATUS_EVENT), scope),
            "evaluations": self._evaluations(version, scope),
            "deployments": self._deployments(version, scope),
        }

    def _evaluations(self, version: StoredNode, scope: Scope) -> list[dict[str, Any]]:
        found = [x for x in self.graph.sources(version.id, Rel.EVALUATED, Label.EVALUATION)
                 if visible(x, scope)]  # fmt: skip
        found.sort(key=lambda x: x.id)
        found.sort(key=lambda x: str(x.get("evaluated_at")), reverse=True)
        kept = sorted(found[:MAX_EVALUATIONS], key=lambda x: (str(x.get("evaluated_at")), x.id))
        return [{"props": public(x),
                 "datasets": self._ids(x, Rel.USED, Label.DATASET_VERSION, scope),
                 "runs": self._ids(x, Rel.GENERATED_BY, Label.RUN, scope)}
                for x in kept]  # fmt: skip

    def _ids(self, src: StoredNode, rel: Rel, label: Label, scope: Scope) -> list[str]:
        return sorted(n.id for n in self.graph.targets(src.id, rel, label) if visible(n, scope))

    def _deployments(self, version: StoredNode, scope: Scope) -> list[dict[str, Any]]:
        shares: dict[str, Any] = {}
        for (src, rel), replaced in self.graph.memory.edge_sets.items():
            for target in replaced.targets:
                if rel == Rel.SERVES.value and target.id == version.id:
                    shares[src] = target.props.get("traffic_share")
        found = [self._node(d, Label.DEPLOYMENT, scope) for d in sorted(shares)]
        return [{"props": public(d), "traffic_share": shares[d.id]}
                for d in found if d is not None][:MAX_DEPLOYMENTS]  # fmt: skip

    def runs(self, ids: Sequence[str], scope: Scope) -> list[Record | None]:
        return [self._run(run_id, scope) for run_id in ids]

    def _run(self, run_id: str, scope: Scope) -> Record | None:
        run = self._node(run_id, Label.RUN, scope)
        if run is None:
            return None
        experiments = [x for x in self.graph.targets(run.id, Rel.PART_OF, Label.EXPERIMENT)
                       if visible(x, scope)]  # fmt: skip
        lifecycle = self._events(run, RUN_LIFECYCLE, scope)
        for event in lifecycle:
            del event["reason"]
        stored = {
            **{k: run.get(k) for k in _RUN},
            "resources": run.get(json_key("resources")),
            "experiment": {k: experiments[0].get(k) for k in _EXPERIMENT} if experiments else None,
            "lifecycle": lifecycle,
        }
        return digest_run(stored)

    def dataset_versions(self, ids: Sequence[str], scope: Scope) -> list[Record | None]:
        return [self._dataset(node_id, scope) for node_id in ids]

    def _dataset(self, node_id: str, scope: Scope) -> Record | None:
        node = self._node(node_id, Label.DATASET_VERSION, scope)
        if node is None:
            return None
        mix = [
            {"dataset_version": dst, "transform": props.get("transform"),
             "weight": props.get("weight")}
            for (src, rel, dst, _), props in self.graph.memory.edges.items()
            if src == node.id and rel == Rel.DERIVED_FROM.value
            and self._node(dst, Label.DATASET_VERSION, scope) is not None
        ]  # fmt: skip
        mix.sort(key=lambda part: str(part["dataset_version"]))
        row: Mapping[str, Any] = {"id": node.id, "mix": mix,
                                  "quality_gates": node.get(json_key("quality_gates"))}  # fmt: skip
        return dataset_record(row)
