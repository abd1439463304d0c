"""`DigestReads` in memory, over the graph as the writer stores it (`fakes.stored`)."""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from typing import Any

from fakes.stored import StoredGraph, StoredNode, live, visible
from provgraph.ingest.projection import EventRecord
from provgraph.ingest.tools.memory_graph import MemoryGraph
from provgraph.query.read.compare_reads import GATES_KEY
from provgraph.query.read.digest_reads import (
    ADVICE_KINDS,
    DIGEST_ITEM_TYPES,
    RUN_LIFECYCLE,
    TRAIN_ROLE,
    AdviceRecords,
    DigestRecords,
    digest_item,
    digest_run,
)
from provgraph.query.read.model import Scope
from provgraph.schemas.graph import Label, Rel
from provgraph.schemas.storage import FIRST_SEEN_AT, LAST_EVENT_AT, PROJECT

# What `digest_reads.DIGEST` and `checkpoint_runs` answer of a run, besides the maps built below.
_ADVICE_RUN = ("id", "name", "run_number", "status", "started_at", "ended_at", LAST_EVENT_AT)
_DIGEST_RUN = (*_ADVICE_RUN, PROJECT, "conclusion", "error_type", "error_message", "abort_reason")
_ITEM_NODE = ("id", "name", "version", "status", "feedback_model_version")
_ITEM_LABELS = (Label.DATASET_VERSION, Label.MODEL_VERSION, Label.DEPLOYMENT)
_STATUS_AT = "status_at."


def _start(run: StoredNode) -> str:
    return str(run.get("started_at") or run[FIRST_SEEN_AT])


def _latest_first(runs: Iterable[StoredNode]) -> list[StoredNode]:
    """By start (or first sight) descending, then by id."""
    return sorted(sorted(runs, key=lambda r: r.id), key=_start, reverse=True)


def _in_window(run: StoredNode, since: str, until: str) -> bool:
    """Started before `until`, and running or started, ended or resumed since `since`."""
    moved = (run.get(k) for k in ("started_at", "ended_at", "resumed_at"))
    return _start(run) < until and (
        run.get("status") == "running" or any(t is not None and t >= since for t in moved)
    )


def _oldest_first(events: Iterable[EventRecord]) -> list[EventRecord]:
    return sorted(events, key=lambda e: (e.occurred_at, e.event_id))


