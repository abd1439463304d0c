"""reproduce and diff: the recipe of a model or checkpoint, and what changed between two runs.

Both read through the `read.recipe_reads.RecipeReads` port (scope applied by the reader: an
unreadable node is a missing node and is never traversed) and answer JSON-serialisable dicts.
"""

from __future__ import annotations

from typing import Any

from provgraph.query.errors import InvalidArgumentError, missing_sides
from provgraph.query.read.model import Scope
from provgraph.query.read.recipe_reads import RecipeReads, Record
from provgraph.query.recipes.diffing import CAUSES, RunFacts, causes, compare, next_pair, run_facts
from provgraph.query.recipes.recipe_build import RecipeBuilder, checkpoint_view, target_view
from provgraph.query.recipes.version_steps import open_steps, version_pairs

# What each query may be asked about.
_REPRODUCIBLE = ("ModelVersion", "Checkpoint")
_DIFFABLE = ("Run", "ModelVersion")


class Recipes:
    """`reproduce` and `diff` over a `RecipeReads`."""

    def __init__(self, reads: RecipeReads, *, max_levels: int = 5) -> None:
        self._reads = reads
        self.max_levels = max_levels

    def reproduce(self, node_id: str, scope: Scope) -> dict[str, Any] | None:
        """The complete recipe of a model version or checkpoint; None when it is missing."""
        artifact = self._reads.artifact(node_id, scope)
        if artifact is None:
            return None
        kind = artifact["type"]
        if kind not in _REPRODUCIBLE:
            raise InvalidArgumentError(
                f"reproduce takes a model version or a checkpoint, not a {kind}", id=node_id
            )
        builder = RecipeBuilder(self._reads, scope, self.max_levels)
        props = artifact["props"]
        builder.flag(props)
        exported = artifact["exported"]
        if kind == "ModelVersion" and not exported:
            builder.gap(node_id, "no checkpoint recorded as exported from")
        for checkpoint in exported:
            builder.flag(checkpoint)
        maker = (artifact["runs"] or [None])[0]
        if maker is None:
            builder.gap(node_id, "no producing run")
        step = props.get("step") if kind == "Checkpoint" else None
        run = builder.run(maker, 0, step)
        return {
            "target": target_view(kind, props),
            "exported_from": checkpoint_view(exported[0]) if exported else None,
            "run": run,
            "datasets": sorted(builder.datasets),
            "gaps": builder.gaps,
        }

    def diff(self, a: str, b: str, scope: Scope) -> dict[str, Any]:
        """Two runs or two model versions compared, and the chain walked up to where the
        difference started; `not_found` naming the side(s) missing (or unreadable)."""
        left, right = self._reads.artifact(a, scope), self._reads.artifact(b, scope)
        if left is None or right is None:
            raise missing_sides({"a": (a, left), "b": (b, right)})
        kind = left["type"]
        if kind != right["type"] or kind not in _DIFFABLE:
            raise InvalidArgumentError(
                "diff takes two runs or two model versions",
                a=left["type"],
                b=right["type"],
            )
        run_a, run_b = (a, b) if kind == "Run" else (_maker(left), _maker(right))
        chain, first_facts = self._chain(scope, run_a, run_b)
        first = next((step for step in chain if step["differs"]), None)
        compared = compare(*first_facts)
        return {
            "a": a,
            "b": b,
            "kind": "run" if kind == "Run" else "model_version",
            "runs": {"a": run_a, "b": run_b},
            **compared,
            **self._version_steps(compared["inputs"], scope),
            "chain": chain,
            "first_difference": first,
        }

    def _chain(
        self, scope: Scope, run_a: str | None, run_b: str | None
    ) -> tuple[list[dict[str, Any]], tuple[RunFacts, RunFacts]]:
        """Compare level by level up the base-model chain, at most `max_levels` levels."""
        chain: list[dict[str, Any]] = []
        first: tuple[RunFacts, RunFacts] | None = None
        pair: tuple[str | None, str | None] | None = (run_a, run_b)
        seen: set[tuple[str | None, str | None]] = set()
        while pair is not None and len(chain) < self.max_levels and pair not in seen:
            seen.add(pair)
            facts = (self._facts(pair[0], scope), self._facts(pair[1], scope))
            first = first or facts
            found = causes(*facts)
            chain.append(_level(len(chain), pair, found))
            _, pair = next_pair(*facts)
        assert first is not None
        return chain, first

    def _version_steps(self, inputs: dict[str, Any], scope: Scope) -> dict[str, Any]:
        """`dataset_versions`: each step from one version of a dataset to another between the
        two runs, both versions' recorded facts side by side; absent when there is none (the
        answers of other diffs stay as they were)."""
        pairs = version_pairs(inputs)
        if not pairs:
            return {}
        nodes, edges = self._reads.derivation(sorted({p[s] for p in pairs for s in "ab"}), scope)
        return {"dataset_versions": open_steps(pairs, nodes, edges)}

    def _facts(self, run_id: str | None, scope: Scope) -> RunFacts:
        return run_facts(self._reads.run(run_id, scope) if run_id is not None else None)


def _maker(artifact: Record) -> str | None:
    runs = artifact["runs"]
    return str(runs[0]) if runs else None


def _level(level: int, pair: tuple[str | None, str | None], found: list[str]) -> dict[str, Any]:
    summary = f"{', '.join(found)} differ" if found else "same " + ", ".join(CAUSES)
    return {
        "level": level,
        "a": pair[0],
        "b": pair[1],
        "differs": bool(found),
        "aspects": found,
        "summary": summary,
    }
