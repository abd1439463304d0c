"""`RecipeReads` in memory: artifacts and runs as the recipe reads answer them, and dataset
versions with the derivations between them."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from provgraph.query.read.model import Scope
from provgraph.query.read.recipe_reads import DERIVATION_DEPTH, Record


class FakeRecipeReads:
    """`artifacts` maps an id to {type, props, runs, exported}, `runs` a run id to {run,
    inputs, environments, bases, resumes}, `versions` a dataset version id to its properties;
    `derived` are edges {src, dst, transform} (src derived from dst). A record is readable by
    the `project` of its properties."""

    def __init__(
        self,
        artifacts: Mapping[str, Record] | None = None,
        runs: Mapping[str, Record] | None = None,
        versions: Mapping[str, Record] | None = None,
        derived: Sequence[Record] = (),
    ) -> None:
        self.artifacts = dict(artifacts or {})
        self.stored_runs = dict(runs or {})
        self.versions = dict(versions or {})
        self.derived = list(derived)

    def artifact(self, node_id: str, scope: Scope) -> Record | None:
        found = self.artifacts.get(node_id)
        return found if found is not None and scope.allows(found["props"].get("project")) else None

    def run(self, run_id: str, scope: Scope) -> Record | None:
        found = self.stored_runs.get(run_id)
        return found if found is not None and scope.allows(found["run"].get("project")) else None

    def derivation(self, ids: Sequence[str], scope: Scope) -> tuple[list[Record], list[Record]]:
        def readable(version_id: str) -> bool:
            found = self.versions.get(version_id)
            return found is not None and scope.allows(found.get("project"))

        reached = [i for i in dict.fromkeys(ids) if readable(i)]
        frontier = list(reached)
        for _ in range(DERIVATION_DEPTH):
            frontier = [
                e["dst"]
                for e in self.derived
                if e["src"] in frontier and e["dst"] not in reached and readable(e["dst"])
            ]
            reached += list(dict.fromkeys(frontier))
        inside = set(reached)
        edges = [e for e in self.derived if e["src"] in inside and e["dst"] in inside]
        return [self.versions[i] for i in reached], edges
