"""`CompareReads` in memory: each experiment's runs, and runs by id, as compare records."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from provgraph.query.read.compare_reads import ComparedRuns
from provgraph.query.read.model import Scope
from provgraph.schemas import parse_id

Record = dict[str, Any]


def _readable(record: Record, scope: Scope) -> bool:
    return scope.allows(record["run"].get("project"))


class FakeCompareReads:
    """`experiments` maps an experiment id to its live runs, highest number first; `runs` are
    every run that may be named. A run is readable by its `project` (a run without one only
    by whoever reads everything), an experiment by the project of its id. Every call is kept
    as (experiment, ids, limit, scope)."""

    def __init__(
        self,
        experiments: Mapping[str, Sequence[Record]] | None = None,
        runs: Sequence[Record] = (),
    ) -> None:
        self.experiments = {k: list(v) for k, v in (experiments or {}).items()}
        self.runs = list(runs)
        self.asked: list[tuple[str | None, list[str], int, Scope]] = []

    def compared_runs(
        self, experiment: str | None, ids: Sequence[str], limit: int, scope: Scope
    ) -> ComparedRuns:
        self.asked.append((experiment, list(ids), limit, scope))
        found = experiment in self.experiments and scope.allows(parse_id(str(experiment)).project)
        listed = self.experiments.get(str(experiment), []) if found else []
        members = [r for r in listed if _readable(r, scope)][:limit]
        have = {r["run"]["id"] for r in members}
        named = [
            r
            for r in self.runs
            if r["run"]["id"] in ids and r["run"]["id"] not in have and _readable(r, scope)
        ]
        return ComparedRuns(found, len(members), members + named)
