"""`BestEnvReads` in memory: evaluation rows by model, environment snapshots, run rows."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from provgraph.query.read.best_env_reads import Record
from provgraph.query.read.model import Scope
from provgraph.schemas import parse_id


class FakeBestEnvReads:
    """`evaluations` maps (model id, metric) to its rows, `environments` a snapshot id to its
    properties, `paths` an (a, b) pair to the BASED_ON path between them; `runs` are rows
    {run, environment, hits, experiment}, oldest first. What is project-scoped is readable by
    its project."""

    def __init__(
        self,
        evaluations: Mapping[tuple[str, str], Sequence[Record]] | None = None,
        environments: Mapping[str, Record] | None = None,
        paths: Mapping[tuple[str, str], Record] | None = None,
        runs: Sequence[Record] = (),
    ) -> None:
        self.stored_evaluations = {k: list(v) for k, v in (evaluations or {}).items()}
        self.environments = dict(environments or {})
        self.paths = dict(paths or {})
        self.runs = list(runs)

    def evaluations(self, model: str, metric: str, fetch: int, scope: Scope) -> list[Record] | None:
        known = any(m == model for m, _ in self.stored_evaluations)
        if not known or not scope.allows(parse_id(model).project):
            return None
        rows = self.stored_evaluations.get((model, metric), [])
        return sorted(rows, key=lambda r: (r["version"], r["evaluation"]))[:fetch]

    def environment_pair(self, a: str, b: str, scope: Scope) -> Record:
        def snapshot(env_id: str) -> Any:
            found = self.environments.get(env_id)
            return found if found is not None and scope.allows(found.get("project")) else None

        left, right = snapshot(a), snapshot(b)
        path = self.paths.get((a, b)) if left is not None and right is not None else None
        return {"a": left, "b": right, "paths": [path] if path is not None else []}

    def runs_with(
        self,
        keys: Sequence[str],
        version: str | None,
        project: str | None,
        fetch: int,
        scope: Scope,
    ) -> list[Record]:
        def kept(row: Record) -> bool:
            hits = [h for h in row["hits"] if h["key"] in keys]
            run_project = row["run"].get("project")
            return (
                bool(hits)
                and (version is None or any(h["version"] == version for h in hits))
                and (project is None or run_project == project)
                and scope.allows(run_project)
            )

        return [row for row in self.runs if kept(row)][:fetch]