class FakeDigestReads:
    """The digest's runs and items and the checkpoint advice's runs, matched as
    `digest_reads.DIGEST` and `checkpoint_runs` match them (tests/contracts/digest_reads.py
    holds both to the same answers), but where the reader breaks the contract: lifecycles
    oldest first, and no unreadable experiment or checkpoint walked through (the expected
    failures of tests/integration/query/test_digest_reads_contract_neo4j.py). Every call's
    arguments are kept in `asked`."""

    def __init__(self, graph: MemoryGraph | None = None) -> None:
        self.graph = StoredGraph(graph)
        self.asked: list[dict[str, Any]] = []

    def digest(
        self, projects: Sequence[str], since: str, until: str, limit: int, scope: Scope
    ) -> DigestRecords:
        self.asked.append(
            {"projects": list(projects), "since": since, "until": until, "limit": limit,
             "scope": scope}
        )  # fmt: skip
        runs = _latest_first(
            r for r in self._readable(Label.RUN, projects, scope) if _in_window(r, since, until)
        )
        items = sorted(self._items(projects, since, until, scope), key=lambda i: i[0])
        return DigestRecords(
            [digest_run(self._digest_run(r, scope)) for r in runs[:limit]],
            [digest_item(item) for _, item in items[:limit]],
            len(runs) > limit or len(items) > limit,
        )

    def advice_runs(
        self, kind: str, target: str, limit: int, checkpoints: int, scope: Scope
    ) -> AdviceRecords:
        if kind not in ADVICE_KINDS:
            raise ValueError(f"kind must be one of {ADVICE_KINDS}, got {kind!r}")
        self.asked.append({"kind": kind, "target": target, "limit": limit, "scope": scope})
        runs = _latest_first(r for r in self._advised(kind, target, scope) if visible(r, scope))
        answered = [digest_run(self._advice_run(r, checkpoints, scope)) for r in runs[:limit]]
        found = bool(runs) if kind == "project" else self._found(target, scope)
        return AdviceRecords(found, answered, len(runs) > limit)

    def _found(self, target: str, scope: Scope) -> bool:
        node = self.graph.node(target)
        return node is not None and visible(node, scope)

    # ---- the digest ------------------------------------------------------------------------

    def _readable(
        self, label: Label | tuple[Label, ...], projects: Sequence[str], scope: Scope
    ) -> Iterator[StoredNode]:
        labels = label if isinstance(label, tuple) else (label,)
        for node in self.graph.nodes(*labels):
            if node[PROJECT] in projects and visible(node, scope) and live(node):
                yield node

    def _items(
        self, projects: Sequence[str], since: str, until: str, scope: Scope
    ) -> Iterator[tuple[tuple[str, str], dict[str, Any]]]:
        """Each item with its order (time, event id)."""
        for node in self._readable(_ITEM_LABELS, projects, scope):
            if node[LAST_EVENT_AT] < since:
                continue
            for e in self.graph.touching(node.id):
                if (
                    e.subject == node.id
                    and e.event_type in DIGEST_ITEM_TYPES
                    and since <= e.occurred_at < until
                    and scope.allows(e.project)
                ):
                    yield (e.occurred_at, e.event_id), _item(e, node)

    def _digest_run(self, run: StoredNode, scope: Scope) -> dict[str, Any]:
        experiments = self.graph.targets(run.id, Rel.PART_OF, Label.EXPERIMENT)
        readable = [{"id": x.id, "key": x.get("key")} for x in experiments if visible(x, scope)]
        return {
            **{k: run.get(k) for k in _DIGEST_RUN},
            "resources": run.get("resources_json"),
            "experiment": readable[0] if readable else None,
            "lifecycle": self._lifecycle(run, scope),
            "trained_on": self._trained_on(run, scope),
        }

    def _trained_on(self, run: StoredNode, scope: Scope) -> list[dict[str, Any]]:
        """The readable dataset versions `run` USED with role train, by id."""
        found = {
            d
            for (s, rel, d, _), props in self.graph.memory.edges.items()
            if s == run.id and rel == Rel.USED.value and props.get("role") == TRAIN_ROLE
        }
        versions = (self.graph.node(d, Label.DATASET_VERSION) for d in sorted(found))
        return [
            {"role": TRAIN_ROLE, "id": v.id, "gates": v.get(GATES_KEY)}
            for v in versions
            if v is not None and visible(v, scope)
        ]

    def _lifecycle(self, run: StoredNode, scope: Scope) -> list[dict[str, Any]]:
        events = (
            e
            for e in self.graph.touching(run.id)
            if e.subject == run.id and e.event_type in RUN_LIFECYCLE and scope.allows(e.project)
        )
        return [
            {"type": e.event_type, "at": e.occurred_at, "actor": e.actor, "principal": e.principal}
            for e in _oldest_first(events)
        ]

    # ---- the checkpoint advice -------------------------------------------------------------

    def _advised(self, kind: str, target: str, scope: Scope) -> list[StoredNode]:
        """The live runs of the target, readable or not (the caller filters)."""
        if kind == "run":
            found = [self.graph.node(target, Label.RUN)]
        elif kind == "experiment":
            experiment = self.graph.node(target, Label.EXPERIMENT)
            # An unreadable experiment is not walked through to its runs.
            readable = experiment is not None and visible(experiment, scope)
            found = list(self.graph.sources(target, Rel.PART_OF, Label.RUN)) if readable else []
        else:
            found = [r for r in self.graph.nodes(Label.RUN) if r[PROJECT] == target]
        return [r for r in found if r is not None and live(r)]

    def _advice_run(self, run: StoredNode, checkpoints: int, scope: Scope) -> dict[str, Any]:
        # Readable checkpoints only, for the answer and for the runs resumed from them.
        saved = [
            c for c in self.graph.sources(run.id, Rel.GENERATED_BY, Label.CHECKPOINT)
            if visible(c, scope)
        ]  # fmt: skip
        saved.sort(key=lambda c: (c.get("saved_at") is None, c.get("saved_at") or "", c.id))
        resumed = {
            n.id
            for c in saved
            for n in self.graph.sources(c.id, Rel.RESUMED_FROM, Label.RUN)
            if visible(n, scope)
        }
        return {
            **{k: run.get(k) for k in _ADVICE_RUN},
            "resources": run.get("resources_json"),
            "lifecycle": self._lifecycle(run, scope),
            "checkpoints": [
                {k: c.get(k) for k in ("id", "step", "saved_at", "save_seconds", "size_bytes")}
                for c in saved[:checkpoints]
            ],
            "resumed_by": sorted(resumed),
        }


def _item(event: EventRecord, node: StoredNode) -> dict[str, Any]:
    return {
        "event_type": event.event_type,
        "at": event.occurred_at,
        "actor": event.actor,
        "principal": event.principal,
        "node": {k: node.get(k) for k in _ITEM_NODE},
        "status_at": [
            [k[len(_STATUS_AT) :], v] for k, v in node.items() if k.startswith(_STATUS_AT)
        ],
    }
